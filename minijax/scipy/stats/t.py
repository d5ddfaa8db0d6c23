"""Student's t distribution with ``df`` degrees of freedom."""

import math

from ... import lax
from ... import numpy as jnp
from ._common import standardize


def logpdf(x, df, loc=0, scale=1):
    """Log of the t density."""
    z, log_scale, df = standardize(x, loc, scale, df)
    half = 0.5 * (df + 1.0)
    return (lax.lgamma(half) - lax.lgamma(0.5 * df) - 0.5 * jnp.log(df * math.pi) - log_scale
            - half * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
    """The t density."""
    return jnp.exp(logpdf(x, df, loc, scale))
