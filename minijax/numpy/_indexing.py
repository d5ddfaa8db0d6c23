"""take and take_along_axis, through lax.gather."""

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from ..util import canonicalize_axis
from ._core import to_array


def _gather():
    fn = getattr(lax, "gather", None)
    if fn is None:
        raise NotImplementedError("take/take_along_axis need lax.gather, which this build "
                                  "lacks")
    return fn


def _normalize(idx, n, mode):
    idx = to_array(idx)
    aval = get_aval(idx)
    if not (dtypes.is_integer(aval.dtype)):
        raise TypeError(f"indices must be integers, got dtype {aval.dtype}")
    idx = lax.convert_element_type(idx, np.int64)
    shape = get_aval(idx).shape
    nn = lax.full(shape, n, np.int64)
    zero = lax.full(shape, 0, np.int64)
    if mode == "wrap":
        if n == 0:
            return idx
        r = lax.rem(idx, nn)
        return lax.select_n(lax.lt(r, zero), r, lax.add(r, nn))
    # 'raise' cannot raise on traced values: negative indices count from the end (as in
    # NumPy) and out-of-range ones are clamped, as in mode='clip'
    if mode in (None, "raise", "fill"):
        idx = lax.select_n(lax.lt(idx, zero), idx, lax.add(idx, nn))
    return idx


def take(a, indices, axis=None, out=None, mode=None, *, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array by default)."""
    if out is not None:
        raise NotImplementedError("take: out= is not supported")
    a = to_array(a)
    if axis is None:
        a = lax.reshape(a, (get_aval(a).size,))
        axis = 0
    s = get_aval(a).shape
    axis = canonicalize_axis(axis, len(s))
    n = s[axis]
    idx = _normalize(indices, n, mode)
    ishape = get_aval(idx).shape
    out_rank = len(ishape) + len(s) - 1
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + len(ishape), out_rank)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    sizes = tuple(1 if i == axis else d for i, d in enumerate(s))
    gmode = "fill" if mode == "fill" else "clip"
    return _gather()(a, lax.reshape(idx, ishape + (1,)), dnums, sizes, mode=gmode,
                     fill_value=fill_value)


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    """Elements of ``arr`` picked by ``indices`` along ``axis`` (shapes broadcast elsewhere)."""
    arr = to_array(arr)
    if axis is None:
        arr = lax.reshape(arr, (get_aval(arr).size,))
        axis = 0
    s = get_aval(arr).shape
    axis = canonicalize_axis(axis, len(s))
    idx = _normalize(indices, s[axis], mode)
    ishape = get_aval(idx).shape
    if len(ishape) != len(s):
        raise ValueError("take_along_axis: indices and arr must have the same number of "
                         "dimensions")
    common = tuple(1 if i == axis else max(x, y) if 1 in (x, y) else x
                   for i, (x, y) in enumerate(zip(s, ishape)))
    for i, (x, y) in enumerate(zip(s, ishape)):
        if i != axis and x != y and 1 not in (x, y):
            raise ValueError(f"take_along_axis: shapes {s} and {ishape} do not broadcast")
    arr = lax.broadcast_to_shape(arr, tuple(s[axis] if i == axis else d
                                            for i, d in enumerate(common)))
    idx = lax.broadcast_to_shape(idx, tuple(ishape[axis] if i == axis else d
                                            for i, d in enumerate(common)))
    batch = tuple(i for i in range(len(s)) if i != axis)
    dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                       start_index_map=(axis,), operand_batching_dims=batch,
                                       start_indices_batching_dims=batch)
    ib = lax.reshape(idx, get_aval(idx).shape + (1,))
    gmode = "fill" if mode == "fill" else "clip"
    return _gather()(arr, ib, dnums, (1,) * len(s), mode=gmode, fill_value=fill_value)
