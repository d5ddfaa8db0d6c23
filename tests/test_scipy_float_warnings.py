"""Eager minijax.scipy.special and minijax.scipy.stats emit no NumPy floating-point
warning where SciPy emits none (their ``where``s compute branches that are not taken)."""

import warnings

import numpy as np
import pytest
import scipy.special as ss
import scipy.stats as st

import minijax.scipy.special as msp
import minijax.scipy.stats as ms

X = np.array([-3.0, -1.0, 0.0, 0.25, 0.5, 1.0, 2.5, 40.0, np.inf, np.nan])
Q = np.array([0.0, 1e-12, 0.1, 0.5, 0.75, 1.0, 1.5])
K = np.array([-1.0, 0.0, 1.0, 2.0, 7.0])
DISTRIBUTIONS = {"norm": (), "t": (3.5,), "beta": (2.0, 3.0), "gamma": (2.5,), "chi2": (3.0,),
                 "expon": (), "laplace": (), "logistic": (), "cauchy": (), "uniform": (),
                 "poisson": (3.5,), "bernoulli": (0.3,), "binom": (10, 0.3)}
DISCRETE = ("poisson", "bernoulli", "binom")
FUNCTIONS = ("logpdf", "pdf", "logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf")
STATS_CASES = [(name, fn) for name in DISTRIBUTIONS for fn in FUNCTIONS
               if hasattr(getattr(ms, name), fn) and hasattr(getattr(st, name), fn)]
SPECIAL_ARGUMENT = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 10.0])
# these take integer or static orders, not one float array per argument
NOT_ELEMENTWISE = ("bernoulli", "jn", "jv", "yn", "yv", "multigammaln", "sph_harm_y")
# these take an integer order first (SciPy warns when it truncates one), then x
INTEGER_ORDER_FIRST = ("expn", "polygamma")
ORDERS = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])


def _warnings_of(f, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            f(*args)
        except (TypeError, ValueError, NotImplementedError):
            return None                      # not callable this way
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("name,fn", STATS_CASES, ids=[f"{n}.{f}" for n, f in STATS_CASES])
def test_distributions_warn_only_where_scipy_does(name, fn):
    x = Q if fn in ("ppf", "isf") else K if name in DISCRETE else X
    args = DISTRIBUTIONS[name]
    if _warnings_of(getattr(getattr(st, name), fn), x, *args) == []:
        assert _warnings_of(getattr(getattr(ms, name), fn), x, *args) == []


def _special_arguments(name, nargs):
    # fresh arrays for each call: SciPy writes its result into an extra positional
    # argument (``out``), which changed this module's inputs for the tests after it
    args = [SPECIAL_ARGUMENT.copy() for _ in range(nargs)]
    if name in INTEGER_ORDER_FIRST and nargs > 1:
        args[0] = ORDERS.copy()
    return args


@pytest.mark.parametrize("name", [n for n in msp.__all__ if hasattr(ss, n)])
def test_special_functions_warn_only_where_scipy_does(name):
    checked = 0
    for nargs in (1, 2, 3, 4):
        theirs = _warnings_of(getattr(ss, name), *_special_arguments(name, nargs))
        ours = _warnings_of(getattr(msp, name), *_special_arguments(name, nargs))
        if theirs == [] and ours is not None:
            assert ours == [], (nargs, ours)
            checked += 1
    if name not in NOT_ELEMENTWISE:
        assert checked, "no argument count checked"


def test_a_user_numpy_warning_still_shows_after_a_scipy_call():
    msp.xlogy(0.0, 0.0)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.zeros(1))
