"""The multinomial distribution of ``n`` trials over the categories on ``p``'s last axis."""

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import xlogy
from .._util import promote_inexact


def logpmf(x, n, p):
    """Log of the mass ``n! prod(p_i^x_i / x_i!)`` of the counts ``x`` (last axis).

    As SciPy does, ``n`` is truncated to an integer, and where ``p``'s row does not
    sum to 1 (within 10 eps) its last entry is replaced by ``1 - sum(p[..., :-1])``; the
    value is ``-inf`` unless the counts are non-negative integers summing to ``n``, NaN where ``n < 0``
    or an entry of ``p`` is outside ``[0, 1]``.
    """
    x, n, p = promote_inexact(x, n, p)
    if x.ndim == 0:
        raise ValueError("x must be an array.")
    if x.shape[-1] != p.shape[-1]:
        raise ValueError(f"Size of each quantile should be size of p: received "
                         f"{x.shape[-1]}, but expected {p.shape[-1]}.")
    n = jnp.trunc(n)
    eps = 10 * float(np.finfo(np.result_type(p.dtype, np.float32)).eps)
    rest = 1.0 - jnp.sum(p[..., :-1], axis=-1)
    adjust = jnp.abs(1.0 - jnp.sum(p, axis=-1)) > eps
    p = jnp.concatenate([p[..., :-1], jnp.where(adjust, rest, p[..., -1])[..., None]], axis=-1)
    bad = (n < 0) | jnp.any((p < 0) | (p > 1), axis=-1)
    off = jnp.any((x < 0) | (x != jnp.floor(x)), axis=-1) | (jnp.sum(x, axis=-1) != n)
    value = lax.lgamma(n + 1.0) + jnp.sum(xlogy(x, p) - lax.lgamma(x + 1.0), axis=-1)
    return jnp.where(bad, jnp.nan, jnp.where(off, -jnp.inf, value))


def pmf(x, n, p):
    """The multinomial probability mass."""
    return jnp.exp(logpmf(x, n, p))
