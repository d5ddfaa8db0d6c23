"""``minijax.scipy.signal``: N-d convolution and correlation (direct, through ``lax.conv``)."""

from .. import lax
from .. import numpy as jnp
from ._util import promote_inexact, reject

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve"]

_MODES = ("full", "same", "valid")
_METHODS = ("auto", "direct", "fft")


def _full_convolution(in1, in2):
    """``sum_j in1[j] in2[k - j]`` for every k (the 'full' output), any number of axes."""
    lhs = in1[None, None]
    rhs = jnp.flip(in2)[None, None]
    padding = [(n - 1, n - 1) for n in in2.shape]
    return lax.conv_general_dilated(lhs, rhs, (1,) * in1.ndim, padding)[0, 0]


def _crop(full, in1, in2, mode):
    if mode == "full":
        return full
    if mode == "same":
        starts = [(n2 - 1) // 2 for n2 in in2.shape]
        sizes = in1.shape
    else:
        bigger = all(a >= b for a, b in zip(in1.shape, in2.shape))
        smaller = all(a <= b for a, b in zip(in1.shape, in2.shape))
        if not (bigger or smaller):
            raise ValueError("valid mode: one input must be at least as large as the other "
                             f"in every dimension, got shapes {in1.shape} and {in2.shape}")
        starts = [min(a, b) - 1 for a, b in zip(in1.shape, in2.shape)]
        sizes = [max(a, b) - min(a, b) + 1 for a, b in zip(in1.shape, in2.shape)]
    return full[tuple(slice(s, s + n) for s, n in zip(starts, sizes))]


def _check(name, in1, in2, mode, method, precision):
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be one of {_MODES}, got {mode!r}")
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {_METHODS}, got {method!r}")
    reject(name, precision=precision)
    in1, in2 = promote_inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"{name}: in1 and in2 must have the same number of dimensions, got "
                         f"{in1.ndim} and {in2.ndim}")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"{name}: inputs must not be empty")
    return in1, in2


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """N-d convolution of ``in1`` and ``in2``; ``mode`` 'full', 'same' or 'valid'.

    Every ``method`` computes the direct sum (minijax has no FFT yet).
    """
    in1, in2 = _check("convolve", in1, in2, mode, method, precision)
    if in1.ndim == 0:
        return in1 * in2
    return _crop(_full_convolution(in1, in2), in1, in2, mode)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """N-d cross-correlation ``sum_l in1[l] conj(in2[l - k])`` (SciPy's lag convention)."""
    in1, in2 = _check("correlate", in1, in2, mode, method, precision)
    if in1.ndim == 0:
        return in1 * jnp.conj(in2)
    flipped = jnp.conj(jnp.flip(in2))
    if mode == "valid" and any(a < b for a, b in zip(in1.shape, in2.shape)):
        # SciPy swaps the inputs, correlates, and reverses and conjugates the result
        return jnp.conj(jnp.flip(correlate(in2, in1, mode="valid")))
    return _crop(_full_convolution(in1, flipped), in1, flipped, mode)


def _check_2d(name, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}: only boundary='fill' with fillvalue=0 is supported")
    if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
        raise ValueError(f"{name}: inputs must be 2-D, got {jnp.ndim(in1)}-D and "
                         f"{jnp.ndim(in2)}-D")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D convolution (``boundary='fill'`` with zeros only)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return convolve(in1, in2, mode=mode, precision=precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D cross-correlation (``boundary='fill'`` with zeros only)."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    if mode != "same":
        return correlate(in1, in2, mode=mode, precision=precision)
    # SciPy centres correlate2d's 'same' output from the other end than correlate's when a
    # kernel side is even: start n // 2 into the full output instead of (n - 1) // 2
    full = correlate(in1, in2, mode="full", precision=precision)
    starts = [n // 2 for n in jnp.shape(in2)]
    return full[tuple(slice(s, s + n) for s, n in zip(starts, jnp.shape(in1)))]


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolution as ``scipy.signal.fftconvolve`` defines it, computed directly (no FFT)."""
    reject("fftconvolve", axes=axes)
    return convolve(in1, in2, mode=mode)
