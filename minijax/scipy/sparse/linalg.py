"""Krylov solvers of ``A x = b`` with SciPy's and JAX's signatures: ``cg``, ``bicgstab``
and ``gmres``.

``A`` (and the preconditioner ``M``) is a 2-D array or a function applying a linear map
to a pytree like ``b``. Each solver runs in a ``while_loop`` and is differentiated
implicitly through ``lax.custom_linear_solve``: the derivative of the solution solves
another system, never the iterations. The result is ``(x, info)`` as in SciPy: ``info``
is 0 when the residual met the tolerance, the number of iterations when ``maxiter`` ran
out first, and negative on a breakdown of the method (JAX returns ``None``).
"""

import operator

from ... import lax
from ... import numpy as jnp
from ...flatten_util import ravel_pytree
from ...tree_util import tree_leaves, tree_map, tree_structure
from ..linalg import solve_triangular

__all__ = ["bicgstab", "cg", "gmres"]


# ---------------------------------------------------------------- pytree vector algebra

def _add(x, y):
    return tree_map(jnp.add, x, y)


def _sub(x, y):
    return tree_map(jnp.subtract, x, y)


def _scale(a, x):
    return tree_map(lambda v: a * v, x)


def _vdot(x, y):
    """``sum(conj(x) * y)`` over every leaf."""
    return sum(jnp.vdot(a, b) for a, b in zip(tree_leaves(x), tree_leaves(y)))


def _norm2(x):
    """The squared 2-norm of the pytree ``x``, real."""
    return sum(jnp.sum(jnp.real(a * jnp.conj(a))) for a in tree_leaves(x))


def _where(c, x, y):
    return tree_map(lambda a, b: jnp.where(c, a, b), x, y)


# ---------------------------------------------------------------- shared set-up

def _operator(A, name):
    if callable(A):
        return A
    if hasattr(A, "ndim") and A.ndim == 2:
        return lambda x: jnp.matmul(A, x, precision=lax.Precision.HIGHEST)
    raise ValueError(f"{name} must be a 2-D array or a function applying a linear map, got "
                     f"{type(A).__name__}")


def _tolerance(tol, rtol, name):
    if rtol is not None:
        if tol is not None:
            raise TypeError(f"{name}: pass rtol= (SciPy's name) or tol= (JAX's), not both")
        return rtol
    return 1e-5 if tol is None else tol


def _solve(method, A, b, x0, tol, atol, maxiter, M, name, symmetric, **options):
    """Run ``method`` (a solver of ``(A, b, x0, M, bound2, maxiter)``) through
    ``custom_linear_solve``; returns SciPy's ``(x, info)``."""
    b = tree_map(jnp.asarray, b)
    leaves = tree_leaves(b)
    if not leaves:
        raise ValueError(f"{name}: b has no arrays")
    dtype = jnp.result_type(*leaves)
    if not jnp.issubdtype(dtype, jnp.inexact):
        dtype = jnp.result_type(dtype, 1.0)
    b = tree_map(lambda v: v.astype(dtype), b)
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    else:
        x0 = tree_map(lambda v: jnp.asarray(v).astype(dtype), x0)
        if tree_structure(x0) != tree_structure(b):
            raise ValueError(f"{name}: x0 and b must have the same pytree structure, got "
                             f"{tree_structure(x0)} and {tree_structure(b)}")
        for u, v in zip(tree_leaves(x0), tree_leaves(b)):
            if u.shape != v.shape:
                raise ValueError(f"{name}: x0 and b must have arrays of the same shapes, got "
                                 f"{u.shape} and {v.shape}")
    if maxiter is None:
        maxiter = 10 * sum(v.size for v in leaves)
    if atol < 0 or tol < 0:
        raise ValueError(f"{name}: tol and atol must be non-negative, got {tol} and {atol}")
    A = _operator(A, "A")
    M = (lambda x: x) if M is None else _operator(M, "M")

    def solve(matvec, rhs):
        bound2 = jnp.maximum(tol ** 2 * _norm2(rhs), atol ** 2)
        return method(matvec, rhs, x0, M, bound2, maxiter, **options)
    # (a real positive-definite operator is symmetric: its transposed solve is cg again)
    symmetric = symmetric and not any(jnp.iscomplexobj(v) for v in leaves)
    return lax.custom_linear_solve(A, b, solve, transpose_solve=solve, symmetric=symmetric,
                                   has_aux=True)


def _info(converged, k):
    """SciPy's ``info``: 0 if converged, else the number of iterations (or a negative
    breakdown code ``k`` already set)."""
    return jnp.where(converged, 0, k)


# ---------------------------------------------------------------- conjugate gradients

