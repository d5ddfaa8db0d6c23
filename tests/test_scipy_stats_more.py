"""minijax.scipy.stats' later additions against scipy.stats: rankdata, sem, mode and the
distributions geom, nbinom, betabinom, multinomial, pareto, gumbel_r, gumbel_l, truncnorm,
vonmises, wrapcauchy and gennorm (float64 and float32, eager, jit, vmap, derivatives)."""

import functools
import inspect
import warnings

import numpy as np
import pytest
import scipy.stats as st

import minijax
import minijax.numpy as jnp
import minijax.scipy.stats as ms
from minijax.errors import ConcretizationTypeError
from minijax.test_util import check_grads

X = np.array([-1e4, -50.0, -3.0, -1.0, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 4.0, 2 * np.pi, 6.5,
              40.0, 1e4, np.inf, -np.inf, np.nan])
Q = np.array([-0.5, 0.0, 1e-300, 1e-12, 0.1, 0.5, 0.75, 1 - 1e-9, 1.0, 1.5, np.nan])
K = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 7.0, 30.0, 400.0, np.inf, np.nan])
FINITE_K = K[np.isfinite(K)]

CONTINUOUS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
DISCRETE = ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf")


def _cases(module, fns, x, arg_sets):
    return [(module, fn, x, args) for fn in fns for args in arg_sets]


# (module, function, inputs, parameters): the invalid parameter sets (a shape or scale out
# of range) must give NaN as SciPy does
CASES = (
    _cases("gumbel_r", CONTINUOUS, X, [(0.5, 2.0), (0.0, 1.0), (0.0, -1.0)])
    + _cases("gumbel_l", CONTINUOUS, X, [(0.5, 2.0), (0.0, 1.0), (0.0, 0.0)])
    + _cases("gumbel_r", ("ppf", "isf"), Q, [(0.5, 2.0), (0.0, -1.0)])
    + _cases("gumbel_l", ("ppf", "isf"), Q, [(0.5, 2.0)])
    + _cases("pareto", CONTINUOUS, X, [(2.5,), (0.5, -1.0, 2.0), (0.0,), (-1.0,), (1.0, 0.0, -2.0)])
    + _cases("pareto", ("ppf", "isf"), Q, [(2.5,), (0.5, -1.0, 2.0), (-1.0,)])
    + _cases("gennorm", CONTINUOUS, X, [(2.0,), (0.5,), (1.0,), (8.0, 0.5, 2.0), (0.0,), (-1.0,)])
    + _cases("truncnorm", CONTINUOUS, X, [(-1.0, 2.0), (3.0, 8.0), (-np.inf, 0.5, 0.5, 2.0),
                                          (-30.0, -20.0), (0.5, np.inf), (1.0, 1.0), (2.0, 1.0),
                                          (-1.0, 2.0, 0.0, -1.0)])
    + _cases("vonmises", ("logpdf", "pdf"), X, [(2.0,), (0.0,), (800.0,), (-1.0,), (np.inf,),
                                                (2.0, 0.5, 2.0)])
    + _cases("wrapcauchy", ("logpdf", "pdf"), X, [(0.5,), (0.99,), (0.3, 0.5, 2.0), (0.0,),
                                                  (1.0,), (-0.2,)])
    + _cases("geom", DISCRETE, K, [(0.3,), (1.0,), (1e-3, 2.0)])
    + _cases("geom", DISCRETE, FINITE_K, [(0.0,), (1.5,)])   # (SciPy: 0 at k = inf even then)
    + _cases("geom", ("ppf",), Q, [(0.3,), (1e-3, 2.0), (0.999,), (0.0,)])
    + _cases("nbinom", DISCRETE, K, [(3.0, 0.3), (2.5, 1.0), (0.4, 0.05, 1.0)])
    + _cases("nbinom", DISCRETE, FINITE_K, [(0.0, 0.5), (3.0, 0.0), (-1.0, 0.5)])
    + _cases("betabinom", ("logpmf", "pmf"), K, [(10.0, 2.0, 3.0), (10.0, 0.5, 0.7, 1.0),
                                                 (0.0, 1.0, 1.0), (2.5, 1.0, 1.0),
                                                 (5.0, 0.0, 1.0), (5.0, 1.0, -1.0),
                                                 (-1.0, 1.0, 1.0), (400.0, 30.0, 0.5)])
)
# quantiles found by iteration: compiled in their own test
ITERATIVE = {("gennorm", "ppf"), ("gennorm", "isf"), ("nbinom", "ppf")}
CASES += (_cases("gennorm", ("ppf", "isf"), Q, [(2.0,), (0.5,), (8.0, 0.5, 2.0), (-1.0,)])
          + _cases("nbinom", ("ppf",), Q, [(3.0, 0.3), (0.4, 0.05, 1.0), (2.5, 1.0), (0.0, 0.5)]))


