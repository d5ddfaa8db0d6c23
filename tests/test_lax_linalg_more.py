"""lax.linalg beyond the decompositions: tridiagonal_solve, symmetric_product,
cholesky_update, householder_product, hessenberg, tridiagonal, and the options of eigh,
svd and qr (subset_by_index, sort_eigenvalues, algorithm, pivoting).

Each is checked without an oracle (SciPy/NumPy values, residuals, reconstructions), its
NumPy kernel against its lowering and jit, vmap against a loop, derivatives against
finite differences and bad input against named errors; and against JAX where installed.
"""

import numpy as onp
import pytest
import scipy.linalg

import minijax
from minijax import lax
from minijax.lax import linalg
from minijax.test_util import check_grads, check_primitive

rng = onp.random.default_rng(0)
FLOATS = [onp.float32, onp.float64]
INEXACT = FLOATS + [onp.complex64, onp.complex128]


def tols(dtype):
    single = onp.dtype(dtype) in (onp.float32, onp.complex64)
    return dict(rtol=2e-4, atol=2e-5) if single else dict(rtol=1e-9, atol=1e-11)


def randn(*shape, dtype=onp.float64):
    x = rng.standard_normal(shape)
    if onp.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@pytest.fixture
def jax():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        yield jax


def both(fn, *args):
    """``fn`` eagerly (NumPy kernels) and under jit (the lowerings)."""
    return [onp.asarray(fn(*args)), onp.asarray(minijax.jit(fn)(*args))]


# ---------------------------------------------------------------- tridiagonal_solve

def tridiagonal_system(batch, m, k, dtype):
    dl, d, du = (randn(*batch, m, dtype=dtype) for _ in range(3))
    d = d + 3 * onp.sign(d.real).astype(dtype)         # diagonally dominant-ish
    return dl, d, du, randn(*batch, m, k, dtype=dtype)


def dense_tridiagonal(dl, d, du):
    return onp.diag(d) + onp.diag(dl[1:], -1) + onp.diag(du[:-1], 1)


@pytest.mark.parametrize("dtype", INEXACT)
def test_tridiagonal_solve_matches_scipy_solve_banded(dtype):
    dl, d, du, b = tridiagonal_system((2,), 7, 3, dtype)
    dl[:, 0] = du[:, -1] = 1e3            # ignored entries
    for x in both(linalg.tridiagonal_solve, dl, d, du, b):
        assert x.dtype == dtype and x.shape == b.shape
        for i in range(2):
            bands = onp.stack([onp.r_[0, du[i, :-1]], d[i], onp.r_[dl[i, 1:], 0]])
            onp.testing.assert_allclose(x[i], scipy.linalg.solve_banded((1, 1), bands, b[i]),
                                        **tols(dtype))


def test_tridiagonal_solve_pivots_where_the_diagonal_is_small():
    # a zero diagonal needs row interchanges (gtsv's partial pivoting); the residual is tiny
    m = 8
    dl, du, b = randn(m), randn(m), randn(m, 2)
    d = onp.zeros(m)
    d[-1] = 1.0
    a = dense_tridiagonal(dl, d, du)
    for x in both(linalg.tridiagonal_solve, dl, d, du, b):
        onp.testing.assert_allclose(a @ x, b, atol=1e-10)
    check_primitive(linalg.tridiagonal_solve, [dl, d, du, b], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [onp.float64, onp.complex64])
def test_tridiagonal_solve_kernel_lowering_vmap(dtype):
    args = tridiagonal_system((), 5, 2, dtype)
    check_primitive(linalg.tridiagonal_solve, list(args), **tols(dtype))


def test_tridiagonal_solve_singular_is_nan_per_system():
    dl, d, du, b = tridiagonal_system((2,), 4, 1, onp.float64)
    dl[1], d[1], du[1] = 0, 0, 0           # second system: zero matrix
    for x in both(linalg.tridiagonal_solve, dl, d, du, b):
        assert onp.isfinite(x[0]).all() and onp.isnan(x[1]).all()


