"""Eager calls are NumPy calls (DESIGN 3): the one dispatch entry point.

With no transformation active, the NumPy eager backend, and every input concrete on
the host (uncommitted Arrays, NumPy arrays and scalars, Python scalars, nested lists
and tuples of those, strings, None, dtypes, slices), a ``minijax.numpy`` function or
``Array`` method calls the NumPy function of the same meaning once on the host buffers
and wraps its result without copying. Otherwise it takes the ``lax`` path it wraps,
which traces, runs on other devices, and runs with ``eager_backend="xla"``.

The tables below name every dispatched function; ``install_functions`` and
``install_methods`` apply them in one place. A result that is a NumPy view of an input
Array's buffer becomes a view Array of that input (``Array._view_of``).

Speed: this wrapper's cost is added to every eager call, so the common cases are
checked inline. "Eager on NumPy" is ``core.trace.numpy_eager()``, one flag read in the
common case (no thread is tracing and the option is "numpy"; the thread's own stack is
read only when it is False); results are Arrays whose aval is made from the ndarray when first asked; a
0-d result keeps the NumPy scalar NumPy returned; in-place writes go into the buffer
and copy first only when NumPy refuses because it is read-only (observed).
"""

import ctypes
import datetime
import functools
import math
import operator

import numpy as np

from .. import _checks, dtypes
from ..dtypes import is_non_numeric
from ..errors import NonNumericDtypeError, TracerArrayConversionError
from ..config import config
from ..core import Tracer
from ..core.avals import ShapedArray
from ..core.trace import non_numeric_context
from ..core.trace import numpy_eager
from .array import Array, as_view_of, overlapping_or_read_only

_ndarray = np.ndarray

# minijax.numpy name -> NumPy function (None: NumPy's function of the same name).
# Not here: array/asarray/from_dlpack (copy and weak-type rules of their own),
# shape/ndim/size/result_type/can_cast/finfo/iinfo/isdtype/broadcast_shapes (no array
# result), and put/place/put_along_axis (in place, handled with the Array methods).
NUMPY_FUNCTIONS = dict.fromkeys("""
abs absolute acos acosh add all allclose amax amin angle any append arange arccos arccosh
arcsin arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around
array_equal array_equiv array_split asin asinh astype atan atan2 atanh atleast_1d
atleast_2d atleast_3d average bincount bitwise_and bitwise_count bitwise_invert
bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor broadcast_arrays
broadcast_to cbrt ceil choose clip column_stack compress concat concatenate conj conjugate
convolve copy copysign corrcoef correlate cos cosh count_nonzero cov cross cumprod cumsum
cumulative_prod cumulative_sum deg2rad degrees diag diag_indices diag_indices_from diagonal
diff divide divmod dot dsplit dstack einsum empty empty_like equal exp exp2 expand_dims
expm1 extract eye fix flatnonzero flip fliplr flipud float_power floor floor_divide fmax
fmin fmod full full_like geomspace greater greater_equal heaviside hsplit hstack hypot
identity imag indices inner interp intersect1d invert isclose iscomplex isfinite
isin isinf isnan isneginf isposinf isreal ix_ kron left_shift less less_equal
linspace log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or
logical_xor logspace matmul matrix_transpose max maximum mean median meshgrid min minimum
mod moveaxis multiply nan_to_num nanargmax nanargmin nanmax nanmean nanmedian nanmin
nancumprod nancumsum nanpercentile nanprod nanquantile nanstd nansum nanvar negative nextafter nonzero not_equal
ones ones_like outer pad partition percentile permute_dims positive pow power prod ptp
quantile rad2deg radians ravel ravel_multi_index real reciprocal remainder repeat reshape
right_shift rint roll rot90 round searchsorted select setdiff1d setxor1d sign
signbit sin sinc sinh sort split sqrt square squeeze stack std subtract sum swapaxes take
take_along_axis tan tanh tensordot tile trace transpose tri tril tril_indices
tril_indices_from triu triu_indices triu_indices_from true_divide trunc union1d unique
unique_all unique_counts unique_inverse unique_values unravel_index unstack var vdot vecdot
vsplit vstack where zeros zeros_like
fabs frexp gcd lcm ldexp modf spacing matvec vecmat
""".split())

def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    # minijax's argsort is stable (ties keep their order) unless asked otherwise
    if kind is None and stable is None:
        # Without ties every sort gives the stable order, and NumPy's default sort is
        # about twice as fast as its stable one on floats: long float axes try it first
        # (ties are rare there; checking for them costs a gather and a comparison).
        if (type(a) is _ndarray and a.dtype.kind == "f" and type(axis) is int
                and -a.ndim <= axis < a.ndim and a.shape[axis] >= 64 and order is None):
            idx = np.argsort(a, axis)
            if not _has_ties(a, idx, axis):
                return idx
        kind = "stable"
    return np.argsort(a, axis, kind, order, stable=stable)


def _has_ties(a, idx, axis):
    """Whether ``a`` (real floating) has equal elements, or NaNs, along ``axis``; ``idx``
    is an argsort of ``a`` along it."""
    if a.ndim == 1:
        s = a[idx]
    elif a.ndim == 2 and axis in (-1, 1) and a.flags.c_contiguous:
        m, n = a.shape   # (a flat gather: take_along_axis costs more for one matrix)
        s = a.reshape(-1).take(idx + np.arange(0, m * n, n)[:, None])
    else:
        s = np.moveaxis(np.take_along_axis(a, idx, axis), axis, -1)
    # NaNs sort last, in an order of the sort's choosing: they count as ties
    if np.isnan(s[..., -1]).any():
        return True
    return bool(np.equal(s[..., 1:], s[..., :-1]).any())


# NumPy-only functions of the numeric top level (polynomials, histograms, signals, ...)
NUMPY_FUNCTIONS.update(dict.fromkeys("""
apply_along_axis bartlett blackman block delete diagflat digitize ediff1d gradient hamming
hanning histogram histogram2d histogram_bin_edges histogramdd i0 insert kaiser lexsort
mask_indices matvec packbits piecewise poly polyadd polyder polydiv polyfit polyint polymul polysub
polyval real_if_close resize rollaxis roots sort_complex trapezoid unpackbits unwrap vander
vecmat
""".split()))
def _writeable_alias(host):
    """A writeable ndarray over ``host``'s (C-contiguous) memory, for reading only."""
    buffer = (ctypes.c_char * host.nbytes).from_address(host.ctypes.data)
    return np.frombuffer(buffer, host.dtype).reshape(host.shape)


