"""``minijax.scipy.ndimage``: ``map_coordinates`` (orders 0 and 1)."""

import itertools

from .. import numpy as jnp
from ._util import promote_inexact

__all__ = ["map_coordinates"]


def _reflect_index(i, n):
    """(d c b a | a b c d | d c b a): period 2n, edges repeated."""
    m = jnp.remainder(i, 2 * n)
    return jnp.where(m >= n, 2 * n - 1 - m, m)


def _mirror_index(i, n):
    """(d c b | a b c d | c b a): period 2n - 2, edges not repeated."""
    if n == 1:
        return jnp.zeros_like(i)
    m = jnp.remainder(i, 2 * n - 2)
    return jnp.where(m >= n, 2 * n - 2 - m, m)


def _wrap_index(i, n):
    """(a b c d | a b c d | ...): period n (SciPy's 'grid-wrap')."""
    return jnp.remainder(i, n)


_INDEX_MAPS = {"nearest": lambda i, n: jnp.clip(i, 0, n - 1), "reflect": _reflect_index,
               "mirror": _mirror_index, "grid-wrap": _wrap_index,
               "constant": lambda i, n: jnp.clip(i, 0, n - 1)}


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
    """Sample ``input`` at fractional ``coordinates`` (one array per axis of ``input``).

    ``order`` 0 (nearest) or 1 (linear); ``mode`` 'constant' (``cval`` outside the input),
    'nearest', 'reflect', 'mirror' or 'grid-wrap'.
    """
    if order not in (0, 1):
        raise NotImplementedError(f"map_coordinates: order={order!r} is not supported (0 or 1)")
    if mode not in _INDEX_MAPS:
        raise NotImplementedError(f"map_coordinates: mode={mode!r} is not supported; use one "
                                  f"of {sorted(_INDEX_MAPS)}")
    input, = promote_inexact(input)
    if len(coordinates) != input.ndim:
        raise ValueError(f"map_coordinates: {len(coordinates)} coordinate arrays for an input "
                         f"with {input.ndim} dimensions")
    coords = promote_inexact(*coordinates)
    coords = jnp.broadcast_arrays(*coords)
    index_map = _INDEX_MAPS[mode]
    # per axis: a list of (integer index, weight) pairs
    per_axis = []
    for c, n in zip(coords, input.shape):
        if order == 0:
            per_axis.append([(jnp.floor(c + 0.5).astype(int), None)])
        else:
            lower = jnp.floor(c)
            w = c - lower
            lower = lower.astype(int)
            per_axis.append([(lower, 1.0 - w), (lower + 1, w)])
    out = 0.0
    for combo in itertools.product(*per_axis):
        idx = tuple(index_map(i, n) for (i, _), n in zip(combo, input.shape))
        term = input[idx]
        for _, w in combo:
            if w is not None:
                term = term * w
        out = out + term
    if mode == "constant":
        inside = True
        for c, n in zip(coords, input.shape):
            inside = inside & (c >= 0) & (c <= n - 1)
        out = jnp.where(inside, out, cval)
    return jnp.asarray(out).astype(input.dtype)
