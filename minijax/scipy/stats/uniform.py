"""The uniform distribution on ``[loc, loc + scale]``."""

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import outside


def logpdf(x, loc=0, scale=1):
    """Log of the uniform density (``-inf`` outside ``[loc, loc + scale]``)."""
    x, loc, scale = promote_inexact(x, loc, scale)
    out_of_support = (x < loc) | (x > loc + scale)
    return outside(out_of_support, -jnp.log(scale) + 0.0 * x, -jnp.inf)


def pdf(x, loc=0, scale=1):
    """The uniform density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The uniform CDF."""
    x, loc, scale = promote_inexact(x, loc, scale)
    return jnp.clip((x - loc) / scale, 0.0, 1.0)


def sf(x, loc=0, scale=1):
    """The survival function ``1 - cdf``."""
    x, loc, scale = promote_inexact(x, loc, scale)
    return jnp.clip((loc + scale - x) / scale, 0.0, 1.0)


def logcdf(x, loc=0, scale=1):
    """Log of the uniform CDF."""
    return jnp.log(cdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """The quantile function (NaN outside ``[0, 1]``)."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return outside((q < 0) | (q > 1), loc + q * scale, jnp.nan)


def isf(q, loc=0, scale=1):
    """The inverse survival function (NaN outside ``[0, 1]``)."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return outside((q < 0) | (q > 1), loc + (1.0 - q) * scale, jnp.nan)


def entropy(loc=0, scale=1):
    """The differential entropy ``log(scale)`` (nats)."""
    loc, scale = promote_inexact(loc, scale)
    return jnp.log(scale) + 0.0 * loc
