"""Array creation functions (Array API chapter "Creation Functions"): array,
asarray, zeros, ones, empty, full and their ``*_like`` forms, arange, linspace, logspace,
geomspace, eye, meshgrid, indices, tri, tril, triu, from_dlpack."""

import builtins
import functools
import math
import operator

import numpy as np

from .. import dtypes, lax
from .. import dtypes as _dtypes
from ..core import get_aval, get_concrete
from ..core.trace import full_raise, new_value_main
from ..core.trace import state as trace_state
from ..errors import ConcretizationTypeError
from ..runtime import numpy_dispatch as _numpy_dispatch
from ..runtime.array import Array
from ._core import new_object, to_array
from ._elementwise import exp, log, multiply, power, sign
from ._manipulation import reshape
from ._searching import where

_canonical_dtypes = _numpy_dispatch.canonical_dtypes
_eager_gate = _numpy_dispatch.numpy_eager_gate


def _new_array(fn):
    """A new array joins the innermost active transformation (under ``jit`` it is
    staged anyway; under ``grad`` or ``vmap`` it is lifted into their trace), so that
    ``out = zeros(n); out[i] = traced`` can rebind ``out`` to the traced result
    (DESIGN decision 5). ``asarray`` of an array returns that array itself."""
    @functools.wraps(fn)
    def create(*args, **kwargs):
        out = fn(*args, **kwargs)
        if len(trace_state.stack) > 1 and not (args and out is args[0]):
            trace = new_value_main().trace
            if isinstance(out, tuple):     # linspace(..., retstep=True)
                return tuple(full_raise(trace, o) for o in out)
            return full_raise(trace, out)
        return out
    return create


def array(object, dtype=None, *, copy=True, order="K", ndmin=0, device=None):
    """A new array from an array, NumPy array, scalar or nested sequence."""
    t = type(object)
    if ((t is np.ndarray or t is Array) and dtype is None and ndmin == 0 and device is None
            and order == "K" and _numpy_dispatch.eager()):
        host = object if t is np.ndarray else _numpy_dispatch.eager_host(object)
        if host is not None and _numpy_dispatch.is_canonical(host.dtype):
            return _numpy_dispatch.copy_ndarray(host)
    return _array(object, dtype, copy=copy, order=order, ndmin=ndmin, device=device)


@_new_array
def _array(object, dtype=None, *, copy=True, order="K", ndmin=0, device=None):
    out = to_array(object, dtype=dtype, copy=True, weak_type=False)
    if out is object:
        out = new_object(out)
    nd = get_aval(out).ndim
    if ndmin > nd:
        out = lax.reshape(out, (1,) * (ndmin - nd) + get_aval(out).shape)
    return out


def asarray(a, dtype=None, order=None, *, device=None, copy=None):
    """``a`` as an array (an Array is returned as it is unless a dtype change or
    ``copy=True`` asks for a new one). A NumPy array of a dtype minijax stores as it is
    is shared, not copied, when no transformation is active (as NumPy's ``asarray``:
    writes through either are seen by both, until minijax exports or snapshots the
    Array; its next write then copies)."""
    if dtype is None and device is None and not copy:
        t = type(a)
        if t is Array:
            return a
        if (t is np.ndarray and a.dtype in _canonical_dtypes and order in (None, "K")
                and (_eager_gate[0] or _numpy_dispatch.eager())):
            return _numpy_dispatch.share_ndarray(a)
    return _asarray(a, dtype, order, device=device, copy=copy)


@_new_array
def _asarray(a, dtype=None, order=None, *, device=None, copy=None):
    out = to_array(a, dtype=dtype, copy=True if copy is None else builtins.bool(copy),
                   weak_type=False)
    return new_object(out) if copy and out is a else out


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (operator.index(shape),)
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {shape!r} "
                        f"(shapes must be concrete: under jit, mark the argument static)") from None


def _dtype_or(dtype, default):
    return dtypes.canonicalize(default if dtype is None else dtype)


@_new_array
def full(shape, fill_value, dtype=None, order="C", *, device=None):
    """An array of ``shape`` filled with ``fill_value``."""
    shape = _shape(shape)
    if dtype is None:
        fill = to_array(fill_value)
        aval = get_aval(fill)
        dtype = aval.dtype
        if aval.weak_type:   # NumPy: np.full(3, 1.0) is float64
            fill = lax.convert_element_type(fill, dtype)
    else:
        fill = lax.convert_element_type(to_array(fill_value), dtypes.canonicalize(dtype))
    fill_aval = get_aval(fill)
    return lax.broadcast_in_dim(fill, shape, tuple(range(len(shape) - fill_aval.ndim,
                                                          len(shape))))


@_new_array
def zeros(shape, dtype=None, order="C", *, device=None):
    return lax.full(_shape(shape), 0, _dtype_or(dtype, dtypes.default_float()))


@_new_array
def ones(shape, dtype=None, order="C", *, device=None):
    return lax.full(_shape(shape), 1, _dtype_or(dtype, dtypes.default_float()))


@_new_array
def empty(shape, dtype=None, order="C", *, device=None):
    """An array of ``shape``: uninitialised eagerly (as NumPy's), zeros under ``jit``."""
    return zeros(shape, dtype)


def _like(a, dtype, shape):
    aval = get_aval(to_array(a))
    return (aval.shape if shape is None else _shape(shape),
            aval.dtype if dtype is None else dtypes.canonicalize(dtype))


@_new_array
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype = _like(a, dtype, shape)
    return lax.full(shape, 0, dtype)


@_new_array
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype = _like(a, dtype, shape)
    return lax.full(shape, 1, dtype)


