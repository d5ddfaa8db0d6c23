"""minijax.scipy.stats.gaussian_kde against scipy.stats.gaussian_kde (values) and
jax.scipy.stats.gaussian_kde (interface, resample's bits); float64 and float32, eager,
jit, vmap, derivatives."""

import dataclasses
import inspect
import math
import warnings

import numpy as np
import pytest
import scipy.stats as st

import minijax
import minijax.numpy as jnp
import minijax.scipy.stats as ms
from minijax.test_util import check_grads
from minijax.tree_util import tree_flatten, tree_unflatten

RNG = np.random.default_rng(11)
DATA = {d: RNG.normal(size=(d, 25)) * np.arange(1, d + 1)[:, None] for d in (1, 2, 3)}
WEIGHTS = RNG.uniform(0.1, 2.0, 25)
# points on a data point, near the data, and far out (where the density underflows)
POINTS = {d: np.concatenate([DATA[d][:, :2], RNG.normal(size=(d, 5)) * 3,
                             np.full((d, 1), 40.0), np.full((d, 1), -1e3)], axis=1)
          for d in (1, 2, 3)}
BANDWIDTHS = [None, "scott", "silverman", 0.3, np.float64(1.7), lambda k: k.scotts_factor() / 2]
# every bandwidth rule in two dimensions; a fixed, a rule's and a callable's in one and three
KDE_CASES = [(d, bw, w) for d in (1, 2, 3) for bw in range(len(BANDWIDTHS))
             for w in (False, True) if d == 2 or bw in (0, 3, 5)]


def _pair(d, bw, weighted, dtype=np.float64):
    data = DATA[d].astype(dtype)
    weights = WEIGHTS.astype(dtype) if weighted else None
    return (st.gaussian_kde(data.astype(np.float64), BANDWIDTHS[bw],
                            None if weights is None else weights.astype(np.float64)),
            ms.gaussian_kde(data, BANDWIDTHS[bw], weights))


def _close(got, want, dtype=np.float64, rtol=None):
    got = np.asarray(got)
    assert got.dtype == dtype
    rtol = rtol or (1e-12 if dtype == np.float64 else 2e-4)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0 if dtype == np.float64 else 1e-30)


@pytest.mark.parametrize("d,bw,weighted", KDE_CASES)
def test_values_match_scipy(d, bw, weighted):
    ref, kde = _pair(d, bw, weighted)
    assert (kde.d, kde.n) == (ref.d, ref.n)
    for name in ("factor", "neff", "covariance", "inv_cov", "weights", "dataset"):
        _close(getattr(kde, name), getattr(ref, name))
    pts = POINTS[d]
    for name in ("evaluate", "pdf", "__call__", "logpdf"):
        _close(getattr(kde, name)(pts), getattr(ref, name)(pts))
    _close(kde.logpdf(pts[:, 0]), ref.logpdf(pts[:, 0]))   # one point, as a (d,) vector
    mean, cov = np.linspace(-1.0, 1.0, d), np.eye(d) * 0.7 + 0.1
    _close(kde.integrate_gaussian(mean, cov), ref.integrate_gaussian(mean, cov))
    other_ref, other = st.gaussian_kde(DATA[d][:, :9] + 0.5), ms.gaussian_kde(DATA[d][:, :9] + 0.5)
    _close(kde.integrate_kde(other), ref.integrate_kde(other_ref))
    _close(other.integrate_kde(kde), other_ref.integrate_kde(ref))
    if d == 1:
        for low, high in [(-0.5, 1.0), (-np.inf, 0.3), (2.0, -1.0), (-np.inf, np.inf)]:
            _close(kde.integrate_box_1d(low, high), ref.integrate_box_1d(low, high))
    else:
        _close(kde.marginal([0, -1]).logpdf(pts[[0, -1]]), ref.marginal([0, -1]).logpdf(pts[[0, -1]]))
        _close(kde.marginal(1).covariance, ref.marginal(1).covariance)


@pytest.mark.parametrize("d", [1, 3])
def test_float32_keeps_its_dtype(d):
    for bw in (0, 2, 3):
        for weighted in (False, True):
            ref, kde = _pair(d, bw, weighted, np.float32)
            assert kde.covariance.dtype == kde.weights.dtype == kde.factor.dtype == np.float32
            pts = POINTS[d][:, :-2].astype(np.float32)
            _close(kde.logpdf(pts), ref.logpdf(pts.astype(np.float64)), np.float32)
            _close(kde(pts), ref(pts.astype(np.float64)), np.float32)
            assert kde.logpdf(POINTS[d]).dtype == np.float64   # float64 points promote


