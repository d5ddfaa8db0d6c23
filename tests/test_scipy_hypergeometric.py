"""minijax.scipy.special.hyp1f1 / hyp2f1 against SciPy, finite differences, jit, vmap."""

import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
import minijax.scipy.special as ms
from minijax.test_util import check_grads

RNG = np.random.default_rng(0)
N = 3000

# 1F1: a, b in (0, 10], x in [-100, 100]
A1 = RNG.uniform(0.01, 10.0, N)
B1 = RNG.uniform(0.01, 10.0, N)
X1 = RNG.uniform(-100.0, 100.0, N)

# 2F1: a, b in (0, 5], c in (0, 10], x in [-200, 0.9999]; the sub-ranges use different
# transformations (Pfaff x < 0, series, connection formula in 1 - x above 0.9)
A2 = RNG.uniform(0.01, 5.0, N)
B2 = RNG.uniform(0.01, 5.0, N)
C2 = RNG.uniform(0.01, 10.0, N)
X2 = np.concatenate([RNG.uniform(-200.0, -1.0, N // 3), RNG.uniform(-1.0, 0.9, N // 3),
                     RNG.uniform(0.9, 0.9999, N - 2 * (N // 3))])


def rel_err(actual, expected):
    actual = np.asarray(actual)
    return np.abs(actual - expected) / np.abs(expected)


def test_hyp1f1_values_against_scipy():
    err = rel_err(ms.hyp1f1(A1, B1, X1), ss.hyp1f1(A1, B1, X1))
    assert err.max() < 1e-10, err.max()


def test_hyp2f1_values_against_scipy():
    # SciPy's own error reaches ~1.5e-10 for x < 0 (checked against a 60-digit series)
    err = rel_err(ms.hyp2f1(A2, B2, C2, X2), ss.hyp2f1(A2, B2, C2, X2))
    assert err.max() < 3e-10, err.max()


def test_hyp2f1_integer_excess_and_polynomials():
    # c - a - b an integer (the connection formula's gamma poles: its logarithmic limit above
    # x = 0.9 and below x = -9), and terminating series
    a = np.array([1.0, 1.5, 2.0, 0.5, -2.0, -3.0, 1.0, 2.5])
    b = np.array([2.0, 1.5, 3.0, 0.5, 1.5, 2.5, -1.0, 1.0])
    c = np.array([3.0, 3.0, 5.0, 1.0, 4.0, 0.5, 2.0, 2.5])
    for x in (-50.0, -5.0, -0.5, 0.3, 0.85, 0.97, 0.9999):
        # (the cubic at 0.9999 cancels to 8e-4: both sides round at ~1e-12 there)
        np.testing.assert_allclose(np.asarray(ms.hyp2f1(a, b, c, x)), ss.hyp2f1(a, b, c, x),
                                   rtol=1e-10)


def test_special_points():
    # x == 1: Gauss's sum when c - a - b > 0, inf otherwise; x > 1 and c a pole: inf
    a = np.array([1.0, 1.0, 0.5, 1.0, 1.0])
    b = np.array([2.0, 2.0, 0.5, 2.0, 2.0])
    c = np.array([4.5, 2.5, 3.0, 3.0, -2.0])
    x = np.array([1.0, 1.0, 1.0, 1.5, 0.5])
    np.testing.assert_allclose(np.asarray(ms.hyp2f1(a, b, c, x)), ss.hyp2f1(a, b, c, x),
                               rtol=1e-13)
    # 1F1 at b a pole, a == b, x == 0, a negative integer (a polynomial)
    a = np.array([1.0, 2.5, 3.0, -3.0, -2.0])
    b = np.array([-1.0, 2.5, 1.5, 1.5, 0.5])
    x = np.array([1.0, -3.0, 0.0, -7.0, 4.0])
    np.testing.assert_allclose(np.asarray(ms.hyp1f1(a, b, x)), ss.hyp1f1(a, b, x),
                               rtol=1e-13)


def test_polynomials_past_a_pole():
    # a non-positive integer a (or b) ends the series before the pole in b (or c): SciPy
    # sums the polynomial, at every x (transformations do not hold there)
    a = np.array([-2.0, -2.0, -3.0, -3.0, -1.0])
    b = np.array([-4.0, -4.0, 2.5, -2.0, 0.5])
    x = np.array([1.5, -1.5, -800.0, 1.0, -20.0])
    np.testing.assert_allclose(np.asarray(ms.hyp1f1(a, b, x)), ss.hyp1f1(a, b, x),
                               rtol=1e-13)
    a = np.array([-2.0, -2.0, 1.5, -3.0, -3.0, -3.0, -3.0])
    b = np.array([1.5, 1.5, -2.0, 1.5, 1.5, 1.5, 1.5])
    c = np.array([-4.0, -4.0, -4.0, -2.0, 2.0, 2.0, 2.0])
    x = np.array([0.3, -3.0, 0.95, 0.3, 1.0, 3.0, -30.0])
    np.testing.assert_allclose(np.asarray(ms.hyp2f1(a, b, c, x)), ss.hyp2f1(a, b, c, x),
                               rtol=1e-13)


def test_hyp1f1_large_negative_x():
    # past the Kummer sum's range: the algebraic large-|x| expansion
    a = np.array([0.5, 1.0, 2.5, 4.0])
    b = np.array([1.5, 3.0, 0.7, 8.0])
    x = np.array([-700.0, -1e3, -5e4, -1e8])
    np.testing.assert_allclose(np.asarray(ms.hyp1f1(a, b, x)), ss.hyp1f1(a, b, x),
                               rtol=1e-12)


def test_broadcasting_and_dtypes():
    out = ms.hyp1f1(np.array([[0.5], [1.5]]), 2.0, np.linspace(-3, 3, 4))
    assert out.shape == (2, 4) and out.dtype == np.float64
    out = ms.hyp2f1(1.0, np.array([0.5, 1.5]), 3.0, np.array([[0.1], [-0.4], [0.7]]))
    assert out.shape == (3, 2)
    assert ms.hyp1f1(1, 2, 3).dtype == np.float64   # integers promote to the default float


def test_float32():
    # float32 in, float32 out, computed in float64 (enable_x64 on): rounded float32 values
    a, b, c = (v[:300].astype(np.float32) for v in (A2, B2, C2))
    x = X2[::10][:300].astype(np.float32)
    out = ms.hyp2f1(a, b, c, x)
    assert out.dtype == np.float32
    want = ss.hyp2f1(*(v.astype(np.float64) for v in (a, b, c, x)))
    assert rel_err(out, want).max() < 2e-7
    a, b, x = (v[:300].astype(np.float32) for v in (A1, B1, X1 * 0.5))
    out = ms.hyp1f1(a, b, x)
    assert out.dtype == np.float32
    want = ss.hyp1f1(*(v.astype(np.float64) for v in (a, b, x)))
    assert rel_err(out, want).max() < 2e-7


def test_float32_without_x64():
    # with 64-bit off the sums run in float32 (as JAX's do): a few digits lost to cancellation
    a, b, c = (v[:300].astype(np.float32) for v in (A2, B2, C2))
    x = np.clip(X2[::10][:300], -5.0, 0.9).astype(np.float32)
    with minijax.enable_x64(False):
        out = ms.hyp2f1(a, b, c, x)
        assert out.dtype == np.float32
        want = ss.hyp2f1(*(v.astype(np.float64) for v in (a, b, c, x)))
        assert rel_err(out, want).max() < 1e-3


def test_jit_and_vmap_agree_with_eager():
    # (fusion changes the rounding; values near a zero of 2F1 carry it at ~1e-12)
    a, b, x = A1[:64], B1[:64], X1[:64]
    eager = np.asarray(ms.hyp1f1(a, b, x))
    np.testing.assert_allclose(np.asarray(minijax.jit(ms.hyp1f1)(a, b, x)), eager, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.hyp1f1, (0, None, 0))(a, 2.5, x)),
                               np.asarray(ms.hyp1f1(a, 2.5, x)), rtol=1e-10)
    a, b, c, x = A2[::40], B2[::40], C2[::40], X2[::40]
    eager = np.asarray(ms.hyp2f1(a, b, c, x))
    np.testing.assert_allclose(np.asarray(minijax.jit(ms.hyp2f1)(a, b, c, x)), eager,
                               rtol=1e-10)
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.hyp2f1)(a, b, c, x)), eager,
                               rtol=1e-10)


