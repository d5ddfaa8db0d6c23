"""JAX's ``lax`` operations that are compositions of the primitives: shape helpers
(``broadcast``, ``collapse``, ``stack``, ``tile``, ...), ``reciprocal``, ``mulhi``,
``batch_matmul``, ``index_take``, ``scatter_sub``, the general ``reduce`` and
``reduce_xor``, and the convolution helpers ``conv_general_dilated_patches``,
``conv_shape_tuple`` and ``conv_general_permutations``. Having no rules of their own,
they differentiate, batch and lower through the primitives they are made of."""

import math
import operator

import numpy as np

from .. import _checks, dtypes, tree_util
from ..core import get_aval
from ..interpreters import batching
from ..util import canonicalize_axis
from ._helpers import as_operand, padtype_to_pads
from .convolution import _spec_from_string, conv_general_dilated
from .dot import dot_general
from .elementwise import (add, bitwise_and, bitwise_or, bitwise_xor, convert_element_type,
                          integer_pow, lt, mul, neg, select_n, shift_right_arithmetic,
                          shift_right_logical, sub)
from .elementwise import max as lax_max
from .elementwise import min as lax_min
from .reductions import reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod, reduce_sum
from .shapes import broadcast_in_dim, expand_dims, full, reshape, transpose
from .slicing import (GatherDimensionNumbers, concatenate, gather, index_in_dim, scatter_add,
                      slice_in_dim)


# ---------------------------------------------------------------- shapes

def broadcast(operand, sizes):
    """``operand`` with new leading axes of ``sizes``."""
    sizes = _checks.shape(sizes, "lax.broadcast: sizes")
    shape = get_aval(operand).shape
    n = len(sizes)
    return broadcast_in_dim(operand, sizes + shape, tuple(range(n, n + len(shape))))


def broadcast_to_rank(x, rank):
    """``x`` with leading axes of length 1 added up to rank ``rank`` (unchanged if its
    rank is already that or more)."""
    ndim = get_aval(x).ndim
    rank = _checks.index(rank, "rank")
    return x if ndim >= rank else broadcast(x, (1,) * (rank - ndim))


def broadcast_shapes(*shapes):
    """The shape NumPy's broadcasting gives ``shapes``."""
    return tuple(int(n) for n in np.broadcast_shapes(*[_checks.shape(s, "lax.broadcast_shapes")
                                                        for s in shapes]))


def collapse(operand, start_dimension, stop_dimension=None):
    """``operand`` with its axes ``start_dimension:stop_dimension`` merged into one."""
    shape = get_aval(operand).shape
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"lax.collapse: the axis range {start_dimension}:{stop_dimension} "
                         f"is empty or reversed for an operand of shape {shape}")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def full_like(x, fill_value, dtype=None, shape=None):
    """An array like ``x`` (its dtype and weak type, and shape unless given) filled with
    ``fill_value``."""
    aval = get_aval(x)
    shape = aval.shape if shape is None else _checks.shape(shape, "lax.full_like: shape")
    if dtype is None:
        return full(shape, fill_value, aval.dtype, aval.weak_type)
    return full(shape, fill_value, dtype)


def empty(shape, dtype):
    """An array of ``shape`` and ``dtype`` whose values are unspecified (zeros here)."""
    return full(shape, 0, dtype)


def stack(operands, axis=0):
    """The ``operands`` (one shape and dtype) joined along a new axis ``axis``."""
    operands = list(operands)
    if not operands:
        raise ValueError("lax.stack needs at least one operand")
    axis = canonicalize_axis(axis, get_aval(operands[0]).ndim + 1)
    return concatenate([expand_dims(x, (axis,)) for x in operands], axis)


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    shape = get_aval(x).shape
    axis = canonicalize_axis(axis, len(shape))
    return tuple(index_in_dim(x, i, axis, keepdims=False) for i in range(shape[axis]))


def tile(operand, reps):
    """``operand`` repeated ``reps[i]`` times along each axis ``i`` (one entry per axis)."""
    shape = get_aval(operand).shape
    reps = _checks.int_sequence(reps, "reps")
    if len(reps) != len(shape):
        raise TypeError(f"lax.tile: reps must have one entry per axis of the operand "
                        f"(shape {shape}), got {reps}")
    if any(r < 0 for r in reps):
        raise ValueError(f"lax.tile: reps must be non-negative, got {reps}")
    # (r, n) pairs broadcast, then merged: the whole operand repeated along each axis
    pairs = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    out = broadcast_in_dim(operand, pairs, tuple(range(1, 2 * len(shape), 2)))
    return reshape(out, tuple(r * n for r, n in zip(reps, shape)))


