"""minijax.scipy.stats against scipy.stats (float64), finite differences, jit, vmap."""

import functools

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
] + [("t", "t", fn, X, a) for fn in CDFS for a in ((3.5, 0.3, 2.0), (1.0,), (40.0,))
] + [("gamma", "gamma", fn, Q, a) for fn in ("ppf", "isf")
     for a in ((2.5,), (0.5,), (0.01,), (30.0, -1.0, 2.0), (1e3,))
] + [("chi2", "chi2", fn, Q, a) for fn in ("ppf", "isf") for a in ((3.0,), (1.0,), (7.0, 0.5, 3.0))
] + [("beta", "beta", fn, Q, ab) for fn in ("ppf", "isf")
     for ab in ((2.0, 3.0), (0.5, 0.7), (40.0, 0.8), (2.0, 1.0, -0.5, 2.0), (0.05, 0.05))
] + [("t", "t", fn, Q, a) for fn in ("ppf", "isf") for a in ((1.0,), (2.0,))
# SciPy's t quantile of 1e-300 is inf or clipped for these df (test_t_ppf_far_tail checks ours)
] + [("t", "t", fn, Q[Q != 1e-300], a) for fn in ("ppf", "isf")
     for a in ((3.5, 0.3, 2.0), (0.5, 0.3, 2.0), (40.0,), (300.0,))
] + [("laplace", "laplace", fn, X[np.abs(X) != 1e4], (0.5, 2.0))
     for fn in ("sf", "logcdf", "logsf")
] + [("laplace", "laplace", fn, Q, (0.5, 2.0)) for fn in ("ppf", "isf")
] + [("logistic", "logistic", fn, X, (0.5, 2.0)) for fn in ("logcdf", "logsf")
] + [("uniform", "uniform", fn, X, (-1.0, 3.0)) for fn in ("sf", "logcdf", "logsf")
] + [("bernoulli", "bernoulli", fn, K, a) for fn in ("sf", "logcdf", "logsf")
     for a in ((0.3,), (0.3, 1.0))
] + [("binom", "binom", fn, K, a) for fn in CDFS
     for a in ((10.0, 0.3), (7.0, 1.0), (50.0, 0.02), (3.0, 0.0), (40.0, 0.6, 1.0))
] + [("binom", "binom", "ppf", Q, a) for a in ((10.0, 0.3), (7.0, 1.0), (50.0, 0.02), (3.0, 0.0))
] + [("poisson", "poisson", "ppf", Q, a) for a in ((3.5,), (25.0,), (0.0,), (2.0, 1.0), (1e4,))]


# quantiles found by iteration (jit-compiled in their own test, not per value case)
ITERATIVE = ("gamma", "chi2", "beta", "t", "poisson", "binom")


def _ids(case):
    return f"{case[0]}.{case[2]}{case[4]}"


def _jit_checked(case):
    # compiling the iterative quantiles is slow; test_ppf_jit_vmap_and_eager_agree covers them
    return not (case[2] in ("ppf", "isf") and case[0] in ITERATIVE)


@functools.cache
def _jitted_values(module):
    """{case index: its value under jit} for every jit-checked case of one distribution,
    all from one jit-compiled program: the cases share most of XLA's kernels, so this
    compiles about three times faster than one program per case. None where that
    program fails to trace or compile (each case is then compiled alone, so that a
    failure is its own)."""
    indices = [i for i, c in enumerate(CASES) if c[0] == module and _jit_checked(c)]

    def values(*xs):
        return [getattr(getattr(ms, module), CASES[i][2])(x, *CASES[i][4])
                for i, x in zip(indices, xs)]
    try:
        outs = minijax.jit(values)(*[jnp.asarray(CASES[i][3]) for i in indices])
    except Exception:
        return None
    return dict(zip(indices, outs))


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_values_match_scipy(case):
    module, scipy_name, fn, x, args = case
    f = getattr(getattr(ms, module), fn)
    expected = getattr(getattr(st, scipy_name), fn)(x, *args)
    # logs near 0 are compared absolutely (lgamma(1) and lgamma(2) are a few ulps off 0)
    atol = 1e-14 if fn.startswith("log") else 1e-300
    np.testing.assert_allclose(np.asarray(f(x, *args)), expected, rtol=1e-12, atol=atol)
    if not _jit_checked(case):
        return
    batch = _jitted_values(module)
    index = next(i for i, c in enumerate(CASES) if c is case)
    if batch is not None:
        jitted = batch[index]
    else:
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
    with pytest.raises(ValueError, match="3-dimensional"):
        ms.multivariate_normal.logpdf(x[..., :2], mean, cov)


