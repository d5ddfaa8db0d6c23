"""Eager calls are NumPy calls (DESIGN 3): the one dispatch entry point.

With no transformation active, the NumPy eager backend, and every input concrete on
the host (uncommitted Arrays, NumPy arrays and scalars, Python scalars, nested lists
and tuples of those, strings, None, dtypes, slices), a ``minijax.numpy`` function or
``Array`` method calls the NumPy function of the same meaning once on the host buffers
and wraps its result without copying. Otherwise it takes the ``lax`` path it wraps,
which traces, runs on other devices, and runs with ``eager_backend="xla"``.

The wrappers here are generic: each takes a host function and the ``lax`` definition
it stands in front of. Which functions and methods get them, and the host versions
that fix NumPy's answers, are ``minijax/numpy/_eager_table.py``, which installs them.
A result that is a NumPy view of an input Array's buffer becomes a view Array of that
input (``Array._view_of``).

Speed: this wrapper's cost is added to every eager call, so the common cases are
checked inline. "Eager on NumPy" is ``core.trace.numpy_eager()``, one flag read in the
common case (no thread is tracing and the option is "numpy"; the thread's own stack is
read only when it is False); results are Arrays whose aval is made from the ndarray
when first asked; a 0-d result keeps the NumPy scalar NumPy returned; in-place writes
go into the buffer and copy first only when NumPy refuses because it is read-only
(observed).
"""

import datetime
import functools
import types

import cython

import numpy as np

from .. import dtypes
from ..dtypes import is_non_numeric
from ..errors import NonNumericDtypeError, TracerArrayConversionError
from ..config import config
from ..core import Tracer
from ..core.avals import ShapedArray
from ..core.trace import non_numeric_context, numpy_eager, numpy_flag
from .array import (NOT_GIVEN as _ABSENT, Array, _MOMENT_KEYWORDS, _REDUCE_KEYWORDS,
                    _SCAN_KEYWORDS, _holding, _make, as_view_of, canonical_dtype, canonical_dtypes,
                    canonical_scalar_type, canonical_scalars, diagonal_offset,
                    direct_write_target, given,
                    overlapping_or_read_only, sole_source, ufunc_in_place, strong_host,
                    view_result)

if not cython.compiled:   # (compiled: a C type and C functions, numpy_dispatch.pxd)
    class _Forwarder:
        """Calls forward to the function set with ``forward_to``."""

        def __call__(self, *args, **kwargs):
            return self._forward_target(*args, **kwargs)

    def make_forwarder_type():
        return _Forwarder

    def _forward_to_c(obj, target, positional):
        obj._forward_target = target

    def _enable_vectorcall_c(cls):
        pass

    def _bind_as_function_c(cls):
        pass

    def _set_positional_call_c(call, absent):
        pass

    def plain_shape(shape):
        return all(type(n) is int and 0 <= n < 2**63
                   for n in (shape if type(shape) is tuple else (shape,)))


Forwarder = make_forwarder_type()


def forward_to(obj, target):
    """Make a call of ``obj`` (a ``Forwarder``) a call of ``target`` (a call with at most
    two positional arguments and no keywords goes straight to the eager dispatch of a
    ``numpy_call`` target)."""
    _forward_to_c(obj, target, getattr(target, "_numpy_call", None))


def enable_vectorcall(cls):
    """Give ``cls``, a subclass of ``Forwarder`` that does not define ``__call__``, the
    C type's fast call (CPython 3.11 passes it on only to immutable types)."""
    _enable_vectorcall_c(cls)

_ndarray = np.ndarray
_Array = Array   # (compiled: a C variable; the name Array is a module global)
if not cython.compiled:   # (compiled: C functions, cimported in numpy_dispatch.pxd)
    from .array import _current_host, _link, _view_holding, _view_root, _view_snapshot, \
        host_indexing, ndarray_base, ndarray_bounds_overlap, ndarray_dtype, ndarray_ndim, \
        ndarray_size, ndarray_writeable, view_link


class _NotHost(Exception):
    """An input NumPy must not see (a tracer, a committed Array, an unknown object)."""


_PLAIN = frozenset({int, float, complex, bool, str, type(None), slice, type(Ellipsis),
                    np.dtype, type})
_SCALARS = frozenset({int, float, complex, bool})
_generic = np.generic


# With the option debug_dispatch_paths: the eager calls that missed the NumPy path and
# took the lax one, by name. Counted on that slow path only (the host path pays nothing).
lax_definition_counts = {}


def _count_lax_definition(fn):
    if config.debug_dispatch_paths and numpy_eager():
        name = getattr(fn, "__name__", repr(fn))
        lax_definition_counts[name] = lax_definition_counts.get(name, 0) + 1


def _host(a):
    t = type(a)
    if t is _Array:   # (strong_host's checks, inline: every eager call's operands)
        arr = a
        if arr._placement is not None:
            raise _NotHost
        aval = arr._aval
        if aval is not None and aval.weak_type:
            if aval.shape:
                raise _NotHost
            # a Python scalar stays weak for NumPy (NEP 50): float() of a float64 host,
            # else item() of a 0-d array (a NumPy scalar's own item() costs more)
            host = arr._host
            if type(host) is _float64_scalar:
                return float(host)
            return arr._value().item()
        host = arr._host
        if host is None or arr._view is not None:
            host = _current_host(arr)
        return host
    if t is _ndarray or t is int or t is float:   # (the common ones before the set)
        return a
    if t is tuple or t is list:
        for e in a:
            te = type(e)
            if te is not int and te not in _PLAIN:
                return t([_host(e) for e in a])
        return a
    if t in _PLAIN:
        return a
    if isinstance(a, (_generic, np.dtype, type)):   # NumPy scalars, dtypes, numpy.float32
        return a
    if isinstance(a, _HOST_OBJECTS):
        return a
    raise _NotHost


# Python values NumPy reads as dates, durations and byte strings
_HOST_OBJECTS = (bytes, datetime.date, datetime.timedelta)


def _host_loose(a):
    """``_host`` for a call that involves a non-numeric array: any other object (a
    ``Fraction`` for an object array, ...) goes to NumPy as it is; tracers and Arrays
    NumPy must not see still raise ``_NotHost``."""
    try:
        return _host(a)
    except _NotHost:
        t = type(a)
        if t is _Array or isinstance(a, Tracer):
            raise
        if t is list or t is tuple:
            return t([_host_loose(e) for e in a])
        return a


def _is_non_numeric(h):
    """``h`` (a host value) is or holds an array or scalar of a non-numeric dtype."""
    t = type(h)
    if t is _ndarray or isinstance(h, _generic):
        return is_non_numeric(h.dtype)
    if t is list or t is tuple:
        for e in h:
            if _is_non_numeric(e):
                return True
    return False


def _loose_call(args, kwargs):
    """The host arguments of a call NumPy must make because it involves a non-numeric
    array, else None (the lax path takes it: a tracer, a device, or numbers only)."""
    try:
        hargs = [_host_loose(a) for a in args]
        hkwargs = {k: _host_loose(v) for k, v in kwargs.items()
                   if v is not None or k not in _NONE_IS_ABSENT}
    except _NotHost:
        return None
    if "out" in kwargs and kwargs["out"] is not None:
        return None
    if _is_non_numeric(hargs) or _is_non_numeric(list(hkwargs.values())):
        return hargs, hkwargs
    return None


_OPERANDS = frozenset({Array, _ndarray, int, float, complex, bool, list, tuple})


