"""``rankdata``, ``sem`` and ``mode``: SciPy's summary statistics on ``minijax.numpy``.

Ties are found on the sorted slice: position ``i`` starts a run of equal values when it
differs from ``i - 1``, and running maxima/minima of the run boundaries give every
position its run's first and last index, all with static shapes (so ``jit`` and ``vmap``
apply). What SciPy decides from the values (raising on NaN, an integer or float result)
needs concrete input, and is a named error under a transformation.
"""

from typing import NamedTuple

import numpy as np

from ... import dtypes, lax
from ... import numpy as jnp
from ...core import concretization_error, get_concrete

_NAN_POLICIES = ("propagate", "omit", "raise")
_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


class ModeResult(NamedTuple):
    """``mode``'s result: the most common value and how often it occurs."""
    mode: jnp.ndarray
    count: jnp.ndarray


def _check_nan_policy(nan_policy):
    if nan_policy not in _NAN_POLICIES:
        raise ValueError("nan_policy must be one of {'raise', 'omit', 'propagate'}.")


def _concrete(a, name, why):
    """``a``'s value as a NumPy array, or a ``ConcretizationTypeError`` saying ``why``
    ``name`` needs it."""
    value = get_concrete(a)
    if value is None:
        raise concretization_error(a, f"{name}() of a traced array: {why}; call it outside jit")
    return np.asarray(value)


def _raise_on_nan(a, name):
    """SciPy's ``nan_policy='raise'``: a ``ValueError`` when ``a`` holds a NaN."""
    if not dtypes.is_inexact(a.dtype):
        return
    value = _concrete(a, name, "nan_policy='raise' must look for NaN in the values")
    if np.isnan(value).any():
        raise ValueError("The input contains nan values")


def _last_axis(a, axis):
    """``a`` with ``axis`` moved last (``None``: flattened)."""
    if axis is None:
        return jnp.ravel(a)
    if a.ndim == 0:
        return jnp.reshape(a, (1,))
    return jnp.moveaxis(a, axis, -1)


