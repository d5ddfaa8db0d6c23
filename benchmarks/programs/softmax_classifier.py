"""Linear softmax classifier on a 3-class spiral, full-batch gradient descent.

The style of a first deep-learning exercise: ``probs[range(N), y]`` picks each row's
true-class probability, and the gradient is made in place with
``dscores[range(N), y] -= 1``.
"""

import numpy as onp


def spiral(n_per_class, n_classes, seed=0):
    """Host arrays X (N, 2) and y (N,) of interleaved noisy spiral arms."""
    rng = onp.random.RandomState(seed)
    X = onp.zeros((n_per_class * n_classes, 2))
    y = onp.zeros(n_per_class * n_classes, dtype=onp.int64)
    for c in range(n_classes):
        rows = slice(c * n_per_class, (c + 1) * n_per_class)
        radius = onp.linspace(0.0, 1.0, n_per_class)
        angle = onp.linspace(c * 4.0, (c + 1) * 4.0, n_per_class) + rng.randn(n_per_class) * 0.2
        X[rows] = onp.c_[radius * onp.sin(angle), radius * onp.cos(angle)]
        y[rows] = c
    return X, y


def inputs(tiny=False):
    X, y = spiral(10 if tiny else 100, 3)
    W0 = 0.01 * onp.random.RandomState(1).randn(2, 3)
    return {"X": X, "y": y, "W0": W0, "steps": 5 if tiny else 200}


def run(np, X, y, W0, steps, lr=1.0, reg=1e-3):
    X = np.asarray(X)
    y = np.asarray(y)
    N = X.shape[0]
    W = np.array(W0)
    b = np.zeros((1, W.shape[1]))
    losses = []
    for i in range(steps):
        scores = X @ W + b
        scores -= np.max(scores, axis=1, keepdims=True)
        exp_scores = np.exp(scores)
        probs = exp_scores / np.sum(exp_scores, axis=1, keepdims=True)
        data_loss = -np.mean(np.log(probs[range(N), y]))
        loss = data_loss + 0.5 * reg * np.sum(W * W)
        if i % 20 == 0:
            losses.append(float(loss))
        dscores = probs
        dscores[range(N), y] -= 1
        dscores /= N
        dW = X.T @ dscores + reg * W
        db = np.sum(dscores, axis=0, keepdims=True)
        W += -lr * dW
        b += -lr * db
    accuracy = np.mean(np.argmax(X @ W + b, axis=1) == y)
    return W, b, np.array(losses), accuracy
