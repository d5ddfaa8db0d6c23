"""checkpoint / remat: the backward pass recomputes the forward pass (counted in the
jaxpr), policies choose what is saved, and values match the unchecked function under
jit, vmap, scan and grad of grad."""

import contextlib
import io
import re

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as onp
import pytest

import minijax
import minijax.ad_checkpoint
import minijax.numpy as np
from minijax import checkpoint, checkpoint_policies, grad, jit, lax, make_jaxpr, remat, vmap
from minijax.checkpoint import name_p
from minijax.core import ClosedJaxpr, Jaxpr
from minijax.tree_util import tree_leaves
from minijax.test_util import check_grads


def _count(jaxpr, name):
    """Applications of primitive ``name`` in ``jaxpr`` and all of its sub-jaxprs."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    n = 0
    for e in jaxpr.eqns:
        n += e.primitive.name == name
        for p in e.params.values():
            for sub in (p if isinstance(p, (tuple, list)) else [p]):
                if isinstance(sub, (Jaxpr, ClosedJaxpr)):
                    n += _count(sub, name)
    return n


def chain(x, depth=4):
    for _ in range(depth):
        x = np.sin(x)
    return x


def test_backward_pass_recomputes_forward():
    x = np.array([0.2, 0.4])
    plain = make_jaxpr(grad(lambda v: chain(v).sum()))(x)
    remat_j = make_jaxpr(grad(lambda v: checkpoint(chain)(v).sum()))(x)
    assert _count(plain, "sin") == 4          # each sin once, cos for its derivative
    # forward (4), then again in the backward pass: the 3 whose outputs feed a cos
    assert _count(remat_j, "sin") == 4 + 3
    assert _count(remat_j, "remat") >= 1
    onp.testing.assert_allclose(grad(lambda v: checkpoint(chain)(v).sum())(x),
                                grad(lambda v: chain(v).sum())(x), rtol=1e-14)


def test_policy_dots_saveable_saves_matmuls_recomputes_the_rest():
    def mlp(W, x):
        return np.tanh(W @ np.tanh(W @ x))
    W, x = np.asarray(onp.eye(3) * 0.3 + 0.1), np.array([0.5, -1.0, 2.0])
    loss = lambda f: (lambda W: f(W, x).sum())   # noqa: E731
    plain = make_jaxpr(grad(loss(mlp)))(W)
    nothing = make_jaxpr(grad(loss(checkpoint(mlp))))(W)
    dots = make_jaxpr(grad(loss(checkpoint(mlp, policy=checkpoint_policies.dots_saveable))))(W)
    everything = make_jaxpr(grad(loss(checkpoint(
        mlp, policy=checkpoint_policies.everything_saveable))))(W)
    n_dot = _count(plain, "dot_general")
    assert _count(nothing, "dot_general") == n_dot + 2   # both forward matmuls recomputed
    assert _count(dots, "dot_general") == n_dot          # matmuls saved ...
    assert _count(dots, "tanh") == _count(plain, "tanh") + 2   # ... tanh recomputed
    assert _count(everything, "tanh") == _count(plain, "tanh")
    expect = grad(loss(mlp))(W)
    for pol in (None, checkpoint_policies.dots_saveable,
                checkpoint_policies.dots_with_no_batch_dims_saveable,
                checkpoint_policies.everything_saveable):
        got = grad(loss(checkpoint(mlp, policy=pol)))(W)
        onp.testing.assert_allclose(got, expect, rtol=1e-13)
        onp.testing.assert_allclose(jit(grad(loss(checkpoint(mlp, policy=pol))))(W), expect,
                                    rtol=1e-13)


def test_checkpoint_composes():
    f = remat(lambda x: np.sin(x) * np.exp(-x))
    check_grads(f, (0.7,), order=2)
    xs = np.array([0.1, 0.5, 0.9])
    expect = grad(lambda x: np.sin(x) * np.exp(-x))
    onp.testing.assert_allclose(vmap(grad(f))(xs), vmap(expect)(xs), rtol=1e-14)
    onp.testing.assert_allclose(jit(vmap(grad(f)))(xs), vmap(expect)(xs), rtol=1e-14)
    onp.testing.assert_allclose(grad(lambda v: vmap(f)(v).sum())(xs), vmap(expect)(xs),
                                rtol=1e-14)
    onp.testing.assert_allclose(grad(grad(f))(0.4), grad(grad(lambda x: np.sin(x) * np.exp(-x)))(0.4),
                                rtol=1e-12)

    def scanned(x):
        return lax.scan(lambda c, _: (checkpoint(np.sin)(c) * 1.1, None), x, None, length=5)[0]
    check_grads(scanned, (0.3,), order=1)
    onp.testing.assert_allclose(jit(grad(scanned))(0.3), grad(scanned)(0.3), rtol=1e-13)
    onp.testing.assert_allclose(f(0.3), onp.sin(0.3) * onp.exp(-0.3))
    onp.testing.assert_allclose(jit(f)(0.3), onp.sin(0.3) * onp.exp(-0.3))


def test_static_argnums_and_errors():
    @checkpoint
    def plain(x, y):
        return x * y

    power = checkpoint(lambda x, n: x ** n, static_argnums=(1,))
    assert float(grad(lambda x: power(x, 3))(2.0)) == 12.0
    assert float(jit(grad(lambda x: power(x, 3)))(2.0)) == 12.0

    def loop(x, n):
        for _ in range(n):     # a Python loop over the static argument
            x = np.sin(x)
        return x
    looped = checkpoint(loop, static_argnums=1)
    onp.testing.assert_allclose(grad(looped)(0.5, 3), grad(lambda x: loop(x, 3))(0.5))
    assert float(grad(plain, argnums=1)(2.0, 3.0)) == 2.0
    with pytest.raises(TypeError, match="policy"):
        checkpoint(loop, policy="dots")
    with pytest.raises(ValueError, match="static_argnums"):
        grad(checkpoint(loop, static_argnums=4))(0.5, 3)
    with pytest.raises(minijax.errors.TracerIntegerConversionError):
        grad(checkpoint(loop))(0.5, 3.0)


def test_prevent_cse_puts_an_optimization_barrier_before_the_recomputation():
    x = np.array([0.2, 0.4])
    with_barrier = make_jaxpr(grad(lambda v: checkpoint(chain)(v).sum()))(x)
    without = make_jaxpr(grad(lambda v: checkpoint(chain, prevent_cse=False)(v).sum()))(x)
    assert _count(with_barrier, "optimization_barrier") == 1
    assert _count(without, "optimization_barrier") == 0
    assert "optimization_barrier" in jit(grad(lambda v: checkpoint(chain)(v).sum())).lower(x).as_text()
    for f in (grad(lambda v: checkpoint(chain, prevent_cse=False)(v).sum()),
              jit(grad(lambda v: checkpoint(chain)(v).sum()))):
        onp.testing.assert_allclose(f(x), grad(lambda v: chain(v).sum())(x), rtol=1e-14)
    # the barrier is the identity under every transformation
    from minijax.checkpoint import optimization_barrier_p
    check_grads(lambda v: optimization_barrier_p.bind(v * 2.0)[0] ** 2, (0.3,), order=2)
    onp.testing.assert_allclose(vmap(lambda v: optimization_barrier_p.bind(v)[0])(x), x)


# ---------------------------------------------------------------- names (jax.ad_checkpoint)

def _named_program(jx, jnp, ckpt):
    def f(x, w):
        a = ckpt.checkpoint_name(jnp.sin(x * w), "a")
        b = ckpt.checkpoint_name(jnp.cos(a) * x, "b")
        return jnp.sum(jnp.tanh(b) * a)
    pol = jx.checkpoint_policies
    x, w = jnp.arange(1.0, 4.0), jnp.array(0.5)
    grads, listings = [], []
    for p in [pol.save_only_these_names("a"), pol.save_any_names_but_these("a"),
              pol.save_only_these_names("a", "b"), pol.save_any_names_but_these()]:
        g = jx.checkpoint(f, policy=p)
        grads.append(jx.grad(g, argnums=(0, 1))(x, w))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ckpt.print_saved_residuals(g, x, w)
        # JAX computes in float32 and adds the source line of each equation
        listings.append(sorted(
            re.sub(r" from (?!the argument|a constant).*$", "", line).replace("f32", "f64")
            for line in out.getvalue().splitlines()))
    grads.append(jx.jit(jx.vmap(jx.grad(f), in_axes=(0, None)))(jnp.ones((2, 3)), w))
    return grads, listings


def test_checkpoint_names_and_saved_residuals_as_jax():
    want_g, want_l = _named_program(jax, jnp, jax.ad_checkpoint)
    got_g, got_l = _named_program(minijax, np, minijax.ad_checkpoint)
    assert got_l == want_l
    assert ["f64[3] named 'a'"] == [s for s in got_l[0] if "named" in s]
    for g, w in zip(got_g, want_g):
        for a, b in zip(tree_leaves(g), tree_leaves(w)):
            onp.testing.assert_allclose(a, b, rtol=2e-6)


def test_checkpoint_name_is_the_identity_everywhere():
    ck = minijax.ad_checkpoint
    x = np.arange(3.0)
    onp.testing.assert_array_equal(ck.checkpoint_name(x, "x"), x)
    tree = ck.checkpoint_name({"a": x, "b": (x * 2,)}, "t")
    onp.testing.assert_array_equal(tree["b"][0], x * 2)
    onp.testing.assert_array_equal(minijax.jit(lambda v: ck.checkpoint_name(v, "v") * 2)(x),
                                   x * 2)
    onp.testing.assert_array_equal(minijax.vmap(lambda v: ck.checkpoint_name(v, "v") + 1)(x),
                                   x + 1)
    assert "name" in str(minijax.make_jaxpr(lambda v: ck.checkpoint_name(v, "v"))(x))
    with pytest.raises(TypeError, match="name must be a str"):
        ck.checkpoint_name(x, 3)
    pol = minijax.checkpoint_policies
    assert pol.save_only_these_names("a") == pol.save_only_these_names("a")
    both = pol.save_from_both_policies(pol.dots_saveable, pol.save_only_these_names("a"))
    assert both(name_p, name="a") and not both(name_p, name="b")
