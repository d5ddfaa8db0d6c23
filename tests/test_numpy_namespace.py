"""minijax.numpy's wider namespace against NumPy (values and dtypes), eager and under jit."""

import numpy as np
import types

import pytest

import minijax
import minijax.numpy as mnp
from minijax import errors, lax
from minijax.errors import ConcretizationTypeError
from minijax.test_util import check_grads

needs_slicing = pytest.mark.skipif(
    not all(hasattr(lax, n) for n in ("concatenate", "slice", "pad")),
    reason="lax.concatenate/slice/pad are merged from the slicing branch")

FLOAT_SPECIALS = [-2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 1.0, 2.0, np.inf, -np.inf, np.nan, 7.25]
DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.float32, np.float64]
SHAPES = [(), (0,), (7,), (2, 3, 2)]


def _values(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        flat = rng.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 2, 3, 5, 7] +
                        ([-1, -2, -3, -7] if dtype.kind == "i" else []), dtype)
        flat = rng.choice(pool, n) if n else pool[:0]
    else:
        pool = np.array(FLOAT_SPECIALS, dtype)
        flat = np.concatenate([pool, rng.normal(size=n).astype(dtype)])[rng.permutation(
            n + len(pool))[:n]] if n else pool[:0]
    return np.asarray(flat, dtype).reshape(shape)


def _tol(dtype):
    dtype = np.dtype(dtype)
    return {2: 2e-3, 4: 2e-5}.get(dtype.itemsize, 1e-12) if dtype.kind in "fc" else 0


def _compare(actual, expected, rtol=None, scale=1):
    if isinstance(expected, tuple):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _compare(a, e, rtol, scale)
        return
    expected = np.asarray(expected)
    got = np.asarray(actual)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    tol = _tol(expected.dtype) * scale if rtol is None else rtol
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def check(np_fn, mj_fn, *args, rtol=None, scale=1, jit=True, **kwargs):
    with np.errstate(all="ignore"):
        expected = np_fn(*args, **kwargs)
    actual = mj_fn(*args, **kwargs)
    _compare(actual, expected, rtol, scale)
    if jit:
        jitted = minijax.jit(lambda *a: mj_fn(*a, **kwargs))(*args)
        _compare(jitted, expected, rtol, scale)


# ---------------------------------------------------------------- elementwise

UNARY_FLOAT = ["log1p", "expm1", "tan", "sinh", "cosh", "arcsin", "arccos", "arctan",
               "arcsinh", "arctanh", "arccosh", "cbrt", "log2", "log10", "exp2", "deg2rad",
               "rad2deg", "sinc"]


@pytest.mark.parametrize("name", UNARY_FLOAT)
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.float64])
def test_unary_float_functions(name, dtype):
    x = _values(dtype, (12,))
    if np.dtype(dtype).kind in "iu" and name in ("sinh", "cosh", "exp2", "expm1", "tan"):
        x = np.clip(x, -5, 5).astype(dtype)   # float16 results: keep to representable range
    check(getattr(np, name), getattr(mnp, name), x, scale=50)


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "asinh", "atanh", "acosh"])
def test_array_api_names(name):
    x = np.linspace(-0.9, 3, 9)
    np_name = "arc" + name[1:]
    check(getattr(np, np_name), getattr(mnp, name), x, rtol=1e-10)


BINARY = ["arctan2", "hypot", "logaddexp", "logaddexp2", "copysign", "heaviside", "fmax",
          "fmin", "floor_divide", "remainder", "fmod", "float_power"]


def _floor_divide_standard(x, y):
    """NumPy's floor_divide except where exactly one operand is infinite: there
    floor(x / y) (±inf or ±0), as the Array API standard (and minijax) has it."""
    with np.errstate(all="ignore"):
        q = np.floor_divide(x, y)
        if np.result_type(q).kind != "f":
            return q
        x, y = np.asarray(x), np.asarray(y)
        one_infinite = ((np.isinf(x) & np.isfinite(y) & (y != 0))
                        | (np.isfinite(x) & np.isinf(y)))
        return np.where(one_infinite, np.true_divide(x, y), q).astype(np.result_type(q))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.float32, np.float64])
def test_binary_functions(name, dtype):
    x = _values(dtype, (4, 6), seed=1)
    y = _values(dtype, (6,), seed=2)
    if name == "float_power" and np.dtype(dtype).kind in "iu":
        x = np.abs(x % 7).astype(dtype)
        y = np.abs(y % 4).astype(dtype)
    np_fn, mj_fn = getattr(np, name), getattr(mnp, name)
    if name == "floor_divide":
        np_fn = _floor_divide_standard
    if dtype == np.bool_ and name in ("floor_divide", "remainder", "fmod"):
        y = np.ones_like(y)
    check(np_fn, mj_fn, x, y, scale=10)


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "arctan2", "hypot",
                                  "logaddexp", "copysign", "fmax"])
