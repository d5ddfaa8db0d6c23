"""Statistical functions (Array API chapter "Statistical Functions"): sum,
prod, max, min, mean, var, std, cumulative sums and products, ptp, and NumPy's
average, median, quantile/percentile, cov, corrcoef and the NaN-ignoring reductions."""

import builtins
import operator
import warnings

import numpy as np

from .. import _checks, dtypes, lax
from ..core import get_aval, get_concrete
from ..custom_derivatives import custom_jvp
from ..util import canonicalize_axis
from ._out import supports_out
from ._core import promote, reduction_axes, to_array, with_kept_dims
from ._elementwise import (
    as_bool,
    clip,
    conjugate,
    divide,
    isnan,
    logical_not,
    multiply,
    sqrt,
    subtract,
)
from ._linear_algebra import matmul
from ._manipulation import concatenate, diagonal, reshape
from ._searching import where


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """Covariance matrix of the variables in the rows (``rowvar``) of ``m``, with
    observations weighted by ``fweights`` (integer repeat counts) and ``aweights``
    (importance weights) as NumPy's. NumPy's checks of the weights' values (integral,
    not negative) are made where the weights are concrete, under jit too."""
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
    if not dtypes.is_inexact(target):   # (NumPy subtracts the float mean in dtype=, in place)
        raise TypeError(f"Cannot cast ufunc 'subtract' output from dtype('float64') to "
                        f"dtype('{target.name}') with casting rule 'same_kind'")
    x = lax.convert_element_type(x, target)
    n = get_aval(x).shape[1]
    if ddof is None:
        ddof = 0 if bias else 1
    if isinstance(ddof, (float, np.floating)):   # NumPy takes an integral float
        if not np.isfinite(ddof) or ddof != int(ddof):
            raise ValueError(f"cov: ddof must be integer, got {ddof!r}")
        ddof = int(ddof)
    ddof = _checks.index(ddof, "ddof")
    f = _cov_weights(fweights, "fweights", n)
    a = _cov_weights(aweights, "aweights", n)
    w = a if f is None else f if a is None else multiply(f, a)
    if w is None:
        xc = subtract(x, mean(x, axis=1, keepdims=True))
        c = divide(matmul(xc, lax.transpose(conjugate(xc), (1, 0))), builtins.max(n - ddof, 0))
    else:
        w_sum = sum(w)
        xc = subtract(x, divide(sum(multiply(x, w), axis=1, keepdims=True), w_sum))
        if ddof == 0:
            fact = w_sum
        elif a is None:
            fact = subtract(w_sum, ddof)
        else:
            fact = subtract(w_sum, divide(multiply(ddof, sum(multiply(w, a))), w_sum))
        fact = lax.max(fact, lax.full((), 0, get_aval(fact).dtype))
        xw = lax.transpose(conjugate(multiply(xc, w)), (1, 0))
        c = divide(matmul(xc, xw), fact)
    return lax.squeeze(c, (0, 1)) if get_aval(c).shape == (1, 1) else c


def _cov_weights(weights, name, n):
    """``cov``'s ``fweights`` or ``aweights`` as a 1-d float array of ``n`` weights, with
    NumPy's checks (those of the values where they are concrete)."""
    if weights is None:
        return None
    w = to_array(weights)
    aval = get_aval(w)
    if aval.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if aval.shape != (n,):
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    known = get_concrete(w)
    if known is not None:
        values = np.asarray(known, dtype=float)
        if name == "fweights" and not (values == np.around(values)).all():
            raise TypeError("fweights must be integer")
        if (values < 0).any():
            raise ValueError(f"{name} cannot be negative")
    elif name == "fweights" and dtypes.is_inexact(aval.dtype):
        raise TypeError("cov: traced fweights must have an integer dtype (their values "
                        "cannot be checked to be integers under a transformation)")
    return lax.convert_element_type(w, dtypes.default_float())


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients (clipped to [-1, 1] for real input)."""
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


def _sum_dtype(dtype):
    # NumPy sums bools and small integers in the platform integer.
    if dtype == np.bool_:
        return dtypes.default_int()
    if dtype.kind == "i" and dtype.itemsize < dtypes.default_int().itemsize:
        return dtypes.default_int()
    if dtype.kind == "u" and dtype.itemsize < dtypes.default_int().itemsize:
        return np.dtype(np.uint64 if dtypes.default_int().itemsize == 8 else np.uint32)
    return dtype


def _where_fill(a, where, value):
    if where is None or where is True:
        return a
    aval = get_aval(a)
    mask = lax.broadcast_to_shape(as_bool(where), aval.shape)
    return lax.select_n(mask, lax.full(aval.shape, value, aval.dtype), a)


def _accumulate(a, axis, dtype, keepdims, initial, where, identity, reduce, bool_reduce,
                combine):
    a = to_array(a)
    aval = get_aval(a)
    axes = reduction_axes(aval.ndim, axis)
    out_dtype = _sum_dtype(aval.dtype) if dtype is None else dtypes.canonicalize(dtype)
    a = lax.convert_element_type(a, out_dtype)   # (strong, as JAX's reductions)
    a = _where_fill(a, where, identity)
    res = (bool_reduce if out_dtype == np.bool_ else reduce)(a, axes)
    if initial is not None:
        res = combine(res, lax.full(get_aval(res).shape, initial, out_dtype))
    return with_kept_dims(res, aval.shape, axes) if keepdims else res


@supports_out
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):
    """Sum of elements over ``axis`` (NumPy's accumulator dtypes; JAX's
    ``promote_integers=False`` keeps an integer input's dtype)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return _accumulate(a, axis, _unpromoted(a, dtype, promote_integers), keepdims, initial,
                       where, 0, lax.reduce_sum, lax.reduce_max, lax.add)


