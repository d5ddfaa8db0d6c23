"""Drop-in programs: NumPy code written the way people write it (preallocate and fill in
loops, in-place updates through views, lists as arguments, fancy and boolean indexing,
ufunc methods, ``out=``, ``np.random`` for data), run once with ``numpy`` and once with
``minijax.numpy``; every resulting array must agree (values within float tolerance, same
dtypes, same shapes). Programs flagged ``jit`` also run under ``minijax.jit`` (their
Python loops unroll) with their data as traced arguments.

Each program is ``prog(np, *data)``; its optional ``data(np)`` makes the inputs with
``np.random`` (minijax.numpy.random gives NumPy's bits), eagerly, outside ``jit``.
The programs follow NumPy's documented behaviour, not minijax's: one that fails names a
missing piece of the drop-in promise.
"""

import numpy
import pytest

import minijax
import minijax.numpy as mnp

PROGRAMS = {}


def program(jit=True, data=None, rtol=1e-9):
    """Register ``prog(np, *data)``; ``jit``: it also runs under minijax.jit."""
    def register(fn):
        PROGRAMS[fn.__name__] = (fn, data, jit, rtol)
        return fn
    return register


# ============================================================ deep-learning style programs

def _conv_data(np):
    rng = np.random.default_rng(1)
    return rng.normal(size=(2, 3, 6, 6)), rng.normal(size=(4, 3, 3, 3)), rng.normal(size=4)


def _im2col_indices(np, x_shape, fh, fw, pad, stride):
    N, C, H, W = x_shape
    out_h = (H + 2 * pad - fh) // stride + 1
    out_w = (W + 2 * pad - fw) // stride + 1
    i0 = np.repeat(np.arange(fh), fw)
    i0 = np.tile(i0, C)
    i1 = stride * np.repeat(np.arange(out_h), out_w)
    j0 = np.tile(np.arange(fw), fh * C)
    j1 = stride * np.tile(np.arange(out_w), out_h)
    i = i0.reshape(-1, 1) + i1.reshape(1, -1)
    j = j0.reshape(-1, 1) + j1.reshape(1, -1)
    k = np.repeat(np.arange(C), fh * fw).reshape(-1, 1)
    return k, i, j, out_h, out_w


@program(data=_conv_data)
def im2col_convolution(np, x, w, b):
    """cs231n's im2col forward pass and col2im backward pass (np.add.at)."""
    pad, stride = 1, 1
    F, C, fh, fw = w.shape
    N = x.shape[0]
    k, i, j, out_h, out_w = _im2col_indices(np, x.shape, fh, fw, pad, stride)
    x_padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), mode="constant")
    cols = x_padded[:, k, i, j]
    cols = cols.transpose(1, 2, 0).reshape(fh * fw * C, -1)
    out = w.reshape(F, -1) @ cols + b.reshape(-1, 1)
    out = out.reshape(F, out_h, out_w, N).transpose(3, 0, 1, 2)
    dout = np.ones_like(out) * 0.5 + out * 0.01
    db = np.sum(dout, axis=(0, 2, 3))
    dout_flat = dout.transpose(1, 2, 3, 0).reshape(F, -1)
    dw = (dout_flat @ cols.T).reshape(w.shape)
    dcols = w.reshape(F, -1).T @ dout_flat
    dx_padded = np.zeros(x_padded.shape, dtype=dcols.dtype)
    dcols_reshaped = dcols.reshape(C * fh * fw, -1, N).transpose(2, 0, 1)
    np.add.at(dx_padded, (slice(None), k, i, j), dcols_reshaped)
    dx = dx_padded[:, :, pad:-pad, pad:-pad]
    return out, dx, dw, db


def _embedding_data(np):
    rng = np.random.default_rng(2)
    return rng.integers(0, 7, size=(4, 5)), rng.normal(size=(7, 3)), rng.normal(size=(4, 5, 3))


@program(data=_embedding_data)
def embedding_backward(np, idx, W, dout):
    """Word-embedding forward (fancy indexing) and backward (np.add.at on repeats)."""
    out = W[idx]
    dW = np.zeros_like(W)
    np.add.at(dW, idx, dout)
    return out, dW


def _blobs(np):
    rng = np.random.default_rng(3)
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
    X = np.concatenate([c + rng.normal(size=(20, 2)) for c in centers])
    return (X,)


@program(jit=False, data=_blobs)   # stops when converged; X[labels == c] by value
def kmeans(np, X):
    """Lloyd's k-means with boolean-mask means, until assignments stop changing."""
    k = 3
    centroids = X[[0, 20, 40]].copy()
    labels = np.zeros(len(X), dtype=int)
    for it in range(20):
        d = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
        new_labels = np.argmin(d, axis=1)
        if it > 0 and np.all(new_labels == labels):
            break
        labels = new_labels
        for c in range(k):
            members = X[labels == c]
            if len(members):
                centroids[c] = members.mean(axis=0)
    inertia = np.sum((X - centroids[labels]) ** 2)
    np.testing.assert_array_less([15, 15, 15], np.bincount(labels, minlength=k))
    return centroids, labels, inertia, it


def _classification(np):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 3))
    y = (X @ np.array([1.5, -2.0, 0.5]) + 0.3 * rng.normal(size=50) > 0).astype(float)
    return X, y


