"""Two-layer network (ReLU hidden layer, softmax loss) with hand-written backprop."""

import numpy as onp

from .softmax_classifier import spiral


def inputs(tiny=False):
    X, y = spiral(10 if tiny else 100, 3)
    hidden = 8 if tiny else 50
    rng = onp.random.RandomState(2)
    return {"X": X, "y": y, "W1": 0.1 * rng.randn(2, hidden), "W2": 0.1 * rng.randn(hidden, 3),
            "steps": 5 if tiny else 100}


def run(np, X, y, W1, W2, steps, lr=1.0, reg=1e-3):
    X = np.asarray(X)
    y = np.asarray(y)
    N = X.shape[0]
    W1 = np.array(W1)
    W2 = np.array(W2)
    b1 = np.zeros((1, W1.shape[1]))
    b2 = np.zeros((1, W2.shape[1]))
    loss = None
    for _ in range(steps):
        hidden = np.maximum(0, X @ W1 + b1)
        scores = hidden @ W2 + b2
        exp_scores = np.exp(scores - scores.max(axis=1, keepdims=True))
        probs = exp_scores / exp_scores.sum(axis=1, keepdims=True)
        correct_logprobs = -np.log(probs[range(N), y])
        loss = correct_logprobs.sum() / N + 0.5 * reg * (np.sum(W1 * W1) + np.sum(W2 * W2))
        dscores = probs.copy()
        dscores[range(N), y] -= 1
        dscores /= N
        dW2 = hidden.T.dot(dscores)
        db2 = np.sum(dscores, axis=0, keepdims=True)
        dhidden = dscores.dot(W2.T)
        dhidden[hidden <= 0] = 0
        dW1 = np.dot(X.T, dhidden)
        db1 = np.sum(dhidden, axis=0, keepdims=True)
        dW2 += reg * W2
        dW1 += reg * W1
        W1 += -lr * dW1
        b1 += -lr * db1
        W2 += -lr * dW2
        b2 += -lr * db2
    predicted = np.argmax(np.maximum(0, X @ W1 + b1) @ W2 + b2, axis=1)
    return W1, b1, W2, b2, loss, (predicted == y).mean()
