"""Data type functions and inspection (Array API chapters "Data Type Functions"
and "Inspection"): astype, finfo, iinfo, isdtype, can_cast and
``__array_namespace_info__``."""

import operator
import sys

import numpy as np

from .. import dtypes, lax
from .. import dtypes as _dtypes
from ..config import config
from ..core import Tracer, concretization_error
from ..core.avals import ShapedArray
from ..errors import NonNumericDtypeError
from ..core.trace import state as trace_state
from ..interpreters.ad import JVPTrace
from ..interpreters.partial_eval import PartialEvalTrace
from .. import backend
from ..runtime import fast_functions
from ..runtime.array import Array, _make
from .._mutation import new_object
from ._core import placed, result_type_of, to_array

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
        # copied once (the objects are cached): a missing attribute is then an ordinary
        # AttributeError, not a __getattr__ call raising it
        for name in dir(info):
            if not name.startswith("__"):
                value = getattr(info, name)
                setattr(self, name, float(value) if name in self._AS_FLOAT else value)

    def __eq__(self, other):
        other = other._info if isinstance(other, _FloatInfo) else other
        return self._info == other

    def __hash__(self):
        return hash(self._info)

    def __repr__(self):
        return repr(self._info)

    def __str__(self):
        return str(self._info)


# finfo/iinfo objects by the dtype, scalar type or dtype string that asked for them, as
# NumPy caches its own: the info is a constant of the dtype, and building it costs ten
# times NumPy's lookup.
_FINFO, _IINFO = {}, {}
_INFO_KEYS = frozenset({np.dtype, str})


def _cached_info(cache, key, make):
    info = cache.get(key) if type(key) in _INFO_KEYS or isinstance(key, type) else None
    if info is None:
        info = make(key)
        if (type(key) in _INFO_KEYS or isinstance(key, type)) and len(cache) < 256:
            cache[key] = info
    return info


def _make_finfo(dtype):
    dt = _dtype_of(dtype)
    if dt == dtypes.bfloat16:
        import ml_dtypes   # (imported with jaxlib; only bfloat16's finfo needs it here)
        return _FloatInfo(ml_dtypes.finfo(dt))
    return _FloatInfo(np.finfo(dt))


def finfo(dtype):
    """Machine limits of a floating (or complex) dtype, as numpy.finfo (its Array API
    attributes as Python floats)."""
    return _cached_info(_FINFO, dtype, _make_finfo)


def iinfo(dtype):
    """Machine limits of an integer dtype, as numpy.iinfo."""
    return _cached_info(_IINFO, dtype, lambda d: np.iinfo(_dtype_of(d)))


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


# can_cast's answers for dtypes, strings and scalar types (NumPy's can_cast costs about
# 4,500 instructions given dtypes, more given types)
_CAN_CAST = {}


def can_cast(from_, to, casting="safe"):
    """Whether ``from_`` (a dtype or array) casts to ``to`` under NumPy's ``casting`` rule."""
    if type(from_) is Array:
        from_ = from_.dtype
    elif type(from_) is _ScalarTypeMeta:   # (hashed in Python: a NumPy type is not)
        from_ = from_._numpy_type
    if type(to) is _ScalarTypeMeta:
        to = to._numpy_type
    try:
        found = _CAN_CAST.get((from_, to, casting))
    except TypeError:   # (unhashable)
        found = None
    if found is not None:
        return found
    if from_ is None or to is None:   # (np.dtype(None) would be float64)
        raise TypeError("did not understand one of the types; 'None' not accepted")
    found = np.can_cast(_dtype_of(from_), np.dtype(to), casting=casting)
    return _kept(_CAN_CAST, (from_, to, casting), found)


def _is_dtype_constant(x):
    """``x`` names one dtype for good (a dtype, a string, or a scalar type): answers
    about it can be kept (a string may also be a casting rule)."""
    return isinstance(x, (np.dtype, str)) or dtypes.is_scalar_type(x)


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
        return backend.default_device()

    def devices(self):
        return tuple(backend.devices())

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


@placed
def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype`` (Array API)."""
    x = to_array(x)
    out = lax.convert_element_type(x, _dtypes.canonicalize(dtype))
    return new_object(out) if copy and out is x else out


dtype = np.dtype


_NUMPY_PROMOTED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives for these arrays, scalars or dtypes."""
    # (its common calls are answered in C in front of this: see below)
    try:
        return _result_type(arrays_and_dtypes)
    except NonNumericDtypeError:
        # dates, strings, records: NumPy's rule, on eager values only (DESIGN 3)
        if any(isinstance(a, Tracer) for a in arrays_and_dtypes):
            raise
        return np.result_type(*[a._value() if type(a) is Array else a
                                for a in arrays_and_dtypes])


