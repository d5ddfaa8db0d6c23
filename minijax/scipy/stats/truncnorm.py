"""The normal distribution truncated to ``[a, b]`` (in standard units: the support is
``[loc + a scale, loc + b scale]``)."""

import math

from ... import numpy as jnp
from ._common import log_ndtr_diff, nan_unless, outside, standardize

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _standard(x, a, b, loc, scale):
    """``(z, a, b, log scale, log mass)``, the mass ``Φ(b) - Φ(a)`` as a log."""
    z, log_scale, a, b = standardize(x, loc, scale, a, b)
    valid = (a < b) & (scale > 0)
    a, b = jnp.where(valid, a, -1.0), jnp.where(valid, b, 1.0)
    return z, a, b, log_scale, log_ndtr_diff(a, b), valid


def logpdf(x, a, b, loc=0, scale=1):
    """Log of the density ``φ(z) / (Φ(b) - Φ(a)) / scale`` (``-inf`` outside ``[a, b]``)."""
    z, a, b, log_scale, log_mass, valid = _standard(x, a, b, loc, scale)
    value = -0.5 * z * z - _LOG_SQRT_2PI - log_mass - log_scale
    return nan_unless(valid, outside((z < a) | (z > b), value, -jnp.inf))


def pdf(x, a, b, loc=0, scale=1):
    """The truncated normal density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """Log of the CDF, ``log(Φ(z) - Φ(a)) - log(Φ(b) - Φ(a))``."""
    z, a, b, _, log_mass, valid = _standard(x, a, b, loc, scale)
    value = log_ndtr_diff(a, jnp.clip(z, a, b)) - log_mass
    return nan_unless(valid, jnp.where(jnp.isnan(z), jnp.nan, jnp.minimum(value, 0.0)))


def cdf(x, a, b, loc=0, scale=1):
    """The CDF."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log of the survival function, ``log(Φ(b) - Φ(z)) - log(Φ(b) - Φ(a))``."""
    z, a, b, _, log_mass, valid = _standard(x, a, b, loc, scale)
    value = log_ndtr_diff(jnp.clip(z, a, b), b) - log_mass
    return nan_unless(valid, jnp.where(jnp.isnan(z), jnp.nan, jnp.minimum(value, 0.0)))


def sf(x, a, b, loc=0, scale=1):
    """The survival function."""
    return jnp.exp(logsf(x, a, b, loc, scale))
