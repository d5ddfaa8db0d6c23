"""NumPy's polynomial functions and ``poly1d`` against NumPy: eagerly (NumPy dispatch),
through the lax definitions, under jit, and derivatives against finite differences."""

import warnings

import hypothesis.extra.numpy as hnp
import numpy as onp
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as np
from minijax import errors
from minijax.test_util import assert_same, check_grads

_RNG = onp.random.default_rng(1)


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for e in x for leaf in _leaves(e)]
    return [x]


def same(got, want, rtol=1e-10, atol=1e-12):
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, onp.poly1d):
            assert isinstance(g, np.poly1d)
            g, w = g.coeffs, w.coeffs
        assert_same(g, onp.asarray(w), rtol=rtol, atol=atol)


def check(name, *args, traced=None, rtol=1e-10, atol=1e-12, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(onp, name)(*args, **kwargs)
        fn = getattr(np, name)
        same(fn(*args, **kwargs), want, rtol, atol)
        same(getattr(fn, "__wrapped_lax__", fn)(*args, **kwargs), want, rtol, atol)
        if traced is None:
            traced = [i for i, a in enumerate(args) if isinstance(a, onp.ndarray)]

        def staged(*xs):
            full = list(args)
            for i, x in zip(traced, xs):
                full[i] = x
            return fn(*full, **kwargs)
        if traced:
            same(minijax.jit(staged)(*[args[i] for i in traced]), want, rtol, atol)


P = onp.array([2.0, -3.0, 0.5, 1.0])
Q = onp.array([1.0, 4.0])


def test_polyval():
    x = onp.linspace(-2, 2, 7)
    check("polyval", P, x)
    check("polyval", P, 1.5, traced=[0])
    check("polyval", onp.array([1, 2, 3]), onp.array([1, 2]))        # integers stay integers
    check("polyval", P.astype(onp.float32), x.astype(onp.float32), rtol=1e-6)
    check("polyval", onp.array([1 + 1j, 2.0]), x)
    check_grads(np.polyval, (P, x), order=2)


def test_add_sub_mul():
    for name in ("polyadd", "polysub", "polymul"):
        check(name, P, Q)
        check(name, Q, P)
        check(name, onp.array([1, 2]), onp.array([3]))
        check_grads(getattr(np, name), (P, Q), order=1)
    check("polymul", onp.array([1 + 1j, 2]), onp.array([1 - 1j, 3]))
    check("polymul", onp.array([True, False, True]), onp.array([True, True]))


def test_polydiv():
    check("polydiv", P, Q, traced=[])
    check("polydiv", onp.array([1.0, -3.0, 2.0]), onp.array([1.0, -1.0]), traced=[])
    check("polydiv", Q, P, traced=[])
    q, r = np.polydiv(P, Q)
    same(np.polyadd(np.polymul(q, Q), r), P)
    with pytest.raises(errors.ConcretizationTypeError):
        minijax.jit(np.polydiv)(P, Q)


@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_polyder_polyint(m):
    check("polyder", P, m)
    check("polyder", onp.array([3, 1, 4, 1]), m)
    check("polyint", P, m)
    check("polyint", P, m, k=2.0)
    if m:
        check("polyint", P, m, k=list(range(1, m + 1)))
    with pytest.raises(ValueError):
        np.polyder(P, -1)
    with pytest.raises(ValueError):
        np.polyint(P, 3, k=[1, 2])


def test_poly_and_roots():
    check("poly", onp.array([1.0, 2.0, -3.0]))
    check("poly", onp.array([1, 2]))
    check("poly", onp.array([1 + 2j, 1 - 2j]), traced=[])        # conjugate pairs: real
    check("poly", onp.array([1 + 2j, 3.0]), traced=[])
    same(np.poly(onp.array([[1.0, 2.0], [3.0, 4.0]])), onp.poly(onp.array([[1.0, 2.0],
                                                                          [3.0, 4.0]])))
    assert np.poly([]) == onp.poly([])
    with pytest.raises(ValueError):
        np.poly(onp.ones((2, 3)))
    for p in ([1.0, -3.0, 2.0], [0.0, 0.0, 1.0, -1.0], [1.0, 0.0, 1.0], [2.0], [0, 1, 0]):
        r, want = np.roots(p), onp.roots(p)
        same(onp.sort_complex(onp.asarray(r)), onp.sort_complex(want))
    with pytest.raises(errors.ConcretizationTypeError, match="strip_zeros=False"):
        minijax.jit(np.roots)(P)
    check_grads(np.poly, (onp.array([0.5, -1.0, 2.0]),), order=2)


@pytest.mark.parametrize("p", [[1.0, -3.0, 2.0], [0.0, 1.0, 0.0, 2.0, 0.0, 0.0],
                               [1.0, -6.0, 11.0, -6.0], [3, 1, 4, 1, 5, 9, 2, 6]])
def test_roots_differentiate_and_trace_without_stripping(p):
    """Under grad the roots are the companion matrix's eigenvalues, NumPy's in NumPy's
    order and dtype; with strip_zeros=False (JAX's) they trace, always complex."""
    p = onp.asarray(p, dtype=float)
    want = onp.roots(p)
    got = minijax.jvp(np.roots, (p,), (onp.ones_like(p),))[0]
    assert onp.asarray(got).dtype == want.dtype
    onp.testing.assert_allclose(onp.asarray(got), want, rtol=1e-10, atol=1e-12)
    if p[0] != 0 and p[-1] != 0:   # (a step off a zero changes the number of roots)
        check_grads(lambda q: np.sum(np.abs(np.roots(q)) ** 2), (p,), order=1)
        traced = minijax.jit(lambda q: np.roots(q, strip_zeros=False))(p)
        onp.testing.assert_allclose(onp.asarray(traced), want.astype(complex), rtol=1e-10,
                                    atol=1e-12)


def test_the_sum_of_the_roots_has_vietas_derivative():
    p = onp.array([2.0, -3.0, 1.0])   # sum of roots = -p1/p0
    grad = minijax.grad(lambda q: np.sum(np.roots(q)))(p)
    onp.testing.assert_allclose(onp.asarray(grad), [p[1] / p[0] ** 2, -1 / p[0], 0.0])


@pytest.mark.parametrize("deg", [0, 1, 3])
def test_polyfit(deg):
    x = onp.linspace(-1, 1, 12)
    y = 1.0 + 2.0 * x - x ** 3 + 0.01 * _RNG.normal(size=12)
    check("polyfit", x, y, deg)
    check("polyfit", x, y, deg, w=_RNG.uniform(0.5, 1.5, 12))
    check("polyfit", x, onp.stack([y, 2 * y], axis=1), deg)
    check("polyfit", x, y, deg, cov=True)
    check("polyfit", x, y, deg, cov="unscaled")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = np.polyfit.__wrapped_lax__(x, y, deg, full=True)
        want = onp.polyfit(x, y, deg, full=True)
    same(got, want)
    check_grads(lambda y: np.polyfit(x, y, deg), (y,), order=1)


def test_polyfit_errors_and_rank_warning():
    with pytest.raises(ValueError, match="deg"):
        np.polyfit([1.0, 2.0], [1.0, 2.0], -1)
    with pytest.raises(TypeError, match="same length"):
        np.polyfit.__wrapped_lax__(onp.ones(3), onp.ones(4), 1)
    with pytest.warns(onp.exceptions.RankWarning):
        np.polyfit.__wrapped_lax__(onp.ones(4), onp.arange(4.0), 2)


def test_vander_based_fit_matches_under_vmap():
    x = onp.linspace(0, 1, 6)
    ys = _RNG.normal(size=(3, 6))
    got = minijax.vmap(lambda y: np.polyfit(x, y, 2))(ys)
    same(got, onp.stack([onp.polyfit(x, y, 2) for y in ys]))


def test_poly1d_class():
    p, want = np.poly1d([1.0, -3.0, 2.0]), onp.poly1d([1.0, -3.0, 2.0])
    q, wq = np.poly1d([2.0, 1.0]), onp.poly1d([2.0, 1.0])
    same(p.c, want.c)
    same(p.coeffs, want.coeffs)
    assert p.o == want.o == p.order and len(p) == len(want)
    same(onp.sort(onp.asarray(p.r)), onp.sort(want.r))
    same(p(2.5), want(2.5))
    same(p(onp.array([0.0, 1.0, 3.0])), want(onp.array([0.0, 1.0, 3.0])))
    same(p + q, want + wq)
    same(p - q, want - wq)
    same(3 - p, 3 - want)
    same(p * q, want * wq)
    same(p * 2.0, want * 2.0)
    same(2.0 * p, 2.0 * want)
    same(p ** 3, want ** 3)
    same(-p, -want)
    same(p / 2.0, want / 2.0)
    same(p / q, want / wq)
    same(p.deriv(), want.deriv())
    same(p.deriv(2), want.deriv(2))
    same(p.integ(), want.integ())
    same(p.integ(2, k=[1.0, 2.0]), want.integ(2, k=[1.0, 2.0]))
    same(p[0], want[0])
    same(p[1], want[1])
    same(p[7], want[7])
    assert p == np.poly1d([1.0, -3.0, 2.0]) and p != q
    same(np.poly1d([0.0, 0.0, 1.0, 2.0]), onp.poly1d([0.0, 0.0, 1.0, 2.0]))   # trimmed
    same(np.poly1d([1.0, 2.0], r=True), onp.poly1d([1.0, 2.0], r=True))
    assert str(p) == str(want) and repr(p) == repr(want)
    assert np.poly1d([1, 2], variable="z").variable == "z"
    r, w = np.poly1d([1.0, 2.0, 3.0]), onp.poly1d([1.0, 2.0, 3.0])
    r[4] = 5.0
    w[4] = 5.0
    same(r, w)
    same(np.polyadd(p, [1.0]), onp.polyadd(want, [1.0]))
    same(np.polyval(p, 2.0), onp.polyval(want, 2.0))
    same(np.polyder(p), onp.polyder(want))
    same(onp.asarray(p), onp.asarray(want))
    with pytest.raises(ValueError, match="non-negative"):
        p ** -1
    # traced coefficients: poly1d works under jit and grad
    f = lambda c, x: np.poly1d(c)(x)
    same(minijax.jit(f)(P, 0.7), onp.poly1d(P)(0.7))
    check_grads(lambda c: np.poly1d(c).deriv()(0.3) + (np.poly1d(c) * np.poly1d(c))(1.1),
                (P,), order=1)


def _padded_like(got, want):
    """``want``'s coefficients with leading zeros up to ``got``'s length."""
    want = onp.asarray(want.coeffs if isinstance(want, onp.poly1d) else want)
    return onp.concatenate([onp.zeros(len(got) - len(want), want.dtype), want])


def test_poly1d_traced_coefficients_with_leading_zeros():
    # traced coefficients cannot drop their leading zeros (the shape would depend on the
    # values): they are kept, and every value computed from them is NumPy's
    c = onp.array([0.0, 0.0, 1.5, -2.0, 3.0])
    q = onp.array([0.0, 2.0, 1.0])
    pw, qw = onp.poly1d(c), onp.poly1d(q)
    calls = {
        "call": (lambda p, q: p(onp.array([0.3, -1.2, 2.0])), pw(onp.array([0.3, -1.2, 2.0]))),
        "deriv": (lambda p, q: p.deriv().coeffs, pw.deriv()),
        "deriv2": (lambda p, q: p.deriv(2).coeffs, pw.deriv(2)),
        "integ": (lambda p, q: p.integ(k=1.0).coeffs, pw.integ(k=1.0)),
        "add": (lambda p, q: (p + q).coeffs, pw + qw),
        "sub": (lambda p, q: (q - p).coeffs, qw - pw),
        "mul": (lambda p, q: (p * q).coeffs, pw * qw),
        "pow": (lambda p, q: (p ** 2).coeffs, pw ** 2),
        "scale": (lambda p, q: (p / 4.0).coeffs, pw / 4.0),
        "getitem": (lambda p, q: np.stack([p[k] for k in range(7)]),
                    onp.array([pw[k] for k in range(7)])),
    }
    for label, (call, want) in calls.items():
        eager = call(np.poly1d(c), np.poly1d(q))
        traced = minijax.jit(lambda c, q, call=call: call(np.poly1d(c), np.poly1d(q)))(c, q)
        traced = onp.asarray(traced)
        assert_same(eager, onp.asarray(want.coeffs if isinstance(want, onp.poly1d) else want),
                    rtol=1e-12)
        assert_same(traced, _padded_like(traced, want), rtol=1e-12)
    # == is a Python bool, which traced values cannot give (it was a silent False
    # for traced coefficients of different lengths)
    with pytest.raises(errors.TracerBoolConversionError):
        minijax.jit(lambda c: np.poly1d(c) == np.poly1d(c[2:]))(c)
    check_grads(lambda c: np.poly1d(c).deriv()(0.3) * np.poly1d(c)(-1.1), (c,), order=2)
    vm = minijax.vmap(lambda c: np.poly1d(c)(0.5))(onp.stack([c, c[::-1]]))
    assert_same(vm, onp.array([onp.poly1d(c)(0.5), onp.poly1d(c[::-1])(0.5)]), rtol=1e-12)


@given(hnp.arrays(onp.float64, st.integers(1, 6), elements=st.floats(-10, 10)),
       hnp.arrays(onp.float64, st.integers(1, 6), elements=st.floats(-10, 10)))
def test_poly_arithmetic_matches_numpy(a, b):
    for name in ("polyadd", "polysub", "polymul"):
        same(getattr(np, name).__wrapped_lax__(a, b), getattr(onp, name)(a, b),
             rtol=1e-12, atol=1e-9)
    x = onp.linspace(-1, 1, 5)
    same(np.polyval.__wrapped_lax__(a, x), onp.polyval(a, x), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("A", [onp.array([[1.0, 2.0], [3.0, 4.0]]),
                               onp.array([[0.0, -1.0], [1.0, 0.0]]),
                               onp.array([[1, 2], [3, 4]]),
                               onp.array([[1.0, 2.0], [3.0, 4.0]], onp.float32),
                               _RNG.uniform(size=(4, 4))])
def test_characteristic_polynomial_traces_and_differentiates(A):
    want = onp.poly(A)
    for got in (np.poly(A), minijax.jit(np.poly)(A),
                minijax.jvp(np.poly, (A,), (onp.ones_like(A),))[0]):
        assert onp.asarray(got).dtype == want.dtype
        onp.testing.assert_allclose(onp.asarray(got), want, rtol=1e-5)
    if A.dtype == onp.float64:
        check_grads(np.poly, (A,), order=1)