@supports_out
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product of elements over ``axis`` (NumPy's accumulator dtypes; JAX's
    ``promote_integers=False`` keeps an integer input's dtype)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return _accumulate(a, axis, _unpromoted(a, dtype, promote_integers), keepdims, initial,
                       where, 1, lax.reduce_prod, lax.reduce_min, lax.mul)


def _unpromoted(a, dtype, promote_integers):
    """``dtype``, or with ``promote_integers=False`` and no dtype JAX's: an integer
    input's own, int32 for booleans."""
    if dtype is not None or _checks.flag(promote_integers, "promote_integers"):
        return dtype
    own = get_aval(to_array(a)).dtype
    return np.dtype(np.int32) if own == np.bool_ else own if own.kind in "iu" else None


def _extremum(name, lax_fn):
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        keepdims = _checks.flag(keepdims, "keepdims")
        a = to_array(a)
        aval = get_aval(a)
        axes = reduction_axes(aval.ndim, axis)
        if where is not None and where is not True:
            if initial is None:
                raise ValueError(f"reduction operation {name} does not have an identity, so "
                                 f"to use a where mask one has to specify 'initial'")
            a = _where_fill(a, where, initial)
        if initial is None and builtins.any(aval.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             f"identity")
        out = lax.convert_element_type(lax_fn(a, axes), aval.dtype)   # (strong, as JAX's)
        if initial is not None:
            init = lax.full(get_aval(out).shape, initial, aval.dtype)
            out = (lax.max if name == "maximum" else lax.min)(out, init)
        return with_kept_dims(out, aval.shape, axes) if keepdims else out
    fn.__name__ = fn.__qualname__ = "max" if name == "maximum" else "min"
    fn.__doc__ = f"The {name} over ``axis`` (``initial`` joins the reduction)."
    return supports_out(fn)


max = _extremum("maximum", lax.reduce_max)


min = _extremum("minimum", lax.reduce_min)


amax, amin = max, min


@supports_out
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over ``axis`` (integers average in the default float)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    a = to_array(a)
    aval = get_aval(a)
    axes = reduction_axes(aval.ndim, axis)
    if dtype is not None:
        out_dtype = dtypes.canonicalize(dtype)
    elif dtypes.is_inexact(aval.dtype):
        out_dtype = aval.dtype
    else:
        out_dtype = dtypes.default_float()
    compute = _wider_than_half(out_dtype)   # (as NumPy accumulates float16)
    if where is not None and where is not True:
        mask = lax.broadcast_to_shape(to_array(where), aval.shape)
        total = sum(lax.convert_element_type(a, compute), axis, keepdims=keepdims,
                    where=mask)
        count = sum(mask, axis, keepdims=keepdims)
        out = lax.div(total, lax.convert_element_type(count, compute))
        return lax.convert_element_type(out, out_dtype)
    total = lax.reduce_sum(lax.convert_element_type(a, compute, aval.weak_type), axes)
    count = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    out = lax.div(total, lax.full(get_aval(total).shape, count, compute))
    out = lax.convert_element_type(out, out_dtype, get_aval(out).weak_type)
    return with_kept_dims(out, aval.shape, axes) if keepdims else out


def _cumulative(name, lax_fn, identity):
    def fn(a, axis=None, dtype=None, out=None):
        a = to_array(a)
        aval = get_aval(a)
        if axis is None:
            a = lax.reshape(a, (aval.size,))
            axis = 0
        out_dtype = _sum_dtype(aval.dtype) if dtype is None else dtypes.canonicalize(dtype)
        a = lax.convert_element_type(a, out_dtype)
        axis = canonicalize_axis(axis, get_aval(a).ndim)
        if out_dtype == np.bool_:   # logical or / and along the axis
            as_int = lax.convert_element_type(a, np.int32)
            res = (lax.cummax if identity == 0 else lax.cummin)(as_int, axis)
            return lax.convert_element_type(res, np.bool_)
        return lax_fn(a, axis)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Cumulative {name[3:]} along ``axis`` (of the flattened array by default)."
    return supports_out(fn)


cumsum = _cumulative("cumsum", lax.cumsum, 0)


cumprod = _cumulative("cumprod", lax.cumprod, 1)


