"""Manipulation functions (Array API chapter "Manipulation Functions"):
reshape, transpose, expand_dims, squeeze, broadcasting, concatenation, stacking,
splitting, tiling, flipping, rolling, padding, diagonals and trace."""

import builtins as _builtins
import math
import operator
import warnings

import numpy as np

from .. import _checks, lax
from .. import dtypes as _dtypes
from ..core import Tracer, concretization_error, get_aval, get_concrete
from ..runtime.array import Array
from ..util import canonicalize_axis
from ._out import supports_out
from .._mutation import derived_view, new_object, read_only_view
from ._core import broadcast_shapes as _broadcast_shapes
from ._core import cast_dtype, concrete_value, flat_or_axis, to_array
from ._core import promote as _promote
from ._indexing import _mode_indices, _update, take
from ._searching import true_positions


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (both flattened when ``axis`` is None)."""
    if axis is None:
        return concatenate([reshape(arr, (-1,)), reshape(values, (-1,))], 0)
    return concatenate([arr, values], axis)


def shape(a):
    t = type(a)
    if t is Array or t is np.ndarray:
        return a.shape
    return get_aval(to_array(a)).shape


def ndim(a):
    t = type(a)
    if t is Array or t is np.ndarray:
        return a.ndim
    return get_aval(to_array(a)).ndim


def size(a, axis=None):
    t = type(a)
    if axis is None and (t is Array or t is np.ndarray):
        return a.size
    s = shape(a)
    if axis is None:
        return math.prod(s)
    return math.prod(s[i] for i in _checks.axes(axis, len(s)))


def _read_order(order, reshaping):
    """``"C"`` or ``"F"``, the order NumPy's ``reshape``/``ravel`` read elements in for
    ``order``: "A" (and "K", for ``ravel`` only) is C, as minijax arrays are C-ordered."""
    if order is None:
        return "C"
    if not isinstance(order, str):
        raise TypeError(f"order must be str, not {type(order).__name__}")
    upper = order.upper()
    if upper not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if upper == "K" and reshaping:
        raise ValueError("order 'K' is not permitted for reshaping")
    return "F" if upper == "F" else "C"


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """``a`` with a new shape (one entry may be -1), its elements read and placed in C
    (row-major) or, with ``order="F"``, Fortran (column-major) order."""
    order = _read_order(order, reshaping=True)
    if newshape is not None:
        if shape is not None:
            raise TypeError("You cannot specify 'newshape' and 'shape' arguments at the same "
                            "time.")
        warnings.warn("reshape: the newshape= keyword is deprecated (NumPy 2.1); use shape=",
                      DeprecationWarning, stacklevel=2)
        shape = newshape
    if shape is None:
        raise TypeError("reshape() missing required argument 'shape' (pos 2)")
    a = to_array(a)
    aval = get_aval(a)
    if isinstance(shape, bool):
        raise TypeError(f"expected a sequence of integers or a single integer, got '{shape}'")
    if isinstance(shape, (int, np.integer)) or getattr(shape, "ndim", None) == 0:
        shape = (shape,)   # one size (a 0-d array too: concrete, or a clear error)
    shape = _checks.int_sequence(shape, "shape")
    if any(d < -1 for d in shape):
        raise ValueError(f"reshape: shape {shape} has a negative dimension other than -1")
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension (-1) in reshape")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or aval.size % known:
            raise ValueError(f"cannot reshape array of size {aval.size} into shape {shape}")
        shape = tuple(aval.size // known if d == -1 else d for d in shape)
    if math.prod(shape) != aval.size:
        raise ValueError(f"cannot reshape array of size {aval.size} into shape {shape}")
    if order == "F":   # (Fortran order is C order of the reversed axes)
        reversed_in = tuple(range(aval.ndim))[::-1]
        reversed_out = tuple(range(len(shape)))[::-1]
        return lax.transpose(lax.reshape(lax.transpose(a, reversed_in), shape[::-1]),
                             reversed_out)
    if copy or getattr(a, "_view_of", None) is not None:
        return lax.reshape(a, shape)   # (a copy; NumPy's reshape of a view may be one)
    return _reshaped_view(a, shape)


def _reshaped_view(a, shape):
    """``a`` reshaped, recorded under a transformation as a view of ``a`` (as NumPy's
    reshape of a contiguous array is), so that writes into it reach ``a``."""
    own = get_aval(a).shape
    return derived_view(lax.reshape(a, shape), a, lambda base: lax.reshape(base, shape),
                        lambda base, value: lax.reshape(value, own))


def ravel(a, order="C"):
    return reshape(a, (-1,), _read_order(order, reshaping=False))


def transpose(a, axes=None):
    """Permute axes (reverse them by default)."""
    a = to_array(a)
    nd = get_aval(a).ndim
    if axes is None:
        axes = tuple(range(nd))[::-1]
    if not isinstance(axes, (tuple, list, np.ndarray)) and hasattr(axes, "__index__"):
        if nd != 1:
            raise ValueError(f"axes don't match array: one axis given for an array of "
                             f"dimension {nd}")
    axes = _checks.axes(axes, nd, "axes", allow_duplicates=True)
    if sorted(axes) != list(range(nd)):
        raise ValueError(f"axes {axes} don't match array of dimension {nd}")
    return _permuted(a, tuple(axes))


def _permuted(a, perm):
    """``a``'s axes permuted, recorded under a transformation as a view of ``a`` (as
    NumPy's transposes are), so that writes into it reach ``a``."""
    inverse = tuple(int(i) for i in np.argsort(perm))
    return derived_view(lax.transpose(a, perm), a, lambda base: lax.transpose(base, perm),
                        lambda base, value: lax.transpose(value, inverse))


def permute_dims(a, axes=None):
    """``transpose`` (axes reversed when ``axes`` is None, as NumPy's)."""
    return transpose(a, axes)


