"""Slicing primitives. So far only ``rev``; pad, concatenate, slice, dynamic_slice,
dynamic_update_slice, gather and scatter are still to come (issue 3, part B)."""

import numpy as np

from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir
from ..util import canonicalize_axis

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
