"""minijax.scipy.special.owens_t and sph_harm_y against SciPy, finite differences, jit, vmap."""

import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
import minijax.scipy.special as ms
from minijax.test_util import check_grads

H = np.array([0.0, 1e-8, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 9.9, 10.0, 10.1, 15.0, 20.0, 30.0,
              37.0, 38.5, 40.0, 100.0, np.inf])
A = np.array([0.0, 1e-3, 0.1, 0.5, 0.9, 0.999, 1.0, 1.001, 1.5, 2.0, 5.0, 10.0, 100.0, 1e5,
              1e10, np.inf])
HH, AA = (g.ravel() for g in np.meshgrid(np.concatenate([-H, H]), np.concatenate([-A, A])))


def rel_err(actual, expected):
    actual = np.asarray(actual)
    scale = np.maximum(np.abs(expected), 1e-300)
    err = np.where(actual == expected, 0.0, np.abs(actual - expected) / scale)
    return np.max(err)


# ---------------------------------------------------------------- owens_t

def test_owens_t_grid_matches_scipy_eager_jit_vmap():
    expected = ss.owens_t(HH, AA)
    eager = ms.owens_t(HH, AA)
    assert eager.dtype == np.float64
    assert rel_err(eager, expected) < 1e-12
    # compiled, XLA's erfc keeps ~10 digits where T is near 1e-300 (|h| ~ 37)
    np.testing.assert_allclose(np.asarray(minijax.jit(ms.owens_t)(HH, AA)), expected,
                               rtol=1e-12, atol=1e-290)
    np.testing.assert_allclose(np.asarray(minijax.vmap(ms.owens_t)(HH, AA)), expected,
                               rtol=1e-12, atol=1e-290)


def test_owens_t_random_points_and_broadcasting():
    rng = np.random.default_rng(0)
    h = rng.uniform(-12, 12, 4000)
    a = rng.standard_cauchy(4000) * 3
    assert rel_err(ms.owens_t(h, a), ss.owens_t(h, a)) < 1e-12
    out = ms.owens_t(np.array([0.5, 2.0])[:, None], np.array([-3.0, 0.2, 0.7]))
    assert out.shape == (2, 3)
    np.testing.assert_allclose(np.asarray(out), ss.owens_t(np.array([0.5, 2.0])[:, None],
                                                           np.array([-3.0, 0.2, 0.7])),
                               rtol=1e-12)
    assert np.isnan(np.asarray(ms.owens_t(np.nan, 1.0)))
    assert np.isnan(np.asarray(ms.owens_t(1.0, np.nan)))


def test_owens_t_tiny_a_against_leading_term():
    # T(h, a) = a exp(-h^2/2) / (2 pi) (1 + O(a^2 h^2)); SciPy itself is only ~1e-7 here
    h = np.array([0.0, 1.0, 5.0, 10.0, 20.0, 30.0])
    a = 1e-10
    expected = a * np.exp(-h * h / 2) / (2 * np.pi)
    np.testing.assert_allclose(np.asarray(ms.owens_t(h, a)), expected, rtol=1e-14)
    np.testing.assert_allclose(np.asarray(ms.owens_t(h, -a)), -expected, rtol=1e-14)


def test_owens_t_float32():
    h = np.array([0.0, 0.3, -1.2, 2.5, 5.0, 8.0], np.float32)
    a = np.array([0.5, 3.0, -0.7, 1.0, -20.0, 0.1], np.float32)
    out = ms.owens_t(h, a)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), ss.owens_t(h.astype(float), a.astype(float)),
                               rtol=2e-6)
    np.testing.assert_allclose(np.asarray(minijax.jit(ms.owens_t)(h, a)), np.asarray(out),
                               rtol=1e-6)


