"""Linear algebra: lax.linalg primitives (NumPy kernels vs LAPACK custom calls vs jit,
vmap vs loops, derivatives vs finite differences, errors) and minijax.numpy.linalg
against numpy.linalg."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import lax
from minijax.lax import linalg
from minijax.test_util import check_grads, check_primitive

rng = onp.random.default_rng(0)
FLOATS = [onp.float32, onp.float64]


def tols(dtype):
    return dict(rtol=2e-4, atol=2e-5) if onp.dtype(dtype) == onp.float32 else \
        dict(rtol=1e-9, atol=1e-11)


def spd(shape, dtype=onp.float64):
    a = rng.standard_normal(shape)
    n = shape[-1]
    return (a @ onp.swapaxes(a, -1, -2) + n * onp.eye(n)).astype(dtype)


def randn(*shape, dtype=onp.float64):
    return rng.standard_normal(shape).astype(dtype)


def well_conditioned(*shape, dtype=onp.float64):
    return (rng.standard_normal(shape) + 3 * onp.eye(shape[-2], shape[-1])).astype(dtype)


def both_backends(fn, *args):
    """``fn`` evaluated with the NumPy kernels and under jit (the LAPACK kernels)."""
    return [fn(*args), minijax.jit(fn)(*args)]


def T(x):
    return onp.swapaxes(onp.asarray(x), -1, -2)


SHAPES = [(2, 4, 4), (5, 3), (2, 1, 3, 4)]
# float64 on every shape, float32 on one
DTYPE_SHAPES = [(onp.float64, s) for s in SHAPES] + [(onp.float32, (2, 4, 3))]


# ---------------------------------------------------------------- NumPy kernel vs LAPACK

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 4, 4), (1, 1)])
def test_cholesky_kernels_agree(dtype, shape):
    a = spd(shape, dtype)
    check_primitive(linalg.cholesky, [a], **tols(dtype))
    for L in both_backends(linalg.cholesky, a):
        L = onp.asarray(L)
        assert L.dtype == dtype
        onp.testing.assert_array_equal(L, onp.tril(L))
        onp.testing.assert_allclose(L @ T(L), a, **tols(dtype))


def test_cholesky_reads_the_lower_triangle_and_fails_with_nan():
    a = spd((2, 3, 3))
    a[1] = -a[1]                                        # not positive definite
    garbage = a + onp.triu(randn(3, 3), 1)              # upper triangle is ignored
    outs = both_backends(lambda x: linalg.cholesky(x, symmetrize_input=False), garbage)
    for L in outs:
        L = onp.asarray(L)
        onp.testing.assert_allclose(L[0], onp.linalg.cholesky(a[0]), rtol=1e-12)
        assert onp.isnan(L[1]).all()


TRSM_CASES = [dict(left_side=l, lower=lo, transpose_a=t, unit_diagonal=(l + lo + t) % 2 == 1)
              for l in (True, False) for lo in (True, False) for t in (True, False)]


@pytest.mark.parametrize("kw", TRSM_CASES, ids=lambda kw: "-".join(
    k for k, v in kw.items() if v) or "plain")
def test_triangular_solve_kernels_agree(kw):
    a = well_conditioned(2, 4, 4)
    b = randn(2, 4, 3) if kw["left_side"] else randn(2, 3, 4)
    fn = lambda a, b: linalg.triangular_solve(a, b, **kw)          # noqa: E731
    check_primitive(fn, [a, b], rtol=1e-10, atol=1e-12)
    t = onp.tril(a) if kw["lower"] else onp.triu(a)
    if kw["unit_diagonal"]:
        t[..., range(4), range(4)] = 1
    op = T(t) if kw["transpose_a"] else t
    for x in both_backends(fn, a, b):
        x = onp.asarray(x)
        onp.testing.assert_allclose(op @ x if kw["left_side"] else x @ op, b, atol=1e-10)


@pytest.mark.parametrize("dtype", FLOATS)
def test_triangular_solve_float32(dtype):
    a, b = well_conditioned(3, 3, dtype=dtype), randn(3, 2, dtype=dtype)
    fn = lambda a, b: linalg.triangular_solve(a, b, left_side=True, lower=True)  # noqa: E731
    out = check_primitive(fn, [a, b], **tols(dtype))
    assert onp.asarray(out).dtype == dtype


@pytest.mark.parametrize("dtype,shape", DTYPE_SHAPES, ids=str)
def test_lu_kernels_agree(dtype, shape):
    a = randn(*shape, dtype=dtype)
    check_primitive(linalg.lu, [a], **tols(dtype))
    m, n = shape[-2:]
    for lu, piv, perm in both_backends(linalg.lu, a):
        lu, piv, perm = onp.asarray(lu), onp.asarray(piv), onp.asarray(perm)
        assert piv.dtype == perm.dtype == onp.int32
        assert piv.shape == (*shape[:-2], min(m, n)) and perm.shape == (*shape[:-2], m)
        k = min(m, n)
        l = onp.tril(lu[..., :, :k], -1) + onp.eye(m, k)
        u = onp.triu(lu[..., :k, :])
        permuted = onp.take_along_axis(a, perm[..., None].astype(onp.int64), axis=-2)
        onp.testing.assert_allclose(l @ u, permuted, **tols(dtype))


def test_lu_matches_scipy_pivots():
    scipy_linalg = pytest.importorskip("scipy.linalg")
    a = randn(5, 5)
    lu_ref, piv_ref = scipy_linalg.lu_factor(a)
    for lu, piv, _ in both_backends(linalg.lu, a):
        onp.testing.assert_array_equal(onp.asarray(piv), piv_ref)
        onp.testing.assert_allclose(onp.asarray(lu), lu_ref, rtol=1e-12, atol=1e-14)


def test_lu_pivots_to_permutation():
    piv = onp.array([[2, 2, 2], [0, 1, 2]], onp.int32)
    out = check_primitive(lambda p: linalg.lu_pivots_to_permutation(p, 4), [piv], batch_size=0)
    onp.testing.assert_array_equal(onp.asarray(out), [[2, 0, 1, 3], [0, 1, 2, 3]])
    with pytest.raises(TypeError, match=r"lax\.linalg\.lu_pivots_to_permutation requires int32"):
        linalg.lu_pivots_to_permutation(piv.astype(onp.int64), 4)
    with pytest.raises(ValueError, match=r"k <= permutation_size=2, got shape \(2, 3\)"):
        linalg.lu_pivots_to_permutation(piv, 2)


def _abs_all(*xs):
    return tuple(lax.abs(x) for x in xs)


@pytest.mark.parametrize("dtype,shape", DTYPE_SHAPES, ids=str)
def test_qr_kernels_agree(dtype, shape):
    a = randn(*shape, dtype=dtype)
    # Columns of q (rows of r) are unique up to sign: compare absolute values.
    check_primitive(lambda x: _abs_all(*linalg.qr(x, full_matrices=False)), [a], **tols(dtype))
    m, n = shape[-2:]
    for full in (True, False):
        for q, r in both_backends(lambda x: linalg.qr(x, full_matrices=full), a):
            q, r = onp.asarray(q), onp.asarray(r)
            k = m if full else min(m, n)
            assert q.shape == (*shape[:-2], m, k) and r.shape == (*shape[:-2], k, n)
            onp.testing.assert_array_equal(r, onp.triu(r))
            onp.testing.assert_allclose(q @ r, a, **tols(dtype))
            onp.testing.assert_allclose(T(q) @ q, onp.broadcast_to(onp.eye(k), T(q).shape[:-1]
                                                                    + (k,)), **tols(dtype))


@pytest.mark.parametrize("dtype,shape", DTYPE_SHAPES, ids=str)
def test_geqrf_kernels_agree_and_give_numpys_raw_qr(dtype, shape):
    a = randn(*shape, dtype=dtype)
    check_primitive(linalg.geqrf, [a], **tols(dtype))
    for h, tau in both_backends(lambda x: np.linalg.qr(x, mode="raw"), a):
        want_h, want_tau = onp.linalg.qr(a, mode="raw")
        onp.testing.assert_allclose(onp.asarray(h), want_h, **tols(dtype))
        onp.testing.assert_allclose(onp.asarray(tau), want_tau, **tols(dtype))
        assert onp.asarray(h).dtype == want_h.dtype


@pytest.mark.parametrize("dtype,shape", DTYPE_SHAPES, ids=str)
def test_svd_kernels_agree(dtype, shape):
    a = randn(*shape, dtype=dtype)
    check_primitive(lambda x: linalg.svd(x, compute_uv=False), [a], **tols(dtype))
    check_primitive(lambda x: _abs_all(*linalg.svd(x, full_matrices=False)), [a],
                    **tols(dtype))
    m, n = shape[-2:]
    k = min(m, n)
    for full in (True, False):
        for u, s, vt in both_backends(lambda x: linalg.svd(x, full_matrices=full), a):
            u, s, vt = onp.asarray(u), onp.asarray(s), onp.asarray(vt)
            assert s.dtype == dtype
            assert u.shape[-2:] == (m, m if full else k) and vt.shape[-2:] == (n if full else k, n)
            onp.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vt[..., :k, :], a,
                                        **tols(dtype))
            onp.testing.assert_allclose(s, onp.linalg.svd(a, compute_uv=False), **tols(dtype))
            assert (onp.diff(s, axis=-1) <= 0).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 4, 4), (1, 1)])
def test_eigh_kernels_agree(dtype, shape):
    a = spd(shape, dtype) - 2 * onp.eye(shape[-1], dtype=dtype)
    check_primitive(lambda x: _abs_all(*linalg.eigh(x)), [a], **tols(dtype))
    for lower in (True, False):
        for v, w in both_backends(lambda x: linalg.eigh(x, lower=lower), a):
            v, w = onp.asarray(v), onp.asarray(w)
            onp.testing.assert_allclose(a @ v, v * w[..., None, :], **tols(dtype))
            onp.testing.assert_allclose(w, onp.linalg.eigvalsh(a), **tols(dtype))


def test_eigh_reads_one_triangle():
    a = spd((4, 4))
    for lower in (True, False):
        garbage = a + (onp.triu(randn(4, 4), 1) if lower else onp.tril(randn(4, 4), -1))
        f = lambda x: linalg.eigh(x, lower=lower, symmetrize_input=False)[1]     # noqa: E731
        for w in both_backends(f, garbage):
            onp.testing.assert_allclose(onp.asarray(w), onp.linalg.eigvalsh(a), rtol=1e-10)


EDGE_FNS = {
    "cholesky": linalg.cholesky,
    "qr_r": lambda x: lax.abs(linalg.qr(x)[1]),
    "svd_s": lambda x: linalg.svd(x, compute_uv=False),
    "eigh_w": lambda x: linalg.eigh(x)[1],
    # (the right-hand side is x with its rows reversed: with x itself, a column of the
    # solution is a unit vector in exact arithmetic, and whether a rounded 0 or a tiny
    # residue meets an inf below it, NaN or inf, depended on the draw)
    "trsm": lambda x: linalg.triangular_solve(x, x[..., ::-1, :], left_side=True,
                                              lower=True),
    "trsm_right_upper": lambda x: linalg.triangular_solve(x, x, lower=False),
}


@pytest.mark.parametrize("name", EDGE_FNS)
@pytest.mark.parametrize("value", [onp.nan, onp.inf, -onp.inf])
def test_non_finite_entries(name, value):
    # Matrix 0 is fine; matrices 1-3 have a non-finite entry on, below or above the diagonal.
    # NaN results must appear in the same places for the NumPy kernels and LAPACK.
    a = spd((3, 3))
    x = onp.stack([a, a, a, a])
    for j, i in enumerate((0, 3, 7)):
        x[j + 1].flat[i] = value
    with onp.errstate(all="ignore"):
        check_primitive(EDGE_FNS[name], [x], batch_size=0, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn,shape", [
    (linalg.cholesky, (0, 0)), (linalg.cholesky, (2, 0, 0)), (linalg.cholesky, (0, 3, 3)),
    (linalg.lu, (3, 0)), (linalg.lu, (0, 2)),
    (lambda x: linalg.qr(x, full_matrices=True), (3, 0)),
    (lambda x: linalg.qr(x, full_matrices=False), (0, 3)),
    (lambda x: linalg.svd(x, compute_uv=False), (0, 3)),
    (lambda x: linalg.eigh(x), (0, 0)),
])
def test_empty_matrices(fn, shape):
    check_primitive(fn, [onp.zeros(shape)], batch_size=0)


def test_unpacking_of_geevs_real_eigenvectors():
    # (the GPU's geev packs them as LAPACK's does: SciPy's dgeev is the oracle)
    import scipy.linalg.lapack as lapack
    a = onp.random.default_rng(1).normal(size=(3, 6, 6))
    packed = [lapack.dgeev(m, compute_vl=0) for m in a]
    w = onp.stack([wr + 1j * wi for wr, wi, _, _, _ in packed])
    v = onp.stack([vr for _, _, _, vr, _ in packed])
    assert (w.imag > 0).sum() >= 3   # (conjugate pairs to unpack)
    for f in (linalg._unpack_conjugate_pairs, minijax.jit(linalg._unpack_conjugate_pairs)):
        vectors = onp.asarray(f(w, v))
        onp.testing.assert_allclose(a @ vectors, vectors * w[:, None, :], atol=1e-13)
        onp.testing.assert_allclose(onp.linalg.norm(vectors, axis=1), 1.0, rtol=1e-13)


def test_jit_lowers_to_lapack_custom_calls():
    x = spd((3, 3))
    traced = minijax.jit(lambda x: (linalg.cholesky(x), linalg.lu(x), linalg.qr(x),
                                    linalg.svd(x), linalg.eigh(x),
                                    linalg.triangular_solve(x, x))).trace(x)
    # (for the CPU: with CUDA as the default platform the kernels are cuSOLVER's)
    text = traced.lower(lowering_platforms=("cpu",)).as_text()
    for target in ("potrf", "getrf", "geqrf", "orgqr", "gesdd", "syevd", "trsm"):
        assert f"lapack_d{target}_ffi" in text


COMPLEX = [onp.complex64, onp.complex128]


def crandn(*shape, dtype=onp.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def H(x):
    return T(x).conj()


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_kernels_agree(dtype):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == onp.complex64 else dict(rtol=1e-10, atol=1e-12)
    a, m = crandn(2, 3, 3, dtype=dtype), crandn(2, 4, 3, dtype=dtype)
    herm = (a @ H(a) + 3 * onp.eye(3)).astype(dtype)
    tri = (a + 3 * onp.eye(3)).astype(dtype)
    check_primitive(linalg.cholesky, [herm], **tol)
    check_primitive(lambda x, b: linalg.triangular_solve(x, b, left_side=True, lower=True,
                                                         transpose_a=True, conjugate_a=True),
                    [tri, a], **tol)
    check_primitive(lambda x, b: linalg.triangular_solve(x, b, conjugate_a=True), [tri, a], **tol)
    check_primitive(linalg.lu, [m], **tol)
    check_primitive(lambda x: _abs_all(*linalg.qr(x, full_matrices=False)), [m], **tol)
    check_primitive(lambda x: _abs_all(*linalg.svd(x, full_matrices=False)), [m], **tol)
    check_primitive(lambda x: linalg.eigh(x)[1], [herm], **tol)
    L = onp.asarray(minijax.jit(linalg.cholesky)(herm))
    onp.testing.assert_allclose(L @ H(L), herm, **tol)
    q, r = (onp.asarray(t) for t in minijax.jit(linalg.qr)(m))
    onp.testing.assert_allclose(q @ r, m, **tol)
    u, sv, vh = (onp.asarray(t) for t in minijax.jit(
        lambda x: linalg.svd(x, full_matrices=False))(m))
    assert sv.dtype == onp.finfo(dtype).dtype
    onp.testing.assert_allclose((u * sv[..., None, :]) @ vh, m, **tol)
    v, w = (onp.asarray(t) for t in minijax.jit(linalg.eigh)(herm))
    assert w.dtype == onp.finfo(dtype).dtype
    onp.testing.assert_allclose(herm @ v, v * w[..., None, :], **tol)


def test_complex_derivatives_of_lu_and_solves():
    a, b = crandn(3, 3) + 3 * onp.eye(3), crandn(3, 2)
    check_grads(linalg.lu, [a])     # the integer pivots and permutation included
    check_grads(lambda a, b: linalg.triangular_solve(a, b, left_side=True, lower=True), [a, b])
    check_grads(np.linalg.solve, [a, b])
    check_grads(np.linalg.inv, [a], order=2)


def check_complex_grads(f, args, order=2):
    """Derivatives at complex ``args`` along complex directions, forward and reverse,
    at this module's tighter tolerance for complex128."""
    check_grads(f, args, order=order, eps=1e-6, tol=1e-6)


