"""Vectorizing map (``vmap``): each value carries the axis it is batched along."""

from functools import lru_cache

from ..core import Trace, Tracer, bind, eval_jaxpr, full_lower, full_raise, get_aval, get_concrete, new_main
from ..core.primitive import missing_rule
from ..core.trace import run_rule, same_value
from ..core.trace import updated as updated_args
from . import partial_eval as pe

not_mapped = None


def mapped_aval(aval, axis):
    shape = list(aval.shape)
    del shape[axis]
    return aval.update(shape=tuple(shape))


def unmapped_aval(aval, axis, size):
    if axis is not_mapped:
        return aval
    shape = list(aval.shape)
    shape.insert(axis, size)
    return aval.update(shape=tuple(shape))


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self):
        aval = get_aval(self.val)
        return aval if self.batch_dim is not_mapped else mapped_aval(aval, self.batch_dim)

    def _same_value(self, other):
        return self.batch_dim == other.batch_dim and same_value(self.val, other.val)

    def full_lower(self):
        return full_lower(self.val) if self.batch_dim is not_mapped else self

    def to_concrete_value(self):
        return get_concrete(self.val) if self.batch_dim is not_mapped else None

    def _abstract_reason(self):
        if self.batch_dim is not_mapped:
            if isinstance(self.val, Tracer):
                return self.val._abstract_reason()
            return super()._abstract_reason()
        return ("The value is batched by vmap: it has one value per element of the mapped "
                "axis, so no single Python value stands for it. Select per element with "
                "numpy.where or lax.select, or branch with lax.cond (batched into a select).",
                True)


class BatchTrace(Trace):
    __slots__ = ()

    axis_size = property(lambda self: self.main.payload)

    def pure(self, val):
        return BatchTracer(self, val, not_mapped)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        if all(d is not_mapped for d in dims):
            outs = bind(primitive, *vals, **params)
            outs = outs if primitive.multiple_results else [outs]
            return [BatchTracer(self, o, not_mapped) for o in outs]
        if primitive.batch is None:
            raise missing_rule(primitive, "batching")
        outs, out_dims = run_rule(self.main, primitive.batch, self.axis_size, vals, dims,
                                  **params)
        return [BatchTracer(self, o, d) for o, d in zip(outs, out_dims)]


def vmap_flat(fun, axis_size, args, in_dims, out_dims, debug_info=None, updated=None):
    """Batch ``fun`` (flat lists) over ``args`` mapped along ``in_dims``.

    ``out_dims`` is a callable giving the output axes once the number of outputs is
    known (None: an output that is not mapped must then really be unbatched). A list
    ``updated`` receives ``(i, value)`` for each mapped argument ``fun`` updated in
    place, its final value batched along ``in_dims[i]`` (program order, ``core.updated``).
    """
    with new_main(BatchTrace, axis_size, debug_info=debug_info) as main:
        trace = main.trace
        # one array given for two arguments mapped alike is one traced value (so an
        # in-place update through either is seen by both, as NumPy's one object)
        made = {}
        tracers = []
        for a, d in zip(args, in_dims):
            if d is not not_mapped:
                t = made.get((id(a), d))
                if t is None:
                    t = made[(id(a), d)] = BatchTracer(trace, a, d)
                a = t
            tracers.append(a)
        outs = [full_raise(trace, o) for o in fun(*tracers)]
        vals, dims = [o.val for o in outs], [o.batch_dim for o in outs]
        changed = []
        if updated is not None:
            seen = set()
            for i in updated_args(tracers):
                if id(tracers[i]) not in seen:
                    seen.add(id(tracers[i]))
                    changed.append((i, tracers[i].val, tracers[i].batch_dim))
    for i, v, d in changed:
        updated.append((i, move_axis_to(axis_size, v, d, in_dims[i])))
    return [move_axis_to(axis_size, v, d, dst) for v, d, dst in zip(vals, dims, out_dims(len(vals)))]


