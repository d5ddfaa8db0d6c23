"""Slicing and indexing primitives: rev, pad, concatenate, slice, dynamic_slice,
dynamic_update_slice, gather and the scatter family (scatter, scatter_add,
scatter_mul, scatter_min, scatter_max).

Gather and scatter follow XLA's general semantics (dimension numbers as in JAX, the
index vector is the last axis of the indices). Their NumPy kernels compute the
operand coordinates of every output (or update) element with index arithmetic.
"""

import builtins
import enum
from functools import partial
from typing import NamedTuple

import numpy as np

from .. import _checks, dtypes
from ..errors import ShapeMismatchError
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir, ir_type, lower_via
from ..util import canonicalize_axis
from ._helpers import ANY, BOOL, FLOAT, INT, NUMBER, as_operand, check_kinds, constant
from .elementwise import add, convert_element_type, div, eq, ge, le, lt, mul, select_n, sub
from .elementwise import max as _lax_max
from .elementwise import min as _lax_min
from .reductions import reduce_and, reduce_sum
from .shapes import broadcast_in_dim, full, iota, reshape, squeeze

_pyslice = builtins.slice


def _aval(x):
    return x.aval if ad.is_undefined(x) else get_aval(x)


def _distinct_axes(dims, ndim):
    return len(set(dims)) == len(dims) and all(0 <= d < ndim for d in dims)


def _sorted(dims):
    return list(dims) == sorted(dims)


# ---------------------------------------------------------------- rev

rev_p = Primitive("rev")


def rev(x, dimensions):
    """Reverse ``x`` along each axis in ``dimensions``."""
    ndim = get_aval(x).ndim
    dims = tuple(sorted(canonicalize_axis(d, ndim) for d in dimensions))
    return rev_p.bind(x, dimensions=dims)


def _rev_abstract_eval(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions) or any(not 0 <= d < x.ndim for d in dimensions):
        raise ValueError(f"lax.rev: dimensions {dimensions} must be distinct axes of an "
                         f"operand of shape {x.shape}")
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


def _rev_batch(axis_size, args, dims, *, dimensions):
    x = batching.moveaxis(args[0], dims[0], 0)
    return [rev_p.bind(x, dimensions=tuple(d + 1 for d in dimensions))], [0]


rev_p.impl = lambda x, *, dimensions: [np.flip(x, dimensions) if dimensions else x]
rev_p.abstract_eval = _rev_abstract_eval
ad.deflinear(rev_p, lambda cts, x, *, dimensions: [rev(cts[0], dimensions)])
rev_p.batch = _rev_batch
rev_p.lower = lambda ctx, x, *, dimensions: [
    hlo.reverse(x, ir.DenseI64ArrayAttr.get(list(dimensions)))]


# ---------------------------------------------------------------- pad

pad_p = Primitive("pad")


def pad(operand, padding_value, padding_config):
    """Pad ``operand`` with the scalar ``padding_value``.

    ``padding_config`` has one ``(low, high, interior)`` triple per axis: ``interior``
    values go between neighbouring elements; negative ``low``/``high`` crop.
    """
    try:
        config = tuple((_checks.index(lo), _checks.index(hi), _checks.index(it))
                       for lo, hi, it in padding_config)
    except (TypeError, ValueError):
        raise TypeError(f"lax.pad: padding_config must be a sequence of (low, high, interior) "
                        f"integer triples, got {padding_config!r}") from None
    return pad_p.bind(operand, as_operand(padding_value, operand), padding_config=config)


def _interior_size(n, interior):
    return n + builtins.max(n - 1, 0) * interior


def _pad_impl(x, pv, *, padding_config):
    inner = [_interior_size(n, it) for n, (_, _, it) in zip(x.shape, padding_config)]
    grown = [m + builtins.max(lo, 0) + builtins.max(hi, 0)
             for m, (lo, hi, _) in zip(inner, padding_config)]
    out = np.full(grown, pv, x.dtype)
    out[tuple(_pyslice(builtins.max(lo, 0), builtins.max(lo, 0) + m, it + 1)
              for m, (lo, hi, it) in zip(inner, padding_config))] = x
    crop = tuple(_pyslice(-builtins.min(lo, 0), g + builtins.min(hi, 0))
                 for g, (lo, hi, _) in zip(grown, padding_config))
    return [out[crop]]


def _pad_abstract_eval(x, pv, *, padding_config):
    if pv.shape != ():
        raise TypeError(f"lax.pad: padding_value must be a scalar, got shape {pv.shape}")
    if pv.dtype != x.dtype:
        raise TypeError(f"lax.pad: padding_value of dtype {pv.dtype.name} differs from the "
                        f"operand's dtype {x.dtype.name}")
    if len(padding_config) != x.ndim:
        raise ValueError(f"lax.pad: padding_config {padding_config} has {len(padding_config)} "
                         f"entries for an operand of shape {x.shape} (rank {x.ndim})")
    if any(it < 0 for _, _, it in padding_config):
        raise ValueError(f"lax.pad: interior padding must be >= 0, got padding_config "
                         f"{padding_config}")
    shape = tuple(_interior_size(n, it) + lo + hi
                  for n, (lo, hi, it) in zip(x.shape, padding_config))
    if any(s < 0 for s in shape):
        raise ValueError(f"lax.pad: padding_config {padding_config} crops the operand of shape "
                         f"{x.shape} to a negative size {shape}")
    return [ShapedArray(shape, x.dtype, x.weak_type)]


def _pad_transpose(cts, x, pv, *, padding_config):
    ct = cts[0]
    unpadded = pad(ct, 0, [(-lo, -hi, 0) for lo, hi, _ in padding_config])
    shape = get_aval(unpadded).shape
    ct_x = slice(unpadded, (0,) * len(shape), shape, [it + 1 for _, _, it in padding_config])
    ct_pv = None
    if ad.is_undefined(pv):
        ct_pv = sub(reduce_sum(ct), reduce_sum(ct_x))
        ct_pv = convert_element_type(ct_pv, pv.aval.dtype, pv.aval.weak_type)
    return [ct_x if ad.is_undefined(x) else None, ct_pv]


def _pad_batch(axis_size, args, dims, *, padding_config):
    (x, pv), (xd, pd) = args, dims
    if pd is None:
        config = list(padding_config)
        config.insert(xd, (0, 0, 0))
        return [pad(x, pv, config)], [xd]
    # A batched padding value: pad with zeros, then select it where the mask says padding.
    dtype = get_aval(pv).dtype
    x = batching.move_axis_to(axis_size, x, xd, 0)
    padded = pad(x, constant(0, dtype), ((0, 0, 0),) + padding_config)
    shape = get_aval(padded).shape
    inner = full(get_aval(x).shape[1:], True, np.bool_)
    mask = pad(inner, constant(False, np.bool_), padding_config)
    mask = broadcast_in_dim(mask, shape, tuple(range(1, len(shape))))
    pv = broadcast_in_dim(batching.moveaxis(pv, pd, 0), shape, (0,))
    return [select_n(mask, pv, padded)], [0]


def _pad_lower(ctx, x, pv, *, padding_config):
    lo, hi, it = ([c[i] for c in padding_config] for i in range(3))
    return [hlo.pad(x, pv, ir.DenseI64ArrayAttr.get(lo), ir.DenseI64ArrayAttr.get(hi),
                    ir.DenseI64ArrayAttr.get(it))]