@pytest.mark.parametrize("left_side,transpose_a", [(True, True), (False, False), (True, False)])
def test_complex_derivatives_of_conjugated_triangular_solve(left_side, transpose_a):
    a, b = crandn(3, 3) + 3 * onp.eye(3), crandn(3, 3)
    check_complex_grads(lambda a, b: linalg.triangular_solve(
        a, b, left_side=left_side, lower=True, transpose_a=transpose_a, conjugate_a=True),
        [a, b])


def test_complex_derivatives_of_cholesky():
    a = crandn(2, 3, 3)
    herm = a @ H(a) + 3 * onp.eye(3)
    check_complex_grads(linalg.cholesky, [herm])
    # Without symmetrizing, the kernel reads the lower triangle and the diagonal's real part.
    check_complex_grads(lambda x: linalg.cholesky(x, symmetrize_input=False), [herm])
    check_complex_grads(lambda x: np.linalg.cholesky(x, upper=True), [herm], order=1)


def test_complex_symmetrize_input_is_hermitian_part():
    a = crandn(3, 3)
    x = a @ H(a) + 3 * onp.eye(3) + 0.3 * crandn(3, 3)       # not Hermitian
    herm = (x + H(x)) / 2
    for fn in (linalg.cholesky, lambda m: linalg.eigh(m)[1]):
        onp.testing.assert_allclose(onp.asarray(fn(x)), onp.asarray(fn(herm)), rtol=1e-12)
    onp.testing.assert_allclose(onp.asarray(linalg.cholesky(x)), onp.linalg.cholesky(herm),
                                rtol=1e-12)


