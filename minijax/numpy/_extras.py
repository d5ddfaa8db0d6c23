"""More of NumPy: logspace, geomspace, append, cov, corrcoef, set operations, nanargmax,
nanargmin, convolve, correlate, bincount, interp."""

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from ._core import promote, to_array
from ._elementwise import divide, isnan, multiply, power, subtract, where
from ._manipulation import concatenate, flip, reshape
from ._reductions import argmax, argmin
from ._sorting import _concrete, _wrap, searchsorted
from ._statistics import mean


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``."""
    from ._creation import linspace
    y = linspace(start, stop, num, endpoint)
    out = power(base, y)
    return out if dtype is None else lax.convert_element_type(out, dtypes.canonicalize(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (positive or negative
    real endpoints of one sign)."""
    from ._creation import linspace
    from ._elementwise import exp, log, sign
    s, t = to_array(start), to_array(stop)
    sgn = sign(s)
    ls, lt = log(multiply(s, sgn)), log(multiply(t, sgn))
    out = multiply(sgn, exp(linspace(ls, lt, num, endpoint)))
    # the end points exactly, as NumPy
    n = get_aval(out).shape[0]
    if n:
        pos = lax.iota(np.int64, n)
        out = where(lax.eq(pos, lax.full((n,), 0, np.int64)), s, out)
        if endpoint:
            out = where(lax.eq(pos, lax.full((n,), n - 1, np.int64)), t, out)
    if dtype is not None:
        out = lax.convert_element_type(out, dtypes.canonicalize(dtype))
    elif not dtypes.is_inexact(get_aval(out).dtype):
        out = lax.convert_element_type(out, dtypes.default_float())
    return out


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (both flattened when ``axis`` is None)."""
    if axis is None:
        return concatenate([reshape(arr, (-1,)), reshape(values, (-1,))], 0)
    return concatenate([arr, values], axis)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """Covariance matrix of the variables in the rows (``rowvar``) of ``m``."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights/aweights are not supported")
    x = to_array(m)
    if get_aval(x).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    x = reshape(x, (1, -1)) if get_aval(x).ndim < 2 else x
    if not rowvar and get_aval(x).shape[0] != 1:
        x = lax.transpose(x, (1, 0))
    if y is not None:
        yy = to_array(y)
        yy = reshape(yy, (1, -1)) if get_aval(yy).ndim < 2 else yy
        if not rowvar and get_aval(yy).shape[0] != 1:
            yy = lax.transpose(yy, (1, 0))
        x = concatenate([x, yy], 0)
    dt = get_aval(x).dtype
    target = dtypes.canonicalize(dtype) if dtype is not None else (
        dt if dtypes.is_inexact(dt) else dtypes.default_float())
    if dtypes.is_inexact(dt) and get_aval(x).dtype.itemsize < 8 and dtype is None:
        target = np.result_type(dt, np.float64)
    x = lax.convert_element_type(x, target)
    n = get_aval(x).shape[1]
    if ddof is None:
        ddof = 0 if bias else 1
    xc = subtract(x, mean(x, axis=1, keepdims=True))
    from ._ufuncs import conjugate
    from ._linalg import matmul
    c = divide(matmul(xc, lax.transpose(conjugate(xc), (1, 0))), max(n - ddof, 0))
    return lax.squeeze(c, (0, 1)) if get_aval(c).shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients (clipped to [-1, 1] for real input)."""
    from ._elementwise import sqrt, clip
    c = cov(x, y, rowvar, dtype=dtype)
    if get_aval(c).ndim == 0:
        return divide(c, c)
    d = lax.reduce_sum(where(lax.eq(lax.broadcasted_iota(np.int32, get_aval(c).shape, 0),
                                    lax.broadcasted_iota(np.int32, get_aval(c).shape, 1)),
                             c, 0), (1,))
    sd = sqrt(d)
    c = divide(divide(c, reshape(sd, (-1, 1))), reshape(sd, (1, -1)))
    if not dtypes.is_complex(get_aval(c).dtype):
        c = clip(c, -1, 1)
    return c


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (by broadcasting)."""
    e, t = promote(element, test_elements)
    es = get_aval(e).shape
    t = reshape(t, (-1,))
    n = get_aval(t).shape[0]
    shape = es + (n,)
    eq = lax.eq(lax.broadcast_in_dim(e, shape, tuple(range(len(es)))),
                lax.broadcast_in_dim(t, shape, (len(es),)))
    out = lax.reduce_max(eq, (len(es),)) if n else lax.full(es, False, np.bool_)
    return lax.eq(out, lax.full(es, False, np.bool_)) if invert else out


