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


# ---------------------------------------------------------------- symmetric_product

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("symmetrize_output", [False, True])
def test_symmetric_product_values(dtype, symmetrize_output):
    a, c = randn(2, 3, 5, dtype=dtype), randn(2, 3, 3, dtype=dtype)

    def f(a, c):
        return linalg.symmetric_product(a, c, alpha=2.5, beta=-0.5,
                                        symmetrize_output=symmetrize_output)
    full = 2.5 * a @ onp.swapaxes(a, -1, -2) - 0.5 * c
    want = onp.tril(full) + onp.swapaxes(onp.tril(full, -1), -1, -2) if symmetrize_output \
        else full
    for out in both(f, a, c):
        assert out.dtype == dtype
        onp.testing.assert_allclose(out, want, **tols(dtype))
    batched = minijax.vmap(f)(a, c)
    onp.testing.assert_allclose(batched[1], f(a[1], c[1]), **tols(dtype))


def test_symmetric_product_traced_scalars_and_derivatives():
    a, c = randn(3, 4), randn(3, 3)
    f = minijax.jit(lambda al, be: linalg.symmetric_product(a, c, alpha=al, beta=be))
    onp.testing.assert_allclose(f(2.0, 3.0), 2 * a @ a.T + 3 * c, rtol=1e-12)
    check_grads(lambda a, c: linalg.symmetric_product(a, c, alpha=1.5, beta=0.5), (a, c),
                order=2)


def test_symmetric_product_errors():
    a = randn(3, 4)
    with pytest.raises(ValueError, match=r"\(\.\.\., m, m\)"):
        linalg.symmetric_product(a, randn(4, 4))
    with pytest.raises(TypeError, match="one dtype"):
        linalg.symmetric_product(a, randn(3, 3, dtype=onp.float32))
    with pytest.raises(TypeError, match="symmetric_product"):
        linalg.symmetric_product(a.astype(onp.complex128), randn(3, 3, dtype=onp.complex128))
    with pytest.raises(TypeError, match="real scalars"):
        linalg.symmetric_product(a, randn(3, 3), alpha=onp.ones(2))


def test_symmetric_product_matches_jax(jax):
    a, c = randn(2, 3, 5), randn(2, 3, 3)
    want = jax.lax.linalg.symmetric_product(a, c, alpha=0.5, beta=2.0, symmetrize_output=True)
    got = linalg.symmetric_product(a, c, alpha=0.5, beta=2.0, symmetrize_output=True)
    onp.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------- cholesky_update

def cholesky_factor_and_vector(batch, n, dtype):
    a = rng.standard_normal((*batch, n, n))
    spd = a @ onp.swapaxes(a, -1, -2) + n * onp.eye(n)
    r = onp.swapaxes(onp.linalg.cholesky(spd), -1, -2)
    return r.astype(dtype), randn(*batch, n, dtype=dtype), spd


@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_update_is_scipy_cholesky_of_the_updated_matrix(dtype):
    r, w, spd = cholesky_factor_and_vector((2,), 5, dtype)
    w64 = w.astype(onp.float64)
    want = onp.stack([scipy.linalg.cholesky(spd[i] + onp.outer(w64[i], w64[i]))
                      for i in range(2)])
    for out in both(linalg.cholesky_update, r, w):
        assert out.dtype == dtype
        onp.testing.assert_allclose(out, want, **tols(dtype))
    out = minijax.vmap(linalg.cholesky_update)(r, w)
    onp.testing.assert_allclose(out[1], linalg.cholesky_update(r[1], w[1]), **tols(dtype))


def test_cholesky_update_reads_the_upper_triangle_and_zero_w():
    r, w, _ = cholesky_factor_and_vector((), 4, onp.float64)
    noisy = r + onp.tril(randn(4, 4), -1)
    onp.testing.assert_allclose(linalg.cholesky_update(noisy, onp.zeros(4)), r, rtol=1e-14)
    out = linalg.cholesky_update(noisy, w)
    onp.testing.assert_allclose(onp.asarray(out).T @ out, r.T @ r + onp.outer(w, w),
                                rtol=1e-12)


