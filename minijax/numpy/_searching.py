"""Searching functions (Array API chapter "Searching Functions"): argmax, argmin,
nanargmax, nanargmin, nonzero, count_nonzero, where, searchsorted, argwhere,
flatnonzero."""

import math

import numpy as np

from .. import _checks, dtypes, lax
from ..core import concretization_error, get_aval, get_concrete
from ..util import canonicalize_axis
from ._out import supports_out
from ._core import (
    broadcast_arrays,
    promote,
    promote_and_broadcast,
    reduction_axes,
    take_1d,
    to_array,
    with_kept_dims,
    wrap_host,
)
from ._elementwise import isnan


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` else ``y``, with broadcasting (the one-argument form is
    ``nonzero``, with its ``size=`` and ``fill_value=``)."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("where() takes either one argument or three")
    if size is not None or fill_value is not None:
        raise ValueError("where: size= and fill_value= belong to the one-argument form "
                         "(nonzero); the three-argument form's shape is already static")
    cond = to_array(condition)
    if get_aval(cond).dtype != np.bool_:
        cond = lax.ne(cond, lax.full(get_aval(cond).shape, 0, get_aval(cond).dtype))
    a, b = promote_and_broadcast(x, y)
    cond, a, b = broadcast_arrays(cond, a, b)
    return lax.select_n(cond, b, a)


def static_size(size, name):
    """``size=`` of a data-dependent selection as a non-negative Python int."""
    size = _checks.index(size, f"{name}: size=")
    if size < 0:
        raise ValueError(f"{name}: size= must be a non-negative int, got {size}")
    return size


def true_positions(mask, size):
    """The positions of the true entries of the 1-d boolean ``mask``, in order, cut or
    padded (with 0) to ``size`` entries, and a boolean array of which of the ``size`` are
    real: JAX's ``size=``, a static shape for a selection that depends on values."""
    n = get_aval(mask).shape[0]
    index_dtype = dtypes.canonicalize(np.dtype(np.intp))
    count = lax.reduce_sum(lax.convert_element_type(mask, index_dtype), (0,))
    real = lax.lt(lax.iota(index_dtype, size), lax.broadcast_in_dim(count, (size,), ()))
    zeros = lax.full((size,), 0, index_dtype)
    if n == 0:
        return zeros, real
    skipped = lax.convert_element_type(lax.eq(mask, lax.full((n,), False, np.bool_)), np.int8)
    _, order = lax.sort([skipped, lax.iota(index_dtype, n)], 0, is_stable=True)
    order = (lax.slice(order, (0,), (size,)) if size <= n
             else lax.pad(order, np.zeros((), index_dtype), [(0, size - n, 0)]))
    return lax.select_n(real, zeros, order), real


def _concrete_or_sized(a, name, more=""):
    """The value of ``a`` (an Array) as a NumPy array; a named error offering ``size=``
    if it is traced."""
    value = get_concrete(a)
    if value is None:
        raise concretization_error(
            a, f"{name} of a traced array: the output size depends on the values; give a "
            f"static size= (and fill_value= to choose the padding){more}")
    return np.asarray(value)


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements, one array per dimension. Their number depends on
    the values, so a traced ``a`` (under ``jit``/``vmap``) needs a static ``size=``, as in
    JAX: the first ``size`` indices, padded with ``fill_value`` (default 0; a tuple gives
    one per dimension)."""
    a = to_array(a)
    if size is None:
        if fill_value is not None:
            raise ValueError("nonzero: fill_value= pads the result to size=; give size= too")
        value = _concrete_or_sized(a, "nonzero (and one-argument where)", "; or use the "
                                   "three-argument where(condition, x, y)")
        return tuple(to_array(i) for i in np.nonzero(value))
    size = static_size(size, "nonzero")
    aval = get_aval(a)
    if aval.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.")
    fills = fill_value if isinstance(fill_value, (tuple, list)) else (fill_value,) * aval.ndim
    if len(fills) != aval.ndim:
        raise ValueError(f"nonzero: fill_value= has {len(fills)} entries for an array of "
                         f"{aval.ndim} dimensions (give one, or one per dimension)")
    flat = lax.reshape(a, (aval.size,))
    mask = lax.ne(flat, lax.full((aval.size,), 0, aval.dtype))
    positions, real = true_positions(mask, size)
    index_dtype = get_aval(positions).dtype
    out = []
    for axis, (extent, fill) in enumerate(zip(aval.shape, fills)):
        stride = math.prod(aval.shape[axis + 1:])
        i = lax.div(positions, lax.full((size,), max(stride, 1), index_dtype))
        if extent:
            i = lax.rem(i, lax.full((size,), extent, index_dtype))
        fill = to_array(0 if fill is None else fill)
        if get_aval(fill).ndim:
            raise ValueError("nonzero: each fill_value= must be a scalar")
        fill = lax.convert_element_type(fill, index_dtype)
        out.append(lax.select_n(real, lax.broadcast_in_dim(fill, (size,), ()), i))
    return tuple(out)


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


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements of the flattened array (``size=`` and
    ``fill_value=`` as in ``nonzero``; needed for a traced ``a``)."""
    if size is None and fill_value is None:
        return wrap_host(np.flatnonzero(_concrete_or_sized(to_array(a), "flatnonzero")))
    a = to_array(a)
    return nonzero(lax.reshape(a, (get_aval(a).size,)), size=size,
                   fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements, one row per element (``size=`` and
    ``fill_value=`` as in ``nonzero``; needed for a traced ``a``)."""
    if size is None and fill_value is None:
        return wrap_host(np.argwhere(_concrete_or_sized(to_array(a), "argwhere")))
    a = to_array(a)
    ndim = get_aval(a).ndim
    columns = nonzero(lax.reshape(a, (1,)) if ndim == 0 else a, size=size,
                      fill_value=fill_value)
    size = get_aval(columns[0]).shape[0]
    rows = lax.concatenate([lax.reshape(c, (size, 1)) for c in columns], 1)
    return lax.slice(rows, (0, 0), (size, 0)) if ndim == 0 else rows


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