def _scipy(module, fn, x, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(getattr(st, module), fn)(x, *args)


def _tolerance(fn, dtype):
    if dtype == np.float32:
        return {"rtol": 2e-4, "atol": 2e-5 if fn.startswith("log") else 1e-30}
    return {"rtol": 1e-12, "atol": 1e-14 if fn.startswith("log") else 1e-300}


@functools.cache
def _jitted(module):
    """{case index: value under jit} for one module's non-iterative cases, all from one
    compiled program."""
    indices = [i for i, c in enumerate(CASES) if c[0] == module and c[:2] not in ITERATIVE]

    def values(*xs):
        return [getattr(getattr(ms, module), CASES[i][1])(x, *CASES[i][3])
                for i, x in zip(indices, xs)]
    outs = minijax.jit(values)(*[jnp.asarray(CASES[i][2]) for i in indices])
    return dict(zip(indices, outs))


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{c[0]}.{c[1]}{c[3]}" for c in CASES])
def test_values_match_scipy(index):
    module, fn, x, args = CASES[index]
    expected = _scipy(module, fn, x, args)
    got = getattr(getattr(ms, module), fn)(x, *args)
    assert got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), expected, **_tolerance(fn, np.float64))
    if (module, fn) not in ITERATIVE:
        np.testing.assert_allclose(np.asarray(_jitted(module)[index]), expected,
                                   **_tolerance(fn, np.float64))


def test_float32_keeps_its_dtype_and_scipys_values():
    # SciPy computes in float64 and returns it; minijax keeps float32 (as JAX does), with
    # SciPy's values at the float32 inputs to float32's precision
    for module, fn, x, args in CASES:
        if args and not np.all(np.isfinite(args)):
            continue
        # (float32's 2π lies past float64's: wrapcauchy's support ends between them)
        x32 = x[x != 2 * np.pi].astype(np.float32)
        args32 = tuple(np.float32(a) for a in args)
        got = getattr(getattr(ms, module), fn)(x32, *args32)
        assert got.dtype == np.float32, (module, fn)
        expected = _scipy(module, fn, x32.astype(np.float64), [float(a) for a in args32])
        # float32's range: compare where SciPy's value is a float32 number (and a log's
        # probability is one)
        keep = ~np.isfinite(expected) | ((np.abs(expected) < 3e38) & (np.abs(expected) > 1e-30)
                                         | (expected == 0))
        if fn.startswith("log"):
            keep &= ~(expected < -80.0)
        np.testing.assert_allclose(np.asarray(got)[keep], expected[keep],
                                   err_msg=f"{module}.{fn}{args}", **_tolerance(fn, np.float32))


@pytest.mark.parametrize("module,fn,args", [("gennorm", "ppf", (0.7, 0.5, 2.0)),
                                            ("gennorm", "isf", (3.0,)),
                                            ("nbinom", "ppf", (4.0, 0.3)),
                                            ("geom", "ppf", (0.2, 1.0))])
def test_quantiles_jit_vmap_and_eager_agree(module, fn, args):
    f = getattr(getattr(ms, module), fn)
    q = np.array([1e-20, 0.05, 0.3, 0.5, 0.8, 1 - 1e-10])
    eager = np.asarray(f(q, *args))
    np.testing.assert_allclose(eager, _scipy(module, fn, q, args), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(minijax.jit(f)(q, *args)), eager, rtol=1e-14)
    shapes = np.linspace(1.0, 3.0, q.size) * args[0]
    batched = minijax.vmap(lambda v, s: f(v, s, *args[1:]))(jnp.asarray(q), jnp.asarray(shapes))
    np.testing.assert_allclose(np.asarray(batched), np.asarray(f(q, shapes, *args[1:])),
                               rtol=1e-14)
    np.testing.assert_allclose(np.asarray(batched), _scipy(module, fn, q, (shapes,) + args[1:]),
                               rtol=1e-12)