def _cg(A, b, x0, M, bound2, maxiter):
    def cond(state):
        _, r, _, _, k = state
        return (_norm2(r) > bound2) & (k < maxiter)

    def body(state):
        x, r, gamma, p, k = state
        Ap = A(p)
        alpha = gamma / _vdot(p, Ap)
        x = _add(x, _scale(alpha, p))
        r = _sub(r, _scale(alpha, Ap))
        z = M(r)
        gamma_next = _vdot(r, z)
        p = _add(z, _scale(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1
    r0 = _sub(b, A(x0))
    z0 = M(r0)
    x, r, _, _, k = lax.while_loop(cond, body, (x0, r0, _vdot(r0, z0), z0, 0))
    return x, _info(_norm2(r) <= bound2, k)


def cg(A, b, x0=None, *, tol=None, rtol=None, atol=0.0, maxiter=None, M=None):
    """Conjugate gradients for a Hermitian positive-definite ``A``: ``(x, info)``.

    Stops when ``||b - A x|| <= max(tol * ||b||, atol)`` or after ``maxiter`` iterations
    (default ``10 * b.size``); ``M`` approximates ``A``'s inverse (a preconditioner)."""
    tol = _tolerance(tol, rtol, "cg")
    return _solve(_cg, A, b, x0, tol, atol, maxiter, M, "cg", symmetric=True)


# ---------------------------------------------------------------- BiCGSTAB

def _bicgstab(A, b, x0, M, bound2, maxiter):
    def cond(state):
        _, r, *_, k = state
        return (_norm2(r) > bound2) & (k < maxiter) & (k >= 0)

    def body(state):
        x, r, r_hat, rho, alpha, omega, p, v, k = state
        rho_next = _vdot(r_hat, r)
        beta = (rho_next / rho) * (alpha / omega)
        p = _add(r, _scale(beta, _sub(p, _scale(omega, v))))
        p_hat = M(p)
        v = A(p_hat)
        alpha = rho_next / _vdot(r_hat, v)
        s = _sub(r, _scale(alpha, v))
        half_done = _norm2(s) <= bound2   # (s is small enough: stop after half a step)
        s_hat = M(s)
        t = A(s_hat)
        tt = _vdot(t, t)
        omega = _vdot(t, s) / jnp.where(tt == 0, 1, tt)
        x_half = _add(x, _scale(alpha, p_hat))
        x = _where(half_done, x_half, _add(x_half, _scale(omega, s_hat)))
        r = _where(half_done, s, _sub(s, _scale(omega, t)))
        # SciPy's breakdown codes: -10 when rho vanishes, -11 when omega or alpha does
        k = jnp.where(half_done, k + 1,
                      jnp.where((omega == 0) | (alpha == 0), -11, k + 1))
        k = jnp.where(rho_next == 0, -10, k)
        return x, r, r_hat, rho_next, alpha, omega, p, v, k
    r0 = _sub(b, A(x0))
    one = jnp.ones((), jnp.result_type(*tree_leaves(b)))
    state = (x0, r0, r0, one, one, one, r0, r0, jnp.asarray(0))
    x, r, *_, k = lax.while_loop(cond, body, state)
    return x, jnp.where(k < 0, k, _info(_norm2(r) <= bound2, k))


def bicgstab(A, b, x0=None, *, tol=None, rtol=None, atol=0.0, maxiter=None, M=None):
    """BiCGSTAB for a general (non-symmetric) ``A``: ``(x, info)``, with ``cg``'s
    stopping rule and preconditioner."""
    tol = _tolerance(tol, rtol, "bicgstab")
    return _solve(_bicgstab, A, b, x0, tol, atol, maxiter, M, "bicgstab", symmetric=False)


# ---------------------------------------------------------------- GMRES

def _givens(a, b):
    """``(c, s)`` of the unitary rotation ``[[conj(c), conj(s)], [-s, c]]`` taking
    ``(a, b)`` to ``(r, 0)``."""
    r = jnp.sqrt(jnp.abs(a) ** 2 + jnp.abs(b) ** 2)
    safe = jnp.where(r == 0, 1, r)
    return jnp.where(r == 0, 1, a / safe), jnp.where(r == 0, 0, b / safe)


def _rotate(c, s, u, v):
    return jnp.conj(c) * u + jnp.conj(s) * v, -s * u + c * v


def _gmres(A, b, x0, M, bound2, maxiter, restart, solve_method):
    flat_b, unravel = ravel_pytree(b)
    n = flat_b.size
    m = min(restart, n)
    dtype = flat_b.dtype
    real = jnp.finfo(dtype).dtype
    tiny = jnp.finfo(dtype).eps * 10
    bound = jnp.sqrt(bound2)

    def op(v):   # A applied to the right-preconditioned direction M v
        return ravel_pytree(A(unravel(ravel_pytree(M(unravel(v)))[0])))[0]

    def residual(x):
        return flat_b - ravel_pytree(A(unravel(x)))[0]

    def arnoldi_step(V, k):
        """The next orthonormal direction (Gram-Schmidt twice) and its column of H."""
        w = op(V[k])
        h = jnp.conj(V) @ w
        w = w - h @ V
        h2 = jnp.conj(V) @ w
        w = w - h2 @ V
        h = h + h2
        norm = jnp.linalg.norm(w)
        breakdown = norm <= tiny * jnp.linalg.norm(h)
        V = V.at[k + 1].set(jnp.where(breakdown, 0, w / jnp.where(norm == 0, 1, norm)))
        return V, h.at[k + 1].set(norm.astype(dtype)), breakdown

    def cycle(x, r, beta):
        V = jnp.zeros((m + 1, n), dtype).at[0].set(r / jnp.where(beta == 0, 1, beta))
        g = jnp.zeros(m + 1, dtype).at[0].set(beta.astype(dtype))
        if solve_method == "batched":
            def body(state):
                V, H, _, k = state
                V, h, breakdown = arnoldi_step(V, k)
                return V, H.at[:, k].set(h), breakdown, k + 1
            V, H, _, _ = lax.while_loop(lambda s: (s[3] < m) & ~s[2], body,
                                        (V, jnp.zeros((m + 1, m), dtype), False, 0))
            y = jnp.linalg.lstsq(H, g)[0]
        else:
            # QR of the Hessenberg matrix updated column by column with Givens rotations:
            # |g[k + 1]| is the residual norm after k + 1 steps, so the cycle stops early
            def body(state):
                V, R, g, cs, sn, _, k = state
                V, h, breakdown = arnoldi_step(V, k)

                def previous(i, h):
                    hi, hj = _rotate(cs[i], sn[i], h[i], h[i + 1])
                    return h.at[i].set(hi).at[i + 1].set(hj)
                h = lax.fori_loop(0, k, previous, h)
                c, s = _givens(h[k], h[k + 1])
                h = h.at[k].set(jnp.conj(c) * h[k] + jnp.conj(s) * h[k + 1]).at[k + 1].set(0)
                gk, gk1 = _rotate(c, s, g[k], 0)
                g = g.at[k].set(gk).at[k + 1].set(gk1)
                return (V, R.at[:, k].set(h[:m]), g, cs.at[k].set(c), sn.at[k].set(s),
                        breakdown | (jnp.abs(gk1) <= bound), k + 1)
            state = (V, jnp.zeros((m, m), dtype), g, jnp.ones(m, dtype),
                     jnp.zeros(m, dtype), False, 0)
            V, R, g, _, _, _, k = lax.while_loop(lambda s: (s[6] < m) & ~s[5], body, state)
            # the unused trailing block is the identity, so y is zero there
            unused = jnp.arange(m) >= k
            R = jnp.where(unused[:, None] & unused[None, :], jnp.eye(m, dtype=dtype),
                          jnp.where(unused[None, :] | unused[:, None], 0, R))
            y = solve_triangular(R, jnp.where(unused, 0, g[:m]))
        x = x + ravel_pytree(M(unravel(y @ V[:m])))[0]
        r = residual(x)
        return x, r, jnp.linalg.norm(r).astype(real)

    def outer(state):
        x, r, beta, k = state
        return (*cycle(x, r, beta), k + 1)
    x = ravel_pytree(x0)[0]
    r = residual(x)
    x, r, beta, k = lax.while_loop(lambda s: (s[2] > bound) & (s[3] < maxiter), outer,
                                   (x, r, jnp.linalg.norm(r).astype(real), 0))
    return unravel(x), _info(beta <= bound, k)


def gmres(A, b, x0=None, *, tol=None, rtol=None, atol=0.0, restart=20, maxiter=None,
          M=None, solve_method="batched"):
    """Restarted GMRES for a general ``A``: ``(x, info)``.

    Each cycle builds an orthonormal Krylov basis of up to ``restart`` vectors (``M``
    preconditions from the right) and takes the least-squares best ``x`` in it;
    ``maxiter`` bounds the number of cycles (default ``10 * b.size``), ``info`` counts
    them when the tolerance was not met. ``solve_method='batched'`` builds the whole
    basis, then solves the small least-squares problem; ``'incremental'`` updates its QR
    factorization by Givens rotations after each vector and ends a cycle as soon as the
    residual meets the tolerance."""
    if solve_method not in ("batched", "incremental"):
        raise ValueError(f"gmres: solve_method must be 'batched' or 'incremental', got "
                         f"{solve_method!r}")
    restart = operator.index(restart)
    if restart < 1:
        raise ValueError(f"gmres: restart must be positive, got {restart}")
    tol = _tolerance(tol, rtol, "gmres")
    return _solve(_gmres, A, b, x0, tol, atol, maxiter, M, "gmres", symmetric=False,
                  restart=restart, solve_method=solve_method)