# ---------------------------------------------------------------- arithmetic

def reciprocal(x):
    """``1 / x`` elementwise (floating-point and complex ``x``)."""
    return integer_pow(x, -1)


def mulhi(x, y):
    """The high half of the bits of the integer products ``x * y`` (the product taken
    at twice the width: signed for signed dtypes)."""
    x, y = as_operand(x), as_operand(y)
    dtype = get_aval(x).dtype
    if dtype.kind not in "iu" or get_aval(y).dtype != dtype:
        raise TypeError(f"lax.mulhi takes two integer operands of one dtype, got "
                        f"{get_aval(x).str_short()} and {get_aval(y).str_short()}")
    bits = dtype.itemsize * 8
    if bits < 64:
        wide = np.dtype(f"{dtype.kind}{2 * dtype.itemsize}")
        product = mul(convert_element_type(x, wide), convert_element_type(y, wide))
        shift = full(get_aval(product).shape, bits, wide)
        return convert_element_type(shift_right_arithmetic(product, shift) if dtype.kind == "i"
                                    else shift_right_logical(product, shift), dtype)
    # 64 bits: the unsigned product from 32-bit halves, then the signed correction
    u64 = np.dtype(np.uint64)
    a, b = convert_element_type(x, u64), convert_element_type(y, u64)
    shape = get_aval(a).shape
    low_mask, n32 = full(shape, 0xFFFFFFFF, u64), full(shape, 32, u64)
    a_lo, a_hi = bitwise_and(a, low_mask), shift_right_logical(a, n32)
    b_lo, b_hi = bitwise_and(b, low_mask), shift_right_logical(b, n32)
    hi_lo, lo_hi = mul(a_hi, b_lo), mul(a_lo, b_hi)
    cross = add(add(shift_right_logical(mul(a_lo, b_lo), n32), bitwise_and(hi_lo, low_mask)),
                lo_hi)
    high = add(add(shift_right_logical(hi_lo, n32), shift_right_logical(cross, n32)),
               mul(a_hi, b_hi))
    if dtype.kind == "u":
        return high
    zero = full(shape, 0, u64)
    high = sub(high, select_n(lt(x, full(shape, 0, dtype)), zero, b))
    high = sub(high, select_n(lt(y, full(shape, 0, dtype)), zero, a))
    return convert_element_type(high, dtype)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the last two axes, the leading axes being batch axes of
    equal lengths."""
    la, ra = get_aval(lhs), get_aval(rhs)
    if la.ndim != ra.ndim or la.ndim < 2:
        raise TypeError(f"lax.batch_matmul needs operands of one rank, at least 2, got "
                        f"shapes {la.shape} and {ra.shape}")
    if la.shape[:-2] != ra.shape[:-2]:
        raise TypeError(f"lax.batch_matmul needs equal batch axes, got shapes {la.shape} "
                        f"and {ra.shape}")
    batch = tuple(range(la.ndim - 2))
    return dot_general(lhs, rhs, (((la.ndim - 1,), (ra.ndim - 2,)), (batch, batch)),
                       precision)


# ---------------------------------------------------------------- indexing

def index_take(src, idxs, axes):
    """``src`` indexed along ``axes`` by the 1-D index arrays ``idxs`` (one per axis,
    read modulo the axis length): the result's first axis runs over the indices."""
    axes = tuple(canonicalize_axis(a, get_aval(src).ndim) for a in axes)
    shape = get_aval(src).shape
    if len(idxs) != len(axes):
        raise ValueError(f"lax.index_take: one index array per axis, got {len(idxs)} index "
                         f"arrays for axes {axes}")
    columns = []
    for i, a in zip(idxs, axes):
        i = as_operand(i)
        columns.append(expand_dims(i % shape[a], (1,)))
    indices = concatenate(columns, 1)
    sizes = tuple(1 if d in axes else n for d, n in enumerate(shape))
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, len(shape) - len(axes) + 1)),
                                   collapsed_slice_dims=tuple(sorted(axes)),
                                   start_index_map=axes)
    return gather(src, indices, dnums, sizes)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """``scatter`` that subtracts the updates (duplicates accumulate)."""
    return scatter_add(operand, scatter_indices, neg(updates), dimension_numbers,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                       mode=mode)


