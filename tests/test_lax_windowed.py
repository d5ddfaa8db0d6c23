"""reduce_window_{sum,max,min}, the generic reduce_window and the cumulative reductions:
NumPy kernels vs XLA vs jit vs vmap, derivatives vs finite differences, errors."""

import numpy as np
import pytest

from minijax import jit, lax
from minijax.test_util import check_grads, check_primitive

SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0]
TOL = {np.float16: 1e-2, np.float32: 1e-5}


def _values(shape, dtype, seed=0, specials=True):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.choice(np.array([info.min, info.max, 0, 1, 3], dtype), n).reshape(shape)
    x = rng.standard_normal(n)
    if specials:
        x[:min(n, len(SPECIAL))] = SPECIAL[:n]
    return rng.permutation(x).reshape(shape).astype(dtype)


def _distinct(shape, seed=0):
    """Distinct values, so that every window has a unique maximum and minimum."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) * 0.37 - n * 0.1).reshape(shape)


# (window_dimensions, window_strides, padding, base_dilation, window_dilation), shape
CONFIGS = [
    (((2, 2), (1, 1), "VALID", None, None), (4, 5)),
    (((3, 3), (2, 2), "SAME", None, None), (5, 6)),                  # overlapping, strided
    (((2, 3), (1, 2), ((1, 2), (0, 1)), (2, 1), (1, 2)), (3, 5)),    # dilations, padding
    (((1, 2), (1, 1), ((0, 0), (-1, 1)), None, None), (3, 4)),       # negative padding
    (((3,), (1,), ((2, 2),), None, (2,)), (4,)),
    (((2,), (1,), "VALID", None, None), (0,)),                        # empty operand
    (((), (), (), None, None), ()),                                   # 0-d
]
NP = {"reduce_window_sum": np.sum, "reduce_window_max": np.max, "reduce_window_min": np.min}


def _np_reference(name, x, window, strides, padding, base, wdil):
    """A direct loop over output positions (independent of the kernels)."""
    nd = x.ndim
    base = base or (1,) * nd
    wdil = wdil or (1,) * nd
    dtype = x.dtype
    if name == "reduce_window_sum":
        init = np.zeros((), dtype)
    elif dtype == np.bool_:
        init = np.asarray(name == "reduce_window_min")
    elif dtype.kind == "f":
        init = np.asarray(-np.inf if name == "reduce_window_max" else np.inf, dtype)
    else:
        info = np.iinfo(dtype)
        init = np.asarray(info.min if name == "reduce_window_max" else info.max, dtype)
    if isinstance(padding, str):
        padding = lax.padtype_to_pads([(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)],
                                      [(w - 1) * d + 1 for w, d in zip(window, wdil)],
                                      strides, padding)
    dil_shape = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
    padded_shape = [d + lo + hi for d, (lo, hi) in zip(dil_shape, padding)]
    out_shape = [max(0, (p - ((w - 1) * d + 1)) // s + 1) if p >= (w - 1) * d + 1 else 0
                 for p, w, d, s in zip(padded_shape, window, wdil, strides)]
    out = np.empty(out_shape, dtype)
    for o in np.ndindex(*out_shape):
        vals = []
        for k in np.ndindex(*window):
            pos = [oi * s + ki * d - lo for oi, s, ki, d, (lo, _) in
                   zip(o, strides, k, wdil, padding)]
            if all(0 <= p < n and p % b == 0 for p, n, b in zip(pos, dil_shape, base)):
                vals.append(x[tuple(p // b for p, b in zip(pos, base))])
            else:
                vals.append(init)
        with np.errstate(all="ignore"):
            out[o] = NP[name](np.array(vals + [init], dtype)) if name != "reduce_window_sum" \
                else np.sum(np.array(vals, dtype), dtype=dtype)
    return out


@pytest.mark.parametrize("name", sorted(NP))
@pytest.mark.parametrize("config,shape", CONFIGS)
def test_reduce_window_cross_check(name, config, shape):
    # float32 always, and one more dtype per configuration (all of them over the table)
    others = [np.int32, np.uint8, np.float16, np.bool_, np.float64]
    extra = others[CONFIGS.index((config, shape)) % len(others)]
    if extra == np.bool_ and name == "reduce_window_sum":
        extra = np.int8
    for dtype in (np.float32, extra):
        x = _values(shape, dtype, seed=len(shape))
        fn = getattr(lax, name)
        out = check_primitive(lambda a: fn(a, *config), [x], rtol=TOL.get(dtype, 0))
        np.testing.assert_allclose(out, _np_reference(name, x, *config),
                                   rtol=TOL.get(dtype, 0))
        assert out.dtype == dtype


# every window holds at least one operand element (finite differences need finite outputs)
GRAD_CONFIGS = CONFIGS[:2] + [
    (((2, 3), (1, 2), ((1, 0), (0, 1)), (2, 1), (1, 2)), (3, 5)),
    (((1, 2), (1, 1), ((0, 0), (-1, 1)), None, None), (3, 4)),
    (((3,), (1,), ((2, 2),), None, (2,)), (5,)),
]


@pytest.mark.parametrize("name", sorted(NP))
@pytest.mark.parametrize("config,shape", GRAD_CONFIGS)
def test_reduce_window_grads(name, config, shape):
    x = _distinct(shape, seed=len(shape))
    fn = getattr(lax, name)
    check_grads(lambda a: fn(a, *config), [x], order=2)


def test_max_pool_overlapping_windows_gradient():
    """A value that is the maximum of several overlapping windows gets all their cotangents."""
    from minijax import grad
    x = np.array([[0.1, 0.2, 0.3], [0.4, 9.0, 0.5], [0.6, 0.7, 0.8]])
    g = grad(lambda a: lax.reduce_sum(lax.reduce_window_max(a, (2, 2), (1, 1), "VALID")))(x)
    expected = np.zeros_like(x)
    expected[1, 1] = 4.0
    np.testing.assert_array_equal(np.asarray(g), expected)
    check_grads(lambda a: lax.reduce_window_max(a, (2, 2), (1, 1), "VALID") ** 2, [x], order=2)


def test_generic_reduce_window():
    x = _distinct((4, 5))
    for comp, fn, init in ((lax.add, lax.reduce_window_sum, 0.0),
                           (lax.max, lax.reduce_window_max, -np.inf),
                           (lax.min, lax.reduce_window_min, np.inf)):
        out = check_primitive(lambda a: lax.reduce_window(a, init, comp, (2, 3), (1, 2),
                                                          "SAME"), [x])
        np.testing.assert_array_equal(out, fn(x, (2, 3), (1, 2), "SAME"))
    # an init value that is not the identity enters once per window
    out = check_primitive(lambda a: lax.reduce_window(a, 0.5, lax.max, (2, 2), (1, 1),
                                                      "VALID"), [x])
    np.testing.assert_array_equal(out, np.maximum(
        np.asarray(lax.reduce_window_max(x, (2, 2), (1, 1), "VALID")), 0.5))
    out = jit(lambda a, i: lax.reduce_window(a, i, lax.add, (2, 2), (1, 1), "VALID"))(
        x.astype(np.float32), 1.0)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.asarray(lax.reduce_window_sum(x, (2, 2))) + 1.0,
                               rtol=1e-6)


@pytest.mark.parametrize("shape,window,strides", [((5, 6), (3, 3), (2, 2)), ((7,), (2,), (3,)),
                                                  ((4,), (4,), (1,)), ((1, 8), (1, 5), (1, 4))])
def test_padtype_to_pads(shape, window, strides):
    valid = lax.padtype_to_pads(shape, window, strides, "VALID")
    assert valid == tuple((0, 0) for _ in shape)
    for mode in ("SAME", "SAME_LOWER"):
        pads = lax.padtype_to_pads(shape, window, strides, mode)
        out = np.asarray(lax.reduce_window_sum(np.ones(shape), window, strides, pads)).shape
        assert out == tuple(-(-n // s) for n, s in zip(shape, strides))     # ceil(n / s)
        for lo, hi in pads:
            assert 0 <= hi - lo <= 1 if mode == "SAME" else 0 <= lo - hi <= 1


def test_reduce_window_errors():
    x = np.zeros((3, 4))
    with pytest.raises(ValueError, match="lax.reduce_window_max.*window_dimensions"):
        lax.reduce_window_max(x, (2,))
    with pytest.raises(ValueError, match="lax.reduce_window_sum.*padding"):
        lax.reduce_window_sum(x, (2, 2), (1, 1), "FULL")
    with pytest.raises(ValueError, match="lax.reduce_window_min.*window_strides"):
        lax.reduce_window_min(x, (2, 2), (1,))
    with pytest.raises(ValueError, match="lax.reduce_window_sum.*positive"):
        lax.reduce_window_sum(x, (2, 0))
    with pytest.raises(ValueError, match="lax.reduce_window_max.*crops"):
        lax.reduce_window_max(x, (1, 1), (1, 1), ((-4, 0), (0, 0)))
    with pytest.raises(TypeError, match="lax.reduce_window_sum"):
        lax.reduce_window_sum(np.zeros((2, 2), bool), (1, 1))
    with pytest.raises(TypeError, match="lax.reduce_window.*computation"):
        lax.reduce_window(x, 1.0, lax.mul, (2, 2), (1, 1), "VALID")
    with pytest.raises(ValueError, match="lax.reduce_window.*init_value"):
        lax.reduce_window(x, np.zeros(2), lax.add, (2, 2), (1, 1), "VALID")


def test_reduce_window_vmap_of_grad():
    from minijax import grad, vmap
    xs = np.stack([_distinct((4, 4), seed=i) for i in range(3)], axis=1)

    def loss(a):
        return lax.reduce_sum(lax.reduce_window_max(a, (2, 2), (2, 2), "VALID") ** 2)
    batched = vmap(grad(loss), in_axes=1, out_axes=1)(xs)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(batched)[:, i], np.asarray(grad(loss)(xs[:, i])))


# ---------------------------------------------------------------- cumulative reductions

CUM = {"cumsum": (np.cumsum, "iufc"), "cumprod": (np.cumprod, "iufc"),
       "cummax": (np.maximum.accumulate, "biuf"), "cummin": (np.minimum.accumulate, "biuf"),
       "cumlogsumexp": (np.logaddexp.accumulate, "f")}


def _np_cum(name, x, axis, reverse):
    fn = CUM[name][0]
    y = np.flip(x, axis) if reverse else x
    with np.errstate(all="ignore"):
        out = fn(y, axis=axis, dtype=x.dtype) if y.shape[axis] else y
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("name", sorted(CUM))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_,
                                   np.float16])
def test_cumulative_cross_check(name, dtype):
    fn = getattr(lax, name)
    if np.dtype(dtype).kind not in CUM[name][1]:
        with pytest.raises(TypeError, match=f"lax.{name}"):
            fn(np.zeros(3, dtype))
        return
    tol = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-12}.get(dtype, 0)
    cases = [((7,), 0, False), ((3, 4), 1, True)]
    if np.dtype(dtype).kind == "f":
        cases += [((3, 4), 0, False), ((2, 0), 1, False)]
    for shape, axis, reverse in cases:
        x = _values(shape, dtype, seed=shape[0])
        if name == "cumprod" and np.dtype(dtype).kind == "f":
            with np.errstate(invalid="ignore"):
                x = np.where(np.abs(x) > 4, x, x % 2)   # keep the products in range
        out = check_primitive(lambda a: fn(a, axis, reverse), [x], rtol=tol, atol=tol)
        np.testing.assert_allclose(out, _np_cum(name, x, axis, reverse), rtol=tol, atol=tol)
        assert out.dtype == dtype


@pytest.mark.parametrize("name", sorted(CUM))
@pytest.mark.parametrize("axis,reverse", [(0, False), (1, True)])
def test_cumulative_grads(name, axis, reverse):
    x = _distinct((3, 5), seed=axis) * 0.5
    check_grads(lambda a: getattr(lax, name)(a, axis, reverse), [x], order=2)


def test_cumulative_grads_special_points():
    # cumprod with zeros (no division), cumlogsumexp with ties and large magnitudes
    x = np.array([[1.5, 0.0, -2.0, 0.0, 0.7], [0.0, 0.9, 1.1, -0.6, 1.3]])
    check_grads(lambda a: lax.cumprod(a, 1), [x], order=2)
    check_grads(lambda a: lax.cumprod(a, 1, reverse=True), [x], order=2)
    y = np.array([[0.0, 0.0, 300.0, -300.0, 300.0]])
    check_grads(lambda a: lax.cumlogsumexp(a, 1), [y], order=2)
    out = check_primitive(lambda a: lax.cumlogsumexp(a, 1), [np.array([[-np.inf, -np.inf, 1.0,
                                                                       np.inf, 2.0]])])
    np.testing.assert_array_equal(out, [[-np.inf, -np.inf, 1.0, np.inf, np.inf]])


def test_cumsum_transpose_is_reversed_cumsum():
    from minijax import vjp
    x = _distinct((6,))
    ct = np.arange(6.0)
    for reverse in (False, True):
        _, f_vjp = vjp(lambda a: lax.cumsum(a, 0, reverse), x)
        np.testing.assert_allclose(np.asarray(f_vjp(ct)[0]), _np_cum("cumsum", ct, 0, not reverse))


def test_cumulative_errors():
    for name in CUM:
        with pytest.raises(ValueError, match=f"lax.{name}"):
            getattr(lax, name)(np.zeros((2, 3)), 2)
        with pytest.raises(ValueError, match=f"lax.{name}"):
            getattr(lax, name)(np.zeros(()), 0)


@pytest.mark.parametrize("name", ["maxpool", "minpool", "sumpool", "prod", "cumprod", "cummax",
                                  "cumlogsumexp"])
def test_derivatives_under_jit(name):
    """First and second derivatives compiled by XLA agree with the NumPy-kernel ones
    (exercises the lowering of everything the derivative rules emit)."""
    from minijax import grad
    f = {
        "maxpool": lambda a: lax.reduce_window_max(a, (3, 3), (2, 1), "SAME", None, (1, 2)),
        "minpool": lambda a: lax.reduce_window_min(a, (2, 2), (1, 1), ((1, -1), (0, 1)), (2, 1)),
        "sumpool": lambda a: lax.reduce_window_sum(a, (2, 3), (2, 2), ((1, -1), (0, 1)), (2, 1),
                                                   (1, 2)),
        "prod": lambda a: lax.reduce_prod(a, (1,)),
        "cumprod": lambda a: lax.cumprod(a, 1, True),
        "cummax": lambda a: lax.cummax(a, 0),
        "cumlogsumexp": lambda a: lax.cumlogsumexp(a, 1),
    }[name]
    x = _distinct((4, 5)) * 0.3
    x[1, 2] = x[3, 3] = 0.0

    def loss(a):
        return lax.reduce_sum(f(a) ** 2)

    def loss2(a):
        return lax.reduce_sum(grad(loss)(a) ** 2)
    # second derivatives compile large programs: one case is enough for their lowering
    for fn in (grad(loss), grad(loss2)) if name == "cumprod" else (grad(loss),):
        np.testing.assert_allclose(np.asarray(jit(fn)(x)), np.asarray(fn(x)), rtol=1e-12,
                                   atol=1e-12)
