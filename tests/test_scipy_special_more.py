"""minijax.scipy.special, second part: the gamma-function relatives, Bessel functions of
the first and second kind and modified ones of real order, and JAX's extra functions.
Values against SciPy (float64 and float32), derivatives against finite differences,
eager against jit and vmap."""

import jax
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
import minijax.scipy.special as ms
from minijax.test_util import check_grads

EDGES = np.array([-1e4, -100.0, -30.5, -3.0, -2.5, -1.5, -1.0, -1e-8, 0.0, -0.0, 1e-300,
                  0.5, 2.4048255576957727, 5.0, 7.99, 8.01, 14.0, 24.99, 25.01, 100.0, 700.0,
                  1e4, np.inf, -np.inf, np.nan])


def same(actual, expected, rtol, atol=0.0):
    actual = np.asarray(actual)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(actual[~finite & ~np.isnan(expected)],
                                  expected[~finite & ~np.isnan(expected)])
    err = np.abs(actual - expected)[finite]
    bound = (np.broadcast_to(atol, expected.shape)[finite] + rtol * np.abs(expected[finite]))
    assert np.all(err <= bound), (np.max(err - bound), expected[finite][np.argmax(err - bound)])
    # zeros and infinities keep SciPy's sign
    exact = (expected == 0) | np.isinf(expected)
    np.testing.assert_array_equal(np.signbit(actual[exact]), np.signbit(expected[exact]))