@supports_out
def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` treating NaNs as zero."""
    return cumsum(_replace_nan(a, 0)[0], axis, dtype, out)


@supports_out
def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` treating NaNs as one."""
    return cumprod(_replace_nan(a, 1)[0], axis, dtype, out)


def _pad_initial(res, axis, value):
    aval = get_aval(res)
    init = lax.full((), value, aval.dtype)
    config = [(0, 0, 0)] * aval.ndim
    config[axis] = (1, 0, 0)
    return lax.pad(res, init, config)


def _array_api_cumulative(name, fn, identity):
    def cumulative(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        x = to_array(x)
        if get_aval(x).ndim == 0:
            x = lax.reshape(x, (1,))   # a 0-d input is taken as 1-d, as NumPy does
        aval = get_aval(x)
        if axis is None:
            if aval.ndim > 1:
                raise ValueError(f"{name}: axis must be given for arrays of rank > 1")
            axis = 0
        axis = canonicalize_axis(axis, aval.ndim)
        res = fn(x, axis=axis, dtype=dtype)
        return _pad_initial(res, axis, identity) if include_initial else res
    cumulative.__name__ = cumulative.__qualname__ = name
    cumulative.__doc__ = f"Array API {name} (with ``include_initial``)."
    return supports_out(cumulative)


cumulative_sum = _array_api_cumulative("cumulative_sum", cumsum, 0)


cumulative_prod = _array_api_cumulative("cumulative_prod", cumprod, 1)


@supports_out
def ptp(a, axis=None, out=None, keepdims=False):
    """Range (maximum minus minimum) along ``axis``."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return subtract(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def _mean_dtype(dtype):
    return dtype if dtypes.is_inexact(dtype) else dtypes.default_float()


def _variance_ddof(name, ddof, correction):
    """The degrees-of-freedom correction of a variance call."""
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"{name}: give ddof or correction, not both")
        return _check_ddof(name, correction, "correction")
    return _check_ddof(name, ddof, "ddof")


def _check_ddof(fname, ddof, name):
    """``ddof`` as a Python int or float, with NumPy's errors: TypeError for something
    that is not a real number, OverflowError for an int beyond int64."""
    if hasattr(ddof, "__index__") and not isinstance(ddof, bool):
        value = operator.index(ddof)
        if not _checks.MAX_EXTENT >= value >= -_checks.MAX_EXTENT - 1:
            raise OverflowError(f"{fname}: {name}={value}: Python int too large to convert "
                                f"to C long")
        return value
    if isinstance(ddof, (float, np.floating)) or (
            isinstance(ddof, np.ndarray) and ddof.shape == () and ddof.dtype.kind == "f"):
        return float(ddof)
    if isinstance(ddof, bool):
        return int(ddof)
    raise TypeError(f"{fname}: {name} must be a real number, got {type(ddof).__name__} "
                    f"{ddof!r}")


@supports_out
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Variance over ``axis`` with ``ddof`` (or the Array API's ``correction``)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    ddof = _variance_ddof("var", ddof, correction)
    a = to_array(a)
    aval = get_aval(a)
    axes = reduction_axes(aval.ndim, axis)
    mask = None if where is None or where is True else lax.broadcast_to_shape(
        lax.convert_element_type(to_array(where), np.bool_), aval.shape)
    given = _mean_dtype(aval.dtype) if dtype is None else dtypes.canonicalize(dtype)
    compute = _wider_than_half(given)
    out_dtype = dtypes.real_dtype(given) if dtype is None else given
    # NumPy's steps: the mean in dtype=, the deviations in a's dtype promoted with it,
    # their squares (|.|**2 for complex a) summed in dtype= (real for complex a without)
    x = lax.convert_element_type(a, compute)
    if mean is not None:   # NumPy's: the mean over axis, shaped as with keepdims=True
        m = lax.broadcast_to_shape(lax.convert_element_type(to_array(mean), compute),
                                   aval.shape)
    elif mask is not None:
        m = lax.broadcast_to_shape(_masked_mean_keep(x, mask, axes), aval.shape)
    else:
        m = _mean_keep(x, axes)
    deviation = _wider_than_half(dtypes.canonicalize(np.result_type(aval.dtype, compute)))
    centered = lax.sub(lax.convert_element_type(a, deviation),
                       lax.convert_element_type(m, deviation))
    if dtypes.is_complex(aval.dtype):
        sq = lax.abs(centered)
        sq = lax.mul(sq, sq)
    else:
        sq = lax.mul(centered, centered)
    summed = compute if dtype is not None else _wider_than_half(out_dtype)
    sq = lax.convert_element_type(sq, summed)
    if mask is not None:
        sq = lax.select_n(mask, lax.full(aval.shape, 0, get_aval(sq).dtype), sq)
        total = lax.reduce_sum(sq, axes)
        real = dtypes.real_dtype(get_aval(total).dtype)
        n = lax.reduce_sum(lax.convert_element_type(mask, real), axes)
        denom = lax.max(lax.sub(n, lax.full(get_aval(n).shape, ddof, real)),
                        lax.full(get_aval(n).shape, 0, real))
        res = lax.div(total, lax.convert_element_type(denom, get_aval(total).dtype))
    else:
        total = lax.reduce_sum(sq, axes)
        n = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
        denom = builtins.max(n - ddof, 0)
        res = lax.div(total, lax.full(get_aval(total).shape, denom, get_aval(total).dtype))
    res = lax.convert_element_type(res, out_dtype)
    return with_kept_dims(res, aval.shape, axes) if keepdims else res


def _wider_than_half(dtype):
    # (half-precision statistics compute in float32)
    return np.dtype(np.float32) if dtype == np.float16 or dtype == dtypes.bfloat16 else dtype


def _masked_mean_keep(x, mask, axes):
    # the mean over axes of the entries where mask is true, with the axes kept (size 1)
    aval = get_aval(x)
    zero = lax.full(aval.shape, 0, aval.dtype)
    total = lax.reduce_sum(lax.select_n(mask, zero, x), axes)
    n = lax.reduce_sum(lax.convert_element_type(mask, aval.dtype), axes)
    return with_kept_dims(lax.div(total, n), aval.shape, axes)


def _mean_keep(x, axes):
    aval = get_aval(x)
    n = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    total = lax.reduce_sum(x, axes)
    m = lax.div(total, lax.full(get_aval(total).shape, n, aval.dtype))
    return lax.broadcast_to_shape(with_kept_dims(m, aval.shape, axes), aval.shape)


@supports_out
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Standard deviation over ``axis`` with ``ddof`` (or ``correction``)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return _deviation(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                          correction=correction))


