"""The binomial distribution of ``n`` trials with success probability ``p``."""

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import betainc, xlog1py, xlogy
from .._util import promote_inexact
from ._common import (deviance, discrete_isf, discrete_quantile, isf_ends, keep_nan,
                      log_probability, nan_unless, outside, stirling_error, window_entropy)


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


def _tails(k, n, p, loc):
    """``(P(K <= k), P(K > k))``, each from its own incomplete beta function:
    I_{1-p}(n - k, k + 1) and I_p(k + 1, n - k) for ``0 <= k < n``."""
    k, n, p, loc = promote_inexact(k, n, p, loc)
    k_in = k - loc
    k = jnp.floor(k_in)
    below, above = k < 0, k >= n
    k = jnp.where(below | above, 0.0, k)
    n = jnp.where(above, 1.0, n)  # the fixed values below need no betainc; keep its arguments valid
    lower = outside(below, outside(above, betainc(n - k, k + 1.0, 1.0 - p), 1.0), 0.0)
    upper = outside(below, outside(above, betainc(k + 1.0, n - k, p), 0.0), 1.0)
    return keep_nan(lower, k_in), keep_nan(upper, k_in)


def cdf(k, n, p, loc=0):
    """The binomial CDF P(K <= k)."""
    return _tails(k, n, p, loc)[0]


def sf(k, n, p, loc=0):
    """The survival function P(K > k), computed directly (accurate in the upper tail)."""
    return _tails(k, n, p, loc)[1]


def logcdf(k, n, p, loc=0):
    """Log of the binomial CDF."""
    lower, upper = _tails(k, n, p, loc)
    return log_probability(lower, upper)


def logsf(k, n, p, loc=0):
    """Log of the survival function."""
    lower, upper = _tails(k, n, p, loc)
    return log_probability(upper, lower)


def ppf(q, n, p, loc=0):
    """The quantile function: the smallest ``k`` with ``cdf(k) >= q`` (-1 at ``q = 0``,
    ``n`` at ``q = 1``, NaN outside ``[0, 1]``), found by bisection over ``{0, ..., n}``."""
    q, n, p, loc = promote_inexact(q, n, p, loc)
    q, n, p, loc = jnp.broadcast_arrays(q, n, p, loc)
    inside = (q > 0) & (q < 1)
    n_safe = jnp.where(jnp.isfinite(n) & (n >= 0), n, 0.0)
    k = discrete_quantile(lambda j: cdf(j, n_safe, p), jnp.where(inside, q, 0.5), n_safe)
    k = jnp.where(q == 0, -1.0, jnp.where(q == 1, n, k))
    return outside((q < 0) | (q > 1) | jnp.isnan(q) | jnp.isnan(p) | jnp.isnan(n),
                   k + loc, jnp.nan)


def isf(q, n, p, loc=0):
    """The inverse survival function: the smallest ``k`` with ``sf(k) <= q`` (``n`` at
    ``q = 0``, -1 at ``q = 1``; NaN outside ``[0, 1]``, or unless ``n`` is a non-negative
    integer and ``0 <= p <= 1``), by bisection over ``{0, ..., n}``."""
    q, n, p, loc = promote_inexact(q, n, p, loc)
    q, n, p, loc = jnp.broadcast_arrays(q, n, p, loc)
    valid = (n >= 0) & (n == jnp.floor(n)) & (p >= 0) & (p <= 1)
    inside = valid & (q > 0) & (q < 1)
    n_safe, p_safe = jnp.where(valid, n, 0.0), jnp.where(valid, p, 0.5)
    k = discrete_isf(lambda j: sf(j, n_safe, p_safe), jnp.where(inside, q, 0.5), n_safe)
    return isf_ends(k, q, n, valid) + loc


_SERIES_FROM = 1e7   # the variance past which the entropy's expansion is exact enough


def entropy(n, p, loc=0):
    """The entropy ``-sum p log p`` (nats; NaN unless ``n`` is a non-negative integer and
    ``0 <= p <= 1``): summed over the mass's window, each ``log p`` in Loader's form
    (``stirling_error`` and ``deviance``, which keep their digits for a large ``n``); past
    a variance ``s = n p (1 - p)`` of 1e7, ``log(2 pi e s) / 2 - (1 - 2p)^2 / (12 s)``."""
    n, p, loc = promote_inexact(n, p, loc)
    n, p, loc = jnp.broadcast_arrays(n, p, loc)
    valid = (n >= 0) & (n == jnp.floor(n)) & (p >= 0) & (p <= 1)
    degenerate = (n == 0) | (p == 0) | (p == 1)
    ok = valid & ~degenerate & jnp.isfinite(n)
    n, p = jnp.where(ok, n, 2.0), jnp.where(ok, p, 0.5)
    q = 1.0 - p
    var = n * p * q
    far = var > _SERIES_FROM

    def log_mass(k):
        nn, pp, qq = n[..., None], p[..., None], q[..., None]
        interior = (k > 0) & (k < nn)
        ks = jnp.where(interior, k, 0.5 * nn)
        value = (stirling_error(nn) - stirling_error(ks) - stirling_error(nn - ks)
                 - deviance(ks, nn * pp) - deviance(nn - ks, nn * qq)
                 + 0.5 * jnp.log(nn / (2.0 * np.pi * ks * (nn - ks))))
        return jnp.where(interior, value, jnp.where(k == 0, nn * jnp.log1p(-pp), nn * jnp.log(pp)))

    vb = jnp.where(far, var, 1.0)
    series = 0.5 * jnp.log(2.0 * np.pi * np.e * vb) - (1.0 - 2.0 * p) ** 2 / (12.0 * vb)
    sn = jnp.where(far, 2.0, n)
    sp = jnp.where(far, 0.5, p)
    summed = window_entropy(log_mass, sn * sp, jnp.sqrt(sn * sp * (1.0 - sp)), sn)
    value = jnp.where(far, series, summed)
    return nan_unless(valid, jnp.where(degenerate, 0.0, value) + 0.0 * loc)
