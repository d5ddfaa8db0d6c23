"""Sampled signals (NumPy-only): convolve, correlate, interp, gradient, trapezoid,
unwrap, the window functions (bartlett, blackman, hamming, hanning, kaiser) and i0."""

import operator

import numpy as np

from .. import _checks, dtypes, lax
from ..core import get_aval, get_concrete
from ._core import promote, reduction_axes, take_1d, to_array
from ._creation import arange, ones, zeros
from ._elementwise import absolute, conjugate, cos, logical_and, mod, sqrt
from ._manipulation import atleast_1d, concatenate, flip, reshape
from ._searching import searchsorted, where
from ._statistical import cumsum
from ._statistical import sum as _sum
from ._utility import diff


def _correlate_full(a, v, pad_lo, pad_hi, precision=None, preferred_element_type=None):
    # sum_k a[n + k] * v[k], the cross-correlation as a 1-d convolution
    a, v = promote(a, v)
    dt = get_aval(a).dtype
    if dt == np.bool_:
        raise TypeError("convolve/correlate of boolean arrays")
    if dtypes.is_complex(dt):   # (four real correlations: the product's parts)
        re, im = lax.real, lax.imag
        parts = (pad_lo, pad_hi, precision, preferred_element_type)
        rr, ii = (_correlate_full(f(a), f(v), *parts) for f in (re, im))
        ri, ir = (_correlate_full(f(a), g(v), *parts) for f, g in ((re, im), (im, re)))
        return lax.complex(lax.sub(rr, ii), lax.add(ri, ir))
    lhs = reshape(a, (1, 1, -1))
    rhs = reshape(v, (1, 1, -1))
    out = lax.conv_general_dilated(lhs, rhs, (1,), [(pad_lo, pad_hi)], precision=precision,
                                   preferred_element_type=preferred_element_type)
    return reshape(out, (-1,))


def _mode_pads(n, m, mode):
    if mode == "full":
        return m - 1, m - 1
    if mode == "same":   # (an even m pads one more before than after, as NumPy)
        return m // 2, m - 1 - m // 2
    if mode == "valid":
        return 0, 0
    raise ValueError(f"mode must be one of 'full', 'same', 'valid', got {mode!r}")


def _sequences(name, a, v):
    """The two 1-d, non-empty operands of ``name`` as arrays, and their lengths."""
    a, v = to_array(a), to_array(v)
    if get_aval(a).ndim != 1 or get_aval(v).ndim != 1:
        raise ValueError(f"{name}: inputs must be 1-d")
    n, m = get_aval(a).shape[0], get_aval(v).shape[0]
    if n == 0 or m == 0:
        raise ValueError(f"{name}: inputs cannot be empty")
    return a, v, n, m


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of two 1-d sequences (``mode`` valid, same or full);
    ``precision`` and ``preferred_element_type`` are ``lax.conv_general_dilated``'s."""
    a, v, n, m = _sequences("correlate", a, v)
    swapped = m > n
    if swapped:
        a, v, n, m = v, a, m, n
    lo, hi = _mode_pads(n, m, mode)
    out = _correlate_full(a, conjugate(v), lo, hi, precision, preferred_element_type)
    # (the other way round, the correlation is reversed and conjugated)
    return conjugate(flip(out)) if swapped else out


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of two 1-d sequences (``mode`` full, same or valid;
    a 0-d operand is a sequence of one, as NumPy takes it); ``precision`` and
    ``preferred_element_type`` are ``lax.conv_general_dilated``'s."""
    a, v, n, m = _sequences("convolve", atleast_1d(a), atleast_1d(v))
    if m > n:
        a, v, n, m = v, a, m, n
    lo, hi = _mode_pads(n, m, mode)
    return _correlate_full(a, flip(v), lo, hi, precision, preferred_element_type)