def moveaxis(a, source, destination):
    a = to_array(a)
    nd = get_aval(a).ndim
    src = _checks.axes(source, nd, "source")
    dst = _checks.axes(destination, nd, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _permuted(a, tuple(order))


def swapaxes(a, axis1, axis2):
    a = to_array(a)
    nd = get_aval(a).ndim
    perm = list(range(nd))
    i, j = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return _permuted(a, tuple(perm))


def expand_dims(a, axis):
    a = to_array(a)
    count = len(axis) if isinstance(axis, (tuple, list)) else 1
    out_ndim = get_aval(a).ndim + count
    axes = _checks.axes(axis, out_ndim, allow_duplicates=True)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis in expand_dims")
    shape = list(get_aval(a).shape)
    for d in sorted(axes):
        shape.insert(d, 1)
    return _reshaped_view(a, tuple(shape))


def squeeze(a, axis=None):
    a = to_array(a)
    s = get_aval(a).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(s) if d == 1)
    else:
        axes = _checks.axes(axis, len(s))
        for x in axes:
            if s[x] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 "equal to one")
    return _reshaped_view(a, tuple(d for i, d in enumerate(s) if i not in axes))


def broadcast_to(array, shape, subok=False):
    """``array`` broadcast to ``shape`` (a read-only view eagerly, as NumPy's; ``subok``
    has nothing to pass through: minijax has no array subclasses)."""
    a = to_array(array)
    shape = _checks.shape(shape)
    src = get_aval(a).shape
    if _broadcast_shapes(src, shape, name="input") != tuple(shape):
        raise ValueError(f"cannot broadcast an array of shape {src} to shape {tuple(shape)}")
    return lax.broadcast_to_shape(a, tuple(shape))


def _each(one):
    # NumPy's atleast_nd(*arys): the array for one argument, else a tuple of them
    def atleast(*arys):
        out = tuple(one(to_array(a)) for a in arys)
        return out[0] if len(out) == 1 else out
    atleast.__name__ = atleast.__qualname__ = one.__name__
    atleast.__doc__ = one.__doc__
    return atleast


@_each
def atleast_1d(a):
    """Each argument with at least one dimension (a tuple for more than one)."""
    return reshape(a, (1,)) if get_aval(a).ndim == 0 else a


@_each
def atleast_2d(a):
    """Each argument with at least two dimensions (a tuple for more than one)."""
    nd = get_aval(a).ndim
    return reshape(a, (1,) * (2 - nd) + get_aval(a).shape) if nd < 2 else a


def slice_axis(x, start, stop, axis):
    aval = get_aval(x)
    if start == 0 and stop == aval.shape[axis]:
        return x
    starts = [0] * aval.ndim
    stops = list(aval.shape)
    starts[axis], stops[axis] = start, stop
    return lax.slice(x, starts, stops)


def _concat(arrays, axis):
    arrays = list(arrays)
    if len(arrays) == 1:
        return arrays[0]
    return lax.concatenate(arrays, axis)


@supports_out(casting="same_kind")
def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join arrays along an existing ``axis`` (``None``: flatten them first)."""
    arrays = [to_array(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    dtype = cast_dtype(arrays, dtype, casting)
    arrays = _promote(*arrays) if dtype is None else _promote(*arrays, dtype=dtype)
    nd = get_aval(arrays[0]).ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = canonicalize_axis(axis, nd)
    for a in arrays[1:]:
        s0, s = get_aval(arrays[0]).shape, get_aval(a).shape
        if len(s) != nd or any(x != y for i, (x, y) in enumerate(zip(s0, s)) if i != axis):
            raise ValueError(f"all the input array dimensions except for the concatenation "
                             f"axis must match exactly, got shapes {s0} and {s}")
    return _concat(arrays, axis)


def concat(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Array API name of ``concatenate`` (NumPy's keywords too)."""
    return concatenate(arrays, axis, out, dtype=dtype, casting=casting)


def _stack_sequence(arrays):
    if not isinstance(arrays, (list, tuple)) and not (
            hasattr(arrays, "__getitem__") and hasattr(arrays, "__len__")):
        raise TypeError('arrays to stack must be passed as a "sequence" type such as list or '
                        'tuple.')
    return arrays


@supports_out(casting="same_kind")
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join arrays of one shape along a new ``axis``."""
    arrays = [to_array(a) for a in _stack_sequence(arrays)]
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {get_aval(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = canonicalize_axis(axis, get_aval(arrays[0]).ndim + 1)
    return concatenate([lax.expand_dims(a, (axis,)) for a in arrays], axis, out, dtype=dtype,
                       casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays vertically (along the first axis, 1-d arrays as rows)."""
    return concatenate([atleast_2d(a) for a in _stack_sequence(tup)], 0, dtype=dtype,
                       casting=casting)



