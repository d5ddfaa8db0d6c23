"""Compiled fast paths in front of ``minijax.numpy`` functions that are not NumPy-call
wrappers (DESIGN 10): ``asarray``, ``array``, ``from_dlpack`` and ``result_type``, and
the host ``floor_divide`` of the eager table.

Each ``*_fast_path(complete)`` returns the function ``minijax.numpy`` exports in front of
``complete``, its complete Python implementation: the common eager calls are answered
here, in C, exactly as ``complete`` answers them, and every other call is ``complete``'s.
On small arrays a Python frame and a few attribute reads cost as much as NumPy's whole
call, which is why these are not written in ``minijax.numpy`` itself.
"""

import functools
import math

import cython

import numpy as np

from ..config import config
from ..core.trace import numpy_flag
from .array import Array, _make, canonical_dtype

_ndarray = np.ndarray
_generic = np.generic
_np_floor_divide = np.floor_divide
_promote_types = np.promote_types
_from_dlpack = np.from_dlpack
_np_array = np.array

if not cython.compiled:   # (compiled: C functions, declared in fast_functions.pxd)
    from .array import ndarray_dtype

    def import_numpy_c_api():
        pass

    def ndarray_view(a):
        return a.view()

    def ndarray_copy(a):
        return a.copy(order="K")

    def ndarray_known_finite(a):
        """Every element of the ndarray ``a`` is known to be finite: an integer or bool
        dtype, or a native float32 or float64 array in C order whose values were
        checked."""
        dt = a.dtype
        if dt.kind in "biu":
            return True
        if (dt.kind != "f" or dt.itemsize not in (4, 8) or not dt.isnative
                or not a.flags.c_contiguous):
            return False
        return bool(np.isfinite(a).all())


import_numpy_c_api()


def _wrapping(complete, fast):
    """``fast`` made to look like ``complete`` (name, docstring, signature)."""
    functools.update_wrapper(fast, complete)
    return fast


# ------------------------------------------------------------------ creation

def asarray_fast_path(complete, scalar_type_class):
    """``asarray``: an Array is itself; an ndarray of a canonical dtype is shared (an
    Array over a view of it, as ``numpy_dispatch.share_ndarray`` makes), or with
    ``dtype=`` a canonical dtype, converted (a new ndarray, as ``to_array`` makes it); a
    flat list or tuple of Python floats and ints is NumPy's array of it; eagerly.
    (``scalar_type_class``: the class of minijax.numpy's scalar types.)"""
    def asarray(a, dtype=None, order=None, *, device=None, copy=None):
        t = type(a)
        if t is Array:
            if dtype is None and device is None and not copy and _is_itself(a):
                return a
        elif copy is None and device is None and order is None and numpy_flag[0]:
            if t is _ndarray:
                if dtype is None:
                    if canonical_dtype(ndarray_dtype(a)):
                        return _make(None, ndarray_view(a))
                else:
                    d = _known_dtype(dtype, scalar_type_class)
                    if d is not None and canonical_dtype(d):
                        return _make(None, _np_array(a, d))
            elif (t is list or t is tuple) and dtype is None:
                out = _numbers_array(a)
                if out is not None:
                    return out
        return complete(a, dtype, order, device=device, copy=copy)
    return _wrapping(complete, asarray)


def _is_itself(a):
    """``asarray(a)`` is the Array ``a`` itself: it does not hold NumPy's scalar (a 0-d
    result, which asarray makes a new 0-d array of)."""
    arr = a
    host = arr._host
    return type(host) is _ndarray or arr._view is not None or not isinstance(host, _generic)


def _numbers_array(seq):
    """An Array of NumPy's array of ``seq``, a flat list or tuple of Python floats and
    ints, when that is of a canonical dtype; else None."""
    for e in seq:
        t = type(e)
        if t is not float and t is not int:
            return None
    host = _np_array(seq)
    return _make(None, host) if canonical_dtype(ndarray_dtype(host)) else None


def array_fast_path(complete):
    """``array``: a copy of an ndarray, or of an Array's host ndarray, of a canonical
    dtype (in NumPy's order 'K', as ``numpy_dispatch.copy_ndarray`` makes it); NumPy's
    array of a flat list or tuple of Python floats and ints; eagerly."""
    def array(object, dtype=None, *, copy=True, order="K", ndmin=0, device=None):
        if (dtype is None and device is None and numpy_flag[0] and ndmin == 0
                and order == "K"):
            t = type(object)
            if t is _ndarray or t is Array:
                host = object if t is _ndarray else _strong_ndarray(object)
                if host is not None and canonical_dtype(ndarray_dtype(host)):
                    return _make(None, ndarray_copy(host))
            elif t is list or t is tuple:
                out = _numbers_array(object)
                if out is not None:
                    return out
        return complete(object, dtype, copy=copy, order=order, ndmin=ndmin, device=device)
    return _wrapping(complete, array)