def _periodic(x, xp, fp, period):
    """``interp``'s ``period``: x and xp reduced modulo the period, xp sorted, and one
    point wrapped onto each end (left and right are then unused, as in NumPy)."""
    p = get_concrete(to_array(period))
    if p is not None and float(np.asarray(p)) == 0:
        raise ValueError("period must be a non-zero value")
    p = lax.abs(lax.convert_element_type(to_array(period), np.float64))
    x = lax.convert_element_type(x, np.float64)
    xp = lax.convert_element_type(xp, np.float64)
    x = lax.rem(lax.add(lax.rem(x, lax.broadcast_to_shape(p, get_aval(x).shape)),
                        lax.broadcast_to_shape(p, get_aval(x).shape)),
                lax.broadcast_to_shape(p, get_aval(x).shape))
    n = get_aval(xp).shape[0]
    pn = lax.broadcast_to_shape(p, (n,))
    xp = lax.rem(lax.add(lax.rem(xp, pn), pn), pn)
    order = lax.sort_key_val(xp, lax.iota(np.int64, n), 0)[1]
    xp, fp = take_1d(xp, order), take_1d(fp, order)
    p1 = lax.broadcast_to_shape(p, (1,))
    xp = lax.concatenate([lax.sub(lax.slice(xp, (n - 1,), (n,)), p1), xp,
                          lax.add(lax.slice(xp, (0,), (1,)), p1)], 0)
    fp = lax.concatenate([lax.slice(fp, (n - 1,), (n,)), fp, lax.slice(fp, (0,), (1,))], 0)
    return x, xp, fp


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of (``xp``, ``fp``) at ``x`` (``xp`` increasing)."""
    x = to_array(x)
    xp, fp = to_array(xp), to_array(fp)
    if get_aval(xp).ndim != 1 or get_aval(fp).ndim != 1:
        raise ValueError(f"interp: xp and fp must be 1-d sequences, got shapes "
                         f"{get_aval(xp).shape} and {get_aval(fp).shape}")
    if get_aval(xp).shape[0] != get_aval(fp).shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if dtypes.is_complex(get_aval(x).dtype) or dtypes.is_complex(get_aval(xp).dtype):
        raise TypeError("interp: x and xp must be real (fp may be complex)")
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
        left = right = None
    dt = np.result_type(get_aval(fp).dtype, np.float64) if not dtypes.is_complex(
        get_aval(fp).dtype) else get_aval(fp).dtype
    x = lax.convert_element_type(x, np.float64)
    xp = lax.convert_element_type(xp, np.float64)
    fp = lax.convert_element_type(fp, dt)
    n = get_aval(xp).shape[0]
    if n == 0:
        raise ValueError("interp: xp and fp must not be empty")
    xs = get_aval(x).shape
    i = searchsorted(xp, x, side="right")
    i = lax.max(lax.min(i, lax.full(xs, n - 1, np.int64)), lax.full(xs, 1 if n > 1 else 0,
                                                                        np.int64))
    lo = lax.sub(i, lax.full(xs, 1 if n > 1 else 0, np.int64))
    x0, x1 = take_1d(xp, lo), take_1d(xp, i)
    f0, f1 = take_1d(fp, lo), take_1d(fp, i)
    dx = lax.sub(x1, x0)
    same = lax.eq(dx, lax.full(xs, 0, np.float64))
    t = lax.div(lax.sub(x, x0), lax.select_n(same, dx, lax.full(xs, 1, np.float64)))
    out = lax.add(f0, lax.mul(lax.convert_element_type(t, dt), lax.sub(f1, f0)))
    out = lax.select_n(same, out, f0)
    # exact hits on the right end and the outside values
    first, last = take_1d(fp, lax.full((), 0, np.int64)), take_1d(fp, lax.full((), n - 1,
                                                                                np.int64))
    xp0, xpn = take_1d(xp, lax.full((), 0, np.int64)), take_1d(xp, lax.full((), n - 1,
                                                                               np.int64))
    lv = first if left is None else lax.convert_element_type(to_array(left), dt)
    rv = last if right is None else lax.convert_element_type(to_array(right), dt)
    out = lax.select_n(lax.eq(x, lax.broadcast_to_shape(xpn, xs)), out,
                       lax.broadcast_to_shape(last, xs))
    out = lax.select_n(lax.lt(x, lax.broadcast_to_shape(xp0, xs)), out,
                       lax.broadcast_to_shape(lv, xs))
    out = lax.select_n(lax.gt(x, lax.broadcast_to_shape(xpn, xs)), out,
                       lax.broadcast_to_shape(rv, xs))
    return out


def _axis_slice(nd, axis, s):
    key = [slice(None)] * nd
    key[axis] = s
    return tuple(key)


def _spacing(distances, n, i):
    """One axis' spacing for ``gradient``: a scalar, or the differences of 1-d
    coordinates (a scalar again when they are evenly spaced and concrete)."""
    d = to_array(distances)
    if get_aval(d).ndim == 0:
        return distances
    if get_aval(d).ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if get_aval(d).shape[0] != n:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    if dtypes.is_integer(get_aval(d).dtype) or get_aval(d).dtype == np.bool_:
        d = lax.convert_element_type(d, np.float64)
    steps = diff(d)
    known = get_concrete(steps)
    if known is not None and get_aval(steps).shape[0] and np.all(
            np.asarray(known) == np.asarray(known)[0]):
        return steps[0]
    return steps


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of sampled ``f`` by central differences in the interior and
    one-sided differences (``edge_order`` 1 or 2) at the boundaries, along each axis
    (or ``axis``). ``varargs``: one spacing for all axes, or one per axis (a scalar or
    the 1-d coordinates). One axis gives an array, several a tuple."""
    f = to_array(f)
    nd = get_aval(f).ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = reduction_axes(nd, axis)
    n_axes = len(axes)
    n = len(varargs)
    if n == 0:
        spacings = [1.0] * n_axes
    elif n == 1 and np.ndim(varargs[0]) == 0:
        spacings = list(varargs) * n_axes
    elif n == n_axes:
        spacings = [_spacing(v, get_aval(f).shape[ax], i)
                    for i, (v, ax) in enumerate(zip(varargs, axes))]
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    dt = get_aval(f).dtype
    if dt == np.bool_:
        raise TypeError("gradient: boolean arrays have no differences (NumPy's boolean "
                        "subtract is not supported); convert to a number type first")
    if not dtypes.is_inexact(dt):
        dt = np.dtype(np.float64)
        f = lax.convert_element_type(f, dt)
    outs = []
    for ax, h in zip(axes, spacings):
        size = get_aval(f).shape[ax]
        if size < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        s = lambda sl: f[_axis_slice(nd, ax, sl)]
        uniform = np.ndim(h) == 0 or get_aval(to_array(h)).ndim == 0
        if uniform:
            interior = (s(slice(2, None)) - s(slice(None, -2))) / (2.0 * h)
            if edge_order == 1:
                first = (s(slice(1, 2)) - s(slice(0, 1))) / h
                last = (s(slice(-1, None)) - s(slice(-2, -1))) / h
            else:
                first = (-1.5 / h) * s(slice(0, 1)) + (2.0 / h) * s(slice(1, 2)) \
                    + (-0.5 / h) * s(slice(2, 3))
                last = (0.5 / h) * s(slice(-3, -2)) + (-2.0 / h) * s(slice(-2, -1)) \
                    + (1.5 / h) * s(slice(-1, None))
        else:
            shape = [1] * nd
            shape[ax] = -1
            h1, h2 = reshape(h[:-1], tuple(shape)), reshape(h[1:], tuple(shape))
            a = -h2 / (h1 * (h1 + h2))
            b = (h2 - h1) / (h1 * h2)
            c = h1 / (h2 * (h1 + h2))
            interior = a * s(slice(None, -2)) + b * s(slice(1, -1)) + c * s(slice(2, None))
            if edge_order == 1:
                first = (s(slice(1, 2)) - s(slice(0, 1))) / h[0]
                last = (s(slice(-1, None)) - s(slice(-2, -1))) / h[-1]
            else:
                d1, d2 = h[0], h[1]
                first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2))) * s(slice(0, 1)) \
                    + ((d1 + d2) / (d1 * d2)) * s(slice(1, 2)) \
                    + (-d1 / (d2 * (d1 + d2))) * s(slice(2, 3))
                d1, d2 = h[-2], h[-1]
                last = (d2 / (d1 * (d1 + d2))) * s(slice(-3, -2)) \
                    + (-(d2 + d1) / (d1 * d2)) * s(slice(-2, -1)) \
                    + ((2.0 * d2 + d1) / (d2 * (d1 + d2))) * s(slice(-1, None))
        out = concatenate([first, interior, last], axis=ax)
        outs.append(lax.convert_element_type(out, dt))
    return outs[0] if n_axes == 1 else tuple(outs)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, at sample points
    ``x`` (1-d, or shaped as ``y``) or with spacing ``dx``."""
    y = to_array(y)
    nd = get_aval(y).ndim
    axis = _checks.axis(axis, nd)   # one integer axis: NumPy rejects a tuple or None
    if x is None:
        d = dx
    else:
        x = to_array(x)
        if get_aval(x).ndim == 1:
            d = diff(x)
            shape = [1] * nd
            shape[axis] = get_aval(d).shape[0]
            d = reshape(d, tuple(shape))
        else:
            d = diff(x, axis=axis)
    upper = y[_axis_slice(nd, axis, slice(1, None))]
    lower = y[_axis_slice(nd, axis, slice(None, -1))]
    return _sum(d * (upper + lower) / 2.0, axis=axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` (default ``period / 2``) along ``axis``
    replaced by their complement modulo ``period``."""
    p = to_array(p)
    nd = get_aval(p).ndim
    axis = _checks.axis(axis, nd)   # one integer axis: NumPy rejects a tuple or None
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dt = np.result_type(get_aval(dd).dtype, period if isinstance(period, (int, float))
                        else get_aval(to_array(period)).dtype)
    if dtypes.is_integer(dt):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high = period / 2
        ambiguous = True
    low = -high
    ddmod = mod(dd - low, period) + low
    if ambiguous:
        ddmod = where(logical_and(ddmod == low, dd > 0), high, ddmod)
    correction = where(absolute(dd) < discont, 0, ddmod - dd)
    dt = dtypes.canonicalize(dt)
    head = lax.convert_element_type(p[_axis_slice(nd, axis, slice(0, 1))], dt)
    tail = p[_axis_slice(nd, axis, slice(1, None))] + cumsum(correction, axis=axis)
    return concatenate([head, lax.convert_element_type(tail, dt)], axis=axis)


