"""lax.linalg's LAPACK-shaped options and packed forms: qr(pivoting=True), hessenberg,
tridiagonal, tridiagonal_solve(perturb_singular=True) and svd(algorithm=).

Each is checked without an oracle (SciPy values, reconstructions), eager (NumPy kernels)
against jit (the LAPACK lowerings), vmap against a loop, derivatives against finite
differences and bad input against named errors; and against JAX where installed.
"""

import numpy as onp
import pytest
import scipy.linalg

import minijax
from minijax.lax import linalg
from minijax.test_util import check_grads, check_primitive

from test_lax_linalg_more import INEXACT, randn, tols


def both(fn, *args):
    """``fn`` eagerly (NumPy kernels) and under jit (the lowerings), as NumPy arrays."""
    def host(out):
        return [onp.asarray(o) for o in out] if isinstance(out, (tuple, list)) \
            else onp.asarray(out)
    return [host(fn(*args)), host(minijax.jit(fn)(*args))]


def ctranspose(x):
    return onp.conj(onp.swapaxes(x, -1, -2))


# ---------------------------------------------------------------- qr(pivoting=True)

def pivoted_qr(x, full_matrices=True):
    return linalg.qr(x, pivoting=True, full_matrices=full_matrices)


@pytest.mark.parametrize("dtype", INEXACT)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_pivoted_qr_matches_scipy(dtype, shape):
    x = randn(*shape, dtype=dtype)
    q_s, r_s, p_s = scipy.linalg.qr(x, pivoting=True)
    for full in (True, False):
        for q, r, p in both(lambda x: pivoted_qr(x, full), x):
            k = shape[0] if full else min(shape)
            assert p.dtype == onp.int32 and q.dtype == r.dtype == dtype
            assert q.shape == (shape[0], k) and r.shape == (k, shape[1])
            onp.testing.assert_array_equal(p, p_s)
            onp.testing.assert_allclose(q @ r, x[:, p], **tols(dtype))
            onp.testing.assert_allclose(ctranspose(q) @ q, onp.eye(k), **tols(dtype))
            onp.testing.assert_allclose(r, onp.triu(r), atol=0)
            onp.testing.assert_allclose(abs(r), abs(r_s[:k]), **tols(dtype))


def test_pivoted_qr_ties_and_rank_deficiency():
    # equal column norms: the first wins, as LAPACK's idamax
    for x in (onp.array([[1.0, 1, 0], [0, 0, 1], [1, 1, 0]]), onp.ones((4, 4)),
              onp.zeros((3, 3))):
        for q, r, p in both(pivoted_qr, x):
            onp.testing.assert_array_equal(p, scipy.linalg.qr(x, pivoting=True)[2])
            onp.testing.assert_allclose(q @ r, x[:, p], atol=1e-12)
    # rank one: after the first pivot the remaining norms are rounding noise
    x = onp.outer(randn(5), randn(4))
    for q, r, p in both(pivoted_qr, x):
        assert p[0] == onp.argmax(onp.linalg.norm(x, axis=0))
        assert sorted(p) == [0, 1, 2, 3]
        onp.testing.assert_allclose(q @ r, x[:, p], atol=1e-12)


def test_pivoted_qr_batch_vmap_and_empty():
    x = randn(2, 3, 5, 4)
    outs = both(pivoted_qr, x)
    for q, r, p in outs:
        for i in range(2):
            for j in range(3):
                onp.testing.assert_array_equal(p[i, j],
                                               scipy.linalg.qr(x[i, j], pivoting=True)[2])
    check_primitive(lambda x: pivoted_qr(x, False), [x[0]], rtol=1e-9, atol=1e-11)
    for shape in ((0, 3), (3, 0), (2, 0, 0)):
        for q, r, p in both(pivoted_qr, onp.zeros(shape)):
            assert q.shape == (*shape[:-1], shape[-2]) and r.shape == shape
            assert p.shape == (*shape[:-2], shape[-1])