# name -> (inputs, rtol). Bessel functions: SciPy returns NaN at +-inf (so does minijax:
# cos(inf) is NaN); their values near zeros are checked in the dense-grid tests.
UNARY = {
    "gammasgn": (EDGES, 0.0),
    "rgamma": (EDGES, 1e-13),
    "psi": (EDGES, 1e-13),
    "loggamma": (EDGES, 1e-13),
    "factorial": (EDGES[EDGES < 171], 1e-13),
    "erfcinv": (np.array([-1.0, 0.0, -0.0, 1e-300, 1e-20, 1e-5, 0.3, 1.0, 1.7, 2 - 1e-12,
                          2.0, 2.5, np.nan]), 1e-12),
    "j0": (EDGES[np.abs(EDGES) != 1e4], 1e-13),
    "j1": (EDGES[np.abs(EDGES) != 1e4], 1e-13),
    "y0": (EDGES[np.abs(EDGES) != 1e4], 1e-13),
    "y1": (EDGES[np.abs(EDGES) != 1e4], 1e-13),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_scipy_eager_jit_vmap(name):
    x, rtol = UNARY[name]
    f = getattr(ms, name)
    expected = getattr(ss, name)(x)
    # Bessel functions: absolute error relative to their envelope (values near zeros)
    atol = 1e-13 * bessel_envelope(x) if name[0] in "jy" else 0.0
    same(f(jnp.asarray(x)), expected, rtol, atol)
    same(minijax.jit(f)(jnp.asarray(x)), expected, rtol, atol)
    same(minijax.vmap(f)(jnp.asarray(x)), expected, rtol, atol)


def bessel_envelope(x):
    """sqrt(2 / (pi x)), the amplitude of J and Y for large x (capped at 1)."""
    return np.minimum(1.0, np.sqrt(2 / (np.pi * np.maximum(np.abs(x), 1e-300))))


def test_bessel_first_and_second_kind_dense_grid():
    x = np.concatenate([np.linspace(1e-3, 40, 1601), np.logspace(-8, 4, 300)])
    env = bessel_envelope(x)
    for name in ("j0", "j1", "y0", "y1"):
        f, want = getattr(ms, name), getattr(ss, name)(x)
        # near a zero only the absolute error relative to the envelope is meaningful
        scale = np.maximum(np.abs(want), env)
        err = np.abs(np.asarray(f(x)) - want) / scale
        assert err.max() < 1e-12, (name, x[np.argmax(err)], err.max())
    for name in ("j0", "j1"):  # symmetry
        np.testing.assert_array_equal(np.asarray(getattr(ms, name)(-x)),
                                      getattr(ss, name)(-x) * 0 + np.asarray(
                                          getattr(ms, name)(x)) * (1 if name == "j0" else -1))


def test_bessel_integer_orders_match_scipy():
    n = np.arange(-5, 60)[:, None]
    x = np.concatenate([np.linspace(0, 90, 541), np.logspace(-5, 3, 60)])[None]
    for name in ("jn", "yn"):
        got = np.asarray(getattr(ms, name)(n, x))
        want = getattr(ss, name)(n, x)
        env = bessel_envelope(x)
        # below the turning point (|n| > x) J is tiny and Y huge: relative error there
        scale = np.maximum(np.abs(want), np.where(np.abs(n) < x, env, 1e-250))
        err = np.abs(got - want) / scale
        err = np.where(np.isinf(want) & (got == want), 0.0, err)
        assert np.nanmax(err) < 1e-12, (name, np.nanmax(err))
        assert np.array_equal(np.isnan(got), np.isnan(want))
    # negative arguments
    same(ms.jn(np.arange(4), -2.5), ss.jn(np.arange(4), -2.5), 1e-13)
    same(ms.yn(np.arange(4), -2.5), ss.yn(np.arange(4), -2.5), 0)
    same(ms.jv(3.0, np.array([0.5, 30.0])), ss.jv(3.0, np.array([0.5, 30.0])), 1e-13)
    same(ms.yv(3.0, np.array([0.5, 30.0])), ss.yv(3.0, np.array([0.5, 30.0])), 1e-13)


def test_bessel_integer_order_errors():
    with pytest.raises(NotImplementedError, match="integer orders"):
        ms.jv(2.5, 1.0)
    with pytest.raises(TypeError, match="concrete"):
        minijax.jit(ms.jn)(2, 1.0)
    with pytest.raises(TypeError, match="integer"):
        ms.yn("2", 1.0)


ORDERS = np.array([0.0, 0.5, 1.0, 1.5, 2.3, 3.0, 5.0, 7.5, 10.0, -0.5, -1.0, -2.5, -3.0])


def test_modified_bessel_real_order_match_scipy():
    v = ORDERS[:, None]
    x = np.concatenate([np.linspace(0, 100, 501), np.logspace(-5, 3, 60), [1e4, 700.0]])[None]
    for name in ("iv", "ive"):
        got = np.asarray(getattr(ms, name)(v, x))
        want = getattr(ss, name)(v, x)
        if name == "ive":  # SciPy: ive(v, 0) is NaN for negative non-integer v (iv: inf)
            want = np.where((x == 0) & (v < 0) & (v != np.round(v)), np.inf, want)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    # negative arguments: defined for integer orders only
    xs = np.array([-3.0, -40.0])[None]
    for name in ("iv", "ive"):
        same(getattr(ms, name)(v, xs), getattr(ss, name)(v, xs), 1e-13)


def test_bessel_jn_matches_jax():
    # JAX's fixed 50-step recurrence is NaN at 0 and loses digits for large z: SciPy there
    z = np.array([0.5, 3.0, 11.0])
    with jax.enable_x64(True):
        want = np.asarray(jss.bessel_jn(z, v=6))
    got = ms.bessel_jn(z, v=6)
    assert got.shape == (7, 3)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-15)
    z = np.array([0.0, 40.0, 1e3])
    np.testing.assert_allclose(np.asarray(ms.bessel_jn(z, v=6)),
                               ss.jn(np.arange(7)[:, None], z), rtol=1e-12, atol=1e-16)
    with pytest.raises(TypeError, match="non-negative"):
        ms.bessel_jn(z, v=-1)


BINARY_GRID = np.array([-3.0, -2.5, -2.0, -1.0, -0.5, 0.0, 1e-3, 0.5, 1.0, 2.0, 2.5, 7.0,
                        50.0, np.inf, np.nan])
