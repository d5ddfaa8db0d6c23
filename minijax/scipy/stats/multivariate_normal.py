"""The multivariate normal distribution (``x`` has the event on its last axis)."""

import math

from ... import numpy as jnp
from ...lax import linalg as lax_linalg
from .._util import promote_inexact, reject
from . import norm


def logpdf(x, mean, cov, allow_singular=None):
    """Log of the density; ``cov`` is a matrix, a vector (diagonal) or a scalar."""
    reject("multivariate_normal.logpdf", allow_singular=allow_singular)
    x, mean, cov = promote_inexact(x, mean, cov)
    if mean.ndim == 0:
        if cov.ndim != 0:
            raise ValueError("multivariate_normal: a scalar mean needs a scalar cov")
        return norm.logpdf(x, mean, jnp.sqrt(cov))
    n = mean.shape[-1]
    if cov.ndim == 0:
        cov = cov * jnp.eye(n, dtype=cov.dtype)
    elif cov.ndim == 1:
        cov = jnp.diag(cov)
    if cov.shape != (n, n) or mean.ndim != 1 or x.shape[-1:] != (n,):
        raise ValueError(f"multivariate_normal: shapes x {x.shape}, mean {mean.shape}, "
                         f"cov {cov.shape} do not describe {n}-dimensional events (batches of "
                         "means or covariances are not supported)")
    batch = x.shape[:-1]
    centered = (x - mean).reshape((-1, n)).T
    chol = lax_linalg.cholesky(cov)
    white = lax_linalg.triangular_solve(chol, centered, left_side=True, lower=True)
    maha = jnp.sum(white * white, axis=0).reshape(batch)
    log_det = jnp.sum(jnp.log(jnp.diagonal(chol)))
    return -0.5 * maha - log_det - 0.5 * n * math.log(2 * math.pi)


def pdf(x, mean, cov, allow_singular=None):
    """The density."""
    return jnp.exp(logpdf(x, mean, cov, allow_singular))
