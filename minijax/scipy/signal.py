"""``minijax.scipy.signal``: N-d convolution and correlation (direct, through ``lax.conv``,
or through FFTs: ``fftconvolve`` and ``method='fft'``); spectral analysis (``stft``,
``istft``, ``csd``, ``welch``, ``detrend``) in ``_spectral``."""

import numpy as np

from .. import dtypes, lax
from .. import numpy as jnp
from ._spectral import csd, detrend, istft, stft, welch
from ._util import reject

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend",
           "fftconvolve", "istft", "stft", "welch"]

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
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    dtype = jnp.result_type(in1, in2)
    if not (jnp.issubdtype(dtype, jnp.number) or dtype == jnp.bool_):
        raise TypeError(f"{name}: inputs must be numeric, got {in1.dtype} and {in2.dtype}")
    if in1.ndim != in2.ndim:
        raise ValueError(f"{name}: in1 and in2 must have the same number of dimensions, got "
                         f"{in1.ndim} and {in2.ndim}")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"{name}: inputs must not be empty")
    return in1.astype(dtype, copy=False), in2.astype(dtype, copy=False)


# 'auto' takes the FFT from this many multiply-adds of the direct sum on (for inexact
# inputs; integers stay exact in the direct sum, as SciPy keeps them)
_AUTO_FFT_FROM = 2 ** 22


def _full(in1, in2, method):
    """The 'full' convolution in ``in1``'s dtype, directly or through FFTs (integers
    there are rounded back, as SciPy's ``method='fft'`` does)."""
    dtype = in1.dtype
    exact = not dtypes.is_inexact(dtype)
    if method == "auto":
        method = "fft" if not exact and in1.size * in2.size >= _AUTO_FFT_FROM else "direct"
    if method == "fft":
        if not exact:
            return _fft_convolution(in1, in2, list(range(in1.ndim)))
        floats = [x.astype(dtypes.default_float()) for x in (in1, in2)]
        out = jnp.round(_fft_convolution(*floats, list(range(in1.ndim))))
        if dtype == jnp.bool_:
            return out != 0
        # through the widest integer, so that a narrow type wraps around (as SciPy's
        # result does) instead of saturating
        wide = jnp.int64 if jnp.issubdtype(dtype, jnp.signedinteger) else jnp.uint64
        return out.astype(wide).astype(dtype)
    if dtype == jnp.bool_:   # any product of two Trues: a count above zero
        return _full_convolution(in1.astype(np.int32), in2.astype(np.int32)) > 0
    return _full_convolution(in1, in2)


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """N-d convolution of ``in1`` and ``in2``; ``mode`` 'full', 'same' or 'valid';
    ``method`` 'direct' (a ``lax`` convolution), 'fft', or 'auto' (the FFT for large
    inexact inputs). The result has the inputs' common dtype, as SciPy's."""
    in1, in2 = _check("convolve", in1, in2, mode, method, precision)
    if in1.ndim == 0:
        return in1 * in2
    return _crop(_full(in1, in2, method), in1, in2, mode)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """N-d cross-correlation ``sum_l in1[l] conj(in2[l - k])`` (SciPy's lag convention);
    ``method`` as for ``convolve``."""
    in1, in2 = _check("correlate", in1, in2, mode, method, precision)
    if in1.ndim == 0:
        return in1 * jnp.conj(in2)
    flipped = jnp.conj(jnp.flip(in2))
    if mode == "valid" and any(a < b for a, b in zip(in1.shape, in2.shape)):
        # SciPy swaps the inputs, correlates, and reverses and conjugates the result
        return jnp.conj(jnp.flip(correlate(in2, in1, mode="valid", method=method)))
    return _crop(_full(in1, flipped, method), in1, flipped, mode)


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


def _fast_fft_length(n, real):
    """The smallest length >= ``n`` whose prime factors are 2, 3, 5 (and 7, 11 for
    complex transforms): sizes the FFT does quickly, as SciPy pads to."""
    primes = (2, 3, 5) if real else (2, 3, 5, 7, 11)
    m = n
    while True:
        rest = m
        for p in primes:
            while rest % p == 0:
                rest //= p
        if rest == 1:
            return m
        m += 1