def _arg_extremum(np_fn, method):
    # NumPy's argmax/argmin copy an input that is not writeable (their contiguity check
    # also asks for writeability), which triples their time on a large array. Buffers
    # copy-on-write has marked observed (exported, seen by jit) are read-only: large ones
    # are read through a writeable alias instead (argmax/argmin never write). An ndarray
    # goes to the method, a C call (the function is a Python wrapper around it).
    def host_fn(a, axis=None, out=None, **kwargs):
        if type(a) is not _ndarray:
            return np_fn(a, axis, out, **kwargs)
        if a.size >= 1 << 14 and a.flags.c_contiguous and not a.flags.writeable:
            a = _writeable_alias(a)
        return method(a, axis, out, **kwargs)
    return host_fn


_argmax = _arg_extremum(np.argmax, _ndarray.argmax)
_argmin = _arg_extremum(np.argmin, _ndarray.argmin)


def _tile(a, reps):
    # NumPy's tile dies (a segfault) when the result's size overflows: check it first
    if type(a) is _ndarray and type(reps) is tuple and a.size:
        count = a.nbytes   # (fast path: positive int reps and a small enough result)
        for r in reps:
            if type(r) is not int or r < 1:
                break
            count *= r
        else:
            if count <= _checks.MAX_EXTENT:   # then so is every dimension
                return np.tile(a, reps)
    reps_t = ((_checks.index(reps, "reps"),) if not hasattr(reps, "__iter__")
              else _checks.int_sequence(reps, "reps"))
    shape = np.shape(a)
    n = max(len(shape), len(reps_t))
    shape = (1,) * (n - len(shape)) + shape
    reps_t = (1,) * (n - len(reps_t)) + reps_t
    _checks.array_size([s * r for s, r in zip(shape, reps_t)], np.asarray(a).dtype, "tile")
    return np.tile(a, reps)


def _diff(a, n=1, axis=-1, **extras):
    # NumPy's diff takes n differences one by one even when the axis is exhausted (for
    # n = 2**63 it never returns): beyond the axis length the result is empty anyway
    n = _checks.index(n, "n")
    longest = max(np.shape(a), default=0) + sum(max(np.shape(v), default=1)
                                                for v in extras.values() if v is not None)
    return np.diff(a, min(n, longest + 1), axis, **extras)


NUMPY_FUNCTIONS.update(
    tile=_tile,
    diff=_diff,
    argsort=_argsort,
    argmax=_argmax,
    argmin=_argmin,
    # eager empty arrays are uninitialised, as NumPy's (under jit they hold zeros)
    empty=np.empty, empty_like=np.empty_like,
)


# Where the Array API standard and NumPy disagree on special values, the functions it
# names follow the standard (README "differences"); the lax paths in
# minijax/numpy/_elementwise.py agree with these host versions.
def _floor_divide(x1, x2, /, out=None, **kwargs):
    """NumPy's floor_divide, except floor(x1 / x2) where exactly one operand is infinite
    (NumPy gives NaN for inf // 1 and -1.0 for 1 // -inf; the standard ±inf and -0)."""
    a, b = np.asarray(x1), np.asarray(x2)
    fix = None
    ka, kb = a.dtype.kind, b.dtype.kind
    if (ka == "f" or kb == "f") and ka in "fiub" and kb in "fiub" and _finite_operands(a, b):
        pass   # no infinity: NumPy's values are the standard's
    elif ka in "fc" or kb in "fc":
        with np.errstate(all="ignore"):
            fix = ((np.isinf(a) & np.isfinite(b) & (b != 0))
                   | (np.isfinite(a) & np.isinf(b)))
            if fix.any():
                quotient = np.true_divide(a, b)
            else:
                fix = None
    if fix is None:
        if out is None and not kwargs:
            return np.floor_divide(x1, x2)
        return np.floor_divide(x1, x2, out=out, **kwargs)
    with np.errstate(invalid="ignore"):
        r = np.floor_divide(x1, x2, out=out, **kwargs)
    fixed = np.where(fix, quotient, r).astype(np.result_type(r), copy=False)
    if out is not None:
        out[...] = fixed
        return out
    return fixed if np.ndim(r) else fixed[()]


def _finite_operands(a, b):
    """True only if no element of the real ndarrays ``a`` and ``b`` is infinite or NaN
    (False may be wrong: the caller then checks element by element). One dot product:
    an infinity or a NaN makes it non-finite (inf * 0 is NaN), so does an overflow."""
    if a.shape == b.shape:
        return math.isfinite(np.vdot(a, b))
    if b.ndim == 0:
        return math.isfinite(b) and math.isfinite(np.vdot(a, a))
    if a.ndim == 0:
        return math.isfinite(a) and math.isfinite(np.vdot(b, b))
    return math.isfinite(np.vdot(a, a) + np.vdot(b, b))


def _complex_parts(x):
    z = np.asarray(x)
    return z.real, z.imag


def _make_complex(re, im, dtype):
    """``re + im·j`` keeping the signs of zeros (arithmetic would lose them)."""
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), dtype)
    out.real, out.imag = re, im
    return out


def _expm1(x, /, *args, **kwargs):
    """NumPy's expm1, with the standard's special values for complex input."""
    r = np.expm1(x, *args, **kwargs) if args or kwargs else np.expm1(x)
    if r.dtype.kind != "c":
        return r
    re, im = _complex_parts(x)
    dtype = np.result_type(r)
    with np.errstate(all="ignore"):
        real_axis = im == 0   # expm1 of the real part, exactly (+0 for ±0)
        out = np.where(real_axis, _make_complex(np.expm1(re) + 0.0, im, dtype), r)
        out = np.where((re == np.inf) & ~np.isfinite(im), complex(np.inf, np.nan), out)
        out = np.where((re == -np.inf) & ~np.isfinite(im), -1 + 0j, out)
    out = out.astype(dtype, copy=False)
    return out if np.ndim(r) else out[()]


def _tanh(x, /, *args, **kwargs):
    """NumPy's tanh, with the standard's ±1 ± 0j for complex input of infinite real part
    and finite imaginary part."""
    r = np.tanh(x, *args, **kwargs) if args or kwargs else np.tanh(x)
    if r.dtype.kind != "c":
        return r
    re, im = _complex_parts(x)
    dtype = np.result_type(r)
    with np.errstate(all="ignore"):
        edge = np.isinf(re) & np.isfinite(im)
        out = np.where(edge, _make_complex(np.sign(re), np.copysign(0.0, im), dtype), r)
    out = out.astype(dtype, copy=False)
    return out if np.ndim(r) else out[()]


NUMPY_FUNCTIONS.update(floor_divide=_floor_divide, expm1=_expm1, tanh=_tanh)

# Functions that update their first argument in place and return None, as NumPy's.
NUMPY_INPLACE_FUNCTIONS = {"put": np.put, "place": np.place,
                           "put_along_axis": np.put_along_axis,
                           "fill_diagonal": np.fill_diagonal, "copyto": np.copyto,
                           "putmask": np.putmask}

