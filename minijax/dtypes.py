"""Dtypes, canonicalization and type promotion.

Promotion follows NumPy 2 (NEP 50): strong dtypes promote by NumPy's table, and
Python scalars are *weak*: they take the dtype of the array they meet
(``float32_array * 2.0`` stays float32). A value that came from a Python scalar
keeps a ``weak_type`` flag on its abstract value so that the same holds inside
``jit``, ``grad`` and ``vmap``.
"""

import functools

import ml_dtypes
import numpy as np

from .config import config
from .errors import NonNumericDtypeError

bfloat16 = np.dtype(ml_dtypes.bfloat16)
bool_ = np.dtype(np.bool_)
# the dtype of the tangents and cotangents of integer and boolean values (JAX's): an
# array of it holds no data
float0 = np.dtype([("float0", np.void, 0)])

SUPPORTED_DTYPES = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64,
    np.complex128))
_SUPPORTED = frozenset(SUPPORTED_DTYPES)

_NARROW_64 = {np.dtype(np.int64): np.dtype(np.int32), np.dtype(np.uint64): np.dtype(np.uint32),
              np.dtype(np.float64): np.dtype(np.float32),
              np.dtype(np.complex128): np.dtype(np.complex64)}
_SUPPORTED_32 = _SUPPORTED - _NARROW_64.keys()   # stored as they are in 32-bit mode

# NumPy's dtype kinds that are not numbers: datetime64, timedelta64, str_, bytes_, void
# (structured) and object. Eager Arrays hold them (NumPy computes); nothing else does.
# (ml_dtypes' bfloat16 and float8 types are of kind 'V' too, but not numpy.void.)
NON_NUMERIC_KINDS = frozenset("MmUSO")


def is_non_numeric(dtype):
    """``dtype`` is a date, string, structured (void) or object dtype: not a number."""
    kind = dtype.kind
    return kind in NON_NUMERIC_KINDS or kind == "V" and issubclass(dtype.type, np.void)


# A representative Python value of each weak kind, for np.result_type's NEP 50 rules.
_WEAK_SAMPLE = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def default_int():
    return np.dtype(np.int64 if config.enable_x64 else np.int32)


def python_int_fits(x, dtype):
    """The Python int ``x`` is in the range of the integer ``dtype``."""
    low, high = _INT_RANGES[dtype]
    return low <= x <= high


def check_python_int(x, dtype):
    """``OverflowError`` (named) where the Python int ``x`` would be taken as the integer
    ``dtype`` and does not fit it."""
    if type(x) is int and dtype in _INT_RANGES and not python_int_fits(x, dtype):
        raise OverflowError(
            f"Python int {x} is out of bounds for {dtype.name}"
            f"{', the default integer type' if dtype == default_int() else ''}; pass it "
            f"as a float, or as a NumPy array of a type that holds it (such as "
            f"numpy.uint64 or numpy.float64)")


_INT_RANGES = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
               for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                         np.uint32, np.uint64)}


def default_float():
    return np.dtype(np.float64 if config.enable_x64 else np.float32)


def default_complex():
    return np.dtype(np.complex128 if config.enable_x64 else np.complex64)


# canonicalize's answers for the dtype-likes that name one dtype for good (strings,
# NumPy's scalar types and Python's; converting one costs NumPy about 1,800
# instructions), for the current mode. Not dtype objects (an equal dtype may carry
# metadata, which canonicalize keeps), nor other classes (NumPy reads their ``dtype``
# attribute, which may change).
_CANONICAL_OF = {}
_SUPPORTED_CLASSES = frozenset(type(d) for d in SUPPORTED_DTYPES)   # (NumPy's DType classes)
config.on_update(lambda name: _CANONICAL_OF.clear() if name == "enable_x64" else None)


def canonicalize(dtype):
    """The dtype minijax stores for ``dtype`` (64-bit types narrow in 32-bit mode)."""
    if type(dtype) in _SUPPORTED_CLASSES:
        if dtype in (_SUPPORTED if config.enable_x64 else _SUPPORTED_32):
            return dtype
        return _canonicalize(dtype)
    try:
        found = _CANONICAL_OF.get(dtype)
    except TypeError:   # unhashable (a structured dtype's list of fields)
        found = None
    if found is not None:
        return found
    found = _canonicalize(dtype)
    if (type(dtype) is str or is_scalar_type(dtype)) and len(_CANONICAL_OF) < 1024:
        _CANONICAL_OF[dtype] = found
    return found


def is_scalar_type(x):
    """``x`` is NumPy's scalar type or Python's (a dtype-like that names one dtype for
    good, as a string does: answers about it can be kept)."""
    return isinstance(x, type) and (issubclass(x, np.generic) or x in PYTHON_SCALAR_TYPES)


def _canonicalize(dtype):
    dtype = np.dtype(dtype)
    if dtype not in _SUPPORTED and not dtype.isnative:
        dtype = dtype.newbyteorder("=")   # byte-swapped data is stored in native order
    if dtype not in _SUPPORTED:
        if is_non_numeric(dtype):
            raise NonNumericDtypeError(dtype)
        raise TypeError(f"minijax does not support dtype {dtype}; supported dtypes are "
                        f"{', '.join(d.name for d in SUPPORTED_DTYPES)}")
    if not config.enable_x64:
        return _NARROW_64.get(dtype, dtype)
    return dtype


PYTHON_SCALAR_TYPES = frozenset({bool, int, float, complex})


def is_python_scalar(x):
    """A Python bool/int/float/complex (weakly typed), not a NumPy scalar subclass."""
    return type(x) in PYTHON_SCALAR_TYPES


