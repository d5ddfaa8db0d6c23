"""lax.linalg.eig and minijax.numpy.linalg.eig/eigvals: eigenvalues against NumPy as
sorted multisets, eigenvectors by ``A v = λ v`` (and ``uᴴ A = λ uᴴ``), eagerly (NumPy
kernel) and under jit (jaxlib's LAPACK geev), vmap, derivatives against finite
differences."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax.lax import linalg
from minijax.test_util import assert_same, check_grads

DTYPES = [onp.float32, onp.float64, onp.complex64, onp.complex128]


def _matrix(shape, dtype, seed=0):
    rng = onp.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if onp.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _tol(dtype):
    return 2e-4 if onp.dtype(dtype) in (onp.float32, onp.complex64) else 1e-10


def _complex_of(dtype):
    return onp.dtype(onp.complex64 if onp.dtype(dtype) in (onp.float32, onp.complex64)
                     else onp.complex128)


def _sorted(w):
    return onp.sort_complex(onp.asarray(w).astype(onp.complex128).round(6))


def _check_decomposition(a, w, vl, vr):
    a, w = onp.asarray(a), onp.asarray(w)
    scale = max(1.0, float(onp.abs(a).max()))
    tol = _tol(a.dtype) * scale * a.shape[-1]
    onp.testing.assert_allclose(_sorted(w.reshape(-1, w.shape[-1])),
                                [_sorted(x) for x in onp.linalg.eigvals(
                                    a.reshape(-1, *a.shape[-2:]))], atol=tol * 10)
    if vr is not None:
        vr = onp.asarray(vr)
        onp.testing.assert_allclose(a @ vr, vr * w[..., None, :], atol=tol)
        onp.testing.assert_allclose(onp.linalg.norm(vr, axis=-2), 1, rtol=tol)
    if vl is not None:
        vlh = onp.conj(onp.swapaxes(onp.asarray(vl), -1, -2))
        onp.testing.assert_allclose(vlh @ a, w[..., :, None] * vlh, atol=tol)
        onp.testing.assert_allclose(onp.linalg.norm(vlh, axis=-1), 1, rtol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (1, 1)])
def test_eig_eager_and_jit(dtype, shape):
    a = _matrix(shape, dtype)
    for fn in (linalg.eig, minijax.jit(linalg.eig)):
        w, vl, vr = fn(a)
        assert w.dtype == vl.dtype == vr.dtype == _complex_of(dtype)
        assert w.shape == shape[:-1] and vl.shape == vr.shape == shape
        _check_decomposition(a, w, vl, vr)


@pytest.mark.parametrize("left,right", [(False, False), (True, False), (False, True)])
def test_eig_result_selection(left, right):
    a = _matrix((3, 3), onp.float64)

    def f(x):
        return linalg.eig(x, compute_left_eigenvectors=left, compute_right_eigenvectors=right)
    for outs in (f(a), minijax.jit(f)(a)):
        assert len(outs) == 1 + left + right
        vl = outs[1] if left else None
        vr = outs[-1] if right else None
        _check_decomposition(a, outs[0], vl, vr)


def test_complex_eigenvalues_of_a_real_matrix():
    rotation = onp.array([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 3.0]])
    for w in (np.linalg.eigvals(rotation), minijax.jit(np.linalg.eigvals)(rotation)):
        assert w.dtype == onp.complex128
        onp.testing.assert_allclose(_sorted(w), _sorted([-2j, 2j, 3]), atol=1e-12)


@pytest.mark.parametrize("dtype", [onp.int32, onp.float32, onp.float64, onp.complex128])
def test_numpy_eig_and_eigvals(dtype):
    a = (_matrix((2, 4, 4), onp.float64) * 3).astype(dtype)
    res = np.linalg.eig(a)
    w, v = res
    assert res.eigenvalues is w and res.eigenvectors is v
    assert w.dtype == v.dtype == _complex_of(onp.result_type(dtype, onp.float32)
                                             if dtype != onp.int32 else onp.float64)
    _check_decomposition(onp.asarray(a, dtype=onp.result_type(dtype, onp.float32)), w, None, v)
    jw = minijax.jit(np.linalg.eigvals)(a)
    assert_same(_sorted(jw), _sorted(np.linalg.eigvals(a)), atol=1e-4)


def test_errors():
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        np.linalg.eig(onp.ones((3, 4)))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional|2"):
        np.linalg.eigvals(onp.ones(3))
    with pytest.raises(TypeError, match="float16"):
        np.linalg.eig(onp.eye(2, dtype=onp.float16))
    with pytest.raises(ValueError, match="square"):
        minijax.jit(linalg.eig)(onp.ones((2, 3)))


def test_non_finite_input_gives_nan():
    a = onp.array([[1.0, onp.nan], [0.0, 2.0]])
    for w in (linalg.eig(a)[0], minijax.jit(lambda x: linalg.eig(x)[0])(a)):
        assert onp.isnan(onp.asarray(w)).all()


def test_vmap_matches_a_loop():
    a = _matrix((4, 4, 4), onp.complex128)
    for axis in (0, 1, 2):
        w = minijax.vmap(np.linalg.eigvals, in_axes=axis)(a)
        loop = onp.stack([onp.asarray(np.linalg.eigvals(onp.take(a, i, axis)))
                          for i in range(4)])
        assert_same(w, loop, rtol=1e-12, atol=1e-12)
    w, v = minijax.vmap(np.linalg.eig)(a)
    _check_decomposition(a, w, None, v)


def _eigenvalue_parts(x):
    w = np.linalg.eigvals(x)
    return [np.real(w), np.imag(w)]


def _eigenvector_parts(x):
    w, v = np.linalg.eig(x)
    return [np.real(v), np.imag(v), np.imag(w)]


@pytest.mark.parametrize("fn", [_eigenvalue_parts, _eigenvector_parts])
@pytest.mark.parametrize("kind", ["real", "real with complex pair", "complex"])
def test_derivatives_against_finite_differences(fn, kind):
    if kind == "complex":
        a = _matrix((3, 3), onp.complex128, seed=2)
    elif kind == "real":
        a = onp.array([[2.0, 0.3, 0.1], [0.2, -1.0, 0.4], [0.5, 0.1, 0.5]])
    else:
        a = onp.array([[0.5, -2.0, 0.1], [2.0, 0.3, 0.2], [0.1, 0.4, 3.0]])
    check_grads(fn, (a,), order=2)
    check_grads(minijax.jit(fn), (a,), order=1)


def _left_eigenvector_parts(x):
    w, vl = linalg.eig(x, compute_right_eigenvectors=False)
    return [np.real(vl), np.imag(vl), np.imag(w)]


def _all_parts(x):
    w, vl, vr = linalg.eig(x)
    return [np.real(vl), np.imag(vl), np.imag(vr), np.real(w)]


@pytest.mark.parametrize("fn", [_left_eigenvector_parts, _all_parts])
@pytest.mark.parametrize("kind", ["real", "real with complex pair", "complex"])
def test_left_eigenvector_derivatives_against_finite_differences(fn, kind):
    if kind == "complex":
        a = _matrix((3, 3), onp.complex128, seed=2)
    elif kind == "real":
        a = onp.array([[2.0, 0.3, 0.1], [0.2, -1.0, 0.4], [0.5, 0.1, 0.5]])
    else:
        a = onp.array([[0.5, -2.0, 0.1], [2.0, 0.3, 0.2], [0.1, 0.4, 3.0]])
    check_grads(fn, (a,), order=2)
    check_grads(minijax.jit(fn), (a,), order=1)


@pytest.mark.parametrize("dtype", [onp.float64, onp.complex128])
def test_left_eigenvectors_match_scipy_normalization(dtype):
    # LAPACK's normalization: unit norm and the largest component real (the eager
    # kernel made it real only up to a phase e^{2iθ} before)
    scipy_linalg = pytest.importorskip("scipy.linalg")
    a = _matrix((4, 4), dtype, seed=5)
    w_ref, vl_ref, vr_ref = scipy_linalg.eig(a, left=True, right=True)
    for w, vl, vr in (linalg.eig(a), minijax.jit(linalg.eig)(a)):
        vl = onp.asarray(vl)
        k = onp.argmax(onp.abs(vl), axis=0)
        assert onp.allclose(vl[k, range(4)].imag, 0, atol=1e-12)
        order = [int(onp.argmin(onp.abs(w_ref - x))) for x in onp.asarray(w)]
        ref = vl_ref[:, order]
        sign = onp.sign((vl * ref.conj()).sum(axis=0).real)   # real vectors: up to sign
        onp.testing.assert_allclose(vl, ref * sign, atol=1e-10)
        _check_decomposition(a, w, vl, vr)