def _fft_axes(name, in1, in2, axes):
    """``axes`` as a list of distinct non-negative axes (all of them for None), without
    those where an input has length 1 (a broadcast product there, no transform)."""
    ndim = in1.ndim
    if axes is None:
        axes = list(range(ndim))
    else:
        try:
            axes = [axes] if np.ndim(axes) == 0 else list(axes)
        except TypeError:
            raise TypeError(f"{name}: axes must be an integer or a sequence of integers, "
                            f"got {axes!r}") from None
        if not axes:
            raise ValueError(f"{name}: when provided, axes cannot be empty")
        for a in axes:
            if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
                raise TypeError(f"{name}: axes must be integers, got {a!r}")
            if not -ndim <= a < ndim:
                raise ValueError(f"{name}: axis {a} is out of bounds for arrays of "
                                 f"dimension {ndim}")
        axes = [int(a) % ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"{name}: all axes must be unique, got {axes}")
    s1, s2 = in1.shape, in2.shape
    axes = [a for a in axes if s1[a] != 1 and s2[a] != 1]
    if not all(s1[a] == s2[a] or 1 in (s1[a], s2[a]) for a in range(ndim) if a not in axes):
        raise ValueError(f"{name}: incompatible shapes for in1 and in2: {s1} and {s2} (off "
                         f"the convolved axes they must be equal or 1)")
    return axes


def _fft_convolution(in1, in2, axes):
    """The 'full' convolution along ``axes`` (a broadcast product along the others),
    by a product of (real or complex) FFTs padded to fast lengths."""
    if not axes:
        return in1 * in2
    full = [in1.shape[a] + in2.shape[a] - 1 if a in axes else max(in1.shape[a], in2.shape[a])
            for a in range(in1.ndim)]
    real = not (jnp.iscomplexobj(in1) or jnp.iscomplexobj(in2))
    lengths = [_fast_fft_length(full[a], real) for a in axes]
    if real:
        product = jnp.fft.rfftn(in1, lengths, axes) * jnp.fft.rfftn(in2, lengths, axes)
        out = jnp.fft.irfftn(product, lengths, axes)
    else:
        product = jnp.fft.fftn(in1, lengths, axes) * jnp.fft.fftn(in2, lengths, axes)
        out = jnp.fft.ifftn(product, lengths, axes)
    return out[tuple(slice(n) for n in full)]


def _centred(x, shape):
    starts = [(n - m) // 2 for n, m in zip(x.shape, shape)]
    return x[tuple(slice(s, s + m) for s, m in zip(starts, shape))]


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolution of ``in1`` and ``in2`` along ``axes`` (all by default) through FFTs,
    as ``scipy.signal.fftconvolve``: ``mode`` 'full', 'same' (``in1``'s shape) or
    'valid'; along the other axes the inputs broadcast. Integer inputs give floats."""
    name = "fftconvolve"
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be one of {_MODES}, got {mode!r}")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    for label, x in (("in1", in1), ("in2", in2)):
        if not (jnp.issubdtype(x.dtype, jnp.number) or x.dtype == jnp.bool_):
            raise TypeError(f"{name}: {label} must be numeric, got {x.dtype}")
    if in1.ndim == in2.ndim == 0:
        return in1 * in2
    if in1.ndim != in2.ndim:
        raise ValueError(f"{name}: in1 and in2 should have the same dimensionality, got "
                         f"{in1.ndim} and {in2.ndim}")
    if in1.size == 0 or in2.size == 0:
        return jnp.asarray([], dtype=dtypes.default_float())
    in1, in2 = (x if dtypes.is_inexact(x.dtype) else x.astype(dtypes.default_float())
                for x in (in1, in2))
    axes = _fft_axes(name, in1, in2, axes)
    s1, s2 = in1.shape, in2.shape
    if mode == "valid":
        bigger = all(s1[a] >= s2[a] for a in axes)
        if not (bigger or all(s2[a] >= s1[a] for a in axes)):
            raise ValueError(f"{name}: for 'valid' mode, one input must be at least as large "
                             f"as the other in every dimension, got shapes {s1} and {s2}")
        if not bigger:   # convolution commutes: the larger input comes first
            in1, in2, s1, s2 = in2, in1, s2, s1
    out = _fft_convolution(in1, in2, axes)
    if mode == "same":
        return _centred(out, s1)
    if mode == "valid":
        return _centred(out, [s1[a] - s2[a] + 1 if a in axes else out.shape[a]
                              for a in range(out.ndim)])
    return out
