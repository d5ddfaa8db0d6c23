"""One-dimensional sequences (NumPy-only): convolve, correlate and interp."""

import numpy as np

from .. import dtypes, lax
from ..core import get_aval, get_concrete
from ._core import promote, take_1d, to_array
from ._elementwise import conjugate
from ._manipulation import flip, reshape
from ._searching import searchsorted


def _correlate_full(a, v, pad_lo, pad_hi):
    # sum_k a[n + k] * v[k], the cross-correlation as a 1-d convolution
    a, v = promote(a, v)
    dt = get_aval(a).dtype
    if dt == np.bool_:
        raise TypeError("convolve/correlate of boolean arrays")
    lhs = reshape(a, (1, 1, -1))
    rhs = reshape(v, (1, 1, -1))
    if dtypes.is_complex(dt):
        raise NotImplementedError("convolve/correlate of complex arrays")
    out = lax.conv_general_dilated(lhs, rhs, (1,), [(pad_lo, pad_hi)])
    return reshape(out, (-1,))


def _mode_pads(n, m, mode):
    if mode == "full":
        return m - 1, m - 1
    if mode == "same":
        return (m - 1) // 2, m - 1 - (m - 1) // 2
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


def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-d sequences (``mode`` valid, same or full)."""
    a, v, n, m = _sequences("correlate", a, v)
    swapped = m > n
    if swapped:
        a, v, n, m = v, a, m, n
    lo, hi = _mode_pads(n, m, mode)
    out = _correlate_full(a, conjugate(v), lo, hi)
    return flip(out) if swapped else out


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-d sequences (``mode`` full, same or valid)."""
    a, v, n, m = _sequences("convolve", a, v)
    if m > n:
        a, v, n, m = v, a, m, n
    lo, hi = _mode_pads(n, m, mode)
    return _correlate_full(a, flip(v), lo, hi)


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
