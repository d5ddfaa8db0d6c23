"""Derivatives of minijax.random samplers with respect to their shape parameters
(implicit reparameterisation through lax.random_gamma_grad), against JAX's and against
finite differences of the quantile function."""

import jax
import jax.random as jr
import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
import minijax.random as mr
from minijax.config import config

A = np.array([0.05, 0.3, 1.0, 2.5, 7.0, 40.0, 300.0])
B = np.array([0.5, 2.0, 3.0, 1.0, 9.0, 0.2, 60.0])
W = np.arange(1.0, 8.0)


@pytest.fixture(params=[True, False], ids=["x64", "x32"])
def mode(request):
    old = config.enable_x64
    config.update("enable_x64", request.param)
    jax.config.update("jax_enable_x64", request.param)
    yield request.param
    config.update("enable_x64", old)
    jax.config.update("jax_enable_x64", False)


def _losses(r, key):
    """Scalar functions of the parameters through each gamma-based sampler."""
    return {
        "gamma": lambda a: (r.gamma(key, a) * W).sum(),
        "loggamma": lambda a: (r.loggamma(key, a) * W).sum(),
        "beta_a": lambda a: (r.beta(key, a, B) * W).sum(),
        "beta_b": lambda b: (r.beta(key, A, b) * W).sum(),
        "dirichlet": lambda a: (r.dirichlet(key, a) * W).sum(),
        "chisquare": lambda a: (r.chisquare(key, a) * W).sum(),
        "t": lambda a: (r.t(key, a) * W).sum(),
    }


@pytest.mark.parametrize("name", sorted(_losses(mr, None)))
def test_sampler_gradients_match_jax(mode, name):
    dtype = np.float64 if mode else np.float32
    params = (B if name == "beta_b" else A).astype(dtype)
    ours = minijax.grad(_losses(mr, mr.key(11))[name])(params)
    theirs = jax.grad(_losses(jr, jr.key(11))[name])(params)
    assert np.asarray(ours).dtype == np.asarray(theirs).dtype
    rtol = 1e-10 if mode else 2e-4
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=rtol, atol=1e-30)


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
        _, tangent = minijax.jvp(lambda a: mr.gamma(keys[0], a), (jnp.asarray(A),),
                                 (jnp.ones_like(A),))
        np.testing.assert_allclose(np.asarray(tangent), np.asarray(per_key[0]), rtol=1e-12)
    finally:
        config.update("enable_x64", False)
