"""minijax.nn against float64 references (SciPy/NumPy formulas), JAX's names and
signatures, stability at |x| = 1e4 and derivatives against finite differences."""

import inspect
import math

import jax.nn
import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import minijax
import minijax.numpy as mnp
from minijax import nn
from minijax.test_util import check_grads


def _np_softplus(x):
    return np.logaddexp(x, 0.0)


ALPHA, SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

# name -> float64 reference on a NumPy array
REFERENCES = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": sp.expit,
    "softplus": _np_softplus,
    "log_sigmoid": sp.log_expit,
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "silu": lambda x: x * sp.expit(x),
    "swish": lambda x: x * sp.expit(x),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "gelu_exact": lambda x: x * st.norm.cdf(x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "selu": lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(np.minimum(x, 0))),
    "celu": lambda x: np.maximum(x, 0) + 0.5 * np.expm1(np.minimum(x, 0) / 0.5),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.clip((x + 1) / 2, 0, 1),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "mish": lambda x: x * np.tanh(_np_softplus(x)),
    "tanh": np.tanh,
    "identity": lambda x: x,
}


def _ours(name):
    if name == "gelu_exact":
        return lambda x: nn.gelu(x, approximate=False)
    if name == "celu":
        return lambda x: nn.celu(x, alpha=0.5)
    return getattr(nn, name)


XS = np.array([-1e4, -800.0, -30.0, -3.5, -1.0, -0.3, 0.0, 0.2, 1.0, 2.5, 7.0, 30.0, 800.0, 1e4])


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_values_match_float64_reference(name):
    ours = np.asarray(_ours(name)(mnp.asarray(XS)))
    ref = REFERENCES[name](XS.astype(np.longdouble)).astype(np.float64) \
        if name == "squareplus" else REFERENCES[name](XS)
    if name == "squareplus":   # float64 reference without cancellation
        ref = np.where(XS < 0, 4 / (2 * (np.sqrt(XS * XS + 4) - XS)), ref)
    assert np.all(np.isfinite(ours))
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_derivatives_finite_at_large_inputs(name):
    f = _ours(name)
    x = mnp.asarray(np.array([-1e4, -800.0, 800.0, 1e4]))
    d1 = minijax.vmap(minijax.grad(f))(x)
    d2 = minijax.vmap(minijax.grad(minijax.grad(f)))(x)
    assert np.all(np.isfinite(np.asarray(d1))) and np.all(np.isfinite(np.asarray(d2)))


# Points away from each function's kinks (0, ±1, -3, 3, 6).
SMOOTH_XS = np.array([-4.2, -2.3, -0.7, -0.45, 0.35, 0.8, 1.7, 4.4, 6.5])


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_gradients_match_finite_differences(name):
    f = _ours(name)
    check_grads(lambda x: mnp.sum(f(x)), (mnp.asarray(SMOOTH_XS),), order=2)


def test_float32_dtype_and_large_inputs():
    x = mnp.asarray(np.array([-1e4, -50.0, 0.5, 50.0, 1e4], np.float32))
    for name in REFERENCES:
        out = _ours(name)(x)
        assert out.dtype == np.float32, name
        assert np.all(np.isfinite(np.asarray(out))), name


def test_names_and_signatures_match_jax():
    ours = {n for n in dir(nn) if not n.startswith("_")}
    jax_functions = {n for n in dir(jax.nn) if not n.startswith("_") and n not in
                     ("initializers", "get_scaled_dot_general_config", "scaled_dot_general",
                      "scaled_matmul")}
    assert jax_functions <= ours
    for name in sorted(jax_functions):
        theirs = inspect.signature(getattr(jax.nn, name))
        mine = inspect.signature(getattr(nn, name))
        theirs_params = [(p.name, p.kind, p.default) for p in theirs.parameters.values()
                         if p.name != "algorithm"]
        mine_params = [(p.name, p.kind, p.default) for p in mine.parameters.values()
                       if (name, p.name) not in NEWER_JAX or p.name in theirs.parameters]
        assert mine_params == theirs_params, name


# (function, keyword) that minijax has as a newer JAX does (0.11), and JAX 0.10 lacks
NEWER_JAX = {("one_hot", "out_sharding")}


