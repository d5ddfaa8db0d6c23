"""Collectives over the named axes of a ``shard_map`` (or ``pmap``) body: ``psum``,
``pmean``, ``pmax``, ``pmin``, ``all_gather``, ``psum_scatter``, ``all_to_all``,
``ppermute``, ``axis_index`` and ``axis_size``.

A body is traced with its mesh axes bound (``axis_frame``); each collective reads the
sizes of the axes it names there and records them in its parameters, so its rules never
need the binding again. Each lowers to one StableHLO collective of the SPMD program over
replica groups of the mesh's device positions (the program's partition numbers), with a
channel handle and ``use_global_device_ids`` (the form XLA's partitioner accepts in a
manual region; ``ModuleContext.manual_mesh`` is the mesh of the enclosing body).

Derivatives see the body as one function per device (pmap's view): psum's transpose is
psum, all_gather's is psum_scatter, ppermute's is the inverse permutation, all_to_all's
the swapped all_to_all. The ``shard_map`` transpose makes that the derivative of the
global function: it shares a replicated output's cotangent among its copies and sums a
replicated input's cotangents over them.
"""

import contextlib
import math
import operator
import threading

import numpy as np

from .. import dtypes
from ..core import Primitive, Tracer, full_raise, get_aval
from ..core.avals import ShapedArray
from ..errors import UnboundAxisNameError
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir, ir_constant, ir_type, maximum, minimum
from ..runtime.dispatch import as_array
from .. import tree_util
from .elementwise import add, convert_element_type, div, eq, mul
from .reductions import reduce_max, reduce_min, reduce_sum
from .shapes import broadcast_in_dim, expand_dims, full, iota, reshape, squeeze
from .slicing import concatenate, index_in_dim


# ---------------------------------------------------------------- the bound axes

class _AxisEnv(threading.local):
    def __init__(self):
        self.frames = []


_env = _AxisEnv()


class _Frame(dict):
    """The axes one body binds; ``partial``: a shard_map manual over only some axes."""

    partial = False


@contextlib.contextmanager
def axis_frame(sizes, partial=False):
    """Bind the axis names of ``sizes`` (``{name: size}``) while a body is traced
    (``partial``: the body of a shard_map that leaves other mesh axes automatic)."""
    frame = _Frame(sizes)
    frame.partial = partial
    _env.frames.append(frame)
    try:
        yield
    finally:
        _env.frames.pop()


def in_manual_body():
    """Whether a shard_map (or pmap) body is being traced (vmap's names aside)."""
    return any(not isinstance(v, _VmapAxis) for f in _env.frames for v in f.values())


class _VmapAxis:
    """A name bound by ``vmap(..., axis_name=)``: its size and the batch trace."""

    __slots__ = ("size", "trace")

    def __init__(self, size, trace):
        self.size = size
        self.trace = trace


@contextlib.contextmanager
def vmap_axis_frame(name, size, trace):
    """Bind ``name`` to the batch axis of ``trace`` (``vmap(..., axis_name=name)``)."""
    with axis_frame({name: _VmapAxis(size, trace)}):
        yield


def _lookup(name):
    for frame in reversed(_env.frames):
        if name in frame:
            return frame[name]
    known = sorted({str(k) for f in _env.frames for k in f})
    raise UnboundAxisNameError(f"unbound axis name: {name}. The following axis names (e.g. defined "
                    f"by pmap) are available to collective operations: {known}")


def _vmap_axis(axis_name, what):
    """The ``_VmapAxis`` ``axis_name`` names, None for mesh axes."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    found = [_lookup(n) for n in names]
    vmapped = [f for f in found if isinstance(f, _VmapAxis)]
    if not vmapped:
        return None
    if len(found) > 1:
        raise NotImplementedError(f"{what}: a collective over several axes one of which is "
                                  f"a vmap axis is not supported; name one vmap axis")
    return vmapped[0]


def _bound(axis_name, what):
    """``(names, group size)`` of ``axis_name`` (a name or a tuple of names)."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: axis_name {axis_name!r} names an axis twice")
    size = 1
    for n in names:
        found = _lookup(n)
        size *= found.size if isinstance(found, _VmapAxis) else found
    return names, size


