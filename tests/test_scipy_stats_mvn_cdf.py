"""minijax.scipy.stats.multivariate_normal.cdf/logcdf against SciPy, one-dimensional
quadrature oracles in the tails, finite differences, and eager/jit/vmap agreement."""

import math

import numpy as np
import pytest
import scipy.integrate
import scipy.special as sp
import scipy.stats as st

import minijax
from minijax.scipy.stats import multivariate_normal as mvn


def _spd(rng, d, floor=0.2):
    a = rng.standard_normal((d, d))
    return a @ a.T + floor * np.eye(d)


def _equicorrelated(d, rho):
    return np.full((d, d), rho) + (1.0 - rho) * np.eye(d)


def _log_orthant_equicorrelated(b, d, rho):
    """log P(X_i <= b for all i) for standard normals of common correlation rho >= 0:
    one conditioning variable makes them independent, so a 1-d integral (scaled so the
    integrand peaks at 1, which keeps it finite far in the tail)."""
    s, t = math.sqrt(rho), math.sqrt(1.0 - rho)

    def log_f(z):
        return -0.5 * z * z + d * sp.log_ndtr((b - s * z) / t)
    grid = np.linspace(-60, 60, 240_001)
    peak_at = grid[np.argmax(log_f(grid))]
    peak = log_f(peak_at)
    # a finite range around the peak: quad's map of the infinite line can miss a narrow peak
    value, _ = scipy.integrate.quad(lambda z: np.exp(log_f(z) - peak), peak_at - 40,
                                    peak_at + 40, points=[peak_at], epsabs=0, epsrel=1e-12,
                                    limit=500)
    return peak + math.log(value) - 0.5 * math.log(2 * math.pi)


def _log_orthant_bivariate(b1, b2, r):
    """log P(X <= b1, Y <= b2) by a 1-d integral over X, scaled by its peak."""
    s = math.sqrt(1.0 - r * r)

    def log_f(x):
        return -0.5 * x * x + sp.log_ndtr((b2 - r * x) / s)
    grid = np.linspace(b1 - 120, b1, 240_001)
    peak_at = grid[np.argmax(log_f(grid))]
    peak = log_f(peak_at)
    value, _ = scipy.integrate.quad(lambda x: np.exp(log_f(x) - peak), max(peak_at - 40, b1 - 120),
                                    b1, points=[peak_at] if peak_at < b1 else None, epsabs=0,
                                    epsrel=1e-12, limit=500)
    return peak + math.log(value) - 0.5 * math.log(2 * math.pi)


def test_one_dimension_matches_scipy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 1)) * 3
    for mean, cov in ((None, 1), (0.3, 2.0), ([0.3], [[2.0]]), (0.3, [2.0])):
        np.testing.assert_allclose(np.asarray(mvn.cdf(x, mean, cov)),
                                   st.multivariate_normal.cdf(x, mean, cov), rtol=1e-13)
    np.testing.assert_allclose(float(mvn.cdf(0.4, 0.1, 2.0)),
                               st.multivariate_normal.cdf(0.4, 0.1, 2.0), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(mvn.cdf(x[:, 0, 0], 0.3, 2.0)),
                               st.multivariate_normal.cdf(x[:, 0, 0], 0.3, 2.0), rtol=1e-13)
    lower = rng.standard_normal((4, 3, 1))
    np.testing.assert_allclose(
        np.asarray(mvn.cdf(x, 0.3, 2.0, lower_limit=lower)),
        st.multivariate_normal.cdf(x, 0.3, 2.0, lower_limit=lower), rtol=1e-12, atol=1e-16)
    # the lower tail, where SciPy's logcdf is log(0)
    np.testing.assert_allclose(np.asarray(mvn.logcdf(np.array([-5.0, -40.0, -1e3]), 0.0, 1.0)),
                               st.norm.logcdf([-5.0, -40.0, -1e3]), rtol=1e-13)


@pytest.mark.parametrize("rho", [-0.999, -0.95, -0.9, -0.4, 0.0, 0.3, 0.92, 0.93, 0.99, 0.9999])
def test_two_dimensions_match_scipy(rho):
    rng = np.random.default_rng(1)
    sd = np.array([0.7, 1.8])
    cov = _equicorrelated(2, rho) * np.outer(sd, sd)
    mean = np.array([0.2, -0.3])
    x = rng.standard_normal((5, 2, 2)) * 2
    lower = x - np.abs(rng.standard_normal((5, 2, 2))) * 2
    np.testing.assert_allclose(np.asarray(mvn.cdf(x, mean, cov)),
                               st.multivariate_normal.cdf(x, mean, cov), atol=1e-15)
    np.testing.assert_allclose(np.asarray(mvn.cdf(x, mean, cov, lower_limit=lower)),
                               st.multivariate_normal.cdf(x, mean, cov, lower_limit=lower),
                               atol=1e-15)


