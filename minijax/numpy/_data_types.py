"""Data type functions and inspection (Array API chapters "Data Type Functions"
and "Inspection"): astype, finfo, iinfo, isdtype, can_cast and
``__array_namespace_info__``."""

import numpy as np

from .. import dtypes, lax
from .. import dtypes as _dtypes
from ..config import config
from ..core.avals import ShapedArray
from ..runtime import xla_bridge
from ..runtime.array import Array
from ._core import new_object, result_type_of, to_array

__array_api_version__ = "2024.12"


def _dtype_of(x):
    if isinstance(x, Array) or hasattr(x, "aval"):
        return x.dtype
    return np.dtype(x)


def finfo(dtype):
    """Machine limits of a floating (or complex) dtype, as numpy.finfo."""
    dt = _dtype_of(dtype)
    if dt == dtypes.bfloat16:
        import ml_dtypes
        return ml_dtypes.finfo(dt)
    return np.finfo(dt)


def iinfo(dtype):
    """Machine limits of an integer dtype, as numpy.iinfo."""
    return np.iinfo(_dtype_of(dtype))


_KINDS = {
    "bool": lambda d: d == np.bool_,
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: dtypes.is_float(d),
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iufc" or d == dtypes.bfloat16,
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple of them)."""
    dt = np.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dt, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of {sorted(_KINDS)}")
        return _KINDS[kind](dt)
    return dt == np.dtype(kind)


def can_cast(from_, to, casting="safe"):
    """Whether ``from_`` (a dtype or array) casts to ``to`` under NumPy's ``casting`` rule."""
    return np.can_cast(_dtype_of(from_), np.dtype(to), casting=casting)


class _NamespaceInfo:
    """What ``__array_namespace_info__()`` reports (Array API inspection)."""

    def capabilities(self):
        return {"boolean indexing": False, "data-dependent shapes": False,
                "max dimensions": 64}

    def default_device(self):
        return xla_bridge.default_device()

    def devices(self):
        return list(xla_bridge.devices())

    def default_dtypes(self, *, device=None):
        return {"real floating": dtypes.default_float(), "complex floating":
                dtypes.default_complex(), "integral": dtypes.default_int(),
                "indexing": dtypes.default_int()}

    def dtypes(self, *, device=None, kind=None):
        names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float32", "float64", "complex64", "complex128"]
        out = {n: np.dtype(n) for n in names}
        if kind is None:
            return out
        return {n: d for n, d in out.items() if isdtype(d, kind)}


def __array_namespace_info__():
    return _NamespaceInfo()


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype`` (Array API)."""
    x = to_array(x)
    out = lax.convert_element_type(x, _dtypes.canonicalize(dtype))
    return new_object(out) if copy and out is x else out


bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
bfloat16 = dtypes.bfloat16.type
dtype = np.dtype


_NUMPY_PROMOTED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives for these arrays, scalars or dtypes."""
    if config.enable_x64 and arrays_and_dtypes:
        # strong NumPy dtypes only: minijax promotes them as NumPy does, so ask NumPy
        found = []
        for a in arrays_and_dtypes:
            t = type(a)
            if t is Array and not a.weak_type or t is np.ndarray:
                a = a.dtype
            elif t is not np.dtype:
                break
            if a not in _NUMPY_PROMOTED:
                break
            found.append(a)
        else:
            return np.result_type(*found)
    entries = [a if not isinstance(a, (np.dtype, type)) else
               Array._from_host(np.zeros((), dtypes.canonicalize(a)),
                                ShapedArray((), dtypes.canonicalize(a)))
               for a in arrays_and_dtypes]
    return result_type_of(*entries)[0]