def _index_groups(axis_index_groups, axis_size, what, equal=True):
    """``axis_index_groups`` checked (a partition of the indices along the named axes,
    groups of one size unless ``equal`` is False) as a tuple of tuples, or None."""
    if axis_index_groups is None:
        return None
    try:
        groups = tuple(tuple(operator.index(i) for i in g) for g in axis_index_groups)
    except TypeError:
        raise TypeError(f"{what}: axis_index_groups must be a list of lists of axis indices "
                        f"(e.g. [[0, 1], [2, 3]]), got {axis_index_groups!r}") from None
    if sorted(i for g in groups for i in g) != list(range(axis_size)) or not all(groups):
        raise ValueError(f"axis_index_groups must cover all indices exactly once: {what} got "
                         f"{[list(g) for g in groups]} for an axis of size {axis_size}; give "
                         f"each index 0..{axis_size - 1} to exactly one group")
    if equal and len({len(g) for g in groups}) > 1:
        raise ValueError(f"axis_index_groups must all be the same size for {what}: got "
                         f"groups of sizes {[len(g) for g in groups]}")
    return groups


def _no_vmap_groups(vm, groups, what):
    if vm is not None and groups is not None:
        raise NotImplementedError(f"{what}: axis_index_groups not supported in vmap "
                                  f"collectives (an axis named by vmap(axis_name=)); leave "
                                  f"it None there")


def _named_axes(axis_name, axis_index_groups, what, equal=True):
    """``(axes, size, groups, vm)`` of a collective: the mesh axes it runs over, the number
    of devices in each of its groups, its checked ``axis_index_groups`` (None) and the
    ``vmap`` axis it names instead (None)."""
    axes, size = _bound(axis_name, what)
    groups = _index_groups(axis_index_groups, size, what, equal=equal)
    vm = _vmap_axis(axis_name, what)
    _no_vmap_groups(vm, groups, what)
    return axes, (size if groups is None else len(groups[0])), groups, vm


def _on_batch(vm, leaf, fn):
    """A collective over a vmap axis: ``fn(v, size) -> (value, batch dim or None)`` on
    the value ``v`` of ``leaf`` with the batch axis first (the whole batch at once)."""
    t = full_raise(vm.trace, as_array(leaf))
    v, d = t.val, t.batch_dim
    if d is batching.not_mapped:
        shape = get_aval(v).shape
        v = broadcast_in_dim(v, (vm.size, *shape), tuple(range(1, len(shape) + 1)))
    else:
        v = batching.moveaxis(v, d, 0)
    out, out_dim = fn(v, vm.size)
    return batching.BatchTracer(vm.trace, out, out_dim)


# ---------------------------------------------------------------- lowering helpers

def _mesh(ctx, what):
    mesh = ctx.module_ctx.manual_mesh
    if mesh is None:
        raise NameError(f"{what}: a collective over named axes is lowered only inside a "
                        f"shard_map (or pmap) body")
    return mesh


def replica_groups(mesh, axes, groups=None):
    """One row per group of devices that talk over ``axes``: their positions in the
    mesh's flat order, ordered by the index along ``axes`` (the first axis major).
    With ``groups`` (``axis_index_groups``), each such row splits into one row per
    group, in the group's order; shorter rows are padded with -1 (XLA's form)."""
    names = mesh.axis_names
    inner = [names.index(a) for a in axes]
    outer = [i for i in range(len(names)) if i not in inner]
    pos = np.arange(mesh.size, dtype=np.int64).reshape(mesh.devices.shape)
    width = math.prod(mesh.devices.shape[i] for i in inner)
    rows = pos.transpose(outer + inner).reshape(-1, width)
    if groups is None:
        return rows
    out = np.full((len(rows) * len(groups), max(map(len, groups))), -1, np.int64)
    for r, row in enumerate(rows):
        for k, g in enumerate(groups):
            out[r * len(groups) + k, :len(g)] = row[list(g)]
    return out