def test_pivoted_qr_derivatives():
    # q and r differentiate as the QR of x[:, p]; p is locally constant
    check_grads(lambda x: pivoted_qr(x, False)[:2], [randn(5, 3)], order=2)
    check_grads(lambda x: pivoted_qr(x)[:2], [randn(3, 5)], order=1)
    check_grads(lambda x: pivoted_qr(x)[:2], [randn(3, 3, dtype=onp.complex128)], order=1)
    check_grads(minijax.jit(lambda x: pivoted_qr(x)[:2]), [randn(4, 4)], order=1,
                modes=("rev",))


def test_qr_options_errors():
    x = randn(3, 3)
    with pytest.raises(TypeError, match="use_magma"):
        linalg.qr(x, use_magma="yes")
    with pytest.raises(TypeError, match="pivoting"):
        linalg.qr(x, pivoting=None)
    with pytest.raises(ValueError, match="rank >= 2"):
        linalg.qr(onp.ones(3), pivoting=True)
    with pytest.raises(TypeError):
        linalg.qr(onp.ones((3, 3), onp.int32), pivoting=True)
    # use_magma picks a GPU kernel: on the CPU the results are the same
    for a, b in zip(linalg.qr(x, use_magma=True), linalg.qr(x)):
        onp.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [onp.float32, onp.complex128])
def test_pivoted_qr_against_jax(jax, dtype):
    x = randn(2, 6, 4, dtype=dtype)
    for full in (True, False):
        want = jax.lax.linalg.qr(x, pivoting=True, full_matrices=full)
        for got in both(lambda x: pivoted_qr(x, full), x):
            onp.testing.assert_array_equal(got[2], want[2])
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape
                onp.testing.assert_allclose(g, w, **tols(dtype))
    t = randn(6, 4, dtype=dtype)
    got = minijax.jvp(lambda x: pivoted_qr(x, False)[:2], (x[0],), (t,))[1]
    want = jax.jvp(lambda x: jax.lax.linalg.qr(x, pivoting=True, full_matrices=False)[:2],
                   (x[0],), (t,))[1]
    for g, w in zip(got, want):
        onp.testing.assert_allclose(g, w, **tols(dtype))


# ---------------------------------------------------------------- hessenberg, tridiagonal

def reflectors_q(packed, taus):
    """``q`` of the reflectors stored below the first subdiagonal (hessenberg and
    tridiagonal(lower=True)): ``blockdiag(1, householder_product(a[1:, :-1], taus))``."""
    n = packed.shape[-1]
    q = onp.eye(n, dtype=packed.dtype)
    if n > 1:
        q[1:, 1:] = onp.asarray(linalg.householder_product(packed[1:, :-1], taus))
    return q


@pytest.mark.parametrize("dtype", INEXACT)
def test_hessenberg_matches_scipy(dtype):
    a = randn(6, 6, dtype=dtype)
    h_s, q_s = scipy.linalg.hessenberg(a, calc_q=True)
    for packed, taus in both(linalg.hessenberg, a):
        assert packed.dtype == taus.dtype == dtype and taus.shape == (5,)
        h = onp.triu(packed, -1)
        q = reflectors_q(packed, taus)
        onp.testing.assert_allclose(h, h_s, **tols(dtype))
        onp.testing.assert_allclose(q, q_s, **tols(dtype))
        onp.testing.assert_allclose(ctranspose(q) @ a @ q, h, **tols(dtype))


