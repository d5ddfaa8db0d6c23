"""Gaussian mixture (full covariances) fitted by EM, log-densities written out by hand."""

import numpy as onp


def inputs(tiny=False):
    rng = onp.random.RandomState(5)
    n = 10 if tiny else 100
    X = onp.concatenate([
        rng.multivariate_normal([0, 0], [[1.0, 0.3], [0.3, 0.5]], n),
        rng.multivariate_normal([3, 1], [[0.4, 0.0], [0.0, 0.4]], n),
        rng.multivariate_normal([1, 4], [[0.6, -0.2], [-0.2, 0.8]], n)])
    means = X[rng.choice(len(X), 3, replace=False)]
    return {"X": X, "means": means, "iters": 3 if tiny else 60}


def run(np, X, means, iters):
    X = np.asarray(X)
    N, D = X.shape
    K = len(means)
    mu = np.array(means)
    Sigma = np.array([np.cov(X.T) for _ in range(K)])
    weights = np.ones(K) / K
    log_likelihoods = []
    for _ in range(iters):
        # E step: log N(x | mu_k, Sigma_k) + log pi_k for every point and component
        log_p = np.zeros((N, K))
        for k in range(K):
            diff = X - mu[k]
            inv = np.linalg.inv(Sigma[k])
            sign, logdet = np.linalg.slogdet(Sigma[k])
            mahalanobis = np.sum((diff @ inv) * diff, axis=1)
            log_p[:, k] = np.log(weights[k]) - 0.5 * (D * np.log(2 * np.pi) + logdet + mahalanobis)
        m = log_p.max(axis=1, keepdims=True)
        log_norm = m + np.log(np.sum(np.exp(log_p - m), axis=1, keepdims=True))
        resp = np.exp(log_p - log_norm)
        log_likelihoods.append(log_norm.sum())
        # M step
        Nk = resp.sum(axis=0)
        weights = Nk / N
        mu = (resp.T @ X) / Nk[:, np.newaxis]
        for k in range(K):
            diff = X - mu[k]
            Sigma[k] = (resp[:, k, None] * diff).T @ diff / Nk[k] + 1e-6 * np.eye(D)
    return weights, mu, Sigma, np.array(log_likelihoods)
