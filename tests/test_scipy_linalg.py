"""minijax.scipy.linalg against scipy.linalg, finite differences, jit."""

import numpy as np
import pytest
import scipy.linalg as sl

import minijax
import minijax.numpy as jnp
import minijax.scipy.linalg as ml
from minijax.test_util import check_grads

RNG = np.random.default_rng(42)
A = RNG.standard_normal((4, 4))
SPD = A @ A.T + 4 * np.eye(4)
B = RNG.standard_normal((4, 2))
TALL = RNG.standard_normal((5, 3))


def close(actual, expected, rtol=1e-10):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_family(lower):
    close(ml.cholesky(SPD, lower=lower), sl.cholesky(SPD, lower=lower))
    c = ml.cho_factor(SPD, lower=lower)
    assert c[1] is lower
    for b in (B, B[:, 0]):
        close(ml.cho_solve(c, b), sl.cho_solve(sl.cho_factor(SPD, lower=lower), b))
    close(ml.solve(SPD, B, assume_a="pos", lower=lower), sl.solve(SPD, B, assume_a="pos"))


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_triangular(trans, lower):
    t = np.tril(A) + 3 * np.eye(4) if lower else np.triu(A) + 3 * np.eye(4)
    for unit in (False, True):
        expected = sl.solve_triangular(t, B, trans=trans, lower=lower, unit_diagonal=unit)
        close(ml.solve_triangular(t, B, trans=trans, lower=lower, unit_diagonal=unit), expected)
    close(ml.solve_triangular(t, B[:, 0], trans=trans, lower=lower),
          sl.solve_triangular(t, B[:, 0], trans=trans, lower=lower))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu(shape):
    a = RNG.standard_normal(shape)
    for got, want in zip(ml.lu(a), sl.lu(a)):
        close(got, want)
    for got, want in zip(ml.lu(a, permute_l=True), sl.lu(a, permute_l=True)):
        close(got, want)


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_factor_and_solve(trans):
    lu, piv = ml.lu_factor(A)
    slu, spiv = sl.lu_factor(A)
    close(lu, slu)
    np.testing.assert_array_equal(np.asarray(piv), spiv)
    for b in (B, B[:, 0]):
        close(ml.lu_solve((lu, piv), b, trans=trans), sl.lu_solve((slu, spiv), b, trans=trans))


def test_qr_svd_eigh():
    for mode in ("full", "economic"):
        q, r = ml.qr(TALL, mode=mode)
        sq, sr = sl.qr(TALL, mode=mode)
        close(np.abs(q), np.abs(sq))
        close(np.abs(r), np.abs(sr))
    (r,) = ml.qr(TALL, mode="r")
    close(np.abs(r), np.abs(sl.qr(TALL, mode="r")[0]))
    close(ml.svd(TALL, compute_uv=False), sl.svd(TALL, compute_uv=False))
    u, s, vh = ml.svd(TALL, full_matrices=False)
    close(np.asarray(u) * np.asarray(s) @ np.asarray(vh), TALL)
    w, v = ml.eigh(SPD)
    close(w, sl.eigh(SPD)[0])
    close(np.abs(v), np.abs(sl.eigh(SPD)[1]))
    close(ml.eigh(SPD, eigvals_only=True), sl.eigh(SPD, eigvals_only=True))


def test_inv_det_solve_block_diag():
    close(ml.inv(A), sl.inv(A))
    close(ml.det(A), sl.det(A))
    close(ml.solve(A, B), sl.solve(A, B))
    close(ml.solve(A, B[:, 0]), sl.solve(A, B[:, 0]))
    close(ml.solve(A, B, transposed=True), sl.solve(A, B, transposed=True))
    close(ml.solve(SPD, B, assume_a="sym"), sl.solve(SPD, B, assume_a="sym"))
    blocks = (np.ones((2, 2)), 3.0, np.arange(3.0), np.eye(1, 2))
    close(ml.block_diag(*blocks), sl.block_diag(*blocks))
    assert ml.block_diag(np.ones((1, 1), np.float32)).dtype == np.float32


@pytest.mark.parametrize("scale", [1e-3, 0.5, 3.0, 40.0])
def test_expm_matches_scipy(scale):
    close(ml.expm(scale * A), sl.expm(scale * A), rtol=1e-11)
    close(minijax.jit(ml.expm)(scale * A), sl.expm(scale * A), rtol=1e-11)


