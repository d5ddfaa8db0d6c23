"""``minijax.scipy.fft``: SciPy's discrete cosine transforms (``dct``, ``idct``, ``dctn``,
``idctn``), types 1 to 4 with SciPy's normalizations, differentiable and jit-able.

Each type is a complex FFT of a related sequence (an even extension for types 1 and 2,
a phase-shifted, zero-padded one for types 3 and 4), so it costs one FFT of up to twice
the length. Complex input transforms its real and imaginary parts, as SciPy's.
"""

import math
import operator

import numpy as np

from .. import dtypes
from .. import numpy as jnp
from ..core import get_aval
from ..util import canonicalize_axis

__all__ = ["dct", "idct", "dctn", "idctn"]

_NORMS = (None, "backward", "ortho", "forward")
_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}


def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """The discrete cosine transform of ``type`` 1-4 of ``x`` along ``axis`` (cut or
    zero-padded to ``n``), as SciPy's: ``norm`` 'backward' (None), 'ortho' or 'forward';
    ``orthogonalize`` (default: with 'ortho') scales the first (and for type 1 last)
    terms to make the basis orthogonal. ``overwrite_x`` and ``workers`` are accepted
    for SciPy's signature (nothing is overwritten; XLA chooses the threads)."""
    return _transform("dct", x, type, ((n, axis),), norm, overwrite_x, workers,
                      orthogonalize, inverse=False)


def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """The inverse of ``dct`` of the same ``type`` and ``norm`` (SciPy's ``idct``)."""
    return _transform("idct", x, type, ((n, axis),), norm, overwrite_x, workers,
                      orthogonalize, inverse=True)


def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """``dct`` along each of ``axes`` (default: the last ``len(s)``, or all), with the
    lengths ``s``."""
    return _transform("dctn", x, type, _axes_and_lengths("dctn", x, s, axes), norm,
                      overwrite_x, workers, orthogonalize, inverse=False)


def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """``idct`` along each of ``axes`` (the inverse of ``dctn``)."""
    return _transform("idctn", x, type, _axes_and_lengths("idctn", x, s, axes), norm,
                      overwrite_x, workers, orthogonalize, inverse=True)


def _axes_and_lengths(name, x, s, axes):
    """``[(length or None, axis)]`` for an n-d transform, as scipy.fft pairs them."""
    ndim = get_aval(jnp.asarray(x)).ndim
    if axes is not None:
        axes = [axes] if isinstance(axes, int) else list(axes)
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if axes is None:
            axes = list(range(ndim - len(s), ndim))
        elif len(s) != len(axes):
            raise ValueError(f"{name}: when given, axes and shape arguments have to be of "
                             f"the same length")
    if axes is None:
        axes = list(range(ndim))
    axes = [canonicalize_axis(a, ndim) for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name}: all axes must be unique")
    return list(zip(s if s is not None else [None] * len(axes), axes))


def _transform(name, x, type, plan, norm, overwrite_x, workers, orthogonalize, inverse):
    if type not in (1, 2, 3, 4) or isinstance(type, bool):
        raise ValueError(f"{name}: type must be 1, 2, 3 or 4, got {type!r}")
    if norm not in _NORMS:
        raise ValueError(f"{name}: invalid norm {norm!r}; use None, 'backward', 'ortho' or "
                         f"'forward'")
    if not isinstance(overwrite_x, (bool, np.bool_)):
        raise TypeError(f"{name}: overwrite_x must be a bool")
    if workers is not None and operator.index(workers) == 0:
        raise ValueError(f"{name}: workers must not be zero")
    x = jnp.asarray(x)
    dt = get_aval(x).dtype
    if dt == np.float16:
        x = x.astype(np.float32)
    elif not dtypes.is_inexact(dt):
        x = x.astype(dtypes.canonicalize(np.dtype(np.float64)))
    if get_aval(x).ndim == 0:
        raise ValueError(f"{name}: x must have at least one dimension")
    orthogonal = norm == "ortho" if orthogonalize is None else bool(orthogonalize)
    kind = _INVERSE_TYPE[type] if inverse else type
    for length, axis in plan:
        x = _along(x, kind, length, axis, norm, orthogonal, inverse, name)
    return x


