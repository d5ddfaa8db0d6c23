"""minijax.scipy.special against SciPy (values in float64), finite differences, jit, vmap."""

import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
import minijax.scipy.special as ms
from minijax.test_util import check_grads

EDGES = np.array([-1e4, -100.0, -30.5, -3.0, -2.5, -1.0, -1e-8, 0.0, -0.0, 1e-300, 0.5, 5.0,
                  14.0, 26.0, 29.99, 30.01, 100.0, 700.0, 1e4, np.inf, -np.inf, np.nan])
PROBS = np.array([-1.0, 0.0, 1e-300, 1e-20, 1e-10, 1e-3, 0.02, 0.3, 0.5, 0.7, 0.99,
                  1 - 1e-12, 1.0, 2.0, np.nan])

# name -> (inputs, rtol); edge points where SciPy's choice is arbitrary are left out and
# listed in the README's differences (gammaln(-inf), i0/i1 at +-inf give inf, not NaN).
UNARY = {
    "gammaln": (EDGES[EDGES != -np.inf], 1e-13),
    "gamma": (EDGES, 1e-13),
    "digamma": (EDGES, 1e-13),
    "erf": (EDGES, 1e-13),
    "erfc": (EDGES, 1e-13),
    "ndtr": (EDGES, 1e-12),
    "log_ndtr": (EDGES, 1e-12),
    "i0": (EDGES[np.abs(EDGES) != np.inf], 1e-13),
    "i0e": (EDGES, 1e-13),
    "i1": (EDGES[np.abs(EDGES) != np.inf], 1e-13),
    "i1e": (EDGES, 1e-13),
    "expit": (EDGES, 1e-13),
    "entr": (EDGES, 1e-13),
    "ndtri": (PROBS, 1e-13),
    "logit": (PROBS, 1e-13),
    "erfinv": (2 * PROBS - 1, 1e-11),  # lax.erf_inv keeps ~11 digits near +-1
}


def assert_matches(actual, expected, rtol):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol, atol=0)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_scipy_eager_and_jit(name):
    x, rtol = UNARY[name]
    f = getattr(ms, name)
    expected = getattr(ss, name)(x)
    assert_matches(f(jnp.asarray(x)), expected, rtol)
    assert_matches(minijax.jit(f)(jnp.asarray(x)), expected, rtol)


def test_log_ndtr_dense_grid():
    x = np.linspace(-60, 40, 2001)
    # where SciPy underflows to -0.0, minijax keeps the subnormal -ndtr(-x)
    np.testing.assert_allclose(np.asarray(ms.log_ndtr(x)), ss.log_ndtr(x), rtol=1e-12,
                               atol=1e-300)


def test_ndtri_dense_grid_and_round_trip():
    p = np.concatenate([np.logspace(-300, -1, 400), np.linspace(0.01, 0.99, 300),
                        1 - np.logspace(-15, -1, 100)])
    assert_matches(ms.ndtri(p), ss.ndtri(p), 1e-12)


def test_bessel_dense_grid():
    x = np.linspace(-80, 80, 1601)
    for name in ("i0", "i0e", "i1", "i1e"):
        assert_matches(getattr(ms, name)(x), getattr(ss, name)(x), 1e-13)


def test_lax_bessel_functions_are_scipys_and_take_real_floats_only():
    # numpy.i0 and scipy.special.i0/i0e/i1/i1e are these lax functions
    x = np.linspace(-80, 80, 321)
    for name in ("i0", "i0e", "i1", "i1e"):
        fn = getattr(minijax.lax, f"bessel_{name}")
        assert_matches(fn(jnp.asarray(x)), getattr(ss, name)(x), 1e-13)
        assert_matches(minijax.jit(fn)(jnp.asarray(x)), getattr(ss, name)(x), 1e-13)
        for bad in (jnp.arange(3), jnp.asarray([1j])):
            with pytest.raises(TypeError, match=f"lax.bessel_{name} requires floating"):
                fn(bad)
        with pytest.raises(TypeError, match="not supported for complex"):
            getattr(ms, name)(jnp.asarray([1.0 + 1j]))
    np.testing.assert_array_equal(np.asarray(minijax.jit(jnp.i0)(x)),
                                  np.asarray(minijax.jit(minijax.lax.bessel_i0)(x)))
    assert_matches(minijax.jit(jnp.i0)(jnp.arange(5)), np.i0(np.arange(5)), 1e-13)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32_follows_input(name):
    x = jnp.asarray([0.3, 0.6], dtype=np.float32)
    out = getattr(ms, name)(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), getattr(ss, name)(np.asarray(x, np.float64)),
                               rtol=2e-5)


