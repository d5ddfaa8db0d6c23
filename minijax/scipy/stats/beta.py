"""The beta distribution on ``[loc, loc + scale]``."""

from ... import numpy as jnp
from ..special import betainc, betaln, xlog1py, xlogy
from ._common import keep_nan, log_probability, outside, standardize


def logpdf(x, a, b, loc=0, scale=1):
    """Log of the beta density (``-inf`` outside the support)."""
    y, log_scale, a, b = standardize(x, loc, scale, a, b)
    out_of_support = (y < 0) | (y > 1)
    y = jnp.where(out_of_support, 0.5, y)
    value = xlogy(a - 1.0, y) + xlog1py(b - 1.0, -y) - betaln(a, b) - log_scale
    return outside(out_of_support, value, -jnp.inf)


def pdf(x, a, b, loc=0, scale=1):
    """The beta density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def _clipped(x, a, b, loc, scale):
    y, _, a, b = standardize(x, loc, scale, a, b)
    return jnp.clip(y, 0.0, 1.0), a, b, y


def cdf(x, a, b, loc=0, scale=1):
    """The beta CDF, the regularized incomplete beta function I_y(a, b)."""
    y, a, b, raw = _clipped(x, a, b, loc, scale)
    return keep_nan(betainc(a, b, y), raw)


def sf(x, a, b, loc=0, scale=1):
    """The survival function I_{1-y}(b, a) (accurate where the CDF is near 1)."""
    y, a, b, raw = _clipped(x, a, b, loc, scale)
    return keep_nan(betainc(b, a, 1.0 - y), raw)


def logcdf(x, a, b, loc=0, scale=1):
    """Log of the beta CDF."""
    return log_probability(cdf(x, a, b, loc, scale), sf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log of the survival function."""
    return log_probability(sf(x, a, b, loc, scale), cdf(x, a, b, loc, scale))
