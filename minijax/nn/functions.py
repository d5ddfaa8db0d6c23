"""Activations, normalisers and attention: JAX's ``jax.nn`` names and signatures.

Every function is written so that no inf or NaN appears, in values or in first and
second derivatives, where the mathematical value is finite: a branch that would
overflow for inputs it does not serve gets a harmless stand-in input (the
"double where"), so its derivative is finite too and ``where`` discards it.
"""

import math

import numpy as np

from .. import dtypes, lax
from .. import numpy as mnp


def _inexact(x):
    x = mnp.asarray(x)
    if not mnp.isdtype(x.dtype, ("real floating", "complex floating")):
        x = x.astype(dtypes.default_float())
    return x


def _split_where(take_first, x, fill=0.0):
    """(x where ``take_first`` else fill, x where not ``take_first`` else fill)."""
    return mnp.where(take_first, x, fill), mnp.where(take_first, fill, x)


def identity(x):
    """``x`` unchanged."""
    return mnp.asarray(x)


tanh = mnp.tanh


def relu(x):
    """``max(x, 0)``; its derivative at 0 is 0, as in JAX. NaN passes through."""
    x = mnp.asarray(x)
    return mnp.where(x <= 0, mnp.zeros_like(x), x)


def relu6(x):
    """``min(max(x, 0), 6)``; derivative 0 at the kinks, as in JAX."""
    x = mnp.asarray(x)
    return mnp.where(x <= 0, mnp.zeros_like(x), mnp.where(x >= 6, mnp.full_like(x, 6), x))


def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))``."""
    return lax.logistic(_inexact(x))


def softplus(x):
    """``log(1 + exp(x))``, exact for large |x|."""
    x = _inexact(x)
    pos = x > 0
    xp, xn = _split_where(pos, x)
    return mnp.where(pos, xp + mnp.log1p(mnp.exp(-xp)), mnp.log1p(mnp.exp(xn)))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return -softplus(-_inexact(x))


def soft_sign(x):
    """``x / (|x| + 1)``."""
    x = _inexact(x)
    return x / (mnp.abs(x) + 1)


def silu(x):
    """``x * sigmoid(x)`` (also called swish)."""
    x = _inexact(x)
    return x * sigmoid(x)


swish = silu


def gelu(x, approximate=True):
    """Gaussian error linear unit: ``x * Phi(x)``, or its tanh approximation."""
    x = _inexact(x)
    if approximate:
        c = math.sqrt(2 / math.pi)
        return 0.5 * x * (1 + mnp.tanh(c * (x + 0.044715 * x ** 3)))
    return 0.5 * x * lax.erfc(-x / math.sqrt(2))


def elu(x, alpha=1.0):
    """``x`` for x > 0, ``alpha * (exp(x) - 1)`` otherwise."""
    x = _inexact(x)
    pos = x > 0
    _, xn = _split_where(pos, x)
    return mnp.where(pos, x, alpha * mnp.expm1(xn))


def selu(x):
    """Scaled ELU with the self-normalising constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * min(exp(x / alpha) - 1, 0)``."""
    x = _inexact(x)
    pos = x > 0
    _, xn = _split_where(pos, x)
    return mnp.where(pos, x, alpha * mnp.expm1(xn / alpha))


def leaky_relu(x, negative_slope=0.01):
    """``x`` for x >= 0, ``negative_slope * x`` otherwise."""
    x = _inexact(x)
    return mnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    x = _inexact(x)
    return mnp.where(x > 1, mnp.ones_like(x), mnp.where(x < -1, -mnp.ones_like(x), x))


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return relu6(_inexact(x) + 3.0) / 6.0


def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    x = _inexact(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def sparse_plus(x):
    """0 for x <= -1, ``(x + 1)**2 / 4`` for |x| < 1, ``x`` for x >= 1."""
    x = _inexact(x)
    return mnp.where(x <= -1, mnp.zeros_like(x), mnp.where(x >= 1, x, (x + 1) ** 2 / 4))


def sparse_sigmoid(x):
    """The derivative of ``sparse_plus``: 0, ``(x + 1) / 2`` or 1."""
    x = _inexact(x)
    return mnp.where(x <= -1, mnp.zeros_like(x),
                     mnp.where(x >= 1, mnp.ones_like(x), (x + 1) / 2))


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``, without cancellation for large negative x."""
    x = _inexact(x)
    b = mnp.asarray(b, dtype=x.dtype)
    neg = x < 0
    xn, xp = _split_where(neg, x, fill=-1.0)
    root_n = mnp.sqrt(xn * xn + b)
    return mnp.where(neg, b / (2 * (root_n - xn)), (xp + mnp.sqrt(xp * xp + b)) / 2)


