"""minijax.scipy.ndimage (map_coordinates, spline_filter, spline_filter1d) against
scipy.ndimage."""

import numpy as np
import pytest
import scipy.ndimage as sn
import scipy.ndimage._interpolation as sn_interpolation
from conftest import package_version

import minijax
import minijax.numpy as jnp
from minijax.scipy.ndimage import map_coordinates, spline_filter, spline_filter1d
from minijax.test_util import check_grads

RNG = np.random.default_rng(7)
MODES = ["constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "wrap",
         "grid-wrap"]
TOL = dict(rtol=1e-10, atol=1e-10)
# The modes whose spline filter starts its causal pass from a reflected end.
REFLECT_STARTS = ("reflect", "grid-mirror", "nearest")


def _exact_spline_filter1d(x, order, axis):
    """The spline filter with a reflected start, exactly: the samples solved for the
    coefficients whose B-spline (evaluated by SciPy, ends reflected) passes through them."""
    n = x.shape[axis]
    grid = [np.arange(n, dtype=float)]
    interpolation = np.stack([sn.map_coordinates(np.eye(n)[j], grid, order=order,
                                                 mode="reflect", prefilter=False)
                              for j in range(n)], axis=1)
    moved = np.moveaxis(np.asarray(x, dtype=float), axis, 0)
    solved = np.linalg.solve(interpolation, moved.reshape(n, -1)).reshape(moved.shape)
    return np.moveaxis(solved, 0, axis)


@pytest.fixture(autouse=True)
def _scipy_reference(monkeypatch):
    """SciPy before 1.18 summed the reflected start into its own accumulator, so that
    its last term read the running sum (scipy/scipy#24615: an error of order z**(2n), up
    to 1e-3 on axes of 2 to 5 samples). There the reference filter for those modes is
    the exact one; SciPy's interpolation and every other mode stay SciPy's."""
    if package_version("scipy") >= (1, 18):
        return
    original = sn_interpolation.spline_filter1d

    def spline_filter1d(input, order=3, axis=-1, output=np.float64, mode="mirror"):
        if mode not in REFLECT_STARTS or order < 2 or np.iscomplexobj(input):
            return original(input, order, axis, output=output, mode=mode)
        result = _exact_spline_filter1d(input, order, axis)
        if isinstance(output, np.ndarray):
            output[...] = result
            return output
        return result.astype(output)
    monkeypatch.setattr(sn_interpolation, "spline_filter1d", spline_filter1d)
    monkeypatch.setattr(sn, "spline_filter1d", spline_filter1d)


def _coordinates(shape, size=12):
    """Per axis: points well outside, inside, and exactly on and just beyond the border
    (never exactly half-way, where order-0 rounding would tie)."""
    coords = []
    for n in shape:
        c = RNG.uniform(-2.0 * n - 1, 3.0 * n + 1, size=size) + 1e-7
        c = np.concatenate([c, [0.0, n - 1.0, -0.3, n - 0.7, n - 1 + 1e-9, -1e-9, 0.25]])
        coords.append(RNG.permutation(c))
    return coords


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("shape", [(7,), (2,), (1,), (5, 6), (3, 4, 2), (1, 4)])
def test_matches_scipy(shape, order, mode):
    x = RNG.standard_normal(shape)
    coords = _coordinates(shape)
    expected = sn.map_coordinates(x, coords, order=order, mode=mode, cval=-3.5)
    got = map_coordinates(x, coords, order, mode, -3.5)
    np.testing.assert_allclose(np.asarray(got), expected, **TOL)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [0, 1, 3, 4])
def test_jit_matches_scipy(order, mode):
    x = RNG.standard_normal((5, 4))
    coords = [c.reshape(3, 6)[:, :5] for c in _coordinates(x.shape, size=11)]
    expected = sn.map_coordinates(x, coords, order=order, mode=mode, cval=1.25)
    jitted = minijax.jit(lambda a, *c: map_coordinates(a, c, order, mode, 1.25))(x, *coords)
    np.testing.assert_allclose(np.asarray(jitted), expected, **TOL)


