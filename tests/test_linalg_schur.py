"""lax.linalg.schur and minijax.scipy.linalg.schur/sqrtm.

Schur forms are checked by their defining properties (``a = z t zᴴ``, ``z`` unitary,
``t`` (quasi-)upper triangular in LAPACK's standard form, eigenvalues those of NumPy),
eagerly, under jit and vmap; sqrtm against SciPy for values and dtypes, and its
derivatives against central finite differences."""

import inspect
import warnings

import numpy as onp
import pytest
import scipy.linalg as sl

import minijax
import minijax.numpy as np
import minijax.scipy.linalg as ml
from minijax.lax import linalg
from minijax.test_util import check_grads

DTYPES = [onp.float32, onp.float64, onp.complex64, onp.complex128]


def _matrix(shape, dtype=onp.float64, seed=0):
    rng = onp.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if onp.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _tol(dtype):
    return 1e-4 if onp.dtype(dtype) in (onp.float32, onp.complex64) else 1e-11


def _sorted(w):
    return onp.sort_complex(onp.asarray(w, onp.complex128).round(5))


def _check_schur(a, t, z):
    a, t, z = onp.asarray(a), onp.asarray(t), onp.asarray(z)
    assert t.dtype == z.dtype == a.dtype and t.shape == z.shape == a.shape
    n = a.shape[-1]
    tol = _tol(a.dtype) * n * max(1.0, float(onp.abs(a).max()))
    zh = onp.conj(onp.swapaxes(z, -1, -2))
    onp.testing.assert_allclose(z @ t @ zh, a, atol=tol)
    onp.testing.assert_allclose(zh @ z, onp.broadcast_to(onp.eye(n), a.shape), atol=tol)
    assert not onp.tril(t, -2).any()
    sub = onp.diagonal(t, -1, axis1=-2, axis2=-1)
    if a.dtype.kind == "c":
        assert not sub.any()
    else:
        # 2x2 blocks only, in LAPACK's standard form: equal diagonal, off-diagonal
        # entries of opposite signs (a complex-conjugate pair of eigenvalues)
        assert not (sub[..., 1:] * sub[..., :-1]).any()
        i = onp.nonzero(sub)
        onp.testing.assert_allclose(t[(*i[:-1], i[-1], i[-1])],
                                    t[(*i[:-1], i[-1] + 1, i[-1] + 1)], atol=tol)
        assert (t[(*i[:-1], i[-1], i[-1] + 1)] * sub[i] < 0).all()
    w = onp.linalg.eigvals(t.astype(onp.complex128)).reshape(-1, n)
    w_ref = onp.linalg.eigvals(a.astype(onp.complex128)).reshape(-1, n)
    for x, y in zip(w, w_ref):
        onp.testing.assert_allclose(_sorted(x), _sorted(y), atol=max(tol * 100, 1e-4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 4, 4), (1, 1)])
def test_schur_eager_jit_vmap(dtype, shape):
    a = _matrix(shape, dtype)
    t, z = linalg.schur(a)
    _check_schur(a, t, z)
    tj, zj = minijax.jit(linalg.schur)(a)
    onp.testing.assert_allclose(onp.asarray(tj), onp.asarray(t), atol=_tol(dtype) * 10)
    if len(shape) > 2:
        tv, zv = minijax.vmap(linalg.schur)(a)
        _check_schur(a, tv, zv)
    t_only, = linalg.schur(a, compute_schur_vectors=False)
    onp.testing.assert_allclose(onp.asarray(t_only), onp.asarray(t), atol=_tol(dtype) * 10)


def test_schur_edges():
    for shape in [(0, 0), (3, 0, 0), (0, 2, 2)]:
        t, z = linalg.schur(onp.zeros(shape))
        assert t.shape == z.shape == shape
        assert minijax.jit(linalg.schur)(onp.zeros(shape))[0].shape == shape
    t, z = linalg.schur(onp.full((3, 3), onp.nan))
    assert onp.isnan(onp.asarray(z)).all()
    # a matrix that is triangular already is its own Schur form
    u = onp.triu(_matrix((4, 4)), 1) + onp.diag([4.0, 3, 2, 1])
    t, z = linalg.schur(u)
    onp.testing.assert_allclose(onp.sort(onp.diagonal(onp.asarray(t))), [1, 2, 3, 4])
    _check_schur(u, t, z)