def test_binary_with_python_scalars(name):
    x = _values(np.float32, (5,))
    check(getattr(np, name), getattr(mnp, name), x, 3)
    check(getattr(np, name), getattr(mnp, name), 2.5, x)
    i = _values(np.int8, (5,))
    if name in ("floor_divide", "remainder", "fmod", "fmax"):
        check(getattr(np, name), getattr(mnp, name), i, 3)
        check(getattr(np, name), getattr(mnp, name), i, -3)


def test_divmod_and_integer_edges():
    a = np.array([-7, 7, -7, 7, 0, 5, -128, -128], np.int8)
    b = np.array([2, -2, -2, 2, 0, 0, -1, 3], np.int8)
    check(np.divmod, mnp.divmod, a, b)
    x = np.array([-1.0, 1.0, -0.0, 0.0, 5.0, np.inf, -3.0, np.nan])
    y = np.array([np.inf, -np.inf, 3.0, -3.0, 0.0, 2.0, -0.0, 1.0])
    check(np.divmod, mnp.divmod, x, y)


def test_floor_divide_int_min_eager():
    a, b = np.array([-128], np.int8), np.array([3], np.int8)
    np.testing.assert_array_equal(mnp.floor_divide(a, b), np.floor_divide(a, b))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_tests_and_cleaning(dtype, shape):
    x = _values(dtype, shape)
    for name in ["signbit", "trunc", "fix", "isneginf", "isposinf", "isreal", "iscomplex",
                 "nan_to_num", "positive", "conjugate"]:
        if name == "positive" and dtype == np.bool_:
            continue   # NumPy has no bool loop for positive
        check(getattr(np, name), getattr(mnp, name), x, jit=(shape == (7,)))


def test_closeness():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 1.0])
    b = np.array([1.0 + 1e-7, np.nan, np.inf, np.inf, 0.0, 1.1])
    check(np.isclose, mnp.isclose, a, b)
    check(np.isclose, mnp.isclose, a, b, equal_nan=True)
    check(np.isclose, mnp.isclose, np.arange(4), 2)
    assert bool(mnp.allclose(a[:1], b[:1])) and not bool(mnp.allclose(a, b))
    assert bool(mnp.array_equal(np.arange(3), np.arange(3)))
    assert not bool(mnp.array_equal(np.arange(3), np.arange(4)))
    assert bool(mnp.array_equal(a, a, equal_nan=True)) and not bool(mnp.array_equal(a, a))
    assert bool(mnp.array_equiv(np.ones((2, 3)), np.ones(3)))
    assert not bool(mnp.array_equiv(np.ones((2, 3)), np.ones(2)))
    assert bool(minijax.jit(mnp.allclose)(a[:1], b[:1]))


def test_elementwise_grads():
    x = np.array([0.3, -1.2, 2.0])
    y = np.array([1.5, 0.7, -0.4])
    check_grads(mnp.logaddexp, (x, y), order=2)
    check_grads(mnp.hypot, (x, y), order=2)
    check_grads(mnp.arctan2, (x, y), order=1)
    check_grads(mnp.sinc, (x,), order=1)


# ---------------------------------------------------------------- reductions

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((), None), ((0,), None), ((7,), 0), ((2, 3, 2), None),
                                        ((2, 3, 2), 1), ((2, 3, 2), (0, 2)),
                                        ((2, 3, 2), -1)])
def test_sum_prod_count(dtype, shape, axis):
    x = _values(dtype, shape)
    if np.dtype(dtype).kind in "iu":
        x = (x % 3).astype(dtype)   # keep products from overflowing differently
    for name in ["sum", "prod"]:
        check(getattr(np, name), getattr(mnp, name), x, axis=axis, jit=False)
        check(getattr(np, name), getattr(mnp, name), x, axis=axis, keepdims=True, jit=False)
    check(np.count_nonzero, mnp.count_nonzero, x, axis=axis, jit=False)
    if shape == (2, 3, 2):
        check(np.sum, mnp.sum, x, axis=axis)
        check(np.prod, mnp.prod, x, axis=axis)


def test_sum_initial_where_and_minmax_where():
    x = np.arange(12.0).reshape(3, 4)
    w = np.array([True, False, True, True])
    check(np.sum, mnp.sum, x, axis=1, initial=5.0, where=w)
    check(np.prod, mnp.prod, x, axis=0, where=w)
    check(np.max, mnp.max, x, axis=1, initial=-1.0, where=w)
    check(np.min, mnp.min, x, axis=0, initial=100.0, where=w)
    check(np.mean, mnp.mean, x, axis=1, where=w)
    with pytest.raises(ValueError, match="initial"):
        mnp.max(x, where=w)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((7,), None), ((0,), None), ((2, 3, 2), 1),
                                        ((2, 3, 2), -1), ((2, 3, 2), None)])
def test_cumulative(dtype, shape, axis):
    x = _values(dtype, shape)
    if np.dtype(dtype).kind in "iu":
        x = (x % 3).astype(dtype)
    check(np.cumsum, mnp.cumsum, x, axis=axis, jit=(shape == (2, 3, 2)))
    check(np.cumprod, mnp.cumprod, x, axis=axis, jit=False)


