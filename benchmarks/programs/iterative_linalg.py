"""Conjugate gradient on an SPD system and power iteration for the top eigenpair."""

import numpy as onp


def inputs(tiny=False):
    rng = onp.random.RandomState(8)
    n = 8 if tiny else 80
    M = rng.randn(n, n)
    A = M @ M.T / n + onp.eye(n)
    rhs = rng.randn(2 if tiny else 12, n)
    return {"A": A, "rhs": rhs, "x0": rng.rand(n), "power_iters": 5 if tiny else 500}


def conjugate_gradient(np, A, b, tol):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    iters = 0
    for iters in range(1, len(b) + 1):
        Ap = A @ p
        step = rs_old / (p @ Ap)
        x = x + step * p
        r = r - step * Ap
        rs_new = r @ r
        if np.sqrt(rs_new) < tol:
            break
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
    return x, iters


def run(np, A, rhs, x0, power_iters, tol=1e-10):
    A = np.asarray(A)
    solutions, counts = [], []
    for b in np.asarray(rhs):
        x, iters = conjugate_gradient(np, A, b, tol)
        solutions.append(x)
        counts.append(iters)
    X = np.stack(solutions, axis=1)
    # power iteration with a Rayleigh quotient
    v = np.asarray(x0) / np.linalg.norm(x0)
    lam = 0.0
    for _ in range(power_iters):
        w = A.dot(v)
        v = w / np.linalg.norm(w)
        lam = v.dot(A.dot(v))
    residual = np.linalg.norm(A @ X - np.asarray(rhs).T)
    return X, counts, residual, lam, v * np.sign(v[0])
