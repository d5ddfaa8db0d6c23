"""``with_sharding_constraint``: ask XLA's SPMD partitioner to lay a value out as a
``NamedSharding`` says (the ``@Sharding`` custom call with an ``mhlo.sharding``
attribute). Evaluated eagerly it moves the value to that sharding (``device_put``)."""

from .. import tree_util
from ..backend import hlo, ir
from ..core import Primitive
from ..interpreters import ad
from ..interpreters.lowering import ir_type
from ..runtime.array import Array
from ..runtime.dispatch import as_array
from ..runtime.sharding import NamedSharding, PartitionSpec, current_mesh, shardings_per_leaf
from ..errors import ShardingError

sharding_constraint_p = Primitive("sharding_constraint")


def _resolve(sharding):
    if isinstance(sharding, NamedSharding):
        return sharding
    if isinstance(sharding, PartitionSpec):
        mesh = current_mesh()
        if mesh is None:
            raise ShardingError(f"with_sharding_constraint: a bare {sharding!r} needs a mesh: "
                                f"use it inside `with mesh:` or pass NamedSharding(mesh, spec)")
        return NamedSharding(mesh, sharding)
    raise TypeError(f"with_sharding_constraint: expected a NamedSharding or PartitionSpec, "
                    f"got {type(sharding).__name__}")


def with_sharding_constraint(x, shardings):
    """``x`` (a pytree) laid out as ``shardings`` (one sharding, or a pytree prefix of
    ``x`` of them) says; inside ``jit`` a hint to the partitioner, eagerly a move."""
    leaves, tree = tree_util.tree_flatten(x)
    per_leaf = shardings_per_leaf(shardings, x, "with_sharding_constraint")
    out = []
    for leaf, s in zip(leaves, per_leaf):
        if s is None:
            out.append(leaf)
            continue
        s = _resolve(s)
        leaf = as_array(leaf)
        s._check_shape(leaf.shape)
        out.append(sharding_constraint_p.bind(leaf, sharding=s))
    return tree_util.tree_unflatten(tree, out)


def _eager(x, *, sharding):
    return [x._put(sharding, "with_sharding_constraint") if type(x) is Array else x]


def _lower(ctx, x, *, sharding):
    aval = ctx.avals_out[0]
    op = hlo.CustomCallOp.build_generic(
        results=[ir_type(aval)], operands=[x],
        attributes=dict(call_target_name=ir.StringAttr.get("Sharding"),
                        backend_config=ir.StringAttr.get(""),
                        has_side_effect=ir.BoolAttr.get(False)))
    op.attributes["mhlo.sharding"] = ir.StringAttr.get(sharding.hlo_text(len(aval.shape)))
    return [op.result]


def _batch(axis_size, args, dims, *, sharding):
    x, = args
    d, = dims
    if d is None:
        return [sharding_constraint_p.bind(x, sharding=sharding)], [None]
    spec = list(sharding.spec) + [None] * (x.ndim - 1 - len(sharding.spec))
    spec.insert(d, None)
    return [sharding_constraint_p.bind(x, sharding=NamedSharding(
        sharding.mesh, PartitionSpec(*spec)))], [d]


sharding_constraint_p.eager = _eager
sharding_constraint_p.abstract_eval = lambda x, *, sharding: [x]
sharding_constraint_p.lower = _lower
sharding_constraint_p.batch = _batch
ad.deflinear(sharding_constraint_p,
             lambda cts, x, *, sharding: [sharding_constraint_p.bind(cts[0], sharding=sharding)])