def _result_type(arrays_and_dtypes):
    entries = []
    for a in arrays_and_dtypes:
        if isinstance(a, (list, tuple)):
            raise TypeError(f"result_type: cannot interpret {a!r} as an array or a dtype; "
                            f"pass arrays, scalars or dtypes")
        if isinstance(a, (np.dtype, type, str)):   # a dtype, a scalar type or 'f8'
            dt = dtypes.canonicalize(np.dtype(a))
            a = _make(ShapedArray((), dt), np.zeros((), dt))
        entries.append(a)
    return result_type_of(*entries)[0]


# ------------------------------------------------------------------ scalar types
# minijax.numpy's scalar types subclass NumPy's, so that they are dtypes
# (``np.dtype(float32)``), take part in NumPy's hierarchy (``issubclass(float32,
# np.floating)``) and compare equal to NumPy's (``x.dtype.type == float32``).
# Their metaclass adds what a drop-in needs: called on a minijax array or a tracer they
# cast like ``astype`` (so ``np.float32(x)`` works under jit, grad and vmap), and a 0-d
# minijax array (which minijax returns where NumPy returns a scalar) is an instance of
# the scalar types of its dtype (``isinstance(np.sum(x), np.floating)``).

class _ScalarTypeMeta(type):
    """Metaclass of minijax.numpy's scalar types (see above)."""

    def __call__(cls, *args):
        base = cls._numpy_type
        if cls._abstract:
            raise TypeError(f"cannot create instances of the abstract scalar type "
                            f"{cls.__name__} (use a concrete type such as float64)")
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}() takes at most one argument "
                            f"({len(args)} given)")
        if not args:
            return base()
        value, = args
        if isinstance(value, (Array, Tracer, list, tuple, np.ndarray)):
            return astype(to_array(value), cls.dtype, copy=False)
        return base(value)   # a Python or NumPy scalar, or a string: NumPy's scalar

    def __instancecheck__(cls, instance):
        base = cls._numpy_type
        if isinstance(instance, base):
            return True
        if type(instance) is Array or isinstance(instance, Tracer):
            aval = instance.aval
            return aval.shape == () and dtypes.issubdtype(aval.dtype, base)
        return False

    def __subclasscheck__(cls, subclass):
        if isinstance(subclass, _ScalarTypeMeta):
            subclass = subclass._numpy_type
        return issubclass(subclass, cls._numpy_type)

    def __eq__(cls, other):
        if other is cls._numpy_type:   # first: what NumPy's dict lookups ask (see below)
            return True
        if isinstance(other, _ScalarTypeMeta):
            return cls._numpy_type is other._numpy_type
        if isinstance(other, type):
            return cls._numpy_type is other
        return NotImplemented

    # Hashed as the NumPy type it stands for, so that with __eq__ the two are one key
    # of a dict or set (``{numpy.float32: f}[np.float32]``). NumPy hashes every dtype=
    # argument, so the hash stays in C: the property gives ``hash(numpy_type).__index__``
    # (a C method returning that int), which Python then calls with no argument.
    __hash__ = property(operator.attrgetter("_numpy_hash"))

    def __repr__(cls):
        return f"<class 'minijax.numpy.{cls.__name__}'>"


# result_type's common calls (one or two strong arrays or dtypes; one and a Python
# scalar), in C: minijax.numpy's scalar types stand for NumPy's there
result_type = fast_functions.result_type_fast_path(result_type, _ScalarTypeMeta)

_SCALAR_TYPES = {}   # NumPy scalar type -> minijax.numpy scalar type


def _scalar_type(numpy_type, name=None, abstract=False):
    """The minijax.numpy scalar type standing for ``numpy_type`` (one per NumPy type)."""
    if numpy_type in _SCALAR_TYPES:
        return _SCALAR_TYPES[numpy_type]
    name = name or numpy_type.__name__
    namespace = {"__module__": "minijax.numpy", "__qualname__": name,
                 "__doc__": f"minijax's stand-in for numpy.{name}: "
                            f"{numpy_type.__doc__.splitlines()[0] if numpy_type.__doc__ else ''}",
                 "_numpy_type": numpy_type, "_numpy_hash": hash(numpy_type).__index__,
                 "_abstract": abstract, "__slots__": ()}
    if not abstract:
        namespace["dtype"] = np.dtype(numpy_type)
    try:
        cls = _ScalarTypeMeta(name, (numpy_type,), namespace)
    except TypeError:   # NumPy's flexible and character cannot be subclassed
        del namespace["__slots__"]
        cls = _ScalarTypeMeta(name, (), namespace)
    _SCALAR_TYPES[numpy_type] = cls
    return cls