def _everything(kde, pts, other):
    out = [kde.evaluate(pts), kde.logpdf(pts),
           kde.integrate_gaussian(jnp.zeros(kde.d), jnp.eye(kde.d)), kde.integrate_kde(other)]
    if kde.d == 1:
        out.append(kde.integrate_box_1d(-0.5, 1.0))
    return out


@pytest.mark.parametrize("d", [1, 2])
def test_jit_of_a_kde_argument_and_of_its_construction(d):
    kde, other, pts = ms.gaussian_kde(DATA[d], weights=WEIGHTS), ms.gaussian_kde(DATA[d] + 1), POINTS[d]
    eager = _everything(kde, pts, other)
    for got, want in zip(minijax.jit(_everything)(kde, pts, other), eager):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13)
    built = minijax.jit(lambda data, w, bw: _everything(ms.gaussian_kde(data, bw, w), pts, other))
    for got, want in zip(built(DATA[d], WEIGHTS, 0.4),
                         _everything(ms.gaussian_kde(DATA[d], 0.4, WEIGHTS), pts, other)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13)


def test_is_a_pytree():
    kde = ms.gaussian_kde(DATA[2], "silverman", WEIGHTS)
    leaves, tree = tree_flatten(kde)
    assert len(leaves) == 6
    again = tree_unflatten(tree, leaves)
    assert type(again) is ms.gaussian_kde and (again.d, again.n) == (2, 25)
    np.testing.assert_array_equal(np.asarray(again.logpdf(POINTS[2])),
                                  np.asarray(kde.logpdf(POINTS[2])))
    with pytest.raises(dataclasses.FrozenInstanceError):
        kde.factor = 1.0


def test_vmap_over_points_and_over_datasets():
    kde = ms.gaussian_kde(DATA[2], weights=WEIGHTS)
    pts = POINTS[2].T
    per = np.array([float(kde.logpdf(p)[0]) for p in pts])
    np.testing.assert_allclose(np.asarray(minijax.vmap(lambda p: kde.logpdf(p)[0])(pts)), per,
                               rtol=1e-13)
    datasets = np.stack([DATA[2] * s for s in (0.5, 1.0, 2.0)])
    bws = np.array([0.3, 0.5, 0.9])

    def fit(data, bw):
        k = ms.gaussian_kde(data, bw)
        return k.logpdf(POINTS[2]), k.integrate_kde(kde), k.factor

    batched = minijax.vmap(fit)(datasets, bws)
    for i in range(3):
        ref = st.gaussian_kde(datasets[i], bws[i])
        np.testing.assert_allclose(np.asarray(batched[0][i]), ref.logpdf(POINTS[2]), rtol=1e-12)
        np.testing.assert_allclose(float(batched[1][i]),
                                   st.gaussian_kde(DATA[2], weights=WEIGHTS).integrate_kde(ref),
                                   rtol=1e-12)
    # a vmapped estimate: its methods under vmap, per estimate
    kdes = minijax.vmap(lambda data: ms.gaussian_kde(data, "silverman"))(datasets)
    assert kdes.dataset.shape == (3, 2, 25)
    dens = minijax.vmap(lambda k: k.evaluate(POINTS[2]))(kdes)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(dens[i]),
                                   st.gaussian_kde(datasets[i], "silverman")(POINTS[2]), rtol=1e-12)


def test_gradients_match_finite_differences():
    data, pts = DATA[2][:, :8], POINTS[2][:, 2:5]
    w = WEIGHTS[:8]
    check_grads(lambda p: ms.gaussian_kde(data, weights=w).logpdf(p), (jnp.asarray(pts),), order=2,
                eps=1e-5)
    check_grads(lambda x, v: ms.gaussian_kde(x, weights=v).evaluate(pts),
                (jnp.asarray(data), jnp.asarray(w)), order=1, eps=1e-6, tol=1e-5)
    check_grads(lambda bw: ms.gaussian_kde(data, bw).logpdf(pts), (jnp.asarray(0.6),), order=2,
                eps=1e-6)
    check_grads(lambda m, c: ms.gaussian_kde(data).integrate_gaussian(m, c),
                (jnp.asarray([0.2, -0.1]), jnp.asarray([[1.0, 0.2], [0.2, 0.5]])), order=1,
                eps=1e-6)
    check_grads(lambda x: ms.gaussian_kde(x).integrate_kde(ms.gaussian_kde(data + 1.0)),
                (jnp.asarray(data),), order=1, eps=1e-6, tol=1e-5)
    check_grads(lambda lo, hi, x: ms.gaussian_kde(x).integrate_box_1d(lo, hi),
                (jnp.asarray(-0.3), jnp.asarray(1.1), jnp.asarray(DATA[1][:, :8])), order=2,
                eps=1e-6)