GRAD_POINTS = {
    "gammaln": [0.3, 2.5, 40.0, -1.5],
    "gamma": [0.3, 2.5, 7.0, -1.5],
    "digamma": [0.3, 2.5, 40.0, -1.5],
    "erf": [-2.0, 0.1, 1.5],
    "erfc": [-2.0, 0.1, 4.0],
    "ndtr": [-5.0, 0.0, 2.0],
    "log_ndtr": [-40.0, -21.0, -19.0, -3.0, 0.0, 2.0, 7.0],
    "ndtri": [1e-30, 1e-4, 0.2, 0.5, 0.8, 0.999],
    "i0": [-3.0, 0.5, 29.0, 31.0],
    "i0e": [-3.0, 0.5, 29.0, 31.0, 1e4],
    "i1": [-3.0, 0.0, 0.5, 29.0, 31.0],
    "i1e": [-3.0, 0.0, 0.5, 29.0, 31.0, 1e4],
    "expit": [-30.0, 0.0, 3.0],
    "logit": [0.01, 0.5, 0.9],
    "entr": [0.01, 0.5, 3.0],
    "erfinv": [-0.9, 0.0, 0.5],
}


@pytest.mark.parametrize("name", sorted(GRAD_POINTS))
def test_unary_gradients_match_finite_differences(name):
    f = getattr(ms, name)
    x0 = np.array(GRAD_POINTS[name])
    # differentiate g(s) = f(x0 * s) / |f'(x0) x0| at s = 1: every point is probed with a
    # step relative to its own size and checked at its own scale
    x0 = np.where(x0 == 0, 1e-3, x0)
    slope = np.abs(np.asarray(minijax.vmap(minijax.grad(f))(jnp.asarray(x0))) * x0)
    scale = jnp.asarray(np.maximum(slope, 1e-3))
    check_grads(lambda s: f(x0 * s) / scale, (jnp.ones(len(x0)),), order=2, eps=1e-6, tol=1e-4)


def test_ndtri_derivative_is_the_inverse_density():
    p = jnp.asarray([1e-100, 1e-10, 0.3, 0.9])
    x = ms.ndtri(p)
    d1 = minijax.vmap(minijax.grad(ms.ndtri))(p)
    np.testing.assert_allclose(np.asarray(d1), 1 / (
        np.exp(-0.5 * np.asarray(x) ** 2) / np.sqrt(2 * np.pi)), rtol=1e-10)
    d2 = minijax.vmap(minijax.grad(minijax.grad(ms.ndtri)))(p)
    expected = np.asarray(x) / (np.exp(-0.5 * np.asarray(x) ** 2) / np.sqrt(2 * np.pi)) ** 2
    np.testing.assert_allclose(np.asarray(d2), expected, rtol=1e-8)


