"""minijax.nn.initializers: JAX's names and signatures, and (with minijax.random's
bits being JAX's) JAX's numbers for the same key; shapes, dtypes and statistics."""

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import minijax.numpy as mnp
from minijax import random
from minijax.nn import initializers as init

FACTORIES = {
    "glorot_uniform": (), "glorot_normal": (), "xavier_uniform": (), "xavier_normal": (),
    "he_uniform": (), "he_normal": (), "kaiming_uniform": (), "kaiming_normal": (),
    "lecun_uniform": (), "lecun_normal": (), "normal": (0.5,), "uniform": (2.0,),
    "truncated_normal": (0.3,), "orthogonal": (1.5,), "constant": (2.5,),
    "variance_scaling": (2.0, "fan_avg", "uniform"), "delta_orthogonal": (),
}


def test_names_and_signatures_match_jax():
    theirs = {n for n in dir(jax.nn.initializers) if not n.startswith("_") and n != "Initializer"}
    assert theirs <= set(dir(init))
    for name in sorted(theirs - {"zeros", "ones"}):
        ours = [(p.name, p.default) for p in inspect.signature(getattr(init, name)).parameters.values()]
        ref = [(p.name, p.default) for p in
               inspect.signature(getattr(jax.nn.initializers, name)).parameters.values()]
        assert ours == ref, name


@pytest.mark.parametrize("name", sorted(FACTORIES))
@pytest.mark.parametrize("seed", [0, 7])
def test_same_numbers_as_jax(name, seed):
    shape = (3, 3, 4, 6) if name == "delta_orthogonal" else (5, 4, 6)
    ours = getattr(init, name)(*FACTORIES[name])(random.key(seed), shape, np.float32)
    theirs = getattr(jax.nn.initializers, name)(*FACTORIES[name])(jax.random.key(seed), shape,
                                                                  jnp.float32)
    assert ours.shape == theirs.shape and ours.dtype == np.float32
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=2e-6)


def test_zeros_ones_and_default_dtype():
    key = random.key(0)
    assert init.zeros(key, (2, 3)).dtype == np.float64
    np.testing.assert_array_equal(np.asarray(init.ones(key, (2,), np.float32)), [1.0, 1.0])
    w = init.he_normal()(key, (3, 4))
    assert w.dtype == np.float64 and w.shape == (3, 4)
    with pytest.raises(NotImplementedError, match="complex"):
        init.normal()(key, (2,), np.complex64)


def test_variance_scaling_statistics_and_orthogonality():
    key = random.key(1)
    fan_in, fan_out = 400, 300
    for dist in ("normal", "truncated_normal", "uniform"):
        w = np.asarray(init.variance_scaling(2.0, "fan_in", dist)(key, (fan_in, fan_out)))
        assert abs(w.var() - 2.0 / fan_in) < 0.05 * 2.0 / fan_in, dist
        assert abs(w.mean()) < 0.01
    w = np.asarray(init.variance_scaling(1.0, "fan_in", "truncated_normal")(key, (50, 60)))
    assert np.abs(w).max() <= 2 / 0.87962566103423978 / np.sqrt(50) + 1e-12
    q = np.asarray(init.orthogonal()(key, (6, 4)))
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-12)
    q = np.asarray(init.orthogonal(column_axis=0)(key, (3, 8)))
    np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-12)
    with pytest.raises(ValueError, match="mode"):
        init.variance_scaling(1.0, "fan_sideways", "normal")
    with pytest.raises(ValueError, match="rank 2"):
        init.glorot_uniform()(key, (5,))


@pytest.mark.xla_defaults   # (at -O0, XLA's batched and unbatched code differ in the last bit)
def test_initializers_under_jit_and_vmap():
    import minijax
    keys = random.split(random.key(3), 4)
    f = init.glorot_normal()
    batched = minijax.vmap(lambda k: f(k, (3, 5)))(keys)
    for i in range(4):
        np.testing.assert_array_equal(np.asarray(batched[i]), np.asarray(f(keys[i], (3, 5))))
    jitted = minijax.jit(lambda k: f(k, (3, 5)))(keys[0])
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(f(keys[0], (3, 5))))
    assert isinstance(mnp.asarray(jitted), minijax.Array)
