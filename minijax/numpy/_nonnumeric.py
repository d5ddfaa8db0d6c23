"""NumPy's names for dates, strings, records and objects (DESIGN 3: an eager Array may
hold any NumPy dtype, and NumPy computes with it).

The scalar types are NumPy's own; the date functions and the ``char``, ``strings`` and
``rec`` modules are NumPy's functions taking and returning minijax Arrays. They run
eagerly only: under a transformation or with ``eager_backend="xla"`` they raise
``NonNumericDtypeError``. NumPy's ndarray subclasses in results (``chararray``,
``recarray``) come back as Arrays holding plain ndarrays (a record array's fields are
read as ``a['name']``, not as attributes)."""

import functools
import warnings

import numpy as np

from ..core import Tracer
from ..core.trace import non_numeric_context, numpy_eager
from ..errors import NonNumericDtypeError
from ..runtime import numpy_dispatch
from ..runtime.array import Array

# The scalar types (also the dtypes' ``type``s), as NumPy's.
datetime64 = np.datetime64
timedelta64 = np.timedelta64
str_ = np.str_
bytes_ = np.bytes_
void = np.void
object_ = np.object_
busdaycalendar = np.busdaycalendar   # a calendar object (it holds no Array)
datetime_data = np.datetime_data     # a dtype's (unit, count): no array in or out


def _refused(what, dtype=None):
    return NonNumericDtypeError(dtype, f"{what}{non_numeric_context()}")


def _to_host(x, what):
    t = type(x)
    if t is Array:
        if x.committed():
            raise NonNumericDtypeError(x.dtype, f"{what} on an Array committed to "
                                                f"{x.device}")
        return x._value()
    if isinstance(x, Tracer):
        raise _refused(what)
    if t is list or t is tuple:
        return t([_to_host(e, what) for e in x])
    return x


def _plain(r):
    """A NumPy result with its ndarray subclasses (chararray, recarray) made plain."""
    if isinstance(r, np.ndarray) and type(r) is not np.ndarray:
        r = r.view(np.ndarray)
        if r.dtype.type is np.record:   # record -> the structured (void) dtype it holds
            r = r.view(np.dtype((np.void, r.dtype)))
    elif type(r) is tuple or type(r) is list:
        return type(r)(_plain(e) for e in r)
    return r


def host_function(np_fn, qualname):
    """``np_fn`` on minijax Arrays: arguments read from the host, the result wrapped
    (eagerly only; ``qualname`` names it in the error otherwise)."""
    @functools.wraps(np_fn)
    def call(*args, **kwargs):
        if not numpy_eager():
            raise _refused(qualname)
        hargs = [_to_host(a, qualname) for a in args]
        hkwargs = {k: _to_host(v, qualname) for k, v in kwargs.items()}
        return numpy_dispatch.wrap(_plain(np_fn(*hargs, **hkwargs)))
    call.__qualname__ = call.__name__ = qualname.rsplit(".", 1)[-1]
    return call


def install_module(namespace, np_module, qualname, skip=()):
    """Fill a module's ``namespace`` with ``np_module``'s public functions as
    ``host_function``s (its classes and constants as they are). A name NumPy deprecates
    (reading it warns, as ``numpy.char.chararray`` does from NumPy 2.5) is read when it
    is first asked for, with NumPy's warning then, not at import."""
    deprecated = set()
    for name in getattr(np_module, "__all__", ()):
        if name in skip:
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(np_module, name)
        if any(issubclass(w.category, DeprecationWarning) for w in caught):
            deprecated.add(name)
            continue
        namespace[name] = _installed(value, f"{qualname}.{name}")
    namespace["__all__"] = [n for n in np_module.__all__ if n not in skip]
    if deprecated:
        def __getattr__(name):
            if name in deprecated:
                return _installed(getattr(np_module, name), f"{qualname}.{name}")
            raise AttributeError(f"module {qualname!r} has no attribute {name!r}")
        namespace["__getattr__"] = __getattr__


def _installed(value, qualname):
    return (host_function(value, qualname) if callable(value) and not isinstance(value, type)
            else value)


busday_count = host_function(np.busday_count, "minijax.numpy.busday_count")
busday_offset = host_function(np.busday_offset, "minijax.numpy.busday_offset")
is_busday = host_function(np.is_busday, "minijax.numpy.is_busday")
datetime_as_string = host_function(np.datetime_as_string,
                                   "minijax.numpy.datetime_as_string")
isnat = host_function(np.isnat, "minijax.numpy.isnat")
