"""NumPy indexing on minijax arrays, written with ``lax`` only.

``x[key]``, ``x[key] = v``, ``x.at[key].<op>(v)`` and the index functions (``take``,
``take_along_axis``, ``put``, ``choose``, ``select``, ``ix_``, ...).

How a key is lowered:

- basic keys (static ints, slices, ``None``, ``...``): ``lax.slice`` (+ ``lax.rev`` for
  negative steps) and a reshape; a traced scalar index is a ``lax.dynamic_slice``;
- integer arrays (advanced indexing, also lists and concrete boolean masks, which become
  their ``nonzero``): static slicing of the other axes, then one ``lax.gather``; the
  advanced axes go where NumPy puts them (in place when the advanced indices are
  adjacent in the key, first otherwise);
- updates: ``lax.dynamic_update_slice`` for unit-step basic keys, otherwise one scatter
  into the flattened array at the flat positions the key selects (computed on the host
  for concrete keys, where duplicates are resolved NumPy's way: the last write wins;
  for traced keys by indexing an iota, and which duplicate wins is unspecified);
- an eager CPU ``Array`` outside any transformation indexes (and assigns) with NumPy
  directly (DESIGN 3); tracers and the XLA eager backend take the ``lax`` path.

Out-of-bounds indices: concrete ones raise ``IndexError`` like NumPy. Traced indices
cannot be checked: ``x[i]`` clamps them (like JAX), ``x[i] = v`` and ``x.at[i].<op>``
drop out-of-bounds updates, except that a traced *scalar* index in a unit-step basic
key is a ``dynamic_update_slice``, which clamps. ``x.at[i].get(mode='fill')`` returns
``fill_value`` for them.
"""

import builtins
import operator
from collections.abc import Sequence

import numpy as np

from .. import _checks, dtypes, lax
from .._mutation import read_view, rebind_or_raise, refresh, set_view_indexing
from ..config import config
from ..core import Tracer, get_aval, get_concrete, state
from ..core.avals import ShapedArray
from ..core.trace import full_raise
from ..errors import NonConcreteBooleanIndexError
from ..interpreters import partial_eval as pe
from ..runtime.array import Array
from ..util import canonicalize_axis
from ._out import supports_out
from ._core import broadcast_arrays, promote, result_type_of, to_array
from ._elementwise import negative, power, reciprocal
from ._masked_selection import MaskedSelection
from ._searching import static_size, true_positions, where

_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
              "integer or boolean arrays are valid indices")


_FILL, _CLIP = "fill", "clip"


def _concrete(x):
    """``x`` as a host ndarray if its value is known, else None."""
    if isinstance(x, np.ndarray):
        return x
    value = get_concrete(x)
    return None if value is None else np.asarray(value)


def _is_int_dtype(dtype):
    return np.dtype(dtype).kind in "iu"


def _index_dtype(n):
    """The integer dtype of gather/scatter indices (the default int: traced int64 indices
    are not narrowed, so huge values still clamp or drop instead of wrapping)."""
    return dtypes.default_int()


class _Entry:
    """One component of a normalized key. ``kind``: 'new' (None), 'slice', 'int' (static),
    'dyn' (traced scalar), 'arr' (integer array, concrete ``value`` or traced ``array``).
    ``dim``: the axis of the (expanded) operand it consumes."""
    __slots__ = ("kind", "dim", "value", "array", "slc")

    def __init__(self, kind, dim=None, value=None, array=None, slc=None):
        self.kind, self.dim, self.value, self.array, self.slc = kind, dim, value, array, slc


def _as_key_tuple(key):
    if isinstance(key, tuple):
        return key
    return (key,)


def _classify(k):
    """('none'|'ellipsis'|'slice'|'int'|'bool0'|'mask'|'arr'|'dyn'|'dynbool', payload)."""
    if k is None:
        return "none", None
    if k is Ellipsis:
        return "ellipsis", None
    if isinstance(k, slice):
        return "slice", k
    if isinstance(k, (bool, np.bool_)):
        return "bool0", bool(k)
    if isinstance(k, (int, np.integer)):
        return "int", int(k)
    if isinstance(k, (float, complex, np.floating, np.complexfloating, str, bytes)):
        raise IndexError(_BAD_INDEX)
    if isinstance(k, Sequence) and not isinstance(k, (list, tuple)):
        k = list(k)   # range and other sequences index as lists do, as in NumPy
    if isinstance(k, (list, tuple)):
        if not k:
            return "arr", np.zeros((0,), np.int64)
        try:
            host = np.asarray(k) if not any(isinstance(e, Tracer) for e in _flat(k)) else None
        except ValueError:
            raise IndexError(_BAD_INDEX) from None
        if host is None:
            k = to_array(k)
        else:
            k = host
    if isinstance(k, (np.ndarray, Array, Tracer)):
        aval = get_aval(k) if not isinstance(k, np.ndarray) else None
        dtype = k.dtype if aval is None else aval.dtype
        if dtype == np.bool_:
            value = _concrete(k)
            if value is None:
                raise NonConcreteBooleanIndexError(
                    f"Array boolean indices must be concrete; got a traced boolean index of "
                    f"type {aval.str_short()}. The result's shape would depend on the mask's "
                    f"values. {_reason(k)}Use numpy.where(mask, x, other) (or x.at[...] with a "
                    f"computed index) instead, or make the mask static (static_argnums "
                    f"of jit, or compute it outside the traced function).")
            return ("bool0", bool(value)) if value.ndim == 0 else ("mask", value)
        if not _is_int_dtype(dtype):
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        value = _concrete(k)
        ndim = (k.ndim if aval is None else aval.ndim)
        if value is not None:
            return ("int", int(value)) if ndim == 0 else ("arr", value)
        return ("dyn", k) if ndim == 0 else ("arr", k)
    if hasattr(k, "__index__"):
        return "int", operator.index(k)
    raise IndexError(_BAD_INDEX)


def _flat(seq):
    for e in seq:
        if isinstance(e, (list, tuple)):
            yield from _flat(e)
        else:
            yield e


