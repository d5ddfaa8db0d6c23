"""Helpers shared by the minijax.numpy chapters: conversion, promotion, broadcasting,
reduction axes and ``keepdims``, and concrete (host) values for functions whose output
shape depends on the data."""

import functools

import numpy as np

from .. import _checks, dtypes, lax
from ..config import config
from ..core import Tracer, concretization_error, get_aval, get_concrete
from ..core.avals import ShapedArray
from ..core.trace import non_numeric_context, numpy_eager
from ..errors import NonNumericDtypeError
from ..runtime import numpy_dispatch
from ..runtime.array import Array, _make, resolve_placement
from ..util import canonicalize_axis
from ._out import check_casting

_PY_SCALARS = (bool, int, float, complex)


def is_arraylike(x):
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic) + _PY_SCALARS)


def to_array(x, dtype=None, copy=True, weak_type=None):
    """``x`` as an Array or tracer; NumPy inputs are copied (Arrays are immutable)."""
    if isinstance(x, (Array, Tracer)):
        if dtype is not None:
            try:
                return lax.convert_element_type(x, dtypes.canonicalize(dtype))
            except NonNumericDtypeError:
                if type(x) is not Array or not numpy_eager():
                    raise
                # NumPy's conversion to or from dates, strings, records or objects
                return numpy_dispatch.wrap(x._value().astype(dtype))
        return x
    if dtypes.is_python_scalar(x) and dtype is None and not (
            weak_type is False and type(x) is int and config.enable_x64
            and not dtypes.python_int_fits(x, dtypes.default_int())):
        # (a strong int past int64 takes NumPy's type below: uint64, or object)
        aval = get_aval(x)
        weak = aval.weak_type if weak_type is None else weak_type
        return _make(ShapedArray((), aval.dtype, weak), np.asarray(x, aval.dtype))
    if isinstance(x, (list, tuple)) and _contains_tracer(x):
        return _stack_traced(x, dtype)
    host = np.array(x, copy=copy) if dtype is None else np.array(x, dtype=dtype, copy=copy)
    if dtypes.is_non_numeric(host.dtype):
        return non_numeric_array(host if host is not x else host.view(), "array")
    target = dtypes.canonicalize(host.dtype if dtype is None else dtype)
    if host.dtype != target:
        host = host.astype(target)
    return _make(None, host)   # its aval (strong) is made from host when asked


def cast_dtype(arrays, dtype, casting):
    """The canonical ``dtype=`` (or None) that ``arrays`` are converted to, where NumPy's
    ``casting=`` rule allows it; NumPy's errors for a bad rule or a cast it forbids."""
    check_casting(casting)
    if dtype is None:
        return None
    dtype = dtypes.canonicalize(dtype)
    for a in arrays:
        source = get_aval(a).dtype
        if not np.can_cast(source, dtype, casting):
            raise TypeError(f"Cannot cast array data from {source!r} to {dtype!r} "
                            f"according to the rule {casting!r}")
    return dtype


def check_order(order, like=False):
    """NumPy's check of ``order``: 'C' or 'F' for a new array, also 'A' and 'K' for one
    that follows an input (``like``). The layout itself is NumPy's eagerly, XLA's under
    ``jit``."""
    if order != ("K" if like else "C"):   # (the defaults need no check)
        (np.empty_like(_NO_ELEMENTS, order=order) if like
         else np.empty(0, order=order))


_NO_ELEMENTS = np.empty(0)


def placed(fn):
    """``fn`` (a function that makes an array, with a keyword-only ``device=``) whose
    ``device`` commits what it makes to that device, as JAX's creation functions do;
    under a transformation the device is checked and the staged value stays put, as
    with ``device_put``."""
    name = fn.__name__.lstrip("_")

    @functools.wraps(fn)
    def make(*args, device=None, **kwargs):
        out = fn(*args, **kwargs)
        if device is None:
            return out
        placement = resolve_placement(device, name)

        def put(o):
            return o._put(placement, name) if type(o) is Array else o
        return tuple(map(put, out)) if type(out) is tuple else put(out)   # (retstep)
    return make


def like_placement(out, a, shape):
    """``out``, made by a ``*_like`` function of ``a`` with no ``device=``, where JAX's
    puts it: on ``a``'s placement when ``a`` is committed (only when ``a`` is on one
    device if ``shape`` is given: a mesh's sharding is for ``a``'s shape)."""
    if type(a) is not Array or type(out) is not Array or a._placement is None:
        return out
    placement = a._placement
    if shape is not None and placement._device is None:
        return out
    return out._put(placement, "device_put")


def non_numeric_array(host, what):
    """An eager Array holding ``host`` (an ndarray of a date, string, structured or object
    dtype, DESIGN 3), or ``NonNumericDtypeError`` where eager NumPy does not compute."""
    if numpy_eager():
        return _make(None, host)
    raise NonNumericDtypeError(host.dtype, f"minijax.numpy.{what}{non_numeric_context()}")


def _contains_tracer(x):
    """A tracer is ``x`` or an element of the (nested) list or tuple ``x``."""
    t = type(x)
    if t is list or t is tuple or isinstance(x, (list, tuple)):
        for e in x:
            t = type(e)
            if t is not float and t is not int and _contains_tracer(e):
                return True
        return False
    return isinstance(x, Tracer)