# ---------------------------------------------------------------- reductions

# computations that are a reduction primitive (for the booleans only, bitwise and/or)
_MONOIDS = {add: reduce_sum, mul: reduce_prod, lax_max: reduce_max, lax_min: reduce_min}
_BOOLEAN_MONOIDS = {bitwise_and: reduce_and, bitwise_or: reduce_or}


def reduce(operands, init_values, computation, dimensions):
    """Reduce ``operands`` (an array or a pytree of arrays of one shape) over
    ``dimensions`` with ``computation(x, y)``, an associative function of two pytrees
    like ``operands`` of scalars, starting from ``init_values`` (scalars, one per
    operand). Elements are combined pairwise, as a balanced tree."""
    flat, tree = tree_util.tree_flatten(operands)
    inits, init_tree = tree_util.tree_flatten(init_values)
    if tree != init_tree:
        raise TypeError(f"lax.reduce: operands and init_values must have one structure, got "
                        f"{tree} and {init_tree}")
    if not flat:
        raise ValueError("lax.reduce needs at least one operand")
    flat = [as_operand(x) for x in flat]
    shape = get_aval(flat[0]).shape
    if any(get_aval(x).shape != shape for x in flat):
        raise ValueError(f"lax.reduce: operands must have one shape, got "
                         f"{[get_aval(x).shape for x in flat]}")
    inits = [_init_value(v, get_aval(x).dtype) for v, x in zip(inits, flat)]
    dims = tuple(sorted(_checks.axes(dimensions, len(shape), "dimensions")))
    if len(flat) == 1:
        fast = _MONOIDS.get(computation)
        if fast is None and get_aval(flat[0]).dtype == np.bool_:
            fast = _BOOLEAN_MONOIDS.get(computation)
        if fast is not None:
            out = fast(flat[0], dims)
            return computation(broadcast_in_dim(inits[0], get_aval(out).shape, ()), out)

    kept = tuple(d for d in range(len(shape)) if d not in dims)
    n = math.prod(shape[d] for d in dims)
    out_shape = tuple(shape[d] for d in kept)
    size = math.prod(out_shape)
    # (size, n) per operand: the reduced axes last, then halved until one column is left
    cols = [reshape(transpose(x, kept + dims), (size, n)) for x in flat]

    def combine(xs, ys, width):
        """``computation`` elementwise on matching (size, width) columns."""
        def scalar_fn(*args):
            a = tree_util.tree_unflatten(tree, args[:len(flat)])
            b = tree_util.tree_unflatten(tree, args[len(flat):])
            out, out_tree = tree_util.tree_flatten(computation(a, b))
            if out_tree != tree:
                raise TypeError(f"lax.reduce: computation must return the structure of the "
                                f"operands, {tree}; it returned {out_tree}")
            return out
        args = [reshape(v, (size * width,)) for v in (*xs, *ys)]
        outs = batching.vmap_flat(scalar_fn, size * width, args, [0] * len(args),
                                  lambda k: [0] * k)
        return [reshape(o, (size, width)) for o in outs]

    while n > 1:
        half = n // 2
        left = [slice_in_dim(c, 0, half, axis=1) for c in cols]
        right = [slice_in_dim(c, half, 2 * half, axis=1) for c in cols]
        merged = combine(left, right, half)
        if n % 2:
            merged = [concatenate([m, slice_in_dim(c, n - 1, n, axis=1)], 1)
                      for m, c in zip(merged, cols)]
        cols, n = merged, half + n % 2
    start = [broadcast_in_dim(v, (size, 1), ()) for v in inits]
    if n == 1:
        cols = combine(start, cols, 1)
    else:   # nothing to reduce over: the initial values
        cols = start
    outs = [reshape(c, out_shape) for c in cols]
    return tree_util.tree_unflatten(tree, outs)


