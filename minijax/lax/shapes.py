"""Shape primitives: broadcast_in_dim, reshape, transpose, squeeze, iota."""

import math

import numpy as np

from .. import _checks, dtypes
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir, ir_type
from ..util import canonicalize_axis
from ._helpers import constant
from .elementwise import convert_element_type


def _shape_tuple(name, shape):
    return _checks.shape(shape, f"lax.{name}: shape")


# ---------------------------------------------------------------- broadcast_in_dim

broadcast_in_dim_p = Primitive("broadcast_in_dim")


def broadcast_in_dim(x, shape, broadcast_dimensions):
    """Broadcast ``x`` to ``shape``; operand axis i becomes axis ``broadcast_dimensions[i]``."""
    shape = _shape_tuple("broadcast_in_dim", shape)
    _checks.array_size(shape, get_aval(x).dtype, "lax.broadcast_in_dim")
    dims = _checks.int_sequence(broadcast_dimensions, "lax.broadcast_in_dim: broadcast_dimensions")
    if get_aval(x).shape == shape and dims == tuple(range(len(shape))):
        return x
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=dims)


def broadcast_to_shape(x, shape):
    """Broadcast ``x`` to ``shape`` by NumPy's trailing-axis alignment."""
    ndim = get_aval(x).ndim
    return broadcast_in_dim(x, shape, tuple(range(len(shape) - ndim, len(shape))))


def _bid_impl(x, *, shape, broadcast_dimensions):
    inter = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        inter[d] = x.shape[i]
    return [np.broadcast_to(x.reshape(inter), shape)]


def _bid_abstract_eval(x, *, shape, broadcast_dimensions):
    dims = broadcast_dimensions
    if len(dims) != x.ndim:
        raise ValueError(f"lax.broadcast_in_dim: operand of shape {x.shape} needs "
                         f"{x.ndim} broadcast_dimensions, got {dims}")
    if any(not 0 <= d < len(shape) for d in dims) or list(dims) != sorted(set(dims)):
        raise ValueError(f"lax.broadcast_in_dim: broadcast_dimensions {dims} must be "
                         f"strictly increasing and within the {len(shape)} output axes")
    for i, d in enumerate(dims):
        if x.shape[i] not in (1, shape[d]):
            raise ValueError(f"lax.broadcast_in_dim: operand of shape {x.shape} cannot be "
                             f"broadcast to {shape}: operand axis {i} has size {x.shape[i]}, "
                             f"output axis {d} has size {shape[d]}")
    return [ShapedArray(shape, x.dtype, x.weak_type)]


def _bid_transpose(cts, x, *, shape, broadcast_dimensions):
    ct = cts[0]
    in_shape = x.aval.shape
    new_axes = tuple(d for d in range(len(shape)) if d not in broadcast_dimensions)
    stretched = tuple(d for i, d in enumerate(broadcast_dimensions)
                      if in_shape[i] == 1 and shape[d] != 1)
    from .reductions import reduce_sum   # deferred: reductions imports shapes
    summed = reduce_sum(ct, tuple(sorted(new_axes + stretched)))
    return [reshape(summed, in_shape)]


def _bid_batch(axis_size, args, dims, *, shape, broadcast_dimensions):
    (x,), (d,) = args, dims
    x = batching.moveaxis(x, d, 0)
    new_dims = (0,) + tuple(b + 1 for b in broadcast_dimensions)
    return [broadcast_in_dim(x, (axis_size, *shape), new_dims)], [0]


def _bid_lower(ctx, x, *, shape, broadcast_dimensions):
    return [hlo.broadcast_in_dim(ir_type(ctx.avals_out[0]), x,
                                 ir.DenseI64ArrayAttr.get(list(broadcast_dimensions)))]


broadcast_in_dim_p.impl = _bid_impl
broadcast_in_dim_p.abstract_eval = _bid_abstract_eval
ad.deflinear(broadcast_in_dim_p, _bid_transpose)
broadcast_in_dim_p.batch = _bid_batch
broadcast_in_dim_p.lower = _bid_lower


def full(shape, fill_value, dtype=None, weak_type=False):
    """An array of ``shape`` filled with ``fill_value`` (a scalar)."""
    shape = _shape_tuple("full", shape)
    if dtype is None:
        aval = get_aval(fill_value)
        dtype, weak_type = aval.dtype, aval.weak_type
    dtype = dtypes.canonicalize(dtype)
    _checks.allocatable(shape, dtype, "lax.full")
    if isinstance(fill_value, (bool, int, float, complex, np.generic, np.ndarray)):
        scalar = constant(fill_value, dtype, weak_type)
    else:
        if get_aval(fill_value).shape != ():
            raise ValueError(f"lax.full: fill_value must be a scalar, got shape "
                             f"{get_aval(fill_value).shape}")
        scalar = convert_element_type(fill_value, dtype, weak_type)
    return broadcast_in_dim(scalar, shape, ())


# ---------------------------------------------------------------- reshape

reshape_p = Primitive("reshape")


def reshape(x, new_sizes):
    """``x`` with shape ``new_sizes`` (row-major order; sizes must multiply out)."""
    new_sizes = _shape_tuple("reshape", new_sizes)
    if get_aval(x).shape == new_sizes:
        return x
    return reshape_p.bind(x, new_sizes=new_sizes)


