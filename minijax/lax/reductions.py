"""Reductions over axes: reduce_sum, reduce_prod, reduce_max, reduce_min, reduce_and,
reduce_or, and argmax/argmin."""

import numpy as np

from .. import _checks, dtypes
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, lowering
from ..interpreters.lowering import hlo, ir, ir_constant, ir_type
from ._helpers import ANY, BOOL, FLOAT, INT, NUMBER, check_kinds
from .elementwise import convert_element_type, div, eq, mul
from .shapes import broadcast_in_dim, reshape, transpose


def _identity(kind, dtype):
    """The identity element of a reduction for ``dtype``."""
    if kind == "sum":
        return np.zeros((), dtype)
    if kind == "prod":
        return np.ones((), dtype)
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
            if kind in ("sum", "prod"):
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
reduce_max_p = _reduction("reduce_max", "max", np.max, lowering.maximum, ANY)
reduce_min_p = _reduction("reduce_min", "min", np.min, lowering.minimum, ANY)
reduce_and_p = _reduction("reduce_and", "and", np.bitwise_and, hlo.and_, BOOL + INT)
reduce_or_p = _reduction("reduce_or", "or", np.bitwise_or, hlo.or_, BOOL + INT)
ad.defjvp_zero(reduce_and_p)
ad.defjvp_zero(reduce_or_p)


def _axes(x, axes):
    ndim = get_aval(x).ndim
    if axes is None:
        return tuple(range(ndim))
    return tuple(sorted(_checks.axes(axes, ndim, "axes")))


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
    """Maximum of ``x`` over ``axes`` (NaN propagates; -inf, the least integer or False
    over empty axes)."""
    return reduce_max_p.bind(x, axes=_axes(x, axes))


def reduce_min(x, axes=None):
    """Minimum of ``x`` over ``axes`` (NaN propagates; +inf, the greatest integer or True
    over empty axes)."""
    return reduce_min_p.bind(x, axes=_axes(x, axes))


def _reduce_sum_transpose(cts, x, *, axes):
    shape = x.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return [broadcast_in_dim(cts[0], shape, kept)]


ad.deflinear(reduce_sum_p, _reduce_sum_transpose)


def _chooser_jvp(prim):
    # The tangent of max/min: the mean of the tangents at the positions that attain it.
    def jvp(g, ans, x, *, axes):
        shape = get_aval(x).shape
        kept = tuple(i for i in range(len(shape)) if i not in axes)
        location = eq(x, broadcast_in_dim(ans, shape, kept))
        weights = convert_element_type(location, get_aval(g).dtype)
        counts = reduce_sum(weights, axes)
        return div(reduce_sum(mul(g, weights), axes), counts)
    ad.defjvp2(prim, jvp)


_chooser_jvp(reduce_max_p)
_chooser_jvp(reduce_min_p)


# ---------------------------------------------------------------- reduce_prod

reduce_prod_p = _reduction("reduce_prod", "prod", np.prod, hlo.multiply, NUMBER)


def reduce_prod(x, axes=None):
    """Product of ``x`` over ``axes`` (all axes when None)."""
    return reduce_prod_p.bind(x, axes=_axes(x, axes))


def _tree_prod(x):
    """Product over axis 0 by pairwise multiplication (no division, so zeros are safe);
    written with differentiable lax ops for the JVP rule."""
    from .slicing import pad, slice_in_dim   # deferred: slicing imports reductions
    while get_aval(x).shape[0] > 1:
        n = get_aval(x).shape[0]
        if n % 2:
            x = pad(x, 1, [(0, 1, 0)] + [(0, 0, 0)] * (get_aval(x).ndim - 1))
            n += 1
        x = mul(slice_in_dim(x, 0, n, 2), slice_in_dim(x, 1, n, 2))
    return reshape(x, get_aval(x).shape[1:])


def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    out = reduce_prod_p.bind(x, axes=axes)
    aval = get_aval(x)
    if type(t) is ad.Zero or aval.size == 0 or not axes:
        if type(t) is not ad.Zero and not axes:
            return [out], [t]
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    kept = tuple(i for i in range(aval.ndim) if i not in axes)
    n = int(np.prod([aval.shape[a] for a in axes]))
    shape = (n,) + tuple(aval.shape[i] for i in kept)

    def flat(v):
        return reshape(transpose(v, axes + kept), shape)
    _, (t_out,) = ad.jvp_flat(lambda v: [_tree_prod(v)], [flat(x)], [flat(t)])
    return [out], [t_out]


reduce_prod_p.jvp = _reduce_prod_jvp


# ---------------------------------------------------------------- argmax, argmin

