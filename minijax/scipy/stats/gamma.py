"""The gamma distribution with shape ``a``."""

from ... import lax
from ... import numpy as jnp
from ..special import gammainc, gammaincc, xlogy
from ._common import keep_nan, log_probability, outside, standardize


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
