"""Helpers shared by the distribution modules."""

from ... import numpy as jnp
from .._util import promote_inexact


def standardize(x, loc, scale, *params):
    """``(x - loc) / scale`` and ``log(scale)``, all arguments promoted to one float dtype."""
    x, loc, scale, *params = promote_inexact(x, loc, scale, *params)
    return ((x - loc) / scale, jnp.log(scale), *params)


def keep_nan(value, x):
    """``value``, but NaN where the argument ``x`` is NaN."""
    return jnp.where(jnp.isnan(x), jnp.nan, value)


def outside(mask, value, fill):
    """``fill`` where ``mask``, else ``value``."""
    return jnp.where(mask, fill, value)


def log_probability(p, q):
    """``log(p)`` for a probability ``p`` whose complement ``q = 1 - p`` is computed
    separately: ``log1p(-q)`` where ``p`` is near 1, so the log keeps its digits."""
    upper = p > 0.5
    return jnp.where(upper, jnp.log1p(-jnp.where(upper, q, 0.0)),
                     jnp.log(jnp.where(upper, 1.0, p)))
