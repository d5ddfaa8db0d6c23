"""The ``lax`` operations composed of primitives (``lax/derived.py``): NumPy and Python
integers as oracles, JAX for its conventions, and jit/grad/vmap agreement."""

import functools

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

X = np.arange(24.0).reshape(2, 3, 4)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("transform", [lambda f: f, minijax.jit])
def test_shape_helpers_against_numpy(transform):
    t = transform
    _same(t(lambda x: lax.broadcast(x, (2, 1)))(X), np.broadcast_to(X, (2, 1) + X.shape))
    _same(t(lambda x: lax.broadcast_to_rank(x, 5))(X), X.reshape((1, 1) + X.shape))
    _same(lax.broadcast_to_rank(X, 2), X)
    _same(t(lambda x: lax.collapse(x, 1))(X), X.reshape(2, 12))
    _same(t(lambda x: lax.collapse(x, 0, 2))(X), X.reshape(6, 4))
    _same(t(lambda x: lax.collapse(x, -2, None))(X), X.reshape(2, 12))
    _same(t(lambda x: lax.stack([x, 2 * x], 1))(X), np.stack([X, 2 * X], 1))
    _same(t(lambda x: lax.stack([x, x], -1))(X), np.stack([X, X], -1))
    for got, want in zip(t(lambda x: lax.unstack(x, 2))(X), np.moveaxis(X, 2, 0)):
        _same(got, want)
    _same(t(lambda x: lax.tile(x, (2, 1, 3)))(X), np.tile(X, (2, 1, 3)))
    _same(t(lambda x: lax.tile(x, (0, 1, 1)))(X), np.tile(X, (0, 1, 1)))
    _same(t(lambda x: lax.full_like(x, 7))(X.astype(np.float32)), np.full(X.shape, 7, np.float32))
    _same(t(lambda x: lax.full_like(x, 7, np.int32, (2,)))(X), np.full(2, 7, np.int32))
    assert lax.empty((2, 3), np.int16).shape == (2, 3)
    assert lax.empty((2, 3), np.int16).dtype == np.int16
    assert lax.broadcast_shapes((2, 1, 4), (3, 1), ()) == np.broadcast_shapes((2, 1, 4), (3, 1))
    assert lax.dtype(1.0) == np.float64 and lax.dtype(np.int8) == np.int8
    assert lax.dtype(np.ones(2, np.float32)) == np.float32 and lax.dtype("uint16") == np.uint16


def test_shape_helper_errors():
    with pytest.raises(ValueError, match="collapse"):
        lax.collapse(X, 2, 1)
    with pytest.raises(TypeError, match="one entry per axis"):
        lax.tile(X, (2,))
    with pytest.raises(ValueError, match="non-negative"):
        lax.tile(X, (1, -1, 1))
    with pytest.raises(ValueError, match="at least one"):
        lax.stack([])


def test_full_like_keeps_weak_type_as_jax():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        want = jax.lax.full_like(1.0, 2) * np.float32(1)
    assert (lax.full_like(1.0, 2) * np.float32(1)).dtype == want.dtype == np.float32


def test_reciprocal_and_its_derivative():
    x = np.array([0.5, -2.0, 4.0])
    np.testing.assert_allclose(np.asarray(lax.reciprocal(x)), 1 / x)
    np.testing.assert_allclose(np.asarray(minijax.vmap(minijax.grad(lax.reciprocal))(x)),
                               -1 / x ** 2)
    with pytest.raises(TypeError):
        lax.reciprocal(np.int32(4))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                   np.uint32, np.int64, np.uint64])