def _groups_attr(ctx, axes, what, groups=None):
    return ir.DenseIntElementsAttr.get(np.ascontiguousarray(
        replica_groups(_mesh(ctx, what), axes, groups)))


def _channel(ctx):
    return hlo.ChannelHandle.get(ctx.module_ctx.next_channel(), 1)


def _add_region(op, dtype, combine):
    scalar = ir_type(ShapedArray((), dtype))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([combine(*block.arguments)])


def _all_reduce_lowering(name, combine):
    def lower(ctx, x, *, axes, size, groups):
        aval = ctx.avals_in[0]
        op = hlo.AllReduceOp([ir_type(aval)], [x], _groups_attr(ctx, axes, name, groups),
                             channel_handle=_channel(ctx), use_global_device_ids=True)
        _add_region(op, aval.dtype, combine)
        return [op.results[0]]
    return lower


# ---------------------------------------------------------------- psum, pmax, pmin

def _check_numeric(x, what, allow_complex=True):
    dt = x.dtype
    if dt == np.bool_ or not (dtypes.is_inexact(dt) or np.issubdtype(dt, np.integer)):
        raise TypeError(f"{what} takes numeric arrays, got dtype {dt}")
    if not allow_complex and dtypes.is_complex(dt):
        raise TypeError(f"{what} does not take complex arrays (no order), got dtype {dt}")


def _reduce_batch(p):
    def batch(axis_size, args, dims, **params):
        return [p.bind(args[0], **params)], [dims[0]]
    return batch


psum_p = Primitive("psum")
psum_p.abstract_eval = lambda x, *, axes, size, groups: [x]
psum_p.lower = _all_reduce_lowering("psum", hlo.add)
psum_p.batch = _reduce_batch(psum_p)
ad.deflinear(psum_p, lambda cts, x, **params: [psum_p.bind(cts[0], **params)])


def _chooser_jvp(p):
    # The derivative flows from the devices holding the extreme value, shared equally
    # among ties (as reduce_max's JVP does).
    def jvp(primals, tangents, **params):
        x, = primals
        t, = tangents
        out = p.bind(x, **params)
        if type(t) is ad.Zero:
            return [out], [t]
        mask = convert_element_type(eq(x, out), x.dtype)
        num = psum_p.bind(mul(t, mask), **params)
        return [out], [div(num, psum_p.bind(mask, **params))]
    return jvp


pmax_p = Primitive("pmax")
pmax_p.abstract_eval = lambda x, *, axes, size, groups: [x]
pmax_p.lower = _all_reduce_lowering("pmax", maximum)
pmax_p.batch = _reduce_batch(pmax_p)
pmax_p.jvp = _chooser_jvp(pmax_p)

pmin_p = Primitive("pmin")
pmin_p.abstract_eval = lambda x, *, axes, size, groups: [x]
pmin_p.lower = _all_reduce_lowering("pmin", minimum)
pmin_p.batch = _reduce_batch(pmin_p)
pmin_p.jvp = _chooser_jvp(pmin_p)