BINARY = {
    "xlogy": [(0.0, 0.0), (0.0, 2.0), (2.0, 0.0), (0.0, np.inf), (3.0, 1e4), (-1.0, 0.5),
              (0.0, np.nan), (np.nan, 1.0), (1e4, 1e4)],
    "xlog1py": [(0.0, -1.0), (0.0, 2.0), (2.0, -1.0), (3.0, 1e4), (-1.0, -0.5), (1.0, 1e-20)],
    "betaln": [(0.5, 0.5), (1e4, 0.5), (3.0, 1e4), (1e4, 1e4), (2.0, 3.0)],
    "polygamma": [(0, 0.5), (1, 1e4), (2, 3.0), (3, 0.1), (1, 50.0)],
    "zeta": [(1.5, 1.0), (2.0, 0.5), (10.0, 3.0), (1e4, 2.0), (3.0, 1e4), (1.0, 1.0)],
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_match_scipy(name):
    a, b = (np.array(c, dtype=float) for c in zip(*BINARY[name]))
    f = getattr(ms, name)
    expected = getattr(ss, name)(a, b)
    rtol = 1e-10 if name == "betaln" else 1e-12
    assert_matches(f(a, b), expected, rtol)
    assert_matches(minijax.jit(f)(a, b), expected, rtol)


def test_xlogy_derivatives():
    # d/dx at x = 0 is log(y); d/dy at x = 0 is 0
    gx = minijax.grad(ms.xlogy, argnums=0)(0.0, 3.0)
    gy = minijax.grad(ms.xlogy, argnums=1)(0.0, 3.0)
    assert np.isclose(float(gx), np.log(3.0)) and float(gy) == 0.0
    check_grads(ms.xlogy, (jnp.asarray([0.5, 2.0]), jnp.asarray([1.5, 0.2])), order=2)
    check_grads(ms.xlog1py, (jnp.asarray([0.5, 2.0]), jnp.asarray([1.5, -0.2])), order=2)
    check_grads(ms.betaln, (jnp.asarray([0.5, 2.0]), jnp.asarray([1.5, 20.0])), order=2)
    check_grads(lambda q: ms.zeta(3.0, q), (jnp.asarray([0.5, 2.0]),), order=2)
    check_grads(lambda x: ms.polygamma(2, x), (jnp.asarray([0.5, 2.0]),), order=2)


def test_multigammaln():
    a = np.array([2.5, 7.0, 1e4])
    for d in (1, 2, 4):
        assert_matches(ms.multigammaln(a, d), ss.multigammaln(a, d), 1e-13)
    check_grads(lambda v: ms.multigammaln(v, 3), (jnp.asarray([2.5, 7.0]),), order=2)
    with pytest.raises(TypeError, match="positive Python int"):
        ms.multigammaln(a, 0)


def test_zeta_riemann_default():
    assert_matches(ms.zeta(np.array([2.0, 3.5])), ss.zeta(np.array([2.0, 3.5])), 1e-13)


LSE_CASES = [
    dict(a=np.array([[1.0, 2.0, 3.0], [1e4, -1e4, 0.0]]), axis=1),
    dict(a=np.array([[1.0, 2.0, 3.0], [1e4, -1e4, 0.0]]), axis=None),
    dict(a=np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0, keepdims=True),
    dict(a=np.array([-np.inf, -np.inf]), axis=None),
    dict(a=np.array([np.inf, 1.0]), axis=None),
    dict(a=np.array([1.0, np.nan]), axis=None),
    dict(a=np.array([1.0, 2.0, 3.0]), b=np.array([1.0, -2.0, 0.5]), return_sign=True),
    dict(a=np.array([1.0, 2.0, 3.0]), b=np.array([-1.0, -2.0, 0.5]), return_sign=True),
    dict(a=np.array([[1.0, 2.0, 3.0]]), b=np.array([2.0, 0.0, 1.0]), axis=-1),
]


@pytest.mark.parametrize("case", range(len(LSE_CASES)))
def test_logsumexp_matches_scipy(case):
    kw = LSE_CASES[case]
    expected = ss.logsumexp(**kw)
    actual = ms.logsumexp(**kw)
    for got, want in zip(np.atleast_1d(actual) if not kw.get("return_sign") else actual,
                         np.atleast_1d(expected) if not kw.get("return_sign") else expected):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)


def test_logsumexp_where_and_gradients():
    a = jnp.asarray([1.0, 2.0, 50.0])
    where = np.array([True, True, False])
    np.testing.assert_allclose(float(ms.logsumexp(a, where=where)), ss.logsumexp([1.0, 2.0]))
    check_grads(lambda x: ms.logsumexp(x, axis=1), (jnp.asarray([[1.0, 2.0], [1e4, 3.0]]),),
                order=2)
    check_grads(lambda x, b: ms.logsumexp(x, b=b), (a, jnp.asarray([1.0, 0.5, 2.0])), order=2)
    g = minijax.grad(ms.logsumexp)(jnp.asarray([-np.inf, 0.0]))
    np.testing.assert_array_equal(np.asarray(g), [0.0, 1.0])


def test_softmax_and_log_softmax():
    x = np.array([[1.0, 2.0, 1e4], [-1e4, 0.0, 3.0]])
    for axis in (None, 0, 1):
        assert_matches(ms.softmax(x, axis=axis), ss.softmax(x, axis=axis), 1e-13)
        assert_matches(ms.log_softmax(x, axis=axis), ss.log_softmax(x, axis=axis), 1e-13)
    check_grads(lambda v: ms.log_softmax(v, axis=1), (jnp.asarray(x[:, :2]),), order=2)