def test_owens_t_derivatives():
    h = np.array([0.3, -1.2, 2.5, 0.0, 5.0, 1.0, 0.7])
    a = np.array([0.5, 3.0, -0.7, 2.0, 1.5, -40.0, 1.0])
    dh, da = minijax.jit(minijax.vmap(minijax.grad(ms.owens_t, argnums=(0, 1))))(h, a)
    eps = 1e-6
    fd_h = (ss.owens_t(h + eps, a) - ss.owens_t(h - eps, a)) / (2 * eps)
    fd_a = (ss.owens_t(h, a + eps) - ss.owens_t(h, a - eps)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(dh), fd_h, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(np.asarray(da), fd_a, rtol=1e-7, atol=1e-10)
    # the closed forms themselves
    phi = np.exp(-h * h / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(np.asarray(dh), -phi * ss.erf(a * h / np.sqrt(2)) / 2,
                               rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(np.asarray(da),
                               np.exp(-h * h * (1 + a * a) / 2) / (2 * np.pi * (1 + a * a)),
                               rtol=1e-13, atol=1e-300)
    check_grads(ms.owens_t, (jnp.asarray(0.8), jnp.asarray(-1.7)), order=2)


# ---------------------------------------------------------------- sph_harm_y

N_MAX = 10
NN, MM = np.meshgrid(np.arange(-1, N_MAX + 1), np.arange(-N_MAX - 1, N_MAX + 2), indexing="ij")
THETA = np.array([0.0, 1e-3, 0.3, 1.2, np.pi / 2, 2.9, np.pi, -0.4, 4.0])[:, None, None]
PHI = np.array([0.0, 0.7, 3.0, 6.2, -1.0])[:, None, None, None]


def test_sph_harm_y_grid_matches_scipy():
    # all n <= 10, all m with |m| <= n + 1 (zero where |m| > n or n < 0), broadcasting
    expected = ss.sph_harm_y(NN, MM, THETA, PHI)
    out = ms.sph_harm_y(NN, MM, THETA, PHI)
    assert out.shape == expected.shape and out.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(out), expected, rtol=0, atol=1e-14)
    assert np.all(np.asarray(out)[..., (np.abs(MM) > NN) | (NN < 0)] == 0)


def test_sph_harm_y_jit_vmap_float32():
    n = np.array([3, 5, 2, 4, 10, 0, 7])
    m = np.array([-2, 5, 0, 1, -10, 0, 8])
    th = np.array([0.3, 1.0, 2.0, 0.0, 1.4, 2.2, 0.9])
    ph = np.array([0.1, 2.0, 5.0, 1.0, 0.3, 4.0, 2.5])
    expected = ss.sph_harm_y(n, m, th, ph)

    def f(n, m, t, p):
        return ms.sph_harm_y(n, m, t, p, n_max=N_MAX)
    np.testing.assert_allclose(np.asarray(minijax.jit(f)(n, m, th, ph)), expected, atol=1e-14)
    np.testing.assert_allclose(np.asarray(minijax.vmap(f)(n, m, th, ph)), expected, atol=1e-14)
    out32 = ms.sph_harm_y(n, m, th.astype(np.float32), ph.astype(np.float32))
    assert out32.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(out32), expected, atol=2e-6)
    # scalars in, scalar out (SciPy's broadcasting; JAX returns shape (1,))
    assert ms.sph_harm_y(2, 1, 0.3, 0.4).shape == ()


def test_sph_harm_y_n_max_clips_and_errors():
    # degrees above n_max are computed at n_max, as in JAX
    out = ms.sph_harm_y(np.array([6, 9]), np.array([2, 2]), 0.7, 0.2, n_max=6)
    np.testing.assert_allclose(np.asarray(out), ss.sph_harm_y(6, 2, 0.7, 0.2), atol=1e-14)
    with pytest.raises(NotImplementedError, match="diff_n"):
        ms.sph_harm_y(2, 1, 0.3, 0.4, diff_n=1)
    with pytest.raises(TypeError, match="n_max"):
        minijax.jit(lambda n: ms.sph_harm_y(n, 1, 0.3, 0.4))(np.array([2, 3]))
    with pytest.raises(TypeError, match="integer"):
        ms.sph_harm_y(2.0, 1, 0.3, 0.4)
    with pytest.raises(TypeError, match="n_max"):
        ms.sph_harm_y(2, 1, 0.3, 0.4, n_max=2.5)


def test_sph_harm_y_derivatives():
    n = np.array([3, 5, 2, 4, 7])
    m = np.array([-2, 5, 0, 1, -3])
    th = np.array([0.3, 1.0, 2.0, 2.8, 1.3])
    ph = np.array([0.1, 2.0, 5.0, 1.0, 3.3])

    def parts(n, m, t, p):
        y = ms.sph_harm_y(n, m, t, p, n_max=7)
        return jnp.real(y), jnp.imag(y)

    jac = minijax.jit(minijax.vmap(minijax.jacfwd(parts, argnums=(2, 3))))(n, m, th, ph)
    eps = 1e-6
    fd_t = (ss.sph_harm_y(n, m, th + eps, ph) - ss.sph_harm_y(n, m, th - eps, ph)) / (2 * eps)
    fd_p = (ss.sph_harm_y(n, m, th, ph + eps) - ss.sph_harm_y(n, m, th, ph - eps)) / (2 * eps)
    (re_t, re_p), (im_t, im_p) = jac
    np.testing.assert_allclose(np.asarray(re_t) + 1j * np.asarray(im_t), fd_t, atol=1e-8)
    np.testing.assert_allclose(np.asarray(re_p) + 1j * np.asarray(im_p), fd_p, atol=1e-8)
    # at the pole theta = 0 the derivative is the one-sided one from inside [0, pi]
    d0 = minijax.grad(lambda t: jnp.real(ms.sph_harm_y(1, 1, t, 0.0)))(0.0)
    fwd = (ss.sph_harm_y(1, 1, 1e-7, 0.0) - ss.sph_harm_y(1, 1, 0.0, 0.0)).real / 1e-7
    np.testing.assert_allclose(float(d0), fwd, rtol=1e-6)
