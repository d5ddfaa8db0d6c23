"""Loops as higher-order primitives over jaxprs: ``while_loop``, ``scan``, ``fori_loop``, ``map``.

``while_p`` takes ``(*cond_consts, *body_consts, *carry)`` and the two jaxprs (their
closed-over constants are explicit leading inputs). ``scan_p`` takes
``(*consts, *carry, *xs)`` and one body jaxpr mapping ``(consts, carry, x) ->
(carry, y)``; the ``y`` of every iteration is stacked along a new leading axis.

Reverse mode works for ``scan`` (and so for ``fori_loop`` with static bounds):
partial evaluation splits a scan into a known scan that also stacks the residuals
of every iteration and an unknown (linear) scan that consumes them, and the
linear scan transposes to a scan running the other way. Residuals that do not vary
over the loop (closed-over weights, values computed from them) are passed once as
constants instead of being stacked. ``while_loop`` supports forward mode only, as
in JAX; its reverse-mode transpose rule raises an error pointing to ``scan``.
"""

import operator

import numpy as np

from .. import dtypes, tree_util
from ..core import Jaxpr, JaxprEqn, Primitive, Var, eval_jaxpr, get_aval
from ..core.avals import ShapedArray, same_type
from ..core.trace import get_concrete
from ..interpreters import ad, batching
from ..interpreters import partial_eval as pe
from ..interpreters.lowering import (full_like_aval, has_ordered_effects, hlo, ir, ir_constant,
                                     ir_type, jaxpr_subcomp, token_type)
from ..runtime import dispatch
from ..runtime.array import Array, _make
from ..util import merge_lists, partition_list, split_list
from .elementwise import add, convert_element_type, lt, select_n
from .reductions import reduce_or
from .shapes import broadcast_in_dim
from . import _writeback

while_p = Primitive("while", multiple_results=True)
scan_p = Primitive("scan", multiple_results=True)


# ---------------------------------------------------------------- shared helpers

def _fun_name(f):
    return getattr(f, "__name__", None) or type(f).__name__


def _types_str(avals):
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


def _carry_fixed_point(flags, step):
    """The carry flags (nonzero tangent, batched, unknown) a loop body keeps.

    ``step(flags)`` transforms the body for carries flagged ``flags`` and returns
    ``(result, out_flags)``; a carry flagged going in or coming out is flagged on the
    next round, until nothing changes (flags only turn on, so this ends). Returns
    ``(flags, result)`` of the last round."""
    flags = list(flags)
    while True:
        result, out = step(flags)
        new = [a or b for a, b in zip(flags, out)]
        if new == flags:
            return flags, result
        flags = new


def _reorder(jaxpr, in_sizes, in_order, out_sizes=None, out_order=None):
    """A jaxpr with its input (and output) groups permuted; same equations."""
    groups = split_list(jaxpr.in_binders, *in_sizes)
    binders = [v for g in in_order for v in groups[g]]
    outs = jaxpr.outs
    if out_sizes is not None:
        ogroups = split_list(outs, *out_sizes)
        outs = [x for g in out_order for x in ogroups[g]]
    return Jaxpr(binders, jaxpr.eqns, outs)


def _as_array(x, aval, placement=None):
    if type(x) is Array:
        return x
    host = np.asarray(x, aval.dtype)
    return _make(ShapedArray(host.shape, host.dtype, aval.weak_type), host, None,
                       placement)


def _trace_body(fun, in_avals, what, updates, n_carry=0):
    """Trace ``fun`` (flat list in, flat list out) to ``(jaxpr, consts)``, noting its
    in-place updates in ``updates`` (``_writeback``)."""
    return _writeback.trace_body(fun, in_avals, what, updates, n_carry)


def _must_write_back(updates, writeback, what):
    """Whether a loop body's in-place updates need the loop staged again with them as
    carries; on that second staging (``writeback`` false) every update is carried."""
    if writeback:
        return bool(updates)
    if updates.outer:
        raise _writeback.unsupported(f"{what} updates an array in place in a way minijax "
                                     f"cannot write back;", "return the updated array "
                                     "from the body instead.")
    return False


def _carry_not_kept(updates, n_carry, what):
    """The error for a body that updates its carry argument in place but returns another
    array for that carry (NumPy would see the update in ``init`` after one step only)."""
    if any(k < n_carry and k not in updates.kept for k in updates.args):
        return _writeback.unsupported(
            f"{what} updates its carry argument in place (x[i] = v, x += y, ...) but returns "
            f"another array for that carry:", "minijax cannot write that back to the initial "
            "value; return the updated carry itself, or copy it first (x = x.copy()).")
    return None


def _fixup_weak_outs(outs, avals):
    """Convert weakly typed outputs (Python scalars) to the dtype their carry has."""
    fixed = []
    for o, a in zip(outs, avals):
        oa = get_aval(o)
        if oa.weak_type and oa.dtype != a.dtype and oa.shape == a.shape:
            o = convert_element_type(o, a.dtype)
        fixed.append(o)
    return fixed


def _promote_weak_inits(init_flat, init_avals, out_avals):
    """Weakly typed inits (Python scalars) take the dtype the body gives the carry."""
    changed = False
    new = list(init_flat)
    for i, (a, o) in enumerate(zip(init_avals, out_avals)):
        if a.weak_type and a.shape == o.shape and a.dtype != o.dtype:
            dtype, _ = dtypes.promote((a.dtype, True), (o.dtype, o.weak_type))
            if dtype != a.dtype:
                new[i] = convert_element_type(init_flat[i], dtype)
                changed = True
    return new, changed


def _carry_mismatch(init_avals, out_avals):
    return len(init_avals) != len(out_avals) or not all(
        same_type(a, b) for a, b in zip(init_avals, out_avals))


# ---------------------------------------------------------------- while_loop

def _while_writing_back(cond_fun, body_fun, init_val, updates, init_flat, name):
    """A ``while_loop`` whose body updates arrays from outside it in place (they join the
    carry) or its carry argument returned as that carry (its final value is written
    into ``init_val``), DESIGN 5."""
    err = _carry_not_kept(updates, len(init_flat), f"lax.while_loop: body_fun `{name}`")
    if err is not None:
        raise err
    objs = updates.outer

    def cond2(carry):
        c, vals = carry
        _writeback.substitute(objs, vals)
        return cond_fun(c)

    def body2(carry):
        c, vals = carry
        _writeback.substitute(objs, vals)
        out = body_fun(c)
        return out, _writeback.current(objs, vals)
    out, vals = _while_loop(cond2, body2, (init_val, list(objs)), False)
    changed = sorted(updates.args)
    out_flat = tree_util.tree_leaves(out)
    _writeback.write_back([init_flat[i] for i in changed] + list(objs),
                          [out_flat[i] for i in changed] + list(vals), "lax.while_loop")
    return out


