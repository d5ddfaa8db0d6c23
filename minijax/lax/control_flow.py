"""Structured control flow as higher-order primitives over jaxprs: ``cond``/``switch``.

``cond_p`` takes an int32 branch index and a tuple of branch jaxprs of one type.
Each rule transforms the branch jaxprs; transformed branches close over different
constants, so ``_join_consts`` gives every branch all of them as leading inputs.
"""

import numpy as np

from .. import tree_util
from ..core import Jaxpr, JaxprEqn, Literal, Primitive, Var, eval_jaxpr, get_aval
from ..core.avals import ShapedArray, same_type
from ..interpreters import ad, batching
from ..interpreters import partial_eval as pe
from ..interpreters.lowering import has_ordered_effects, hlo, ir, ir_type, jaxpr_subcomp, token_type
from ..util import merge_lists, partition_list, split_half, split_list
from .elementwise import convert_element_type, ne, select_n
from .elementwise import max as lax_max
from .elementwise import min as lax_min
from .shapes import broadcast_in_dim
from . import _writeback

cond_p = Primitive("cond", multiple_results=True)


def _trace_branches(funs, operands, what, updates, rerun=False):
    ops_flat, in_tree = tree_util.tree_flatten(operands)
    avals = [get_aval(x) for x in ops_flat]
    jaxprs, consts, out_trees = [], [], []
    for f in funs:
        store = []

        def flat_fun(*args, f=f, store=store):
            out = f(*tree_util.tree_unflatten(in_tree, args))
            out_flat, out_tree = tree_util.tree_flatten(out)
            store.append(out_tree)
            return out_flat
        jaxpr, c = _writeback.trace_body(flat_fun, avals, f"{what} branch "
                                         f"{getattr(f, '__name__', repr(f))}", updates)
        jaxprs.append(jaxpr)
        consts.append(c)
        out_trees.append(store[0])
    if updates.outer or (updates.args and not rerun):
        return None, None, ops_flat, None
    for i, (j, t) in enumerate(zip(jaxprs[1:], out_trees[1:]), 1):
        if t != out_trees[0]:
            raise TypeError(f"{what} branches must return the same tree structure; branch 0 "
                            f"returns {out_trees[0]}, branch {i} returns {t}")
        a0, ai = jaxprs[0].out_avals, j.out_avals
        if not all(map(same_type, a0, ai)):
            raise TypeError(f"{what} branches must return values of the same types; branch 0 "
                            f"returns ({', '.join(a.str_short() for a in a0)}), branch {i} "
                            f"returns ({', '.join(a.str_short() for a in ai)})")
    joined, all_consts = _join_consts(list(zip(jaxprs, consts)))
    return joined, all_consts, ops_flat, out_trees[0]


