"""minijax.scipy.signal against scipy.signal, finite differences, jit."""

import numpy as np
import pytest
import scipy.signal as ss

import minijax
import minijax.numpy as jnp
import minijax.scipy.signal as ms
from minijax.test_util import check_grads

RNG = np.random.default_rng(3)
SHAPES = [((7,), (3,)), ((3,), (7,)), ((4,), (4,)), ((5, 6), (2, 3)), ((2, 3), (5, 6)),
          ((4, 3, 5), (2, 2, 3)), ((1,), (5,))]


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("name", ["convolve", "correlate", "fftconvolve"])
def test_matches_scipy(name, shapes, mode):
    a, b = RNG.standard_normal(shapes[0]), RNG.standard_normal(shapes[1])
    close(getattr(ms, name)(a, b, mode=mode), getattr(ss, name)(a, b, mode=mode))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_complex_inputs(mode):
    a = RNG.standard_normal(6) + 1j * RNG.standard_normal(6)
    b = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    for x, y in ((a, b), (b, a)):
        close(ms.correlate(x, y, mode=mode), ss.correlate(x, y, mode=mode))
        close(ms.convolve(x, y, mode=mode), ss.convolve(x, y, mode=mode))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("kernel", [(3, 2), (2, 4), (3, 3)])
def test_2d_variants(mode, kernel):
    a, b = RNG.standard_normal((5, 6)), RNG.standard_normal(kernel)
    close(ms.convolve2d(a, b, mode=mode), ss.convolve2d(a, b, mode=mode))
    close(ms.correlate2d(a, b, mode=mode), ss.correlate2d(a, b, mode=mode))
    close(minijax.jit(lambda x, y: ms.convolve2d(x, y, mode=mode))(a, b),
          ss.convolve2d(a, b, mode=mode))


def test_gradients_and_vmap():
    a, b = jnp.asarray(RNG.standard_normal(6)), jnp.asarray(RNG.standard_normal(3))
    for mode in ("full", "same", "valid"):
        check_grads(lambda x, y: ms.convolve(x, y, mode=mode), (a, b), order=2)
        check_grads(lambda x, y: ms.correlate(x, y, mode=mode), (a, b), order=1)
    batch = jnp.asarray(RNG.standard_normal((4, 6)))
    got = minijax.vmap(lambda x: ms.convolve(x, b, mode="same"))(batch)
    close(got, np.stack([ss.convolve(np.asarray(r), np.asarray(b), mode="same")
                         for r in np.asarray(batch)]))


