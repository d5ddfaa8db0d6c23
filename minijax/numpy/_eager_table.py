"""The eager table (DESIGN 3): which ``minijax.numpy`` functions, ``numpy.linalg`` and
``numpy.fft`` functions, ``Array`` methods, properties and in-place operations call
NumPy eagerly, with which NumPy function, and the host versions that fix NumPy where
minijax's answer differs (the Array API's special values, stable argsort, guards against
NumPy's crashes and hangs). ``install`` puts the runtime's wrappers
(``runtime/numpy_dispatch.py``) over the ``lax`` definitions, once, at the end of
``minijax/numpy/__init__.py``.
"""

import functools
import math
import operator

import numpy as np

from .. import _checks, lax
from ..core import Tracer
from ..runtime import fast_functions
from ..runtime.array import Array, for_reading, get_method, set_method
from ..runtime.numpy_dispatch import (binary_operator_call, getitem_call, inplace_call,
                                      inplace_function_call, inplace_operator_call,
                                      iterate, method_call, ndarray_trace, numpy_call,
                                      numpy_diag, numpy_diagonal, numpy_linalg_diagonal,
                                      numpy_linalg_trace, numpy_trace, property_call,
                                      set_scalar_type_class, setitem_call,
                                      unary_operator_call)
from ._data_types import _ScalarTypeMeta

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
    if axis == -1 or axis == a.ndim - 1:
        found = fast_functions.argsorted_rows_tie(a, idx)
        if found >= 0:
            return found == 1
    if a.ndim == 1:
        s = a[idx]
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
def _arg_extremum(np_fn, method):
    # NumPy's argmax/argmin copy an input that is not writeable (their contiguity check
    # also asks for writeability), which doubles their time. Buffers copy-on-write has
    # marked observed (exported, seen by jit) are read-only: they are read through a
    # writeable alias instead (argmax/argmin never write). An ndarray goes to the
    # method, a C call (the function is a Python wrapper around it).
    def host_fn(a, axis=None, out=None, **kwargs):
        if type(a) is not _ndarray:
            return np_fn(a, axis, out, **kwargs)
        return method(for_reading(a), axis, out, **kwargs)
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
    if type(n) is int and 0 <= n <= 64:   # (a few empty passes at most)
        return np.diff(a, n, axis, **extras)
    n = _checks.index(n, "n")
    longest = max(np.shape(a), default=0) + sum(max(np.shape(v), default=1)
                                                for v in extras.values() if v is not None)
    return np.diff(a, min(n, longest + 1), axis, **extras)


NUMPY_FUNCTIONS.update(
    tile=_tile,
    diff=_diff,
    diag=numpy_diag,
    diagonal=numpy_diagonal,
    trace=numpy_trace,
    argsort=_argsort,
    argmax=_argmax,
    argmin=_argmin,
    # eager empty arrays are uninitialised, as NumPy's (under jit they hold zeros)
    empty=np.empty, empty_like=np.empty_like,
)


# Where the Array API standard and NumPy disagree on special values, the functions it
# names follow the standard (README "differences"); the lax paths in
# minijax/numpy/_elementwise.py agree with these host versions.
@fast_functions.floor_divide_fast_path   # (NumPy's call in C when no value is infinite)
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


def _object_loop_checked(np_ufunc):
    """``np_ufunc`` (a binary ufunc whose object loop calls a method of each element);
    NumPy lets that loop's AttributeError out when an element has no such method (a
    function beside a string array), where its unary ufuncs raise a TypeError naming
    the argument: that TypeError here."""
    method = np_ufunc.__name__

    def host(*args, **kwargs):
        try:
            return np_ufunc(*args, **kwargs)
        except AttributeError as e:
            for i, a in enumerate(args[:np_ufunc.nin]):
                for v in np.asarray(a, dtype=object).ravel():
                    if not callable(getattr(v, method, None)):
                        raise TypeError(
                            f"loop of ufunc does not support argument {i} of type "
                            f"{type(v).__name__} which has no callable {method} method"
                        ) from None
            raise TypeError(f"{method}: {e}") from None
    host.__name__ = host.__qualname__ = method
    return host


