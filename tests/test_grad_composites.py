"""grad/jvp/vjp of composite functions against central finite differences, and
jit/vmap agreement with eager evaluation."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import lax
from minijax.test_util import check_grads

rng = onp.random.default_rng(0)
X = rng.uniform(0.5, 1.5, size=(3, 4))
V = rng.uniform(0.5, 1.5, size=(4,))


def logsumexp(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=axis)) + np.reshape(m, np.shape(m)[:-1])


def mlp(x):
    w1 = np.reshape(np.arange(12.0) / 10, (4, 3))
    w2 = np.reshape(np.arange(6.0) / 5 - 0.5, (3, 2))
    h = np.tanh(x @ w1 + 0.1)
    return np.sum(logsumexp(h @ w2))


COMPOSITES = {
    "poly": lambda x: np.sum(3 * x ** 3 - 2 * x ** 2 + x),
    "trig": lambda x: np.sum(np.sin(x) * np.cos(2 * x)),
    "exp_log": lambda x: np.sum(np.log(1 + np.exp(-x))),
    "quotient": lambda x: np.sum(np.sqrt(x) / (1 + x * x)),
    "matmul_chain": lambda x: np.sum((x @ x.T) @ x),
    "softmax_xent": lambda x: -np.sum(np.sum(x, axis=1) / 4 - logsumexp(x)),
    "mlp": mlp,
    "max_min": lambda x: np.sum(np.maximum(x, 1.0) * np.minimum(x, 0.9)),
    "where": lambda x: np.sum(np.where(x > 1.0, x ** 2, np.sin(x))),
    "mean_var": lambda x: np.mean((x - np.mean(x, axis=0)) ** 2),
    "power_xy": lambda x: np.sum(np.power(x, x)),
    "nested_jit": lambda x: minijax.jit(lambda y: np.sum(np.tanh(y) * y))(x * 2),
    "cond": lambda x: lax.cond(np.sum(x) > 0, lambda y: np.sum(y ** 2), lambda y: np.sum(y), x),
    "reduce_max": lambda x: np.max(x * x, axis=1).sum(),
    "dot_vec": lambda x: np.dot(np.dot(x, np.asarray(V)), np.dot(x, np.asarray(V))),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_grads_match_finite_differences(name):
    f = COMPOSITES[name]
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_grad_of_jit_equals_grad_and_jit_equals_eager(name):
    f = COMPOSITES[name]
    onp.testing.assert_allclose(onp.asarray(minijax.jit(f)(X)), onp.asarray(f(X)), rtol=1e-12)
    g = minijax.grad(f)(X)
    onp.testing.assert_allclose(onp.asarray(minijax.jit(minijax.grad(f))(X)), onp.asarray(g),
                                rtol=1e-10)
    onp.testing.assert_allclose(onp.asarray(minijax.grad(minijax.jit(f))(X)), onp.asarray(g),
                                rtol=1e-10)


@pytest.mark.parametrize("name", ["poly", "trig", "mlp", "where", "cond"])
def test_vmap_of_grad_equals_loop(name):
    f = COMPOSITES[name]
    xs = onp.stack([X, X + 0.1, X * 0.9])
    batched = minijax.vmap(minijax.grad(f))(xs)
    for i in range(3):
        onp.testing.assert_allclose(onp.asarray(batched)[i], onp.asarray(minijax.grad(f)(xs[i])),
                                    rtol=1e-10)


def test_grad_argnums_and_has_aux():
    def f(x, y, z):
        return np.sum(x * y ** 2 + z), {"aux": x * 2}
    (gx, gz), aux = minijax.grad(f, argnums=(0, 2), has_aux=True)(V, V + 1, 3.0)
    onp.testing.assert_allclose(onp.asarray(gx), (V + 1) ** 2)
    assert float(gz) == 4.0
    onp.testing.assert_allclose(onp.asarray(aux["aux"]), V * 2)
    (val, aux), g = minijax.value_and_grad(f, argnums=1, has_aux=True)(V, V, 0.0)
    onp.testing.assert_allclose(float(val), onp.sum(V ** 3))
    onp.testing.assert_allclose(onp.asarray(g), 2 * V * V)


def test_grad_with_pytree_argument():
    params = {"w": X, "b": [V, 2.0]}

    def loss(p):
        return np.sum(np.tanh(p["w"] @ p["b"][0]) * p["b"][1])
    g = minijax.grad(loss)(params)
    assert set(g) == {"w", "b"} and isinstance(g["b"], list)
    check_grads(loss, (params,), order=1)


def test_grad_errors():
    with pytest.raises(TypeError, match="scalar"):
        minijax.grad(lambda x: x * 2)(V)
    with pytest.raises(TypeError, match="floating-point"):
        minijax.grad(lambda x: x * 2)(3)
    with pytest.raises(ValueError, match="argnums"):
        minijax.grad(lambda x: x, argnums=2)(1.0)


def test_float32_gradients_stay_float32():
    x32 = X.astype(onp.float32)
    g = minijax.grad(COMPOSITES["mlp"])(x32)
    assert g.dtype == onp.float32
    assert minijax.jit(lambda x: x * 2.0)(x32).dtype == onp.float32