def _deviation(v):
    """The standard deviation of the variance ``v``, as NumPy's ``std`` takes it."""
    vdt = get_aval(v).dtype
    if not dtypes.is_inexact(vdt):   # an integer dtype=: NumPy's square root of its scalar
        if get_aval(v).shape:
            raise TypeError(f"Cannot cast ufunc 'sqrt' output from dtype('float64') to "
                            f"dtype('{vdt.name}') with casting rule 'same_kind'")
        return lax.convert_element_type(
            lax.sqrt(lax.convert_element_type(v, dtypes.default_float())), vdt)
    return _sqrt_of_variance(v)


@custom_jvp
def _sqrt_of_variance(v):
    return lax.sqrt(v)


@_sqrt_of_variance.defjvp
def _sqrt_of_variance_jvp(primals, tangents):
    # Where the variance is 0 (all values equal, e.g. a length-1 axis) its tangent is 0
    # too, and std's is taken as 0 rather than 0 / 0.
    v, = primals
    t, = tangents
    out = _sqrt_of_variance(v)
    aval = get_aval(out)

    def const(c):
        return lax.full(aval.shape, c, aval.dtype)
    zero = lax.eq(out, const(0))
    slope = lax.div(t, lax.mul(lax.select_n(zero, out, const(1)), const(2)))
    return out, lax.select_n(zero, slope, const(0))


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted mean over ``axis`` (``returned`` also gives the sum of the weights)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    a = to_array(a)
    aval = get_aval(a)
    if weights is None:
        res = mean(a, axis, keepdims=keepdims)
        if returned:
            axes = reduction_axes(aval.ndim, axis)
            n = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
            return res, lax.full(get_aval(res).shape, n, get_aval(res).dtype)
        return res
    w = to_array(weights)
    waval = get_aval(w)
    known = get_concrete(w)   # (constant weights, under jit too: NumPy's check)
    if known is not None and (np.sum(np.asarray(known), axis=None if waval.shape != aval.shape
                                     else axis) == 0).any():
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    if waval.shape != aval.shape:
        if axis is None:
            raise TypeError("average: axis must be given when weights and a differ in shape")
        if waval.ndim != 1:
            raise TypeError("average: 1-d weights expected when shapes of a and weights differ")
        ax = canonicalize_axis(axis, aval.ndim)
        if waval.shape[0] != aval.shape[ax]:
            raise ValueError("average: length of weights differs from the length of axis")
        w = lax.broadcast_in_dim(w, aval.shape, (ax,))
    dt, _ = dtypes.promote((aval.dtype, False), (waval.dtype, False))
    if not dtypes.is_inexact(dt):
        dt = np.result_type(dt, np.float64)
    a2, w2 = promote(a, w, dtype=dtypes.canonicalize(dt))
    wsum = sum(w2, axis, keepdims=keepdims)
    res = divide(sum(multiply(a2, w2), axis, keepdims=keepdims), wsum)
    if returned:
        return res, lax.broadcast_to_shape(wsum, get_aval(res).shape)
    return res


@supports_out
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """The ``q``-th quantiles along ``axis`` (q in [0, 1]), by any of NumPy's 13
    methods (default 'linear'); ``weights`` (method 'inverted_cdf' only, as NumPy's)
    weigh the observations."""
    return _quantile(a, q, axis, method, keepdims, weights, skip_nan=False)