BINARY = {
    # beta at two poles (e.g. beta(-1, -3)) has a sign SciPy picks arbitrarily: left out
    # beta(inf, b <= 0) (SciPy: -inf) likewise; poch(inf, m) is NaN or not in SciPy
    # depending on m's range (minijax: the limit z**m for integer m)
    "beta": (lambda a, b: ~((a <= 0) & (a == np.floor(a)) & (b <= 0) & (b == np.floor(b)))
             & ~(np.isinf(a) & (b <= 0)) & ~(np.isinf(b) & (a <= 0)), 1e-12),
    "poch": (lambda a, b: np.isfinite(a), 1e-12),
    "kl_div": (None, 1e-13),
    "rel_entr": (None, 1e-13),
    "boxcox": (None, 1e-13),
    "boxcox1p": (None, 1e-13),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_match_scipy(name):
    keep, rtol = BINARY[name]
    a, b = (g.ravel() for g in np.meshgrid(BINARY_GRID, BINARY_GRID))
    if keep is not None:
        mask = keep(a, b)
        a, b = a[mask], b[mask]
    f = getattr(ms, name)
    expected = getattr(ss, name)(a, b)
    same(f(a, b), expected, rtol, atol=1e-300)
    same(minijax.jit(f)(a, b), expected, rtol, atol=1e-300)
    same(minijax.vmap(f)(a, b), expected, rtol, atol=1e-300)


FLOAT32 = {
    "gammasgn": [0.3, -1.5], "rgamma": [0.3, -1.5], "psi": [0.3, 2.5],
    "loggamma": [0.3, 2.5], "factorial": [3.0, 4.5], "erfcinv": [0.3, 1.6],
    "j0": [0.3, 12.0, 40.0], "j1": [0.3, 12.0, 40.0], "y0": [0.3, 12.0, 40.0],
    "y1": [0.3, 12.0, 40.0],
}


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_float32_follows_input(name):
    x = jnp.asarray(FLOAT32[name], dtype=np.float32)
    out = getattr(ms, name)(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), getattr(ss, name)(np.asarray(x, np.float64)),
                               rtol=2e-5)


def test_float32_orders_and_binary():
    x = jnp.asarray([0.5, 12.0, 40.0], dtype=np.float32)
    x64 = np.asarray(x, np.float64)
    for name, args in [("jn", (3, x)), ("yn", (2, x)), ("iv", (np.float32(1.5), x)),
                       ("ive", (np.float32(1.5), x)), ("beta", (x, np.float32(2.5))),
                       ("poch", (x, np.float32(1.5))), ("kl_div", (x, np.float32(2.0))),
                       ("boxcox", (x, np.float32(0.5)))]:
        out = getattr(ms, name)(*args)
        assert out.dtype == np.float32, name
        want = getattr(ss, name)(*(np.asarray(a, np.float64) for a in args[:1]), x64) \
            if args[1] is x else getattr(ss, name)(x64, np.float64(args[1]))
        np.testing.assert_allclose(np.asarray(out), want, rtol=5e-5, err_msg=name)


GRAD_POINTS = {
    "rgamma": [0.3, 2.5, -1.5, -2.0, 0.0],
    "psi": [0.3, 2.5, 40.0, -1.5],
    "loggamma": [0.3, 2.5, 40.0],
    "factorial": [0.3, 2.5, 7.0],
    "erfcinv": [0.01, 0.3, 1.0, 1.7],
    "j0": [0.0, 0.3, 7.9, 8.1, 20.0, 24.9, 25.1, 60.0, -3.0],
    "j1": [0.0, 0.3, 7.9, 8.1, 20.0, 24.9, 25.1, 60.0, -3.0],
    "y0": [0.3, 7.9, 8.1, 20.0, 24.9, 25.1, 60.0],
    "y1": [0.3, 7.9, 8.1, 20.0, 24.9, 25.1, 60.0],
}


@pytest.mark.parametrize("name", sorted(GRAD_POINTS))
def test_unary_gradients_match_finite_differences(name):
    f = getattr(ms, name)
    check_grads(f, (jnp.asarray(GRAD_POINTS[name]),), order=2)


def test_rgamma_derivative_at_poles():
    # d/dx 1/gamma(x) at x = -n is (-1)^n n!
    x = jnp.asarray([0.0, -1.0, -2.0, -3.0])
    d = minijax.vmap(minijax.grad(ms.rgamma))(x)
    np.testing.assert_allclose(np.asarray(d), [1.0, -1.0, 2.0, -6.0], rtol=1e-13)


