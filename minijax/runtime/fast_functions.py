"""Compiled fast paths in front of ``minijax.numpy`` functions that are not NumPy-call
wrappers (DESIGN 10): ``asarray``, ``array``, ``from_dlpack`` and ``result_type``, and
the host ``floor_divide`` of the eager table; and the wrapper of deprecated names.

Each ``*_fast_path(complete)`` returns the function ``minijax.numpy`` exports in front of
``complete``, its complete Python implementation: the common eager calls are answered
here, in C, exactly as ``complete`` answers them, and every other call is ``complete``'s.
On small arrays a Python frame and a few attribute reads cost as much as NumPy's whole
call, which is why these are not written in ``minijax.numpy`` itself.
"""

import functools
import math
import warnings

import cython

import numpy as np

from ..config import config
from ..core.trace import numpy_flag
from .array import NOT_GIVEN as _ABSENT, Array, _holding, canonical_dtype, canonical_scalar_type

_ndarray = np.ndarray
_Array = Array   # (compiled: C variables, not module globals looked up per call)
_generic = np.generic
_np_floor_divide = np.floor_divide
_promote_types = np.promote_types
_np_result_type = np.result_type
_from_dlpack = np.from_dlpack
_np_array = np.array
_np_asarray = np.asarray
_warn = warnings.warn
_FLOAT64 = np.dtype(np.float64)
_FLOAT32, _INT64, _INT32, _COMPLEX64 = map(np.dtype, (np.float32, np.int64, np.int32,
                                                    np.complex64))

if not cython.compiled:   # (compiled: C functions, declared in fast_functions.pxd)
    from .array import import_numpy_c_api, ndarray_dtype

    def ndarray_view(a):
        return a.view()

    def ndarray_copy(a):
        return a.copy(order="K")

    def ndarray_quiet_cast(a, dtype):
        """``a.astype(dtype)`` where the cast sets no floating-point flag: a safe cast,
        one among integers and bools, from them to float32, float64 or complex, or a
        float narrowed whose values are finite and normal in ``dtype`` (or zero or
        infinite); else None."""
        src, kinds = a.dtype, "biu"
        if not (np.can_cast(src, dtype) or src.kind in kinds and (
                dtype.kind in kinds or dtype.kind == "c" or dtype in (_FLOAT32, _FLOAT64))):
            if src.kind != "f" or dtype.kind != "f" or src.itemsize <= dtype.itemsize:
                return None
            info, v = np.finfo(dtype), np.abs(a)
            if not np.all(np.isinf(v) | (v == 0) | ((v >= info.tiny) & (v <= info.max))):
                return None
        return a.astype(dtype)

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

    def sorted_rows_tie(a, idx):
        return -1   # (uncompiled: the caller's NumPy check answers)


import_numpy_c_api()


def _wrapping(complete, fast):
    """``fast`` made to look like ``complete`` (name, docstring, signature)."""
    functools.update_wrapper(fast, complete)
    return fast


# ------------------------------------------------------------------ creation

def asarray_fast_path(complete, scalar_type_class):
    """``asarray`` (``scalar_type_class``: the class of minijax.numpy's scalar types):

    - an Array is itself, with ``dtype=`` its own dtype too; with another canonical
      dtype, eagerly, a new Array of its host converted where NumPy's cast is
      ``lax.convert_element_type``'s (``_converted``);
    - eagerly, an ndarray of a canonical dtype is shared (an Array over a view of it, as
      ``numpy_dispatch.share_ndarray`` makes); with ``dtype=`` a canonical dtype, it is
      converted (a new ndarray, as ``to_array`` makes it);
    - eagerly, Python and NumPy scalars and (nested) lists and tuples of Python floats
      and ints are as ``to_array`` makes them (``_value_array``)."""
    def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
        if like is not None:
            return complete(a, dtype, order, device=device, copy=copy, like=like)
        t = type(a)
        if t is _Array:
            if device is None and not copy and (order is None or order == "K"):
                if dtype is None:
                    if _is_itself(a):
                        return a
                else:
                    d = _known_dtype(dtype, scalar_type_class)
                    if d is not None:
                        out = _converted(a, d)
                        if out is not None:
                            return out
        elif device is None and numpy_flag[0] and (order is None or order == "K"):
            if t is _ndarray:
                if dtype is None:
                    if not copy and canonical_dtype(ndarray_dtype(a)):
                        return _holding(ndarray_view(a))
                elif copy is None:
                    d = _known_dtype(dtype, scalar_type_class)
                    if d is not None and canonical_dtype(d):
                        return _holding(_np_array(a, d))
            elif dtype is None and copy is None:
                out = _value_array(a, t)
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


