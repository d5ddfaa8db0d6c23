"""The unique family returns NumPy's sorted order (eager), and with a static ``size=``
works under ``jit`` and ``vmap`` (padded with ``fill_value``, counts 0)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax.errors import ConcretizationTypeError


def _data(dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-40, 40, size=(7, 30)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[rng.random(x.shape) < 0.1] = np.nan
        x[0, 0] = -0.0
    return x


def _same(actual, expected):
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


def _same_inverse(actual, expected, x, nan_distinct=True):
    """Inverse indices agree except among NaNs, which are distinct values in any order."""
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    keep = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(x.shape, bool)
    np.testing.assert_array_equal(actual[keep], expected[keep])
    if x.dtype.kind == "f" and nan_distinct:
        assert len(set(actual[~keep].tolist())) == (~keep).sum()


def _sorted_reference(x, equal_nan):
    return np.unique(x.reshape(-1), return_index=True, return_inverse=True,
                     return_counts=True, equal_nan=equal_nan)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float64, np.float32])
def test_array_api_unique_family_is_sorted(dtype):
    x = _data(dtype)
    values, index, inverse, counts = _sorted_reference(x, equal_nan=False)
    inverse = inverse.reshape(x.shape)
    _same(mnp.unique_values(x), values)
    _same(mnp.unique_values(mnp.asarray(x)), values)
    r = mnp.unique_counts(x)
    _same(r.values, values)
    _same(r.counts, counts)
    r = mnp.unique_inverse(x)
    _same(r.values, values)
    _same_inverse(r.inverse_indices, inverse, x)
    r = mnp.unique_all(x)
    for got, want in zip(r[:2] + r[3:], (values, index, counts)):
        _same(got, want)
    _same_inverse(r.inverse_indices, inverse, x)


def test_unique_keywords_match_numpy():
    x = _data(np.float64)
    for kw in [{}, dict(return_index=True, return_inverse=True, return_counts=True),
               dict(equal_nan=False), dict(sorted=False), dict(axis=0)]:
        got, want = mnp.unique(x, **kw), np.unique(x, **kw)
        if not isinstance(want, tuple):
            got, want = (got,), (want,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
@pytest.mark.parametrize("size", [3, 40, 120])
def test_sized_unique_under_jit_matches_numpy_padded(dtype, size):
    x = _data(dtype, seed=size)
    fill = 99
    for name, equal_nan in [("unique", True), ("unique_all", False)]:
        values, index, inverse, counts = _sorted_reference(x, equal_nan)
        k = min(size, values.size)
        pad = size - k
        want_values = np.concatenate([values[:k], np.full(pad, fill, dtype)])
        want_counts = np.concatenate([counts[:k], np.zeros(pad, np.int64)])
        want_index = np.concatenate([index[:k], np.zeros(pad, np.int64)])
        if name == "unique":
            fn = lambda a: mnp.unique(a, return_index=True, return_inverse=True,  # noqa: E731
                                      return_counts=True, size=size, fill_value=fill)
        else:
            fn = lambda a: tuple(mnp.unique_all(a, size=size, fill_value=fill))  # noqa: E731
        for got in (fn(x), minijax.jit(fn)(x)):
            _same(got[0], want_values)
            _same(got[1], want_index)
            _same_inverse(got[2], inverse.reshape(x.shape), x, not equal_nan)
            _same(got[3], want_counts)


def test_sized_unique_default_fill_is_the_smallest_value():
    x = np.array([5, 3, 3, 9])
    out = minijax.jit(lambda a: mnp.unique_values(a, size=5))(x)
    _same(out, np.array([3, 5, 9, 3, 3]))
    c = minijax.jit(lambda a: mnp.unique_counts(a, size=2))(x)
    _same(c.values, np.array([3, 5]))
    _same(c.counts, np.array([2, 1]))
    inv = minijax.jit(lambda a: mnp.unique_inverse(a, size=3))(x)
    _same(inv.inverse_indices, np.array([1, 0, 0, 2]))


def test_sized_unique_under_vmap():
    x = np.array([[1, 1, 2, 0], [3, 3, 3, 3], [4, 2, 4, 2]])
    out = minijax.vmap(lambda a: mnp.unique_counts(a, size=3, fill_value=-1))(x)
    _same(out.values, np.array([[0, 1, 2], [3, -1, -1], [2, 4, -1]]))
    _same(out.counts, np.array([[1, 2, 1], [4, 0, 0], [2, 2, 0]]))


def test_unsized_unique_under_jit_asks_for_size():
    x = np.arange(4)
    for name in ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all"]:
        with pytest.raises(ConcretizationTypeError, match="size="):
            minijax.jit(getattr(mnp, name))(x)
    with pytest.raises(ValueError, match="size="):
        mnp.unique(x, fill_value=0)
    with pytest.raises(ValueError, match="fill_value"):
        mnp.unique_values(np.zeros(0), size=2)
    _same(mnp.unique_values(np.zeros(0), size=2, fill_value=1.5), np.array([1.5, 1.5]))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sized_unique_along_an_axis_under_jit(axis):
    rng = np.random.default_rng(axis + 5)
    x = rng.integers(0, 2, size=(6, 5, 2)).astype(np.float64)
    x[0, 0, 0] = np.nan   # NaN slices are distinct, as NumPy's
    want = np.unique(x, axis=axis, return_index=True, return_inverse=True,
                     return_counts=True)
    k = want[0].shape[axis]
    size = k + 2
    fn = lambda a: mnp.unique(a, axis=axis, return_index=True,  # noqa: E731
                              return_inverse=True, return_counts=True, size=size,
                              fill_value=-1.0)
    for got in (fn(x), minijax.jit(fn)(x)):
        values = np.moveaxis(np.asarray(got[0]), axis, 0)
        np.testing.assert_array_equal(values[:k], np.moveaxis(want[0], axis, 0))
        assert (values[k:] == -1).all()
        _same(got[1], np.concatenate([want[1], [0, 0]]))
        _same(got[2], want[2])
        _same(got[3], np.concatenate([want[3], [0, 0]]))
    cut = minijax.jit(lambda a: mnp.unique(a, axis=axis, size=1))(x)
    np.testing.assert_array_equal(np.asarray(cut), np.take(want[0], [0], axis=axis))


@pytest.mark.parametrize("fn", [
    lambda x: mnp.unique(x), lambda x: mnp.unique_values(x), lambda x: mnp.unique_all(x).values,
    lambda x: mnp.unique_counts(x).values, lambda x: mnp.unique_inverse(x).values,
    lambda x: mnp.unique(x.reshape(2, 3), axis=1)])
def test_gradient_flows_through_the_unique_values(fn):
    # a concrete value under grad/jvp takes the sized path, which keeps the derivative
    from minijax.test_util import check_grads
    x = mnp.asarray([0.3, -1.2, 2.5, 0.7, 1.9, -0.4])
    check_grads(lambda v: fn(v) ** 2, (x,), order=2)
    repeated = mnp.asarray([3.0, 1.0, 3.0, 2.0, 1.0, 5.0])
    # each distinct value's derivative goes to its first occurrence
    g = minijax.grad(lambda v: mnp.sum(mnp.unique_values(v) ** 2))(repeated)
    np.testing.assert_allclose(g, [6.0, 2.0, 0.0, 4.0, 0.0, 10.0])