@_new_array
def empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An array like ``a``: uninitialised eagerly (as NumPy's), zeros under ``jit``."""
    return zeros_like(a, dtype, shape=shape)


@_new_array
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *,
              device=None):
    shape, dtype = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def _concrete_scalar(x, name):
    if isinstance(x, (builtins.bool, int, float)):
        return x
    value = get_concrete(x)
    if value is None:
        raise ConcretizationTypeError(f"arange() argument {name} must be concrete (its value "
                                      f"sets the output shape); under jit mark it static")
    value = np.asarray(value)
    if value.shape != ():
        raise TypeError(f"arange() argument {name} must be a scalar, got shape {value.shape}")
    return value[()]


@_new_array
def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in ``[start, stop)`` (NumPy's dtype rules)."""
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


@_new_array
def eye(N, M=None, k=0, dtype=None, order="C", *, device=None):
    """A 2-d array with ones on diagonal ``k``."""
    M = N if M is None else M
    dtype = _dtype_or(dtype, dtypes.default_float())
    rows = lax.broadcasted_iota(np.int64, (N, M), 0)
    cols = lax.broadcasted_iota(np.int64, (N, M), 1)
    on = lax.eq(lax.add(rows, lax.full((N, M), k, np.int64)), cols)
    return lax.convert_element_type(on, dtype)


@_new_array
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace num must be non-negative, got {num}")
    compute = dtypes.default_float()
    start_a = lax.convert_element_type(to_array(start), compute)
    stop_a = lax.convert_element_type(to_array(stop), compute)
    div = (num - 1) if endpoint else num
    idx = lax.iota(compute, num)
    if div > 0:
        step = lax.div(lax.sub(stop_a, start_a), lax.full((), div, compute))
        out = lax.add(lax.mul(idx, lax.broadcast_in_dim(step, (num,), ())),
                      lax.broadcast_in_dim(start_a, (num,), ()))
        if endpoint and num > 1:
            last = lax.eq(lax.iota(np.int64, num), lax.full((num,), num - 1, np.int64))
            out = lax.select_n(last, out, lax.broadcast_in_dim(stop_a, (num,), ()))
    else:
        out = lax.broadcast_in_dim(start_a, (num,), ())
    out = out if dtype is None else lax.convert_element_type(out, dtypes.canonicalize(dtype))
    if retstep:
        step = (lax.div(lax.sub(stop_a, start_a), lax.full((), div, compute)) if div > 0
                else lax.full((), np.nan, compute))
        return out, step
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    """An array from an object exporting DLPack: its memory is shared unless ``copy``
    is True or minijax stores its dtype differently (as ``asarray`` of a NumPy array)."""
    host = np.from_dlpack(x, copy=copy)
    if _numpy_dispatch.is_canonical(host.dtype) and not copy and _numpy_dispatch.eager():
        return _numpy_dispatch.share_ndarray(host)
    return to_array(host, copy=True, weak_type=False)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``."""
    y = linspace(start, stop, num, endpoint)
    out = power(base, y)
    return out if dtype is None else lax.convert_element_type(out, dtypes.canonicalize(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (positive or negative
    real endpoints of one sign)."""
    s, t = to_array(start), to_array(stop)
    sgn = sign(s)
    ls, lt = log(multiply(s, sgn)), log(multiply(t, sgn))
    out = multiply(sgn, exp(linspace(ls, lt, num, endpoint)))
    # the end points exactly, as NumPy
    n = get_aval(out).shape[0]
    if n:
        pos = lax.iota(np.int64, n)
        out = where(lax.eq(pos, lax.full((n,), 0, np.int64)), s, out)
        if endpoint:
            out = where(lax.eq(pos, lax.full((n,), n - 1, np.int64)), t, out)
    if dtype is not None:
        out = lax.convert_element_type(out, dtypes.canonicalize(dtype))
    elif not dtypes.is_inexact(get_aval(out).dtype):
        out = lax.convert_element_type(out, dtypes.default_float())
    return out


def _tri_mask(n, m, k, shape=None):
    rows = lax.broadcasted_iota(np.int64, (n, m), 0)
    cols = lax.broadcasted_iota(np.int64, (n, m), 1)
    return lax.ge(lax.add(rows, lax.full((n, m), k, np.int64)), cols)   # j <= i + k


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below diagonal ``k``, zeros above."""
    M = N if M is None else M
    dt = _dtypes.canonicalize(float if dtype is None else dtype)
    return lax.convert_element_type(_tri_mask(int(N), int(M), int(k)), dt)


def _triangle(m, k, lower):
    m = to_array(m)
    aval = get_aval(m)
    if aval.ndim < 2:
        raise ValueError("tril/triu: input must be at least 2-d")
    n, mm = aval.shape[-2:]
    mask = _tri_mask(n, mm, k if lower else k - 1)
    if not lower:
        mask = lax.eq(mask, lax.full((n, mm), False, np.bool_))
    mask = lax.broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1))
    return lax.select_n(mask, lax.full(aval.shape, 0, aval.dtype), m)


def tril(m, k=0):
    """Lower triangle of (the last two axes of) ``m``; zeros above diagonal ``k``."""
    return _triangle(m, int(k), True)


def triu(m, k=0):
    """Upper triangle of (the last two axes of) ``m``; zeros below diagonal ``k``."""
    return _triangle(m, int(k), False)


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
    dims = tuple(int(d) for d in dimensions)
    dt = _dtypes.canonicalize(dtype)
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


def identity(n, dtype=None):
    """The ``n`` by ``n`` identity matrix."""
    return eye(n, dtype=dtype)
