"""Two CPU devices (the suite runs with ``MINIJAX_CPU_DEVICE_COUNT=2``, tests/conftest.py):
a computation runs where its committed inputs live, eagerly (both eager backends), under
``jit``, ``grad`` and ``vmap``, and gives NumPy's values there."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax.config import config

X = onp.arange(12.0).reshape(3, 4) / 7.0
A = onp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def _program(xp, x, a):
    y = xp.sin(x) * 2.0 + x.sum(axis=0)
    z = a @ xp.linalg.solve(a, y[:, :3])
    return xp.concatenate([y[1:, ::2].ravel(), xp.sort(z, axis=None), xp.cumsum(x[0])])


@pytest.fixture
def second():
    devices = minijax.devices()
    assert len(devices) >= 2, "the suite runs with two CPU devices (tests/conftest.py)"
    return devices[1]


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_eager_runs_on_the_committed_device(second, backend):
    config.update("eager_backend", backend)
    x, a = minijax.device_put(X, second), minijax.device_put(A, second)
    out = _program(np, x, a)
    assert out.device == second and out.committed()
    onp.testing.assert_allclose(onp.asarray(out), _program(onp, X, A), rtol=1e-12)


def test_jit_grad_and_vmap_run_on_the_committed_device(second):
    x, a = minijax.device_put(X, second), minijax.device_put(A, second)
    out = minijax.jit(lambda x, a: _program(np, x, a))(x, a)
    assert out.device == second
    onp.testing.assert_allclose(onp.asarray(out), _program(onp, X, A), rtol=1e-12)

    g = minijax.jit(minijax.grad(lambda x: np.sum(np.sin(x) ** 2)))(x)
    assert g.device == second
    onp.testing.assert_allclose(onp.asarray(g), onp.sin(2 * X), rtol=1e-12)

    rows = minijax.vmap(lambda r: np.dot(a, r[:3]))(x)
    assert rows.device == second
    onp.testing.assert_allclose(onp.asarray(rows), X[:, :3] @ A.T, rtol=1e-12)


def test_the_same_program_on_each_device_and_back(second):
    first = minijax.devices()[0]
    f = minijax.jit(lambda v: np.tanh(v) @ v.T)
    outs = [f(minijax.device_put(X, d)) for d in (first, second, first)]
    assert [o.device for o in outs] == [first, second, first]
    for o in outs:
        onp.testing.assert_allclose(onp.asarray(o), onp.tanh(X) @ X.T, rtol=1e-12)
    moved = minijax.device_put(outs[1], first)
    assert moved.device == first
    onp.testing.assert_array_equal(onp.asarray(moved), onp.asarray(outs[1]))


def test_inputs_committed_to_two_devices_are_refused(second):
    x = minijax.device_put(X, second)
    y = minijax.device_put(X, minijax.devices()[0])
    for run in (lambda: x + y, lambda: minijax.jit(lambda a, b: a * b)(x, y)):
        with pytest.raises(ValueError, match="committed to different devices"):
            run()
