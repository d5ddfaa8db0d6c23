"""The Bernoulli distribution with success probability ``p``."""

from ... import numpy as jnp
from ..special import xlog1py, xlogy
from .._util import promote_inexact
from ._common import isf_ends, keep_nan, outside


def logpmf(k, p, loc=0):
    """Log of the Bernoulli probability mass (``-inf`` off ``{0, 1}``)."""
    k, p, loc = promote_inexact(k, p, loc)
    k = k_in = k - loc
    off = (k != 0) & (k != 1)
    k = jnp.where(off, 0.0, k)
    value = outside(off, xlogy(k, p) + xlog1py(1.0 - k, -p), -jnp.inf)
    return keep_nan(value, k_in)


def pmf(k, p, loc=0):
    """The Bernoulli probability mass."""
    return jnp.exp(logpmf(k, p, loc))


def _shifted(k, p, loc):
    k, p, loc = promote_inexact(k, p, loc)
    return k - loc, p


def cdf(k, p, loc=0):
    """The Bernoulli CDF."""
    k, p = _shifted(k, p, loc)
    return keep_nan(jnp.where(k < 0, 0.0, jnp.where(k < 1, 1.0 - p, 1.0)), k)


def sf(k, p, loc=0):
    """The survival function ``P(K > k)``."""
    k, p = _shifted(k, p, loc)
    return keep_nan(jnp.where(k < 0, 1.0, jnp.where(k < 1, p, 0.0)), k)


def logcdf(k, p, loc=0):
    """Log of the Bernoulli CDF (``log1p(-p)`` between 0 and 1)."""
    k, p = _shifted(k, p, loc)
    value = jnp.where(k < 0, -jnp.inf, jnp.where(k < 1, jnp.log1p(-p), 0.0))
    return keep_nan(value, k)


def logsf(k, p, loc=0):
    """Log of the survival function."""
    k, p = _shifted(k, p, loc)
    value = jnp.where(k < 0, 0.0, jnp.where(k < 1, jnp.log(p), -jnp.inf))
    return keep_nan(value, k)


def ppf(q, p, loc=0):
    """The quantile function (-1 at 0, as for SciPy's discrete distributions; NaN outside
    ``[0, 1]``)."""
    q, p, loc = promote_inexact(q, p, loc)
    value = jnp.where(q == 0, -1.0, jnp.where(q <= 1.0 - p, 0.0, 1.0)) + loc
    return keep_nan(outside((q < 0) | (q > 1), value, jnp.nan), q)


def isf(q, p, loc=0):
    """The inverse survival function: the smallest ``k`` with ``sf(k) <= q``, 0 where
    ``p <= q`` (1 at ``q = 0``, -1 at ``q = 1``; NaN outside ``[0, 1]`` or for ``p``
    outside ``[0, 1]``)."""
    q, p, loc = promote_inexact(q, p, loc)
    k = jnp.where(p <= q, 0.0, 1.0)
    return isf_ends(k, q, 1.0, (p >= 0) & (p <= 1)) + loc


def entropy(p, loc=0):
    """The entropy ``-p log p - (1 - p) log(1 - p)`` (nats; NaN outside ``[0, 1]``)."""
    p, loc = promote_inexact(p, loc)
    value = -xlogy(p, p) - xlog1py(1.0 - p, -p)
    return outside((p < 0) | (p > 1), value + 0.0 * loc, jnp.nan)
