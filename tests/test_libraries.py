"""Other libraries calling into minijax through the Array API: array-api-compat's
``array_namespace``, array-api-extra's functions (eagerly and under ``jit``), SciPy's
array-API-aware functions and scikit-learn with ``array_api_dispatch=True``.

SciPy and scikit-learn read ``SCIPY_ARRAY_API=1`` when they are first imported, so their
checks run in a subprocess (tests/test_coexistence.py covers the plain NumPy path)."""

import json
import os
import subprocess
import sys
import textwrap

import array_api_compat
import array_api_extra as xpx
import numpy as np
import pytest
from conftest import package_version

import minijax
import minijax.numpy as mnp

RNG = np.random.default_rng(0)
A = RNG.normal(size=(6, 3))


def _compare(actual, expected, rtol=1e-10):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-12, equal_nan=True)


# ---------------------------------------------------------------- array-api-compat

def test_array_namespace_of_arrays_and_tracers():
    x = mnp.asarray(A)
    assert array_api_compat.array_namespace(x) is mnp
    assert array_api_compat.array_namespace(x, 1.0, 2) is mnp
    assert array_api_compat.is_array_api_obj(x)
    assert array_api_compat.device(x) == x.device
    assert array_api_compat.size(x) == 18
    seen = []

    def f(t):
        seen.append((array_api_compat.array_namespace(t), array_api_compat.device(t),
                     array_api_compat.size(t), array_api_compat.is_array_api_obj(t)))
        return array_api_compat.to_device(t, array_api_compat.device(t)) * 2

    for transform in (minijax.jit, minijax.vmap):
        _compare(transform(f)(x), A * 2)
    minijax.grad(lambda t: mnp.sum(f(t)))(x)
    for ns, dev, size, is_obj in seen:
        assert ns is mnp and dev == x.device and is_obj
    assert [s[2] for s in seen] == [18, 3, 18]


# ---------------------------------------------------------------- array-api-extra

def _at_set(xp, a):
    return xpx.at(a)[1:, 0].set(7.0)


# name -> f(xp, a) for an (6, 3) float64 array; run on NumPy and on minijax.numpy.
EXTRA = {
    "at set": _at_set,
    "at add mask": lambda xp, a: xpx.at(a)[a > 0].add(1.0),
    "at multiply": lambda xp, a: xpx.at(a, (0, 1)).multiply(3.0),
    "at min copy": lambda xp, a: xpx.at(a, (slice(None), 0)).min(0.0, copy=True),
    "apply_where": lambda xp, a: xpx.apply_where(a > 0, a, xp.sqrt, fill_value=-1.0),
    "apply_where two": lambda xp, a: xpx.apply_where(a > 0, (a, a * 2), lambda u, v: u + v,
                                                     lambda u, v: u - v),
    "atleast_nd": lambda xp, a: xpx.atleast_nd(a[0], ndim=3),
    "cov": lambda xp, a: xpx.cov(a),
    "create_diagonal": lambda xp, a: xpx.create_diagonal(a[0], offset=1),
    "isclose": lambda xp, a: xpx.isclose(a, a + 1e-9),
    "kron": lambda xp, a: xpx.kron(a, a[:2, :2]),
    "nan_to_num": lambda xp, a: xpx.nan_to_num(xp.where(a > 0, a, xp.nan), fill_value=-5.0),
    "nunique": lambda xp, a: xpx.nunique(xp.round(a)),
    "one_hot": lambda xp, a: xpx.one_hot(xp.asarray([0, 2, 1, 2]), 3),
    "pad": lambda xp, a: xpx.pad(a, 2, constant_values=1.0),
    "partition": lambda xp, a: xpx.partition(a, 2, axis=0)[2],
    "argpartition": lambda xp, a: xp.take_along_axis(a, xpx.argpartition(a, 2, axis=0),
                                                      axis=0)[2],
    "searchsorted": lambda xp, a: xpx.searchsorted(xp.sort(a[:, 0]), a[:, 1]),
    "nanmean": lambda xp, a: xpx.nanmean(xp.where(a > 0, a, xp.nan), axis=0),
    "nansum": lambda xp, a: xpx.nansum(xp.where(a > 0, a, xp.nan)),
    "unravel_index": lambda xp, a: xpx.unravel_index(xp.asarray([5, 7]), (3, 4))[1],
    "deg2rad": lambda xp, a: xpx.deg2rad(a),
    "angle": lambda xp, a: xpx.angle(a + 1j),
    "default_dtype": lambda xp, a: xp.zeros(2, dtype=xpx.default_dtype(xp)),
    "lazy_apply": lambda xp, a: xpx.lazy_apply(lambda u: np.sort(np.asarray(u), axis=0), a,
                                               shape=a.shape, dtype=a.dtype),
    # need the Array API's `bool` dtype name (built by another change)
    "sinc": lambda xp, a: xpx.sinc(a),
    "isin": lambda xp, a: xpx.isin(xp.asarray([1, 2, 3, 4]), xp.asarray([2, 5])),
    "setdiff1d": lambda xp, a: xpx.setdiff1d(xp.asarray([1, 2, 3, 4]), xp.asarray([2, 4])),
    "union1d": lambda xp, a: xpx.union1d(xp.asarray([4, 2, 3, 1]), xp.asarray([2, 5])),
    "nanmax": lambda xp, a: xpx.nanmax(xp.where(a > 0, a, xp.nan), axis=0),
}

