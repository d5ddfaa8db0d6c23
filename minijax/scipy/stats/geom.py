"""The geometric distribution: the number of trials up to the first success (support
``k >= 1``), success probability ``p``."""

from ... import lax
from ... import numpy as jnp
from ..special import xlog1py
from .._util import promote_inexact
from ._common import keep_nan, log1mexp, nan_unless, outside


def logpmf(k, p, loc=0):
    """Log of the mass ``(1 - p)^(k - 1) p`` (``-inf`` off the integers from 1)."""
    k, p, loc = promote_inexact(k, p, loc)
    k = k_in = k - loc
    off = (k < 1) | (k != jnp.floor(k))
    k = jnp.where(off, 1.0, k)
    value = outside(off, xlog1py(k - 1.0, -p) + jnp.log(p), -jnp.inf)
    return nan_unless((p > 0) & (p <= 1), keep_nan(value, k_in))


def pmf(k, p, loc=0):
    """The geometric probability mass."""
    return jnp.exp(logpmf(k, p, loc))


def logsf(k, p, loc=0):
    """Log of P(K > k), ``floor(k) log(1 - p)`` (0 below 1)."""
    k, p, loc = promote_inexact(k, p, loc)
    k_in = k - loc
    k = jnp.floor(k_in)
    below = k < 1
    value = outside(below, jnp.where(below, 1.0, k) * jnp.log1p(-p), 0.0)
    return nan_unless((p > 0) & (p <= 1), keep_nan(value, k_in))


def sf(k, p, loc=0):
    """The survival function P(K > k) = ``(1 - p)^floor(k)``."""
    return jnp.exp(logsf(k, p, loc))


def cdf(k, p, loc=0):
    """The CDF ``1 - (1 - p)^floor(k)``, by ``expm1`` (accurate for small ``p``)."""
    return -jnp.expm1(logsf(k, p, loc))


def logcdf(k, p, loc=0):
    """Log of the CDF."""
    return log1mexp(-logsf(k, p, loc))


def ppf(q, p, loc=0):
    """The quantile function: the smallest ``k`` with ``cdf(k) >= q`` (0 at ``q = 0``,
    ``inf`` at 1, NaN outside ``[0, 1]``)."""
    q, p, loc = promote_inexact(q, p, loc)
    q, p = lax.stop_gradient(q), lax.stop_gradient(p)
    valid = (q >= 0) & (q <= 1) & (p > 0) & (p <= 1)
    k = jnp.maximum(jnp.ceil(jnp.log1p(-q) / jnp.log1p(-p)), 1.0)
    # the logs' rounding can put the ratio just past an integer: step back where k - 1 reaches q
    back = (k > 1) & (-jnp.expm1((k - 1.0) * jnp.log1p(-p)) >= q)
    k = jnp.where(back, k - 1.0, k)
    k = jnp.where(q == 0, 0.0, jnp.where(q == 1, jnp.inf, k))
    return nan_unless(valid, k + loc)


def isf(q, p, loc=0):
    """The inverse survival function: the smallest ``k`` with ``(1 - p)^k <= q``, from
    ``log q / log(1 - p)`` (``inf`` at ``q = 0``, 0 at ``q = 1``, NaN outside ``[0, 1]``)."""
    q, p, loc = promote_inexact(q, p, loc)
    q, p = lax.stop_gradient(q), lax.stop_gradient(p)
    valid = (q >= 0) & (q <= 1) & (p > 0) & (p <= 1)
    k = jnp.maximum(jnp.ceil(jnp.log(q) / jnp.log1p(-p)), 1.0)
    # the logs' rounding can put the ratio just past an integer: step back where k - 1 reaches q
    back = (k > 1) & ((k - 1.0) * jnp.log1p(-p) <= jnp.log(q))
    k = jnp.where(back, k - 1.0, k)
    k = jnp.where(q == 0, jnp.inf, jnp.where(q == 1, 0.0, k))
    return nan_unless(valid, k + loc)


def entropy(p, loc=0):
    """The entropy ``(-(1 - p) log(1 - p) - p log p) / p`` (nats)."""
    p, loc = promote_inexact(p, loc)
    # (at p = 1 this is 0 log 0 = NaN, as SciPy gives)
    value = -((1.0 - p) * jnp.log1p(-p) + jnp.log(p) * p) / p
    return nan_unless((p > 0) & (p <= 1), value + 0.0 * loc)