def test_multivariate_normal_singular_covariance():
    rng = np.random.default_rng(1)
    low = rng.standard_normal((4, 2))
    cov = low @ low.T  # rank 2
    mean = rng.standard_normal(4)
    on = mean + (low @ rng.standard_normal((2, 5))).T
    points = np.concatenate([on, mean + rng.standard_normal((2, 4))])  # the last two: off
    mvn = ms.multivariate_normal
    for fn in ("logpdf", "pdf"):
        expected = getattr(st.multivariate_normal, fn)(points, mean, cov, allow_singular=True)
        np.testing.assert_allclose(np.asarray(getattr(mvn, fn)(points, mean, cov,
                                                               allow_singular=True)),
                                   expected, rtol=1e-12, atol=1e-300)
        jitted = minijax.jit(lambda p, m, c, f=getattr(mvn, fn): f(p, m, c, allow_singular=True))
        np.testing.assert_allclose(np.asarray(jitted(points, mean, cov)), expected, rtol=1e-12,
                                   atol=1e-300)
    # nonsingular cov: allow_singular=True agrees with the Cholesky path, derivatives too
    full = cov + np.eye(4)
    np.testing.assert_allclose(np.asarray(mvn.logpdf(points, mean, full, allow_singular=True)),
                               st.multivariate_normal.logpdf(points, mean, full), rtol=1e-12)
    check_grads(lambda p, m, c: mvn.logpdf(p, m, c @ c.T, allow_singular=True),
                (jnp.asarray(points[:3]), jnp.asarray(mean), jnp.asarray(low @ low.T
                                                                         + np.diag([1, 2, 3, 4.0]))),
                order=2)
    # on a singular cov, derivatives along the support (in x and mean)
    check_grads(lambda t: mvn.logpdf(mean + t @ low.T, mean, cov, allow_singular=True),
                (jnp.asarray(rng.standard_normal((3, 2))),), order=2)
    with pytest.raises(np.linalg.LinAlgError, match="allow_singular"):
        mvn.logpdf(points, mean, cov)


def test_multivariate_normal_entropy():
    rng = np.random.default_rng(2)
    low = rng.standard_normal((4, 2))
    mvn = ms.multivariate_normal
    cases = [(None, 1), (None, 2.5), (np.zeros(3), 2.0), (np.zeros(3), np.array([1.0, 2.0, 3.0])),
             (np.ones(4), low @ low.T + np.eye(4)), (np.ones(4), low @ low.T)]
    for mean, cov in cases:
        np.testing.assert_allclose(float(mvn.entropy(mean, cov)),
                                   st.multivariate_normal.entropy(mean, cov), rtol=1e-13)
    full = jnp.asarray(low @ low.T + np.eye(4))
    np.testing.assert_allclose(float(minijax.jit(mvn.entropy)(None, full)),
                               st.multivariate_normal.entropy(None, np.asarray(full)), rtol=1e-13)
    check_grads(lambda c: mvn.entropy(None, c @ c.T), (full,), order=2)
    # d/dcov of the log pseudo-determinant of a singular cov: its pseudo-inverse
    g = minijax.grad(lambda c: mvn.entropy(None, c))(jnp.asarray(low @ low.T))
    np.testing.assert_allclose(np.asarray(g), 0.5 * np.linalg.pinv(low @ low.T), rtol=1e-9,
                               atol=1e-12)
    out = mvn.entropy(None, np.eye(2, dtype=np.float32))
    assert out.dtype == np.float32


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