@pytest.mark.parametrize("dtype", INEXACT)
@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal_reduces_the_hermitian_triangle(dtype, lower):
    a = randn(5, 5, dtype=dtype)
    tri = onp.tril(a, -1) if lower else onp.triu(a, 1)
    herm = tri + ctranspose(tri) + onp.diag(onp.diag(a).real)
    for packed, d, e, taus in both(lambda a: linalg.tridiagonal(a, lower=lower), a):
        real = onp.finfo(dtype).dtype
        assert d.dtype == e.dtype == real and packed.dtype == taus.dtype == dtype
        assert d.shape == (5,) and e.shape == taus.shape == (4,)
        t = onp.diag(d) + onp.diag(e, -1) + onp.diag(e, 1)
        onp.testing.assert_allclose(onp.linalg.eigvalsh(t), onp.linalg.eigvalsh(herm),
                                    **tols(dtype))
        # the other triangle as given; d and e on the diagonals
        other = onp.triu(a, 1) if lower else onp.tril(a, -1)
        onp.testing.assert_array_equal(onp.triu(packed, 1) if lower else onp.tril(packed, -1),
                                       other)
        onp.testing.assert_allclose(onp.diag(packed), d, **tols(dtype))
        onp.testing.assert_allclose(onp.diag(packed, -1 if lower else 1), e, **tols(dtype))
        if lower:
            q = reflectors_q(packed, taus)
            onp.testing.assert_allclose(ctranspose(q) @ herm @ q, t, **tols(dtype))


def test_condensed_forms_batch_vmap_small():
    a = randn(2, 3, 4, 4)
    for fn in (linalg.hessenberg, linalg.tridiagonal,
               lambda a: linalg.tridiagonal(a, lower=False)):
        eager, jitted = both(fn, a)
        for e, j in zip(eager, jitted):
            onp.testing.assert_allclose(e, j, rtol=1e-10, atol=1e-12)
        for i in range(2):
            for k, out in enumerate(fn(a[i, 1])):
                onp.testing.assert_allclose(eager[k][i, 1], out, rtol=1e-12, atol=1e-14)
        check_primitive(fn, [a[0]], rtol=1e-10, atol=1e-12)
        for outs in both(fn, onp.full((1, 1), 2.0)):
            assert outs[0].shape == (1, 1) and outs[-1].shape == (0,)
        for outs in both(fn, onp.zeros((0, 3, 3))):
            assert outs[0].shape == (0, 3, 3) and outs[-1].shape == (0, 2)


def test_condensed_forms_errors():
    for fn, name in ((linalg.hessenberg, "hessenberg"), (linalg.tridiagonal, "tridiagonal")):
        with pytest.raises(ValueError, match=f"{name} requires square"):
            fn(onp.ones((3, 4)))
        with pytest.raises(ValueError, match="n >= 1"):
            fn(onp.ones((0, 0)))
        with pytest.raises(TypeError, match="floating or complex"):
            fn(onp.ones((3, 3), onp.int32))
        with pytest.raises(NotImplementedError, match=f"derivative of lax.linalg.{name}"):
            minijax.grad(lambda a: fn(a)[0].sum())(randn(3, 3))
    with pytest.raises(TypeError, match="lower must be a bool"):
        linalg.tridiagonal(onp.eye(3), lower="L")


@pytest.mark.parametrize("dtype", INEXACT)
def test_condensed_forms_against_jax(jax, dtype):
    a = randn(2, 5, 5, dtype=dtype)
    pairs = [(linalg.hessenberg, jax.lax.linalg.hessenberg)] + [
        (lambda a, lo=lo: linalg.tridiagonal(a, lower=lo),
         lambda a, lo=lo: jax.lax.linalg.tridiagonal(a, lower=lo)) for lo in (True, False)]
    for mine, theirs in pairs:
        want = theirs(a)
        for got in both(mine, a):
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape
                onp.testing.assert_allclose(g, w, **tols(dtype))


# ---------------------------------------------------------------- tridiagonal_solve(perturb_singular)

def perturbed_solve(dl, d, du, b):
    return linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True)


def dense_tridiagonal(dl, d, du):
    return onp.diag(d) + onp.diag(dl[1:], -1) + onp.diag(du[:-1], 1)


def system(batch, m, k, dtype):
    return (*(randn(*batch, m, dtype=dtype) for _ in range(3)), randn(*batch, m, k, dtype=dtype))


def eigen_system(m, which):
    """``T - lambda I`` for an eigenvalue of a symmetric tridiagonal ``T``: singular."""
    dl = randn(m)
    du = onp.r_[dl[1:], 0]
    d = randn(m)
    lam = onp.linalg.eigvalsh(dense_tridiagonal(dl, d, du))[which]
    return dl, d - lam, du, lam


