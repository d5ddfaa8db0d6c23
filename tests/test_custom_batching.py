"""``minijax.custom_batching``: custom_vmap rules are called as JAX calls them, and agree
with the function batched op by op; sequential_vmap."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import ShapeDtypeStruct
from minijax.custom_batching import custom_vmap, sequential_vmap


def _sin_times(calls):
    @custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, x, y):
        calls.append((axis_size, list(in_batched)))
        return jnp.sin(x) * y, in_batched[0] or in_batched[1]
    return f


X = np.arange(3.0)


def test_rule_called_with_jaxs_arguments():
    jax = pytest.importorskip("jax")
    from jax.custom_batching import custom_vmap as jax_custom_vmap
    ours, theirs = [], []

    @jax_custom_vmap
    def g(x, y):
        return jax.numpy.sin(x) * y

    @g.def_vmap
    def rule(axis_size, in_batched, x, y):
        theirs.append((axis_size, list(in_batched)))
        return jax.numpy.sin(x) * y, in_batched[0] or in_batched[1]
    f = _sin_times(ours)
    for in_axes, args in [((0, 0), (X, X + 1)), ((0, None), (X, 2.0)), ((None, 0), (2.0, X))]:
        with jax.enable_x64(True):
            want = jax.vmap(g, in_axes=in_axes)(*args)
        got = minijax.vmap(f, in_axes=in_axes)(*args)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)
    assert ours == theirs


def test_values_under_transformations():
    calls = []
    f = _sin_times(calls)
    want = np.sin(X) * (X + 1)
    assert float(f(1.0, 2.0)) == pytest.approx(np.sin(1.0) * 2.0)
    np.testing.assert_allclose(np.asarray(minijax.jit(minijax.vmap(f))(X, X + 1)), want)
    assert calls[-1] == (3, [True, True])
    both = np.stack([X, 2 * X])
    np.testing.assert_allclose(np.asarray(minijax.vmap(minijax.vmap(f))(both, both)),
                               np.sin(both) * both)
    # forward mode: through the function, and under vmap through the rule's JVP
    _, t = minijax.jvp(f, (1.0, 2.0), (1.0, 0.5))
    assert float(t) == pytest.approx(np.cos(1.0) * 2.0 + np.sin(1.0) * 0.5)
    calls.clear()
    _, tb = minijax.vmap(lambda x: minijax.jvp(f, (x, 2.0), (1.0, 0.0)))(X)
    np.testing.assert_allclose(np.asarray(tb), 2 * np.cos(X))
    assert calls and calls[-1][1] == [True, False]
    jac = minijax.jacfwd(lambda x: minijax.vmap(f, in_axes=(0, None))(x, 2.0))(X)
    np.testing.assert_allclose(np.asarray(jac), np.diag(2 * np.cos(X)), atol=1e-15)


def test_the_rule_decides_what_vmap_gives():
    @custom_vmap
    def f(x):
        return x * 2.0

    @f.def_vmap
    def rule(axis_size, in_batched, x):
        return x * 3.0, in_batched[0]   # (a rule may compute something else: it is used)
    np.testing.assert_allclose(np.asarray(minijax.vmap(f)(X)), 3 * X)
    np.testing.assert_allclose(np.asarray(f(X)), 2 * X)


def test_sequential_vmap_runs_per_element():
    seen = []

    def host(v):
        seen.append(np.asarray(v).shape)
        return np.asarray(v) * 2

    @sequential_vmap
    def g(x):
        return minijax.pure_callback(host, ShapeDtypeStruct(x.shape, x.dtype), x)
    out = minijax.vmap(g)(np.ones((3, 2)))
    np.testing.assert_allclose(np.asarray(out), 2 * np.ones((3, 2)))
    assert seen == [(2,)] * 3
    summed = minijax.vmap(sequential_vmap(lambda x, y: x.sum() + y), in_axes=(0, None))(
        np.ones((4, 2)), 1.0)
    np.testing.assert_allclose(np.asarray(summed), 3.0 * np.ones(4))


def test_named_errors():
    @custom_vmap
    def no_rule(x):
        return x
    with pytest.raises(AttributeError, match="def_vmap"):
        no_rule(1.0)
    f = _sin_times([])
    with pytest.raises(NotImplementedError, match="reverse mode"):
        minijax.grad(f)(1.0, 2.0)

    @custom_vmap
    def bad(x):
        return x

    @bad.def_vmap
    def bad_rule(axis_size, in_batched, x):
        return x[0], True   # claims batched, returns one element
    with pytest.raises(ValueError, match="shape"):
        minijax.vmap(bad)(X)

    @bad.def_vmap
    def bad_flags(axis_size, in_batched, x):
        return x, "yes"
    with pytest.raises(TypeError, match="out_batched"):
        minijax.vmap(bad)(X)

    def closes_over(w):
        @custom_vmap
        def h(x):
            return x * w

        @h.def_vmap
        def rule(axis_size, in_batched, x):
            return x * w, in_batched[0]
        return h(1.0)
    with pytest.raises(NotImplementedError, match="as an argument"):
        minijax.vmap(closes_over)(X)