@program(data=_classification)
def logistic_regression(np, X, y):
    """Batch gradient descent on the logistic loss."""
    w = np.zeros(X.shape[1])
    b = 0.0
    lr = 0.5
    losses = np.empty(15)
    for step in range(15):
        z = X @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        losses[step] = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
        grad = p - y
        w -= lr * X.T @ grad / len(y)
        b -= lr * grad.mean()
    accuracy = np.mean((p > 0.5) == y)
    return w, b, losses, accuracy


def _rnn_data(np):
    np.random.seed(5)
    vocab, hidden = 8, 8
    Wxh = np.random.randn(hidden, vocab) * 0.1
    Whh = np.random.randn(hidden, hidden) * 0.1
    Why = np.random.randn(vocab, hidden) * 0.1
    return Wxh, Whh, Why, np.zeros((hidden, 1)), np.zeros((vocab, 1))


@program(data=_rnn_data, rtol=1e-8)
def min_char_rnn(np, Wxh, Whh, Why, bh, by):
    """Karpathy's min-char-rnn loss function: forward pass and backprop through time."""
    data = "hello world hello"
    chars = sorted(set(data))
    char_to_ix = {ch: i for i, ch in enumerate(chars)}
    inputs = [char_to_ix[ch] for ch in data[:-1]][:8]
    targets = [char_to_ix[ch] for ch in data[1:]][:8]
    vocab_size = Wxh.shape[1]
    hprev = np.zeros((Whh.shape[0], 1))
    xs, hs, ys, ps = {}, {}, {}, {}
    hs[-1] = np.copy(hprev)
    loss = 0
    for t in range(len(inputs)):
        xs[t] = np.zeros((vocab_size, 1))
        xs[t][inputs[t]] = 1
        hs[t] = np.tanh(np.dot(Wxh, xs[t]) + np.dot(Whh, hs[t - 1]) + bh)
        ys[t] = np.dot(Why, hs[t]) + by
        ps[t] = np.exp(ys[t]) / np.sum(np.exp(ys[t]))
        loss += -np.log(ps[t][targets[t], 0])
    dWxh, dWhh, dWhy = np.zeros_like(Wxh), np.zeros_like(Whh), np.zeros_like(Why)
    dbh, dby = np.zeros_like(bh), np.zeros_like(by)
    dhnext = np.zeros_like(hs[0])
    for t in reversed(range(len(inputs))):
        dy = np.copy(ps[t])
        dy[targets[t]] -= 1
        dWhy += np.dot(dy, hs[t].T)
        dby += dy
        dh = np.dot(Why.T, dy) + dhnext
        dhraw = (1 - hs[t] * hs[t]) * dh
        dbh += dhraw
        dWxh += np.dot(dhraw, xs[t].T)
        dWhh += np.dot(dhraw, hs[t - 1].T)
        dhnext = np.dot(Whh.T, dhraw)
    for dparam in [dWxh, dWhh, dWhy, dbh, dby]:
        np.clip(dparam, -5, 5, out=dparam)
    return loss, dWxh, dWhh, dWhy, dbh, dby, hs[len(inputs) - 1]


def _mlp_data(np):
    rng = np.random.default_rng(6)
    return (rng.normal(size=(10, 4)), rng.integers(0, 3, size=10),
            rng.normal(size=(4, 8)) * 0.5, rng.normal(size=(8, 3)) * 0.5)


@program(data=_mlp_data)
def two_layer_net(np, X, y, W1, W2):
    """cs231n two-layer net: ReLU, softmax loss with probs[range(N), y], backward pass."""
    N = X.shape[0]
    b1, b2 = np.zeros(W1.shape[1]), np.zeros(W2.shape[1])
    h = np.maximum(0, X @ W1 + b1)
    scores = h @ W2 + b2
    scores -= np.max(scores, axis=1, keepdims=True)
    probs = np.exp(scores)
    probs /= np.sum(probs, axis=1, keepdims=True)
    loss = -np.sum(np.log(probs[range(N), y])) / N
    loss += 0.5 * 1e-3 * (np.sum(W1 * W1) + np.sum(W2 * W2))
    dscores = probs.copy()
    dscores[range(N), y] -= 1
    dscores /= N
    dW2 = h.T @ dscores + 1e-3 * W2
    db2 = dscores.sum(axis=0)
    dh = dscores @ W2.T
    dh[h <= 0] = 0
    dW1 = X.T @ dh + 1e-3 * W1
    db1 = np.sum(dh, axis=0)
    return loss, dW1, db1, dW2, db2


@program(data=_mlp_data)
def softmax_cross_entropy(np, X, y, W1, W2):
    """Numerically stable softmax cross-entropy and its gradient, one-hot by np.eye."""
    logits = X @ W1 @ W2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    onehot = np.eye(logits.shape[1])[y]
    loss = -(onehot * log_probs).sum() / len(y)
    grad = (np.exp(log_probs) - onehot) / len(y)
    pred = log_probs.argmax(axis=1)
    return loss, grad, pred, (pred == y).mean()


def _bn_data(np):
    rng = np.random.default_rng(7)
    return rng.normal(loc=3.0, scale=2.0, size=(16, 5)), rng.normal(size=(16, 5))


