"""The beta distribution on ``[loc, loc + scale]``."""

from ... import lax
from ... import numpy as jnp
from ..special import betainc, betaln, digamma, xlog1py, xlogy
from .._util import promote_inexact
from ._common import invert_log_tail, tail_target, keep_nan, log_probability, outside, standardize


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


def _clipped(x, a, b, loc, scale):
    y, _, a, b = standardize(x, loc, scale, a, b)
    return jnp.clip(y, 0.0, 1.0), a, b, y


def cdf(x, a, b, loc=0, scale=1):
    """The beta CDF, the regularized incomplete beta function I_y(a, b)."""
    y, a, b, raw = _clipped(x, a, b, loc, scale)
    return keep_nan(betainc(a, b, y), raw)


def sf(x, a, b, loc=0, scale=1):
    """The survival function I_{1-y}(b, a) (accurate where the CDF is near 1)."""
    y, a, b, raw = _clipped(x, a, b, loc, scale)
    return keep_nan(betainc(b, a, 1.0 - y), raw)


def logcdf(x, a, b, loc=0, scale=1):
    """Log of the beta CDF."""
    return log_probability(cdf(x, a, b, loc, scale), sf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log of the survival function."""
    return log_probability(sf(x, a, b, loc, scale), cdf(x, a, b, loc, scale))


def _log_tail(y, upper, a, b):
    lower_p, upper_p = betainc(a, b, y), betainc(b, a, 1.0 - y)
    return jnp.where(upper, log_probability(upper_p, lower_p), log_probability(lower_p, upper_p))


def _log_density(y, a, b):
    return xlogy(a - 1.0, y) + xlog1py(b - 1.0, -y) - betaln(a, b)


def standard_ppf(q, a, b, survival=False):
    """The quantile of the beta distribution on ``[0, 1]`` (NaN for ``q`` outside
    ``[0, 1]`` or a shape parameter ``<= 0``); with ``survival``, the inverse survival
    function, solved on the upper tail so small ``q`` keep digits."""
    valid = (a > 0) & (b > 0)
    inside = (q > 0) & (q < 1) & valid
    q_safe = jnp.where(inside, q, 0.5)
    a_safe, b_safe = jnp.where(valid, a, 1.0), jnp.where(valid, b, 1.0)
    upper, log_p = tail_target(q_safe, survival)
    # Starting point: the tail series I_y(a, b) ~ y^a / (a B(a, b)), from whichever end
    # the quantile is on.
    a0, b0, log_p0 = (lax.stop_gradient(v) for v in (a_safe, b_safe, log_p))
    near = jnp.where(upper, b0, a0)
    end = jnp.exp((log_p0 + jnp.log(near) + betaln(a0, b0)) / near)
    y0 = jnp.clip(jnp.where(upper, 1.0 - end, end), 1e-300, 1.0)
    y = invert_log_tail(_log_tail, _log_density, log_p, upper, (a_safe, b_safe), y0, 1.0)
    first, last = (1.0, 0.0) if survival else (0.0, 1.0)
    y = jnp.where(q == first, 0.0, jnp.where(q == last, 1.0, y))
    return outside((q < 0) | (q > 1) | jnp.isnan(q) | ~valid, y, jnp.nan)


def ppf(q, a, b, loc=0, scale=1):
    """The quantile function (inverse of ``cdf``), differentiable in every argument."""
    q, a, b, loc, scale = promote_inexact(q, a, b, loc, scale)
    return loc + scale * standard_ppf(q, a, b)


def isf(q, a, b, loc=0, scale=1):
    """The inverse survival function ``ppf(1 - q)``."""
    q, a, b, loc, scale = promote_inexact(q, a, b, loc, scale)
    return loc + scale * standard_ppf(q, a, b, survival=True)


def entropy(a, b, loc=0, scale=1):
    """The differential entropy ``log B(a, b) - (a - 1) ψ(a) - (b - 1) ψ(b) +
    (a + b - 2) ψ(a + b) + log(scale)`` (nats)."""
    a, b, loc, scale = promote_inexact(a, b, loc, scale)
    return (betaln(a, b) - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b)
            + (a + b - 2.0) * digamma(a + b) + jnp.log(scale) + 0.0 * loc)
