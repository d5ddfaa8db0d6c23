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
  into the flattened array at the flat positions the key selects.

Out-of-bounds indices: concrete ones raise ``IndexError`` like NumPy. Traced indices
cannot be checked: ``x[i]`` clamps them (like JAX), ``x[i] = v`` and ``x.at[i].<op>``
drop out-of-bounds updates, except that a traced *scalar* index in a unit-step basic
key is a ``dynamic_update_slice``, which clamps. ``x.at[i].get(mode='fill')`` returns
``fill_value`` for them.
"""

import builtins
import operator

import numpy as np

from .. import dtypes, lax
from ..core import Tracer, get_aval, get_concrete
from ..errors import NonConcreteBooleanIndexError
from ..runtime.array import Array
from ._core import to_array

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
    return dtypes.default_int()


# ---------------------------------------------------------------- parsing a key

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
                    f"values. Use numpy.where(mask, x, other) (or x.at[...] with a "
                    f"computed index) instead, or make the mask static (static_argnums "
                    f"of jit, or compute it outside the traced function).")
            return ("bool0", bool(value)) if value.ndim == 0 else ("mask", value)
        if not _is_int_dtype(dtype):
            raise IndexError(_BAD_INDEX)
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


# ---------------------------------------------------------------- getitem

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
    idx, bshape, adv, concrete = _advanced_indices(entries, yshape, strict, idx_dtype)
    adv_dims = [e.dim for e in adv]
    rest = [d for d in range(len(yshape)) if d not in adv_dims]
    sizes = [1 if d in adv_dims else yshape[d] for d in range(len(yshape))]
    nb = len(bshape)
    out_shape = bshape + tuple(yshape[d] for d in rest)
    if any(yshape[d] == 0 for d in adv_dims):
        if int(np.prod(bshape)) and (concrete and strict):   # pragma: no cover (checked)
            raise IndexError("index out of bounds for an axis of size 0")
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


# ---------------------------------------------------------------- updates

def _prepare_values(values, out_shape, dtype):
    v = to_array(values)
    aval = get_aval(v)
    if aval.dtype != dtype:
        v = lax.convert_element_type(v, dtype)
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
    v = _prepare_values(values, out_shape, dtype)
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
    v = _prepare_values(values, out_shape, dtype)
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


# ---------------------------------------------------------------- the Array protocol

def getitem(self, key):
    """``x[key]`` with NumPy's semantics (see the module docstring for traced indices)."""
    return _getitem(self, key)


def rebind_or_raise(self, result, what):
    if type(result) is type(self) and (not isinstance(self, Tracer)
                                       or result._trace.main is self._trace.main):
        self._rebind(result)
        return
    from ..errors import MinijaxTypeError
    raise MinijaxTypeError(
        f"{what}: the array being updated is {'a concrete Array' if isinstance(self, Array) else type(self).__name__} "
        f"but the update makes it a traced value ({type(result).__name__}) of an inner "
        f"transformation, and an array cannot turn into a traced value in place. Create "
        f"the array from traced values (for example zeros_like of a traced argument) or "
        f"write x = x.at[key].set(value) instead.")


def setitem(self, key, value):
    """``x[key] = value``: NumPy semantics (value cast to x's dtype, last write wins for
    duplicate concrete indices); ``x`` is rebound to the updated array (DESIGN 5)."""
    result = _update(self, key, value, "set")
    rebind_or_raise(self, result, "x[key] = value")


def iterate(self):
    shape = get_aval(self).shape
    if not shape:
        raise TypeError("iteration over a 0-d array")
    return (_getitem(self, i) for i in range(shape[0]))


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
        from ._elementwise import negative
        return self._do("add", negative(values), mode, indices_are_sorted, unique_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] *= values``; duplicates accumulate (like ``np.multiply.at``)."""
        return self._do("mul", values, mode, indices_are_sorted, unique_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] /= values`` (a multiplication by the reciprocal; inexact x only)."""
        from ._elementwise import reciprocal
        dtype = get_aval(to_array(self.array)).dtype
        if not dtypes.is_inexact(dtype):
            raise TypeError(f"x.at[].divide needs an inexact array, got {dtype.name} "
                            f"(NumPy cannot cast the quotient back to it either)")
        vals = reciprocal(to_array(values, dtype=dtype))
        return self._do("mul", vals, mode, indices_are_sorted, unique_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[key] **= values`` (for duplicate indices the last update wins)."""
        from ._elementwise import power
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