def move_axis_to(axis_size, x, src, dst):
    """Put ``x``'s batch axis (``src``, or None if unbatched) at ``dst`` (None: drop it)."""
    from .. import lax   # deferred: lax imports the interpreters
    if dst is not_mapped:
        if src is not_mapped:
            return x
        raise ValueError("vmap has out_axes=None for an output that is batched; "
                         "out_axes=None requires the output not to depend on mapped inputs")
    out_ndim = get_aval(x).ndim + (src is not_mapped)
    if not -out_ndim <= dst < out_ndim:
        raise ValueError(f"vmap out_axes {dst} is out of range for an output of rank {out_ndim}")
    dst %= out_ndim
    if src is not_mapped:
        aval = get_aval(x)
        shape = list(aval.shape)
        shape.insert(dst, axis_size)
        dims = [i for i in range(len(shape)) if i != dst]
        return lax.broadcast_in_dim(x, tuple(shape), tuple(dims))
    return moveaxis(x, src, dst)


def moveaxis(x, src, dst):
    from .. import lax   # deferred: lax imports the interpreters
    if src == dst:
        return x
    ndim = get_aval(x).ndim
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def bdim_at_front(axis_size, x, bdim):
    return move_axis_to(axis_size, x, bdim, 0)


@lru_cache(maxsize=4096)
def vmap_jaxpr(jaxpr, axis_size, in_dims):
    """A jaxpr of the batched computation; every output is batched along axis 0."""
    def fun(*args):
        return vmap_flat(lambda *a: eval_jaxpr(jaxpr, a), axis_size, args, in_dims,
                         lambda n: [0] * n)
    avals = [unmapped_aval(v.aval, d, axis_size) for v, d in zip(jaxpr.in_binders, in_dims)]
    return pe.trace_to_jaxpr(fun, avals)


# ---------------------------------------------------------------- rule helpers

def defvectorized(primitive):
    """Elementwise in its only operand: batching is applying it as is."""
    def rule(axis_size, args, dims, **params):
        return [bind(primitive, *args, **params)], [dims[0]]
    primitive.batch = rule


def defbroadcasting(primitive):
    """Elementwise over operands of one shape (or rank 0): align the batch axes, then apply.

    Unbatched rank-0 operands stay rank 0; a batched one is broadcast to the full shape.
    """
    def rule(axis_size, args, dims, **params):
        shapes = [get_aval(a).shape if d is not_mapped else mapped_aval(get_aval(a), d).shape
                  for a, d in zip(args, dims)]
        shape = max(shapes, key=len)
        full = [d for d, s in zip(dims, shapes) if d is not not_mapped and len(s) == len(shape)]
        out_dim = full[0] if full else 0
        aligned = []
        for a, d, s in zip(args, dims, shapes):
            if len(s) == len(shape):
                aligned.append(move_axis_to(axis_size, a, d, out_dim))
            elif d is not_mapped:
                aligned.append(a)
            else:
                from .. import lax   # deferred: lax imports the interpreters
                out_shape = list(shape)
                out_shape.insert(out_dim, axis_size)
                aligned.append(lax.broadcast_in_dim(a, tuple(out_shape), (out_dim,)))
        out = bind(primitive, *aligned, **params)
        outs = out if primitive.multiple_results else [out]
        return outs, [out_dim] * len(outs)
    primitive.batch = rule


@lru_cache(maxsize=4096)
def batch_jaxpr(jaxpr, axis_size, in_dims, instantiate):
    """Batch ``jaxpr`` over inputs mapped along ``in_dims`` (None: unmapped).

    Returns ``(jaxpr, consts, out_batched)``: a batched output is mapped along axis
    0, an unbatched one is returned as is unless ``instantiate`` asks to broadcast it.
    (Loop rules iterate this to a fixed point over which carries are batched.)
    """
    store = []

    def fun(*args):
        with new_main(BatchTrace, axis_size) as main:
            trace = main.trace
            tracers = [BatchTracer(trace, a, d) if d is not not_mapped else a
                       for a, d in zip(args, in_dims)]
            outs = [full_raise(trace, o) for o in eval_jaxpr(jaxpr, tracers)]
            vals, dims = [o.val for o in outs], [o.batch_dim for o in outs]
        out_b = [d is not not_mapped or inst for d, inst in zip(dims, instantiate)]
        store.append(out_b)
        return [move_axis_to(axis_size, v, d, 0 if b else not_mapped)
                for v, d, b in zip(vals, dims, out_b)]
    avals = [unmapped_aval(v.aval, d, axis_size) for v, d in zip(jaxpr.in_binders, in_dims)]
    new_jaxpr, consts = pe.trace_to_jaxpr(fun, avals)
    return new_jaxpr, consts, tuple(store[0])