def test_cholesky_update_derivatives():
    r, w, _ = cholesky_factor_and_vector((), 4, onp.float64)
    check_grads(lambda r, w: linalg.cholesky_update(onp.triu(onp.ones((4, 4))) * r, w),
                (r, w), order=1)


def test_cholesky_update_errors():
    r, w, _ = cholesky_factor_and_vector((), 4, onp.float64)
    with pytest.raises(ValueError, match="square r_matrix"):
        linalg.cholesky_update(r[:3], w)
    with pytest.raises(ValueError, match="square r_matrix"):
        linalg.cholesky_update(r, w[:3])
    with pytest.raises(TypeError, match="one dtype"):
        linalg.cholesky_update(r, w.astype(onp.float32))
    with pytest.raises(TypeError, match="cholesky_update"):
        linalg.cholesky_update(r.astype(onp.complex128), w.astype(onp.complex128))


def test_cholesky_update_matches_jax(jax):
    r, w, _ = cholesky_factor_and_vector((), 6, onp.float64)
    onp.testing.assert_allclose(linalg.cholesky_update(r, w),
                                jax.lax.linalg.cholesky_update(r, w), rtol=1e-12)


# ---------------------------------------------------------------- householder_product

@pytest.mark.parametrize("dtype", INEXACT)
def test_householder_product_is_numpy_qr_q(dtype):
    x = randn(2, 5, 3, dtype=dtype)
    h, taus = (onp.asarray(v) for v in linalg.geqrf(x))
    want = onp.linalg.qr(x)[0]
    for q in both(linalg.householder_product, h, taus):
        assert q.dtype == dtype and q.shape == x.shape
        onp.testing.assert_allclose(q, want, **tols(dtype))
    check_primitive(linalg.householder_product, [h, taus], **tols(dtype))


def test_householder_product_fewer_reflectors():
    x = randn(5, 4)
    h, taus = (onp.asarray(v) for v in linalg.geqrf(x))
    q = onp.eye(5)
    for i in range(2):
        v = onp.r_[onp.zeros(i), 1.0, h[i + 1:, i]]
        q = q @ (onp.eye(5) - taus[i] * onp.outer(v, v))
    for out in both(linalg.householder_product, h, taus[:2]):
        onp.testing.assert_allclose(out, q[:, :4], rtol=1e-12, atol=1e-14)


def test_householder_product_errors():
    h, taus = randn(5, 3), randn(3)
    with pytest.raises(ValueError, match="m >= n"):
        linalg.householder_product(randn(3, 5), taus)
    with pytest.raises(ValueError, match="k <= n"):
        linalg.householder_product(h, randn(4))
    with pytest.raises(ValueError, match="batch axes"):
        linalg.householder_product(randn(2, 5, 3), taus)
    with pytest.raises(TypeError, match="one dtype"):
        linalg.householder_product(h, taus.astype(onp.float32))
    with pytest.raises(NotImplementedError, match="derivative"):
        minijax.grad(lambda h: linalg.householder_product(h, taus).sum())(h)


@pytest.mark.parametrize("dtype", [onp.float32, onp.complex128])
def test_householder_product_matches_jax(jax, dtype):
    h, taus = randn(2, 6, 4, dtype=dtype), randn(2, 3, dtype=dtype)
    want = jax.lax.linalg.householder_product(h, taus)
    for q in both(linalg.householder_product, h, taus):
        onp.testing.assert_allclose(q, want, **tols(dtype))


# ---------------------------------------------------------------- eigh and svd options

@pytest.mark.parametrize("dtype", INEXACT)
def test_eigh_subset_by_index(dtype):
    a = randn(2, 5, 5, dtype=dtype)
    a = a + onp.conj(onp.swapaxes(a, -1, -2))
    want_w = onp.linalg.eigvalsh(a)[..., 1:4]

    def f(a):
        return linalg.eigh(a, subset_by_index=(1, 4), sort_eigenvalues=False)
    for v, w in (f(a), minijax.jit(f)(a)):
        v, w = onp.asarray(v), onp.asarray(w)
        assert v.shape == (2, 5, 3) and w.shape == (2, 3)
        onp.testing.assert_allclose(w, want_w, **tols(dtype))
        onp.testing.assert_allclose(a @ v, v * w[..., None, :], **tols(dtype))
    vb, wb = minijax.vmap(f)(a)
    onp.testing.assert_allclose(wb[1], f(a[1])[1], **tols(dtype))