def test_expm_edges():
    close(ml.expm(np.zeros((3, 3))), np.eye(3))
    batch = np.stack([A, 2 * A])
    close(ml.expm(batch), np.stack([sl.expm(A), sl.expm(2 * A)]), rtol=1e-11)
    # 40 * A needs about 6 squarings
    assert np.isnan(np.asarray(ml.expm(40.0 * A, max_squarings=2))).all()
    close(ml.expm(40.0 * A, max_squarings=8), sl.expm(40.0 * A), rtol=1e-11)


def test_gradients():
    check_grads(lambda m: ml.cholesky(m @ m.T + 4 * jnp.eye(4)), (jnp.asarray(A),), order=2)
    check_grads(lambda m, b: ml.cho_solve(ml.cho_factor(m @ m.T + 4 * jnp.eye(4)), b),
                (jnp.asarray(A), jnp.asarray(B)), order=1)
    t = jnp.asarray(np.triu(A) + 3 * np.eye(4))
    check_grads(lambda m, b: ml.solve_triangular(m, b, trans=1), (t, jnp.asarray(B)), order=2)
    check_grads(lambda m, b: ml.lu_solve(ml.lu_factor(m), b), (jnp.asarray(A), jnp.asarray(B)),
                order=1)
    check_grads(lambda m: ml.lu(m)[1] + ml.lu(m)[2], (jnp.asarray(A),), order=1)
    check_grads(lambda m: ml.expm(m), (jnp.asarray(0.3 * A),), order=2)
    check_grads(lambda m: ml.expm(m), (jnp.asarray(9.0 * A),), order=1, tol=1e-4)
    check_grads(lambda m: ml.det(m) + jnp.sum(ml.inv(m)), (jnp.asarray(A),), order=2)


def test_unsupported_keywords_raise():
    with pytest.raises(NotImplementedError, match="mode='raw'"):
        ml.qr(A, mode="raw")
    with pytest.raises(NotImplementedError, match="b="):
        ml.eigh(SPD, b=SPD)
    with pytest.raises(NotImplementedError, match="subset_by_value"):
        ml.eigh(SPD, subset_by_value=(0.0, 1.0))
    with pytest.raises(ValueError, match="square"):
        ml.inv(TALL)
    with pytest.raises(ValueError, match="trans"):
        ml.solve_triangular(A, B, trans=3)


