"""``minijax.scipy.sparse.linalg``: cg, bicgstab and gmres against SciPy (iterates and
``info``), implicit derivatives against a direct solve, and the transformations."""

import numpy as np
import pytest
import scipy.sparse.linalg as ssl

import minijax
import minijax.numpy as jnp
from minijax.scipy.sparse import linalg as msl

RNG = np.random.default_rng(3)
N = 12
_G = RNG.normal(size=(N, N))
SPD = _G @ _G.T + N * np.eye(N)
GENERAL = _G + 6 * np.eye(N)
B = RNG.normal(size=N)
SOLVERS = {"cg": (msl.cg, ssl.cg, SPD), "bicgstab": (msl.bicgstab, ssl.bicgstab, GENERAL),
           "gmres": (msl.gmres, ssl.gmres, GENERAL)}
GMRES_METHODS = ["batched", "incremental"]


def _call(name, *args, **kwargs):
    return SOLVERS[name][0](*args, **kwargs)


@pytest.mark.parametrize("name", ["cg", "bicgstab"])
@pytest.mark.parametrize("maxiter", [1, 3, None])
def test_iterates_and_info_match_scipy(name, maxiter):
    ours, theirs, a = SOLVERS[name]
    x, info = ours(a, B, rtol=1e-9, maxiter=maxiter)
    want, want_info = theirs(a, B, rtol=1e-9, maxiter=maxiter)
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-9, atol=1e-12)
    assert int(info) == want_info


@pytest.mark.parametrize("method", GMRES_METHODS)
@pytest.mark.parametrize("restart", [3, 20])
def test_gmres_converges_as_scipy(method, restart):
    x, info = msl.gmres(GENERAL, B, rtol=1e-10, restart=restart, solve_method=method)
    want, want_info = ssl.gmres(GENERAL, B, rtol=1e-10, restart=restart)
    assert int(info) == want_info == 0
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-8, atol=1e-10)
    assert np.linalg.norm(GENERAL @ np.asarray(x) - B) <= 1e-10 * np.linalg.norm(B)
    # too few cycles: info counts them, as SciPy's
    _, info = msl.gmres(GENERAL, B, rtol=1e-14, restart=2, maxiter=3, solve_method=method)
    assert int(info) == ssl.gmres(GENERAL, B, rtol=1e-14, restart=2, maxiter=3)[1] == 3


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_tolerances_preconditioner_x0_and_functions(name):
    ours, _, a = SOLVERS[name]
    exact = np.linalg.solve(a, B)
    for kwargs in ({"tol": 1e-11}, {"rtol": 0.0, "atol": 1e-11},
                   {"rtol": 1e-11, "M": np.diag(1 / np.diag(a))},
                   {"rtol": 1e-11, "x0": exact + 0.1}):
        x, info = ours(a, B, **kwargs)
        assert int(info) == 0
        np.testing.assert_allclose(np.asarray(x), exact, rtol=1e-8, atol=1e-9)
    x, _ = ours(lambda v: jnp.asarray(a) @ v, B, rtol=1e-11)
    np.testing.assert_allclose(np.asarray(x), exact, rtol=1e-8, atol=1e-9)
    with pytest.raises(TypeError, match="not both"):
        ours(a, B, tol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_complex_systems(name):
    ours, theirs, a = SOLVERS[name]
    a = a + 1j * (RNG.normal(size=(N, N)) * 0.3 if name != "cg" else 0.0)
    if name == "cg":   # Hermitian positive definite
        h = RNG.normal(size=(N, N)) * 0.3
        a = SPD + 1j * (h - h.T)
    b = B + 1j * RNG.normal(size=N)
    x, info = ours(a, b, rtol=1e-10)
    assert int(info) == 0 and x.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(a, b), rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_derivatives_are_those_of_the_solution(name):
    _, _, a = SOLVERS[name]

    def loss(solver):
        return lambda a, b: jnp.sum(jnp.sin(solver(a, b)))
    iterative = loss(lambda a, b: _call(name, a, b, rtol=1e-13)[0])
    direct = loss(jnp.linalg.solve)
    got = minijax.grad(iterative, argnums=(0, 1))(a, B)
    want = minijax.grad(direct, argnums=(0, 1))(a, B)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-7, atol=1e-10)
    t = RNG.normal(size=N)
    _, got_t = minijax.jvp(lambda b: _call(name, a, b, rtol=1e-13)[0], (B,), (t,))
    np.testing.assert_allclose(np.asarray(got_t), np.linalg.solve(a, t), rtol=1e-7,
                               atol=1e-10)
    jitted = minijax.jit(minijax.grad(iterative, argnums=1))(a, B)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(want[1]), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_vmap_per_example(name):
    _, _, a = SOLVERS[name]
    rhs = RNG.normal(size=(3, N))
    x, info = minijax.vmap(lambda b: _call(name, a, b, rtol=1e-11))(rhs)
    for xi, bi, ii in zip(np.asarray(x), rhs, np.asarray(info)):
        np.testing.assert_allclose(xi, np.linalg.solve(a, bi), rtol=1e-8, atol=1e-9)
        assert ii == 0


@pytest.mark.parametrize("method", GMRES_METHODS)
def test_pytree_operands(method):
    def matvec(x):
        return {"u": jnp.asarray(GENERAL) @ x["u"], "v": 2.0 * x["v"]}
    b = {"u": B, "v": np.array([1.0, -4.0])}
    for solver in (msl.bicgstab, lambda *a, **k: msl.gmres(*a, solve_method=method, **k)):
        x, info = solver(matvec, b, rtol=1e-11)
        np.testing.assert_allclose(np.asarray(x["u"]), np.linalg.solve(GENERAL, B),
                                   rtol=1e-8, atol=1e-9)
        np.testing.assert_allclose(np.asarray(x["v"]), [0.5, -2.0], rtol=1e-9)
    with pytest.raises(ValueError, match="structure"):
        msl.cg(matvec, b, x0=[B])


def test_named_errors():
    with pytest.raises(ValueError, match="2-D array or a function"):
        msl.cg(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="solve_method"):
        msl.gmres(GENERAL, B, solve_method="qr")
    with pytest.raises(ValueError, match="restart"):
        msl.gmres(GENERAL, B, restart=0)
    with pytest.raises(ValueError, match="shapes"):
        msl.cg(SPD, B, x0=np.zeros(3))


def test_matches_jax_solution():
    jax = pytest.importorskip("jax")
    from jax.scipy.sparse import linalg as jsl
    with jax.enable_x64(True):
        want = [np.asarray(jsl.cg(SPD, B, tol=1e-12)[0]),
                np.asarray(jsl.bicgstab(GENERAL, B, tol=1e-12)[0]),
                np.asarray(jsl.gmres(GENERAL, B, tol=1e-12)[0])]
    got = [msl.cg(SPD, B, tol=1e-12)[0], msl.bicgstab(GENERAL, B, tol=1e-12)[0],
           msl.gmres(GENERAL, B, tol=1e-12)[0]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-9, atol=1e-12)