def test_derivative_in_x():
    x1 = jnp.array([-30.0, -2.0, 0.5, 7.0])
    check_grads(lambda x: ms.hyp1f1(jnp.array([2.5, 0.7, 3.0, 1.2]), 1.5, x), (x1,),
                order=1, eps=1e-4, tol=1e-6)
    x2 = jnp.array([-12.0, -0.6, 0.4, 0.95])
    check_grads(lambda x: ms.hyp2f1(jnp.array([0.5, 1.3, 2.0, 0.7]), 1.7, 3.1, x), (x2,),
                order=1, eps=1e-5, tol=1e-6)
    # the identities themselves, against SciPy, and under grad/vmap
    g = minijax.vmap(minijax.grad(lambda a, x: ms.hyp1f1(a, 1.5, x), argnums=1), (0, 0))
    a = jnp.array([2.5, 0.7, 3.0, 1.2])
    np.testing.assert_allclose(np.asarray(g(a, x1)),
                               np.asarray(a) / 1.5 * ss.hyp1f1(np.asarray(a) + 1, 2.5, x1),
                               rtol=1e-12)


def test_parameter_derivatives():
    # forward mode through the summations, each branch: the direct series, Kummer's
    # transformation, the large-|x| expansion (1F1); Pfaff, Euler, the 1 - x connection (2F1)
    a1 = jnp.array([1.3, 2.5, 0.5, 3.0])
    b1 = jnp.array([2.2, 0.7, 1.5, 2.0])
    x1 = jnp.array([3.0, -30.0, -800.0, 20.0])
    check_grads(ms.hyp1f1, (a1, b1, x1), order=1, eps=1e-6, tol=1e-5)
    a2 = jnp.array([1.3, 2.5, 0.5, 0.7, 1.1])
    b2 = jnp.array([2.2, 0.7, 1.5, 1.2, 2.3])
    c2 = jnp.array([3.0, 1.9, 3.3, 1.1, 2.9])
    x2 = jnp.array([0.4, -3.0, 0.97, 0.8, -30.0])
    check_grads(ms.hyp2f1, (a2, b2, c2, x2), order=1, eps=1e-6, tol=1e-5)
    # against SciPy's central differences in a
    h = 1e-6
    got = minijax.grad(lambda a: ms.hyp2f1(a, 0.7, 1.9, -3.0))(2.5)
    want = (ss.hyp2f1(2.5 + h, 0.7, 1.9, -3.0) - ss.hyp2f1(2.5 - h, 0.7, 1.9, -3.0)) / (2 * h)
    np.testing.assert_allclose(float(got), want, rtol=1e-7)


def test_complex_rejected():
    with pytest.raises(NotImplementedError, match="complex"):
        ms.hyp1f1(1.0, 2.0, 1j)