def _matched(w_ref, w, v_ref):
    """``v_ref``'s columns in ``w``'s order, each with the sign that best matches (real
    eigenvectors are defined up to sign)."""
    order = [int(np.argmin(np.abs(w_ref - x))) for x in np.asarray(w)]
    return w_ref[order], v_ref[:, order]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_eig_left_and_right_match_scipy(dtype):
    a = RNG.standard_normal((4, 4))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal((4, 4))
    a = a.astype(dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    w_ref, vl_ref, vr_ref = sl.eig(a, left=True, right=True)
    for fn in (ml.eig, minijax.jit(ml.eig, static_argnames=("left", "right"))):
        w, vl, vr = fn(a, left=True, right=True)
        assert w.dtype == w_ref.dtype and vl.dtype == vr.dtype == w_ref.dtype
        wm, vlm = _matched(w_ref, w, vl_ref)
        _, vrm = _matched(w_ref, w, vr_ref)
        np.testing.assert_allclose(np.asarray(w), wm, rtol=tol, atol=tol)
        for got, ref in ((vl, vlm), (vr, vrm)):
            got = np.asarray(got)
            sign = np.sign((got * ref.conj()).sum(axis=0).real)
            np.testing.assert_allclose(got, ref * sign, atol=tol)
        w_only, vl_only = fn(a, left=True, right=False)
        np.testing.assert_allclose(np.asarray(vl_only), np.asarray(vl), atol=tol)
        assert len(fn(a)) == 2 and fn(a, right=False).shape == (4,)
    np.testing.assert_allclose(np.asarray(ml.eigvals(a)), np.asarray(ml.eig(a)[0]), atol=tol)
    hw = ml.eig(a, homogeneous_eigvals=True)[0]
    assert hw.shape == sl.eig(a, homogeneous_eigvals=True)[0].shape == (2, 4)
    assert ml.eigvals(a, homogeneous_eigvals=True).shape == (2, 4)
    with pytest.raises(NotImplementedError, match="b="):
        ml.eig(a, b=np.eye(4))


def test_eig_left_eigenvector_gradients():
    a = np.array([[0.5, -2.0, 0.1], [2.0, 0.3, 0.2], [0.1, 0.4, 3.0]])

    def parts(x):
        w, vl = ml.eig(x, left=True, right=False)
        return [jnp.real(vl), jnp.imag(vl), jnp.real(w)]
    check_grads(parts, (a,), order=1)
    check_grads(minijax.jit(parts), (a,), order=1)


def test_solve_sylvester():
    rng = np.random.default_rng(3)
    a, b, q = rng.standard_normal((4, 4)), rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    x = ml.solve_sylvester(a, b, q)
    assert x.dtype == np.float64
    close(x, sl.solve_sylvester(a, b, q), rtol=1e-12)
    close(minijax.jit(ml.solve_sylvester)(a, b, q), sl.solve_sylvester(a, b, q), rtol=1e-12)
    # complex; SciPy mixes up complex a with real b, so it gets complex b and q
    ac = a + 1j * rng.standard_normal((4, 4))
    x = np.asarray(ml.solve_sylvester(ac, b, q))
    close(x, sl.solve_sylvester(ac, b + 0j, q + 0j), rtol=1e-12)
    np.testing.assert_allclose(ac @ x + x @ b, q, atol=1e-13)
    x32 = ml.solve_sylvester(a.astype(np.float32), b.astype(np.float32), q.astype(np.float32))
    assert x32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(x32), sl.solve_sylvester(a, b, q), rtol=1e-4, atol=1e-5)
    # first-order derivatives in every argument, both modes
    check_grads(ml.solve_sylvester, (a, b, q), order=1)
    check_grads(ml.solve_sylvester, (ac, b + 0j, q + 0j), order=1)
    # vmap over a batch of right-hand sides
    qs = rng.standard_normal((2, 4, 3))
    close(minijax.vmap(ml.solve_sylvester, in_axes=(None, None, 0))(a, b, qs),
          np.stack([sl.solve_sylvester(a, b, qi) for qi in qs]), rtol=1e-12)
    with pytest.raises(ValueError, match="shape"):
        ml.solve_sylvester(a, b, q.T)


def test_solve_banded():
    rng = np.random.default_rng(4)
    for (lo, up), n in (((1, 1), 6), ((1, 2), 5), ((0, 0), 3), ((2, 0), 4)):
        ab = rng.standard_normal((lo + up + 1, n)) + 3.0 * (np.arange(lo + up + 1) == up)[:, None]
        for b in (rng.standard_normal(n), rng.standard_normal((n, 2))):
            close(ml.solve_banded((lo, up), ab, b), sl.solve_banded((lo, up), ab, b),
                  rtol=1e-12)
    ab, b = rng.standard_normal((4, 6)) + 3.0 * (np.arange(4) == 2)[:, None], rng.standard_normal(6)
    close(minijax.jit(lambda m, v: ml.solve_banded((1, 2), m, v))(ab, b),
          sl.solve_banded((1, 2), ab, b), rtol=1e-12)
    close(minijax.vmap(lambda v: ml.solve_banded((1, 2), ab, v))(np.stack([b, 2 * b])),
          np.stack([sl.solve_banded((1, 2), ab, b), 2 * sl.solve_banded((1, 2), ab, b)]),
          rtol=1e-12)
    check_grads(lambda m, v: ml.solve_banded((1, 2), m, v), (ab, b), order=2)
    with pytest.raises(ValueError, match="l \\+ u \\+ 1"):
        ml.solve_banded((1, 1), ab, b)
    with pytest.raises(ValueError, match="rows"):
        ml.solve_banded((1, 2), ab, b[:3])


def _matrix_of(dtype, shape, rng):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return (3 * a).astype(dtype) if np.dtype(dtype).kind in "iu" else a.astype(dtype)


def _like_scipy(got, want, tol):
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(np.asarray(g), w, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64, np.int64])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_hessenberg_matches_scipy(dtype, n):
    rng = np.random.default_rng(n)
    a = _matrix_of(dtype, (n, n), rng)
    tol = 1e-4 if np.dtype(dtype).itemsize <= 8 and np.dtype(dtype).kind != "i" else 1e-12
    _like_scipy(ml.hessenberg(a), sl.hessenberg(a), tol)
    _like_scipy(ml.hessenberg(a, calc_q=True), sl.hessenberg(a, calc_q=True), tol)


