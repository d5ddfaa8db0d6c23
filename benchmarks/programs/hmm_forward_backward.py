"""HMM forward-backward with per-step normalisation (scaling factors c_t)."""

import numpy as onp


def inputs(tiny=False):
    rng = onp.random.RandomState(6)
    S, O = 4, 5
    A = rng.rand(S, S) + 2 * onp.eye(S)
    A /= A.sum(axis=1, keepdims=True)
    B = rng.rand(S, O)
    B /= B.sum(axis=1, keepdims=True)
    pi = onp.full(S, 1.0 / S)
    obs = rng.randint(0, O, size=8 if tiny else 500)
    return {"A": A, "B": B, "pi": pi, "obs": obs}


def run(np, A, B, pi, obs):
    A, B, pi, obs = np.asarray(A), np.asarray(B), np.asarray(pi), np.asarray(obs)
    T, S = len(obs), A.shape[0]
    alpha = np.zeros((T, S))
    beta = np.zeros((T, S))
    c = np.zeros(T)
    alpha[0] = pi * B[:, obs[0]]
    c[0] = alpha[0].sum()
    alpha[0] /= c[0]
    for t in range(1, T):
        alpha[t] = alpha[t - 1].dot(A) * B[:, obs[t]]
        c[t] = alpha[t].sum()
        alpha[t] /= c[t]
    beta[T - 1] = 1.0
    for t in range(T - 2, -1, -1):
        beta[t] = A.dot(B[:, obs[t + 1]] * beta[t + 1])
        beta[t] /= c[t + 1]
    gamma = alpha * beta
    gamma /= gamma.sum(axis=1, keepdims=True)
    xi_sum = np.zeros((S, S))
    for t in range(T - 1):
        xi = alpha[t][:, None] * A * (B[:, obs[t + 1]] * beta[t + 1])[None, :]
        xi_sum += xi / xi.sum()
    A_new = xi_sum / xi_sum.sum(axis=1, keepdims=True)
    return np.log(c).sum(), gamma, A_new