@pytest.mark.parametrize("dtype", INEXACT)
def test_perturbed_solve_agrees_with_gtsv_on_regular_systems(dtype):
    for m in (1, 2, 3, 7):
        dl, d, du, b = system((2,), m, 3, dtype)
        want = onp.asarray(linalg.tridiagonal_solve(dl, d, du, b))
        for x in both(perturbed_solve, dl, d, du, b):
            assert x.dtype == dtype and x.shape == b.shape
            onp.testing.assert_allclose(x, want, rtol=50 * tols(dtype)["rtol"],
                                        atol=50 * tols(dtype)["atol"])


def test_perturbed_solve_singular_systems_are_finite():
    # exactly singular (zero pivots): the same finite values both ways
    z = onp.zeros(4)
    b = randn(4, 2)
    cases = [(z, z, z, b), (z, onp.r_[1.0, 0, 2, 0], z, b),
             (randn(5), onp.zeros(5), onp.zeros(5), randn(5, 1))]
    for args in cases:
        eager, jitted = both(perturbed_solve, *args)
        assert onp.isfinite(eager).all()
        onp.testing.assert_allclose(eager, jitted, rtol=1e-12)
        assert onp.isnan(onp.asarray(linalg.tridiagonal_solve(*args))).all()
    # inverse iteration: one solve of the singular T - lambda I gives the eigenvector
    dl, d, du, lam = eigen_system(8, 3)
    b = onp.ones((8, 1))
    for x in both(perturbed_solve, dl, d, du, b):
        assert onp.isfinite(x).all()
        v = x[:, 0] / onp.linalg.norm(x)
        t = dense_tridiagonal(dl, d + lam, du)
        onp.testing.assert_allclose(t @ v, lam * v, atol=1e-8)


def test_perturbed_solve_vmap_grad_errors():
    dl, d, du, b = system((3,), 5, 2, onp.float64)
    d = d + 4
    check_primitive(perturbed_solve, [dl[0], d[0], du[0], b[0]], rtol=1e-10, atol=1e-12)
    out = minijax.vmap(perturbed_solve)(dl, d, du, b)
    for i in range(3):
        onp.testing.assert_allclose(out[i], perturbed_solve(dl[i], d[i], du[i], b[i]),
                                    rtol=1e-12)
    check_grads(perturbed_solve, [dl[0], d[0], du[0], b[0]], order=1)
    check_grads(minijax.jit(perturbed_solve), [dl[0], d[0], du[0], b[0]], order=1,
                modes=("rev",))
    with pytest.raises(TypeError, match="perturb_singular must be a bool"):
        linalg.tridiagonal_solve(dl, d, du, b, perturb_singular="yes")
    with pytest.raises(ValueError, match="one shape"):
        perturbed_solve(dl, d[:, :4], du, b)


@pytest.mark.parametrize("dtype", INEXACT)
def test_perturbed_solve_against_jax(jax, dtype):
    dl, d, du, b = system((2,), 6, 2, dtype)
    d[1] = 0                                     # a singular second system
    dl[1, 3] = du[1, 2] = 0
    want = onp.asarray(jax.lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True))
    for x in both(perturbed_solve, dl, d, du, b):
        onp.testing.assert_allclose(x, want, rtol=tols(dtype)["rtol"] * 10,
                                    atol=tols(dtype)["atol"] * abs(want).max())
    # numerically singular: the size of the solution is set by a pivot of rounding-error
    # size, which the compiled kernel rounds differently; its direction agrees
    dl, d, du, _ = eigen_system(6, 2)
    b = randn(6, 1)
    want = onp.asarray(jax.lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True))
    eager, jitted = both(perturbed_solve, dl, d, du, b)
    onp.testing.assert_allclose(jitted, want, rtol=1e-12)
    onp.testing.assert_allclose(eager / onp.linalg.norm(eager), want / onp.linalg.norm(want),
                                atol=1e-12)


