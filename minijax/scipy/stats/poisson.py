"""The Poisson distribution with mean ``mu``."""

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import gammainc, gammaincc, xlogy
from .._util import promote_inexact
from ._common import (TINY_TAIL_OFFSET, TINY_TAIL_SPREAD, discrete_isf, discrete_quantile,
                      deviance, isf_ends, keep_nan, log_probability, nan_unless, outside,
                      stirling_error, window_entropy)


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


def _counts(k, mu, loc):
    k, mu, loc = promote_inexact(k, mu, loc)
    k_in = k - loc
    return jnp.floor(k_in), mu, k_in


def cdf(k, mu, loc=0):
    """P(K <= k) = Q(floor(k) + 1, mu) (0 below ``loc``)."""
    k, mu, k_in = _counts(k, mu, loc)
    negative = k < 0
    value = gammaincc(jnp.where(negative, 0.0, k) + 1.0, mu)
    return keep_nan(outside(negative, value, 0.0), k_in)


def sf(k, mu, loc=0):
    """P(K > k) = P(floor(k) + 1, mu) (1 below ``loc``)."""
    k, mu, k_in = _counts(k, mu, loc)
    negative = k < 0
    value = gammainc(jnp.where(negative, 0.0, k) + 1.0, mu)
    return keep_nan(outside(negative, value, 1.0), k_in)


def logcdf(k, mu, loc=0):
    """Log of the Poisson CDF."""
    return log_probability(cdf(k, mu, loc), sf(k, mu, loc))


def logsf(k, mu, loc=0):
    """Log of the survival function."""
    return log_probability(sf(k, mu, loc), cdf(k, mu, loc))


def ppf(q, mu, loc=0):
    """The quantile function: the smallest ``k`` with ``cdf(k) >= q`` (-1 at ``q = 0``,
    ``inf`` at ``q = 1``, NaN outside ``[0, 1]``), found by bisection over the integers."""
    q, mu, loc = promote_inexact(q, mu, loc)
    q, mu, loc = jnp.broadcast_arrays(q, mu, loc)
    inside = (q > 0) & (q < 1)
    mu_safe = jnp.where(jnp.isfinite(mu) & (mu >= 0), mu, 0.0)
    # P(K > upper) is far below the spacing of doubles near 1, so cdf(upper) >= q
    upper = jnp.ceil(mu_safe + 40.0 * jnp.sqrt(mu_safe) + 40.0)
    k = discrete_quantile(lambda j: cdf(j, mu_safe), jnp.where(inside, q, 0.5), upper)
    k = jnp.where(q == 0, -1.0, jnp.where(q == 1, jnp.inf, k))
    return outside((q < 0) | (q > 1) | jnp.isnan(q) | jnp.isnan(mu), k + loc, jnp.nan)


def isf(q, mu, loc=0):
    """The inverse survival function: the smallest ``k`` with ``sf(k) <= q`` (``inf`` at
    ``q = 0``, -1 at ``q = 1``, NaN outside ``[0, 1]`` or for ``mu < 0``), by bisection
    over the integers on the survival function itself, so a small ``q`` keeps its digits."""
    q, mu, loc = promote_inexact(q, mu, loc)
    q, mu, loc = jnp.broadcast_arrays(q, mu, loc)
    valid = mu >= 0
    inside = valid & (q > 0) & (q < 1)
    mu_safe = jnp.where(valid & jnp.isfinite(mu), mu, 0.0)
    upper = jnp.ceil(mu_safe + TINY_TAIL_SPREAD * jnp.sqrt(mu_safe) + TINY_TAIL_OFFSET)
    k = discrete_isf(lambda j: sf(j, mu_safe), jnp.where(inside, q, 0.5), upper)
    return isf_ends(k, q, jnp.inf, valid) + loc


_SERIES_FROM = 1e7   # past this mean the entropy's expansion is exact to double precision


def entropy(mu, loc=0):
    """The entropy ``-sum p log p`` (nats; NaN for ``mu < 0``): summed over the mass's
    window, with each ``log p`` in Loader's form (``stirling_error`` and ``deviance``, which
    keep their digits at a large mean); past a mean of 1e7, the expansion
    ``log(2 pi e mu) / 2 - 1/(12 mu) - 1/(24 mu^2) - 19/(360 mu^3)``."""
    mu, loc = promote_inexact(mu, loc)
    valid = mu >= 0
    m = jnp.where(valid & (mu > 0) & jnp.isfinite(mu), mu, 1.0)

    def log_mass(k):
        lam = m[..., None]
        ks = jnp.where(k > 0, k, 1.0)
        value = -0.5 * jnp.log(2.0 * np.pi * ks) - stirling_error(ks) - deviance(ks, lam)
        return jnp.where(k > 0, value, -lam)

    mb = jnp.where(m > _SERIES_FROM, m, 1.0)
    inv = 1.0 / mb
    series = (0.5 * jnp.log(2.0 * np.pi * np.e * mb)
              - inv * (1.0 / 12 + inv * (1.0 / 24 + inv * 19.0 / 360)))
    sm = jnp.where(m > _SERIES_FROM, 1.0, m)
    summed = window_entropy(log_mass, sm, jnp.sqrt(sm), jnp.full_like(sm, jnp.inf))
    value = jnp.where(m > _SERIES_FROM, series, summed)
    value = jnp.where(mu == 0, 0.0, jnp.where(mu == jnp.inf, jnp.inf, value))
    return nan_unless(valid, value + 0.0 * loc)
