"""The Cauchy distribution."""

import math

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import outside, standardize


def logpdf(x, loc=0, scale=1):
    """Log of the Cauchy density (``log1p(y**2)`` rewritten for large ``|y|``)."""
    y, log_scale = standardize(x, loc, scale)
    ay = jnp.abs(y)
    big = ay > 1
    safe = jnp.where(big, ay, 2.0)
    tail = -2.0 * jnp.log(safe) - jnp.log1p(1.0 / (safe * safe))
    body = -jnp.log1p(jnp.where(big, 0.0, y) ** 2)
    return jnp.where(big, tail, body) - math.log(math.pi) - log_scale


def pdf(x, loc=0, scale=1):
    """The Cauchy density."""
    return jnp.exp(logpdf(x, loc, scale))


def _cdf(y):
    # For y < -1, 0.5 + atan(y)/pi cancels; atan(-1/y)/pi is the same number, computed exactly.
    low = y < -1
    safe = jnp.where(low, y, -2.0)
    return jnp.where(low, jnp.arctan(-1.0 / safe) / math.pi, 0.5 + jnp.arctan(y) / math.pi)


def cdf(x, loc=0, scale=1):
    """The Cauchy CDF."""
    return _cdf(standardize(x, loc, scale)[0])


def _logcdf(y):
    # above the median the CDF is 1 - sf, whose log is log1p(-sf)
    high = y > 0
    return jnp.where(high, jnp.log1p(-_cdf(-jnp.where(high, y, 1.0))),
                     jnp.log(_cdf(jnp.where(high, -1.0, y))))


def logcdf(x, loc=0, scale=1):
    """Log of the Cauchy CDF."""
    return _logcdf(standardize(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    """The survival function."""
    return _cdf(-standardize(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    return _logcdf(-standardize(x, loc, scale)[0])


def _standard_ppf(q):
    # tan(pi (q - 1/2)) in the middle; -cot(pi q) and cot(pi (1 - q)) in the tails, where
    # q - 1/2 would round away the digits of a small q
    valid = (q >= 0) & (q <= 1)
    low, high = q < 0.25, q > 0.75
    mid = jnp.tan(math.pi * (jnp.where(low | high | ~valid, 0.5, q) - 0.5))
    lo = -1.0 / jnp.tan(math.pi * jnp.where(low & (q > 0), q, 0.1))
    hi = 1.0 / jnp.tan(math.pi * (1.0 - jnp.where(high & (q < 1), q, 0.9)))
    value = jnp.where(low, lo, jnp.where(high, hi, mid))
    value = jnp.where(q == 0, -jnp.inf, jnp.where(q == 1, jnp.inf, value))
    return outside(valid, jnp.nan, value)


def ppf(q, loc=0, scale=1):
    """The quantile function (NaN outside ``[0, 1]``)."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc + scale * _standard_ppf(q)


def isf(q, loc=0, scale=1):
    """The inverse survival function."""
    q, loc, scale = promote_inexact(q, loc, scale)
    return loc - scale * _standard_ppf(q)


def entropy(loc=0, scale=1):
    """The differential entropy ``log(4π scale)`` (nats)."""
    loc, scale = promote_inexact(loc, scale)
    return jnp.log(4.0 * math.pi * scale) + 0.0 * loc
