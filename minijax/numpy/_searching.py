"""Searching functions (Array API chapter "Searching Functions"): argmax, argmin,
nanargmax, nanargmin, nonzero, count_nonzero, where, searchsorted, argwhere,
flatnonzero."""

import numpy as np

from .. import _checks, dtypes, lax
from ..core import concretization_error, get_aval, get_concrete
from ..util import canonicalize_axis
from ._out import supports_out
from ._core import (
    broadcast_arrays,
    concrete_value,
    promote,
    promote_and_broadcast,
    reduction_axes,
    take_1d,
    to_array,
    with_kept_dims,
    wrap_host,
)
from ._elementwise import isnan


def where(condition, x=None, y=None, /):
    """``x`` where ``condition`` else ``y``, with broadcasting (the one-argument form is
    ``nonzero``)."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("where() takes either one argument or three")
    cond = to_array(condition)
    if get_aval(cond).dtype != np.bool_:
        cond = lax.ne(cond, lax.full(get_aval(cond).shape, 0, get_aval(cond).dtype))
    a, b = promote_and_broadcast(x, y)
    cond, a, b = broadcast_arrays(cond, a, b)
    return lax.select_n(cond, b, a)


def nonzero(a):
    """Indices of the nonzero elements (needs a concrete array: the size is data-dependent)."""
    a = to_array(a)
    value = get_concrete(a)
    if value is None:
        raise concretization_error(
            a, "nonzero (and one-argument where) of a traced array: the output size "
            "depends on the values; use the three-argument where(condition, x, y) instead")
    return tuple(to_array(i) for i in np.nonzero(np.asarray(value)))


def _arg_extremum(name, lax_fn):
    reduce = lax.reduce_max if name == "argmax" else lax.reduce_min

    def along(x, axis):
        if dtypes.is_complex(get_aval(x).dtype):
            # NumPy's lexicographic order: the first element equal to the extremum (or
            # the first NaN, which the extremum propagates)
            ext = lax.broadcast_in_dim(reduce(x, (axis,)), get_aval(x).shape,
                                       tuple(d for d in range(get_aval(x).ndim) if d != axis))
            hit = lax.max(lax.eq(x, ext), isnan(x))
            return lax.argmax(hit, axis, dtypes.default_int())
        return lax_fn(x, axis, dtypes.default_int())

    def fn(a, axis=None, out=None, *, keepdims=False):
        keepdims = _checks.flag(keepdims, "keepdims")
        a = to_array(a)
        aval = get_aval(a)
        if axis is None:
            flat = lax.reshape(a, (aval.size,))
            if aval.size == 0:
                raise ValueError(f"attempt to get {name} of an empty sequence")
            res = along(flat, 0)
            return lax.reshape(res, (1,) * aval.ndim) if keepdims else res
        axis = canonicalize_axis(axis, aval.ndim)
        if aval.shape[axis] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        res = along(a, axis)
        return with_kept_dims(res, aval.shape, (axis,)) if keepdims else res
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Index of the {name[3:]}imum along ``axis`` (first on ties; NaN wins)."
    return supports_out(fn)


argmax = _arg_extremum("argmax", lax.argmax)


argmin = _arg_extremum("argmin", lax.argmin)


def _nan_aware_less(a, v, or_equal):
    # NumPy's sort order: NaN after every number
    lt = (lax.le if or_equal else lax.lt)(a, v)
    if not dtypes.is_inexact(get_aval(a).dtype):
        return lt
    a_nan, v_nan = lax.ne(a, a), lax.ne(v, v)
    if or_equal:
        return lax.max(lt, v_nan)   # everything is <= NaN
    return lax.max(lt, lax.min(v_nan, lax.eq(a_nan, lax.full(get_aval(a).shape, False,
                                                               np.bool_))))


def searchsorted(a, v, side="left", sorter=None):
    """Indices where ``v`` would be inserted into the sorted 1-d ``a`` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a = to_array(a)
    if get_aval(a).ndim != 1:
        raise ValueError("searchsorted: a must be 1-dimensional")
    if sorter is not None:
        a = take_1d(a, to_array(sorter))
    a, v = promote(a, v)
    n = get_aval(a).shape[0]
    vshape = get_aval(v).shape
    shape = vshape + (n,)
    ab = lax.broadcast_in_dim(a, shape, (len(vshape),))
    vb = lax.broadcast_in_dim(v, shape, tuple(range(len(vshape))))
    below = _nan_aware_less(ab, vb, side == "right")
    idt = dtypes.default_int()
    return lax.reduce_sum(lax.convert_element_type(below, idt), (len(vshape),))


def flatnonzero(a):
    """Indices of the nonzero elements of the flattened array (eager only)."""
    return wrap_host(np.flatnonzero(concrete_value(a, "flatnonzero")))


def argwhere(a):
    """Indices of the nonzero elements, one row per element (eager only)."""
    return wrap_host(np.argwhere(concrete_value(a, "argwhere")))


def _nan_arg(name, fn, fill):
    def nanfn(a, axis=None, out=None, *, keepdims=False):
        keepdims = _checks.flag(keepdims, "keepdims")
        a = to_array(a)
        if not dtypes.is_inexact(get_aval(a).dtype):
            return fn(a, axis, out, keepdims=keepdims)
        mask = isnan(a)
        v = get_concrete(mask)
        if v is not None and np.asarray(v).all(axis=axis).any():
            raise ValueError("All-NaN slice encountered")
        idx = fn(where(mask, fill, a), axis, out, keepdims=keepdims)
        if v is not None:
            return idx
        # Traced values cannot raise: an all-NaN slice gives -1 (as JAX), never a
        # valid-looking index.
        shape = get_aval(a).shape
        axes = reduction_axes(len(shape), axis)
        all_nan = lax.reduce_and(mask, axes)
        if keepdims:
            all_nan = with_kept_dims(all_nan, shape, axes)
        idx_aval = get_aval(idx)
        return lax.select_n(all_nan, idx, lax.full(idx_aval.shape, -1, idx_aval.dtype))
    nanfn.__name__ = nanfn.__qualname__ = name
    nanfn.__doc__ = f"{name[3:]} ignoring NaNs."
    return supports_out(nanfn)


nanargmax = _nan_arg("nanargmax", argmax, -np.inf)
nanargmin = _nan_arg("nanargmin", argmin, np.inf)
