"""minijax.scipy.ndimage.map_coordinates against scipy.ndimage."""

import numpy as np
import pytest
import scipy.ndimage as sn

import minijax
import minijax.numpy as jnp
from minijax.scipy.ndimage import map_coordinates
from minijax.test_util import check_grads

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("mode", ["constant", "nearest", "reflect", "mirror", "grid-wrap"])
@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("shape", [(7,), (5, 6), (3, 4, 2), (1, 4)])
def test_matches_scipy(shape, order, mode):
    x = RNG.standard_normal(shape)
    # coordinates inside and well outside the input, never exactly half-way (order 0 ties)
    coords = [RNG.uniform(-2.0 * n - 1, 3.0 * n + 1, size=(3, 5)) + 1e-7 for n in shape]
    expected = sn.map_coordinates(x, coords, order=order, mode=mode, cval=-3.5)
    got = map_coordinates(x, coords, order=order, mode=mode, cval=-3.5)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12, atol=1e-12)
    jitted = minijax.jit(lambda a, *c: map_coordinates(a, c, order, mode, -3.5))(x, *coords)
    np.testing.assert_allclose(np.asarray(jitted), expected, rtol=1e-12, atol=1e-12)


def test_gradients():
    x = jnp.asarray(RNG.standard_normal((4, 5)))
    coords = (jnp.asarray([0.3, 2.7, 1.2]), jnp.asarray([3.1, 0.4, 2.6]))
    check_grads(lambda a, c0, c1: map_coordinates(a, (c0, c1), 1), (x, *coords), order=1)
    check_grads(lambda a: map_coordinates(a, coords, 0, mode="nearest"), (x,), order=2)


def test_errors():
    with pytest.raises(NotImplementedError, match="order=3"):
        map_coordinates(np.ones(3), [np.zeros(2)], order=3)
    with pytest.raises(NotImplementedError, match="mode='wrap'"):
        map_coordinates(np.ones(3), [np.zeros(2)], order=1, mode="wrap")
    with pytest.raises(ValueError, match="2 coordinate arrays"):
        map_coordinates(np.ones(3), [np.zeros(2), np.zeros(2)], order=1)
