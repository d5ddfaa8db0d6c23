"""The PRNG implementations rbg and unsafe_rbg (and threefry2x32 beside them), and
``lax.rng_bit_generator``: JAX's bits (JAX 0.10.2 is the oracle) for every sampler,
eagerly, under ``jit`` and under ``vmap`` over keys; key data shapes, dtypes, printing,
``key_impl``, ``wrap_key_data``, the default implementation and the errors.

The samplers are grouped into one jitted program per implementation (minijax's and
JAX's alike) to bound compile time.
"""

import jax
import jax.lax as jl
import jax.random as jr
import numpy as np
import pytest

import minijax
import minijax.random as mr
from minijax import lax
from minijax.config import config
from test_random import assert_same   # (the same element-for-element comparison)

IMPLS = ["rbg", "unsafe_rbg"]
ALL_IMPLS = ["threefry2x32", *IMPLS]
LOGITS = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
P4 = np.array([0.1, 0.2, 0.3, 0.4])


@pytest.fixture
def x32():
    config.update("enable_x64", False)
    yield


@pytest.fixture
def x64():
    config.update("enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", False)


def samplers(r, key, f):
    """Every kind of sampler (on bits, on the gamma loop, on binomial's and multinomial's
    loops) on one key; ``r`` is minijax's or JAX's random module. (Samplers that only
    transform these, such as t or multivariate_normal, are left out: their code does
    not depend on the implementation.)"""
    ks = r.split(key, 21)
    i = np.int64 if f == np.float64 else np.int32
    return {
        "split": r.key_data(r.split(ks[0], (2, 3))),
        "fold_in": r.key_data(r.fold_in(ks[0], 12345)),
        "bits": r.bits(ks[1], (5,), np.uint32),
        "bits8": r.bits(ks[1], (3, 2), np.uint8),
        "bits16": r.bits(ks[1], (3,), np.uint16),
        "bits64": r.bits(ks[1], (3,), np.uint64),
        "uniform": r.uniform(ks[2], (4, 3), f, -2.0, 3.0),
        "uniform_f16": r.uniform(ks[2], (5,), np.float16),
        "normal": r.normal(ks[3], (7,), f),
        "normal_c": r.normal(ks[3], (3,), np.complex64),
        "truncated_normal": r.truncated_normal(ks[4], -1.0, 2.0, (6,), f),
        "bernoulli": r.bernoulli(ks[5], np.array([0.1, 0.5, 0.9], f)),
        "categorical": r.categorical(ks[6], LOGITS.astype(f)),
        "categorical_noreplace": r.categorical(ks[6], LOGITS.astype(f), axis=1, shape=(2, 2),
                                               replace=False),
        "randint": r.randint(ks[7], (8,), -3, 17, i),
        "randint_int8": r.randint(ks[7], (8,), -100, 200, np.int8),
        "permutation": r.permutation(ks[8], 9),
        "permutation_2d": r.permutation(ks[8], np.arange(12.0).reshape(3, 4).astype(f), axis=1),
        "choice": r.choice(ks[9], 10, (3,)),
        "choice_p": r.choice(ks[9], 4, (6,), p=P4.astype(f)),
        "exponential": r.exponential(ks[10], (4,), f),
        "laplace": r.laplace(ks[11], (4,), f),
        "gumbel": r.gumbel(ks[12], (4,), f),
        "rademacher": r.rademacher(ks[13], (6,), i),
        "weibull_min": r.weibull_min(ks[14], 2.0, 1.5, (4,), f),
        "gamma": r.gamma(ks[15], np.array([0.3, 1.0, 4.5], f), dtype=f),
        "loggamma": r.loggamma(ks[16], 0.2, (3,), f),
        "dirichlet": r.dirichlet(ks[17], np.array([0.5, 1.0, 2.0], f), (2,), f),
        "binomial": r.binomial(ks[18], np.array([5.0, 100.0, 60.0]), np.array([0.3, 0.4, 0.9]),
                               dtype=f),
        "multinomial": r.multinomial(ks[19], 20.0, P4, shape=(2, 4), dtype=f),
        "geometric": r.geometric(ks[20], 0.3, (4,)),
    }


