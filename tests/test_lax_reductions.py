import numpy as np
import pytest

from minijax import lax
from minijax.test_util import check_primitive

CASES = [((), ()), ((0, 3), (0,)), ((4,), (0,)), ((2, 3), (1,)), ((2, 3, 4), (0, 2))]


@pytest.mark.parametrize("shape,axes", CASES)
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8])
@pytest.mark.parametrize("name,np_op", [("reduce_and", np.bitwise_and),
                                        ("reduce_or", np.bitwise_or)])
def test_reduce_and_or(name, np_op, shape, axes, dtype):
    x = np.random.default_rng(0).integers(0, 4, shape).astype(dtype)
    out = check_primitive(lambda a: getattr(lax, name)(a, axes), [x])
    if x.size:
        np.testing.assert_array_equal(out, np_op.reduce(x, axis=axes) if axes else x)


@pytest.mark.parametrize("name", ["reduce_and", "reduce_or"])
def test_reduce_and_or_rejects_float(name):
    with pytest.raises(TypeError, match=f"lax.{name}"):
        getattr(lax, name)(np.zeros(3, np.float32), (0,))


# ---------------------------------------------------------------- issue 3, reductions part

from minijax.test_util import check_grads  # noqa: E402

SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.0, 3.0]
TOL = {np.float16: 1e-2, np.float32: 1e-5, np.complex64: 1e-5}