def test_order_gradients_match_finite_differences():
    x = jnp.asarray([0.0, 0.4, 3.0, 9.0, 30.0])
    check_grads(lambda t: ms.jn(np.array([0, 1, 2, 5, -3]), t), (x,), order=2)
    check_grads(lambda t: ms.yn(np.array([0, 1, 2, 5, -3]), t), (x + 0.5,), order=2)
    v = jnp.asarray([0.0, 0.5, 1.0, 2.5, -1.0])
    check_grads(lambda t: ms.iv(v.at[1].set(3.0), t), (x - 2.0,), order=2)
    # ive has a kink at 0 (the factor exp(-|x|))
    check_grads(lambda t: ms.ive(v, t), (x + 0.2,), order=2)
    check_grads(ms.beta, (jnp.asarray([0.5, 2.0, -1.5]), jnp.asarray([1.5, 20.0, 0.7])),
                order=2)
    check_grads(ms.poch, (jnp.asarray([0.5, 2.0, -1.5]), jnp.asarray([1.5, 3.0, 0.7])),
                order=2)
    check_grads(ms.kl_div, (jnp.asarray([0.5, 2.0]), jnp.asarray([1.5, 0.2])), order=2)
    check_grads(ms.rel_entr, (jnp.asarray([0.5, 2.0]), jnp.asarray([1.5, 0.2])), order=2)
    check_grads(ms.boxcox, (jnp.asarray([0.5, 2.0]), jnp.asarray([1.5, -0.2])), order=2)
    check_grads(ms.boxcox1p, (jnp.asarray([0.5, 2.0]), jnp.asarray([1.5, -0.2])), order=2)


def test_order_functions_under_jit_and_vmap():
    x = jnp.asarray([0.5, 3.0, 30.0])
    v = jnp.asarray([0.0, 1.5, 3.0])
    for f in (lambda t: ms.jn(3, t), lambda t: ms.yn(2, t), lambda t: ms.iv(2.5, t)):
        np.testing.assert_allclose(np.asarray(minijax.jit(f)(x)), np.asarray(f(x)), rtol=1e-14)
        np.testing.assert_allclose(np.asarray(minijax.vmap(f)(x)), np.asarray(f(x)),
                                   rtol=1e-14)
    # iv: the order can be traced
    got = minijax.jit(minijax.vmap(ms.ive))(v, x)
    np.testing.assert_allclose(np.asarray(got), ss.ive(np.asarray(v), np.asarray(x)),
                               rtol=1e-13)


def test_iv_has_no_derivative_in_the_order():
    with pytest.raises(NotImplementedError, match="order"):
        minijax.grad(ms.iv)(1.5, 2.0)


def test_factorial_exact_is_rejected():
    with pytest.raises(NotImplementedError, match="exact"):
        ms.factorial(3, exact=True)


# ---------------------------------------------------------------- complex error functions

def complex_grid():
    x, y = np.meshgrid(np.linspace(-6, 6, 49), np.linspace(-6, 6, 49))
    extra = [0j, 1e-20 + 1e-20j, 1j, -1j, 1.5, 1.5j, 1.49 + 0.1j, 30 + 30j, 1e3j, -1e3j,
             1e3 + 0j, -1e3 + 2j, complex(np.inf, 0), complex(-np.inf, 0), complex(np.nan, 0)]
    return np.concatenate([(x + 1j * y).ravel(), extra])


@pytest.mark.parametrize("name", ["erf", "erfc", "wofz"])
def test_complex_error_functions_match_scipy(name):
    z = complex_grid()
    if name == "wofz":  # SciPy: wofz(+-inf) = 0 and wofz(-1e3j) = inf - 0j; minijax NaN
        z = z[np.isfinite(z) & (np.abs(z) < 1e3)]
    f = getattr(ms, name)
    want = getattr(ss, name)(z)
    for got in (f(z), minijax.jit(f)(z), minijax.vmap(f)(z)):
        got = np.asarray(got)
        assert got.dtype == np.complex128
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=5e-14, atol=0)
        np.testing.assert_array_equal(got[~finite], want[~finite])
    # complex64 follows the input
    z32 = np.array([0.3 + 0.2j, 2.0 - 1.0j, -3.0 + 0.5j], np.complex64)
    got = f(z32)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(got), getattr(ss, name)(z32.astype(complex)),
                               rtol=2e-5)


