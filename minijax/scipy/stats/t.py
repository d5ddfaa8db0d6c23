"""Student's t distribution with ``df`` degrees of freedom."""

import math

from ... import lax
from ... import numpy as jnp
from ..special import betainc
from ._common import log_probability, standardize


def logpdf(x, df, loc=0, scale=1):
    """Log of the t density."""
    z, log_scale, df = standardize(x, loc, scale, df)
    half = 0.5 * (df + 1.0)
    return (lax.lgamma(half) - lax.lgamma(0.5 * df) - 0.5 * jnp.log(df * math.pi) - log_scale
            - half * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
    """The t density."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _lower_tail(z, df):
    """P(T <= -|z|) = I_{df / (df + z^2)}(df / 2, 1 / 2) / 2."""
    return 0.5 * betainc(0.5 * df, jnp.full_like(df, 0.5), df / (df + z * z))


def cdf(x, df, loc=0, scale=1):
    """The t CDF (through the incomplete beta function)."""
    z, _, df = standardize(x, loc, scale, df)
    tail = _lower_tail(z, df)
    return jnp.where(z > 0, 1.0 - tail, tail)


def sf(x, df, loc=0, scale=1):
    """The survival function ``cdf(-x)``, accurate in the upper tail."""
    z, _, df = standardize(x, loc, scale, df)
    tail = _lower_tail(z, df)
    return jnp.where(z > 0, tail, 1.0 - tail)


def logcdf(x, df, loc=0, scale=1):
    """Log of the t CDF."""
    return log_probability(cdf(x, df, loc, scale), sf(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """Log of the survival function."""
    return log_probability(sf(x, df, loc, scale), cdf(x, df, loc, scale))