def test_cumulative_array_api():
    x = np.arange(1, 7, dtype=np.int8).reshape(2, 3)
    check(np.cumulative_sum, mnp.cumulative_sum, x, axis=1)
    check(np.cumulative_prod, mnp.cumulative_prod, x, axis=0)
    with pytest.raises(ValueError, match="axis"):
        mnp.cumulative_sum(x)


@needs_slicing
def test_cumulative_include_initial():
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    check(np.cumulative_sum, mnp.cumulative_sum, x, axis=1, include_initial=True)
    check(np.cumulative_prod, mnp.cumulative_prod, x, axis=0, include_initial=True)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.float32, np.float64])
def test_argmax_argmin(dtype):
    x = _values(dtype, (3, 5), seed=3)
    for name in ["argmax", "argmin"]:
        for axis in [None, 0, -1]:
            check(getattr(np, name), getattr(mnp, name), x, axis=axis)
            check(getattr(np, name), getattr(mnp, name), x, axis=axis, keepdims=True,
                  jit=False)
    with pytest.raises(ValueError, match="empty"):
        mnp.argmax(np.zeros((0,)))


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.float64])
@pytest.mark.parametrize("axis", [None, -1, (0, 2)])
def test_statistics(dtype, axis):
    rng = np.random.default_rng(5)
    x = (rng.normal(size=(4, 3, 5)) * 10).astype(dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    for name in ["mean", "var", "std", "ptp", "median"]:
        check(getattr(np, name), getattr(mnp, name), x, axis=axis, rtol=rtol,
              jit=(name in ("var", "median")))
    check(np.var, mnp.var, x, axis=axis, ddof=1, keepdims=True, rtol=rtol, jit=False)
    check(np.std, mnp.std, x, axis=axis, correction=1, rtol=rtol, jit=False)
    for q in [0.5, 0.0, 1.0, [0.1, 0.33, 0.9]]:
        check(np.quantile, mnp.quantile, x, q, axis=axis, rtol=rtol, jit=False)
    check(np.percentile, mnp.percentile, x, np.array([10, 50]), axis=axis, keepdims=True,
          rtol=rtol)
    for method in ["lower", "higher", "nearest", "midpoint"]:
        check(np.quantile, mnp.quantile, x, np.array([0.25, 0.5, 0.62]), axis=axis,
              method=method, rtol=rtol)


def test_average():
    x = np.arange(12.0).reshape(3, 4)
    w = np.array([1.0, 2.0, 0.5, 3.0])
    check(np.average, mnp.average, x, axis=1, weights=w)
    check(np.average, mnp.average, x, weights=x)
    check(np.average, mnp.average, np.arange(6), weights=np.arange(6))
    check(np.average, mnp.average, x, axis=1, weights=w, returned=True)
    check(np.average, mnp.average, x)


def test_nan_reductions():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [-2.0, 5.0, 0.5]])
    for name in ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"]:
        for axis in [None, 0, 1]:
            check(getattr(np, name), getattr(mnp, name), x, axis=axis, jit=(axis == 1))
    check(np.nanmax, mnp.nanmax, np.arange(5), axis=0)
    check(np.nanvar, mnp.nanvar, x, axis=1, ddof=1, keepdims=True)


def test_reduction_grads():
    x = np.array([[0.3, -1.2, 2.0], [1.1, 0.4, -0.7]])
    check_grads(lambda a: mnp.cumsum(a, axis=1), (x,), order=2)
    check_grads(lambda a: mnp.prod(a, axis=0), (x,), order=2)
    check_grads(lambda a: mnp.std(a, axis=1, ddof=1), (x,), order=2)
    check_grads(lambda a: mnp.quantile(a, 0.3, axis=1), (x,), order=1)


# ---------------------------------------------------------------- sorting and searching

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((7,), -1), ((0,), 0), ((2, 3, 2), 1),
                                        ((2, 3, 2), None)])
def test_sort_argsort(dtype, shape, axis):
    x = _values(dtype, shape, seed=4)
    if shape == (7,):
        x = np.concatenate([x, x[:3]])   # ties
    check(np.sort, mnp.sort, x, axis=axis, jit=(shape == (2, 3, 2)))
    check(lambda a, axis: np.argsort(a, axis=axis, kind="stable"), mnp.argsort, x, axis=axis,
          jit=(shape == (2, 3, 2)))


def test_descending_sort_is_stable():
    x = np.array([3, 1, 2, 1, 3, 0])
    expected = np.array([0, 4, 2, 1, 3, 5])
    np.testing.assert_array_equal(mnp.argsort(x, descending=True), expected)
    np.testing.assert_array_equal(mnp.sort(x, descending=True), x[expected])
    np.testing.assert_array_equal(minijax.jit(lambda a: mnp.argsort(a, descending=True))(x),
                                  expected)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64])