# minijax.numpy.linalg name -> numpy.linalg function (None: the same name).
LINALG_FUNCTIONS = dict.fromkeys("""
cholesky cond cross det diagonal eigh eigvalsh inv lstsq matmul matrix_norm matrix_power
matrix_rank matrix_transpose multi_dot norm outer pinv qr slogdet solve svd svdvals
tensordot tensorinv tensorsolve trace vecdot vector_norm
""".split())



def _complex_valued(x):
    return x.astype(np.result_type(x.dtype, np.complex64), copy=False)


def _eigvals(a, /):
    """NumPy's eigvals, always complex (as the lax path: the Array API's rule; NumPy's
    dtype is real when every eigenvalue happens to be)."""
    return _complex_valued(np.linalg.eigvals(a))


def _eig(a, /):
    """NumPy's eig, always complex (see ``_eigvals``)."""
    r = np.linalg.eig(a)
    return type(r)(_complex_valued(r.eigenvalues), _complex_valued(r.eigenvectors))


LINALG_FUNCTIONS.update(eig=_eig, eigvals=_eigvals)

# minijax.numpy.fft name -> numpy.fft function (None: the same name). Not here:
# fftfreq and rfftfreq (the Array API's dtype= keyword, which NumPy lacks).
FFT_FUNCTIONS = dict.fromkeys("""
fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft fftshift
ifftshift
""".split())


def _call_method(name):
    # the unbound ndarray method (NumPy 2 dropped ndarray.ptp: the function then)
    return getattr(_ndarray, name, None) or getattr(np, name)


# Array method/operator -> function of (host, *args, **kwargs). Properties are listed in
# ARRAY_PROPERTIES; operators that update the array in ARRAY_INPLACE.
ARRAY_METHODS = {
    "__add__": operator.add, "__radd__": lambda h, o: o + h,
    "__sub__": operator.sub, "__rsub__": lambda h, o: o - h,
    "__mul__": operator.mul, "__rmul__": lambda h, o: o * h,
    "__truediv__": operator.truediv, "__rtruediv__": lambda h, o: o / h,
    "__floordiv__": _floor_divide, "__rfloordiv__": lambda h, o: _floor_divide(o, h),
    "__mod__": operator.mod, "__rmod__": lambda h, o: o % h,
    "__divmod__": divmod, "__rdivmod__": lambda h, o: divmod(o, h),
    "__pow__": operator.pow, "__rpow__": lambda h, o: o ** h,
    "__matmul__": operator.matmul, "__rmatmul__": lambda h, o: np.matmul(o, h),
    "__and__": operator.and_, "__rand__": lambda h, o: o & h,
    "__or__": operator.or_, "__ror__": lambda h, o: o | h,
    "__xor__": operator.xor, "__rxor__": lambda h, o: o ^ h,
    "__lshift__": operator.lshift, "__rlshift__": lambda h, o: o << h,
    "__rshift__": operator.rshift, "__rrshift__": lambda h, o: o >> h,
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt,
    "__ge__": operator.ge, "__eq__": operator.eq, "__ne__": operator.ne,
    "__neg__": operator.neg, "__pos__": operator.pos, "__abs__": operator.abs,
    "__invert__": operator.invert,
    "__getitem__": operator.getitem,
    **{name: _call_method(name) for name in """
        all any astype clip conj conjugate cumprod cumsum diagonal dot flatten
        nonzero prod ptp ravel repeat reshape round searchsorted squeeze std swapaxes trace
        transpose var""".split()},
    # minijax's signatures: keepdims is the next positional after axis (and dtype)
    # (keyword arguments only when given: NumPy's reductions are slower with them)
    "sum": lambda h, axis=None, dtype=None, keepdims=False, **kw:
        h.sum(axis, dtype, keepdims=keepdims, **kw) if keepdims or kw else h.sum(axis, dtype),
    "mean": lambda h, axis=None, dtype=None, keepdims=False, **kw:
        h.mean(axis, dtype, keepdims=keepdims, **kw) if keepdims or kw else h.mean(axis, dtype),
    "max": lambda h, axis=None, keepdims=False, **kw:
        h.max(axis, keepdims=keepdims, **kw) if keepdims or kw else h.max(axis),
    "min": lambda h, axis=None, keepdims=False, **kw:
        h.min(axis, keepdims=keepdims, **kw) if keepdims or kw else h.min(axis),
    "argsort": _argsort,
    "argmax": _argmax,
    "argmin": _argmin,
    "take": _call_method("take"),
}
# In-place operator or method -> function writing into the (writable) host buffer.
ARRAY_INPLACE = {
    **{f"__i{op}__": getattr(np, ufunc)
       for op, ufunc in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                         ("truediv", "true_divide"), ("floordiv", "floor_divide"),
                         ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
                         ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                         ("lshift", "left_shift"), ("rshift", "right_shift"),
                         ("matmul", "matmul"))},
    "__ifloordiv__": _floor_divide,
    "__setitem__": operator.setitem,
    "sort": _call_method("sort"), "partition": _call_method("partition"),
    "fill": _call_method("fill"), "put": _call_method("put"),
}
_UFUNC_INPLACE = frozenset(name for name in ARRAY_INPLACE if name.startswith("__i"))
_UNARY_OPERATORS = frozenset({"__neg__", "__pos__", "__abs__", "__invert__"})

ARRAY_PROPERTIES = {
    "T": operator.attrgetter("T"), "mT": operator.attrgetter("mT"),
    "real": operator.attrgetter("real"), "imag": operator.attrgetter("imag"),
}


class _Fallback(Exception):
    """An input NumPy must not see (a tracer, a committed Array, an unknown object)."""


_PLAIN = frozenset({int, float, complex, bool, str, type(None), slice, type(Ellipsis),
                    np.dtype, type})
_SCALARS = frozenset({int, float, complex, bool})
_generic = np.generic


# With the option debug_dispatch_paths: the eager calls that missed the NumPy path and
# took the lax one, by name. Counted on that slow path only (the host path pays nothing).
fallback_counts = {}


def _count_fallback(fn):
    if config.debug_dispatch_paths and numpy_eager():
        name = getattr(fn, "__name__", repr(fn))
        fallback_counts[name] = fallback_counts.get(name, 0) + 1


def _host(a):
    t = type(a)
    if t is Array:
        if a._device is not None:
            raise _Fallback
        aval = a._aval
        if aval is not None and aval.weak_type:
            if aval.shape:
                raise _Fallback
            return a._value().item()   # a Python scalar stays weak for NumPy (NEP 50)
        host = a._host
        if host is None or a._view is not None:
            host = a._value()
        return host
    if t in _PLAIN or t is _ndarray:
        return a
    if t is tuple or t is list:
        for e in a:
            if type(e) not in _PLAIN:
                return t([_host(e) for e in a])
        return a
    if isinstance(a, (_generic, np.dtype, type)):   # NumPy scalars, dtypes, numpy.float32
        return a
    if isinstance(a, _HOST_OBJECTS):
        return a
    raise _Fallback