def test_complex_error_function_derivatives():
    z = jnp.asarray([0.3 + 0.2j, 1.4 - 0.3j, 2.0 + 1.0j, -3.0 + 0.5j, 0.5 - 4.0j])
    for name in ("erf", "erfc", "wofz"):
        check_grads(getattr(ms, name), (z,), order=2)
    # holomorphic: d erf / dz = 2/sqrt(pi) exp(-z^2)
    _, d = minijax.jvp(ms.erf, (z,), (jnp.ones_like(z),))
    np.testing.assert_allclose(np.asarray(d), 2 / np.sqrt(np.pi) * np.exp(-np.asarray(z) ** 2),
                               rtol=1e-12)


@pytest.mark.parametrize("name", ["erfcx", "dawsn"])
def test_scaled_erfc_and_dawson_match_scipy(name):
    x = np.concatenate([np.linspace(-30, 30, 601), [0.0, -0.0, np.inf, -np.inf, np.nan,
                                                    1e10, -1e-300, 1e300, -27.0]])
    f = getattr(ms, name)
    want = getattr(ss, name)(x)
    same(f(x), want, 1e-13)
    same(minijax.jit(f)(x), want, 1e-13)
    check_grads(f, (jnp.asarray([-2.0, -0.3, 0.4, 3.0, 20.0]),), order=2)
    out = f(np.float32([0.5, 2.0]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), getattr(ss, name)([0.5, 2.0]), rtol=2e-6)


# ---------------------------------------------------------------- exponential integrals, comb

def test_exponential_integrals_match_scipy():
    x = np.concatenate([[0.0, -0.0, -1.0, 1e-300, 0.5, 1.0, 2.0, 40.0, 40.5, 50.0, 800.0,
                         np.inf, -np.inf, np.nan, -800.0], np.logspace(-8, 2.8, 200),
                        -np.logspace(-8, 2.8, 40)])
    for name in ("exp1", "expi"):
        f, want = getattr(ms, name), getattr(ss, name)(x)
        # expi crosses zero at 0.3725: absolute error there, relative elsewhere (its
        # series of up to 160 positive terms carries ~3e-14 near the switch at 40)
        atol, rtol = (1e-16, 5e-14) if name == "expi" else (0.0, 2e-14)
        same(f(x), want, rtol, atol)
        same(minijax.jit(f)(x), want, rtol, atol)
        same(minijax.vmap(f)(x), want, rtol, atol)
    n = np.arange(-1, 30)[:, None]
    x = np.concatenate([[0.0, 1e-300, 0.5, 1.0, 2.0, 50.0, np.inf, -1.0, np.nan],
                        np.logspace(-6, 2.5, 60)])[None]
    want = ss.expn(n, x)
    same(ms.expn(n, x), want, 2e-14)
    same(minijax.jit(ms.expn)(n, x), want, 2e-14)
    # a non-integer order: SciPy truncates it, minijax gives NaN
    assert np.isnan(np.asarray(ms.expn(2.5, 1.0)))


def test_exponential_integral_derivatives_and_float32():
    x = jnp.asarray([0.1, 0.9, 1.1, 3.0, 30.0])
    check_grads(ms.exp1, (x,), order=2)
    check_grads(ms.expi, (jnp.asarray([-3.0, -0.5, 0.5, 39.0, 41.0]),), order=2)
    check_grads(lambda t: ms.expn(np.array([0, 1, 2, 3, 7.0]), t), (x,), order=2)
    # d/dx E_n = -E_{n-1}
    d = minijax.vmap(minijax.grad(lambda t: ms.expn(3, t)))(x)
    np.testing.assert_allclose(np.asarray(d), -ss.expn(2, np.asarray(x)), rtol=1e-12)
    for name in ("exp1", "expi"):
        out = getattr(ms, name)(np.float32([0.5, 3.0]))
        assert out.dtype == np.float32
        np.testing.assert_allclose(np.asarray(out), getattr(ss, name)([0.5, 3.0]), rtol=2e-6)


