"""A small end-to-end run: eager NumPy-style code, grad, jit and vmap on a tiny MLP."""

import numpy as onp

import minijax
import minijax.numpy as np


def init(key_seed, sizes):
    rng = onp.random.default_rng(key_seed)
    return [(np.asarray(rng.normal(size=(m, n)) / onp.sqrt(m)), np.zeros(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x):
    for w, b in params[:-1]:
        x = np.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return np.mean((predict(params, x) - y) ** 2)


rng = onp.random.default_rng(0)
x = np.asarray(rng.normal(size=(64, 3)))
y = np.sum(np.sin(x), axis=1, keepdims=True)
params = init(1, [3, 32, 32, 1])

print("eager loss:", float(loss(params, x, y)))


@minijax.jit
def step(params, x, y):
    value, grads = minijax.value_and_grad(loss)(params, x, y)
    new = minijax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return new, value


for i in range(200):
    params, value = step(params, x, y)
print("loss after 200 jitted SGD steps:", float(value))

per_example = minijax.vmap(minijax.grad(loss), in_axes=(None, 0, 0))(
    params, np.reshape(x, (64, 1, 3)), np.reshape(y, (64, 1, 1)))
print("per-example gradient of the first layer's weights:", per_example[0][0].shape)
print(minijax.make_jaxpr(lambda x: np.sum(np.tanh(x) ** 2))(np.ones(3)))