def test_resample_shape_dtype_and_moments():
    for dtype in (np.float64, np.float32):
        kde = ms.gaussian_kde(DATA[2].astype(dtype), weights=WEIGHTS.astype(dtype))
        for shape in ((), (4,), (3, 5)):
            draw = kde.resample(minijax.random.key(0), shape)
            assert draw.shape == (2,) + shape and draw.dtype == dtype
    kde = ms.gaussian_kde(DATA[2], 0.5, weights=WEIGHTS)
    draws = np.asarray(kde.resample(minijax.random.key(1), (40000,)))
    w = np.asarray(kde.weights)
    mean = DATA[2] @ w
    centred = DATA[2] - mean[:, None]
    cov = (centred * w) @ centred.T + np.asarray(kde.covariance)
    se = np.sqrt(np.diag(cov) / draws.shape[1])
    assert np.all(np.abs(draws.mean(axis=1) - mean) < 5 * se)
    np.testing.assert_allclose(np.cov(draws, bias=True), cov, rtol=0.05, atol=0.05 * cov.max())
    # jit, and vmap over keys, give the same draws
    key = minijax.random.key(2)
    np.testing.assert_allclose(np.asarray(minijax.jit(lambda k: kde.resample(k, (6,)))(key)),
                               np.asarray(kde.resample(key, (6,))), rtol=1e-14)
    keys = minijax.random.split(key, 3)
    batched = minijax.vmap(lambda k: kde.resample(k, (6,)))(keys)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(batched[i]), np.asarray(kde.resample(keys[i], (6,))),
                                   rtol=1e-14)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_resample_has_jaxs_bits(dtype):
    jax = pytest.importorskip("jax")
    jstats = pytest.importorskip("jax.scipy.stats")
    cases = [(1, None), (3, WEIGHTS)] if dtype == np.float64 else [(3, WEIGHTS)]
    for d, weights in cases:
        data = DATA[d].astype(dtype)
        weights = None if weights is None else weights.astype(dtype)
        mine = ms.gaussian_kde(data, weights=weights)
        with jax.enable_x64(dtype == np.float64):
            theirs = jstats.gaussian_kde(data, weights=weights)
            for shape in ((), (7,)):
                want = np.asarray(theirs.resample(jax.random.key(5), shape))
                got = np.asarray(mine.resample(minijax.random.key(5), shape))
                assert got.dtype == want.dtype
                # (the same draws: JAX's resample is compiled, so they differ in rounding)
                np.testing.assert_allclose(got, want, rtol=1e-13 if dtype == np.float64 else 1e-5,
                                           atol=1e-6 if dtype == np.float32 else 0)


def test_errors_are_named():
    kde1, kde2 = ms.gaussian_kde(DATA[1]), ms.gaussian_kde(DATA[2])
    with pytest.raises(NotImplementedError, match="complex data"):
        ms.gaussian_kde(DATA[1] + 1j)
    with pytest.raises(ValueError, match="multiple elements"):
        ms.gaussian_kde([1.0])
    with pytest.raises(ValueError, match="one-dimensional"):
        ms.gaussian_kde(DATA[1], weights=np.ones((5, 5)))
    with pytest.raises(ValueError, match="length n"):
        ms.gaussian_kde(DATA[1], weights=np.ones(3))
    with pytest.raises(ValueError, match="greater than number of samples"):
        ms.gaussian_kde(np.ones((5, 3)))
    for bad in ("scot", np.ones(2), object()):
        with pytest.raises(ValueError, match="`bw_method` should be"):
            ms.gaussian_kde(DATA[1], bad)
    with pytest.raises(ValueError, match="points have dimension 3, dataset has dimension 2"):
        kde2.logpdf(np.ones((3, 4)))
    with pytest.raises(NotImplementedError, match="complex coordinates"):
        kde2.evaluate(np.ones((2, 4)) * 1j)
    with pytest.raises(NotImplementedError, match="integrate_box_1d"):
        kde2.integrate_box([0, 0], [1, 1])
    with pytest.raises(NotImplementedError, match="bandwidth"):
        kde2.set_bandwidth("silverman")
    with pytest.raises(ValueError, match="only handles 1D"):
        kde2.integrate_box_1d(0.0, 1.0)
    with pytest.raises(ValueError, match="must be scalars"):
        kde1.integrate_box_1d(np.zeros(2), 1.0)
    with pytest.raises(ValueError, match="same dimensionality"):
        kde1.integrate_kde(kde2)
    with pytest.raises(ValueError, match="mean does not have dimension 2"):
        kde2.integrate_gaussian(np.zeros(3), np.eye(2))
    with pytest.raises(ValueError, match="covariance does not have dimension 2"):
        kde2.integrate_gaussian(np.zeros(2), np.eye(3))
    with pytest.raises(ValueError, match="unique"):
        ms.gaussian_kde(DATA[3]).marginal([0, -3])
    with pytest.raises(ValueError, match="invalid"):
        ms.gaussian_kde(DATA[3]).marginal([3])
    # the floating-point warnings of a density that underflows stay quiet, as in SciPy
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kde2.logpdf(POINTS[2])


