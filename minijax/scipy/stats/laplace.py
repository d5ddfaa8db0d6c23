"""The Laplace (double exponential) distribution."""

import math

from ... import numpy as jnp
from ._common import standardize


def logpdf(x, loc=0, scale=1):
    """Log of the Laplace density."""
    y, log_scale = standardize(x, loc, scale)
    return -jnp.abs(y) - math.log(2.0) - log_scale


def pdf(x, loc=0, scale=1):
    """The Laplace density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The Laplace CDF."""
    y = standardize(x, loc, scale)[0]
    half_tail = 0.5 * jnp.exp(-jnp.abs(y))
    return jnp.where(y < 0, half_tail, 1.0 - half_tail)
