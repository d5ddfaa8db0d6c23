"""The argument checks every entry point shares: integers, sequences of integers,
shapes, array sizes, axes, dtypes, flags, and the argnums/argnames of transformations.
(Keyword-only arguments are declared with ``*`` in signatures: Python checks those.)

Each check raises NumPy's exception class with NumPy's wording where NumPy has one,
prefixed by the name of the argument, so that a bad argument is reported before
anything is traced or lowered (decision 7). A traced value passed where a Python
integer is needed raises the tracer's own conversion error.
"""

import operator
import os

import numpy as np
from numpy.exceptions import AxisError

from .errors import OutOfMemoryError

# The largest element count and byte size an array may have (NumPy's limit: a signed
# 64-bit extent, as XLA's).
MAX_EXTENT = np.iinfo(np.int64).max


def _label(name):
    return f"{name}: " if name else ""


def index(value, name=None):
    """``value`` as a Python int (``operator.index``: ints, NumPy integers and 0-d
    integer arrays; not floats, strings or bools-as-something-else); NumPy's TypeError
    otherwise."""
    if isinstance(value, int):   # the common case, bool included as in NumPy
        return int(value)
    try:
        return operator.index(value)
    except TypeError as e:
        if type(e) is not TypeError:   # a tracer's named conversion error
            raise
        raise TypeError(f"{_label(name)}'{type(value).__name__}' object cannot be "
                        f"interpreted as an integer") from None


def c_int(value, name=None):
    """``index(value)`` within a C int, as NumPy's C code takes it (a diagonal's offset);
    NumPy's OverflowError beyond."""
    value = index(value, name)
    if not -2**63 <= value < 2**63:
        raise OverflowError(f"{_label(name)}Python int too large to convert to C long")
    if not -2**31 <= value < 2**31:
        raise OverflowError(f"{_label(name)}signed integer is "
                            f"{'greater than maximum' if value > 0 else 'less than minimum'}")
    return value


def int_sequence(value, name=None):
    """A sequence of integers (a tuple, list or 1-d integer array) as a tuple of ints;
    a single integer is not accepted here (see ``shape`` and ``axes``)."""
    if isinstance(value, (str, bytes, dict, set, frozenset)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{_label(name)}expected a sequence of integers, got "
                        f"{type(value).__name__} {value!r}")
    return tuple(index(v, name) for v in value)


def shape(value, name="shape"):
    """A shape (an integer or a sequence of integers) as a tuple of non-negative ints.

    NumPy's errors: TypeError "expected a sequence of integers or a single integer",
    ValueError "negative dimensions are not allowed" and "Maximum allowed dimension
    exceeded"."""
    if isinstance(value, tuple):
        for d in value:
            if type(d) is not int or not 0 <= d <= MAX_EXTENT:
                break
        else:
            return value   # fast path: already a valid shape
    if isinstance(value, (str, bytes, dict, set, frozenset, float, complex, bool)) or (
            isinstance(value, np.ndarray) and value.ndim > 1):
        raise TypeError(f"{_label(name)}expected a sequence of integers or a single "
                        f"integer, got {value!r}")
    try:
        dims = (operator.index(value),)
    except TypeError as e:
        if type(e) is not TypeError:
            raise
        if not hasattr(value, "__iter__"):
            raise TypeError(f"{_label(name)}expected a sequence of integers or a single "
                            f"integer, got {value!r}") from None
        dims = []
        for d in value:
            if isinstance(d, (bool, np.bool_)):   # NumPy: "an integer is required"
                raise TypeError(f"{_label(name)}expected a sequence of integers or a single "
                                f"integer, got {value!r} (an integer is required, not a bool)")
            try:
                dims.append(operator.index(d))
            except TypeError as e:
                if type(e) is not TypeError:
                    raise
                raise TypeError(f"{_label(name)}expected a sequence of integers or a single "
                                f"integer, got {value!r}") from None
        dims = tuple(dims)
    for d in dims:
        if d < 0:
            raise ValueError(f"{_label(name)}negative dimensions are not allowed "
                             f"(got shape {dims})")
        if d > MAX_EXTENT:
            raise ValueError(f"{_label(name)}Maximum allowed dimension exceeded "
                             f"(got shape {dims})")
    return dims


