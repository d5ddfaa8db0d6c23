"""Sorting and searching: sort, argsort, partition, searchsorted, the unique family,
flatnonzero and argwhere."""

from collections import namedtuple

import numpy as np

from .. import dtypes, lax
from ..core import get_aval, get_concrete
from ..util import canonicalize_axis
from ._core import promote, to_array


def _flat_or_axis(a, axis):
    a = to_array(a)
    aval = get_aval(a)
    if axis is None:
        return lax.reshape(a, (aval.size,)), 0
    if aval.ndim == 0:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension 0")
    return a, canonicalize_axis(axis, aval.ndim)


def _check_kind(kind, stable):
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"sort kind must be one of 'quicksort', 'heapsort', 'stable', "
                         f"got {kind!r}")


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Sorted copy of ``a`` along ``axis`` (NaNs last; ``descending`` reverses)."""
    _check_kind(kind, stable)
    if order is not None:
        raise NotImplementedError("sort: order= (structured arrays) is not supported")
    x, axis = _flat_or_axis(a, axis)
    if dtypes.is_complex(get_aval(x).dtype) and descending:
        raise NotImplementedError("descending sort of complex arrays")
    out = lax.sort(x, axis)
    return lax.rev(out, (axis,)) if descending else out


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Indices that sort ``a`` along ``axis`` (a stable sort; ``descending`` keeps equal
    elements in their input order)."""
    _check_kind(kind, stable)
    if order is not None:
        raise NotImplementedError("argsort: order= (structured arrays) is not supported")
    x, axis = _flat_or_axis(a, axis)
    aval = get_aval(x)
    idt = dtypes.default_int()
    n = aval.shape[axis]
    if descending:
        x = lax.rev(x, (axis,))
    idx = lax.broadcasted_iota(idt, aval.shape, axis)
    _, perm = lax.sort_key_val(x, idx, axis, is_stable=True)
    if descending:
        perm = lax.sub(lax.full(aval.shape, n - 1, idt), lax.rev(perm, (axis,)))
    return perm


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``a`` partitioned around ``kth`` (minijax returns the fully sorted array, which is
    one valid partition)."""
    return sort(a, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition ``a`` around ``kth`` (those of a full stable sort)."""
    return argsort(a, axis)


def _nan_aware_less(a, v, or_equal):
    # NumPy's sort order: NaN after every number
    lt = (lax.le if or_equal else lax.lt)(a, v)
    if not dtypes.is_inexact(get_aval(a).dtype):
        return lt
    a_nan, v_nan = lax.ne(a, a), lax.ne(v, v)
    if or_equal:
        return lax.max(lt, v_nan)   # everything is <= NaN
    return lax.max(lt, lax.min(v_nan, lax.eq(a_nan, lax.full(get_aval(a).shape, False,
                                                               np.bool_))))


def searchsorted(a, v, side="left", sorter=None):
    """Indices where ``v`` would be inserted into the sorted 1-d ``a`` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a = to_array(a)
    if get_aval(a).ndim != 1:
        raise ValueError("searchsorted: a must be 1-dimensional")
    if sorter is not None:
        a = _take_1d(a, to_array(sorter))
    a, v = promote(a, v)
    n = get_aval(a).shape[0]
    vshape = get_aval(v).shape
    shape = vshape + (n,)
    ab = lax.broadcast_in_dim(a, shape, (len(vshape),))
    vb = lax.broadcast_in_dim(v, shape, tuple(range(len(vshape))))
    below = _nan_aware_less(ab, vb, side == "right")
    idt = dtypes.default_int()
    return lax.reduce_sum(lax.convert_element_type(below, idt), (len(vshape),))


def _take_1d(a, idx):
    # a[idx] for a 1-d ``a`` through a masked sum (traceable)
    n = get_aval(a).shape[0]
    ishape = get_aval(idx).shape
    shape = ishape + (n,)
    iota = lax.broadcasted_iota(get_aval(idx).dtype, shape, len(ishape))
    hit = lax.eq(iota, lax.broadcast_in_dim(idx, shape, tuple(range(len(ishape)))))
    ab = lax.broadcast_in_dim(a, shape, (len(ishape),))
    dt = get_aval(a).dtype
    if dt == np.bool_:
        return lax.reduce_max(lax.min(hit, ab), (len(ishape),))
    return lax.reduce_sum(lax.select_n(hit, lax.full(shape, 0, dt), ab), (len(ishape),))


# ---------------------------------------------------------------- data-dependent shapes

def _concrete(x, name):
    value = get_concrete(to_array(x))
    if value is None:
        from ..errors import ConcretizationTypeError
        raise ConcretizationTypeError(
            f"{name}() of a traced array: its output size depends on the values, so it "
            f"needs a concrete array (call it outside jit; a static size= argument is not "
            f"supported yet)")
    return np.asarray(value)


def _wrap(x):
    if isinstance(x, tuple):
        return tuple(_wrap(e) for e in x)
    return to_array(np.asarray(x))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """Sorted unique elements (eager only: the output size depends on the values)."""
    value = _concrete(ar, "unique")
    res = np.unique(value, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    return _wrap(res)


UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def unique_all(x, /):
    """Array API unique_all: values, first indices, inverse indices and counts."""
    r = np.unique_all(_concrete(x, "unique_all"))
    return UniqueAllResult(*_wrap(tuple(r)))


def unique_counts(x, /):
    """Array API unique_counts: values and their counts."""
    r = np.unique_counts(_concrete(x, "unique_counts"))
    return UniqueCountsResult(*_wrap(tuple(r)))


def unique_inverse(x, /):
    """Array API unique_inverse: values and the inverse indices (shaped like ``x``)."""
    r = np.unique_inverse(_concrete(x, "unique_inverse"))
    return UniqueInverseResult(*_wrap(tuple(r)))


def unique_values(x, /):
    """Array API unique_values: the distinct values (NaNs are distinct)."""
    return _wrap(np.unique_values(_concrete(x, "unique_values")))


def flatnonzero(a):
    """Indices of the nonzero elements of the flattened array (eager only)."""
    return _wrap(np.flatnonzero(_concrete(a, "flatnonzero")))


def argwhere(a):
    """Indices of the nonzero elements, one row per element (eager only)."""
    return _wrap(np.argwhere(_concrete(a, "argwhere")))
