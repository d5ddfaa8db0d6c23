"""The Laplace (double exponential) distribution."""

import math

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import outside, standardize

_LOG_HALF = -math.log(2.0)


def logpdf(x, loc=0, scale=1):
    """Log of the Laplace density."""
    y, log_scale = standardize(x, loc, scale)
    return -jnp.abs(y) - math.log(2.0) - log_scale


def pdf(x, loc=0, scale=1):
    """The Laplace density."""
    return jnp.exp(logpdf(x, loc, scale))


def _lower(y):
    """P(Y <= y) for the standard distribution."""
    half_tail = 0.5 * jnp.exp(-jnp.abs(y))
    return jnp.where(y < 0, half_tail, 1.0 - half_tail)


def _log_lower(y):
    """log P(Y <= y): exact ``y - log 2`` below 0, ``log1p(-e^-y / 2)`` above."""
    return jnp.where(y < 0, y + _LOG_HALF, jnp.log1p(-0.5 * jnp.exp(-jnp.abs(y))))


def cdf(x, loc=0, scale=1):
    """The Laplace CDF."""
    return _lower(standardize(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    """The survival function ``cdf(-x)`` (accurate in the upper tail)."""
    return _lower(-standardize(x, loc, scale)[0])


def logcdf(x, loc=0, scale=1):
    """Log of the Laplace CDF (finite far in the lower tail)."""
    return _log_lower(standardize(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    return _log_lower(-standardize(x, loc, scale)[0])


def _standard_ppf(q):
    """The standard quantile of ``q`` (NaN outside ``[0, 1]``)."""
    upper = q > 0.5
    # each branch gets an argument in its own domain so neither makes a NaN gradient
    value = jnp.where(upper, -jnp.log(2.0 - 2.0 * jnp.where(upper, q, 0.75)),
                      jnp.log(2.0 * jnp.where(upper, 0.25, q)))
    return outside((q < 0) | (q > 1), value, jnp.nan)


def ppf(q, loc=0, scale=1):
    """The quantile function (inverse of ``cdf``)."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc + scale * _standard_ppf(q)


def isf(q, loc=0, scale=1):
    """The inverse survival function."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc - scale * _standard_ppf(q)


def entropy(loc=0, scale=1):
    """The differential entropy ``1 + log(2 scale)`` (nats)."""
    loc, scale = promote_inexact(loc, scale)
    return 1.0 + jnp.log(2.0 * scale) + 0.0 * loc