def test_t_ppf_far_tail():
    # P(T < x) = 1e-300 lies far beyond where SciPy's quantile is reliable: check ours
    # through the exact Cauchy quantile and through the t CDF's own far-tail series
    q = np.array([1e-300, 1e-200, 1e-100])
    np.testing.assert_allclose(np.asarray(ms.t.ppf(q, 1.0)), -1.0 / (np.pi * q), rtol=1e-13)
    x = np.asarray(ms.t.ppf(q, 3.5))
    np.testing.assert_allclose(np.log(np.asarray(ms.t.cdf(x, 3.5))), np.log(q), rtol=1e-13)
    np.testing.assert_allclose(x, st.t.ppf(1e-100, 3.5) * (q / 1e-100) ** (-1 / 3.5), rtol=1e-9)
    # beyond the largest double the quantile overflows to -inf
    assert float(ms.t.ppf(1e-300, 0.5)) == -np.inf
    # central quantiles keep their digits: 2q - 1 is exact there
    q = 0.5 + np.array([1e-12, -3e-15])
    np.testing.assert_allclose(np.asarray(ms.t.ppf(q, 1.0)), np.tan(np.pi * (q - 0.5)),
                               rtol=1e-13)


def test_laplace_log_tails_far_out():
    # SciPy computes log(cdf) there and underflows to -inf; the exact value is finite
    np.testing.assert_allclose(np.asarray(ms.laplace.logcdf(-1e4, 0.5, 2.0)),
                               (-1e4 - 0.5) / 2.0 - np.log(2.0), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(ms.laplace.logsf(1e4, 0.5, 2.0)),
                               -(1e4 - 0.5) / 2.0 - np.log(2.0), rtol=1e-15)


# (distribution, arguments, smallest q whose quantile is a normal double)
ROUND_TRIPS = [("gamma", (2.5,), 1e-200), ("gamma", (0.3, 0.0, 2.0), 1e-60),
               ("chi2", (4.0,), 1e-200), ("beta", (2.0, 3.0), 1e-200),
               ("beta", (0.4, 60.0), 1e-100), ("t", (3.5,), 1e-200), ("t", (0.8, 0.0, 2.0), 1e-100)]


@pytest.mark.parametrize("module,args,smallest", ROUND_TRIPS,
                         ids=[f"{m}{a}" for m, a, _ in ROUND_TRIPS])
def test_ppf_inverts_cdf(module, args, smallest):
    dist = getattr(ms, module)
    q = np.array([smallest, 1e-30, 1e-8, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-12])
    x = dist.ppf(q, *args)
    np.testing.assert_allclose(np.asarray(dist.cdf(x, *args)), q, rtol=1e-11)
    # isf on the small survival probabilities, through the survival function (the beta's
    # quantiles of tinier ones are doubles too close to 1 to carry their survival digits)
    q = q[q >= 1e-8] if module == "beta" else q
    x = dist.isf(q, *args)
    np.testing.assert_allclose(np.asarray(dist.sf(x, *args)), q, rtol=1e-11)


@pytest.mark.parametrize("module,args", [("poisson", (3.5,)), ("poisson", (400.0, 2.0)),
                                         ("binom", (30.0, 0.4)), ("binom", (12.0, 0.95, -1.0))])
def test_discrete_ppf_is_the_smallest_k_reaching_q(module, args):
    dist = getattr(ms, module)
    q = np.random.default_rng(1).uniform(size=200)
    k = np.asarray(dist.ppf(q, *args))
    assert np.all(np.asarray(dist.cdf(k, *args)) >= q)
    assert np.all(np.asarray(dist.cdf(k - 1, *args)) < q)
    np.testing.assert_array_equal(k, getattr(st, module).ppf(q, *args))
    # a step function: no derivative in q
    grad = minijax.grad(lambda v: dist.ppf(v, *args))(0.3)
    assert float(grad) == 0.0


@pytest.mark.parametrize("module,args", [("gamma", (2.5, 0.5, 2.0)), ("beta", (2.0, 0.7)),
                                         ("t", (3.5,)), ("chi2", (3.0,)),
                                         ("poisson", (6.0,)), ("binom", (20.0, 0.3))])