def _parse(shape, key, strict):
    """Normalize ``key`` for an operand of ``shape``.

    Returns ``(expanded_shape, entries)``: 0-d boolean indices insert a size-1 axis into
    the operand (indexed by ``[0]`` or ``[]``), so ``expanded_shape`` may be longer.
    """
    items = [_classify(k) for k in _as_key_tuple(key)]
    if sum(kind == "ellipsis" for kind, _ in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(p.ndim if kind == "mask" else kind in ("slice", "int", "arr", "dyn")
                   for kind, p in items)
    if consumed > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {consumed} were indexed")
    entries, expanded, dim = [], [], 0
    for kind, p in items:
        if kind == "ellipsis":
            for _ in range(len(shape) - consumed):
                entries.append(_Entry("slice", len(expanded), slc=slice(None)))
                expanded.append(shape[dim])
                dim += 1
        elif kind == "none":
            entries.append(_Entry("new"))
        elif kind == "bool0":
            entries.append(_Entry("arr", len(expanded), value=np.zeros((int(p),), np.int64)))
            expanded.append(1)
        elif kind == "mask":
            for j, (m, n) in enumerate(zip(p.shape, shape[dim:dim + p.ndim])):
                if m != n:
                    raise IndexError(f"boolean index did not match indexed array along axis "
                                     f"{dim + j}; size of axis is {n} but size of "
                                     f"corresponding boolean axis is {m}")
            for coords in np.nonzero(p):
                entries.append(_Entry("arr", len(expanded), value=coords))
                expanded.append(shape[dim])
                dim += 1
        else:
            n = shape[dim]
            if kind == "int":
                if not -n <= p < n:
                    if strict:
                        raise IndexError(f"index {p} is out of bounds for axis {dim} with "
                                         f"size {n}")
                    entries.append(_Entry("arr", len(expanded), value=np.asarray(p)))
                else:
                    entries.append(_Entry("int", len(expanded), value=p % n))
            elif kind == "slice":
                entries.append(_Entry("slice", len(expanded), slc=p))
            elif kind == "dyn":
                entries.append(_Entry("dyn", len(expanded), array=p))
            else:   # arr
                if isinstance(p, np.ndarray):
                    entries.append(_Entry("arr", len(expanded), value=p))
                else:
                    entries.append(_Entry("arr", len(expanded), array=p))
            expanded.append(n)
            dim += 1
    while dim < len(shape):
        entries.append(_Entry("slice", len(expanded), slc=slice(None)))
        expanded.append(shape[dim])
        dim += 1
    return tuple(expanded), entries


def _slice_params(slc, n):
    """(start, limit, stride, reversed, size) of a static lax.slice picking ``slc``."""
    for v in (slc.start, slc.stop, slc.step):
        if v is not None and not isinstance(v, (int, np.integer)):
            if isinstance(v, (Array, Tracer)) and _concrete(v) is not None:
                continue
            if isinstance(v, Tracer):
                raise IndexError("slice bounds must be static (Python ints or concrete "
                                 "arrays); use lax.dynamic_slice for traced starts")
            if not hasattr(v, "__index__"):
                raise TypeError("slice indices must be integers or None or have an "
                                "__index__ method")
    start, stop, step = slice(*(None if v is None else operator.index(v)
                                for v in (slc.start, slc.stop, slc.step))).indices(n)
    size = len(range(start, stop, step))
    if step > 0:
        return start, start + (size - 1) * step + 1 if size else start, step, False, size
    if size == 0:
        return 0, 0, 1, False, 0
    last = start + (size - 1) * step
    return last, start + 1, -step, True, size


def _static_slices(x, entries, with_ints):
    """Apply the static slices (and static ints if ``with_ints``) of ``entries``; other
    axes stay whole. Returns the sliced operand."""
    shape = get_aval(x).shape
    starts, limits, strides, revs = [0] * len(shape), list(shape), [1] * len(shape), []
    for e in entries:
        if e.kind == "slice":
            s, l, st, r, _ = _slice_params(e.slc, shape[e.dim])
            starts[e.dim], limits[e.dim], strides[e.dim] = s, l, st
            if r:
                revs.append(e.dim)
        elif e.kind == "int" and with_ints:
            starts[e.dim], limits[e.dim] = e.value, e.value + 1
    if starts != [0] * len(shape) or limits != list(shape) or strides != [1] * len(shape):
        x = lax.slice(x, starts, limits, strides)
    if revs:
        x = lax.rev(x, revs)
    return x


def _wrap_traced(i, n):
    """Wrap negative traced indices (signed dtypes) by adding the axis size."""
    if np.dtype(get_aval(i).dtype).kind == "u":
        return i
    shape = get_aval(i).shape
    dtype = get_aval(i).dtype
    return lax.select_n(lax.lt(i, lax.full(shape, 0, dtype)), i,
                        lax.add(i, lax.full(shape, n, dtype)))


def _advanced_indices(entries, shape, strict, idx_dtype):
    """The advanced entries' indices broadcast together and stacked on a last axis:
    (indices array of shape B + (k,), B, all_concrete)."""
    adv = [e for e in entries if e.kind in ("arr", "int", "dyn")]
    shapes = [np.shape(e.value) if e.array is None else get_aval(e.array).shape for e in adv]
    try:
        bshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         "with shapes " + " ".join(str(tuple(s)) for s in shapes)) from None
    cols = []
    for e in adv:
        n = shape[e.dim]
        if e.array is None:
            v = np.asarray(e.value)
            if v.size and strict:
                bad = (v < -n) | (v >= n) if v.dtype.kind == "i" else v >= n
                if bad.any():
                    raise IndexError(f"index {int(v[bad].flat[0])} is out of bounds for axis "
                                     f"{e.dim} with size {n}")
            v = v.astype(np.int64)
            v = np.where(v < 0, v + n, v)
            cols.append(np.broadcast_to(v, bshape).astype(idx_dtype))
        else:
            a = _wrap_traced(lax.convert_element_type(e.array, idx_dtype), n)
            cols.append(lax.broadcast_to_shape(a, bshape))
    if all(isinstance(c, np.ndarray) for c in cols):
        host = np.stack(cols, -1) if cols else np.zeros(bshape + (0,), idx_dtype)
        return to_array(host), bshape, adv, True
    cols = [c if not isinstance(c, np.ndarray) else to_array(c) for c in cols]
    cols = [lax.reshape(c, bshape + (1,)) for c in cols]
    idx = cols[0] if len(cols) == 1 else lax.concatenate(cols, len(bshape))
    return idx, bshape, adv, False


def _getitem(x, key, mode=None, fill_value=None, strict=True, indices_are_sorted=False,
             unique_indices=False):
    x = to_array(x)
    shape = get_aval(x).shape
    expanded, entries = _parse(shape, key, strict)
    if expanded != shape:
        x = lax.reshape(x, expanded)
    if mode == _FILL:
        for e in entries:    # traced scalars go through the gather so they can be filled
            if e.kind == "dyn":
                e.kind = "arr"
    has_arr = any(e.kind == "arr" for e in entries)
    if not has_arr:
        return _basic_getitem(x, entries)
    return _gather_getitem(x, entries, mode, fill_value, strict, indices_are_sorted,
                           unique_indices)


def _out_shape_basic(shape, entries):
    out = []
    for e in entries:
        if e.kind == "new":
            out.append(1)
        elif e.kind == "slice":
            out.append(_slice_params(e.slc, shape[e.dim])[4])
    return tuple(out)


