"""Sorting: ``sort`` (several operands by several keys), ``sort_key_val``, ``top_k``.

Order (NumPy's, as in JAX): numbers ascending, NaNs (of any sign) last, -0.0 and
0.0 tie (a stable sort keeps their input order), False before True. Complex numbers
sort by (real, imag) lexicographically; those with a NaN part come after all others,
as in NumPy: [R + Rj, R + nanj, nan + Rj, nan + nanj] (which differs from JAX, whose
order is lexicographic with NaN last in each part).

Derivatives permute the tangents with the sort's permutation (or pick them with
top_k's indices) by a take_along_axis-style ``lax.gather``, whose transpose is a
``scatter_add``. ``sort_p`` is also linear in its non-key operands and has a
transpose rule for them (keys known).
"""

import operator

import numpy as np

from .. import dtypes
from ..errors import ShapeMismatchError
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import chlo, hlo, ir, ir_type
from ..util import canonicalize_axis
from ._helpers import ANY, FLOAT, INT, check_kinds
from .shapes import broadcasted_iota, expand_dims, full
from .slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    gather,
    scatter_add,
)

# ---------------------------------------------------------------- sort

sort_p = Primitive("sort", multiple_results=True)


def _sort_dimension(name, dimension, ndim):
    try:
        return canonicalize_axis(dimension, ndim, "dimension")
    except Exception as e:
        raise type(e)(f"lax.{name}: {e}") from None


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort ``operand`` (an array, or a sequence of arrays of one shape sorted together
    by their first ``num_keys`` arrays, lexicographically) along ``dimension``.

    The order is NumPy's: NaNs last, -0.0 and 0.0 equal (see the module docstring).
    Returns an array for an array operand, a tuple for a sequence.
    """
    single = not isinstance(operand, (tuple, list))
    operands = (operand,) if single else tuple(operand)
    if not operands:
        raise TypeError("lax.sort requires at least one operand")
    ndim = get_aval(operands[0]).ndim
    if ndim == 0:
        raise ValueError("lax.sort requires operands of rank >= 1, got a rank-0 operand")
    dimension = _sort_dimension("sort", dimension, ndim)
    outs = sort_p.bind(*operands, dimension=dimension, is_stable=bool(is_stable),
                       num_keys=operator.index(num_keys))
    return outs[0] if single else tuple(outs)


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """Sort ``keys`` along ``dimension`` and permute ``values`` alike."""
    k, v = sort((keys, values), dimension, is_stable, num_keys=1)
    return k, v


def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise TypeError("lax.sort requires at least one operand")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"lax.sort: num_keys must be between 1 and the number of operands "
                         f"({len(operands)}), got {num_keys}")
    shape = operands[0].shape
    for i, a in enumerate(operands):
        check_kinds("sort", a, ANY, f"operand {i}")
        if a.shape != shape:
            raise ShapeMismatchError(f"lax.sort requires operands of one shape, got "
                             f"{', '.join(str(x.shape) for x in operands)}")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"lax.sort: dimension {dimension} is out of range for operands of "
                         f"shape {shape}")
    return [ShapedArray(a.shape, a.dtype, a.weak_type) for a in operands]


def _sort_permutation(keys, dimension):
    """Indices that sort ``keys`` (most significant first) stably along ``dimension``."""
    parts = []
    for k in keys:
        if k.dtype.kind == "c":
            parts += [np.isnan(k.real), np.isnan(k.imag), k.real, k.imag]
        elif k.dtype == dtypes.bfloat16:
            parts.append(k.astype(np.float32))   # NumPy cannot sort bfloat16 itself
        else:
            parts.append(k)
    if len(parts) == 1:
        return np.argsort(parts[0], axis=dimension, kind="stable")
    return np.lexsort(parts[::-1], axis=dimension)


def _sort_impl(*operands, dimension, is_stable, num_keys):
    perm = _sort_permutation(operands[:num_keys], dimension)
    return [np.take_along_axis(x, perm, axis=dimension) for x in operands]


def _compare(x, y, direction, kind):
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get(kind))


def _isnan(x):
    return _compare(x, x, "NE", "FLOAT")


def _key_lt_eq(x, y, dtype):
    """(x < y, x == y) in the sort order, on rank-0 values of ``dtype``."""
    if dtypes.kind(dtype) == "f":
        x_nan, y_nan = _isnan(x), _isnan(y)
        lt = hlo.or_(_compare(x, y, "LT", "FLOAT"), hlo.and_(y_nan, hlo.not_(x_nan)))
        eq = hlo.or_(_compare(x, y, "EQ", "FLOAT"), hlo.and_(x_nan, y_nan))
        return lt, eq
    kind = "SIGNED" if dtypes.kind(dtype) == "i" else "UNSIGNED"
    return _compare(x, y, "LT", kind), _compare(x, y, "EQ", kind)


def _sort_lower(ctx, *operands, dimension, is_stable, num_keys):
    avals = ctx.avals_in
    op = hlo.SortOp([ir_type(a) for a in ctx.avals_out], list(operands),
                    dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension),
                    is_stable=ir.BoolAttr.get(is_stable))
    scalars = [ir_type(ShapedArray((), a.dtype)) for a in avals]
    block = op.regions[0].blocks.append(*[t for t in scalars for _ in range(2)])
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        keys = []   # (x, y, dtype), most significant first
        for i in range(num_keys):
            x, y, dtype = args[2 * i], args[2 * i + 1], avals[i].dtype
            if dtype.kind == "c":
                part = np.finfo(dtype).dtype
                re_x, re_y, im_x, im_y = hlo.real(x), hlo.real(y), hlo.imag(x), hlo.imag(y)
                keys += [(_isnan(re_x), _isnan(re_y), np.bool_),
                         (_isnan(im_x), _isnan(im_y), np.bool_),
                         (re_x, re_y, part), (im_x, im_y, part)]
            else:
                keys.append((x, y, dtype))
        result = None
        for x, y, dtype in reversed(keys):
            lt, eq = _key_lt_eq(x, y, np.dtype(dtype))
            result = lt if result is None else hlo.or_(lt, hlo.and_(eq, result))
        hlo.return_([result])
    return list(op.results)


def _iota_like(aval, dimension):
    return broadcasted_iota(np.int32, aval.shape, dimension)


def _along_axis_dnums(ndim, dimension):
    """Gather/scatter dimension numbers picking, at each position of an index array
    shaped like the operand except along ``dimension``, the operand element its index
    names along ``dimension`` (NumPy's take_along_axis / put_along_axis)."""
    batch = tuple(i for i in range(ndim) if i != dimension)
    return (GatherDimensionNumbers((), (dimension,), (dimension,), batch, batch),
            ScatterDimensionNumbers((), (dimension,), (dimension,), batch, batch))


def _take_along(x, idx, dimension):
    """``x`` at the in-bounds, distinct indices ``idx`` along ``dimension``."""
    ndim = get_aval(x).ndim
    dnums, _ = _along_axis_dnums(ndim, dimension)
    return gather(x, expand_dims(idx, (ndim,)), dnums, (1,) * ndim, unique_indices=True,
                  mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    aval = get_aval(primals[0])
    iota = _iota_like(aval, dimension)
    *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                              num_keys=num_keys)
    # out[j] = x[perm[j]] along dimension, and so do the tangents.
    t_outs = [ad.Zero(ad.tangent_aval(get_aval(o))) if type(t) is ad.Zero
              else _take_along(t, perm, dimension) for o, t in zip(outs, tangents)]
    return outs, t_outs


def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
    keys = operands[:num_keys]
    if any(ad.is_undefined(k) for k in keys):
        raise NotImplementedError("lax.sort is linear only in its non-key operands; its keys "
                                  "cannot be transposed")
    undefined = [i for i in range(num_keys, len(operands)) if ad.is_undefined(operands[i])]
    result = [None] * len(operands)
    if not undefined:
        return result
    aval = get_aval(keys[0])
    iota = _iota_like(aval, dimension)
    perm = sort_p.bind(*keys, iota, dimension=dimension, is_stable=is_stable,
                       num_keys=num_keys)[-1]
    # The forward op moved x[perm[j]] to j; move ct[j] back to perm[j].
    _, dnums = _along_axis_dnums(aval.ndim, dimension)
    idx = expand_dims(perm, (aval.ndim,))
    for i in undefined:
        zeros = full(aval.shape, 0, operands[i].aval.dtype)
        result[i] = scatter_add(zeros, idx, ad.instantiate(cts[i]), dnums,
                                unique_indices=True, mode=GatherScatterMode.PROMISE_IN_BOUNDS)
    return result


def _sort_batch(axis_size, args, dims, *, dimension, is_stable, num_keys):
    args = [batching.move_axis_to(axis_size, x, d, 0) for x, d in zip(args, dims)]
    outs = sort_p.bind(*args, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return outs, [0] * len(outs)


sort_p.impl = _sort_impl
sort_p.abstract_eval = _sort_abstract_eval
sort_p.lower = _sort_lower
sort_p.jvp = _sort_jvp
sort_p.transpose = _sort_transpose
sort_p.batch = _sort_batch


# ---------------------------------------------------------------- top_k

top_k_p = Primitive("top_k", multiple_results=True)


def top_k(operand, k):
    """The ``k`` largest entries along the last axis, largest first, and their int32
    indices; equal values come in index order.

    Floats are ranked as XLA and JAX rank them, by IEEE-754 totalOrder: NaN above
    inf, 0.0 above -0.0, and NaNs with the sign bit set (such as ``-np.nan``) below
    -inf.
    """
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"lax.top_k: k must be an int, got {k!r}") from None
    values, indices = top_k_p.bind(operand, k=k)
    return values, indices


def _top_k_abstract_eval(x, *, k):
    check_kinds("top_k", x, INT + FLOAT)
    if x.ndim == 0:
        raise ValueError("lax.top_k requires an operand of rank >= 1, got a rank-0 operand")
    if not 0 <= k <= x.shape[-1]:
        raise ValueError(f"lax.top_k: k={k} must be between 0 and the size of the last axis "
                         f"of the operand (shape {x.shape})")
    shape = x.shape[:-1] + (k,)
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.dtype(np.int32))]


