"""Derivatives of minijax.random samplers with respect to their shape parameters
(implicit reparameterisation through lax.random_gamma_grad), against JAX's and against
finite differences of the quantile function."""

import jax
import jax.random as jr
import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.random as mr
from minijax.config import config

A = np.array([0.05, 0.3, 1.0, 2.5, 7.0, 40.0, 300.0])
B = np.array([0.5, 2.0, 3.0, 1.0, 9.0, 0.2, 60.0])
W = np.arange(1.0, 8.0)


def _losses(r, key):
    """Scalar functions of the parameters through the gamma-based samplers (loggamma,
    chisquare and t share the log-space and plain gamma paths these exercise)."""
    return {
        "gamma": lambda a: (r.gamma(key, a) * W).sum(),
        "beta": lambda a, b: (r.beta(key, a, b) * W).sum(),
        "dirichlet": lambda a: (r.dirichlet(key, a) * W).sum(),
    }


# Each case compiles a sampler and its derivative in both libraries (~10 s each on a
# loaded machine), so float32 checks the plain gamma path only.
CASES = [(True, "gamma"), (True, "beta"), (True, "dirichlet"), (False, "gamma")]


@pytest.mark.parametrize("x64,name", CASES, ids=[f"{'x64' if m else 'x32'}-{n}"
                                                  for m, n in CASES])
def test_sampler_gradients_match_jax(x64, name):
    old = config.enable_x64
    config.update("enable_x64", x64)
    jax.config.update("jax_enable_x64", x64)
    try:
        dtype = np.float64 if x64 else np.float32
        args = (A.astype(dtype), B.astype(dtype))[:2 if name == "beta" else 1]
        argnums = tuple(range(len(args)))
        ours = minijax.grad(_losses(mr, mr.key(11))[name], argnums=argnums)(*args)
        theirs = jax.grad(_losses(jr, jr.key(11))[name], argnums=argnums)(*args)
    finally:
        config.update("enable_x64", old)
        jax.config.update("jax_enable_x64", False)
    rtol = 1e-10 if x64 else 2e-4
    for o, t in zip(ours, theirs):
        assert np.asarray(o).dtype == np.asarray(t).dtype == dtype
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=rtol, atol=1e-30)


def test_gamma_gradient_is_the_quantile_derivative():
    # x = F^-1(u; a) with u fixed by the key: dx/da by central differences of gammaincinv
    config.update("enable_x64", True)
    try:
        key = mr.key(5)
        x = np.asarray(mr.gamma(key, A))
        g = np.asarray(minijax.grad(lambda a: mr.gamma(key, a).sum())(A))
        u = ss.gammainc(A, x)
        h = 1e-6 * A
        fd = (ss.gammaincinv(A + h, u) - ss.gammaincinv(A - h, u)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-5)
    finally:
        config.update("enable_x64", False)


def test_gradients_under_jit_vmap_and_jvp_agree():
    config.update("enable_x64", True)
    try:
        keys = mr.split(mr.key(2), 3)
        loss = lambda k, a: mr.gamma(k, a).sum()  # noqa: E731
        per_key = minijax.vmap(minijax.grad(loss, argnums=1), in_axes=(0, None))(keys, A)
        for i in range(3):
            np.testing.assert_allclose(np.asarray(per_key[i]),
                                       np.asarray(minijax.grad(loss, argnums=1)(keys[i], A)),
                                       rtol=1e-12)
        jitted = minijax.jit(minijax.grad(loss, argnums=1))(keys[0], A)
        np.testing.assert_allclose(np.asarray(jitted), np.asarray(per_key[0]), rtol=1e-12)
    finally:
        config.update("enable_x64", False)