def _basic_getitem(x, entries):
    shape = get_aval(x).shape
    out_shape = _out_shape_basic(shape, entries)
    y = _static_slices(x, entries, with_ints=True)
    dyn = [e for e in entries if e.kind == "dyn"]
    if dyn:
        ys = get_aval(y).shape
        starts, sizes = [0] * len(ys), list(ys)
        for e in dyn:
            if ys[e.dim] == 0:
                raise IndexError(f"index is out of bounds for axis {e.dim} with size 0")
            starts[e.dim], sizes[e.dim] = e.array, 1
        y = lax.dynamic_slice(y, starts, sizes)
    if get_aval(y).shape != out_shape:
        y = lax.reshape(y, out_shape)
    return y


def _placement(entries):
    """Whether the advanced entries are adjacent in the key (NumPy then keeps the
    advanced axes in place), and the number of result axes before them."""
    pos = [i for i, e in enumerate(entries) if e.kind in ("arr", "int", "dyn")]
    adjacent = pos[-1] - pos[0] + 1 == len(pos)
    before = sum(e.kind in ("slice", "new") for e in entries[:pos[0]]) if adjacent else 0
    return adjacent, before


def _gather_getitem(x, entries, mode, fill_value, strict, sorted_, unique):
    y = _static_slices(x, entries, with_ints=False)
    yshape = get_aval(y).shape
    idx_dtype = _index_dtype(builtins.max(yshape, default=0))
    idx, bshape, adv, _ = _advanced_indices(entries, yshape, strict, idx_dtype)
    adv_dims = [e.dim for e in adv]
    rest = [d for d in range(len(yshape)) if d not in adv_dims]
    sizes = [1 if d in adv_dims else yshape[d] for d in range(len(yshape))]
    nb = len(bshape)
    out_shape = bshape + tuple(yshape[d] for d in rest)
    if any(yshape[d] == 0 for d in adv_dims):
        # Nothing to gather from (concrete indices were checked): zeros, or the fill.
        fill = 0 if fill_value is None else fill_value
        out = lax.full(out_shape, fill, get_aval(x).dtype)
    else:
        dnums = lax.GatherDimensionNumbers(
            offset_dims=tuple(range(nb, nb + len(rest))),
            collapsed_slice_dims=tuple(sorted(adv_dims)), start_index_map=tuple(adv_dims))
        gmode = _FILL if mode == _FILL else _CLIP
        out = lax.gather(y, idx, dnums, sizes, mode=gmode, fill_value=fill_value,
                         indices_are_sorted=sorted_, unique_indices=unique)
    # Move the advanced block and insert the new axes where NumPy puts them.
    adjacent, before = _placement(entries)
    n_rest = len(rest)
    if adjacent and before:
        rest_before = sum(e.kind == "slice" for e in entries[:_first_adv(entries)])
        perm = (list(range(nb, nb + rest_before)) + list(range(nb))
                + list(range(nb + rest_before, nb + n_rest)))
        out = lax.transpose(out, perm)
    final = []
    it_rest = iter([yshape[d] for d in rest])
    placed = False
    for e in (entries if adjacent else [_Entry("arr")] + entries):
        if e.kind == "new":
            final.append(1)
        elif e.kind == "slice":
            final.append(next(it_rest))
        elif not placed:
            final.extend(bshape)
            placed = True
    if tuple(final) != get_aval(out).shape:
        out = lax.reshape(out, tuple(final))
    return out


def _first_adv(entries):
    return next(i for i, e in enumerate(entries) if e.kind in ("arr", "int", "dyn"))


def _prepare_values(values, out_shape, dtype, weak_type=False):
    """``values`` cast (unsafely, like NumPy's setitem) to the updated array's dtype and
    broadcast to the indexed shape (leading size-1 axes of the values may be dropped)."""
    v = to_array(values)
    aval = get_aval(v)
    if aval.dtype != dtype or aval.weak_type != weak_type:
        v = lax.convert_element_type(v, dtype, weak_type)
    vshape = aval.shape
    while len(vshape) > len(out_shape) and vshape[0] == 1:
        vshape = vshape[1:]
    if vshape != aval.shape:
        v = lax.reshape(v, vshape)
    try:
        b = np.broadcast_shapes(vshape, out_shape)
        if b != tuple(out_shape):
            raise ValueError
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {aval.shape} could not be "
                         f"broadcast to indexing result of shape {tuple(out_shape)}") from None
    if vshape != tuple(out_shape):
        v = lax.broadcast_to_shape(v, tuple(out_shape))
    return v


_SCATTERS = {"set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul,
             "min": lax.scatter_min, "max": lax.scatter_max}


def _combine(op, old, new):
    if op == "set":
        return new
    if op == "add":
        return lax.add(old, new)
    if op == "mul":
        return lax.mul(old, new)
    if op == "min":
        return lax.min(old, new)
    return lax.max(old, new)


def _update(x, key, values, op, mode=None, strict=True, indices_are_sorted=False,
            unique_indices=False):
    """``x`` with ``op`` ('set', 'add', 'mul', 'min', 'max') of ``values`` applied at
    ``x[key]`` (functional)."""
    x = to_array(x)
    aval = get_aval(x)
    shape, dtype = aval.shape, aval.dtype
    expanded, entries = _parse(shape, key, strict)
    basic = all(e.kind in ("new", "int", "dyn") or (e.kind == "slice" and _slice_params(
        e.slc, expanded[e.dim])[2] == 1 and not _slice_params(e.slc, expanded[e.dim])[3])
        for e in entries)
    if not strict and mode != _CLIP and any(e.kind == "dyn" for e in entries):
        basic = False      # traced scalars are dropped when out of bounds (JAX's .at)
    if basic:
        return _basic_update(x, expanded, entries, values, op, dtype)
    return _scatter_update(x, key, values, op, mode, strict, indices_are_sorted, unique_indices)


def _basic_update(x, expanded, entries, values, op, dtype):
    out_shape = _out_shape_basic(expanded, entries)
    v = _prepare_values(values, out_shape, dtype, get_aval(x).weak_type)
    if 0 in out_shape:
        return x
    block, starts = [], []
    for e in entries:
        if e.kind == "slice":
            s, l, _, _, size = _slice_params(e.slc, expanded[e.dim])
            block.append(size)
            starts.append(s)
        elif e.kind == "int":
            block.append(1)
            starts.append(e.value)
        elif e.kind == "dyn":
            block.append(1)
            starts.append(e.array)
    if op != "set":
        xe = x if expanded == get_aval(x).shape else lax.reshape(x, expanded)
        old = _basic_getitem(xe, entries)
        v = _combine(op, old, v)
    v = lax.reshape(v, tuple(block))
    shape = get_aval(x).shape
    xe = x if expanded == shape else lax.reshape(x, expanded)
    if tuple(block) == expanded and not any(isinstance(s, (Array, Tracer)) for s in starts):
        out = v
    else:
        out = lax.dynamic_update_slice(xe, v, starts)
    return out if expanded == shape else lax.reshape(out, shape)