def array_size(dims, dtype, name=None):
    """Raise NumPy's ValueError "array is too big" if an array of shape ``dims`` and
    ``dtype`` has more elements or bytes than a signed 64-bit count holds."""
    count = 1
    for d in dims:
        count *= d
    if count * np.dtype(dtype).itemsize > MAX_EXTENT or any(d > MAX_EXTENT for d in dims):
        raise ValueError(f"{_label(name)}array is too big; `arr.size * arr.dtype.itemsize` "
                         f"is larger than the maximum possible size (shape {tuple(dims)}, "
                         f"dtype {np.dtype(dtype).name})")
    return count


def _format_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.2f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


PHYSICAL_MEMORY = _physical_memory()


def allocatable(dims, dtype, name=None):
    """``array_size``, then raise ``OutOfMemoryError`` (a MemoryError, NumPy's wording)
    for an array larger than the machine's physical memory: it cannot be allocated, and
    a program that only streams through it would run for hours."""
    count = array_size(dims, dtype, name)
    nbytes = count * np.dtype(dtype).itemsize
    if PHYSICAL_MEMORY is not None and nbytes > PHYSICAL_MEMORY:
        raise OutOfMemoryError(f"{_label(name)}Unable to allocate {_format_bytes(nbytes)} for "
                               f"an array with shape {tuple(dims)} and data type "
                               f"{np.dtype(dtype).name}")
    return count


def axis(value, ndim, name="axis"):
    """One axis of an array of rank ``ndim``, as a non-negative int; NumPy's TypeError
    for a non-integer (a bool too) and AxisError for an axis out of bounds."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: an integer is required, got {value!r}")
    a = index(value, name)
    if not -ndim <= a < ndim:
        raise AxisError(f"{name} {a} is out of bounds for array of dimension {ndim}")
    return a % ndim


def axes(value, ndim, name="axis", allow_duplicates=False):
    """An axis or a sequence of axes as a tuple of non-negative ints (``None`` is the
    caller's to handle); ValueError "duplicate value in 'axis'" unless allowed."""
    if isinstance(value, (tuple, list)):
        out = tuple(axis(a, ndim, name) for a in value)
    elif (hasattr(value, "__iter__") and not isinstance(value, (str, bytes))
          and getattr(value, "ndim", 1) != 0):   # a 0-d integer array is one axis
        raise TypeError(f"{name} must be an integer or a tuple of integers, got "
                        f"{type(value).__name__} {value!r}")
    else:
        out = (axis(value, ndim, name),)
    if not allow_duplicates and len(set(out)) != len(out):
        raise ValueError(f"duplicate value in '{name}': {value!r}")
    return out


def dtype(value, name="dtype"):
    """``value`` as a NumPy dtype; TypeError naming the argument for something that is
    not a data type."""
    if value is None:
        return None
    try:
        return np.dtype(value)
    except TypeError:
        raise TypeError(f"{name}: data type {value!r} not understood") from None


def argnums(value, name="argnums", allow_empty=True):
    """An ``argnums``-style argument (an int or a sequence of ints) as a tuple of ints;
    TypeError naming ``name`` for anything else."""
    if isinstance(value, bool) or not (hasattr(value, "__index__") or isinstance(
            value, (tuple, list))):
        raise TypeError(f"{name} must be an int or a sequence of ints, got "
                        f"{type(value).__name__} {value!r}")
    if hasattr(value, "__index__"):
        return (operator.index(value),)
    for v in value:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{name} must be an int or a sequence of ints, got {value!r}")
    if not value and not allow_empty:
        raise ValueError(f"{name} must name at least one argument, got {value!r}")
    return tuple(operator.index(v) for v in value)


def argnames(value, name="static_argnames"):
    """A ``static_argnames``-style argument (a str or a sequence of str) as a tuple."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, (tuple, list, set, frozenset)) or not all(
            isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a str or a sequence of str, got "
                        f"{type(value).__name__} {value!r}")
    return tuple(value)


def flag(value, name):
    """A boolean flag such as ``keepdims``, read as NumPy reads it: a bool or an integer
    (``operator.index``), TypeError for anything else, OverflowError beyond a C int."""
    if value is True or value is False:
        return value
    v = index(value, name)
    if not -2 ** 31 <= v < 2 ** 31:
        raise OverflowError(f"{name}: Python int too large to convert to C int")
    return bool(v)