# the abstract hierarchy
generic = _scalar_type(np.generic, abstract=True)
number = _scalar_type(np.number, abstract=True)
integer = _scalar_type(np.integer, abstract=True)
signedinteger = _scalar_type(np.signedinteger, abstract=True)
unsignedinteger = _scalar_type(np.unsignedinteger, abstract=True)
inexact = _scalar_type(np.inexact, abstract=True)
floating = _scalar_type(np.floating, abstract=True)
complexfloating = _scalar_type(np.complexfloating, abstract=True)
# strings and void: no minijax dtype is below these two, but NumPy's hierarchy has them
flexible = _scalar_type(np.flexible, abstract=True)
character = _scalar_type(np.character, abstract=True)

# the concrete types (NumPy's C-named aliases are the same objects as NumPy's are)
bool_ = _scalar_type(np.bool_, "bool")   # NumPy 2 and the Array API also call it bool
int8, int16, int32, int64 = map(_scalar_type, (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = map(_scalar_type, (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = map(_scalar_type, (np.float16, np.float32, np.float64))
complex64, complex128 = map(_scalar_type, (np.complex64, np.complex128))
bfloat16 = _scalar_type(dtypes.bfloat16.type, "bfloat16")
byte, ubyte, short, ushort = map(_scalar_type, (np.byte, np.ubyte, np.short, np.ushort))
intc, uintc, int_, uint = map(_scalar_type, (np.intc, np.uintc, np.int_, np.uint))
long, ulong, intp, uintp = map(_scalar_type, (np.long, np.ulong, np.intp, np.uintp))
longlong, ulonglong = map(_scalar_type, (np.longlong, np.ulonglong))
half, single, double = map(_scalar_type, (np.half, np.single, np.double))
csingle, cdouble = map(_scalar_type, (np.csingle, np.cdouble))
False_, True_ = np.False_, np.True_

ScalarType = (int, float, complex, bool, bytes, str, memoryview) + \
    tuple(t for t in _SCALAR_TYPES.values() if not t._abstract)

sctypeDict = {name: _SCALAR_TYPES[t] for name, t in np.sctypeDict.items()
              if t in _SCALAR_TYPES}
sctypeDict["bfloat16"] = bfloat16


def _supported_char(c):
    return np.dtype(c) in dtypes.SUPPORTED_DTYPES


typecodes = {kind: "".join(c for c in chars if _supported_char(c))
             for kind, chars in np.typecodes.items()}
typecodes = {kind: chars for kind, chars in typecodes.items() if chars}

little_endian = sys.byteorder == "little"


def _as_numpy_dtype_arg(x):
    """A dtype-like argument with minijax scalar types replaced by NumPy's; arrays and
    tracers by their dtype."""
    if isinstance(x, _ScalarTypeMeta):
        return x._numpy_type
    if isinstance(x, (Array, Tracer)):
        return x.dtype
    return x


_ABSTRACT_NUMPY_TYPES = (np.generic, np.number, np.integer, np.signedinteger,
                         np.unsignedinteger, np.inexact, np.floating, np.complexfloating,
                         np.flexible, np.character)


# Answers of issubdtype and promote_types for dtypes, strings and scalar types (minijax's
# scalar types as NumPy's), by their arguments; promote_types's for the current mode.
_ISSUBDTYPE, _PROMOTE_TYPES = {}, {}
config.on_update(lambda name: _PROMOTE_TYPES.clear() if name == "enable_x64" else None)


def _kept(cache, args, answer):
    """``answer``, kept in ``cache`` under ``args`` when each names one dtype for good."""
    if len(cache) < 1024 and all(_is_dtype_constant(a) for a in args):
        cache[args] = answer
    return answer


def issubdtype(arg1, arg2):
    """Whether ``arg1`` (a dtype or scalar type) is ``arg2`` or below it in NumPy's type
    hierarchy (``issubdtype(float32, floating)``); bfloat16 is a floating type."""
    if type(arg1) is _ScalarTypeMeta:   # (hashed in Python: a NumPy type is not)
        arg1 = arg1._numpy_type
    if type(arg2) is _ScalarTypeMeta:
        arg2 = arg2._numpy_type
    try:
        found = _ISSUBDTYPE.get((arg1, arg2))
    except TypeError:   # (unhashable: an array, which is an error below)
        found = None
    if found is not None:
        return found
    return _kept(_ISSUBDTYPE, (arg1, arg2), _issubdtype(arg1, arg2))


def _issubdtype(arg1, arg2):
    for arg in (arg1, arg2):
        if isinstance(arg, (np.ndarray, Array, Tracer)):   # NumPy 2 takes no arrays here
            raise TypeError("issubdtype: Cannot construct a dtype from an array (pass "
                            "x.dtype)")
    a, b = _as_numpy_dtype_arg(arg1), _as_numpy_dtype_arg(arg2)
    if isinstance(a, type) and a in _ABSTRACT_NUMPY_TYPES:
        return issubclass(a, b if isinstance(b, type) else np.dtype(b).type)
    return dtypes.issubdtype(a, b)


# NumPy's descriptions of its type characters (numpy.typename, deprecated in NumPy 2.5)
_TYPE_NAMES = {
    "S1": "character", "?": "bool", "b": "signed char", "B": "unsigned char", "h": "short",
    "H": "unsigned short", "i": "integer", "I": "unsigned integer", "l": "long integer",
    "L": "unsigned long integer", "q": "long long integer", "Q": "unsigned long long integer",
    "f": "single precision", "d": "double precision", "g": "long precision",
    "F": "complex single precision", "D": "complex double precision",
    "G": "complex long double precision", "S": "string", "U": "unicode", "V": "void",
    "O": "object",
}


def typename(char):
    """NumPy's description of the type character ``char`` (``typename('d')``)."""
    try:
        return _TYPE_NAMES[char]
    except (KeyError, TypeError):
        raise ValueError(f"typename: {char!r} is not a NumPy type character; see "
                         f"numpy.typecodes['All'] for the valid ones") from None


def promote_types(type1, type2):
    """The smallest dtype both ``type1`` and ``type2`` cast to safely (bfloat16 too)."""
    if type(type1) is _ScalarTypeMeta:   # (hashed in Python: a NumPy type is not)
        type1 = type1._numpy_type
    if type(type2) is _ScalarTypeMeta:
        type2 = type2._numpy_type
    try:
        found = _PROMOTE_TYPES.get((type1, type2))
    except TypeError:   # (unhashable)
        found = None
    if found is not None:
        return found
    return _kept(_PROMOTE_TYPES, (type1, type2), _promote_types(type1, type2))


def _promote_types(type1, type2):
    d1 = np.dtype(_as_numpy_dtype_arg(type1))
    d2 = np.dtype(_as_numpy_dtype_arg(type2))
    if dtypes.is_non_numeric(d1) or dtypes.is_non_numeric(d2):
        return np.promote_types(d1, d2)   # dates, strings, records: NumPy's rule
    for d in (d1, d2):
        if d not in dtypes.SUPPORTED_DTYPES:
            dtypes.canonicalize(d)   # raises the named error for an unsupported dtype
    return dtypes.promote((d1, False), (d2, False))[0]


def min_scalar_type(a, /):
    """The smallest dtype that holds ``a``'s value (its dtype for a non-0-d array)."""
    if isinstance(a, Tracer):
        if a.aval.shape:
            return a.aval.dtype
        raise concretization_error(
            a, "min_scalar_type needs the value of a traced 0-d array (under jit/grad/vmap "
            "it is not known); pass a concrete value or use x.dtype")
    if isinstance(a, Array):
        a = a._value()
    return np.min_scalar_type(a)


# mintypecode's preference: the first character of this string found wins
_CHARS_BY_SIZE = "GDFgdfQqLlIiHhBb?"


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    """The character of the smallest type in ``typeset`` that every type in ``typechars``
    (type characters or arrays) casts to safely; ``default`` if none is in ``typeset``."""
    chars = {c if isinstance(c, str) else to_array(c).dtype.char for c in typechars}
    found = {c for c in chars if c in typeset}
    if not found:
        return default
    if "F" in found and "d" in found:
        return "D"   # single-precision complex with double: double complex holds both
    return min(found, key=_CHARS_BY_SIZE.index)


def common_type(*arrays):
    """The inexact scalar type of the arrays' common precision (integer arrays count as
    float64), complex if any of them is complex."""
    is_complex, precision = False, 0
    for a in arrays:
        d = to_array(a).dtype
        if dtypes.is_complex(d):
            is_complex = True
            bits = d.itemsize * 4
        elif dtypes.is_float(d):
            bits = 16 if d == dtypes.bfloat16 else d.itemsize * 8
        elif dtypes.is_integer(d):
            bits = 64
        else:
            raise TypeError(f"common_type: can't get a common type for an array of dtype "
                            f"{d} (it takes integer, floating and complex arrays)")
        precision = max(precision, bits)
    if is_complex:
        return {16: complex64, 32: complex64, 64: complex128}[precision]
    return {0: float16, 16: float16, 32: float32, 64: float64}[precision]
