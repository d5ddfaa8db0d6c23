"""``minijax.numpy.fft``: NumPy's ``numpy.fft`` (and the Array API ``fft`` extension)
on minijax arrays, differentiable and traceable.

Every transform is ``minijax.lax.fft`` over at most three axes at a time (XLA's limit),
composed for more; ``norm`` scales the result ("backward": the inverse divides by the
number of points, "ortho": both by its square root, "forward": the forward transform
divides). Dtypes follow NumPy 2: float32, float16 and complex64 inputs give complex64
(float32 for the real outputs), everything else complex128 (float64).
"""

import math
import operator

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from ..util import canonicalize_axis
from ._core import to_array
from ._manipulation import roll

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_MAX_AXES = 3   # XLA's fft transforms at most three axes per operation
# inputs transformed in single precision (NumPy 2's rule; bfloat16 as float16)
_SINGLE = (np.dtype(np.float16), np.dtype(dtypes.bfloat16), np.dtype(np.float32),
           np.dtype(np.complex64))


# ---------------------------------------------------------------- argument handling

def _norm(norm, name):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"fft.{name}: norm must be None, 'backward', 'ortho' or "
                         f"'forward', got {norm!r}")
    return norm


def _complex_input(a, name):
    """``a`` as complex64 (from float32/float16/complex64) or complex128."""
    x = to_array(a)
    dtype = get_aval(x).dtype
    _check_numeric(dtype, name)
    target = np.complex64 if dtype in _SINGLE else np.complex128
    target = dtypes.canonicalize(target)
    return x if dtype == target else lax.convert_element_type(x, target)


def _real_input(a, name):
    """``a`` as float32 (from float32/float16) or float64; complex input is an error
    (NumPy discards the imaginary part with a warning; the Array API forbids it)."""
    x = to_array(a)
    dtype = get_aval(x).dtype
    _check_numeric(dtype, name)
    if dtypes.is_complex(dtype):
        raise TypeError(f"fft.{name} takes real input, got {dtype.name}; take the real part "
                        f"first or use fft.fft")
    target = dtypes.canonicalize(np.float32 if dtype in _SINGLE else np.float64)
    return x if dtype == target else lax.convert_element_type(x, target)


def _check_numeric(dtype, name):
    if not (dtype == np.bool_ or dtypes.is_integer(dtype) or dtypes.is_inexact(dtype)):
        raise TypeError(f"fft.{name} takes numeric input, got {dtype}")


def _length(n, name, what="n"):
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{name}: invalid number of data points ({n}) specified; "
                         f"{what} must be at least 1")
    return n


def _resize(x, axis, n):
    """``x`` cropped or zero-padded to ``n`` entries along ``axis``."""
    aval = get_aval(x)
    have = aval.shape[axis]
    if have == n:
        return x
    if have > n:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    config = [(0, 0, 0)] * aval.ndim
    config[axis] = (0, n - have, 0)
    return lax.pad(x, np.zeros((), aval.dtype), config)


def _axes_lengths(x, s, axes, name, inverse_real=False):
    """NumPy's ``s``/``axes`` rules: the axes transformed and their lengths."""
    ndim = get_aval(x).ndim
    shape = get_aval(x).shape
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    elif isinstance(axes, (int, np.integer)):
        raise TypeError(f"fft.{name}: axes must be a sequence of ints, got {axes!r}")
    axes = [canonicalize_axis(operator.index(a), ndim) for a in axes]
    if s is None:
        lengths = [shape[a] for a in axes]
        if inverse_real and axes:
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError(f"fft.{name}: s and axes have different lengths ({len(s)} "
                             f"and {len(axes)})")
        lengths = [shape[a] if n is None or n == -1 else n for n, a in zip(s, axes)]
        if inverse_real and axes and s[-1] is None:
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
    lengths = [_length(n, name, "each entry of s") for n in lengths]
    return axes, lengths


def _transform(x, kind, axes, lengths):
    """``lax.fft`` of ``kind`` over ``axes`` (at most three, distinct), which are moved
    to the end and back. ``lengths`` are lax's ``fft_lengths``."""
    ndim = get_aval(x).ndim
    rest = [a for a in range(ndim) if a not in axes]
    perm = (*rest, *axes)
    identity = perm == tuple(range(ndim))
    y = x if identity else lax.transpose(x, perm)
    y = lax.fft(y, kind, tuple(lengths))
    if identity:
        return y
    return lax.transpose(y, tuple(np.argsort(perm)))