def test_complex_derivatives_of_eigh():
    a = crandn(2, 3, 3)
    herm = a + H(a)
    # Eigenvalues, and functions of the matrix (the eigenvectors' phases are arbitrary).
    check_complex_grads(lambda x: linalg.eigh(x)[1], [herm])

    def expm_like(x, lower):
        v, w = linalg.eigh(x, lower=lower)
        e = lax.convert_element_type(lax.sin(w), v.dtype)
        return np.matmul(v * e[..., None, :], lax.conj(np.swapaxes(v, -1, -2)))
    for lower in (True, False):
        check_complex_grads(lambda x: expm_like(x, lower), [herm])


@pytest.mark.parametrize("shape,full_matrices", [((4, 3), False), ((3, 3), True),
                                                  ((2, 4), True), ((2, 4), False)])
def test_complex_derivatives_of_qr(shape, full_matrices):
    x = crandn(*shape)
    check_complex_grads(lambda a: linalg.qr(a, full_matrices=full_matrices), [x])


@pytest.mark.parametrize("shape", [(2, 3, 3), (4, 2), (2, 4)])
def test_complex_derivatives_of_svd(shape):
    x = crandn(*shape)
    check_complex_grads(lambda a: linalg.svd(a, compute_uv=False), [x])

    def reweighted(a):      # u diag(s³) vᴴ: free of the singular vectors' phases
        u, s, vh = linalg.svd(a, full_matrices=False)
        w = lax.convert_element_type(s * s * s, u.dtype)
        return np.matmul(u * w[..., None, :], vh)
    check_complex_grads(reweighted, [x])