def test_errors():
    with pytest.raises(NotImplementedError, match="boundary"):
        ms.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap")
    with pytest.raises(ValueError, match="mode"):
        ms.convolve(np.ones(3), np.ones(2), mode="middle")
    with pytest.raises(ValueError, match="same number of dimensions"):
        ms.convolve(np.ones(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match="at least as large"):
        ms.convolve(np.ones((3, 1)), np.ones((1, 3)), mode="valid")
    for bad, err, match in [(dict(axes=[]), ValueError, "empty"),
                            (dict(axes=2), ValueError, "out of bounds"),
                            (dict(axes=[0, -2]), ValueError, "unique"),
                            (dict(axes=0.5), TypeError, "integers"),
                            (dict(mode="middle"), ValueError, "mode")]:
        with pytest.raises(err, match=match):
            ms.fftconvolve(np.ones((3, 4)), np.ones((2, 4)), **bad)
    with pytest.raises(ValueError, match="incompatible shapes"):
        ms.fftconvolve(np.ones((3, 4)), np.ones((2, 5)), axes=0)
    with pytest.raises(ValueError, match="dimensionality"):
        ms.fftconvolve(np.ones(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match="at least as large"):
        ms.fftconvolve(np.ones((3, 2)), np.ones((2, 3)), mode="valid")
    with pytest.raises(ValueError, match="method"):
        ms.convolve(np.ones(3), np.ones(2), method="fast")


# (shape of in1, shape of in2, axes): broadcasting off the axes, length-1 axes, negatives
_AXES_CASES = [((3, 8), (1, 4), 1), ((3, 8), (3, 4), [1]), ((6, 5), (3, 1), [-1, 0]),
               ((2, 7, 5), (2, 3, 1), (1, 2)), ((4, 6, 3), (1, 2, 3), [1]),
               ((5, 4), (2, 6), None), ((2, 9), (2, 9), -1)]


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("s1,s2,axes", _AXES_CASES)
def test_fftconvolve_axes_match_scipy_eager_and_jit(s1, s2, axes, mode):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    if mode == "valid" and s1 == (5, 4):
        return   # neither input is the larger one: the error is tested above
    want = ss.fftconvolve(a, b, mode=mode, axes=axes)
    close(ms.fftconvolve(a, b, mode=mode, axes=axes), want)
    close(minijax.jit(lambda x, y: ms.fftconvolve(x, y, mode=mode, axes=axes))(a, b), want)


def test_fftconvolve_dtypes_and_edge_inputs():
    ints, small = np.array([1, 2, 3, 4]), np.array([2, -1])
    for a, b in [(ints, small), (ints.astype(np.float32), small.astype(np.float32)),
                 (ints.astype(np.float32), small.astype(np.float64)),
                 (ints + 1j * ints[::-1], small), (np.ones(5, np.complex64), np.ones(2, np.float32))]:
        want = ss.fftconvolve(a, b)
        got = ms.fftconvolve(a, b)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    got = ms.fftconvolve(np.float64(2.0), np.float64(3.0))
    assert got.shape == () and float(got) == 6.0
    empty = ms.fftconvolve(np.ones(0), np.ones(3))
    assert empty.shape == (0,) and empty.dtype == ss.fftconvolve(np.ones(0), np.ones(3)).dtype


def test_fftconvolve_runs_through_the_fft():
    text = str(minijax.make_jaxpr(lambda x, y: ms.fftconvolve(x, y))(np.ones(6), np.ones(3)))
    assert "fft" in text and "conv_general_dilated" not in text
    text = str(minijax.make_jaxpr(lambda x, y: ms.convolve(x, y, method="fft"))(
        np.ones(6), np.ones(3)))
    assert "fft" in text and "conv_general_dilated" not in text


def test_fftconvolve_gradients_and_vmap():
    a, b = jnp.asarray(RNG.standard_normal((4, 6))), jnp.asarray(RNG.standard_normal((4, 3)))
    for mode in ("full", "same", "valid"):
        check_grads(lambda x, y: ms.fftconvolve(x, y, mode=mode), (a, b), order=2)
        check_grads(lambda x, y: ms.fftconvolve(x, y, mode=mode, axes=1), (a, b), order=1)
    zc = jnp.asarray(RNG.standard_normal(5) + 1j * RNG.standard_normal(5))
    check_grads(lambda z: ms.fftconvolve(z, zc[:3]), (zc,), order=1)
    got = minijax.vmap(lambda x: ms.fftconvolve(x, b[0], mode="same"))(a)
    close(got, np.stack([ss.fftconvolve(np.asarray(r), np.asarray(b[0]), mode="same")
                         for r in np.asarray(a)]))


@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_methods_and_integer_dtypes_match_scipy(name, method):
    cases = [(np.array([1, 2, 3, 7]), np.array([3, -4])),
             (np.array([100, 100, 5], np.int8), np.array([3, 4], np.int8)),
             (np.array([True, False, True]), np.array([True, True])),
             (np.array([1, 2, 3], np.int32), np.array([3.0, 4.0], np.float32)),
             (RNG.standard_normal((5, 4)), RNG.standard_normal((2, 3)))]
    for a, b in cases:
        for mode in ("full", "same", "valid"):
            want = getattr(ss, name)(a, b, mode=mode, method=method)
            fn = getattr(ms, name)
            for got in (fn(a, b, mode=mode, method=method),
                        minijax.jit(lambda x, y: fn(x, y, mode=mode, method=method))(a, b)):
                assert got.dtype == want.dtype, (a.dtype, b.dtype, mode)
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-9)
