"""minijax.scipy.stats against scipy.stats (float64), finite differences, jit, vmap."""

import numpy as np
import pytest
import scipy.stats as st

import minijax
import minijax.numpy as jnp
import minijax.scipy.stats as ms
from minijax.test_util import check_grads

X = np.array([-1e4, -50.0, -3.0, -1.0, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 40.0, 1e4, np.inf,
              -np.inf, np.nan])
Q = np.array([-0.5, 0.0, 1e-300, 1e-12, 0.1, 0.5, 0.75, 1 - 1e-9, 1.0, 1.5, np.nan])
K = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 7.0, 30.0, np.nan])

CDFS = ("cdf", "sf", "logcdf", "logsf")

# (distribution, scipy name, function, inputs, shape/loc/scale arguments)
CASES = [
    ("norm", "norm", fn, X, (0.3, 2.0)) for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
] + [("norm", "norm", fn, Q, (0.3, 2.0)) for fn in ("ppf", "isf")] + [
    ("t", "t", fn, X, (3.5, 0.3, 2.0)) for fn in ("logpdf", "pdf")
] + [("beta", "beta", fn, np.array([-0.5, 0.0, 0.1, 0.5, 0.99, 1.0, 1.5, np.nan]), ab)
     for fn in ("logpdf", "pdf") for ab in ((2.0, 3.0), (0.5, 0.7), (1.0, 1.0), (2.0, 1.0, -0.5, 2.0))
] + [("gamma", "gamma", fn, X, a) for fn in ("logpdf", "pdf")
     for a in ((2.5,), (0.5,), (1.0,), (3.0, -1.0, 2.0))
] + [("chi2", "chi2", fn, X, a) for fn in ("logpdf", "pdf") for a in ((3.0,), (1.0,), (2.0,))
] + [("expon", "expon", fn, X, (0.5, 2.0))
     for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
] + [("expon", "expon", "ppf", Q, (0.5, 2.0))
] + [("laplace", "laplace", fn, X[np.abs(X) != 1e4], (0.5, 2.0))
     for fn in ("logpdf", "pdf", "cdf")
] + [("logistic", "logistic", fn, X, (0.5, 2.0)) for fn in ("logpdf", "pdf", "cdf", "sf")
] + [("logistic", "logistic", fn, Q, (0.5, 2.0)) for fn in ("ppf", "isf")
] + [("cauchy", "cauchy", fn, np.concatenate([X, [1e200, -1e200]]), (0.5, 2.0))
     for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
] + [("cauchy", "cauchy", fn, Q, (0.5, 2.0)) for fn in ("ppf", "isf")
] + [("uniform", "uniform", fn, X, (-1.0, 3.0)) for fn in ("logpdf", "pdf", "cdf")
] + [("uniform", "uniform", "ppf", Q, (-1.0, 3.0))
] + [("poisson", "poisson", fn, K, a) for fn in ("logpmf", "pmf") for a in ((3.5,), (0.0,), (2.0, 1.0))
] + [("bernoulli", "bernoulli", fn, K, (0.3,)) for fn in ("logpmf", "pmf", "cdf")
] + [("bernoulli", "bernoulli", "ppf", Q, (0.3,))
] + [("binom", "binom", fn, K, a) for fn in ("logpmf", "pmf") for a in ((10.0, 0.3), (7.0, 1.0))
] + [("gamma", "gamma", fn, X, a) for fn in CDFS for a in ((2.5,), (0.5,), (30.0, -1.0, 2.0))
] + [("chi2", "chi2", fn, X, a) for fn in CDFS for a in ((3.0,), (1.0,), (7.0, 0.5, 3.0))
] + [("beta", "beta", fn, np.array([-0.5, 0.0, 1e-3, 0.1, 0.5, 0.99, 1.0, 1.5, np.nan]), ab)
     for fn in CDFS for ab in ((2.0, 3.0), (0.5, 0.7), (40.0, 0.8), (2.0, 1.0, -0.5, 2.0))
] + [("poisson", "poisson", fn, K, a) for fn in CDFS for a in ((3.5,), (25.0,), (2.0, 1.0))
] + [("t", "t", fn, X, a) for fn in CDFS for a in ((3.5, 0.3, 2.0), (1.0,), (40.0,))]