# Not under jit: the output size depends on the values (setdiff1d, union1d); the
# backend-agnostic code branches on a value (nanmax: `if xp.any(mask)`); lazy_apply
# calls NumPy on the host (array-api-extra uses a callback only for JAX).
NOT_JITTABLE = {"setdiff1d", "union1d", "nanmax", "lazy_apply"}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_array_api_extra_eager(name):
    fn = EXTRA[name]
    expected = fn(np, A.copy())
    actual = fn(mnp, mnp.asarray(A))
    assert isinstance(actual, minijax.Array)
    _compare(actual, expected)


@pytest.mark.parametrize("name", sorted(set(EXTRA) - NOT_JITTABLE))
def test_array_api_extra_under_jit(name):
    fn = EXTRA[name]
    expected = fn(np, A.copy())
    _compare(minijax.jit(lambda a: fn(mnp, a))(A), expected)


@pytest.mark.parametrize("op", ["set", "add", "subtract", "multiply", "divide", "power",
                                "min", "max"])
@pytest.mark.parametrize("x_ndim", [0, 1])
def test_array_api_extra_at_with_a_boolean_mask_under_jit(op, x_ndim):
    # array-api-extra's own test_update_ops: for arrays it does not know, at[mask].<op>
    # is ``x[mask] = op(x[mask], y)`` (a traced mask under jit)
    def call(xp, x, m):
        return getattr(xpx.at(x, m), op)(2.0, copy=True)

    x = np.array([10.0, 20.0, 30.0]) if x_ndim else np.float64(20.0)
    m = np.array([False, True, True]) if x_ndim else np.bool_(True)
    expected = call(np, x.copy(), m)
    _compare(minijax.jit(lambda a, b: call(mnp, a, b))(x, m), expected)


def test_array_api_extra_at_under_jit_updates_the_input_as_eagerly():
    # xpx.at on a writeable array updates it in place (copy=None or False) as on NumPy;
    # jit writes the update back into the argument, so both runs leave x the same
    for kwargs in ({}, {"copy": False}):
        want = A.copy()
        xpx.at(want)[0].set(1.0, **kwargs)
        eager = mnp.asarray(A.copy())
        xpx.at(eager)[0].set(1.0, **kwargs)
        x = mnp.asarray(A.copy())
        y = minijax.jit(lambda a: xpx.at(a)[0].set(1.0, **kwargs))(x)
        _compare(eager, want)
        _compare(x, want)
        _compare(y, want)
    x = mnp.asarray(A.copy())
    y = minijax.jit(lambda a: xpx.at(a)[0].set(1.0, copy=True))(x)
    _compare(x, A)
    _compare(np.asarray(y)[0], np.ones(3))


def test_array_api_extra_under_grad_and_vmap():
    g = minijax.grad(lambda a: mnp.sum(xpx.cov(a) ** 2) + mnp.sum(xpx.kron(a, a[:1])))(A)
    eps = 1e-6
    num = np.zeros_like(A)
    f = lambda a: np.sum(xpx.cov(a) ** 2) + np.sum(xpx.kron(a, a[:1]))  # noqa: E731
    for idx in np.ndindex(A.shape):
        d = np.zeros_like(A)
        d[idx] = eps
        num[idx] = (f(A + d) - f(A - d)) / (2 * eps)
    _compare(g, num, rtol=1e-6)
    out = minijax.vmap(lambda r: xpx.pad(xpx.atleast_nd(r, ndim=2), 1))(A)
    _compare(out, np.stack([np.pad(r[None], 1) for r in A]))


# ---------------------------------------------------------------- SciPy and scikit-learn

def _run(code):
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-4000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