def test_searchsorted(side, dtype):
    a = np.sort(_values(dtype, (9,), seed=6))
    v = _values(dtype, (2, 4), seed=7)
    check(np.searchsorted, mnp.searchsorted, a, v, side=side)
    check(np.searchsorted, mnp.searchsorted, a, v[0, 0], side=side)
    perm = np.argsort(a[::-1], kind="stable")
    check(np.searchsorted, mnp.searchsorted, a[::-1], v, side=side, sorter=perm)


def test_unique_family_is_eager():
    x = np.array([3, 1, 2, 1, 3, 3, 0])
    check(np.unique, mnp.unique, x, jit=False)
    check(np.unique, mnp.unique, x, return_index=True, return_inverse=True,
          return_counts=True, jit=False)
    for name in ["unique_values", "unique_counts", "unique_inverse", "unique_all"]:
        # sorted, as np.unique (NumPy's own unique_values is in hash order)
        check(lambda a: tuple(getattr(np, name)(a)) if name != "unique_values" else
              np.unique(a), getattr(mnp, name), x, jit=False)
    check(np.flatnonzero, mnp.flatnonzero, x, jit=False)
    check(np.argwhere, mnp.argwhere, x.reshape(7, 1), jit=False)
    with pytest.raises(ConcretizationTypeError, match="unique"):
        minijax.jit(mnp.unique)(x)


def test_partition_is_a_valid_partition():
    x = np.array([5, 1, 4, 2, 3])
    p = np.asarray(mnp.partition(x, 2))
    assert p[2] == 3 and (p[:2] <= 3).all() and (p[3:] >= 3).all()
    ip = np.asarray(mnp.argpartition(x, 2))
    assert x[ip][2] == 3


# ---------------------------------------------------------------- manipulation and creation

@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float32])
def test_shape_functions_without_slicing(dtype):
    x = _values(dtype, (2, 3, 4))
    check(np.tile, mnp.tile, x, reps=(2, 1, 1, 3))
    check(np.tile, mnp.tile, x[0, 0], reps=3)
    check(np.repeat, mnp.repeat, x, repeats=2, axis=1)
    check(np.repeat, mnp.repeat, x, repeats=3)
    check(np.repeat, mnp.repeat, x, repeats=np.array([2, 0, 1]), axis=1, jit=False)
    check(np.repeat, mnp.repeat, x, repeats=np.array([2]), axis=0, jit=False)
    check(np.flip, mnp.flip, x)
    check(np.flip, mnp.flip, x, axis=(0, 2))
    check(np.fliplr, mnp.fliplr, x)
    check(np.flipud, mnp.flipud, x)
    for k in range(-1, 4):
        check(np.rot90, mnp.rot90, x, k=k, axes=(2, 0))
    for k in (-2, 0, 1, 5):
        check(np.tril, mnp.tril, x, k=k, jit=False)
        check(np.triu, mnp.triu, x, k=k, jit=False)
    check(np.atleast_3d, mnp.atleast_3d, x[0])
    check(np.copy, mnp.copy, x)
    check(np.matrix_transpose, mnp.matrix_transpose, x)
    check(lambda a: tuple(np.broadcast_arrays(a, a[:1, :, :1])),
          lambda a: mnp.broadcast_arrays(a, np.asarray(a)[:1, :, :1]), x, jit=False)


def test_creation_functions():
    check(np.tri, mnp.tri, 3, 4, 1, jit=False)
    check(np.tri, mnp.tri, 3, dtype=np.int32, jit=False)
    check(np.identity, mnp.identity, 3, jit=False)
    check(np.indices, mnp.indices, (2, 3), jit=False)
    check(lambda d: tuple(np.indices(d, sparse=True)), lambda d: mnp.indices(d, sparse=True),
          (2, 3), jit=False)
    a, b, c = np.arange(3), np.arange(4.0), np.arange(2)
    for indexing in ["xy", "ij"]:
        check(lambda *x: tuple(np.meshgrid(*x, indexing=indexing)),
              lambda *x: mnp.meshgrid(*x, indexing=indexing), a, b, c)
        check(lambda *x: tuple(np.meshgrid(*x, indexing=indexing, sparse=True)),
              lambda *x: mnp.meshgrid(*x, indexing=indexing, sparse=True), a, b)
    assert mnp.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    check(lambda x: x.astype(np.int8), lambda x: mnp.astype(x, np.int8), np.arange(3.5))


@pytest.mark.parametrize("offset", [0, 1, -2, 5])
def test_diagonal_trace(offset):
    x = np.arange(24.0).reshape(4, 3, 2)
    if abs(offset) > 0 and not hasattr(lax, "slice"):
        pytest.skip("offset diagonals of non-square planes slice (lax.slice)")
    check(np.diagonal, mnp.diagonal, x, offset=offset, axis1=0, axis2=1)
    check(np.trace, mnp.trace, x, offset=offset, axis1=1, axis2=0)
    sq = np.arange(9).reshape(3, 3) > 3
    if offset == 0:
        check(np.diagonal, mnp.diagonal, sq)
        check(np.diag, mnp.diag, np.arange(3.0))