def _set_op(name):
    np_fn = getattr(np, name)

    def fn(ar1, ar2, *args, **kwargs):
        res = np_fn(_concrete(ar1, name), _concrete(ar2, name), *args, **kwargs)
        return _wrap(res)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.{name} (eager only: the output size depends on the values)."
    return fn


intersect1d = _set_op("intersect1d")
union1d = _set_op("union1d")
setdiff1d = _set_op("setdiff1d")
setxor1d = _set_op("setxor1d")


def _nan_arg(name, fn, fill):
    def nanfn(a, axis=None, out=None, *, keepdims=False):
        a = to_array(a)
        if not dtypes.is_inexact(get_aval(a).dtype):
            return fn(a, axis, out, keepdims=keepdims)
        mask = isnan(a)
        from ..core import get_concrete
        v = get_concrete(mask)
        if v is not None and np.asarray(v).all(axis=axis).any():
            raise ValueError("All-NaN slice encountered")
        return fn(where(mask, fill, a), axis, out, keepdims=keepdims)
    nanfn.__name__ = nanfn.__qualname__ = name
    nanfn.__doc__ = f"{name[3:]} ignoring NaNs."
    return nanfn


nanargmax = _nan_arg("nanargmax", argmax, -np.inf)
nanargmin = _nan_arg("nanargmin", argmin, np.inf)


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
    from ._ufuncs import conjugate
    out = _correlate_full(a, conjugate(v), lo, hi)
    return flip(out) if swapped else out


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-d sequences (``mode`` full, same or valid)."""
    a, v, n, m = _sequences("convolve", a, v)
    if m > n:
        a, v, n, m = v, a, m, n
    lo, hi = _mode_pads(n, m, mode)
    return _correlate_full(a, flip(v), lo, hi)


def bincount(x, weights=None, minlength=0, *, length=None):
    """Counts of each non-negative integer value (``length`` fixes the size under jit)."""
    x = to_array(x)
    if not dtypes.is_integer(get_aval(x).dtype):
        raise TypeError("bincount: x must be integers")
    if length is None:
        v = _concrete(x, "bincount")
        if v.size and v.min() < 0:
            raise ValueError("bincount: x must be non-negative")
        length = max(int(minlength), int(v.max()) + 1 if v.size else 0)
    n = get_aval(x).shape[0]
    shape = (n, length)
    hit = lax.eq(lax.broadcast_in_dim(lax.convert_element_type(x, np.int64), shape, (0,)),
                 lax.broadcasted_iota(np.int64, shape, 1))
    if weights is None:
        return lax.reduce_sum(lax.convert_element_type(hit, np.int64), (0,))
    w = to_array(weights)
    wdt = get_aval(w).dtype
    wdt = wdt if dtypes.is_inexact(wdt) else np.dtype(np.float64)
    w = lax.broadcast_in_dim(lax.convert_element_type(w, wdt), shape, (0,))
    return lax.reduce_sum(lax.select_n(hit, lax.full(shape, 0, wdt), w), (0,))


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of (``xp``, ``fp``) at ``x`` (``xp`` increasing)."""
    if period is not None:
        raise NotImplementedError("interp: period is not supported")
    from ._sorting import _take_1d
    x = to_array(x)
    xp, fp = to_array(xp), to_array(fp)
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
    x0, x1 = _take_1d(xp, lo), _take_1d(xp, i)
    f0, f1 = _take_1d(fp, lo), _take_1d(fp, i)
    dx = lax.sub(x1, x0)
    same = lax.eq(dx, lax.full(xs, 0, np.float64))
    t = lax.div(lax.sub(x, x0), lax.select_n(same, dx, lax.full(xs, 1, np.float64)))
    out = lax.add(f0, lax.mul(lax.convert_element_type(t, dt), lax.sub(f1, f0)))
    out = lax.select_n(same, out, f0)
    # exact hits on the right end and the outside values
    first, last = _take_1d(fp, lax.full((), 0, np.int64)), _take_1d(fp, lax.full((), n - 1,
                                                                                np.int64))
    xp0, xpn = _take_1d(xp, lax.full((), 0, np.int64)), _take_1d(xp, lax.full((), n - 1,
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