def test_mulhi_against_python_integers(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    a = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    edges = [info.min, info.max, 0, 1] + ([-1] if info.min < 0 else [2])
    a[:5], b[:5] = edges, edges[::-1]
    bits = info.bits
    want = np.array([(int(u) * int(v)) >> bits for u, v in zip(a, b)], dtype=object)
    want = np.array([w & (2 ** bits - 1) for w in want], dtype=object)
    want = np.array([w - 2 ** bits if info.min < 0 and w >= 2 ** (bits - 1) else w
                     for w in want], dtype=object).astype(dtype)
    _same(lax.mulhi(a, b), want)
    _same(minijax.jit(lax.mulhi)(a, b), want)
    with pytest.raises(TypeError, match="integer"):
        lax.mulhi(a.astype(np.float64), b.astype(np.float64))


def test_batch_matmul():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 4, 5))
    np.testing.assert_allclose(np.asarray(lax.batch_matmul(a, b)), a @ b, rtol=1e-12)
    with pytest.raises(TypeError, match="one rank"):
        lax.batch_matmul(a, b[0])
    with pytest.raises(TypeError, match="batch axes"):
        lax.batch_matmul(a, b[:2])


def test_index_take_wraps_indices():
    src = np.arange(24).reshape(2, 3, 4)
    i, k = np.array([0, 1, -1]), np.array([2, 0, 5])
    want = np.stack([src[a % 2, :, c % 4] for a, c in zip(i, k)])
    _same(lax.index_take(src, (i, k), (0, 2)), want)
    _same(minijax.jit(lambda s, i, k: lax.index_take(s, (i, k), (0, 2)))(src, i, k), want)


def test_scatter_sub():
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    idx = np.array([[1], [3], [1]])
    out = lax.scatter_sub(np.zeros(5), idx, np.array([1.0, 2.0, 4.0]), dn)
    _same(out, np.array([0.0, -5.0, 0.0, -2.0, 0.0]))
    g = minijax.grad(lambda u: jnp.sum(lax.scatter_sub(np.zeros(5), idx, u, dn) ** 2))(
        np.array([1.0, 2.0, 4.0]))
    _same(g, np.array([10.0, 4.0, 10.0]))


@pytest.mark.parametrize("dims", [(1,), (0, 2), (), (0, 1, 2)])
def test_reduce_against_numpy(dims):
    x = np.random.default_rng(3).normal(size=(3, 5, 4))
    for comp, init, np_fn in [(lax.add, 0.0, np.sum), (lax.max, -np.inf, np.max),
                              (lambda a, b: a * b, 1.0, np.prod),
                              (lambda a, b: jnp.minimum(a, b), np.inf, np.min)]:
        want = np_fn(x, axis=dims) if dims else x
        np.testing.assert_allclose(np.asarray(lax.reduce(x, init, comp, dims)), want,
                                   rtol=1e-12)
        np.testing.assert_allclose(
            np.asarray(minijax.jit(lambda v: lax.reduce(v, init, comp, dims))(x)), want,
            rtol=1e-12)
    # the initial value enters once
    np.testing.assert_allclose(np.asarray(lax.reduce(x, 1.5, lambda a, b: a + b, dims)),
                               (np.sum(x, axis=dims) if dims else x) + 1.5, rtol=1e-12)


def test_reduce_variadic_argmax_and_derivatives():
    x = np.array([[3.0, 9.0, 2.0, 9.0, 1.0], [0.0, -1.0, 5.0, 4.0, 5.0]])
    idx = np.broadcast_to(np.arange(5), x.shape)

    def argmax_pair(a, b):   # (value, index): the larger value, the smaller index on ties
        take_b = (b[0] > a[0]) | ((b[0] == a[0]) & (b[1] < a[1]))
        return jnp.where(take_b, b[0], a[0]), jnp.where(take_b, b[1], a[1])
    vals, arg = lax.reduce((x, idx), (-np.inf, 0), argmax_pair, (1,))
    _same(arg, np.argmax(x, axis=1))
    _same(vals, np.max(x, axis=1))
    # differentiable: the product's gradient is the product over the others
    y = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    g = minijax.grad(lambda v: jnp.sum(lax.reduce(v, 1.0, lambda a, b: a * b, (1,))))(y)
    np.testing.assert_allclose(np.asarray(g), np.prod(y, 1, keepdims=True) / y, rtol=1e-12)
    per = minijax.vmap(lambda v: lax.reduce(v, 0.0, lambda a, b: a + b, (0,)))(y)
    np.testing.assert_allclose(np.asarray(per), y.sum(1))