@pytest.mark.parametrize("module,args", [("geom", (0.3,)), ("geom", (0.01, 2.0)),
                                         ("geom", (1.0,)), ("nbinom", (3.0, 0.3)),
                                         ("nbinom", (0.3, 0.02, -1.0))])
def test_discrete_ppf_is_the_smallest_k_reaching_q(module, args):
    # (SciPy's geom.ppf gives 0 for p = 1, a k whose cdf is 0: checked by definition here)
    dist = getattr(ms, module)
    q = np.random.default_rng(3).uniform(size=200)
    k = np.asarray(dist.ppf(q, *args))
    assert np.all(np.asarray(dist.cdf(k, *args)) >= q)
    assert np.all(np.asarray(dist.cdf(k - 1, *args)) < q)
    assert float(minijax.grad(lambda v: dist.ppf(v, *args))(0.3)) == 0.0


def test_vmap_matches_per_example():
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 5.0, 6)
    p = rng.uniform(0.1, 2.0, 6)
    calls = [(ms.gumbel_r.logcdf, (x, p - 1.0, p)), (ms.gumbel_l.sf, (x, p, p)),
             (ms.pareto.logpdf, (x, p, -0.5, 0.5)), (ms.gennorm.cdf, (x - 2.0, p)),
             (ms.truncnorm.logsf, (x - 2.0, -p, p)), (ms.vonmises.logpdf, (x, p)),
             (ms.wrapcauchy.logpdf, (x, p / 2.1)), (ms.geom.logsf, (np.floor(x), p / 2.1)),
             (ms.nbinom.cdf, (np.floor(x), p, p / 2.1)),
             (ms.betabinom.logpmf, (np.floor(x), 6.0 + 0 * p, p, p + 1.0))]
    for f, args in calls:
        args = tuple(np.broadcast_to(a, x.shape) for a in args)
        per = np.array([float(f(*(a[i] for a in args))) for i in range(x.size)])
        np.testing.assert_allclose(np.asarray(minijax.vmap(f)(*args)), per, rtol=1e-14,
                                   err_msg=f.__module__)


GRAD_CASES = [
    ("gumbel_r", "logpdf", (1.3, 0.5, 2.0)), ("gumbel_r", "logsf", (4.0, 0.5, 2.0)),
    ("gumbel_r", "isf", (0.2, 0.5, 2.0)), ("gumbel_l", "logcdf", (-1.3, 0.5, 2.0)),
    ("gumbel_l", "ppf", (0.7, 0.5, 2.0)), ("pareto", "logpdf", (3.0, 2.5, 0.5, 1.5)),
    ("pareto", "logcdf", (3.0, 2.5, 0.5, 1.5)), ("pareto", "ppf", (0.4, 2.5, 0.5, 1.5)),
    ("gennorm", "logpdf", (0.7, 1.5, 0.2, 2.0)), ("gennorm", "cdf", (0.7, 1.5, 0.2, 2.0)),
    ("gennorm", "logsf", (3.0, 2.5)), ("gennorm", "ppf", (0.2, 1.5, 0.3, 2.0)),
    ("truncnorm", "logpdf", (0.5, -1.0, 2.0, 0.1, 1.5)),
    ("truncnorm", "logcdf", (0.5, -1.0, 2.0, 0.1, 1.5)),
    ("truncnorm", "sf", (4.0, 3.0, 8.0)), ("vonmises", "logpdf", (0.7, 2.0, 0.1, 1.2)),
    ("wrapcauchy", "logpdf", (1.1, 0.4, 0.2, 1.5)),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[f"{c[0]}.{c[1]}{c[2]}" for c in GRAD_CASES])