@needs_slicing
def test_joining_and_splitting():
    x = np.arange(24).reshape(2, 3, 4)
    y = np.arange(8, dtype=np.float32).reshape(2, 1, 4)
    check(np.concatenate, mnp.concatenate, (x, y), axis=1)
    check(np.concatenate, mnp.concatenate, (x, y), axis=None)
    check(np.concat, mnp.concat, (x, x), axis=-1)
    check(np.stack, mnp.stack, (x, x, x), axis=-1)
    check(np.vstack, mnp.vstack, (np.arange(3), np.arange(3)))
    check(np.hstack, mnp.hstack, (np.arange(3), np.arange(2)))
    check(np.dstack, mnp.dstack, (x, x))
    check(np.column_stack, mnp.column_stack, (np.arange(3), np.ones((3, 2))))
    check(lambda a: tuple(np.split(a, 2, axis=2)), lambda a: tuple(mnp.split(a, 2, axis=2)), x)
    check(lambda a: tuple(np.array_split(a, 3, axis=2)),
          lambda a: tuple(mnp.array_split(a, 3, axis=2)), x)
    check(lambda a: tuple(np.split(a, [1, -1, 10], axis=1)),
          lambda a: tuple(mnp.split(a, [1, -1, 10], axis=1)), x)
    with pytest.raises(ValueError, match="equal division"):
        mnp.split(x, 3, axis=2)
    check(np.roll, mnp.roll, x, shift=5)
    check(np.roll, mnp.roll, x, shift=(1, -2), axis=(0, 2))
    check(np.diag, mnp.diag, np.arange(3.0), k=2)
    check(np.diag, mnp.diag, np.arange(3.0), k=-1)


@needs_slicing
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad(mode):
    x = np.arange(12.0).reshape(3, 4)
    check(np.pad, mnp.pad, x, pad_width=((2, 3), (1, 5)), mode=mode)
    check(np.pad, mnp.pad, x, pad_width=7, mode=mode, jit=False)
    check(np.pad, mnp.pad, np.arange(1), pad_width=3, mode=mode, jit=False)
    if mode == "constant":
        check(np.pad, mnp.pad, x, pad_width=1, constant_values=((1, 2), (3, 4)))


# ---------------------------------------------------------------- products

EINSUMS = [("ijk,kl->ijl", [(2, 3, 4), (4, 5)]), ("...k,kl", [(2, 3, 4), (4, 5)]),
           ("iji->j", [(3, 2, 3)]), ("ij,ij->", [(2, 3), (2, 3)]), ("ii", [(3, 3)]),
           ("i,j", [(3,), (4,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
           ("ijk", [(2, 3, 4)]), ("ijk->", [(2, 3, 4)]), ("i...->...", [(2, 3, 4)]),
           ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("...ij,...jk", [(1, 2, 3), (4, 3, 2)]),
           ("ij,kj->ikj", [(2, 3), (4, 3)]), ("i,i", [(0,), (0,)])]


@pytest.mark.parametrize("subscripts,shapes", EINSUMS)
def test_einsum(subscripts, shapes):
    rng = np.random.default_rng(1)
    ops = [rng.normal(size=s) for s in shapes]
    check(lambda *o: np.einsum(subscripts, *o), lambda *o: mnp.einsum(subscripts, *o), *ops,
          rtol=1e-10)


def test_einsum_dtypes_and_grad():
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    check(lambda x, y: np.einsum("ij,jk", x, y), lambda x, y: mnp.einsum("ij,jk", x, y),
          a, a.T.astype(np.int32))
    b = a > 2
    check(lambda x: np.einsum("ij,kj->ik", x, x), lambda x: mnp.einsum("ij,kj->ik", x, x), b)
    x, y = np.random.default_rng(0).normal(size=(2, 3, 4)), np.ones((4, 2))
    check_grads(lambda p, q: mnp.einsum("ijk,kl->li", p, q), (x, y), order=2)
    with pytest.raises(ValueError, match="einsum"):
        mnp.einsum("ij,jk", np.ones((2, 3)), np.ones((4, 2)))


def test_kron_cross_vecdot():
    check(np.kron, mnp.kron, np.arange(4).reshape(2, 2), np.ones((2, 3), np.int8))
    check(np.kron, mnp.kron, np.arange(3.0), np.arange(4).reshape(2, 2))
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(3,))
    check(np.cross, mnp.cross, a, b, rtol=1e-12)
    check(np.cross, mnp.cross, a.T, a.T, axis=0, rtol=1e-12)
    check(np.vecdot, mnp.vecdot, a, b, rtol=1e-12)
    check(np.vecdot, mnp.vecdot, a, a, axis=0, rtol=1e-12)


def test_namespace_has_docstrings():
    for name in ["log1p", "floor_divide", "hypot", "prod", "cumsum", "var", "quantile",
                 "sort", "argsort", "searchsorted", "unique", "einsum", "pad", "tile", "tril",
                 "diagonal", "meshgrid", "kron", "concatenate", "isclose"]:
        fn = getattr(mnp, name)
        assert fn.__doc__ and fn.__doc__.strip(), name


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.uint8])
def test_bitwise(dtype):
    x = _values(dtype, (4, 5), seed=8)
    y = _values(dtype, (5,), seed=9)
    for name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
        check(getattr(np, name), getattr(mnp, name), x, y)
    check(np.invert, mnp.invert, x)
    check(np.bitwise_count, mnp.bitwise_count, x)
    if dtype != np.bool_:
        s = (np.abs(_values(dtype, (5,), seed=10).astype(np.int64)) % 9).astype(dtype)
        check(np.left_shift, mnp.left_shift, x, s)
        check(np.right_shift, mnp.right_shift, x, s)
    with pytest.raises(TypeError, match="integer"):
        mnp.bitwise_and(np.ones(2), np.ones(2))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.float64, np.complex64])
