"""``minijax.flatten_util.ravel_pytree`` against JAX's, and under the transformations."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.flatten_util import ravel_pytree

TREES = [
    {"w": np.arange(6.0).reshape(2, 3), "b": (np.ones(2), np.float64(3.0))},
    [np.arange(3, dtype=np.float32), np.ones((2, 2), np.float32)],
    (np.arange(4, dtype=np.int32), np.linspace(0, 1, 3)),            # int32 and float64
    [np.ones(2, np.complex128), np.arange(2.0)],                        # complex and real
    {"a": np.zeros((0, 3)), "b": [np.ones(1), None]},
]


@pytest.mark.parametrize("tree", TREES)
def test_ravel_and_unravel_agree_with_jax(tree):
    jax = pytest.importorskip("jax")
    from jax.flatten_util import ravel_pytree as jax_ravel
    with jax.enable_x64(True):
        jflat, junravel = jax_ravel(tree)
        expected = [np.asarray(x) for x in jax.tree_util.tree_leaves(junravel(jflat))]
    flat, unravel = ravel_pytree(tree)
    assert flat.dtype == jflat.dtype and flat.shape == jflat.shape
    np.testing.assert_array_equal(np.asarray(flat), np.asarray(jflat))
    back = minijax.tree_util.tree_leaves(unravel(flat))
    assert minijax.tree_util.tree_structure(unravel(flat)) == \
        minijax.tree_util.tree_structure(tree)
    for got, want in zip(back, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_empty_tree():
    flat, unravel = ravel_pytree({"a": [], "b": None})
    assert flat.shape == (0,) and flat.dtype == np.float64
    assert unravel(flat) == {"a": [], "b": None}


def test_one_dtype_unravel_keeps_the_vector_dtype():
    flat, unravel = ravel_pytree([np.ones(2, np.float32), np.ones(3, np.float32)])
    out = unravel(jnp.arange(5, dtype=jnp.float64))
    assert [x.dtype for x in out] == [np.float64, np.float64]


def test_unravel_errors_are_named():
    flat, unravel = ravel_pytree([np.ones(2, np.int32), np.ones(1)])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        unravel(jnp.ones(4))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        unravel(jnp.ones((1, 3)))
    with pytest.raises(TypeError, match="float64"):
        unravel(jnp.ones(3, jnp.float32))


def test_under_jit_grad_and_vmap():
    params = {"w": np.arange(6.0).reshape(2, 3), "b": np.array([0.5, -1.0])}
    flat, unravel = ravel_pytree(params)

    def loss(p):
        return jnp.sum(jnp.tanh(p["w"]) ** 2) + jnp.sum(p["b"] ** 3)

    # the gradient of the flat function is the raveled gradient of the tree function
    g_flat = minijax.grad(lambda v: loss(unravel(v)))(flat)
    g_tree = ravel_pytree(minijax.grad(loss)(params))[0]
    np.testing.assert_allclose(np.asarray(g_flat), np.asarray(g_tree), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(minijax.jit(lambda p: ravel_pytree(p)[0])(params)),
                               np.asarray(flat))
    # unravel is hashable and equal across calls: a static argument of jit
    assert hash(unravel) == hash(ravel_pytree(params)[1]) and unravel == ravel_pytree(params)[1]
    f = minijax.jit(lambda u, v: loss(u(v)), static_argnums=0)
    np.testing.assert_allclose(float(f(unravel, flat)), float(loss(params)))
    batch = jnp.stack([flat, 2 * flat])
    out = minijax.vmap(unravel)(batch)
    np.testing.assert_array_equal(np.asarray(out["w"][1]), 2 * params["w"])