def test_interface_is_jaxs():
    jstats = pytest.importorskip("jax.scipy.stats")
    theirs = jstats.gaussian_kde
    public = {n for n in dir(theirs) if not n.startswith("_")}
    mine = {n for n in dir(ms.gaussian_kde) if not n.startswith("_")}
    # JAX's names, and SciPy's factor, marginal and bandwidth rules besides
    assert public <= mine
    assert mine - public == {"factor", "marginal", "scotts_factor", "silverman_factor",
                             "covariance_factor"}
    for name in public | {"__init__", "__call__"}:
        if callable(getattr(theirs, name)) and not isinstance(getattr(theirs, name), type):
            want = inspect.signature(getattr(theirs, name)).parameters
            got = inspect.signature(getattr(ms.gaussian_kde, name)).parameters
            assert [(p.name, p.default) for p in got.values()] == \
                [(p.name, p.default) for p in want.values()], name
    assert "gaussian_kde" in ms.__all__


# ------------------------------------------------------------------ discrete isf

Q_ISF = np.array([-0.5, 0.0, 1e-6, 0.1, 0.3, 0.5, 0.7, 0.9, 1 - 1e-9, 1.0, 1.5, np.nan])
ISF_CASES = [("poisson", (3.0,)), ("poisson", (0.0,)), ("poisson", (1e4, 2.0)), ("poisson", (-1.0,)),
             ("binom", (10.0, 0.3)), ("binom", (10.0, 0.0)), ("binom", (10.0, 1.0)),
             ("binom", (10.5, 0.3)), ("binom", (10.0, 1.5)), ("binom", (400.0, 0.02, -1.0)),
             ("nbinom", (3.0, 0.3)), ("nbinom", (0.4, 0.05, 1.0)), ("nbinom", (2.5, 1.0)),
             ("nbinom", (0.0, 0.5)), ("geom", (0.3,)), ("geom", (1e-3, 2.0)), ("geom", (0.0,)),
             ("bernoulli", (0.3,)), ("bernoulli", (0.0,)), ("bernoulli", (1.0,)),
             ("bernoulli", (1.5,)), ("bernoulli", (0.5, 1.0))]


