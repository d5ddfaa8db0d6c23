"""lax.sort, sort_key_val and top_k: NumPy kernel vs XLA vs jit, vmap, gradients, errors."""

import numpy as np
import pytest

from minijax import api, dtypes, lax
from minijax.test_util import check_grads, check_primitive, check_vmap_each_axis

SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 1.0, 0.0, -0.0, 0.5,
            np.nan, -2.5, 3.0, -0.0]


def _specials(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    vals = np.resize(np.array(SPECIALS, dtype), n)
    return rng.permutation(vals).reshape(shape)


# ---------------------------------------------------------------- sort

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sort_floats(dtype):
    x = _specials(dtype, (4, 16))
    for dim in (0, 1):
        iota = np.broadcast_to(np.arange(x.shape[dim]).reshape((-1, 1) if dim == 0 else (1, -1)),
                               x.shape).astype(np.int32)
        values, perm = check_primitive(lambda a, b: lax.sort((a, b), dimension=dim),
                                       [x, iota], batch_size=0)
        # NumPy's order: NaNs last, -0.0 and 0.0 tie, ties keep their input order.
        np.testing.assert_array_equal(np.asarray(values), np.sort(x, axis=dim))
        np.testing.assert_array_equal(np.asarray(perm), np.argsort(x, axis=dim, kind="stable"))
    check_vmap_each_axis(lambda a: lax.sort(a, 0), [x])


@pytest.mark.parametrize("dtype", [np.float16, dtypes.bfloat16])
def test_sort_and_top_k_half_precision(dtype):
    x = _specials(np.float32, (2, 16)).astype(dtype)
    iota = np.broadcast_to(np.arange(16, dtype=np.int32), x.shape)
    values, perm = check_primitive(lax.sort_key_val, [x, iota], batch_size=0)
    x32 = x.astype(np.float32)
    np.testing.assert_array_equal(np.asarray(perm), np.argsort(x32, axis=-1, kind="stable"))
    top = check_primitive(lambda a: lax.top_k(a, 16), [x], batch_size=0)
    ref = check_primitive(lambda a: lax.top_k(a, 16), [x32], batch_size=0)
    np.testing.assert_array_equal(np.asarray(top[1]), np.asarray(ref[1]))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32,
                                   np.uint64, np.bool_])
def test_sort_integers_and_bool(dtype):
    if dtype == np.bool_:
        x = np.random.default_rng(1).integers(0, 2, (3, 9)).astype(bool)
    else:
        info = np.iinfo(dtype)
        vals = np.array([info.min, info.max, 0, 1, info.max - 1, 7, 1, info.min + 1, 0],
                        dtype)
        x = np.stack([np.random.default_rng(i).permutation(vals) for i in range(3)])
    iota = np.broadcast_to(np.arange(9, dtype=np.int32), x.shape)
    values, perm = check_primitive(lambda a, b: lax.sort_key_val(a, b), [x, iota],
                                   batch_size=0)
    np.testing.assert_array_equal(np.asarray(values), np.sort(x, axis=-1))
    np.testing.assert_array_equal(np.asarray(perm), np.argsort(x, axis=-1, kind="stable"))
    check_vmap_each_axis(lambda a, b: lax.sort_key_val(a, b, dimension=0), [x, iota])


def test_sort_complex():
    parts = np.array([np.nan, 1.0, -1.0, 0.0, np.inf])
    re, im = np.meshgrid(parts, parts)
    x = np.empty(re.size, np.complex128)
    x.real, x.imag = re.ravel(), im.ravel()
    x = np.random.default_rng(2).permutation(x)
    x = np.concatenate([x, x[::2]])     # with ties
    iota = np.arange(x.size)
    for dtype in (np.complex64, np.complex128):
        # NumPy's order: [R + Rj, R + nanj, nan + Rj, nan + nanj].
        values, perm = check_primitive(lax.sort_key_val, [x.astype(dtype), iota],
                                       batch_size=0)
        np.testing.assert_array_equal(np.asarray(values), np.sort(x.astype(dtype)))
        np.testing.assert_array_equal(np.asarray(perm), np.argsort(x.astype(dtype),
                                                                   kind="stable"))