def mish(x):
    """``x * tanh(softplus(x))``."""
    x = _inexact(x)
    return x * mnp.tanh(softplus(x))


def log1mexp(x):
    """``log(1 - exp(-x))`` for x > 0, accurate for small and large x."""
    x = _inexact(x)
    small = x < math.log(2)
    xs, xl = _split_where(small, x, fill=1.0)
    return mnp.where(small, mnp.log(-mnp.expm1(-xs)), mnp.log1p(-mnp.exp(-xl)))


def glu(x, axis=-1):
    """Gated linear unit: the first half of ``axis`` times the sigmoid of the second."""
    x = _inexact(x)
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"glu needs an even size along axis {axis}, got {size}")
    a, b = mnp.split(x, 2, axis=axis)
    return a * sigmoid(b)


def _stable_max(x, axis, where, keepdims=True):
    """The max over ``axis`` (finite stand-in 0 where it is infinite), gradient stopped."""
    m = mnp.max(x, axis=axis, keepdims=keepdims, where=where,
                initial=-np.inf if where is not None else None)
    m = mnp.where(mnp.isfinite(m), m, mnp.zeros_like(m))
    return lax.stop_gradient(m)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis``, without overflow; with
    ``return_sign=True`` also the sign of the sum (then negative sums are allowed)."""
    a = _inexact(a)
    if b is not None:
        b = mnp.asarray(b)
        a, b = mnp.broadcast_arrays(a, b.astype(mnp.result_type(a, b)))
        a = a.astype(b.dtype)
    m = _stable_max(a, axis, where)
    e = mnp.exp(a - m)
    if b is not None:
        e = e * b
    s = mnp.sum(e, axis=axis, keepdims=True, where=where)
    sign = mnp.sign(s)
    if return_sign:
        s = mnp.abs(s)
    elif b is not None and not mnp.iscomplexobj(s):
        s = mnp.where(s < 0, mnp.full_like(s, np.nan), s)
    out = mnp.log(s) + m
    if not keepdims:
        axes = tuple(range(a.ndim)) if axis is None else axis
        out = mnp.squeeze(out, axis=axes)
        sign = mnp.squeeze(sign, axis=axes)
    return (out, sign) if return_sign else out


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``log(mean(exp(x)))`` over ``axis``, without overflow."""
    x = _inexact(x)
    if where is None:
        count = x.size if axis is None else math.prod(
            x.shape[a] for a in ((axis,) if isinstance(axis, int) else axis))
    else:
        count = mnp.sum(mnp.broadcast_to(where, x.shape), axis=axis, keepdims=keepdims)
    return logsumexp(x, axis=axis, keepdims=keepdims, where=where) - mnp.log(count)


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` over ``axis``; entries outside ``where`` get 0."""
    x = _inexact(x)
    e = mnp.exp(x - _stable_max(x, axis, where))
    if where is not None:
        e = mnp.where(where, e, mnp.zeros_like(e))
    return e / mnp.sum(e, axis=axis, keepdims=True, where=where)


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` over ``axis``; entries outside ``where`` get -inf."""
    x = _inexact(x)
    shifted = x - _stable_max(x, axis, where)
    e = mnp.exp(shifted)
    out = shifted - mnp.log(mnp.sum(e, axis=axis, keepdims=True, where=where))
    if where is not None:
        out = mnp.where(where, out, mnp.full_like(out, -np.inf))
    return out


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    """``(x - mean) / sqrt(variance + epsilon)`` with mean and variance over ``axis``."""
    x = _inexact(x)
    if mean is None:
        mean = mnp.mean(x, axis=axis, keepdims=True, where=where)
    if variance is None:
        variance = mnp.mean(mnp.square(x - mean), axis=axis, keepdims=True, where=where)
    return (x - mean) * lax.rsqrt(variance + epsilon)


def one_hot(x, num_classes, *, dtype=None, axis=-1, out_sharding=None):
    """``x``'s integer entries as one-hot vectors of length ``num_classes`` placed at
    ``axis`` (out-of-range entries give all zeros), laid out as ``out_sharding`` says."""
    x = mnp.asarray(x)
    num_classes = int(num_classes)
    dtype = dtypes.default_float() if dtype is None else dtype
    out_ndim = x.ndim + 1
    axis = axis + out_ndim if axis < 0 else axis
    if not 0 <= axis < out_ndim:
        raise ValueError(f"one_hot axis {axis} is out of range for a result of rank {out_ndim}")
    classes = mnp.arange(num_classes).reshape((num_classes,) + (1,) * (out_ndim - axis - 1))
    out = (mnp.expand_dims(x, axis) == classes).astype(dtype)
    return out if out_sharding is None else lax.with_sharding_constraint(out, out_sharding)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    """Scaled dot-product attention on ``[batch, seq, heads, head_dim]`` arrays (the
    batch axis may be absent); key/value may have fewer heads, dividing the query's."""
    if implementation not in (None, "xla"):
        raise NotImplementedError(f"dot_product_attention implementation={implementation!r}: "
                                  f"minijax has only the 'xla' implementation")
    if return_residual:
        raise NotImplementedError("dot_product_attention(return_residual=True) is not supported")
    q, k, v = (mnp.asarray(t) for t in (query, key, value))
    unbatched = q.ndim == 3
    if unbatched:
        q, k, v = q[None], k[None], v[None]
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(f"dot_product_attention takes rank-3 or rank-4 query, key, value; "
                         f"got shapes {query.shape}, {key.shape}, {value.shape}")
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    if N % K:
        raise ValueError(f"the query's {N} heads must be a multiple of the key's {K}")
    if N != K:
        k, v = mnp.repeat(k, N // K, axis=2), mnp.repeat(v, N // K, axis=2)
    scale = 1.0 / math.sqrt(H) if scale is None else scale
    logits = mnp.einsum("btnh,bsnh->bnts", q, k) * scale
    if bias is not None:
        bias = mnp.asarray(bias)
        logits = logits + (bias[None] if unbatched and bias.ndim == 3 else bias)
    keep = None
    if mask is not None:
        mask = mnp.asarray(mask, dtype=bool)
        keep = mask[None] if unbatched and mask.ndim == 3 else mask
    if is_causal or local_window_size is not None:
        t = mnp.arange(T)[:, None]
        s = mnp.arange(S)[None, :]
        band = mnp.ones((T, S), dtype=bool)
        if is_causal:
            band = band & (s <= t)
        if local_window_size is not None:
            left, right = ((local_window_size, local_window_size)
                           if isinstance(local_window_size, int) else local_window_size)
            band = band & (s >= t - left) & (s <= t + right)
        keep = band if keep is None else keep & band
    if key_value_seq_lengths is not None:
        kvlen = mnp.asarray(key_value_seq_lengths)
        valid_keys = (mnp.arange(S)[None, :] < kvlen[:, None])[:, None, None, :]
        keep = valid_keys if keep is None else keep & valid_keys
    if keep is not None:
        big_negative = mnp.finfo(logits.dtype).min * 0.7
        logits = mnp.where(keep, logits, mnp.full_like(logits, big_negative))
    probs = softmax(logits, axis=-1)
    out = mnp.einsum("bnts,bsnh->btnh", probs, v)
    if query_seq_lengths is not None:   # padding queries attend to nothing: output 0
        valid_queries = mnp.arange(T)[None, :] < mnp.asarray(query_seq_lengths)[:, None]
        out = mnp.where(valid_queries[:, :, None, None], out, mnp.zeros_like(out))
    return out[0] if unbatched else out