def _loose_operand(host, other):
    """``other`` as NumPy takes it next to ``host`` when that is a date, string, record or
    object array (strings, dates, any object), or when ``other`` is a weakly typed Array
    of ``host``'s dtype (``np.where(c, 1.0, 0.0)``: then NumPy's result is JAX's); else
    ``_NotHost``."""
    if (type(other) is _Array and other._placement is None and other.weak_type
            and other.dtype == host.dtype):
        return other._value()
    if is_non_numeric(host.dtype):
        return _host_loose(other)
    raise _NotHost


def _operand(a):
    """``_host`` for the other operand of an operator (no strings, None, ...)."""
    if type(a) in _OPERANDS or isinstance(a, _generic):
        return _host(a)
    raise _NotHost


def _index_ranges(idx):
    """An index ``_host`` refused, as NumPy takes it when ranges are what it refused
    (NumPy reads a range as an index array, as a list); else ``_NotHost``."""
    t = type(idx)
    if t is range:
        return idx
    if t is tuple or t is list:
        return t([_index_ranges(e) for e in idx])
    return _host(idx)


def _weak_scalar_op(fn, self, other):
    """``fn(self, other)`` (a binary operator or ufunc) on the host where ``self`` is a
    weakly typed Array (a Python scalar made an Array, e.g. ``np.log(2 * np.pi)``, or
    ``np.where(c, 1.0, 0.0)``), else None (the lax path decides). With a Python scalar or
    another weak Array the result is weak, of NumPy's dtype for ``self``'s NumPy value
    and that Python scalar (JAX's weak promotion). With a strong operand, a 0-d ``self``
    is the Python scalar to NumPy (NEP 50: the operand's dtype wins, as JAX's); an array
    ``self`` only next to one of its dtype (the result then is the same)."""
    shaped = bool(self._aval.shape)
    try:
        ho = _operand(other)
    except _NotHost:
        if not (type(other) is _Array and other._placement is None and other.weak_type):
            return None
        ho = other._value()   # (weak, shaped)
        if ho.dtype != self.dtype:
            return None
        t = float
    else:
        t = type(ho)
    weak = t in _SCALARS
    hs = self._value() if shaped else _weak_scalar(self)
    if not weak:
        if t is list or t is tuple:
            ho = np.asarray(ho)   # (not Python's sequence arithmetic)
        if not shaped:
            hs = hs.item()
        elif getattr(ho, "dtype", None) != hs.dtype:
            return None
    try:
        r = fn(hs, ho)
    except Exception:
        return None   # (the lax path's error names the operator)
    if r is NotImplemented:
        return None
    return _weak_result(r) if weak else wrap(r)


def _weak_scalar(a):
    """The NumPy scalar a weakly typed 0-d Array holds."""
    host = a._host
    return host if type(host) in _canonical_scalars else a._value()[()]


_weak_scalar_avals = {}   # NumPy scalar type -> its weakly typed 0-d aval (immutable)


def _weak_result(r, args=(), each=False):
    """``r`` (NumPy's result of a call on ``args`` whose operands are all weak) as a
    weakly typed Array (``each``: see ``_weaken``)."""
    t = type(r)
    if canonical_scalar_type(t):
        aval = _weak_scalar_avals.get(t)
        if aval is None and r.dtype.kind in "iufc":
            aval = _weak_scalar_avals[t] = ShapedArray((), r.dtype, True)
        if aval is not None:
            out = _holding(r)   # (holding the NumPy scalar, as a strong 0-d result)
            out._aval = aval
            return out
    return _weaken(wrap(r, args), each)


_canonical = canonical_dtypes   # (the sets runtime/array.py keeps current)
_canonical_scalars = canonical_scalars


def _new_array(host):
    """An Array owning ``host`` (an ndarray or NumPy scalar of a canonical dtype); its
    aval is made from ``host`` when first asked."""
    return _make(None, host)



def share_ndarray(a):
    """An Array sharing the memory of ``a`` (an ndarray of a dtype in ``_canonical``), as
    NumPy's ``asarray``: a write through either is seen by both. The Array holds an
    ndarray object of its own viewing that memory, so that marking it read-only (after
    an export or for a transformation's snapshot; its next write then copies) leaves
    the caller's ``a`` as writable as it was."""
    return _make(None, a.view())


def copy_ndarray(a):
    """An Array owning a copy of ``a`` (an ndarray of a dtype in ``_canonical``)."""
    return _new_array(a.copy(order="K"))


def is_canonical(dtype):
    """``dtype`` is stored as it is in the current mode (no conversion, no error)."""
    return dtype in _canonical


def wrap(r, args=()):
    """``r`` (a NumPy result) as minijax values: arrays and scalars become Arrays
    (sharing ``r``'s buffer), tuples and lists are mapped."""
    t = type(r)
    if t is not _ndarray:
        if t is tuple or t is list:
            return t(_wrap_each(r, args))
        if canonical_scalar_type(t):
            return _holding(r)   # a 0-d Array holding the NumPy scalar
        if isinstance(r, _generic):
            if canonical_dtype(r.dtype) or is_non_numeric(r.dtype):
                return _new_array(r)   # a 0-d Array holding the NumPy scalar
            r = np.asarray(r)
        elif t in _SCALARS:
            r = np.asarray(r)
        elif isinstance(r, tuple):   # NumPy's named tuples (unique_all, eigh, svd, ...)
            return t(*[wrap(e, args) for e in r])
        else:
            return r
    if not canonical_dtype(ndarray_dtype(r)) and not is_non_numeric(r.dtype):
        # 32-bit mode: narrowed on the way out (dates, strings, records and objects stay
        # as NumPy gives them: DESIGN 3)
        r = r.astype(dtypes.canonicalize(r.dtype))
    out = _make(None, r)
    if args and ndarray_base(r) is not None:
        as_view_of(out, args)
    return out


def _wrap_each(r, args):
    """``[wrap(e, args) for e in r]``; when ``args`` hold one Array, the elements that
    view its buffer (unstack, split, broadcast_arrays) are found once, not per element.
    An element that is the one before it (``diag_indices``) is the same Array too."""
    out = []
    arrays = 0
    for a in args:
        if type(a) is _Array:
            arrays += 1
    # the last element made a view of the Array's buffer: its owner, dtype, root, link
    owner = dtype = bounds = entry = root = root_host = None
    root_writeable = False
    before = _ABSENT
    for e in r:
        if e is before:   # (diag_indices: the same array twice)
            out.append(a)
            continue
        before = e
        if (type(e) is _ndarray and arrays == 0 and canonical_dtype(ndarray_dtype(e))
                or type(e) is not _ndarray and canonical_scalar_type(type(e))):
            a = _holding(e)   # (as wrap makes it: no Array in args to be a view of)
        elif (type(e) is _ndarray and owner is not None and ndarray_base(e) is owner
                and ndarray_dtype(e) is dtype and ndarray_size(e)
                and (bounds is None or ndarray_bounds_overlap(e, bounds))):
            # as_view_of would find the same root (the only Array, whose buffer e views);
            # view entries are never changed in place: siblings share one
            a = _view_holding(e, view_link(root, root_host, True)
                              if root_writeable and overlapping_or_read_only(e) else entry)
        else:
            a = wrap(e, args)
            if arrays == 1 and type(a) is _Array and a._view is not None:
                root = _view_root(a._view)
                root_host = _view_snapshot(a._view, a._host)
                # (the elements that share a._host's base share its link's form)
                entry = _link(root, root_host, a._host)
                owner = ndarray_base(a._host)
                dtype = ndarray_dtype(a._host)
                root_writeable = ndarray_writeable(root_host)
                # (as_view_of checks the bounds when the root's ndarray is itself a view)
                bounds = None if root_host is owner or sole_source(args) else root_host
        out.append(a)
    return out