def test_eigh_subset_derivatives_and_errors():
    a = randn(4, 4)
    a = a + a.T
    check_grads(lambda a: linalg.eigh(a, subset_by_index=(2, 4))[1], (a,), order=1)
    with pytest.raises(ValueError, match="subset_by_index"):
        linalg.eigh(a, subset_by_index=(3, 5))
    with pytest.raises(ValueError, match="subset_by_index"):
        linalg.eigh(a, subset_by_index=(3, 2))
    with pytest.raises(TypeError, match="subset_by_index"):
        linalg.eigh(a, subset_by_index=(0.5, 2))


@pytest.mark.parametrize("dtype", INEXACT)
def test_svd_subset_by_index(dtype):
    x = randn(2, 5, 4, dtype=dtype)
    u0, s0, vh0 = onp.linalg.svd(x, full_matrices=False)

    def f(x):
        return linalg.svd(x, full_matrices=False, subset_by_index=(1, 3))
    for u, s, vh in (f(x), minijax.jit(f)(x)):
        u, s, vh = (onp.asarray(v) for v in (u, s, vh))
        assert u.shape == (2, 5, 2) and s.shape == (2, 2) and vh.shape == (2, 2, 4)
        onp.testing.assert_allclose(s, s0[..., 1:3], **tols(dtype))
        # vectors up to a phase per singular value: u s vh is the same rank-2 piece
        onp.testing.assert_allclose((u * s[..., None, :]) @ vh,
                                    (u0[..., 1:3] * s0[..., None, 1:3]) @ vh0[..., 1:3, :],
                                    **tols(dtype))
    s_only = linalg.svd(x, full_matrices=False, compute_uv=False, subset_by_index=(0, 2))
    onp.testing.assert_allclose(s_only, s0[..., :2], **tols(dtype))
    check_grads(lambda x: linalg.svd(x, full_matrices=False, compute_uv=False,
                                     subset_by_index=(1, 3)), (randn(4, 3),), order=1)


def test_svd_subset_needs_reduced_matrices_as_jax():
    x = randn(5, 4)
    with pytest.raises(ValueError, match="full_matrices and subset_by_index"):
        linalg.svd(x, subset_by_index=(0, 2))
    u, s, vh = linalg.svd(x, subset_by_index=(0, 4))         # the whole range is allowed
    assert u.shape == (5, 5)
    with pytest.raises(ValueError, match="full_matrices and subset_by_index"):
        minijax.numpy.linalg.svd(x, subset_by_index=(0, 2))
    with pytest.raises(ValueError, match="subset_by_index"):
        linalg.svd(x, full_matrices=False, subset_by_index=(0, 5))


def test_numpy_linalg_svd_passes_subset_by_index():
    x = randn(3, 6, 4)
    s0 = onp.linalg.svd(x, compute_uv=False)
    for f in (minijax.numpy.linalg.svd, minijax.jit(minijax.numpy.linalg.svd,
                                                    static_argnames=("full_matrices",
                                                                     "subset_by_index"))):
        res = f(x, full_matrices=False, subset_by_index=(2, 4))
        onp.testing.assert_allclose(res.S, s0[..., 2:4], rtol=1e-12)
        assert res.U.shape == (3, 6, 2) and res.Vh.shape == (3, 2, 4)


def test_eigh_svd_subsets_match_jax(jax):
    a = randn(5, 5)
    a = a + a.T
    # JAX's CPU eigh and svd raise NotImplementedError for subset_by_index: compare with
    # the slices of JAX's full results
    w = jax.lax.linalg.eigh(a)[1]
    onp.testing.assert_allclose(linalg.eigh(a, subset_by_index=(1, 3))[1], w[1:3], rtol=1e-12)
    s = jax.lax.linalg.svd(a, compute_uv=False)
    onp.testing.assert_allclose(
        linalg.svd(a, full_matrices=False, compute_uv=False, subset_by_index=(2, 5)), s[2:5],
        rtol=1e-12)