def test_ppf_jit_vmap_and_eager_agree(module, args):
    f = getattr(ms, module).ppf
    q = np.array([1e-20, 0.05, 0.3, 0.5, 0.8, 1 - 1e-10])
    eager = np.asarray(f(q, *args))
    np.testing.assert_allclose(np.asarray(minijax.jit(f)(q, *args)), eager, rtol=1e-14)
    per_q = minijax.vmap(lambda v: f(v, *args))(jnp.asarray(q))
    np.testing.assert_allclose(np.asarray(per_q), eager, rtol=1e-14)
    # batched over a shape parameter as well
    shapes = np.linspace(1.0, 3.0, q.size) * args[0]
    batched = minijax.vmap(lambda v, s: f(v, s, *args[1:]))(jnp.asarray(q), jnp.asarray(shapes))
    np.testing.assert_allclose(np.asarray(batched), np.asarray(f(q, shapes, *args[1:])),
                               rtol=1e-14)


PPF_GRAD_CASES = [
    ("gamma", "ppf", (0.3, 2.5)), ("gamma", "ppf", (1e-8, 0.7, 0.5, 2.0)),
    ("gamma", "isf", (1e-6, 4.0)), ("gamma", "ppf", (0.95, 0.4)),
    ("chi2", "ppf", (0.6, 3.0)), ("chi2", "isf", (0.01, 5.0, 1.0, 0.5)),
    ("beta", "ppf", (0.3, 2.0, 3.0)), ("beta", "ppf", (0.9, 0.6, 0.8, -0.5, 2.0)),
    ("beta", "isf", (1e-4, 3.0, 1.5)),
    ("t", "ppf", (0.3, 3.5)), ("t", "ppf", (0.9, 2.5, 0.3, 2.0)), ("t", "isf", (1e-5, 6.0)),
    ("t", "ppf", (0.6, 40.0)), ("laplace", "ppf", (0.3, 0.5, 2.0)),
    ("laplace", "ppf", (0.8, 0.5, 2.0)), ("laplace", "logcdf", (1.3, 0.5, 2.0)),
    ("logistic", "logcdf", (-3.0, 0.5, 2.0)), ("logistic", "logsf", (1.3, 0.5, 2.0)),
    ("uniform", "logsf", (0.3, -1.0, 3.0)),
]


@pytest.mark.parametrize("case", PPF_GRAD_CASES,
                         ids=[f"{c[0]}.{c[1]}{c[2]}" for c in PPF_GRAD_CASES])
def test_ppf_gradients_match_finite_differences(case):
    # first order in q, the shape parameters, loc and scale: the implicit derivatives
    # 1 / pdf(x) and -(dcdf/dshape) / pdf(x)
    module, fn, args = case
    f = getattr(getattr(ms, module), fn)
    params = tuple(jnp.asarray(a) for a in args)
    eps = 1e-4 * min(min(abs(a) for a in args if a != 0), 1.0)
    check_grads(f, params, order=1, eps=eps, tol=1e-5)


def test_discrete_cdf_gradients_match_finite_differences():
    check_grads(lambda p: ms.binom.cdf(4.0, 12.0, p), (jnp.asarray(0.3),), order=1, eps=1e-6,
                tol=1e-5)
    check_grads(lambda p: ms.binom.logsf(4.0, 12.0, p), (jnp.asarray(0.3),), order=1, eps=1e-6,
                tol=1e-5)
    check_grads(lambda p: ms.bernoulli.logcdf(0.0, p), (jnp.asarray(0.3),), order=1, eps=1e-6,
                tol=1e-5)