def _init_value(v, dtype):
    """An initial value as a scalar of its operand's ``dtype`` (a Python number is
    converted; an array must have that dtype already)."""
    weak = type(v) in (bool, int, float, complex)
    v = as_operand(v)
    aval = get_aval(v)
    if aval.shape != ():
        raise ValueError(f"lax.reduce: init_values must be scalars, got {aval.str_short()}")
    if not weak and aval.dtype != dtype:
        raise TypeError(f"lax.reduce: an init value of dtype {aval.dtype} for an operand of "
                        f"dtype {dtype}; pass init_values of the operands' dtypes")
    return convert_element_type(v, dtype)


def reduce_xor(operand, axes):
    """Bitwise (for booleans, logical) exclusive or of ``operand`` over ``axes``."""
    operand = as_operand(operand)
    dtype = get_aval(operand).dtype
    if dtype.kind not in "biu":
        raise TypeError(f"lax.reduce_xor takes booleans or integers, got "
                        f"{get_aval(operand).str_short()}")
    return reduce(operand, np.zeros((), dtype), bitwise_xor, axes)


# ---------------------------------------------------------------- convolution helpers

def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                                 precision=None, preferred_element_type=None):
    """The patches ``conv_general_dilated`` with a filter of spatial ``filter_shape``
    would see: the output's feature axis holds, for each input feature, the filter
    window's elements in row-major order."""
    aval = get_aval(lhs)
    filter_shape = _checks.int_sequence(filter_shape, "filter_shape")
    if aval.ndim != len(filter_shape) + 2:
        raise ValueError(f"lax.conv_general_dilated_patches: filter_shape needs one entry "
                         f"per spatial axis of lhs (shape {aval.shape}), got {filter_shape}")
    if dimension_numbers is None:
        lhs_spec = tuple(range(aval.ndim))
        dn = None
    else:
        lhs_string, rhs_string, out_string = dimension_numbers
        lhs_spec = _spec_from_string(lhs_string, "NC", rhs_string, "lhs")
        dn = dimension_numbers
    features = aval.shape[lhs_spec[1]]
    window = math.prod(filter_shape)
    # an identity filter per input feature: output feature c * window + k is element k of
    # input feature c's window
    eye = np.eye(window, dtype=aval.dtype).reshape((window, 1) + tuple(filter_shape))
    rhs = np.tile(eye, (features,) + (1,) * (len(filter_shape) + 1))
    if dn is not None:
        _, rhs_string, _ = dn
        rhs_spec = _spec_from_string(rhs_string, "OI", rhs_string, "rhs")
        rhs = np.transpose(rhs, np.argsort(rhs_spec))
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
                                rhs_dilation, dn, feature_group_count=features,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape ``(batch, features, *spatial)`` of a convolution of operands in
    the ``NC...``/``OI...`` layouts, with ``pads`` a (low, high) pair per spatial axis or
    a padding name."""
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    strides = tuple(operator.index(s) for s in strides)
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    pads = [tuple(p) for p in pads]
    if len(pads) != len(lhs_shape) - 2:
        raise ValueError(f"lax.conv_shape_tuple: one padding pair per spatial axis "
                         f"({len(lhs_shape) - 2}), got {pads}")
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    space = [max(0, (p - k) // s + 1) for p, k, s in zip(padded, rhs_shape[2:], strides)]
    if lhs_shape[0] % batch_group_count:
        raise ValueError(f"lax.conv_shape_tuple: the batch {lhs_shape[0]} is not a multiple "
                         f"of batch_group_count={batch_group_count}")
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *space)


def conv_general_permutations(dimension_numbers):
    """The axis permutations ``(lhs, rhs, out)`` into the ``NC...``/``OI...`` layouts that
    three layout strings such as ``('NHWC', 'HWIO', 'NHWC')`` describe."""
    lhs_s, rhs_s, out_s = dimension_numbers
    return (_spec_from_string(lhs_s, "NC", rhs_s, "lhs"),
            _spec_from_string(rhs_s, "OI", rhs_s, "rhs"),
            _spec_from_string(out_s, "NC", rhs_s, "output"))


def dtype(x):
    """The dtype of the value (or the type, or the dtype name) ``x``: minijax's dtype for
    Python scalars and their types."""
    if isinstance(x, (type, str, np.dtype)):
        return dtypes.canonicalize(np.dtype(x))
    return get_aval(x).dtype
