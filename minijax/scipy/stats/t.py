"""Student's t distribution with ``df`` degrees of freedom."""

import math

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import betainc, betaln, digamma, ndtri
from .._util import promote_inexact
from ._common import invert_log_tail, log_probability, outside, standardize


def logpdf(x, df, loc=0, scale=1):
    """Log of the t density."""
    z, log_scale, df = standardize(x, loc, scale, df)
    half = 0.5 * (df + 1.0)
    return (lax.lgamma(half) - lax.lgamma(0.5 * df) - 0.5 * jnp.log(df * math.pi) - log_scale
            - half * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
    """The t density."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _tails(z, df):
    """``(P(T <= -|z|), P(T <= |z|))``. Far out the first is
    ``I_{df / (df + z^2)}(df / 2, 1 / 2) / 2``; for ``z^2 < df`` both come from the central
    probability ``P(|T| <= |z|) = I_{z^2 / (df + z^2)}(1 / 2, df / 2)``, which near 0 keeps
    the digits ``1 - I`` would lose (a relative 1e-8 at ``df = 1e6``)."""
    half = jnp.full_like(df, 0.5)
    near = z * z < df
    # each branch sees a safe argument (0.5) where the other is taken
    z_far = jnp.where(near, 1.0, z)
    z_near = jnp.where(near & (z != 0), z, 1.0)
    far = 0.5 * betainc(0.5 * df, half, jnp.where(near, 0.5, df / (df + z_far * z_far)))
    central = 0.5 * betainc(half, 0.5 * df,
                            jnp.where(near & (z != 0), z_near * z_near / (df + z_near * z_near),
                                      0.5))
    # at z = 0 the central probability's derivative is 0 * inf: write it as -z * pdf(0)
    # there (z = 0 sits on the lower branch), which carries the derivative
    density_at_0 = jnp.exp(lax.lgamma(0.5 * (df + 1.0)) - lax.lgamma(0.5 * df)
                           - 0.5 * jnp.log(df * math.pi))
    central = jnp.where(z == 0, -z * density_at_0, central)
    return (jnp.where(near, 0.5 - central, far), jnp.where(near, 0.5 + central, 1.0 - far))


def cdf(x, df, loc=0, scale=1):
    """The t CDF (through the incomplete beta function)."""
    z, _, df = standardize(x, loc, scale, df)
    lower, upper = _tails(z, df)
    return jnp.where(z > 0, upper, lower)


def sf(x, df, loc=0, scale=1):
    """The survival function ``cdf(-x)``, accurate in the upper tail."""
    z, _, df = standardize(x, loc, scale, df)
    lower, upper = _tails(z, df)
    return jnp.where(z > 0, lower, upper)


def logcdf(x, df, loc=0, scale=1):
    """Log of the t CDF."""
    return log_probability(cdf(x, df, loc, scale), sf(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """Log of the survival function."""
    return log_probability(sf(x, df, loc, scale), cdf(x, df, loc, scale))


def _abs_log_w(z, df):
    """``log(w)`` for ``w = df / (df + z^2)``, without overflow in ``z^2``."""
    big = z > 1.0
    zs = jnp.where(big, z, 2.0)
    return jnp.where(big, jnp.log(df) - 2.0 * jnp.log(zs) - jnp.log1p(df / (zs * zs)),
                     -jnp.log1p(z * z / df))


def _abs_log_tail(z, upper, df):
    """log P(|T| <= z) = log I_{1-w}(1/2, df/2), or (``upper``) log P(|T| > z) =
    log I_w(df/2, 1/2), for ``z >= 0``; far out (w < e^-70) the latter is the leading
    term ``w^(df/2) / ((df/2) B(df/2, 1/2))`` of its series, exact to rounding there."""
    half_df = 0.5 * df
    half = jnp.full_like(half_df, 0.5)
    log_w = _abs_log_w(z, df)
    far = log_w < -70.0
    w = jnp.where(far, 0.5, jnp.exp(log_w))  # the series branch keeps betainc finite
    big = z > 1.0
    zs = jnp.where(big, z, 2.0)
    v = jnp.where(big, 1.0 / (1.0 + df / (zs * zs)), z * z / (df + z * z))
    v = jnp.where(far, 0.5, v)
    inner, outer = betainc(half, half_df, v), betainc(half_df, half, w)
    log_outer = jnp.where(far, half_df * log_w - jnp.log(half_df) - betaln(half_df, half),
                          log_probability(outer, inner))
    # far out, log P(|T| <= z) = log1p(-P(|T| > z)) ~ -P(|T| > z)
    log_inner = jnp.where(far, -jnp.exp(log_outer), log_probability(inner, outer))
    return jnp.where(upper, log_outer, log_inner)


def _abs_log_density(z, df):
    """Log density of |T| (twice the t density), written in ``log w``."""
    return (math.log(2.0) + lax.lgamma(0.5 * (df + 1.0)) - lax.lgamma(0.5 * df)
            - 0.5 * jnp.log(df * math.pi) + 0.5 * (df + 1.0) * _abs_log_w(z, df))


def standard_ppf(q, df):
    """The quantile of the standard t distribution (NaN for ``q`` outside ``[0, 1]`` or
    ``df <= 0``).

    ``|x|`` solves P(|T| <= z) = |2q - 1| in the body (``q`` in ``[1/4, 3/4]``, where that
    target is exact, so quantiles near 0 keep their digits) and P(|T| > z) = 2 min(q, 1 - q)
    in the tails.
    """
    valid = df > 0
    inside = (q > 0) & (q < 1) & (q != 0.5) & valid
    q_safe = jnp.where(inside, q, 0.25)
    df_safe = jnp.where(valid, df, 1.0)
    central = (q_safe >= 0.25) & (q_safe <= 0.75)
    tail = jnp.where(q_safe > 0.5, 1.0 - q_safe, q_safe)
    log_p = jnp.where(central, jnp.log(jnp.abs(2.0 * q_safe - 1.0)), jnp.log(2.0 * tail))
    # Starting point: the normal quantile in the body, the tail series inverted outside.
    df0, q0, log_p0 = (lax.stop_gradient(v) for v in (df_safe, q_safe, log_p))
    half_df = 0.5 * df0
    log_w = (log_p0 + jnp.log(half_df) + betaln(half_df, jnp.full_like(half_df, 0.5))) / half_df
    far = jnp.sqrt(df0) * jnp.exp(-0.5 * jnp.minimum(log_w, 0.0))
    z0 = jnp.clip(jnp.where(central, jnp.abs(ndtri(q0)), far), 1e-300, 1e300)
    z = invert_log_tail(_abs_log_tail, _abs_log_density, log_p, ~central, (df_safe,), z0,
                        np.inf)
    x = jnp.where(q_safe > 0.5, z, -z)
    x = jnp.where(q == 0.5, 0.0, jnp.where(q == 0, -jnp.inf, jnp.where(q == 1, jnp.inf, x)))
    return outside((q < 0) | (q > 1) | jnp.isnan(q) | ~valid, x, jnp.nan)


def ppf(q, df, loc=0, scale=1):
    """The quantile function (inverse of ``cdf``), differentiable in every argument."""
    q, df, loc, scale = promote_inexact(q, df, loc, scale)
    return loc + scale * standard_ppf(q, df)


def isf(q, df, loc=0, scale=1):
    """The inverse survival function (``-ppf(q)`` about ``loc``)."""
    q, df, loc, scale = promote_inexact(q, df, loc, scale)
    return loc - scale * standard_ppf(q, df)


def entropy(df, loc=0, scale=1):
    """The differential entropy ``(df + 1)/2 (ψ((df + 1)/2) - ψ(df/2)) +
    log(√df B(df/2, 1/2)) + log(scale)`` (nats)."""
    df, loc, scale = promote_inexact(df, loc, scale)
    large = df >= 100   # (the exact form cancels there: the series in 1/df)
    half = 0.5 * jnp.where(large, 100.0, df)
    exact = ((half + 0.5) * (digamma(half + 0.5) - digamma(half))
             + 0.5 * jnp.log(2.0 * half) + betaln(half, 0.5))
    u = 1.0 / jnp.where(large, df, 100.0)
    series = (0.5 * (1.0 + math.log(2 * math.pi))
              + u * (1 + u * (0.25 + u * (-1 / 6 + u * (-0.125 + u * (0.3 + u * 0.25))))))
    return jnp.where(large, series, exact) + jnp.log(scale) + 0.0 * loc
