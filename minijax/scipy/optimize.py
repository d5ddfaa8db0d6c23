"""``minijax.scipy.optimize``: ``minimize`` with BFGS, jit-able (a ``while_loop``)."""

from typing import NamedTuple

import numpy as np

from .. import api, lax
from .. import numpy as jnp
from ..runtime.array import Array
from ._util import promote_inexact

__all__ = ["OptimizeResults", "minimize"]


class OptimizeResults(NamedTuple):
    """What ``minimize`` returns (JAX's field names).

    ``status``: 0 converged, 1 the iteration limit was reached, 3 the line search failed
    to decrease the objective.
    """
    x: Array
    success: Array
    status: Array
    fun: Array
    jac: Array
    hess_inv: Array
    nfev: Array
    njev: Array
    nit: Array


_OPTIONS = ("maxiter", "gtol", "norm", "line_search_maxiter")


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize ``fun(x, *args)`` over a 1-D ``x0`` with ``method='BFGS'``.

    ``options``: ``maxiter`` (default ``200 * x0.size``), ``gtol`` (the gradient norm at
    which to stop, default ``1e-5``, or ``tol`` when given), ``norm`` (``inf`` or 2, for
    ``gtol``), ``line_search_maxiter`` (halvings of the step, default 30).
    """
    if not isinstance(method, str) or method.lower() != "bfgs":
        raise NotImplementedError(f"minimize: method={method!r} is not supported (only 'BFGS')")
    options = dict(options or {})
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise TypeError(f"minimize: unknown options {sorted(unknown)}; known: {list(_OPTIONS)}")
    x0, = promote_inexact(x0)
    if x0.ndim != 1:
        raise ValueError(f"minimize: x0 must be one-dimensional, got shape {x0.shape}")
    n = x0.shape[0]
    maxiter = options.get("maxiter", 200 * n)
    gtol = options.get("gtol", 1e-5 if tol is None else tol)
    norm = options.get("norm", np.inf)
    if norm not in (np.inf, 2):
        raise NotImplementedError(f"minimize: norm={norm!r} is not supported (inf or 2)")
    ls_maxiter = options.get("line_search_maxiter", 30)

    def objective(x):
        return fun(x, *args)

    value_and_grad = api.value_and_grad(objective)

    def grad_norm(g):
        return jnp.max(jnp.abs(g)) if norm == np.inf else jnp.sqrt(jnp.sum(g * g))

    f0, g0 = value_and_grad(x0)
    eye = jnp.eye(n, dtype=x0.dtype)
    # state: iteration, x, f, g, inverse Hessian, evaluations, status (-1 while running)
    init = (0, x0, f0, g0, eye, 1, -1)

    def keep_going(state):
        k, _, _, g, _, _, status = state
        return (status < 0) & (k < maxiter) & (grad_norm(g) > gtol)

    def step(state):
        k, x, f, g, h, nfev, status = state
        p = -(h @ g)
        slope = jnp.dot(g, p)
        # a non-descent direction resets the curvature estimate to steepest descent
        h = jnp.where(slope < 0, h, eye)
        p = jnp.where(slope < 0, p, -g)
        slope = jnp.where(slope < 0, slope, -jnp.dot(g, g))

        def too_long(ls):
            i, alpha, f_new = ls
            armijo = f_new <= f + 1e-4 * alpha * slope
            return (i < ls_maxiter) & ~armijo

        def halve(ls):
            i, alpha, _ = ls
            alpha = 0.5 * alpha
            return i + 1, alpha, objective(x + alpha * p)

        i, alpha, _ = lax.while_loop(too_long, halve, (0, jnp.ones_like(f), objective(x + p)))
        failed = i >= ls_maxiter
        x_new = x + alpha * p
        f_new, g_new = value_and_grad(x_new)
        s, y = x_new - x, g_new - g
        sy = jnp.dot(s, y)
        rho = 1.0 / jnp.where(sy > 0, sy, 1.0)
        left = eye - rho * jnp.outer(s, y)
        h_new = left @ h @ left.T + rho * jnp.outer(s, s)
        h = jnp.where(sy > 0, h_new, h)
        keep = ~failed
        return (k + 1, jnp.where(keep, x_new, x), jnp.where(keep, f_new, f),
                jnp.where(keep, g_new, g), h, nfev + i + 2, jnp.where(failed, 3, status))

    k, x, f, g, h, nfev, status = lax.while_loop(keep_going, step, init)
    converged = grad_norm(g) <= gtol
    status = jnp.where(converged, 0, jnp.where(status == 3, 3, 1))
    return OptimizeResults(x=x, success=converged, status=status, fun=f, jac=g, hess_inv=h,
                           nfev=jnp.asarray(nfev), njev=jnp.asarray(k + 1), nit=jnp.asarray(k))
