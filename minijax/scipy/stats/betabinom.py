"""The beta-binomial distribution: ``n`` trials whose success probability is drawn from
``beta(a, b)``."""

from ... import lax
from ... import numpy as jnp
from ..special import betaln
from .._util import promote_inexact
from ._common import keep_nan, nan_unless, outside


def logpmf(k, n, a, b, loc=0):
    """Log of the mass ``C(n, k) B(k + a, n - k + b) / B(a, b)`` (``-inf`` off
    ``{0, ..., n}``; NaN unless ``n`` is a non-negative integer and ``a, b > 0``)."""
    k, n, a, b, loc = promote_inexact(k, n, a, b, loc)
    k = k_in = k - loc
    valid = (n >= 0) & (n == jnp.floor(n)) & (a > 0) & (b > 0)
    off = (k < 0) | (k > n) | (k != jnp.floor(k))
    k = jnp.where(off, 0.0, k)
    log_choose = lax.lgamma(n + 1.0) - lax.lgamma(k + 1.0) - lax.lgamma(n - k + 1.0)
    value = log_choose + betaln(k + a, n - k + b) - betaln(a, b)
    return nan_unless(valid, keep_nan(outside(off, value, -jnp.inf), k_in))


def pmf(k, n, a, b, loc=0):
    """The beta-binomial probability mass."""
    return jnp.exp(logpmf(k, n, a, b, loc))