def _values(shape, dtype, seed=0):
    """Random values of ``dtype`` with the special values (floats) or the extremes
    (integers) mixed in."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 2, 3], dtype)
        return rng.choice(pool, n).reshape(shape)
    x = rng.standard_normal(n)
    x[:min(n, len(SPECIAL))] = SPECIAL[:n]
    x = rng.permutation(x).reshape(shape)
    if dtype.kind == "c":
        # complex arithmetic on infinities differs between NumPy and XLA: finite values
        z = np.empty(shape, dtype)
        z.real, z.imag = np.nan_to_num(x, nan=0.5, posinf=2, neginf=-2), rng.standard_normal(shape)
        return z
    return x.astype(dtype)


@pytest.mark.parametrize("shape,axes", CASES + [((2, 3), ())])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.complex64])
def test_reduce_prod(shape, axes, dtype):
    x = _values(shape, dtype)
    out = check_primitive(lambda a: lax.reduce_prod(a, axes), [x], rtol=TOL.get(dtype, 1e-12))
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(out, np.prod(x, axis=axes, dtype=dtype),
                                   rtol=TOL.get(dtype, 1e-12))


@pytest.mark.parametrize("x,axes", [
    (np.array([1.5, 0.0, -2.0, 0.7]), (0,)),                      # one zero
    (np.array([[0.0, 1.2, 0.0], [0.9, -1.1, 2.0]]), (1,)),        # two zeros in a row
    (np.array([[0.0, 1.2, 0.3], [0.9, 0.0, 2.0]]), (0, 1)),
    (np.array([[[0.5, 1.3], [0.0, 1.1]], [[2.0, -0.4], [1.7, 0.8]]]), (0, 2)),
    (np.array([[0.5, 1.3, 0.8]]), ()),
])
def test_reduce_prod_grads_with_zeros(x, axes):
    check_grads(lambda a: lax.reduce_prod(a, axes), [x], order=2)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8,
                                   np.bool_])
def test_argmax_argmin(name, dtype):
    np_fn = getattr(np, name)
    for shape, axis in [((7,), 0), ((2, 3, 4), 1)]:
        x = _values(shape, dtype, seed=len(shape))
        out = check_primitive(lambda a: getattr(lax, name)(a, axis, np.int32), [x])
        np.testing.assert_array_equal(out, np_fn(x, axis=axis))
        assert out.dtype == np.int32


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_nan_and_ties(name):
    np_fn = getattr(np, name)
    x = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 1.0, 1.0], [-np.inf, -np.inf, -np.inf,
                  -np.inf], [np.inf, 0.0, np.inf, -0.0], [0.0, -0.0, 0.0, -0.0]])
    for index_dtype in (np.int32, np.int64, np.uint8):
        out = check_primitive(lambda a: getattr(lax, name)(a, 1, index_dtype), [x])
        np.testing.assert_array_equal(out, np_fn(x, axis=1))
        assert out.dtype == index_dtype
    from minijax import jvp
    _, t = jvp(lambda a: getattr(lax, name)(a, 0, np.int32), (x[1],), (np.ones(4),))
    assert not np.any(np.asarray(t))


def test_argmax_errors():
    with pytest.raises(ValueError, match="lax.argmax"):
        lax.argmax(np.zeros((2, 3)), 2, np.int32)
    with pytest.raises(ValueError, match="lax.argmin"):
        lax.argmin(np.zeros((2, 3)), -3, np.int32)
    with pytest.raises(TypeError, match="lax.argmax.*index_dtype"):
        lax.argmax(np.zeros((2, 3)), 0, np.float32)
    with pytest.raises(ValueError, match="lax.argmax.*empty"):
        lax.argmax(np.zeros((0, 3)), 0, np.int32)
    with pytest.raises(TypeError, match="lax.argmin"):
        lax.argmin(np.zeros(3, np.complex64), 0, np.int32)


def test_reduce_prod_errors():
    with pytest.raises(TypeError, match="lax.reduce_prod"):
        lax.reduce_prod(np.zeros(3, bool), (0,))
    with pytest.raises(ValueError, match="lax.reduce_prod"):
        lax.reduce_prod_p.bind(np.zeros(3), axes=(1,))


@pytest.mark.parametrize("name,np_fn", [("reduce_max", np.max), ("reduce_min", np.min),
                                        ("reduce_sum", np.sum), ("reduce_prod", np.prod)])
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.float16, np.complex128])
def test_identities_and_edge_shapes(name, np_fn, dtype):
    """Reductions over empty axes give the identity; empty axes tuples are no-ops; 0-d."""
    kinds = {"reduce_max": "biufc", "reduce_min": "biufc", "reduce_sum": "iufc",
             "reduce_prod": "iufc"}[name]
    if np.dtype(dtype).kind not in kinds:
        with pytest.raises(TypeError, match=name):
            getattr(lax, name)(np.zeros(3, dtype), (0,))
        return
    fn = getattr(lax, name)
    for shape, axes in [((0, 3), (0,)), ((2, 3), ()), ((), ())]:
        x = _values(shape, dtype, seed=3)
        out = check_primitive(lambda a: fn(a, axes), [x], rtol=TOL.get(dtype, 1e-12))
        if name in ("reduce_max", "reduce_min"):
            if dtype == np.bool_:
                identity = name == "reduce_min"
            elif np.dtype(dtype).kind in "fc":
                identity = -np.inf if name == "reduce_max" else np.inf
            else:
                info = np.iinfo(dtype)
                identity = info.min if name == "reduce_max" else info.max
            expected = np_fn(x, axis=axes, initial=identity)
        else:
            with np.errstate(all="ignore"):
                expected = np_fn(x, axis=axes, dtype=dtype)
        np.testing.assert_allclose(out, expected, rtol=TOL.get(dtype, 1e-12))
        assert out.dtype == dtype


def test_reduce_sum_complex():
    x = np.array([[1 + 2j, -0.5 + 0.1j], [0.3 - 1j, 2j]])
    out = check_primitive(lambda a: lax.reduce_sum(a, (1,)), [x])
    np.testing.assert_allclose(out, x.sum(1))


# ---------------------------------------------------------------- dot_general preferred type

DN = (((1,), (0,)), ((), ()))


@pytest.mark.parametrize("dtype,preferred", [(np.int8, np.int32), (np.uint8, np.int32),
                                             (np.int8, np.float32), (np.float16, np.float32),
                                             (np.float32, np.float64), (np.bool_, np.int32),
                                             (np.complex64, np.complex128)])
def test_dot_general_preferred_element_type(dtype, preferred):
    a, b = _values((2, 3), dtype, 1), _values((3, 4), dtype, 2)
    if np.dtype(dtype).kind in "iu":
        a, b = a // 2, b // 2
    if np.dtype(dtype).kind in "fc":
        a, b = np.nan_to_num(a, posinf=5, neginf=-5), np.nan_to_num(b, posinf=5, neginf=-5)
    out = check_primitive(lambda x, y: lax.dot_general(x, y, DN, preferred_element_type=preferred),
                          [a, b], rtol=1e-6)
    assert out.dtype == preferred
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(out, a.astype(preferred) @ b.astype(preferred), rtol=1e-6)
    if dtype in (np.int8, np.float16):   # batch dimensions keep the preferred type too
        bn = (((2,), (1,)), ((0,), (0,)))
        a3, b3 = np.stack([a, a]), np.stack([b, b])
        out = check_primitive(lambda x, y: lax.dot_general(x, y, bn, preferred_element_type=preferred),
                              [a3, b3], rtol=1e-6)
        assert out.dtype == preferred


@pytest.mark.parametrize("dtype,preferred", [(np.float16, np.float32), (np.float32, np.float64)])
def test_dot_general_preferred_grads(dtype, preferred):
    from minijax import vjp
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)).astype(dtype), rng.standard_normal((3, 4)).astype(dtype)

    def f(x, y):
        return lax.dot_general(x, y, DN, preferred_element_type=preferred)
    out, f_vjp = vjp(f, a, b)
    assert out.dtype == preferred
    ct = np.ones((2, 4), preferred)
    ca, cb = f_vjp(ct)
    assert ca.dtype == dtype and cb.dtype == dtype
    np.testing.assert_allclose(ca, (ct @ b.astype(preferred).T).astype(dtype), rtol=1e-3)
    np.testing.assert_allclose(cb, (a.astype(preferred).T @ ct).astype(dtype), rtol=1e-3)
    if dtype == np.float32:
        check_grads(f, [a.astype(np.float64), b.astype(np.float64)], order=2)


def test_dot_general_preferred_errors():
    with pytest.raises(TypeError, match="lax.dot_general.*preferred_element_type"):
        lax.dot_general(np.ones((2, 2)), np.ones((2, 2)), DN, preferred_element_type=np.int32)
    with pytest.raises(TypeError, match="lax.dot_general.*narrower"):
        lax.dot_general(np.ones((2, 2)), np.ones((2, 2)), DN, preferred_element_type=np.float32)