def test_glu_log1mexp_and_errors():
    x = np.arange(6.0).reshape(3, 2) - 2.5
    np.testing.assert_allclose(np.asarray(nn.glu(mnp.asarray(x))), x[:, :1] * sp.expit(x[:, 1:]))
    with pytest.raises(ValueError, match="even"):
        nn.glu(mnp.ones(3))
    x = np.array([1e-10, 0.1, 0.69, 0.7, 5.0, 50.0, 1e4])
    ref = np.where(x < np.log(2), np.log(-np.expm1(-x)), np.log1p(-np.exp(-x)))
    np.testing.assert_allclose(np.asarray(nn.log1mexp(mnp.asarray(x))), ref, rtol=1e-12)
    check_grads(nn.log1mexp, (mnp.asarray([0.1, 0.5, 2.0]),), order=2)


RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((3, 5)) * 4


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
def test_softmax_family(axis):
    x = LOGITS.copy()
    x[0, 0] = 1e4
    np.testing.assert_allclose(np.asarray(nn.softmax(mnp.asarray(x), axis=axis)),
                               sp.softmax(x, axis=axis), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(mnp.asarray(x), axis=axis)),
                               sp.log_softmax(x, axis=axis), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(nn.logsumexp(mnp.asarray(x), axis=axis)),
                               sp.logsumexp(x, axis=axis), rtol=1e-12)
    check_grads(lambda v: mnp.sum(nn.softmax(v, axis=axis) * mnp.arange(5.0)),
                (mnp.asarray(LOGITS),), order=2)
    check_grads(lambda v: mnp.sum(nn.log_softmax(v, axis=axis) ** 2), (mnp.asarray(LOGITS),),
                order=2)
    g = minijax.grad(lambda v: mnp.sum(nn.logsumexp(v, axis=axis)))(mnp.asarray(x))
    assert np.all(np.isfinite(np.asarray(g)))


def test_logsumexp_weights_sign_where_and_inf():
    a, b = LOGITS, RNG.standard_normal((3, 5))
    for axis in (None, 1):
        out, sign = nn.logsumexp(mnp.asarray(a), axis=axis, b=mnp.asarray(b), return_sign=True)
        ref, ref_sign = sp.logsumexp(a, axis=axis, b=b, return_sign=True)
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-10)
        np.testing.assert_array_equal(np.asarray(sign), ref_sign)
        np.testing.assert_allclose(
            np.asarray(nn.logsumexp(mnp.asarray(a), axis=axis, keepdims=True)),
            sp.logsumexp(a, axis=axis, keepdims=True), rtol=1e-12)
    assert np.isnan(float(nn.logsumexp(mnp.asarray([0.0, 0.0]), b=mnp.asarray([1.0, -2.0]))))
    where = LOGITS > 0
    np.testing.assert_allclose(
        np.asarray(nn.logsumexp(mnp.asarray(a), axis=1, where=mnp.asarray(where))),
        [sp.logsumexp(r[w]) for r, w in zip(a, where)], rtol=1e-12)
    assert float(nn.logsumexp(mnp.asarray([-np.inf, -np.inf]))) == -np.inf
    assert float(nn.logsumexp(mnp.asarray([np.inf, 1.0]))) == np.inf
    np.testing.assert_allclose(np.asarray(nn.logmeanexp(mnp.asarray(a), axis=0)),
                               sp.logsumexp(a, axis=0) - np.log(3), rtol=1e-12)
    check_grads(lambda v, w: nn.logsumexp(v, b=w), (mnp.asarray(a[0]), mnp.asarray(b[0] ** 2)),
                order=2)


def test_softmax_where_masks():
    where = np.array([True, False, True, True, False])
    x = LOGITS[0]
    out = np.asarray(nn.softmax(mnp.asarray(x), where=mnp.asarray(where)))
    ref = np.zeros(5)
    ref[where] = sp.softmax(x[where])
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    out = np.asarray(nn.log_softmax(mnp.asarray(x), where=mnp.asarray(where)))
    np.testing.assert_allclose(out[where], sp.log_softmax(x[where]), rtol=1e-12)
    assert np.all(out[~where] == -np.inf)


