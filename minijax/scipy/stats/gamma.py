"""The gamma distribution with shape ``a``."""

from ... import lax
from ... import numpy as jnp
from ..special import xlogy
from ._common import outside, standardize


def logpdf(x, a, loc=0, scale=1):
    """Log of the gamma density (``-inf`` below ``loc``)."""
    y, log_scale, a = standardize(x, loc, scale, a)
    negative = y < 0
    y = jnp.where(negative, 1.0, y)
    value = xlogy(a - 1.0, y) - y - lax.lgamma(a) - log_scale
    return outside(negative, value, -jnp.inf)


def pdf(x, a, loc=0, scale=1):
    """The gamma density."""
    return jnp.exp(logpdf(x, a, loc, scale))
