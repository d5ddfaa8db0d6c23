"""The normal distribution (``loc`` mean, ``scale`` standard deviation)."""

import math

from ..special import log_ndtr, ndtr, ndtri
from ._common import standardize
from .._util import promote_inexact
from ... import numpy as jnp

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def logpdf(x, loc=0, scale=1):
    """Log of the normal density."""
    z, log_scale = standardize(x, loc, scale)
    return -0.5 * z * z - _LOG_SQRT_2PI - log_scale


def pdf(x, loc=0, scale=1):
    """The normal density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The normal CDF."""
    return ndtr(standardize(x, loc, scale)[0])


def logcdf(x, loc=0, scale=1):
    """Log of the normal CDF, accurate in both tails."""
    return log_ndtr(standardize(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    """The survival function ``1 - cdf``."""
    return ndtr(-standardize(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    return log_ndtr(-standardize(x, loc, scale)[0])


def ppf(q, loc=0, scale=1):
    """The quantile function (inverse of ``cdf``)."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc + scale * ndtri(q)


def isf(q, loc=0, scale=1):
    """The inverse survival function."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc - scale * ndtri(q)


def entropy(loc=0, scale=1):
    """The differential entropy ``log(scale) + (1 + log 2π) / 2`` (nats)."""
    loc, scale = promote_inexact(loc, scale)
    return 0.5 * (1.0 + math.log(2 * math.pi)) + jnp.log(scale) + 0.0 * loc
