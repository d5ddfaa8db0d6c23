"""The chi-squared distribution with ``df`` degrees of freedom."""

import math

from ... import lax
from ... import numpy as jnp
from ..special import xlogy
from ._common import outside, standardize


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