def python_scalar_dtype(x):
    """(dtype, weak_type) of a Python scalar: bool is strong, int/float/complex weak."""
    if isinstance(x, bool):
        return bool_, False
    if isinstance(x, int):
        return default_int(), True
    if isinstance(x, float):
        return default_float(), True
    if isinstance(x, complex):
        return default_complex(), True
    raise TypeError(f"{type(x).__name__} is not a Python scalar")


def is_inexact(dtype):
    return dtype.kind in "fc" or dtype == bfloat16


def is_float(dtype):
    return dtype.kind == "f" or dtype == bfloat16


def is_integer(dtype):
    return dtype.kind in "iu"


def is_complex(dtype):
    return dtype.kind == "c"


def kind(dtype):
    """'b', 'i', 'u', 'f' or 'c' (bfloat16 counts as 'f')."""
    return "f" if dtype == bfloat16 else dtype.kind


def real_dtype(dtype):
    """float32 for complex64, float64 for complex128, otherwise ``dtype`` itself."""
    return np.finfo(dtype).dtype if dtype.kind == "c" else dtype


def promote(*entries):
    """Promote ``(dtype, weak_type)`` pairs the way NumPy 2 promotes arrays and scalars.

    Returns ``(dtype, weak_type)``; the result is weak only when every entry is.
    """
    return _result_type(entries, config.enable_x64)


@functools.lru_cache(maxsize=4096)
def _result_type(entries, x64):
    strong = [d for d, w in entries if not w]
    weak = [_WEAK_SAMPLE[kind(d)] for d, w in entries if w]
    if not strong:
        dtype = np.result_type(*weak)
        return canonicalize(dtype), True
    if bfloat16 in strong:
        # NumPy has no bfloat16 promotion rules; promote it as float16 would be, then
        # map back (bfloat16 with float16 has no common 16-bit type: float32).
        has_f16 = np.dtype(np.float16) in strong
        subst = [np.dtype(np.float16) if d == bfloat16 else d for d in strong]
        dtype = np.result_type(*subst, *weak)
        if dtype == np.float16:
            dtype = np.dtype(np.float32) if has_f16 else bfloat16
        return canonicalize(dtype), False
    return canonicalize(np.result_type(*strong, *weak)), False


# ------------------------------------------------------------------ public API (jax.dtypes)

class extended(np.generic):
    """Abstract scalar type of dtypes that are not NumPy's (such as PRNG key arrays)."""


class prng_key(extended):
    """Abstract scalar type of typed PRNG key arrays (``issubdtype(k.dtype, prng_key)``)."""


_ML_FLOATS = frozenset({bfloat16})


def _as_dtype_or_type(x):
    """A NumPy dtype, or an extended dtype object (with a ``type`` attribute) as is."""
    if isinstance(x, type) and issubclass(x, np.generic):
        return x if issubclass(x, extended) else np.dtype(x)
    if not isinstance(x, np.dtype) and isinstance(getattr(x, "type", None), type) \
            and issubclass(x.type, extended):
        return x
    if hasattr(x, "dtype") and not isinstance(x, (type, np.dtype)):
        return _as_dtype_or_type(x.dtype)
    return np.dtype(x)


def _same_dtype(a, b):
    try:
        return a == np.dtype(b)
    except TypeError:   # an abstract NumPy type such as np.integer
        return False


def issubdtype(arg1, arg2):
    """``numpy.issubdtype`` that also knows bfloat16 (a floating type) and the extended
    types ``extended`` and ``prng_key``."""
    a = _as_dtype_or_type(arg1)
    b = arg2 if isinstance(arg2, type) and issubclass(arg2, np.generic) else \
        _as_dtype_or_type(arg2)
    a_type = a if isinstance(a, type) else a.type
    if isinstance(b, type):
        if issubclass(a_type, extended) or issubclass(b, extended):
            return issubclass(a_type, b)
        if a in _ML_FLOATS:
            return b in (np.floating, np.inexact, np.number, np.generic) or _same_dtype(a, b)
        return bool(np.issubdtype(a, b))
    if isinstance(a, type) or not isinstance(b, np.dtype):
        return a == b
    return a == b if (a in _ML_FLOATS or b in _ML_FLOATS) else bool(np.issubdtype(a, b))


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """The dtype minijax stores for ``dtype`` (64-bit types narrow in 32-bit mode)."""
    d = _as_dtype_or_type(dtype)
    if not isinstance(d, np.dtype):
        if allow_extended_dtype:
            return d
        raise TypeError(f"canonicalize_dtype got the extended dtype {d}; pass "
                        f"allow_extended_dtype=True to accept it")
    return canonicalize(d)


def finfo(dtype):
    """Machine limits of a floating dtype (bfloat16 included), as ``numpy.finfo``."""
    d = np.dtype(_as_dtype_or_type(dtype))
    return ml_dtypes.finfo(d) if d in _ML_FLOATS else np.finfo(d)


def iinfo(dtype):
    """Machine limits of an integer dtype, as ``numpy.iinfo``."""
    return np.iinfo(np.dtype(_as_dtype_or_type(dtype)))


def _entry(x):
    if is_python_scalar(x):
        return python_scalar_dtype(x)
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype, aval.weak_type
    return np.dtype(_as_dtype_or_type(x)), False


def result_type(*args, return_weak_type_flag=False):
    """The dtype of combining ``args`` (arrays, dtypes, Python scalars) under minijax's
    promotion (NumPy 2's, Python scalars weak); with ``return_weak_type_flag`` also
    whether the result is weakly typed."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    dtype, weak = promote(*[_entry(a) for a in args])
    return (dtype, weak) if return_weak_type_flag else dtype