def _chunks(axes, lengths):
    """``(axes, lengths)`` runs of at most three distinct axes, in the order they are
    transformed: the last axis first, as NumPy applies them (so a repeated axis is
    transformed once per mention, at the length given there)."""
    out, current = [], []
    for a, n in zip(reversed(axes), reversed(lengths)):
        if a in [c for c, _ in current] or len(current) == _MAX_AXES:
            out.append(current[::-1])
            current = []
        current.append((a, n))
    if current:
        out.append(current[::-1])
    return [([a for a, _ in run], [n for _, n in run]) for run in out]


def _scale(x, norm, count, inverse):
    """Apply ``norm`` to a transform over ``count`` points (lax's inverse transforms
    already divide by ``count``)."""
    if norm == "backward":
        return x
    if norm == "ortho":
        factor = math.sqrt(count) if inverse else 1 / math.sqrt(count)
    else:   # "forward"
        factor = count if inverse else 1 / count
    aval = get_aval(x)
    return lax.mul(x, lax.full(aval.shape, factor, aval.dtype))


def _store(result, out, name):
    """NumPy's ``out=``: the result written into ``out`` (which is returned)."""
    if out is None:
        return result
    res, dst = get_aval(result), get_aval(out)
    if dst.shape != res.shape:
        raise ValueError(f"fft.{name}: out has shape {dst.shape}, the result has shape "
                         f"{res.shape}")
    if not np.can_cast(res.dtype, dst.dtype, "same_kind"):
        raise TypeError(f"fft.{name}: cannot write a {res.dtype.name} result into out of "
                        f"dtype {dst.dtype.name}")
    out[...] = result
    return out


# ---------------------------------------------------------------- complex transforms

def _c2c(a, s, axes, norm, out, name, inverse):
    norm = _norm(norm, name)
    x = _complex_input(a, name)
    axes, lengths = _axes_lengths(x, s, axes, name)
    kind = "IFFT" if inverse else "FFT"
    for chunk, sizes in _chunks(axes, lengths):
        for ax, n in zip(chunk, sizes):
            x = _resize(x, ax, n)
        x = _transform(x, kind, chunk, sizes)
    x = _scale(x, norm, math.prod(lengths), inverse)
    return _store(x, out, name)


def _one_axis(n, axis):
    return None if n is None else (n,), (axis,)


def fft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-d discrete Fourier transform along ``axis`` (cropped or zero-padded to
    ``n`` points)."""
    s, axes = _one_axis(n, axis)
    return _c2c(a, s, axes, norm, out, "fft", inverse=False)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of ``fft``."""
    s, axes = _one_axis(n, axis)
    return _c2c(a, s, axes, norm, out, "ifft", inverse=True)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """The n-d discrete Fourier transform over ``axes`` (all by default), with output
    lengths ``s``."""
    return _c2c(a, s, axes, norm, out, "fftn", inverse=False)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of ``fftn``."""
    return _c2c(a, s, axes, norm, out, "ifftn", inverse=True)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-d discrete Fourier transform (``fftn`` over the last two axes)."""
    return _c2c(a, s, axes, norm, out, "fft2", inverse=False)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The inverse of ``fft2``."""
    return _c2c(a, s, axes, norm, out, "ifft2", inverse=True)


# ---------------------------------------------------------------- real transforms

def _r2c(a, s, axes, norm, out, name):
    norm = _norm(norm, name)
    x = _real_input(a, name)
    axes, lengths = _axes_lengths(x, s, axes, name)
    if len(set(axes)) == len(axes):
        for ax, n in zip(axes, lengths):
            x = _resize(x, ax, n)
        chunks = _chunks(axes, lengths)
        x = _transform(x, "RFFT", *chunks[0])
        for chunk, sizes in chunks[1:]:
            x = _transform(x, "FFT", chunk, sizes)
    else:   # a repeated axis: NumPy's 1-d transforms, the last axis first
        x = _transform(_resize(x, axes[-1], lengths[-1]), "RFFT", axes[-1:], lengths[-1:])
        for ax, n in zip(reversed(axes[:-1]), reversed(lengths[:-1])):
            x = _transform(_resize(x, ax, n), "FFT", [ax], [n])
    x = _scale(x, norm, math.prod(lengths), inverse=False)
    return _store(x, out, name)


def _c2r(a, s, axes, norm, out, name):
    norm = _norm(norm, name)
    x = _complex_input(a, name)
    axes, lengths = _axes_lengths(x, s, axes, name, inverse_real=True)
    if len(set(axes)) == len(axes):
        for ax, n in zip(axes[:-1], lengths[:-1]):
            x = _resize(x, ax, n)
        x = _resize(x, axes[-1], lengths[-1] // 2 + 1)
        chunks = _chunks(axes, lengths)
        for chunk, sizes in reversed(chunks[1:]):
            x = _transform(x, "IFFT", chunk, sizes)
        x = _transform(x, "IRFFT", *chunks[0])
    else:   # a repeated axis: NumPy's 1-d transforms, the last axis last
        for ax, n in zip(axes[:-1], lengths[:-1]):
            x = _transform(_resize(x, ax, n), "IFFT", [ax], [n])
        x = _resize(x, axes[-1], lengths[-1] // 2 + 1)
        x = _transform(x, "IRFFT", axes[-1:], lengths[-1:])
    x = _scale(x, norm, math.prod(lengths), inverse=True)
    return _store(x, out, name)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-d transform of real input: the ``n // 2 + 1`` non-negative frequencies."""
    s, axes = _one_axis(n, axis)
    return _r2c(a, s, axes, norm, out, "rfft")


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of ``rfft``: ``n`` real points (``2 * (m - 1)`` by default)."""
    s, axes = _one_axis(n, axis)
    return _c2r(a, s, axes, norm, out, "irfft")


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """The n-d transform of real input (the last axis halved, as ``rfft``)."""
    return _r2c(a, s, axes, norm, out, "rfftn")


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of ``rfftn``: real output of shape ``s`` along ``axes``."""
    return _c2r(a, s, axes, norm, out, "irfftn")


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``rfftn`` over the last two axes."""
    return _r2c(a, s, axes, norm, out, "rfft2")


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The inverse of ``rfft2``."""
    return _c2r(a, s, axes, norm, out, "irfft2")