def few(r, k):
    """A few samplers. Under vmap over keys, rbg keys draw their bits through
    rng_bit_generator's batching rule (JAX's: the batch's first key draws all of the
    batch's bits), and the gamma sampler loops over every key of the batch (JAX's
    random_gamma batching rule): JAX's bits, not those of a loop over the keys."""
    k1, k2 = r.split(k)
    return {"split": r.key_data(r.split(k1, 2)), "fold_in": r.key_data(r.fold_in(k1, 3)),
            "bits": r.bits(k1, (3,), np.uint32), "uniform": r.uniform(k1, (2,)),
            "normal": r.normal(k2, (2,)), "randint": r.randint(k2, (3,), 0, 9),
            "permutation": r.permutation(k2, 4), "gamma": r.gamma(k2, np.array([0.5, 2.0])),
            "beta": r.beta(k1, 2.0, 0.5, (2,))}


@pytest.mark.parametrize("impl", IMPLS)
def test_every_sampler_under_jit_and_vmap_matches_jax(x64, impl):
    # One program per implementation (and per library): every sampler (rbg), or a few
    # (unsafe_rbg: only key derivation differs from rbg), and a few under vmap over keys.
    def every(r, vmap, data):
        k1, k2 = r.split(r.wrap_key_data(data, impl=impl))
        batched = vmap(lambda k: few(r, k))(r.split(k2, 3))
        direct = samplers(r, k1, np.float64) if impl == "rbg" else few(r, k1)
        return {**direct, **{f"vmap_{n}": v for n, v in batched.items()}}

    seed = 2 ** 33 + 7
    ours = minijax.jit(lambda d: every(mr, minijax.vmap, d))(mr.key_data(mr.key(seed, impl=impl)))
    theirs = jax.jit(lambda d: every(jr, jax.vmap, d))(jr.key_data(jr.key(seed, impl=impl)))
    assert_same(ours, theirs)


@pytest.mark.parametrize("impl", IMPLS)
def test_eager_samplers_match_jax(x32, impl):
    # Each sampler is its own compiled program eagerly: a few, on typed and legacy keys,
    # in 32-bit mode.
    k, jk = mr.key(3, impl=impl), jr.key(3, impl=impl)
    raw, jraw = mr.PRNGKey(3, impl=impl), jr.PRNGKey(3, impl=impl)
    assert raw.shape == (4,) and raw.dtype == np.uint32
    np.testing.assert_array_equal(raw, jraw)
    ours, theirs = few(mr, k), few(jr, jk)
    assert_same(ours, theirs)
    # legacy keys of a non-default implementation are read by wrapping them explicitly
    np.testing.assert_array_equal(mr.uniform(mr.wrap_key_data(raw, impl=impl), (2,)),
                                  jr.uniform(jk, (2,)))


def test_default_impl_from_config(x64):
    jax.config.update("jax_default_prng_impl", "rbg")
    try:
        config.update("jax_default_prng_impl", "rbg")     # JAX's name for the option
        assert config.default_prng_impl == "rbg" and config.read("jax_default_prng_impl") == "rbg"
        k = mr.key(5)
        assert str(k.dtype) == "key<rbg>" and mr.key_impl(k) == "rbg"
        assert mr.key_dtype() == k.dtype and str(mr.key_dtype()) == str(jr.key_dtype())
        assert str(mr.key_dtype("threefry2x32")) == str(jr.key_dtype("threefry2x32"))
        raw = mr.PRNGKey(5)
        assert raw.shape == (4,) and mr.key_impl(raw) == "rbg"
        np.testing.assert_array_equal(raw, jr.PRNGKey(5))
        # legacy uint32[4] keys are read with the default implementation
        assert_same({"u": mr.uniform(raw, (3,)), "s": mr.split(raw, 2)},
                    {"u": jr.uniform(jr.PRNGKey(5), (3,)), "s": jr.split(jr.PRNGKey(5), 2)})
        # threefry keys stay usable when made explicitly; their legacy data is not
        np.testing.assert_array_equal(mr.key_data(mr.key(5, impl="threefry2x32")), [0, 5])
        with pytest.raises(TypeError, match=r"default PRNG implementation \(rbg\).*\(4,\)"):
            mr.uniform(np.array([0, 5], np.uint32))
        config.update("default_prng_impl", "unsafe_rbg")      # minijax's name
        assert str(mr.key(5).dtype) == "key<urbg>"
    finally:
        jax.config.update("jax_default_prng_impl", "threefry2x32")
    with pytest.raises(ValueError, match="must be one of"):
        config.update("jax_default_prng_impl", "philox4x32")