def test_two_dimensions_singular_and_infinite_limits():
    x = np.array([[0.3, -0.2], [np.inf, 0.5], [-np.inf, 0.5], [np.inf, np.inf], [1.0, 1.0]])
    for rho in (1.0, -1.0, 0.5):
        cov = _equicorrelated(2, rho)
        np.testing.assert_allclose(
            np.asarray(mvn.cdf(x, None, cov, allow_singular=True)),
            st.multivariate_normal.cdf(x, None, cov, allow_singular=True), atol=1e-15)


def test_swapped_limits_flip_the_sign():
    cov = np.array([[1.0, 0.3], [0.3, 2.0]])
    x = np.array([[0.5, 1.0], [0.5, -1.0], [-0.5, -1.0]])
    lower = np.array([1.0, 0.0])
    expected = st.multivariate_normal.cdf(x, None, cov, lower_limit=lower)
    assert np.any(expected < 0)
    np.testing.assert_allclose(np.asarray(mvn.cdf(x, None, cov, lower_limit=lower)), expected,
                               atol=1e-15)
    got = np.asarray(mvn.logcdf(x, None, cov, lower_limit=lower))
    assert np.iscomplexobj(got)
    np.testing.assert_allclose(got, st.multivariate_normal.logcdf(x, None, cov, lower_limit=lower),
                               rtol=1e-12)


def test_two_dimensions_logcdf_far_tail():
    for r in (-0.7, 0.0, 0.5, 0.99):
        cov = _equicorrelated(2, r)
        for b in ((-5.0, -6.0), (-12.0, -10.0), (-40.0, -38.0)):
            got = float(mvn.logcdf(np.array(b), None, cov))
            expected = _log_orthant_bivariate(b[0], b[1], r)
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-9), (r, b)


@pytest.mark.parametrize("d", [3, 5, 10])
def test_higher_dimensions_match_scipy(d):
    rng = np.random.default_rng(d)
    cov = _spd(rng, d)
    mean = rng.standard_normal(d) * 0.3
    # (3 points: the shape test_eager_jit_and_vmap_agree compiles for d = 3, shared)
    x = rng.standard_normal((3, d)) + 1.0
    # SciPy's estimate and ours are each within 3 standard errors <= 1e-5
    np.testing.assert_allclose(np.asarray(mvn.cdf(x, mean, cov)),
                               st.multivariate_normal.cdf(x, mean, cov, rng=0), atol=2.5e-5)
    lower = x - 1.5 - np.abs(rng.standard_normal((3, d)))
    np.testing.assert_allclose(np.asarray(mvn.cdf(x, mean, cov, lower_limit=lower)),
                               st.multivariate_normal.cdf(x, mean, cov, lower_limit=lower,
                                                          rng=0), atol=2.5e-5)


def test_near_singular_and_singular_covariances():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 2))
    singular = a @ a.T              # rank 2 in 4 dimensions
    near = singular + 1e-6 * np.eye(4)
    x = np.array([[0.3, 0.5, -0.2, 0.8], [1.0, 1.0, 1.0, 1.0]])
    for cov, allow in ((near, False), (singular, True)):
        np.testing.assert_allclose(
            np.asarray(mvn.cdf(x, None, cov, allow_singular=allow)),
            st.multivariate_normal.cdf(x, None, cov, allow_singular=allow, rng=0), atol=5e-5)


def test_logcdf_tail_in_higher_dimensions():
    d, rho = 3, 0.4
    cov = _equicorrelated(d, rho)
    # logcdf stops on the relative error, so it is right where cdf underflows; deep in
    # the tail the integrand grows heavy-tailed and the shifts underestimate the error
    # (documented), so the far points get a looser bound
    for b, tol in ((-4.0, 5e-5), (-10.0, 1e-3), (-30.0, 5e-3)):
        got = float(mvn.logcdf(np.full(d, b), None, cov, maxpts=300_000))
        assert got == pytest.approx(_log_orthant_equicorrelated(b, d, rho), abs=tol), b
    assert float(mvn.cdf(np.full(d, -30.0), None, cov)) == 0.0


