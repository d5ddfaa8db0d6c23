"""QR by modified Gram-Schmidt with loops over columns, then least squares with it."""

import numpy as onp


def inputs(tiny=False):
    rng = onp.random.RandomState(9)
    m, n = (8, 4) if tiny else (80, 40)
    return {"A": rng.randn(m, n), "b": rng.randn(m), "rounds": 1 if tiny else 2}


def qr_mgs(np, A):
    m, n = A.shape
    Q = A.astype(float).copy()
    R = np.zeros((n, n))
    for j in range(n):
        for i in range(j):
            R[i, j] = Q[:, i] @ Q[:, j]
            Q[:, j] -= R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(Q[:, j])
        Q[:, j] /= R[j, j]
    return Q, R


def back_substitute(np, R, y):
    n = len(y)
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - R[i, i + 1:] @ x[i + 1:]) / R[i, i]
    return x


def run(np, A, b, rounds):
    A, b = np.asarray(A), np.asarray(b)
    for _ in range(rounds):
        Q, R = qr_mgs(np, A)
    x = back_substitute(np, R, Q.T @ b)
    orthogonality = np.abs(Q.T @ Q - np.eye(Q.shape[1])).max()
    return Q, R, x, orthogonality < 1e-10