@pytest.mark.parametrize("impl, tag, width", [("threefry2x32", "fry", 2), ("rbg", "rbg", 4),
                                              ("unsafe_rbg", "urbg", 4)])
def test_key_types_shapes_and_printing_as_jax(impl, tag, width):
    k, jk = mr.key(7, impl=impl), jr.key(7, impl=impl)
    assert str(k.dtype) == repr(k.dtype) == k.dtype.name == str(jk.dtype) == f"key<{tag}>"
    assert k.dtype == f"key<{tag}>" and k.dtype != mr.key(7, impl="rbg" if width == 2
                                                            else "threefry2x32").dtype
    assert minijax.dtypes.issubdtype(k.dtype, minijax.dtypes.prng_key)
    assert k.dtype.impl == impl and k.dtype.key_shape == (width,)
    assert repr(k) == repr(jk)
    ks, jks = mr.split(k, (2, 3)), jr.split(jk, (2, 3))
    assert ks.shape == (2, 3) and mr.key_data(ks).shape == (2, 3, width)
    assert repr(ks[1, 2]) == repr(jks[1, 2])
    assert ks.reshape(6).shape == (6,) and ks.T.shape == (3, 2) and ks[0].shape == (3,)
    assert [str(x.dtype) for x in ks] == [f"key<{tag}>"] * 2
    assert mr.key_impl(k) == jr.key_impl(jk) == impl
    assert mr.key_impl(ks) == impl and mr.key_impl(ks[0, 1]) == impl
    data = mr.key_data(ks)
    back = mr.wrap_key_data(data, impl=impl)
    assert back.dtype == k.dtype and back.shape == (2, 3)
    np.testing.assert_array_equal(mr.key_data(back), data)
    assert bool(mr.key(7, impl=impl) == k) and not bool(mr.key(8, impl=impl) == k)
    # keys keep their implementation through jit arguments and results and loop carries
    out = minijax.jit(lambda k: mr.split(k)[1])(k)
    assert isinstance(out, mr.KeyArray) and mr.key_impl(out) == impl
    np.testing.assert_array_equal(mr.key_data(out), jr.key_data(jr.split(jk)[1]))
    folded = minijax.lax.fori_loop(0, 2, lambda i, k: mr.fold_in(k, i), k)
    np.testing.assert_array_equal(mr.key_data(folded),
                                  jr.key_data(jr.fold_in(jr.fold_in(jk, 0), 1)))


def test_gradient_through_rbg_samplers_matches_jax(x64):
    for impl in IMPLS:
        k, jk = mr.key(1, impl=impl), jr.key(1, impl=impl)
        ours = minijax.grad(lambda a: mr.gamma(k, a, (3,)).sum())(1.5)
        theirs = jax.grad(lambda a: jr.gamma(jk, a, (3,)).sum())(1.5)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


# ---------------------------------------------------------------- lax.rng_bit_generator

ALGORITHMS = ["RNG_DEFAULT", "RNG_THREE_FRY", "RNG_PHILOX"]
BIT_DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64]


def _all_bits(l, key):
    return {(alg, np.dtype(dt).name): l.rng_bit_generator(key, (3, 5), dt,
                                                          getattr(l.RandomAlgorithm, alg))
            for alg in ALGORITHMS for dt in BIT_DTYPES}


def _same_trees(ours, theirs):
    assert set(ours) == set(theirs)
    for name in ours:
        for a, b in zip(ours[name], theirs[name]):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape, name
            np.testing.assert_array_equal(a, b, err_msg=str(name))