def _strong_ndarray(a):
    """The host ndarray of the Array ``a`` when it is uncommitted, strongly typed, not a
    view and holds one (not NumPy's scalar, not only a device buffer); else None."""
    arr = a
    if arr._placement is not None or arr._view is not None:
        return None
    aval = arr._aval
    if aval is not None and aval.weak_type:
        return None
    host = arr._host
    return host if type(host) is _ndarray else None


def from_dlpack_fast_path(complete):
    """``from_dlpack`` of a host array of a canonical dtype: an Array over the ndarray
    NumPy makes (a new object viewing ``x``'s memory, so that marking it read-only for
    copy-on-write leaves ``x`` as writable as it was), eagerly."""
    def from_dlpack(x, /, *, device=None, copy=None):
        if copy is None and device is None and numpy_flag[0] and type(x) is _ndarray:
            host = _from_dlpack(x)
            if canonical_dtype(ndarray_dtype(host)):
                return _make(None, host)
        return complete(x, device=device, copy=copy)
    return _wrapping(complete, from_dlpack)


# ------------------------------------------------------------------ dtypes

# NumPy's numeric dtypes, which minijax promotes as NumPy does in 64-bit mode; their
# DType classes (a dtype's type is its class, not np.dtype) and scalar types
_PROMOTED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))
_DTYPE_CLASSES = frozenset(type(d) for d in _PROMOTED)
_DTYPE_OF_TYPE = {d.type: d for d in _PROMOTED}


def result_type_fast_path(complete, scalar_type_class):
    """``result_type`` in 64-bit mode of one or two strong Arrays, NumPy arrays, dtypes or
    scalar types (``scalar_type_class``: the class of minijax.numpy's, which stand for
    NumPy's), or of one of them and a Python scalar."""
    # by (dtype, Python scalar type): complete's answer for the two
    with_python_scalar = {}

    def result_type(*arrays_and_dtypes):
        n = len(arrays_and_dtypes)
        if 0 < n <= 2 and config.enable_x64:
            first = _strong_dtype(arrays_and_dtypes[0], scalar_type_class)
            if n == 1:
                if first is not None:
                    return first
            else:
                second = _strong_dtype(arrays_and_dtypes[1], scalar_type_class)
                if first is not None and second is not None:
                    return _promote_types(first, second)
                scalar = _python_scalar_type(arrays_and_dtypes[1] if first is not None
                                             else arrays_and_dtypes[0])
                dt = first if first is not None else second
                if dt is not None and scalar is not None:
                    found = with_python_scalar.get((dt, scalar))
                    if found is None:
                        found = with_python_scalar[dt, scalar] = complete(*arrays_and_dtypes)
                    return found
        return complete(*arrays_and_dtypes)
    return _wrapping(complete, result_type)


def _strong_dtype(a, scalar_type_class):
    """The dtype of ``a`` when it is a strong Array or an ndarray of a dtype in
    ``_PROMOTED``, or such a dtype or its scalar type; else None."""
    t = type(a)
    if t is Array:
        arr = a
        aval = arr._aval   # (None: the strong aval of its host, made when asked)
        if aval is None:
            host = arr._host
            if host is None:
                return None
            d = ndarray_dtype(host) if type(host) is _ndarray else host.dtype
        elif aval.weak_type:
            return None
        else:
            d = aval.dtype
    elif t is _ndarray:
        d = ndarray_dtype(a)
    else:
        return _known_dtype(a, scalar_type_class)
    return d if d in _PROMOTED else None


def _known_dtype(x, scalar_type_class):
    """``x`` when it is a dtype in ``_PROMOTED``, that dtype when ``x`` is its scalar type
    (NumPy's or minijax.numpy's); else None."""
    t = type(x)
    if t in _DTYPE_CLASSES:
        return x if x in _PROMOTED else None
    if t is type:
        return _DTYPE_OF_TYPE.get(x)
    if t is scalar_type_class:
        return _DTYPE_OF_TYPE.get(x._numpy_type)
    return None


def _python_scalar_type(x):
    t = type(x)
    return t if t is float or t is int or t is complex else None


# ------------------------------------------------------------------ host functions

def floor_divide_fast_path(complete):
    """The host ``floor_divide`` (NumPy's, with the Array API's values where one operand
    is infinite): NumPy's own where no operand holds an infinity or a NaN, known from
    integer dtypes or from looking at float32/float64 values in C."""
    def floor_divide(x1, x2, /, out=None, **kwargs):
        if out is None and not kwargs and _finite(x1) and _finite(x2):
            return _np_floor_divide(x1, x2)
        return complete(x1, x2, out, **kwargs)
    return _wrapping(complete, floor_divide)


def _finite(x):
    """``x`` (a host operand) is known to hold no infinity or NaN: an ndarray of an
    integer or bool dtype, or of float32 or float64 whose values were checked, or a
    finite Python number; False where not, or not known."""
    t = type(x)
    if t is _ndarray:
        return ndarray_known_finite(x)
    if t is float:
        return math.isfinite(x)
    return t is int or t is bool
