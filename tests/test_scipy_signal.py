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
    with pytest.raises(NotImplementedError, match="axes"):
        ms.fftconvolve(np.ones(3), np.ones(2), axes=0)
