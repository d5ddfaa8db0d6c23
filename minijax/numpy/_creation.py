"""Array creation functions (Array API chapter "Creation Functions"): array,
asarray, zeros, ones, empty, full and their ``*_like`` forms, arange, linspace, logspace,
geomspace, eye, meshgrid, indices, tri, tril, triu, from_dlpack."""

import builtins
import functools
import math
import operator

import numpy as np

from .. import _checks, dtypes, lax
from .. import dtypes as _dtypes
from ..core import Tracer, concretization_error, get_aval, get_concrete
from ..core.trace import eager, full_raise, new_value_main, numpy_eager, numpy_flag
from ..runtime import fast_functions
from ..runtime import numpy_dispatch as _numpy_dispatch
from ..runtime.array import (HOST_DLPACK_TYPES, Array, _make, array_from_device_dlpack,
                             ndarray_from_dlpack)
from .._mutation import new_object
from ._core import (_contains_tracer, check_order, like_placement, placed,
                    promote_and_broadcast, result_type_of, to_array)
from ._data_types import _ScalarTypeMeta
from ._elementwise import exp, log, multiply, power, sign
from ._manipulation import expand_dims, moveaxis, reshape
from ._searching import where

_canonical_dtypes = _numpy_dispatch.canonical_dtypes   # (kept current for the mode)
_ndarray = np.ndarray
_generic = np.generic


def _new_array(fn):
    """A new array joins the innermost active transformation (under ``jit`` it is
    staged anyway; under ``grad`` or ``vmap`` it is lifted into their trace), so that
    ``out = zeros(n); out[i] = traced`` can rebind ``out`` to the traced result
    (DESIGN decision 5). ``asarray`` of an array returns that array itself."""
    @functools.wraps(fn)
    def create(*args, **kwargs):
        out = fn(*args, **kwargs)
        if not eager() and not (args and out is args[0]):
            trace = new_value_main().trace
            if isinstance(out, tuple):     # linspace(..., retstep=True)
                return tuple(full_raise(trace, o) for o in out)
            return full_raise(trace, out)
        return out
    return create


# array and asarray: the commonest eager calls are answered in C (runtime/fast_functions);
# the Python fast paths below make what the complete paths (``_array``, ``_asarray``)
# make for the other common arguments: an ndarray of a dtype minijax stores as it is, an
# Array, a list or tuple of numbers; anything else takes the complete path.

@functools.partial(fast_functions.array_fast_path, scalar_type_class=_ScalarTypeMeta)
def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0,
          device=None, like=None):
    """A new array from an array, NumPy array, scalar or nested sequence (``ndmax``: the
    most dimensions a nested sequence may give, 0 for any; ``subok`` has nothing to pass
    through: minijax has no array subclasses)."""
    check_like(like, "array")
    if ndmax != 0:
        _check_ndmax(object, ndmax, ndmin)
    if (dtype is None and ndmin == 0 and device is None and order == "K"
            and (numpy_flag[0] or numpy_eager())):
        t = type(object)
        if t is _ndarray or t is Array:
            host = object if t is _ndarray else _numpy_dispatch.eager_host(object)
            if host is not None and (host.dtype in _canonical_dtypes
                                     or dtypes.is_non_numeric(host.dtype)):
                return _numpy_dispatch.copy_ndarray(host)
        elif t is list or t is tuple:
            out = _from_numbers(object)
            if out is not None:
                return out
    return _array(object, dtype, copy=copy, order=order, ndmin=ndmin, device=device)


def _laid_out(object, dtype, order, copy, ndmin=0):
    """Eagerly, the Array of NumPy's ``array(object, dtype, copy=copy, order=order,
    ndmin=ndmin)`` where ``order`` asks for a memory layout (which ``ravel(order='K')``
    and ``tobytes(order='A')`` read): ``object`` itself where NumPy returns it, a new
    Array of NumPy's result otherwise. None where the layout is XLA's (a traced value, a
    committed or weakly typed Array): ``order`` is only checked (NumPy's errors)."""
    host = object
    if type(object) is Array:
        host = _numpy_dispatch.eager_host(object)
    elif _contains_tracer(object):
        host = None
    if host is None or not (numpy_flag[0] or numpy_eager()):
        check_order(order, like=True)
        return None
    r = np.array(host, dtype=dtype, copy=copy, order=order, ndmin=ndmin)
    if r is host:   # (no copy was needed: NumPy's asarray shares, as minijax's does)
        return object if type(object) is Array else _numpy_dispatch.share_ndarray(r)
    if r.dtype in _canonical_dtypes or dtypes.is_non_numeric(r.dtype):
        return _numpy_dispatch.wrap(r)
    return _make(None, r.astype(dtypes.canonicalize(r.dtype), order="K"))