def while_loop(cond_fun, body_fun, init_val):
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)`` is true; returns ``val``.

    ``init_val`` is any pytree; ``body_fun`` must return the same structure and types,
    ``cond_fun`` a boolean scalar. Forward-mode differentiable only: for reverse mode
    use ``scan`` or ``fori_loop`` with static bounds.
    """
    return _while_loop(cond_fun, body_fun, init_val, True)


def _while_loop(cond_fun, body_fun, init_val, writeback):
    init_flat, in_tree = tree_util.tree_flatten(init_val)
    body_name, cond_name = _fun_name(body_fun), _fun_name(cond_fun)
    updates = _writeback.BodyUpdates()
    for _ in range(2):
        init_avals = [get_aval(x) for x in init_flat]
        store = []

        def body_flat(*args):
            out = body_fun(tree_util.tree_unflatten(in_tree, args))
            out_flat, out_tree = tree_util.tree_flatten(out)
            store.append(out_tree)
            if out_tree == in_tree:
                out_flat = _fixup_weak_outs(out_flat, init_avals)
            return out_flat
        body_jaxpr, body_consts = _trace_body(body_flat, init_avals,
                                              f"while_loop body_fun `{body_name}`", updates,
                                              len(init_avals))
        if _must_write_back(updates, writeback, f"lax.while_loop: body_fun `{body_name}`"):
            break
        if store[0] != in_tree:
            raise TypeError(f"lax.while_loop: body_fun `{body_name}` must return a value of the "
                            f"same tree structure as init_val; init_val is {in_tree} but "
                            f"body_fun returns {store[0]}")
        if not _carry_mismatch(init_avals, body_jaxpr.out_avals):
            break
        init_flat, changed = _promote_weak_inits(init_flat, init_avals, body_jaxpr.out_avals)
        if not changed:
            break
    cond_updates = _writeback.BodyUpdates()

    def cond_flat(*args):
        return tree_util.tree_leaves(cond_fun(tree_util.tree_unflatten(in_tree, args)))
    cond_jaxpr, cond_consts = _trace_body(cond_flat, init_avals,
                                          f"while_loop cond_fun `{cond_name}`", cond_updates)
    if cond_updates:
        raise _writeback.unsupported(f"lax.while_loop: cond_fun `{cond_name}` updates an array "
                                     f"in place;", "a loop condition cannot: do the update "
                                     "in body_fun.")
    if writeback and updates:
        return _while_writing_back(cond_fun, body_fun, init_val, updates, init_flat, body_name)
    if _carry_mismatch(init_avals, body_jaxpr.out_avals):
        raise TypeError(f"lax.while_loop: body_fun `{body_name}` must return a carry of the "
                        f"same types as init_val; init_val has types "
                        f"{_types_str(init_avals)} but body_fun returns "
                        f"{_types_str(body_jaxpr.out_avals)}")
    outs = cond_jaxpr.out_avals
    if len(outs) != 1 or outs[0].shape != () or outs[0].dtype != np.bool_:
        raise TypeError(f"lax.while_loop: cond_fun `{cond_name}` must return a boolean "
                        f"scalar, got {_types_str(outs)}")
    outs = while_p.bind(*cond_consts, *body_consts, *init_flat, cond_jaxpr=cond_jaxpr,
                        body_jaxpr=body_jaxpr, cond_nconsts=len(cond_consts),
                        body_nconsts=len(body_consts))
    return tree_util.tree_unflatten(in_tree, outs)


def _while_eager(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cconsts, bconsts, carry = split_list(args, cond_nconsts, body_nconsts)
    while bool(eval_jaxpr(cond_jaxpr, [*cconsts, *carry])[0]):
        carry = eval_jaxpr(body_jaxpr, [*bconsts, *carry])
    placement = dispatch.result_placement(args)
    return [_as_array(c, a, placement) for c, a in zip(carry, body_jaxpr.out_avals)]


def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cconsts, bconsts, carry = split_list(avals, cond_nconsts, body_nconsts)
    if _carry_mismatch(cond_jaxpr.in_avals, cconsts + carry):
        raise TypeError(f"lax.while_loop: cond_fun takes {_types_str(cond_jaxpr.in_avals)}, "
                        f"given {_types_str(cconsts + carry)}")
    if _carry_mismatch(body_jaxpr.in_avals, bconsts + carry):
        raise TypeError(f"lax.while_loop: body_fun takes {_types_str(body_jaxpr.in_avals)}, "
                        f"given {_types_str(bconsts + carry)}")
    if _carry_mismatch(carry, body_jaxpr.out_avals):
        raise TypeError(f"lax.while_loop: body_fun must return the carry types "
                        f"{_types_str(carry)}, it returns {_types_str(body_jaxpr.out_avals)}")
    pred = cond_jaxpr.out_avals
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != np.bool_:
        raise TypeError(f"lax.while_loop: cond_fun must return a boolean scalar, got "
                        f"{_types_str(pred)}")
    return body_jaxpr.out_avals


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nz = [type(t) is not ad.Zero for t in tangents]
    _, bconst_nz, carry_nz = split_list(nz, cond_nconsts, body_nconsts)
    def jvp_body_for(k):
        j, c, out_nz = ad.jvp_jaxpr_nonzeros(body_jaxpr, tuple(bconst_nz + k), tuple(k))
        return (j, c), out_nz
    carry_nz, (jvp_body, jconsts) = _carry_fixed_point(carry_nz, jvp_body_for)
    cconsts, bconsts, carry = split_list(primals, cond_nconsts, body_nconsts)
    _, bconst_t, carry_t = split_list(tangents, cond_nconsts, body_nconsts)
    bconst_t = [t for t, n in zip(bconst_t, bconst_nz) if n]
    carry_t = [ad.instantiate(t) for t, n in zip(carry_t, carry_nz) if n]
    nj, nb, nk, nbt = len(jconsts), len(bconsts), len(carry), len(bconst_t)
    # jvp_body takes (jconsts, bconsts, carry, bconst tangents, carry tangents)
    body = _reorder(jvp_body, [nj, nb, nk, nbt], [0, 1, 3, 2, 4])
    cond = Jaxpr(cond_jaxpr.in_binders + [Var(ad.tangent_aval(get_aval(t))) for t in carry_t],
                 cond_jaxpr.eqns, cond_jaxpr.outs)
    outs = while_p.bind(*cconsts, *jconsts, *bconsts, *bconst_t, *carry, *carry_t,
                        cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=cond_nconsts,
                        body_nconsts=nj + nb + nbt)
    primals_out, tangents_nz = split_list(outs, nk)
    it = iter(tangents_nz)
    tangents_out = [next(it) if n else ad.Zero(ad.tangent_aval(get_aval(p)))
                    for p, n in zip(primals_out, carry_nz)]
    return primals_out, tangents_out


def _while_batch(axis_size, args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts,
                 body_nconsts):
    cdims, bdims, kdims = split_list(dims, cond_nconsts, body_nconsts)
    def batched_loop_for(k):
        kd = tuple(0 if b else None for b in k)
        cj, cjconsts, (pred_b,) = batching.batch_jaxpr(cond_jaxpr, axis_size,
                                                       tuple(cdims) + kd, (False,))
        if pred_b and not all(k):
            return None, [True] * len(k)   # lanes finish at different times: all vary
        bj, bjconsts, out_b = batching.batch_jaxpr(body_jaxpr, axis_size,
                                                   tuple(bdims) + kd, tuple(k))
        return (cj, cjconsts, pred_b, bj, bjconsts), out_b
    carry_b, (cj, cjconsts, pred_b, bj, bjconsts) = _carry_fixed_point(
        [d is not None for d in kdims], batched_loop_for)
    cconsts, bconsts, carry = split_list(args, cond_nconsts, body_nconsts)
    carry = [batching.move_axis_to(axis_size, c, d, 0) if b else c
             for c, d, b in zip(carry, kdims, carry_b)]
    out_dims = [0 if b else None for b in carry_b]
    if not pred_b:
        outs = while_p.bind(*cjconsts, *cconsts, *bjconsts, *bconsts, *carry, cond_jaxpr=cj,
                            body_jaxpr=bj, cond_nconsts=len(cjconsts) + len(cconsts),
                            body_nconsts=len(bjconsts) + len(bconsts))
        return outs, out_dims
    # A batched predicate: loop while any lane's predicate holds; finished lanes keep
    # their values (select the old carry where the lane's predicate is false).
    nc, nb = len(cconsts), len(bconsts)

    def new_cond(*a):
        cc, k = split_list(a, nc)
        pred = eval_jaxpr(cj, [*cjconsts, *cc, *k])[0]
        return [reduce_or(pred, axes=(0,))]

    def new_body(*a):
        cc, bc, k = split_list(a, nc, nb)
        pred = eval_jaxpr(cj, [*cjconsts, *cc, *k])[0]
        new = eval_jaxpr(bj, [*bjconsts, *bc, *k])
        return [select_n(broadcast_in_dim(pred, get_aval(n).shape, (0,)), old, n)
                for old, n in zip(k, new)]
    c_avals = [get_aval(x) for x in cconsts]
    b_avals = [get_aval(x) for x in bconsts]
    k_avals = [get_aval(x) for x in carry]
    cond2, cconsts2 = pe.trace_to_jaxpr(new_cond, c_avals + k_avals)
    body2, bconsts2 = pe.trace_to_jaxpr(new_body, c_avals + b_avals + k_avals)
    outs = while_p.bind(*cconsts2, *cconsts, *bconsts2, *cconsts, *bconsts, *carry,
                        cond_jaxpr=cond2, body_jaxpr=body2,
                        cond_nconsts=len(cconsts2) + nc,
                        body_nconsts=len(bconsts2) + nc + nb)
    return outs, out_dims


def _while_split(cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts, unknowns):
    """Which carries are unknown, and known-only cond/body jaxprs (None: stage it all)."""
    cc_uk, bc_uk, carry_uk = split_list(unknowns, cond_nconsts, body_nconsts)
    def known_body_for(k):
        b1, _, out_uk, nres = pe.partial_eval_jaxpr(body_jaxpr, bc_uk + k, k)
        return (b1, nres), out_uk
    carry_uk, (b1, nres) = _carry_fixed_point(carry_uk, known_body_for)
    c1, _, (pred_uk,), cres = pe.partial_eval_jaxpr(cond_jaxpr, cc_uk + carry_uk)
    if pred_uk or all(carry_uk):
        return carry_uk, None, None
    nk = len(carry_uk) - sum(carry_uk)
    body_known = pe.dce_jaxpr(b1, [True] * nk + [False] * nres)
    cond_known = pe.dce_jaxpr(c1, [True] + [False] * cres)
    return carry_uk, cond_known, body_known


def _while_partial_eval(trace, tracers, *, cond_jaxpr, body_jaxpr, cond_nconsts,
                        body_nconsts):
    params = dict(cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr, cond_nconsts=cond_nconsts,
                  body_nconsts=body_nconsts)
    unknowns = [not t.pval.is_known for t in tracers]
    carry_uk, cond_known, body_known = _while_split(cond_jaxpr, body_jaxpr, cond_nconsts,
                                                    body_nconsts, unknowns)
    # The unknown outputs come from the whole loop, staged (recomputing the known part).
    staged = trace.stage_eqn(while_p, [trace.instantiate_const(t) for t in tracers], params,
                             body_jaxpr.out_avals)
    if cond_known is None:
        return staged
    cc, bc, carry = split_list(tracers, cond_nconsts, body_nconsts)
    cc_uk, bc_uk, _ = split_list(unknowns, cond_nconsts, body_nconsts)
    known = lambda ts, uks: [t.pval.const for t, u in zip(ts, uks) if not u]
    kc, kb = known(cc, cc_uk), known(bc, bc_uk)
    outs1 = while_p.bind(*kc, *kb, *known(carry, carry_uk), cond_jaxpr=cond_known,
                         body_jaxpr=body_known, cond_nconsts=len(kc), body_nconsts=len(kb))
    return merge_lists(carry_uk, outs1, partition_list(carry_uk, staged)[1])


def _while_partial_eval_jaxpr(unknowns, eqn):
    p = eqn.params
    carry_uk, cond_known, body_known = _while_split(p["cond_jaxpr"], p["body_jaxpr"],
                                                    p["cond_nconsts"], p["body_nconsts"],
                                                    unknowns)
    ins = eqn.inputs
    res = [x for x, u in zip(ins, unknowns) if not u and type(x) is Var]
    if cond_known is None:
        return None, eqn, [True] * len(eqn.out_binders), res
    cc, bc, carry = split_list(ins, p["cond_nconsts"], p["body_nconsts"])
    cc_uk, bc_uk, _ = split_list(unknowns, p["cond_nconsts"], p["body_nconsts"])
    kc = [x for x, u in zip(cc, cc_uk) if not u]
    kb = [x for x, u in zip(bc, bc_uk) if not u]
    kk = [x for x, u in zip(carry, carry_uk) if not u]
    outs1, _ = partition_list(carry_uk, eqn.out_binders)
    eqn1 = JaxprEqn(while_p, kc + kb + kk, dict(cond_jaxpr=cond_known, body_jaxpr=body_known,
                                                cond_nconsts=len(kc), body_nconsts=len(kb)),
                    outs1)
    binders2 = [Var(v.aval) if not u else v for v, u in zip(eqn.out_binders, carry_uk)]
    eqn2 = JaxprEqn(while_p, ins, p, binders2)
    return eqn1, eqn2, carry_uk, res


def _while_transpose(cts, *args, **params):
    raise ValueError(
        "Reverse-mode differentiation (grad, vjp) of lax.while_loop is not supported: "
        "the number of iterations is not known in advance, so the values of each "
        "iteration cannot be stored. Use lax.scan, or lax.fori_loop with static (Python "
        "int) bounds, which are reverse-differentiable; forward mode (jvp, jacfwd) works "
        "with while_loop.")


def _while_lower(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    mctx = ctx.module_ctx
    if has_ordered_effects(cond_jaxpr) or has_ordered_effects(body_jaxpr):
        return _while_lower_ordered(mctx, ctx.avals_in, args, cond_jaxpr, body_jaxpr,
                                    cond_nconsts, body_nconsts)
    types = [ir_type(a) for a in ctx.avals_in]
    op = hlo.WhileOp(types, list(args))
    cond_block = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        cc, _, carry = split_list(list(cond_block.arguments), cond_nconsts, body_nconsts)
        hlo.return_(jaxpr_subcomp(mctx, cond_jaxpr, cc + carry))
    body_block = op.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        cc, bc, carry = split_list(list(body_block.arguments), cond_nconsts, body_nconsts)
        new = jaxpr_subcomp(mctx, body_jaxpr, bc + carry)
        hlo.return_(cc + bc + new)
    return list(op.results)[cond_nconsts + body_nconsts:]


def _while_lower_ordered(mctx, avals_in, args, cond_jaxpr, body_jaxpr, cond_nconsts,
                         body_nconsts):
    """The while loop with the ordering token as an extra carry, so each iteration's
    ordered calls come after the previous one's. The predicate is computed before the
    loop and at the end of each body and carried too: XLA's condition region cannot
    return a token, and drops the calls whose token it cannot pass on."""
    cc, bc, init = split_list(list(args), cond_nconsts, body_nconsts)
    pred = jaxpr_subcomp(mctx, cond_jaxpr, cc + init)[0]
    bool_type = ir_type(ShapedArray((), np.dtype(np.bool_)))
    types = [ir_type(a) for a in avals_in] + [token_type(), bool_type]
    op = hlo.WhileOp(types, list(args) + [mctx.token, pred])
    cond_block = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        hlo.return_([cond_block.arguments[-1]])
    body_block = op.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        cc, bc, carry = split_list(list(body_block.arguments)[:-2], cond_nconsts,
                                   body_nconsts)
        mctx.token = body_block.arguments[-2]
        new = jaxpr_subcomp(mctx, body_jaxpr, bc + carry)
        new_pred = jaxpr_subcomp(mctx, cond_jaxpr, cc + new)[0]
        hlo.return_(cc + bc + new + [mctx.token, new_pred])
    results = list(op.results)
    mctx.token = results[-2]
    return results[cond_nconsts + body_nconsts:-2]


while_p.eager = _while_eager
while_p.abstract_eval = _while_abstract_eval
while_p.jvp = _while_jvp
while_p.batch = _while_batch
while_p.partial_eval = _while_partial_eval
while_p.partial_eval_jaxpr = _while_partial_eval_jaxpr
while_p.transpose = _while_transpose
while_p.lower = _while_lower


# ---------------------------------------------------------------- scan

def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``, stacking the ``y``.

    Returns ``(final carry, stacked ys)``. ``init``, ``xs`` and the outputs are
    pytrees; with ``xs=None`` give ``length``. ``reverse=True`` runs from the last
    element to the first (the ys keep their positions). ``unroll`` is accepted for
    compatibility; the loop is not unrolled.
    """
    xs_flat, xs_tree = tree_util.tree_flatten(xs)
    init_flat, init_tree = tree_util.tree_flatten(init)
    x_avals_full = [get_aval(x) for x in xs_flat]
    for a in x_avals_full:
        if a.ndim == 0:
            raise ValueError(f"lax.scan: every leaf of xs must have a leading axis to scan "
                             f"over, got a scalar {a.str_short()}")
    lengths = sorted({a.shape[0] for a in x_avals_full})
    if len(lengths) > 1:
        raise ValueError(f"lax.scan: xs leaves must all have the same leading axis size, got "
                         f"shapes {', '.join(str(a.shape) for a in x_avals_full)}")
    if length is not None:
        try:
            length = operator.index(length)
        except TypeError:
            raise TypeError(f"lax.scan: length must be a Python int, got {length!r}") from None
        if length < 0:
            raise ValueError(f"lax.scan: length must be non-negative, got {length}")
        if lengths and lengths[0] != length:
            raise ValueError(f"lax.scan: length={length} does not match the leading axis "
                             f"size {lengths[0]} of xs")
    elif lengths:
        length = lengths[0]
    else:
        raise ValueError("lax.scan: give xs to scan over or an explicit length")
    return _scan(f, init, xs, length, reverse, unroll, init_flat, init_tree, xs_flat, xs_tree,
                 x_avals_full, True)