def test_complex_derivatives_of_det_and_slogdet():
    a = crandn(2, 3, 3)
    check_complex_grads(np.linalg.det, [a])
    check_complex_grads(lambda x: tuple(np.linalg.slogdet(x)), [a])


def test_complex_derivatives_of_pinv_and_lstsq():
    a, b = crandn(4, 3), crandn(4, 2)
    check_complex_grads(np.linalg.pinv, [a])
    check_complex_grads(np.linalg.pinv, [crandn(2, 3)], order=1)
    check_complex_grads(lambda a, b: tuple(np.linalg.lstsq(a, b)[:2]), [a, b], order=1)


def test_complex_derivatives_not_implemented_say_so():
    with pytest.raises(NotImplementedError, match="full_matrices of tall matrices is "
                                                  "implemented for real dtypes"):
        minijax.jvp(linalg.qr, (crandn(3, 2),), (crandn(3, 2),))


# ---------------------------------------------------------------- vmap of non-leading axes

def test_vmap_triangular_solve_one_operand_unbatched():
    a, bs = well_conditioned(3, 3), randn(4, 3, 2)
    f = lambda b: linalg.triangular_solve(a, b, left_side=True, lower=True)    # noqa: E731
    out = minijax.vmap(f, in_axes=2, out_axes=1)(onp.moveaxis(bs, 0, 2))
    for i in range(4):
        onp.testing.assert_allclose(onp.asarray(out)[:, i], onp.asarray(f(bs[i])), rtol=1e-12)


def test_vmap_of_numpy_linalg_composites():
    a, bs = well_conditioned(3, 3), randn(3, 4, 2)
    out = minijax.vmap(np.linalg.solve, in_axes=(None, 1), out_axes=2)(a, bs)
    for i in range(4):
        onp.testing.assert_allclose(onp.asarray(out)[:, :, i], onp.linalg.solve(a, bs[:, i]),
                                    rtol=1e-10)
    many = well_conditioned(2, 3, 3).transpose(1, 0, 2)        # batch along axis 1
    dets = minijax.vmap(np.linalg.det, in_axes=1)(many)
    onp.testing.assert_allclose(onp.asarray(dets), onp.linalg.det(many.transpose(1, 0, 2)),
                                rtol=1e-10)


# ---------------------------------------------------------------- derivatives

def test_cholesky_grads():
    a = spd((3, 3))
    check_grads(linalg.cholesky, [a], order=2)
    # Without symmetrization the derivative is that of the lower triangle.
    check_grads(lambda x: linalg.cholesky(x, symmetrize_input=False), [a + onp.triu(a, 1)],
                order=1)
    check_grads(linalg.cholesky, [spd((2, 3, 3))], order=1)


@pytest.mark.parametrize("kw", TRSM_CASES[::2], ids=lambda kw: "-".join(
    k for k, v in kw.items() if v) or "plain")
def test_triangular_solve_grads(kw):
    a = well_conditioned(3, 3)
    b = randn(3, 2) if kw["left_side"] else randn(2, 3)
    check_grads(lambda a, b: linalg.triangular_solve(a, b, **kw), [a, b], order=2)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 3)])