def _involves_non_numeric(args, kwargs):
    for a in (*args, *kwargs.values()):
        if type(a) is _Array:
            if is_non_numeric(a.dtype):
                return True
        elif _is_non_numeric(a):
            return True
    return False


def _numpy_failed(error, lax_definition, args, kwargs):
    """NumPy raised: the lax path's named error (which says what to do) if it raises
    one, else NumPy's exception as NumPy raised it (e.g. LinAlgError on a singular
    matrix, where compiled code gives non-finite values)."""
    if isinstance(error, TypeError) and ("keyword argument" in str(error)
                                         or "positional argument" in str(error)):
        _count_lax_definition(lax_definition)
        return lax_definition(*args, **kwargs)   # a call NumPy's signature does not take
    if _involves_non_numeric(args, kwargs):
        if isinstance(error, AttributeError):   # (NumPy's slip over an argument's kind)
            name = getattr(lax_definition, "__name__", "this function")
            raise TypeError(f"{name}: NumPy cannot take an argument of this kind here "
                            f"({error}); pass what NumPy's {name} documents") from error
        raise error   # NumPy's answer on dates, strings, records and objects is final
    result = lax_definition(*args, **kwargs)
    if isinstance(error, AttributeError):
        # NumPy assumed an ndarray where the caller gave a list (hsplit, unstack): its
        # own slip, not a rejection; the lax path's answer stands
        return result
    raise error


# minijax (like JAX) takes None for "not given" where NumPy's default is a sentinel and
# None means something else (``where=None`` is a mask to NumPy's reductions).
_NONE_IS_ABSENT = frozenset({"where", "initial"})
_KEYWORDS_TO_CONVERT = _NONE_IS_ABSENT | {"out", "device"}


def _plain_keywords(kwargs):
    """Whether NumPy takes ``kwargs`` as they are: each is one ``_host_kwargs`` passes
    unchanged (``axis=``, ``dtype=``, ``keepdims=``, ... of plain values; never ``out=``,
    ``where=``, ``initial=``, ``device=``). None where not; else the NumPy dtype to pass
    for a ``dtype=`` of minijax.numpy's numeric scalar types (NumPy's own reading of
    that subclass of its scalar type, found faster), or ``_ABSENT``."""
    stand_in = _ABSENT
    for k, v in kwargs.items():
        if k in _KEYWORDS_TO_CONVERT:
            return None
        t = type(v)
        if t is int or t is bool or v is None or t in _PLAIN:
            continue
        if t is tuple:
            for e in v:
                if type(e) not in _PLAIN:
                    return None
        elif t is _scalar_type_class:
            if k == "dtype":
                stand_in = _NUMERIC_DTYPES.get(v._numpy_type, _ABSENT)
        elif not isinstance(v, _DTYPE_LIKE):
            return None
    return stand_in


# what ``_host`` passes as it is besides _PLAIN (dtypes, NumPy scalars and scalar types)
_DTYPE_LIKE = (np.dtype, _generic, type)
_NUMERIC_DTYPES = {np.dtype(c).type: np.dtype(c) for c in "?bhilqBHILQefdgFDG"}
# the metaclass of minijax.numpy's scalar types (which subclass NumPy's), set by
# ``set_scalar_type_class`` (the numpy layer defines it)
_scalar_type_class = None


def set_scalar_type_class(cls):
    global _scalar_type_class
    _scalar_type_class = cls


def _host_kwargs(kwargs):
    """NumPy's keywords: host values (None dropped where it means "not given"), and
    ``out=`` as the writable buffer it names."""
    for k, v in kwargs.items():
        if type(v) not in _PLAIN or k in _KEYWORDS_TO_CONVERT:
            break
    else:
        return kwargs   # (the common case: axis=, keepdims=, dtype= as they are)
    if kwargs.get("device") is not None:
        raise _NotHost
    hkwargs = {k: _host(v) for k, v in kwargs.items()
               if k != "out" and (v is not None or k not in _NONE_IS_ABSENT)}
    if "out" in kwargs:   # out=None too: NumPy sees out given twice as the caller did
        out = kwargs["out"]
        hkwargs["out"] = None if out is None else _host_out(out)
    return hkwargs


def _host_out(out):
    """NumPy's ``out=``: the writable host buffer of an Array (copy-on-write, DESIGN 5;
    a view's buffer writes into its base), a NumPy array as it is, or a tuple of those."""
    t = type(out)
    if t is _Array:
        if out._placement is not None or out.aval.weak_type:
            raise _NotHost
        return out._writable()
    if t is _ndarray:
        return out
    if t is tuple:
        return tuple(None if o is None else _host_out(o) for o in out)
    raise _NotHost


def _returned_out(out):
    return out[0] if type(out) is tuple and len(out) == 1 else out


def _weak_operand(a):
    """``a`` is a Python number (not a bool), a weakly typed Array, or a non-empty list
    or tuple of those."""
    t = type(a)
    if t is _Array:
        arr = a
        return arr._aval is not None and arr._aval.weak_type
    if t is int or t is float or t is complex:
        return True
    if t is list or t is tuple:
        for e in a:
            if not _weak_operand(e):
                return False
        return len(a) > 0
    return False


def _weak_operands(args, start, stop):
    """Every positional argument in ``[start, stop)`` (``stop`` < 0: to the end) but
    None (not given: ``clip(x, None, 1.0)``) is a weak operand, and there is one."""
    n = len(args)
    if stop < 0 or stop > n:
        stop = n
    found = False
    for i in range(start, stop):
        a = args[i]
        if a is not None:
            if not _weak_operand(a):
                return False
            found = True
    return found


def _weaken(out, each=False):
    """``out`` (a wrapped result) marked weakly typed, unless bool (never weak); the
    elements of a tuple or list result when ``each`` (else it stays strong, as the lax
    path's divmod/modf/frexp do)."""
    t = type(out)
    if t is _Array and out.dtype.kind in "iufc":
        out = _new_array(out._value())
        out._aval = ShapedArray(out._host.shape, out._host.dtype, True)
    elif each and (t is tuple or t is list):
        return t([_weaken(e) for e in out])
    return out


def _masked_fresh_output(ufunc, hargs, hkwargs):
    """A ufunc call with ``where=`` and no ``out=``: NumPy leaves the masked-out
    elements uninitialised; minijax fills them with zeros, as its traced path does."""
    nout = getattr(ufunc, "nout", 1)
    r = ufunc(*hargs, out=(None,) * nout if nout > 1 else None, **hkwargs)
    drop = ~np.asarray(hkwargs["where"], dtype=np.bool_)   # NumPy checked its dtype
    filled = []
    for res in (r if nout > 1 else (r,)):
        if type(res) is _ndarray:
            np.copyto(res, np.zeros((), res.dtype), where=drop)
        elif drop:   # a NumPy scalar (0-d result)
            res = res.dtype.type(0)
        filled.append(res)
    return tuple(filled) if nout > 1 else filled[0]


def _named(error, lax_definition, np_fn=None):
    """``error`` (a NonNumericDtypeError) naming the minijax function or Array method
    the user called, which names it better than the lax primitive it reached."""
    name = getattr(lax_definition, "__name__", "")
    if name.startswith("_") and not name.startswith("__"):
        name = getattr(np_fn, "__name__", name).lstrip("_")   # (a helper: NumPy's name)
    where = f"Array.{name}" if name.startswith("__") or np_fn is None else \
        f"minijax.numpy.{name}"
    return error.named(f"{where}{non_numeric_context()}", True)