@placed
@_new_array
def _array(object, dtype=None, *, copy=True, order="K", ndmin=0, device=None):
    if order is not None and order != "K":
        out = _laid_out(object, dtype, order, True, ndmin)
        if out is not None:
            return out
    out = to_array(object, dtype=dtype, copy=True, weak_type=False)
    if out is object:
        out = new_object(out)
    nd = out.ndim
    if ndmin > nd:
        shape = (1,) * (ndmin - nd) + out.shape
        if type(out) is Array and dtypes.is_non_numeric(out.dtype):
            return _numpy_dispatch.wrap(out._value().reshape(shape))
        out = lax.reshape(out, shape)
    return out


def _check_ndmax(object, ndmax, ndmin):
    """NumPy's ``ndmax``: an int in [0, 64], at least ``ndmin``, and no smaller than the
    dimensions a nested sequence gives (more would make an object array)."""
    if isinstance(ndmax, float):
        raise TypeError("integer argument expected, got float")
    ndmax = operator.index(ndmax)
    if not 0 <= ndmax <= 64:
        raise ValueError("ndmax must be in the range [0, NPY_MAXDIMS (64)] ")
    if ndmax and ndmin > ndmax:
        raise ValueError(f"ndmin must be <= ndmax ({ndmax})")
    if isinstance(object, (list, tuple)) and np.ndim(_nesting(object)) > ndmax:
        raise ValueError(f"setting an array element with a sequence. The requested array "
                         f"would exceed the maximum number of dimension of {ndmax}.")


def _nesting(seq):
    # the nested sequence's structure, with each array leaf standing in by its shape
    if isinstance(seq, (list, tuple)):
        return [_nesting(e) for e in seq]
    aval = getattr(seq, "aval", None) if isinstance(seq, (Array, Tracer)) else None
    return np.empty(aval.shape if aval is not None else np.shape(seq), np.int8)


def check_like(like, name):
    """NumPy's ``like=``: an array whose library makes the result, here always minijax
    (minijax's functions make minijax's arrays); anything else is NumPy's TypeError."""
    if like is not None and not hasattr(like, "__array__"):
        raise TypeError(f"{name}: like= takes an array (the result is a minijax array), "
                        f"got {type(like).__name__}")