def i0(x):
    """The modified Bessel function of the first kind, order 0 (real ``x`` only)."""
    x = to_array(x)
    if dtypes.is_complex(get_aval(x).dtype):
        raise TypeError("i0 not supported for complex values")
    if not dtypes.is_inexact(get_aval(x).dtype):
        x = lax.convert_element_type(x, dtypes.default_float())
    return lax.bessel_i0(x)


def _window_length(M):
    # NumPy's formulas take a float M as it is (bartlett(2.5) has two points)
    return float(M) if isinstance(M, (float, np.floating)) else operator.index(M)


def _window_positions(M):
    M = _window_length(M)
    return M, arange(1 - M, M, 2, dtype=np.float64)


def _small_window(M):
    if M < 1:
        return zeros((0,), np.float64)
    return ones((1,), np.float64)


def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points."""
    M, n = _window_positions(M)
    if M <= 1:
        return _small_window(M)
    return where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))


def blackman(M):
    """The Blackman window of ``M`` points."""
    M, n = _window_positions(M)
    if M <= 1:
        return _small_window(M)
    return 0.42 + 0.5 * cos(np.pi * n / (M - 1)) + 0.08 * cos(2.0 * np.pi * n / (M - 1))


def hamming(M):
    """The Hamming window of ``M`` points."""
    M, n = _window_positions(M)
    if M <= 1:
        return _small_window(M)
    return 0.54 + 0.46 * cos(np.pi * n / (M - 1))


def hanning(M):
    """The Hann window of ``M`` points."""
    M, n = _window_positions(M)
    if M <= 1:
        return _small_window(M)
    return 0.5 + 0.5 * cos(np.pi * n / (M - 1))


def kaiser(M, beta):
    """The Kaiser window of ``M`` points with shape parameter ``beta``."""
    M = _window_length(M)
    beta = to_array(beta)
    if get_aval(beta).ndim != 0:   # NumPy builds array([0.0, M, beta])
        raise ValueError(f"kaiser: beta must be a scalar, got shape {get_aval(beta).shape} "
                         f"(setting an array element with a sequence)")
    if M <= 1:
        return _small_window(M)
    n = arange(0, M, dtype=np.float64)
    alpha = (M - 1) / 2.0
    beta = lax.convert_element_type(beta, np.float64)
    return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / i0(beta)