def test_round_and_parts(dtype):
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 1.234567, 125.0, -0.0, np.inf, np.nan, 7.0, 13.0])
    if np.dtype(dtype).kind in "iu":
        x = np.array([5, 15, 25, -5, -25, 125, 0, 7, 13, 99, -99, 1])
    if np.dtype(dtype).kind == "c":
        x = x + 1j * x[::-1]
    x = x.astype(dtype)
    for d in [0, 1, 2, -1]:
        check(np.round, mnp.round, x, decimals=d, scale=10)
    check(np.rint, mnp.rint, x)
    check(np.real, mnp.real, x)
    check(np.imag, mnp.imag, x)
    check(np.angle, mnp.angle, x, scale=10)
    check(np.conjugate, mnp.conjugate, x)
    check(np.iscomplex, mnp.iscomplex, x)
    check(np.isreal, mnp.isreal, x)


def test_nextafter_and_clip():
    x = np.array([0.0, 1.0, -1.0, np.inf, np.nan], np.float32)
    check(np.nextafter, mnp.nextafter, x, np.float32(2.0))
    check(np.clip, mnp.clip, np.arange(10), 2, 7)
    check(np.clip, mnp.clip, np.arange(10.0), None, 7.5)
    check(lambda a: np.clip(a, min=3), lambda a: mnp.clip(a, min=3), np.arange(10))
    check(lambda a: np.clip(a, None, 3), lambda a: mnp.clip(a, a_max=3), np.arange(10))


def test_diff_unstack():
    x = _values(np.float64, (3, 4, 5))
    for n in [0, 1, 2, 6]:
        check(np.diff, mnp.diff, x, n=n, axis=1)
    check(np.diff, mnp.diff, np.array([True, False, False, True]))
    check(np.diff, mnp.diff, np.arange(5, dtype=np.uint8), prepend=3, append=np.array([1, 2]))
    check(lambda a: tuple(np.unstack(a, axis=1)), lambda a: mnp.unstack(a, axis=1), x)


