"""The chi-squared distribution with ``df`` degrees of freedom."""

import math

from ... import lax
from ... import numpy as jnp
from ..special import digamma, gammainc, gammaincc, gammaln, xlogy
from .._util import promote_inexact
from ._common import keep_nan, log_probability, outside, standardize
from .gamma import standard_ppf as gamma_standard_ppf


def logpdf(x, df, loc=0, scale=1):
    """Log of the chi-squared density (``-inf`` below ``loc``)."""
    y, log_scale, df = standardize(x, loc, scale, df)
    negative = y < 0
    y = jnp.where(negative, 1.0, y)
    half = 0.5 * df
    value = xlogy(half - 1.0, y) - 0.5 * y - lax.lgamma(half) - half * math.log(2.0) - log_scale
    return outside(negative, value, -jnp.inf)


def pdf(x, df, loc=0, scale=1):
    """The chi-squared density."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _half(x, df, loc, scale):
    y, _, df = standardize(x, loc, scale, df)
    return 0.5 * jnp.where(y < 0, 0.0, y), 0.5 * df, y


def cdf(x, df, loc=0, scale=1):
    """The chi-squared CDF, P(df / 2, y / 2)."""
    half_y, half_df, raw = _half(x, df, loc, scale)
    return keep_nan(gammainc(half_df, half_y), raw)


def sf(x, df, loc=0, scale=1):
    """The survival function Q(df / 2, y / 2), computed directly."""
    half_y, half_df, raw = _half(x, df, loc, scale)
    return keep_nan(gammaincc(half_df, half_y), raw)


def logcdf(x, df, loc=0, scale=1):
    """Log of the chi-squared CDF."""
    return log_probability(cdf(x, df, loc, scale), sf(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """Log of the survival function."""
    return log_probability(sf(x, df, loc, scale), cdf(x, df, loc, scale))


def ppf(q, df, loc=0, scale=1):
    """The quantile function: twice the gamma quantile of shape ``df / 2``."""
    q, df, loc, scale = promote_inexact(q, df, loc, scale)
    return loc + scale * 2.0 * gamma_standard_ppf(q, 0.5 * df)


def isf(q, df, loc=0, scale=1):
    """The inverse survival function ``ppf(1 - q)``."""
    q, df, loc, scale = promote_inexact(q, df, loc, scale)
    return loc + scale * 2.0 * gamma_standard_ppf(q, 0.5 * df, survival=True)


def entropy(df, loc=0, scale=1):
    """The differential entropy: the gamma distribution's with ``a = df / 2`` and twice
    the scale (nats)."""
    df, loc, scale = promote_inexact(df, loc, scale)
    large = df >= 250   # (the exact form cancels there: Stirling's series)
    half = 0.5 * jnp.where(large, 250.0, df)
    exact = half + gammaln(half) + (1.0 - half) * digamma(half)
    big = 0.5 * jnp.where(large, df, 250.0)
    h = 0.5 / big
    series = (0.5 * (1.0 + math.log(2 * math.pi) + jnp.log(big))
              + h * (-2 / 3 + h * (-1 / 3 + h * (-4 / 45 + h / 7.5))))
    return jnp.where(large, series, exact) + math.log(2.0) + jnp.log(scale) + 0.0 * loc
