"""Reductions over axes: reduce_sum, reduce_max, reduce_min, reduce_and, reduce_or."""

import numpy as np

from .. import dtypes
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir, ir_constant, ir_type
from ..util import canonicalize_axis
from ._helpers import ANY, BOOL, INT, NUMBER, check_kinds


def _identity(kind, dtype):
    """The identity element of a reduction for ``dtype``."""
    if kind == "sum":
        return np.zeros((), dtype)
    if kind in ("and", "or"):
        # All bits set (True) for and, no bits for or.
        return np.asarray(-1 if kind == "and" else 0).astype(dtype)
    if dtypes.is_inexact(dtype):
        return np.asarray(-np.inf if kind == "max" else np.inf, dtype)
    if dtype == np.bool_:
        return np.asarray(kind == "min", dtype)
    info = np.iinfo(dtype)
    return np.asarray(info.min if kind == "max" else info.max, dtype)


def _reduction(name, kind, np_fn, hlo_op, kinds):
    p = Primitive(name)

    def impl(x, *, axes):
        with np.errstate(all="ignore"):
            if kind == "sum":
                return [np_fn(x, axis=axes, dtype=x.dtype)]
            if kind in ("and", "or"):
                return [np_fn.reduce(x, axis=axes, initial=_identity(kind, x.dtype))]
            return [np_fn(x, axis=axes, initial=_identity(kind, x.dtype))]

    def abstract_eval(x, *, axes):
        check_kinds(name, x, kinds)
        if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
            raise ValueError(f"lax.{name}: axes {axes} are not distinct axes of an operand "
                             f"of shape {x.shape}")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return [ShapedArray(shape, x.dtype, x.weak_type)]

    def batch(axis_size, args, dims, *, axes):
        (x,), (d,) = args, dims
        new_axes = tuple(a + (a >= d) for a in axes)
        out_dim = d - sum(a < d for a in new_axes)
        return [p.bind(x, axes=new_axes)], [out_dim]

    def lower(ctx, x, *, axes):
        aval = ctx.avals_in[0]
        scalar = ShapedArray((), aval.dtype)
        op = hlo.ReduceOp([ir_type(ctx.avals_out[0])], [x],
                          [ir_constant(_identity(kind, aval.dtype))],
                          ir.DenseI64ArrayAttr.get(list(axes)))
        block = op.body.blocks.append(ir_type(scalar), ir_type(scalar))
        with ir.InsertionPoint(block):
            hlo.return_([hlo_op(*block.arguments)])
        return list(op.results)

    p.impl = impl
    p.abstract_eval = abstract_eval
    p.batch = batch
    p.lower = lower
    return p


reduce_sum_p = _reduction("reduce_sum", "sum", np.sum, hlo.add, NUMBER)
reduce_max_p = _reduction("reduce_max", "max", np.max, hlo.maximum, ANY)
reduce_min_p = _reduction("reduce_min", "min", np.min, hlo.minimum, ANY)
reduce_and_p = _reduction("reduce_and", "and", np.bitwise_and, hlo.and_, BOOL + INT)
reduce_or_p = _reduction("reduce_or", "or", np.bitwise_or, hlo.or_, BOOL + INT)
ad.defjvp_zero(reduce_and_p)
ad.defjvp_zero(reduce_or_p)


def _axes(x, axes):
    ndim = get_aval(x).ndim
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, int):
        axes = (axes,)
    return tuple(sorted(canonicalize_axis(a, ndim) for a in axes))


def reduce_sum(x, axes=None):
    """Sum of ``x`` over ``axes`` (all axes when None)."""
    return reduce_sum_p.bind(x, axes=_axes(x, axes))


def reduce_and(x, axes=None):
    """Logical (bitwise for integers) AND of ``x`` over ``axes``."""
    return reduce_and_p.bind(x, axes=_axes(x, axes))


def reduce_or(x, axes=None):
    """Logical (bitwise for integers) OR of ``x`` over ``axes``."""
    return reduce_or_p.bind(x, axes=_axes(x, axes))


def reduce_max(x, axes=None):
    return reduce_max_p.bind(x, axes=_axes(x, axes))


def reduce_min(x, axes=None):
    return reduce_min_p.bind(x, axes=_axes(x, axes))


def _reduce_sum_transpose(cts, x, *, axes):
    from .shapes import broadcast_in_dim
    shape = x.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return [broadcast_in_dim(cts[0], shape, kept)]


ad.deflinear(reduce_sum_p, _reduce_sum_transpose)


def _chooser_jvp(prim):
    # The tangent of max/min: the mean of the tangents at the positions that attain it.
    def jvp(g, ans, x, *, axes):
        from .elementwise import convert_element_type, div, eq, mul
        from .shapes import broadcast_in_dim
        shape = get_aval(x).shape
        kept = tuple(i for i in range(len(shape)) if i not in axes)
        location = eq(x, broadcast_in_dim(ans, shape, kept))
        weights = convert_element_type(location, get_aval(g).dtype)
        counts = reduce_sum(weights, axes)
        return div(reduce_sum(mul(g, weights), axes), counts)
    ad.defjvp2(prim, jvp)


_chooser_jvp(reduce_max_p)
_chooser_jvp(reduce_min_p)