def _reshape_abstract_eval(x, *, new_sizes):
    if math.prod(new_sizes) != x.size:
        raise ValueError(f"lax.reshape: cannot reshape operand of shape {x.shape} "
                         f"({x.size} elements) to {new_sizes}")
    return [ShapedArray(new_sizes, x.dtype, x.weak_type)]


def _reshape_batch(axis_size, args, dims, *, new_sizes):
    x = batching.moveaxis(args[0], dims[0], 0)
    return [reshape(x, (axis_size, *new_sizes))], [0]


reshape_p.impl = lambda x, *, new_sizes: [np.reshape(x, new_sizes)]
reshape_p.abstract_eval = _reshape_abstract_eval
ad.deflinear(reshape_p, lambda cts, x, *, new_sizes: [reshape(cts[0], x.aval.shape)])
reshape_p.batch = _reshape_batch
reshape_p.lower = lambda ctx, x, *, new_sizes: [hlo.reshape(ir_type(ctx.avals_out[0]), x)]


# ---------------------------------------------------------------- transpose

transpose_p = Primitive("transpose")


def transpose(x, permutation):
    """Permute ``x``'s axes: output axis i is operand axis ``permutation[i]``."""
    permutation = _checks.int_sequence(permutation, "lax.transpose: permutation")
    if permutation == tuple(range(len(permutation))) and len(permutation) == get_aval(x).ndim:
        return x
    return transpose_p.bind(x, permutation=permutation)


def _transpose_abstract_eval(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise ValueError(f"lax.transpose: permutation {permutation} is not a permutation of "
                         f"the {x.ndim} axes of an operand of shape {x.shape}")
    return [ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)]


def _transpose_batch(axis_size, args, dims, *, permutation):
    x = batching.moveaxis(args[0], dims[0], 0)
    return [transpose(x, (0,) + tuple(p + 1 for p in permutation))], [0]


transpose_p.impl = lambda x, *, permutation: [np.transpose(x, permutation)]
transpose_p.abstract_eval = _transpose_abstract_eval
ad.deflinear(transpose_p, lambda cts, x, *, permutation: [
    transpose(cts[0], tuple(np.argsort(permutation)))])
transpose_p.batch = _transpose_batch
transpose_p.lower = lambda ctx, x, *, permutation: [
    hlo.transpose(x, ir.DenseI64ArrayAttr.get(list(permutation)))]


# ---------------------------------------------------------------- squeeze / expand_dims

squeeze_p = Primitive("squeeze")


def squeeze(x, dimensions):
    """Remove the size-1 axes ``dimensions``."""
    ndim = get_aval(x).ndim
    dims = tuple(sorted(canonicalize_axis(d, ndim) for d in dimensions))
    if not dims:
        return x
    return squeeze_p.bind(x, dimensions=dims)


def _squeeze_abstract_eval(x, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError(f"lax.squeeze: axis {d} of operand of shape {x.shape} has size "
                             f"{x.shape[d]}, not 1")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return [ShapedArray(shape, x.dtype, x.weak_type)]


def _squeeze_batch(axis_size, args, dims, *, dimensions):
    x = batching.moveaxis(args[0], dims[0], 0)
    return [squeeze(x, tuple(d + 1 for d in dimensions))], [0]


squeeze_p.impl = lambda x, *, dimensions: [np.squeeze(x, dimensions)]
squeeze_p.abstract_eval = _squeeze_abstract_eval
ad.deflinear(squeeze_p, lambda cts, x, *, dimensions: [reshape(cts[0], x.aval.shape)])
squeeze_p.batch = _squeeze_batch
squeeze_p.lower = lambda ctx, x, *, dimensions: [hlo.reshape(ir_type(ctx.avals_out[0]), x)]


def expand_dims(x, dimensions):
    """Insert size-1 axes at ``dimensions`` (positions in the output)."""
    shape = list(get_aval(x).shape)
    out_ndim = len(shape) + len(dimensions)
    for d in sorted(canonicalize_axis(d, out_ndim) for d in dimensions):
        shape.insert(d, 1)
    return reshape(x, tuple(shape))


# ---------------------------------------------------------------- iota

iota_p = Primitive("iota")


def iota(dtype, size):
    """``[0, 1, ..., size-1]`` of ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension):
    shape = _shape_tuple("iota", shape)
    dtype = dtypes.canonicalize(dtype)
    _checks.allocatable(shape, dtype, "lax.broadcasted_iota")
    dimension = canonicalize_axis(dimension, len(shape), "dimension")
    return iota_p.bind(dtype=dtype, shape=shape, dimension=dimension)


def _iota_impl(*, dtype, shape, dimension):
    line = np.arange(shape[dimension], dtype=dtype)
    inter = [1] * len(shape)
    inter[dimension] = shape[dimension]
    return [np.broadcast_to(line.reshape(inter), shape)]


iota_p.impl = _iota_impl
iota_p.abstract_eval = lambda *, dtype, shape, dimension: [ShapedArray(shape, dtype)]
ad.defjvp_zero(iota_p)
iota_p.lower = lambda ctx, *, dtype, shape, dimension: [
    hlo.iota(ir_type(ctx.avals_out[0]), ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                            dimension))]