def test_lu_grads(shape):
    check_grads(linalg.lu, [well_conditioned(*shape)], order=2)


@pytest.mark.parametrize("shape,full", [((3, 3), True), ((4, 3), False), ((3, 4), True),
                                        ((3, 4), False), ((2, 3, 3), False)])
def test_qr_grads(shape, full):
    check_grads(lambda x: linalg.qr(x, full_matrices=full), [well_conditioned(*shape)], order=2)


def test_qr_full_tall_grads():
    a = well_conditioned(4, 2)
    check_grads(lambda x: linalg.qr(x, full_matrices=True), [a], order=1)
    check_grads(lambda x: linalg.qr(x, full_matrices=True), [well_conditioned(2, 3, 2)],
                order=1)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 3)])
def test_svd_grads(shape):
    a = well_conditioned(*shape)
    check_grads(lambda x: linalg.svd(x, compute_uv=False), [a], order=2)

    def invariant(x, full=False):      # sign-invariant functions of u and v
        u, s, vt = linalg.svd(x, full_matrices=full)
        return u * u, s, vt * vt
    check_grads(invariant, [a], order=1)
    if shape[-1] == shape[-2]:
        check_grads(lambda x: invariant(x, True), [a], order=1)


def test_eigh_grads():
    a = spd((3, 3)) + onp.diag([0.0, 1.0, 3.0])
    check_grads(lambda x: linalg.eigh(x)[1], [a], order=2)
    check_grads(lambda x: (lambda v, w: v * v)(*linalg.eigh(x)), [a], order=2)
    # Only the lower triangle is read when the input is not symmetrized.
    check_grads(lambda x: (lambda v, w: (v * v, w))(*linalg.eigh(x, symmetrize_input=False)),
                [a + onp.triu(randn(3, 3), 1)], order=1)
    check_grads(lambda x: linalg.eigh(x)[1], [spd((2, 3, 3))], order=1)


def test_grad_of_linalg_under_jit_and_vmap():
    a = spd((3, 3))
    g = minijax.jit(minijax.grad(lambda x: np.sum(linalg.cholesky(x))))(a)
    g_eager = minijax.grad(lambda x: np.sum(linalg.cholesky(x)))(a)
    onp.testing.assert_allclose(onp.asarray(g), onp.asarray(g_eager), rtol=1e-10)
    batch = spd((4, 3, 3))
    gv = minijax.vmap(minijax.grad(lambda x: np.linalg.slogdet(x).logabsdet))(batch)
    onp.testing.assert_allclose(onp.asarray(gv), onp.linalg.inv(T(batch)), rtol=1e-10)


NUMPY_GRADS = [
    ("solve", lambda a, b, v: np.linalg.solve(a, b)),
    ("solve_vec", lambda a, b, v: np.linalg.solve(a, v)),
    ("inv", lambda a, b, v: np.linalg.inv(a)),
    ("det", lambda a, b, v: np.linalg.det(a)),
    ("slogdet", lambda a, b, v: np.linalg.slogdet(a).logabsdet),
    ("pinv", lambda a, b, v: np.linalg.pinv(b)),
    ("norm2", lambda a, b, v: np.linalg.norm(a, 2)),
    ("nuc", lambda a, b, v: np.linalg.norm(b, "nuc")),
    ("matrix_power", lambda a, b, v: np.linalg.matrix_power(a, -2)),
    ("lstsq", lambda a, b, v: np.linalg.lstsq(b, v)[0]),
]


@pytest.mark.parametrize("name,fn", NUMPY_GRADS, ids=[n for n, _ in NUMPY_GRADS])
def test_numpy_linalg_grads(name, fn):
    a, b, v = well_conditioned(3, 3), randn(3, 2), randn(3)
    order = 2 if name in ("solve", "inv", "det", "slogdet") else 1
    check_grads(fn, [a, b, v], order=order)


# ---------------------------------------------------------------- numpy.linalg vs NumPy

A = well_conditioned(3, 4, 4)
S = spd((3, 4, 4))
M = randn(2, 5, 3)
B = randn(3, 4, 2)
V = randn(4)