def _along(x, kind, length, axis, norm, orthogonal, inverse, name):
    """One axis of the transform: the raw DCT of ``kind`` with ``norm``'s scale."""
    axis = canonicalize_axis(axis, get_aval(x).ndim)
    if length is not None:
        length = operator.index(length)
        if length < 1:
            raise ValueError(f"{name}: invalid number of data points ({length}) specified")
        x = _fit(x, length, axis)
    n = get_aval(x).shape[axis]
    if n < 1 or (kind == 1 and n < 2):
        raise ValueError(f"{name}: invalid number of data points ({n}) specified"
                         + (" (type 1 needs at least 2)" if kind == 1 else ""))
    x = jnp.moveaxis(x, axis, -1)
    period = 2 * (n - 1) if kind == 1 else 2 * n   # (SciPy's normalization length)
    if orthogonal:
        x = _scale_ends(x, kind, math.sqrt(2), before=True)
    if jnp.iscomplexobj(x):
        y = _raw(jnp.real(x), kind) + 1j * _raw(jnp.imag(x), kind)
    else:
        y = _raw(x, kind)
    if orthogonal:
        y = _scale_ends(y, kind, 1 / math.sqrt(2), before=False)
    scale = (1 / math.sqrt(period) if norm == "ortho"
             else 1 / period if (norm == "forward") != inverse else 1.0)
    if scale != 1.0:
        y = y * scale
    return jnp.moveaxis(y, -1, axis)


def _fit(x, length, axis):
    """``x`` cut or zero-padded to ``length`` along ``axis``."""
    n = get_aval(x).shape[axis]
    if length <= n:
        return jnp.take(x, jnp.arange(length), axis=axis)
    widths = [(0, 0)] * get_aval(x).ndim
    widths[axis] = (0, length - n)
    return jnp.pad(x, widths)


def _scale_ends(x, kind, factor, before):
    """The orthogonalizing factors: type 2's first output, type 3's first input, type 1's
    first and last in both (type 4 has none)."""
    n = get_aval(x).shape[-1]
    scales = np.ones(n)
    if kind == 1 or (kind == 2 and not before) or (kind == 3 and before):
        scales[0] = factor
    if kind == 1:
        scales[-1] = factor
    if np.all(scales == 1):
        return x
    return x * scales.astype(get_aval(x).dtype)


def _raw(x, kind):
    """SciPy's unnormalized DCT of ``kind`` along the last axis of real ``x``."""
    n = get_aval(x).shape[-1]
    real = get_aval(x).dtype
    k = np.arange(n)
    if kind == 1:   # the real FFT of the even extension x0..x(n-1)..x1
        extended = jnp.concatenate([x, jnp.flip(x[..., 1:n - 1], axis=-1)], axis=-1)
        return jnp.real(jnp.fft.fft(extended, axis=-1))[..., :n].astype(real)
    if kind == 2:   # 2N-point FFT of x followed by its mirror, phase-shifted
        extended = jnp.concatenate([x, jnp.flip(x, axis=-1)], axis=-1)
        spectrum = jnp.fft.fft(extended, axis=-1)[..., :n]
        return jnp.real(spectrum * np.exp(-1j * np.pi * k / (2 * n))).astype(real)
    if kind == 3:   # the transpose of type 2: a 2N-point inverse FFT of phased x
        phased = x * np.exp(1j * np.pi * k / (2 * n))
        y = 2 * (2 * n) * jnp.real(jnp.fft.ifft(phased, n=2 * n, axis=-1))[..., :n]
        return (y - x[..., :1]).astype(real)
    twisted = x * np.exp(-1j * np.pi * (2 * k + 1) / (4 * n))   # type 4
    spectrum = jnp.fft.fft(twisted, n=2 * n, axis=-1)[..., :n]
    return (2 * jnp.real(spectrum * np.exp(-1j * np.pi * k / (2 * n)))).astype(real)