def test_rng_bit_generator_matches_jax(x64):
    key = np.array([1, 2, 3, 2 ** 32 - 1], np.uint32)
    ours = minijax.jit(lambda k: _all_bits(lax, k))(key)
    _same_trees(ours, jax.jit(lambda k: _all_bits(jl, k))(key))
    # eagerly (a compiled one-operation program), with uint32[4] and uint64[2] keys
    for k in (key, np.array([7, 2 ** 63 + 5], np.uint64)):
        for alg in ALGORITHMS:
            a = lax.rng_bit_generator(k, (4, 2), np.uint32, getattr(lax.RandomAlgorithm, alg))
            b = jl.rng_bit_generator(k, (4, 2), np.uint32, getattr(jl.RandomAlgorithm, alg))
            _same_trees({alg: a}, {alg: b})
    assert str(lax.RandomAlgorithm.RNG_PHILOX) == "RNG_PHILOX"
    assert [int(a) for a in lax.RandomAlgorithm] == [int(a) for a in jl.RandomAlgorithm]


def test_rng_bit_generator_vmap_and_grad_as_jax():
    keys = np.arange(12, dtype=np.uint32).reshape(3, 4)
    for axis in (0, 1):
        stacked = np.moveaxis(keys, 0, axis)
        ours = minijax.vmap(lambda k: lax.rng_bit_generator(k, (5,)), in_axes=axis)(stacked)
        theirs = jax.vmap(lambda k: jl.rng_bit_generator(k, (5,)), in_axes=axis)(stacked)
        _same_trees({axis: ours}, {axis: theirs})
    # the key is an integer: its cotangent is float0, and a float function of the bits
    # has a zero derivative through it
    g = minijax.grad(lambda x: x * lax.rng_bit_generator(keys[0], (2,))[1][0].astype(float))(
        2.0)
    assert float(g) == float(lax.rng_bit_generator(keys[0], (2,))[1][0])


@pytest.mark.parametrize("call, err, match", [
    (lambda: mr.key(0, impl="philox"), ValueError,
     r"unrecognized PRNG implementation 'philox'.*threefry2x32, rbg, unsafe_rbg"),
    (lambda: mr.PRNGKey(0, impl="rgb"), ValueError, "threefry2x32, rbg, unsafe_rbg"),
    (lambda: mr.wrap_key_data(np.zeros(4, np.uint32), impl="bad"), ValueError, "unrecognized"),
    (lambda: mr.key(0, impl="philox4x32"), NotImplementedError, "not implemented in minijax"),
    (lambda: mr.wrap_key_data(np.zeros(2, np.uint32), impl="rbg"), TypeError,
     r"rbg must be a uint32 array of trailing shape \(4,\)"),
    (lambda: mr.wrap_key_data(np.zeros(4, np.uint32)), TypeError, r"trailing shape \(2,\)"),
    (lambda: mr.normal(np.zeros(4, np.uint32)), TypeError, r"threefry2x32.*\(2,\)"),
    (lambda: mr.key(0, impl="rbg") == mr.key(0, impl="unsafe_rbg"), TypeError,
     "key<rbg>, key<urbg>"),
    (lambda: mr.key(0, impl="rbg") + 1, TypeError, "key<rbg>"),
    (lambda: mr.poisson(mr.key(0, impl="rbg"), 2.0), NotImplementedError, "threefry2x32"),
    (lambda: config.update("default_prng_impl", "threefry"), ValueError, "must be one of"),
    (lambda: lax.rng_bit_generator(np.zeros(2, np.uint32), (3,)), TypeError, "uint32"),
    (lambda: lax.rng_bit_generator(np.zeros(4, np.uint32), (3,), np.int32), TypeError,
     "dtype must be one of"),
    (lambda: lax.rng_bit_generator(np.zeros(4, np.uint32), (3,), algorithm=7), ValueError,
     "RNG_DEFAULT"),
    (lambda: lax.rng_bit_generator(np.zeros(4, np.uint32), (3, -1)), ValueError, "negative"),
    (lambda: lax.rng_bit_generator(np.zeros(4, np.uint32), (3,), out_sharding=1),
     TypeError, "NamedSharding or PartitionSpec, got int"),
])
def test_bad_arguments_raise_named_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()