def test_one_hot_and_standardize():
    labels = np.array([[0, 2], [3, 1]])
    out = nn.one_hot(mnp.asarray(labels), 3)
    assert out.dtype == np.float64 and out.shape == (2, 2, 3)
    np.testing.assert_array_equal(np.asarray(out), np.eye(4)[labels][..., :3])
    np.testing.assert_array_equal(np.asarray(nn.one_hot(mnp.asarray(labels), 4, axis=0)),
                                  np.moveaxis(np.eye(4)[labels], -1, 0))
    assert nn.one_hot(mnp.asarray([1]), 2, dtype=mnp.int32).dtype == np.int32
    x = LOGITS
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(nn.standardize(mnp.asarray(x))), ref, rtol=1e-12)
    check_grads(lambda v: mnp.sum(nn.standardize(v, axis=0) * mnp.arange(5.0)),
                (mnp.asarray(x),), order=2)


def _attention_reference(q, k, v, bias=None, mask=None, causal=False):
    n, kh = q.shape[-2], k.shape[-2]
    k, v = np.repeat(k, n // kh, axis=-2), np.repeat(v, n // kh, axis=-2)
    logits = np.einsum("...tnh,...snh->...nts", q, k) / math.sqrt(q.shape[-1])
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -np.inf)
    return np.einsum("...nts,...snh->...tnh", sp.softmax(logits, axis=-1), v)


@pytest.mark.parametrize("causal", [False, True])
def test_dot_product_attention_matches_reference_and_jax(causal):
    B, T, S, N, K, H = 2, 4, 4, 4, 2, 3
    q = RNG.standard_normal((B, T, N, H))
    k = RNG.standard_normal((B, S, K, H))
    v = RNG.standard_normal((B, S, K, H))
    bias = RNG.standard_normal((B, N, T, S))
    mask = RNG.random((B, N, T, S)) > 0.3
    mask[..., 0] = True
    out = nn.dot_product_attention(mnp.asarray(q), mnp.asarray(k), mnp.asarray(v),
                                   mnp.asarray(bias), mnp.asarray(mask), is_causal=causal)
    ref = _attention_reference(q, k, v, bias, mask, causal)
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-10)
    jax_out = jax.nn.dot_product_attention(q.astype(np.float32), k.astype(np.float32),
                                           v.astype(np.float32), bias.astype(np.float32), mask,
                                           is_causal=causal)
    np.testing.assert_allclose(np.asarray(out), np.asarray(jax_out), rtol=1e-4, atol=1e-5)
    unbatched = nn.dot_product_attention(mnp.asarray(q[0]), mnp.asarray(k[0]),
                                         mnp.asarray(v[0]), is_causal=causal)
    np.testing.assert_allclose(np.asarray(unbatched),
                               _attention_reference(q[0], k[0], v[0], causal=causal), rtol=1e-10)
    check_grads(lambda a, b, c: mnp.sum(nn.dot_product_attention(a, b, c, is_causal=causal)),
                (mnp.asarray(q[0]), mnp.asarray(k[0]), mnp.asarray(v[0])), order=1)
    with pytest.raises(NotImplementedError, match="cudnn"):
        nn.dot_product_attention(mnp.asarray(q), mnp.asarray(k), mnp.asarray(v),
                                 implementation="cudnn")


def test_dot_product_attention_seq_lengths_match_jax():
    q = RNG.standard_normal((2, 5, 2, 4)).astype(np.float32)
    qlen, kvlen = np.array([5, 3], np.int32), np.array([2, 4], np.int32)
    ours = nn.dot_product_attention(mnp.asarray(q), mnp.asarray(q), mnp.asarray(q),
                                    query_seq_lengths=mnp.asarray(qlen),
                                    key_value_seq_lengths=mnp.asarray(kvlen),
                                    local_window_size=(1, 1))
    theirs = jax.nn.dot_product_attention(q, q, q, query_seq_lengths=qlen,
                                          key_value_seq_lengths=kvlen, local_window_size=(1, 1))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)


def test_jit_and_vmap_agree_with_eager():
    x = mnp.asarray(LOGITS)
    for name in ("gelu", "softplus", "mish", "squareplus", "selu"):
        f = getattr(nn, name)
        eager = np.asarray(f(x))
        np.testing.assert_allclose(np.asarray(minijax.jit(f)(x)), eager, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(np.asarray(minijax.vmap(f)(x)), eager, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(minijax.jit(nn.softmax)(x)),
                               np.asarray(nn.softmax(x)), rtol=1e-14)
