"""The logistic distribution."""

from ... import numpy as jnp
from ..special import expit, logit
from .._util import promote_inexact
from ._common import standardize


def logpdf(x, loc=0, scale=1):
    """Log of the logistic density (written in ``|x|`` so neither tail overflows)."""
    y, log_scale = standardize(x, loc, scale)
    ay = jnp.abs(y)
    return -ay - 2.0 * jnp.log1p(jnp.exp(-ay)) - log_scale


def pdf(x, loc=0, scale=1):
    """The logistic density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The logistic CDF."""
    return expit(standardize(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    """The survival function."""
    return expit(-standardize(x, loc, scale)[0])


def _log_expit(y):
    """``log(expit(y))`` = ``-log1p(exp(-y))``, written so neither tail overflows."""
    return -(jnp.maximum(-y, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(y))))


def logcdf(x, loc=0, scale=1):
    """Log of the logistic CDF."""
    return _log_expit(standardize(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    return _log_expit(-standardize(x, loc, scale)[0])


def ppf(q, loc=0, scale=1):
    """The quantile function."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc + scale * logit(q)


def isf(q, loc=0, scale=1):
    """The inverse survival function."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc - scale * logit(q)


def entropy(loc=0, scale=1):
    """The differential entropy ``2 + log(scale)`` (nats)."""
    loc, scale = promote_inexact(loc, scale)
    return 2.0 + jnp.log(scale) + 0.0 * loc
