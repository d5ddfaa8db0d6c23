"""``jit_p``: a call of a staged jaxpr, compiled by XLA when evaluated.

``minijax.jit`` traces a function to a jaxpr and binds ``jit_p`` on it. Under
another transformation the primitive's rules transform the jaxpr itself
(the "initial-style" higher-order primitive of the seeds).
"""

import weakref

from .. import backend
from ..core import Primitive
from ..core.jaxpr import Jaxpr, JaxprEqn, Var, same_type
from ..interpreters import ad, batching
from ..interpreters import partial_eval as pe
from ..interpreters.lowering import call_function
from ..errors import ShardingError
from ..runtime import dispatch
from ..runtime.sharding import Mesh, NamedSharding, PartitionSpec
from ..util import merge_lists, partition_list, split_half, split_list

jit_p = Primitive("jit", multiple_results=True)


def _jit_eager(*args, jaxpr, name):
    placement = dispatch.result_placement(args)
    mesh = spmd_mesh(jaxpr)
    if mesh is not None:   # a shard_map inside: the program runs on its mesh
        return dispatch.spmd_call(jaxpr, args, mesh_placement(mesh, placement))
    if placement is not None and placement._device is None:   # sharded arguments
        return dispatch.spmd_call(jaxpr, args, placement)
    target = placement._device if placement is not None else backend.default_device()
    return dispatch.compiled_jaxpr(jaxpr, target, placement is not None)(args)


_meshes = weakref.WeakKeyDictionary()


def spmd_mesh(jaxpr):
    """The mesh of the first ``shard_map`` in ``jaxpr`` (or in a jaxpr of one of its
    equations), None without one: a program holding one runs on that mesh."""
    if jaxpr in _meshes:
        return _meshes[jaxpr]
    found = None
    for eqn in jaxpr.eqns:
        mesh = eqn.params.get("mesh")
        if isinstance(mesh, Mesh):
            found = mesh
            break
        for v in eqn.params.values():
            for item in (v if isinstance(v, (tuple, list)) else (v,)):
                sub = getattr(item, "jaxpr", item)
                if isinstance(sub, Jaxpr):
                    found = spmd_mesh(sub)
                    if found is not None:
                        break
            if found is not None:
                break
        if found is not None:
            break
    _meshes[jaxpr] = found
    return found


def mesh_placement(mesh, placement):
    """The placement a program holding a shard_map over ``mesh`` runs with, given its
    arguments' (``placement``): sharded arguments must be on the mesh's devices in its
    order (the shard_map's device positions are the program's)."""
    if placement is not None and placement._device is None:
        if mesh._flat != placement.mesh._flat:
            raise ShardingError(f"a shard_map over {mesh!r} was given arguments sharded over "
                                f"{placement.mesh!r}, other devices or another order of "
                                f"them; move them onto the shard_map's mesh first")
        return placement
    return NamedSharding(mesh, PartitionSpec())


def _jit_abstract_eval(*avals, jaxpr, name):
    expected = jaxpr.in_avals
    if len(avals) != len(expected) or not all(map(same_type, avals, expected)):
        raise TypeError(f"jit-compiled {name} called with "
                        f"({', '.join(a.str_short() for a in avals)}), its jaxpr takes "
                        f"({', '.join(a.str_short() for a in expected)})")
    return jaxpr.out_avals


def _jit_jvp(primals, tangents, *, jaxpr, name):
    new_jaxpr, consts = ad.jvp_jaxpr(jaxpr)
    outs = jit_p.bind(*consts, *primals, *[ad.instantiate(t) for t in tangents],
                      jaxpr=new_jaxpr, name=name)
    return split_half(outs)


def _jit_batch(axis_size, args, dims, *, jaxpr, name):
    new_jaxpr, consts = batching.vmap_jaxpr(jaxpr, axis_size, tuple(dims))
    outs = jit_p.bind(*consts, *args, jaxpr=new_jaxpr, name=name)
    return outs, [0] * len(outs)


def _jit_partial_eval(trace, tracers, *, jaxpr, name):
    unknowns = [not t.pval.is_known for t in tracers]
    jaxpr1, jaxpr2, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, unknowns)
    known, unknown = partition_list(unknowns, tracers)
    outs1_res = jit_p.bind(*[t.pval.const for t in known], jaxpr=jaxpr1, name=name)
    outs1, res = split_list(outs1_res, len(outs1_res) - num_res)
    res_tracers = [trace.instantiate_const(trace.pure(r)) for r in res]
    outs2 = trace.stage_eqn(jit_p, res_tracers + unknown, dict(jaxpr=jaxpr2, name=name),
                            jaxpr2.out_avals)
    return merge_lists(out_unknowns, outs1, outs2)


def _jit_partial_eval_jaxpr(unknowns, eqn):
    jaxpr = eqn.params["jaxpr"]
    name = eqn.params["name"]
    jaxpr1, jaxpr2, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, unknowns)
    ins1, ins2 = partition_list(unknowns, eqn.inputs)
    outs1, outs2 = partition_list(out_unknowns, eqn.out_binders)
    residuals = [Var(v.aval) for v in jaxpr2.in_binders[:num_res]]
    eqn1 = JaxprEqn(jit_p, ins1, dict(jaxpr=jaxpr1, name=name), outs1 + residuals)
    eqn2 = JaxprEqn(jit_p, residuals + ins2, dict(jaxpr=jaxpr2, name=name), outs2)
    return eqn1, eqn2, out_unknowns, residuals


def _jit_transpose(cts, *args, jaxpr, name):
    undef = tuple(ad.is_undefined(a) for a in args)
    t_jaxpr, consts = ad.transpose_jaxpr(jaxpr, undef)
    defined = [a for a in args if not ad.is_undefined(a)]
    outs = iter(jit_p.bind(*consts, *defined, *cts, jaxpr=t_jaxpr, name=f"transpose({name})"))
    return [next(outs) if u else None for u in undef]


def _jit_lower(ctx, *args, jaxpr, name):
    return call_function(ctx.module_ctx, jaxpr, list(args), name=_symbol(name))


def _symbol(name):
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return cleaned or "jit"


jit_p.eager = _jit_eager
jit_p.abstract_eval = _jit_abstract_eval
jit_p.jvp = _jit_jvp
jit_p.batch = _jit_batch
jit_p.partial_eval = _jit_partial_eval
jit_p.partial_eval_jaxpr = _jit_partial_eval_jaxpr
jit_p.transpose = _jit_transpose
jit_p.lower = _jit_lower