def _converted(a, d):
    """The Array ``a`` as ``lax.convert_element_type(a, d)`` makes it when that is ``a``
    itself (``d``, a canonical dtype, is its dtype and it is strong) or, eagerly, its
    host converted by a cast that sets no floating-point flag (``ndarray_quiet_cast``:
    then NumPy's cast is the conversion's); else None."""
    arr = a
    aval = arr._aval
    if aval is None:   # (the strong aval of its host)
        host = arr._host
        if type(host) is not _ndarray:
            return None
        dt = ndarray_dtype(host)
    elif aval.weak_type:
        return None
    else:
        dt = aval.dtype
    if not canonical_dtype(d):
        return None
    if dt is d or dt == d:
        return a
    host = _strong_ndarray(a)
    if host is None or not numpy_flag[0]:
        return None
    out = ndarray_quiet_cast(host, d)
    return None if out is None else _holding(out)


def _value_array(x, t):
    """The Array ``to_array`` makes of ``x`` (of type ``t``), eagerly: a Python scalar as
    a 0-d array of its default dtype, a NumPy scalar or a (nested) list or tuple of
    Python floats and ints as NumPy's array of it, when that is of a canonical dtype;
    else None."""
    if t is float or t is complex or t is bool:
        # (NumPy's own dtypes for them are the 64-bit mode's: no dtype= to read)
        if config.enable_x64 or t is bool:
            return _holding(_np_asarray(x))
        d = _FLOAT32 if t is float else _COMPLEX64
    elif t is int:
        d = _INT64 if config.enable_x64 else _INT32
    elif t is list or t is tuple:
        if not _only_numbers(x, 0):
            return None
        host = _np_array(x)
        return _holding(host) if canonical_dtype(ndarray_dtype(host)) else None
    elif canonical_scalar_type(t):
        return _holding(_np_array(x))
    else:
        return None
    try:
        return _holding(_np_asarray(x, d))
    except OverflowError:   # (an int past the default integer type: the complete path)
        return None


def _only_numbers(seq, depth):
    """The list or tuple ``seq`` holds only Python floats and ints, and lists and tuples
    of them (nested as deep as an array's dimensions go: deeper ones are not looked at
    here, where recursion is not checked)."""
    if depth > 64:
        return False
    for e in seq:
        t = type(e)
        if t is not float and t is not int and not (
                (t is list or t is tuple) and _only_numbers(e, depth + 1)):
            return False
    return True