def _function_result(r, h, x0, x1, rest):
    """``r``, NumPy's ndarray result (of a canonical dtype) of a call with the arguments
    ``given(x0, x1, rest)``, as an Array (``h``: the first argument's host value): a view
    Array of the first argument when it views that argument's buffer or is its ndarray
    itself, as ``atleast_1d`` returns it (``view_result``), else of another argument's
    (``as_view_of``)."""
    if ndarray_base(r) is None and r is not h:
        return _holding(r)   # (new memory, as a ufunc's result: nothing to link)
    first = x0 if x0 is not _ABSENT else rest[0] if rest else None
    if type(first) is _Array and type(h) is _ndarray:
        out = view_result(first, h, r, None)
        if out is first or out._view is not None:
            return out
    else:
        out = _holding(r)
    if r is h or ndarray_base(r) is not None:
        as_view_of(out, given(x0, x1, rest))
    return out


def _keyword_call(np_fn, a, b, c, n, kwargs):
    """``np_fn`` of its first ``n`` positional arguments ``a, b, c`` and ``kwargs``, a
    lone ``dtype=`` or ``axis=`` spelled out (compiled, a ``**`` call copies the dict
    and NumPy's vectorcall unpacks it again)."""
    if len(kwargs) == 1:
        v = kwargs.get("dtype", _ABSENT)
        if v is not _ABSENT:
            return (np_fn(a, dtype=v) if n == 1 else np_fn(a, b, dtype=v) if n == 2
                    else np_fn(a, b, c, dtype=v) if n == 3 else np_fn(dtype=v))
        v = kwargs.get("axis", _ABSENT)
        if v is not _ABSENT:
            return (np_fn(a, axis=v) if n == 1 else np_fn(a, b, axis=v) if n == 2
                    else np_fn(a, b, c, axis=v) if n == 3 else np_fn(axis=v))
    return (np_fn(a, **kwargs) if n == 1 else np_fn(a, b, **kwargs) if n == 2
            else np_fn(a, b, c, **kwargs) if n == 3 else np_fn(**kwargs))


def _float_operand(h):
    """``h`` (a host operand) is a float ndarray (of NumPy's float64, float32 or float16
    dtype object), a NumPy float scalar of those, or a Python float."""
    t = type(h)
    if t is _ndarray:
        d = ndarray_dtype(h)
        return d is _float64 or d is _float32 or d is _float16
    return t is float or t is _float64_scalar or t is _float32_scalar or t is _float16_scalar


_float64, _float32, _float16 = np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16)
_float64_scalar, _float32_scalar, _float16_scalar = np.float64, np.float32, np.float16


def numpy_call(np_fn, lax_definition, nin=None, ufunc=None, weak_operands=None):
    """``lax_definition`` (a minijax function) that calls ``np_fn`` on host values eagerly.

    ``nin``: ``np_fn`` is a ufunc taking ``nin`` inputs; arguments after them are its
    outputs, passed on as ``out=`` (so they are written as ``out=`` arrays are).
    ``ufunc``: the NumPy ufunc whose answer ``np_fn`` (a host version fixing NumPy's
    answers for other input) gives when every operand is a float ndarray or a Python
    float; called directly there (``np_fn``'s Python frame costs as much as the call).
    ``weak_operands``: ``(start, stop)``, the positional arguments that are operands
    (``stop`` -1: all from ``start``), when NumPy's result is made weakly typed (JAX's
    rule) if every operand is a Python number or a weakly typed Array and no ``dtype=``
    is given (``lax_definition`` applies the rule to its own result); None: never weak."""
    dispatch = _NumpyCall(np_fn, lax_definition, nin, ufunc, weak_operands)

    # (Its first two arguments are positional-only parameters: the common call passes
    # them without an argument tuple, through Cython's fast calling convention.)
    @functools.wraps(lax_definition)
    def call(x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return dispatch.eager(x0, x1, rest, kwargs)
    call.__wrapped_lax__ = lax_definition
    call._numpy_call = dispatch   # (a ufunc object calls it directly: forward_to)
    dispatch.function = call
    if nin is not None:
        return call   # (a ufunc object's call: the object forwards to it)
    function = NumpyFunction()
    functools.update_wrapper(function, lax_definition)
    function.__wrapped_lax__ = lax_definition
    function._numpy_call = dispatch
    forward_to(function, call)
    return function


class NumpyFunction(Forwarder):
    """A function made by ``numpy_call``, as a C object: a call with at most two
    positional arguments and no keywords goes straight to the eager dispatch (no
    argument tuple, no keyword dict), any other to the wrapper. It stands for the
    function it wraps, as NumPy's own functions (C dispatcher objects) do: its name,
    docstring and signature (``__wrapped__``), and it binds as a method."""

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self):
        return f"<function {self.__qualname__} at {id(self):#x}>"

    def __reduce__(self):
        # (pickled by name, as a function is: its qualified name leads back to it in
        # its module, as name_functions_where_public makes sure)
        return self.__qualname__


enable_vectorcall(NumpyFunction)
_bind_as_function_c(NumpyFunction)   # (its __get__ binds as a function's: an Array method)


_NO_KEYWORDS = {}   # (the keywords of a call that has none; never written)


def _positional_call(dispatch, x0, x1):
    """A ufunc object's or function's call with at most two positional arguments and no
    keywords, or an Array method's with the Array and at most one more (the C
    ``Forwarder`` calls this directly: no argument tuple, no keyword dict)."""
    if type(dispatch) is _NumpyCall:
        call = cython.cast(_NumpyCall, dispatch)
        if call.makes and x1 is _ABSENT and numpy_flag[0]:
            r = _made(call, x0)
            if r is not None:
                return r
        return call.eager(x0, x1, (), _NO_KEYWORDS)
    return cython.cast(_MethodCall, dispatch).eager(x0, x1)


_set_positional_call_c(_positional_call, _ABSENT)


# NumPy functions written in Python that, given an ndarray first, come down to one
# operation on it: ``fromnumeric``'s wrappers of a method, and a few more whose common
# case is one index, attribute or method (the wrapper costs as much as a small call).
# ``{function: (direct form, fewest, most positional arguments, keywords)}``: the counts
# include the array, and the keywords are those the direct form takes as the function
# does (a call with others goes to the function). The eager call goes to the direct form.
_REVERSED = slice(None, None, -1)


def _flipud(m):
    return m[_REVERSED, ...] if ndarray_ndim(m) >= 1 else np.flipud(m)   # (its error)


def _fliplr(m):
    return m[:, _REVERSED] if ndarray_ndim(m) >= 2 else np.fliplr(m)


def _flip(m):
    return m[(_REVERSED,) * ndarray_ndim(m)]


def _atleast_1d(a):
    return a if ndarray_ndim(a) >= 1 else a.reshape(1)


def _atleast_2d(a):
    n = ndarray_ndim(a)
    return a if n >= 2 else a[None, :] if n == 1 else a.reshape(1, 1)


def _atleast_3d(a):
    n = ndarray_ndim(a)
    return (a if n >= 3 else a[:, :, None] if n == 2 else a[None, :, None] if n == 1
            else a.reshape(1, 1, 1))


def _matrix_transpose(x):
    return x.swapaxes(-1, -2) if ndarray_ndim(x) >= 2 else np.matrix_transpose(x)


def _real(val):
    return val.real


def _imag(val):
    return val.imag


def _copy(a, order="K"):
    return a.copy(order)


def numpy_diagonal(a, offset=0, axis1=0, axis2=1):
    """``numpy.diagonal`` without its crash at offset -2**31 (``diagonal_offset``)."""
    return np.diagonal(a, diagonal_offset(offset), axis1, axis2)