def _quantile(a, q, axis, method, keepdims, weights, skip_nan):
    """``quantile``, or ``nanquantile`` (``skip_nan``: each lane's quantile of its
    non-NaN elements, NaN where there are none)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    _check_q(q, 1, "Quantiles")
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: "
                         f"{tuple(_QUANTILE_METHODS)}")
    if weights is not None and method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    a = to_array(a)
    aval = get_aval(a)
    if dtypes.is_complex(aval.dtype):
        raise TypeError("quantile of complex arrays is not defined")
    skip_nan = skip_nan and dtypes.is_inexact(aval.dtype)
    axes = reduction_axes(aval.ndim, axis)
    x_orig = _to_lanes(a, axes)
    *lanes, n = get_aval(x_orig).shape
    lanes = tuple(lanes)
    if n == 0 and not skip_nan:
        raise ValueError("quantile of an empty axis")
    out_dtype = _mean_dtype(aval.dtype)
    qa = to_array(q)
    q_dtype = get_aval(qa).dtype
    if not get_aval(qa).weak_type and dtypes.is_inexact(q_dtype):
        out_dtype = np.result_type(out_dtype, q_dtype)
    x = lax.convert_element_type(x_orig, out_dtype)
    # the discrete methods pick elements, so they keep the input dtype (as NumPy)
    keys = x_orig if method in _PICKING_METHODS else x
    qs = get_aval(qa).shape
    full = qs + lanes
    qb = lax.broadcast_in_dim(lax.convert_element_type(qa, out_dtype), full,
                              tuple(range(len(qs))))
    nan = isnan(x) if dtypes.is_inexact(aval.dtype) else None
    if skip_nan:
        count = lax.reduce_sum(lax.convert_element_type(logical_not(nan), out_dtype),
                               (len(lanes),))
        count = lax.broadcast_in_dim(count, full, tuple(range(len(qs), len(full))))
    else:
        count = lax.full(full, n, out_dtype)
    idt = np.dtype(np.int64)
    last = lax.sub(lax.convert_element_type(count, idt), lax.full(full, 1, idt))

    def element(i):   # (the sorted element at the float index i, clamped to the lane)
        i = lax.convert_element_type(i, idt)
        return _take_per_lane(srt, lax.max(lax.min(i, last), lax.full(full, 0, idt)))
    if weights is None:
        srt = lax.sort(keys, len(lanes))   # (NaNs last)
        res = _interpolated(qb, count, method, element, out_dtype)
    else:
        w = _quantile_weights(weights, aval, axis, axes)
        srt, w = lax.sort((keys, w), len(lanes), num_keys=1)
        if skip_nan:   # (a NaN's weight does not count)
            w = lax.select_n(isnan(srt), w, lax.full(get_aval(w).shape, 0, get_aval(w).dtype))
        res = element(_weighted_index(w, qa, full))
    if nan is not None:
        if skip_nan:
            empty = lax.eq(count, lax.full(full, 0, out_dtype))
        else:   # any NaN along the axis makes the quantile NaN
            empty = lax.broadcast_in_dim(lax.reduce_max(nan, (len(lanes),)), full,
                                         tuple(range(len(qs), len(full))))
        res = lax.select_n(empty, res, lax.full(full, np.nan, get_aval(res).dtype))
    if keepdims:
        res = lax.reshape(res, qs + tuple(1 if i in axes else s
                                          for i, s in enumerate(aval.shape)))
    return res


def _to_lanes(a, axes):
    """``a`` with ``axes`` moved last and merged into one: shape ``lanes + (n,)``."""
    aval = get_aval(a)
    kept = tuple(i for i in range(aval.ndim) if i not in axes)
    n = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    x = lax.transpose(a, kept + axes) if aval.ndim else a
    return lax.reshape(x, tuple(aval.shape[i] for i in kept) + (n,))


def _interpolated(q, count, method, element, dtype):
    """NumPy's quantile ``method`` at ``q`` of lanes of ``count`` sorted elements
    (``q`` and ``count`` of the result's shape; ``element(i)`` reads the sorted lane at
    the float index ``i``, clamped to it)."""
    shape = get_aval(q).shape

    def const(v):
        return lax.full(shape, v, dtype)
    if method in _PICKING_METHODS[3:]:   # inverted_cdf, closest_observation
        pos = _picked_position(q, count, method, const)
        method = "lower"
    elif method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        # NumPy's virtual index n q + (alpha + q (1 - alpha - beta)) - 1, interpolated
        pos = lax.sub(lax.add(lax.mul(count, q), lax.add(
            const(alpha), lax.mul(q, const(1 - alpha - beta)))), const(1))
    else:
        pos = lax.mul(q, lax.sub(count, const(1)))
    lo = lax.floor(pos)
    below, above = element(lo), element(lax.ceil(pos))
    if method == "lower":
        return below
    if method == "higher":
        return above
    if method == "midpoint":
        return lax.mul(lax.add(below, above), const(0.5))
    if method == "averaged_inverted_cdf":
        # NumPy: at the virtual index n q - 1, the mean of the two neighbours where it is
        # whole, else the next element (the end ones outside the range)
        t = lax.mul(q, count)
        f = lax.floor(t)
        nxt = element(f)
        mean = lax.mul(lax.add(element(lax.sub(f, const(1))), nxt), const(0.5))
        return lax.select_n(lax.eq(t, f), nxt, mean)
    frac = lax.sub(pos, lo)
    if method == "nearest":   # NumPy rounds half to even on the index
        even = lax.eq(lax.rem(lo, const(2)), const(0))
        take_hi = lax.select_n(lax.eq(frac, const(0.5)), lax.gt(frac, const(0.5)),
                               logical_not(even))
        return lax.select_n(take_hi, below, above)
    diff = lax.sub(above, below)
    from_below = lax.add(below, lax.mul(diff, frac))
    from_above = lax.sub(above, lax.mul(diff, lax.sub(const(1), frac)))
    res = lax.select_n(lax.ge(frac, const(0.5)), from_below, from_above)
    return lax.select_n(lax.eq(diff, const(0)), res, below)


def _quantile_weights(weights, aval, axis, axes):
    """``quantile``'s ``weights`` checked as NumPy's (their values where they are
    concrete), broadcast to ``a`` and laid out in lanes as ``a`` is."""
    w = to_array(weights)
    waval = get_aval(w)
    if waval.shape != aval.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        given = tuple(canonicalize_axis(ax, aval.ndim)
                      for ax in (axis if isinstance(axis, tuple) else (axis,)))
        if waval.shape != tuple(aval.shape[ax] for ax in given):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        order = sorted(range(len(given)), key=given.__getitem__)
        w = lax.broadcast_in_dim(lax.transpose(w, tuple(order)), aval.shape,
                                 tuple(sorted(given)))
    known = get_concrete(w)
    if known is not None and (np.asarray(known) < 0).any():
        raise ValueError("Weights must be non-negative.")
    return _to_lanes(w, axes)


def _weighted_index(w, q, full):
    """NumPy's weighted inverted CDF: in each lane of sorted weights ``w``, the first
    index where the cumulative weight (over the total) reaches ``q``; a run of zero
    weights at the start is passed over, so ``q = 0`` picks the first weighted one."""
    fdt = dtypes.default_float()
    cdf = lax.cumsum(lax.convert_element_type(w, fdt), get_aval(w).ndim - 1)
    cdf = lax.div(cdf, lax.slice_in_dim(cdf, get_aval(cdf).shape[-1] - 1, None,
                                        axis=get_aval(cdf).ndim - 1))
    q_dtype = get_aval(q).dtype
    if dtypes.is_inexact(q_dtype):   # (NumPy compares in q's dtype)
        cdf = lax.convert_element_type(cdf, q_dtype)
    cdt = get_aval(cdf).dtype
    shape = full + (get_aval(cdf).shape[-1],)
    qs = get_aval(q).ndim
    cdf = lax.broadcast_in_dim(cdf, shape, tuple(range(qs, len(shape))))
    q = lax.broadcast_in_dim(lax.convert_element_type(q, cdt), shape, tuple(range(qs)))
    below = lax.bitwise_or(lax.lt(cdf, q), lax.le(cdf, lax.full(shape, 0, cdt)))
    return lax.reduce_sum(lax.convert_element_type(below, np.int64), (len(shape) - 1,))


def _picked_position(qa, n, method, const):
    """The element ``inverted_cdf`` or ``closest_observation`` picks, as NumPy rounds its
    virtual index (``n q - 1``, ``n q - 1.5``): down where that index is whole (and, for
    the closest observation, odd), else up. Decided by comparing ``n q`` (one product)
    with its floor: compiled code may fuse a product and a sum into one rounding, which
    would move the whole indexes."""
    t = lax.mul(qa, n)
    f = lax.floor(t)
    if method == "inverted_cdf":
        return lax.select_n(lax.eq(t, f), f, lax.sub(f, const(1)))
    twice = lax.mul(t, const(2))   # (exact)
    half_past = lax.add(lax.mul(f, const(2)), const(1))   # (2 f + 1: fraction 0.5)
    half = lax.eq(twice, half_past)
    below_half = lax.lt(twice, half_past)
    # fraction 0.5: the index t - 1.5 = f - 1, kept if odd, else f; otherwise the
    # index rounds up to floor(t - 0.5): f - 1 below a half, f above
    whole = lax.sub(f, const(1))
    odd = lax.eq(lax.rem(whole, const(2)), const(1))
    at_half = lax.select_n(odd, f, whole)
    return lax.select_n(half, lax.select_n(below_half, f, whole), at_half)


# NumPy's (alpha, beta) of the interpolating methods (H&F 4-9; linear is 7)
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3, 1 / 3), "normal_unbiased": (3 / 8, 3 / 8)}
# the methods that pick an element (its dtype kept); the last two by NumPy's rounding
_PICKING_METHODS = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")
_QUANTILE_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                     "interpolated_inverted_cdf", "hazen", "weibull", "linear",
                     "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint",
                     "nearest")


def _check_q(q, top, what):
    """NumPy's ValueError for concrete ``q`` outside [0, top] (traced q is not checked),
    and for ``q`` of more than two dimensions."""
    if np.ndim(q) > 2:
        raise ValueError("q must be a scalar or 1d")
    value = q if isinstance(q, (int, float, list, tuple, np.ndarray, np.generic)) else (
        get_concrete(to_array(q)))
    if value is None:
        return
    v = np.asarray(value)
    if v.size == 0 and v.ndim != 1:
        # NumPy checks such a q with q.min(), which fails on no elements
        raise ValueError("zero-size array to reduction operation minimum which has no "
                         "identity")
    if v.dtype.kind in "biuf" and v.size and not (np.all(v >= 0) and np.all(v <= top)):
        raise ValueError(f"{what} must be in the range [0, {top}]")


def _percent_to_fraction(q):
    """``q / 100`` in an inexact dtype (integer ``q`` becomes the default float)."""
    qa = to_array(q)
    qaval = get_aval(qa)
    if not dtypes.is_inexact(qaval.dtype):
        qa = lax.convert_element_type(qa, dtypes.default_float(), qaval.weak_type)
    return lax.div(qa, lax.full(get_aval(qa).shape, 100, get_aval(qa).dtype,
                                get_aval(qa).weak_type))


@supports_out
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """The ``q``-th percentiles along ``axis`` (q in [0, 100])."""
    keepdims = _checks.flag(keepdims, "keepdims")
    _check_q(q, 100, "Percentiles")
    return quantile(a, _percent_to_fraction(q), axis, out, overwrite_input, method,
                    keepdims, weights=weights)


@supports_out
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median along ``axis`` (NaN if the axis holds a NaN; NaN with NumPy's
    RuntimeWarning for an empty axis)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    aval = get_aval(to_array(a))
    axes = reduction_axes(aval.ndim, axis)
    if any(aval.shape[i] == 0 for i in axes):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        shape = (tuple(1 if i in axes else d for i, d in enumerate(aval.shape)) if keepdims
                 else tuple(d for i, d in enumerate(aval.shape) if i not in axes))
        return lax.full(shape, np.nan, _mean_dtype(aval.dtype))
    if dtypes.is_complex(aval.dtype):
        return _complex_median(to_array(a), axis, keepdims, skip_nan=False)
    return quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def _complex_median(a, axis, keepdims, skip_nan):
    """NumPy's median of complex values: the middle of the lexicographically sorted
    lane (the mean of the middle two for an even count), NaNs sorted last."""
    aval = get_aval(a)
    axes = reduction_axes(aval.ndim, axis)
    x = _to_lanes(a, axes)
    *lanes, n = get_aval(x).shape
    lanes = tuple(lanes)
    if n == 0:
        raise ValueError("median of an empty axis")
    srt = lax.sort(x, len(lanes))
    nan = isnan(srt)
    idt = np.dtype(np.int64)
    count = lax.full(lanes, n, idt)
    if skip_nan:
        count = lax.sub(count, lax.reduce_sum(lax.convert_element_type(nan, idt), (len(lanes),)))
    one, two, zero = (lax.full(lanes, v, idt) for v in (1, 2, 0))
    lo = lax.max(lax.div(lax.sub(count, one), two), zero)
    hi = lax.min(lax.div(count, two), lax.full(lanes, n - 1, idt))
    below, above = _take_per_lane(srt, lo), _take_per_lane(srt, hi)
    res = lax.mul(lax.add(below, above), lax.full(lanes, 0.5, aval.dtype))
    if not skip_nan:   # a NaN anywhere in the lane makes the median NaN
        res = lax.select_n(lax.reduce_max(nan, (len(lanes),)), res,
                           lax.full(lanes, np.nan, aval.dtype))
    if keepdims:
        res = lax.reshape(res, tuple(1 if i in axes else s for i, s in enumerate(aval.shape)))
    return res


def _replace_nan(a, value):
    a = to_array(a)
    aval = get_aval(a)
    if not dtypes.is_inexact(aval.dtype):
        return a, None
    mask = isnan(a)
    return lax.select_n(mask, a, lax.full(aval.shape, value, aval.dtype)), mask


@supports_out
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum treating NaNs as zero."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return sum(_replace_nan(a, 0)[0], axis, dtype, out, keepdims, initial, where)


@supports_out
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product treating NaNs as one."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return prod(_replace_nan(a, 1)[0], axis, dtype, out, keepdims, initial, where)


def _nan_extremum(name, fn, fill):
    def nanfn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        keepdims = _checks.flag(keepdims, "keepdims")
        filled, mask = _replace_nan(a, fill)
        res = fn(filled, axis, out, keepdims, initial, where)
        if mask is None:
            return res
        all_nan = lax.reduce_min(mask, reduction_axes(get_aval(mask).ndim, axis))
        if keepdims:
            all_nan = lax.reshape(all_nan, get_aval(res).shape)
        return lax.select_n(all_nan, res, lax.full(get_aval(res).shape, np.nan, get_aval(res).dtype))
    nanfn.__name__ = nanfn.__qualname__ = name
    nanfn.__doc__ = f"{name[3:].capitalize()} ignoring NaNs (NaN where all are NaN)."
    return supports_out(nanfn)


nanmax = _nan_extremum("nanmax", max, -np.inf)


nanmin = _nan_extremum("nanmin", min, np.inf)


@supports_out
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Mean ignoring NaNs (NaN where all are NaN)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    a = to_array(a)
    aval = get_aval(a)
    if not dtypes.is_inexact(aval.dtype):
        return mean(a, axis, dtype, out, keepdims, where=where)
    _check_inexact(dtype, out)
    filled, mask = _replace_nan(a, 0)
    count = sum(logical_not(mask), axis, keepdims=keepdims, where=where)
    total = sum(filled, axis, dtype, out, keepdims, where=where)
    return divide(total, lax.convert_element_type(count, get_aval(total).dtype))


def _check_inexact(dtype, out):
    # NumPy's nan-statistics of an inexact array compute in an inexact dtype
    if dtype is not None and not dtypes.is_inexact(dtypes.canonicalize(_checks.dtype(dtype))):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not dtypes.is_inexact(get_aval(out).dtype):
        raise TypeError("If a is inexact, then out must be inexact")


@supports_out
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """Variance ignoring NaNs (real for complex input: the mean of ``|x - mean|**2``);
    NaN where no more than ``ddof`` values are not NaN, as NumPy's."""
    keepdims = _checks.flag(keepdims, "keepdims")
    ddof = _variance_ddof("nanvar", ddof, correction)
    a = to_array(a)
    aval = get_aval(a)
    if not dtypes.is_inexact(aval.dtype):
        return var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean)
    _check_inexact(dtype, None)
    chosen = None if where is None or where is True else lax.broadcast_to_shape(
        lax.convert_element_type(to_array(where), np.bool_), aval.shape)
    m = nanmean(a, axis, dtype, keepdims=True, where=chosen) if mean is None else mean
    # (NumPy subtracts the mean in a's own dtype, squares there, and sums in dtype=)
    centered = subtract(a, m)
    if get_aval(centered).dtype != aval.dtype:
        centered = lax.convert_element_type(
            lax.real(centered) if dtypes.is_complex(get_aval(centered).dtype)
            and not dtypes.is_complex(aval.dtype) else centered, aval.dtype)
    filled, mask = _replace_nan(centered, 0)
    if chosen is not None:   # entries outside where= count as NaNs do: not at all
        mask = lax.bitwise_or(mask, lax.bitwise_not(chosen))
        filled = lax.select_n(mask, filled, lax.full(aval.shape, 0, aval.dtype))
    if dtypes.is_complex(aval.dtype):   # |a - m|**2, real (as NumPy)
        re, im = lax.real(filled), lax.imag(filled)
        sq = lax.add(lax.mul(re, re), lax.mul(im, im))
    else:
        sq = multiply(filled, filled)
    count = sum(logical_not(mask), axis, keepdims=keepdims)
    total = sum(sq, axis, dtype, keepdims=keepdims)
    rdt = get_aval(total).dtype
    dof = lax.sub(lax.convert_element_type(count, rdt), lax.full(get_aval(count).shape, ddof, rdt))
    variance = divide(total, dof)
    bad = lax.le(lax.real(dof) if dtypes.is_complex(rdt) else dof,
                 lax.full(get_aval(count).shape, 0, dtypes.real_dtype(rdt)))
    return lax.select_n(bad, variance, lax.full(get_aval(variance).shape, np.nan,
                                               get_aval(variance).dtype))