def _scan(f, init, xs, length, reverse, unroll, init_flat, init_tree, xs_flat, xs_tree,
          x_avals_full, writeback):
    name = _fun_name(f)
    x_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in x_avals_full]
    nk = len(init_flat)
    updates = _writeback.BodyUpdates()
    for _ in range(2):
        init_avals = [get_aval(c) for c in init_flat]
        store = []

        def body_flat(*args):
            carry = tree_util.tree_unflatten(init_tree, args[:nk])
            x = tree_util.tree_unflatten(xs_tree, args[nk:])
            out = f(carry, x)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise TypeError(f"lax.scan: body function `{name}` must return a pair "
                                f"(carry, y), got {type(out).__name__}")
            c_flat, c_tree = tree_util.tree_flatten(out[0])
            y_flat, y_tree = tree_util.tree_flatten(out[1])
            store.append((c_tree, y_tree))
            if c_tree == init_tree:
                c_flat = _fixup_weak_outs(c_flat, init_avals)
            return c_flat + y_flat
        jaxpr, consts = _trace_body(body_flat, init_avals + x_avals,
                                    f"scan body function `{name}`", updates, nk)
        if _must_write_back(updates, writeback, f"lax.scan: body function `{name}`"):
            return _scan_writing_back(f, init, xs, length, reverse, unroll, updates,
                                      init_flat, xs_flat, name)
        c_tree, y_tree = store[0]
        if c_tree != init_tree:
            raise TypeError(f"lax.scan: body function `{name}` must return a carry of the same "
                            f"tree structure as init; init is {init_tree} but the carry "
                            f"output is {c_tree}")
        out_avals = jaxpr.out_avals[:nk]
        if not _carry_mismatch(init_avals, out_avals):
            break
        init_flat, changed = _promote_weak_inits(init_flat, init_avals, out_avals)
        if not changed:
            break
    if _carry_mismatch(init_avals, out_avals):
        raise TypeError(f"lax.scan: body function `{name}` must return a carry of the same "
                        f"types as init; init has types {_types_str(init_avals)} but the "
                        f"carry output has types {_types_str(out_avals)}")
    outs = scan_p.bind(*consts, *init_flat, *xs_flat, jaxpr=jaxpr, num_consts=len(consts),
                       num_carry=nk, length=length, reverse=bool(reverse), unroll=unroll)
    carry, ys = split_list(outs, nk)
    return tree_util.tree_unflatten(init_tree, carry), tree_util.tree_unflatten(y_tree, ys)