NUMPY_CASES = [
    ("solve", lambda m, a, b: m.linalg.solve(a, b), [A, B]),
    ("solve_vector", lambda m, a, b: m.linalg.solve(a, b), [A, V]),
    ("solve_broadcast", lambda m, a, b: m.linalg.solve(a, b), [A, B[:1]]),
    ("inv", lambda m, a: m.linalg.inv(a), [A]),
    ("det", lambda m, a: m.linalg.det(a), [A]),
    ("det_int", lambda m, a: m.linalg.det(a), [onp.array([[1, 2], [3, 4]])]),
    ("det_empty", lambda m, a: m.linalg.det(a), [onp.zeros((0, 0))]),
    ("slogdet", lambda m, a: tuple(m.linalg.slogdet(a)), [A]),
    ("slogdet_singular", lambda m, a: tuple(m.linalg.slogdet(a)),
     [onp.array([[1.0, 2.0], [2.0, 4.0]])]),
    ("cholesky", lambda m, a: m.linalg.cholesky(a), [S]),
    ("cholesky_upper", lambda m, a: m.linalg.cholesky(a, upper=True), [S]),
    ("eigvalsh", lambda m, a: m.linalg.eigvalsh(a), [S]),
    ("eigvalsh_U", lambda m, a: m.linalg.eigvalsh(a, UPLO="U"), [A]),
    ("eigh_values", lambda m, a: m.linalg.eigh(a).eigenvalues, [A]),
    ("svdvals", lambda m, a: m.linalg.svdvals(a), [M]),
    ("svd_s", lambda m, a: m.linalg.svd(a, compute_uv=False), [M]),
    ("qr_r", lambda m, a: abs(m.linalg.qr(a, mode="r")), [M]),
    ("matrix_rank", lambda m, a: m.linalg.matrix_rank(a),
     [onp.array([[1.0, 2, 3], [2, 4, 6], [0, 1, 0]])]),
    ("matrix_rank_batch", lambda m, a: m.linalg.matrix_rank(a), [M]),
    ("matrix_rank_tol", lambda m, a: m.linalg.matrix_rank(a, tol=1.5), [M]),
    ("matrix_rank_vector", lambda m, a: m.linalg.matrix_rank(a), [V]),
    ("pinv", lambda m, a: m.linalg.pinv(a), [M]),
    ("pinv_rtol", lambda m, a: m.linalg.pinv(a, rtol=0.5), [M]),
    ("norm", lambda m, a: m.linalg.norm(a), [M]),
    ("norm_fro_2d", lambda m, a: m.linalg.norm(a, "fro"), [M[0]]),
    ("norm_vector_keepdims", lambda m, a: m.linalg.norm(a, axis=1, keepdims=True), [M]),
    ("norm_matrix_keepdims", lambda m, a: m.linalg.norm(a, 1, axis=(2, 0), keepdims=True), [M]),
    ("matrix_norm", lambda m, a: m.linalg.matrix_norm(a, ord=-1), [M]),
    ("vector_norm_axes", lambda m, a: m.linalg.vector_norm(a, axis=(0, 2), ord=3), [M]),
    ("vector_norm_all", lambda m, a: m.linalg.vector_norm(a, keepdims=True), [M]),
    ("vector_norm_inf", lambda m, a: m.linalg.vector_norm(a, ord=onp.inf, axis=-1), [M]),
    ("matrix_power", lambda m, a: m.linalg.matrix_power(a, 5), [A]),
    ("matrix_power_neg", lambda m, a: m.linalg.matrix_power(a, -3), [A]),
    ("matrix_power_0", lambda m, a: m.linalg.matrix_power(a, 0), [A]),
    ("matrix_power_int", lambda m, a: m.linalg.matrix_power(a, 3),
     [onp.array([[1, 2], [3, 4]], onp.int32)]),
    ("multi_dot", lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), [V, A[0], A[1]]),
    ("cross", lambda m, a, b: m.linalg.cross(a, b), [M[..., :3], randn(5, 3)]),
    ("outer", lambda m, a, b: m.linalg.outer(a, b), [V, V[:3]]),
    ("trace", lambda m, a: m.linalg.trace(a, offset=1), [M]),
    ("trace_int8", lambda m, a: m.linalg.trace(a), [onp.arange(12, dtype=onp.int8).reshape(3, 4)]),
    ("diagonal", lambda m, a: m.linalg.diagonal(a), [M]),
    ("diagonal_offset", lambda m, a: m.linalg.diagonal(a, offset=-2), [M]),
    ("diagonal_out_of_range", lambda m, a: m.linalg.diagonal(a, offset=4), [M]),
    ("vecdot", lambda m, a, b: m.linalg.vecdot(a, b), [M, M[0]]),
    ("vecdot_axis", lambda m, a, b: m.linalg.vecdot(a, b, axis=1), [M, M[::-1]]),
    ("matmul", lambda m, a, b: m.linalg.matmul(a, b), [A, B]),
    ("matrix_transpose", lambda m, a: m.linalg.matrix_transpose(a), [M]),
    ("tensordot", lambda m, a, b: m.linalg.tensordot(a, b, axes=1), [M, M[0].T]),
    ("lstsq", lambda m, a, b: tuple(m.linalg.lstsq(a, b)), [M[0], M[1][:, 0]]),
    ("lstsq_matrix", lambda m, a, b: tuple(m.linalg.lstsq(a, b)), [M[0], M[1]]),
    ("lstsq_wide", lambda m, a, b: tuple(m.linalg.lstsq(a, b)), [M[0].T, M[1][:3]]),
    ("cond", lambda m, a: m.linalg.cond(a), [A]),
    ("tensorinv", lambda m, a: m.linalg.tensorinv(a, ind=1), [A[0].reshape(4, 2, 2)]),
    ("tensorsolve", lambda m, a, b: m.linalg.tensorsolve(a, b),
     [well_conditioned(6, 6).reshape(2, 3, 6), randn(2, 3)]),
    ("tensorsolve_axes", lambda m, a, b: m.linalg.tensorsolve(a, b, axes=(0,)),
     [well_conditioned(6, 6).reshape(6, 2, 3), randn(2, 3)]),
    ("cond_inf", lambda m, a: m.linalg.cond(a, onp.inf), [A]),
    ("inv_float32", lambda m, a: m.linalg.inv(a), [A.astype(onp.float32)]),
    ("det_float32", lambda m, a: m.linalg.det(a), [A.astype(onp.float32)]),
    ("svdvals_float32", lambda m, a: m.linalg.svdvals(a), [M.astype(onp.float32)]),
    ("solve_complex", lambda m, a, b: m.linalg.solve(a, b), [A + 1j * B[..., :1], B + 0j]),
    ("inv_complex", lambda m, a: m.linalg.inv(a), [(A + 1j * A[::-1]).astype(onp.complex64)]),
    ("det_complex", lambda m, a: m.linalg.det(a), [A + 1j * A[::-1]]),
    ("pinv_complex", lambda m, a: m.linalg.pinv(a), [M + 1j * M[::-1]]),
    ("lstsq_complex", lambda m, a, b: tuple(m.linalg.lstsq(a, b)),
     [M[0] + 1j * M[1], M[1][:, 0] - 2j * M[0][:, 1]]),
    ("lstsq_complex_wide", lambda m, a, b: tuple(m.linalg.lstsq(a, b)),
     [(M[0] + 1j * M[1]).T, M[1][:3] + 0j]),
    ("det_complex_singular", lambda m, a: m.linalg.det(a), [onp.ones((2, 3, 3)) * (1 + 2j)]),
    ("slogdet_complex", lambda m, a: tuple(m.linalg.slogdet(a)),
     [(A + 1j * A[::-1]).astype(onp.complex64)]),
    ("slogdet_complex_singular", lambda m, a: tuple(m.linalg.slogdet(a)),
     [onp.ones((3, 3)) * (1 - 1j)]),
    ("cholesky_complex", lambda m, a: m.linalg.cholesky(a),
     [S + 1j * (A - onp.swapaxes(A, -1, -2))]),
    ("cholesky_complex_upper", lambda m, a: m.linalg.cholesky(a, upper=True),
     [S + 1j * (A - onp.swapaxes(A, -1, -2))]),
    ("eigvalsh_complex", lambda m, a: m.linalg.eigvalsh(a),
     [S + 1j * (A - onp.swapaxes(A, -1, -2))]),
    ("svdvals_complex", lambda m, a: m.linalg.svdvals(a), [M + 1j * M[::-1]]),
    ("matrix_rank_complex", lambda m, a: m.linalg.matrix_rank(a), [M + 1j * M[::-1]]),
    ("cond_complex", lambda m, a: m.linalg.cond(a), [A + 1j * A[::-1]]),
    ("cond_complex_fro", lambda m, a: m.linalg.cond(a, "fro"), [A + 1j * A[::-1]]),
    ("tensorinv_complex", lambda m, a: m.linalg.tensorinv(a, ind=1),
     [(A[0] + 1j * A[1]).reshape(4, 2, 2)]),
    ("tensorsolve_complex", lambda m, a, b: m.linalg.tensorsolve(a, b),
     [(well_conditioned(6, 6) + 0.5j * well_conditioned(6, 6)).reshape(2, 3, 6),
      randn(2, 3) + 0j]),
]
NORM_ORDS = [(o, (1, 2)) for o in (None, "fro", "nuc", onp.inf, -onp.inf, 1, -1, 2, -2)] + \
    [(o, 1) for o in (None, onp.inf, -onp.inf, 0, 1, -1, 2, 3, 0.5)]
