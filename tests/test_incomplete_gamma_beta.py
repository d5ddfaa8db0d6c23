"""lax.igamma / igammac / igamma_grad_a / random_gamma_grad / betainc and their
scipy.special faces: SciPy as the value oracle, central finite differences for the
derivatives in ``a`` and ``x``, JAX (optional) for the sample derivative, and the NumPy
kernel against the lowering (eager, jit, vmap)."""

import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
import minijax.scipy.special as ms
from minijax import lax
from minijax.test_util import check_grads


def _grid(seed=0, n=400):
    rng = np.random.default_rng(seed)
    a = np.concatenate([rng.uniform(0.01, 5.0, n // 2), np.exp(rng.uniform(np.log(5), np.log(2e3),
                                                                          n // 2))])
    x = a * np.exp(rng.uniform(-2.5, 1.5, n))
    return a, x


EDGE_A = np.array([0.0, 0.0, 1.0, 1.0, -1.0, 1.0, np.inf, 2.0, np.nan, 3.0, 1e-300, 0.5])
EDGE_X = np.array([1.0, 0.0, 0.0, np.inf, 1.0, -1.0, 1.0, np.nan, 1.0, 1e-300, 0.5, 1e300])


@pytest.mark.parametrize("name,oracle", [("gammainc", ss.gammainc), ("gammaincc", ss.gammaincc)])
def test_incomplete_gamma_matches_scipy(name, oracle):
    a, x = _grid()
    f = getattr(ms, name)
    expected = oracle(a, x)
    np.testing.assert_allclose(np.asarray(f(a, x)), expected, rtol=1e-11, atol=1e-300)
    np.testing.assert_allclose(np.asarray(minijax.jit(f)(a, x)), expected, rtol=1e-11,
                               atol=1e-300)
    # Q(1e-300, 0.5) = 5.6e-301 comes out as 1 - P: absolute accuracy only
    np.testing.assert_allclose(np.asarray(f(EDGE_A, EDGE_X)), oracle(EDGE_A, EDGE_X),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(minijax.jit(f)(EDGE_A, EDGE_X)),
                               oracle(EDGE_A, EDGE_X), rtol=1e-12, atol=1e-15)


def test_igamma_and_igammac_are_complementary_in_both_tails():
    a, x = _grid(1)
    p, q = np.asarray(lax.igamma(a, x)), np.asarray(lax.igammac(a, x))
    np.testing.assert_allclose(p + q, 1.0, rtol=1e-13)
    # each tail keeps its relative accuracy where the other is near 1
    tiny = q < 1e-30
    assert tiny.any()
    np.testing.assert_allclose(q[tiny], ss.gammaincc(a, x)[tiny], rtol=1e-10, atol=1e-300)


def test_betainc_matches_scipy():
    rng = np.random.default_rng(2)
    a = np.exp(rng.uniform(np.log(0.05), np.log(500), 400))
    b = np.exp(rng.uniform(np.log(0.05), np.log(500), 400))
    x = rng.uniform(0, 1, 400)
    expected = ss.betainc(a, b, x)
    np.testing.assert_allclose(np.asarray(ms.betainc(a, b, x)), expected, rtol=1e-10,
                               atol=1e-300)
    np.testing.assert_allclose(np.asarray(minijax.jit(ms.betainc)(a, b, x)), expected,
                               rtol=1e-10, atol=1e-300)
    ea = np.array([0.0, 1.0, 0.0, 1.0, 2.0, 1.0, -1.0, np.inf, 2.0, np.nan])
    eb = np.array([1.0, 0.0, 0.0, 1.0, 2.0, 1.0, 1.0, 2.0, np.inf, 1.0])
    ex = np.array([0.5, 0.5, 0.5, 0.0, 1.0, 1.5, 0.5, 0.5, 0.5, 0.5])
    np.testing.assert_allclose(np.asarray(ms.betainc(ea, eb, ex)), ss.betainc(ea, eb, ex))
    np.testing.assert_allclose(np.asarray(minijax.jit(ms.betainc)(ea, eb, ex)),
                               ss.betainc(ea, eb, ex))


def test_derivative_in_a_matches_finite_differences():
    a, x = _grid(3, 200)
    h = 1e-5 * a
    # difference the log of the smaller tail (the other is 1 minus a tiny number; the log
    # is smooth where the tail itself falls off by hundreds of decades)
    upper = x > a
    sign = np.where(upper, -1.0, 1.0)

    def log_tail(v):
        return np.where(upper, np.log(ss.gammaincc(v, x)), np.log(ss.gammainc(v, x)))
    fd = sign * np.where(upper, ss.gammaincc(a, x), ss.gammainc(a, x)) * (
        log_tail(a + h) - log_tail(a - h)) / (2 * h)
    got = np.asarray(lax.igamma_grad_a(a, x))
    resolved = np.isfinite(fd)           # where the tail itself has not underflowed
    assert resolved.sum() > 150
    np.testing.assert_allclose(got[resolved], fd[resolved], rtol=1e-6, atol=0)
    np.testing.assert_allclose(np.asarray(minijax.jit(lax.igamma_grad_a)(a, x)), got,
                               rtol=1e-10)
    ga = minijax.grad(lambda v: jnp.sum(ms.gammainc(v, x)))(a)
    np.testing.assert_allclose(np.asarray(ga), got, rtol=1e-12)
    gc = minijax.grad(lambda v: jnp.sum(ms.gammaincc(v, x)))(a)
    np.testing.assert_allclose(np.asarray(gc), -got, rtol=1e-12)


def test_gradients_in_x_and_mixed():
    a = jnp.asarray([0.3, 1.0, 2.5, 40.0])
    x = jnp.asarray([0.2, 1.7, 3.0, 35.0])
    check_grads(ms.gammainc, (a, x), order=1)
    check_grads(ms.gammaincc, (a, x), order=1)
    check_grads(lambda v: ms.gammainc(a, v), (x,), order=2)
    check_grads(lambda v: lax.igamma_grad_a(a, v), (x,), order=1)
    check_grads(lambda v: lax.random_gamma_grad(a, v), (x,), order=1)
    check_grads(lambda v: ms.betainc(jnp.asarray([0.5, 2.0]), jnp.asarray([3.0, 0.7]), v),
                (jnp.asarray([0.3, 0.6]),), order=2)


def test_betainc_derivatives_in_a_and_b_match_finite_differences():
    rng = np.random.default_rng(8)
    a = np.exp(rng.uniform(np.log(0.1), np.log(200), 200))
    b = np.exp(rng.uniform(np.log(0.1), np.log(200), 200))
    x = rng.uniform(0, 1, 200)
    # central differences of the log of the smaller tail (I or 1 - I = I_{1-x}(b, a))
    upper = ss.betainc(a, b, x) > 0.5
    tail = np.where(upper, ss.betainc(b, a, 1 - x), ss.betainc(a, b, x))
    sign = np.where(upper, -1.0, 1.0)

    def log_tail(aa, bb):
        return np.where(upper, np.log(ss.betainc(bb, aa, 1 - x)), np.log(ss.betainc(aa, bb, x)))
    for grad_fn, argnum in ((lax.betainc_grad_a, 0), (lax.betainc_grad_b, 1)):
        h = 1e-4 * (a, b)[argnum]
        step = (h, 0) if argnum == 0 else (0, h)
        fd = sign * tail * (log_tail(a + step[0], b + step[1])
                            - log_tail(a - step[0], b - step[1])) / (2 * h)
        got = np.asarray(grad_fn(a, b, x))
        resolved = np.isfinite(fd) & (tail > 1e-290)
        assert resolved.sum() > 150
        np.testing.assert_allclose(got[resolved], fd[resolved], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(minijax.jit(grad_fn)(a, b, x)), got, rtol=1e-10)
        via_grad = minijax.grad(lambda v: jnp.sum(ms.betainc(*((v, b) if argnum == 0 else
                                                              (a, v)), x)))((a, b)[argnum])
        np.testing.assert_allclose(np.asarray(via_grad), got, rtol=1e-12)
    check_grads(ms.betainc, (jnp.asarray([0.5, 2.0, 30.0]), jnp.asarray([3.0, 0.7, 20.0]),
                             jnp.asarray([0.3, 0.6, 0.55])), order=1)


def test_the_underivable_arguments_raise_named_errors():
    with pytest.raises(NotImplementedError, match="betainc_grad_a is not differentiable"):
        minijax.grad(lambda a: lax.betainc_grad_a(a, 2.0, 0.5))(1.5)
    with pytest.raises(NotImplementedError, match="igamma_grad_a is not differentiable"):
        minijax.grad(lambda a: lax.igamma_grad_a(a, 2.0))(1.5)


def test_random_gamma_grad_is_the_implicit_sample_derivative():
    a, x = _grid(4, 200)
    density = np.exp((a - 1) * np.log(x) - x - ss.gammaln(a))
    got = np.asarray(lax.random_gamma_grad(a, x))
    # (computed without forming the density, so finite also where the density underflows)
    assert np.isfinite(got).all()
    resolved = density > 1e-250
    np.testing.assert_allclose(got[resolved], -np.asarray(lax.igamma_grad_a(a, x))[resolved]
                               / density[resolved], rtol=1e-9)
    # the quantile function's derivative: x(a) at fixed P, by finite differences
    p = 0.3
    a0 = np.array([0.7, 2.0, 9.0])
    h = 1e-6
    x_of = lambda aa: _gamma_quantile(aa, p)  # noqa: E731
    fd = (x_of(a0 + h) - x_of(a0 - h)) / (2 * h)
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(a0, x_of(a0))), fd, rtol=1e-6)


def _gamma_quantile(a, p):
    from scipy.special import gammaincinv
    return gammaincinv(a, p)


def test_random_gamma_grad_matches_jax():
    jax = pytest.importorskip("jax")
    a, x = _grid(5, 200)
    jax.config.update("jax_enable_x64", True)
    try:
        expected = np.asarray(jax.lax.random_gamma_grad(a, x))
        expected_da = np.asarray(jax.lax.igamma_grad_a(a, x))
    finally:
        jax.config.update("jax_enable_x64", False)
    # where P or Q underflows JAX's iteration stops early (there the asymptotic
    # dx/da = (psi(a + 1) - log x) / (a / x - 1) agrees with minijax, not with JAX)
    resolved = (ss.gammainc(a, x) > 1e-300) & (ss.gammaincc(a, x) > 1e-300)
    assert resolved.sum() > 150
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(a, x))[resolved],
                               expected[resolved], rtol=1e-10)
    far = ss.gammainc(a, x) == 0
    asymptotic = (ss.digamma(a + 1) - np.log(x)) / (a / x - 1)
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(a, x))[far], asymptotic[far],
                               rtol=2e-3)
    np.testing.assert_allclose(np.asarray(lax.igamma_grad_a(a, x)), expected_da, rtol=1e-10,
                               atol=1e-300)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_narrow_floats_follow_the_input(dtype):
    a, x = _grid(6, 50)
    a, x = a[:25].astype(dtype), x[:25].astype(dtype)
    for f in (ms.gammainc, ms.gammaincc):
        eager, jitted = f(a, x), minijax.jit(f)(a, x)
        assert eager.dtype == jitted.dtype == dtype
        tol = 2e-5 if dtype == np.float32 else 2e-3
        expected = getattr(ss, f.__name__)(a.astype(np.float64), x.astype(np.float64))
        np.testing.assert_allclose(np.asarray(eager, np.float64), expected, atol=tol)
        np.testing.assert_allclose(np.asarray(jitted, np.float64), expected, atol=10 * tol)