def numpy_trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``numpy.trace`` without its crash at offset -2**31 (``diagonal_offset``)."""
    return np.trace(a, diagonal_offset(offset), axis1, axis2, dtype, out)


def numpy_diag(v, k=0):
    """``numpy.diag`` (of a 2-d array: its diagonal) with ``diagonal_offset``'s offset."""
    return np.diag(v, diagonal_offset(k))


def numpy_linalg_diagonal(x, /, *, offset=0):
    """``numpy.linalg.diagonal`` with ``diagonal_offset``'s offset."""
    return np.linalg.diagonal(x, offset=diagonal_offset(offset))


def numpy_linalg_trace(x, /, *, offset=0, dtype=None):
    """``numpy.linalg.trace`` with ``diagonal_offset``'s offset."""
    return np.linalg.trace(x, offset=diagonal_offset(offset), dtype=dtype)


def ndarray_trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``ndarray.trace`` with ``diagonal_offset``'s offset."""
    return a.trace(diagonal_offset(offset), axis1, axis2, dtype, out)


def _diagonal(a, offset=0, axis1=0, axis2=1):
    return a.diagonal(diagonal_offset(offset), axis1, axis2)


def _linalg_diagonal(a, offset=0):
    return a.diagonal(diagonal_offset(offset), -2, -1)


def _linalg_trace(a, offset=0, dtype=None):
    return a.trace(diagonal_offset(offset), -2, -1, dtype)


# (the reductions, scans and moments take the keywords the Array methods' fast path passes
# to NumPy's method: ``array._METHOD_KEYWORDS``)
_NONE, _AXIS = frozenset(), frozenset({"axis"})
_AXIS_KEEPDIMS = frozenset({"axis", "keepdims"})
_DIRECT_FORMS = {getattr(np, name): (getattr(_ndarray, method), fewest, most, keywords)
                 for name, method, fewest, most, keywords in (
                     ("squeeze", "squeeze", 1, 2, _AXIS),
                     ("swapaxes", "swapaxes", 3, 3, _NONE),
                     ("transpose", "transpose", 1, 2, _NONE),
                     ("permute_dims", "transpose", 1, 2, _NONE),
                     ("ravel", "ravel", 1, 2, frozenset({"order"})),
                     ("reshape", "reshape", 2, 2, frozenset({"order"})),
                     ("take", "take", 2, 3, frozenset({"axis", "mode"})),
                     ("repeat", "repeat", 2, 3, _AXIS),
                     ("nonzero", "nonzero", 1, 1, _NONE),
                     ("searchsorted", "searchsorted", 2, 3, frozenset({"side", "sorter"})),
                     ("cumsum", "cumsum", 1, 3, _SCAN_KEYWORDS),
                     ("cumprod", "cumprod", 1, 3, _SCAN_KEYWORDS),
                     ("sum", "sum", 1, 3, _REDUCE_KEYWORDS),
                     ("prod", "prod", 1, 3, _REDUCE_KEYWORDS),
                     ("mean", "mean", 1, 3, _REDUCE_KEYWORDS),
                     ("std", "std", 1, 3, _MOMENT_KEYWORDS),
                     ("var", "var", 1, 3, _MOMENT_KEYWORDS),
                     ("max", "max", 1, 3, _AXIS_KEEPDIMS), ("min", "min", 1, 3, _AXIS_KEEPDIMS),
                     ("amax", "max", 1, 3, _AXIS_KEEPDIMS),
                     ("amin", "min", 1, 3, _AXIS_KEEPDIMS),
                     ("all", "all", 1, 3, _AXIS_KEEPDIMS), ("any", "any", 1, 3, _AXIS_KEEPDIMS),
                     ("round", "round", 1, 2, frozenset({"decimals"})),
                     ("around", "round", 1, 2, frozenset({"decimals"})),
                     ("clip", "clip", 3, 3, _NONE),
                     ("argpartition", "argpartition", 2, 3,
                      frozenset({"axis", "kind", "order"})))
                 if hasattr(np, name)}
# (their host versions, on ndarrays: the offset made safe, as numpy_diagonal's)
_DIRECT_FORMS[numpy_diagonal] = (_diagonal, 1, 3, frozenset({"offset", "axis1", "axis2"}))
_DIRECT_FORMS[numpy_trace] = (ndarray_trace, 1, 3,
                              frozenset({"offset", "axis1", "axis2", "dtype"}))
_DIRECT_FORMS[numpy_linalg_diagonal] = (_linalg_diagonal, 1, 1, frozenset({"offset"}))
_DIRECT_FORMS[numpy_linalg_trace] = (_linalg_trace, 1, 1, frozenset({"offset", "dtype"}))
_correlate2 = getattr(np._core.multiarray, "correlate2", None)
if _correlate2 is not None:   # (NumPy's correlate passes its arguments on to it)
    _DIRECT_FORMS[np.correlate] = (_correlate2, 2, 3, frozenset({"mode"}))
_DIRECT_FORMS.update({getattr(np, name): (form, 1, most, _NONE) for name, form, most in (
    ("flipud", _flipud, 1), ("fliplr", _fliplr, 1), ("flip", _flip, 1),
    ("atleast_1d", _atleast_1d, 1), ("atleast_2d", _atleast_2d, 1),
    ("atleast_3d", _atleast_3d, 1), ("matrix_transpose", _matrix_transpose, 1),
    ("real", _real, 1), ("imag", _imag, 1), ("copy", _copy, 2),
    # (count_nonzero(a) is its C function's: NumPy's wrapper adds axis= and keepdims=)
    ("count_nonzero", getattr(np._core.multiarray, "count_nonzero", None), 1))
    if hasattr(np, name) and form is not None})


# the commonest calls of all, one argument and no keywords, checked before the eager
# dispatch: empty(shape), zeros(shape), ones(shape) and their *_like(a)
_SHAPE_MAKERS = frozenset({np.empty, np.zeros, np.ones})
_LIKE_MAKERS = frozenset({np.empty_like, np.zeros_like, np.ones_like})


def _made(call, x):
    """``call``'s NumPy function of ``x`` as an Array, for a ``plain_shape`` (a shape
    maker's) or a strongly typed Array or an ndarray (a ``*_like``'s) when NumPy makes a
    canonical dtype; else None, and the eager dispatch decides."""
    if call.makes_shape:
        if not plain_shape(x):
            return None
    elif type(x) is _Array:
        x = strong_host(x)
        if type(x) is not _ndarray:
            return None
    elif type(x) is not _ndarray:
        return None
    try:
        r = call.np_fn(x)
    except Exception:   # (too large: the eager dispatch raises its named error)
        return None
    return _holding(r) if canonical_dtype(ndarray_dtype(r)) else None


def _keywords_within(kwargs, names):
    for k in kwargs:
        if k not in names:
            return False
    return True