NUMPY_FUNCTIONS.update({name: _object_loop_checked(getattr(np, name))
                        for name in ("arctan2", "atan2", "hypot", "fmod", "logical_xor")})

# The host versions above (and the rounding ones below) that give their NumPy ufunc's
# own answer when every operand is a float array or a Python float: the dispatch calls
# the ufunc itself there.
FLOAT_OPERANDS_ARE_NUMPYS = frozenset({"expm1", "tanh", "arctan2", "hypot", "fmod",
                                       "logical_xor", "ceil", "floor", "trunc"})

# Weak types (JAX's rule, eager and traced alike): a ufunc's result is weakly typed when
# every input is a Python number or a weakly typed Array, and so is the result of the
# functions below that move, repeat or combine their operands' values, given as
# ``(start, stop)``, the positional arguments that are operands (-1: all from ``start``;
# a list or tuple argument is weak when each element is). None: never weak (as JAX's
# reductions and these ufuncs, whose results JAX makes strong).
_ONE = (0, 1)
WEAK_OPERANDS = {
    **dict.fromkeys("""
    around atleast_1d atleast_2d atleast_3d block broadcast_to column_stack concatenate
    copy delete dstack ediff1d empty_like expand_dims flip fliplr flipud full_like hstack i0
    imag ones_like zeros_like
    matrix_transpose moveaxis pad permute_dims ravel real real_if_close repeat reshape
    resize roll rot90 round sinc squeeze stack swapaxes tile transpose unstack vstack
    """.split(), _ONE),
    **dict.fromkeys("append convolve dot inner kron outer polyadd polymul polysub tensordot "
                    "vdot".split(), (0, 2)),
    **dict.fromkeys("broadcast_arrays meshgrid".split(), (0, -1)),
    "where": (1, -1), "clip": (0, -1), "einsum": (1, -1), "extract": (1, 2),
    "select": (1, 2),
    **dict.fromkeys("bitwise_count frexp ldexp log10 log2 spacing".split()),
}


def ufunc_weak_operands(name):
    """A ufunc's ``weak_operands`` (``numpy_call``): all its inputs, or the table's."""
    return WEAK_OPERANDS.get(name, (0, -1))


def with_weak_rule(lax_definition, weak_operands, each):
    """``lax_definition`` whose result is weakly typed exactly when the operands
    ``weak_operands`` names (but None) all are and no ``dtype=`` or ``out=`` is given:
    the rule ``numpy_call`` applies to NumPy's result eagerly (``each``: to the
    elements of a tuple or list result; else that result is left as it is)."""
    start, stop = weak_operands

    def weak(a):   # (numpy_dispatch._weak_operand's test, tracers included)
        t = type(a)
        if t is list or t is tuple:
            return len(a) > 0 and all(weak(e) for e in a)
        if t is int or t is float or t is complex:
            return True
        return isinstance(a, (Array, Tracer)) and a.aval.weak_type

    def ruled(x, want):
        if not isinstance(x, (Array, Tracer)):
            return x
        aval = x.aval
        if aval.weak_type == want or want and aval.dtype.kind not in "iufc":
            return x
        return lax.convert_element_type(x, aval.dtype, want)

    @functools.wraps(lax_definition)
    def call(*args, **kwargs):
        out = lax_definition(*args, **kwargs)
        if kwargs.get("out") is not None or kwargs.get("dtype") is not None:
            return out
        operands = [a for a in (args[start:] if stop < 0 else args[start:stop])
                    if a is not None]
        want = len(operands) > 0 and all(weak(a) for a in operands)
        t = type(out)
        if t is tuple or t is list:
            return t([ruled(e, want) for e in out]) if each else out
        return ruled(out, want)
    return call


