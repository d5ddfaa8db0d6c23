"""The von Mises distribution, the circle's analogue of the normal, with concentration
``kappa`` (its density is defined, and periodic, on the whole line, as SciPy's is)."""

import math

from ... import numpy as jnp
from ..special import i0e, i1e
from .._util import promote_inexact
from ._common import nan_unless, standardize

_LOG_2PI = math.log(2 * math.pi)


def logpdf(x, kappa, loc=0, scale=1):
    """Log of the density ``exp(kappa cos z) / (2π I0(kappa))``, written with the scaled
    ``i0e`` so large ``kappa`` does not overflow (NaN unless ``0 <= kappa < inf``)."""
    z, log_scale, kappa = standardize(x, loc, scale, kappa)
    valid = (kappa >= 0) & (kappa < jnp.inf) & (scale > 0)
    kappa = jnp.where(valid, kappa, 1.0)
    value = kappa * (jnp.cos(z) - 1.0) - _LOG_2PI - jnp.log(i0e(kappa)) - log_scale
    return nan_unless(valid, value)


def pdf(x, kappa, loc=0, scale=1):
    """The von Mises density."""
    return jnp.exp(logpdf(x, kappa, loc, scale))


def entropy(kappa, loc=0, scale=1):
    """The differential entropy ``log(2π I0(kappa)) - kappa I1(kappa) / I0(kappa)`` (nats)."""
    kappa, loc, scale = promote_inexact(kappa, loc, scale)
    valid = (kappa >= 0) & (kappa < jnp.inf) & (scale > 0)
    kappa = jnp.where(valid, kappa, 1.0)
    value = (_LOG_2PI + jnp.log(i0e(kappa)) + kappa * (1.0 - i1e(kappa) / i0e(kappa))
             + jnp.log(scale) + 0.0 * loc)
    return nan_unless(valid, value)