def _scipy_isf(module, q, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(st, module).isf(q, *args)


def test_discrete_isf_matches_scipy_eager_and_jitted():
    # (one program for every case)
    jitted = minijax.jit(lambda q: [getattr(ms, m).isf(q, *args) for m, args in ISF_CASES])(Q_ISF)
    for (module, args), under_jit in zip(ISF_CASES, jitted):
        want = _scipy_isf(module, Q_ISF, args)
        for dtype in (np.float64, np.float32):
            got = getattr(ms, module).isf(Q_ISF.astype(dtype), *(dtype(a) for a in args))
            assert got.dtype == dtype
            if dtype == np.float32:   # SciPy at the float32 arguments
                want = _scipy_isf(module, Q_ISF.astype(dtype).astype(np.float64),
                                  tuple(float(dtype(a)) for a in args))
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{module}{args}")
        np.testing.assert_array_equal(np.asarray(under_jit), _scipy_isf(module, Q_ISF, args))


@pytest.mark.parametrize("module,args", [("poisson", (3.0,)), ("poisson", (1e4,)),
                                         ("binom", (10.0, 0.0)), ("binom", (60.0, 0.4)),
                                         ("nbinom", (3.0, 0.3)), ("nbinom", (0.4, 0.01)),
                                         ("geom", (0.3,)), ("geom", (1e-3,)), ("geom", (1.0,)),
                                         ("bernoulli", (0.0,)), ("bernoulli", (0.3,))])
def test_discrete_isf_is_the_smallest_k_with_sf_at_most_q(module, args):
    # SciPy's definition; SciPy's own isf computes ppf(1 - q) for poisson and geom, NaN or
    # inf once 1 - q rounds to 1, and 0 for geom with p = 1 (whose sf(0) is 1); and Boost's
    # binom quantile gives n, not 0, for p = 0 and a tiny q
    q = np.concatenate([[1e-300, 1e-100, 1e-20, 1e-12],
                        np.random.default_rng(7).uniform(size=40)])
    k = np.asarray(getattr(ms, module).isf(q, *args))
    assert np.all(np.isfinite(k))
    sf = getattr(st, module).sf
    assert np.all(sf(k, *args) <= q)
    first = 1 if module == "geom" else 0
    assert np.all((k == first) | (sf(k - 1, *args) > q))
    assert float(minijax.grad(lambda v: getattr(ms, module).isf(v, *args))(0.3)) == 0.0


def test_discrete_isf_vmap_matches_per_example():
    q = np.array([1e-9, 0.05, 0.3, 0.5, 0.8, 0.99])
    shape = np.linspace(0.5, 4.0, q.size)
    p = np.linspace(0.1, 0.9, q.size)
    calls = [(ms.poisson.isf, (q, shape * 3)), (ms.binom.isf, (q, np.round(shape * 5), p)),
             (ms.nbinom.isf, (q, shape, p)), (ms.geom.isf, (q, p)), (ms.bernoulli.isf, (q, p))]
    for f, args in calls:
        per = np.array([float(f(*(a[i] for a in args))) for i in range(q.size)])
        np.testing.assert_array_equal(np.asarray(minijax.vmap(f)(*args)), per)
        np.testing.assert_array_equal(per, _scipy_isf(f.__module__.rpartition(".")[2], q, args[1:]))


# ------------------------------------------------------------------ discrete entropy

def _ratio_entropy(log_ratio, lo, hi, mode):
    """-sum p log p over [lo, hi] of a mass given by ``log p(k) - log p(k-1)``, accumulated
    outwards from the mode and normalised by an exact sum (an oracle independent of lgamma,
    accurate to about 1e-15 where SciPy's sums are not)."""
    steps = log_ratio(np.arange(lo + 1, hi + 1, dtype=float))
    i = mode - lo
    log_q = np.concatenate([-np.cumsum(steps[:i][::-1])[::-1], [0.0], np.cumsum(steps[i:])])
    log_p = log_q - math.log(math.fsum(np.exp(log_q)))
    return -math.fsum(np.exp(log_p) * log_p)


def _poisson_entropy(mu):
    lo, hi = max(0, int(mu - 40 * mu**0.5 - 40)), int(mu + 40 * mu**0.5 + 40)
    return _ratio_entropy(lambda k: math.log(mu) - np.log(k), lo, hi, max(int(mu), lo))


def _binom_entropy(n, p):
    sd = (n * p * (1 - p)) ** 0.5
    lo, hi = max(0, int(n * p - 40 * sd - 40)), min(int(n), int(n * p + 40 * sd + 40))
    return _ratio_entropy(lambda k: np.log((n - k + 1) / k) + math.log(p / (1 - p)), lo, hi,
                          min(max(int((n + 1) * p), lo), hi))


MUS = np.array([1e-3, 0.5, 1.0, 3.0, 30.0, 100.0, 1000.0, 5000.0, 5200.0, 1e5, 1e6, 9.9e6])
BINOMS = [(1.0, 0.3), (10.0, 0.3), (10.0, 1e-3), (100.0, 0.5), (1000.0, 0.01), (2e4, 0.5),
          (1e5, 0.3), (1e6, 1e-4), (2e7, 0.5), (1e12, 1e-6)]


def test_poisson_and_binom_entropy_match_exact_sums_and_scipy():
    got = np.asarray(ms.poisson.entropy(MUS))
    np.testing.assert_allclose(got, [_poisson_entropy(m) for m in MUS], rtol=2e-14)
    # SciPy sums the mass with SciPy's logpmf (its lgamma cancels digits away as mu grows)
    # and stops after 1000 terms: its values are exact to 1e-12 up to a mean of about 300
    small = MUS[(MUS >= 1e-3) & (MUS <= 100)]
    np.testing.assert_allclose(np.asarray(ms.poisson.entropy(small)), st.poisson.entropy(small),
                               rtol=1e-12)
    n, p = (np.array(c) for c in zip(*BINOMS))
    got = np.asarray(ms.binom.entropy(n, p))
    np.testing.assert_allclose(got, [_binom_entropy(*c) for c in BINOMS], rtol=2e-14)
    some = n <= 1e5
    np.testing.assert_allclose(got[some], st.binom.entropy(n[some], p[some]), rtol=1e-12)
    # past a variance of 1e7, the expansions; the sums just below meet them
    below, above = 0.999999e7, 1.000001e7
    for mu in (below, above, 1e12):
        want = 0.5 * np.log(2 * np.pi * np.e * mu) - 1 / (12 * mu) - 1 / (24 * mu**2)
        np.testing.assert_allclose(float(ms.poisson.entropy(mu)), want, rtol=2e-16)
    for trials in (41666625.0, 41666709.0):   # variances 9999990 and 10000010
        v = trials * 0.6 * 0.4
        want = 0.5 * np.log(2 * np.pi * np.e * v) - 0.2**2 / (12 * v)
        np.testing.assert_allclose(float(ms.binom.entropy(trials, 0.6)), want, rtol=4e-16)


def test_discrete_entropy_edges_jit_vmap_float32_and_grad():
    mu = np.array([0.0, 1e-10, 3.0, 2e7, np.inf, -1.0, np.nan])
    ks = np.arange(6.0)   # (at a tiny mean, log p = k log mu - mu - log k! has all its digits)
    log_p = ks * np.log(1e-10) - 1e-10 - np.array([math.lgamma(k + 1) for k in ks])
    want = np.array([0.0, -math.fsum(np.exp(log_p) * log_p), _poisson_entropy(3.0),
                     float(ms.poisson.entropy(2e7)), np.inf, np.nan, np.nan])
    # (SciPy: 2.40258510128e-09 at 1e-10, its log of a mass 1 - 1e-10; 0 at inf)
    n = np.array([0.0, 10.0, 10.0, 10.5, -1.0, 10.0, 10.0, 7.0])
    p = np.array([0.3, 0.0, 1.0, 0.3, 0.3, 1.5, np.nan, 0.6])
    for got, expected in [(ms.poisson.entropy(mu), want),
                          (minijax.jit(ms.poisson.entropy)(mu), want),
                          (minijax.vmap(ms.poisson.entropy)(mu), want),
                          (ms.binom.entropy(n, p), st.binom.entropy(n, p)),
                          (minijax.jit(ms.binom.entropy)(n, p), st.binom.entropy(n, p)),
                          (minijax.vmap(ms.binom.entropy)(n, p), st.binom.entropy(n, p))]:
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13)
    got32 = ms.poisson.entropy(np.float32(MUS))
    assert got32.dtype == np.float32
    # (float32's grid points past a mean of 1e6 round to its spacing: 5e-6 at 1e7)
    np.testing.assert_allclose(np.asarray(got32), ms.poisson.entropy(MUS), rtol=1e-5)
    got32 = ms.binom.entropy(np.float32(40.0), np.float32([0.1, 0.5]))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got32), st.binom.entropy(40, [0.1, 0.5]), rtol=2e-6)
    for m in (0.3, 30.0, 6000.0, 2e7):
        check_grads(ms.poisson.entropy, (jnp.asarray(m),), order=1, eps=1e-6 * max(m, 1.0),
                    tol=1e-5)
    for n_, p_ in ((10.0, 0.3), (1e5, 0.4), (1e9, 0.3)):
        check_grads(lambda v: ms.binom.entropy(n_, v), (jnp.asarray(p_),), order=1, eps=1e-7,
                    tol=1e-5)