@supports_out
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """Standard deviation ignoring NaNs (real for complex input)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return _deviation(nanvar(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                             correction=correction))


def _take_per_lane(x, idx):
    # x[..., idx] where idx (shape Q + L) picks one element of each lane of x (L + (n,))
    xa, ia = get_aval(x), get_aval(idx)
    shape = ia.shape + (xa.shape[-1],)
    iota = lax.broadcasted_iota(ia.dtype, shape, len(shape) - 1)
    ib = lax.broadcast_in_dim(idx, shape, tuple(range(ia.ndim)))
    lead = ia.ndim - (xa.ndim - 1)
    xb = lax.broadcast_in_dim(x, shape, tuple(range(lead, len(shape))))
    picked = lax.select_n(lax.eq(iota, ib), lax.full(shape, 0, xa.dtype), xb)
    return lax.reduce_sum(picked, (len(shape) - 1,))


@supports_out
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """``quantile`` ignoring NaNs (NaN where a lane is all NaN)."""
    return _quantile(a, q, axis, method, keepdims, weights, skip_nan=True)


@supports_out
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """``percentile`` ignoring NaNs."""
    keepdims = _checks.flag(keepdims, "keepdims")
    _check_q(q, 100, "Percentiles")
    return nanquantile(a, _percent_to_fraction(q), axis, out, overwrite_input, method,
                       keepdims, weights=weights)


@supports_out
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median ignoring NaNs."""
    keepdims = _checks.flag(keepdims, "keepdims")
    if dtypes.is_complex(get_aval(to_array(a)).dtype):
        return _complex_median(to_array(a), axis, keepdims, skip_nan=True)
    return nanquantile(a, 0.5, axis, out, overwrite_input, "linear", keepdims)


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of nonzero elements along ``axis``."""
    keepdims = _checks.flag(keepdims, "keepdims")
    return sum(as_bool(a), axis, keepdims=keepdims)


@supports_out
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along diagonal ``offset`` (NumPy's accumulator dtypes)."""
    return sum(diagonal(a, offset, axis1, axis2), -1, dtype, out)
