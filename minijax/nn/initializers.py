"""Initializers: functions ``init(key, shape, dtype)`` returning a new parameter array,
drawn with ``minijax.random`` (JAX's ``jax.nn.initializers`` names and signatures)."""

import math
import operator

from .. import dtypes, random
from .. import numpy as mnp


def _dtype(dtype):
    dtype = dtypes.default_float() if dtype is None else dtypes.canonicalize(dtype)
    if dtype.kind == "c":
        raise NotImplementedError("minijax's initializers draw real values only; complex "
                                  f"dtype {dtype} is not supported")
    return dtype


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(operator.index(d) for d in shape)


def zeros(key, shape, dtype=None):
    """An array of zeros (``key`` is unused)."""
    return mnp.zeros(_shape(shape), _dtype(dtype))


def ones(key, shape, dtype=None):
    """An array of ones (``key`` is unused)."""
    return mnp.ones(_shape(shape), _dtype(dtype))


def constant(value, dtype=None):
    """An initializer filling the array with ``value``."""
    def init(key, shape, dtype=dtype):
        return mnp.full(_shape(shape), value, _dtype(dtype))
    return init


def normal(stddev=1e-2, dtype=None):
    """Normal draws with standard deviation ``stddev``."""
    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        return random.normal(key, _shape(shape), dtype) * mnp.asarray(stddev, dtype)
    return init


def uniform(scale=1e-2, dtype=None):
    """Uniform draws on [0, ``scale``)."""
    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        return random.uniform(key, _shape(shape), dtype) * mnp.asarray(scale, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """Normal draws truncated to [``lower``, ``upper``] standard deviations."""
    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        draws = random.truncated_normal(key, lower, upper, _shape(shape), dtype)
        return draws * mnp.asarray(stddev, dtype)
    return init


def _axes(axis, ndim):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(a % ndim for a in axes)


def _fans(shape, in_axis, out_axis, batch_axis):
    if len(shape) < 2:
        raise ValueError(f"variance_scaling needs a shape of rank 2 or more to find fan-in "
                         f"and fan-out, got {shape}")
    in_axes, out_axes = _axes(in_axis, len(shape)), _axes(out_axis, len(shape))
    batch_axes = _axes(batch_axis, len(shape))
    in_size = math.prod(shape[a] for a in in_axes)
    out_size = math.prod(shape[a] for a in out_axes)
    receptive = math.prod(d for i, d in enumerate(shape)
                          if i not in in_axes + out_axes + batch_axes)
    return in_size * receptive, out_size * receptive


# the standard deviation of a standard normal truncated to [-2, 2]
_TRUNCATED_STDDEV = 0.87962566103423978


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Draws with variance ``scale / n``, n the fan-in, fan-out, their mean
    (``fan_avg``) or geometric mean (``fan_geo_avg``) by ``mode``."""
    if mode not in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
        raise ValueError(f"variance_scaling mode must be fan_in, fan_out, fan_avg or "
                         f"fan_geo_avg, got {mode!r}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"variance_scaling distribution must be truncated_normal, normal or "
                         f"uniform, got {distribution!r}")

    def init(key, shape, dtype=dtype):
        shape, dtype = _shape(shape), _dtype(dtype)
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": math.sqrt(fan_in * fan_out)}[mode]
        variance = scale / denominator
        if distribution == "truncated_normal":
            stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
            draws = random.truncated_normal(key, -2.0, 2.0, shape, dtype)
            return draws * mnp.asarray(stddev, dtype)
        if distribution == "normal":
            return random.normal(key, shape, dtype) * mnp.asarray(math.sqrt(variance), dtype)
        draws = random.uniform(key, shape, dtype, -1.0, 1.0)
        return draws * mnp.asarray(math.sqrt(3 * variance), dtype)
    return init


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """Glorot (Xavier) uniform: variance 1 / fan_avg."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """Glorot (Xavier) truncated normal: variance 1 / fan_avg."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """LeCun uniform: variance 1 / fan_in."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """LeCun truncated normal: variance 1 / fan_in."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """He (Kaiming) uniform: variance 2 / fan_in."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """He (Kaiming) truncated normal: variance 2 / fan_in."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """A (semi-)orthogonal matrix along ``column_axis`` against the other axes
    flattened, from the QR decomposition of normal draws, times ``scale``."""
    def init(key, shape, dtype=dtype):
        shape, dtype = _shape(shape), _dtype(dtype)
        if len(shape) < 2:
            raise ValueError(f"orthogonal initializer needs a shape of rank 2 or more, "
                             f"got {shape}")
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        wide = n_rows < n_cols
        draws = random.normal(key, (n_cols, n_rows) if wide else (n_rows, n_cols), dtype)
        q, r = mnp.linalg.qr(draws)
        q = q * mnp.sign(mnp.diagonal(r))[None, :]
        if wide:
            q = q.T
        others = tuple(d for i, d in enumerate(shape) if i != column_axis % len(shape))
        q = mnp.moveaxis(q.reshape(others + (n_cols,)), -1, column_axis)
        return q * mnp.asarray(scale, dtype)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """For convolution kernels (rank 3 to 5, ``[spatial..., in, out]``): zero except an
    orthogonal ``[in, out]`` matrix at the spatial centre."""
    def init(key, shape, dtype=dtype):
        shape, dtype = _shape(shape), _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"delta_orthogonal takes a kernel shape of rank 3, 4 or 5, "
                             f"got {shape}")
        if shape[-2] > shape[-1]:
            raise ValueError(f"delta_orthogonal needs in-channels <= out-channels, got "
                             f"{shape[-2]} > {shape[-1]}")
        ortho = orthogonal(scale, column_axis, dtype)(key, shape[-2:], dtype)
        centre = tuple(d // 2 for d in shape[:-2])
        return mnp.zeros(shape, dtype).at[centre].set(ortho)
    return init


__all__ = ["constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
           "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform",
           "normal", "ones", "orthogonal", "truncated_normal", "uniform", "variance_scaling",
           "xavier_normal", "xavier_uniform", "zeros"]