def test_gradients_match_finite_differences(case):
    module, fn, args = case
    f = getattr(getattr(ms, module), fn)
    check_grads(f, tuple(jnp.asarray(a) for a in args), order=1, eps=1e-6, tol=1e-5)


def test_discrete_gradients_in_the_parameters():
    check_grads(lambda p: ms.geom.logpmf(3.0, p), (jnp.asarray(0.3),), order=2, eps=1e-6)
    check_grads(lambda p: ms.geom.logcdf(3.0, p), (jnp.asarray(0.3),), order=1, eps=1e-6)
    check_grads(lambda n, p: ms.nbinom.logpmf(4.0, n, p), (jnp.asarray(2.5), jnp.asarray(0.3)),
                order=2, eps=1e-6)
    check_grads(lambda n, p: ms.nbinom.cdf(4.0, n, p), (jnp.asarray(2.5), jnp.asarray(0.3)),
                order=1, eps=1e-6, tol=1e-5)
    check_grads(lambda a, b: ms.betabinom.logpmf(3.0, 8.0, a, b),
                (jnp.asarray(1.5), jnp.asarray(0.7)), order=2, eps=1e-6)
    # along p's that sum to 1 (off them, SciPy's adjustment of the last entry applies)
    check_grads(lambda v: ms.multinomial.logpmf(jnp.asarray([2.0, 1.0, 3.0]), 6.0,
                                                minijax.nn.softmax(v)),
                (jnp.asarray([0.2, 0.3, 0.5]),), order=2, eps=1e-6)


ENTROPIES = [("gumbel_r", ((0.5, 2.0), (0.0, -1.0))), ("gumbel_l", ((0.5, 2.0),)),
             ("pareto", ((2.5,), (0.5, 0.0, 3.0), (2.0, 0.0, -1.0))),
             ("gennorm", ((2.0,), (0.3, 0.0, 2.0), (-1.0,))),
             ("vonmises", ((2.0,), (0.0,), (700.0, 0.0, 2.0), (-1.0,))),
             ("wrapcauchy", ((0.3,), (0.999, 0.0, 2.0), (1.0,))),
             ("geom", ((0.3,), (1.0,), (1e-4,), (0.0,)))]


@pytest.mark.parametrize("module,arg_sets", ENTROPIES, ids=[e[0] for e in ENTROPIES])
def test_entropy_is_scipys(module, arg_sets):
    f = getattr(ms, module).entropy
    for args in arg_sets:
        want = _scipy(module, "entropy", *args[:1], args[1:]) if args else None
        for got in (f(*args), minijax.jit(f)(*args)):
            np.testing.assert_allclose(float(got), want, rtol=1e-12, err_msg=f"{module}{args}")
    check_grads(f, tuple(jnp.asarray(a) for a in arg_sets[0]), order=1, eps=1e-6)


def test_multinomial_matches_scipy():
    p = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.7], [0.0, 0.5, 0.5], [0.5, 0.7, -0.2],
                  [-0.1, 0.6, 0.5]])
    x = np.array([[2.0, 1.0, 3.0], [0.0, 0.0, 6.0], [1.0, 2.0, 3.0], [-1.0, 4.0, 3.0],
                  [2.5, 1.0, 3.0]])
    n = np.array([6.0, 6.0, 6.5, 7.0, 6.0])
    rows = [(x[i], n[i], p[j]) for i in range(len(x)) for j in range(len(p))]
    xs, ns, ps = (np.array(c) for c in zip(*rows))
    for fn in ("logpmf", "pmf"):
        want = np.array([_scipy("multinomial", fn, a, (b, c)) for a, b, c in rows])
        got = getattr(ms.multinomial, fn)(xs, ns, ps)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(np.asarray(minijax.jit(getattr(ms.multinomial, fn))(xs, ns, ps)),
                                   want, rtol=1e-12, atol=1e-300)
        # SciPy's broadcasting of the counts against one p
        np.testing.assert_allclose(np.asarray(getattr(ms.multinomial, fn)(x, 6.0, p[0])),
                                   _scipy("multinomial", fn, x, (6.0, p[0])), rtol=1e-12)
    with pytest.raises(ValueError, match="size of p"):
        ms.multinomial.logpmf(x[:, :2], 6.0, p[0])


