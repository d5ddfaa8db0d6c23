"""Spectral analysis for ``minijax.scipy.signal``: ``detrend``, ``stft``, ``istft``,
``csd`` and ``welch``, with SciPy's values, shapes and dtypes.

Segment lengths, overlaps and FFT lengths are static Python ints (they fix shapes); the
signal, an array window and ``fs`` may be traced, so everything runs under ``jit``,
``vmap`` and ``grad``. A window given by name is computed on the host (``_windows``).
Segments are gathered with one static index array, and ``istft``'s overlap-add is one
scatter-add, so a long signal is not unrolled into a Python loop of slices.
"""

import warnings

import numpy as np

from .. import dtypes
from .. import numpy as jnp
from ..api import vmap
from ..core import Tracer
from ..util import canonicalize_axis
from ._windows import get_window

__all__ = ["detrend", "stft", "istft", "csd", "welch"]

_TRENDS = ("linear", "l", "constant", "c")
_BOUNDARIES = ("even", "odd", "constant", "zeros", None)


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=False):
    """``data`` less its least-squares line along ``axis`` (``type`` 'linear' or 'l'),
    fitted piecewise between the breakpoints ``bp`` (static indices), or less its mean
    ('constant' or 'c'), as ``scipy.signal.detrend``.

    Integer data gives float64 and a linear fit of float16 data float64, as SciPy's.
    ``overwrite_data`` is SciPy's permission to reuse ``data``'s buffer; minijax
    returns a new array either way (JAX raises for any value but None)."""
    if type not in _TRENDS:
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    if overwrite_data not in (None, False, True):
        raise TypeError(f"detrend: overwrite_data must be a bool, got {overwrite_data!r}")
    data = jnp.asarray(data)
    if type in ("constant", "c"):
        return data - jnp.mean(data, axis, keepdims=True)
    if data.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        data = data.astype(dtypes.default_float())
    axis = canonicalize_axis(axis, data.ndim)
    n = data.shape[axis]
    if isinstance(bp, Tracer):
        raise TypeError("detrend: the breakpoints bp fix the pieces' shapes, so they must "
                        "be concrete (not traced)")
    points = np.unique(np.concatenate(np.atleast_1d(0, np.asarray(bp), n)))
    if np.any(points > n):
        raise ValueError("Breakpoints must be less than length of data along given axis.")
    if points[0] < 0:
        raise ValueError("Breakpoints must be non-negative and less than length of data "
                         "along given axis.")
    if len(points) < 2:
        return data
    moved = jnp.moveaxis(data, axis, 0)
    pieces = [_without_line(moved[lo:hi]) for lo, hi in zip(points[:-1], points[1:])]
    return jnp.moveaxis(jnp.concatenate(pieces), 0, axis)


def _without_line(piece):
    """The residual of the least-squares line through ``piece`` along its first axis:
    centred data less the slope times the centred abscissae (one point: all residual
    is zero, as the minimum-norm least-squares fit gives)."""
    m = piece.shape[0]
    if m == 1:
        return jnp.zeros_like(piece)
    t = np.arange(m) - (m - 1) / 2.0
    t = jnp.asarray(t.reshape((m,) + (1,) * (piece.ndim - 1)), dtype=_real_dtype(piece.dtype))
    centred = piece - jnp.mean(piece, 0, keepdims=True)
    slope = jnp.sum(t * centred, 0, keepdims=True) / jnp.sum(t * t)
    return centred - t * slope


def _real_dtype(dtype):
    return np.finfo(dtype).dtype


def _complex_result(*arrays):
    """SciPy's result dtype: the inputs' type promoted with complex64."""
    return np.dtype(jnp.result_type(*[a.dtype for a in arrays], np.complex64))


def _overlap(noverlap, nperseg):
    """``noverlap`` (default half a segment) and the step between segments it leaves."""
    noverlap = nperseg // 2 if noverlap is None else _static_int("noverlap", noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    return noverlap, nperseg - noverlap


