"""Reductions: sum, max, min, mean (and nonzero, which needs concrete values)."""

import builtins

import numpy as np

from .. import dtypes, lax
from ..core import get_aval, get_concrete
from ..util import canonicalize_axis
from ._core import to_array


def _axes(ndim, axis):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"duplicate value in 'axis': {axis}")
        return axes
    return (canonicalize_axis(axis, ndim),)


def _keepdims(out, in_shape, axes):
    shape = tuple(1 if i in axes else s for i, s in enumerate(in_shape))
    return lax.reshape(out, shape)


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
    from ._elementwise import _as_bool
    aval = get_aval(a)
    mask = lax.broadcast_to_shape(_as_bool(where), aval.shape)
    return lax.select_n(mask, lax.full(aval.shape, value, aval.dtype), a)


def _accumulate(a, axis, dtype, keepdims, initial, where, identity, reduce, bool_reduce,
                combine):
    a = to_array(a)
    aval = get_aval(a)
    axes = _axes(aval.ndim, axis)
    out_dtype = _sum_dtype(aval.dtype) if dtype is None else dtypes.canonicalize(dtype)
    a = lax.convert_element_type(a, out_dtype, aval.weak_type)
    a = _where_fill(a, where, identity)
    res = (bool_reduce if out_dtype == np.bool_ else reduce)(a, axes)
    if initial is not None:
        res = combine(res, lax.full(get_aval(res).shape, initial, out_dtype))
    return _keepdims(res, aval.shape, axes) if keepdims else res


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum of elements over ``axis`` (NumPy's accumulator dtypes)."""
    _no_out(out)
    return _accumulate(a, axis, dtype, keepdims, initial, where, 0, lax.reduce_sum,
                       lax.reduce_max, lax.add)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product of elements over ``axis`` (NumPy's accumulator dtypes)."""
    _no_out(out)
    return _accumulate(a, axis, dtype, keepdims, initial, where, 1, lax.reduce_prod,
                       lax.reduce_min, lax.mul)


def _no_out(out):
    if out is not None:
        raise NotImplementedError("minijax arrays are immutable: out= is not supported; "
                                  "use the returned array")


def _extremum(name, lax_fn):
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        _no_out(out)
        a = to_array(a)
        aval = get_aval(a)
        axes = _axes(aval.ndim, axis)
        if where is not None and where is not True:
            if initial is None:
                raise ValueError(f"reduction operation {name} does not have an identity, so "
                                 f"to use a where mask one has to specify 'initial'")
            a = _where_fill(a, where, initial)
        if initial is None and builtins.any(aval.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             f"identity")
        out = lax_fn(a, axes)
        if initial is not None:
            init = lax.full(get_aval(out).shape, initial, aval.dtype)
            out = (lax.max if name == "maximum" else lax.min)(out, init)
        return _keepdims(out, aval.shape, axes) if keepdims else out
    fn.__name__ = fn.__qualname__ = "max" if name == "maximum" else "min"
    fn.__doc__ = f"The {name} over ``axis`` (``initial`` joins the reduction)."
    return fn


max = _extremum("maximum", lax.reduce_max)
min = _extremum("minimum", lax.reduce_min)
amax, amin = max, min


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over ``axis`` (integers average in the default float)."""
    _no_out(out)
    if where is not None and where is not True:
        from ._elementwise import divide
        a = to_array(a)
        aval = get_aval(a)
        mask = lax.broadcast_to_shape(to_array(where), aval.shape)
        return divide(sum(a, axis, dtype=dtype, keepdims=keepdims, where=mask),
                      sum(mask, axis, keepdims=keepdims))
    a = to_array(a)
    aval = get_aval(a)
    axes = _axes(aval.ndim, axis)
    if dtype is not None:
        out_dtype = dtypes.canonicalize(dtype)
    elif dtypes.is_inexact(aval.dtype):
        out_dtype = aval.dtype
    else:
        out_dtype = dtypes.default_float()
    # float16/bfloat16 accumulate in float32, as NumPy does for float16
    compute = np.dtype(np.float32) if out_dtype.itemsize < 4 and out_dtype.kind == "f" else out_dtype
    if out_dtype == dtypes.bfloat16:
        compute = np.dtype(np.float32)
    total = lax.reduce_sum(lax.convert_element_type(a, compute, aval.weak_type), axes)
    count = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    out = lax.div(total, lax.full(get_aval(total).shape, count, compute))
    out = lax.convert_element_type(out, out_dtype, get_aval(out).weak_type)
    return _keepdims(out, aval.shape, axes) if keepdims else out


def _truth_reduction(a, axis, keepdims, lax_fn):
    from ._elementwise import _as_bool
    a = _as_bool(a)
    aval = get_aval(a)
    axes = _axes(aval.ndim, axis)
    out = lax_fn(a, axes)
    return _keepdims(out, aval.shape, axes) if keepdims else out


def all(a, axis=None, out=None, keepdims=False):
    """Whether every element along ``axis`` is true (nonzero)."""
    return _truth_reduction(a, axis, keepdims, lax.reduce_min)


def any(a, axis=None, out=None, keepdims=False):
    """Whether any element along ``axis`` is true (nonzero)."""
    return _truth_reduction(a, axis, keepdims, lax.reduce_max)


def nonzero(a):
    """Indices of the nonzero elements (needs a concrete array: the size is data-dependent)."""
    value = get_concrete(to_array(a))
    if value is None:
        from ..errors import ConcretizationTypeError
        raise ConcretizationTypeError(
            "nonzero (and one-argument where) of a traced array: the output size depends on "
            "the values; use the three-argument where(condition, x, y) instead")
    return tuple(to_array(i) for i in np.nonzero(np.asarray(value)))


# ---------------------------------------------------------------- cumulative reductions

def _cumulative(name, lax_fn, identity):
    def fn(a, axis=None, dtype=None, out=None):
        _no_out(out)
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
    return fn


cumsum = _cumulative("cumsum", lax.cumsum, 0)
cumprod = _cumulative("cumprod", lax.cumprod, 1)


def _pad_initial(res, axis, value):
    aval = get_aval(res)
    init = lax.full((), value, aval.dtype)
    if hasattr(lax, "pad"):
        config = [(0, 0, 0)] * aval.ndim
        config[axis] = (1, 0, 0)
        return lax.pad(res, init, config)
    raise NotImplementedError("include_initial=True needs lax.pad")


def _array_api_cumulative(name, fn, identity):
    def cumulative(x, /, *, axis=None, dtype=None, include_initial=False):
        x = to_array(x)
        aval = get_aval(x)
        if axis is None:
            if aval.ndim > 1:
                raise ValueError(f"{name}: axis must be given for arrays of rank > 1")
            if aval.ndim == 0:
                raise ValueError(f"{name}: the input must have at least one dimension")
            axis = 0
        axis = canonicalize_axis(axis, aval.ndim)
        res = fn(x, axis=axis, dtype=dtype)
        return _pad_initial(res, axis, identity) if include_initial else res
    cumulative.__name__ = cumulative.__qualname__ = name
    cumulative.__doc__ = f"Array API {name} (with ``include_initial``)."
    return cumulative


cumulative_sum = _array_api_cumulative("cumulative_sum", cumsum, 0)
cumulative_prod = _array_api_cumulative("cumulative_prod", cumprod, 1)


# ---------------------------------------------------------------- argmax, argmin, counts

def _arg_extremum(name, lax_fn):
    def fn(a, axis=None, out=None, *, keepdims=False):
        _no_out(out)
        a = to_array(a)
        aval = get_aval(a)
        if axis is None:
            flat = lax.reshape(a, (aval.size,))
            if aval.size == 0:
                raise ValueError(f"attempt to get {name} of an empty sequence")
            res = lax_fn(flat, 0, dtypes.default_int())
            return lax.reshape(res, (1,) * aval.ndim) if keepdims else res
        axis = canonicalize_axis(axis, aval.ndim)
        if aval.shape[axis] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        if dtypes.is_complex(aval.dtype):
            raise NotImplementedError(f"{name} of complex arrays")
        res = lax_fn(a, axis, dtypes.default_int())
        return _keepdims(res, aval.shape, (axis,)) if keepdims else res
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Index of the {name[3:]}imum along ``axis`` (first on ties; NaN wins)."
    return fn


argmax = _arg_extremum("argmax", lax.argmax)
argmin = _arg_extremum("argmin", lax.argmin)


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of nonzero elements along ``axis``."""
    from ._elementwise import _as_bool
    return sum(_as_bool(a), axis, keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (maximum minus minimum) along ``axis``."""
    from ._elementwise import subtract
    return subtract(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))