@functools.partial(fast_functions.asarray_fast_path, scalar_type_class=_ScalarTypeMeta)
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``a`` as an array (an Array is returned as it is unless a dtype change or
    ``copy=True`` asks for a new one). A NumPy array of a dtype minijax stores as it is
    is shared, not copied, when no transformation is active (as NumPy's ``asarray``:
    writes through either are seen by both, until minijax exports or snapshots the
    Array; its next write then copies)."""
    check_like(like, "asarray")
    t = type(a)
    if t is Array:
        if dtype is None and device is None and not copy and (order is None or order == "K"):
            host = a._host
            if type(host) is _ndarray or a._view is not None or not isinstance(host, _generic):
                return a
            # NumPy's scalar (a 0-d result): a new 0-d array
            return _numpy_dispatch.share_ndarray(np.asarray(host))
    elif (device is None and (order is None or order == "K")
          and (numpy_flag[0] or numpy_eager())):
        if t is _ndarray:
            if dtype is None:
                if not copy:
                    if a.dtype in _canonical_dtypes or dtypes.is_non_numeric(a.dtype):
                        return _numpy_dispatch.share_ndarray(a)
                elif copy is True and a.dtype in _canonical_dtypes:
                    return _numpy_dispatch.copy_ndarray(a)
            elif copy is None:   # (a new ndarray of that dtype, as to_array makes)
                host = np.array(a, dtype=dtype)
                if host.dtype in _canonical_dtypes:
                    return _make(None, host)
        elif (t is list or t is tuple) and dtype is None and (copy is None or copy is True):
            out = _from_numbers(a)
            if out is not None:
                return out
    return _asarray(a, dtype, order, device=device, copy=copy)


def _from_numbers(seq):
    """An Array of the list or tuple ``seq`` (eagerly), as ``to_array`` makes it, when
    NumPy converts it to a dtype minijax stores as it is; else None."""
    if _contains_tracer(seq):
        return None
    host = np.array(seq)
    return _make(None, host) if host.dtype in _canonical_dtypes else None


@placed
@_new_array
def _asarray(a, dtype=None, order=None, *, device=None, copy=None):
    if order is not None and order != "K":
        out = _laid_out(a, dtype, order, copy)
        if out is not None:
            return out
    if copy is False and isinstance(a, np.ndarray) and not a.dtype.isnative:
        raise ValueError(f"Unable to avoid copy while creating an array as requested: "
                         f"minijax stores the byte-swapped dtype {a.dtype} in native "
                         f"order (pass copy=None to allow the copy)")
    out = to_array(a, dtype=dtype, copy=True if copy is None else builtins.bool(copy),
                   weak_type=False)
    return new_object(out) if copy and out is a else out


def _shape(shape):
    return _checks.shape(shape)


def _dtype_or(dtype, default):
    return dtypes.canonicalize(default if dtype is None else _checks.dtype(dtype))


@placed
@_new_array
def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """An array of ``shape`` filled with ``fill_value``."""
    check_like(like, "full")
    check_order(order)
    shape = _shape(shape)
    if dtype is None:   # (NumPy: np.full(3, 1.0) is float64, np.full(3, 2**63) uint64)
        fill = to_array(fill_value, weak_type=False)
        aval = get_aval(fill)
        if aval.weak_type:   # (a weakly typed traced value)
            fill = lax.convert_element_type(fill, aval.dtype)
    else:
        fill = lax.convert_element_type(to_array(fill_value), dtypes.canonicalize(dtype))
    fill_aval = get_aval(fill)
    return lax.broadcast_in_dim(fill, shape, tuple(range(len(shape) - fill_aval.ndim,
                                                          len(shape))))


@placed
@_new_array
def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    check_like(like, "zeros")
    check_order(order)
    return lax.full(_shape(shape), 0, _dtype_or(dtype, dtypes.default_float()))


@placed
@_new_array
def ones(shape, dtype=None, order="C", *, device=None, like=None):
    check_like(like, "ones")
    check_order(order)
    return lax.full(_shape(shape), 1, _dtype_or(dtype, dtypes.default_float()))


@placed
@_new_array
def empty(shape, dtype=None, order="C", *, device=None, like=None):
    """An array of ``shape``: uninitialised eagerly (as NumPy's), zeros under ``jit``."""
    check_like(like, "empty")
    return zeros(shape, dtype, order)


def _like(a, dtype, shape):
    aval = get_aval(to_array(a))
    return (aval.shape if shape is None else _shape(shape),
            aval.dtype if dtype is None else dtypes.canonicalize(dtype))


@placed
@_new_array
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    check_order(order, like=True)
    like_shape, dtype = _like(a, dtype, shape)
    return like_placement(lax.full(like_shape, 0, dtype), a, shape)


@placed
@_new_array
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    check_order(order, like=True)
    like_shape, dtype = _like(a, dtype, shape)
    return like_placement(lax.full(like_shape, 1, dtype), a, shape)


@placed
@_new_array
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An array like ``prototype``: uninitialised eagerly (as NumPy's), zeros under
    ``jit``."""
    return zeros_like(prototype, dtype, order, shape=shape)


@placed
@_new_array
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *,
              device=None):
    check_order(order, like=True)
    like_shape, dtype = _like(a, dtype, shape)
    return like_placement(full(like_shape, fill_value, dtype), a, shape)


def _concrete_scalar(x, name):
    if isinstance(x, (builtins.bool, int, float)):
        return x
    value = get_concrete(x)
    if value is None:
        raise concretization_error(x, f"arange() argument {name} must be concrete (its value "
                                      f"sets the output shape)")
    value = np.asarray(value)
    if value.shape != ():
        raise TypeError(f"arange() argument {name} must be a scalar, got shape {value.shape}")
    return value[()]


@placed
@_new_array
def arange(start, stop=None, step=None, dtype=None, *, device=None, like=None):
    """Evenly spaced values in ``[start, stop)`` (NumPy's dtype rules)."""
    check_like(like, "arange")
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    values = [_concrete_scalar(v, n) for v, n in ((start, "start"), (stop, "stop"),
                                                  (step, "step"))]
    start_v, stop_v, step_v = values
    if step_v == 0:
        raise ValueError("arange() step must not be zero")
    if dtype is None:   # NumPy's own choice, from an empty range of the same arguments
        zero = start_v * 0 + stop_v * 0   # carries the types of start and stop
        dtype = np.arange(zero, zero, step_v).dtype
    dtype = dtypes.canonicalize(dtype)
    n = builtins.max(0, math.ceil((float(stop_v) - float(start_v)) / float(step_v)))
    if dtypes.is_integer(dtype) or dtype == np.bool_:
        # integer steps are exact
        idx = lax.iota(dtype, n)
        if step_v != 1:
            idx = lax.mul(idx, lax.full((n,), step_v, dtype))
        if start_v != 0:
            idx = lax.add(idx, lax.full((n,), start_v, dtype))
        return idx
    compute = dtypes.default_float() if dtype == np.float16 or dtype == dtypes.bfloat16 else dtype
    idx = lax.iota(compute, n)
    out = lax.add(lax.mul(idx, lax.full((n,), step_v, compute)), lax.full((n,), start_v, compute))
    return lax.convert_element_type(out, dtype)


@placed
@_new_array
def eye(N, M=None, k=0, dtype=None, order="C", *, device=None, like=None):
    """A 2-d array with ones on diagonal ``k``."""
    check_like(like, "eye")
    check_order(order)
    N = _checks.index(N, "N")
    M = N if M is None else _checks.index(M, "M")
    k = _clip_diagonal(_checks.index(k, "k"), N, M)
    dtype = _dtype_or(dtype, dtypes.default_float())
    rows = lax.broadcasted_iota(np.int64, (N, M), 0)
    cols = lax.broadcasted_iota(np.int64, (N, M), 1)
    on = lax.eq(lax.add(rows, lax.full((N, M), k, np.int64)), cols)
    return lax.convert_element_type(on, dtype)


@placed
@_new_array
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (arrays broadcast; the
    samples run along ``axis`` of the result)."""
    num = _checks.index(num, "num")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start_a, stop_a = to_array(start), to_array(stop)
    compute, _ = result_type_of(start_a, stop_a, 1.0)
    start_a, stop_a = promote_and_broadcast(start_a, stop_a, dtype=compute)
    shape = get_aval(start_a).shape
    axis = _checks.axis(axis, len(shape) + 1)
    out_shape = (num, *shape)
    dims = tuple(range(1, len(out_shape)))
    div = (num - 1) if endpoint else num
    real = np.finfo(compute).dtype if compute.kind == "c" else compute
    idx = lax.convert_element_type(lax.broadcasted_iota(real, out_shape, 0), compute)
    step = (lax.div(lax.sub(stop_a, start_a), lax.full(shape, div, compute)) if div > 0
            else lax.full(shape, np.nan, compute))
    out = lax.broadcast_in_dim(start_a, out_shape, dims)
    if div > 0:
        out = lax.add(lax.mul(idx, lax.broadcast_in_dim(step, out_shape, dims)), out)
        if endpoint and num > 1:
            last = lax.eq(lax.broadcasted_iota(np.int64, out_shape, 0),
                          lax.full(out_shape, num - 1, np.int64))
            out = lax.select_n(last, out, lax.broadcast_in_dim(stop_a, out_shape, dims))
    if axis != 0:
        out = moveaxis(out, 0, axis)
    if dtype is not None:
        dt = dtypes.canonicalize(_checks.dtype(dtype))
        if dt.kind in "iu" and compute.kind != "c":   # NumPy floors before an int cast
            out = lax.floor(out)
        out = lax.convert_element_type(out, dt)
    if retstep:
        return out, step
    return out


@fast_functions.from_dlpack_fast_path
def from_dlpack(x, /, *, device=None, copy=None):
    """An array from an object exporting DLPack: its memory is shared unless ``copy``
    is True or minijax stores its dtype differently (as ``asarray`` of a NumPy array).
    Data on a GPU gives an Array committed to that GPU (it needs minijax's CUDA
    backend, else ``PlatformUnavailableError``)."""
    if type(x) is not np.ndarray:   # (a NumPy array is host memory: no need to ask)
        where = getattr(x, "__dlpack_device__", None)
        if where is not None and where()[0] not in HOST_DLPACK_TYPES:
            return array_from_device_dlpack(x, copy=copy)
    # (copy=None is NumPy's default: given, it costs a keyword argument)
    host = np.from_dlpack(x) if copy is None else ndarray_from_dlpack(x, copy=copy)
    if not copy and host.dtype in _canonical_dtypes and (numpy_flag[0] or numpy_eager()):
        # shared with x, as asarray shares an ndarray; ``host`` is a new ndarray object,
        # so marking it read-only (copy-on-write) leaves x as writable as it was
        return _make(None, host)
    return to_array(host, copy=True, weak_type=False)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num, axis=axis)`` (``base`` may be an array)."""
    start, stop, base = to_array(start), to_array(stop), to_array(base)
    ndim = max(get_aval(a).ndim for a in (start, stop, base))
    start, stop, base = (_at_least_ndim(a, ndim) for a in (start, stop, base))
    y = linspace(start, stop, num, endpoint, axis=axis)
    if get_aval(base).ndim:
        base = expand_dims(base, _checks.axis(axis, ndim + 1))
    out = power(base, y)
    if dtype is not None:
        out = lax.convert_element_type(out, dtypes.canonicalize(_checks.dtype(dtype)))
    return out


def _at_least_ndim(a, ndim):
    shape = get_aval(a).shape
    return a if len(shape) >= ndim else reshape(a, (1,) * (ndim - len(shape)) + shape)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (real endpoints of
    one sign; arrays broadcast, the samples run along ``axis``)."""
    s, t = to_array(start), to_array(stop)
    known = [get_concrete(e) for e in (s, t)]   # (before promotion stages them)
    s, t = promote_and_broadcast(s, t)
    if any(k is not None and np.any(np.asarray(k) == 0) for k in known):
        raise ValueError("Geometric sequence cannot include zero")
    sgn = sign(s)
    ls, lt = log(multiply(s, sgn)), log(multiply(t, sgn))
    out = multiply(sgn, exp(linspace(ls, lt, num, endpoint)))
    # the end points exactly, as NumPy
    out_shape = get_aval(out).shape
    n = out_shape[0]
    if n:
        pos = lax.broadcasted_iota(np.int64, out_shape, 0)
        out = where(lax.eq(pos, lax.full(out_shape, 0, np.int64)), s, out)
        if endpoint:
            out = where(lax.eq(pos, lax.full(out_shape, n - 1, np.int64)), t, out)
    axis = _checks.axis(axis, len(out_shape))
    if axis != 0:
        out = moveaxis(out, 0, axis)
    if dtype is not None:
        out = lax.convert_element_type(out, dtypes.canonicalize(_checks.dtype(dtype)))
    elif not dtypes.is_inexact(get_aval(out).dtype):
        out = lax.convert_element_type(out, dtypes.default_float())
    return out


def _tri_mask(n, m, k, shape=None):
    rows = lax.broadcasted_iota(np.int64, (n, m), 0)
    cols = lax.broadcasted_iota(np.int64, (n, m), 1)
    return lax.ge(lax.add(rows, lax.full((n, m), k, np.int64)), cols)   # j <= i + k


def tri(N, M=None, k=0, dtype=None, *, like=None):
    """Ones at and below diagonal ``k``, zeros above."""
    check_like(like, "tri")
    if any(isinstance(v, (float, np.floating)) for v in (N, M, k)):
        # NumPy takes float arguments through arange at an integer dtype
        rows = np.arange(N, dtype=np.int64)
        cols = np.arange(-k, (N if M is None else M) - k, dtype=np.int64)
        mask = np.greater_equal.outer(rows, cols)
    else:
        N = _checks.index(N, "N")
        M = N if M is None else _checks.index(M, "M")
        mask = _tri_mask(N, M, _clip_diagonal(_checks.index(k, "k"), N, M))
    dt = _dtypes.canonicalize(float if dtype is None else _checks.dtype(dtype))
    return lax.convert_element_type(mask, dt)


def _clip_diagonal(k, n, m):
    # Diagonals beyond the matrix select all or nothing; clipping keeps k in int64.
    return builtins.max(-n - 1, builtins.min(k, m + 1))


def _triangle(m, k, lower):
    m = to_array(m)
    aval = get_aval(m)
    if aval.ndim < 2:
        raise ValueError("tril/triu: input must be at least 2-d")
    n, mm = aval.shape[-2:]
    k = _clip_diagonal(k, n, mm)
    mask = _tri_mask(n, mm, k if lower else k - 1)
    if not lower:
        mask = lax.eq(mask, lax.full((n, mm), False, np.bool_))
    mask = lax.broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1))
    return lax.select_n(mask, lax.full(aval.shape, 0, aval.dtype), m)


def tril(m, k=0):
    """Lower triangle of (the last two axes of) ``m``; zeros above diagonal ``k``."""
    return _triangle(m, _checks.index(k, "k"), True)


def triu(m, k=0):
    """Upper triangle of (the last two axes of) ``m``; zeros below diagonal ``k``."""
    return _triangle(m, _checks.index(k, "k"), False)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d coordinate vectors (``indexing`` 'xy' or 'ij')."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [reshape(to_array(x), (-1,)) for x in xi]
    nd = len(xs)
    shape = [get_aval(x).shape[0] for x in xs]
    if indexing == "xy" and nd > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        dim = i
        if indexing == "xy" and nd > 1 and i < 2:
            dim = 1 - i
        if sparse:
            s = [1] * nd
            s[dim] = shape[dim]
            out.append(reshape(x, tuple(s)))
        else:
            out.append(lax.broadcast_in_dim(x, tuple(shape), (dim,)))
    return tuple(out)


def indices(dimensions, dtype=int, sparse=False):
    """An array of grid indices (one row per dimension)."""
    if not hasattr(dimensions, "__iter__"):   # NumPy takes only a sequence here
        raise TypeError(f"indices: dimensions must be a sequence of integers, got "
                        f"{type(dimensions).__name__} ({dimensions!r}) - "
                        f"'{type(dimensions).__name__}' object is not iterable")
    dims = _checks.shape(dimensions, "dimensions")
    dt = _dtypes.canonicalize(_checks.dtype(dtype))
    grids = []
    for i, d in enumerate(dims):
        if sparse:
            s = [1] * len(dims)
            s[i] = d
            grids.append(lax.reshape(lax.iota(dt, d), tuple(s)))
        else:
            grids.append(lax.broadcasted_iota(dt, dims, i))
    if sparse:
        return tuple(grids)
    shape = (len(dims),) + dims
    pos = lax.broadcasted_iota(np.int32, shape, 0)
    out = lax.full(shape, 0, dt)
    for i, g in enumerate(grids):
        gb = lax.broadcast_in_dim(g, shape, tuple(range(1, len(shape))))
        out = lax.select_n(lax.eq(pos, lax.full(shape, i, np.int32)), out, gb)
    return out


def identity(n, dtype=None, *, like=None):
    """The ``n`` by ``n`` identity matrix."""
    check_like(like, "identity")
    return eye(n, dtype=dtype)


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``asarray`` (minijax has no array subclasses)."""
    check_like(like, "asanyarray")
    if device is None and copy is None:   # (asarray's compiled fast path, no keywords)
        return asarray(a, dtype, order)
    return asarray(a, dtype, order, device=device, copy=copy)


def ascontiguousarray(a, dtype=None, *, like=None):
    """``a`` as a C-contiguous array of at least one dimension."""
    check_like(like, "ascontiguousarray")
    return _atleast_1d(asarray(a, dtype, order="C"))


def asfortranarray(a, dtype=None, *, like=None):
    """``a`` as a Fortran-contiguous array of at least one dimension (eagerly: under
    ``jit`` the layout is XLA's)."""
    check_like(like, "asfortranarray")
    return _atleast_1d(asarray(a, dtype, order="F"))


def _atleast_1d(x):
    # (an Array's ndim is its host's: its aval is made only when asked)
    ndim = x.ndim if type(x) is Array else get_aval(x).ndim
    return lax.reshape(x, (1,)) if ndim == 0 else x


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray`` that raises ``ValueError`` if ``a`` holds an inf or a NaN (so it needs
    concrete values)."""
    out = asarray(a, dtype, order)
    value = get_concrete(out)
    if value is None:
        raise concretization_error(
            out, "asarray_chkfinite() of a traced array: checking for infs and NaNs needs "
            "its values; call it outside jit, or check with isfinite(...).all()")
    value = np.asarray(value)
    if value.dtype.kind in "fc" and not np.isfinite(value).all():
        raise ValueError("array must not contain infs or NaNs")
    return out


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C",
                 "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
                 "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W",
                 "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None):
    """``a`` as an array of ``dtype`` meeting ``requirements`` ('C', 'F', 'A', 'W', 'O',
    'E' or their long names). minijax arrays are contiguous, aligned and writable; 'O'
    (own data) makes a copy."""
    check_like(like, "require")
    if requirements is None:
        flags = set()
    else:
        flags = set()
        for r in requirements:
            key = str(r).upper()
            if key not in _REQUIREMENTS:
                raise ValueError(f"require: unknown requirement {r!r} (expected one of "
                                 f"{', '.join(sorted(_REQUIREMENTS))})")
            flags.add(_REQUIREMENTS[key])
    if "C" in flags and "F" in flags:
        raise ValueError('Cannot specify both "C" and "F" order')
    return asarray(a, dtype, copy=True if "O" in flags else None)


def fromiter(iter, dtype, count=-1, *, like=None):
    """A 1-d array from the first ``count`` values of an iterable (all if -1)."""
    check_like(like, "fromiter")
    if dtype is None:
        raise TypeError("fromiter: dtype= is required")
    count = _checks.index(count, "count")
    items = []
    for i, v in enumerate(iter):
        if count >= 0 and i >= count:
            break
        items.append(v)
    if count >= 0 and len(items) < count:
        raise ValueError(f"iterator too short: Expected {count} but iterator had only "
                         f"{len(items)} items.")
    if any(hasattr(v, "_trace") for v in items):
        return asarray(items, dtype)
    return asarray(np.fromiter(items, dtype, len(items)))


def frombuffer(buffer, dtype=None, count=-1, offset=0, *, like=None):
    """A 1-d array interpreting the bytes of ``buffer`` (from ``offset``) as ``dtype``
    (a copy: minijax arrays own their data)."""
    check_like(like, "frombuffer")
    return asarray(np.frombuffer(buffer, dtype, count, offset).copy())


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function(*grid)`` called once with the index grids of ``shape`` (as ``dtype``)."""
    check_like(like, "fromfunction")
    grids = indices(shape, dtype=dtype)
    return function(*[grids[i] for i in range(len(tuple(shape)))], **kwargs)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-d ``x``: columns are powers of ``x`` (decreasing from
    ``N - 1`` unless ``increasing``)."""
    x = to_array(x)
    if get_aval(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = get_aval(x).shape[0]
    N = n if N is None else _checks.index(N, "N")
    if N < 0:
        raise ValueError(f"vander: N must be non-negative, got {N}")
    dt = dtypes.canonicalize(np.promote_types(get_aval(x).dtype, dtypes.default_int()))
    _checks.shape((n, N), "vander")
    _checks.allocatable((n, N), dt, "vander")
    x = lax.convert_element_type(x, dt)
    if n == 0:
        return lax.full((0, N), 0, dt)
    cols = []
    power_ = None
    for k in range(N):
        power_ = lax.full((n,), 1, get_aval(x).dtype) if k == 0 else (
            x if k == 1 else lax.mul(power_, x))
        cols.append(lax.reshape(power_, (n, 1)))
    if not increasing:
        cols.reverse()
    if not cols:
        return lax.full((n, 0), 0, get_aval(x).dtype)
    return lax.concatenate(cols, 1)