def test_comb_and_bernoulli():
    grid = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 5.0, 10.0, 60.0, np.nan])
    n, k = (g.ravel() for g in np.meshgrid(grid, grid))
    for rep in (False, True):
        if rep:  # SciPy gives 0 or NaN for negative N or k with repetition (minijax: NaN)
            keep = (n >= 0) & (k >= 0)
            n, k = n[keep], k[keep]
        want = ss.comb(n, k, repetition=rep)
        same(ms.comb(n, k, repetition=rep), want, 1e-12)
        same(minijax.jit(lambda a, b, r=rep: ms.comb(a, b, repetition=r))(n, k), want, 1e-12)
    check_grads(ms.comb, (jnp.asarray([5.0, 7.5]), jnp.asarray([2.0, 1.5])), order=2)
    with pytest.raises(NotImplementedError, match="exact"):
        ms.comb(5, 2, exact=True)
    got = ms.bernoulli(30)
    # exact rationals, rounded once (SciPy's float recurrence drifts by ~1e-12)
    exact = [1, -1 / 2, 1 / 6, 0, -1 / 30, 0, 1 / 42, 0, -1 / 30, 0, 5 / 66, 0, -691 / 2730]
    np.testing.assert_array_equal(np.asarray(got)[:13], exact)
    np.testing.assert_allclose(np.asarray(got), ss.bernoulli(30), rtol=1e-11)
    with jax.enable_x64(True):  # JAX's values drift further (2e-6 at B_4): its shape only
        assert got.shape == jss.bernoulli(30).shape
    with pytest.raises(TypeError, match="non-negative"):
        ms.bernoulli(-1)


def test_spence_matches_scipy():
    x = np.concatenate([[0.0, -0.0, -1.0, 1e-300, 0.5, 1.0, 2.0, 50.0, 800.0, np.inf, np.nan,
                         1e300, 1e-10, 1 - 1e-10, 1 + 1e-10], np.logspace(-8, 8, 200),
                        np.linspace(0, 3, 121)])
    want = ss.spence(x)
    same(ms.spence(x), want, 5e-15)
    same(minijax.jit(ms.spence)(x), want, 5e-15)
    same(minijax.vmap(ms.spence)(x), want, 5e-15)
    check_grads(ms.spence, (jnp.asarray([0.2, 0.6, 1.5, 2.5, 30.0]),), order=2)
    # d/dz spence(z) = log(z) / (1 - z)
    z = jnp.asarray([0.2, 3.0])
    np.testing.assert_allclose(np.asarray(minijax.vmap(minijax.grad(ms.spence))(z)),
                               np.log([0.2, 3.0]) / (1 - np.array([0.2, 3.0])), rtol=1e-13)
    out = ms.spence(np.float32([0.5, 2.0]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), ss.spence([0.5, 2.0]), rtol=2e-6)


@pytest.mark.parametrize("name", ["sici", "fresnel"])
def test_sine_cosine_and_fresnel_integrals_match_scipy(name):
    x = np.concatenate([[0.0, -0.0, -1.0, 1e-300, 0.5, 1.0, 1.5, 1.51, 4.0, 4.01, 50.0, 800.0,
                         np.inf, -np.inf, np.nan, 1e-10, -30.0], np.logspace(-8, 4, 200),
                        np.linspace(0, 10, 201)])
    f = getattr(ms, name)
    # absolute error near the zeros of Ci; for large |x| the phase of sin(pi x^2 / 2)
    # (Fresnel) is ill-conditioned in both implementations
    atol = np.where(np.abs(x) > 100, 1e-11, 2e-15)
    for got in (f(x), minijax.jit(f)(x), minijax.vmap(f)(x)):
        for g, w in zip(got, getattr(ss, name)(x)):
            same(g, w, 1e-13, atol)
    check_grads(lambda t: f(t)[0], (jnp.asarray([-2.0, 0.3, 1.4, 1.6, 3.9, 4.1, 20.0]),),
                order=2)
    check_grads(lambda t: f(t)[1], (jnp.asarray([0.3, 1.4, 1.6, 3.9, 4.1, 20.0]),), order=2)
    out = f(np.float32([0.5, 2.0, 6.0]))
    assert all(o.dtype == np.float32 for o in out)
    for o, w in zip(out, getattr(ss, name)([0.5, 2.0, 6.0])):
        np.testing.assert_allclose(np.asarray(o), w, rtol=2e-5, atol=1e-6)
