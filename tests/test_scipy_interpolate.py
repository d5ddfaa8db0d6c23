"""``minijax.scipy.interpolate.RegularGridInterpolator`` against SciPy's, and under the
transformations."""

import numpy as np
import pytest
from scipy.interpolate import RegularGridInterpolator as ScipyRGI

import minijax
import minijax.numpy as jnp
from minijax.scipy.interpolate import RegularGridInterpolator

RNG = np.random.default_rng(11)
X = np.array([0.0, 1.0, 3.0, 3.5])
Y = np.array([-1.0, 0.0, 2.0])
Z = np.array([0.0, 0.5, 1.0, 4.0, 5.0])
# inside, on grid points and cell edges, outside on either side, NaN
POINTS_2D = np.array([[0.5, 1.0], [1.0, 0.0], [3.5, 2.0], [0.0, -1.0], [2.9, -0.3],
                      [5.0, 1.0], [-1.0, 3.0], [np.nan, 1.0], [2.0, 1.0], [3.25, 1.0]])


def _scipy(points, values, xi, **kwargs):
    return ScipyRGI(points, values, bounds_error=False, **kwargs)(xi)


@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None, -7.0])
def test_2d_matches_scipy(method, fill_value):
    values = RNG.normal(size=(4, 3))
    kwargs = {"method": method, "fill_value": fill_value}
    want = _scipy((X, Y), values, POINTS_2D, **kwargs)
    interp = RegularGridInterpolator((X, Y), values, **kwargs)
    got = np.asarray(interp(POINTS_2D))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-13, equal_nan=True)
    jitted = minijax.jit(lambda r, p: r(p))(interp, POINTS_2D)
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=1e-13, equal_nan=True)
    other = "nearest" if method == "linear" else "linear"
    np.testing.assert_allclose(np.asarray(interp(POINTS_2D, method=other)),
                               _scipy((X, Y), values, POINTS_2D, method=other,
                                      fill_value=fill_value), rtol=1e-13, equal_nan=True)


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_3d_trailing_axes_descending_and_shapes(method):
    values = RNG.normal(size=(4, 3, 5, 2))
    xi = np.stack([RNG.uniform(-0.5, 4, (6, 7)), RNG.uniform(-1.5, 2.5, (6, 7)),
                   RNG.uniform(-0.5, 5.5, (6, 7))], axis=-1)
    want = _scipy((X, Y, Z), values, xi, method=method)
    got = RegularGridInterpolator((X, Y, Z), values, method=method)(xi)
    assert got.shape == want.shape == (6, 7, 2)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, equal_nan=True)
    # a descending grid: SciPy flips it, and so do we
    got = RegularGridInterpolator((X[::-1], Y, Z), values, method=method)(xi)
    np.testing.assert_allclose(np.asarray(got),
                               _scipy((X[::-1], Y, Z), values, xi, method=method),
                               rtol=1e-12, equal_nan=True)


def test_call_forms_and_dtypes():
    values = np.arange(12.0).reshape(4, 3)
    interp = RegularGridInterpolator((X, Y), values)
    coords = (np.array([0.5, 1.5]), np.array([[1.0], [0.5]]))   # broadcast together
    np.testing.assert_allclose(np.asarray(interp(coords)), _scipy((X, Y), values, coords))
    one_d = RegularGridInterpolator((X,), np.arange(8.0).reshape(4, 2))
    pts = np.array([0.5, 2.0, 3.2])
    np.testing.assert_allclose(np.asarray(one_d(pts)),
                               _scipy((X,), np.arange(8.0).reshape(4, 2), pts))
    single = RegularGridInterpolator((np.array([0.0]), Y), values[:1])
    np.testing.assert_allclose(np.asarray(single([[0.0, 1.0]])),
                               _scipy((np.array([0.0]), Y), values[:1], [[0.0, 1.0]]))
    ints = RegularGridInterpolator((X, Y), np.arange(12).reshape(4, 3))
    assert ints([[0.5, 0.5]]).dtype == _scipy((X, Y), np.arange(12).reshape(4, 3),
                                               [[0.5, 0.5]]).dtype
    cplx = values + 1j * values
    np.testing.assert_allclose(np.asarray(RegularGridInterpolator((X, Y), cplx)([[0.5, 1.0]])),
                               _scipy((X, Y), cplx, [[0.5, 1.0]]))


def test_derivatives_and_vmap():
    values = RNG.normal(size=(4, 3))
    interp = RegularGridInterpolator((X, Y), values)
    p = np.array([[0.5, 1.0], [2.2, -0.4]])
    g = np.asarray(minijax.grad(lambda q: jnp.sum(interp(q)))(p))
    eps = 1e-6
    for k in range(2):
        for d in range(2):
            up, down = p.copy(), p.copy()
            up[k, d] += eps
            down[k, d] -= eps
            fd = (float(jnp.sum(interp(up))) - float(jnp.sum(interp(down)))) / (2 * eps)
            np.testing.assert_allclose(g[k, d], fd, rtol=1e-6)
    # linear in the values: the gradient there is the interpolation weights
    gv = minijax.grad(lambda v: RegularGridInterpolator((X, Y), v)([[0.5, 1.0]])[0])(values)
    w = np.zeros((4, 3))
    w[0, 1] = w[1, 1] = w[0, 2] = w[1, 2] = 0.25
    np.testing.assert_allclose(np.asarray(gv), w, rtol=1e-12)
    batch = RNG.uniform(0, 3, (5, 3, 2))
    per = minijax.vmap(interp)(batch)
    np.testing.assert_allclose(np.asarray(per), np.stack([np.asarray(interp(b)) for b in batch]),
                               rtol=1e-13)


def test_errors_match_scipy():
    values = np.zeros((4, 3))
    for call in [lambda R: R((X, Y), values, method="foo"),
                 lambda R: R((np.array([0.0, 0.0, 1.0, 2.0]), Y), values),
                 lambda R: R((X, Y), values[:2]),
                 lambda R: R((X, Y), values, fill_value=1j),
                 lambda R: R((X, Y), values)([[1.0, 2.0, 3.0]]),
                 lambda R: R((X, Y), values, bounds_error=True)([[5.0, 1.0]])]:
        with pytest.raises(ValueError) as ours:
            call(RegularGridInterpolator)
        with pytest.raises(ValueError) as theirs:
            call(ScipyRGI)
        assert str(ours.value).split()[0] == str(theirs.value).split()[0]
    with pytest.raises(NotImplementedError, match="linear"):
        RegularGridInterpolator((X, Y), values, method="cubic")
    interp = RegularGridInterpolator((X, Y), values, bounds_error=True)
    np.testing.assert_allclose(np.asarray(interp([[0.5, 1.0]])), [0.0])
    with pytest.raises(ValueError, match="bounds_error=False"):
        minijax.jit(interp)(np.array([[0.5, 1.0]]))


def test_matches_jax():
    jax = pytest.importorskip("jax")
    from jax.scipy.interpolate import RegularGridInterpolator as JaxRGI
    values = RNG.normal(size=(4, 3))
    with jax.enable_x64(True):
        want = np.asarray(JaxRGI((X, Y), values)(POINTS_2D[:7]))
    np.testing.assert_allclose(np.asarray(RegularGridInterpolator((X, Y), values)(
        POINTS_2D[:7])), want, rtol=1e-13, equal_nan=True)
