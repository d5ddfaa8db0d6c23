"""k-means written with scalar loops over points and centroids (Lloyd's algorithm)."""

import numpy as onp


def inputs(tiny=False):
    rng = onp.random.RandomState(3)
    centres = onp.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])
    n = 5 if tiny else 40
    X = onp.concatenate([c + 0.6 * rng.randn(n, 2) for c in centres])
    X = X[rng.permutation(len(X))]
    return {"X": X, "k": 3, "iters": 2 if tiny else 5}


def run(np, X, k, iters):
    X = np.asarray(X)
    n = len(X)
    centroids = X[:k].copy()
    labels = np.zeros(n, dtype=int)
    for _ in range(iters):
        for i in range(n):
            best, best_dist = 0, np.inf
            for j in range(k):
                dist = np.sqrt(np.sum((X[i] - centroids[j]) ** 2))
                if dist < best_dist:
                    best, best_dist = j, dist
            labels[i] = best
        for j in range(k):
            members = X[labels == j]
            if len(members) > 0:
                centroids[j] = members.mean(axis=0)
    inertia = sum(np.sum((X[i] - centroids[labels[i]]) ** 2) for i in range(n))
    return centroids, labels, inertia
