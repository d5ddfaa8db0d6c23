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

rng = onp.random.default_rng(0)
INEXACT = [onp.float32, onp.float64, onp.complex64, onp.complex128]


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