# ------------------------------------------------------------------ rankdata, sem, mode

def _data():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, (4, 7)).astype(float)
    a[1, 2] = a[3, 0] = a[3, 5] = np.nan
    a[0, 1] = np.inf
    return a


INTS = np.random.default_rng(6).integers(-3, 3, (4, 7))


def _equal(got, want):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
def test_rankdata_matches_scipy(nan_policy):
    a = _data()
    for data in (a, a[:2], np.float32(a), INTS, a[0, :1], np.zeros((3, 0))):
        for axis in (None,) + tuple(range(-1, np.ndim(data))):
            for method in ("average", "min", "max", "dense", "ordinal"):
                want = st.rankdata(data, method, axis=axis, nan_policy=nan_policy)
                _equal(ms.rankdata(data, method, axis=axis, nan_policy=nan_policy), want)
    for method in ("average", "min", "ordinal"):
        _equal(ms.rankdata(3.0, method), st.rankdata(3.0, method))
    # jit: the ranks of every method (integer ranks of an integer array), in one program
    ints = INTS

    def ranks(f, i):
        return ([ms.rankdata(f, "average", axis=ax, nan_policy=nan_policy) for ax in (None, 1)]
                + [ms.rankdata(i, m, axis=0, nan_policy=nan_policy)
                   for m in ("min", "max", "dense", "ordinal")])
    for got, want in zip(minijax.jit(ranks)(a, ints), ranks(a, ints)):
        _equal(got, np.asarray(want))
    rows = minijax.vmap(lambda r: ms.rankdata(r, nan_policy=nan_policy))(a)
    _equal(rows, st.rankdata(a, axis=1, nan_policy=nan_policy))


def test_rankdata_errors():
    a = _data()
    with pytest.raises(ValueError, match="unknown method 'best'"):
        ms.rankdata(a, "best")
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        ms.rankdata(a, nan_policy="ignore")
    with pytest.raises(ValueError, match="contains nan"):
        ms.rankdata(a, nan_policy="raise")
    _equal(ms.rankdata(a[0], nan_policy="raise"), st.rankdata(a[0], nan_policy="raise"))
    # SciPy's dtype of integer ranks depends on whether a NaN is ranked: under jit it is
    # float64, as JAX's
    for method in ("min", "max", "dense", "ordinal"):
        traced = minijax.jit(lambda v: ms.rankdata(v, method))(a)
        want = st.rankdata(a, method)
        assert traced.dtype == np.float64
        np.testing.assert_array_equal(np.asarray(traced), want)
        clean = np.nan_to_num(a)
        np.testing.assert_array_equal(
            np.asarray(minijax.jit(lambda v: ms.rankdata(v, method))(clean)),
            st.rankdata(clean, method))
    with pytest.raises(ConcretizationTypeError, match="nan_policy='raise'"):
        minijax.jit(lambda v: ms.rankdata(v, nan_policy="raise"))(a)


@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
def test_sem_matches_scipy(nan_policy):
    a = _data()
    a[0, 1] = 2.0   # (a deviation with an inf is NaN either way)
    for data in (a, np.float32(a), INTS, np.zeros((0, 3)), 4.0):
        for axis in (None, 0, 1) if np.ndim(data) == 2 else (None, 0):
            for ddof in (0, 1, 3):
                for keepdims in (False, True):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = st.sem(data, axis=axis, ddof=ddof, nan_policy=nan_policy,
                                      keepdims=keepdims)
                    got = ms.sem(data, axis=axis, ddof=ddof, nan_policy=nan_policy,
                                 keepdims=keepdims)
                    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
                    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if
                                               got.dtype == np.float32 else 1e-13)
    jitted = minijax.jit(lambda v: ms.sem(v, axis=1, nan_policy=nan_policy, keepdims=True))(a)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(
        ms.sem(a, axis=1, nan_policy=nan_policy, keepdims=True)), rtol=1e-14)
    rows = minijax.vmap(lambda r: ms.sem(r, nan_policy=nan_policy))(a)
    np.testing.assert_allclose(np.asarray(rows), np.asarray(
        ms.sem(a, axis=1, nan_policy=nan_policy)), rtol=1e-14)
    check_grads(lambda v: ms.sem(v, axis=1, nan_policy=nan_policy),
                (jnp.asarray(np.nan_to_num(a) + np.arange(7) * 0.1),), order=2)
    with pytest.raises(ValueError, match="contains nan"):
        ms.sem(_data(), nan_policy="raise")