@pytest.mark.parametrize("num_keys", [1, 2, 3])
def test_sort_several_operands(num_keys):
    rng = np.random.default_rng(num_keys)
    k1 = rng.integers(0, 3, (5, 12)).astype(np.int32)
    k2 = _specials(np.float64, (5, 12), seed=1)
    k3 = rng.integers(0, 2, (5, 12)).astype(bool)
    iota = np.broadcast_to(np.arange(12, dtype=np.int64), (5, 12))
    ops = [k1, k2, k3, iota]
    outs = check_primitive(lambda *a: lax.sort(a, num_keys=num_keys), ops, batch_size=0)
    perm = np.lexsort(ops[:num_keys][::-1], axis=-1)
    for o, x in zip(outs, ops):
        np.testing.assert_array_equal(np.asarray(o), np.take_along_axis(x, perm, -1))
    check_vmap_each_axis(lambda *a: lax.sort(a, dimension=1, num_keys=num_keys), ops[:3])


def test_sort_unstable_distinct_keys():
    x = np.random.default_rng(4).permutation(50).astype(np.float32).reshape(5, 10)
    v = np.arange(50.0).reshape(5, 10)
    outs = check_primitive(lambda a, b: lax.sort((a, b), 0, is_stable=False), [x, v],
                           batch_size=0)
    np.testing.assert_array_equal(np.asarray(outs[1]),
                                  np.take_along_axis(v, np.argsort(x, 0), 0))


def test_sort_empty_and_small():
    check_primitive(lambda a: lax.sort(a, 0), [np.zeros((0, 3))], batch_size=0)
    check_primitive(lambda a: lax.sort(a, 1), [np.zeros((2, 0), np.int32)], batch_size=0)
    check_primitive(lax.sort, [np.array([2.0])], batch_size=0)
    check_primitive(lambda a: lax.top_k(a, 0), [np.ones((3, 0))], batch_size=0)
    check_primitive(lambda a: lax.top_k(a, 2), [np.ones((0, 4))], batch_size=0)
    out = lax.sort([np.array([3, 1, 2])])
    assert isinstance(out, tuple) and len(out) == 1


def test_sort_grads():
    rng = np.random.default_rng(5)
    x, v = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    for dim in (0, 1):
        check_grads(lambda a: lax.sort(a, dim), [x], order=2)
    check_grads(lambda a, b: lax.sort_key_val(a, b), [x, v], order=2)
    k = np.array([[1.0, 0.0, 1.0, 0.0, 2.0]] * 3)     # ties broken by the second key
    check_grads(lambda a, b: lax.sort((k, a, b), num_keys=2), [x, v], order=2)


def test_sort_transpose_in_values():
    # sort is linear in its non-key operands: <sort(k, v), ct> == <v, transpose(ct)>.
    from minijax.core import get_aval
    from minijax.interpreters import ad
    from minijax.lax.sorting import sort_p
    rng = np.random.default_rng(7)
    k = np.array([[2.0, 0.0, 2.0, 1.0], [1.0, 1.0, 0.0, 3.0], [0.0, 1.0, 2.0, 3.0]])
    v, ct = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    for dim in (0, 1):
        out = np.asarray(lax.sort_key_val(k, v, dimension=dim)[1])
        undef = ad.UndefPrimal(get_aval(lax.convert_element_type(v, v.dtype)))
        params = dict(dimension=dim, is_stable=True, num_keys=1)
        ct_k, ct_v = sort_p.transpose([ad.Zero(undef.aval), ct], k, undef, **params)
        assert ct_k is None
        np.testing.assert_allclose(np.sum(out * ct), np.sum(v * np.asarray(ct_v)), rtol=1e-12)


def test_sort_grad_under_jit_and_vmap():
    rng = np.random.default_rng(6)
    x, v, ct = (rng.standard_normal((4, 6)) for _ in range(3))

    def loss(a, b):
        s, t = lax.sort_key_val(a, b, dimension=0)
        return lax.reduce_sum(lax.add(lax.mul(s, ct), lax.mul(lax.mul(t, t), ct)))
    g = api.grad(loss, argnums=(0, 1))
    for e, j in zip(g(x, v), api.jit(g)(x, v)):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-12)
    xs = np.stack([x, x[::-1]], 2)
    out = api.vmap(g, in_axes=(2, None))(xs, v)
    for k in range(2):
        for b, s in zip(out, g(xs[..., k], v)):
            np.testing.assert_allclose(np.asarray(b)[k], np.asarray(s), rtol=1e-12)