def test_eager_jit_and_vmap_agree():
    rng = np.random.default_rng(3)
    for d in (2, 3):
        cov = _spd(rng, d)
        mean = rng.standard_normal(d) * 0.2
        x = rng.standard_normal((3, d))
        eager = np.asarray(mvn.cdf(x, mean, cov))
        jitted = np.asarray(minijax.jit(mvn.cdf)(x, mean, cov))
        mapped = np.asarray(minijax.vmap(mvn.cdf, in_axes=(0, None, None))(x, mean, cov))
        np.testing.assert_allclose(jitted, eager, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(mapped, eager, rtol=1e-13, atol=1e-15)


def _central_differences(f, args, h=1e-5):
    grads = []
    for i, arg in enumerate(args):
        g = np.zeros(arg.shape)
        for idx in np.ndindex(arg.shape):
            plus, minus = [a.copy() for a in args], [a.copy() for a in args]
            plus[i][idx] += h
            minus[i][idx] -= h
            g[idx] = (float(f(*plus)) - float(f(*minus))) / (2 * h)
        grads.append(g)
    return grads


@pytest.mark.parametrize("d", [2, 3])
def test_gradients_match_finite_differences(d):
    rng = np.random.default_rng(11 + d)
    factor = np.linalg.cholesky(_spd(rng, d, floor=0.5))
    mean = rng.standard_normal(d) * 0.2
    x = rng.standard_normal(d) * 0.5 + 0.5
    lower = x - 2.0

    def f(x, mean, factor):
        return mvn.cdf(x, mean, factor @ factor.T, lower_limit=lower)
    got = minijax.grad(f, argnums=(0, 1, 2))(x, mean, factor)
    # the quasi-Monte Carlo points are fixed, so the estimate is smooth: the differences
    # see the same function the gradient differentiates
    for g, fd in zip(got, _central_differences(f, [x, mean, factor])):
        np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-6, atol=1e-9)


def test_tolerances_and_budget_have_an_effect():
    d, rho, b = 3, 0.5, 0.3
    cov = _equicorrelated(d, rho)
    x = np.full(d, b)
    exact = math.exp(_log_orthant_equicorrelated(b, d, rho))
    loose = float(mvn.cdf(x, None, cov, abseps=1e-2, releps=0))
    tight = float(mvn.cdf(x, None, cov, abseps=1e-7, releps=0))
    # the tolerances may be traced: the stopping rule runs inside the compiled loop
    assert float(minijax.jit(lambda e: mvn.cdf(x, None, cov, abseps=e, releps=0))(1e-7)) == tight
    capped = float(mvn.cdf(x, None, cov, maxpts=2000, abseps=1e-9, releps=0))
    assert loose != tight and capped != tight
    assert abs(tight - exact) < 3e-7
    assert abs(loose - exact) < 1e-2
    assert abs(capped - exact) < 1e-3
    # rng draws the shifts: the same seed, the same points
    seeded = [float(mvn.cdf(x, None, cov, rng=np.random.default_rng(5))) for _ in range(2)]
    assert seeded[0] == seeded[1] != float(mvn.cdf(x, None, cov))
    assert abs(seeded[0] - exact) < 3e-5


def test_nan_and_infinite_points():
    cov = _equicorrelated(3, 0.5)
    x = np.array([[np.nan, 0.0, 0.0], [np.inf, np.inf, np.inf], [-np.inf, 0.0, 1.0]])
    got = np.asarray(mvn.cdf(x, None, cov))
    assert np.isnan(got[0]) and got[1] == 1.0 and got[2] == 0.0
    got = np.asarray(mvn.cdf(x[:, :2], None, cov[:2, :2]))
    assert np.isnan(got[0]) and got[1] == 1.0 and got[2] == 0.0


def test_output_shapes_follow_scipy():
    cov = np.array([[1.0, 0.2], [0.2, 1.0]])
    # (batch shapes other tests compile too where the shape is not the point: (5, 2, 2)
    # is test_two_dimensions_match_scipy's)
    for x in (np.zeros(2), np.zeros((1, 2)), np.zeros((4, 1, 2)), np.zeros((5, 2, 2))):
        assert np.shape(mvn.cdf(x, None, cov)) == np.shape(st.multivariate_normal.cdf(x, None, cov))
    assert np.shape(mvn.cdf(np.zeros(5), 0.0, 1.0)) == (5,)


def test_bad_input_is_named():
    cov = np.array([[1.0, 0.2], [0.2, 1.0]])
    with pytest.raises(ValueError, match="last axis"):
        mvn.cdf(np.zeros((3, 3)), None, cov)
    with pytest.raises(ValueError, match="mean must be a vector"):
        mvn.cdf(np.zeros(2), np.zeros((2, 2)), cov)
    with pytest.raises(ValueError, match="cov must be a"):
        mvn.cdf(np.zeros(2), np.zeros(2), np.eye(3))
    with pytest.raises(ValueError, match="positive semidefinite"):
        mvn.cdf(np.zeros(2), None, np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="allow_singular"):
        mvn.logcdf(np.zeros(2), None, np.ones((2, 2)))
    with pytest.raises(ValueError, match="lower_limit"):
        mvn.cdf(np.zeros(2), None, cov, lower_limit=np.zeros(3))
    with pytest.raises(TypeError, match="maxpts"):
        mvn.cdf(np.zeros(2), None, cov, maxpts=1e4)
    with pytest.raises(TypeError, match="rng"):
        mvn.cdf(np.zeros(3), None, np.eye(3), rng="seed")
    with pytest.raises(ValueError, match="abseps"):
        mvn.cdf(np.zeros(2), None, cov, abseps=-1.0)
    with pytest.raises(TypeError, match="releps"):
        mvn.cdf(np.zeros(2), None, cov, releps=np.ones(2))