# Functions that update their first argument in place and return None, as NumPy's.
# (NumPy's ``put`` is a Python wrapper calling the ndarray's method: the first argument
# here is always an ndarray, so the method is called directly.)
NUMPY_INPLACE_FUNCTIONS = {"put": np.ndarray.put, "place": np.place,
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


LINALG_FUNCTIONS.update(eig=_eig, eigvals=_eigvals, diagonal=numpy_linalg_diagonal,
                        trace=numpy_linalg_trace)

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
        all any argpartition astype choose clip compress conj conjugate cumprod cumsum
        diagonal dot flatten
        nonzero prod ptp ravel repeat reshape round searchsorted squeeze std swapaxes
        transpose var""".split()},
    "trace": ndarray_trace,
    # (Array's methods pass keepdims= and out=, initial=, where= by name; NumPy's
    # reductions are slower with keyword arguments, so they go only when given)
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


def install(namespace, linalg, fft, array_class):
    """Put the NumPy-dispatching wrappers over the ``lax`` definitions: the functions of
    ``namespace`` (``minijax.numpy``'s globals), of the ``linalg`` and ``fft`` modules,
    and the methods and properties of ``array_class``. Called once."""
    set_scalar_type_class(_ScalarTypeMeta)
    _install_functions(namespace, NUMPY_FUNCTIONS, np, _numpy_call_of)
    _install_functions(namespace, NUMPY_INPLACE_FUNCTIONS, np,
                       lambda np_fn, lax_definition, name:
                       inplace_function_call(np_fn, lax_definition))
    _install_functions(vars(linalg), LINALG_FUNCTIONS, np.linalg, _numpy_call_of)
    _install_functions(vars(fft), FFT_FUNCTIONS, np.fft, _numpy_call_of)
    _install_methods(array_class)


def _install_functions(namespace, table, numpy_module, make):
    """Replace each function named in ``table`` in ``namespace`` by ``make``'s wrapper
    (``make(np_fn, lax_definition, name)``).

    The NumPy functions are read from the installed NumPy: a name it lacks (added after
    NumPy 2.0, or removed since) keeps minijax's own (lax) function, eager calls included."""
    for name, np_fn in table.items():
        lax_definition = namespace[name]
        if getattr(lax_definition, "__wrapped_lax__", None) is not None:
            continue
        if np_fn is None:
            np_fn = getattr(numpy_module, name, None)
            if np_fn is None:
                continue
        namespace[name] = make(np_fn, lax_definition, name)


def _numpy_call_of(np_fn, lax_definition, name):
    weak = (ufunc_weak_operands(name) if isinstance(np_fn, np.ufunc)
            else WEAK_OPERANDS.get(name))
    if weak is not None:
        lax_definition = with_weak_rule(lax_definition, weak,
                                        not isinstance(np_fn, np.ufunc))
    return numpy_call(np_fn, lax_definition, weak_operands=weak)


def _install_methods(cls):
    for name, host_fn in ARRAY_METHODS.items():
        lax_definition = get_method(cls, name)
        if getattr(lax_definition, "__wrapped_lax__", None) is None:
            if name == "__getitem__":
                make = getitem_call(lax_definition)
            elif name in _UNARY_OPERATORS:
                make = unary_operator_call(host_fn, lax_definition)
            elif name.startswith("__"):
                make = binary_operator_call(host_fn, lax_definition)
            else:
                make = method_call(host_fn, lax_definition, name)
            make.__name__ = name
            set_method(cls, name, make)
    for name, host_fn in ARRAY_INPLACE.items():
        lax_definition = get_method(cls, name)
        if getattr(lax_definition, "__wrapped_lax__", None) is None:
            if name == "__setitem__":
                make = setitem_call(lax_definition)
            elif name in _UFUNC_INPLACE:
                make = inplace_operator_call(host_fn, lax_definition)
            else:
                make = inplace_call(host_fn, lax_definition)
            set_method(cls, name, make)
    set_method(cls, "__iter__", iterate)
    for name, host_fn in ARRAY_PROPERTIES.items():
        set_method(cls, name, property_call(host_fn, get_method(cls, name)))
