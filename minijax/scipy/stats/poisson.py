"""The Poisson distribution with mean ``mu``."""

from ... import lax
from ... import numpy as jnp
from ..special import xlogy
from .._util import promote_inexact
from ._common import keep_nan, outside


def logpmf(k, mu, loc=0):
    """Log of the Poisson probability mass (``-inf`` off the non-negative integers)."""
    k, mu, loc = promote_inexact(k, mu, loc)
    k = k_in = k - loc
    off = (k < 0) | (k != jnp.floor(k))
    k = jnp.where(off, 0.0, k)
    value = outside(off, xlogy(k, mu) - lax.lgamma(k + 1.0) - mu, -jnp.inf)
    return keep_nan(value, k_in)


def pmf(k, mu, loc=0):
    """The Poisson probability mass."""
    return jnp.exp(logpmf(k, mu, loc))