def _total_order_key(x):
    """Integers ordered as IEEE-754 totalOrder orders the floats ``x`` (-NaN < -inf <
    ... < -0.0 < 0.0 < ... < inf < NaN); integer operands are their own keys."""
    if dtypes.kind(x.dtype) != "f":
        return x
    bits = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _top_k_impl(x, *, k):
    n = x.shape[-1]
    # Descending with ties in index order: a stable ascending sort of the reversed
    # axis, read backwards.
    keys = _total_order_key(x)[..., ::-1]
    order = (n - 1) - np.argsort(keys, axis=-1, kind="stable")[..., ::-1]
    idx = order[..., :k]
    return [np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)]


def _top_k_lower(ctx, x, *, k):
    op = chlo.TopKOp(x, k, results=[ir_type(a) for a in ctx.avals_out])
    return list(op.results)


def _top_k_jvp(primals, tangents, *, k):
    (x,), (t,) = primals, tangents
    values, indices = top_k_p.bind(x, k=k)
    if type(t) is ad.Zero:
        return [values, indices], [ad.Zero(ad.tangent_aval(get_aval(values))),
                                   ad.Zero(ad.tangent_aval(get_aval(indices)))]
    t_values = _take_along(t, indices, get_aval(x).ndim - 1)
    return [values, indices], [t_values, ad.Zero(ad.tangent_aval(get_aval(indices)))]


def _top_k_batch(axis_size, args, dims, *, k):
    (x,), (d,) = args, dims
    if d == get_aval(x).ndim - 1:
        x, d = batching.moveaxis(x, d, 0), 0
    return top_k_p.bind(x, k=k), [d, d]


top_k_p.impl = _top_k_impl
top_k_p.abstract_eval = _top_k_abstract_eval
top_k_p.lower = _top_k_lower
top_k_p.jvp = _top_k_jvp
top_k_p.batch = _top_k_batch