def _flat_positions(shape, key, mode, strict):
    """The flat positions ``x[key]`` reads, as a host array when the key is concrete (and
    in bounds), else traced (out-of-bounds positions are ``size``, or clamped)."""
    size = int(np.prod(shape, dtype=np.int64))
    expanded, entries = _parse(shape, key, strict)
    concrete = all(e.kind != "dyn" and not (e.kind == "arr" and e.array is not None)
                   for e in entries)
    if concrete:
        np_key, ok = [], True
        for e in entries:
            if e.kind == "new":
                np_key.append(None)
            elif e.kind == "slice":
                np_key.append(slice(*(None if v is None else operator.index(v)
                                      for v in (e.slc.start, e.slc.stop, e.slc.step))))
            elif e.kind == "int":
                np_key.append(e.value)
            else:
                v = np.asarray(e.value).astype(np.int64)
                n = expanded[e.dim]
                if v.size and ((v < -n) | (v >= n)).any():
                    ok = False
                np_key.append(v)
        if ok:
            strides = np.cumprod((1,) + expanded[::-1][:-1])[::-1] if expanded else ()
            pos = np.zeros((), np.int64)
            for d, (n, st) in enumerate(zip(expanded, strides)):
                coord = (np.arange(n, dtype=np.int64) * int(st)).reshape(
                    [-1 if j == d else 1 for j in range(len(expanded))])
                pos = pos + np.broadcast_to(coord, expanded)[tuple(np_key)]
            if not expanded:
                pos = np.zeros((), np.int64)[tuple(np_key)]
            return np.asarray(pos), size
    dtype = _index_dtype(size)
    iota = lax.reshape(lax.iota(dtype, size), shape)
    pos = _getitem(iota, key, mode=_CLIP if mode == _CLIP else _FILL,
                   fill_value=size, strict=strict)
    return pos, size


def _scatter_update(x, key, values, op, mode, strict, sorted_, unique):
    aval = get_aval(x)
    shape, dtype = aval.shape, aval.dtype
    pos, size = _flat_positions(shape, key, mode, strict)
    out_shape = np.shape(pos) if isinstance(pos, np.ndarray) else get_aval(pos).shape
    v = _prepare_values(values, out_shape, dtype, aval.weak_type)
    count = int(np.prod(out_shape, dtype=np.int64))
    if count == 0 or size == 0:
        return x
    v = lax.reshape(v, (count,))
    if isinstance(pos, np.ndarray):
        flat = pos.reshape(-1)
        if op == "set":     # NumPy's last write wins: keep each position's last update
            rev_unique, first = np.unique(flat[::-1], return_index=True)
            if len(rev_unique) != count:
                keep = count - 1 - first
                v = _getitem(v, (keep,))
                flat = rev_unique
            unique = True
        else:
            unique = unique or len(np.unique(flat)) == count
        sorted_ = sorted_ or bool(np.all(flat[1:] >= flat[:-1]))
        idx = to_array(flat.reshape(-1, 1).astype(_index_dtype(size)))
    else:
        idx = lax.reshape(pos, (count, 1))
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,))
    flat_x = lax.reshape(x, (size,))
    out = _SCATTERS[op](flat_x, idx, v, dnums, indices_are_sorted=sorted_,
                        unique_indices=unique, mode="drop")
    return lax.reshape(out, shape)


def _host_key(key):
    """``key`` with concrete Arrays replaced by their host values, or None if it holds
    anything NumPy should not see (tracers, slices with array bounds)."""
    out = []
    for k in _as_key_tuple(key):
        if k is None or k is Ellipsis or isinstance(k, (int, np.integer, np.ndarray, bool)):
            out.append(k)
        elif type(k) is Array:
            out.append(k._value())
        elif isinstance(k, slice):
            if not all(v is None or isinstance(v, (int, np.integer))
                       for v in (k.start, k.stop, k.step)):
                return None
            out.append(k)
        elif isinstance(k, list):
            if any(isinstance(e, (Array, Tracer)) for e in _flat(k)):
                return None
            out.append(k)
        elif isinstance(k, range):
            out.append(k)
        else:
            return None
    return tuple(out)


def _eager_host(x):
    """The host value of ``x`` if indexing it may run NumPy directly: a CPU Array outside
    any transformation with the NumPy eager backend (DESIGN 3), else None."""
    if (type(x) is Array and state.dynamic is state.eval_main
            and config.eager_backend == "numpy" and x._on_host()):
        return x._value()
    return None


def getitem(self, key):
    """``x[key]`` with NumPy's semantics (see the module docstring for traced indices)."""
    host = _eager_host(self)
    if host is not None:
        hkey = _host_key(key)
        if hkey is not None:
            out = host[hkey]
            if not isinstance(out, np.ndarray):
                out = np.array(out)   # an element: a 0-d array
            # (basic indexing: a view Array, as the NumPy path's, committed or not)
            return self._index_result(out, host, ShapedArray(out.shape, self.aval.dtype,
                                                             self.aval.weak_type))
    mask = _traced_leading_mask(self, key)
    if mask is not None:
        return MaskedSelection(self, mask)
    out = _getitem(self, key)
    if isinstance(self, Tracer) and not isinstance(out, Tracer) and _is_basic(key):
        out = full_raise(self._trace, out)   # a view carries its link (a constant's view too)
    if (isinstance(out, Tracer) and out is not self and _is_basic(key)
            and (out.aval.shape or any(k is Ellipsis for k in _as_key_tuple(key)))):
        # a view: its updates are written back into ``self``, and it is read again when
        # ``self`` is updated later (its update stamp then differs; DESIGN 5). (A 0-d
        # result without an Ellipsis is NumPy's scalar, a copy: not a view.)
        out._view_of = (self, key, getattr(self, "_stamp", 0))
    return out


def _is_basic(key):
    for k in _as_key_tuple(key):
        if not (k is None or k is Ellipsis or type(k) is int or (
                type(k) is slice and all(type(v) in (int, type(None))
                                         for v in (k.start, k.stop, k.step)))):
            return False
    return True


pe.set_view_reader(read_view)
set_view_indexing(lambda base, key: _getitem(base, key),
                  lambda base, key, value: _update(base, key, value, "set"))


def setitem(self, key, value):
    """``x[key] = value``: NumPy semantics (value cast to x's dtype, last write wins for
    duplicate concrete indices); ``x`` is rebound to the updated array (DESIGN 5)."""
    host = _eager_host(self)
    if host is not None and (isinstance(value, (int, float, complex, bool, np.generic, np.ndarray))
                             or type(value) is Array):
        hkey = _host_key(key)
        if hkey is not None:
            if type(value) is Array:
                self._same_placement(value)
                value = value._value()
            # written into the buffer (copy-on-write), so views see it, as in NumPy
            self._writable()[hkey] = value
            return
    refresh(self)
    result = _masked_assignment(self, key, value)
    if result is None:
        result = _update(self, key, value, "set")
    rebind_or_raise(self, result, "x[key] = value")