# Python values NumPy reads as dates, durations and byte strings
_HOST_OBJECTS = (bytes, datetime.date, datetime.timedelta)


def _host_loose(a):
    """``_host`` for a call that involves a non-numeric array: any other object (a
    ``Fraction`` for an object array, ...) goes to NumPy as it is; tracers and Arrays
    NumPy must not see still fall back."""
    try:
        return _host(a)
    except _Fallback:
        t = type(a)
        if t is Array or isinstance(a, Tracer):
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
    except _Fallback:
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
    ``_Fallback``."""
    if (type(other) is Array and other._device is None and other.weak_type
            and other.dtype == host.dtype):
        return other._value()
    if is_non_numeric(host.dtype):
        return _host_loose(other)
    raise _Fallback


def _operand(a):
    """``_host`` for the other operand of an operator (no strings, None, ...)."""
    if type(a) in _OPERANDS or isinstance(a, _generic):
        return _host(a)
    raise _Fallback


def _index_ranges(idx):
    """An index ``_host`` refused, as NumPy takes it when ranges are what it refused
    (NumPy reads a range as an index array, as a list); else ``_Fallback``."""
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
    except _Fallback:
        if not (type(other) is Array and other._device is None and other.weak_type):
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


def _weak_result(r):
    """``r`` (NumPy's result from weak operands only) as a weakly typed Array."""
    if type(r) in _canonical_scalars and r.dtype.kind in "iufc":
        out = _new_array(r)   # (holding the NumPy scalar, as a strong 0-d result)
        out._aval = ShapedArray((), r.dtype, True)
        return out
    return _weaken(wrap(r))


# Result dtypes kept as NumPy gives them (the supported dtypes the current mode stores);
# any other is converted (32-bit mode: narrowed) or rejected by ``dtypes.canonicalize``.
_canonical = set()
_canonical_scalars = set()   # their NumPy scalar types


def _refresh_canonical():
    _canonical.clear()
    _canonical.update(d for d in dtypes.SUPPORTED_DTYPES if dtypes.canonicalize(d) == d)
    _canonical_scalars.clear()
    _canonical_scalars.update(d.type for d in _canonical)


_refresh_canonical()
config.on_update(lambda name: _refresh_canonical() if name == "enable_x64" else None)

_new = object.__new__


def _new_array(host):
    """An Array owning ``host`` (an ndarray or NumPy scalar of a canonical dtype); its
    aval is made from ``host`` when first asked."""
    out = _new(Array)
    out._aval = None
    out._host = host
    out._buffer = None
    out._device = None
    out._view = None
    return out


canonical_dtypes = _canonical   # (read-only for other modules)


def share_ndarray(a):
    """An Array sharing the memory of ``a`` (an ndarray of a dtype in ``_canonical``), as
    NumPy's ``asarray``: a write through either is seen by both. The Array holds an
    ndarray object of its own viewing that memory, so that marking it read-only (after
    an export or for a transformation's snapshot; its next write then copies) leaves
    the caller's ``a`` as writable as it was."""
    out = _new(Array)
    out._aval = None
    out._host = a.view()
    out._buffer = None
    out._device = None
    out._view = None
    return out


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
        if t in _canonical_scalars:
            out = _new(Array)   # a 0-d Array holding the NumPy scalar
            out._aval = None
            out._host = r
            out._buffer = None
            out._device = None
            out._view = None
            return out
        if isinstance(r, _generic):
            if r.dtype in _canonical or is_non_numeric(r.dtype):
                return _new_array(r)   # a 0-d Array holding the NumPy scalar
            r = np.asarray(r)
        elif t in _SCALARS:
            r = np.asarray(r)
        elif t is tuple or t is list:
            return t(_wrap_each(r, args))
        elif isinstance(r, tuple):   # NumPy's named tuples (unique_all, eigh, svd, ...)
            return t(*[wrap(e, args) for e in r])
        else:
            return r
    if r.dtype not in _canonical and not is_non_numeric(r.dtype):
        # 32-bit mode: narrowed on the way out (dates, strings, records and objects stay
        # as NumPy gives them: DESIGN 3)
        r = r.astype(dtypes.canonicalize(r.dtype))
    out = _new(Array)
    out._aval = None
    out._host = r
    out._buffer = None
    out._device = None
    out._view = None
    if args and r.base is not None:
        as_view_of(out, args)
    return out


def _wrap_each(r, args):
    """``[wrap(e, args) for e in r]``; when ``args`` hold one Array, the elements that
    view its buffer (unstack, split, broadcast_arrays) are found once, not per element."""
    out = []
    arrays = 0
    for a in args:
        if type(a) is Array:
            arrays += 1
    # the last element made a view of the Array's buffer: its owner, dtype, view entries
    owner = dtype = bounds = entry = read_only_entry = None
    root_writeable = False
    for e in r:
        if (type(e) is _ndarray and e.base is owner and owner is not None
                and e.dtype is dtype and e.size
                and (bounds is None or np.may_share_memory(e, bounds))):
            # as_view_of would find the same root (the only Array, whose buffer e views)
            a = _new(Array)
            a._aval = None
            a._host = e
            a._buffer = None
            a._device = None
            # (view entries are never changed in place: siblings share one)
            a._view = (read_only_entry if root_writeable and overlapping_or_read_only(e)
                       else entry)
        else:
            a = wrap(e, args)
            if arrays == 1 and type(a) is Array and a._view is not None:
                root, root_host = a._view[:2]
                entry, read_only_entry = [root, root_host], [root, root_host, True]
                owner = a._host.base
                dtype = a._host.dtype
                root_writeable = root_host.flags.writeable
                # (as_view_of checks the bounds when the root's ndarray is itself a view)
                bounds = None if root_host is owner or len(args) == 1 else root_host
        out.append(a)
    return out


def _involves_non_numeric(args, kwargs):
    for a in (*args, *kwargs.values()):
        if type(a) is Array:
            if is_non_numeric(a.dtype):
                return True
        elif _is_non_numeric(a):
            return True
    return False


def _numpy_failed(error, fallback, args, kwargs):
    """NumPy raised: the lax path's named error (which says what to do) if it raises
    one, else NumPy's exception as NumPy raised it (e.g. LinAlgError on a singular
    matrix, where compiled code gives non-finite values)."""
    if isinstance(error, TypeError) and ("keyword argument" in str(error)
                                         or "positional argument" in str(error)):
        _count_fallback(fallback)
        return fallback(*args, **kwargs)   # a call NumPy's signature does not take
    if _involves_non_numeric(args, kwargs):
        raise error   # NumPy's answer on dates, strings, records and objects is final
    result = fallback(*args, **kwargs)
    if isinstance(error, AttributeError):
        # NumPy assumed an ndarray where the caller gave a list (hsplit, unstack): its
        # own slip, not a rejection; the lax path's answer stands
        return result
    raise error


# minijax (like JAX) takes None for "not given" where NumPy's default is a sentinel and
# None means something else (``where=None`` is a mask to NumPy's reductions).
_NONE_IS_ABSENT = frozenset({"where", "initial"})
_KEYWORDS_TO_CONVERT = _NONE_IS_ABSENT | {"out", "device"}


def _host_kwargs(kwargs):
    """NumPy's keywords: host values (None dropped where it means "not given"), and
    ``out=`` as the writable buffer it names."""
    for k, v in kwargs.items():
        if type(v) not in _PLAIN or k in _KEYWORDS_TO_CONVERT:
            break
    else:
        return kwargs   # (the common case: axis=, keepdims=, dtype= as they are)
    if kwargs.get("device") is not None:
        raise _Fallback
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
    if t is Array:
        if out._device is not None or out.aval.weak_type:
            raise _Fallback
        return out._writable()
    if t is _ndarray:
        return out
    if t is tuple:
        return tuple(None if o is None else _host_out(o) for o in out)
    raise _Fallback


def _returned_out(out):
    return out[0] if type(out) is tuple and len(out) == 1 else out


# Functions whose positional arguments after the first ``n`` are all operands that
# promote together (``where``'s condition does not). When every such operand is a Python
# scalar (or a weak Array), the lax path's result is weakly typed, as JAX's: the eager
# result is made weak too (its dtype is NumPy's, which is the same).
_SCALAR_OPERANDS_FROM = {"where": 1, "clip": 0}


def _weak_operands(operands):
    """Every operand is a Python number or a weakly typed Array (at least one)."""
    for a in operands:
        t = type(a)
        if t is Array:
            if not a.weak_type:
                return False
        elif t is not int and t is not float and t is not complex:
            return False
    return bool(operands)


def _weaken(out):
    """``out`` (a wrapped result) marked weakly typed, unless bool (never weak) or a
    tuple (the lax path's divmod/modf/frexp give strong results)."""
    if type(out) is Array and out.dtype.kind in "iufc":
        out = _new_array(out._value())
        out._aval = ShapedArray(out._host.shape, out._host.dtype, True)
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


def _named(error, fallback, np_fn=None):
    """``error`` (a NonNumericDtypeError) naming the minijax function or Array method
    the user called, which names it better than the lax primitive it reached."""
    name = getattr(fallback, "__name__", "")
    if name.startswith("_") and not name.startswith("__"):
        name = getattr(np_fn, "__name__", name).lstrip("_")   # (a helper: NumPy's name)
    where = f"Array.{name}" if name.startswith("__") or np_fn is None else \
        f"minijax.numpy.{name}"
    return error.named(f"{where}{non_numeric_context()}", True)


def numpy_call(np_fn, fallback, nin=None):
    """``fallback`` (a minijax function) that calls ``np_fn`` on host values eagerly.

    ``nin``: ``np_fn`` is a ufunc taking ``nin`` inputs; arguments after them are its
    outputs, passed on as ``out=`` (so they are written as ``out=`` arrays are)."""
    name = getattr(fallback, "__name__", "")
    first_operand = (0 if nin is not None or isinstance(np_fn, np.ufunc) else
                     _SCALAR_OPERANDS_FROM.get(name, -1))

    def general(args, kwargs):
        # keywords, positional outputs, or more than two arguments
        if nin is not None and len(args) > nin:
            if "out" in kwargs:
                raise TypeError(f"{np_fn.__name__.lstrip('_')}() got out= both as a "
                                f"positional and a keyword argument")
            outs = args[nin:]
            return call(*args[:nin], out=outs if len(outs) > 1 else outs[0], **kwargs)
        try:
            hargs = [_host(a) for a in args]
            hkwargs = _host_kwargs(kwargs) if kwargs else kwargs
        except _Fallback:
            loose = _loose_call(args, kwargs)
            if loose is None:
                _count_fallback(call)
                return fallback(*args, **kwargs)
            hargs, hkwargs = loose
        try:
            if not kwargs:
                r = np_fn(*hargs)
            elif nin is not None and "out" not in hkwargs and hkwargs.get(
                    "where", True) is not True:
                r = _masked_fresh_output(np_fn, hargs, hkwargs)
            else:
                r = np_fn(*hargs, **hkwargs)
        except Exception as e:
            return _numpy_failed(e, fallback, args, kwargs)
        if kwargs and kwargs.get("out") is not None:
            return _returned_out(kwargs["out"])
        return result(r, args, hargs[0] if hargs else None)

    def result(r, args, h):
        # ``r`` wrapped; ``h`` is the host value of ``args[0]``
        if first_operand >= 0 and type(args[-1]) is not Array and _weak_operands(
                args[first_operand:]):
            return _weaken(wrap(r, args))
        if type(r) is _ndarray and r.dtype in _canonical:
            out = _new(Array)
            out._aval = None
            out._host = r
            out._buffer = None
            out._device = None
            out._view = None
            owner = r.base
            if owner is not None:
                # a view: of the first argument's buffer (checked as in
                # _self_result), else of another argument's (as_view_of)
                a = args[0] if args else None
                if type(a) is Array and type(h) is _ndarray and (
                        owner is h or owner is h.base):
                    root = a if a._view is None else a._view[0]
                    out._view = [root, root._host]
                else:
                    as_view_of(out, args)
            return out
        return wrap(r, args)

    # The common calls (one or two Arrays owning their buffers, no keywords) are
    # checked inline: this wrapper's cost is added to every eager call.
    @functools.wraps(fallback)
    def call(*args, **kwargs):
        if numpy_eager():
            n = len(args)
            if kwargs or n > 2 or nin is not None and n > nin:
                return general(args, kwargs)
            try:
                if n == 2:
                    a, b = args
                    ha = a._host if (type(a) is Array and a._view is None
                                     and a._aval is None and a._device is None) else _host(a)
                    hb = b._host if (type(b) is Array and b._view is None
                                     and b._aval is None and b._device is None) else _host(b)
                elif n == 1:
                    a = args[0]
                    if (type(a) is Array and a._view is None and a._device is None
                            and a._host is not None
                            and (a._aval is None or not a._aval.weak_type)):
                        ha = a._host
                    else:
                        ha = _host(a)
                else:
                    ha = None
            except _Fallback:
                return general(args, kwargs)   # (NumPy's call if a date, string, ... is in it)
            try:
                r = np_fn(ha, hb) if n == 2 else np_fn(ha) if n == 1 else np_fn()
            except Exception as e:
                return _numpy_failed(e, fallback, args, kwargs)
            if first_operand >= 0 and type(args[-1]) is not Array and _weak_operands(
                    args[first_operand:]):
                return _weaken(wrap(r, args))
            if type(r) is _ndarray and r.dtype in _canonical:
                out = _new(Array)
                out._aval = None
                out._host = r
                out._buffer = None
                out._device = None
                out._view = None
                owner = r.base
                if owner is not None:
                    # a view: of the first argument's buffer (checked as in
                    # _self_result), else of another argument's (as_view_of)
                    a = args[0]
                    if type(a) is Array and type(ha) is _ndarray and (
                            owner is ha or owner is ha.base):
                        root = a if a._view is None else a._view[0]
                        out._view = [root, root._host]
                    else:
                        as_view_of(out, args)
                return out
            return wrap(r, args)
        try:
            return fallback(*args, **kwargs)
        except NonNumericDtypeError as e:   # (the user's call names it best)
            raise _named(e, fallback, np_fn) from None
    call.__wrapped_lax__ = fallback
    return call


def inplace_function_call(np_fn, fallback):
    """A function updating its first argument: eagerly NumPy writes into that Array's
    buffer (copy-on-write) and returns None; otherwise ``fallback`` (which rebinds)."""
    @functools.wraps(fallback)
    def call(a, *args, **kwargs):
        if numpy_eager() and (type(a) is _ndarray or type(a) is Array and a._device is None
                         and not a.weak_type):
            try:
                hargs = [_host(x) for x in args]
                kwargs = {k: _host(v) for k, v in kwargs.items()}
            except _Fallback:
                _count_fallback(call)
                return fallback(a, *args, **kwargs)
            try:
                np_fn(a._writable() if type(a) is Array else a, *hargs, **kwargs)
            except Exception as e:
                return _numpy_failed(e, fallback, (a, *args), kwargs)
            return None
        _count_fallback(call)
        return fallback(a, *args, **kwargs)
    call.__wrapped_lax__ = fallback
    return call


def _self_result(r, self, host):
    """``wrap(r, (self,))`` for the result of a method run on ``host`` (``self``'s
    current ndarray): a view of that buffer becomes a view Array of ``self``'s root."""
    if type(r) is not _ndarray or r.dtype not in _canonical:
        return wrap(r, (self,))
    out = _new(Array)
    out._aval = None
    out._host = r
    out._buffer = None
    out._device = None
    out._view = None
    owner = r.base
    # NumPy's .base is the memory's owner: ``host`` itself, or what ``host`` views
    # (the object under a view Array's ndarray re-derived after a copy-on-write)
    if owner is not None and (owner is host or owner is host.base):
        root = self if self._view is None else self._view[0]
        out._view = [root, root._host]
    return out


def eager_host(self):
    """The host ndarray of the Array ``self`` when the NumPy path applies to it (not
    committed to a device, not weakly typed), else None."""
    if self._device is not None:
        return None
    aval = self._aval
    if aval is not None and aval.weak_type:
        return None
    host = self._host
    if type(host) is not _ndarray or self._view is not None:
        host = self._value()
    return host


def method_call(host_fn, fallback):
    """An Array method: ``host_fn(self_host, ...)`` eagerly, else ``fallback``."""
    def call(self, *args, **kwargs):
        if numpy_eager():
            aval = self._aval
            if self._device is None and (aval is None or not aval.weak_type):
                host = self._host   # (eager_host, inline)
                if type(host) is not _ndarray or self._view is not None:
                    host = self._value()
                # (host_fn is called with its arguments spelled out where it can be:
                # a call with *args or **{} costs more)
                n = len(args)
                if kwargs or n > 1:
                    try:
                        hargs = args if n == 0 else [_host(a) for a in args]
                        hkwargs = _host_kwargs(kwargs) if kwargs else kwargs
                    except _Fallback:
                        _count_fallback(call)
                        return fallback(self, *args, **kwargs)
                    r = host_fn(host, *hargs, **hkwargs)
                    if kwargs and kwargs.get("out") is not None:
                        return _returned_out(kwargs["out"])
                elif n == 0:
                    r = host_fn(host)
                else:
                    a = args[0]
                    t = type(a)
                    if t is Array and a._view is None and a._aval is None \
                            and a._device is None:
                        r = host_fn(host, a._host)   # (x.dot(y))
                    elif t in _PLAIN:
                        r = host_fn(host, a)
                    else:
                        try:
                            a = _host(a)
                        except _Fallback:
                            _count_fallback(call)
                            return fallback(self, *args)
                        r = host_fn(host, a)
                if type(r) is _ndarray and r.dtype in _canonical:   # (_self_result, inline)
                    out = _new(Array)
                    out._aval = None
                    out._host = r
                    out._buffer = None
                    out._device = None
                    owner = r.base
                    if owner is not None and (owner is host or owner is host.base):
                        root = self if self._view is None else self._view[0]
                        out._view = [root, root._host]
                    else:
                        out._view = None
                    return out
                if type(r) in _canonical_scalars:   # a 0-d result: the NumPy scalar
                    out = _new(Array)
                    out._aval = None
                    out._host = r
                    out._buffer = None
                    out._device = None
                    out._view = None
                    return out
                return _self_result(r, self, host)
        try:
            _count_fallback(call)
            return fallback(self, *args, **kwargs)
        except NonNumericDtypeError as e:
            raise _named(e, call) from None
    call.__name__ = getattr(fallback, "__name__", "method")
    call.__wrapped_lax__ = fallback
    return call


def binary_operator_call(host_fn, fallback):
    """A binary operator of Array: ``host_fn(self_host, other_host)`` eagerly."""
    def call(self, other):
        if numpy_eager():
            aval = self._aval
            if self._device is None and (aval is None or not aval.weak_type):
                # a NumPy scalar host stays one: scalar arithmetic is NumPy's fast path
                host = self._host
                if host is None or self._view is not None:
                    host = self._value()
                t = type(other)
                if t is Array and other._aval is None and other._view is None \
                        and other._device is None:
                    ho = other._host
                elif t is float or t is int:
                    ho = other
                else:
                    try:
                        ho = _operand(other)
                    except _Fallback:
                        try:
                            ho = _loose_operand(host, other)
                        except _Fallback:
                            _count_fallback(call)
                            return fallback(self, other)
                r = host_fn(host, ho)
                if r is NotImplemented:
                    return r
                if type(r) in _canonical_scalars:   # a 0-d result: the NumPy scalar
                    out = _new(Array)
                    out._aval = None
                    out._host = r
                    out._buffer = None
                    out._device = None
                    out._view = None
                    return out
                if type(r) is _ndarray and r.base is None and r.dtype in _canonical:
                    out = _new(Array)
                    out._aval = None
                    out._host = r
                    out._buffer = None
                    out._device = None
                    out._view = None
                    return out
                return _self_result(r, self, host)
            if self._device is None:   # (weakly typed)
                r = _weak_scalar_op(host_fn, self, other)
                if r is not None:
                    return r
        try:
            _count_fallback(call)
            return fallback(self, other)
        except NonNumericDtypeError as e:
            raise _named(e, call) from None
    call.__name__ = getattr(fallback, "__name__", "method")
    call.__wrapped_lax__ = fallback
    return call


def unary_operator_call(host_fn, fallback):
    """A unary operator of Array (``-x``, ``abs(x)``, ...)."""
    def call(self):
        if numpy_eager():
            host = eager_host(self)
            if host is not None:
                return _self_result(host_fn(host), self, host)
            if self._device is None:   # weakly typed
                try:
                    return _weak_result(host_fn(self._value() if self._aval.shape
                                                else _weak_scalar(self)))
                except Exception:
                    pass   # (the lax path's error names the operator)
        try:
            _count_fallback(call)
            return fallback(self)
        except NonNumericDtypeError as e:
            raise _named(e, call) from None
    call.__name__ = getattr(fallback, "__name__", "method")
    call.__wrapped_lax__ = fallback
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


def getitem_call(fallback):
    """``x[idx]``: NumPy's indexing of the host buffer (basic indexing gives a view
    Array; an element read gives a 0-d Array holding a copy)."""
    def __getitem__(self, idx):
        if numpy_eager():
            aval = self._aval
            if self._device is None and (aval is None or not aval.weak_type):
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
                    except _Fallback:
                        try:
                            idx = _index_ranges(idx)
                        except _Fallback:
                            _count_fallback(__getitem__)
                            return fallback(self, idx)
                r = host[idx]
                if type(r) is not _ndarray:
                    if type(r) in _canonical_scalars:   # an element: a 0-d Array holding
                        out = _new(Array)               # the NumPy scalar (wrap, inline)
                        out._aval = None
                        out._host = r
                        out._buffer = None
                        out._device = None
                        out._view = None
                        return out
                    return wrap(r)
                if r.dtype in _canonical:   # a view (or a copy: advanced indexing)
                    out = _new(Array)       # (_self_result, inline)
                    out._aval = None
                    out._host = r
                    out._buffer = None
                    out._device = None
                    owner = r.base
                    if owner is not None and (owner is host or owner is host.base):
                        root = self if self._view is None else self._view[0]
                        out._view = [root, root._host]
                    else:
                        out._view = None
                    return out
                return _self_result(r, self, host)
        try:
            _count_fallback(__getitem__)
            return fallback(self, idx)
        except NonNumericDtypeError as e:
            raise _named(e, __getitem__) from None
    __getitem__.__wrapped_lax__ = fallback
    return __getitem__


def inplace_call(host_fn, fallback):
    """An updating Array method (``sort``, ``fill``, ...): ``host_fn`` writes into the
    Array's buffer (copied first if observed, DESIGN 5) and returns None, eagerly."""
    def call(self, *args, **kwargs):
        if numpy_eager():
            aval = self._aval
            if self._device is None and (aval is None or not aval.weak_type):
                try:
                    if not args or len(args) == 1 and type(args[0]) in _PLAIN:
                        hargs = args
                    else:
                        hargs = [_host(a) for a in args]
                        if len(hargs) > 1 and type(hargs[1]) is list:
                            hargs[1] = np.asarray(hargs[1])   # a value: size-1 axes drop
                    if kwargs:
                        kwargs = {k: _host(v) for k, v in kwargs.items()}
                except _Fallback:
                    _count_fallback(call)
                    return fallback(self, *args, **kwargs)
                host_fn(self._writable(), *hargs, **kwargs)
                return None
        _count_fallback(call)
        return fallback(self, *args, **kwargs)
    call.__name__ = getattr(fallback, "__name__", "method")
    call.__wrapped_lax__ = fallback
    return call


def _direct_write_target(self):
    """``self``'s host ndarray if a write may go straight into it, with NumPy refusing
    (ValueError) when the buffer is read-only; else None (``_writable`` decides). An
    owned buffer qualifies, and a view's ndarray while its root's buffer is the one it
    was derived from and is writable (a view made before the root was marked
    observed is itself still writable, so the root's flag is what counts)."""
    host = self._host
    if type(host) is not _ndarray:
        return None
    view = self._view
    if view is None:
        self._buffer = None
        return host
    if len(view) > 2:
        return None   # read-only by NumPy's choice (a broadcast): _writable raises
    root, root_host = view
    if root._host is root_host and root_host.flags.writeable:
        root._buffer = None
        self._buffer = None
        return host
    return None


def inplace_operator_call(ufunc, fallback):
    """``x op= y``: the ufunc writes into the Array's buffer (copy-on-write), eagerly."""
    def call(self, other):
        if numpy_eager():
            aval = self._aval
            if self._device is None and (aval is None or not aval.weak_type):
                t = type(other)
                if t is float or t is int:
                    ho = other
                elif (t is Array and other._view is None and other._aval is None
                      and other._device is None):
                    ho = other._host   # an ndarray or a NumPy scalar (x /= x.sum())
                    if type(ho) is _ndarray and ho.ndim and not self.ndim:
                        _count_fallback(call)
                        return fallback(self, other)   # a 0-d array as a scalar: rebinds
                else:
                    try:
                        ho = _operand(other)
                    except _Fallback:
                        try:
                            ho = _loose_operand(self._value(), other)
                        except _Fallback:
                            _count_fallback(call)
                            return fallback(self, other)
                    if type(ho) is list:
                        ho = np.asarray(ho)
                    if np.ndim(ho) and not self.ndim:
                        _count_fallback(call)
                        return fallback(self, other)   # a 0-d array as a scalar: rebinds
                host = self._host
                if type(host) is not _ndarray and host is not None:
                    # a 0-d result holding the NumPy scalar NumPy gave stands for that
                    # scalar, which is immutable: ``s op= y`` rebinds ``s`` to ``s op y``
                    # (with NumPy's scalar promotion: ``np.sum(ints) - 0.5`` is a float)
                    return wrap(ufunc(host, ho), (self, other))
                # (the output is positional, the casting the ufuncs' default "same_kind")
                if _direct_write_target(self) is not None:
                    host = self._host   # as in __setitem__: copy only if NumPy refuses
                    try:
                        ufunc(host, ho, host)
                        return self
                    except ValueError:
                        if host.flags.writeable:
                            raise
                host = self._writable()
                ufunc(host, ho, host)
                return self
            if self._device is None and not aval.shape:
                # a weakly typed 0-d Array stands for a Python scalar: rebinds
                r = _weak_scalar_op(ufunc, self, other)
                if r is not None:
                    return r
        _count_fallback(call)
        return fallback(self, other)
    call.__name__ = getattr(fallback, "__name__", "method")
    call.__wrapped_lax__ = fallback
    return call


def _setitem_loose(self, idx, value):
    """The host index and value of ``x[idx] = value`` where the inline conversion
    refused one of them: ranges (NumPy reads them as index arrays, a value as an array),
    or a value NumPy takes next to a date, string, record or object array."""
    hidx = idx if type(idx) is int else _index_ranges(idx)
    t = type(value)
    try:
        hvalue = np.asarray(_host(value)) if t is list else _host(value)
    except _Fallback:
        hvalue = value if t is range else _loose_operand(self._value(), value)
    return hidx, hvalue


def setitem_call(fallback):
    """``x[idx] = value``: written into the Array's buffer (copy-on-write)."""
    def __setitem__(self, idx, value):
        if numpy_eager():
            aval = self._aval
            if self._device is None and (aval is None or not aval.weak_type):
                try:
                    hidx = idx if type(idx) is int else _index_host(idx)
                    t = type(value)
                    if t is float or t is int or t is bool or t is _ndarray:
                        hvalue = value
                    elif t is list:
                        hvalue = np.asarray(_host(value))   # its size-1 axes drop as an array's
                    else:
                        hvalue = _host(value)
                except _Fallback:
                    try:
                        hidx, hvalue = _setitem_loose(self, idx, value)
                    except _Fallback:
                        _count_fallback(__setitem__)
                        return fallback(self, idx, value)
                host = _direct_write_target(self)
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
        _count_fallback(__setitem__)
        return fallback(self, idx, value)
    __setitem__.__wrapped_lax__ = fallback
    return __setitem__


def iterate(self):
    """Iteration over the first axis: views of the rows, as NumPy's."""
    shape = self.shape
    if not shape:
        raise TypeError("iteration over a 0-d array")
    if numpy_eager():
        host = eager_host(self)
        if host is not None:
            return _rows(self, host) if len(shape) > 1 else _elements(host)
    return (self[i] for i in range(shape[0]))


def _rows(self, host):
    # ``host`` is in the root's current buffer (``_self_host`` derived it again if needed)
    root = self if self._view is None else self._view[0]
    entry = [root, root._host]   # (view entries are never changed in place: shared)
    for r in host:
        out = _new(Array)
        out._aval = None
        out._host = r
        out._buffer = None
        out._device = None
        out._view = entry
        yield out


def _elements(host):
    # a 1-d ``host``'s elements, as ``self[i]`` gives them: 0-d Arrays holding NumPy's
    # scalars (copies)
    scalars = _canonical_scalars
    for r in host:
        if type(r) in scalars:
            out = _new(Array)
            out._aval = None
            out._host = r
            out._buffer = None
            out._device = None
            out._view = None
            yield out
        else:
            yield wrap(r)


def property_call(host_fn, fallback):
    def get(self):
        if numpy_eager():
            aval = self._aval
            if self._device is None and (aval is None or not aval.weak_type):
                host = self._host   # (eager_host, inline)
                if type(host) is not _ndarray or self._view is not None:
                    host = self._value()
                r = host_fn(host)
                if type(r) is _ndarray and r.dtype in _canonical:   # (_self_result, inline)
                    out = _new(Array)
                    out._aval = None
                    out._host = r
                    out._buffer = None
                    out._device = None
                    owner = r.base
                    if owner is not None and (owner is host or owner is host.base):
                        root = self if self._view is None else self._view[0]
                        out._view = [root, root._host]
                    else:
                        out._view = None
                    return out
                return _self_result(r, self, host)
        _count_fallback(fallback)
        return fallback(self)
    return property(get)


def install_functions(namespace, table, numpy_module):
    """Replace each function named in ``table`` in ``namespace`` (a module's globals) by
    its NumPy-dispatching wrapper.

    The NumPy functions are read from the installed NumPy: a name it lacks (added after
    NumPy 2.0, or removed since) keeps minijax's own (lax) function, eager calls included."""
    for name, np_fn in table.items():
        fallback = namespace[name]
        if getattr(fallback, "__wrapped_lax__", None) is not None:
            continue
        if np_fn is None:
            np_fn = getattr(numpy_module, name, None)
            if np_fn is None:
                continue
        make = inplace_function_call if table is NUMPY_INPLACE_FUNCTIONS else numpy_call
        namespace[name] = make(np_fn, fallback)


def install_methods(cls):
    """Replace the Array methods and properties named in the tables by NumPy-dispatching
    wrappers around the current (lax) ones."""
    for name, host_fn in ARRAY_METHODS.items():
        fallback = getattr(cls, name)
        if getattr(fallback, "__wrapped_lax__", None) is None:
            if name == "__getitem__":
                make = getitem_call(fallback)
            elif name in _UNARY_OPERATORS:
                make = unary_operator_call(host_fn, fallback)
            elif name.startswith("__"):
                make = binary_operator_call(host_fn, fallback)
            else:
                make = method_call(host_fn, fallback)
            make.__name__ = name
            setattr(cls, name, make)
    for name, host_fn in ARRAY_INPLACE.items():
        fallback = getattr(cls, name)
        if getattr(fallback, "__wrapped_lax__", None) is None:
            setattr(cls, name, setitem_call(fallback) if name == "__setitem__" else
                    inplace_operator_call(host_fn, fallback) if name in _UFUNC_INPLACE
                    else inplace_call(host_fn, fallback))
    cls.__iter__ = iterate
    for name, host_fn in ARRAY_PROPERTIES.items():
        prop = cls.__dict__[name]
        setattr(cls, name, property_call(host_fn, prop.fget))


def host_of(x):
    """The host buffer of an Array (not marked as exported), else ``x`` for NumPy."""
    if type(x) is Array:
        return x._value()
    if isinstance(x, Tracer):
        raise TracerArrayConversionError("shares_memory of a traced value: traced values "
                                         "have no buffer")
    return x


def _unique_values(x):
    # NumPy 2.3+ returns unique_values in hash order; minijax sorts it, as np.unique
    # and the rest of the unique family do (library code relies on sorted classes)
    return np.unique(np.reshape(x, -1), equal_nan=False)


NUMPY_FUNCTIONS["unique_values"] = _unique_values


def _rounding_keeps_integers(np_fn):
    # NumPy 2.0 rounds bool and integer inputs to floats; 2.1+ (and minijax under a
    # transformation) return them unchanged, in their dtype
    def host(x, *args, **kwargs):
        h = np.asarray(x)
        if args or kwargs or h.dtype.kind not in "biu":
            return np_fn(x, *args, **kwargs)
        return h.copy() if h.ndim else h[()]
    return host


# numpy.fix is trunc under another name (NumPy 2.5 deprecates it: minijax warns itself)
NUMPY_FUNCTIONS["fix"] = np.trunc
if np.lib.NumpyVersion(np.__version__) < "2.1.0":
    for _name in ("ceil", "floor", "trunc", "fix"):
        NUMPY_FUNCTIONS[_name] = _rounding_keeps_integers(NUMPY_FUNCTIONS[_name] or
                                                          getattr(np, _name))