@cython.final
@cython.cclass
class _NumpyCall:
    """One ``numpy_call`` function's host function, ``lax`` definition and rules, and
    its eager dispatch (a C method: this cost is added to every eager call, so the
    common calls, one to three Arrays or plain values and no keywords, are checked
    inline)."""

    def __init__(self, np_fn, lax_definition, nin, ufunc, weak_operands):
        self.np_fn = np_fn
        self.direct, self.fewest, self.most, self.direct_keywords = _DIRECT_FORMS.get(
            np_fn, (None, 0, 0, None))
        self.lax_definition = lax_definition
        self.nin = -1 if nin is None else nin   # (-1: not a ufunc)
        self.ufunc = ufunc
        self.first_operand, self.last_operand = weak_operands or (-1, -1)
        # (a ufunc's tuple results stay strong, as the lax path's)
        self.each = nin is None and not isinstance(np_fn, np.ufunc)
        self.function = None
        self.makes_shape = np_fn in _SHAPE_MAKERS
        self.makes = self.makes_shape or np_fn in _LIKE_MAKERS

    def eager(self, x0, x1, rest, kwargs):
        np_fn, nin = self.np_fn, self.nin
        if numpy_flag[0] or numpy_eager():
            if len(rest) > 1 or nin >= 0 and x1 is not _ABSENT and nin < 2 + len(rest):
                return self.general(given(x0, x1, rest), kwargs)
            stand_in = _ABSENT
            if kwargs:   # (as NumPy takes them, or the general path decides)
                stand_in = _plain_keywords(kwargs)
                if stand_in is None:
                    return self.general(given(x0, x1, rest), kwargs)
            try:
                if x1 is not _ABSENT:
                    ha = _host(x0)
                    hb = _host(x1)
                    if rest:
                        hc = _host(rest[0])   # (swapaxes(a, 0, 1), where(c, x, y), ...)
                elif x0 is not _ABSENT:
                    ha = _host(x0)
                else:
                    ha = None
            except _NotHost:   # (NumPy's call if a date, string, ... is in it)
                return self.general(given(x0, x1, rest), kwargs)
            if self.direct is not None and type(ha) is _ndarray:
                n = 3 if rest else 2 if x1 is not _ABSENT else 1
                if self.fewest <= n <= self.most and (
                        not kwargs or _keywords_within(kwargs, self.direct_keywords)):
                    np_fn = self.direct
            try:
                if kwargs:
                    if stand_in is not _ABSENT:   # (kwargs is this call's own dict)
                        dtype = kwargs["dtype"]
                        kwargs["dtype"] = stand_in
                    r = (_keyword_call(np_fn, ha, hb, hc, 3, kwargs) if rest
                         else _keyword_call(np_fn, ha, hb, None, 2, kwargs)
                         if x1 is not _ABSENT
                         else _keyword_call(np_fn, ha, None, None, 1, kwargs)
                         if x0 is not _ABSENT
                         else _keyword_call(np_fn, None, None, None, 0, kwargs))
                elif self.ufunc is not None and _float_operand(ha) and (
                        x1 is _ABSENT or _float_operand(hb)):   # (nin operands at most)
                    r = self.ufunc(ha) if x1 is _ABSENT else self.ufunc(ha, hb)
                else:
                    r = (np_fn(ha, hb, hc) if rest else np_fn(ha, hb) if x1 is not _ABSENT
                         else np_fn(ha) if x0 is not _ABSENT else np_fn())
            except Exception as e:
                if stand_in is not _ABSENT:
                    kwargs["dtype"] = dtype   # (the caller's, for the lax path)
                return _numpy_failed(e, self.lax_definition, given(x0, x1, rest), kwargs)
            if (self.first_operand >= 0
                    and _weak_operand(x0 if self.first_operand == 0 else x1)
                    and (not kwargs or kwargs.get("dtype") is None)):
                args = given(x0, x1, rest)
                if _weak_operands(args, self.first_operand, self.last_operand):
                    return _weak_result(r, args, self.each)
            if type(r) is _ndarray:
                if canonical_dtype(ndarray_dtype(r)):
                    return _function_result(r, ha, x0, x1, rest)
            elif type(r) is not tuple and canonical_scalar_type(type(r)):
                return _holding(r)   # a 0-d result: the NumPy scalar
            return wrap(r, given(x0, x1, rest))
        args = given(x0, x1, rest)
        try:
            return self.lax_definition(*args, **kwargs)
        except NonNumericDtypeError as e:   # (the user's call names it best)
            raise _named(e, self.lax_definition, np_fn) from None

    def general(self, args, kwargs):
        """Keywords, positional outputs, or more than three arguments."""
        np_fn, nin = self.np_fn, self.nin
        if nin >= 0 and len(args) > nin:
            if "out" in kwargs:
                raise TypeError(f"{np_fn.__name__.lstrip('_')}() got out= both as a "
                                f"positional and a keyword argument")
            outs = args[nin:]
            return self.function(*args[:nin], out=outs if len(outs) > 1 else outs[0],
                                 **kwargs)
        try:
            hargs = [_host(a) for a in args]
            hkwargs = _host_kwargs(kwargs) if kwargs else kwargs
        except _NotHost:
            loose = _loose_call(args, kwargs)
            if loose is None:
                _count_lax_definition(self.function)
                return self.lax_definition(*args, **kwargs)
            hargs, hkwargs = loose
        try:
            if not kwargs:
                r = np_fn(*hargs)
            elif nin >= 0 and "out" not in hkwargs and hkwargs.get(
                    "where", True) is not True:
                r = _masked_fresh_output(np_fn, hargs, hkwargs)
            else:
                r = np_fn(*hargs, **hkwargs)
        except Exception as e:
            return _numpy_failed(e, self.lax_definition, args, kwargs)
        if kwargs and kwargs.get("out") is not None:
            return _returned_out(kwargs["out"])
        # the result wrapped; ``hargs[0]`` is the host value of ``args[0]``
        if (self.first_operand >= 0 and kwargs.get("dtype") is None
                and _weak_operands(args, self.first_operand, self.last_operand)):
            return _weak_result(r, args, self.each)
        if type(r) is _ndarray and canonical_dtype(ndarray_dtype(r)):
            return _function_result(r, hargs[0] if hargs else None, _ABSENT, _ABSENT, args)
        return wrap(r, args)


def inplace_function_call(np_fn, lax_definition):
    """A function updating its first argument: eagerly NumPy writes into that Array's
    buffer (copy-on-write) and returns None; otherwise ``lax_definition`` (which rebinds)."""
    @functools.wraps(lax_definition)
    def call(a, *args, **kwargs):
        if (numpy_flag[0] or numpy_eager()) and (
                type(a) is _ndarray or type(a) is _Array and strong_host(a) is not None):
            try:
                hargs = [_host(x) for x in args]
                if kwargs:
                    kwargs = {k: _host(v) for k, v in kwargs.items()}
            except _NotHost:
                _count_lax_definition(call)
                return lax_definition(a, *args, **kwargs)
            try:
                np_fn(_write_target(a) if type(a) is _Array else a, *hargs, **kwargs)
            except Exception as e:
                return _numpy_failed(e, lax_definition, (a, *args), kwargs)
            return None
        _count_lax_definition(call)
        return lax_definition(a, *args, **kwargs)
    call.__wrapped_lax__ = lax_definition
    return call


def _self_result(r, self, host):
    """``wrap(r, (self,))`` for the result of a method run on ``host`` (``self``'s
    current ndarray): a view of that buffer becomes a view Array of ``self``'s root."""
    if type(r) is not _ndarray or not canonical_dtype(ndarray_dtype(r)):
        return wrap(r, (self,))
    return view_result(self, host, r, None)


def eager_host(self):
    """The host ndarray of the Array ``self`` when the NumPy path applies to it (not
    committed to a device, not weakly typed), else None."""
    host = strong_host(self)
    if host is not None and type(host) is not _ndarray:
        host = self._value()   # (a NumPy scalar: a fresh 0-d ndarray)
    return host