# ------------------------------------------------------------------ sums over the support

def _exact_entropy(pmf):
    p = pmf[pmf > 0]
    return -math.fsum(p * np.log(p))


BB_K = np.array([-1.0, 0.0, 1.0, 2.5, 7.0, 10.0, 11.0, 399.0, np.inf, np.nan])
BB_ARGS = [(10.0, 2.0, 3.0), (10.0, 0.5, 0.7, 1.0), (0.0, 1.0, 1.0), (400.0, 30.0, 0.5),
           (2.5, 1.0, 1.0), (5.0, 0.0, 1.0)]


def test_betabinom_tails_match_scipy():
    fns = ("cdf", "sf", "logcdf", "logsf")
    jitted = minijax.jit(lambda k: [getattr(ms.betabinom, f)(k, *args) for f in fns
                                    for args in BB_ARGS])(BB_K)
    for i, (f, args) in enumerate((f, args) for f in fns for args in BB_ARGS):
        want = getattr(st.betabinom, f)(BB_K, *args)
        if f == "logcdf" and len(args) == 3 and args[0] == 2.5 or args[1] == 0.0:
            want = np.full_like(want, np.nan)   # (SciPy: 0 past n even for invalid n, a, b)
        for got in (getattr(ms.betabinom, f)(BB_K, *args), jitted[i]):
            # (SciPy's sf is 1 - cdf: 1e-16 absolute)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=2e-16,
                                       err_msg=f"{f}{args}")
    # the upper tail keeps its digits: against the sum of SciPy's masses
    k = np.arange(401.0)
    masses = st.betabinom.pmf(k, 400.0, 30.0, 0.5)
    tail = [math.fsum(masses[j + 1:]) for j in (390, 395, 399)]
    np.testing.assert_allclose(np.asarray(ms.betabinom.sf(np.array([390.0, 395.0, 399.0]),
                                                          400.0, 30.0, 0.5)), tail, rtol=1e-11)
    got32 = ms.betabinom.cdf(np.float32([0.0, 3.0, 9.0]), np.float32(10), np.float32(2),
                             np.float32(3))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got32), st.betabinom.cdf([0, 3, 9], 10, 2, 3), rtol=2e-6)