_SWAPPED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """The transform of a Hermitian-symmetric signal given by its first half: ``n``
    real points (``2 * (m - 1)`` by default)."""
    norm = _SWAPPED[_norm(norm, "hfft")]
    x = _complex_input(a, "hfft")
    s, axes = _one_axis(n, axis)
    return _c2r(lax.conj(x), s, axes, norm, out, "hfft")


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of ``hfft``: the ``n // 2 + 1`` non-negative frequencies of real
    input."""
    norm = _SWAPPED[_norm(norm, "ihfft")]
    s, axes = _one_axis(n, axis)
    return _store(lax.conj(_r2c(a, s, axes, norm, None, "ihfft")), out, "ihfft")


# ---------------------------------------------------------------- helpers

def _frequency_dtype(dtype, name):
    if dtype is None:
        return dtypes.default_float()
    dtype = dtypes.canonicalize(dtype)
    if not dtypes.is_inexact(dtype) or dtypes.is_complex(dtype):
        raise ValueError(f"fft.{name}: dtype must be a real floating-point dtype, got "
                         f"{np.dtype(dtype).name}")
    return dtype


def _frequencies(ints, n, d, dtype, device, name):
    dtype = _frequency_dtype(dtype, name)
    if not (isinstance(d, (int, float, np.integer, np.floating))):
        # a traced or array spacing: the sample frequencies depend on it
        step = lax.div(lax.full((), 1.0, dtype), lax.mul(lax.full((), float(n), dtype),
                                                            to_array(d, dtype)))
        out = lax.mul(lax.convert_element_type(to_array(ints), dtype),
                      lax.broadcast_in_dim(step, ints.shape, ()))
    else:
        out = to_array((ints * (1.0 / (n * d))).astype(dtype))
    if device is not None:
        from ..api import device_put   # deferred: minijax.api imports minijax.numpy
        out = device_put(out, device)
    return out


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """The sample frequencies of an ``n``-point ``fft`` with sample spacing ``d``:
    ``[0, 1, ..., n//2 - 1 (or (n-1)//2), -(n//2), ..., -1] / (d * n)``."""
    n = _length(n, "fftfreq")
    ints = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _frequencies(ints, n, d, dtype, device, "fftfreq")


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """The sample frequencies of an ``n``-point ``rfft``: ``[0, 1, ..., n//2] / (d * n)``."""
    n = _length(n, "rfftfreq")
    return _frequencies(np.arange(0, n // 2 + 1), n, d, dtype, device, "rfftfreq")


def _shift(x, axes, sign):
    x = to_array(x)
    ndim = get_aval(x).ndim
    if axes is None:
        axes = tuple(range(ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (axes,)
    axes = tuple(canonicalize_axis(operator.index(a), ndim) for a in axes)
    if not axes:
        return x
    shape = get_aval(x).shape
    return roll(x, tuple(sign * (shape[a] // 2) for a in axes), axes)


def fftshift(x, axes=None):
    """Move the zero frequency to the centre (roll by half of each axis in ``axes``)."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift``."""
    return _shift(x, axes, -1)