def test_hessenberg_batch_jit_vmap_grad():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 5, 5))
    want = [sl.hessenberg(x, calc_q=True) for x in a]
    for got in (ml.hessenberg(a, calc_q=True),
                minijax.jit(ml.hessenberg, static_argnums=1)(a, True),
                minijax.vmap(lambda x: ml.hessenberg(x, calc_q=True))(a)):
        for g, w in zip(got, zip(*want)):
            close(g, np.stack(w), rtol=1e-12)
    # an upper-triangular matrix needs no reflection: q = I, exact
    t = np.triu(a[0])
    h, q = ml.hessenberg(t, calc_q=True)
    np.testing.assert_array_equal(np.asarray(q), np.eye(5))
    check_grads(lambda m: ml.hessenberg(m, calc_q=True), (a[0],), order=1)
    # (no derivative at t itself: LAPACK's reflector jumps from the identity to a sign
    # flip as the column below the subdiagonal leaves zero)
    check_grads(ml.hessenberg, (a[1] + 1j * a[0],), order=1)
    with pytest.raises(ValueError, match="square"):
        ml.hessenberg(a[0, :3])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (1, 1)])
def test_polar_matches_scipy(dtype, shape):
    a = _matrix_of(dtype, shape, np.random.default_rng(1))
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-11
    for side in ("right", "left"):
        _like_scipy(ml.polar(a, side), sl.polar(a, side), tol)


def test_polar_batch_jit_vmap_grad_and_errors():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 3, 4))
    want = [sl.polar(x, "left") for x in a]
    for got in (ml.polar(a, "left"), minijax.jit(ml.polar, static_argnums=1)(a, "left"),
                minijax.vmap(lambda x: ml.polar(x, side="left"))(a)):
        for g, w in zip(got, zip(*want)):
            close(g, np.stack(w), rtol=1e-11)
    check_grads(ml.polar, (a[0].T,), order=1)
    check_grads(lambda x: ml.polar(x, "left"), (a[1] + 1j * a[0],), order=1)
    with pytest.raises(ValueError, match="side"):
        ml.polar(a[0], "up")
    with pytest.raises(NotImplementedError, match="qdwh"):
        ml.polar(a[0], method="qdwh")
    with pytest.raises(NotImplementedError, match="max_iterations"):
        ml.polar(a[0], max_iterations=3)


@pytest.mark.parametrize("method", [None, "SPS", "blockEnlarge"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
def test_expm_frechet_matches_scipy(method, dtype):
    rng = np.random.default_rng(2)
    a, e = _matrix_of(dtype, (4, 4), rng), _matrix_of(dtype, (4, 4), rng)
    if np.dtype(dtype).kind != "i":
        a = a * 0.5
    _like_scipy(ml.expm_frechet(a, e, method=method), sl.expm_frechet(a, e, method=method),
                1e-6 if dtype == np.float32 else 1e-11)
    _like_scipy(ml.expm_frechet(a, e, method=method, compute_expm=False),
                sl.expm_frechet(a, e, method=method, compute_expm=False),
                1e-6 if dtype == np.float32 else 1e-11)


def test_expm_frechet_batch_jit_grad_and_errors():
    rng = np.random.default_rng(3)
    a, e = 0.4 * rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 3))
    want = np.stack([sl.expm_frechet(x, y, compute_expm=False) for x, y in zip(a, e)])
    close(ml.expm_frechet(a, e, compute_expm=False), want)
    close(minijax.jit(ml.expm_frechet, static_argnums=2)(a, e, "blockEnlarge")[1], want)
    close(minijax.vmap(ml.expm_frechet)(a, e)[1], want)
    check_grads(ml.expm_frechet, (a[0], e[0]), order=1)
    for bad in ((a[0], e[0], "Pade"),):
        with pytest.raises(ValueError, match="implementation"):
            ml.expm_frechet(*bad)
    with pytest.raises(ValueError, match="same shape"):
        ml.expm_frechet(a[0], np.eye(2))
    with pytest.raises(ValueError, match="square"):
        ml.expm_frechet(a[0, :2], e[0, :2])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_qr_multiply_matches_scipy(dtype, shape):
    rng = np.random.default_rng(8)
    a = _matrix_of(dtype, shape, rng)
    m, n = shape
    k = min(m, n)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for mode, c in (("right", _matrix_of(dtype, (2, m), rng)), ("right", rng.standard_normal(m)),
                    ("left", _matrix_of(dtype, (k, 2), rng)), ("left", rng.standard_normal(k))):
        for conjugate in (False, True):
            got = ml.qr_multiply(a, c, mode=mode, conjugate=conjugate)
            want = sl.qr_multiply(a, c, mode=mode, conjugate=conjugate)
            # columns of q (rows of r) are defined up to sign (a phase, for complex a)
            q, r = sl.qr(a, mode="economic")
            phase = np.sign(np.diagonal(np.asarray(got[1]))) / np.sign(np.diagonal(r))
            if mode == "right":
                want = (want[0] * (phase.conj() if conjugate else phase), want[1] * phase[:, None])
            else:
                d = phase.conj() if conjugate else phase
                fix = np.asarray(q.conj() if conjugate else q) * d
                want = (fix @ c.astype(want[0].dtype), want[1] * phase[:, None])
            _like_scipy(got, want, tol)


