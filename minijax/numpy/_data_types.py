"""Data type functions and inspection (Array API chapters "Data Type Functions"
and "Inspection"): astype, finfo, iinfo, isdtype, can_cast and
``__array_namespace_info__``."""

import numpy as np

from .. import dtypes, lax
from .. import dtypes as _dtypes
from ..core.avals import ShapedArray
from ..core.trace import state as trace_state
from ..interpreters.ad import JVPTrace
from ..interpreters.partial_eval import PartialEvalTrace
from ..runtime import xla_bridge
from ..runtime.array import Array
from ._core import new_object, result_type_of, to_array

__array_api_version__ = "2025.12"


def _dtype_of(x):
    if isinstance(x, Array) or hasattr(x, "aval"):
        return x.dtype
    return np.dtype(x)


class _FloatInfo:
    """NumPy's ``finfo`` with the Array API's attributes (``eps``, ``max``, ``min``,
    ``smallest_normal``, and ``tiny`` and ``resolution`` with them) as Python floats, as
    the standard requires; every other attribute is NumPy's."""

    _AS_FLOAT = frozenset({"eps", "max", "min", "smallest_normal", "tiny", "resolution",
                           "epsneg"})

    def __init__(self, info):
        self._info = info

    def __getattr__(self, name):
        value = getattr(self._info, name)
        return float(value) if name in self._AS_FLOAT else value

    def __eq__(self, other):
        other = other._info if isinstance(other, _FloatInfo) else other
        return self._info == other

    def __hash__(self):
        return hash(self._info)

    def __repr__(self):
        return repr(self._info)

    def __str__(self):
        return str(self._info)


def finfo(dtype):
    """Machine limits of a floating (or complex) dtype, as numpy.finfo (its Array API
    attributes as Python floats)."""
    dt = _dtype_of(dtype)
    if dt == dtypes.bfloat16:
        import ml_dtypes
        return _FloatInfo(ml_dtypes.finfo(dt))
    return _FloatInfo(np.finfo(dt))


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
        """Boolean indexing and data-dependent output shapes (``nonzero``, ``unique_*``,
        ...) work where values are concrete: eagerly and under ``grad``/``jvp``/``vjp``,
        not under ``jit`` or ``vmap`` (which raise a named error). So both are reported
        True when called outside ``jit``/``vmap`` and False inside them."""
        concrete = _values_are_concrete()
        return {"boolean indexing": concrete, "data-dependent shapes": concrete,
                "max dimensions": 64}

    def default_device(self):
        return xla_bridge.default_device()

    def devices(self):
        return tuple(xla_bridge.devices())

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


def _values_are_concrete():
    """No active transformation stages or batches values: only eager evaluation and
    differentiation of concrete values (``grad``'s partial evaluation keeps the primal
    values known) are on the stack."""
    return all(main.level == 0 or type(main.trace) in (JVPTrace, PartialEvalTrace)
               for main in trace_state.stack)


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


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives for these arrays, scalars or dtypes."""
    entries = [a if not isinstance(a, (np.dtype, type)) else
               Array._from_host(np.zeros((), dtypes.canonicalize(a)),
                                ShapedArray((), dtypes.canonicalize(a)))
               for a in arrays_and_dtypes]
    return result_type_of(*entries)[0]
