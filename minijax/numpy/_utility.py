"""Utility functions (Array API chapter "Utility Functions"): all, any, diff."""

import operator

import numpy as np

from .. import _checks, lax
from ..core import get_aval
from ..util import canonicalize_axis
from ._out import supports_out
from ._core import reduction_axes, to_array, with_kept_dims
from ._elementwise import as_bool, not_equal, subtract
from ._manipulation import concatenate, slice_axis

_NO_VALUE = object()


def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    """The ``n``-th discrete difference along ``axis`` (booleans: not-equal)."""
    a = to_array(a)
    nd = get_aval(a).ndim
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = canonicalize_axis(axis, nd)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    parts = []
    for extra in (prepend, append):
        if extra is _NO_VALUE or extra is None:
            parts.append(None)
            continue
        e = to_array(extra, weak_type=False)   # (NumPy: asanyarray, a strong dtype)
        if get_aval(e).ndim == 0:
            shape = list(get_aval(a).shape)
            shape[axis] = 1
            e = lax.broadcast_to_shape(e, tuple(shape))
        parts.append(e)
    pieces = [p for p in (parts[0], a, parts[1]) if p is not None]
    if len(pieces) > 1:
        a = concatenate(pieces, axis)
    for _ in range(n):
        m = get_aval(a).shape[axis]
        if m == 0:
            break
        hi, lo = slice_axis(a, 1, m, axis), slice_axis(a, 0, m - 1, axis)
        a = not_equal(hi, lo) if get_aval(a).dtype == np.bool_ else subtract(hi, lo)
    return a


def _truth_reduction(a, axis, keepdims, lax_fn, where=None):
    a = as_bool(a)
    aval = get_aval(a)
    axes = reduction_axes(aval.ndim, axis)
    if where is not None and where is not True:
        # masked-out elements take the reduction's identity (True for all, False for any)
        mask = lax.broadcast_to_shape(as_bool(where), aval.shape)
        identity = lax.full(aval.shape, lax_fn is lax.reduce_min, np.bool_)
        a = lax.select_n(mask, identity, a)
    out = lax_fn(a, axes)
    return with_kept_dims(out, aval.shape, axes) if keepdims else out


@supports_out
def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether every element along ``axis`` (where ``where`` is true) is true (nonzero)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return _truth_reduction(a, axis, keepdims, lax.reduce_min, where)


@supports_out
def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether any element along ``axis`` (where ``where`` is true) is true (nonzero)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return _truth_reduction(a, axis, keepdims, lax.reduce_max, where)