def method_call(host_fn, lax_definition, name):
    """The Array method ``name``: ``host_fn(self_host, ...)`` eagerly, else
    ``lax_definition``. A ``NumpyFunction``: a call with at most one argument besides the
    Array and no keywords goes straight to ``_MethodCall.eager`` (no argument tuple, no
    keyword dict), any other to the wrapper; in the class's dict it is called as a
    function is, with no bound method made."""
    def call(self, *args, **kwargs):
        if numpy_flag[0] or numpy_eager():
            host = eager_host(self)
            if host is not None:
                try:
                    hargs = [_host(a) for a in args]
                    hkwargs = _host_kwargs(kwargs) if kwargs else kwargs
                except _NotHost:
                    _count_lax_definition(call)
                    return lax_definition(self, *args, **kwargs)
                try:
                    r = host_fn(host, *hargs, **hkwargs)
                except TypeError as e:
                    if kwargs and "keyword argument" in str(e):   # (JAX's, as size=)
                        return _keyword_numpy_lacks(e, call, lax_definition, self, args,
                                                    kwargs)
                    raise
                if kwargs and kwargs.get("out") is not None:
                    return _returned_out(kwargs["out"])
                return _method_result(r, self, host)
        try:
            _count_lax_definition(call)
            return lax_definition(self, *args, **kwargs)
        except NonNumericDtypeError as e:
            raise _named(e, call) from None
    call.__name__ = name
    call.__wrapped_lax__ = lax_definition
    function = NumpyFunction()
    function.__name__ = name
    function.__qualname__ = f"Array.{name}"
    function.__module__ = Array.__module__   # (pickled by name: minijax's Array.<name>)
    function.__doc__ = getattr(lax_definition, "__doc__", None)
    function.__wrapped__ = lax_definition   # (its signature, for inspect)
    function.__wrapped_lax__ = lax_definition
    _forward_to_c(function, call, _MethodCall(host_fn, call))
    return function


def _keyword_numpy_lacks(error, call, lax_definition, self, args, kwargs):
    """The lax definition's answer to a method call with a keyword NumPy's method does
    not take; NumPy's ``error`` if the definition does not take it either."""
    _count_lax_definition(call)
    try:
        return lax_definition(self, *args, **kwargs)
    except TypeError as e:
        if "keyword argument" in str(e):
            raise error from None
        raise


def _method_result(r, self, host):
    """The Array method's result ``r``, NumPy's method's on ``host`` (``self``'s)."""
    if type(r) is _ndarray and canonical_dtype(ndarray_dtype(r)):   # (_self_result, inline)
        return view_result(self, host, r, None)
    if canonical_scalar_type(type(r)):   # a 0-d result: the NumPy scalar
        return _holding(r)
    return _self_result(r, self, host)


@cython.final
@cython.cclass
class _MethodCall:
    """One Array method's eager call with at most one argument and no keywords, called
    by the C ``Forwarder`` with the Array and the argument; any other call, and any this
    one does not answer, is ``function``'s (the complete wrapper)."""

    def __init__(self, host_fn, function):
        self.host_fn = host_fn
        self.function = function

    def eager(self, arr, x0):
        if type(arr) is _Array and (numpy_flag[0] or numpy_eager()):
            host = eager_host(arr)
            if host is not None:
                if x0 is _ABSENT:
                    return _method_result(self.host_fn(host), arr, host)
                a = x0
                if type(a) not in _PLAIN:
                    try:
                        a = _host(a)   # (x.dot(y))
                    except _NotHost:
                        return self.function(arr, x0)
                return _method_result(self.host_fn(host, a), arr, host)
        if arr is _ABSENT:
            return self.function()
        return self.function(arr) if x0 is _ABSENT else self.function(arr, x0)


def binary_operator_call(host_fn, lax_definition):
    """A binary operator of Array: ``host_fn(self_host, other_host)`` eagerly."""
    def call(self, other):
        if numpy_flag[0] or numpy_eager():
            # (a NumPy scalar host stays one: scalar arithmetic is NumPy's fast path)
            host = strong_host(self)
            if host is not None:
                try:
                    ho = _operand(other)
                except _NotHost:
                    try:
                        ho = _loose_operand(host, other)
                    except _NotHost:
                        _count_lax_definition(call)
                        return lax_definition(self, other)
                r = host_fn(host, ho)
                return r if r is NotImplemented else _self_result(r, self, host)
            if self._placement is None:   # (weakly typed)
                r = _weak_scalar_op(host_fn, self, other)
                if r is not None:
                    return r
        try:
            _count_lax_definition(call)
            return lax_definition(self, other)
        except NonNumericDtypeError as e:
            raise _named(e, call) from None
    call.__name__ = getattr(lax_definition, "__name__", "method")
    call.__wrapped_lax__ = lax_definition
    return call


def unary_operator_call(host_fn, lax_definition):
    """A unary operator of Array (``-x``, ``abs(x)``, ...)."""
    def call(self):
        if numpy_flag[0] or numpy_eager():
            host = eager_host(self)
            if host is not None:
                return _self_result(host_fn(host), self, host)
            if self._placement is None:   # weakly typed
                try:
                    return _weak_result(host_fn(self._value() if self._aval.shape
                                                else _weak_scalar(self)))
                except Exception:
                    pass   # (the lax path's error names the operator)
        try:
            _count_lax_definition(call)
            return lax_definition(self)
        except NonNumericDtypeError as e:
            raise _named(e, call) from None
    call.__name__ = getattr(lax_definition, "__name__", "method")
    call.__wrapped_lax__ = lax_definition
    return call


_BASIC_INDEX = frozenset({int, slice, type(None), type(Ellipsis)})


def _index_host(idx):
    """The index as NumPy takes it (basic indices pass as they are)."""
    t = type(idx)
    if t is tuple:
        for e in idx:
            if type(e) not in _BASIC_INDEX:
                return _host(idx)
        return idx
    if t in _BASIC_INDEX:
        return idx
    return _host(idx)


def getitem_call(lax_definition):
    """``x[idx]``: NumPy's indexing of the host buffer (basic indexing gives a view
    Array; an element read gives a 0-d Array holding a copy)."""
    def __getitem__(self, idx):
        if numpy_flag[0] or numpy_eager():
            placement = self._placement   # (committed to a CPU device: the same path)
            if host_indexing(self):
                host = self._host
                if type(host) is not _ndarray or self._view is not None:
                    host = self._value()
                t = type(idx)
                if t is tuple:
                    for e in idx:
                        if type(e) not in _BASIC_INDEX:
                            break
                    else:
                        t = int
                if t not in _BASIC_INDEX:
                    try:
                        idx = _host(idx)
                    except _NotHost:
                        try:
                            idx = _index_ranges(idx)
                        except _NotHost:
                            _count_lax_definition(__getitem__)
                            return lax_definition(self, idx)
                r = host[idx]
                if type(r) is not _ndarray:
                    if canonical_scalar_type(type(r)):   # an element: a 0-d Array holding
                        return _make(None, r, None, placement)   # the NumPy scalar
                    return wrap(r)
                if canonical_dtype(r.dtype):   # a view (or a copy: advanced indexing)
                    return view_result(self, host, r, placement)
                return _self_result(r, self, host)
        try:
            _count_lax_definition(__getitem__)
            return lax_definition(self, idx)
        except NonNumericDtypeError as e:
            raise _named(e, __getitem__) from None
    __getitem__.__wrapped_lax__ = lax_definition
    return __getitem__