def test_reduce_matches_jax():
    jax = pytest.importorskip("jax")
    x = np.arange(24).reshape(2, 3, 4)
    with jax.enable_x64(True):
        want = jax.lax.reduce((x.astype(float), x), (0.0, 0),
                              lambda a, b: (a[0] + b[0], jax.numpy.maximum(a[1], b[1])), (0, 2))
        want_xor = jax.lax.reduce_xor(x, (1,))
    got = lax.reduce((x.astype(float), x), (0.0, 0),
                     lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])), (0, 2))
    for g, w in zip(got, want):
        _same(g, w)
    _same(lax.reduce_xor(x, (1,)), want_xor)


def test_reduce_xor_against_numpy():
    rng = np.random.default_rng(4)
    x = rng.integers(0, 2 ** 31, (4, 7))
    _same(lax.reduce_xor(x, (1,)), np.bitwise_xor.reduce(x, axis=1))
    b = rng.random((4, 7)) < 0.5
    _same(lax.reduce_xor(b, (0, 1)), np.logical_xor.reduce(b.ravel()))
    with pytest.raises(TypeError, match="booleans or integers"):
        lax.reduce_xor(np.ones(3), (0,))


def test_reduce_errors():
    with pytest.raises(TypeError, match="structure"):
        lax.reduce((X, X), 0.0, lax.add, (0,))
    with pytest.raises(TypeError, match="dtype"):
        lax.reduce(X, np.int32(0), lambda a, b: a + b, (0,))
    with pytest.raises(TypeError, match="structure"):
        lax.reduce((X, X), (0.0, 0.0), lambda a, b: a[0] + b[0], (0,))


def test_conv_helpers_against_jax():
    jax = pytest.importorskip("jax")
    img = np.arange(2 * 3 * 5 * 6.0).reshape(2, 3, 5, 6)
    nhwc = np.transpose(img, (0, 2, 3, 1))
    cases = [((img, (2, 3), (1, 2), "VALID"), {}),
             ((img, (3, 3), (2, 1), [(1, 0), (2, 2)]), {"rhs_dilation": (1, 2)}),
             ((nhwc, (2, 3), (1, 1), "SAME"), {"dimension_numbers": ("NHWC", "HWIO", "NHWC")})]
    with jax.enable_x64(True):
        for args, kwargs in cases:
            want = jax.lax.conv_general_dilated_patches(*args, **kwargs)
            _same(lax.conv_general_dilated_patches(*args, **kwargs), want)
        for args in [((2, 3, 10, 10), (4, 3, 3, 3), (1, 2), [(1, 1), (0, 0)]),
                     ((4, 3, 10, 10), (4, 3, 3, 3), (1, 1), "SAME", 2),
                     ((4, 3, 2, 2), (4, 3, 3, 3), (1, 1), "VALID")]:
            assert lax.conv_shape_tuple(*args) == tuple(int(n) for n in
                                                        jax.lax.conv_shape_tuple(*args))
        for dn in [("NHWC", "HWIO", "NHWC"), ("NCHW", "OIHW", "NCHW"), ("NWC", "WIO", "NCW")]:
            assert lax.conv_general_permutations(dn) == jax.lax.conv_general_permutations(dn)


def test_patches_are_the_convolution_windows():
    img = np.random.default_rng(5).normal(size=(1, 2, 4, 4))
    kernel = np.random.default_rng(6).normal(size=(3, 2, 2, 2))
    patches = np.asarray(lax.conv_general_dilated_patches(img, (2, 2), (1, 1), "VALID"))
    # a convolution is the patches times the flattened kernel
    via_patches = np.einsum("bphw,op->bohw", patches, kernel.reshape(3, -1))
    direct = np.asarray(lax.conv_general_dilated(img, kernel, (1, 1), "VALID"))
    np.testing.assert_allclose(via_patches, direct, rtol=1e-12)
    grad = minijax.grad(lambda v: jnp.sum(lax.conv_general_dilated_patches(
        v, (2, 2), (1, 1), "VALID") ** 2))(img)
    window_counts = functools.reduce(np.multiply.outer, [[1, 2, 2, 1]] * 2)
    np.testing.assert_allclose(np.asarray(grad), 2 * img * window_counts, rtol=1e-12)
