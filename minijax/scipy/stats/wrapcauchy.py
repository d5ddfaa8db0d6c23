"""The wrapped Cauchy distribution on ``[0, 2π]`` with shape ``c`` (``0 < c < 1``)."""

import math

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import nan_unless, outside, standardize

_TWO_PI = 2 * math.pi


def logpdf(x, c, loc=0, scale=1):
    """Log of the density ``(1 - c²) / (2π (1 + c² - 2c cos z))`` (``-inf`` outside
    ``[0, 2π]``)."""
    z, log_scale, c = standardize(x, loc, scale, c)
    valid = (c > 0) & (c < 1) & (scale > 0)
    # 1 + c² - 2c cos z = (1 - c)² + 4c sin²(z/2): no cancellation near z = 0 as c -> 1
    denominator = (1.0 - c) ** 2 + 4.0 * c * jnp.sin(0.5 * z) ** 2
    value = jnp.log1p(-c * c) - math.log(_TWO_PI) - jnp.log(denominator) - log_scale
    return nan_unless(valid, outside((z < 0) | (z > _TWO_PI), value, -jnp.inf))


def pdf(x, c, loc=0, scale=1):
    """The wrapped Cauchy density."""
    return jnp.exp(logpdf(x, c, loc, scale))


def entropy(c, loc=0, scale=1):
    """The differential entropy ``log(2π (1 - c²))`` (nats)."""
    c, loc, scale = promote_inexact(c, loc, scale)
    valid = (c > 0) & (c < 1) & (scale > 0)
    return nan_unless(valid, math.log(_TWO_PI) + jnp.log1p(-c * c) + jnp.log(scale) + 0.0 * loc)