NUMPY_CASES += [(f"norm_{o}_{ax}", (lambda o, ax: lambda m, a: m.linalg.norm(a, o, ax))(o, ax),
                 [M]) for o, ax in NORM_ORDS]
NUMPY_CASES += [(f"norm_complex_{o}_{ax}",
                 (lambda o, ax: lambda m, a: m.linalg.norm(a, o, ax))(o, ax), [M + 1j * M[::-1]])
                for o, ax in NORM_ORDS[::2]]
NUMPY_CASES += [("norm_complex_all", lambda m, a: m.linalg.norm(a), [M + 1j * M[::-1]]),
                ("vector_norm_complex", lambda m, a: m.linalg.vector_norm(a, ord=3),
                 [M + 1j * M[::-1]])]


@pytest.mark.parametrize("name,fn,args", NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES])
def test_numpy_linalg_matches_numpy(name, fn, args):
    expected = fn(onp, *args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    f32 = any(onp.asarray(a).dtype in (onp.float32, onp.complex64) for a in args)
    tol = dict(rtol=1e-4, atol=1e-5) if f32 else dict(rtol=1e-9, atol=1e-11)
    for got in (fn(np, *args), minijax.jit(lambda *a: fn(np, *a))(*args)):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            g, e = onp.asarray(g), onp.asarray(e)
            assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, e.shape, g.dtype, e.dtype)
            onp.testing.assert_allclose(g, e, **tol)


def test_numpy_linalg_factorizations_reconstruct():
    q, r = np.linalg.qr(M, mode="complete")
    assert isinstance(q, np.ndarray) and np.linalg.qr(M)._fields == ("Q", "R")
    onp.testing.assert_allclose(onp.asarray(q @ r), M, atol=1e-12)
    u, s, vh = np.linalg.svd(M, full_matrices=False)
    onp.testing.assert_allclose(onp.asarray((u * np.expand_dims(s, -2)) @ vh), M, atol=1e-12)
    w, v = np.linalg.eigh(S)
    onp.testing.assert_allclose(onp.asarray(S @ v), onp.asarray(v * np.expand_dims(w, -2)),
                                atol=1e-10)
    sign, logdet = np.linalg.slogdet(A)
    onp.testing.assert_allclose(onp.asarray(sign * np.exp(logdet)), onp.linalg.det(A),
                                rtol=1e-12)


def test_singular_solve_gives_non_finite_values():
    singular = onp.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(onp.linalg.LinAlgError):   # eagerly NumPy's exception, as NumPy
        np.linalg.inv(singular)
    out = onp.asarray(minijax.jit(np.linalg.inv)(singular))   # compiled: no exception
    assert not onp.isfinite(out).all()


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("fn,name", [(linalg.cholesky, "cholesky"), (linalg.eigh, "eigh")])
def test_lax_errors_square(fn, name):
    with pytest.raises(ValueError, match=rf"lax\.linalg\.{name} requires square.*\(2, 3\)"):
        fn(onp.zeros((2, 3)))


@pytest.mark.parametrize("fn,name", [(linalg.cholesky, "cholesky"), (linalg.lu, "lu"),
                                     (linalg.qr, "qr"), (linalg.svd, "svd"),
                                     (linalg.eigh, "eigh")])
def test_lax_errors_dtype_and_rank(fn, name):
    with pytest.raises(TypeError, match=rf"lax\.linalg\.{name} requires floating.*int32"):
        fn(onp.eye(3, dtype=onp.int32))
    with pytest.raises(ValueError, match=rf"lax\.linalg\.{name} requires.*rank >= 2.*\(3,\)"):
        fn(onp.ones(3))


