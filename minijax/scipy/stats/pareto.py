"""The Pareto distribution with shape ``b`` (support ``x >= loc + scale``)."""

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import log1mexp, nan_unless, outside, standardize


def _log_z(x, b, loc, scale):
    """``(log z, b, log scale, below, valid)`` for ``z = (x - loc) / scale``: ``below`` where
    ``z < 1`` (``log z`` is then 0, a safe value), ``valid`` where ``b, scale > 0``."""
    z, log_scale, b = standardize(x, loc, scale, b)
    below = z < 1
    return jnp.log(jnp.where(below, 1.0, z)), b, log_scale, below, (b > 0) & (scale > 0)


def logpdf(x, b, loc=0, scale=1):
    """Log of the density ``b / z^(b + 1) / scale`` (``-inf`` below the support)."""
    log_z, b, log_scale, below, valid = _log_z(x, b, loc, scale)
    value = jnp.log(b) - (b + 1.0) * log_z - log_scale
    return nan_unless(valid, outside(below, value, -jnp.inf))


def pdf(x, b, loc=0, scale=1):
    """The Pareto density."""
    return jnp.exp(logpdf(x, b, loc, scale))


def logsf(x, b, loc=0, scale=1):
    """Log of the survival function, ``-b log z``."""
    log_z, b, _, below, valid = _log_z(x, b, loc, scale)
    return nan_unless(valid, outside(below, -b * log_z, 0.0))


def sf(x, b, loc=0, scale=1):
    """The survival function ``z^-b``."""
    return jnp.exp(logsf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """The CDF ``1 - z^-b``, by ``expm1`` so it keeps its digits near the support's start."""
    log_z, b, _, below, valid = _log_z(x, b, loc, scale)
    return nan_unless(valid, outside(below, -jnp.expm1(-b * log_z), 0.0))


def logcdf(x, b, loc=0, scale=1):
    """Log of the CDF."""
    log_z, b, _, below, valid = _log_z(x, b, loc, scale)
    return nan_unless(valid, outside(below, log1mexp(b * log_z), -jnp.inf))


def ppf(q, b, loc=0, scale=1):
    """The quantile function ``loc + scale (1 - q)^(-1/b)`` (NaN outside ``[0, 1]``)."""
    q, b, loc, scale = promote_inexact(q, b, loc, scale)
    valid = (q >= 0) & (q <= 1) & (b > 0) & (scale > 0)
    return nan_unless(valid, loc + scale * jnp.exp(-jnp.log1p(-q) / b))


def isf(q, b, loc=0, scale=1):
    """The inverse survival function ``loc + scale q^(-1/b)``."""
    q, b, loc, scale = promote_inexact(q, b, loc, scale)
    valid = (q >= 0) & (q <= 1) & (b > 0) & (scale > 0)
    return nan_unless(valid, loc + scale * jnp.exp(-jnp.log(q) / b))


def entropy(b, loc=0, scale=1):
    """The differential entropy ``1 + 1/b - log b + log scale`` (nats)."""
    b, loc, scale = promote_inexact(b, loc, scale)
    valid = (b > 0) & (scale > 0)
    return nan_unless(valid, 1.0 + 1.0 / b - jnp.log(b) + jnp.log(scale) + 0.0 * loc)
