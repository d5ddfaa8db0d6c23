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
"""

import functools
import operator

import numpy as np

from .. import _checks, dtypes
from ..errors import TracerArrayConversionError
from ..config import config
from ..core import Tracer
from ..core.avals import ShapedArray
from ..core.trace import state
from .array import Array, as_view_of

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
identity imag indices inner interp intersect1d invert isclose iscomplex iscomplexobj isfinite
isin isinf isnan isneginf isposinf isreal isrealobj ix_ kron left_shift less less_equal
linspace log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or
logical_xor logspace matmul matrix_transpose max maximum mean median meshgrid min minimum
mod moveaxis multiply nan_to_num nanargmax nanargmin nanmax nanmean nanmedian nanmin
nanpercentile nanprod nanquantile nanstd nansum nanvar negative nextafter nonzero not_equal
ones ones_like outer pad partition percentile permute_dims positive pow power prod ptp
quantile rad2deg radians ravel ravel_multi_index real reciprocal remainder repeat reshape
right_shift rint roll rot90 round row_stack searchsorted select setdiff1d setxor1d sign
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
        kind = "stable"
    return np.argsort(a, axis, kind, order, stable=stable)


# NumPy-only functions of the numeric top level (polynomials, histograms, signals, ...)
NUMPY_FUNCTIONS.update(dict.fromkeys("""
apply_along_axis bartlett blackman block delete diagflat digitize ediff1d gradient hamming
hanning histogram histogram2d histogram_bin_edges histogramdd i0 insert kaiser lexsort
mask_indices matvec packbits piecewise poly polyadd polyder polydiv polyfit polyint polymul polysub
polyval real_if_close resize rollaxis roots sort_complex trapezoid unpackbits unwrap vander
vecmat
""".split()))
def _tile(a, reps):
    # NumPy's tile dies (a segfault) when the result's size overflows: check it first
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
    empty=np.zeros, empty_like=np.zeros_like,   # minijax's empty arrays hold zeros
)


# Where the Array API standard and NumPy disagree on special values, the functions it
# names follow the standard (README "differences"); the lax paths in
# minijax/numpy/_elementwise.py agree with these host versions.
def _floor_divide(x1, x2, /, out=None, **kwargs):
    """NumPy's floor_divide, except floor(x1 / x2) where exactly one operand is infinite
    (NumPy gives NaN for inf // 1 and -1.0 for 1 // -inf; the standard ±inf and -0)."""
    a, b = np.asarray(x1), np.asarray(x2)
    fix = None
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            fix = ((np.isinf(a) & np.isfinite(b) & (b != 0))
                   | (np.isfinite(a) & np.isinf(b)))
            if fix.any():
                quotient = np.true_divide(a, b)
            else:
                fix = None
    if fix is None:
        return np.floor_divide(x1, x2, out=out, **kwargs)
    with np.errstate(invalid="ignore"):
        r = np.floor_divide(x1, x2, out=out, **kwargs)
    fixed = np.where(fix, quotient, r).astype(np.result_type(r), copy=False)
    if out is not None:
        out[...] = fixed
        return out
    return fixed if np.ndim(r) else fixed[()]


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
    r = np.expm1(x, *args, **kwargs)
    if np.result_type(r).kind != "c":
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
    r = np.tanh(x, *args, **kwargs)
    if np.result_type(r).kind != "c":
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
        all any argmax argmin astype clip conj conjugate cumprod cumsum diagonal dot flatten
        nonzero prod ptp ravel repeat reshape round searchsorted squeeze std swapaxes trace
        transpose var""".split()},
    # minijax's signatures: keepdims is the next positional after axis (and dtype)
    "sum": lambda h, axis=None, dtype=None, keepdims=False, **kw:
        h.sum(axis, dtype, keepdims=keepdims, **kw),
    "mean": lambda h, axis=None, dtype=None, keepdims=False, **kw:
        h.mean(axis, dtype, keepdims=keepdims, **kw),
    "max": lambda h, axis=None, keepdims=False, **kw: h.max(axis, keepdims=keepdims, **kw),
    "min": lambda h, axis=None, keepdims=False, **kw: h.min(axis, keepdims=keepdims, **kw),
    "argsort": _argsort,
    "take": _call_method("take"),
}
# In-place operator or method -> function writing into the (writable) host buffer.
ARRAY_INPLACE = {
    **{f"__i{op}__": functools.partial(getattr(np, ufunc), casting="same_kind")
       for op, ufunc in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                         ("truediv", "true_divide"), ("floordiv", "floor_divide"),
                         ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
                         ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                         ("lshift", "left_shift"), ("rshift", "right_shift"),
                         ("matmul", "matmul"))},
    "__ifloordiv__": functools.partial(_floor_divide, casting="same_kind"),
    "__setitem__": operator.setitem,
    "sort": _call_method("sort"), "partition": _call_method("partition"),
    "fill": _call_method("fill"), "put": _call_method("put"),
}
_UFUNC_INPLACE = frozenset(name for name in ARRAY_INPLACE if name.startswith("__i"))

ARRAY_PROPERTIES = {
    "T": operator.attrgetter("T"), "mT": operator.attrgetter("mT"),
    "real": operator.attrgetter("real"), "imag": operator.attrgetter("imag"),
}


class _Fallback(Exception):
    """An input NumPy must not see (a tracer, a committed Array, an unknown object)."""


_PLAIN = frozenset({int, float, complex, bool, str, type(None), slice, type(Ellipsis),
                    np.dtype, type})
_generic = np.generic


def _host(a):
    t = type(a)
    if t is Array:
        if a._device is not None:
            raise _Fallback
        if a.aval.weak_type:
            if a.aval.shape:
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
    raise _Fallback


_OPERANDS = frozenset({Array, _ndarray, int, float, complex, bool, list, tuple})


def _operand(a):
    """``_host`` for the other operand of an operator (no strings, None, ...)."""
    if type(a) in _OPERANDS or isinstance(a, _generic):
        return _host(a)
    raise _Fallback


_avals = {}


def _aval(shape, dtype):
    key = (shape, dtype)
    aval = _avals.get(key)
    if aval is None:
        if len(_avals) > 10_000:
            _avals.clear()
        aval = _avals[key] = ShapedArray(shape, dtype)
    return aval


_new = object.__new__


def wrap(r, args=()):
    """``r`` (a NumPy result) as minijax values: arrays and scalars become Arrays
    (sharing ``r``'s buffer), tuples and lists are mapped."""
    t = type(r)
    if t is not _ndarray:
        if isinstance(r, _generic) or t in (bool, int, float, complex):
            r = np.asarray(r)
        elif t is tuple or t is list:
            return t([wrap(e, args) for e in r])
        elif isinstance(r, tuple):   # NumPy's named tuples (unique_all, eigh, svd, ...)
            return t(*[wrap(e, args) for e in r])
        else:
            return r
    aval = _avals.get((r.shape, r.dtype)) if config.enable_x64 else None
    if aval is None:
        target = dtypes.canonicalize(r.dtype)   # 32-bit mode: narrowed on the way out
        if target != r.dtype:
            r = r.astype(target)
        aval = _aval(r.shape, target)
    out = _new(Array)
    out.aval = aval
    out._host = r
    out._buffer = None
    out._device = None
    out._view = None
    if r.base is not None and args:
        as_view_of(out, args)
    return out


def _numpy_failed(error, fallback, args, kwargs):
    """NumPy raised: the lax path's named error (which says what to do) if it raises
    one, else NumPy's exception as NumPy raised it (e.g. LinAlgError on a singular
    matrix, where compiled code gives non-finite values)."""
    if isinstance(error, TypeError) and ("keyword argument" in str(error)
                                         or "positional argument" in str(error)):
        return fallback(*args, **kwargs)   # a call NumPy's signature does not take
    result = fallback(*args, **kwargs)
    if isinstance(error, AttributeError):
        # NumPy assumed an ndarray where the caller gave a list (hsplit, unstack): its
        # own slip, not a rejection; the lax path's answer stands
        return result
    raise error


# minijax (like JAX) takes None for "not given" where NumPy's default is a sentinel and
# None means something else (``where=None`` is a mask to NumPy's reductions).
_NONE_IS_ABSENT = frozenset({"where", "initial"})


def numpy_call(np_fn, fallback, nin=None):
    """``fallback`` (a minijax function) that calls ``np_fn`` on host values eagerly.

    ``nin``: ``np_fn`` is a ufunc taking ``nin`` inputs; arguments after them are its
    outputs, passed on as ``out=`` (so they are written as ``out=`` arrays are)."""
    @functools.wraps(fallback)
    def call(*args, **kwargs):
        if len(state.stack) == 1 and config.eager_backend == "numpy":
            if nin is not None and len(args) > nin:
                if "out" in kwargs:
                    raise TypeError(f"{np_fn.__name__}() got out= both as a positional "
                                    f"and a keyword argument")
                outs = args[nin:]
                return call(*args[:nin], out=outs if len(outs) > 1 else outs[0], **kwargs)
            try:
                if len(args) == 1:
                    a = args[0]
                    if (type(a) is Array and a._view is None and a._host is not None
                            and a._device is None and not a.aval.weak_type):
                        hargs = (a._host,)
                    else:
                        hargs = (_host(a),)
                else:
                    hargs = [_host(a) for a in args]
                out = None
                if kwargs:
                    if kwargs.get("device") is not None:
                        raise _Fallback
                    out = kwargs.get("out")
                    hkwargs = {k: _host(v) for k, v in kwargs.items()
                               if (v is not None or k not in _NONE_IS_ABSENT) and k != "out"}
                    if out is not None:
                        hkwargs["out"] = _host_out(out)
                else:
                    hkwargs = kwargs
            except _Fallback:
                return fallback(*args, **kwargs)
            try:
                r = np_fn(*hargs, **hkwargs)
            except Exception as e:
                return _numpy_failed(e, fallback, args, kwargs)
            if out is not None:
                return out[0] if type(out) is tuple and len(out) == 1 else out
            return wrap(r, args)
        return fallback(*args, **kwargs)
    call.__wrapped_lax__ = fallback
    return call


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


def inplace_function_call(np_fn, fallback):
    """A function updating its first argument: eagerly NumPy writes into that Array's
    buffer (copy-on-write) and returns None; otherwise ``fallback`` (which rebinds)."""
    @functools.wraps(fallback)
    def call(a, *args, **kwargs):
        if (len(state.stack) == 1 and config.eager_backend == "numpy"
                and (type(a) is _ndarray or type(a) is Array and a._device is None
                     and not a.aval.weak_type)):
            try:
                hargs = [_host(x) for x in args]
                kwargs = {k: _host(v) for k, v in kwargs.items()}
            except _Fallback:
                return fallback(a, *args, **kwargs)
            try:
                np_fn(a._writable() if type(a) is Array else a, *hargs, **kwargs)
            except Exception as e:
                return _numpy_failed(e, fallback, (a, *args), kwargs)
            return None
        return fallback(a, *args, **kwargs)
    call.__wrapped_lax__ = fallback
    return call


def _self_result(r, self):
    """``wrap(r, (self,))`` for a method's result: a view of ``self``'s buffer becomes a
    view Array of ``self``'s root."""
    if type(r) is not _ndarray or not config.enable_x64:
        return wrap(r, (self,))
    aval = _avals.get((r.shape, r.dtype))
    if aval is None:
        return wrap(r, (self,))
    out = _new(Array)
    out.aval = aval
    out._host = r
    out._buffer = None
    out._device = None
    out._view = None
    owner = r.base
    if owner is not None:
        root = self if self._view is None else self._view[0]
        root_host = root._host
        if root_host is owner or (root_host is not None and root_host.base is owner):
            out._view = [root, root_host]
    return out


def method_call(host_fn, fallback, operator_like=False):
    """An Array method: ``host_fn(self_host, ...)`` eagerly, else ``fallback``."""
    convert = _operand if operator_like else _host

    def call(self, *args, **kwargs):
        if (len(state.stack) == 1 and self._device is None and config.eager_backend == "numpy"
                and not self.aval.weak_type):
            if args or kwargs:
                try:
                    hargs = [convert(a) for a in args]
                    out = None
                    hkwargs = kwargs
                    if kwargs:
                        out = kwargs.get("out")
                        hkwargs = {k: _host(v) for k, v in kwargs.items()
                                   if (v is not None or k not in _NONE_IS_ABSENT)
                                   and k != "out"}
                        if out is not None:
                            hkwargs["out"] = _host_out(out)
                except _Fallback:
                    return fallback(self, *args, **kwargs)
            else:
                hargs, hkwargs, out = (), kwargs, None
            host = self._host
            if host is None or self._view is not None:
                host = self._value()
            r = host_fn(host, *hargs, **hkwargs)
            if r is NotImplemented:
                return r
            if out is not None:
                return out[0] if type(out) is tuple and len(out) == 1 else out
            return _self_result(r, self)
        return fallback(self, *args, **kwargs)
    call.__name__ = getattr(fallback, "__name__", "method")
    call.__wrapped_lax__ = fallback
    return call


def inplace_call(host_fn, fallback, ufunc=False):
    """An updating Array operator or method: ``host_fn`` writes into the Array's buffer
    (copied first if observed, DESIGN 5) eagerly, else ``fallback``."""
    def call(self, *args, **kwargs):
        if (len(state.stack) == 1 and self._device is None and config.eager_backend == "numpy"
                and not self.aval.weak_type):
            try:
                hargs = [_operand(a) if ufunc else _host(a) for a in args]
                kwargs = {k: _host(v) for k, v in kwargs.items()}
            except _Fallback:
                return fallback(self, *args, **kwargs)
            if len(hargs) > 1 and type(hargs[1]) is list:
                hargs[1] = np.asarray(hargs[1])   # a value; as an array its size-1 axes drop
            if ufunc and not self.aval.shape and np.ndim(hargs[0]):
                return fallback(self, *args, **kwargs)   # a 0-d array as a scalar: rebinds
            host = self._writable()
            if ufunc:
                host_fn(host, *hargs, out=host)
                return self
            host_fn(host, *hargs, **kwargs)
            return None
        return fallback(self, *args, **kwargs)
    call.__name__ = getattr(fallback, "__name__", "method")
    call.__wrapped_lax__ = fallback
    return call


def iterate(self):
    """Iteration over the first axis: views of the rows, as NumPy's."""
    if not self.aval.shape:
        raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.aval.shape[0]))