SCIPY_CASES = """
import json, warnings
import numpy as onp
import scipy.signal, scipy.special, scipy.stats
import minijax, minijax.numpy as mnp
warnings.simplefilter("ignore")
A = onp.random.default_rng(0).normal(size=(6, 3))
P = abs(A) + 0.5
CASES = {
    "stats.moment": lambda a, p: scipy.stats.moment(a, order=3, axis=0),
    "stats.skew": lambda a, p: scipy.stats.skew(a, axis=0),
    "stats.kurtosis": lambda a, p: scipy.stats.kurtosis(a, axis=0),
    "stats.variation": lambda a, p: scipy.stats.variation(p, axis=0),
    "stats.gmean": lambda a, p: scipy.stats.gmean(p, axis=0),
    "stats.hmean": lambda a, p: scipy.stats.hmean(p, axis=0),
    "stats.sem": lambda a, p: scipy.stats.sem(a, axis=0),
    "stats.zscore": lambda a, p: scipy.stats.zscore(a, axis=0),
    "stats.entropy": lambda a, p: scipy.stats.entropy(p, axis=0),
    "stats.pearsonr": lambda a, p: scipy.stats.pearsonr(a[:, 0], a[:, 1]).statistic,
    "stats.differential_entropy": lambda a, p: scipy.stats.differential_entropy(a[:, 0]),
    "special.logsumexp": lambda a, p: scipy.special.logsumexp(a, axis=0),
    "special.softmax": lambda a, p: scipy.special.softmax(a, axis=1),
    "special.log_softmax": lambda a, p: scipy.special.log_softmax(a, axis=1),
    "special.erf": lambda a, p: scipy.special.erf(a),
    "special.expit": lambda a, p: scipy.special.expit(a),
    "special.entr": lambda a, p: scipy.special.entr(p),
    "signal.convolve": lambda a, p: scipy.signal.convolve(a[:, 0], a[:3, 1]),
    "signal.detrend": lambda a, p: scipy.signal.detrend(a, axis=0),
}
"""


def _scipy(mode, names):
    return _run(SCIPY_CASES + f"""
names, mode = {names!r}, {mode!r}
res = {{}}
for name in names:
    try:
        fn = CASES[name]
        want = onp.asarray(fn(A, P))
        if mode == "eager":
            got = fn(mnp.asarray(A), mnp.asarray(P))
            ok = type(got) is mnp.ndarray and got.dtype == want.dtype
        elif mode == "jit":
            got = minijax.jit(fn)(A, P)
            ok = True
        else:   # grad of the sum against central differences of SciPy on NumPy
            got = minijax.grad(lambda a, p: mnp.sum(fn(a, p)), argnums=(0, 1))(A, P)
            got = onp.concatenate([onp.ravel(g) for g in got])
            num = []
            for k, base in enumerate((A, P)):
                for i in onp.ndindex(base.shape):
                    d = onp.zeros_like(base); d[i] = 1e-6
                    args = [A, P]
                    args[k] = base + d; up = onp.sum(fn(*args))
                    args[k] = base - d; down = onp.sum(fn(*args))
                    num.append((up - down) / 2e-6)
            want = onp.array(num)
            ok = True
        got = onp.asarray(got)
        ok = ok and got.shape == want.shape and bool(onp.allclose(got, want, rtol=1e-5,
                                                                  atol=1e-7))
    except Exception as e:   # (each case reports its own failure)
        ok = type(e).__name__ + ": " + str(e)[:300]
    res[name] = ok
print(json.dumps(res))
""")


SCIPY_EAGER = ["stats.moment", "stats.skew", "stats.kurtosis", "stats.variation",
               "stats.gmean", "stats.hmean", "stats.sem", "stats.zscore", "stats.entropy",
               "stats.pearsonr", "stats.differential_entropy", "special.logsumexp",
               "special.softmax", "special.log_softmax", "special.erf", "special.expit",
               "special.entr", "signal.convolve", "signal.detrend"]
# SciPy runs its compiled kernels (special functions, signal) on NumPy for backends it
# does not know, so those are eager-only; these are written in Array API calls.
SCIPY_TRACEABLE = ["stats.moment", "stats.skew", "stats.kurtosis", "stats.variation",
                   "stats.gmean", "stats.sem", "stats.differential_entropy",
                   "special.softmax"]


def test_scipy_array_api_functions_eagerly_return_minijax_arrays():
    res = _scipy("eager", SCIPY_EAGER)
    assert all(v is True for v in res.values()), {k: v for k, v in res.items() if v is not True}


def test_scipy_array_api_functions_under_grad():
    res = _scipy("grad", SCIPY_TRACEABLE + ["special.logsumexp", "stats.zscore",
                                            "stats.hmean"])
    assert all(v is True for v in res.values()), {k: v for k, v in res.items() if v is not True}