def test_schur_errors():
    with pytest.raises(NotImplementedError, match="sort"):
        linalg.schur(onp.eye(3), sort_eig_vals=True)
    with pytest.raises(NotImplementedError, match="sort"):
        ml.schur(onp.eye(3), sort="lhp")
    with pytest.raises(ValueError, match="square"):
        linalg.schur(onp.ones((2, 3)))
    with pytest.raises(ValueError, match="square"):
        ml.schur(onp.ones((2, 3)))
    with pytest.raises(TypeError, match="schur"):
        linalg.schur(onp.eye(3, dtype=onp.int32))
    with pytest.raises(ValueError, match="output"):
        ml.schur(onp.eye(3), output="imaginary")
    with pytest.raises(NotImplementedError, match="derivative of lax.linalg.schur"):
        minijax.jvp(lambda m: linalg.schur(m)[0], (onp.eye(3),), (onp.eye(3),))
    with pytest.raises(ValueError, match="blocksize"):
        ml.sqrtm(onp.eye(3), blocksize=0)
    with pytest.raises(ValueError, match="square"):
        ml.sqrtm(onp.ones((2, 3)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_scipy_schur_outputs(dtype):
    a = _matrix((5, 5), dtype, seed=1)
    t_ref, _ = sl.schur(a)
    t, z = ml.schur(a)
    assert t.dtype == t_ref.dtype
    _check_schur(a, t, z)
    tc, zc = ml.schur(a, output="complex")
    assert tc.dtype == sl.schur(a, output="complex")[0].dtype
    _check_schur(a.astype(tc.dtype), tc, zc)
    for fn in (ml.schur, minijax.jit(ml.schur, static_argnums=1)):
        tr, _ = fn(a, "r")
        assert tr.dtype == t_ref.dtype
    # integers are factorized as float64, as SciPy does
    assert ml.schur(onp.eye(3, dtype=onp.int64))[0].dtype == sl.schur(onp.eye(3, dtype=int))[0].dtype


SQRTM_CASES = {
    "negative eigenvalue": onp.array([[1.0, 2.0], [3.0, 4.0]]),
    "triangular": onp.array([[4.0, 1.0], [0.0, 9.0]]),
    "rotation-like (complex pair)": onp.array([[1.0, -2.0], [2.0, 1.0]]),
    "random": _matrix((5, 5), seed=2),
    "shifted random": _matrix((6, 6), seed=3) + 6 * onp.eye(6),
    "complex": _matrix((4, 4), onp.complex128, seed=4),
    "1x1 negative": onp.array([[-4.0]]),
    "Jordan block": onp.array([[4.0, 1.0], [0.0, 4.0]]),
    "30x30": _matrix((30, 30), seed=12),
    "float32": (_matrix((4, 4), seed=5) + 4 * onp.eye(4)).astype(onp.float32),
    "complex64": _matrix((3, 3), onp.complex64, seed=6),
}


@pytest.mark.parametrize("name", list(SQRTM_CASES))
def test_sqrtm_matches_scipy(name):
    a = SQRTM_CASES[name]
    ref = sl.sqrtm(a)
    tol = 2e-4 if ref.dtype in (onp.float32, onp.complex64) else 1e-9
    x = ml.sqrtm(a)
    assert x.dtype == ref.dtype and x.shape == ref.shape
    onp.testing.assert_allclose(onp.asarray(x), ref, rtol=tol, atol=tol)
    onp.testing.assert_allclose(onp.asarray(x @ x), a, rtol=tol, atol=tol * 10)
    # under jit the dtype cannot depend on values: real input gives a complex result
    xj = minijax.jit(ml.sqrtm)(a)
    assert xj.dtype == onp.result_type(a.dtype, onp.complex64)
    onp.testing.assert_allclose(onp.asarray(xj), ref, rtol=tol, atol=tol)


def test_sqrtm_batch_vmap_disp_and_edges():
    a = _matrix((2, 3, 4, 4), seed=7) + 4 * onp.eye(4)
    ref = sl.sqrtm(a)
    onp.testing.assert_allclose(onp.asarray(ml.sqrtm(a)), ref, rtol=1e-10, atol=1e-12)
    onp.testing.assert_allclose(onp.asarray(minijax.vmap(ml.sqrtm)(a)), ref, rtol=1e-10,
                                atol=1e-12)
    x, err = ml.sqrtm(a[0, 0], disp=False)
    if "disp" in inspect.signature(sl.sqrtm).parameters:   # (SciPy 1.18 removed it)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            x_ref, err_ref = sl.sqrtm(a[0, 0], disp=False)
        assert err_ref < 1e-20
    else:
        x_ref = sl.sqrtm(a[0, 0])
    onp.testing.assert_allclose(onp.asarray(x), x_ref, rtol=1e-10)
    assert float(err) < 1e-20
    assert ml.sqrtm(onp.zeros((0, 0))).shape == (0, 0)
    assert ml.sqrtm(onp.zeros((3, 0, 0))).dtype == onp.float64
    assert ml.sqrtm([[4, 0], [0, 9]]).dtype == onp.float64     # integers: float64
    onp.testing.assert_allclose(onp.asarray(ml.sqrtm(onp.eye(3) * 4)), 2 * onp.eye(3))


def _fd_jvp(f, a, da, eps=1e-6):
    return (f(a + eps * da) - f(a - eps * da)) / (2 * eps)


@pytest.mark.parametrize("dtype", [onp.float64, onp.complex128])
def test_sqrtm_jvp_vs_finite_differences(dtype):
    a = _matrix((4, 4), dtype, seed=8) + 4 * onp.eye(4)
    da = _matrix((4, 4), dtype, seed=9)
    x, dx = minijax.jvp(ml.sqrtm, (a,), (da,))
    onp.testing.assert_allclose(onp.asarray(x), sl.sqrtm(a), rtol=1e-10)
    onp.testing.assert_allclose(onp.asarray(dx), _fd_jvp(sl.sqrtm, a, da), atol=1e-7)
    # the tangent solves x dx + dx x = da
    x, dx = onp.asarray(x), onp.asarray(dx)
    onp.testing.assert_allclose(x @ dx + dx @ x, da, atol=1e-10)
    _, dxj = minijax.jit(lambda m, t: minijax.jvp(ml.sqrtm, (m,), (t,)))(a, da)
    onp.testing.assert_allclose(onp.asarray(dxj), dx, atol=1e-12)


def test_sqrtm_gradients():
    a = np.asarray(_matrix((3, 3), seed=10) + 3 * onp.eye(3))
    check_grads(lambda m: ml.sqrtm(m).real, (a,), order=1)
    c = np.asarray(_matrix((3, 3), onp.complex128, seed=11) + 3 * onp.eye(3))
    check_grads(lambda m: ml.sqrtm(m), (c,), order=1)
    # a real loss: grad against finite differences of SciPy
    a = onp.asarray(a)
    loss = minijax.grad(lambda m: np.sum(ml.sqrtm(m).real ** 2))
    g = onp.asarray(loss(a))
    eye = onp.eye(9).reshape(9, 3, 3)
    fd = [_fd_jvp(lambda m: onp.sum(sl.sqrtm(m).real ** 2), a, e) for e in eye]
    onp.testing.assert_allclose(g.ravel(), fd, atol=1e-6)
    with pytest.raises(NotImplementedError, match="first-order derivatives only"):
        minijax.hessian(lambda m: np.sum(ml.sqrtm(m).real))(a)
    gv = minijax.vmap(loss)(onp.stack([a, 2 * a]))
    onp.testing.assert_allclose(onp.asarray(gv[0]), g, atol=1e-12)


def test_sqrtm_singular_matches_scipy():
    # two zero eigenvalues: 0/0 in the recurrence is 0 (the zero matrix is its own root)
    cases = [onp.zeros((3, 3)), onp.diag([0.0, 0.0, 4.0]), onp.array([[1.0, 2.0], [2.0, 4.0]])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a in cases:
            ref = sl.sqrtm(a)
            x = ml.sqrtm(a)
            assert x.dtype == ref.dtype
            # (SciPy 1.18 gives inf above the diagonal of the zero matrix; minijax gives
            # its root, zero, as SciPy did before)
            if onp.isfinite(ref).all():
                onp.testing.assert_allclose(onp.asarray(x), ref, atol=1e-12)
            onp.testing.assert_allclose(onp.asarray(x @ x), a, atol=1e-12)
        # a nilpotent Jordan block has no square root: SciPy gives inf, minijax x/0
        # overflows through the smallest normal number (huge or inf)
        x = onp.asarray(ml.sqrtm(onp.array([[0.0, 1.0], [0.0, 0.0]])))
        assert abs(x[0, 1]) > 1e300 and (x[[0, 1, 1], [0, 0, 1]] == 0).all()