def array_fast_path(complete, scalar_type_class):
    """``array``, eagerly: a copy of an ndarray, or of an Array's host ndarray, of a
    canonical dtype (in NumPy's order 'K', as ``numpy_dispatch.copy_ndarray`` makes it),
    or with ``dtype=`` a canonical dtype, converted as ``asarray`` converts them when that
    makes a new array; of Python and NumPy scalars and (nested) lists and tuples of
    numbers, what ``asarray`` makes (``_value_array``)."""
    def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0,
              device=None, like=None):
        if (device is None and numpy_flag[0] and ndmin == 0 and order == "K" and ndmax == 0
                and like is None):
            t = type(object)
            if dtype is None:
                if t is _ndarray or t is _Array:
                    host = object if t is _ndarray else _strong_ndarray(object)
                    if host is not None and canonical_dtype(ndarray_dtype(host)):
                        return _holding(ndarray_copy(host))
                else:
                    out = _value_array(object, t)
                    if out is not None:
                        return out
            else:
                d = _known_dtype(dtype, scalar_type_class)
                if d is not None and canonical_dtype(d):
                    if t is _ndarray:
                        return _holding(_np_array(object, d))
                    if t is _Array:
                        out = _converted(object, d)
                        if out is not None and out is not object:
                            return out
        return complete(object, dtype, copy=copy, order=order, subok=subok, ndmin=ndmin,
                        ndmax=ndmax, device=device, like=like)
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
                return _holding(host)
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
    """``result_type`` in 64-bit mode of strong Arrays, NumPy arrays, dtypes or scalar
    types (``scalar_type_class``: the class of minijax.numpy's, which stand for NumPy's)
    of the dtypes in ``_PROMOTED``, or of one of them and a Python scalar: NumPy's
    promotion, which is minijax's there (``promote_types`` of two dtypes costs NumPy a
    quarter of its ``result_type``, which is fastest given arrays)."""
    # by (dtype, Python scalar type): complete's answer for the two
    with_python_scalar = {}

    def result_type(*arrays_and_dtypes):
        n = len(arrays_and_dtypes)
        if n and config.enable_x64:
            if n > 2:
                values = _strong_values(arrays_and_dtypes, scalar_type_class)
                if values is not None:
                    return _np_result_type(*values)
                return complete(*arrays_and_dtypes)
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
                # (a dtype with metadata is equal to the one without: not a key)
                if dt is not None and scalar is not None and dt.metadata is None:
                    found = with_python_scalar.get((dt, scalar))
                    if found is None:
                        found = with_python_scalar[dt, scalar] = complete(*arrays_and_dtypes)
                    return found
        return complete(*arrays_and_dtypes)
    return _wrapping(complete, result_type)


def _strong_values(args, scalar_type_class):
    """What NumPy's result_type is given for ``args`` when each is a strong Array or an
    ndarray (its host ndarray, or its dtype), a dtype or a scalar type of a dtype in
    ``_PROMOTED``; else None."""
    values = []
    for a in args:
        t = type(a)
        if t is _ndarray:
            v = a if ndarray_dtype(a) in _PROMOTED else None
        elif t is _Array:
            host = _strong_ndarray(a)
            v = host if host is not None and ndarray_dtype(host) in _PROMOTED else \
                _strong_dtype(a, scalar_type_class)
        else:
            v = _known_dtype(a, scalar_type_class)
        if v is None:
            return None
        values.append(v)
    return values


def _strong_dtype(a, scalar_type_class):
    """The dtype of ``a`` when it is a strong Array or an ndarray of a dtype in
    ``_PROMOTED``, or such a dtype or its scalar type; else None."""
    t = type(a)
    if t is _Array:
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


def argsorted_rows_tie(a, idx):
    """Whether the rows (along the last axis) of the ndarray ``a``, taken in the order of
    ``idx`` (their argsort), have two equal neighbours or end in a NaN: 1 or 0. Checked
    in one pass, without a gather, for C-contiguous native float64 and float32; -1 for
    any other input."""
    if type(a) is not _ndarray or type(idx) is not _ndarray:
        return -1
    return sorted_rows_tie(a, idx)


# ------------------------------------------------------------------ deprecated names

def deprecated(complete, message):
    """``complete`` (a deprecated function) warning ``message``, a DeprecationWarning,
    at its caller's line on every call, as a Python wrapper warning with ``stacklevel=2``
    does (compiled, this wrapper has no frame of its own: the caller's is the first)."""
    level = 1 if cython.compiled else 2

    def call(x0=_ABSENT, /, *rest, **kwargs):
        _warn(message, DeprecationWarning, level)
        if x0 is _ABSENT:
            return complete(**kwargs)
        if rest or kwargs:
            return complete(x0, *rest, **kwargs)
        return complete(x0)
    return _wrapping(complete, call)
