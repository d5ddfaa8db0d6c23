"""``lax.associative_scan``: the inclusive prefix combination of an associative function,
in O(log n) rounds of array operations (parallel prefix) instead of ``scan``'s n steps.

Each round combines neighbouring pairs, scans the half-length result recursively, then
fills in the even positions from it. Everything is slicing, padding and the user's
function on whole arrays, so the scan differentiates, batches and compiles as they do.
"""

import numpy as np

from .. import tree_util
from ..core import get_aval
from ..util import canonicalize_axis
from .elementwise import eq, rem, select_n
from .shapes import broadcasted_iota, full
from .slicing import concatenate, pad, rev, slice_in_dim


def associative_scan(fn, elems, reverse=False, axis=0):
    """``[e0, fn(e0, e1), fn(fn(e0, e1), e2), ...]`` along ``axis`` of every leaf of the
    pytree ``elems``, for an associative ``fn`` that combines two pytrees of stacked
    values elementwise (it is called on slices of any length along ``axis``).
    ``reverse=True`` scans from the end."""
    leaves, tree = tree_util.tree_flatten(elems)
    if not leaves:
        raise ValueError("associative_scan: elems has no arrays to scan")
    shapes = [get_aval(x).shape for x in leaves]
    if any(len(s) == 0 for s in shapes):
        raise ValueError("associative_scan: the elements must have at least one axis")
    axis = canonicalize_axis(axis, len(shapes[0]))
    lengths = {s[axis] if axis < len(s) else None for s in shapes}
    if len(lengths) != 1 or None in lengths:
        raise ValueError(f"associative_scan: every leaf of elems needs the same length along "
                         f"axis {axis}, got shapes {shapes}")

    def combine(a, b):
        out = tree_util.tree_leaves(fn(tree_util.tree_unflatten(tree, a),
                                       tree_util.tree_unflatten(tree, b)))
        expect = [get_aval(x).shape[axis] for x in a]
        got = [get_aval(x).shape[axis] if get_aval(x).ndim > axis else None for x in out]
        if len(out) != len(a) or got != expect:
            raise ValueError("associative_scan: fn must return a pytree like its arguments, "
                             "each leaf as long along axis as theirs")
        return out

    def scan(xs):
        n = get_aval(xs[0]).shape[axis]
        if n < 2:
            return xs
        pairs = combine([slice_in_dim(x, 0, n - 1, 2, axis) for x in xs],
                        [slice_in_dim(x, 1, n, 2, axis) for x in xs])
        odd = scan(pairs)   # the prefixes ending at positions 1, 3, 5, ...
        if n % 2 == 0:
            even = combine([slice_in_dim(o, 0, -1, 1, axis) for o in odd],
                           [slice_in_dim(x, 2, n, 2, axis) for x in xs])
        else:
            even = combine(odd, [slice_in_dim(x, 2, n, 2, axis) for x in xs])
        even = [concatenate([slice_in_dim(x, 0, 1, 1, axis), e], axis)
                for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    if reverse:
        leaves = [rev(x, (axis,)) for x in leaves]
    out = scan(leaves)
    if reverse:
        out = [rev(x, (axis,)) for x in out]
    return tree_util.tree_unflatten(tree, out)


def _interleave(even, odd, axis):
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis`` (``even`` as long as
    ``odd`` or one longer)."""
    aval = get_aval(even)
    n_even, n_odd = aval.shape[axis], get_aval(odd).shape[axis]
    zero = np.zeros((), aval.dtype)
    config = [(0, 0, 0)] * aval.ndim
    config[axis] = (0, n_odd - n_even + 1, 1)
    spread_even = pad(even, zero, config)
    config[axis] = (1, n_even - n_odd, 1)
    spread_odd = pad(odd, zero, config)
    shape = get_aval(spread_even).shape
    parity = rem(broadcasted_iota(np.int32, shape, axis), full(shape, 2, np.int32))
    return select_n(eq(parity, full(shape, 1, np.int32)), spread_even, spread_odd)
