"""The generalized normal distribution with shape ``beta`` (``beta = 2``: a normal of
variance 1/2; ``beta = 1``: the Laplace distribution)."""

import math

from ... import lax
from ... import numpy as jnp
from ..special import gammaincc
from .._util import promote_inexact
from . import gamma
from ._common import keep_nan, log_probability, nan_unless, standardize


def logpdf(x, beta, loc=0, scale=1):
    """Log of the density ``beta / (2 Γ(1/beta)) exp(-|z|^beta)``."""
    z, log_scale, beta = standardize(x, loc, scale, beta)
    value = (jnp.log(beta) - math.log(2.0) - lax.lgamma(1.0 / beta) - jnp.abs(z) ** beta
             - log_scale)
    return nan_unless((beta > 0) & (scale > 0), value)


def pdf(x, beta, loc=0, scale=1):
    """The generalized normal density."""
    return jnp.exp(logpdf(x, beta, loc, scale))


def _tails(x, beta, loc, scale):
    """``(cdf, sf)``: the tail beyond ``|z|`` is ``Q(1/beta, |z|^beta) / 2``, computed
    directly; the other side is 1 minus it."""
    z, _, beta = standardize(x, loc, scale, beta)
    valid = (beta > 0) & (scale > 0)
    beta = jnp.where(valid, beta, 1.0)
    tail = 0.5 * gammaincc(1.0 / beta, jnp.abs(z) ** beta)
    lower = jnp.where(z < 0, tail, 1.0 - tail)
    upper = jnp.where(z < 0, 1.0 - tail, tail)
    return (nan_unless(valid, keep_nan(lower, z)), nan_unless(valid, keep_nan(upper, z)))


def cdf(x, beta, loc=0, scale=1):
    """The CDF, ``(1 + sign(z) P(1/beta, |z|^beta)) / 2``."""
    return _tails(x, beta, loc, scale)[0]


def sf(x, beta, loc=0, scale=1):
    """The survival function ``cdf(-z)``."""
    return _tails(x, beta, loc, scale)[1]


def logcdf(x, beta, loc=0, scale=1):
    """Log of the CDF."""
    lower, upper = _tails(x, beta, loc, scale)
    return log_probability(lower, upper)


def logsf(x, beta, loc=0, scale=1):
    """Log of the survival function."""
    lower, upper = _tails(x, beta, loc, scale)
    return log_probability(upper, lower)


def _standard_isf(q, beta):
    """The ``z`` with ``sf(z) = q``: from the tail probability ``2 min(q, 1 - q)`` through
    the gamma quantile of shape ``1/beta``, so small ``q`` keep their digits."""
    beta_safe = jnp.where(beta > 0, beta, 1.0)
    upper = q < 0.5
    tail = 2.0 * jnp.where(upper, q, 1.0 - q)
    y = gamma.standard_ppf(tail, 1.0 / beta_safe, survival=True)
    z = jnp.where(upper, 1.0, -1.0) * y ** (1.0 / beta_safe)
    return nan_unless((q >= 0) & (q <= 1) & (beta > 0), z)


def ppf(q, beta, loc=0, scale=1):
    """The quantile function (inverse of ``cdf``)."""
    q, beta, loc, scale = promote_inexact(q, beta, loc, scale)
    return nan_unless(scale > 0, loc - scale * _standard_isf(q, beta))


def isf(q, beta, loc=0, scale=1):
    """The inverse survival function ``ppf(1 - q)``."""
    q, beta, loc, scale = promote_inexact(q, beta, loc, scale)
    return nan_unless(scale > 0, loc + scale * _standard_isf(q, beta))


def entropy(beta, loc=0, scale=1):
    """The differential entropy ``1/beta - log(beta / (2 Γ(1/beta))) + log(scale)`` (nats)."""
    beta, loc, scale = promote_inexact(beta, loc, scale)
    value = (1.0 / beta - jnp.log(beta) + math.log(2.0) + lax.lgamma(1.0 / beta)
             + jnp.log(scale) + 0.0 * loc)
    return nan_unless((beta > 0) & (scale > 0), value)
