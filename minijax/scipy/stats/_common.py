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