def test_betabinom_and_nbinom_entropy():
    # SciPy stops its sums after 1000 terms or at a tolerance of 1e-10: exact sums of its
    # masses are the oracle, SciPy's own values where they converge
    cases = [(10.0, 2.0, 3.0), (30.0, 1.0, 1.0), (400.0, 30.0, 0.5), (5000.0, 0.5, 0.5)]
    n, a, b = (np.array(c) for c in zip(*cases))
    got = np.asarray(ms.betabinom.entropy(n, a, b))
    want = [_exact_entropy(st.betabinom.pmf(np.arange(c[0] + 1), *c)) for c in cases]
    # (lgamma's cancellation at n = 5000: 2e-12)
    for g, w, tol in zip(got, want, (1e-13, 1e-13, 2e-13, 5e-12)):
        np.testing.assert_allclose(g, w, rtol=tol)
    np.testing.assert_allclose(got[:2], st.betabinom.entropy(n[:2], a[:2], b[:2]), rtol=1e-13)
    edge = (np.array([0.0, 2.5, 5.0, 5.0]), np.array([1.0, 1.0, 0.0, 1.0]),
            np.array([1.0, 1.0, 1.0, -1.0]))
    np.testing.assert_array_equal(np.asarray(ms.betabinom.entropy(*edge)),
                                  st.betabinom.entropy(*edge))
    cases = [(3.0, 0.3), (0.4, 0.05), (50.0, 0.1), (1.0, 1e-3), (2.5, 1.0)]
    n, p = (np.array(c) for c in zip(*cases))
    got = np.asarray(minijax.jit(ms.nbinom.entropy)(n, p))
    want = [_exact_entropy(st.nbinom.pmf(np.arange(200000), *c)) for c in cases]
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_allclose(got[:1], st.nbinom.entropy(n[:1], p[:1]), rtol=1e-13)
    edge = (np.array([0.0, -1.0, 3.0, 3.0]), np.array([0.5, 0.5, 0.0, 1.5]))
    # (SciPy's vectorised entropy fails when no parameters are valid: all NaN here)
    np.testing.assert_array_equal(np.asarray(ms.nbinom.entropy(*edge)), np.full(4, np.nan))


def test_support_sums_vmap_and_grad():
    k = np.array([0.0, 2.0, 5.0, 9.0])
    a = np.array([0.5, 1.0, 2.0, 3.0])
    per = np.array([float(ms.betabinom.cdf(k[i], 10.0, a[i], 2.0)) for i in range(4)])
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.betabinom.cdf)(k, 10.0 + 0 * k, a, 2.0 + a)),
                               np.asarray(ms.betabinom.cdf(k, 10.0, a, 2.0 + a)), rtol=1e-14)
    np.testing.assert_allclose(per, st.betabinom.cdf(k, 10.0, a, 2.0), rtol=1e-12)
    ents = minijax.vmap(ms.nbinom.entropy)(a, a / 4)
    np.testing.assert_allclose(np.asarray(ents), [float(ms.nbinom.entropy(x, x / 4)) for x in a],
                               rtol=1e-14)
    check_grads(lambda x, y: ms.betabinom.cdf(4.0, 12.0, x, y), (jnp.asarray(1.5), jnp.asarray(0.7)),
                order=1, eps=1e-6, tol=1e-6)
    check_grads(lambda x, y: ms.betabinom.logsf(4.0, 12.0, x, y),
                (jnp.asarray(1.5), jnp.asarray(0.7)), order=1, eps=1e-6, tol=1e-6)
    check_grads(lambda x, y: ms.betabinom.entropy(40.0, x, y), (jnp.asarray(1.5), jnp.asarray(0.7)),
                order=1, eps=1e-6, tol=1e-6)
    check_grads(ms.nbinom.entropy, (jnp.asarray(2.5), jnp.asarray(0.3)), order=1, eps=1e-6,
                tol=1e-6)


# ------------------------------------------------------------------ truncnorm ppf, isf, entropy

TN_Q = np.array([-0.5, 0.0, 1e-300, 1e-12, 0.1, 0.5, 0.75, 1 - 1e-9, 1.0, 1.5, np.nan])
TN_ARGS = [(-1.0, 2.0), (3.0, 8.0), (-np.inf, 0.5, 0.5, 2.0), (-30.0, -20.0), (0.5, np.inf),
           (1.0, 1.0), (2.0, 1.0), (-1.0, 2.0, 0.0, -1.0), (-np.inf, np.inf), (-8.0, -3.0),
           (20.0, 30.0)]