def test_vmap_matches_the_loop():
    a, x = _grid(7, 12)
    a, x = a.reshape(3, 4), x.reshape(3, 4)
    batched = minijax.vmap(ms.gammainc)(a, x)
    np.testing.assert_allclose(np.asarray(batched), ss.gammainc(a, x), rtol=1e-12)
    batched = minijax.vmap(lambda v: ms.betainc(2.0, 3.0, v))(x / x.max())
    np.testing.assert_allclose(np.asarray(batched), ss.betainc(2.0, 3.0, x / x.max()),
                               rtol=1e-12)


def test_igamma_large_shape_near_the_mean():
    # x near a needs ~8.5 sqrt(a) series/fraction terms, and the prefactor's three terms
    # each near a log a cancel: both were off for a >= 1e5 (poisson.cdf at mu = 1e6 by 5e-3)
    import scipy.stats as st
    import minijax.scipy.stats as mst
    a = np.concatenate([[9.9, 29.0, 30.0, 31.0], np.logspace(2, 7, 11)])
    x = a[:, None] * np.linspace(0.9, 1.1, 9)[None, :]
    a = np.broadcast_to(a[:, None], x.shape)
    np.testing.assert_allclose(np.asarray(lax.igammac(jnp.asarray(a), jnp.asarray(x))),
                               ss.gammaincc(a, x), rtol=0, atol=3e-14)
    np.testing.assert_allclose(np.asarray(minijax.jit(lax.igamma)(jnp.asarray(a), jnp.asarray(x))),
                               ss.gammainc(a, x), rtol=0, atol=3e-14)
    mu = np.array([1e5, 1e6, 1e7])
    k = np.floor(mu + np.sqrt(mu))
    np.testing.assert_allclose(np.asarray(mst.poisson.cdf(k, mu)), st.poisson.cdf(k, mu),
                               rtol=0, atol=1e-13)
