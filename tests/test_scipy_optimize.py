"""minijax.scipy.optimize.minimize (BFGS) against scipy.optimize.minimize."""

import numpy as np
import pytest
import scipy.optimize as so

import minijax
import minijax.numpy as jnp
from minijax.scipy.optimize import OptimizeResults, minimize


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_np(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@pytest.mark.parametrize("x0", [[-1.2, 1.0], [0.0, 0.0, 0.0, 0.0], [2.0, -1.0, 0.5]])
def test_rosenbrock_matches_scipy(x0):
    x0 = np.array(x0)
    ours = minimize(rosenbrock, x0, method="BFGS")
    theirs = so.minimize(rosenbrock_np, x0, method="BFGS")
    assert isinstance(ours, OptimizeResults)
    assert bool(ours.success) and int(ours.status) == 0
    np.testing.assert_allclose(np.asarray(ours.x), theirs.x, atol=1e-4)
    np.testing.assert_allclose(np.asarray(ours.x), np.ones_like(x0), atol=1e-4)
    assert float(ours.fun) < 1e-9
    assert np.max(np.abs(np.asarray(ours.jac))) <= 1e-5
    assert int(ours.nit) > 0 and int(ours.nfev) >= int(ours.nit)


def test_quadratic_with_args_and_hessian_estimate():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4))
    q = a @ a.T + np.eye(4)
    b = rng.standard_normal(4)

    def f(x, q, b):
        return 0.5 * x @ q @ x - b @ x

    res = minimize(f, np.zeros(4), args=(jnp.asarray(q), jnp.asarray(b)), method="bfgs",
                   options={"gtol": 1e-10})
    np.testing.assert_allclose(np.asarray(res.x), np.linalg.solve(q, b), rtol=1e-7)
    np.testing.assert_allclose(np.asarray(res.hess_inv), np.linalg.inv(q), rtol=1e-2, atol=1e-2)


def test_jit_and_limits():
    x0 = jnp.asarray([-1.2, 1.0])
    eager = minimize(rosenbrock, x0, method="BFGS")
    jitted = minijax.jit(lambda x: minimize(rosenbrock, x, method="BFGS"))(x0)
    np.testing.assert_allclose(np.asarray(jitted.x), np.asarray(eager.x), rtol=1e-10)
    assert int(jitted.nit) == int(eager.nit)
    capped = minimize(rosenbrock, x0, method="BFGS", options={"maxiter": 3})
    assert int(capped.nit) == 3 and int(capped.status) == 1 and not bool(capped.success)


def test_errors():
    with pytest.raises(NotImplementedError, match="method='Nelder-Mead'"):
        minimize(rosenbrock, np.zeros(2), method="Nelder-Mead")
    with pytest.raises(TypeError, match="unknown options"):
        minimize(rosenbrock, np.zeros(2), method="BFGS", options={"disp": True})
    with pytest.raises(ValueError, match="one-dimensional"):
        minimize(rosenbrock, np.zeros((2, 2)), method="BFGS")