# ---------------------------------------------------------------- svd(algorithm=)

Alg = linalg.SvdAlgorithm


@pytest.mark.parametrize("dtype", INEXACT)
@pytest.mark.parametrize("shape", [(5, 3), (3, 4)])
def test_svd_qr_algorithm_decomposes(dtype, shape):
    x = randn(2, *shape, dtype=dtype)
    k = min(shape)
    s_want = onp.linalg.svd(x, compute_uv=False)
    for full in (True, False):
        for u, s, vh in both(lambda x: linalg.svd(x, full_matrices=full, algorithm=Alg.QR), x):
            assert s.dtype == onp.finfo(dtype).dtype and u.dtype == vh.dtype == dtype
            assert u.shape[-1] == (shape[0] if full else k)
            onp.testing.assert_allclose(s, s_want, **tols(dtype))
            onp.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x,
                                        **tols(dtype))
            onp.testing.assert_allclose(ctranspose(u) @ u, onp.broadcast_to(
                onp.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2), **tols(dtype))
        for s in both(lambda x: linalg.svd(x, compute_uv=False, full_matrices=full,
                                           algorithm=Alg.QR), x):
            onp.testing.assert_allclose(s, s_want, **tols(dtype))


def test_svd_algorithms_default_and_divide_and_conquer_are_gesdd():
    x = randn(4, 3)
    want = [onp.asarray(o) for o in linalg.svd(x)]
    for alg in (None, Alg.DEFAULT, Alg.DIVIDE_AND_CONQUER):
        for got in both(lambda x: linalg.svd(x, algorithm=alg), x):
            for g, w in zip(got, want):
                onp.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_svd_algorithm_vmap_grad_and_errors():
    x = randn(3, 4, 3)
    qr_svd = minijax.vmap(lambda a: linalg.svd(a, full_matrices=False, algorithm=Alg.QR))
    for i, out in enumerate(zip(*qr_svd(x))):
        for g, w in zip(out, linalg.svd(x[i], full_matrices=False, algorithm=Alg.QR)):
            onp.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    check_grads(lambda a: linalg.svd(a, full_matrices=False, algorithm=Alg.QR), [x[0]],
                order=1)
    check_grads(lambda a: linalg.svd(a, compute_uv=False, algorithm=Alg.QR), [x[0]], order=2)
    for alg in (Alg.JACOBI, Alg.POLAR):
        for fn in (linalg.svd, minijax.jit(linalg.svd, static_argnames="algorithm")):
            with pytest.raises(NotImplementedError, match="not implemented on the CPU"):
                fn(x[0], algorithm=alg)
    with pytest.raises(TypeError, match="SvdAlgorithm"):
        linalg.svd(x[0], algorithm="QR")


def test_svd_algorithm_against_jax(jax):
    x = randn(2, 4, 3, dtype=onp.complex128)
    for alg in ("QR", "DIVIDE_AND_CONQUER", "DEFAULT"):
        for full in (True, False):
            want = jax.lax.linalg.svd(x, full_matrices=full,
                                      algorithm=jax.lax.linalg.SvdAlgorithm[alg])
            for got in both(lambda x: linalg.svd(x, full_matrices=full, algorithm=Alg[alg]), x):
                for g, w in zip(got, want):
                    assert g.dtype == w.dtype and g.shape == w.shape
                    onp.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_half_precision_is_a_named_error():
    x = onp.eye(3, dtype=onp.float16)
    calls = [lambda x: linalg.qr(x, pivoting=True), linalg.hessenberg, linalg.tridiagonal,
             lambda x: linalg.svd(x, algorithm=Alg.QR),
             lambda x: linalg.tridiagonal_solve(x[0], x[1], x[2], x, perturb_singular=True)]
    for fn in calls:
        for f in (fn, minijax.jit(fn)):
            with pytest.raises(TypeError, match="LAPACK has no float16 kernel"):
                f(x)