def _ids(case):
    return f"{case[0]}.{case[2]}{case[4]}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_values_match_scipy(case):
    module, scipy_name, fn, x, args = case
    f = getattr(getattr(ms, module), fn)
    expected = getattr(getattr(st, scipy_name), fn)(x, *args)
    # logs near 0 are compared absolutely (lgamma(1) and lgamma(2) are a few ulps off 0)
    atol = 1e-14 if fn.startswith("log") else 1e-300
    np.testing.assert_allclose(np.asarray(f(x, *args)), expected, rtol=1e-12, atol=atol)
    jitted = minijax.jit(lambda v: f(v, *args))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(jitted), expected, rtol=1e-12, atol=atol)


def test_laplace_logpdf_far_in_the_tails():
    # SciPy computes log(pdf) there and underflows to -inf; the exact value is finite
    x = np.array([-1e4, 1e4])
    np.testing.assert_allclose(np.asarray(ms.laplace.logpdf(x, 0.5, 2.0)),
                               -np.abs((x - 0.5) / 2.0) - np.log(4.0), rtol=1e-15)


GRAD_CASES = [
    ("norm", "logpdf", (0.7, 0.3, 2.0)), ("norm", "logcdf", (-30.0, 0.3, 2.0)),
    ("norm", "cdf", (0.7, 0.3, 2.0)), ("norm", "ppf", (0.2, 0.3, 2.0)),
    ("norm", "logsf", (3.0, 0.3, 2.0)),
    ("t", "logpdf", (0.7, 3.5, 0.3, 2.0)), ("beta", "logpdf", (0.3, 2.0, 3.0)),
    ("gamma", "logpdf", (1.3, 2.5)), ("chi2", "logpdf", (1.3, 3.0)),
    ("expon", "logcdf", (1.3, 0.5, 2.0)), ("expon", "ppf", (0.3, 0.5, 2.0)),
    ("laplace", "logpdf", (1.3, 0.5, 2.0)), ("laplace", "cdf", (1.3, 0.5, 2.0)),
    ("logistic", "logpdf", (-1e4 + 0.5, 0.5, 2.0)), ("logistic", "logpdf", (1.3, 0.5, 2.0)),
    ("logistic", "ppf", (0.3, 0.5, 2.0)),
    ("cauchy", "logpdf", (1.3, 0.5, 2.0)), ("cauchy", "logpdf", (1e4, 0.5, 2.0)),
    ("cauchy", "cdf", (-1e4, 0.5, 2.0)), ("cauchy", "ppf", (0.3, 0.5, 2.0)),
    ("uniform", "logpdf", (0.3, -1.0, 3.0)),
    ("poisson", "logpmf", (3.0, 2.5)), ("bernoulli", "logpmf", (1.0, 0.3)),
    ("binom", "logpmf", (3.0, 10.0, 0.3)),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[f"{c[0]}.{c[1]}{c[2]}" for c in GRAD_CASES])
def test_gradients_match_finite_differences(case):
    module, fn, args = case
    f = getattr(getattr(ms, module), fn)
    # discrete distributions: differentiate in the parameters only, not in k
    start = 1 if module in ("poisson", "bernoulli", "binom") else 0
    fixed = args[:start]
    params = tuple(jnp.asarray(a) for a in args[start:])
    eps = [1e-6 * max(abs(a), 1.0) for a in args[start:]]
    check_grads(lambda *p: f(*fixed, *p), params, order=2, eps=min(eps), tol=1e-4)


CDF_GRAD_CASES = [
    ("gamma", "cdf", (1.3, 2.5)), ("gamma", "logsf", (7.0, 2.5, 0.5, 1.5)),
    ("gamma", "logcdf", (0.2, 0.6)), ("chi2", "sf", (2.3, 3.0)), ("chi2", "logcdf", (9.0, 4.0)),
    ("beta", "cdf", (0.3, 2.0, 3.0)), ("beta", "logsf", (0.8, 0.7, 1.5)),
    ("t", "cdf", (0.7, 3.5, 0.3, 2.0)), ("t", "logsf", (2.5, 4.0)),
    ("poisson", "cdf", (3.0, 2.5)), ("poisson", "logsf", (6.0, 2.5)),
]


@pytest.mark.parametrize("case", CDF_GRAD_CASES,
                         ids=[f"{c[0]}.{c[1]}{c[2]}" for c in CDF_GRAD_CASES])
def test_cdf_gradients_match_finite_differences(case):
    # first order in every argument (the shape parameters through igamma_grad_a and
    # betainc_grad_a/_b), second order in x alone (closed-form x-derivatives)
    module, fn, args = case
    f = getattr(getattr(ms, module), fn)
    start = 1 if module == "poisson" else 0
    fixed = args[:start]
    params = tuple(jnp.asarray(a) for a in args[start:])
    check_grads(lambda *p: f(*fixed, *p), params, order=1, eps=1e-6, tol=1e-5)
    if module != "poisson":
        check_grads(lambda x: f(x, *args[1:]), (jnp.asarray(args[0]),), order=2, eps=1e-5,
                    tol=1e-4)