pad_p.impl = _pad_impl
pad_p.abstract_eval = _pad_abstract_eval
ad.deflinear(pad_p, _pad_transpose)
pad_p.batch = _pad_batch
pad_p.lower = _pad_lower


# ---------------------------------------------------------------- concatenate

concatenate_p = Primitive("concatenate")


def concatenate(operands, dimension):
    """Join ``operands`` (one dtype, shapes equal but along ``dimension``)."""
    if not isinstance(operands, (list, tuple)):
        raise TypeError(f"lax.concatenate: operands must be a list or tuple of arrays, got "
                        f"{type(operands).__name__}")
    operands = list(operands)
    if not operands:
        raise ValueError("lax.concatenate requires at least one operand")
    for x in operands:
        get_aval(x)   # a named TypeError for something that is not an array
    if len(operands) == 1:
        return operands[0]
    ndim = get_aval(operands[0]).ndim
    dimension = _checks.index(dimension)
    if -ndim <= dimension < 0:
        dimension += ndim
    return concatenate_p.bind(*operands, dimension=dimension)


def _concatenate_abstract_eval(*xs, dimension):
    first = xs[0]
    if any(x.dtype != first.dtype for x in xs):
        raise TypeError(f"lax.concatenate requires operands of one dtype, got "
                        f"{', '.join(x.dtype.name for x in xs)}")
    shapes = ", ".join(str(x.shape) for x in xs)
    if any(x.ndim != first.ndim for x in xs) or not 0 <= dimension < first.ndim:
        raise ShapeMismatchError(f"lax.concatenate: dimension {dimension} must be an axis of operands "
                         f"of one rank, got shapes {shapes}")
    rest = lambda s: s[:dimension] + s[dimension + 1:]
    if any(rest(x.shape) != rest(first.shape) for x in xs):
        raise ShapeMismatchError(f"lax.concatenate: operand shapes must agree except along dimension "
                         f"{dimension}, got {shapes}")
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return [ShapedArray(tuple(shape), first.dtype, all(x.weak_type for x in xs))]


def _concatenate_transpose(cts, *xs, dimension):
    ct, outs, start = cts[0], [], 0
    for x in xs:
        size = _aval(x).shape[dimension]
        outs.append(slice_in_dim(ct, start, start + size, axis=dimension)
                    if ad.is_undefined(x) else None)
        start += size
    return outs


def _concatenate_batch(axis_size, args, dims, *, dimension):
    bd = next(d for d in dims if d is not None)
    xs = [batching.move_axis_to(axis_size, x, d, bd) for x, d in zip(args, dims)]
    return [concatenate(xs, dimension + (dimension >= bd))], [bd]


concatenate_p.impl = lambda *xs, dimension: [np.concatenate(xs, axis=dimension)]
concatenate_p.abstract_eval = _concatenate_abstract_eval
ad.deflinear(concatenate_p, _concatenate_transpose)
concatenate_p.batch = _concatenate_batch
concatenate_p.lower = lambda ctx, *xs, dimension: [hlo.concatenate(list(xs), dimension)]


# ---------------------------------------------------------------- slice

slice_p = Primitive("slice")


def slice(operand, start_indices, limit_indices, strides=None):
    """The elements of ``operand`` from ``start_indices`` up to ``limit_indices``
    (exclusive), every ``strides``-th along each axis."""
    start = tuple(_checks.index(i) for i in start_indices)
    limit = tuple(_checks.index(i) for i in limit_indices)
    strides = None if strides is None else tuple(_checks.index(s) for s in strides)
    if strides is not None and all(s == 1 for s in strides):
        strides = None
    return slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=strides)


def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
    strides_ = strides or (1,) * x.ndim
    if not len(start_indices) == len(limit_indices) == len(strides_) == x.ndim:
        raise ValueError(f"lax.slice: start_indices {start_indices}, limit_indices "
                         f"{limit_indices} and strides {strides} need one entry per axis of "
                         f"the operand of shape {x.shape}")
    if any(not 0 <= s <= l <= n for s, l, n in zip(start_indices, limit_indices, x.shape)):
        raise ShapeMismatchError(f"lax.slice: start_indices {start_indices} and limit_indices "
                         f"{limit_indices} are out of range for an operand of shape {x.shape} "
                         f"(0 <= start <= limit <= size is required)")
    if any(s < 1 for s in strides_):
        raise ValueError(f"lax.slice: strides must be positive, got {strides}")
    shape = tuple((l - s + st - 1) // st
                  for s, l, st in zip(start_indices, limit_indices, strides_))
    return [ShapedArray(shape, x.dtype, x.weak_type)]


def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return [x[tuple(_pyslice(*t) for t in zip(start_indices, limit_indices, strides))]]


def _slice_transpose(cts, x, *, start_indices, limit_indices, strides):
    ct = cts[0]
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    config = []
    for n, s, m, st in zip(shape, start_indices, get_aval(ct).shape, strides):
        end = s + (m - 1) * st + 1 if m else s
        config.append((s, n - end, st - 1))
    return [pad(ct, 0, config)]