def test_vmap_agrees_with_the_batch():
    x = jnp.asarray([[0.2, 3.0], [40.0, -2.0]])
    for f in (ms.i1e, ms.log_ndtr, ms.gammaln):
        np.testing.assert_allclose(np.asarray(minijax.vmap(f)(x)), np.asarray(f(x)), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.logsumexp)(x)),
                               ss.logsumexp(np.asarray(x), axis=1), rtol=1e-14)


def test_reachable_as_attributes_after_import_minijax():
    # JAX programs write jax.scipy.special.logsumexp after a bare `import jax`
    import importlib
    mj = importlib.import_module("minijax")
    for sub in ("special", "stats", "linalg", "signal", "optimize", "ndimage"):
        assert hasattr(mj.scipy, sub)
    assert mj.scipy.stats.norm.cdf is minijax.scipy.stats.norm.cdf


def test_lists_are_accepted_as_scipy_does():
    np.testing.assert_allclose(float(ms.logsumexp([1.0, 2.0])), ss.logsumexp([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(ms.xlogy([0, 2], [0.0, 3.0])), ss.xlogy([0, 2], [0, 3.0]))


def test_special_function_edges_match_scipy():
    # polygamma off the poles below zero, digamma's signed pole at zero, zeta at s = inf
    m = np.array([1, 2, 3, 1, 2, 1, 4, 1, 0, 1])
    x = np.array([-0.5, -0.5, -2.3, -1.5, -10.7, -100.25, -3.9, -1.0, -0.5, -1e-3])
    for f in (ms.polygamma, minijax.jit(ms.polygamma), minijax.lax.polygamma,
              minijax.jit(minijax.lax.polygamma)):
        assert_matches(f(m.astype(float), x), ss.polygamma(m, x), 1e-11)
    zeros = np.array([0.0, -0.0])
    for f in (ms.digamma, minijax.lax.digamma, minijax.jit(minijax.lax.digamma)):
        np.testing.assert_array_equal(np.asarray(f(zeros)), ss.digamma(zeros))
    s, q = np.array([np.inf, np.inf]), np.array([1.0, 0.5])
    for f in (ms.zeta, minijax.lax.zeta, minijax.jit(minijax.lax.zeta)):
        np.testing.assert_array_equal(np.asarray(f(s, q)), ss.zeta(s, q))
    # (SciPy returns NaN for zeta(inf, q > 1); the sum's limit there is 0)
    assert float(ms.zeta(np.inf, 2.0)) == 0.0
    check_grads(lambda v: ms.polygamma(1, v), (jnp.asarray([-0.5, -2.3]),), order=2)


def test_edge_values_are_scipys():
    """xlogy/xlog1py are 0 at x == 0 whatever log(y) is (NaN y aside); wofz has SciPy's
    limits at infinity; boxcox takes the logarithm below SciPy's cut |lmbda| < 1e-19."""
    x = np.array([-0.0, 0.0, 0.0, 0.0, 1.0, 0.0])
    y = np.array([-2.0, -2.0, np.nan, 0.0, -1.0, np.inf])
    for name in ("xlogy", "xlog1py"):
        want = getattr(ss, name)(x, y)
        for got in (getattr(ms, name)(x, y), minijax.jit(getattr(ms, name))(x, y)):
            np.testing.assert_array_equal(np.asarray(got), want)
    inf, nan = np.inf, np.nan
    z = np.array([inf, -inf, complex(inf, 1), complex(0, inf), complex(inf, inf),
                   complex(-inf, 1), complex(0, -inf), complex(inf, -1), complex(1, -inf),
                   complex(nan, inf), 1 + 2j, -3 + 0.5j])
    for got in (ms.wofz(z), minijax.jit(ms.wofz)(z)):
        np.testing.assert_allclose(np.asarray(got), ss.wofz(z), rtol=1e-13)
    x, lmbda = np.array([0.0, 0.5, 2.0]), np.array([1e-300, 2e-19, -5e-20])
    np.testing.assert_allclose(np.asarray(ms.boxcox(x, lmbda)), ss.boxcox(x, lmbda))
    np.testing.assert_allclose(np.asarray(ms.boxcox1p(x - 1.0, lmbda)),
                                ss.boxcox1p(x - 1.0, lmbda))
    # the derivative in x at x == 0 is still log(y) where that is finite
    assert float(minijax.grad(lambda v: ms.xlogy(v, 2.0))(0.0)) == np.log(2.0)