def test_cdf_jit_vmap_and_eager_agree():
    x = np.linspace(0.1, 12.0, 7)
    a = np.linspace(0.5, 9.0, 7)
    eager = np.asarray(ms.gamma.cdf(x, a))
    np.testing.assert_allclose(np.asarray(minijax.jit(ms.gamma.cdf)(x, a)), eager, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.gamma.cdf)(x, a)), eager, rtol=1e-13)
    np.testing.assert_allclose(eager, st.gamma.cdf(x, a), rtol=1e-13)


def test_multivariate_normal_matches_scipy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + 0.5 * np.eye(3)
    mean = np.array([0.1, -0.2, 0.3])
    x = rng.standard_normal((4, 2, 3))
    expected = st.multivariate_normal.logpdf(x, mean, cov)
    np.testing.assert_allclose(np.asarray(ms.multivariate_normal.logpdf(x, mean, cov)), expected,
                               rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ms.multivariate_normal.pdf(x[0, 0], mean, cov)),
                               st.multivariate_normal.pdf(x[0, 0], mean, cov), rtol=1e-12)
    for c in (2.0, np.array([1.0, 2.0, 3.0])):
        np.testing.assert_allclose(np.asarray(ms.multivariate_normal.logpdf(x, mean, c)),
                                   st.multivariate_normal.logpdf(x, mean, c), rtol=1e-12)
    np.testing.assert_allclose(float(ms.multivariate_normal.logpdf(0.5, 0.1, 2.0)),
                               st.multivariate_normal.logpdf(0.5, 0.1, 2.0), rtol=1e-12)
    jitted = minijax.jit(ms.multivariate_normal.logpdf)(x, mean, cov)
    np.testing.assert_allclose(np.asarray(jitted), expected, rtol=1e-12)
    check_grads(lambda xx, m, c: ms.multivariate_normal.logpdf(xx, m, c @ c.T),
                (jnp.asarray(x[0]), jnp.asarray(mean), jnp.asarray(a + 2 * np.eye(3))), order=2)
    with pytest.raises(NotImplementedError, match="allow_singular"):
        ms.multivariate_normal.logpdf(x, mean, cov, allow_singular=True)
    with pytest.raises(ValueError, match="3-dimensional"):
        ms.multivariate_normal.logpdf(x[..., :2], mean, cov)


def test_dirichlet_matches_scipy():
    alpha = np.array([1.5, 2.0, 0.7])
    x = np.array([[0.2, 0.5], [0.3, 0.25], [0.5, 0.25]])
    for col in range(2):
        expected = st.dirichlet.logpdf(x[:, col], alpha)
        np.testing.assert_allclose(float(ms.dirichlet.logpdf(x[:, col], alpha)), expected,
                                   rtol=1e-12)
        np.testing.assert_allclose(float(ms.dirichlet.logpdf(x[:2, col], alpha)), expected,
                                   rtol=1e-12)
        np.testing.assert_allclose(float(ms.dirichlet.pdf(x[:, col], alpha)),
                                   st.dirichlet.pdf(x[:, col], alpha), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ms.dirichlet.logpdf(x, alpha)),
                               [st.dirichlet.logpdf(x[:, c], alpha) for c in range(2)], rtol=1e-12)
    assert float(ms.dirichlet.logpdf(np.array([0.5, 0.6, 0.1]), alpha)) == -np.inf
    check_grads(lambda a: ms.dirichlet.logpdf(jnp.asarray(x), a), (jnp.asarray(alpha),), order=2)


def test_vmap_over_parameters():
    scales = jnp.asarray([0.5, 1.0, 3.0])
    got = minijax.vmap(lambda s: ms.norm.logpdf(1.2, 0.0, s))(scales)
    np.testing.assert_allclose(np.asarray(got), st.norm.logpdf(1.2, 0.0, np.asarray(scales)),
                               rtol=1e-13)
    got = minijax.vmap(ms.gamma.logpdf, in_axes=(0, None))(jnp.asarray([0.5, 2.0]), 2.5)
    np.testing.assert_allclose(np.asarray(got), st.gamma.logpdf([0.5, 2.0], 2.5), rtol=1e-13)