def _slice_batch(axis_size, args, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = args, dims
    start, limit = list(start_indices), list(limit_indices)
    start.insert(d, 0)
    limit.insert(d, axis_size)
    if strides is not None:
        strides = list(strides)
        strides.insert(d, 1)
    return [slice(x, start, limit, strides)], [d]


def _slice_lower(ctx, x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * len(start_indices)
    return [hlo.slice(x, ir.DenseI64ArrayAttr.get(list(start_indices)),
                      ir.DenseI64ArrayAttr.get(list(limit_indices)),
                      ir.DenseI64ArrayAttr.get(list(strides)))]


slice_p.impl = _slice_impl
slice_p.abstract_eval = _slice_abstract_eval
ad.deflinear(slice_p, _slice_transpose)
slice_p.batch = _slice_batch
slice_p.lower = _slice_lower


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``slice`` along one axis; ``None`` and negative bounds read as in Python."""
    shape = get_aval(operand).shape
    axis = canonicalize_axis(axis, len(shape))
    n = shape[axis]
    start = 0 if start_index is None else _checks.index(start_index)
    limit = n if limit_index is None else _checks.index(limit_index)
    start, limit = start + n if start < 0 else start, limit + n if limit < 0 else limit
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, _checks.index(stride)
    return slice(operand, starts, limits, strides)


def split(operand, sizes, axis=0):
    """``operand`` cut along ``axis`` into consecutive pieces of the given ``sizes``
    (non-negative, summing to the axis' length)."""
    shape = get_aval(operand).shape
    axis = canonicalize_axis(axis, len(shape))
    sizes = tuple(_checks.index(s, "sizes") for s in sizes)
    if any(s < 0 for s in sizes):
        raise ValueError(f"lax.split: sizes must be non-negative, got {sizes}")
    if sum(sizes) != shape[axis]:
        raise ValueError(f"lax.split: the sizes {sizes} sum to {sum(sizes)}, not to the "
                         f"length {shape[axis]} of axis {axis} of an operand of shape {shape}")
    pieces, start = [], 0
    for s in sizes:
        pieces.append(slice_in_dim(operand, start, start + s, axis=axis))
        start += s
    return pieces


def index_in_dim(operand, index, axis=0, keepdims=True):
    """The ``index``-th entry along ``axis`` (a static index; negative counts from the end)."""
    shape = get_aval(operand).shape
    axis = canonicalize_axis(axis, len(shape))
    n, index = shape[axis], _checks.index(index)
    if not -n <= index < n:
        raise IndexError(f"lax.index_in_dim: index {index} is out of bounds for axis {axis} "
                         f"of size {n}")
    index %= n
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


# ---------------------------------------------------------------- dynamic_slice

def _dynamic_indices(name, operand, start_indices, allow_negative_indices=True):
    """Start indices as rank-0 arrays of one integer dtype, negative ones wrapped."""
    shape = get_aval(operand).shape
    if getattr(start_indices, "ndim", None) == 1:
        start_indices = [index_in_dim(start_indices, i, keepdims=False)
                         for i in range(get_aval(start_indices).shape[0])]
    start_indices = list(start_indices)
    if len(start_indices) != len(shape):
        raise ValueError(f"lax.{name}: got {len(start_indices)} start indices for an operand of "
                         f"shape {shape}; one per axis is required")
    avals = [get_aval(i) for i in start_indices]
    for a in avals:
        if a.shape != () or dtypes.kind(a.dtype) not in INT:
            raise TypeError(f"lax.{name}: start indices must be integer scalars, got "
                            f"{a.str_short()}")
    concrete = [isinstance(i, (int, np.integer)) for i in start_indices]
    array_dtypes = [a.dtype for a, c in zip(avals, concrete) if not c]
    dtype = dtypes.default_int()
    if array_dtypes:
        dtype = np.result_type(*array_dtypes)
        dtype = dtypes.canonicalize(dtype if dtype.kind in "iu" else np.int64)
    if isinstance(allow_negative_indices, bool):
        allow_negative_indices = [allow_negative_indices] * len(shape)
    info = np.iinfo(dtype)
    out = []
    for i, c, n, neg in zip(start_indices, concrete, shape, allow_negative_indices):
        if c:
            i = int(i)
            if neg and i < 0:
                i += n
            out.append(constant(builtins.min(builtins.max(i, info.min), info.max), dtype))
        else:
            i = convert_element_type(i, dtype)
            if neg and dtype.kind == "i":
                i = select_n(lt(i, 0), i, add(i, builtins.min(n, info.max)))
            out.append(i)
    return out


def _check_dynamic_indices(name, x, idx):
    if len(idx) != x.ndim:
        raise ValueError(f"lax.{name}: got {len(idx)} start indices for an operand of shape "
                         f"{x.shape}; one per axis is required")
    for a in idx:
        if a.shape != () or dtypes.kind(a.dtype) not in INT:
            raise TypeError(f"lax.{name}: start indices must be integer scalars, got "
                            f"{a.str_short()}")
    if len({a.dtype for a in idx}) > 1:
        raise TypeError(f"lax.{name}: start indices must share one dtype, got "
                        f"{', '.join(a.dtype.name for a in idx)}")


def _clamped_starts(idx, shape, sizes):
    return [builtins.min(builtins.max(int(i), 0), n - s) for i, n, s in zip(idx, shape, sizes)]


dynamic_slice_p = Primitive("dynamic_slice")


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The block of ``operand`` of shape ``slice_sizes`` at (possibly traced) scalar
    ``start_indices``; starts are clamped so the block fits, like XLA."""
    idx = _dynamic_indices("dynamic_slice", operand, start_indices, allow_negative_indices)
    sizes = tuple(_checks.index(s) for s in slice_sizes)
    return dynamic_slice_p.bind(operand, *idx, slice_sizes=sizes)


def _dynamic_slice_impl(x, *idx, slice_sizes):
    starts = _clamped_starts(idx, x.shape, slice_sizes)
    return [x[tuple(_pyslice(s, s + z) for s, z in zip(starts, slice_sizes))]]


def _dynamic_slice_abstract_eval(x, *idx, slice_sizes):
    _check_dynamic_indices("dynamic_slice", x, idx)
    if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
        raise ValueError(f"lax.dynamic_slice: slice_sizes {slice_sizes} must have one entry "
                         f"per axis, each within the operand shape {x.shape}")
    return [ShapedArray(slice_sizes, x.dtype, x.weak_type)]


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals
    out = dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
    t = tangents[0]
    if type(t) is ad.Zero:
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    return [out], [dynamic_slice_p.bind(t, *idx, slice_sizes=slice_sizes)]


def _dynamic_slice_transpose(cts, x, *idx, slice_sizes):
    zeros = ad.zeros_like_aval(x.aval)
    return [dynamic_update_slice_p.bind(zeros, cts[0], *idx)] + [None] * len(idx)


def _dynamic_slice_batch(axis_size, args, dims, *, slice_sizes):
    (x, *idx), (xd, *idims) = args, dims
    if all(d is None for d in idims):
        idx.insert(xd, constant(0, get_aval(idx[0]).dtype if idx else dtypes.default_int()))
        sizes = list(slice_sizes)
        sizes.insert(xd, axis_size)
        return [dynamic_slice_p.bind(x, *idx, slice_sizes=tuple(sizes))], [xd]
    # Batched start indices: a gather of one block per batch element.
    cols = [reshape(batching.move_axis_to(axis_size, i, d, 0), (axis_size, 1))
            for i, d in zip(idx, idims)]
    indices = concatenate(cols, 1)
    ndim = len(slice_sizes)
    dnums = GatherDimensionNumbers(tuple(range(ndim)), (), tuple(range(ndim)))
    return _gather_batch(axis_size, [x, indices], [xd, 0], dimension_numbers=dnums,
                         slice_sizes=slice_sizes, indices_are_sorted=False,
                         unique_indices=False, mode=GatherScatterMode.CLIP, fill_value=None)


dynamic_slice_p.impl = _dynamic_slice_impl
dynamic_slice_p.abstract_eval = _dynamic_slice_abstract_eval
dynamic_slice_p.jvp = _dynamic_slice_jvp
dynamic_slice_p.transpose = _dynamic_slice_transpose
dynamic_slice_p.batch = _dynamic_slice_batch
dynamic_slice_p.lower = lambda ctx, x, *idx, slice_sizes: [
    hlo.dynamic_slice(x, list(idx), ir.DenseI64ArrayAttr.get(list(slice_sizes)))]


# ---------------------------------------------------------------- dynamic_update_slice

dynamic_update_slice_p = Primitive("dynamic_update_slice")


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with the block ``update`` written at (possibly traced) scalar
    ``start_indices``; starts are clamped so the block fits, like XLA."""
    idx = _dynamic_indices("dynamic_update_slice", operand, start_indices,
                           allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, as_operand(update, operand), *idx)


def _dus_impl(x, u, *idx):
    starts = _clamped_starts(idx, x.shape, u.shape)
    out = x.copy()
    out[tuple(_pyslice(s, s + z) for s, z in zip(starts, u.shape))] = u
    return [out]


def _dus_abstract_eval(x, u, *idx):
    if u.dtype != x.dtype:
        raise TypeError(f"lax.dynamic_update_slice requires operand and update of one dtype, "
                        f"got {x.dtype.name} and {u.dtype.name}")
    if u.ndim != x.ndim or any(m > n for m, n in zip(u.shape, x.shape)):
        raise ValueError(f"lax.dynamic_update_slice: update of shape {u.shape} does not fit in "
                         f"the operand of shape {x.shape}")
    _check_dynamic_indices("dynamic_update_slice", x, idx)
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


def _dus_jvp(primals, tangents):
    x, u, *idx = primals
    tx, tu = tangents[:2]
    out = dynamic_update_slice_p.bind(x, u, *idx)
    if type(tx) is ad.Zero and type(tu) is ad.Zero:
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    return [out], [dynamic_update_slice_p.bind(ad.instantiate(tx), ad.instantiate(tu), *idx)]


def _dus_transpose(cts, x, u, *idx):
    ct = cts[0]
    u_aval = _aval(u)
    ct_x = ct_u = None
    if ad.is_undefined(x):
        ct_x = dynamic_update_slice_p.bind(ct, ad.zeros_like_aval(u_aval), *idx)
    if ad.is_undefined(u):
        ct_u = dynamic_slice_p.bind(ct, *idx, slice_sizes=u_aval.shape)
    return [ct_x, ct_u] + [None] * len(idx)


def _dus_batch(axis_size, args, dims):
    (x, u, *idx), (xd, ud, *idims) = args, dims
    x = batching.move_axis_to(axis_size, x, xd, 0)
    u = batching.move_axis_to(axis_size, u, ud, 0)
    if all(d is None for d in idims):
        zero = constant(0, get_aval(idx[0]).dtype if idx else dtypes.default_int())
        return [dynamic_update_slice_p.bind(x, u, zero, *idx)], [0]
    # Batched start indices: a scatter of one block per batch element.
    cols = [reshape(batching.move_axis_to(axis_size, i, d, 0), (axis_size, 1))
            for i, d in zip(idx, idims)]
    indices = concatenate(cols, 1)
    ndim = len(idx)
    dnums = ScatterDimensionNumbers(tuple(range(ndim)), (), tuple(range(ndim)))
    return _scatter_batch(scatter_p, axis_size, [x, indices, u], [0, 0, 0],
                          dimension_numbers=dnums, indices_are_sorted=False,
                          unique_indices=True, mode=GatherScatterMode.CLIP)


dynamic_update_slice_p.impl = _dus_impl
dynamic_update_slice_p.abstract_eval = _dus_abstract_eval
dynamic_update_slice_p.jvp = _dus_jvp
dynamic_update_slice_p.transpose = _dus_transpose
dynamic_update_slice_p.batch = _dus_batch
dynamic_update_slice_p.lower = lambda ctx, x, u, *idx: [
    hlo.dynamic_update_slice(x, u, list(idx))]


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """``dynamic_slice`` along one axis."""
    shape = get_aval(operand).shape
    axis = canonicalize_axis(axis, len(shape))
    starts, sizes = [0] * len(shape), list(shape)
    starts[axis], sizes[axis] = start_index, slice_size
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """The entry at (possibly traced) ``index`` along ``axis``."""
    axis = canonicalize_axis(axis, get_aval(operand).ndim)
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """``dynamic_update_slice`` at ``start_index`` along one axis (0 along the others)."""
    ndim = get_aval(operand).ndim
    axis = canonicalize_axis(axis, ndim)
    starts = [0] * ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """Write ``update`` (with or without the size-1 ``axis``) at ``index`` along ``axis``."""
    ndim = get_aval(operand).ndim
    axis = canonicalize_axis(axis, ndim)
    if get_aval(update).ndim == ndim - 1:
        shape = list(get_aval(update).shape)
        shape.insert(axis, 1)
        update = reshape(update, tuple(shape))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


# ---------------------------------------------------------------- gather / scatter common

class GatherScatterMode(enum.Enum):
    """How gather and scatter treat out-of-bounds indices.

    ``CLIP``: clamp the start indices so the whole window is in bounds.
    ``FILL_OR_DROP``: a gather returns ``fill_value`` for windows that are not wholly
    in bounds; a scatter drops their updates.
    ``PROMISE_IN_BOUNDS``: the caller promises indices are in bounds (XLA's native
    behaviour: gather clamps, scatter drops).
    """
    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2

    @staticmethod
    def from_any(s):
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f"unknown gather/scatter mode {s!r}; use 'clip', 'fill', 'drop', "
                         f"'promise_in_bounds' or a GatherScatterMode")


class GatherDimensionNumbers(NamedTuple):
    """How a gather maps index vectors to operand windows (as in XLA and JAX).

    ``offset_dims``: output axes holding the window's (uncollapsed) axes;
    ``collapsed_slice_dims``: operand axes of window size 1 dropped from the output;
    ``start_index_map``: the operand axis each index-vector entry starts;
    ``operand_batching_dims`` / ``start_indices_batching_dims``: paired axes of the
    operand and the indices that are indexed together (batch axes).
    """
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """How a scatter maps index vectors and update windows to the operand (as in XLA).

    ``update_window_dims``: axes of updates that are window axes;
    ``inserted_window_dims``: operand axes of window size 1 absent from updates;
    ``scatter_dims_to_operand_dims``: the operand axis each index-vector entry starts;
    ``operand_batching_dims`` / ``scatter_indices_batching_dims``: paired batch axes.
    """
    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


def _int_tuples(name, cls, dnums):
    try:
        return cls(*(tuple(_checks.index(d) for d in dims) for dims in dnums))
    except (TypeError, ValueError):
        raise TypeError(f"lax.{name}: dimension_numbers must be a {cls.__name__} of integer "
                        f"tuples, got {dnums!r}") from None


def _index_array(indices):
    """Indices as int64 without wrap-around (huge unsigned values stay huge)."""
    if indices.dtype.kind == "u" and indices.dtype.itemsize == 8:
        indices = np.minimum(indices, np.iinfo(np.int64).max)
    return indices.astype(np.int64)


def _check_indices(name, indices):
    if dtypes.kind(indices.dtype) not in INT:
        raise TypeError(f"lax.{name}: indices must have an integer dtype, got "
                        f"{indices.dtype.name}")
    if indices.ndim < 1:
        raise ValueError(f"lax.{name}: indices must have rank >= 1 (their last axis holds the "
                         f"index vectors), got shape {indices.shape}")


def _check_dims(name, what, dims, ndim, of, need_sorted=False):
    if not _distinct_axes(dims, ndim) or (need_sorted and not _sorted(dims)):
        raise ValueError(f"lax.{name}: {what} {dims} must be distinct"
                         f"{' sorted' if need_sorted else ''} axes of {of}")


def _index_bounds_mask(idx, upper):
    """bool[batch]: every entry of each index vector (last axis) within [0, upper]."""
    aval = get_aval(idx)
    top = np.iinfo(aval.dtype).max
    ub = constant(np.array([builtins.min(u, top) for u in upper], aval.dtype), aval.dtype)
    ub = broadcast_in_dim(ub, aval.shape, (aval.ndim - 1,))
    both = concatenate([ge(idx, 0), le(idx, ub)], aval.ndim - 1)
    return reduce_and(both, (aval.ndim - 1,))


def _clamp_indices(idx, upper):
    aval = get_aval(idx)
    top = np.iinfo(aval.dtype).max
    ub = constant(np.array([builtins.min(u, top) for u in upper], aval.dtype), aval.dtype)
    ub = broadcast_in_dim(ub, aval.shape, (aval.ndim - 1,))
    return _lax_max(_lax_min(idx, ub), 0)


# ---------------------------------------------------------------- gather

gather_p = Primitive("gather")


def _default_fill_value(dtype):
    if dtypes.is_inexact(dtype):
        return np.nan
    if dtype == np.bool_:
        return True
    info = np.iinfo(dtype)
    return info.min if dtype.kind == "i" else info.max


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's gather: a window of ``slice_sizes`` from ``operand`` for every index vector
    (the last axis of ``start_indices``); see ``GatherDimensionNumbers``.

    ``mode`` (default ``'fill'``) treats out-of-bounds windows: ``'clip'`` clamps them
    in, ``'fill'`` returns ``fill_value`` (default NaN for inexact dtypes, the minimum
    for signed, the maximum for unsigned integers, True for bool).
    """
    mode = GatherScatterMode.from_any(mode)
    dnums = _int_tuples("gather", GatherDimensionNumbers, dimension_numbers)
    if mode != GatherScatterMode.FILL_OR_DROP:
        fill_value = None
    elif fill_value is not None:
        if np.ndim(fill_value) != 0:
            raise ValueError(f"lax.gather: fill_value must be a scalar, got {fill_value!r}")
        fill_value = np.asarray(fill_value).item()      # a static, hashable parameter
    return gather_p.bind(operand, start_indices, dimension_numbers=dnums,
                         slice_sizes=tuple(_checks.index(s) for s in slice_sizes),
                         indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)


def _gather_window_dims(ndim, dnums):
    drop = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
    return [d for d in range(ndim) if d not in drop]


def _gather_abstract_eval(x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted,
                          unique_indices, mode, fill_value):
    name = "gather"
    off, coll, sim, obd, sibd = dimension_numbers
    _check_indices(name, idx)
    batch_shape = idx.shape[:-1]
    operand = f"the operand of shape {x.shape}"
    _check_dims(name, "collapsed_slice_dims", coll, x.ndim, operand, True)
    _check_dims(name, "operand_batching_dims", obd, x.ndim, operand, True)
    _check_dims(name, "start_index_map", sim, x.ndim, operand)
    _check_dims(name, "start_indices_batching_dims", sibd, len(batch_shape),
                f"the indices' batch shape {batch_shape}")
    if set(coll) & set(obd) or set(sim) & set(obd):
        raise ValueError(f"lax.gather: operand_batching_dims {obd} must not be collapsed or "
                         f"indexed axes, got dimension_numbers {dimension_numbers}")
    if len(sim) != idx.shape[-1]:
        raise ValueError(f"lax.gather: start_index_map {sim} has {len(sim)} entries but the "
                         f"index vectors (last axis of indices of shape {idx.shape}) have "
                         f"{idx.shape[-1]}")
    if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
        raise ValueError(f"lax.gather: slice_sizes {slice_sizes} must have one entry per axis, "
                         f"each within {operand}")
    if any(slice_sizes[d] != 1 for d in coll + obd):
        raise ValueError(f"lax.gather: collapsed and batching axes need slice size 1, got "
                         f"slice_sizes {slice_sizes} with collapsed_slice_dims {coll} and "
                         f"operand_batching_dims {obd}")
    if len(sibd) != len(obd) or any(x.shape[o] != batch_shape[s] for o, s in zip(obd, sibd)):
        raise ValueError(f"lax.gather: operand_batching_dims {obd} of {operand} must pair with "
                         f"start_indices_batching_dims {sibd} of equal sizes in indices of "
                         f"shape {idx.shape}")
    window = [slice_sizes[d] for d in _gather_window_dims(x.ndim, dimension_numbers)]
    out_rank = len(batch_shape) + len(window)
    if len(off) != len(window):
        raise ValueError(f"lax.gather: offset_dims {off} must have one entry per operand axis "
                         f"that is neither collapsed nor batching ({len(window)} here)")
    _check_dims(name, "offset_dims", off, out_rank, f"the rank-{out_rank} output", True)
    batch = iter(batch_shape)
    shape = tuple(window[off.index(i)] if i in off else next(batch) for i in range(out_rank))
    return [ShapedArray(shape, x.dtype, x.weak_type)]


def _flat_windows(shape, starts, sizes, batch_shape):
    """Where the windows (``sizes`` at ``starts``, arrays of ``batch_shape``) lie in an
    array of ``shape`` seen as ``(-1, block)``: the trailing axes the windows cover
    whole form contiguous blocks; returns row numbers of shape
    ``batch_shape + sizes[:t]`` (t leading axes) and the block length."""
    t = len(shape)
    while t and sizes[t - 1] == shape[t - 1]:
        t -= 1
    strides = [int(np.prod(shape[d + 1:t], dtype=np.int64)) for d in range(t)]
    base = sum((starts[d] * strides[d] for d in range(t)), np.zeros(batch_shape, np.int64))
    offsets = np.zeros(sizes[:t], np.int64)
    for d in range(t):
        offsets = offsets + (np.arange(sizes[d]) * strides[d]).reshape(
            [-1 if j == d else 1 for j in range(t)])
    rows = base.reshape(tuple(batch_shape) + (1,) * t) + offsets
    return rows, int(np.prod(shape[t:], dtype=np.int64))


def _gather_impl(x, indices, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    off, coll, sim, obd, sibd = dimension_numbers
    idx = _index_array(indices)
    batch_shape, nb = idx.shape[:-1], idx.ndim - 1
    upper = [n - s for n, s in zip(x.shape, slice_sizes)]
    starts = [np.zeros(batch_shape, np.int64) for _ in range(x.ndim)]
    in_bounds = np.ones(batch_shape, bool)
    for k, d in enumerate(sim):
        starts[d] = idx[..., k]
        in_bounds &= (starts[d] >= 0) & (starts[d] <= upper[d])
        starts[d] = np.clip(starts[d], 0, upper[d])     # XLA clamps gather starts
    for o, s in zip(obd, sibd):
        line = np.arange(batch_shape[s]).reshape([-1 if j == s else 1 for j in range(nb)])
        starts[o] = np.broadcast_to(line, batch_shape)
    out_shape = batch_shape + tuple(slice_sizes)
    if x.size == 0 or 0 in out_shape:
        blocks = np.zeros(out_shape, x.dtype)
    else:
        flat, block = _flat_windows(x.shape, starts, slice_sizes, batch_shape)
        blocks = np.take(x.reshape(-1, block), flat, axis=0).reshape(out_shape)
    keep = _gather_window_dims(x.ndim, dimension_numbers)
    blocks = blocks.reshape(batch_shape + tuple(slice_sizes[d] for d in keep))
    perm, b = [], 0
    for i in range(nb + len(keep)):
        if i in off:
            perm.append(nb + off.index(i))
        else:
            perm.append(b)
            b += 1
    out = np.transpose(blocks, perm)
    if mode == GatherScatterMode.FILL_OR_DROP and not in_bounds.all():
        fill = _default_fill_value(x.dtype) if fill_value is None else fill_value
        out = np.where(np.expand_dims(in_bounds, tuple(off)), out, np.asarray(fill, x.dtype))
    return [out if out.flags.c_contiguous else out.copy()]


def _gather_jvp(primals, tangents, **params):
    x, idx = primals
    out = gather_p.bind(x, idx, **params)
    t = tangents[0]
    if type(t) is ad.Zero:
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    if params["mode"] == GatherScatterMode.FILL_OR_DROP:
        params = dict(params, fill_value=0)
    return [out], [gather_p.bind(t, idx, **params)]


def _gather_transpose(cts, x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted,
                      unique_indices, mode, fill_value):
    if ad.is_undefined(idx):
        raise NotImplementedError("lax.gather is not linear in its indices")
    off, coll, sim, obd, sibd = dimension_numbers
    dnums = ScatterDimensionNumbers(off, coll, sim, obd, sibd)
    ct_x = scatter_add_p.bind(ad.zeros_like_aval(x.aval), idx, cts[0], dimension_numbers=dnums,
                              indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode)
    return [ct_x, None]


def _gather_batch(axis_size, args, dims, *, dimension_numbers, slice_sizes, **params):
    (x, idx), (xd, id_) = args, dims
    off, coll, sim, obd, sibd = dimension_numbers
    sh = lambda t: tuple(d + 1 for d in t)
    if id_ is None:
        x = batching.moveaxis(x, xd, 0)
        dnums = GatherDimensionNumbers((0,) + sh(off), sh(coll), sh(sim), sh(obd), sibd)
        sizes = (axis_size,) + tuple(slice_sizes)
    elif xd is None:
        params["indices_are_sorted"] = False    # the index vectors gain a batch axis
        idx = batching.moveaxis(idx, id_, 0)
        dnums = GatherDimensionNumbers(sh(off), coll, sim, obd, sh(sibd))
        sizes = slice_sizes
    else:
        params["indices_are_sorted"] = False
        x = batching.moveaxis(x, xd, 0)
        idx = batching.moveaxis(idx, id_, 0)
        dnums = GatherDimensionNumbers(sh(off), sh(coll), sh(sim), (0,) + sh(obd),
                                       (0,) + sh(sibd))
        sizes = (1,) + tuple(slice_sizes)
    out = gather_p.bind(x, idx, dimension_numbers=dnums, slice_sizes=tuple(sizes), **params)
    return [out], [0]


def _gather_fill(x, idx, *, dimension_numbers, slice_sizes, fill_value, **params):
    """FILL_OR_DROP as a clamped gather and a select on the in-bounds mask."""
    params["mode"] = GatherScatterMode.CLIP
    out = gather_p.bind(x, idx, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
                        fill_value=None, **params)
    x_aval, out_aval = get_aval(x), get_aval(out)
    sim = dimension_numbers.start_index_map
    mask = _index_bounds_mask(idx, [x_aval.shape[d] - slice_sizes[d] for d in sim])
    batch_axes = tuple(i for i in range(out_aval.ndim) if i not in dimension_numbers.offset_dims)
    mask = broadcast_in_dim(mask, out_aval.shape, batch_axes)
    fill = _default_fill_value(x_aval.dtype) if fill_value is None else fill_value
    return select_n(mask, full(out_aval.shape, fill, x_aval.dtype), out)


def _gather_lower(ctx, x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted,
                  unique_indices, mode, fill_value):
    if mode == GatherScatterMode.FILL_OR_DROP:
        return lower_via(_gather_fill)(ctx, x, idx, dimension_numbers=dimension_numbers,
                                       slice_sizes=slice_sizes, fill_value=fill_value,
                                       indices_are_sorted=indices_are_sorted,
                                       unique_indices=unique_indices)
    off, coll, sim, obd, sibd = dimension_numbers
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=list(off), collapsed_slice_dims=list(coll),
        operand_batching_dims=list(obd), start_indices_batching_dims=list(sibd),
        start_index_map=list(sim), index_vector_dim=ctx.avals_in[1].ndim - 1)
    op = hlo.GatherOp(x, idx, dnums, ir.DenseI64ArrayAttr.get(list(slice_sizes)),
                      indices_are_sorted=ir.BoolAttr.get(indices_are_sorted),
                      results=[ir_type(ctx.avals_out[0])])
    return [op.result]


gather_p.impl = _gather_impl
gather_p.abstract_eval = _gather_abstract_eval
gather_p.jvp = _gather_jvp
gather_p.transpose = _gather_transpose
gather_p.batch = _gather_batch
gather_p.lower = _gather_lower


# ---------------------------------------------------------------- scatter

def _scatter_window(operand_shape, updates_shape, dnums):
    """Window size of every operand axis (1 for inserted and batching axes)."""
    sizes = [1] * len(operand_shape)
    drop = set(dnums.inserted_window_dims) | set(dnums.operand_batching_dims)
    keep = [d for d in range(len(operand_shape)) if d not in drop]
    for j, d in enumerate(keep):
        if j < len(dnums.update_window_dims):
            sizes[d] = updates_shape[dnums.update_window_dims[j]]
    return sizes, keep


def _scatter_to_gather(dnums, operand_shape, updates_shape):
    uwd, iwd, sdod, obd, sibd = dnums
    sizes, _ = _scatter_window(operand_shape, updates_shape, dnums)
    return GatherDimensionNumbers(uwd, iwd, sdod, obd, sibd), tuple(sizes)


def _scatter_abstract_eval(name, kinds, x, idx, u, *, dimension_numbers, indices_are_sorted,
                           unique_indices, mode):
    uwd, iwd, sdod, obd, sibd = dimension_numbers
    check_kinds(name, x, kinds)
    if u.dtype != x.dtype:
        raise TypeError(f"lax.{name} requires operand and updates of one dtype, got "
                        f"{x.dtype.name} and {u.dtype.name}")
    _check_indices(name, idx)
    batch_shape = idx.shape[:-1]
    operand = f"the operand of shape {x.shape}"
    _check_dims(name, "update_window_dims", uwd, u.ndim, f"updates of shape {u.shape}", True)
    _check_dims(name, "inserted_window_dims", iwd, x.ndim, operand, True)
    _check_dims(name, "operand_batching_dims", obd, x.ndim, operand, True)
    _check_dims(name, "scatter_dims_to_operand_dims", sdod, x.ndim, operand)
    _check_dims(name, "scatter_indices_batching_dims", sibd, len(batch_shape),
                f"the indices' batch shape {batch_shape}")
    if set(iwd) & set(obd) or set(sdod) & set(obd):
        raise ValueError(f"lax.{name}: operand_batching_dims {obd} must not be inserted or "
                         f"indexed axes, got dimension_numbers {dimension_numbers}")
    if len(sdod) != idx.shape[-1]:
        raise ValueError(f"lax.{name}: scatter_dims_to_operand_dims {sdod} has {len(sdod)} "
                         f"entries but the index vectors (last axis of indices of shape "
                         f"{idx.shape}) have {idx.shape[-1]}")
    if len(uwd) + len(iwd) + len(obd) != x.ndim:
        raise ValueError(f"lax.{name}: update_window_dims {uwd}, inserted_window_dims {iwd} "
                         f"and operand_batching_dims {obd} must account for every axis of "
                         f"{operand}")
    sizes, keep = _scatter_window(x.shape, u.shape, dimension_numbers)
    if any(sizes[d] > x.shape[d] for d in keep):
        raise ValueError(f"lax.{name}: update windows of updates of shape {u.shape} "
                         f"(window axes {uwd}) are larger than {operand}")
    scatter_sizes = tuple(u.shape[i] for i in range(u.ndim) if i not in uwd)
    if scatter_sizes != batch_shape:
        raise ValueError(f"lax.{name}: the scatter axes of updates of shape {u.shape} (all "
                         f"but update_window_dims {uwd}) have sizes {scatter_sizes}, which must "
                         f"equal the indices' batch shape {batch_shape}")
    if len(sibd) != len(obd) or any(x.shape[o] != batch_shape[s] for o, s in zip(obd, sibd)):
        raise ValueError(f"lax.{name}: operand_batching_dims {obd} of {operand} must pair with "
                         f"scatter_indices_batching_dims {sibd} of equal sizes in indices of "
                         f"shape {idx.shape}")
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


def _scatter_impl(ufunc, x, indices, u, *, dimension_numbers, mode, **_):
    uwd, iwd, sdod, obd, sibd = dimension_numbers
    idx = _index_array(indices)
    batch_shape, nb = idx.shape[:-1], idx.ndim - 1
    sizes, keep = _scatter_window(x.shape, u.shape, dimension_numbers)
    starts = [np.zeros(batch_shape, np.int64) for _ in range(x.ndim)]
    valid = np.ones(batch_shape, bool)
    for k, d in enumerate(sdod):
        upper = x.shape[d] - sizes[d]
        starts[d] = idx[..., k]
        if mode == GatherScatterMode.CLIP:
            starts[d] = np.clip(starts[d], 0, upper)
        else:       # XLA drops updates whose window is not wholly in bounds
            valid &= (starts[d] >= 0) & (starts[d] <= upper)
    for o, s in zip(obd, sibd):
        line = np.arange(batch_shape[s]).reshape([-1 if j == s else 1 for j in range(nb)])
        starts[o] = np.broadcast_to(line, batch_shape)
    out = x.copy()
    if out.size == 0 or u.size == 0:
        return [out]
    # Updates in (batch axes, then one axis per operand axis) order, like gather output.
    scatter_axes = [i for i in range(u.ndim) if i not in uwd]
    vals = np.transpose(u, scatter_axes + list(uwd)).reshape(batch_shape + tuple(sizes))
    rows, block = _flat_windows(x.shape, starts, sizes, batch_shape)
    vals = vals.reshape(rows.shape + (block,))
    if not valid.all():
        rows, vals = rows[valid], vals[valid]
    target = out.reshape(-1, block)
    if ufunc is None:
        target[rows] = vals
    else:
        ufunc.at(target, rows, vals)
    return [out]


def _scatter_batch(prim, axis_size, args, dims, *, dimension_numbers, **params):
    (x, idx, u), (xd, id_, ud) = args, dims
    uwd, iwd, sdod, obd, sibd = dimension_numbers
    sh = lambda t: tuple(d + 1 for d in t)
    x = batching.move_axis_to(axis_size, x, xd, 0)
    u = batching.move_axis_to(axis_size, u, ud, 0)
    if id_ is None:
        dnums = ScatterDimensionNumbers((0,) + sh(uwd), sh(iwd), sh(sdod), sh(obd), sibd)
    else:
        params["indices_are_sorted"] = False    # the index vectors gain a batch axis
        idx = batching.moveaxis(idx, id_, 0)
        dnums = ScatterDimensionNumbers(sh(uwd), sh(iwd), sh(sdod), (0,) + sh(obd),
                                        (0,) + sh(sibd))
    return [prim.bind(x, idx, u, dimension_numbers=dnums, **params)], [0]


def _scatter_clip(prim):
    """CLIP as a scatter of clamped indices (XLA's own scatter drops out-of-bounds)."""
    def fun(x, idx, u, *, dimension_numbers, **params):
        sizes, _ = _scatter_window(get_aval(x).shape, get_aval(u).shape, dimension_numbers)
        upper = [get_aval(x).shape[d] - sizes[d] for d in dimension_numbers[2]]
        params["mode"] = GatherScatterMode.FILL_OR_DROP
        return prim.bind(x, _clamp_indices(idx, upper), u, dimension_numbers=dimension_numbers,
                         **params)
    return fun


def _scatter_empty_index_vectors(prim):
    """A scatter whose index vectors are empty, given a leading size-1 operand axis that
    a zero index selects (XLA's scatter simplifier rejects empty index vectors)."""
    def fun(x, idx, u, *, dimension_numbers, **params):
        uwd, iwd, sdod, obd, sibd = dimension_numbers
        sh = lambda t: tuple(d + 1 for d in t)
        shape, idx_shape = get_aval(x).shape, get_aval(idx).shape
        x1 = reshape(x, (1,) + shape)
        idx1 = full(idx_shape[:-1] + (1,), 0, get_aval(idx).dtype)
        dnums = ScatterDimensionNumbers(uwd, (0,) + sh(iwd), (0,), sh(obd), sibd)
        return reshape(prim.bind(x1, idx1, u, dimension_numbers=dnums, **params), shape)
    return fun


def _scatter_lower(prim, combiner, ctx, x, idx, u, *, dimension_numbers, indices_are_sorted,
                   unique_indices, mode):
    if ctx.avals_in[1].shape[-1] == 0:
        return lower_via(_scatter_empty_index_vectors(prim))(
            ctx, x, idx, u, dimension_numbers=dimension_numbers,
            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    if mode == GatherScatterMode.CLIP:
        return lower_via(_scatter_clip(prim))(
            ctx, x, idx, u, dimension_numbers=dimension_numbers,
            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    uwd, iwd, sdod, obd, sibd = dimension_numbers
    aval = ctx.avals_in[0]
    dnums = hlo.ScatterDimensionNumbers.get(
        update_window_dims=list(uwd), inserted_window_dims=list(iwd),
        input_batching_dims=list(obd), scatter_indices_batching_dims=list(sibd),
        scattered_dims_to_operand_dims=list(sdod), index_vector_dim=ctx.avals_in[1].ndim - 1)
    op = hlo.ScatterOp([ir_type(aval)], [x], idx, [u], dnums,
                       indices_are_sorted=ir.BoolAttr.get(indices_are_sorted),
                       unique_indices=ir.BoolAttr.get(unique_indices))
    scalar = ir_type(ShapedArray((), aval.dtype))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        old, new = block.arguments
        hlo.return_([new if combiner is None else combiner(old, new)])
    return list(op.results)


def _scatter_primitive(name, ufunc, combiner, kinds):
    p = Primitive(name)
    p.impl = partial(_scatter_impl, ufunc)
    p.abstract_eval = partial(_scatter_abstract_eval, name, kinds)
    p.batch = partial(_scatter_batch, p)
    p.lower = partial(_scatter_lower, p, combiner)
    return p


scatter_p = _scatter_primitive("scatter", None, None, ANY)
scatter_add_p = _scatter_primitive("scatter_add", np.add, hlo.add, NUMBER)
scatter_mul_p = _scatter_primitive("scatter_mul", np.multiply, hlo.multiply, NUMBER)
scatter_min_p = _scatter_primitive("scatter_min", np.minimum, hlo.minimum, BOOL + INT + FLOAT)
scatter_max_p = _scatter_primitive("scatter_max", np.maximum, hlo.maximum, BOOL + INT + FLOAT)


def _scatter_bind(prim, operand, indices, updates, dimension_numbers, indices_are_sorted,
                  unique_indices, mode):
    dnums = _int_tuples(prim.name, ScatterDimensionNumbers, dimension_numbers)
    return prim.bind(operand, indices, as_operand(updates, operand), dimension_numbers=dnums,
                     indices_are_sorted=bool(indices_are_sorted),
                     unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode))


def scatter(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
            unique_indices=False, mode=None):
    """XLA's scatter, overwriting: ``updates`` windows replace ``operand`` entries at
    ``scatter_indices`` (see ``ScatterDimensionNumbers``). Which of several updates to
    one position wins is unspecified. ``mode`` (default ``'drop'``) drops
    out-of-bounds windows; ``'clip'`` clamps them in."""
    return _scatter_bind(scatter_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_add(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """``scatter`` that adds the updates (duplicates accumulate)."""
    return _scatter_bind(scatter_add_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_mul(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """``scatter`` that multiplies by the updates."""
    return _scatter_bind(scatter_mul_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_min(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """``scatter`` that keeps the minimum of the operand and the updates."""
    return _scatter_bind(scatter_min_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_max(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """``scatter`` that keeps the maximum of the operand and the updates."""
    return _scatter_bind(scatter_max_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def _gather_like(ct, idx, u_aval, dimension_numbers, mode, **flags):
    """Gather from ``ct`` the windows a scatter with these numbers writes to."""
    gdn, sizes = _scatter_to_gather(dimension_numbers, get_aval(ct).shape, u_aval.shape)
    return gather(ct, idx, gdn, sizes, mode=mode,
                  fill_value=0 if mode == GatherScatterMode.FILL_OR_DROP else None, **flags)


# scatter_add: linear in operand and updates.

def _scatter_add_jvp(primals, tangents, **params):
    x, idx, u = primals
    tx, _, tu = tangents
    out = scatter_add_p.bind(x, idx, u, **params)
    if type(tx) is ad.Zero and type(tu) is ad.Zero:
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    return [out], [scatter_add_p.bind(ad.instantiate(tx), idx, ad.instantiate(tu), **params)]


def _scatter_add_transpose(cts, x, idx, u, *, dimension_numbers, indices_are_sorted,
                           unique_indices, mode):
    if ad.is_undefined(idx):
        raise NotImplementedError("lax.scatter_add is not linear in its indices")
    ct = cts[0]
    ct_u = None
    if ad.is_undefined(u):
        ct_u = _gather_like(ct, idx, u.aval, dimension_numbers, mode,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices)
    return [ct if ad.is_undefined(x) else None, None, ct_u]


scatter_add_p.jvp = _scatter_add_jvp
scatter_add_p.transpose = _scatter_add_transpose


# scatter_mul: linear in the operand; the updates' derivative needs unique indices (as JAX).

def _scatter_mul_jvp(primals, tangents, **params):
    x, idx, u = primals
    tx, _, tu = tangents
    out = scatter_mul_p.bind(x, idx, u, **params)
    t_out = ad.Zero(ad.tangent_aval(get_aval(out)))
    if type(tx) is not ad.Zero:
        t_out = scatter_mul_p.bind(tx, idx, u, **params)
    if type(tu) is not ad.Zero:
        if not params["unique_indices"]:
            raise NotImplementedError("lax.scatter_mul: the derivative with respect to the "
                                      "updates is implemented only for unique_indices=True")
        t_u = mul(x, scatter_add_p.bind(ad.zeros_like_aval(get_aval(x)), idx, tu, **params))
        t_out = ad.add_tangents(t_out, t_u)
    return [out], [t_out]


def _scatter_mul_transpose(cts, x, idx, u, **params):
    if ad.is_undefined(u) or ad.is_undefined(idx):
        raise NotImplementedError("lax.scatter_mul is linear only in its operand")
    return [scatter_mul_p.bind(cts[0], idx, u, **params), None, None]


scatter_mul_p.jvp = _scatter_mul_jvp
scatter_mul_p.transpose = _scatter_mul_transpose


# scatter_min / scatter_max: the tangent is the mean of the tangents of all the values
# (operand entry and updates) that attain the result at a position.

def _scatter_extremal_jvp(prim):
    def jvp(primals, tangents, **params):
        x, idx, u = primals
        tx, _, tu = tangents
        out = prim.bind(x, idx, u, **params)
        if type(tx) is ad.Zero and type(tu) is ad.Zero:
            return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
        x_aval, u_aval = get_aval(x), get_aval(u)
        dtype = x_aval.dtype
        flags = dict(indices_are_sorted=params["indices_are_sorted"],
                     unique_indices=params["unique_indices"])
        dn, mode = params["dimension_numbers"], params["mode"]
        x_wins = convert_element_type(eq(x, out), dtype)
        u_wins = convert_element_type(eq(u, _gather_like(out, idx, u_aval, dn, mode, **flags)),
                                      dtype)
        count = add(x_wins, scatter_add_p.bind(ad.zeros_like_aval(x_aval), idx, u_wins, **params))
        total = ad.zeros_like_aval(x_aval) if type(tx) is ad.Zero else mul(x_wins, tx)
        if type(tu) is not ad.Zero:
            total = scatter_add_p.bind(total, idx, mul(u_wins, tu), **params)
        return [out], [div(total, count)]
    prim.jvp = jvp


_scatter_extremal_jvp(scatter_min_p)
_scatter_extremal_jvp(scatter_max_p)


# scatter: with unique indices the tangent is a scatter of the tangents; otherwise the
# winner of each position is made explicit by scattering update ids (as JAX does), so
# the primal and the tangent agree on it.

def _scatter_jvp(primals, tangents, **params):
    x, idx, u = primals
    tx, _, tu = tangents
    if type(tx) is ad.Zero and type(tu) is ad.Zero:
        out = scatter_p.bind(x, idx, u, **params)
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    if params["unique_indices"]:
        out = scatter_p.bind(x, idx, u, **params)
        return [out], [scatter_p.bind(ad.instantiate(tx), idx, ad.instantiate(tu), **params)]
    x_aval, u_aval = get_aval(x), get_aval(u)
    dn, mode = params["dimension_numbers"], params["mode"]
    uwd = dn.update_window_dims
    scatter_axes = [i for i in range(u_aval.ndim) if i not in uwd]
    num_ids = int(np.prod([u_aval.shape[i] for i in scatter_axes], dtype=np.int64))
    id_dtype = dtypes.canonicalize(np.int32 if num_ids < 2 ** 31 - 1 else np.int64)
    ids = add(iota(id_dtype, num_ids), 1)
    ids = reshape(ids, tuple(u_aval.shape[i] for i in scatter_axes))
    ids = broadcast_in_dim(ids, u_aval.shape, tuple(scatter_axes))
    scattered = scatter_p.bind(full(x_aval.shape, 0, id_dtype), idx, ids, **params)
    flags = dict(indices_are_sorted=params["indices_are_sorted"],
                 unique_indices=params["unique_indices"])
    gathered = _gather_like(scattered, idx, u_aval, dn, mode, **flags)
    x_kept = eq(scattered, 0)
    u_kept = eq(ids, gathered)

    def combine(xv, uv):
        xv = select_n(x_kept, ad.zeros_like_aval(x_aval), ad.instantiate(xv))
        uv = select_n(u_kept, ad.zeros_like_aval(u_aval), ad.instantiate(uv))
        return scatter_add_p.bind(xv, idx, uv, **params)
    return [combine(x, u)], [combine(tx, tu)]


def _scatter_transpose(cts, x, idx, u, *, dimension_numbers, indices_are_sorted,
                       unique_indices, mode):
    if not unique_indices:
        raise NotImplementedError("lax.scatter: transposition is implemented only for "
                                  "unique_indices=True")
    if ad.is_undefined(idx):
        raise NotImplementedError("lax.scatter is not linear in its indices")
    ct = cts[0]
    flags = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    u_aval = _aval(u)
    ct_x = ct_u = None
    if ad.is_undefined(x):
        ct_x = scatter_p.bind(ct, idx, ad.zeros_like_aval(u_aval), dimension_numbers=dimension_numbers,
                              mode=mode, **flags)
    if ad.is_undefined(u):
        ct_u = _gather_like(ct, idx, u_aval, dimension_numbers, mode, **flags)
    return [ct_x, None, ct_u]


scatter_p.jvp = _scatter_jvp
scatter_p.transpose = _scatter_transpose