def test_tridiagonal_solve_small_and_empty():
    for m in (1, 2):
        dl, d, du, b = tridiagonal_system((), m, 2, onp.float64)
        for x in both(linalg.tridiagonal_solve, dl, d, du, b):
            onp.testing.assert_allclose(dense_tridiagonal(dl, d, du) @ x, b, atol=1e-12)
    z = onp.zeros((3, 0))
    for x in both(linalg.tridiagonal_solve, z, z, z, onp.zeros((3, 0, 2))):
        assert x.shape == (3, 0, 2)


def test_tridiagonal_solve_vmap():
    dl, d, du, b = tridiagonal_system((3,), 5, 2, onp.float64)
    solve = linalg.tridiagonal_solve
    out = minijax.vmap(solve)(dl, d, du, b)
    b4 = randn(5, 2, 4)        # right-hand sides batched along a last axis
    shared = minijax.vmap(solve, in_axes=(None, None, None, 2), out_axes=2)(dl[0], d[0], du[0],
                                                                            b4)
    for i in range(3):
        onp.testing.assert_allclose(out[i], solve(dl[i], d[i], du[i], b[i]), rtol=1e-12)
    for i in range(4):
        onp.testing.assert_allclose(shared[..., i], solve(dl[0], d[0], du[0], b4[..., i]),
                                    rtol=1e-12)


def test_tridiagonal_solve_derivatives():
    args = tridiagonal_system((2,), 4, 2, onp.float64)
    check_grads(linalg.tridiagonal_solve, args, order=1)
    check_grads(lambda b: linalg.tridiagonal_solve(*args[:3], b), args[3:], order=2)
    check_grads(minijax.jit(linalg.tridiagonal_solve), args, order=1, modes=("rev",))
    cargs = tridiagonal_system((), 3, 1, onp.complex128)
    check_grads(linalg.tridiagonal_solve, cargs, order=1)


def test_tridiagonal_solve_transposes_as_a_linear_map_in_b():
    dl, d, du, b = tridiagonal_system((), 5, 2, onp.float64)
    ct = randn(5, 2)
    t, = minijax.linear_transpose(lambda b: linalg.tridiagonal_solve(dl, d, du, b), b)(ct)
    onp.testing.assert_allclose(t, onp.linalg.solve(dense_tridiagonal(dl, d, du).T, ct),
                                rtol=1e-10)


def test_tridiagonal_solve_errors():
    dl, d, du, b = tridiagonal_system((), 4, 2, onp.float64)
    solve = linalg.tridiagonal_solve
    with pytest.raises(ValueError, match="one shape"):
        solve(dl[:3], d, du, b)
    with pytest.raises(ValueError, match=r"b of shape \(\.\.\., m, k\)"):
        solve(dl, d, du, b[:3])
    with pytest.raises(ValueError, match=r"b of shape \(\.\.\., m, k\)"):
        solve(dl, d, du, b[:, 0])
    with pytest.raises(TypeError, match="one dtype"):
        solve(dl, d, du, b.astype(onp.float32))
    with pytest.raises(TypeError, match="tridiagonal_solve"):
        solve(*(v.astype(onp.int32) for v in (dl, d, du, b)))
    with pytest.raises(ValueError, match="one shape"):
        minijax.jit(solve)(dl[:3], d, du, b)


@pytest.mark.parametrize("dtype", INEXACT)
def test_tridiagonal_solve_matches_jax(jax, dtype):
    args = tridiagonal_system((2, 3), 6, 2, dtype)
    expected = onp.asarray(jax.lax.linalg.tridiagonal_solve(*args))
    for x in both(linalg.tridiagonal_solve, *args):
        onp.testing.assert_allclose(x, expected, **tols(dtype))


def test_tridiagonal_solve_gradients_match_jax(jax):
    args = tridiagonal_system((2,), 5, 2, onp.float64)
    w = randn(2, 5, 2)

    def loss(solve, dot):
        return lambda *a: dot(solve(*a) ** 2, w).sum()
    got = minijax.grad(loss(linalg.tridiagonal_solve, minijax.numpy.multiply),
                       argnums=(0, 1, 2, 3))(*args)
    want = jax.grad(loss(jax.lax.linalg.tridiagonal_solve, jax.numpy.multiply),
                    argnums=(0, 1, 2, 3))(*args)
    for g, e in zip(got, want):
        onp.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)