def _traced_leading_mask(x, key):
    """The mask when ``key`` is one traced boolean array covering the leading axes of
    ``x`` (a 0-d mask covers none), else None."""
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if not isinstance(k, Tracer) or get_aval(k).dtype != np.bool_ or _concrete(k) is not None:
        return None
    mshape = get_aval(k).shape
    return k if mshape == get_aval(x).shape[:len(mshape)] else None


def _masked_assignment(x, key, value):
    """``x[mask] = value`` for a traced boolean ``mask`` as ``where(mask, value, x)``: no
    shape depends on the mask when ``value`` broadcasts to one selected element (a scalar,
    or the trailing dimensions the mask does not cover), or is ``x[mask]`` computed on
    elementwise (a ``MaskedSelection``). None when ``key`` is not such a mask."""
    k = _traced_leading_mask(x, key)
    if k is None:
        if isinstance(value, MaskedSelection):
            raise NonConcreteBooleanIndexError(
                "a selection x[mask] by a traced mask can only be assigned back through "
                "that same mask (x[mask] = f(x[mask])); use numpy.where(mask, new, x)")
        return None   # the general path raises its named error
    if isinstance(value, MaskedSelection):
        return value.assigned_into(x, k)
    shape = get_aval(x).shape
    mshape = get_aval(k).shape
    trailing = shape[len(mshape):]
    v = to_array(value)
    try:
        fits = np.broadcast_shapes(get_aval(v).shape, trailing) == trailing
    except ValueError:
        fits = False
    if not fits:
        raise NonConcreteBooleanIndexError(
            f"x[mask] = value with a traced boolean mask of shape {mshape}: the value (shape "
            f"{get_aval(v).shape}) must be a scalar or broadcast to the dimensions after the "
            f"mask's ({trailing}), so that no shape depends on the mask; use "
            f"numpy.where(mask, new, x) instead")
    dtype = get_aval(x).dtype
    if get_aval(v).dtype != dtype:
        v = lax.convert_element_type(v, dtype, get_aval(x).weak_type)
    m = lax.broadcast_in_dim(k, shape, tuple(range(len(mshape))))
    return lax.select_n(m, x, lax.broadcast_to_shape(v, shape))


def iterate(self):
    shape = get_aval(self).shape
    if not shape:
        raise TypeError("iteration over a 0-d array")
    return (getitem(self, i) for i in range(shape[0]))


class _IndexUpdateHelper:
    """``x.at``: ``x.at[key]`` gives the functional update methods (as in JAX)."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, key):
        return _IndexUpdateRef(self.array, key)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """``x.at[key]``: ``get``, ``set``, ``add``, ``subtract``, ``multiply``, ``divide``,
    ``power``, ``min``, ``max``, ``apply``; each returns a new array. Out-of-bounds
    indices (even concrete ones) are dropped by default (``mode='drop'``); ``mode='clip'``
    clamps them. Negative indices count from the end."""
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None):
        """``x[key]``; ``mode='fill'`` returns ``fill_value`` (default NaN, or the
        dtype's extreme for integers) for out-of-bounds indices, ``'clip'`` clamps."""
        if mode is None or mode in ("promise_in_bounds",):
            return _getitem(self.array, self.index, indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices)
        if mode not in (_FILL, _CLIP, "drop"):
            raise ValueError(f"unknown mode {mode!r} for .at[].get: use 'fill' or 'clip'")
        return _getitem(self.array, self.index, mode=_CLIP if mode == _CLIP else _FILL,
                        fill_value=fill_value, strict=False,
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)

    def _do(self, op, values, mode, indices_are_sorted, unique_indices):
        if mode not in (None, "drop", "fill", _CLIP, "promise_in_bounds"):
            raise ValueError(f"unknown mode {mode!r} for .at[] updates: use 'drop' or 'clip'")
        return _update(self.array, self.index, values, op,
                       mode=_CLIP if mode == _CLIP else None, strict=False,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] = values``, functionally."""
        return self._do("set", values, mode, indices_are_sorted, unique_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] += values``; duplicate indices accumulate (like ``np.add.at``)."""
        return self._do("add", values, mode, indices_are_sorted, unique_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] -= values``; duplicates accumulate."""
        return self._do("add", negative(values), mode, indices_are_sorted, unique_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] *= values``; duplicates accumulate (like ``np.multiply.at``)."""
        return self._do("mul", values, mode, indices_are_sorted, unique_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] /= values`` (a multiplication by the reciprocal; inexact x only)."""
        dtype = get_aval(to_array(self.array)).dtype
        if not dtypes.is_inexact(dtype):
            raise TypeError(f"x.at[].divide needs an inexact array, got {dtype.name} "
                            f"(NumPy cannot cast the quotient back to it either)")
        vals = reciprocal(to_array(values, dtype=dtype))
        return self._do("mul", vals, mode, indices_are_sorted, unique_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] **= values`` (for duplicate indices the last update wins)."""
        return self.apply(lambda old: power(old, values), indices_are_sorted=indices_are_sorted,
                          unique_indices=unique_indices, mode=mode)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] = minimum(x[key], values)``; duplicates all take part."""
        return self._do("min", values, mode, indices_are_sorted, unique_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] = maximum(x[key], values)``; duplicates all take part."""
        return self._do("max", values, mode, indices_are_sorted, unique_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] = func(x[key])`` (``func`` applied once per selected element)."""
        old = _getitem(self.array, self.index, mode=_CLIP, strict=False)
        return self._do("set", func(old), mode, indices_are_sorted, unique_indices)


def at(self):
    return _IndexUpdateHelper(self)


def _rebind_arg(a, result, name):
    """NumPy mutates ``a`` in place and returns None: a minijax array is rebound (as by
    setitem), a NumPy array written into."""
    if isinstance(a, (Array, Tracer)):
        rebind_or_raise(a, result, name)
        return None
    values = get_concrete(result)
    if values is None:
        raise TypeError(f"{name}: a NumPy array cannot be updated in place with traced "
                        f"values; pass it to the transformed function as an argument (or "
                        f"use inplace=False, which returns the new array)")
    a[...] = values
    return None


def _axis(axis, ndim):
    return canonicalize_axis(axis, ndim)


def _mode_indices(indices, n, mode):
    """Apply NumPy's ``mode`` ('raise', 'wrap', 'clip') to integer indices for an axis of
    size ``n``; returns (indices, strict)."""
    if mode in (None, "raise"):
        return indices, True
    i = to_array(indices)
    if not _is_int_dtype(get_aval(i).dtype):
        raise IndexError(_BAD_INDEX)
    dtype = get_aval(i).dtype
    shape = get_aval(i).shape
    if mode == "wrap":
        if n == 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        r = lax.rem(i, lax.full(shape, n, dtype))
        return lax.select_n(lax.lt(r, lax.full(shape, 0, dtype)), r,
                            lax.add(r, lax.full(shape, n, dtype))), True
    if mode == "clip":
        return lax.max(lax.min(i, lax.full(shape, builtins.max(n - 1, 0), dtype)),
                       lax.full(shape, 0, dtype)), True
    if mode == "fill":
        return i, False
    raise ValueError(f"mode must be 'raise', 'wrap', 'clip' or 'fill', got {mode!r}")


@supports_out
def take(a, indices, axis=None, out=None, mode=None, fill_value=None, *,
         unique_indices=False, indices_are_sorted=False):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` if None).

    ``mode``: None/'raise' (NumPy: concrete out-of-bounds indices raise, traced ones are
    clamped), 'wrap', 'clip' (negative indices clip to 0, as in NumPy) or 'fill'
    (``fill_value`` for out-of-bounds indices, as JAX). ``unique_indices`` and
    ``indices_are_sorted`` (JAX's) promise that of the indices, for the gather."""
    a = to_array(a)
    if axis is None:
        a = lax.reshape(a, (get_aval(a).size,))
        axis = 0
    axis = _axis(axis, get_aval(a).ndim)
    n = get_aval(a).shape[axis]
    idx, strict = _mode_indices(indices, n, mode)
    key = (slice(None),) * axis + (_as_index_array(idx),)
    hints = dict(unique_indices=_checks.flag(unique_indices, "unique_indices"),
                 indices_are_sorted=_checks.flag(indices_are_sorted, "indices_are_sorted"))
    if mode == "fill":
        return _getitem(a, key, mode=_FILL, fill_value=fill_value, strict=False, **hints)
    return _getitem(a, key, strict=strict, **hints)


