"""Helpers shared by the distribution modules."""

from ... import lax
from ... import numpy as jnp
from .._util import promote_inexact


def standardize(x, loc, scale, *params):
    """``(x - loc) / scale`` and ``log(scale)``, all arguments promoted to one float dtype."""
    x, loc, scale, *params = promote_inexact(x, loc, scale, *params)
    return ((x - loc) / scale, jnp.log(scale), *params)


def keep_nan(value, x):
    """``value``, but NaN where the argument ``x`` is NaN."""
    return jnp.where(jnp.isnan(x), jnp.nan, value)


def outside(mask, value, fill):
    """``fill`` where ``mask``, else ``value``."""
    return jnp.where(mask, fill, value)


def log_probability(p, q):
    """``log(p)`` for a probability ``p`` whose complement ``q = 1 - p`` is computed
    separately: ``log1p(-q)`` where ``p`` is near 1, so the log keeps its digits."""
    upper = p > 0.5
    return jnp.where(upper, jnp.log1p(-jnp.where(upper, q, 0.0)),
                     jnp.log(jnp.where(upper, 1.0, p)))


def discrete_quantile(cdf, q, upper):
    """The smallest integer ``k`` in ``[0, upper]`` with ``cdf(k) >= q``, for ``q`` in
    ``(0, 1]`` and a finite integer-valued ``upper`` with ``cdf(upper) >= q``.

    A bisection on the integers ``(lo, hi]`` with ``cdf(lo) < q <= cdf(hi)``, run until
    the bracket holds one integer; it is a step function of ``q``, so its derivative is 0.
    """
    q = lax.stop_gradient(q)
    upper = lax.stop_gradient(upper)

    def unresolved(bracket):
        lo, hi = bracket
        return jnp.any(hi - lo > 1)

    def halve(bracket):
        lo, hi = bracket
        mid = jnp.floor(0.5 * (lo + hi))
        reached = cdf(mid) >= q
        return jnp.where(reached, lo, mid), jnp.where(reached, mid, hi)

    lo, hi = lax.while_loop(unresolved, halve, (jnp.full_like(upper, -1.0), upper))
    return hi
