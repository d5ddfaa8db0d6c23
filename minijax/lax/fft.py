"""The discrete Fourier transform primitive ``fft``, named as ``jax.lax.fft``.

One primitive covers XLA's four kinds, over the trailing ``len(fft_lengths)`` (1 to 3)
axes: ``"FFT"`` and ``"IFFT"`` (complex to complex; the inverse divides by the number
of points), ``"RFFT"`` (real to the ``n // 2 + 1`` non-negative frequencies of the
last axis) and ``"IRFFT"`` (its inverse, real output of ``fft_lengths``). Eagerly it
runs ``numpy.fft``; under ``jit`` it lowers to StableHLO ``fft``.
"""

import math

import numpy as np

from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir_constant, ir_type
from . import elementwise as ew
from ._helpers import COMPLEX, FLOAT, check_kinds, constant
from .shapes import broadcast_in_dim
from .slicing import pad

__all__ = ["FftType", "fft", "fft_p"]

_KINDS = ("FFT", "IFFT", "RFFT", "IRFFT")


class FftType:
    """The four transform kinds, as the strings ``fft``'s ``fft_type`` takes."""
    FFT = "FFT"
    IFFT = "IFFT"
    RFFT = "RFFT"
    IRFFT = "IRFFT"


def _complex_of(dtype):
    return np.dtype(np.complex64 if np.dtype(dtype) == np.float32 else np.complex128)


def _real_of(dtype):
    return np.dtype(np.float32 if np.dtype(dtype) == np.complex64 else np.float64)


def fft(x, fft_type, fft_lengths):
    """The DFT of kind ``fft_type`` ("FFT", "IFFT", "RFFT", "IRFFT", or an ``FftType``
    member) over the last ``len(fft_lengths)`` axes of ``x`` (1 to 3 of them).

    For FFT, IFFT and RFFT ``fft_lengths`` must equal those axes' sizes; for IRFFT it is
    the shape of the real output, whose last axis ``n`` needs ``n // 2 + 1`` input
    frequencies. Dtypes: complex64/complex128 for FFT, IFFT and IRFFT,
    float32/float64 for RFFT."""
    kind = getattr(fft_type, "name", fft_type)
    if not isinstance(kind, str) or kind.upper() not in _KINDS:
        raise ValueError(f"lax.fft: fft_type must be one of {', '.join(_KINDS)}, got "
                         f"{fft_type!r}")
    lengths = tuple(int(n) for n in np.atleast_1d(np.asarray(fft_lengths, dtype=object)))
    return fft_p.bind(x, fft_type=kind.upper(), fft_lengths=lengths)


fft_p = Primitive("fft")


def _fft_impl(x, *, fft_type, fft_lengths):
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    with np.errstate(all="ignore"):
        if fft_type == "FFT":
            out = np.fft.fftn(x, axes=axes)
        elif fft_type == "IFFT":
            out = np.fft.ifftn(x, axes=axes)
        elif fft_type == "RFFT":
            out = np.fft.rfftn(x, axes=axes)
        else:
            out = np.fft.irfftn(x, s=fft_lengths, axes=axes)
    dtype = _fft_abstract_eval(ShapedArray(x.shape, x.dtype), fft_type=fft_type,
                               fft_lengths=fft_lengths)[0].dtype
    return [np.asarray(out, dtype)]


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    k = len(fft_lengths)
    if not 1 <= k <= 3:
        raise ValueError(f"lax.fft transforms 1 to 3 trailing axes, got fft_lengths "
                         f"{fft_lengths} (compose calls for more axes)")
    if x.ndim < k:
        raise ValueError(f"lax.fft: fft_lengths {fft_lengths} name more axes than the "
                         f"operand of shape {x.shape} has")
    if any(n < 1 for n in fft_lengths):
        raise ValueError(f"lax.fft: fft_lengths must be positive, got {fft_lengths}")
    lead, trail = x.shape[:-k], x.shape[-k:]
    if fft_type == "RFFT":
        check_kinds("fft (RFFT)", x, FLOAT)
        if x.dtype not in (np.float32, np.float64):
            raise TypeError(f"lax.fft (RFFT) requires float32 or float64 operands, got "
                            f"{x.dtype.name}")
        expected = tuple(fft_lengths)
        shape = (*lead, *trail[:-1], fft_lengths[-1] // 2 + 1)
        dtype = _complex_of(x.dtype)
    else:
        check_kinds(f"fft ({fft_type})", x, COMPLEX)
        if fft_type == "IRFFT":
            expected = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
            shape = (*lead, *fft_lengths)
            dtype = _real_of(x.dtype)
        else:
            expected = tuple(fft_lengths)
            shape = x.shape
            dtype = x.dtype
    if tuple(trail) != expected:
        raise ValueError(f"lax.fft ({fft_type}) with fft_lengths {fft_lengths} requires "
                         f"trailing axes of sizes {expected}, got an operand of shape "
                         f"{x.shape}")
    return [ShapedArray(tuple(shape), dtype)]


def _fft_transpose(cts, x, *, fft_type, fft_lengths):
    """FFT and IFFT are symmetric linear maps; RFFT and IRFFT are real-linear, and
    transpose under the pairing ``Re(sum(a * b))`` that complex cotangents use."""
    ct = cts[0]
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    if fft_type in ("FFT", "IFFT"):
        return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]
    aval = get_aval(ct)
    if fft_type == "RFFT":
        # the full spectrum's transpose is itself; the dropped negative frequencies
        # get zero cotangent, and the real input takes the real part
        n = fft_lengths[-1]
        padded = pad(ct, np.zeros((), aval.dtype),
                     [(0, 0, 0)] * (aval.ndim - 1) + [(0, n - (n // 2 + 1), 0)])
        return [ew.real(fft_p.bind(padded, fft_type="FFT", fft_lengths=fft_lengths))]
    # IRFFT: each positive frequency below Nyquist stands for itself and its conjugate
    spectrum = fft_p.bind(ct, fft_type="RFFT", fft_lengths=fft_lengths)
    saval = get_aval(spectrum)
    n = fft_lengths[-1]
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    weights /= math.prod(fft_lengths)
    w = broadcast_in_dim(constant(weights, saval.dtype), saval.shape, (saval.ndim - 1,))
    return [ew.conj(ew.mul(w, spectrum))]


def _fft_batch(axis_size, args, dims, **params):
    (x,), (d,) = args, dims
    x = batching.move_axis_to(axis_size, x, d, 0)
    return [fft_p.bind(x, **params)], [0]


def _fft_lower(ctx, x, *, fft_type, fft_lengths):
    aval_out = ctx.avals_out[0]
    if aval_out.size == 0 or ctx.avals_in[0].size == 0:
        # XLA's fft wants non-empty operands; an empty result is all zeros (no elements)
        return [ir_constant(np.zeros(aval_out.shape, aval_out.dtype))]
    return [hlo.fft(x, hlo.FftTypeAttr.get(fft_type), list(fft_lengths),
                    results=[ir_type(aval_out)])]


fft_p.impl = _fft_impl
fft_p.abstract_eval = _fft_abstract_eval
ad.deflinear(fft_p, _fft_transpose)
fft_p.batch = _fft_batch
fft_p.lower = _fft_lower