def test_t_cdf_near_zero_keeps_its_digits():
    # cdf was 1 - I_w(df/2, 1/2)/2 with w near 1 there: 8.5e-9 off at df = 30, 9e-7 at
    # df = 1e6; the central probability I_{1-w}(1/2, df/2) keeps them
    x = np.concatenate([-np.logspace(-300, 300, 121), np.logspace(-300, 300, 121), [0.0]])
    np.testing.assert_allclose(np.asarray(ms.t.cdf(x, 1.0)), 0.5 + np.arctan(x) / np.pi,
                               rtol=0, atol=4e-16)   # Cauchy: exact
    np.testing.assert_allclose(np.asarray(ms.t.sf(x, 1.0)), 0.5 - np.arctan(x) / np.pi,
                               rtol=0, atol=4e-16)
    for df in (0.5, 3.0, 30.0):
        np.testing.assert_allclose(np.asarray(ms.t.cdf(x, df)), st.t.cdf(x, df), rtol=2e-14,
                                   atol=3e-16)
    check_grads(lambda z: ms.t.cdf(z, 30.0), (jnp.asarray([-3.0, -1e-3, 1e-3, 2.0]),), order=1)
    for fn, sign in ((ms.t.cdf, 1.0), (ms.t.sf, -1.0)):   # at 0 (was NaN)
        np.testing.assert_allclose(float(minijax.grad(lambda z: fn(z, 3.0))(0.0)),
                                   sign * st.t.pdf(0.0, 3.0), rtol=1e-14)


_ENTROPY_CASES = [
    ("norm", (), {"loc": [0.0, 1.5], "scale": [1.0, 2.5]}),
    ("expon", (), {"loc": 1.0, "scale": [0.5, 3.0]}),
    ("uniform", (), {"loc": -1.0, "scale": [2.0, 0.3]}),
    ("laplace", (), {"scale": [0.7, 2.0]}),
    ("logistic", (), {"scale": [0.7, 2.0]}),
    ("cauchy", (), {"scale": [0.7, 2.0]}),
    ("gamma", ([1e-3, 0.5, 3.0, 249.9, 250.0, 1e3, 1e7, 1e12],), {"scale": 2.0}),
    ("beta", ([0.5, 3.0, 40.0], [2.0, 0.7, 1e3]), {"scale": 1.5}),
    ("chi2", ([1.0, 7.5, 249.0, 250.0, 1e4, 1e9],), {"scale": 1.3}),
    ("t", ([0.5, 1.0, 4.5, 99.9, 100.0, 1e3, 1e7, 1e10, np.inf],), {"scale": 0.8}),
    ("bernoulli", ([0.0, 0.3, 1.0],), {}),
]


@pytest.mark.parametrize("name,args,kwargs", _ENTROPY_CASES, ids=[c[0] for c in _ENTROPY_CASES])
def test_entropy_is_scipys(name, args, kwargs):
    want = getattr(st, name).entropy(*args, **kwargs)
    args = [np.asarray(a, float) for a in args]
    kwargs = {k: np.asarray(v, float) for k, v in kwargs.items()}
    fn = getattr(ms, name).entropy
    for got in (fn(*args, **kwargs), minijax.jit(lambda *a: fn(*a, **kwargs))(*args)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-11, atol=1e-13)


def test_entropies_differentiate():
    check_grads(lambda s: ms.norm.entropy(scale=s), (np.array([0.5, 2.0]),), order=1)
    check_grads(lambda a: ms.gamma.entropy(a), (np.array([0.7, 3.0, 300.0]),), order=1)
    check_grads(lambda a, b: ms.beta.entropy(a, b), (np.array([0.7, 3.0]),
                                                       np.array([2.0, 5.0])), order=1)
    check_grads(lambda d: ms.t.entropy(d), (np.array([2.0, 50.0, 150.0]),), order=1)
    check_grads(lambda a: ms.dirichlet.entropy(a), (np.array([0.5, 2.0, 3.5]),), order=1)
    alpha = np.array([0.5, 2.0, 3.5])
    np.testing.assert_allclose(np.asarray(ms.dirichlet.entropy(alpha)),
                                st.dirichlet.entropy(alpha), rtol=1e-13)


@pytest.mark.parametrize("name", ["expon", "uniform"])
def test_isf_is_scipys(name):
    q = np.array([-0.1, 0.0, 0.2, 0.9, 1.0, 1.1])
    want = getattr(st, name).isf(q, 1.0, 2.0)
    np.testing.assert_allclose(np.asarray(getattr(ms, name).isf(q, 1.0, 2.0)), want,
                                rtol=1e-14)