def _static_int(name, value):
    if isinstance(value, Tracer):
        raise TypeError(f"{name} fixes the output's shape, so it must be a Python int, not "
                        f"a traced value")
    return int(value)


def _window_array(window):
    window = jnp.asarray(window)
    if not dtypes.is_inexact(window.dtype):
        window = window.astype(dtypes.default_float())
    return window


def _host_window(win):
    """The window's values on the host, or None when it is traced."""
    return None if isinstance(win, Tracer) else np.asarray(win)


def _segments(x, nperseg, step, nseg):
    """The ``nseg`` segments of ``nperseg`` samples starting every ``step`` samples
    along the last axis of ``x``, shape ``(..., nseg, nperseg)``."""
    index = np.arange(nseg)[:, None] * step + np.arange(nperseg)
    return x[..., index]


def _extend(x, n, kind):
    """``x`` extended by ``n`` samples at both ends of its last axis, by ``kind``:
    'zeros', 'constant' (the edge values), 'even' (a mirror) or 'odd' (a point
    reflection through the edge values)."""
    if n < 1:
        return x
    widths = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    if kind == "zeros":
        return jnp.pad(x, widths)
    if kind == "constant":
        return jnp.pad(x, widths, mode="edge")
    # (n <= length - 1 here: stft cuts nperseg to the signal's length)
    mirrored = jnp.pad(x, widths, mode="reflect")
    if kind == "even":
        return mirrored
    left, right = x[..., :1], x[..., -1:]
    return jnp.concatenate([2 * left - mirrored[..., :n], x,
                            2 * right - mirrored[..., -n:]], axis=-1)


def _transform(segments, win, nfft, onesided):
    """The FFT of each windowed segment (the real part's ``rfft`` when one-sided)."""
    windowed = win * segments
    if onesided:
        return jnp.fft.rfft(jnp.real(windowed), n=nfft, axis=-1)
    return jnp.fft.fft(windowed, n=nfft, axis=-1)


def _as_float(fs):
    return jnp.asarray(fs).astype(dtypes.default_float())


def _frequencies(nfft, fs, onesided):
    fs = _as_float(fs)
    return (jnp.fft.rfftfreq if onesided else jnp.fft.fftfreq)(nfft, 1 / fs)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1, scaling="spectrum"):
    """The short-time Fourier transform ``(f, t, Zxx)`` of ``x`` along ``axis``, as
    ``scipy.signal.stft``: segments of ``nperseg`` samples (cut to the signal's length,
    with SciPy's warning, for a named window) overlapping by ``noverlap``
    (``nperseg // 2``), each detrended (False, 'constant', 'linear', or a callable given
    the segments array as SciPy gives it), windowed and transformed with ``nfft``
    points; ``boundary`` extends the ends by ``nperseg // 2`` samples, ``padded``
    zero-pads the end to whole segments; ``scaling`` 'spectrum' or 'psd'. ``Zxx`` has
    the frequencies at ``axis`` and the segments last; complex input is two-sided.

    ``window`` is a name or ``(name, *parameters)`` of ``scipy.signal.get_window``
    ('hann' is SciPy's default 'hann_periodic') or an array of ``nperseg`` values."""
    if scaling == "psd":
        density = True
    elif scaling == "spectrum":
        density = False
    else:
        raise ValueError(f"Parameter scaling={scaling!r} not in ['spectrum', 'psd']!")
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARIES)}")
    x = jnp.asarray(x)
    out_dtype = _complex_result(x)
    if x.size == 0:
        empty = jnp.zeros(x.shape, dtypes.default_float())
        return empty, empty, empty
    raw_axis = _static_int("axis", axis)
    axis = canonicalize_axis(raw_axis, x.ndim)
    x = jnp.moveaxis(x, axis, -1)
    if nperseg is not None:
        nperseg = _static_int("nperseg", nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _triage(window, nperseg, x.shape[-1])
    nfft = nperseg if nfft is None else _static_int("nfft", nfft)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    noverlap, step = _overlap(noverlap, nperseg)

    onesided = bool(return_onesided)
    if onesided and jnp.iscomplexobj(x):
        warnings.warn("Input data is complex, switching to return_onesided=False",
                      stacklevel=2)
        onesided = False
    real_dtype = _real_dtype(out_dtype)
    x = x.astype(out_dtype if jnp.iscomplexobj(x) else real_dtype)
    if boundary is not None:
        x = _extend(x, nperseg // 2, boundary)
    if padded:
        extra = (-(x.shape[-1] - nperseg) % step) % nperseg
        x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, extra)])
    nseg = (x.shape[-1] - nperseg) // step + 1
    segments = _stft_detrend(detrend, raw_axis)(_segments(x, nperseg, step, nseg))

    win = win.astype(out_dtype if jnp.iscomplexobj(win) else real_dtype)
    total, power = jnp.sum(win), jnp.sum(win * win)
    scale = jnp.sqrt(1 / (fs * power)) if density else 1 / total
    spectra = _transform(segments, win, nfft, onesided) * scale.astype(out_dtype)
    spectra = jnp.moveaxis(spectra.astype(out_dtype), -1, axis)

    start = nperseg / 2
    fs_float = _as_float(fs)
    times = jnp.asarray(start + step * np.arange(nseg)) / fs_float
    if boundary is not None:
        times = times - start / fs_float
    return _frequencies(nfft, fs, onesided), times, spectra


