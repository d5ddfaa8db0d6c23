"""minijax.scipy.fft: SciPy's discrete cosine transforms (types 1-4, every norm, the
orthogonalized variants, n/s/axes) with SciPy as the oracle, eagerly and under jit,
their inverses, derivatives and batching, and JAX's type-2 functions."""

import jax
import jax.scipy.fft as jfft
import numpy as onp
import pytest
import scipy.fft as sfft

import minijax
import minijax.scipy.fft as mfft
from minijax.test_util import check_grads

_RNG = onp.random.default_rng(0)


def _scipy(name, x, **kwargs):
    # (SciPy ignores orthogonalize= for complex input; minijax transforms the real and
    # imaginary parts as it does real input)
    fn = getattr(sfft, name)
    if onp.iscomplexobj(x):
        return fn(x.real, **kwargs) + 1j * fn(x.imag, **kwargs)
    return fn(x, **kwargs)


def _close(got, want, dtype):
    got = onp.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = {onp.float16: 1e-2, onp.float32: 2e-5}.get(dtype, 1e-11)
    onp.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _input(dtype, shape):
    x = _RNG.standard_normal(shape)
    if dtype == onp.complex128:
        return x + 1j * _RNG.standard_normal(shape)
    return (x * 10).astype(dtype) if dtype == onp.int64 else x.astype(dtype)


@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("dtype", [onp.float64, onp.float32, onp.float16, onp.int64,
                                   onp.complex128])
def test_dct_matches_scipy(name, type, norm, dtype):
    x = _input(dtype, (3, 7))
    for orthogonalize in (None, not (norm == "ortho")):
        for n in (None, 4, 9):
            kwargs = dict(type=type, norm=norm, orthogonalize=orthogonalize, n=n)
            _close(getattr(mfft, name)(x, **kwargs), _scipy(name, x, **kwargs), dtype)
    kwargs = dict(type=type, norm=norm, axis=0)
    _close(minijax.jit(lambda v: getattr(mfft, name)(v, **kwargs))(x),
           _scipy(name, x, **kwargs), dtype)


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("kwargs", [{}, {"axes": (0, 2)}, {"s": (3, 7)},
                                    {"s": 5, "axes": 1}, {"norm": "ortho", "axes": -1}])
def test_dctn_matches_scipy(name, type, kwargs):
    x = _RNG.standard_normal((4, 5, 6))
    want = getattr(sfft, name)(x, type=type, **kwargs)
    _close(getattr(mfft, name)(x, type=type, **kwargs), want, onp.float64)
    _close(minijax.jit(lambda v: getattr(mfft, name)(v, type=type, **kwargs))(x), want,
           onp.float64)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_idct_inverts_dct(type, norm):
    x = _RNG.standard_normal((2, 6))
    back = mfft.idct(mfft.dct(x, type=type, norm=norm), type=type, norm=norm)
    onp.testing.assert_allclose(onp.asarray(back), x, rtol=1e-12, atol=1e-12)
    back = mfft.idctn(mfft.dctn(x, type=type, norm=norm), type=type, norm=norm)
    onp.testing.assert_allclose(onp.asarray(back), x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_dct_differentiates_and_batches(type):
    x = _RNG.standard_normal(6)
    weights = _RNG.standard_normal(6)
    check_grads(lambda v: minijax.numpy.sum(mfft.dct(v, type=type, norm="ortho") * weights),
                (x,), order=1)
    rows = _RNG.standard_normal((3, 6))
    got = minijax.vmap(lambda r: mfft.idct(r, type=type))(rows)
    _close(got, sfft.idct(rows, type=type, axis=-1), onp.float64)


@pytest.mark.parametrize("call", [
    lambda f, x: f.dct(x), lambda f, x: f.dct(x, n=5, axis=0, norm="ortho"),
    lambda f, x: f.idct(x, norm="ortho"), lambda f, x: f.idct(x, n=3),
    lambda f, x: f.dctn(x), lambda f, x: f.dctn(x, s=(2, 6), norm="ortho"),
    lambda f, x: f.idctn(x, axes=(1,))])
def test_type_2_is_jaxs(call):
    x = _RNG.standard_normal((4, 5))
    with jax.enable_x64(True):
        want = onp.asarray(call(jfft, x))
    _close(call(mfft, x), want, onp.float64)


def test_bad_arguments_are_named_errors():
    x = onp.ones(4)
    with pytest.raises(ValueError, match="type must be 1, 2, 3 or 4"):
        mfft.dct(x, type=5)
    with pytest.raises(ValueError, match="invalid norm"):
        mfft.dct(x, norm="sum")
    with pytest.raises(ValueError, match="type 1 needs at least 2"):
        mfft.dct(onp.ones(1), type=1)
    with pytest.raises(ValueError, match="invalid number of data points"):
        mfft.dct(x, n=0)
    with pytest.raises(ValueError, match="at least one dimension"):
        mfft.dct(onp.float64(1.0))
    with pytest.raises(ValueError, match="same length"):
        mfft.dctn(onp.ones((2, 3)), s=(2, 3), axes=(0,))
    with pytest.raises(ValueError, match="unique"):
        mfft.dctn(onp.ones((2, 3)), axes=(0, 0))
