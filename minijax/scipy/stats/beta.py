"""The beta distribution on ``[loc, loc + scale]``."""

from ... import numpy as jnp
from ..special import betaln, xlog1py, xlogy
from ._common import outside, standardize


def logpdf(x, a, b, loc=0, scale=1):
    """Log of the beta density (``-inf`` outside the support)."""
    y, log_scale, a, b = standardize(x, loc, scale, a, b)
    out_of_support = (y < 0) | (y > 1)
    y = jnp.where(out_of_support, 0.5, y)
    value = xlogy(a - 1.0, y) + xlog1py(b - 1.0, -y) - betaln(a, b) - log_scale
    return outside(out_of_support, value, -jnp.inf)


def pdf(x, a, b, loc=0, scale=1):
    """The beta density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))
