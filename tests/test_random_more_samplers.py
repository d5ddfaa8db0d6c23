"""rayleigh, wald, geometric, triangular, lognormal, f and multinomial: JAX's bits for the
same key, shape and dtype (JAX as the oracle), eager vs jit vs vmap, and the
distribution itself (Kolmogorov-Smirnov against SciPy, or moments)."""

import jax
import jax.random as jr
import numpy as np
import pytest
import scipy.stats as st

import minijax
import minijax.random as mr
from minijax.config import config


def _cases(r, key, dtype, shape):
    return {
        "rayleigh": lambda: r.rayleigh(key, 2.0, shape, dtype),
        "wald": lambda: r.wald(key, 1.5, shape, dtype),
        "geometric": lambda: r.geometric(key, 0.3, shape),
        "triangular": lambda: r.triangular(key, -1.0, 0.5, 3.0, shape, dtype),
        "lognormal": lambda: r.lognormal(key, 0.7, shape, dtype),
        "f": lambda: r.f(key, 3.0, 7.0, shape, dtype),
        "multinomial": lambda: r.multinomial(key, 20.0, np.array([0.2, 0.3, 0.1, 0.4]),
                                             shape=shape + (4,), dtype=dtype),
    }


@pytest.fixture(params=[True, False], ids=["x64", "x32"])
def mode(request):
    old = config.enable_x64
    config.update("enable_x64", request.param)
    jax.config.update("jax_enable_x64", request.param)
    yield request.param
    config.update("enable_x64", old)
    jax.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("name", sorted(_cases(None, None, None, ())))
def test_bits_match_jax(mode, name):
    dtype = np.float64 if mode else np.float32
    for seed, shape in ((0, (2, 3)), (2 ** 33 + 7, (2, 3))):   # one compile per dtype
        ours = np.asarray(_cases(mr, mr.key(seed), dtype, shape)[name]())
        theirs = np.asarray(_cases(jr, jr.key(seed), dtype, shape)[name]())
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)


def test_parameter_arrays_broadcast_and_dtypes_as_jax():
    old = config.enable_x64
    config.update("enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        scale = np.array([[0.5], [2.0]])
        for ours, theirs in [
            (mr.rayleigh(mr.key(1), scale, (2, 3)), jr.rayleigh(jr.key(1), scale, (2, 3))),
            (mr.wald(mr.key(1), scale), jr.wald(jr.key(1), scale)),
            (mr.geometric(mr.key(1), np.float32(0.2), (3,), np.int32),
             jr.geometric(jr.key(1), np.float32(0.2), (3,), np.int32)),
            (mr.lognormal(mr.key(1), np.float16(0.5), (2,), np.float16),
             jr.lognormal(jr.key(1), np.float16(0.5), (2,), np.float16)),
            (mr.f(mr.key(3), scale, 4.0), jr.f(jr.key(3), scale, 4.0)),
            (mr.multinomial(mr.key(4), np.array([5.0, 50.0]), np.array([[0.5, 0.5], [0.1, 0.9]])),
             jr.multinomial(jr.key(4), np.array([5.0, 50.0]), np.array([[0.5, 0.5], [0.1, 0.9]]))),
        ]:
            ours, theirs = np.asarray(ours), np.asarray(theirs)
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
            np.testing.assert_array_equal(ours, theirs)
    finally:
        config.update("enable_x64", old)
        jax.config.update("jax_enable_x64", False)


def test_eager_jit_and_vmap_agree():
    keys = mr.split(mr.key(9), 3)
    for name in ("rayleigh", "wald", "geometric", "f", "multinomial"):
        def sample(k):
            return _cases(mr, k, np.float32, (4,))[name]()
        batched = np.asarray(minijax.vmap(sample)(keys))
        # (XLA may fuse f's two divisions differently in a larger program: an ulp)
        rtol = 1e-6 if name == "f" else 0
        for i in range(3):
            eager = np.asarray(sample(keys[i]))
            np.testing.assert_allclose(batched[i], eager, rtol=rtol, err_msg=name)
            np.testing.assert_allclose(np.asarray(minijax.jit(sample)(keys[i])), eager,
                                       rtol=rtol, err_msg=name)


@pytest.mark.parametrize("name,dist", [
    ("rayleigh", st.rayleigh(scale=2.0)), ("wald", st.invgauss(1.5)),
    ("triangular", st.triang(0.375, loc=-1.0, scale=4.0)), ("lognormal", st.lognorm(0.7)),
    ("f", st.f(3.0, 7.0)),
])
def test_distribution_matches_scipy(name, dist):
    old = config.enable_x64
    config.update("enable_x64", True)
    try:
        x = np.asarray(_cases(mr, mr.key(123), np.float64, (4000,))[name]())
    finally:
        config.update("enable_x64", old)
    assert st.kstest(x, dist.cdf).pvalue > 1e-3


def test_geometric_and_multinomial_frequencies():
    g = np.asarray(mr.geometric(mr.key(5), 0.3, (20000,)))
    assert g.min() >= 1
    ks = np.arange(1, 12)
    observed = np.array([(g == k).sum() for k in ks] + [(g >= 12).sum()])
    expected = np.append(st.geom.pmf(ks, 0.3), st.geom.sf(11, 0.3)) * g.size
    assert st.chisquare(observed, expected).pvalue > 1e-3
    p = np.array([0.2, 0.3, 0.1, 0.4])
    counts = np.asarray(mr.multinomial(mr.key(6), 20.0, p, shape=(20000, 4)))
    assert (counts.sum(-1) == 20).all() and (counts >= 0).all()
    np.testing.assert_allclose(counts.mean(0), 20 * p, rtol=0.03)
    np.testing.assert_allclose(np.cov(counts.T), 20 * (np.diag(p) - np.outer(p, p)),
                               atol=0.15)


def test_bad_arguments_raise_named_errors():
    with pytest.raises(TypeError, match="geometric: dtype must be an integer"):
        mr.geometric(mr.key(0), 0.5, dtype=np.float32)
    with pytest.raises(TypeError, match="rayleigh: dtype must be a floating"):
        mr.rayleigh(mr.key(0), 1.0, dtype=np.int32)
    with pytest.raises(ValueError, match="multinomial requires p.ndim >= 1"):
        mr.multinomial(mr.key(0), 3.0, 0.5)