def _as_index_array(i):
    if isinstance(i, (int, np.integer)):
        return i
    if isinstance(i, (Array, Tracer, np.ndarray)):
        return i
    return np.asarray(i)


def _along_axis_key(shape, indices, axis):
    ndim = len(shape)
    ishape = get_aval(indices).shape
    if len(ishape) != ndim:
        raise ValueError(f"`indices` and `arr` must have the same number of dimensions, got "
                         f"{len(ishape)} and {ndim}")
    key = []
    for d in range(ndim):
        if d == axis:
            key.append(indices)
        else:
            key.append(np.arange(shape[d]).reshape([-1 if j == d else 1 for j in range(ndim)]))
    return tuple(key)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """``arr`` indexed by ``indices`` along ``axis`` (other axes broadcast), as NumPy; with
    ``axis=None`` the flattened ``arr``. ``wrap_negative_indices=False`` (JAX's keyword)
    makes negative indices out of bounds (``mode`` then says what they give) instead of
    counting from the end."""
    arr, indices = to_array(arr), to_array(indices)
    if axis is None:
        arr = lax.reshape(arr, (get_aval(arr).size,))
        axis = 0
    shape = get_aval(arr).shape
    axis = _axis(axis, len(shape))
    if not _is_int_dtype(get_aval(indices).dtype):
        raise IndexError("`indices` must be an integer array")
    if mode not in (None, _CLIP, _FILL, "drop", "promise_in_bounds"):
        raise ValueError(f"take_along_axis: unknown mode {mode!r}; use 'clip', 'fill' (or "
                         f"'drop'), 'promise_in_bounds', or None (out-of-bounds indices "
                         f"raise IndexError)")
    n = shape[axis]
    if wrap_negative_indices is False or mode in (_CLIP, "promise_in_bounds"):
        indices = lax.convert_element_type(indices, np.int64)
        negative = lax.lt(indices, lax.full_like(indices, 0))
        if wrap_negative_indices is False:   # out of bounds: past the end (clip: to 0)
            given = get_concrete(indices) if mode is None else None
            if given is not None and (np.asarray(given) < 0).any():
                raise IndexError(f"index {int(np.min(given))} is out of bounds for axis "
                                 f"{axis} with wrap_negative_indices=False")
            beyond = 0 if mode in (_CLIP, "promise_in_bounds") else n
            indices = lax.select_n(negative, indices, lax.full_like(indices, beyond))
        else:
            indices = lax.select_n(negative, indices, lax.add(indices, lax.full_like(indices, n)))
        if mode in (_CLIP, "promise_in_bounds"):
            indices = lax.clamp(lax.full_like(indices, 0), indices,
                                lax.full_like(indices, max(n - 1, 0)))
    key = _along_axis_key(shape, indices, axis)
    if mode in (_FILL, "drop"):
        return _getitem(arr, key, mode=_FILL, fill_value=fill_value, strict=False)
    return _getitem(arr, key)


def put_along_axis(arr, indices, values, axis, inplace=True, mode=None):
    """``arr`` with ``values`` written at ``indices`` along ``axis``, in place as NumPy's
    (a minijax ``arr`` is rebound, as by ``arr[...] = v``; None is returned), or as a new
    array with JAX's ``inplace=False``. An index out of bounds raises NumPy's IndexError (a traced one is
    dropped); JAX's ``mode`` 'clip' clamps it, 'drop' or 'fill' drop it."""
    if mode not in (None, "drop", "fill", _CLIP, "promise_in_bounds"):
        raise ValueError(f"put_along_axis: unknown mode {mode!r}; use 'clip', 'drop' or "
                         f"'fill' (or None: out-of-bounds indices raise IndexError)")
    a, indices = to_array(arr), to_array(indices)
    if axis is None:
        a = lax.reshape(a, (get_aval(a).size,))
        axis = 0
    shape = get_aval(a).shape
    axis = _axis(axis, len(shape))
    key = _along_axis_key(shape, indices, axis)
    result = _update(a, key, values, "set", mode=_CLIP if mode == _CLIP else None,
                     strict=mode in (None, "promise_in_bounds"))
    result = lax.reshape(result, get_aval(to_array(arr)).shape)
    return _rebind_arg(arr, result, "put_along_axis") if inplace else result


def _check_updatable(name, a, inplace):
    if inplace and not isinstance(a, (Array, Tracer, np.ndarray)):
        raise TypeError(f"{name}() argument 1 must be an array (it is updated in place), "
                        f"not {type(a).__name__}")