def _join_consts(jaxprs_and_consts):
    """Give every jaxpr all the constants of all of them as leading inputs."""
    all_consts = [c for _, cs in jaxprs_and_consts for c in cs]
    const_avals = [v.aval for j, cs in jaxprs_and_consts for v in j.in_binders[:len(cs)]]
    out, start = [], 0
    for j, cs in jaxprs_and_consts:
        n = len(cs)
        binders = [Var(a) for a in const_avals]
        binders[start:start + n] = j.in_binders[:n]
        out.append(Jaxpr(binders + j.in_binders[n:], j.eqns, j.outs))
        start += n
    return tuple(out), all_consts


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged as one op.

    ``pred`` is a scalar bool (or number, compared with zero); both functions must
    return the same tree structure and types.
    """
    aval = get_aval(pred)
    if aval.shape != ():
        raise TypeError(f"cond predicate must be a scalar, got shape {aval.shape}; use "
                        f"minijax.numpy.where for elementwise selection")
    if aval.dtype != np.bool_:
        pred = ne(pred, 0)
    index = convert_element_type(pred, np.int32)
    return _bind_cond(index, (false_fun, true_fun), operands, "cond")


def switch(index, branches, *operands):
    """``branches[index](*operands)``, with ``index`` clamped into range."""
    branches = tuple(branches)
    if not branches:
        raise ValueError("switch needs at least one branch")
    aval = get_aval(index)
    if aval.shape != () or aval.dtype.kind not in "iub":
        raise TypeError(f"switch index must be an integer scalar, got {aval.str_short()}")
    index = convert_element_type(index, np.int32)
    index = lax_min(lax_max(index, 0), len(branches) - 1)
    return _bind_cond(index, branches, operands, "switch")


def _bind_cond(index, funs, operands, what):
    updates = _writeback.BodyUpdates()
    jaxprs, consts, ops_flat, out_tree = _trace_branches(funs, operands, what, updates)
    if updates:
        return _cond_writing_back(index, funs, operands, what, updates, ops_flat)
    outs = cond_p.bind(index, *consts, *ops_flat, branches=jaxprs)
    return tree_util.tree_unflatten(out_tree, outs)


def _cond_writing_back(index, funs, operands, what, updates, ops_flat):
    """A ``cond`` whose branches update operands or outside arrays in place: staged again
    with the outside arrays as extra operands and the updated values as extra outputs,
    which are written back (DESIGN 5)."""
    objs, changed = updates.outer, sorted(updates.args)

    def wrap(f):
        def branch(ops, vals):
            _writeback.substitute(objs, vals)
            out = f(*ops)
            leaves = tree_util.tree_leaves(ops)
            return out, [leaves[i] for i in changed], _writeback.current(objs, vals)
        return branch
    inner = _writeback.BodyUpdates()
    jaxprs, consts, flat, out_tree = _trace_branches([wrap(f) for f in funs],
                                                     (operands, list(objs)), what, inner,
                                                     rerun=True)
    if inner.outer:
        raise _writeback.unsupported(f"lax.{what}:", "a branch updates an array in place in "
                                     "a way minijax cannot write back; return the updated "
                                     "array from the branch instead.")
    outs = cond_p.bind(index, *consts, *flat, branches=jaxprs)
    out, new_ops, new_objs = tree_util.tree_unflatten(out_tree, outs)
    _writeback.write_back([ops_flat[i] for i in changed] + list(objs), [*new_ops, *new_objs],
                          f"lax.{what}")
    return out


def _cond_eager(index, *args, branches):
    i = int(np.clip(int(index), 0, len(branches) - 1))
    return eval_jaxpr(branches[i], args)


def _cond_abstract_eval(index, *avals, branches):
    if index.shape != () or index.dtype != np.int32:
        raise TypeError(f"cond index must be an int32 scalar, got {index.str_short()}")
    out = branches[0].out_avals
    for b in branches:
        if len(b.in_binders) != len(avals) or not all(map(same_type, b.in_avals, avals)):
            raise TypeError(f"cond branch takes ({', '.join(a.str_short() for a in b.in_avals)}), "
                            f"given ({', '.join(a.str_short() for a in avals)})")
        if not all(map(same_type, b.out_avals, out)):
            raise TypeError("cond branches return different types")
    return out


def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    _, *tans = tangents
    joined, consts = _join_consts([ad.jvp_jaxpr(b) for b in branches])
    outs = cond_p.bind(index, *consts, *ops, *[ad.instantiate(t) for t in tans],
                       branches=joined)
    return split_half(outs)


def _cond_batch(axis_size, args, dims, *, branches):
    index, *ops = args
    idim, *odims = dims
    if idim is None:
        joined, consts = _join_consts([batching.vmap_jaxpr(b, axis_size, tuple(odims))
                                       for b in branches])
        outs = cond_p.bind(index, *consts, *ops, branches=joined)
        return outs, [0] * len(outs)
    # A batched index: run every branch on the whole batch and select per element.
    branch_outs = []
    for b in branches:
        jaxpr, consts = batching.vmap_jaxpr(b, axis_size, tuple(odims))
        branch_outs.append(eval_jaxpr(jaxpr, [*consts, *ops]))
    index = batching.moveaxis(index, idim, 0)
    index = lax_min(lax_max(index, 0), len(branches) - 1)
    outs = []
    for per_branch in zip(*branch_outs):
        shape = get_aval(per_branch[0]).shape
        which = broadcast_in_dim(index, shape, (0,))
        outs.append(select_n(which, *per_branch))
    return outs, [0] * len(outs)


def _partial_eval_branches(branches, unknowns):
    """Split each branch; returns (known jaxprs, unknown jaxprs, out_unknowns, num_res)."""
    out_uks = [False] * len(branches[0].outs)
    for b in branches:
        _, _, uks, _ = pe.partial_eval_jaxpr(b, unknowns)
        out_uks = [a or c for a, c in zip(out_uks, uks)]
    splits = [pe.partial_eval_jaxpr(b, unknowns, instantiate=out_uks) for b in branches]
    num_known_outs = len(out_uks) - sum(out_uks)
    res_avals = [[v.aval for v in j1.outs[num_known_outs:]] for j1, _, _, _ in splits]
    all_res = [a for avals in res_avals for a in avals]
    knowns, unknowns_j = [], []
    start = 0
    for (j1, j2, _, nres), avals in zip(splits, res_avals):
        # known side: outputs are known outs then every branch's residuals (zeros for others)
        fill = [Literal(np.zeros(a.shape, a.dtype), ShapedArray(a.shape, a.dtype)) for a in all_res]
        fill[start:start + nres] = j1.outs[num_known_outs:]
        knowns.append(Jaxpr(j1.in_binders, j1.eqns, j1.outs[:num_known_outs] + fill))
        # unknown side: takes every branch's residuals, uses its own
        binders = [Var(a) for a in all_res]
        binders[start:start + nres] = j2.in_binders[:nres]
        unknowns_j.append(Jaxpr(binders + j2.in_binders[nres:], j2.eqns, j2.outs))
        start += nres
    return tuple(knowns), tuple(unknowns_j), out_uks, len(all_res)


def _cond_partial_eval(trace, tracers, *, branches):
    index_t, *tracers = tracers
    if not index_t.pval.is_known:
        return _stage_all(trace, [index_t, *tracers], branches)
    unknowns = [not t.pval.is_known for t in tracers]
    knowns, unknowns_j, out_uks, num_res = _partial_eval_branches(branches, unknowns)
    known_t, unknown_t = partition_list(unknowns, tracers)
    outs1_res = cond_p.bind(index_t.pval.const, *[t.pval.const for t in known_t],
                            branches=knowns)
    outs1, res = split_list(outs1_res, len(outs1_res) - num_res)
    index_u = trace.instantiate_const(index_t)
    res_t = [trace.instantiate_const(trace.pure(r)) for r in res]
    outs2 = trace.stage_eqn(cond_p, [index_u, *res_t, *unknown_t], dict(branches=unknowns_j),
                            unknowns_j[0].out_avals)
    return merge_lists(out_uks, outs1, outs2)


def _stage_all(trace, tracers, branches):
    tracers = [trace.instantiate_const(t) for t in tracers]
    return trace.stage_eqn(cond_p, tracers, dict(branches=branches), branches[0].out_avals)


def _cond_partial_eval_jaxpr(unknowns, eqn):
    index_uk, *unknowns = unknowns
    branches = eqn.params["branches"]
    index, *ins = eqn.inputs
    if index_uk:   # nothing can be known: stage the whole cond
        res = [x for x, uk in zip(ins, unknowns) if not uk and type(x) is Var]
        return None, eqn, [True] * len(eqn.out_binders), res
    knowns, unknowns_j, out_uks, num_res = _partial_eval_branches(branches, unknowns)
    ins1, ins2 = partition_list(unknowns, ins)
    outs1, outs2 = partition_list(out_uks, eqn.out_binders)
    residuals = [Var(v.aval) for v in unknowns_j[0].in_binders[:num_res]]
    eqn1 = JaxprEqn(cond_p, [index, *ins1], dict(branches=knowns), outs1 + residuals)
    eqn2 = JaxprEqn(cond_p, [index, *residuals, *ins2], dict(branches=unknowns_j), outs2)
    res = residuals + ([index] if type(index) is Var else [])
    return eqn1, eqn2, out_uks, res


def _cond_transpose(cts, index, *args, branches):
    undef = tuple(ad.is_undefined(a) for a in args)
    joined, consts = _join_consts([ad.transpose_jaxpr(b, undef) for b in branches])
    defined = [a for a in args if not ad.is_undefined(a)]
    cts = [ad.instantiate(c) for c in cts]
    outs = iter(cond_p.bind(index, *consts, *defined, *cts, branches=joined))
    return [None] + [next(outs) if u else None for u in undef]


def _cond_lower(ctx, index, *args, branches):
    mctx = ctx.module_ctx
    # With ordered effects each branch starts from the current token and returns its
    # last one as an extra (final) result.
    ordered = any(has_ordered_effects(b) for b in branches)
    out_types = [ir_type(a) for a in ctx.avals_out] + ([token_type()] if ordered else [])
    case = hlo.CaseOp(out_types, index, len(branches))
    outer_token = mctx.token
    for region, branch in zip(case.regions, branches):
        block = region.blocks.append()
        with ir.InsertionPoint(block):
            mctx.token = outer_token
            outs = jaxpr_subcomp(mctx, branch, list(args))
            hlo.return_(outs + ([mctx.token] if ordered else []))
    results = list(case.results)
    mctx.token = results.pop() if ordered else outer_token
    return results


cond_p.eager = _cond_eager
cond_p.abstract_eval = _cond_abstract_eval
cond_p.jvp = _cond_jvp
cond_p.batch = _cond_batch
cond_p.partial_eval = _cond_partial_eval
cond_p.partial_eval_jaxpr = _cond_partial_eval_jaxpr
cond_p.transpose = _cond_transpose
cond_p.lower = _cond_lower