def hstack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays horizontally (along the second axis; the first for 1-d arrays)."""
    arrs = [atleast_1d(a) for a in _stack_sequence(tup)]
    return concatenate(arrs, 0 if arrs and get_aval(arrs[0]).ndim == 1 else 1, dtype=dtype,
                       casting=casting)


@_each
def atleast_3d(a):
    """Each argument with at least three dimensions ((N,) -> (1, N, 1); (M, N) -> (M, N,
    1)); a tuple for more than one."""
    s = get_aval(a).shape
    if len(s) == 0:
        return reshape(a, (1, 1, 1))
    if len(s) == 1:
        return reshape(a, (1, s[0], 1))
    if len(s) == 2:
        return reshape(a, s + (1,))
    return a


def dstack(tup):
    """Stack arrays along the third axis."""
    return concatenate([atleast_3d(a) for a in _stack_sequence(tup)], 2)


def column_stack(tup):
    """Stack 1-d arrays as columns of a 2-d array (2-d arrays as they are)."""
    cols = []
    for a in _stack_sequence(tup):
        a = to_array(a)
        cols.append(reshape(a, (-1, 1)) if get_aval(a).ndim < 2 else a)
    return concatenate(cols, 1)


def array_split(ary, indices_or_sections, axis=0):
    """Split into sub-arrays (sections may differ in size by one)."""
    a = to_array(ary)
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    n = get_aval(a).shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = _checks.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        bounds = [0] + list(_checks.int_sequence(indices_or_sections, "indices_or_sections")) + [n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        lo = _builtins.min(_builtins.max(lo + n if lo < 0 else lo, 0), n)
        hi = _builtins.min(_builtins.max(hi + n if hi < 0 else hi, 0), n)
        out.append(slice_axis(a, lo, _builtins.max(lo, hi), axis))
    return out


def split(ary, indices_or_sections, axis=0):
    """Split into equal sub-arrays (or at the given indices)."""
    if isinstance(indices_or_sections, (int, np.integer)):
        n = get_aval(to_array(ary)).shape[canonicalize_axis(axis, ndim(ary))]
        sections = _checks.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if n % sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def _split_needs(name, ary, least):
    if ndim(ary) < least:
        raise ValueError(f"{name} only works on arrays of {least} or more dimensions")


def hsplit(ary, indices_or_sections):
    """Split along the second axis (the first for 1-d arrays)."""
    _split_needs("hsplit", ary, 1)
    return split(ary, indices_or_sections, axis=1 if ndim(ary) > 1 else 0)


def vsplit(ary, indices_or_sections):
    """Split along the first axis (arrays of 2 or more dimensions)."""
    _split_needs("vsplit", ary, 2)
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    """Split along the third axis (arrays of 3 or more dimensions)."""
    _split_needs("dsplit", ary, 3)
    return split(ary, indices_or_sections, axis=2)


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis."""
    a = to_array(A)
    reps = ((_checks.index(reps, "reps"),) if isinstance(reps, (int, np.integer))
            else _checks.int_sequence(reps, "reps"))
    s = get_aval(a).shape
    nd = _builtins.max(len(s), len(reps))
    s = (1,) * (nd - len(s)) + s
    reps = (1,) * (nd - len(reps)) + reps
    a = lax.reshape(a, s)
    big = tuple(x for pair in zip(reps, s) for x in pair)
    b = lax.broadcast_in_dim(a, big, tuple(range(1, 2 * nd, 2)))
    return lax.reshape(b, tuple(r * d for r, d in zip(reps, s)))


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeat each element ``repeats`` times (an integer, or one count per element) along
    ``axis``. JAX's ``total_repeat_length`` fixes the output's length, so that the counts
    may be traced: longer outputs are cut, shorter ones repeat the last element."""
    a, axis = flat_or_axis(a, axis)
    s = get_aval(a).shape
    if total_repeat_length is not None:
        return _repeat_to_length(a, repeats, axis,
                                 _checks.index(total_repeat_length, "total_repeat_length"))
    if not isinstance(repeats, (int, np.integer)):
        r = get_concrete(to_array(repeats))
        if r is None:
            raise NotImplementedError("repeat: traced repeat counts need "
                                      "total_repeat_length= (the output's length, which "
                                      "depends on the counts)")
        r = np.asarray(r)
        if r.dtype.kind == "f":
            if not isinstance(repeats, (float, list, tuple)):
                raise TypeError(f"Cannot cast array data from {r.dtype!r} to "
                                f"dtype('int64') according to the rule 'safe'")
            r = r.astype(np.int64)   # Python floats are truncated, as NumPy does
        if r.ndim == 1 and r.shape[0] != 1:
            if r.shape[0] != s[axis]:
                raise ValueError(f"repeat: {r.shape[0]} repeat counts for an axis of length "
                                 f"{s[axis]}")
            if (r < 0).any():
                raise ValueError("repeat: negative repeat counts")
            return take(a, np.repeat(np.arange(s[axis]), r), axis=axis)
        repeats = _checks.index(r.reshape(()) if r.ndim == 0 else r[0])
    if repeats < 0:
        raise ValueError("repeat: negative repeat counts")
    big = s[:axis + 1] + (_checks.index(repeats),) + s[axis + 1:]
    dims = tuple(i if i <= axis else i + 1 for i in range(len(s)))
    b = lax.broadcast_in_dim(a, big, dims)
    return lax.reshape(b, s[:axis] + (s[axis] * _checks.index(repeats),) + s[axis + 1:])


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes by default)."""
    m = to_array(m)
    nd = get_aval(m).ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(canonicalize_axis(x, nd)
                     for x in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    return lax.rev(m, axes) if axes else m


def fliplr(m):
    """Reverse the second axis."""
    if ndim(m) < 2:
        raise ValueError("fliplr: input must be at least 2-d")
    return flip(m, 1)


def flipud(m):
    """Reverse the first axis."""
    if ndim(m) < 1:
        raise ValueError("flipud: input must be at least 1-d")
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``."""
    m = to_array(m)
    nd = get_aval(m).ndim
    a0, a1 = (canonicalize_axis(x, nd) for x in axes)
    if a0 == a1:
        raise ValueError("rot90: axes must be different")
    k = _checks.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(m, (a0, a1))
    perm = list(range(nd))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return lax.transpose(flip(m, a1), tuple(perm))
    return flip(lax.transpose(m, tuple(perm)), a1)


def roll(a, shift, axis=None):
    """Shift elements cyclically along ``axis`` (of the flattened array by default)."""
    a = to_array(a)
    if axis is None:
        return reshape(roll(reshape(a, (-1,)), shift, 0), get_aval(a).shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have one length")
    for s, ax in zip(shifts, axes):
        ax = canonicalize_axis(ax, get_aval(a).ndim)
        n = get_aval(a).shape[ax]
        if n == 0:
            continue
        # (NumPy takes int() of each shift: a float is truncated toward zero)
        k = (int(s) if isinstance(s, (float, np.floating)) else operator.index(s)) % n
        if k:
            a = _concat([slice_axis(a, n - k, n, ax), slice_axis(a, 0, n - k, ax)], ax)
    return a


def _pad_widths(pad_width, nd):
    """``pad``'s widths as per-axis (before, after) pairs: NumPy's integer, pair, pair
    per axis, or (NumPy 2.3) dict of axis to an integer or a pair."""
    if isinstance(pad_width, dict):
        pairs = [(0, 0)] * nd
        for axis, width in pad_width.items():
            pairs[axis] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = pairs
    pw = np.asarray(pad_width)
    if pw.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    return _index_pairs(pw, nd)


def _index_pairs(pw, nd):
    """An integer array ``pw`` broadcast to (before, after) pairs for ``nd`` axes, none
    negative."""
    if pw.ndim == 0:
        pw = np.full((nd, 2), _checks.index(pw))
    elif pw.shape == (1,) or pw.shape == (2,) or pw.shape == (1, 2):
        pw = np.broadcast_to(pw.reshape(-1), (nd, 2)) if pw.size == 2 else np.full(
            (nd, 2), _checks.index(pw.reshape(-1)[0]))
    pw = np.broadcast_to(pw, (nd, 2))
    if (pw < 0).any():
        raise ValueError("index can't contain negative values")
    return [(_checks.index(lo), _checks.index(hi)) for lo, hi in pw]


# the keywords each of NumPy's pad modes takes
_PAD_KEYWORDS = {"constant": ("constant_values",), "edge": (), "wrap": (), "empty": (),
                 "linear_ramp": ("end_values",), "maximum": ("stat_length",),
                 "minimum": ("stat_length",), "mean": ("stat_length",),
                 "median": ("stat_length",), "reflect": ("reflect_type",),
                 "symmetric": ("reflect_type",)}


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array by any of NumPy's modes, or by a function that fills each padded
    1-d lane in place, called as NumPy calls it (``mode(lane, (before, after), axis,
    kwargs)``). ``empty`` pads with zeros."""
    a = to_array(array)
    aval = get_aval(a)
    widths = _pad_widths(pad_width, aval.ndim)
    if callable(mode):
        return _pad_with_function(a, widths, mode, kwargs)
    if mode not in _PAD_KEYWORDS:
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - set(_PAD_KEYWORDS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if mode == "constant":
        cv = kwargs.get("constant_values", 0)
        if not np.ndim(cv):
            val = lax.convert_element_type(to_array(cv), aval.dtype)
            return lax.pad(a, val, [(lo, hi, 0) for lo, hi in widths])
        cvs = _pad_pairs(cv, aval.ndim)
        out = a
        for ax, (lo, hi) in enumerate(widths):
            cfg = [(0, 0, 0)] * aval.ndim
            for side, w in ((0, lo), (1, hi)):
                if w:
                    cfg2 = list(cfg)
                    cfg2[ax] = (w, 0, 0) if side == 0 else (0, w, 0)
                    val = lax.convert_element_type(to_array(cvs[ax][side]), aval.dtype)
                    out = lax.pad(out, val, cfg2)
        return out
    if mode == "empty" or aval.size == 0:
        for ax, (lo, hi) in enumerate(widths):
            if mode != "empty" and aval.shape[ax] == 0 and (lo or hi):
                raise ValueError(f"can't extend empty axis {ax} using modes other than "
                                 f"'constant' or 'empty'")
        return lax.pad(a, lax.full((), 0, aval.dtype), [(lo, hi, 0) for lo, hi in widths])
    ends = _pad_pairs(kwargs.get("end_values", 0), aval.ndim)
    lengths = _pad_lengths(kwargs.get("stat_length"), aval.ndim)
    odd = kwargs.get("reflect_type", "even") == "odd"   # (NumPy reads anything else as even)
    out = a
    for ax, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        if mode == "linear_ramp":
            left, right = (_linear_ramp(out, ax, w, end, side)
                           for side, w, end in ((0, lo, ends[ax][0]), (1, hi, ends[ax][1])))
        elif mode in ("edge", "maximum", "minimum", "mean", "median"):
            left, right = _pad_statistics(out, ax, lo, hi, mode, lengths[ax])
        elif get_aval(out).shape[ax] == 1:   # (one element repeats, odd or even)
            left, right = _pad_statistics(out, ax, lo, hi, "edge", lengths[ax])
        else:
            left, right = _pad_repeating(out, ax, lo, hi, mode, odd)
        out = _concat([p for p in (left, out, right) if get_aval(p).shape[ax]], ax)
    return out


def _pad_pairs(values, nd):
    """NumPy's per-axis (before, after) pairs of a pad value, NumPy scalars as NumPy
    reads them (strongly typed: ``end_values=0`` ramps a float32 array in float64); a
    traced value as it is."""
    if isinstance(values, Tracer):
        return [(values, values)] * nd
    return np.broadcast_to(np.asarray(values), (nd, 2))


def _pad_lengths(stat_length, nd):
    """``stat_length`` as per-axis (before, after) counts, None for the whole axis."""
    if stat_length is None:
        return [(None, None)] * nd
    return _index_pairs(np.round(np.asarray(stat_length)).astype(np.intp), nd)


def _pad_statistics(x, ax, lo, hi, mode, lengths):
    """The two pads of ``x`` along ``ax``: its edge element, or a statistic (NumPy's
    amax, amin, mean or median, rounded for integers) of its first and last
    ``lengths`` elements, repeated ``lo`` and ``hi`` times."""
    n = get_aval(x).shape[ax]
    pads = []
    for side, width, length in ((0, lo, lengths[0]), (1, hi, lengths[1])):
        if mode == "edge":
            length = 1
        elif length is None or length > n:
            length = n
        if length == 0 and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        part = slice_axis(x, 0, length, ax) if side == 0 else slice_axis(x, n - length, n, ax)
        pads.append(_broadcast_along(_statistic(part, ax, mode), ax, width))
    return pads


def _statistic(part, ax, mode):
    from . import _statistical   # (it imports this module)
    if mode == "edge":
        return part
    dtype = get_aval(part).dtype
    fn = {"maximum": _statistical.max, "minimum": _statistical.min,
          "mean": _statistical.mean, "median": _statistical.median}[mode]
    value = fn(part, axis=ax, keepdims=True)
    if _dtypes.is_integer(dtype) and _dtypes.is_inexact(get_aval(value).dtype):
        value = lax.round(value, lax.RoundingMethod.TO_NEAREST_EVEN)
    return lax.convert_element_type(value, dtype)


def _broadcast_along(x, ax, width):
    shape = list(get_aval(x).shape)
    shape[ax] = width
    return lax.broadcast_in_dim(lax.squeeze(x, (ax,)), tuple(shape),
                                tuple(i for i in range(len(shape)) if i != ax))


def _linear_ramp(x, ax, width, end, side):
    """NumPy's ramp from ``end`` to the edge element (excluded) of ``x`` along ``ax``:
    its ``linspace`` in ``x``'s dtype, before (``side`` 0) or after ``x``."""
    from ._creation import linspace   # (it imports this module)
    n = get_aval(x).shape[ax]
    edge = lax.squeeze(slice_axis(x, 0, 1, ax) if side == 0 else slice_axis(x, n - 1, n, ax),
                       (ax,))
    ramp = linspace(end, edge, width, endpoint=False, dtype=get_aval(x).dtype, axis=ax)
    return ramp if side == 0 else lax.rev(ramp, (ax,))


def _pad_repeating(x, ax, lo, hi, mode, odd):
    """The two pads of ``x`` along ``ax`` for the modes that repeat it: 'wrap', and
    'reflect'/'symmetric' (about the edge element, or including it; ``odd``: the
    reflected values turned about the edge value). As NumPy builds them: in rounds, each
    copying at most a whole number of periods of what is filled so far."""
    n = get_aval(x).shape[ax]
    lefts, rights = [], []
    cur = x
    while lo or hi:
        m = get_aval(cur).shape[ax]
        usable = (m - 1) // (n - 1) * (n - 1) if mode == "reflect" else m // n * n
        c_lo, c_hi = min(usable, lo), min(usable, hi)
        if mode == "wrap":
            left = slice_axis(cur, usable - c_lo, usable, ax)
            right = slice_axis(cur, m - usable, m - usable + c_hi, ax)
        else:
            skip = 1 if mode == "reflect" else 0   # (reflect leaves the edge out)
            left = _turned(slice_axis(cur, skip, skip + c_lo, ax),
                           slice_axis(cur, 0, 1, ax), ax, odd)
            right = _turned(slice_axis(cur, m - skip - c_hi, m - skip, ax),
                            slice_axis(cur, m - 1, m, ax), ax, odd)
        lefts.append(left)
        rights.append(right)
        cur = _concat([p for p in (left, cur, right) if get_aval(p).shape[ax]], ax)
        lo, hi = lo - c_lo, hi - c_hi
    return _concat(lefts[::-1], ax), _concat(rights, ax)


def _turned(chunk, edge, ax, odd):
    """``chunk`` mirrored along ``ax``; ``odd``: ``2 * edge - chunk`` (as NumPy's
    arithmetic does it, in the array's dtype; booleans as integers)."""
    chunk = lax.rev(chunk, (ax,))
    if not odd:
        return chunk
    dtype = get_aval(chunk).dtype
    work = np.dtype(np.int8) if dtype == np.bool_ else dtype
    c = lax.convert_element_type(chunk, work)
    e = _broadcast_along(lax.convert_element_type(edge, work), ax, get_aval(c).shape[ax])
    return lax.convert_element_type(lax.sub(lax.add(e, e), c), dtype)


def _pad_with_function(a, widths, fill, kwargs):
    """NumPy's pad by a function: ``a`` padded with zeros, then ``fill(lane, (before,
    after), axis, kwargs)`` on every 1-d lane along each axis in turn, writing in place
    (a lane is a view of the result, under transformations too)."""
    from . import moveaxis as lanes_of   # (the public one: NumPy's view, eagerly too)
    out = lax.pad(a, lax.full((), 0, get_aval(a).dtype), [(lo, hi, 0) for lo, hi in widths])
    for ax, pair in enumerate(widths):
        lanes = lanes_of(out, ax, -1)
        for index in np.ndindex(get_aval(lanes).shape[:-1]):
            fill(lanes[index + (Ellipsis,)], pair, ax, kwargs)
    return out


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` of the plane ``(axis1, axis2)``, as the last axis (NumPy's
    read-only view: writing into it raises, under a transformation too)."""
    a = to_array(a)
    out = _diagonal(a, offset, axis1, axis2)
    return read_only_view(out, a, lambda base: _diagonal(base, offset, axis1, axis2))


def _diagonal(a, offset, axis1, axis2):
    aval = get_aval(a)
    if aval.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = canonicalize_axis(axis1, aval.ndim), canonicalize_axis(axis2, aval.ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [i for i in range(aval.ndim) if i not in (a1, a2)]
    x = lax.transpose(a, tuple(rest) + (a1, a2))
    s = get_aval(x).shape
    n, m = s[-2:]
    offset = _checks.c_int(offset)
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    length = _builtins.max(0, _builtins.min(n - r0, m - c0))
    rows = lax.broadcasted_iota(np.int64, (n, m), 0)
    cols = lax.broadcasted_iota(np.int64, (n, m), 1)
    on = lax.eq(lax.add(rows, lax.full((n, m), offset, np.int64)), cols)
    on = lax.broadcast_in_dim(on, s, (len(s) - 2, len(s) - 1))
    # reduce over columns (a vector over rows) or over rows (a vector over columns),
    # whichever needs no slicing afterwards
    if r0 == 0 and length == n:
        red_axis, keep_start = len(s) - 1, r0
    elif c0 == 0 and length == m:
        red_axis, keep_start = len(s) - 2, c0
    else:   # (an empty diagonal, past the plane, keeps nothing from 0)
        red_axis, keep_start = len(s) - 1, r0 if length else 0
    if aval.dtype == np.bool_:
        picked = lax.reduce_max(lax.min(on, x), (red_axis,))
    else:
        picked = lax.reduce_sum(lax.select_n(on, lax.full(s, 0, aval.dtype), x), (red_axis,))
    return slice_axis(picked, keep_start, keep_start + length, len(s) - 2)


def diag(v, k=0):
    """The diagonal ``k`` of a 2-d array, or a 2-d array with 1-d ``v`` on diagonal ``k``."""
    v = to_array(v)
    aval = get_aval(v)
    k = _checks.index(k)
    if aval.ndim == 2:
        return diagonal(v, k)
    if aval.ndim != 1:
        raise ValueError("diag: input must be 1-d or 2-d")
    n = aval.shape[0] + abs(k)
    if k:
        cfg = [(0, abs(k), 0)]
        v = lax.pad(v, lax.full((), 0, aval.dtype), cfg)
    rows = lax.broadcasted_iota(np.int64, (n, n), 0)
    cols = lax.broadcasted_iota(np.int64, (n, n), 1)
    on = lax.eq(lax.add(rows, lax.full((n, n), k, np.int64)), cols)
    vb = lax.broadcast_in_dim(v, (n, n), (0,) if k >= 0 else (1,))
    return lax.select_n(on, lax.full((n, n), 0, aval.dtype), vb)


def matrix_transpose(x, /):
    """Swap the last two axes (Array API)."""
    if ndim(x) < 2:
        raise ValueError("matrix_transpose: input must be at least 2-d")
    return swapaxes(x, -1, -2)


def broadcast_arrays(*args, subok=False):
    """The arguments broadcast to one shape (``subok`` as in ``broadcast_to``)."""
    arrs = [to_array(a) for a in args]
    shape = _broadcast_shapes(*(get_aval(a).shape for a in arrs))
    return tuple(a if get_aval(a).shape == shape else lax.broadcast_to_shape(a, shape)
                 for a in arrs)


def copy(a, order="K", subok=False):
    """A copy of ``a``: a new array object (in-place updates of one leave the other).
    minijax arrays are C-ordered whatever ``order`` asks for (the values are the same);
    ``subok`` as in ``broadcast_to``."""
    if not isinstance(order, str):
        raise TypeError(f"order must be str, not {type(order).__name__}")
    if order.upper() not in ("K", "A", "C", "F"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    out = to_array(a, copy=True)
    return new_object(out) if out is a else out


def _repeat_to_length(a, repeats, axis, length):
    # output position i reads the element whose block (of repeats[j] copies) holds i:
    # one mark where each block starts (blocks starting past the end are dropped), and
    # a running count of the marks
    if length < 0:
        raise ValueError("repeat: total_repeat_length must be non-negative")
    s = get_aval(a).shape
    n = s[axis]
    if n == 0:
        return a
    if length == 0:
        return take(a, np.zeros(0, np.intp), axis=axis)
    counts = to_array(repeats)
    if not _dtypes.is_integer(get_aval(counts).dtype):
        raise TypeError(f"repeat: repeat counts must be integers, not "
                        f"{get_aval(counts).dtype}")
    size = get_aval(counts).size
    if size not in (1, n):
        raise ValueError(f"repeat: {size} repeat counts for an axis of length {n}")
    known = get_concrete(counts)
    if known is not None and (np.asarray(known) < 0).any():
        raise ValueError("repeat: negative repeat counts")
    counts = lax.broadcast_to_shape(lax.reshape(counts, (size,)), (n,))
    counts = lax.convert_element_type(counts, np.int64)
    starts = lax.cumsum(counts, 0) - counts   # (exclusive)
    marks = lax.full((length,), 0, np.int64)
    marks = _update(marks, starts, lax.full((n,), 1, np.int64), "add", strict=False)
    return take(a, lax.cumsum(marks, 0) - 1, axis=axis)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple (Array API)."""
    x = to_array(x)
    s = get_aval(x).shape
    if not s:
        raise ValueError("unstack: the input must have at least one dimension")
    axis = canonicalize_axis(axis, len(s))
    return tuple(lax.squeeze(slice_axis(x, i, i + 1, axis), (axis,)) for i in range(s[axis]))


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to."""
    checked = [_checks.shape(s, "shapes") for s in shapes]
    if len(checked) == 2:   # (NumPy's broadcast_shapes costs ten times this)
        out = _broadcast_pair(*checked)
        if out is not None:
            return out
    return tuple(_broadcast_shapes(*checked, name="shapes"))


def _broadcast_pair(s1, s2):
    """The shape two shapes broadcast to, or None if they do not."""
    if len(s1) < len(s2):
        s1, s2 = s2, s1
    lead = len(s1) - len(s2)
    out = list(s1)
    for i, d in enumerate(s2, lead):
        if d != out[i]:
            if out[i] == 1:
                out[i] = d
            elif d != 1:
                return None
    return tuple(out)


def _concrete_indices(obj, name):
    """A concrete index argument (``obj`` of insert/delete) as a NumPy array."""
    return concrete_value(obj, name)


def _axis_key(axis, index):
    return (slice(None),) * axis + (index,)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries ``obj`` (an index, a slice, indices or a boolean
    mask) along ``axis`` (of the flattened ``arr`` if None). ``obj`` must be concrete:
    it decides the result's shape; or, with ``assume_unique_indices=True`` (JAX's),
    traced integer indices, promised distinct and within the axis."""
    arr, axis = flat_or_axis(arr, axis)
    n = get_aval(arr).shape[axis]
    if not isinstance(obj, slice) and get_concrete(to_array(obj)) is None:
        if _checks.flag(assume_unique_indices, "assume_unique_indices"):
            return _delete_unique(arr, to_array(obj), axis, n)
        raise concretization_error(
            to_array(obj), "delete() of traced indices: the output size depends on their "
            "values; pass assume_unique_indices=True if they are distinct integers within "
            "the axis, or make them static")
    if isinstance(obj, slice):
        removed = np.arange(*obj.indices(n))
    else:
        idx = _concrete_indices(obj, "delete")
        if idx.dtype == np.bool_:
            if idx.ndim != 1 or idx.shape[0] != n:
                raise ValueError(f"boolean array argument obj to delete must be one "
                                 f"dimensional and match the axis length of {n}")
            removed = np.flatnonzero(idx)
        else:
            if idx.size == 0 and not isinstance(obj, (np.ndarray, Array)):
                idx = idx.astype(np.intp)   # (an empty list; an empty array keeps its type)
            if idx.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) "
                                 "type")
            bad = (idx < -n) | (idx >= n)
            if np.any(bad):
                raise IndexError(f"index {idx[bad].flat[0]} is out of bounds for axis "
                                 f"{axis} with size {n}")
            removed = np.where(idx < 0, idx + n, idx).reshape(-1)
    keep = np.ones(n, dtype=bool)
    keep[removed] = False
    return take(arr, np.flatnonzero(keep), axis=axis)


def _delete_unique(arr, obj, axis, n):
    """``delete`` of traced indices promised distinct and in range: the result's length
    is ``n`` less their number."""
    if get_aval(obj).dtype.kind not in "iu":
        raise IndexError("delete with assume_unique_indices=True takes integer indices")
    flat = reshape(obj, (-1,))
    count = get_aval(flat).shape[0]
    if count > n:
        raise IndexError(f"delete: {count} distinct indices cannot be removed from an axis "
                         f"of size {n}")
    if count:
        flat = _mode_indices(flat, n, "wrap")[0]   # (negative from the end)
    keep = lax.full((n,), True, np.bool_).at[flat].set(False)
    positions, _ = true_positions(keep, n - count)
    return take(arr, positions, axis=axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the index (or indices, or slice) ``obj``
    along ``axis`` (of the flattened ``arr`` if None); ``values`` are cast to ``arr``'s
    dtype. ``obj`` must be concrete."""
    arr, axis = flat_or_axis(arr, axis)
    nd = get_aval(arr).ndim
    shape = get_aval(arr).shape
    n = shape[axis]
    dt = get_aval(arr).dtype
    if isinstance(obj, slice):
        idx = np.arange(*obj.indices(n))
    else:
        idx = _concrete_indices(obj, "insert")
        if idx.dtype == np.bool_:
            idx = idx.astype(np.intp)
        elif idx.size == 0 and not isinstance(obj, np.ndarray):
            idx = idx.astype(np.intp)
        elif idx.dtype.kind not in "iu":
            raise IndexError("index arrays to insert must be of integer type")
    values = to_array(values, dtype=dt)
    if idx.ndim == 0:
        index = int(idx)
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        if index < 0:
            index += n
        vnd = get_aval(values).ndim
        if vnd < nd:
            values = reshape(values, (1,) * (nd - vnd) + get_aval(values).shape)
        values = moveaxis(values, 0, axis)
        count = get_aval(values).shape[axis]
        positions = np.arange(index, index + count)
    else:
        if np.any((idx < -n) | (idx > n)):
            bad = idx[(idx < -n) | (idx > n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
        idx = np.where(idx < 0, idx + n, idx).reshape(-1)
        count = len(idx)
        order = np.argsort(idx, kind="stable")
        positions = idx.copy()
        positions[order] += np.arange(count)
    new_shape = shape[:axis] + (n + count,) + shape[axis + 1:]
    old = np.ones(n + count, dtype=bool)
    old[positions] = False
    target = shape[:axis] + (count,) + shape[axis + 1:]
    values = broadcast_to(values, target)
    out = lax.full(new_shape, 0, dt)
    out = out.at[_axis_key(axis, positions)].set(values)
    return out.at[_axis_key(axis, np.flatnonzero(old))].set(arr)


def _block_depths(x, where_):
    """(list depth, largest leaf rank) of a ``block`` argument, checking it is nested
    lists of one depth."""
    if type(x) is tuple:
        raise TypeError(f"{where_} is a tuple. Only lists can be used to arrange blocks, "
                        f"and np.block does not allow implicit conversion from tuple to "
                        f"ndarray.")
    if type(x) is list:
        if not x:
            raise ValueError(f"List at {where_} cannot be empty")
        results = [_block_depths(e, f"{where_}[{i}]") for i, e in enumerate(x)]
        depths = {d for d, _ in results}
        if len(depths) != 1:
            raise ValueError(f"List depths are mismatched. First element was at depth "
                             f"{results[0][0] + 1}, but there is an element at depth "
                             f"{min(depths) + 1} ({where_})")
        return results[0][0] + 1, _builtins.max(r for _, r in results)
    return 0, get_aval(to_array(x)).ndim


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists are joined
    along the last axis, the next ones along the second last, and so on."""
    depth, rank = _block_depths(arrays, "arrays")
    ndim = _builtins.max(depth, rank)

    def assemble(x, level):
        if type(x) is list:
            return concatenate([assemble(e, level + 1) for e in x], axis=level - depth)
        x = to_array(x)
        nd = get_aval(x).ndim
        return reshape(x, (1,) * (ndim - nd) + get_aval(x).shape) if nd < ndim else x

    out = assemble(arrays, 0)
    return copy(out) if depth == 0 else out


def resize(a, new_shape):
    """A new array of ``new_shape`` filled with ``a``'s elements repeated in order."""
    a = reshape(to_array(a), (-1,))
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (int(new_shape),)
    new_shape = tuple(operator.index(s) for s in new_shape)
    if any(s < 0 for s in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size = int(np.prod(new_shape, dtype=np.int64))
    n = get_aval(a).shape[0]
    if n == 0 or size == 0:
        return lax.full(new_shape, 0, get_aval(a).dtype)
    reps = -(-size // n)
    flat = concatenate([a] * reps) if reps > 1 else a
    return reshape(flat[:size], new_shape)


def resize_in_place(a, new_shape, refcheck=True):
    """The value of ``a.resize(new_shape)``: NumPy's in-place resize fills new
    entries with zeros (not repetitions)."""
    if len(new_shape) == 1 and not isinstance(new_shape[0], (int, np.integer)):
        new_shape = new_shape[0]
    if new_shape is None or new_shape == ():
        return a
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (int(new_shape),)
    new_shape = tuple(operator.index(s) for s in new_shape)
    if any(s < 0 for s in new_shape):
        raise ValueError("negative dimensions not allowed")
    if not isinstance(refcheck, (bool, int, np.bool_)):
        raise TypeError("refcheck must be a boolean")
    size = int(np.prod(new_shape, dtype=np.int64))
    flat = reshape(a, (-1,))
    n = get_aval(flat).shape[0]
    if size <= n:
        flat = flat[:size]
    else:
        flat = concatenate([flat, lax.full((size - n,), 0, get_aval(a).dtype)])
    return reshape(flat, new_shape)


def _trim_mode(trim):
    mode = trim.lower() if isinstance(trim, str) else trim
    if mode not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    return mode


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading ('f') and/or trailing ('b') zeros, along ``axis``
    (every axis if None: the bounding box of the nonzero entries). The result's shape
    depends on the values, so ``filt`` must be concrete."""
    mode = _trim_mode(trim)
    nd = get_aval(to_array(filt)).ndim
    axes = tuple(range(nd)) if axis is None else _checks.axes(axis, nd)
    value = concrete_value(filt, "trim_zeros")
    nonzero = np.nonzero(value)
    key = [slice(None)] * nd
    for ax in axes:
        n = value.shape[ax]
        if nonzero[ax].size == 0:
            key[ax] = slice(0, 0)
            continue
        start = int(nonzero[ax].min()) if "f" in mode else 0
        stop = int(nonzero[ax].max()) + 1 if "b" in mode else n
        key[ax] = slice(start, stop)
    if isinstance(filt, (list, tuple)) and nd == 1:
        return filt[key[0]]   # NumPy slices a sequence as it is
    return to_array(filt)[tuple(key)]


def rollaxis(a, axis, start=0):
    """``a`` with ``axis`` moved to lie before position ``start`` (prefer
    ``moveaxis``)."""
    a = to_array(a)
    n = get_aval(a).ndim
    axis = canonicalize_axis(axis, n)
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}")
    if axis < start:
        start -= 1
    if axis == start:
        return a
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return transpose(a, tuple(axes))


def diagflat(v, k=0):
    """A 2-d array with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(reshape(to_array(v), (-1,)), k)


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences between consecutive elements of the flattened ``ary``, with
    ``to_begin`` and ``to_end`` (cast to ``ary``'s dtype) around them."""
    ary = reshape(to_array(ary), (-1,))
    dt = get_aval(ary).dtype
    parts = []
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            parts.append(None)
            continue
        e = to_array(extra)
        if not np.can_cast(get_aval(e).dtype, dt, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under "
                            f"the `same_kind` rule.")
        parts.append(reshape(lax.convert_element_type(e, dt), (-1,)))
    d = ary[1:] - ary[:-1]
    pieces = [p for p in (parts[0], d, parts[1]) if p is not None]
    return concatenate(pieces) if len(pieces) > 1 else d


def _bitorder(bitorder):
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")


def packbits(a, /, axis=None, bitorder="big"):
    """The elements of an integer or boolean array as bits (nonzero is 1) packed into
    ``uint8`` along ``axis`` (of the flattened array if None), padded with zeros."""
    a = to_array(a)
    dt = get_aval(a).dtype
    if dt != np.bool_ and not _dtypes.is_integer(dt):
        raise TypeError("Expected an input array of integer or boolean data type")
    _bitorder(bitorder)
    a, axis = flat_or_axis(a, axis)
    nd = get_aval(a).ndim
    bits = lax.convert_element_type(lax.ne(a, lax.full(get_aval(a).shape, 0, dt)), np.uint8)
    n = get_aval(bits).shape[axis]
    padded = -(-n // 8) * 8
    if padded != n:
        widths = [(0, 0)] * nd
        widths[axis] = (0, padded - n)
        bits = lax.pad(bits, np.uint8(0), [(lo, hi, 0) for lo, hi in widths])
    shape = get_aval(bits).shape
    grouped = shape[:axis] + (padded // 8, 8) + shape[axis + 1:]
    bits = lax.reshape(bits, grouped)
    weights = np.array([1 << (7 - i) if bitorder == "big" else 1 << i for i in range(8)],
                       np.uint8)
    weights = weights.reshape((8,) + (1,) * (nd - axis - 1))
    return lax.reduce_sum(lax.mul(bits, lax.broadcast_to_shape(to_array(weights), grouped)),
                          (axis + 1,))


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """The bits of a ``uint8`` array as a ``uint8`` array of 0s and 1s, unpacked along
    ``axis`` (of the flattened array if None); ``count`` keeps that many bits (padding
    with zeros if larger; a negative count drops bits from the end)."""
    a = to_array(a)
    if get_aval(a).dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _bitorder(bitorder)
    a, axis = flat_or_axis(a, axis)
    nd = get_aval(a).ndim
    shape = get_aval(a).shape
    expanded = shape[:axis + 1] + (8,) + shape[axis + 1:]
    shifts = np.array([7 - i if bitorder == "big" else i for i in range(8)], np.uint8)
    shifts = shifts.reshape((8,) + (1,) * (nd - axis - 1))
    x = lax.broadcast_in_dim(a, expanded, tuple(i if i <= axis else i + 1
                                                for i in range(nd)))
    bits = lax.bitwise_and(lax.shift_right_logical(
        x, lax.broadcast_to_shape(to_array(shifts), expanded)), lax.full(expanded, 1, np.uint8))
    n = shape[axis] * 8
    bits = lax.reshape(bits, shape[:axis] + (n,) + shape[axis + 1:])
    if count is None:
        return bits
    count = operator.index(count)
    keep = count if count >= 0 else _builtins.max(n + count, 0)
    if keep <= n:
        return slice_axis(bits, 0, keep, axis)
    widths = [(0, 0, 0)] * nd
    widths[axis] = (0, keep - n, 0)
    return lax.pad(bits, np.uint8(0), widths)