def put(a, ind, v, mode="raise", inplace=True):
    """Write ``v`` (repeated as needed) at the flat positions ``ind`` of ``a``, in place as
    NumPy's (None is returned), or into a new array with JAX's ``inplace=False``."""
    _check_updatable("put", a, inplace)
    x = to_array(a)
    aval = get_aval(x)
    flat = lax.reshape(x, (aval.size,))
    ind = to_array(ind)
    host = _concrete(ind)   # flattened on the host, a concrete index stays checkable
    ind = (to_array(host.reshape(-1)) if host is not None
           else lax.reshape(ind, (get_aval(ind).size,)))
    idx, strict = _mode_indices(ind, aval.size, mode)
    m = get_aval(idx).shape[0]
    vals = to_array(v, dtype=aval.dtype)
    vals = lax.reshape(vals, (get_aval(vals).size,))
    k = get_aval(vals).shape[0]
    if not m or not k:   # (NumPy writes nothing)
        return None if inplace else x
    if k != m:
        vals = _getitem(vals, (np.arange(m) % k,))
    result = lax.reshape(_update(flat, (idx,), vals, "set", strict=strict), aval.shape)
    return _rebind_arg(a, result, "put") if inplace else result


def _concrete_bool(x, name, sized=False):
    """The value of the condition ``x``; a named error if it is traced (``sized``: the
    function takes ``size=``, which the error offers)."""
    x = to_array(x)
    value = _concrete(x)
    if value is None:
        offer = "Give a static size= (and fill_value= to choose the padding), use" if sized \
            else "Use"
        raise NonConcreteBooleanIndexError(
            f"{name} needs a concrete condition: the result's shape depends on its values. "
            f"{_reason(x)}{offer} numpy.where instead, or make the condition static.")
    return value


def _reason(x):
    """Why traced ``x`` is not concrete (a sentence and a space), or nothing."""
    return x.abstract_reason_text() + " " if isinstance(x, Tracer) else ""


@supports_out
def compress(condition, a, axis=None, out=None, *, size=None, fill_value=0):
    """The slices of ``a`` along ``axis`` where ``condition`` (a 1-d mask) is true; a mask
    shorter than the axis counts as False beyond its end. The number of slices depends on
    the mask, so a traced one needs a static ``size=``, as in JAX: the first ``size``
    slices, padded with ``fill_value``."""
    a = to_array(a)
    if axis is None:
        a = lax.reshape(a, (get_aval(a).size,))
        axis = 0
    axis = _axis(axis, get_aval(a).ndim)
    n = get_aval(a).shape[axis]
    if size is None:
        c = _concrete_bool(condition, "compress", sized=True).astype(bool)
        if c.ndim != 1:
            raise ValueError("condition must be a 1-d array")
        _check_mask_tail(c, n, axis)
        return take(a, np.nonzero(c[:n])[0], axis=axis)
    c = to_array(condition)
    if get_aval(c).ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return _select_sized(a, _mask_within(c, n, axis), axis, size, fill_value, "compress")


def _check_mask_tail(c, n, axis):
    """NumPy's IndexError for a true entry of a concrete mask past the axis's end."""
    if len(c) > n and c[n:].any():
        raise IndexError(f"index {int(np.nonzero(c)[0][-1])} is out of bounds for axis "
                         f"{axis} with size {n}")


def _mask_within(c, n, axis):
    """The 1-d condition ``c`` as a boolean mask of length ``n`` (False past its end;
    entries past ``n`` must be false, which is checked when they are concrete)."""
    length = get_aval(c).shape[0]
    if length > n:
        value = _concrete(c)
        if value is not None:
            _check_mask_tail(np.asarray(value).astype(bool), n, axis)
        c = lax.slice(c, (0,), (n,))
    mask = lax.ne(c, lax.full(get_aval(c).shape, 0, get_aval(c).dtype))
    if length < n:
        mask = lax.pad(mask, np.False_, [(0, n - length, 0)])
    return mask


def _select_sized(a, mask, axis, size, fill_value, name):
    """The slices of ``a`` along ``axis`` where ``mask``, the first ``size`` of them,
    padded with ``fill_value``."""
    size = static_size(size, name)
    positions, real = true_positions(mask, size)
    aval = get_aval(a)
    fill = to_array(fill_value, dtype=aval.dtype)
    if get_aval(fill).ndim:
        raise ValueError(f"{name}: fill_value= must be a scalar")
    shape = aval.shape[:axis] + (size,) + aval.shape[axis + 1:]
    if aval.shape[axis] == 0:
        return lax.broadcast_in_dim(fill, shape, ())
    picked = take(a, positions, axis=axis)
    return lax.select_n(lax.broadcast_in_dim(real, shape, (axis,)),
                        lax.broadcast_in_dim(fill, shape, ()), picked)


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of ``arr`` where ``condition`` is nonzero, flattened. A traced
    condition needs a static ``size=``, as in JAX: the first ``size`` elements, padded
    with ``fill_value``."""
    a = to_array(arr)
    a = lax.reshape(a, (get_aval(a).size,))
    if size is None:
        c = _concrete_bool(condition, "extract", sized=True)
        return _getitem(a, (np.nonzero(c.reshape(-1))[0],))
    c = to_array(condition)
    c = lax.reshape(c, (get_aval(c).size,))
    return _select_sized(a, _mask_within(c, get_aval(a).size, 0), 0, size, fill_value,
                         "extract")


def place(arr, mask, vals, inplace=True):
    """Write ``vals`` (repeated as needed) where ``mask`` is true, in place as NumPy's
    (None is returned), or into a new array with ``inplace=False``."""
    _check_updatable("place", arr, inplace)
    x = to_array(arr)
    aval = get_aval(x)
    mask = to_array(mask)
    mask_size = get_aval(mask).size
    if mask_size != aval.size:
        raise ValueError(f"place: mask and data must be the same size (mask has "
                         f"{mask_size} elements, arr has {aval.size}); NumPy does not "
                         f"broadcast the mask")
    vals = to_array(vals, dtype=aval.dtype)
    vals = lax.reshape(vals, (get_aval(vals).size,))
    k = get_aval(vals).shape[0]
    flat = lax.reshape(x, (aval.size,))
    value = _concrete(mask)
    if value is None:   # the i-th true entry takes vals[i % k]
        if k == 0:
            raise ValueError("Cannot insert from an empty array! (place with a traced "
                             "mask needs at least one value)")
        m = lax.reshape(lax.ne(mask, lax.full(get_aval(mask).shape, 0, get_aval(mask).dtype)),
                        (aval.size,))
        rank = lax.cumsum(lax.convert_element_type(m, dtypes.default_int()), 0)
        slot = lax.rem(rank + (k - 1), lax.full((aval.size,), k, get_aval(rank).dtype))
        picked = _getitem(vals, (slot,))
        result = lax.reshape(lax.select_n(m, flat, picked), aval.shape)
    else:
        positions = np.nonzero(np.asarray(value).astype(bool).reshape(-1))[0]
        if len(positions) == 0:
            return None if inplace else x
        if k == 0:
            raise ValueError("Cannot insert from an empty array!")
        vals = _getitem(vals, (np.arange(len(positions)) % k,))
        result = lax.reshape(_update(flat, (positions,), vals, "set"), aval.shape)
    return _rebind_arg(arr, result, "place") if inplace else result


def _broadcast_all(*xs):
    return broadcast_arrays(*[to_array(x) for x in xs])


@supports_out
def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every ``i`` (all broadcast together); ``mode`` 'raise',
    'wrap' or 'clip' treats out-of-range ``a`` (traced 'raise' clamps)."""
    if isinstance(choices, (Array, Tracer, np.ndarray)):
        if get_aval(to_array(choices)).ndim == 0:
            raise TypeError("choose: choices must be a sequence of arrays or an array of at "
                            "least one dimension (iteration over a 0-d array)")
        choices = [choices[i] for i in range(get_aval(to_array(choices)).shape[0])]
    elif isinstance(choices, (list, tuple)):
        choices = list(choices)
    else:
        raise TypeError(f"choose: choices must be a sequence of arrays, got "
                        f"{type(choices).__name__}")
    if not choices:
        raise ValueError("choose: choices must hold at least one array")
    n = len(choices)
    choices = promote(*choices)
    a = to_array(a)
    if not _is_int_dtype(get_aval(a).dtype):
        raise TypeError(f"choose: the index array must be integer, got {get_aval(a).dtype}")
    known = get_concrete(a)
    if mode in (None, "raise") and known is not None and np.any(
            (np.asarray(known) < 0) | (np.asarray(known) >= n)):
        raise ValueError("invalid entry in choice array")
    a, strict = _mode_indices(a, n, mode)
    arrs = _broadcast_all(a, *choices)
    a, choices = arrs[0], arrs[1:]
    shape = get_aval(a).shape
    stacked = lax.concatenate([lax.reshape(c, (1,) + shape) for c in choices], 0)
    key = (lax.reshape(a, (1,) + shape) if not isinstance(a, np.ndarray) else a[None],)
    key = _along_axis_key((n,) + shape, key[0], 0)
    try:
        out = _getitem(stacked, key, strict=strict)
    except IndexError:
        raise ValueError("invalid entry in choice array") from None
    return lax.reshape(out, shape)