@pytest.mark.parametrize("mode", ["constant", "reflect", "grid-constant", "wrap"])
def test_prefilter_false_interpolates_given_coefficients(mode):
    x = RNG.standard_normal((6, 5))
    coords = _coordinates(x.shape)
    coefficients = sn.spline_filter(x, 3, mode=mode)
    expected = sn.map_coordinates(coefficients, coords, order=3, mode=mode, prefilter=False)
    got = map_coordinates(coefficients, coords, 3, mode, prefilter=False)
    np.testing.assert_allclose(np.asarray(got), expected, **TOL)
    # with minijax's own filter, the two-step route equals the one-step one for this mode
    ours = map_coordinates(spline_filter(x, 3, mode), coords, 3, mode, prefilter=False)
    if mode in ("constant", "reflect", "wrap"):  # no prepadding for these modes
        np.testing.assert_allclose(np.asarray(ours), np.asarray(
            map_coordinates(x, coords, 3, mode)), **TOL)


def test_default_order_is_cubic_and_interpolates_samples():
    x = RNG.standard_normal((4, 5))
    coords = _coordinates(x.shape)
    np.testing.assert_allclose(np.asarray(map_coordinates(x, coords)),
                               sn.map_coordinates(x, coords), **TOL)
    # a spline through the samples returns them at the integer points
    grid = np.meshgrid(np.arange(4.0), np.arange(5.0), indexing="ij")
    for order in range(6):
        np.testing.assert_allclose(np.asarray(map_coordinates(x, grid, order, "mirror")), x,
                                   rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("n", [1, 2, 3, 9])
def test_spline_filter1d_matches_scipy(n, order, mode):
    x = RNG.standard_normal((3, n))
    expected = sn.spline_filter1d(x, order, axis=-1, mode=mode)
    np.testing.assert_allclose(np.asarray(spline_filter1d(x, order, -1, mode)), expected,
                               **TOL)
    expected0 = sn.spline_filter1d(x.T, order, axis=0, mode=mode)
    np.testing.assert_allclose(np.asarray(spline_filter1d(x.T, order, 0, mode)), expected0,
                               **TOL)


@pytest.mark.parametrize("mode", ["reflect", "grid-mirror"])
@pytest.mark.parametrize("order", [2, 3, 4, 5])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_reflect_filter_interpolates_short_axes_exactly(n, order, mode):
    # the coefficients' spline passes through the samples, however short the axis
    x = RNG.standard_normal(n)
    back = map_coordinates(spline_filter1d(x, order, 0, mode), [np.arange(float(n))], order,
                           mode, prefilter=False)
    np.testing.assert_allclose(np.asarray(back), x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["mirror", "reflect", "grid-wrap", "nearest"])
@pytest.mark.parametrize("order", [2, 5])
def test_spline_filter_matches_scipy(order, mode):
    x = RNG.standard_normal((4, 3, 5))
    np.testing.assert_allclose(np.asarray(spline_filter(x, order, mode)),
                               sn.spline_filter(x, order, mode=mode), **TOL)
    jitted = minijax.jit(lambda a: spline_filter(a, order, mode))(x)
    np.testing.assert_allclose(np.asarray(jitted), sn.spline_filter(x, order, mode=mode),
                               **TOL)


def test_float32_and_complex():
    x = RNG.standard_normal((5, 6))
    coords = _coordinates(x.shape)
    got = map_coordinates(x.astype(np.float32), coords, 3, "reflect")
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), sn.map_coordinates(x, coords, order=3,
                                                                   mode="reflect"),
                               rtol=1e-4, atol=1e-4)
    z = x + 1j * RNG.standard_normal(x.shape)
    for mode in ("grid-constant", "constant"):
        expected = sn.map_coordinates(z, coords, order=3, mode=mode, cval=0.5 - 2j)
        got = map_coordinates(z, coords, 3, mode, 0.5 - 2j)
        assert got.dtype == np.complex128
        np.testing.assert_allclose(np.asarray(got), expected, **TOL)


@pytest.mark.parametrize("mode", ["constant", "nearest", "reflect", "mirror", "wrap",
                                  "grid-wrap", "grid-constant"])
