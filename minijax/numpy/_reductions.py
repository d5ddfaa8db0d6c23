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


def sum(a, axis=None, dtype=None, keepdims=False):
    """Sum of elements over ``axis`` (NumPy's accumulator dtypes)."""
    a = to_array(a)
    aval = get_aval(a)
    axes = _axes(aval.ndim, axis)
    out_dtype = _sum_dtype(aval.dtype) if dtype is None else dtypes.canonicalize(dtype)
    a = lax.convert_element_type(a, out_dtype, aval.weak_type)
    out = lax.reduce_sum(a, axes)
    return _keepdims(out, aval.shape, axes) if keepdims else out


def _extremum(name, lax_fn):
    def fn(a, axis=None, keepdims=False, initial=None):
        a = to_array(a)
        aval = get_aval(a)
        axes = _axes(aval.ndim, axis)
        if initial is None and builtins.any(aval.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             f"identity")
        out = lax_fn(a, axes)
        if initial is not None:
            init = lax.full(get_aval(out).shape, initial, aval.dtype)
            out = (lax.max if name == "maximum" else lax.min)(out, init)
        return _keepdims(out, aval.shape, axes) if keepdims else out
    return fn


max = _extremum("maximum", lax.reduce_max)
min = _extremum("minimum", lax.reduce_min)
amax, amin = max, min


def mean(a, axis=None, dtype=None, keepdims=False):
    """Arithmetic mean over ``axis`` (integers average in the default float)."""
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


def all(a, axis=None, keepdims=False):
    """Whether every element along ``axis`` is true (nonzero)."""
    return _truth_reduction(a, axis, keepdims, lax.reduce_min)


def any(a, axis=None, keepdims=False):
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
