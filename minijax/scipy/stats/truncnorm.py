"""The normal distribution truncated to ``[a, b]`` (in standard units: the support is
``[loc + a scale, loc + b scale]``)."""

import math

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import log_ndtr_diff, log_ndtr_each, log_ndtri, nan_unless, outside, standardize

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_LOG_HALF = math.log(0.5)


def _standard(x, a, b, loc, scale):
    """``(z, a, b, log scale, log mass)``, the mass ``Φ(b) - Φ(a)`` as a log."""
    z, log_scale, a, b = standardize(x, loc, scale, a, b)
    valid = (a < b) & (scale > 0)
    a, b = jnp.where(valid, a, -1.0), jnp.where(valid, b, 1.0)
    return z, a, b, log_scale, log_ndtr_diff(a, b), valid


def logpdf(x, a, b, loc=0, scale=1):
    """Log of the density ``φ(z) / (Φ(b) - Φ(a)) / scale`` (``-inf`` outside ``[a, b]``)."""
    z, a, b, log_scale, log_mass, valid = _standard(x, a, b, loc, scale)
    value = -0.5 * z * z - _LOG_SQRT_2PI - log_mass - log_scale
    return nan_unless(valid, outside((z < a) | (z > b), value, -jnp.inf))


def pdf(x, a, b, loc=0, scale=1):
    """The truncated normal density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """Log of the CDF, ``log(Φ(z) - Φ(a)) - log(Φ(b) - Φ(a))``."""
    z, a, b, _, log_mass, valid = _standard(x, a, b, loc, scale)
    value = log_ndtr_diff(a, jnp.clip(z, a, b)) - log_mass
    return nan_unless(valid, jnp.where(jnp.isnan(z), jnp.nan, jnp.minimum(value, 0.0)))


def cdf(x, a, b, loc=0, scale=1):
    """The CDF."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log of the survival function, ``log(Φ(b) - Φ(z)) - log(Φ(b) - Φ(a))``."""
    z, a, b, _, log_mass, valid = _standard(x, a, b, loc, scale)
    value = log_ndtr_diff(jnp.clip(z, a, b), b) - log_mass
    return nan_unless(valid, jnp.where(jnp.isnan(z), jnp.nan, jnp.minimum(value, 0.0)))


def sf(x, a, b, loc=0, scale=1):
    """The survival function."""
    return jnp.exp(logsf(x, a, b, loc, scale))


def _standard_ppf(q, a, b):
    """The standard-unit quantile from ``Φ(z) = Φ(a) + q (Φ(b) - Φ(a))`` where that is at
    most 1/2, else from ``Φ(-z) = Φ(-b) + (1 - q) (Φ(b) - Φ(a))``: each summed as logs, so
    neither cancels, and inverted by ``log_ndtri`` on its small side. (SciPy picks the
    first for ``a < 0``, and loses digits where ``Φ(z)`` is near 1.)"""
    log_mass = log_ndtr_diff(a, b)
    log_lo, log_hi = log_ndtr_each(a, -b)
    qs = jnp.where((q >= 0) & (q <= 1), q, 0.5)
    log_left = jnp.logaddexp(log_lo, jnp.log(qs) + log_mass)
    left = log_left <= _LOG_HALF
    log_p = jnp.where(left, log_left, jnp.logaddexp(log_hi, jnp.log1p(-qs) + log_mass))
    z = jnp.where(left, 1.0, -1.0) * log_ndtri(jnp.minimum(log_p, 0.0))
    z = jnp.where(q == 0, a, jnp.where(q == 1, b, jnp.clip(z, a, b)))
    return jnp.where((q >= 0) & (q <= 1), z, jnp.nan)


def _quantile(q, a, b, loc, scale, upper):
    q, a, b, loc, scale = promote_inexact(q, a, b, loc, scale)
    valid = (a < b) & (scale > 0)
    a, b = jnp.where(valid, a, -1.0), jnp.where(valid, b, 1.0)
    # the upper tail's quantile is the lower one's of the reflection -X on [-b, -a]
    z = -_standard_ppf(q, -b, -a) if upper else _standard_ppf(q, a, b)
    return nan_unless(valid, z * scale + loc)


def ppf(q, a, b, loc=0, scale=1):
    """The quantile function (``loc + a scale`` at 0, ``loc + b scale`` at 1, NaN outside
    ``[0, 1]``)."""
    return _quantile(q, a, b, loc, scale, False)


def isf(q, a, b, loc=0, scale=1):
    """The inverse survival function: the quantile of ``-X``, on ``[-b, -a]``, negated."""
    return _quantile(q, a, b, loc, scale, True)


def entropy(a, b, loc=0, scale=1):
    """The differential entropy ``log(sqrt(2 pi e) Z scale) + (a φ(a) - b φ(b)) / (2 Z)``
    with ``Z = Φ(b) - Φ(a)``, its ratios taken as differences of logs (finite far out in
    a tail, where SciPy's ``Z`` underflows)."""
    a, b, loc, scale = promote_inexact(a, b, loc, scale)
    valid = (a < b) & (scale > 0)
    a, b = jnp.where(valid, a, -1.0), jnp.where(valid, b, 1.0)
    log_mass = log_ndtr_diff(a, b)

    def edge(t):   # t φ(t) / Z, 0 at an infinite end
        finite = jnp.isfinite(t)
        ts = jnp.where(finite, t, 0.0)
        return jnp.where(finite, ts * jnp.exp(-0.5 * ts * ts - _LOG_SQRT_2PI - log_mass), 0.0)

    value = 0.5 + _LOG_SQRT_2PI + log_mass + 0.5 * (edge(a) - edge(b)) + jnp.log(scale)
    return nan_unless(valid, value + 0.0 * loc)
