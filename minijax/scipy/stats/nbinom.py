"""The negative binomial distribution: failures before the ``n``-th success, success
probability ``p`` (``n`` need not be an integer)."""

from ... import lax
from ... import numpy as jnp
from ..special import betainc, xlog1py, xlogy
from .._util import promote_inexact
from ._common import (TINY_TAIL_OFFSET, TINY_TAIL_SPREAD, discrete_isf, discrete_quantile,
                      isf_ends, keep_nan, log_probability, nan_unless, outside,
                      support_sum)


def _valid(n, p):
    return (n > 0) & (p > 0) & (p <= 1)


def logpmf(k, n, p, loc=0):
    """Log of the mass ``Γ(k + n) / (Γ(n) k!) p^n (1 - p)^k`` (``-inf`` off the
    non-negative integers)."""
    k, n, p, loc = promote_inexact(k, n, p, loc)
    k = k_in = k - loc
    off = (k < 0) | (k != jnp.floor(k))
    k = jnp.where(off, 0.0, k)
    value = outside(off, _log_mass(k, n, p), -jnp.inf)
    return nan_unless(_valid(n, p), keep_nan(value, k_in))


def _log_mass(k, n, p):
    log_choose = lax.lgamma(k + n) - lax.lgamma(k + 1.0) - lax.lgamma(n)
    return log_choose + xlogy(n, p) + xlog1py(k, -p)


def pmf(k, n, p, loc=0):
    """The negative binomial probability mass."""
    return jnp.exp(logpmf(k, n, p, loc))


def _tails(k, n, p, loc):
    """``(P(K <= k), P(K > k))``: I_p(n, k + 1) and I_{1-p}(k + 1, n), each computed
    directly so the small one keeps its digits."""
    k, n, p, loc = promote_inexact(k, n, p, loc)
    k_in = k - loc
    k = jnp.floor(k_in)
    below = k < 0
    k = jnp.where(below, 0.0, k)
    valid = _valid(n, p)
    n, p = jnp.where(valid, n, 1.0), jnp.where(valid, p, 0.5)
    lower = outside(below, betainc(n, k + 1.0, p), 0.0)
    upper = outside(below, betainc(k + 1.0, n, 1.0 - p), 1.0)
    return (nan_unless(valid, keep_nan(lower, k_in)), nan_unless(valid, keep_nan(upper, k_in)))


def cdf(k, n, p, loc=0):
    """The CDF P(K <= k)."""
    return _tails(k, n, p, loc)[0]


def sf(k, n, p, loc=0):
    """The survival function P(K > k), computed directly."""
    return _tails(k, n, p, loc)[1]


def logcdf(k, n, p, loc=0):
    """Log of the CDF."""
    lower, upper = _tails(k, n, p, loc)
    return log_probability(lower, upper)


def logsf(k, n, p, loc=0):
    """Log of the survival function."""
    lower, upper = _tails(k, n, p, loc)
    return log_probability(upper, lower)


def ppf(q, n, p, loc=0):
    """The quantile function: the smallest ``k`` with ``cdf(k) >= q`` (-1 at ``q = 0``,
    ``inf`` at ``q = 1``, NaN outside ``[0, 1]``), by bisection over the integers."""
    q, n, p, loc = promote_inexact(q, n, p, loc)
    q, n, p, loc = jnp.broadcast_arrays(q, n, p, loc)
    valid = _valid(n, p) & (q >= 0) & (q <= 1)
    inside = valid & (q > 0) & (q < 1)
    n_safe, p_safe = jnp.where(valid, n, 1.0), jnp.where(valid, p, 0.5)
    mean = n_safe * (1.0 - p_safe) / p_safe
    # far enough out that P(K > upper) is below the spacing of doubles near 1: 40 standard
    # deviations past the mean, and 40 / p for a small n's geometric-like tail
    upper = jnp.ceil(mean + 40.0 * jnp.sqrt(mean / p_safe) + 40.0 / p_safe + 40.0)
    k = discrete_quantile(lambda j: cdf(j, n_safe, p_safe), jnp.where(inside, q, 0.5), upper)
    k = jnp.where(q == 0, -1.0, jnp.where(q == 1, jnp.inf, k))
    return nan_unless(valid, k + loc)


def isf(q, n, p, loc=0):
    """The inverse survival function: the smallest ``k`` with ``sf(k) <= q`` (``inf`` at
    ``q = 0``, -1 at ``q = 1``, NaN outside ``[0, 1]``), by bisection over the integers."""
    q, n, p, loc = promote_inexact(q, n, p, loc)
    q, n, p, loc = jnp.broadcast_arrays(q, n, p, loc)
    valid = _valid(n, p)
    inside = valid & (q > 0) & (q < 1)
    n_safe, p_safe = jnp.where(valid, n, 1.0), jnp.where(valid, p, 0.5)
    mean = n_safe * (1.0 - p_safe) / p_safe
    # a tail of rate about p: the bound of _common's TINY_TAIL_* with the scale 1 / p
    upper = jnp.ceil(mean + TINY_TAIL_SPREAD * jnp.sqrt(mean / p_safe)
                     + TINY_TAIL_OFFSET / p_safe)
    k = discrete_isf(lambda j: sf(j, n_safe, p_safe), jnp.where(inside, q, 0.5), upper)
    return isf_ends(k, q, jnp.inf, valid) + loc


def _entropy_term(k, n, p):
    log_p = _log_mass(k, n, p)
    return jnp.where(log_p > -jnp.inf, -jnp.exp(log_p) * log_p, 0.0)


def entropy(n, p, loc=0):
    """The entropy ``-sum p log p`` (nats), summed over the integers up to where the mass
    is below the smallest double (the bound of ``isf``)."""
    n, p, loc = promote_inexact(n, p, loc)
    valid = _valid(n, p)
    n, p = jnp.where(valid, n, 1.0), jnp.where(valid, p, 0.5)
    mean = n * (1.0 - p) / p
    upper = jnp.ceil(mean + TINY_TAIL_SPREAD * jnp.sqrt(mean / p) + TINY_TAIL_OFFSET / p)
    return nan_unless(valid, support_sum(_entropy_term, 0.0, upper, n, p) + 0.0 * loc)
