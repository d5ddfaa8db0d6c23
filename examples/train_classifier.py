"""Train a small classifier with minijax.random, minijax.nn, jit, grad and vmap.

Two interleaved spirals, a two-layer MLP with GELU, softmax cross-entropy, plain SGD
on minibatches drawn with explicit PRNG keys; per-example gradient norms by vmap.
"""

import minijax
import minijax.numpy as np
from minijax import nn, random
from minijax.nn import initializers


def make_spirals(key, n_per_class=200, noise=0.2):
    """Points on two interleaved spirals (label 0 and 1), with Gaussian noise."""
    k_radius, k_noise = random.split(key)
    t = random.uniform(k_radius, (n_per_class,), minval=0.25, maxval=1.0) * 3 * np.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3 * np.pi)
    x = np.concatenate([arm, -arm])
    x = x + noise * 0.3 * random.normal(k_noise, x.shape)
    y = np.concatenate([np.zeros(n_per_class, dtype=int), np.ones(n_per_class, dtype=int)])
    return x, y


def init_params(key, sizes):
    keys = random.split(key, len(sizes) - 1)
    w_init = initializers.glorot_normal()
    return [{"w": w_init(k, (m, n)), "b": initializers.zeros(k, (n,))}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def logits(params, x):
    for layer in params[:-1]:
        x = nn.gelu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss(params, x, y):
    log_probs = nn.log_softmax(logits(params, x))
    return -np.mean(np.sum(nn.one_hot(y, 2) * log_probs, axis=-1))


@minijax.jit
def sgd_step(params, key, x, y):
    """One SGD step on a random minibatch; the key is split inside the compiled step."""
    key, k_batch = random.split(key)
    idx = random.choice(k_batch, x.shape[0], (BATCH_SIZE,), replace=False)
    value, grads = minijax.value_and_grad(loss)(params, x[idx], y[idx])
    params = minijax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
    return params, key, value


def accuracy(params, x, y):
    return float(np.mean(np.argmax(logits(params, x), axis=-1) == y))


BATCH_SIZE = 64
LEARNING_RATE = 0.5


def main(steps=1000, seed=0):
    key = random.key(seed)
    key, k_data, k_init = random.split(key, 3)
    x, y = make_spirals(k_data)
    params = init_params(k_init, [2, 64, 64, 2])
    print(f"initial loss {float(loss(params, x, y)):.4f}, accuracy {accuracy(params, x, y):.3f}")
    for step in range(steps):
        params, key, value = sgd_step(params, key, x, y)
        if step % 250 == 0:
            print(f"step {step:4d}  minibatch loss {float(value):.4f}")
    final_loss, final_acc = float(loss(params, x, y)), accuracy(params, x, y)
    print(f"final loss {final_loss:.4f}, accuracy {final_acc:.3f}")

    # per-example gradients: vmap over the examples of grad of a one-example loss
    def example_loss(params, xi, yi):
        return loss(params, xi[None], yi[None])
    per_example = minijax.vmap(minijax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = np.sqrt(sum(np.sum(g.reshape(x.shape[0], -1) ** 2, axis=1)
                        for g in minijax.tree.leaves(per_example)))
    print(f"largest per-example gradient norm {float(np.max(norms)):.4f}")
    return final_loss, final_acc


if __name__ == "__main__":
    main()