@pytest.mark.parametrize("order", [1, 3, 5])
def test_gradients(order, mode):
    x = jnp.asarray(RNG.standard_normal((4, 5)))
    # away from knots, where the coordinate derivative of an order-1 spline jumps
    c0 = jnp.asarray([0.3, 2.7, 1.2, -1.4, 4.6])
    c1 = jnp.asarray([3.1, 0.4, 2.6, 5.7, -0.8])
    check_grads(lambda a, p, q: map_coordinates(a, (p, q), order, mode, 0.5), (x, c0, c1),
                order=1)


def test_second_order_gradients_and_jit_grad():
    x = jnp.asarray(RNG.standard_normal((6,)))
    c = jnp.asarray([0.3, 2.7, 4.2, 5.5])
    check_grads(lambda a, p: map_coordinates(a, (p,), 3, "mirror"), (x, c), order=2)

    def loss(a, p):
        return jnp.sum(map_coordinates(a, (p,), 4, "reflect") ** 2)

    eager = minijax.grad(loss, argnums=(0, 1))(x, c)
    jitted = minijax.jit(minijax.grad(loss, argnums=(0, 1)))(x, c)
    for e, j in zip(eager, jitted):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("order", [1, 3])
def test_vmap(order):
    xs = RNG.standard_normal((3, 5, 4))
    coords = [RNG.uniform(-2, 6, size=(3, 7)) for _ in range(2)]
    batched = minijax.vmap(lambda a, p, q: map_coordinates(a, (p, q), order, "nearest"))(
        xs, *coords)
    for b in range(3):
        expected = sn.map_coordinates(xs[b], [coords[0][b], coords[1][b]], order=order,
                                      mode="nearest")
        np.testing.assert_allclose(np.asarray(batched[b]), expected, **TOL)
    # batching only the input
    shared = [c[0] for c in coords]
    batched = minijax.vmap(lambda a: map_coordinates(a, shared, order, "wrap"))(xs)
    for b in range(3):
        np.testing.assert_allclose(np.asarray(batched[b]), sn.map_coordinates(
            xs[b], shared, order=order, mode="wrap"), **TOL)


def test_errors():
    with pytest.raises(ValueError, match="order must be an integer from 0 to 5"):
        map_coordinates(np.ones(3), [np.zeros(2)], order=6)
    with pytest.raises(ValueError, match="order must be an integer from 0 to 5"):
        map_coordinates(np.ones(3), [np.zeros(2)], order=1.5)
    with pytest.raises(ValueError, match="mode='edge' is not supported"):
        map_coordinates(np.ones(3), [np.zeros(2)], order=1, mode="edge")
    with pytest.raises(ValueError, match="2 coordinate arrays"):
        map_coordinates(np.ones(3), [np.zeros(2), np.zeros(2)], order=1)
    with pytest.raises(TypeError, match="coordinates must be real"):
        map_coordinates(np.ones(3), [np.zeros(2) + 1j], order=1)
    with pytest.raises(ValueError, match="at least one dimension"):
        map_coordinates(np.float64(1.0), [], order=1)
    with pytest.raises(ValueError, match="order must be an integer from 2 to 5"):
        spline_filter(np.ones(3), order=1)
    with pytest.raises(ValueError, match="axis=2 is out of range"):
        spline_filter1d(np.ones((3, 3)), axis=2)


@pytest.mark.parametrize("mode", ["grid-constant", "constant"])
def test_traced_cval_and_its_gradient(mode):
    x = RNG.standard_normal((4, 5))
    coords = np.stack(_coordinates(x.shape))  # SciPy's stacked (ndim, ...) form
    f = minijax.jit(lambda a, c, v: map_coordinates(a, c, 3, mode, v))
    np.testing.assert_allclose(np.asarray(f(x, jnp.asarray(coords), 2.5)),
                               sn.map_coordinates(x, coords, order=3, mode=mode, cval=2.5),
                               **TOL)
    check_grads(lambda v: map_coordinates(x, coords, 3, mode, v), (jnp.asarray(2.5),), order=1)