def _leafwise(x, fn):
    leaves, tree = tree_util.tree_flatten(x)
    return tree_util.tree_unflatten(tree, [fn(leaf) for leaf in leaves])


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` (a pytree) over the devices along ``axis_name`` (a name or a
    tuple of names); a value that is not traced (a constant) is multiplied by the size.
    ``axis_index_groups`` (a partition of the indices along the axis, e.g. ``[[0, 1],
    [2, 3]]``) sums within each group instead."""
    axes, size, groups, vm = _named_axes(axis_name, axis_index_groups, "psum", equal=False)
    equal = groups is None or len({len(g) for g in groups}) == 1

    def one(leaf):
        constant = not isinstance(leaf, Tracer)
        if constant and not equal:
            raise ValueError(f"psum of a constant over axis_index_groups of sizes "
                             f"{[len(g) for g in groups]}: the result would differ between "
                             f"the groups; use groups of one size")
        if isinstance(leaf, (int, float, complex)) and not isinstance(leaf, bool):
            return leaf * size
        leaf = as_array(leaf)
        _check_numeric(leaf, "psum")
        if vm is not None:
            return _on_batch(vm, leaf, lambda v, n: (reduce_sum(v, (0,)), None))
        if constant:   # the same on every device
            return mul(leaf, np.asarray(size, leaf.dtype))
        return psum_p.bind(leaf, axes=axes, size=size, groups=groups)
    return _leafwise(x, one)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of ``x`` over the devices along ``axis_name`` (integers give floats;
    ``axis_index_groups``: within each group, the groups of one size)."""
    _, size = _bound(axis_name, "pmean")
    groups = _index_groups(axis_index_groups, size, "pmean")
    if groups is not None:
        size = len(groups[0])

    def one(leaf):
        leaf = as_array(leaf)
        if not dtypes.is_inexact(leaf.dtype):
            leaf = convert_element_type(leaf, dtypes.default_float())
        total = psum(leaf, axis_name, axis_index_groups=groups)
        return div(total, np.asarray(size, total.dtype))
    return _leafwise(x, one)


def _chooser(p, what, reduce):
    def fn(x, axis_name, *, axis_index_groups=None):
        axes, size, groups, vm = _named_axes(axis_name, axis_index_groups, what, equal=False)

        def one(leaf):
            leaf = as_array(leaf)
            _check_numeric(leaf, what, allow_complex=False)
            if vm is not None:
                return _on_batch(vm, leaf, lambda v, n: (reduce(v, (0,)), None))
            return p.bind(leaf, axes=axes, size=size, groups=groups)
        return _leafwise(x, one)
    fn.__name__ = fn.__qualname__ = what
    fn.__doc__ = (f"The {what[1:]}imum of ``x`` (a pytree) over the devices along "
                  f"``axis_name`` (within each group of ``axis_index_groups``).")
    return fn


pmax = _chooser(pmax_p, "pmax", reduce_max)
pmin = _chooser(pmin_p, "pmin", reduce_min)


# ---------------------------------------------------------------- all_gather, psum_scatter

def _all_gather_abstract(x, *, axes, size, groups, axis, tiled):
    shape = list(x.shape)
    if tiled:
        shape[axis] *= size
    else:
        shape.insert(axis, size)
    return [x.update(shape=tuple(shape), weak_type=False)]


def _all_gather_lower(ctx, x, *, axes, size, groups, axis, tiled):
    aval = ctx.avals_in[0]
    if not tiled:
        shape = list(aval.shape)
        shape.insert(axis, 1)
        x = hlo.reshape(ir_type(aval.update(shape=tuple(shape))), x)
    op = hlo.AllGatherOp([ir_type(ctx.avals_out[0])], [x], axis,
                         _groups_attr(ctx, axes, "all_gather", groups),
                         channel_handle=_channel(ctx), use_global_device_ids=True)
    return [op.results[0]]


def _front_batch(p, key):
    # Batch axis first, the collective's own axis one further on.
    def batch(axis_size, args, dims, **params):
        x = batching.moveaxis(args[0], dims[0], 0)
        params = dict(params)
        for k in key:
            params[k] += 1
        return [p.bind(x, **params)], [0]
    return batch


all_gather_p = Primitive("all_gather")
all_gather_p.abstract_eval = _all_gather_abstract
all_gather_p.lower = _all_gather_lower
all_gather_p.batch = _front_batch(all_gather_p, ("axis",))


def _psum_scatter_abstract(x, *, axes, size, groups, scatter_dimension, tiled):
    shape = list(x.shape)
    if tiled:
        shape[scatter_dimension] //= size
    else:
        del shape[scatter_dimension]
    return [x.update(shape=tuple(shape), weak_type=False)]


def _psum_scatter_lower(ctx, x, *, axes, size, groups, scatter_dimension, tiled):
    aval = ctx.avals_in[0]
    shape = list(aval.shape)
    shape[scatter_dimension] //= size
    op = hlo.ReduceScatterOp(ir_type(aval.update(shape=tuple(shape))), x, scatter_dimension,
                             _groups_attr(ctx, axes, "psum_scatter", groups),
                             channel_handle=_channel(ctx), use_global_device_ids=True)
    _add_region(op, aval.dtype, hlo.add)
    out = op.results[0]
    if not tiled:
        out = hlo.reshape(ir_type(ctx.avals_out[0]), out)
    return [out]


psum_scatter_p = Primitive("psum_scatter")
psum_scatter_p.abstract_eval = _psum_scatter_abstract
psum_scatter_p.lower = _psum_scatter_lower
psum_scatter_p.batch = _front_batch(psum_scatter_p, ("scatter_dimension",))

ad.deflinear(all_gather_p, lambda cts, x, *, axes, size, groups, axis, tiled: [
    psum_scatter_p.bind(cts[0], axes=axes, size=size, groups=groups, scatter_dimension=axis,
                        tiled=tiled)])
ad.deflinear(psum_scatter_p, lambda cts, x, *, axes, size, groups, scatter_dimension, tiled: [
    all_gather_p.bind(cts[0], axes=axes, size=size, groups=groups, axis=scatter_dimension,
                      tiled=tiled)])


def _axis_arg(axis, ndim, what):
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{what}: the axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what}: axis {axis} is out of bounds for an array of "
                         f"{ndim - 1 if what.endswith('(new axis)') else ndim} dimensions")
    return int(axis) % ndim


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every device's ``x`` (a pytree) along ``axis_name``, stacked on a new axis ``axis``
    (``tiled``: concatenated along ``axis``); with ``axis_index_groups``, those of the
    devices in this device's group, in the group's order."""
    axes, size, groups, vm = _named_axes(axis_name, axis_index_groups, "all_gather")

    def gathered(v, n, ax):
        out = batching.moveaxis(v, 0, ax)
        if tiled:
            shape = list(get_aval(out).shape)
            shape[ax:ax + 2] = [shape[ax] * shape[ax + 1]]
            out = reshape(out, tuple(shape))
        return out, None

    def one(leaf):
        leaf = as_array(leaf)
        ax = _axis_arg(axis, leaf.ndim if tiled else leaf.ndim + 1, "all_gather")
        if vm is not None:
            return _on_batch(vm, leaf, lambda v, n: gathered(v, n, ax))
        return all_gather_p.bind(leaf, axes=axes, size=size, groups=groups, axis=ax,
                                 tiled=bool(tiled))
    return _leafwise(x, one)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """``psum(x)`` with each device keeping only its block along ``scatter_dimension``
    (which must be the axis size, or with ``tiled`` a multiple of it; with
    ``axis_index_groups``, the sum and the blocks are those of this device's group)."""
    axes, size, groups, vm = _named_axes(axis_name, axis_index_groups, "psum_scatter")

    def scattered(y, n, d):
        if tiled:
            shape = list(get_aval(y).shape)
            shape[d:d + 1] = [n, shape[d] // n]
            y = reshape(y, tuple(shape))
        return batching.moveaxis(y, d, 0)

    def one(leaf):
        leaf = as_array(leaf)
        _check_numeric(leaf, "psum_scatter")
        d = _axis_arg(scatter_dimension, leaf.ndim, "psum_scatter")
        n = leaf.shape[d]
        if tiled and n % size:
            raise ValueError(f"psum_scatter: dimension {d} of size {n} is not divisible by "
                             f"the size of axis {axis_name!r} ({size})")
        if not tiled and n != size:
            raise ValueError(f"psum_scatter: dimension {d} has size {n}; without tiled=True "
                             f"it must equal the size of axis {axis_name!r} ({size})")
        if vm is not None:
            return _on_batch(vm, leaf, lambda v, n: (scattered(reduce_sum(v, (0,)), n, d), 0))
        return psum_scatter_p.bind(leaf, axes=axes, size=size, groups=groups,
                                   scatter_dimension=d, tiled=bool(tiled))
    return _leafwise(x, one)


# ---------------------------------------------------------------- all_to_all

def _all_to_all_abstract(x, *, axes, size, groups, split_axis, concat_axis):
    shape = list(x.shape)
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return [x.update(shape=tuple(shape), weak_type=False)]


def _all_to_all_lower(ctx, x, *, axes, size, groups, split_axis, concat_axis):
    op = hlo.AllToAllOp([x], split_axis, concat_axis, size,
                        _groups_attr(ctx, axes, "all_to_all", groups),
                        channel_handle=_channel(ctx),
                        results=[ir_type(ctx.avals_out[0])])
    return [op.results[0]]


all_to_all_p = Primitive("all_to_all")
all_to_all_p.abstract_eval = _all_to_all_abstract
all_to_all_p.lower = _all_to_all_lower
all_to_all_p.batch = _front_batch(all_to_all_p, ("split_axis", "concat_axis"))
ad.deflinear(all_to_all_p, lambda cts, x, *, axes, size, groups, split_axis, concat_axis: [
    all_to_all_p.bind(cts[0], axes=axes, size=size, groups=groups, split_axis=concat_axis,
                      concat_axis=split_axis)])


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None,
               tiled=False):
    """Split ``x`` along ``split_axis`` into one block per device along ``axis_name``,
    send block i to device i, and put the received blocks along ``concat_axis`` (a new
    axis of the axis size unless ``tiled``, JAX's convention); with
    ``axis_index_groups``, among the devices of this device's group."""
    axes, size, groups, vm = _named_axes(axis_name, axis_index_groups, "all_to_all")

    def exchanged(v, n, split, concat):
        # v: [source, *shape]; the split axis into (chunk, rest); chunk becomes the batch
        # axis and the sources are concatenated (major) into the concat axis
        shape = list(get_aval(v).shape)
        shape[split + 1:split + 2] = [n, shape[split + 1] // n]
        w = batching.moveaxis(reshape(v, tuple(shape)), split + 1, 0)
        w = batching.moveaxis(w, 1, concat + 1)
        shape = list(get_aval(w).shape)
        shape[concat + 1:concat + 3] = [shape[concat + 1] * shape[concat + 2]]
        return reshape(w, tuple(shape)), 0

    def bind(leaf, split, concat):
        if vm is not None:
            return _on_batch(vm, leaf, lambda v, n: exchanged(v, n, split, concat))
        return all_to_all_p.bind(leaf, axes=axes, size=size, groups=groups,
                                 split_axis=split, concat_axis=concat)

    def one(leaf):
        leaf = as_array(leaf)
        split = _axis_arg(split_axis, leaf.ndim, "all_to_all")
        concat = _axis_arg(concat_axis, leaf.ndim, "all_to_all")
        n = leaf.shape[split]
        if tiled:
            if n % size:
                raise ValueError(f"The size of all_to_all split_axis ({n}) has to be "
                                 f"divisible by the size of the named axis {axis_name} "
                                 f"({size})")
            return bind(leaf, split, concat)
        if n != size:
            raise ValueError(f"all_to_all requires the size of the mapped axis axis_name "
                             f"to equal x.shape[split_axis], but they are {size} and {n} "
                             f"respectively.")
        if split < concat:
            concat += 1
            leaf = expand_dims(leaf, (concat,))
        elif concat < split:
            leaf = expand_dims(leaf, (concat,))
            split += 1
        out = bind(leaf, split, concat)
        return out if split == concat else squeeze(out, (split,))
    return _leafwise(x, one)


# ---------------------------------------------------------------- ppermute

def _ppermute_lower(ctx, x, *, axes, size, perm):
    groups = replica_groups(_mesh(ctx, "ppermute"), axes)
    pairs = np.array([(g[s], g[d]) for g in groups for s, d in perm], np.int64).reshape(-1, 2)
    op = hlo.CollectivePermuteOp(x, ir.DenseIntElementsAttr.get(pairs),
                                 channel_handle=_channel(ctx),
                                 results=[ir_type(ctx.avals_out[0])])
    return [op.results[0]]


ppermute_p = Primitive("ppermute")
ppermute_p.abstract_eval = lambda x, *, axes, size, perm: [x]
ppermute_p.lower = _ppermute_lower
ppermute_p.batch = _reduce_batch(ppermute_p)
ad.deflinear(ppermute_p, lambda cts, x, *, axes, size, perm: [ppermute_p.bind(
    cts[0], axes=axes, size=size, perm=tuple((d, s) for s, d in perm))])


def ppermute(x, axis_name, perm):
    """Send each device's ``x`` along ``axis_name`` as ``perm`` (pairs ``(source,
    destination)`` of axis indices) says; a device no pair sends to gets zeros."""
    axes, size = _bound(axis_name, "ppermute")
    try:
        perm = tuple((int(s), int(d)) for s, d in perm)
    except (TypeError, ValueError):
        raise TypeError(f"ppermute: perm must be a sequence of (source, destination) "
                        f"pairs of ints, got {perm!r}") from None
    sources, dests = [s for s, _ in perm], [d for _, d in perm]
    if len(set(sources)) != len(sources) or len(set(dests)) != len(dests):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    for i in sources + dests:
        if not 0 <= i < size:
            raise ValueError(f"ppermute: index {i} of perm {perm} is out of range for axis "
                             f"{axis_name!r} of size {size}")

    vm = _vmap_axis(axis_name, "ppermute")

    def permuted(v, n):
        source = {d: s for s, d in perm}
        aval = get_aval(v)
        rows = [index_in_dim(v, source[k], 0) if k in source else
                full((1, *aval.shape[1:]), 0, aval.dtype) for k in range(n)]
        return concatenate(rows, 0), 0

    def one(leaf):
        if vm is not None:
            return _on_batch(vm, leaf, permuted)
        return ppermute_p.bind(as_array(leaf), axes=axes, size=size, perm=perm)
    return _leafwise(x, one)


# ---------------------------------------------------------------- axis_index, axis_size

def _axis_index_lower(ctx, *, axis, size):
    mesh = _mesh(ctx, "axis_index")
    names = mesh.axis_names
    stride = math.prod(mesh.devices.shape[names.index(axis) + 1:])
    i32 = ShapedArray((), np.dtype(np.int32))
    pid = hlo.convert(ir_type(i32), hlo.PartitionIdOp().result)
    q = hlo.divide(pid, ir_constant(np.int32(stride)))
    return [hlo.remainder(q, ir_constant(np.int32(size)))]


axis_index_p = Primitive("axis_index")
axis_index_p.abstract_eval = lambda *, axis, size: [ShapedArray((), np.dtype(np.int32))]
axis_index_p.lower = _axis_index_lower
ad.defjvp_zero(axis_index_p)


def axis_index(axis_name):
    """This device's index (int32) along ``axis_name``; for a tuple of names, the index
    in their product (the first name major)."""
    names, _ = _bound(axis_name, "axis_index")
    vm = _vmap_axis(axis_name, "axis_index")
    if vm is not None:
        return batching.BatchTracer(vm.trace, iota(np.int32, vm.size), 0)
    index = None
    for n in names:
        _, size = _bound(n, "axis_index")
        if next(f for f in reversed(_env.frames) if n in f).partial and size > 1:
            # (XLA's partitioner cannot place PartitionId in a partial-manual region)
            raise NotImplementedError(
                f"axis_index({n!r}) inside a shard_map that is manual over only some mesh "
                f"axes (axis_names=) is not supported: make every mesh axis manual (leave "
                f"axis_names out), or pass the index in as an argument (e.g. "
                f"numpy.arange({size}) with in_specs P({n!r}))")
        i = axis_index_p.bind(axis=n, size=size)
        index = i if index is None else add(mul(index, np.int32(size)), i)
    return index


def axis_size(axis_name):
    """The number of devices along ``axis_name`` (a Python int)."""
    return _bound(axis_name, "axis_size")[1]


COLLECTIVES = (psum_p, pmax_p, pmin_p, all_gather_p, psum_scatter_p, all_to_all_p,
               ppermute_p, axis_index_p)