def test_truncnorm_ppf_and_isf():
    jitted = minijax.jit(lambda q: [(ms.truncnorm.ppf(q, *args), ms.truncnorm.isf(q, *args))
                                    for args in TN_ARGS])(TN_Q)
    moderate = (TN_Q >= 0.1) & (TN_Q <= 0.75)
    for args, (ppf_jit, isf_jit) in zip(TN_ARGS, jitted):
        want = st.truncnorm.ppf(TN_Q, *args)
        for got in (ms.truncnorm.ppf(TN_Q, *args), ppf_jit):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-15,
                                       err_msg=f"ppf{args}")
        isf = np.asarray(ms.truncnorm.isf(TN_Q, *args))
        np.testing.assert_allclose(np.asarray(isf_jit), isf, rtol=1e-14, atol=1e-15)
        # SciPy's isf subtracts q's mass from an end's: exact for moderate q only
        np.testing.assert_allclose(isf[moderate], st.truncnorm.isf(TN_Q, *args)[moderate],
                                   rtol=1e-12, atol=1e-15, err_msg=f"isf{args}")
        ends = np.isin(TN_Q, [0.0, 1.0]) | (TN_Q < 0) | (TN_Q > 1) | np.isnan(TN_Q)
        np.testing.assert_array_equal(isf[ends], st.truncnorm.isf(TN_Q, *args)[ends])
        # the small upper tails, by SciPy's (accurate) logsf at the quantile, where the
        # quantile is far enough from b for its last digit not to move the tail's
        with np.errstate(invalid="ignore"):
            small = (TN_Q > 0) & (TN_Q < 1e-6) & (args[1] - isf > 1e-3)
        if small.any():
            np.testing.assert_allclose(st.truncnorm.logsf(isf[small], *args), np.log(TN_Q[small]),
                                       rtol=1e-9)
    # the standard normal's: norm.isf
    np.testing.assert_allclose(np.asarray(ms.truncnorm.isf(TN_Q[2:8], -np.inf, np.inf)),
                               st.norm.isf(TN_Q[2:8]), rtol=1e-14, atol=1e-16)
    q32 = np.float32([0.05, 0.5, 0.9])
    got = ms.truncnorm.ppf(q32, np.float32(-1.0), np.float32(2.0))
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), st.truncnorm.ppf(q32, -1.0, 2.0), rtol=2e-6)
    q = np.array([0.05, 0.3, 0.5, 0.9])
    a = np.array([-2.0, -1.0, 0.5, 3.0])
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.truncnorm.isf)(q, a, a + 2.0)),
                               np.asarray(ms.truncnorm.isf(q, a, a + 2.0)), rtol=1e-15)
    for f in (ms.truncnorm.ppf, ms.truncnorm.isf):
        for args in ((0.3, -1.0, 2.0, 0.5, 1.5), (0.9, 3.0, 8.0), (0.2, -np.inf, 0.5)):
            check_grads(f, tuple(jnp.asarray(v) for v in args), order=1, eps=1e-7, tol=1e-5)


def test_truncnorm_entropy():
    import scipy.integrate   # (only this test integrates)
    # (the oracle: SciPy's density integrated by quad)
    for args in TN_ARGS:
        got = float(ms.truncnorm.entropy(*args))
        if not (args[0] < args[1] and (len(args) < 4 or args[3] > 0)):
            assert np.isnan(got)
            continue
        lo, hi = (max(args[0], -60.0), min(args[1], 60.0))
        integrand = lambda x: -np.exp(st.truncnorm.logpdf(x, lo, hi)) * st.truncnorm.logpdf(x, lo, hi)
        want = scipy.integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
        want += np.log(args[3]) if len(args) == 4 else 0.0
        np.testing.assert_allclose(got, want, rtol=1e-11, err_msg=str(args))
        # SciPy's own: exact where its Φ(b) - Φ(a) is, NaN at an infinite end
        scipys = st.truncnorm.entropy(*args)
        if args in ((-1.0, 2.0), (-8.0, -3.0)):
            np.testing.assert_allclose(got, scipys, rtol=1e-13)
    assert float(minijax.jit(ms.truncnorm.entropy)(-np.inf, np.inf)) == pytest.approx(
        st.norm.entropy(), rel=1e-15)
    check_grads(ms.truncnorm.entropy, (jnp.asarray(-1.0), jnp.asarray(2.0), jnp.asarray(0.3),
                                       jnp.asarray(1.5)), order=1, eps=1e-6)
    a = np.array([-2.0, 0.0, 3.0])
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.truncnorm.entropy)(a, a + 1.0)),
                               [float(ms.truncnorm.entropy(v, v + 1.0)) for v in a], rtol=1e-15)
