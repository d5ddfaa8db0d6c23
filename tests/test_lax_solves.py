"""``lax.custom_linear_solve`` and ``lax.custom_root``: values, and derivatives from the
equation solved (against a direct solve, central differences and JAX)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

RNG = np.random.default_rng(7)
A = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
SPD = A @ A.T
B = RNG.normal(size=4)


def _solve_with(a, b, *, transpose=True, symmetric=False, has_aux=False):
    def solve(matvec, rhs):
        x = jnp.linalg.solve(a, rhs)
        return (x, jnp.sum(x)) if has_aux else x

    def transpose_solve(vecmat, rhs):
        x = jnp.linalg.solve(a.T, rhs)
        return (x, jnp.sum(x)) if has_aux else x
    return lax.custom_linear_solve(lambda x: a @ x, b, solve,
                                   transpose_solve if transpose else None,
                                   symmetric=symmetric, has_aux=has_aux)


def _loss(solver):
    return lambda a, b: jnp.sum(jnp.sin(solver(a, b)))


def _central(f, args, i, eps=1e-6):
    """Central differences of the scalar ``f`` in argument ``i``, element by element."""
    x = np.asarray(args[i], dtype=float)
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        a_up, a_down = list(args), list(args)
        a_up[i], a_down[i] = up, down
        out[idx] = (float(f(*a_up)) - float(f(*a_down))) / (2 * eps)
    return out


def test_values_eager_and_jit():
    expected = np.linalg.solve(A, B)
    np.testing.assert_allclose(np.asarray(_solve_with(A, B)), expected, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(minijax.jit(_solve_with)(A, B)), expected,
                               rtol=1e-12)


@pytest.mark.parametrize("transform", ["eager", "jit"])
def test_grad_in_the_matrix_and_the_rhs(transform):
    f = _loss(_solve_with)
    grad = minijax.grad(f, argnums=(0, 1))
    if transform == "jit":
        grad = minijax.jit(grad)
    ga, gb = grad(A, B)
    np.testing.assert_allclose(np.asarray(ga), _central(f, (A, B), 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(np.asarray(gb), _central(f, (A, B), 1), rtol=1e-6, atol=1e-9)


def test_jvp_and_second_derivatives_match_a_direct_solve():
    ta, tb = RNG.normal(size=(4, 4)), RNG.normal(size=4)
    direct = lambda a, b: jnp.linalg.solve(a, b)
    _, t1 = minijax.jvp(_solve_with, (A, B), (ta, tb))
    _, t2 = minijax.jvp(direct, (A, B), (ta, tb))
    np.testing.assert_allclose(np.asarray(t1), np.asarray(t2), rtol=1e-10)
    h1 = minijax.hessian(lambda s: jnp.sum(jnp.sin(_solve_with(A * s, B))))(1.3)
    h2 = minijax.hessian(lambda s: jnp.sum(jnp.sin(direct(A * s, B))))(1.3)
    np.testing.assert_allclose(float(h1), float(h2), rtol=1e-9)


def test_vmap_over_the_matrix_and_the_rhs():
    mats = np.stack([A, A + np.eye(4), A.T])
    rhs = RNG.normal(size=(3, 4))
    expected = np.stack([np.linalg.solve(m, r) for m, r in zip(mats, rhs)])
    np.testing.assert_allclose(np.asarray(minijax.vmap(_solve_with)(mats, rhs)), expected,
                               rtol=1e-12)
    per_b = minijax.vmap(_solve_with, in_axes=(None, 0))(A, rhs)
    np.testing.assert_allclose(np.asarray(per_b), np.linalg.solve(A, rhs.T).T, rtol=1e-12)
    grads = minijax.vmap(minijax.grad(_loss(_solve_with)), in_axes=(0, None))(mats, B)
    for m, g in zip(mats, np.asarray(grads)):
        np.testing.assert_allclose(g, np.asarray(minijax.grad(_loss(_solve_with))(m, B)),
                                   rtol=1e-10)


def test_symmetric_uses_matvec_as_its_own_transpose():
    solve = lambda mv, b: jnp.linalg.solve(SPD, b)
    f = lambda s, b: jnp.sum(jnp.sin(lax.custom_linear_solve(lambda x: (SPD * s) @ x, b,
                                                             solve, solve,
                                                             symmetric=True)))
    g = minijax.grad(f, argnums=(0, 1))(1.0, B)
    direct = minijax.grad(lambda s, b: jnp.sum(jnp.sin(jnp.linalg.solve(SPD * s, b))),
                          argnums=(0, 1))(1.0, B)
    np.testing.assert_allclose(float(g[0]), float(direct[0]), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(g[1]), np.asarray(direct[1]), rtol=1e-10)


def test_has_aux_returns_it_undifferentiated():
    x, aux = _solve_with(A, B, has_aux=True)
    np.testing.assert_allclose(float(aux), np.linalg.solve(A, B).sum(), rtol=1e-12)
    g = minijax.grad(lambda b: jnp.sum(_solve_with(A, b, has_aux=True)[0]))(B)
    np.testing.assert_allclose(np.asarray(g), np.linalg.solve(A.T, np.ones(4)), rtol=1e-12)
    _, (tx, taux) = minijax.jvp(lambda b: _solve_with(A, b, has_aux=True), (B,), (B,))
    assert float(taux) == 0.0


def test_pytree_right_hand_side():
    def matvec(x):
        return {"u": A @ x["u"], "v": 3.0 * x["v"]}

    def solve(mv, b):
        return {"u": jnp.linalg.solve(A, b["u"]), "v": b["v"] / 3.0}

    def transpose_solve(vm, b):
        return {"u": jnp.linalg.solve(A.T, b["u"]), "v": b["v"] / 3.0}

    def f(b):
        return lax.custom_linear_solve(matvec, b, solve, transpose_solve)
    b = {"u": B, "v": np.arange(2.0)}
    x = f(b)
    np.testing.assert_allclose(np.asarray(x["u"]), np.linalg.solve(A, B), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(x["v"]), np.arange(2.0) / 3, rtol=1e-12)
    g = minijax.grad(lambda b: jnp.sum(f(b)["u"]) + 2 * jnp.sum(f(b)["v"]))(b)
    np.testing.assert_allclose(np.asarray(g["u"]), np.linalg.solve(A.T, np.ones(4)),
                               rtol=1e-12)
    np.testing.assert_allclose(np.asarray(g["v"]), np.full(2, 2 / 3), rtol=1e-12)


def test_matches_jax():
    jax = pytest.importorskip("jax")
    jnp_ = jax.numpy
    with jax.enable_x64(True):
        def jax_solver(a, b):
            return jax.lax.custom_linear_solve(
                lambda x: a @ x, b, lambda mv, r: jnp_.linalg.solve(a, r),
                lambda vm, r: jnp_.linalg.solve(a.T, r))
        want = jax.grad(lambda a, b: jnp_.sum(jnp_.sin(jax_solver(a, b))), argnums=(0, 1))(A, B)
    got = minijax.grad(_loss(_solve_with), argnums=(0, 1))(A, B)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-10)


def test_named_errors():
    with pytest.raises(TypeError, match="transpose_solve"):
        minijax.grad(_loss(lambda a, b: _solve_with(a, b, transpose=False)))(A, B)
    # forward mode needs no transposed solve
    minijax.jvp(lambda b: _solve_with(A, b, transpose=False), (B,), (B,))
    with pytest.raises(TypeError, match="matvec must return"):
        lax.custom_linear_solve(lambda x: x[:2], B, lambda mv, b: b)
    with pytest.raises(TypeError, match="solve must return"):
        lax.custom_linear_solve(lambda x: x, B, lambda mv, b: b[:3])
    with pytest.raises(TypeError, match="pair"):
        lax.custom_linear_solve(lambda x: x, B, lambda mv, b: b, has_aux=True)
    with pytest.raises(TypeError, match="floating-point"):
        lax.custom_linear_solve(lambda x: x, np.arange(3), lambda mv, b: b)


# ---------------------------------------------------------------- custom_root

def _newton_sqrt(a, has_aux=False):
    f = lambda x: x ** 2 - a

    def solve(f, x0):
        x = lax.while_loop(lambda x: jnp.abs(f(x)) > 1e-13, lambda x: x - f(x) / (2 * x), x0)
        return (x, f(x)) if has_aux else x
    return lax.custom_root(f, jnp.ones_like(a), solve, lambda g, y: y / g(1.0),
                           has_aux=has_aux)


def test_root_value_and_derivatives():
    a = 2.0
    np.testing.assert_allclose(float(_newton_sqrt(a)), np.sqrt(a), rtol=1e-13)
    np.testing.assert_allclose(float(minijax.grad(_newton_sqrt)(a)), 0.5 / np.sqrt(a),
                               rtol=1e-12)
    np.testing.assert_allclose(float(minijax.grad(minijax.grad(_newton_sqrt))(a)),
                               -0.25 * a ** -1.5, rtol=1e-10)
    np.testing.assert_allclose(float(minijax.jit(minijax.grad(_newton_sqrt))(a)),
                               0.5 / np.sqrt(a), rtol=1e-12)
    _, t = minijax.jvp(_newton_sqrt, (a,), (3.0,))
    np.testing.assert_allclose(float(t), 1.5 / np.sqrt(a), rtol=1e-12)
    xs = np.array([2.0, 9.0, 0.25])
    np.testing.assert_allclose(np.asarray(minijax.vmap(minijax.grad(_newton_sqrt))(xs)),
                               0.5 / np.sqrt(xs), rtol=1e-12)


def test_root_has_aux_and_vector_system():
    x, residual = _newton_sqrt(4.0, has_aux=True)
    assert abs(float(x) - 2.0) < 1e-13 and abs(float(residual)) <= 1e-13
    assert float(minijax.jvp(lambda a: _newton_sqrt(a, True)[1], (4.0,), (1.0,))[1]) == 0.0

    # f(x) = M x + c x^3 - p = 0 in R^3, solved by Newton with the Jacobian;
    # d x / d p from the implicit function theorem is (M + 3 c diag(x^2))^-1
    m = SPD[:3, :3] / 10 + np.eye(3)

    def root(p):
        f = lambda x: m @ x + 0.1 * x ** 3 - p

        def solve(f, x0):
            def step(x):
                return x - jnp.linalg.solve(minijax.jacfwd(f)(x), f(x))
            return lax.fori_loop(0, 30, lambda i, x: step(x), x0)

        def tangent_solve(g, y):
            return jnp.linalg.solve(minijax.jacfwd(g)(y), y)
        return lax.custom_root(f, jnp.zeros(3), solve, tangent_solve)
    p = np.array([1.0, -2.0, 0.5])
    x = np.asarray(root(p))
    np.testing.assert_allclose(m @ x + 0.1 * x ** 3, p, atol=1e-12)
    jac = np.asarray(minijax.jacrev(root)(p))
    np.testing.assert_allclose(jac, np.linalg.inv(m + np.diag(0.3 * x ** 2)), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(minijax.jacfwd(root)(p)), jac, rtol=1e-10)


def test_root_matches_jax():
    jax = pytest.importorskip("jax")
    jnp_ = jax.numpy

    def jax_sqrt(a):
        f = lambda x: x ** 2 - a
        solve = lambda f, x0: jax.lax.while_loop(lambda x: jnp_.abs(f(x)) > 1e-13,
                                                 lambda x: x - f(x) / (2 * x), x0)
        return jax.lax.custom_root(f, jnp_.ones_like(a), solve, lambda g, y: y / g(1.0))
    with jax.enable_x64(True):
        want = jax.grad(jax.grad(jax_sqrt))(3.0)
    np.testing.assert_allclose(float(minijax.grad(minijax.grad(_newton_sqrt))(3.0)),
                               float(want), rtol=1e-12)


def test_root_named_errors():
    with pytest.raises(TypeError, match="f must return"):
        lax.custom_root(lambda x: x[:1], jnp.ones(2), lambda f, x: x, lambda g, y: y)
    with pytest.raises(TypeError, match="solve must return"):
        lax.custom_root(lambda x: x, jnp.ones(2), lambda f, x: x[:1], lambda g, y: y)
    with pytest.raises(TypeError, match="floating-point"):
        lax.custom_root(lambda x: x, 1, lambda f, x: x, lambda g, y: y)