@program(data=_bn_data)
def batchnorm_forward_backward(np, x, dout):
    """Batch normalization with running statistics updated in place."""
    gamma, beta = np.ones(x.shape[1]), np.zeros(x.shape[1])
    running_mean, running_var = np.zeros(x.shape[1]), np.ones(x.shape[1])
    eps, momentum = 1e-5, 0.9
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xhat = (x - mu) / np.sqrt(var + eps)
    out = gamma * xhat + beta
    running_mean *= momentum
    running_mean += (1 - momentum) * mu
    running_var[:] = momentum * running_var + (1 - momentum) * var
    N = x.shape[0]
    dxhat = dout * gamma
    dx = (1.0 / N) / np.sqrt(var + eps) * (N * dxhat - dxhat.sum(axis=0)
                                           - xhat * (dxhat * xhat).sum(axis=0))
    dgamma = np.sum(dout * xhat, axis=0)
    dbeta = dout.sum(axis=0)
    return out, dx, dgamma, dbeta, running_mean, running_var


def _pool_data(np):
    return (np.random.default_rng(8).normal(size=(2, 2, 4, 6)),)


@program(data=_pool_data)
def maxpool_forward_backward(np, x):
    """2x2 max pooling with loops over windows; the backward pass routes by a mask."""
    N, C, H, W = x.shape
    ph = pw = s = 2
    out = np.zeros((N, C, H // s, W // s))
    dx = np.zeros_like(x)
    for i in range(H // s):
        for j in range(W // s):
            window = x[:, :, i * s:i * s + ph, j * s:j * s + pw]
            out[:, :, i, j] = np.max(window, axis=(2, 3))
            mask = window == out[:, :, i, j][:, :, None, None]
            dx[:, :, i * s:i * s + ph, j * s:j * s + pw] += mask * 1.0
    return out, dx


@program(data=_conv_data)
def naive_convolution_loops(np, x, w, b):
    """Direct convolution by loops over output positions, stride 2, zero padding."""
    stride, pad = 2, 1
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    Ho = 1 + (H + 2 * pad - HH) // stride
    Wo = 1 + (W + 2 * pad - WW) // stride
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    out = np.zeros((N, F, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            patch = xp[:, :, i * stride:i * stride + HH, j * stride:j * stride + WW]
            for f in range(F):
                out[:, f, i, j] = np.sum(patch * w[f], axis=(1, 2, 3)) + b[f]
    return out


# ============================================================ simulation and numerics

@program()
def game_of_life(np):
    """NumPy-100's Game of Life: neighbour counts from shifted views of Z."""
    Z = np.zeros((10, 10), dtype=int)
    Z[1, 2] = Z[2, 3] = Z[3, 1] = Z[3, 2] = Z[3, 3] = 1   # a glider
    Z[6:9, 7] = 1                                          # a blinker
    history = []
    for _ in range(6):
        N = (Z[0:-2, 0:-2] + Z[0:-2, 1:-1] + Z[0:-2, 2:] +
             Z[1:-1, 0:-2] + Z[1:-1, 2:] +
             Z[2:, 0:-2] + Z[2:, 1:-1] + Z[2:, 2:])
        birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
        survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
        Z[...] = 0
        Z[1:-1, 1:-1][birth | survive] = 1
        history.append(Z.sum())
    return Z, np.array(history)


@program(jit=False)   # Z[active] selects by value (see the masked-arithmetic version)
def mandelbrot(np):
    """Escape-time Mandelbrot with boolean masks selecting the points still iterating."""
    xs = np.linspace(-2.0, 0.6, 40)
    ys = np.linspace(-1.2, 1.2, 30)
    C = xs[None, :] + 1j * ys[:, None]
    Z = np.zeros_like(C)
    counts = np.zeros(C.shape, dtype=int)
    for _ in range(25):
        active = np.abs(Z) <= 2
        Z[active] = Z[active] ** 2 + C[active]
        counts[active] += 1
    return counts, np.abs(Z[counts == counts.max()]).max()


@program()
def mandelbrot_masked_arithmetic(np):
    """The same set with masks as arithmetic (no boolean indexing): jit-able."""
    xs = np.linspace(-2.0, 0.6, 40)
    ys = np.linspace(-1.2, 1.2, 30)
    c = xs[None, :] + 1j * ys[:, None]
    z = np.zeros_like(c)
    n = np.zeros(c.shape, dtype=np.int32)
    for _ in range(25):
        inside = np.abs(z) <= 2
        z = np.where(inside, z * z + c, z)
        n += inside
    return n


@program()
def jacobi_relaxation(np):
    """Laplace equation on a square, fixed boundary, Jacobi sweeps on interior views."""
    u = np.zeros((12, 12))
    u[0, :] = 1.0
    u[:, 0] = np.linspace(1.0, 0.0, 12)
    residuals = []
    for _ in range(40):
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        residuals.append(np.abs(new - u).max())
        u = new
    return u, np.array(residuals)


@program()
def gauss_seidel(np):
    """Gauss-Seidel sweeps with scalar loops over the grid (updated in place)."""
    n = 7
    u = np.zeros((n, n))
    u[0] = 1.0
    f = np.full((n, n), 0.1)
    h2 = (1.0 / (n - 1)) ** 2
    for _ in range(4):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                                  + h2 * f[i, j])
    return u


def _spd_data(np):
    rng = np.random.default_rng(9)
    A = rng.normal(size=(6, 6))
    return A @ A.T + 6 * np.eye(6), rng.normal(size=6)


@program(data=_spd_data)
def power_iteration(np, A, b):
    """Dominant eigenpair by power iteration with Rayleigh quotients recorded."""
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    quotients = np.zeros(20)
    for k in range(20):
        w = A @ v
        v = w / np.linalg.norm(w)
        quotients[k] = v @ A @ v
    return v, quotients, np.linalg.eigvalsh(A)[-1]


def _pca_data(np):
    rng = np.random.default_rng(10)
    latent = rng.normal(size=(40, 2))
    return (latent @ rng.normal(size=(2, 5)) + 0.05 * rng.normal(size=(40, 5)),)


@program(data=_pca_data, rtol=1e-7)
def pca_via_svd(np, X):
    """PCA: centre, SVD, fix signs (largest loading positive), project, explained var."""
    Xc = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    max_abs_cols = np.argmax(np.abs(U), axis=0)
    signs = np.sign(U[max_abs_cols, range(U.shape[1])])
    U *= signs
    Vt *= signs[:, np.newaxis]
    explained = S ** 2 / (len(X) - 1)
    ratio = explained / explained.sum()
    scores = Xc @ Vt[:2].T
    return scores, Vt[:2], ratio, np.cumsum(ratio)


def _kalman_data(np):
    rng = np.random.default_rng(11)
    t = np.arange(12) * 0.1
    truth = 1.0 + 2.0 * t
    return (truth + rng.normal(scale=0.3, size=t.size),)


@program(data=_kalman_data, rtol=1e-8)
def kalman_filter(np, zs):
    """Constant-velocity Kalman filter; estimates preallocated and filled per step."""
    dt = 0.1
    F = np.array([[1, dt], [0, 1]])
    H = np.array([[1.0, 0.0]])
    Q = 1e-3 * np.eye(2)
    R = np.array([[0.09]])
    x = np.array([[0.0], [0.0]])
    P = np.eye(2) * 10
    estimates = np.zeros((len(zs), 2))
    gains = np.empty(len(zs))
    for k in range(len(zs)):
        x = F @ x
        P = F @ P @ F.T + Q
        y = zs[k] - H @ x
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        x = x + K @ y
        P = (np.eye(2) - K @ H) @ P
        estimates[k] = x[:, 0]
        gains[k] = K[0, 0]
    return estimates, gains, P


@program()
def heat_equation(np):
    """Explicit finite differences for the 1-d heat equation, in-place interior update."""
    nx, nt = 21, 60
    alpha, dx, dt = 1.0, 1.0 / 20, 0.001
    x = np.linspace(0, 1, nx)
    u = np.sin(np.pi * x)
    snapshots = np.zeros((4, nx))
    for n in range(nt):
        u[1:-1] += alpha * dt / dx ** 2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        if n % 20 == 19:
            snapshots[n // 20] = u
    exact = np.exp(-np.pi ** 2 * nt * dt) * np.sin(np.pi * x)
    return u, snapshots, np.abs(u - exact).max()


@program(rtol=1e-8)
def lorenz_rk4(np):
    """RK4 integration of the Lorenz system into a preallocated trajectory."""
    def f(s, sigma=10.0, rho=28.0, beta=8.0 / 3.0):
        x, y, z = s
        return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])

    dt, steps = 0.01, 10
    traj = np.empty((steps + 1, 3))
    traj[0] = [1.0, 1.0, 1.0]
    for i in range(steps):
        s = traj[i]
        k1 = f(s)
        k2 = f(s + dt / 2 * k1)
        k3 = f(s + dt / 2 * k2)
        k4 = f(s + dt * k3)
        traj[i + 1] = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return traj


def _uniform_pairs(np):
    rng = np.random.default_rng(12)
    return rng.random(2000), rng.random(2000)


@program(data=_uniform_pairs)
def monte_carlo_pi(np, x, y):
    """Estimate pi from uniform points; running estimate via cumsum."""
    inside = x ** 2 + y ** 2 <= 1.0
    estimate = 4 * inside.sum() / len(x)
    running = 4 * np.cumsum(inside) / np.arange(1, len(x) + 1)
    return estimate, running[::100], inside.dtype == bool


def _steps(np):
    return (np.random.default_rng(13).random(300),)


@program(data=_steps)
def random_walk(np, u):
    """A +/-1 random walk: first passage time and maximum excursion."""
    steps = np.where(u > 0.5, 1, -1)
    walk = np.cumsum(steps)
    first_hit = np.argmax(np.abs(walk) >= 10)
    return walk, walk.min(), walk.max(), first_hit, np.abs(walk).argmax()


@program(data=_spd_data)
def gaussian_elimination(np, A, b):
    """Gaussian elimination with partial pivoting (row swaps by fancy indexing)."""
    n = len(b)
    M = np.hstack([A - 3 * np.eye(n) + np.tri(n), b[:, None]])
    for k in range(n - 1):
        p = k + np.argmax(np.abs(M[k:, k]))
        M[[k, p]] = M[[p, k]]
        factors = M[k + 1:, k] / M[k, k]
        M[k + 1:] -= factors[:, None] * M[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (M[i, -1] - M[i, i + 1:n] @ x[i + 1:]) / M[i, i]
    return x, np.linalg.solve(A - 3 * np.eye(n) + np.tri(n), b)


@program(data=_spd_data)
def cholesky_by_hand(np, A, b):
    """Cholesky-Banachiewicz with scalar loops, then forward/back substitution."""
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i + 1):
            s = np.dot(L[i, :j], L[j, :j])
            if i == j:
                L[i, j] = np.sqrt(A[i, i] - s)
            else:
                L[i, j] = (A[i, j] - s) / L[j, j]
    y = np.zeros(n)
    for i in range(n):
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    x = np.zeros(n)
    for i in reversed(range(n)):
        x[i] = (y[i] - L[i + 1:, i] @ x[i + 1:]) / L[i, i]
    return L, x, np.linalg.cholesky(A)


@program(data=_spd_data)
def matrix_exponential(np, A, b):
    """expm by scaling and squaring a Taylor series (preallocated powers)."""
    M = A / np.abs(A).max()
    s = 4
    X = M / 2 ** s
    E = np.eye(len(M))
    term = np.eye(len(M))
    for k in range(1, 12):
        term = term @ X / k
        E += term
    for _ in range(s):
        E = E @ E
    w, V = np.linalg.eigh(M)
    return E, (V * np.exp(w)) @ V.T


@program()
def newton_and_bisection(np):
    """Vectorised Newton's method for sqrt and bisection for cos(x) = x * c."""
    a = np.array([2.0, 10.0, 0.5, 144.0])
    x = a.copy()
    for _ in range(8):
        x = 0.5 * (x + a / x)
    c = np.array([0.5, 1.0, 2.0])
    lo, hi = np.zeros(3), np.full(3, 1.5)
    for _ in range(40):
        mid = (lo + hi) / 2
        f = np.cos(mid) - c * mid
        lo = np.where(f > 0, mid, lo)
        hi = np.where(f > 0, hi, mid)
    return x, np.sqrt(a), (lo + hi) / 2


@program(data=_spd_data)
def floyd_warshall(np, A, b):
    """All-pairs shortest paths with broadcasting minimum, in place."""
    n = A.shape[0]
    W = np.abs(A) + 1.0
    W[np.diag_indices(n)] = 0.0
    W[W > 6.0] = np.inf
    D = W.copy()
    for k in range(n):
        np.minimum(D, D[:, k, None] + D[None, k, :], out=D)
    return D


@program()
def markov_chain(np):
    """Stationary distribution of a Markov chain two ways: power and linear solve."""
    P = np.array([[0.9, 0.075, 0.025],
                  [0.15, 0.8, 0.05],
                  [0.25, 0.25, 0.5]])
    state = np.array([1.0, 0.0, 0.0])
    history = np.zeros((20, 3))
    for t in range(20):
        state = state @ P
        history[t] = state
    A = np.vstack([P.T - np.eye(3), np.ones(3)])
    rhs = np.array([0, 0, 0, 1.0])
    pi = np.linalg.lstsq(A, rhs, rcond=None)[0]
    return history, pi, np.linalg.matrix_power(P, 50)[0]


def _hmm_data(np):
    rng = np.random.default_rng(14)
    return (rng.integers(0, 3, size=12),)


@program(data=_hmm_data)
def viterbi(np, obs):
    """Viterbi decoding in log space with a backpointer table and backtracking."""
    start = np.log(np.array([0.6, 0.4]))
    trans = np.log(np.array([[0.7, 0.3], [0.4, 0.6]]))
    emit = np.log(np.array([[0.5, 0.4, 0.1], [0.1, 0.3, 0.6]]))
    T = len(obs)
    V = np.zeros((T, 2))
    back = np.zeros((T, 2), dtype=int)
    V[0] = start + emit[:, obs[0]]
    for t in range(1, T):
        scores = V[t - 1][:, None] + trans
        back[t] = scores.argmax(axis=0)
        V[t] = scores.max(axis=0) + emit[:, obs[t]]
    path = np.zeros(T, dtype=int)
    path[-1] = V[-1].argmax()
    for t in range(T - 2, -1, -1):
        path[t] = back[t + 1, path[t + 1]]
    return V, path


@program(jit=False)   # Python's min() compares values: a branch on traced values
def edit_distance(np):
    """Levenshtein distance by dynamic programming over a preallocated table."""
    a, b = "kitten sat", "sitting cat"
    D = np.zeros((len(a) + 1, len(b) + 1), dtype=int)
    D[:, 0] = np.arange(len(a) + 1)
    D[0, :] = np.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D, D[-1, -1]


@program(jit=False)   # `if is_prime[i]` branches on a value
def sieve_of_eratosthenes(np):
    """Primes below 200 by striding through a boolean array."""
    n = 200
    is_prime = np.ones(n, dtype=bool)
    is_prime[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_prime[i]:
            is_prime[i * i::i] = False
    primes = np.nonzero(is_prime)[0]
    np.testing.assert_array_equal(primes[:5], [2, 3, 5, 7, 11])
    return primes, np.flatnonzero(is_prime).size


@program()
def rule_30_automaton(np):
    """Elementary cellular automaton (rule 30) with np.roll neighbours."""
    width, steps = 31, 15
    rows = np.zeros((steps, width), dtype=np.uint8)
    rows[0, width // 2] = 1
    rule = np.array([(30 >> i) & 1 for i in range(8)], dtype=np.uint8)
    for t in range(1, steps):
        prev = rows[t - 1]
        idx = 4 * np.roll(prev, 1) + 2 * prev + np.roll(prev, -1)
        rows[t] = rule[idx]
    return rows, rows.sum(axis=1)


# ============================================================ data analysis

def _scores(np):
    rng = np.random.default_rng(15)
    return rng.normal(70, 10, size=40).round(1), rng.normal(74, 12, size=35).round(1)


@program(data=_scores)
def welch_t_test(np, a, b):
    """Welch's t statistic and degrees of freedom; medians and percentiles."""
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(ddof=1), b.var(ddof=1)
    na, nb = len(a), len(b)
    t = (ma - mb) / np.sqrt(va / na + vb / nb)
    dof = (va / na + vb / nb) ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    q = np.percentile(a, [25, 50, 75])
    return t, dof, q, np.median(b), np.std(np.concatenate([a, b]))


def _series(np):
    return (np.random.default_rng(16).normal(size=25).cumsum(),)


@program(data=_series)
def cumulative_statistics(np, x):
    """Running mean and variance by cumsum, and Welford's online update in a loop."""
    n = np.arange(1, len(x) + 1)
    running_mean = np.cumsum(x) / n
    running_var = np.cumsum(x ** 2) / n - running_mean ** 2
    mean = 0.0
    m2 = 0.0
    welford = np.zeros((len(x), 2))
    for k in range(len(x)):
        delta = x[k] - mean
        mean += delta / (k + 1)
        m2 += delta * (x[k] - mean)
        welford[k] = mean, m2 / (k + 1)
    return running_mean, running_var, welford, np.maximum.accumulate(x), np.cumprod(
        1 + x[:10] / 100)


@program(data=_series)
def moving_averages(np, x):
    """NumPy-100's moving average (cumsum trick) and an EMA filled in a loop."""
    def moving_average(a, n=3):
        ret = np.cumsum(a, dtype=float)
        ret[n:] = ret[n:] - ret[:-n]
        return ret[n - 1:] / n

    ema = np.empty_like(x)
    ema[0] = x[0]
    for i in range(1, len(x)):
        ema[i] = 0.2 * x[i] + 0.8 * ema[i - 1]
    window = np.convolve(x, np.ones(5) / 5, mode="valid")
    return moving_average(x), moving_average(x, 7), ema, window


def _unsorted(np):
    rng = np.random.default_rng(17)
    return rng.integers(0, 50, size=30), rng.normal(size=30)


@program(data=_unsorted)
def sorting_and_searching(np, keys, vals):
    """argsort/ranks, searchsorted insertion points, top-k by partition, lexsort."""
    order = np.argsort(keys, kind="stable")
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(keys))
    sorted_keys = keys[order]
    pos = np.searchsorted(sorted_keys, [0, 10, 25, 49, 60])
    top3 = np.sort(np.partition(vals, -3)[-3:])[::-1]
    by_key_then_val = np.lexsort((vals, keys))
    return ranks, sorted_keys, pos, top3, by_key_then_val, np.argmax(vals), vals.argmin()


@program(jit=False, data=_unsorted)   # bincount's length depends on the values
def histograms_and_counts(np, keys, vals):
    """Histograms with fixed bins, bincount, digitize and a 2-d histogram."""
    counts, edges = np.histogram(vals, bins=6, range=(-3, 3))
    density, _ = np.histogram(vals, bins=edges, density=True)
    per_key = np.bincount(keys % 5, weights=vals, minlength=5)
    which = np.digitize(vals, [-1.0, 0.0, 1.0])
    h2, xe, ye = np.histogram2d(vals, keys % 5, bins=[3, 5], range=[[-3, 3], [0, 5]])
    return counts, edges, density, per_key, which, h2


def _poly_data(np):
    rng = np.random.default_rng(18)
    x = np.linspace(-1, 1, 30)
    return x, 1.0 - 2.0 * x + 0.5 * x ** 3 + 0.01 * rng.normal(size=30)


@program(data=_poly_data, rtol=1e-7)
def polynomial_fit(np, x, y):
    """polyfit/polyval/poly1d: fit a cubic, evaluate, differentiate, integrate."""
    coeffs = np.polyfit(x, y, 3)
    fitted = np.polyval(coeffs, x)
    p = np.poly1d(coeffs)
    dp = np.polyder(coeffs)
    return coeffs, fitted, p(0.5), dp, np.polyint(coeffs), np.sum((fitted - y) ** 2)


@program(data=_poly_data)
def linear_regression_lstsq(np, x, y):
    """Design matrix with column_stack; lstsq with all four results; normal equations."""
    X = np.column_stack([np.ones_like(x), x, x ** 2, x ** 3])
    beta, residuals, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    beta_ne = np.linalg.solve(X.T @ X, X.T @ y)
    pred = X @ beta
    r2 = 1 - ((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    return beta, residuals, rank, sv, beta_ne, r2


def _points(np):
    rng = np.random.default_rng(19)
    return rng.random((12, 2)), rng.integers(0, 2, size=12)


@program(data=_points)
def knn_classifier(np, P, labels):
    """Pairwise distances by broadcasting, k nearest by argsort, majority vote."""
    D = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    nearest = np.argsort(D, axis=1)[:, :3]
    votes = labels[nearest].sum(axis=1)
    pred = (votes >= 2).astype(int)
    return D.min(axis=1), nearest, pred, (pred == labels).mean()


@program(jit=False, data=_points)   # bincount's length depends on the values
def confusion_matrix(np, P, labels):
    """Confusion matrix with np.add.at and with bincount; precision and recall."""
    pred = (P[:, 0] > 0.5).astype(int)
    cm = np.zeros((2, 2), dtype=int)
    np.add.at(cm, (labels, pred), 1)
    cm2 = np.bincount(2 * labels + pred, minlength=4).reshape(2, 2)
    precision = np.diag(cm) / cm.sum(axis=0).clip(min=1)
    recall = np.diag(cm) / cm.sum(axis=1).clip(min=1)
    return cm, cm2, precision, recall


@program(data=_unsorted)
def one_hot_encoding(np, keys, vals):
    """One-hot by fancy assignment Y[np.arange(n), y] = 1 and by comparison."""
    y = keys % 4
    Y = np.zeros((len(y), 4))
    Y[np.arange(len(y)), y] = 1
    Y2 = (y[:, None] == np.arange(4)).astype(float)
    class_means = (Y.T @ vals) / Y.sum(axis=0)
    return Y, Y2, class_means


# ============================================================ NumPy-100 style exercises

@program()
def numpy_100_basics(np):
    """Checkerboard, border of ones, reversed vector, normalised random-free matrix."""
    Z = np.zeros((8, 8), dtype=int)
    Z[1::2, ::2] = 1
    Z[::2, 1::2] = 1
    B = np.ones((5, 5))
    B[1:-1, 1:-1] = 0
    v = np.arange(10)[::-1]
    M = np.arange(25, dtype=float).reshape(5, 5)
    M = (M - M.mean()) / M.std()
    nz = np.nonzero([1, 2, 0, 0, 4, 0])
    T = np.tile(np.array([[0, 1], [1, 0]]), (4, 4))
    return Z, B, v, M, nz, T, np.array_equal(Z, T)


@program(jit=False)   # Z[mask] *= -1 reads Z[mask] first: a value-dependent shape
def numpy_100_indexing(np):
    """Swap rows, negate a range in place, find nearest value, diagonal below main."""
    A = np.arange(25).reshape(5, 5)
    A[[0, 1]] = A[[1, 0]]
    Z = np.arange(11)
    Z[(3 < Z) & (Z < 8)] *= -1
    grid = np.linspace(0, 1, 11)
    nearest = grid[np.abs(grid - 0.33).argmin()]
    D = np.diag(1 + np.arange(4), k=-1)
    R = np.arange(9).reshape(3, 3)[::-1, ::-1]
    return A, Z, nearest, D, R, np.unravel_index(99, (6, 7, 8))


@program()
def numpy_100_ufunc_methods(np):
    """Ufunc methods: outer tables, reduce, accumulate, reduceat segment sums."""
    x = np.arange(1, 6)
    table = np.multiply.outer(x, x)
    diff = np.subtract.outer(x, x)
    total = np.add.reduce(x)
    running = np.add.accumulate(x)
    segments = np.add.reduceat(np.arange(10), [0, 3, 7])
    both = np.logical_and.reduce([x > 0, x < 5, x != 3])
    return table, diff, total, running, segments, both


@program()
def numpy_100_lists_and_scalars(np):
    """Lists as operands and arguments, scalar reductions rebound to arrays."""
    x = np.array([1.0, 2.0, 3.0])
    y = [2.0, 3.0, 4.0] - x
    z = x * [1, 0, -1]
    ll = np.sum(x ** 2)
    ll -= x
    m = np.maximum([1, 5, 3], x)
    s = np.stack([x, [4.0, 5.0, 6.0]])
    idx = np.where([True, False, True])[0]
    return y, z, ll, m, s, idx, np.dot([1, 2, 3], x)


def _image(np):
    return (np.random.default_rng(20).integers(0, 256, size=(8, 10, 3)).astype(np.uint8),)


@program(data=_image)
def image_processing(np, img):
    """Grayscale conversion, threshold, clip with out=, flips and a box blur."""
    gray = img @ np.array([0.299, 0.587, 0.114])
    binary = (gray > 128).astype(np.uint8) * 255
    brighter = img.astype(np.int16) + 60
    np.clip(brighter, 0, 255, out=brighter)
    brighter = brighter.astype(np.uint8)
    padded = np.pad(gray, 1, mode="edge")
    blur = np.zeros_like(gray)
    for di in range(3):
        for dj in range(3):
            blur += padded[di:di + gray.shape[0], dj:dj + gray.shape[1]]
    blur /= 9
    return gray, binary, brighter, blur, img[:, ::-1].mean(axis=(0, 1)), np.fliplr(gray)


def _matrices(np):
    rng = np.random.default_rng(21)
    return rng.normal(size=(8, 6)), rng.normal(size=(6, 10))


@program(data=_matrices)
def blocked_matmul(np, A, B):
    """Tiled matrix multiply accumulating into slices of a preallocated result."""
    m, k = A.shape
    n = B.shape[1]
    C = np.zeros((m, n))
    bs = 4
    for i in range(0, m, bs):
        for j in range(0, n, bs):
            for p in range(0, k, bs):
                C[i:i + bs, j:j + bs] += A[i:i + bs, p:p + bs] @ B[p:p + bs, j:j + bs]
    return C, A @ B, np.einsum("ik,kj->ij", A, B)


@program(data=_poly_data)
def interpolation_and_integration(np, x, y):
    """np.interp at new points, trapezoid and cumulative trapezoid integrals, gradient."""
    xn = np.linspace(-0.95, 0.95, 17)
    yn = np.interp(xn, x, y)
    area = np.trapezoid(y, x)
    cum = np.concatenate([[0.0], np.cumsum((y[1:] + y[:-1]) / 2 * np.diff(x))])
    slope = np.gradient(y, x)
    return yn, area, cum, slope


def _quadratic(np):
    rng = np.random.default_rng(22)
    M = rng.normal(size=(5, 5))
    return M @ M.T + np.eye(5), rng.normal(size=5)


@program(data=_quadratic)
def momentum_sgd(np, A, b):
    """Heavy-ball gradient descent on a quadratic; parameter history preallocated."""
    x = np.zeros_like(b)
    v = np.zeros_like(b)
    lr = 0.5 / np.linalg.norm(A, 2)
    history = np.zeros((20, len(b)))
    for t in range(20):
        g = A @ x - b
        v *= 0.9
        v -= lr * g
        x += v
        history[t] = x
    return x, history, np.linalg.solve(A, b), np.linalg.norm(A @ x - b)


@program(data=_quadratic)
def gram_schmidt(np, A, b):
    """Modified Gram-Schmidt QR, columns written into a preallocated Q."""
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    V = A.copy()
    for j in range(n):
        R[j, j] = np.linalg.norm(V[:, j])
        Q[:, j] = V[:, j] / R[j, j]
        for k in range(j + 1, n):
            R[j, k] = Q[:, j] @ V[:, k]
            V[:, k] -= R[j, k] * Q[:, j]
    return Q, R, np.abs(Q.T @ Q - np.eye(n)).max(), Q @ R


@program()
def meshgrid_field(np):
    """A scalar field on a meshgrid, its gradient by np.diff, and masked statistics."""
    x = np.linspace(-2, 2, 21)
    y = np.linspace(-1, 1, 11)
    X, Y = np.meshgrid(x, y)
    Z = np.exp(-(X ** 2 + Y ** 2)) * np.cos(3 * X)
    dzdx = np.diff(Z, axis=1) / np.diff(x)
    mask = Z > 0.2
    return Z, dzdx, mask.sum(), np.where(mask, Z, 0.0).sum(), np.count_nonzero(mask, axis=0)


# ============================================================ the harness

def _leaves(result):
    if isinstance(result, dict):
        return [v for k in sorted(result) for v in _leaves(result[k])]
    if isinstance(result, (tuple, list)):
        return [v for r in result for v in _leaves(r)]
    return [result]


def _compare(actual, expected, rtol):
    a, e = _leaves(actual), _leaves(expected)
    assert len(a) == len(e), f"{len(a)} results, NumPy gives {len(e)}"
    for k, (x, y) in enumerate(zip(a, e)):
        if isinstance(y, (bool, int, float, complex)) and not isinstance(y, numpy.generic):
            assert type(x) is type(y) or numpy.asarray(x).shape == (), (k, type(x))
        xa, ya = numpy.asarray(x), numpy.asarray(y)
        assert xa.shape == ya.shape, f"result {k}: shape {xa.shape}, NumPy {ya.shape}"
        assert xa.dtype == ya.dtype, f"result {k}: dtype {xa.dtype}, NumPy {ya.dtype}"
        if ya.dtype.kind in "fc":
            tol = rtol if ya.dtype.itemsize * (2 if ya.dtype.kind == "f" else 1) >= 16 else 1e-5
            numpy.testing.assert_allclose(xa, ya, rtol=tol, atol=tol * 1e-3,
                                          err_msg=f"result {k}")
        else:
            numpy.testing.assert_array_equal(xa, ya, err_msg=f"result {k}")


def _inputs(data, np):
    return () if data is None else tuple(data(np))


def test_there_are_at_least_forty_programs():
    assert len(PROGRAMS) >= 40
    assert sum(jit for _, _, jit, _ in PROGRAMS.values()) >= 0.8 * len(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_numpy(name):
    prog, data, _, rtol = PROGRAMS[name]
    with numpy.errstate(all="ignore"):
        expected = prog(numpy, *_inputs(data, numpy))
    actual = prog(mnp, *_inputs(data, mnp))
    _compare(actual, expected, rtol)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p[2]))
def test_program_under_jit_matches_numpy(name):
    prog, data, _, rtol = PROGRAMS[name]
    with numpy.errstate(all="ignore"):
        expected = prog(numpy, *_inputs(data, numpy))
    actual = minijax.jit(lambda *args: prog(mnp, *args))(*_inputs(data, mnp))
    _compare(actual, expected, rtol)
