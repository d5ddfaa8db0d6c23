"""The beta-binomial distribution: ``n`` trials whose success probability is drawn from
``beta(a, b)``."""

from ... import lax
from ... import numpy as jnp
from ..special import betaln
from .._util import promote_inexact
from ._common import keep_nan, log_probability, nan_unless, outside, support_sum


def logpmf(k, n, a, b, loc=0):
    """Log of the mass ``C(n, k) B(k + a, n - k + b) / B(a, b)`` (``-inf`` off
    ``{0, ..., n}``; NaN unless ``n`` is a non-negative integer and ``a, b > 0``)."""
    k, n, a, b, loc = promote_inexact(k, n, a, b, loc)
    k = k_in = k - loc
    off = (k < 0) | (k > n) | (k != jnp.floor(k))
    k = jnp.where(off, 0.0, k)
    value = _log_mass(k, n, a, b)
    return nan_unless(_valid(n, a, b), keep_nan(outside(off, value, -jnp.inf), k_in))


def _valid(n, a, b):
    return (n >= 0) & (n == jnp.floor(n)) & (a > 0) & (b > 0)


def _log_mass(k, n, a, b):
    log_choose = lax.lgamma(n + 1.0) - lax.lgamma(k + 1.0) - lax.lgamma(n - k + 1.0)
    return log_choose + betaln(k + a, n - k + b) - betaln(a, b)


def pmf(k, n, a, b, loc=0):
    """The beta-binomial probability mass."""
    return jnp.exp(logpmf(k, n, a, b, loc))


def _mass(k, n, a, b):
    return jnp.exp(_log_mass(k, n, a, b))


def _tails(k, n, a, b, loc):
    """``(P(K <= k), P(K > k))``, each the sum of its own masses (the small one keeps its
    digits; SciPy's ``sf`` is ``1 - cdf``)."""
    k, n, a, b, loc = promote_inexact(k, n, a, b, loc)
    k, n, a, b = jnp.broadcast_arrays(k - loc, n, a, b)
    k_in = k
    valid = _valid(n, a, b)
    n, a, b = jnp.where(valid, n, 0.0), jnp.where(valid, a, 1.0), jnp.where(valid, b, 1.0)
    k = jnp.floor(k)
    below, above = k < 0, k >= n
    k = jnp.where(below | above | jnp.isnan(k), -1.0, k)
    # (the sums' ranges are empty where the tail is fixed: below, above or NaN)
    lower = support_sum(_mass, 0.0, k, n, a, b)
    upper = support_sum(_mass, jnp.where(k < 0, n + 1.0, k + 1.0), n, n, a, b)
    lower = outside(below, outside(above, lower, 1.0), 0.0)
    upper = outside(below, outside(above, upper, 0.0), 1.0)
    return (nan_unless(valid, keep_nan(lower, k_in)), nan_unless(valid, keep_nan(upper, k_in)))


def cdf(k, n, a, b, loc=0):
    """The CDF P(K <= k), a sum of masses."""
    return _tails(k, n, a, b, loc)[0]


def sf(k, n, a, b, loc=0):
    """The survival function P(K > k), the sum of the masses above ``k``."""
    return _tails(k, n, a, b, loc)[1]


def logcdf(k, n, a, b, loc=0):
    """Log of the CDF."""
    lower, upper = _tails(k, n, a, b, loc)
    return log_probability(lower, upper)


def logsf(k, n, a, b, loc=0):
    """Log of the survival function."""
    lower, upper = _tails(k, n, a, b, loc)
    return log_probability(upper, lower)


def _entropy_term(k, n, a, b):
    log_p = _log_mass(k, n, a, b)
    return jnp.where(log_p > -jnp.inf, -jnp.exp(log_p) * log_p, 0.0)


def entropy(n, a, b, loc=0):
    """The entropy ``-sum p log p`` over ``{0, ..., n}`` (nats)."""
    n, a, b, loc = promote_inexact(n, a, b, loc)
    valid = _valid(n, a, b)
    n, a, b = jnp.where(valid, n, 0.0), jnp.where(valid, a, 1.0), jnp.where(valid, b, 1.0)
    return nan_unless(valid, support_sum(_entropy_term, 0.0, n, n, a, b) + 0.0 * loc)