def test_lax_triangular_solve_errors():
    a = onp.eye(3)
    with pytest.raises(ValueError, match=r"triangular_solve with left_side=True.*\(2, 3\)"):
        linalg.triangular_solve(a, onp.ones((2, 3)), left_side=True)
    with pytest.raises(ValueError, match=r"same batch axes"):
        linalg.triangular_solve(onp.ones((2, 3, 3)), onp.ones((3, 3)))
    with pytest.raises(TypeError, match=r"one dtype.*float64 and float32"):
        linalg.triangular_solve(a, onp.ones((3, 3), onp.float32))
    with pytest.raises(ValueError, match=r"requires square.*a of shape \(3, 2\)"):
        linalg.triangular_solve(onp.ones((3, 2)), onp.ones((3, 3)))


@pytest.mark.parametrize("name", ["cholesky", "det", "inv", "slogdet", "eigh", "solve"])
def test_numpy_linalg_errors(name):
    fn = getattr(np.linalg, name)
    extra = (onp.ones((2, 1)),) if name == "solve" else ()
    with pytest.raises(ValueError, match=rf"linalg\.{name}: .*square.*\(2, 3\)"):
        fn(onp.ones((2, 3)), *extra)
    with pytest.raises(ValueError, match=rf"linalg\.{name}: 1-dimensional.*\(3,\)"):
        fn(onp.ones(3), *extra)
    with pytest.raises(onp.linalg.LinAlgError):
        fn(onp.ones((2, 3)), *extra)
    with pytest.raises(TypeError, match="float16"):
        fn(onp.eye(2, dtype=onp.float16), *extra)


def test_numpy_linalg_argument_errors():
    with pytest.raises(ValueError, match="Unrecognized mode"):
        np.linalg.qr(onp.eye(2), mode="bogus")
    with pytest.raises(ValueError, match="UPLO"):
        np.linalg.eigh(onp.eye(2), UPLO="X")
    with pytest.raises(ValueError, match="Invalid norm order"):
        np.linalg.norm(onp.eye(2), ord=3)
    with pytest.raises(ValueError, match="Invalid norm order"):
        np.linalg.norm(onp.ones(2), ord="fro", axis=0)
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        np.linalg.norm(onp.ones((2, 2, 2)), ord=2)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        np.linalg.matrix_power(onp.eye(2), 1.5)
    with pytest.raises(ValueError, match="size 3"):
        np.linalg.cross(onp.ones(2), onp.ones(2))
    with pytest.raises(ValueError, match="at least two arrays"):
        np.linalg.multi_dot([onp.eye(2)])
    with pytest.raises(ValueError, match="one-dimensional"):
        np.linalg.outer(onp.eye(2), onp.ones(2))
    with pytest.raises(ValueError, match=r"b of shape \(3,\)"):
        np.linalg.solve(onp.eye(2), onp.ones(3))


def test_empty_matrices_as_numpy():
    a, b = onp.zeros((0, 0)), onp.zeros((0, 2))
    for got, want in ((np.linalg.inv(a), onp.linalg.inv(a)),
                      (np.linalg.solve(a, b), onp.linalg.solve(a, b)),
                      (np.linalg.det(onp.zeros((2, 0, 0))), onp.linalg.det(onp.zeros((2, 0, 0))))):
        assert got.shape == want.shape
        onp.testing.assert_array_equal(onp.asarray(got), want)


def test_vecdot_conjugates_the_first_argument():
    a, b = onp.array([1 + 2j, 3 - 1j]), onp.array([2 - 1j, 1 + 1j])
    for fn in (np.vecdot, np.linalg.vecdot):
        onp.testing.assert_allclose(onp.asarray(fn(a, b)), onp.vecdot(a, b))


_RNG_H = onp.random.default_rng(7)
_SQUARE = _RNG_H.normal(size=(4, 4))
_COMPLEX = _RNG_H.normal(size=(3, 3)) + 1j * _RNG_H.normal(size=(3, 3))


@pytest.mark.parametrize("a", [_SQUARE + _SQUARE.T, _SQUARE, _COMPLEX + _COMPLEX.conj().T,
                               onp.stack([_SQUARE, _SQUARE.T * 2])],
                         ids=["symmetric", "not symmetric", "hermitian", "batched"])
def test_hermitian_svd_pinv_and_rank_are_numpys_under_jit(a):
    """``hermitian=True`` reads the lower triangle through eigh, as NumPy's (so a matrix
    that is not Hermitian gives NumPy's answer too), traced as eagerly."""
    want = onp.linalg.svd(a, hermitian=True)
    got = minijax.jit(lambda x: np.linalg.svd(x, hermitian=True))(a)
    onp.testing.assert_allclose(onp.asarray(got.S), want.S, rtol=1e-10, atol=1e-12)
    onp.testing.assert_allclose(onp.asarray(got.U @ (got.S[..., None] * got.Vh)),
                                want.U @ (want.S[..., None] * want.Vh), rtol=1e-10, atol=1e-12)
    onp.testing.assert_allclose(abs(onp.asarray(got.U)), abs(want.U), rtol=1e-10, atol=1e-12)
    onp.testing.assert_allclose(
        onp.asarray(minijax.jit(lambda x: np.linalg.svd(x, compute_uv=False, hermitian=True))(a)),
        onp.linalg.svd(a, compute_uv=False, hermitian=True), rtol=1e-10, atol=1e-12)
    onp.testing.assert_allclose(
        onp.asarray(minijax.jit(lambda x: np.linalg.pinv(x, hermitian=True))(a)),
        onp.linalg.pinv(a, hermitian=True), rtol=1e-9, atol=1e-12)
    onp.testing.assert_array_equal(
        onp.asarray(minijax.jit(lambda x: np.linalg.matrix_rank(x[..., :3, :3], hermitian=True))(a)),
        onp.linalg.matrix_rank(a[..., :3, :3], hermitian=True))
    with pytest.raises(onp.linalg.LinAlgError, match="must be square"):
        minijax.jit(lambda x: np.linalg.svd(x[..., :2, :], hermitian=True))(a)