def _stack_traced(seq, dtype):
    # A (nested) sequence holding traced values: convert elements, then stack them.
    elems = [to_array(e) for e in seq]
    elems = promote(*elems)
    if dtype is not None:
        elems = [lax.convert_element_type(e, dtypes.canonicalize(dtype)) for e in elems]
    shape = get_aval(elems[0]).shape
    for e in elems:
        if get_aval(e).shape != shape:
            raise ValueError("cannot build an array from sequences of different shapes")
    n = len(elems)
    out_shape = (n, *shape)
    dims = tuple(range(1, len(out_shape)))
    position = lax.broadcasted_iota(np.int32, out_shape, 0)
    out = lax.broadcast_in_dim(elems[0], out_shape, dims)
    for i, e in enumerate(elems[1:], 1):
        picked = lax.eq(position, lax.full(out_shape, i, np.int32))
        out = lax.select_n(picked, out, lax.broadcast_in_dim(e, out_shape, dims))
    return out


def result_type_of(*args):
    """(dtype, weak_type) that NumPy 2 promotion gives for these arguments."""
    entries = []
    for a in args:
        if isinstance(a, (list, tuple)):
            a = to_array(a)   # a nested sequence is an array (as NumPy converts it)
        aval = None if dtypes.is_python_scalar(a) else get_aval(a)
        if aval is None:
            d, w = dtypes.python_scalar_dtype(a)
            entries.append((d, w))
        else:
            entries.append((aval.dtype, aval.weak_type))
    return dtypes.promote(*entries)


def promote(*args, dtype=None, weak=False):
    """Convert ``args`` to one dtype (NumPy promotion, or ``dtype``/``weak`` if given)."""
    if dtype is None:
        dtype, weak = result_type_of(*args)
    out = []
    for a in args:
        if dtypes.is_python_scalar(a):
            dtypes.check_python_int(a, dtype)
            out.append(_make(scalar_aval(dtype, weak), np.asarray(a, dtype)))
            continue
        if isinstance(a, (np.ndarray, np.generic, list, tuple)):
            a = to_array(a)
        aval = a.aval
        if aval.dtype != dtype or aval.weak_type != weak:
            a = lax.convert_element_type(a, dtype, weak)
        out.append(a)
    return out


_scalar_avals = {}


def scalar_aval(dtype, weak):
    aval = _scalar_avals.get((dtype, weak))
    if aval is None:
        aval = _scalar_avals[(dtype, weak)] = ShapedArray((), dtype, weak)
    return aval


def broadcast_shapes(*shapes, name="operands"):
    distinct = {s for s in shapes if s}
    if len(distinct) <= 1:   # equal shapes, or rank 0 with one shape: the common case
        return distinct.pop() if distinct else ()
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{name} could not be broadcast together with shapes "
                         f"{' '.join(str(tuple(s)) for s in shapes)}") from None


def broadcast_arrays(*args, keep_scalars=False):
    """Broadcast to one shape; ``keep_scalars`` leaves rank-0 operands as they are (for
    lax operations that take them)."""
    shapes = [get_aval(a).shape for a in args]
    shape = broadcast_shapes(*shapes)
    return [a if s == shape or (keep_scalars and s == ()) else lax.broadcast_to_shape(a, shape)
            for a, s in zip(args, shapes)]


def promote_and_broadcast(*args, dtype=None, weak=False, keep_scalars=False):
    return broadcast_arrays(*promote(*args, dtype=dtype, weak=weak), keep_scalars=keep_scalars)


def check_arraylike(name, *args):
    for i, a in enumerate(args):
        if not is_arraylike(a) and not isinstance(a, (list, tuple)):
            raise TypeError(f"{name}() argument {i} must be an array or scalar, got "
                            f"{type(a).__name__}")


def reduction_axes(ndim, axis):
    """``axis`` (None, an int or a sequence) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, list):   # NumPy's reductions take a tuple of axes, not a list
        raise TypeError("axis: 'list' object cannot be interpreted as an integer (give "
                        "several axes as a tuple)")
    return _checks.axes(axis, ndim)


def flat_or_axis(a, axis):
    """``a`` as an array and ``axis`` as a non-negative int; with ``axis=None``, the
    flattened array and axis 0 (NumPy's convention for functions along one axis)."""
    a = to_array(a)
    aval = get_aval(a)
    if axis is None:
        return lax.reshape(a, (aval.size,)), 0
    return a, canonicalize_axis(axis, aval.ndim)


def with_kept_dims(out, in_shape, axes):
    """A reduction's result with the reduced ``axes`` of ``in_shape`` put back as size 1."""
    shape = tuple(1 if i in axes else s for i, s in enumerate(in_shape))
    return lax.reshape(out, shape)


def take_1d(a, idx):
    # a[idx] for a 1-d ``a`` through a masked sum (traceable)
    n = get_aval(a).shape[0]
    ishape = get_aval(idx).shape
    shape = ishape + (n,)
    iota = lax.broadcasted_iota(get_aval(idx).dtype, shape, len(ishape))
    hit = lax.eq(iota, lax.broadcast_in_dim(idx, shape, tuple(range(len(ishape)))))
    ab = lax.broadcast_in_dim(a, shape, (len(ishape),))
    dt = get_aval(a).dtype
    if dt == np.bool_:
        return lax.reduce_max(lax.min(hit, ab), (len(ishape),))
    return lax.reduce_sum(lax.select_n(hit, lax.full(shape, 0, dt), ab), (len(ishape),))


def concrete_value(x, name):
    """``x`` as a NumPy array, or a named error if it is traced (``name()`` needs values)."""
    x = to_array(x)
    value = get_concrete(x)
    if value is None:
        raise concretization_error(
            x, f"{name}() of a traced array: its output size depends on the values, so it "
            f"needs a concrete array (call it outside jit)")
    return np.asarray(value)


def wrap_host(x):
    """A NumPy result (or tuple of them) as minijax arrays."""
    if isinstance(x, tuple):
        return tuple(wrap_host(e) for e in x)
    return to_array(np.asarray(x))
