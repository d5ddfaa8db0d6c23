"""The right-skewed Gumbel (type I extreme value) distribution, the law of a maximum."""

import numpy as np

from ... import numpy as jnp
from .._util import promote_inexact
from ._common import log1mexp, nan_unless, standardize


def logpdf(x, loc=0, scale=1):
    """Log of the density ``exp(-z - exp(-z)) / scale``, ``z = (x - loc) / scale``."""
    z, log_scale = standardize(x, loc, scale)
    # at z = -inf this is inf - inf = NaN, as SciPy gives
    return nan_unless(scale > 0, -z - jnp.exp(-z) - log_scale)


def pdf(x, loc=0, scale=1):
    """The Gumbel density."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log of the CDF, ``-exp(-z)``."""
    z, _ = standardize(x, loc, scale)
    return nan_unless(scale > 0, -jnp.exp(-z))


def cdf(x, loc=0, scale=1):
    """The CDF ``exp(-exp(-z))``."""
    return jnp.exp(logcdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """Log of the survival function ``log(1 - exp(-exp(-z)))``."""
    z, _ = standardize(x, loc, scale)
    return nan_unless(scale > 0, log1mexp(jnp.exp(-z)))


def sf(x, loc=0, scale=1):
    """The survival function ``1 - exp(-exp(-z))``, computed by ``expm1`` for large ``z``."""
    z, _ = standardize(x, loc, scale)
    return nan_unless(scale > 0, -jnp.expm1(-jnp.exp(-z)))


def ppf(p, loc=0, scale=1):
    """The quantile function ``loc - scale log(-log p)`` (NaN outside ``[0, 1]``)."""
    p, loc, scale = promote_inexact(p, loc, scale)
    valid = (p >= 0) & (p <= 1) & (scale > 0)
    return nan_unless(valid, loc - scale * jnp.log(-jnp.log(p)))


def isf(q, loc=0, scale=1):
    """The inverse survival function ``loc - scale log(-log1p(-q))``."""
    q, loc, scale = promote_inexact(q, loc, scale)
    valid = (q >= 0) & (q <= 1) & (scale > 0)
    return nan_unless(valid, loc - scale * jnp.log(-jnp.log1p(-q)))


def entropy(loc=0, scale=1):
    """The differential entropy ``log(scale) + γ + 1`` (nats)."""
    loc, scale = promote_inexact(loc, scale)
    return nan_unless(scale > 0, jnp.log(scale) + (np.euler_gamma + 1.0) + 0.0 * loc)