def test_operators_and_methods():
    a = np.array([[-7, 7, 5], [3, -2, 0]], np.int32)
    b = np.array([2, -3, 4], np.int32)
    x, y = mnp.asarray(a), mnp.asarray(b)
    pairs = [(x // y, a // b), (x % y, a % b), (x & y, a & b), (x | y, a | b),
             (x ^ y, a ^ b), (x << 2, a << 2), (x >> 1, a >> 1), (~x, ~a), (7 // y, 7 // b),
             (7 % y, 7 % b), (divmod(x, y), divmod(a, b)), (x.prod(axis=0), a.prod(axis=0)),
             (x.cumsum(1), a.cumsum(1)), (x.argmax(), a.argmax()), (x.std(), a.std()),
             (x.var(ddof=1), a.var(ddof=1)), (mnp.sort(x), np.sort(a)),
             (x.argsort(axis=0), a.argsort(axis=0, kind="stable")), (x.clip(0, 4), a.clip(0, 4)),
             (x.real, a.real), (x.imag, a.imag), (x.all(axis=1), a.all(axis=1)),
             (x.any(), a.any()), (x.round(), a.round()), (x.conj(), a.conj()),
             (x.trace(), a.trace()), (x.diagonal(1), a.diagonal(1)), (x.repeat(2), a.repeat(2)),
             (round(mnp.asarray([1.25, 2.5])), np.round([1.25, 2.5])),
             (round(mnp.asarray([1.25, 2.5]), 1), np.round([1.25, 2.5], 1))]
    for got, expected in pairs:
        _compare(got, expected if isinstance(expected, tuple) else np.asarray(expected))
    z = mnp.asarray(a)
    z //= 2
    z %= 3
    z <<= 1
    _compare(z, ((a // 2) % 3) << 1)
    f = minijax.jit(lambda p, q: (p // q, p % q, p & q, ~p))
    _compare(f(a, b), (a // b, a % b, a & b, ~a))


def test_signbit_of_negative_nan_and_creation_keywords():
    x = np.array([-np.nan, np.nan, -0.0, 0.0, -1.0], np.float32)
    check(np.signbit, mnp.signbit, x)
    check(np.copysign, mnp.copysign, np.float32(2.0), x)
    for fn in ["zeros", "ones"]:
        _compare(getattr(mnp, fn)((2, 3), dtype=np.int8, device=None),
                 getattr(np, fn)((2, 3), dtype=np.int8) * 0 + getattr(np, fn)(1, np.int8) * 0
                 + (1 if fn == "ones" else 0))
    empty = mnp.empty((2, 3), dtype=np.int8, device=None)   # uninitialised, as NumPy's
    assert empty.shape == (2, 3) and empty.dtype == np.int8
    _compare(mnp.full_like(np.arange(3), 7, device=None), np.full_like(np.arange(3), 7))
    _compare(mnp.linspace(0, 1, 5, retstep=True), np.linspace(0, 1, 5, retstep=True))
    _compare(mnp.array(3.0, ndmin=2), np.array(3.0, ndmin=2))
    _compare(mnp.from_dlpack(np.arange(4)), np.arange(4))


def test_extras():
    rng = np.random.default_rng(3)
    a, v = rng.normal(size=7), rng.normal(size=3)
    for mode in ["full", "same", "valid"]:
        check(np.convolve, mnp.convolve, a, v, mode=mode, rtol=1e-12)
        check(np.convolve, mnp.convolve, v, a, mode=mode, rtol=1e-12)
        check(np.correlate, mnp.correlate, a, v, mode=mode, rtol=1e-12)
        check(np.correlate, mnp.correlate, v, a, mode=mode, rtol=1e-12)
    check(np.convolve, mnp.convolve, np.arange(4), np.arange(3))
    check(np.logspace, mnp.logspace, 0, 2, num=5, jit=False)
    check(np.geomspace, mnp.geomspace, 1, 1000, num=4, jit=False)
    check(np.geomspace, mnp.geomspace, -1, -16, num=5, jit=False)
    check(np.append, mnp.append, np.arange(3), np.ones((2, 2)))
    check(np.append, mnp.append, np.ones((2, 2)), np.zeros((1, 2)), axis=0)
    m = rng.normal(size=(3, 6))
    check(np.cov, mnp.cov, m, rtol=1e-12)
    check(np.cov, mnp.cov, m, rowvar=False, ddof=0, rtol=1e-12)
    check(np.cov, mnp.cov, m[0], m[1], rtol=1e-12)
    check(np.corrcoef, mnp.corrcoef, m, rtol=1e-12)
    check(np.isin, mnp.isin, np.arange(6).reshape(2, 3), np.array([1, 4, 9]))
    check(np.isin, mnp.isin, np.arange(6), np.array([1, 4]), invert=True)
    for name in ["intersect1d", "union1d", "setdiff1d", "setxor1d"]:
        check(getattr(np, name), getattr(mnp, name), np.array([1, 2, 3, 3]),
              np.array([3, 4, 1]), jit=False)
    x = np.array([[1.0, np.nan, 3.0], [np.nan, 0.5, -2.0]])
    for name in ["nanargmax", "nanargmin"]:
        check(getattr(np, name), getattr(mnp, name), x, axis=1, jit=False)
        check(getattr(np, name), getattr(mnp, name), x, jit=False)
    check(np.bincount, mnp.bincount, np.array([0, 1, 1, 3, 2, 1, 7]), jit=False)
    check(np.bincount, mnp.bincount, np.array([0, 1, 1, 3]), weights=np.array(
        [0.5, 1.0, 2.0, 0.25]), minlength=6, jit=False)
    _compare(minijax.jit(lambda i: mnp.bincount(i, length=5))(np.array([0, 1, 1, 3])),
             np.bincount(np.array([0, 1, 1, 3]), minlength=5))
    xp, fp = np.array([0.0, 1.0, 2.5, 4.0]), np.array([3.0, -1.0, 2.0, 0.0])
    xs = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.9, 4.0, 5.0])
    check(np.interp, mnp.interp, xs, xp, fp, rtol=1e-12)
    check(np.interp, mnp.interp, xs, xp, fp, left=-9.0, right=9.0, rtol=1e-12)


def test_bincount_length_under_transformations_and_bad_arguments():
    x = np.array([0, 1, 1, 3, 2, 1, 4])
    w = np.linspace(0.5, 2.0, 7)
    want = np.bincount(x, weights=w, minlength=6)
    for run in (lambda x, w: mnp.bincount(x, weights=w, length=6),
                minijax.jit(lambda x, w: mnp.bincount(x, weights=w, length=6)),
                minijax.jit(lambda x, w: mnp.bincount(x, weights=w, minlength=6, length=3))):
        _compare(run(x, w), want)
    rows = np.array([[0, 2, 2], [1, 1, 4]])
    _compare(minijax.vmap(lambda r: mnp.bincount(r, length=5))(rows),
             np.stack([np.bincount(r, minlength=5) for r in rows]))
    g = minijax.grad(lambda w: mnp.bincount(x, weights=w, length=5)[1])(w)
    _compare(g, (x == 1).astype(np.float64))
    # NumPy's output size depends on the values: a named error saying what to pass
    with pytest.raises(errors.ConcretizationTypeError, match="length="):
        minijax.jit(mnp.bincount)(x)
    with pytest.raises(errors.ConcretizationTypeError, match="length="):
        minijax.jit(lambda x: mnp.bincount(x, minlength=9))(x)
    for fn in (mnp.bincount, minijax.jit(lambda *a: mnp.bincount(*a, length=5))):
        with pytest.raises(ValueError, match="1-d"):
            fn(x.reshape(1, 7))
        with pytest.raises(ValueError, match="same length"):
            fn(x, w[:3])
        with pytest.raises(TypeError, match="integers"):
            fn(w)
    with pytest.raises(ValueError, match="minlength"):
        mnp.bincount(x, None, -1)
    with pytest.raises(ValueError, match="non-negative"):
        mnp.bincount(np.array([1, -1]))
    with pytest.raises(ValueError, match="length"):
        mnp.bincount(x, length=-2)


def test_method_reductions_take_numpys_positional_parameters():
    """sum/mean/prod (axis, dtype, out, keepdims, ...), max/min (axis, out, keepdims,
    initial, where), std/var (axis, dtype, out, ddof, keepdims), eagerly and under jit."""
    a = np.arange(1.0, 13.0).reshape(3, 4)
    calls = [("sum", (0, None, None, True)), ("sum", (0, None, None, False, 5.0)),
             ("sum", (1, "float32", None, True, 0.0, a > 3)), ("mean", (0, None, None, True)),
             ("max", (0, None, True)), ("max", (0, None, False, 100.0)),
             ("min", (1, None, True, -1.0, a > 2)), ("prod", (0, None, None, True)),
             ("std", (0, None, None, 1, True)), ("var", (0, None, None, 1, True)),
             ("cumsum", (0, None, None)), ("argmax", (0, None))]
    for name, args in calls:
        want = getattr(a, name)(*args)
        _compare(getattr(mnp.asarray(a), name)(*args), want)
        _compare(minijax.jit(lambda v: getattr(v, name)(*args))(a), want)
    out = mnp.zeros(4)   # out= in NumPy's place: written and returned
    assert mnp.asarray(a).sum(0, None, out) is out
    _compare(out, a.sum(0))
    out = mnp.zeros(3)
    assert mnp.asarray(a).max(1, out) is out
    _compare(out, a.max(1))
    _compare(mnp.reshape(a, (4, 3), copy=None), a.reshape(4, 3))


@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_nan_quantiles(axis):
    rng = np.random.default_rng(11)
    x = rng.normal(size=(3, 4, 5))
    x[rng.random(x.shape) < 0.3] = np.nan
    x[1, :, 2] = np.nan   # an all-NaN lane for axis=1
    check(np.nanmedian, mnp.nanmedian, x, axis=axis, rtol=1e-12)
    check(np.nanquantile, mnp.nanquantile, x, np.array([0.1, 0.9]), axis=axis,
          keepdims=True, rtol=1e-12)
    check(np.nanpercentile, mnp.nanpercentile, x, 30, axis=axis, rtol=1e-12, jit=False)
    check(np.nanmedian, mnp.nanmedian, np.arange(5), rtol=1e-12)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int64, np.float32])
def test_rounding_keeps_integers_as_numpy_2(name, dtype):
    x = np.array([0, 1, 1, 0]).astype(dtype) * (1 if dtype == np.bool_ else 3)
    out = getattr(mnp, name)(x)
    expected = getattr(np, name)(x)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_linspace_retstep_under_grad_and_vmap():
    def f(v):
        points, step = mnp.linspace(0.0, 1.0, 5, retstep=True)
        return mnp.sum(points * v) + step * v
    assert float(minijax.grad(f)(1.0)) == pytest.approx(2.75)
    np.testing.assert_allclose(np.asarray(minijax.vmap(f)(np.arange(3.0))), np.arange(3.0) * 2.75)


_PUBLIC_MODULES = ["minijax", "minijax.numpy", "minijax.numpy.linalg", "minijax.numpy.fft",
                   "minijax.numpy.random", "minijax.lax", "minijax.nn", "minijax.random",
                   "minijax.scipy.special", "minijax.scipy.linalg", "minijax.tree_util"]


@pytest.mark.parametrize("module_name", _PUBLIC_MODULES)
def test_public_functions_pickle_by_reference_as_numpys_do(module_name):
    # (multiprocessing and joblib send functions by pickling them: numpy.sum travels)
    import importlib
    import pickle
    module = importlib.import_module(module_name)
    functions = [getattr(module, name) for name in dir(module) if not name.startswith("_")]
    functions = [f for f in functions if callable(f) and not isinstance(f, type)
                 and not isinstance(f, types.GenericAlias)]   # (a type alias: KeyPath)
    for f in list(functions):
        if isinstance(f, mnp.ufunc):
            functions += [f.reduce, f.accumulate, f.outer, f.at]
    assert len(functions) > 5
    for f in functions:
        assert pickle.loads(pickle.dumps(f)) is f, f
