"""The Dirichlet distribution with concentration ``alpha`` (components on axis 0 of ``x``)."""

from ... import lax
from ... import numpy as jnp
from ...core import get_aval
from ..special import digamma, gammaln, xlogy
from .._util import promote_inexact


def logpdf(x, alpha):
    """Log of the Dirichlet density; ``x`` may omit its last component (it is ``1 - sum``).

    ``-inf`` where ``x`` is not on the simplex.
    """
    x, alpha = promote_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"dirichlet: alpha must be one-dimensional, got shape {alpha.shape}")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise ValueError(f"dirichlet: x must have {k} or {k - 1} components on axis 0, got "
                         f"shape {x.shape}")
    if x.shape[0] == k - 1:
        x = jnp.concatenate([x, 1.0 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
    alpha = alpha.reshape((k,) + (1,) * (x.ndim - 1))
    on_simplex = jnp.all(x >= 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1.0) < 1e-6)
    x = jnp.where(on_simplex, x, 1.0 / k)
    log_norm = jnp.sum(lax.lgamma(alpha), axis=0) - lax.lgamma(jnp.sum(alpha, axis=0))
    value = jnp.sum(xlogy(alpha - 1.0, x), axis=0) - log_norm
    return jnp.where(on_simplex, value, -jnp.inf)


def pdf(x, alpha):
    """The Dirichlet density."""
    return jnp.exp(logpdf(x, alpha))


def entropy(alpha):
    """The differential entropy ``log B(alpha) + (α₀ - K) ψ(α₀) - Σ (αⱼ - 1) ψ(αⱼ)``,
    ``α₀ = Σ αⱼ`` (nats)."""
    alpha, = promote_inexact(alpha)
    if get_aval(alpha).ndim != 1:
        raise ValueError("dirichlet.entropy: alpha must be a 1-d vector of concentrations")
    total = jnp.sum(alpha)
    k = get_aval(alpha).shape[0]
    log_beta = jnp.sum(gammaln(alpha)) - gammaln(total)
    return log_beta + (total - k) * digamma(total) - jnp.sum((alpha - 1.0) * digamma(alpha))