@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
def test_mode_matches_scipy(nan_policy):
    a = _data()
    cases = [(a, ax) for ax in (None, 0, 1, -1)] + [(np.float32(a), 0), (INTS, 1),
                                                     (INTS.astype(np.int8), None), (5.0, 0),
                                                     (np.zeros((0, 3)), 0), (np.zeros((2, 0)), 1),
                                                     (np.zeros((0, 3)), None)]
    for data, axis in cases:
        for keepdims in (False, True):
            got = ms.mode(data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # SciPy's SmallSampleWarning of empty slices
                want = st.mode(data, axis=axis, nan_policy=nan_policy, keepdims=keepdims)
            assert type(got).__name__ == "ModeResult"
            if nan_policy == "omit" and np.ndim(data) > 1 and np.isnan(data).any():
                # SciPy's mode of such slices is float64, whatever the input's dtype
                want = want._replace(mode=np.asarray(want.mode, got.mode.dtype))
            _equal(got.mode, want.mode)
            # (SciPy's counts are float64 where nan_policy='omit' drops a NaN of an n-d
            # array, int64 elsewhere: the values are compared, minijax's are int64)
            np.testing.assert_array_equal(np.asarray(got.count), want.count)
            assert got.count.shape == np.shape(want.count)
    jitted = minijax.jit(lambda v: ms.mode(v, axis=1, nan_policy=nan_policy))(a)
    eager = ms.mode(a, axis=1, nan_policy=nan_policy)
    _equal(jitted.mode, np.asarray(eager.mode))
    _equal(jitted.count, np.asarray(eager.count))
    rows = minijax.vmap(lambda r: ms.mode(r, nan_policy=nan_policy))(a)
    _equal(rows.mode, np.asarray(eager.mode))
    with pytest.raises(ValueError, match="contains nan"):
        ms.mode(a, nan_policy="raise")
    with pytest.raises(TypeError, match="numeric"):
        ms.mode(np.array([True, False]))


# ------------------------------------------------------------------ JAX's API

NEW_MODULES = ("geom", "nbinom", "betabinom", "multinomial", "pareto", "gumbel_r", "gumbel_l",
               "truncnorm", "vonmises", "wrapcauchy", "gennorm")


def _parameters(fn):
    return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]


def test_signatures_take_jaxs_parameters():
    jstats = pytest.importorskip("jax.scipy.stats")
    for name in NEW_MODULES:
        ours, theirs = getattr(ms, name), getattr(jstats, name)
        public = [f for f in dir(theirs) if not f.startswith("_")
                  and inspect.isfunction(getattr(theirs, f))
                  and getattr(theirs, f).__module__.startswith("jax._src.scipy.stats")]
        for f in public:
            mine, jaxs = _parameters(getattr(ours, f)), _parameters(getattr(theirs, f))
            # JAX's parameters, in order, with their defaults; SciPy's loc/scale may follow
            assert mine[:len(jaxs)] == jaxs, (name, f)
            assert all(p[0] in ("loc", "scale") for p in mine[len(jaxs):]), (name, f)
    for f in ("rankdata", "sem", "mode"):
        assert _parameters(getattr(ms, f)) == _parameters(getattr(jstats, f)), f
        assert _parameters(getattr(ms, f)) == _parameters(getattr(st, f)), f


def test_new_distributions_are_registered():
    for name in NEW_MODULES + ("rankdata", "sem", "mode"):
        assert name in ms.__all__
    # eager calls do not raise NumPy's floating-point warnings (the unused where branches)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.gumbel_r.logpdf(X)
        ms.pareto.logcdf(X, 0.0)
        ms.nbinom.logpmf(K, -1.0, 0.5)
        ms.sem(_data(), axis=1, nan_policy="omit")
