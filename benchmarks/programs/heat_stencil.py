"""2-d explicit heat equation and a Jacobi Laplace solve, written with slice views."""

import numpy as onp


def inputs(tiny=False):
    n = 12 if tiny else 48
    u0 = onp.zeros((n, n))
    u0[n // 4:n // 2, n // 4:n // 2] = 1.0
    return {"u0": u0, "heat_steps": 5 if tiny else 200, "jacobi_steps": 5 if tiny else 300}


def run(np, u0, heat_steps, jacobi_steps, alpha=0.2, tol=1e-6):
    u = np.array(u0)
    for _ in range(heat_steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
            u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
        u[0, :] = u[1, :]          # insulated top and bottom
        u[-1, :] = u[-2, :]
    # Laplace: hot left wall, cold elsewhere, Jacobi sweeps with a convergence check
    v = np.zeros_like(u)
    v[:, 0] = 1.0
    sweeps = 0
    for sweeps in range(1, jacobi_steps + 1):
        interior = v[1:-1, 1:-1]
        new = 0.25 * (v[2:, 1:-1] + v[:-2, 1:-1] + v[1:-1, 2:] + v[1:-1, :-2])
        change = np.abs(new - interior).max()
        interior[...] = new
        if sweeps % 25 == 0 and change < tol:
            break
    return u, u.sum(), v, sweeps