def property_call(host_fn, fallback):
    def get(self):
        if len(state.stack) == 1 and self._device is None and config.eager_backend == "numpy" \
                and not self.aval.weak_type:
            host = self._host
            if host is None or self._view is not None:
                host = self._value()
            return _self_result(host_fn(host), self)
        return fallback(self)
    return property(get)


def install_functions(namespace, table, numpy_module):
    """Replace each function named in ``table`` in ``namespace`` (a module's globals) by
    its NumPy-dispatching wrapper."""
    for name, np_fn in table.items():
        fallback = namespace[name]
        if getattr(fallback, "__wrapped_lax__", None) is not None:
            continue
        make = inplace_function_call if table is NUMPY_INPLACE_FUNCTIONS else numpy_call
        namespace[name] = make(np_fn or getattr(numpy_module, name), fallback)


def install_methods(cls):
    """Replace the Array methods and properties named in the tables by NumPy-dispatching
    wrappers around the current (lax) ones."""
    for name, host_fn in ARRAY_METHODS.items():
        fallback = getattr(cls, name)
        if getattr(fallback, "__wrapped_lax__", None) is None:
            setattr(cls, name, method_call(host_fn, fallback, name.startswith("__")
                                           and name != "__getitem__"))
    for name, host_fn in ARRAY_INPLACE.items():
        fallback = getattr(cls, name)
        if getattr(fallback, "__wrapped_lax__", None) is None:
            setattr(cls, name, inplace_call(host_fn, fallback, name in _UFUNC_INPLACE))
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