def inplace_call(host_fn, lax_definition):
    """An updating Array method (``sort``, ``fill``, ...): ``host_fn`` writes into the
    Array's buffer (copied first if observed, DESIGN 5) and returns None, eagerly."""
    def call(self, x0=_ABSENT, /, *rest, **kwargs):   # (as method_call's)
        if (numpy_flag[0] or numpy_eager()) and strong_host(self) is not None:
            if kwargs or rest:
                args = given(x0, _ABSENT, rest)
                try:
                    hargs = [_host(a) for a in args]
                    if len(hargs) > 1 and type(hargs[1]) is list:
                        hargs[1] = np.asarray(hargs[1])   # a value: size-1 axes drop
                    hkwargs = _host_kwargs(kwargs) if kwargs else kwargs
                except _NotHost:
                    _count_lax_definition(call)
                    return lax_definition(self, *args, **kwargs)
                host_fn(_write_target(self), *hargs, **hkwargs)
            elif x0 is _ABSENT:
                host_fn(_write_target(self))
            else:
                a = x0
                if type(a) not in _PLAIN:
                    try:
                        a = _host(a)
                    except _NotHost:
                        _count_lax_definition(call)
                        return lax_definition(self, x0)
                host_fn(_write_target(self), a)
            return None
        _count_lax_definition(call)
        return lax_definition(self, *given(x0, _ABSENT, rest), **kwargs)
    call.__name__ = getattr(lax_definition, "__name__", "method")
    call.__wrapped_lax__ = lax_definition
    call.__wrapped__ = lax_definition   # (its signature and docstring, for inspect)
    call.__doc__ = getattr(lax_definition, "__doc__", None)
    return call


def _write_target(self):
    """The host ndarray of the eager Array ``self`` to write into: its own buffer if
    writable, else a copy (``Array._writable``: copy-on-write, views, broadcasts)."""
    host = direct_write_target(self)
    if host is not None and ndarray_writeable(host):
        return host
    return self._writable()


def inplace_operator_call(ufunc, lax_definition):
    """``x op= y``: the ufunc writes into the Array's buffer (copy-on-write), eagerly."""
    def call(self, other):
        if numpy_flag[0] or numpy_eager():
            aval = self._aval
            if self._placement is None and (aval is None or not aval.weak_type):
                t = type(other)
                if t is float or t is int:
                    ho = other
                elif (t is _Array and other._view is None and other._aval is None
                      and other._placement is None):
                    ho = other._host   # an ndarray or a NumPy scalar (x /= x.sum())
                    if type(ho) is _ndarray and ho.ndim and not self.ndim:
                        _count_lax_definition(call)
                        return lax_definition(self, other)   # a 0-d array as a scalar: rebinds
                else:
                    try:
                        ho = _operand(other)
                    except _NotHost:
                        try:
                            ho = _loose_operand(self._value(), other)
                        except _NotHost:
                            _count_lax_definition(call)
                            return lax_definition(self, other)
                    if type(ho) is list:
                        ho = np.asarray(ho)
                    if np.ndim(ho) and not self.ndim:
                        _count_lax_definition(call)
                        return lax_definition(self, other)   # a 0-d array as a scalar: rebinds
                host = self._host
                if type(host) is not _ndarray and host is not None:
                    # a 0-d result holding the NumPy scalar NumPy gave stands for that
                    # scalar, which is immutable: ``s op= y`` rebinds ``s`` to ``s op y``
                    # (with NumPy's scalar promotion: ``np.sum(ints) - 0.5`` is a float)
                    return wrap(ufunc(host, ho), (self, other))
                return ufunc_in_place(self, ufunc, ho)
            if self._placement is None and not aval.shape:
                # a weakly typed 0-d Array stands for a Python scalar: rebinds
                r = _weak_scalar_op(ufunc, self, other)
                if r is not None:
                    return r
        _count_lax_definition(call)
        return lax_definition(self, other)
    call.__name__ = getattr(lax_definition, "__name__", "method")
    call.__wrapped_lax__ = lax_definition
    return call


def _setitem_loose(self, idx, value):
    """The host index and value of ``x[idx] = value`` where the inline conversion
    refused one of them: ranges (NumPy reads them as index arrays, a value as an array),
    or a value NumPy takes next to a date, string, record or object array."""
    hidx = idx if type(idx) is int else _index_ranges(idx)
    t = type(value)
    try:
        hvalue = np.asarray(_host(value)) if t is list else _host(value)
    except _NotHost:
        hvalue = value if t is range else _loose_operand(self._value(), value)
    return hidx, hvalue


def setitem_call(lax_definition):
    """``x[idx] = value``: written into the Array's buffer (copy-on-write)."""
    def __setitem__(self, idx, value):
        if numpy_flag[0] or numpy_eager():
            if host_indexing(self):   # (committed to a CPU device: the same path)
                try:
                    hidx = idx if type(idx) is int else _index_host(idx)
                    t = type(value)
                    if t is float or t is int or t is bool or t is _ndarray:
                        hvalue = value
                    elif t is list:
                        hvalue = np.asarray(_host(value))   # its size-1 axes drop as an array's
                    else:
                        hvalue = _host(value)
                except _NotHost:
                    try:
                        hidx, hvalue = _setitem_loose(self, idx, value)
                    except _NotHost:
                        _count_lax_definition(__setitem__)
                        return lax_definition(self, idx, value)
                host = direct_write_target(self)
                if host is not None:
                    # write, and copy first only if NumPy refuses (a read-only buffer
                    # is one something else may observe, DESIGN 5)
                    try:
                        host[hidx] = hvalue
                        return None
                    except ValueError:
                        if host.flags.writeable:
                            raise
                self._writable()[hidx] = hvalue
                return None
        _count_lax_definition(__setitem__)
        return lax_definition(self, idx, value)
    __setitem__.__wrapped_lax__ = lax_definition
    return __setitem__


def iterate(self):
    """Iteration over the first axis: views of the rows, as NumPy's."""
    if numpy_eager():
        host = eager_host(self)
        if host is not None and ndarray_ndim(host) > 0:
            if ndarray_ndim(host) == 1:
                return _Elements(host)
            return _Rows(self if self._view is None else _view_root(self._view), host)
    shape = self.shape
    if not shape:
        raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(shape[0]))


@cython.final
@cython.cclass
class _Rows:
    """The rows of an eager Array's ``host`` (in its root's current buffer), as view
    Arrays of the root: NumPy's row iterator, each row wrapped (no generator frame)."""

    def __init__(self, root, host):
        self.root = root
        self.rows = iter(host)
        self.link = None   # (every row has the first one's base: one link for all)

    def __iter__(self):
        return self

    def __next__(self):
        r = next(self.rows)
        if self.link is None:
            self.link = _link(self.root, self.root._host, r)
        return _view_holding(r, self.link)


@cython.final
@cython.cclass
class _Elements:
    """The elements of an eager 1-d Array's ``host``, as ``self[i]`` gives them: 0-d
    Arrays holding NumPy's scalars (copies)."""

    def __init__(self, host):
        self.elements = iter(host)

    def __iter__(self):
        return self

    def __next__(self):
        r = next(self.elements)
        return _holding(r) if canonical_scalar_type(type(r)) else wrap(r)


def property_call(host_fn, lax_definition):
    def get(self):
        if numpy_flag[0] or numpy_eager():
            aval = self._aval
            if self._placement is None and (aval is None or not aval.weak_type):
                host = self._host   # (eager_host, inline)
                if type(host) is not _ndarray or self._view is not None:
                    host = self._value()
                r = host_fn(host)
                if type(r) is _ndarray and canonical_dtype(ndarray_dtype(r)):   # (_self_result, inline)
                    return view_result(self, host, r, None)
                return _self_result(r, self, host)
        _count_lax_definition(lax_definition)
        return lax_definition(self)
    return property(get)


def host_of(x):
    """The host buffer of an Array (not marked as exported), else ``x`` for NumPy."""
    if type(x) is _Array:
        return x._value()
    if isinstance(x, Tracer):
        raise TracerArrayConversionError("shares_memory of a traced value: traced values "
                                         "have no buffer")
    return x