def _triage(window, nperseg, length):
    """(window array, nperseg) as stft's legacy helper settles them."""
    if isinstance(window, (str, tuple)):
        if nperseg is None:
            nperseg = 256
        if nperseg > length:
            warnings.warn(f"nperseg = {nperseg:d} is greater than input length  = "
                          f"{length:d}, using nperseg = {length:d}", stacklevel=3)
            nperseg = length
        return jnp.asarray(get_window(window, nperseg)), nperseg
    win = _window_array(window)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if length < win.shape[0]:
        raise ValueError("window is longer than input signal")
    if nperseg is None:
        nperseg = win.shape[0]
    elif nperseg != win.shape[0]:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, nperseg


def _stft_detrend(detrend, raw_axis):
    """stft's per-segment detrend: a callable sees the ``(..., nseg, nperseg)`` segments
    with the samples moved to ``axis`` (SciPy's wrapping, with its raw axis value)."""
    if not detrend:
        return lambda d: d
    if not callable(detrend):
        return lambda d: _detrend_last(d, detrend)
    if raw_axis == -1:
        return detrend
    return lambda d: jnp.moveaxis(detrend(jnp.moveaxis(d, -1, raw_axis)), raw_axis, -1)


def _detrend_last(segments, kind):
    """``detrend`` of each segment along the last axis (already inexact)."""
    if kind not in _TRENDS:
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    if kind in ("constant", "c"):
        return segments - jnp.mean(segments, -1, keepdims=True)
    return jnp.moveaxis(_without_line(jnp.moveaxis(segments, -1, 0)), 0, -1)


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2,
          scaling="spectrum"):
    """The inverse of ``stft``, ``(t, x)``, as ``scipy.signal.istft``: inverse FFTs of
    the segments along ``freq_axis`` (one-sided with ``input_onesided``), windowed and
    overlap-added along ``time_axis``, divided by the summed squared window (SciPy's
    NOLA warning where it vanishes, for a window that is not traced); ``boundary``
    drops the ``nperseg // 2`` samples ``stft`` added at each end. ``x`` has the time
    axis where ``Zxx`` had it (without the frequency axis); ``t`` counts ``x``'s first
    axis, as SciPy's does. ``noverlap=0`` means no overlap (JAX takes it as None)."""
    Zxx = jnp.asarray(Zxx)
    Zxx = Zxx + 0j   # SciPy's complex dtype: complex64 from 32 bits or fewer
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = canonicalize_axis(_static_int("freq_axis", freq_axis), Zxx.ndim)
    time_axis = canonicalize_axis(_static_int("time_axis", time_axis), Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    nseg = Zxx.shape[time_axis]
    default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    if nperseg is None:
        nperseg = default
    else:
        nperseg = _static_int("nperseg", nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft = nperseg if input_onesided and nperseg == default + 1 else default
    else:
        nfft = _static_int("nfft", nfft)
        if nfft < nperseg:
            raise ValueError("nfft must be greater than or equal to nperseg.")
    noverlap, step = _overlap(noverlap, nperseg)

    outer = [a for a in range(Zxx.ndim) if a not in (freq_axis, time_axis)]
    Zxx = jnp.transpose(Zxx, outer + [freq_axis, time_axis])
    if isinstance(window, (str, tuple)):
        win = jnp.asarray(get_window(window, nperseg))
    else:
        win = _window_array(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    inverse = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    pieces = inverse(Zxx, n=nfft, axis=-2)[..., :nperseg, :]
    if jnp.result_type(win.dtype, pieces.dtype) != pieces.dtype:
        win = (jnp.real(win) if not jnp.iscomplexobj(pieces) else win).astype(pieces.dtype)
    if scaling == "spectrum":
        factor = jnp.sum(win)
    elif scaling == "psd":
        factor = jnp.sqrt(fs * jnp.sum(win ** 2))
    else:
        raise ValueError(f"Parameter scaling={scaling!r} not in ['spectrum', 'psd']!")
    pieces = pieces * factor.astype(pieces.dtype)

    length = nperseg + (nseg - 1) * step
    index = np.arange(nseg)[:, None] * step + np.arange(nperseg)
    x = jnp.zeros(pieces.shape[:-2] + (length,), pieces.dtype)
    x = x.at[..., index].add(jnp.swapaxes(pieces * win[:, None], -1, -2))
    host_win = _host_window(win)
    if host_win is not None:
        norm = np.zeros(length, pieces.dtype)
        np.add.at(norm, index, np.broadcast_to(host_win ** 2, index.shape))
    else:
        norm = jnp.zeros(length, pieces.dtype).at[index].add(
            jnp.broadcast_to(win ** 2, index.shape).astype(pieces.dtype))
    if boundary:
        # SciPy's slice: with nperseg == 1 it is empty
        cut = slice(nperseg // 2, -(nperseg // 2))
        x, norm = x[..., cut], norm[cut]
    if host_win is not None and np.sum(_above(norm, 1e-10)) != len(norm):
        warnings.warn("NOLA condition failed, STFT may not be invertible."
                      + ("" if boundary else " Possibly due to missing boundary"),
                      stacklevel=2)
    # (a complex window's norm compares by its real part first, as NumPy orders complex)
    x = x / jnp.where(_above(norm, 1e-10), norm, 1.0).astype(x.dtype)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - (freq_axis < time_axis))
    times = jnp.arange(x.shape[0], dtype=dtypes.default_float()) / _as_float(fs)
    return times, x


def _above(values, bound):
    """``values > bound``, complex values ordered as NumPy orders them (real part, then
    imaginary part)."""
    if not jnp.iscomplexobj(values):
        return values > bound
    real = jnp.real(values)
    return (real > bound) | ((real == bound) & (jnp.imag(values) > 0))


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1,
        average="mean"):
    """The cross power spectral density ``(f, Pxy)`` of ``x`` and ``y`` along ``axis``
    by Welch's method, as ``scipy.signal.csd`` (1.17): the mean or median (with its
    bias correction) over segments of ``conj(X) Y``, scaled to a 'density' or a
    'spectrum', one-sided doubled where SciPy doubles. The other axes broadcast; the
    shorter input is zero-padded along ``axis``, also where the other axes differ (SciPy
    fails there, JAX pads). ``y`` None, or ``y is x``, gives the real PSD (``welch``).

    A callable ``detrend`` is given one segment at a time (``(..., nperseg)``), as
    SciPy's; minijax maps it over the segments with ``vmap``. With ``return_onesided``,
    complex ``x`` gives a two-sided result as SciPy's; complex ``y`` with real ``x``
    (where SciPy raises) gives JAX's two-sided result with its warning."""
    same = y is None or y is x
    x = jnp.asarray(x)
    raw_axis = _static_int("axis", axis)
    if same:
        if x.size == 0:
            empty = jnp.zeros(x.shape, dtypes.default_float())
            return empty, empty
        out_dtype = _complex_result(x)
        n = x.shape[raw_axis]
    else:
        y = jnp.asarray(y)
        if x.ndim != y.ndim and raw_axis >= 0:
            raise ValueError(f"x and y have {x.ndim} and {y.ndim} dimensions: a non-negative "
                             f"axis ({raw_axis}) is ambiguous")
        x_outer, y_outer = list(x.shape), list(y.shape)
        x_outer.pop(raw_axis)
        y_outer.pop(raw_axis)
        try:
            outer = np.broadcast_shapes(tuple(x_outer), tuple(y_outer))
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
        if x.size == 0 or y.size == 0:
            shape = outer + (min(x.shape[raw_axis], y.shape[raw_axis]),)
            empty = jnp.moveaxis(jnp.zeros(shape, dtypes.default_float()), -1, raw_axis)
            return empty, empty
        out_dtype = _complex_result(x, y)
        n = max(x.shape[raw_axis], y.shape[raw_axis])

    if isinstance(window, (str, tuple)):
        nperseg = 256 if nperseg is None else _static_int("nperseg", nperseg)
        if nperseg < 1:
            raise ValueError(f"Parameter nperseg={nperseg} is not a positive integer!")
        if n < nperseg:
            warnings.warn(f"nperseg={nperseg} is greater than signal length max(len(x), "
                          f"len(y)) = {n}, using nperseg = {n}", stacklevel=3)
            nperseg = n
        win = jnp.asarray(get_window(window, nperseg))
    else:
        win = _window_array(window)
        if win.ndim == 0:
            raise ValueError(f"Parameter win must be 1d, but win.shape={win.shape}!")
        if nperseg is None:
            nperseg = win.shape[0]
        if nperseg != win.shape[0]:
            raise ValueError(f"nperseg={nperseg} does not equal len(win)={win.shape[0]}")
        nperseg = _static_int("nperseg", nperseg)
    nfft = nperseg if nfft is None else _static_int("nfft", nfft)
    if nfft < nperseg:
        raise ValueError(f"nfft={nfft} must be greater than or equal to nperseg={nperseg}!")
    noverlap = nperseg // 2 if noverlap is None else _static_int("noverlap", noverlap)
    if noverlap >= nperseg:
        raise ValueError(f"noverlap={noverlap} must be less than nperseg={nperseg}!")
    if scaling not in ("spectrum", "density"):
        raise ValueError(f"Parameter scaling={scaling!r} not in "
                         f"{{'spectrum': 'magnitude', 'density': 'psd'}}!")
    if win.ndim != 1:
        raise ValueError(f"Parameter win must be 1d, but win.shape={win.shape}!")
    if return_onesided and not jnp.iscomplexobj(x) and jnp.iscomplexobj(win):
        raise ValueError("One-sided spectra, i.e., fft_mode='onesided', are not allowed "
                         "for complex-valued windows!")
    if not isinstance(fs, Tracer) and not np.all(np.asarray(fs) > 0):
        raise ValueError(f"Sampling frequency fs={fs} must be positive!")
    if nperseg > n:
        raise ValueError(f"window is longer than input signal: nperseg={nperseg} > "
                         f"{n} samples")
    detrend_segment = _csd_detrend(detrend)

    onesided = bool(return_onesided) and not jnp.iscomplexobj(x)
    if onesided and not same and jnp.iscomplexobj(y):
        warnings.warn("Input data is complex, switching to return_onesided=False",
                      stacklevel=2)
        onesided = False
    step = nperseg - noverlap
    nseg = (n - noverlap) // step
    real_dtype = _real_dtype(out_dtype)
    win = win.astype(out_dtype) if jnp.iscomplexobj(win) else win.astype(real_dtype)

    def spectra(signal):
        signal = jnp.moveaxis(signal, raw_axis, -1)
        signal = jnp.pad(signal, [(0, 0)] * (signal.ndim - 1) + [(0, n - signal.shape[-1])])
        signal = signal.astype(out_dtype if jnp.iscomplexobj(signal) else real_dtype)
        segments = detrend_segment(_segments(signal, nperseg, step, nseg))
        return _transform(segments, jnp.conj(win), nfft, onesided)

    sx = spectra(x)
    if same:
        pxy = jnp.real(sx) ** 2 + jnp.imag(sx) ** 2
    else:
        pxy = jnp.conj(sx) * spectra(y)
    weights = jnp.abs(win) ** 2
    if scaling == "density":
        scale = 1 / (fs * jnp.sum(weights))
    else:
        scale = 1 / jnp.abs(jnp.sum(win)) ** 2
    pxy = pxy * scale.astype(real_dtype)
    if onesided:
        doubled = np.ones(pxy.shape[-1], dtype=real_dtype)
        doubled[1:None if nfft % 2 else -1] = 2
        pxy = pxy * doubled

    if nseg > 1:
        if average == "median":
            bias = _median_bias(nseg)
            if jnp.iscomplexobj(pxy):
                pxy = (jnp.median(jnp.real(pxy), axis=-2)
                       + 1j * jnp.median(jnp.imag(pxy), axis=-2))
            else:
                pxy = jnp.median(pxy, axis=-2)
            pxy = pxy / jnp.asarray(bias, real_dtype)
        elif average == "mean":
            pxy = jnp.mean(pxy, axis=-2)
        else:
            raise ValueError(f"Parameter average={average!r} must be 'median' or 'mean'!")
    else:
        pxy = pxy[..., 0, :]
    pxy = pxy.astype(real_dtype if same else out_dtype)
    pxy = jnp.moveaxis(pxy, -1, raw_axis if raw_axis >= 0 else pxy.ndim + raw_axis)
    return _frequencies(nfft, fs, onesided), pxy


def _csd_detrend(detrend):
    """csd's per-segment detrend (SciPy's ``ShortTimeFFT.stft_detrend``)."""
    if detrend is False or detrend is None:
        return lambda d: d
    if isinstance(detrend, str):
        if detrend not in _TRENDS:
            raise ValueError("Trend type must be 'linear' or 'constant'.")
        return lambda d: _detrend_last(d, detrend)
    if callable(detrend):
        # SciPy calls it on one segment at a time
        return vmap(detrend, in_axes=-2, out_axes=-2)
    raise ValueError(f"Parameter detr={detrend!r} is not a str, function or None!")


def _median_bias(n):
    """The median's bias relative to the mean for ``n`` periodograms (Allen et al.,
    FINDCHIRP, appendix B): ``1 + sum_k (1/(2k+1) - 1/(2k))`` for k < (n+1)/2."""
    k = 2 * np.arange(1.0, (n - 1) // 2 + 1)
    return 1 + np.sum(1.0 / (k + 1) - 1.0 / k)


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
    """The power spectral density ``(f, Pxx)`` of ``x`` along ``axis`` by Welch's
    method, as ``scipy.signal.welch``: ``csd(x, x, ...)``, real."""
    return csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
               nfft=nfft, detrend=detrend, return_onesided=return_onesided,
               scaling=scaling, axis=axis, average=average)
