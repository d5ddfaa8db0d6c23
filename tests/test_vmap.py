"""vmap: axis specifications, sizes, nesting and composition with jit/grad."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import jit, vmap

rng = onp.random.default_rng(0)
A = rng.normal(size=(4, 3))
B = rng.normal(size=(3, 5))


def loop(fn, args, in_axes, out_axis=0):
    n = next(onp.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [onp.asarray(fn(*[a if ax is None else onp.take(a, i, ax)
                             for a, ax in zip(args, in_axes)])) for i in range(n)]
    return onp.stack(outs, axis=out_axis)


@pytest.mark.parametrize("in_axes", [(0, None), (1, None), (-1, None), (None, 1), (0, 1)])
def test_in_axes(in_axes):
    fn = lambda a, b: np.tanh(np.dot(a, b) if np.ndim(a) and np.ndim(b) else a * b)
    a = rng.normal(size=(3, 3))
    b = rng.normal(size=(3, 3))
    onp.testing.assert_allclose(onp.asarray(vmap(fn, in_axes)(a, b)), loop(fn, (a, b), in_axes),
                                rtol=1e-12)


@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_out_axes(out_axes):
    fn = lambda a: np.sin(a) * 2
    out = vmap(fn, 0, out_axes)(A)
    onp.testing.assert_allclose(onp.asarray(out), loop(fn, (A,), (0,), out_axis=out_axes))


def test_pytree_axes_and_out_axes_none():
    def fn(p, x):
        return {"out": p["w"] * x, "const": p["c"]}
    p = {"w": A, "c": 3.0}
    out = vmap(fn, in_axes=({"w": 0, "c": None}, 0), out_axes={"out": 0, "const": None})(p, A)
    onp.testing.assert_allclose(onp.asarray(out["out"]), A * A)
    assert float(out["const"]) == 3.0
    with pytest.raises(ValueError, match="out_axes=None"):
        vmap(lambda x: x * 2, out_axes=None)(A)


def test_axis_size_and_unmapped():
    out = vmap(lambda: np.ones(2), in_axes=(), axis_size=3)()
    assert out.shape == (3, 2)
    with pytest.raises(ValueError, match="axis_size"):
        vmap(lambda x: x, in_axes=None)(A)


def test_inconsistent_sizes():
    with pytest.raises(ValueError, match=r"inconsistent sizes.*\[3, 4\]"):
        vmap(lambda a, b: a, in_axes=(0, 0))(onp.ones(3), onp.ones(4))
    with pytest.raises(ValueError, match="out of range"):
        vmap(lambda a: a, in_axes=2)(onp.ones((2, 2)))
    with pytest.raises(ValueError, match="in_axes"):
        vmap(lambda a, b: a, in_axes=(0,))(A, A)


def test_nested_and_composed():
    f = lambda x, y: np.sum(x * y)
    outer = vmap(vmap(f, (None, 0)), (0, None))
    onp.testing.assert_allclose(onp.asarray(outer(A, A)), A @ A.T, rtol=1e-12)
    onp.testing.assert_allclose(onp.asarray(jit(outer)(A, A)), A @ A.T, rtol=1e-12)
    onp.testing.assert_allclose(onp.asarray(vmap(jit(lambda v: v @ B))(A)), A @ B, rtol=1e-12)
    g = vmap(minijax.grad(lambda x: np.sum(np.sin(x) ** 2)))(A)
    onp.testing.assert_allclose(onp.asarray(g), 2 * onp.sin(A) * onp.cos(A), rtol=1e-12)


def test_batched_cond_predicate_becomes_select():
    fn = lambda x: minijax.lax.cond(x > 0, lambda v: v * 2, lambda v: -v, x)
    xs = onp.array([-1.0, 2.0, -3.0, 4.0])
    onp.testing.assert_allclose(onp.asarray(vmap(fn)(xs)), [1.0, 4.0, 3.0, 8.0])
    onp.testing.assert_allclose(onp.asarray(jit(vmap(fn))(xs)), [1.0, 4.0, 3.0, 8.0])
    g = vmap(minijax.grad(fn))(xs)
    onp.testing.assert_allclose(onp.asarray(g), [-1.0, 2.0, -1.0, 2.0])
    text = jit(vmap(fn)).lower(xs).as_text()
    assert "stablehlo.select" in text


def test_switch_under_transformations():
    branches = [lambda v: v, lambda v: v * v, lambda v: np.sin(v)]
    fn = lambda i, x: minijax.lax.switch(i, branches, x)
    assert float(fn(1, 3.0)) == 9.0
    assert float(fn(7, 3.0)) == pytest.approx(onp.sin(3.0))   # index clamped
    assert float(jit(fn)(0, 3.0)) == 3.0
    assert float(minijax.grad(fn, argnums=1)(1, 3.0)) == 6.0
    out = vmap(fn)(onp.array([0, 1, 2]), onp.array([2.0, 2.0, 2.0]))
    onp.testing.assert_allclose(onp.asarray(out), [2.0, 4.0, onp.sin(2.0)])
