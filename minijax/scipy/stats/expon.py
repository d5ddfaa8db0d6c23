"""The exponential distribution (rate ``1 / scale``, starting at ``loc``)."""

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import outside, standardize


def logpdf(x, loc=0, scale=1):
    """Log of the exponential density (``-inf`` below ``loc``)."""
    y, log_scale = standardize(x, loc, scale)
    return outside(y < 0, -y - log_scale, -jnp.inf)


def pdf(x, loc=0, scale=1):
    """The exponential density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The exponential CDF."""
    y = jnp.maximum(standardize(x, loc, scale)[0], 0.0)
    return -jnp.expm1(-y)


def logcdf(x, loc=0, scale=1):
    """Log of the exponential CDF."""
    y = jnp.maximum(standardize(x, loc, scale)[0], 0.0)
    # log(1 - e^-y): log1p once e^-y is small, log(-expm1) where 1 - e^-y is
    big = y > 0.6931471805599453
    return jnp.where(big, jnp.log1p(-jnp.exp(-jnp.where(big, y, 1.0))),
                     jnp.log(-jnp.expm1(-jnp.where(big, 1.0, y))))


def sf(x, loc=0, scale=1):
    """The survival function ``exp(-(x - loc) / scale)`` (1 below ``loc``)."""
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    return -jnp.maximum(standardize(x, loc, scale)[0], 0.0)


def ppf(q, loc=0, scale=1):
    """The quantile function (NaN outside ``[0, 1]``)."""
    q, loc, scale = promote_inexact(q, loc, scale)
    valid = (q >= 0) & (q <= 1)
    value = loc - scale * jnp.log1p(-jnp.where(valid, q, 0.5))
    return outside(valid, jnp.nan, value)


def isf(q, loc=0, scale=1):
    """The inverse survival function ``loc - scale log(q)`` (NaN outside ``[0, 1]``)."""
    q, loc, scale = promote_inexact(q, loc, scale)
    valid = (q >= 0) & (q <= 1)
    return outside(valid, jnp.nan, loc - scale * jnp.log(jnp.where(valid, q, 0.5)))


def entropy(loc=0, scale=1):
    """The differential entropy ``1 + log(scale)`` (nats)."""
    loc, scale = promote_inexact(loc, scale)
    return 1.0 + jnp.log(scale) + 0.0 * loc
