"""The gamma distribution with shape ``a``."""

import math

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import digamma, gammainc, gammaincc, gammaln, ndtri, xlogy
from .._util import promote_inexact
from ._common import invert_log_tail, tail_target, keep_nan, log_probability, outside, standardize


def logpdf(x, a, loc=0, scale=1):
    """Log of the gamma density (``-inf`` below ``loc``)."""
    y, log_scale, a = standardize(x, loc, scale, a)
    negative = y < 0
    y = jnp.where(negative, 1.0, y)
    value = xlogy(a - 1.0, y) - y - lax.lgamma(a) - log_scale
    return outside(negative, value, -jnp.inf)


def pdf(x, a, loc=0, scale=1):
    """The gamma density."""
    return jnp.exp(logpdf(x, a, loc, scale))


def _support(x, a, loc, scale):
    y, _, a = standardize(x, loc, scale, a)
    return jnp.where(y < 0, 0.0, y), a, y


def cdf(x, a, loc=0, scale=1):
    """The gamma CDF, the regularized lower incomplete gamma function P(a, y)."""
    y, a, raw = _support(x, a, loc, scale)
    return keep_nan(gammainc(a, y), raw)


def sf(x, a, loc=0, scale=1):
    """The survival function Q(a, y), computed directly (accurate where the CDF is near 1)."""
    y, a, raw = _support(x, a, loc, scale)
    return keep_nan(gammaincc(a, y), raw)


def logcdf(x, a, loc=0, scale=1):
    """Log of the gamma CDF."""
    return log_probability(cdf(x, a, loc, scale), sf(x, a, loc, scale))


def logsf(x, a, loc=0, scale=1):
    """Log of the survival function."""
    return log_probability(sf(x, a, loc, scale), cdf(x, a, loc, scale))


def _log_tail(y, upper, a):
    lower_p, upper_p = gammainc(a, y), gammaincc(a, y)
    return jnp.where(upper, log_probability(upper_p, lower_p), log_probability(lower_p, upper_p))


def _log_density(y, a):
    return xlogy(a - 1.0, y) - y - lax.lgamma(a)


def standard_ppf(q, a, survival=False):
    """The quantile of the standard gamma distribution with shape ``a`` (0 at ``q = 0``,
    ``inf`` at 1, NaN for ``q`` outside ``[0, 1]`` or ``a <= 0``); with ``survival``,
    the inverse survival function, solved on the upper tail so small ``q`` keep digits."""
    inside = (q > 0) & (q < 1) & (a > 0)
    q_safe = jnp.where(inside, q, 0.5)
    a_safe = jnp.where(a > 0, a, 1.0)
    upper, log_p = tail_target(q_safe, survival)
    # Starting point: Wilson-Hilferty's cube of a normal, or the small-y series
    # P(a, y) ~ y^a / Gamma(a + 1) where that cube is not positive.
    a0, q0 = lax.stop_gradient(a_safe), lax.stop_gradient(q_safe)
    z0 = -ndtri(q0) if survival else ndtri(q0)
    cube = a0 * (1.0 - 1.0 / (9.0 * a0) + z0 / (3.0 * jnp.sqrt(a0))) ** 3
    log_lower = jnp.where(upper, float(np.log(0.5)), lax.stop_gradient(log_p))
    small = jnp.exp((log_lower + lax.lgamma(a0 + 1.0)) / a0)
    y0 = jnp.where(cube > 0, cube, small)
    y = invert_log_tail(_log_tail, _log_density, log_p, upper, (a_safe,), y0, np.inf)
    first, last = (1.0, 0.0) if survival else (0.0, 1.0)
    y = jnp.where(q == first, 0.0, jnp.where(q == last, jnp.inf, y))
    return outside((q < 0) | (q > 1) | jnp.isnan(q) | ~(a > 0), y, jnp.nan)


def ppf(q, a, loc=0, scale=1):
    """The quantile function (inverse of ``cdf``), differentiable in ``q``, ``a``, ``loc``
    and ``scale``."""
    q, a, loc, scale = promote_inexact(q, a, loc, scale)
    return loc + scale * standard_ppf(q, a)


def isf(q, a, loc=0, scale=1):
    """The inverse survival function ``ppf(1 - q)``."""
    q, a, loc, scale = promote_inexact(q, a, loc, scale)
    return loc + scale * standard_ppf(q, a, survival=True)


def entropy(a, loc=0, scale=1):
    """The differential entropy ``a + log Γ(a) + (1 - a) ψ(a) + log(scale)`` (nats)."""
    a, loc, scale = promote_inexact(a, loc, scale)
    large = a >= 250   # (the exact form cancels there: Stirling's series)
    small = jnp.where(large, 250.0, a)
    exact = small + gammaln(small) + (1.0 - small) * digamma(small)
    big = jnp.where(large, a, 250.0)
    u = 1.0 / big
    series = (0.5 * (1.0 + math.log(2 * math.pi) + jnp.log(big))
              + u * (-1 / 3 + u * (-1 / 12 + u * (-1 / 90 + u / 120))))
    return jnp.where(large, series, exact) + jnp.log(scale) + 0.0 * loc
