"""Sorting functions (Array API chapter "Sorting Functions"): sort, argsort,
partition, argpartition; and NumPy's lexsort and sort_complex."""

import numpy as np

from .. import _checks, dtypes, lax
from ..core import get_aval
from ..util import canonicalize_axis
from ._core import flat_or_axis, to_array


def _check_kind(kind, stable):
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"sort kind must be one of 'quicksort', 'heapsort', 'stable', "
                         f"got {kind!r}")


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Sorted copy of ``a`` along ``axis`` (NaNs last; ``descending`` reverses)."""
    _check_kind(kind, stable)
    if order is not None:
        raise NotImplementedError("sort: order= (structured arrays) is not supported")
    x, axis = flat_or_axis(a, axis)
    out = lax.sort(x, axis)
    return lax.rev(out, (axis,)) if descending else out


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False, dtype=None):
    """Indices that sort ``a`` along ``axis`` (a stable sort; ``descending`` keeps equal
    elements in their input order), of the integer ``dtype`` (JAX's keyword; default
    the default integer)."""
    _check_kind(kind, stable)
    if order is not None:
        raise NotImplementedError("argsort: order= (structured arrays) is not supported")
    a = to_array(a)
    if axis is not None and get_aval(a).ndim == 0:
        a = lax.reshape(a, (1,))   # NumPy sorts a 0-d array as a 1-d one
    x, axis = flat_or_axis(a, axis)
    aval = get_aval(x)
    n = aval.shape[axis]
    idt = dtypes.default_int() if dtype is None else _index_dtype(dtype, n)
    if descending:
        x = lax.rev(x, (axis,))
    idx = lax.broadcasted_iota(idt, aval.shape, axis)
    _, perm = lax.sort_key_val(x, idx, axis, is_stable=True)
    if descending:
        perm = lax.sub(lax.full(aval.shape, n - 1, idt), lax.rev(perm, (axis,)))
    return perm


def _index_dtype(dtype, n):
    """``dtype`` as the dtype of indices below ``n``: an integer dtype that holds them."""
    dt = dtypes.canonicalize(np.dtype(dtype))
    if dt.kind not in "iu":
        raise TypeError(f"argsort: dtype must be an integer dtype, got {dt}")
    if n - 1 > np.iinfo(dt).max:
        raise ValueError(f"argsort: indices up to {n - 1} do not fit in {dt}")
    return dt


def _check_partition(name, a, kth, axis, kind, order):
    """NumPy's checks of partition's arguments: integer ``kth`` (or a sequence) within
    the axis, kind 'introselect', no ``order``."""
    if kind != "introselect":
        raise ValueError(f"{name}: kind must be 'introselect', got {kind!r}")
    if order is not None:
        raise NotImplementedError(f"{name}: order= (structured arrays) is not supported")
    x, axis = flat_or_axis(a, axis)
    n = get_aval(x).shape[axis]
    has_dtype = hasattr(kth, "dtype")   # (an array's type is checked, empty ones too)
    if (isinstance(kth, bool) or kth is None
            or (has_dtype and get_aval(kth).dtype.kind not in "iu")
            or not (has_dtype or isinstance(kth, (tuple, list)) or hasattr(kth, "__index__"))):
        raise TypeError("Partition index must be integer")
    values = kth if isinstance(kth, (tuple, list)) else np.ravel(np.asarray(kth))
    for k in values:
        if isinstance(k, bool) or not hasattr(k, "__index__"):
            raise TypeError("Partition index must be integer")
        k = _checks.index(k)
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
    return x, axis


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``a`` partitioned around ``kth`` (minijax returns the fully sorted array, which is
    one valid partition)."""
    x, axis = _check_partition("partition", a, kth, axis, kind, order)
    return sort(x, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition ``a`` around ``kth`` (those of a full stable sort)."""
    x, axis = _check_partition("argpartition", a, kth, axis, kind, order)
    return argsort(x, axis)


def lexsort(keys, axis=-1):
    """The indices that sort by several keys: the last key is the primary one, ties go
    to the one before, and so on (a stable sort)."""
    axis = _checks.index(axis, "axis")
    if isinstance(keys, (list, tuple)):
        keys = [to_array(k) for k in keys]
    else:
        keys = to_array(keys)
        if get_aval(keys).ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(get_aval(keys).shape[0])]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = get_aval(keys[0]).shape
    for k in keys:
        if get_aval(k).shape != shape:
            raise ValueError("all keys need to be the same shape")
    if not shape:
        if axis not in (0, -1):   # (the two NumPy takes for scalar keys)
            raise _checks.AxisError(f"axis {axis} is out of bounds for array of dimension 0")
        return lax.full((), 0, dtypes.default_int())
    axis = canonicalize_axis(axis, len(shape))
    position = lax.broadcasted_iota(dtypes.default_int(), shape, axis)
    *_, order = lax.sort((*reversed(keys), position), axis, True, num_keys=len(keys))
    return order


def sort_complex(a):
    """``a`` sorted by real part, then imaginary part, as a complex array (complex64 for
    small integer inputs, complex128 otherwise, as NumPy)."""
    a = to_array(a)
    dt = get_aval(a).dtype
    if not dtypes.is_complex(dt):
        target = np.complex64 if dt in (np.int8, np.int16, np.uint8, np.uint16) \
            else np.complex128
        a = lax.convert_element_type(a, dtypes.canonicalize(target))
    return sort(a, axis=-1)