def _argminmax(name, kind):
    p = Primitive(name)
    np_fn = np.argmax if kind == "max" else np.argmin

    def impl(x, *, axes, index_dtype):
        return [np.asarray(np_fn(x, axis=axes[0]).astype(index_dtype))]

    def abstract_eval(x, *, axes, index_dtype):
        check_kinds(name, x, BOOL + INT + FLOAT)
        if dtypes.kind(np.dtype(index_dtype)) not in INT:
            raise TypeError(f"lax.{name}: index_dtype must be an integer dtype, got "
                            f"{np.dtype(index_dtype).name}")
        (axis,) = axes
        if not 0 <= axis < x.ndim:
            raise ValueError(f"lax.{name}: axis {axis} is out of range for an operand of "
                             f"shape {x.shape}")
        if x.shape[axis] == 0:
            raise ValueError(f"lax.{name}: axis {axis} of the operand of shape {x.shape} is "
                             f"empty; an empty sequence has no arg{kind}")
        shape = tuple(s for i, s in enumerate(x.shape) if i != axis)
        return [ShapedArray(shape, np.dtype(index_dtype))]

    def batch(axis_size, args, dims, *, axes, index_dtype):
        (x,), (d,) = args, dims
        axis = axes[0] + (axes[0] >= d)
        return [p.bind(x, axes=(axis,), index_dtype=index_dtype)], [d - (axis < d)]

    def lower(ctx, x, *, axes, index_dtype):
        aval, out = ctx.avals_in[0], ctx.avals_out[0]
        idx_aval = aval.update(dtype=np.dtype(index_dtype))
        iota = hlo.iota(ir_type(idx_aval), ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                              axes[0]))
        op = hlo.ReduceOp([ir_type(out.update(dtype=aval.dtype)), ir_type(out)], [x, iota],
                          [ir_constant(_identity(kind, aval.dtype)),
                           ir_constant(np.zeros((), index_dtype))],
                          ir.DenseI64ArrayAttr.get(list(axes)))
        vt = ir_type(ShapedArray((), aval.dtype))
        it = ir_type(ShapedArray((), np.dtype(index_dtype)))
        block = op.body.blocks.append(vt, it, vt, it)
        with ir.InsertionPoint(block):
            av, ai, bv, bi = block.arguments
            vkind = ("FLOAT" if dtypes.is_inexact(aval.dtype) else
                     "SIGNED" if aval.dtype.kind == "i" else "UNSIGNED")
            ikind = "SIGNED" if np.dtype(index_dtype).kind == "i" else "UNSIGNED"

            def cmp(a, b, direction, ty):
                return hlo.compare(a, b, hlo.ComparisonDirectionAttr.get(direction),
                                   compare_type=hlo.ComparisonTypeAttr.get(ty))
            # a wins: a is NaN and b is not, or a beats b, or they tie (both NaN counts)
            # and a comes first. Commutative, so the reduction order does not matter.
            wins = cmp(av, bv, "GT" if kind == "max" else "LT", vkind)
            ties = cmp(av, bv, "EQ", vkind)
            if dtypes.is_inexact(aval.dtype):
                a_nan, b_nan = cmp(av, av, "NE", vkind), cmp(bv, bv, "NE", vkind)
                b_num = hlo.not_(b_nan)
                wins = hlo.or_(wins, hlo.and_(a_nan, b_num))
                ties = hlo.or_(ties, hlo.and_(a_nan, b_nan))
            first = hlo.and_(ties, cmp(ai, bi, "LT", ikind))
            pick = hlo.or_(wins, first)
            hlo.return_([hlo.select(pick, av, bv), hlo.select(pick, ai, bi)])
        return [op.results[1]]

    p.impl = impl
    p.abstract_eval = abstract_eval
    p.batch = batch
    p.lower = lower
    ad.defjvp_zero(p)

    def public(operand, axis, index_dtype):
        ndim = get_aval(operand).ndim
        if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
            raise ValueError(f"lax.{name}: axis {axis!r} is out of range for an operand of "
                             f"shape {get_aval(operand).shape}")
        try:
            idx = dtypes.canonicalize(index_dtype)
        except TypeError:
            idx = np.dtype(index_dtype)
        return p.bind(operand, axes=(_checks.index(axis) % ndim,), index_dtype=idx)
    public.__name__ = name
    public.__doc__ = (f"Index of the {kind}imum of ``operand`` along ``axis`` (the first one "
                      f"on ties; NaN counts as the {kind}imum, the first NaN wins).")
    return p, public


argmax_p, argmax = _argminmax("argmax", "max")
argmin_p, argmin = _argminmax("argmin", "min")