def test_qr_multiply_complex_c_batch_jit_vmap_grad_errors():
    rng = np.random.default_rng(9)
    a, c = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 4, 5))
    q, r = np.linalg.qr(a)
    # SciPy would drop the imaginary part of a complex c for a real a
    cc = c[0] + 1j * c[1]
    close(ml.qr_multiply(a[0], cc)[0], cc @ np.asarray(ml.qr(a[0], mode="economic")[0]))
    want = np.asarray(ml.qr(a, mode="economic")[0])
    close(ml.qr_multiply(a, c)[0], c @ want)
    close(minijax.jit(ml.qr_multiply, static_argnums=2)(a, c, "right")[0], c @ want)
    close(minijax.vmap(ml.qr_multiply)(a, c)[0], c @ want)
    check_grads(lambda x, y: ml.qr_multiply(x, y, mode="left"),
                (a[0], rng.standard_normal((3, 2))), order=1)
    with pytest.raises(ValueError, match="mode"):
        ml.qr_multiply(a[0], c[0], mode="middle")
    with pytest.raises(ValueError, match="not compatible"):
        ml.qr_multiply(a[0], c[0], mode="left")
    with pytest.raises(NotImplementedError, match="pivoting"):
        ml.qr_multiply(a[0], c[0], pivoting=True)


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_qr_pivoting_matches_scipy(mode):
    a = np.random.default_rng(5).normal(size=(5, 4))
    a[:, 2] = a[:, 0]   # (a rank-deficient matrix: the pivots matter)
    want = sl.qr(a, pivoting=True, mode=mode)
    got = ml.qr(a, pivoting=True, mode=mode)
    assert len(got) == len(want)
    np.testing.assert_array_equal(np.asarray(got[-1]), want[-1])
    assert np.asarray(got[-1]).dtype == want[-1].dtype
    r = np.asarray(got[-2])
    np.testing.assert_allclose(np.abs(r), np.abs(want[-2]), atol=1e-12)
    if mode != "r":
        q = np.asarray(got[0])
        np.testing.assert_allclose(q @ r, a[:, want[-1]], atol=1e-12)


@pytest.mark.parametrize("compute_uv", [True, False])
def test_svd_gesvd_driver_is_lapacks_gesvd(compute_uv):
    a = np.random.default_rng(6).normal(size=(6, 4))
    want = sl.svd(a, lapack_driver="gesvd", compute_uv=compute_uv,
                            full_matrices=False)
    got = ml.svd(a, lapack_driver="gesvd", compute_uv=compute_uv, full_matrices=False)
    for g, w in zip(got if compute_uv else [got], want if compute_uv else [want]):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("subset", [(0, 0), (1, 2), (0, 2)])
def test_eigh_subset_by_index_matches_scipy(subset):
    w, v = sl.eigh(SPD, subset_by_index=subset)
    gw, gv = ml.eigh(SPD, subset_by_index=subset)
    np.testing.assert_allclose(np.asarray(gw), w, rtol=1e-12)
    np.testing.assert_allclose(np.abs(np.asarray(gv)), np.abs(v), atol=1e-12)
    np.testing.assert_allclose(np.asarray(ml.eigh(SPD, subset_by_index=subset,
                                                  eigvals_only=True)), w, rtol=1e-12)
    with pytest.raises(ValueError) as ours:
        ml.eigh(SPD, subset_by_index=(2, 1))
    with pytest.raises(ValueError):
        sl.eigh(SPD, subset_by_index=(2, 1))
    assert "not valid" in str(ours.value)