# ---------------------------------------------------------------- top_k

def _top_k_reference(x, k):
    """Largest first, ties by index; NumPy order on floats aside from NaN/-0.0."""
    flat = x.reshape(-1, x.shape[-1])
    idx = np.array([sorted(range(x.shape[-1]), key=lambda i: (-int(r[i]) if r.dtype.kind in "iu"
                                                              else -float(r[i]), i))[:k]
                    for r in flat], dtype=np.int32)
    idx = idx.reshape(x.shape[:-1] + (k,))
    return np.take_along_axis(x, idx, -1), idx


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int32, np.uint8,
                                   np.int64])
def test_top_k_ties(dtype):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        x = rng.integers(-3, 3, (3, 4, 10)).astype(dtype)
        x[0, 0, :4] = [np.inf, -np.inf, np.inf, 2]
    else:
        info = np.iinfo(dtype)
        x = rng.integers(0, 3, (3, 4, 10)).astype(dtype)
        x[0, 0, :4] = [info.max, info.min, info.max, info.min]
    ks = (0, 1, 4, 10)
    outs = check_primitive(lambda a: [lax.top_k(a, k) for k in ks], [x], batch_size=0)
    for k, (values, indices) in zip(ks, outs):
        ref_v, ref_i = _top_k_reference(x, k)
        np.testing.assert_array_equal(np.asarray(indices), ref_i)
        np.testing.assert_array_equal(np.asarray(values), ref_v)
        assert np.asarray(indices).dtype == np.int32
    check_vmap_each_axis(lambda a: lax.top_k(a, 3), [x[0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_top_k_specials(dtype):
    # IEEE totalOrder, as XLA: NaN > inf > ... > 0.0 > -0.0 > ... > -inf > -NaN.
    x = np.array([1.0, np.nan, -0.0, 0.0, -np.nan, 1.0, -np.inf, np.inf, 3.0, -2.0], dtype)
    values, indices = check_primitive(lambda a: lax.top_k(a, 10), [x], batch_size=0)
    np.testing.assert_array_equal(np.asarray(indices), [1, 7, 8, 0, 5, 3, 2, 9, 6, 4])
    assert np.signbit(np.asarray(values)[5:7]).tolist() == [False, True]
    check_primitive(lambda a: lax.top_k(a, 4), [_specials(dtype, (3, 16))], batch_size=0)


def test_top_k_grads():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 6))
    check_grads(lambda a: lax.top_k(a, 3), [x], order=2)   # the integer indices included
    ct = rng.standard_normal((2, 3, 3))
    g = api.grad(lambda a: lax.reduce_sum(lax.mul(lax.top_k(a, 3)[0], ct)))
    np.testing.assert_allclose(np.asarray(api.jit(g)(x)), np.asarray(g(x)), rtol=1e-12)
    check_vmap_each_axis(g, [x])


# ---------------------------------------------------------------- errors

def test_sort_errors():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match="sort: num_keys.*number of operands \\(2\\), got 3"):
        lax.sort((x, x), num_keys=3)
    with pytest.raises(ValueError, match="sort: num_keys"):
        lax.sort(x, num_keys=0)
    with pytest.raises(ValueError, match="sort requires operands of one shape"):
        lax.sort((x, np.ones((3, 2))))
    with pytest.raises(ValueError, match="sort requires operands of rank >= 1"):
        lax.sort(np.float64(1.0))
    with pytest.raises(np.exceptions.AxisError, match="sort: dimension 2"):
        lax.sort(x, dimension=2)
    with pytest.raises(TypeError, match="sort requires at least one operand"):
        lax.sort(())


def test_top_k_errors():
    with pytest.raises(ValueError, match="top_k: k=4 .*shape \\(2, 3\\)"):
        lax.top_k(np.ones((2, 3)), 4)
    with pytest.raises(ValueError, match="top_k: k=-1"):
        lax.top_k(np.ones(3), -1)
    with pytest.raises(ValueError, match="top_k requires an operand of rank >= 1"):
        lax.top_k(np.float64(1.0), 1)
    with pytest.raises(TypeError, match="top_k requires .*complex64"):
        lax.top_k(np.ones(3, np.complex64), 1)
    with pytest.raises(TypeError, match="top_k: k must be an int"):
        lax.top_k(np.ones(3), 1.5)