def _scan_eager(*args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    consts, carry, xs = split_list(args, num_consts, num_carry)
    placement = dispatch.result_placement(args)
    x_avals = jaxpr.in_avals[num_consts + num_carry:]
    y_avals = jaxpr.out_avals[num_carry:]
    xs_host = [dispatch.host_value(x, get_aval(x)) for x in xs]
    ys = [[None] * length for _ in y_avals]
    for step in range(length):
        i = length - 1 - step if reverse else step
        x_i = [_make(a, np.asarray(h[i]), None, placement)
               for h, a in zip(xs_host, x_avals)]
        outs = eval_jaxpr(jaxpr, [*consts, *carry, *x_i])
        carry = outs[:num_carry]
        for buf, y, a in zip(ys, outs[num_carry:], y_avals):
            buf[i] = dispatch.host_value(y, a)
    carry_out = [_as_array(c, a, placement) for c, a in zip(carry, jaxpr.out_avals)]
    ys_out = []
    for buf, a in zip(ys, y_avals):
        host = np.stack(buf) if length else np.zeros((0,) + a.shape, a.dtype)
        ys_out.append(_make(ShapedArray(host.shape, a.dtype, a.weak_type), host, None,
                                  placement))
    return carry_out + ys_out


def _scan_abstract_eval(*avals, jaxpr, num_consts, num_carry, length, reverse, unroll):
    if len(avals) != len(jaxpr.in_binders):
        raise TypeError(f"lax.scan: body takes {len(jaxpr.in_binders)} operands, given "
                        f"{len(avals)}")
    consts, carry, xs = split_list(avals, num_consts, num_carry)
    b_consts, b_carry, b_xs = split_list(jaxpr.in_avals, num_consts, num_carry)
    if _carry_mismatch(b_consts, consts):
        raise TypeError(f"lax.scan: body takes constants {_types_str(b_consts)}, given "
                        f"{_types_str(consts)}")
    out_carry = jaxpr.out_avals[:num_carry]
    if _carry_mismatch(carry, b_carry) or _carry_mismatch(carry, out_carry):
        raise TypeError(f"lax.scan: the carry has types {_types_str(carry)} but the body "
                        f"takes {_types_str(b_carry)} and returns {_types_str(out_carry)}")
    for x, bx in zip(xs, b_xs):
        if x.ndim == 0 or x.shape[0] != length:
            raise ValueError(f"lax.scan: xs operand {x.str_short()} must have leading axis "
                             f"size length={length}")
        if x.shape[1:] != bx.shape or x.dtype != bx.dtype:
            raise TypeError(f"lax.scan: xs operand {x.str_short()} does not match the body's "
                            f"x type {bx.str_short()}")
    if len(b_xs) != len(xs):
        raise TypeError("lax.scan: wrong number of xs operands")
    ys = [ShapedArray((length,) + a.shape, a.dtype, a.weak_type)
          for a in jaxpr.out_avals[num_carry:]]
    return out_carry + ys


def _scan_params(params, **changes):
    new = dict(params)
    new.update(changes)
    return new


def _scan_jvp(primals, tangents, **params):
    jaxpr, nc, nk = params["jaxpr"], params["num_consts"], params["num_carry"]
    ny = len(jaxpr.outs) - nk
    nz = [type(t) is not ad.Zero for t in tangents]
    const_nz, carry_nz, xs_nz = split_list(nz, nc, nk)
    def jvp_body_for(k):
        j, c, out_nz = ad.jvp_jaxpr_nonzeros(jaxpr, tuple(const_nz + k + xs_nz),
                                             tuple(k + [False] * ny))
        return (j, c, out_nz), out_nz[:nk]
    carry_nz, (jvp_j, jconsts, out_nz) = _carry_fixed_point(carry_nz, jvp_body_for)
    ys_nz = list(out_nz[nk:])
    consts, carry, xs = split_list(primals, nc, nk)
    ct, kt, xt = split_list(tangents, nc, nk)
    ct = [t for t, n in zip(ct, const_nz) if n]
    kt = [ad.instantiate(t) for t, n in zip(kt, carry_nz) if n]
    xt = [t for t, n in zip(xt, xs_nz) if n]
    nj, nx = len(jconsts), len(xs)
    # jvp_j: (J, consts, carry, xs, const tangents, carry tangents, xs tangents) ->
    #        (carry, ys, carry tangents, ys tangents); regroup as a scan body.
    body = _reorder(jvp_j, [nj, nc, nk, nx, len(ct), len(kt)], [0, 1, 4, 2, 5, 3, 6],
                    [nk, ny, len(kt)], [0, 2, 1, 3])
    outs = scan_p.bind(*jconsts, *consts, *ct, *carry, *kt, *xs, *xt,
                       **_scan_params(params, jaxpr=body, num_consts=nj + nc + len(ct),
                                      num_carry=nk + len(kt)))
    carry_out, kt_out, ys, yt = split_list(outs, nk, len(kt), ny)
    it_k, it_y = iter(kt_out), iter(yt)
    zero = lambda p: ad.Zero(ad.tangent_aval(get_aval(p)))
    t_carry = [next(it_k) if n else zero(p) for p, n in zip(carry_out, carry_nz)]
    t_ys = [next(it_y) if n else zero(p) for p, n in zip(ys, ys_nz)]
    return carry_out + ys, t_carry + t_ys


def _scan_batch(axis_size, args, dims, **params):
    jaxpr, nc, nk = params["jaxpr"], params["num_consts"], params["num_carry"]
    ny = len(jaxpr.outs) - nk
    cdims, kdims, xdims = split_list(dims, nc, nk)
    # Scanned operands keep axis 0 for the loop: their batch axis goes to 1, which is
    # axis 0 of each slice the body sees.
    x_body_dims = tuple(None if d is None else 0 for d in xdims)
    def batched_body_for(k):
        kd = tuple(0 if b else None for b in k)
        bj, bconsts, out_b = batching.batch_jaxpr(jaxpr, axis_size, tuple(cdims) + kd + x_body_dims,
                                                  tuple(k + [False] * ny))
        return (bj, bconsts, out_b), out_b[:nk]
    carry_b, (bj, bconsts, out_b) = _carry_fixed_point([d is not None for d in kdims],
                                                       batched_body_for)
    consts, carry, xs = split_list(args, nc, nk)
    carry = [batching.move_axis_to(axis_size, c, d, 0) if b else c
             for c, d, b in zip(carry, kdims, carry_b)]
    xs = [x if d is None else batching.moveaxis(x, d, 1) for x, d in zip(xs, xdims)]
    outs = scan_p.bind(*bconsts, *consts, *carry, *xs,
                       **_scan_params(params, jaxpr=bj, num_consts=len(bconsts) + nc))
    out_dims = [0 if b else None for b in carry_b] + [1 if b else None for b in out_b[nk:]]
    return outs, out_dims


class _ScanSplit:
    """A scan body split by which inputs are unknown.

    The known scan takes (known consts; known carry; known xs) and returns (known
    carry; known ys; stacked residuals). The unknown scan takes (residual consts,
    unknown consts; unknown carry; unknown xs, residual xs, stacked residuals).
    ``res_sources`` says where each residual comes from: ("const", i) or ("xs", i)
    for an input of the scan itself (i indexes consts/xs), ("hoisted", j) for a
    loop-invariant value (computed once from the known consts by ``self.hoist``,
    passed as a constant; only with ``hoist=True``), ("stacked", j) otherwise.
    """

    def __init__(self, jaxpr, nc, nk, unknowns, hoist=False):
        ny = len(jaxpr.outs) - nk
        const_uk, carry_uk, xs_uk = split_list(unknowns, nc, nk)
        def split_body_for(k):
            j1, j2, out_uk, nres = pe.partial_eval_jaxpr(jaxpr, const_uk + k + xs_uk,
                                                         k + [False] * ny)
            return (j1, j2, out_uk, nres), out_uk[:nk]
        carry_uk, (j1, j2, out_uk, nres) = _carry_fixed_point(carry_uk, split_body_for)
        self.const_uk, self.carry_uk, self.xs_uk = const_uk, carry_uk, xs_uk
        self.ys_uk = list(out_uk[nk:])
        known_consts = [v for v, u in zip(jaxpr.in_binders[:nc], const_uk) if not u]
        known_const_pos = [i for i, u in enumerate(const_uk) if not u]
        known_xs = [v for v, u in zip(jaxpr.in_binders[nc + nk:], xs_uk) if not u]
        known_xs_pos = [i for i, u in enumerate(xs_uk) if not u]
        n_known_out = len(j1.outs) - nres
        res_vars = j1.outs[n_known_out:]
        # j1 binders are the known inputs in order; map binders of j1 back to scan inputs
        j1_consts = j1.in_binders[:len(known_consts)]
        j1_xs = j1.in_binders[len(j1.in_binders) - len(known_xs):] if known_xs else []
        # values that depend on no carry and no x are the same at every iteration
        variant = set(j1.in_binders[len(known_consts):])
        invariant_eqns = []
        for eqn in j1.eqns:
            if any(type(x) is Var and x in variant for x in eqn.inputs):
                variant.update(eqn.out_binders)
            else:
                invariant_eqns.append(eqn)
        sources, stacked, hoisted = [], [], []
        for r in res_vars:
            if r in j1_consts:
                sources.append(("const", known_const_pos[j1_consts.index(r)]))
            elif r in j1_xs:
                sources.append(("xs", known_xs_pos[j1_xs.index(r)]))
            elif hoist and r not in variant:
                sources.append(("hoisted", len(hoisted)))
                hoisted.append(r)
            else:
                sources.append(("stacked", len(stacked)))
                stacked.append(r)
        self.res_sources = sources
        self.stacked_avals = [r.aval for r in stacked]
        self.hoist = pe.dce_jaxpr(Jaxpr(j1_consts, invariant_eqns, hoisted), [True] * len(hoisted))
        known_outs = j1.outs[:n_known_out] + stacked
        self.known = pe.dce_jaxpr(Jaxpr(j1.in_binders, j1.eqns, known_outs),
                                  [True] * len(known_outs))
        res_binders = j2.in_binders[:nres]
        kind = lambda k: [b for b, s in zip(res_binders, sources) if s[0] == k]
        rc, rh, rx, rs = kind("const"), kind("hoisted"), kind("xs"), kind("stacked")
        n_uc, n_uk = sum(const_uk), sum(carry_uk)
        uc, uk, ux = split_list(j2.in_binders[nres:], n_uc, n_uk)
        self.unknown = Jaxpr(rc + rh + uc + uk + ux + rx + rs, j2.eqns, j2.outs)
        self.num_consts2 = len(rc) + len(rh) + n_uc
        self.num_known_consts = len(known_consts)
        self.num_known_carry = nk - n_uk


def _scan_partial_eval(trace, tracers, **params):
    jaxpr, nc, nk = params["jaxpr"], params["num_consts"], params["num_carry"]
    unknowns = [not t.pval.is_known for t in tracers]
    sp = _ScanSplit(jaxpr, nc, nk, unknowns, hoist=True)
    consts, carry, xs = split_list(tracers, nc, nk)
    known = lambda ts, uks: [t.pval.const for t, u in zip(ts, uks) if not u]
    hoisted = eval_jaxpr(sp.hoist, known(consts, sp.const_uk))
    outs1 = scan_p.bind(*known(consts, sp.const_uk), *known(carry, sp.carry_uk),
                        *known(xs, sp.xs_uk),
                        **_scan_params(params, jaxpr=sp.known, num_consts=sp.num_known_consts,
                                       num_carry=sp.num_known_carry))
    n_ky = len(sp.ys_uk) - sum(sp.ys_uk)
    k_carry, k_ys, stacked = split_list(outs1, sp.num_known_carry, n_ky)
    inst = trace.instantiate_const
    res_c = [inst(consts[i]) for kind, i in sp.res_sources if kind == "const"]
    res_h = [inst(trace.pure(h)) for h in hoisted]
    res_x = [inst(xs[i]) for kind, i in sp.res_sources if kind == "xs"]
    res_s = [inst(trace.pure(s)) for s in stacked]
    ins2 = (res_c + res_h + [t for t, u in zip(consts, sp.const_uk) if u]
            + [inst(t) for t, u in zip(carry, sp.carry_uk) if u]
            + [t for t, u in zip(xs, sp.xs_uk) if u] + res_x + res_s)
    params2 = _scan_params(params, jaxpr=sp.unknown, num_consts=sp.num_consts2,
                           num_carry=sum(sp.carry_uk))
    avals2 = _scan_abstract_eval(*[t.aval for t in ins2], **params2)
    outs2 = trace.stage_eqn(scan_p, ins2, params2, avals2)
    u_carry, u_ys = split_list(outs2, sum(sp.carry_uk))
    return merge_lists(sp.carry_uk, k_carry, u_carry) + merge_lists(sp.ys_uk, k_ys, u_ys)


def _scan_partial_eval_jaxpr(unknowns, eqn):
    params = eqn.params
    jaxpr, nc, nk, length = (params["jaxpr"], params["num_consts"], params["num_carry"],
                             params["length"])
    sp = _ScanSplit(jaxpr, nc, nk, list(unknowns), hoist=True)
    consts, carry, xs = split_list(eqn.inputs, nc, nk)
    carry_out, ys_out = split_list(eqn.out_binders, nk)
    known = lambda xs_, uks: [x for x, u in zip(xs_, uks) if not u]
    hoist_eqns, res_h = _inline_eqns(sp.hoist, known(consts, sp.const_uk))
    stacked = [Var(ShapedArray((length,) + a.shape, a.dtype, a.weak_type))
               for a in sp.stacked_avals]
    eqn1 = JaxprEqn(scan_p, known(consts, sp.const_uk) + known(carry, sp.carry_uk)
                    + known(xs, sp.xs_uk),
                    _scan_params(params, jaxpr=sp.known, num_consts=sp.num_known_consts,
                                 num_carry=sp.num_known_carry),
                    known(carry_out, sp.carry_uk) + known(ys_out, sp.ys_uk) + stacked)
    res_c = [consts[i] for kind, i in sp.res_sources if kind == "const"]
    res_x = [xs[i] for kind, i in sp.res_sources if kind == "xs"]
    uk_carry_in = [x for x, u in zip(carry, sp.carry_uk) if u]
    ins2 = (res_c + res_h + [x for x, u in zip(consts, sp.const_uk) if u] + uk_carry_in
            + [x for x, u in zip(xs, sp.xs_uk) if u] + res_x + stacked)
    eqn2 = JaxprEqn(scan_p, ins2, _scan_params(params, jaxpr=sp.unknown,
                                               num_consts=sp.num_consts2,
                                               num_carry=sum(sp.carry_uk)),
                    [v for v, u in zip(carry_out, sp.carry_uk) if u]
                    + [v for v, u in zip(ys_out, sp.ys_uk) if u])
    carry_in_uk = list(unknowns[nc:nc + nk])
    known_carry_in = [x for x, u, u0 in zip(carry, sp.carry_uk, carry_in_uk) if u and not u0]
    res = [x for x in res_c + res_h + res_x + known_carry_in if type(x) is Var] + stacked
    eqns1 = hoist_eqns + ([eqn1] if eqn1.out_binders else [])
    return eqns1, eqn2, sp.carry_uk + sp.ys_uk, res


def _inline_eqns(jaxpr, in_atoms):
    """``jaxpr``'s equations applied to ``in_atoms``, with fresh variables (the same
    jaxpr may be inlined more than once into one jaxpr); returns (eqns, out atoms)."""
    env = dict(zip(jaxpr.in_binders, in_atoms))
    sub = lambda x: env.get(x, x) if type(x) is Var else x
    eqns = []
    for e in jaxpr.eqns:
        outs = [Var(v.aval) for v in e.out_binders]
        eqns.append(JaxprEqn(e.primitive, [sub(x) for x in e.inputs], e.params, outs))
        env.update(zip(e.out_binders, outs))
    return eqns, [sub(x) for x in jaxpr.outs]


def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    consts, carry, xs = split_list(args, nc, nk)
    c_undef = [ad.is_undefined(c) for c in consts]
    x_undef = [ad.is_undefined(x) for x in xs]
    # The body is linear in the carry: defined carry inputs (known zeros) count as linear.
    mask = tuple(c_undef + [True] * nk + x_undef)
    t_jaxpr, t_consts = ad.transpose_jaxpr(jaxpr, mask)
    # t_jaxpr: (t_consts, defined consts, defined xs, ct carry, ct ys) ->
    #          (ct undefined consts, ct carry, ct undefined xs)
    def_consts = [c for c, u in zip(consts, c_undef) if not u]
    def_xs = [x for x, u in zip(xs, x_undef) if not u]
    undef_c_avals = [ad.tangent_aval(c.aval) for c, u in zip(consts, c_undef) if u]
    ct_carry, ct_ys = split_list([ad.instantiate(c) for c in cts], nk)
    n_dc, n_uc, n_dx = len(def_consts), len(undef_c_avals), len(def_xs)

    def body(*a):
        dc, acc, ck, dx, cy = split_list(a, n_dc, n_uc, nk, n_dx)
        outs = eval_jaxpr(t_jaxpr, [*t_consts, *dc, *dx, *ck, *cy])
        ct_c, ct_k, ct_x = split_list(outs, n_uc, nk)
        return [ad.add_tangents(s, c) for s, c in zip(acc, ct_c)] + ct_k + ct_x
    avals = ([get_aval(c) for c in def_consts] + undef_c_avals
             + [ad.tangent_aval(a) for a in jaxpr.in_avals[nc:nc + nk]]
             + [ShapedArray(get_aval(x).shape[1:], get_aval(x).dtype) for x in def_xs]
             + [ShapedArray(get_aval(c).shape[1:], get_aval(c).dtype) for c in ct_ys])
    body_jaxpr, body_consts = pe.trace_to_jaxpr(body, avals)
    acc0 = [ad.zeros_like_aval(a) for a in undef_c_avals]
    outs = scan_p.bind(*body_consts, *def_consts, *acc0, *ct_carry, *def_xs, *ct_ys,
                       jaxpr=body_jaxpr, num_consts=len(body_consts) + n_dc,
                       num_carry=n_uc + nk, length=length, reverse=not reverse, unroll=unroll)
    ct_consts, ct_init, ct_xs = split_list(outs, n_uc, nk)
    it_c, it_x = iter(ct_consts), iter(ct_xs)
    return ([next(it_c) if u else None for u in c_undef]
            + [ct if ad.is_undefined(k) else None for ct, k in zip(ct_init, carry)]
            + [next(it_x) if u else None for u in x_undef])


def _scan_lower(ctx, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    consts, carry, xs = split_list(list(args), num_consts, num_carry)
    x_avals = ctx.avals_in[num_consts + num_carry:]
    y_avals = ctx.avals_out[num_carry:]
    if length == 0:   # nothing to run (and no slice of a zero-length axis to take)
        return carry + [full_like_aval(0, a) for a in y_avals]
    counter = ShapedArray((), np.dtype(np.int64))
    mctx = ctx.module_ctx
    ordered = has_ordered_effects(jaxpr)   # then the token is the last carry
    operands = [ir_constant(np.int64(0)), *consts, *carry, *xs,
                *[full_like_aval(0, a) for a in y_avals]] + ([mctx.token] if ordered else [])
    types = [ir_type(a) for a in [counter, *ctx.avals_in, *y_avals]]
    types += [token_type()] if ordered else []
    op = hlo.WhileOp(types, operands)
    outer_token = mctx.token
    cond_block = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        pred = hlo.compare(cond_block.arguments[0], ir_constant(np.int64(length)),
                           hlo.ComparisonDirectionAttr.get("LT"),
                           compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
        hlo.return_([pred])
    body_block = op.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        i, c, k, x, y = split_list(list(body_block.arguments), 1, num_consts, num_carry, len(xs))
        i = i[0]
        if ordered:
            y, mctx.token = y[:-1], y[-1]
        idx = hlo.subtract(ir_constant(np.int64(length - 1)), i) if reverse else i
        zero = ir_constant(np.int64(0))
        x_slices = []
        for xv, a in zip(x, x_avals):
            sl = hlo.dynamic_slice(xv, [idx] + [zero] * (a.ndim - 1), [1, *a.shape[1:]])
            x_slices.append(hlo.reshape(ir_type(ShapedArray(a.shape[1:], a.dtype)), sl))
        outs = jaxpr_subcomp(ctx.module_ctx, jaxpr, c + k + x_slices)
        new_k, y_new = split_list(outs, num_carry)
        new_y = []
        for buf, yv, a in zip(y, y_new, y_avals):
            upd = hlo.reshape(ir_type(ShapedArray((1, *a.shape[1:]), a.dtype)), yv)
            new_y.append(hlo.dynamic_update_slice(buf, upd, [idx] + [zero] * (a.ndim - 1)))
        one = ir_constant(np.int64(1))
        hlo.return_([hlo.add(i, one), *c, *new_k, *x, *new_y]
                    + ([mctx.token] if ordered else []))
    results = list(op.results)
    mctx.token = results.pop() if ordered else outer_token
    _, _, carry_out, _, ys_out = split_list(results, 1, num_consts, num_carry, len(xs))
    return carry_out + ys_out


scan_p.eager = _scan_eager
scan_p.abstract_eval = _scan_abstract_eval
scan_p.jvp = _scan_jvp
scan_p.batch = _scan_batch
scan_p.partial_eval = _scan_partial_eval
scan_p.partial_eval_jaxpr = _scan_partial_eval_jaxpr
scan_p.transpose = _scan_transpose
scan_p.lower = _scan_lower


# ---------------------------------------------------------------- fori_loop and map

def _scan_writing_back(f, init, xs, length, reverse, unroll, updates, init_flat, xs_flat,
                       name):
    """A ``scan`` whose body updates arrays from outside it in place (they join the
    carry), its carry argument returned as that carry (the final carry is written into
    ``init``) or its ``x`` slice (the updated slices are stacked and written into
    ``xs``, as through a NumPy view), DESIGN 5."""
    nk = len(init_flat)
    err = _carry_not_kept(updates, nk, f"lax.scan: body function `{name}`")
    if err is not None:
        raise err
    objs = updates.outer
    carried = sorted(k for k in updates.args if k < nk)
    sliced = sorted(k - nk for k in updates.args if k >= nk)

    def body2(carry, x):
        c, vals = carry
        _writeback.substitute(objs, vals)
        c_out, y = f(c, x)
        x_leaves = tree_util.tree_leaves(x)
        return (c_out, _writeback.current(objs, vals)), (y, [x_leaves[j] for j in sliced])
    init2 = (init, list(objs))
    init2_flat, init2_tree = tree_util.tree_flatten(init2)
    (c, vals), (ys, new_xs) = _scan(body2, init2, xs, length, reverse, unroll, init2_flat,
                                    init2_tree, xs_flat, tree_util.tree_structure(xs),
                                    [get_aval(x) for x in xs_flat], False)
    c_flat = tree_util.tree_leaves(c)
    _writeback.write_back([init_flat[i] for i in carried] + list(objs)
                          + [xs_flat[j] for j in sliced],
                          [c_flat[i] for i in carried] + list(vals) + list(new_xs), "lax.scan")
    return c, ys


def _static_int(x):
    """``x`` as a Python int if it is a concrete integer scalar, else None."""
    if isinstance(x, bool):
        return None
    value = get_concrete(x)
    if value is None:
        return None
    a = np.asarray(value)
    if a.shape != () or a.dtype.kind not in "iu":
        return None
    return int(a)


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``; returns ``val``.

    With concrete (Python int) bounds the loop is a ``scan`` and reverse-mode
    differentiable; with traced bounds it is a ``while_loop`` (forward mode only).
    """
    for name, b in (("lower", lower), ("upper", upper)):
        aval = get_aval(b)
        if aval.shape != () or aval.dtype.kind not in "iu":
            raise TypeError(f"lax.fori_loop: {name} bound must be an integer scalar, got "
                            f"{aval.str_short()}")
    lo, hi = _static_int(lower), _static_int(upper)
    dtype = np.result_type(get_aval(lower).dtype, get_aval(upper).dtype)
    info = np.iinfo(dtype)
    for name, b in (("lower", lo), ("upper", hi)):
        if b is not None and not info.min <= b <= info.max:
            raise OverflowError(f"lax.fori_loop: {name} bound: Python integer {b} out of "
                                f"bounds for {np.dtype(dtype).name}")
    if lo is not None and hi is not None:
        i0 = _make(ShapedArray((), np.dtype(dtype)), np.asarray(lo, dtype))
        one = np.asarray(1, dtype)

        def step(carry, _):
            i, x = carry
            return (add(i, one), body_fun(i, x)), None
        (_, out), _ = scan(step, (i0, init_val), None, length=max(hi - lo, 0),
                           unroll=1 if unroll is None else unroll)
        return out
    lower = convert_element_type(lower, dtype)
    upper = convert_element_type(upper, dtype)
    one = np.asarray(1, dtype)

    def cond(carry):
        return lt(carry[0], carry[1])

    def body(carry):
        i, u, x = carry
        return add(i, one), u, body_fun(i, x)
    return while_loop(cond, body, (lower, upper, init_val))[2]


def map(f, xs):
    """``f`` applied to each slice of ``xs`` along its leading axis, results stacked."""
    return scan(lambda _, x: ((), f(x)), (), xs)[1]