def _runs(s, same):
    """For a sorted last axis ``s`` and ``same[..., i]`` (``s[i]`` equals ``s[i - 1]``):
    ``(starts, first, last)``: where runs begin, and each position's run's first and last
    index."""
    n = s.shape[-1]
    index = lax.broadcasted_iota(np.int64, s.shape, s.ndim - 1)
    starts = jnp.concatenate([jnp.ones(s.shape[:-1] + (1,), bool), ~same], axis=-1)
    ends = jnp.concatenate([~same, jnp.ones(s.shape[:-1] + (1,), bool)], axis=-1)
    first = lax.cummax(jnp.where(starts, index, 0), axis=s.ndim - 1)
    last = lax.cummin(jnp.where(ends, index, n - 1), axis=s.ndim - 1, reverse=True)
    return starts, first, last


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks of the data from 1, ties resolved by ``method``: ``'average'`` (float64),
    ``'min'``, ``'max'``, ``'dense'`` or ``'ordinal'`` (int64 unless a NaN is ranked).

    ``nan_policy``: ``'propagate'`` makes every rank of a slice holding a NaN NaN,
    ``'omit'`` ranks the other values and gives the NaNs NaN, ``'raise'`` raises
    ``ValueError`` on a NaN. SciPy's dtype for a float input ranked by an integer method
    depends on whether a NaN occurs; where the values are traced it is float64 (JAX's).
    """
    if method not in _RANK_METHODS:
        raise ValueError(f"unknown method '{method}'")
    _check_nan_policy(nan_policy)
    a = jnp.asarray(a)
    if nan_policy == "raise":
        _raise_on_nan(a, "rankdata")
    shape = a.shape if axis is None or a.ndim == 0 else None
    if axis is not None and a.ndim:
        axis = int(axis) % a.ndim
    x = _last_axis(a, axis)
    last = x.ndim - 1
    if x.shape[-1] == 0:
        out_dtype = np.float64 if method == "average" else np.int64
        return jnp.zeros(a.shape if axis is not None else (0,), out_dtype)
    order = jnp.argsort(x, axis=-1, stable=True)
    s = jnp.take_along_axis(x, order, axis=-1)
    starts, first, last_index = _runs(s, s[..., 1:] == s[..., :-1])
    if method == "ordinal":
        ranks = lax.broadcasted_iota(np.int64, s.shape, last) + 1
    elif method == "min":
        ranks = first + 1
    elif method == "max":
        ranks = last_index + 1
    elif method == "dense":
        ranks = jnp.cumsum(starts, axis=-1, dtype=np.int64)
    else:
        ranks = 0.5 * (first + last_index).astype(np.float64) + 1.0
    ranks = jnp.take_along_axis(ranks, jnp.argsort(order, axis=-1), axis=-1)
    if dtypes.is_inexact(a.dtype):
        missing = jnp.isnan(x)
        if nan_policy == "propagate":
            missing = jnp.broadcast_to(jnp.any(missing, axis=-1, keepdims=True), x.shape)
        if method != "average":
            has_nan = get_concrete(missing)
            if has_nan is not None and not np.asarray(has_nan).any():
                return _restore(ranks, axis, shape)
            ranks = ranks.astype(np.float64)
        ranks = jnp.where(missing, jnp.nan, ranks)
    return _restore(ranks, axis, shape)


def _restore(ranks, axis, shape):
    if axis is None:
        return ranks
    if shape is not None:
        return jnp.reshape(ranks, shape)
    return jnp.moveaxis(ranks, -1, axis)


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean, ``std(a, ddof=ddof) / sqrt(n)`` along ``axis``
    (``None``: of all of ``a``; NaN for fewer than two values). ``nan_policy='omit'`` leaves
    the NaNs out of the count and the deviation; ``'raise'`` raises ``ValueError`` on a NaN."""
    _check_nan_policy(nan_policy)
    a = jnp.asarray(a)
    if not dtypes.is_inexact(a.dtype):
        a = a.astype(dtypes.default_float())
    if nan_policy == "raise":
        _raise_on_nan(a, "sem")
    out_shape = _reduced_shape(a, axis, keepdims)
    if axis is None or a.ndim == 0:
        x, axis = jnp.ravel(a), 0
    else:
        x, axis = a, int(axis) % a.ndim
    present = ~jnp.isnan(x) if nan_policy == "omit" else jnp.ones(x.shape, bool)
    n = jnp.sum(present, axis=axis, keepdims=True).astype(x.dtype)
    values = jnp.where(present, x, 0.0)
    mean = jnp.sum(values, axis=axis, keepdims=True) / jnp.maximum(n, 1.0)  # (an empty slice: 0)
    squares = jnp.sum(jnp.where(present, (x - mean) ** 2, 0.0), axis=axis, keepdims=True)
    # NumPy's std: a variance over max(n - ddof, 0) (inf past the sample's size); SciPy's
    # sem of fewer than two values is NaN whatever ddof is
    value = jnp.sqrt(squares / jnp.maximum(n - ddof, 0.0) / n)
    value = jnp.where(n < 2, jnp.nan, value)
    return jnp.reshape(value, out_shape)


def _reduced_shape(a, axis, keepdims):
    """The shape of a reduction of ``a`` over ``axis`` (``None``: all axes)."""
    if axis is None or a.ndim == 0:
        return (1,) * max(a.ndim, 1) if keepdims else ()
    axis = int(axis) % a.ndim
    return a.shape[:axis] + ((1,) if keepdims else ()) + a.shape[axis + 1:]


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most common value along ``axis`` (the smallest of equally common ones) and its
    count, as ``ModeResult(mode, count)``; ``axis=None`` takes all of ``a``.

    NaNs count as one value with ``'propagate'`` and are left out with ``'omit'`` (a slice
    of NaNs only has mode NaN and count 0); ``'raise'`` raises ``ValueError`` on a NaN.
    An empty slice has mode NaN and count 0, both float64, as SciPy gives.
    """
    _check_nan_policy(nan_policy)
    a = jnp.asarray(a)
    if a.dtype == np.bool_ or not (dtypes.is_inexact(a.dtype)
                                   or jnp.issubdtype(a.dtype, jnp.integer)):
        raise TypeError("Argument `a` is not recognized as numeric.")
    if nan_policy == "raise":
        _raise_on_nan(a, "mode")
    out_shape = _reduced_shape(a, axis, keepdims)
    if axis is not None and a.ndim:
        axis = int(axis) % a.ndim
    x = _last_axis(a, axis)
    if x.shape[-1] == 0:
        return ModeResult(jnp.full(out_shape, jnp.nan), jnp.zeros(out_shape))
    s = jnp.sort(x, axis=-1)
    same = s[..., 1:] == s[..., :-1]
    nan = jnp.isnan(s) if dtypes.is_inexact(s.dtype) else jnp.zeros(s.shape, bool)
    same = same | (nan[..., 1:] & nan[..., :-1])   # the NaNs, sorted last, are one run
    _, first, _ = _runs(s, same)
    index = lax.broadcasted_iota(np.int64, s.shape, s.ndim - 1)
    count = index - first + 1   # how many of the value at i occur up to i
    if nan_policy == "omit":
        count = jnp.where(nan, 0, count)
    best = jnp.argmax(count, axis=-1, keepdims=True)  # the first maximum: the smallest value
    value = jnp.take_along_axis(s, best, axis=-1)[..., 0]
    count = jnp.take_along_axis(count, best, axis=-1)[..., 0]
    if nan_policy == "omit" and dtypes.is_inexact(s.dtype):
        value = jnp.where(count == 0, jnp.nan, value)
    return ModeResult(jnp.reshape(value, out_shape), jnp.reshape(count, out_shape))