def select(condlist, choicelist, default=0):
    """``choicelist[i]`` where ``condlist[i]`` is the first true condition, else
    ``default`` (NumPy's select)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    dtype, weak = result_type_of(*choicelist, default)
    out = to_array(default)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        c = to_array(cond)
        if get_aval(c).dtype != np.bool_:
            raise TypeError(f"invalid entry in condlist: should be boolean ndarray, got "
                            f"{get_aval(c).dtype}")
        out = where(c, choice, out)
    if get_aval(out).dtype != dtype:
        out = lax.convert_element_type(out, dtype, weak)
    return out


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n``-by-...-by-``n`` array (``ndim`` times
    ``arange(n)``)."""
    i = to_array(np.arange(operator.index(n)))
    return (i,) * ndim


def diag_indices_from(arr):
    shape = get_aval(to_array(arr)).shape
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length (and at least 2)")
    return diag_indices(shape[0], len(shape))


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an (n, m) array (static)."""
    return tuple(to_array(i) for i in np.tril_indices(operator.index(n), operator.index(k), m))


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an (n, m) array (static)."""
    return tuple(to_array(i) for i in np.triu_indices(operator.index(n), operator.index(k), m))


def _matrix_shape(arr):
    shape = get_aval(to_array(arr)).shape
    if len(shape) != 2:
        raise ValueError(f"input array must be 2-d, got shape {shape}")
    return shape


def tril_indices_from(arr, k=0):
    """The indices of the lower triangle of the 2-d ``arr`` (at and below diagonal k)."""
    n, m = _matrix_shape(arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
    """The indices of the upper triangle of the 2-d ``arr`` (at and above diagonal k)."""
    n, m = _matrix_shape(arr)
    return triu_indices(n, k, m)


def ix_(*args):
    """An open mesh from 1-d sequences: ``x[ix_(rows, cols)]`` picks the cross product."""
    out = []
    n = len(args)
    for i, s in enumerate(args):
        if not isinstance(s, (Array, Tracer)):
            s = np.asarray(s)
            if s.dtype == object or (s.size == 0 and s.dtype.kind == "f"):
                s = s.astype(np.int64)
        s = to_array(s)
        aval = get_aval(s)
        if aval.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if aval.dtype == np.bool_:
            s = to_array(np.nonzero(_concrete_bool(s, "ix_"))[0])
            aval = get_aval(s)
        shape = (1,) * i + (aval.shape[0],) + (1,) * (n - i - 1)
        out.append(lax.reshape(s, shape))
    return tuple(out)


def unravel_index(indices, shape, order="C"):
    """The coordinates in an array of ``shape`` of flat ``indices`` (concrete indices are
    checked like NumPy; traced ones are clamped into range, like JAX)."""
    shape = _checks.shape(shape, "shape")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    value = _concrete(to_array(indices)) if not isinstance(indices, np.ndarray) else indices
    if value is not None:
        return tuple(to_array(c) for c in np.unravel_index(value, shape, order=order))
    i = to_array(indices)
    dtype = get_aval(i).dtype
    if not _is_int_dtype(dtype):
        raise TypeError("only int indices permitted")
    ishape = get_aval(i).shape
    size = int(np.prod(shape, dtype=np.int64))
    i = lax.max(lax.min(i, lax.full(ishape, builtins.max(size - 1, 0), dtype)),
                lax.full(ishape, 0, dtype))
    dims = list(enumerate(shape))
    out = [None] * len(shape)
    for d, n in (reversed(dims) if order == "C" else dims):
        nn = lax.full(ishape, builtins.max(n, 1), dtype)
        out[d] = lax.rem(i, nn)
        i = lax.div(i, nn)
    return tuple(out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices into an array of shape ``dims`` of the coordinate arrays
    ``multi_index``; ``mode`` 'raise' (concrete only checks; traced indices are
    clamped), 'wrap' or 'clip'."""
    dims = _checks.shape(dims, "dims")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    values = [_concrete(to_array(m)) if not isinstance(m, np.ndarray) else m
              for m in multi_index]
    if all(v is not None for v in values):
        return to_array(np.ravel_multi_index(tuple(values), dims, mode=mode, order=order))
    idx = []
    for m, n in zip(multi_index, dims):
        i, _ = _mode_indices(m, n, "clip" if mode == "raise" else mode)
        idx.append(lax.convert_element_type(i, dtypes.default_int()))
    idx = _broadcast_all(*idx)
    strides = np.cumprod((1,) + dims[::-1][:-1])[::-1] if order == "C" else \
        np.cumprod((1,) + dims[:-1])
    shape = get_aval(idx[0]).shape
    out = lax.full(shape, 0, dtypes.default_int())
    for i, s in zip(idx, strides):
        out = lax.add(out, lax.mul(i, lax.full(shape, int(s), dtypes.default_int())))
    return out
