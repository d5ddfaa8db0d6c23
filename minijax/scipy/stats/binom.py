"""The binomial distribution of ``n`` trials with success probability ``p``."""

from ... import lax
from ... import numpy as jnp
from ..special import xlog1py, xlogy
from .._util import promote_inexact
from ._common import keep_nan, outside


def logpmf(k, n, p, loc=0):
    """Log of the binomial probability mass (``-inf`` off ``{0, ..., n}``)."""
    k, n, p, loc = promote_inexact(k, n, p, loc)
    k = k_in = k - loc
    off = (k < 0) | (k > n) | (k != jnp.floor(k))
    k = jnp.where(off, 0.0, k)
    log_choose = lax.lgamma(n + 1.0) - lax.lgamma(k + 1.0) - lax.lgamma(n - k + 1.0)
    value = outside(off, log_choose + xlogy(k, p) + xlog1py(n - k, -p), -jnp.inf)
    return keep_nan(value, k_in)


def pmf(k, n, p, loc=0):
    """The binomial probability mass."""
    return jnp.exp(logpmf(k, n, p, loc))
