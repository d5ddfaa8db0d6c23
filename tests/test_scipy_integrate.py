"""minijax.scipy.integrate.odeint (= minijax.experimental.ode.odeint): values against
SciPy's odeint/solve_ivp, reverse-mode derivatives against JAX's odeint, jit and vmap."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
import scipy.integrate as si
from jax.experimental.ode import odeint as jax_odeint

import minijax
import minijax.numpy as jnp
from minijax.experimental import ode
from minijax.scipy.integrate import odeint, trapezoid

TS = np.linspace(0.0, 6.0, 13)
Y0 = np.array([1.0, 0.0])
K = 2.0


def pendulum(y, t, k):
    return jnp.stack([y[1], -k * jnp.sin(y[0]) - 0.1 * y[1] + 0.2 * jnp.cos(t)])


def pendulum_np(y, t, k):
    return np.array([y[1], -k * np.sin(y[0]) - 0.1 * y[1] + 0.2 * np.cos(t)])


def pendulum_jax(y, t, k):
    return jjnp.stack([y[1], -k * jjnp.sin(y[0]) - 0.1 * y[1] + 0.2 * jjnp.cos(t)])


def reference(y0, ts, k):
    return si.odeint(pendulum_np, y0, ts, args=(k,), rtol=1e-13, atol=1e-13)


def test_values_match_scipy_eager_and_jit():
    want = reference(Y0, TS, K)
    got = odeint(pendulum, Y0, TS, K)
    assert got.shape == (13, 2) and got.dtype == np.float64
    # the default tolerances (1.4e-8) bound each step's error, not the global error
    np.testing.assert_allclose(np.asarray(got), want, rtol=0, atol=1e-6)
    tight = odeint(pendulum, Y0, TS, K, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tight), want, rtol=0, atol=1e-10)
    jitted = minijax.jit(lambda y0, ts, k: odeint(pendulum, y0, ts, k))(Y0, TS, K)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(got), rtol=1e-12, atol=1e-14)
    assert ode.odeint is odeint


def test_linear_system_matches_solve_ivp_and_exact():
    # a linear system with a known solution, and solve_ivp as a second oracle
    a = np.array([[-0.5, 1.0], [-1.0, -0.5]])
    ts = np.array([0.0, 0.1, 1.0, 3.0, 10.0])
    got = odeint(lambda y, t: jnp.asarray(a) @ y, Y0, ts, rtol=1e-11, atol=1e-12)
    sol = si.solve_ivp(lambda t, y: a @ y, (0.0, 10.0), Y0, t_eval=ts, rtol=1e-12,
                       atol=1e-13, method="DOP853")
    np.testing.assert_allclose(np.asarray(got), sol.y.T, rtol=0, atol=1e-10)
    exact = np.exp(-0.5 * ts)[:, None] * np.stack([np.cos(ts), -np.sin(ts)], axis=1)
    np.testing.assert_allclose(np.asarray(got), exact, rtol=0, atol=1e-10)


def test_pytree_state_closures_and_float32():
    scale = jnp.asarray(0.3)

    def f(state, t):
        return {"x": -scale * state["x"], "v": state["x"][:1] * t}

    y0 = {"x": jnp.asarray([1.0, 2.0]), "v": jnp.asarray([0.0])}
    out = odeint(f, y0, np.array([0.0, 1.0, 2.0]))
    assert out["x"].shape == (3, 2) and out["v"].shape == (3, 1)
    np.testing.assert_allclose(np.asarray(out["x"][:, 1]), 2 * np.exp(-0.3 * np.arange(3)),
                               rtol=1e-7)
    # closed-over values get derivatives too
    g = minijax.grad(lambda s: odeint(lambda y, t: -s * y, 1.0, np.array([0.0, 2.0]))[1])(0.3)
    np.testing.assert_allclose(float(g), -2 * np.exp(-0.6), rtol=1e-6)
    y32 = odeint(lambda y, t: -y, np.float32(1.0), np.float32([0.0, 1.0]))
    assert y32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(y32), np.exp([0.0, -1.0]), rtol=1e-6)


def test_gradients_match_jax():
    def loss(odeint_fn, f, np_mod):
        def inner(y0, ts, k):
            ys = odeint_fn(f, y0, ts, k, rtol=1e-11, atol=1e-11)
            return np_mod.sum(ys[-4:] ** 2) + np_mod.sum(ys[3])
        return inner

    ours = minijax.grad(loss(odeint, pendulum, jnp), argnums=(0, 1, 2))(Y0, TS, K)
    with jax.enable_x64(True):
        theirs = jax.grad(loss(jax_odeint, pendulum_jax, jjnp), argnums=(0, 1, 2))(Y0, TS, K)
        theirs = [np.asarray(x) for x in theirs]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-7, atol=1e-9)
    # and against central differences of the (tightly solved) forward map in k
    eps = 1e-5
    fd = (loss(odeint, pendulum, jnp)(Y0, TS, K + eps)
          - loss(odeint, pendulum, jnp)(Y0, TS, K - eps)) / (2 * eps)
    np.testing.assert_allclose(float(ours[2]), float(fd), rtol=1e-6)


def test_jit_and_vmap():
    y0s = np.stack([Y0, np.array([0.5, 0.3]), np.array([-1.0, 1.0])])
    ks = np.array([1.0, 2.0, 3.0])
    solve = lambda y0, k: odeint(pendulum, y0, TS, k)  # noqa: E731
    batched = minijax.vmap(solve)(y0s, ks)
    assert batched.shape == (3, 13, 2)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(batched[i]), reference(y0s[i], TS, ks[i]),
                                   rtol=0, atol=1e-6)
    jitted = minijax.jit(minijax.vmap(solve))(y0s, ks)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(batched), rtol=1e-9, atol=1e-12)
    grads = minijax.vmap(minijax.grad(lambda k: jnp.sum(solve(Y0, k)[-1])))(ks)
    for i in range(3):
        single = minijax.grad(lambda k: jnp.sum(solve(Y0, k)[-1]))(ks[i])
        np.testing.assert_allclose(float(grads[i]), float(single), rtol=1e-6)


def test_mxstep_hmax_and_errors():
    few = odeint(pendulum, Y0, TS, K, mxstep=3)
    assert np.isnan(np.asarray(few)[-1]).all() and not np.isnan(np.asarray(few)[0]).any()
    capped = odeint(pendulum, Y0, TS, K, hmax=0.01)
    np.testing.assert_allclose(np.asarray(capped), reference(Y0, TS, K), rtol=0, atol=1e-6)
    with pytest.raises(TypeError, match="args"):
        odeint(pendulum, Y0, TS, "2")
    with pytest.raises(ValueError, match="rtol"):
        odeint(pendulum, Y0, TS, K, rtol=-1.0)
    with pytest.raises(ValueError, match="1-d"):
        odeint(pendulum, Y0, 1.0, K)


def test_trapezoid_is_scipys():
    y = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    x = np.array([0.0, 0.5, 2.0])
    for kwargs in ({}, {"x": x}, {"dx": 0.3}, {"axis": 0}):
        np.testing.assert_allclose(np.asarray(trapezoid(y, **kwargs)),
                                    si.trapezoid(y, **kwargs), rtol=1e-14)
