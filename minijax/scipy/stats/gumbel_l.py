"""The left-skewed Gumbel distribution, the law of a minimum: ``gumbel_r`` mirrored about
``loc``."""

from ... import numpy as jnp
from .._util import promote_inexact
from . import gumbel_r


def _mirrored(x, loc):
    # (-x) - (-loc) is exactly loc - x: the mirror image keeps every digit
    x, loc = promote_inexact(x, loc)
    return -x, -loc


def logpdf(x, loc=0, scale=1):
    """Log of the density ``exp(z - exp(z)) / scale``, ``z = (x - loc) / scale``."""
    return gumbel_r.logpdf(*_mirrored(x, loc), scale)


def pdf(x, loc=0, scale=1):
    """The left Gumbel density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The CDF ``1 - exp(-exp(z))``."""
    return gumbel_r.sf(*_mirrored(x, loc), scale)


def logcdf(x, loc=0, scale=1):
    """Log of the CDF."""
    return gumbel_r.logsf(*_mirrored(x, loc), scale)


def sf(x, loc=0, scale=1):
    """The survival function ``exp(-exp(z))``."""
    return gumbel_r.cdf(*_mirrored(x, loc), scale)


def logsf(x, loc=0, scale=1):
    """Log of the survival function, ``-exp(z)``."""
    return gumbel_r.logcdf(*_mirrored(x, loc), scale)


def ppf(p, loc=0, scale=1):
    """The quantile function ``loc + scale log(-log1p(-p))``."""
    p, loc, scale = promote_inexact(p, loc, scale)
    return -gumbel_r.isf(p, -loc, scale)


def isf(q, loc=0, scale=1):
    """The inverse survival function ``loc + scale log(-log q)``."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return -gumbel_r.ppf(q, -loc, scale)


def entropy(loc=0, scale=1):
    """The differential entropy ``log(scale) + γ + 1`` (nats), as ``gumbel_r``'s."""
    return gumbel_r.entropy(loc, scale)