def test_scipy_array_api_functions_under_jit():
    names = [n for n in SCIPY_TRACEABLE if n != "stats.moment"]
    if package_version("scipy") >= (1, 18):
        # SciPy 1.18's nan_policy wrapper asks Python whether the input holds NaN
        # (`any(contains_nan)`) for every namespace but JAX's: no traced value can answer
        names.remove("stats.differential_entropy")
    res = _scipy("jit", names)
    assert all(v is True for v in res.values()), {k: v for k, v in res.items() if v is not True}


def test_scipy_functions_that_write_through_boolean_masks_under_jit():
    # logsumexp, log_softmax and zscore set x[mask] = scalar (array-api-extra's `at` on
    # an unknown backend): a where under jit, with no data-dependent shape
    res = _scipy("jit", ["special.logsumexp", "special.log_softmax", "stats.zscore"])
    assert all(v is True for v in res.values()), {k: v for k, v in res.items() if v is not True}


SKLEARN_PRELUDE = """
import json, warnings
import numpy as onp
import sklearn
import minijax.numpy as mnp
warnings.simplefilter("ignore")
rng = onp.random.default_rng(0)
X = rng.normal(size=(80, 4)) + onp.repeat(onp.eye(4)[:2] * 3, 40, axis=0)
labels = onp.array([7, 2, 5])[rng.integers(0, 3, 80)]
y = X @ onp.array([1.0, -2.0, 0.5, 3.0]) + 0.1 * rng.normal(size=80)
res = {}
def same(name, got, want, rtol=1e-7):
    got = onp.asarray(got); want = onp.asarray(want)
    res[name] = bool(got.shape == want.shape and got.dtype == want.dtype and
                     onp.allclose(got, want, rtol=rtol, atol=1e-9))
"""


def test_sklearn_estimators_on_minijax_arrays():
    res = _run(SKLEARN_PRELUDE + """
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge
from sklearn.preprocessing import MinMaxScaler, StandardScaler
with sklearn.config_context(array_api_dispatch=True):
    lda_m = LinearDiscriminantAnalysis().fit(mnp.asarray(X), mnp.asarray(labels))
    lda_n = LinearDiscriminantAnalysis().fit(X, labels)
    same("lda classes_", lda_m.classes_, lda_n.classes_)
    same("lda predict", lda_m.predict(mnp.asarray(X)), lda_n.predict(X))
    same("lda transform", abs(onp.asarray(lda_m.transform(mnp.asarray(X)))),
         abs(lda_n.transform(X)), rtol=1e-6)
    same("pca", abs(onp.asarray(PCA(2).fit_transform(mnp.asarray(X)))),
         abs(PCA(2).fit_transform(X)))
    same("ridge", Ridge(alpha=0.5, solver="svd").fit(mnp.asarray(X), mnp.asarray(y)).coef_,
         Ridge(alpha=0.5, solver="svd").fit(X, y).coef_)
    same("standard scaler", StandardScaler().fit_transform(mnp.asarray(X)),
         StandardScaler().fit_transform(X))
    same("min-max scaler", MinMaxScaler().fit_transform(mnp.asarray(X)),
         MinMaxScaler().fit_transform(X))
    res["types"] = type(lda_m.predict(mnp.asarray(X))).__name__ == "Array"
print(json.dumps(res))
""")
    assert all(v is True for v in res.values()), {k: v for k, v in res.items() if v is not True}


def test_sklearn_label_encoder_on_minijax_arrays():
    # LabelEncoder's classes_ come from the unique family: they must be sorted as NumPy's
    res = _run(SKLEARN_PRELUDE + """
from sklearn.preprocessing import LabelEncoder
labels = onp.array([7, 2, 5, 11, 3, 9, 1, 13])[rng.integers(0, 8, 800)]
assert list(onp.unique_values(labels)) != sorted(set(labels))   # NumPy's is hash order
with sklearn.config_context(array_api_dispatch=True):
    enc_m = LabelEncoder().fit(mnp.asarray(labels))
    enc_n = LabelEncoder().fit(labels)
    same("classes_", enc_m.classes_, enc_n.classes_)
    same("transform", enc_m.transform(mnp.asarray(labels)), enc_n.transform(labels))
    same("inverse", enc_m.inverse_transform(mnp.asarray([0, 2, 1])),
         enc_n.inverse_transform(onp.array([0, 2, 1])))
print(json.dumps(res))
""")
    assert all(v is True for v in res.values()), {k: v for k, v in res.items() if v is not True}
