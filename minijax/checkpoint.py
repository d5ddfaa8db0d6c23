"""``checkpoint`` (``remat``): trade computation for memory in reverse mode.

``checkpoint(f)`` stages ``f`` into one ``remat`` equation. When differentiation
splits it into a forward and a backward part, only the inputs (and the
intermediates its ``policy`` allows) are saved as residuals; the backward part
recomputes everything else from them, so the intermediates of ``f`` are not kept
alive between the forward and the backward pass.
"""

import functools
import inspect

from . import tree_util
from ._mutation import write_back_updated
from .api import _check_leaf, _debug_info, _flatten_fun, _fun_name, _with_updated_args
from .core import Jaxpr, JaxprEqn, Primitive, Var, eval_jaxpr
from .core.trace import eager
from .interpreters import ad, batching, partial_eval as pe
from .interpreters.lowering import hlo, jaxpr_subcomp
from .traceback_util import api_boundary
from .util import NamedCallable, merge_lists, partition_list

remat_p = Primitive("remat", multiple_results=True)
optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
name_p = Primitive("name")


# ---------------------------------------------------------------- optimization barrier
#
# The identity, which XLA may not look through: the backward pass's recomputation
# starts from the residuals passed through it, so XLA cannot merge (CSE) the
# recomputed values with the forward pass's and keep them alive after all.

def _barrier_jvp(primals, tangents):
    outs = optimization_barrier_p.bind(*primals)
    nonzero = [t for t in tangents if type(t) is not ad.Zero]
    t_outs = iter(optimization_barrier_p.bind(*nonzero)) if nonzero else iter(())
    return outs, [t if type(t) is ad.Zero else next(t_outs) for t in tangents]


optimization_barrier_p.impl = lambda *xs: list(xs)
optimization_barrier_p.abstract_eval = lambda *avals: list(avals)
optimization_barrier_p.jvp = _barrier_jvp
optimization_barrier_p.transpose = lambda cts, *args: [
    None if not ad.is_undefined(a) else c for a, c in zip(args, cts)]
optimization_barrier_p.batch = lambda axis_size, args, dims: (
    optimization_barrier_p.bind(*args), list(dims))
optimization_barrier_p.lower = lambda ctx, *args: list(
    hlo.OptimizationBarrierOp(list(args)).results)


# ---------------------------------------------------------------- checkpoint_name
#
# The identity, recorded as an equation with a ``name`` parameter, so a policy can
# choose to save the value by its name.

name_p.impl = lambda x, *, name: [x]
name_p.abstract_eval = lambda aval, *, name: [aval]
ad.deflinear(name_p, lambda cts, x, *, name: cts)
name_p.batch = lambda axis_size, args, dims, *, name: ([name_p.bind(args[0], name=name)],
                                                       list(dims))
name_p.lower = lambda ctx, x, *, name: [x]


def checkpoint_name(x, name):
    """``x`` (any pytree), with each leaf named ``name`` for ``checkpoint`` policies such
    as ``checkpoint_policies.save_only_these_names``."""
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a str, got {type(name).__name__}")
    return tree_util.tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


# ---------------------------------------------------------------- policies

class _NamePolicy:
    """Save the values named by ``checkpoint_name`` that ``keep(name)`` accepts (and, with
    ``others``, every unnamed value too); equal policies compare equal, so a
    checkpointed function is not re-traced for a new but identical policy."""

    __slots__ = ("kind", "names", "others")

    def __init__(self, kind, names, others=False):
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"checkpoint_policies.{kind}: names must be str, got {n!r}")
        self.kind, self.names, self.others = kind, frozenset(names), others

    def __call__(self, prim, *avals, **params):
        if prim is not name_p:
            return self.others
        return (params["name"] in self.names) == (self.kind == "save_only_these_names")

    def __eq__(self, other):
        return (type(other) is _NamePolicy and (self.kind, self.names, self.others)
                == (other.kind, other.names, other.others))

    def __hash__(self):
        return hash((self.kind, self.names, self.others))

    def __repr__(self):
        return f"{self.kind}({', '.join(map(repr, sorted(self.names)))})"

class checkpoint_policies:  # noqa: N801  (JAX's name)
    """Which intermediates a checkpointed function may save for the backward pass.

    A policy is ``policy(primitive, *in_avals, **params) -> bool`` (True: save the
    result of this equation rather than recompute it).
    """

    @staticmethod
    def nothing_saveable(prim, *avals, **params):
        return False

    @staticmethod
    def everything_saveable(prim, *avals, **params):
        return True

    @staticmethod
    def dots_saveable(prim, *avals, **params):
        return prim.name == "dot_general"

    checkpoint_dots = dots_saveable

    @staticmethod
    def dots_with_no_batch_dims_saveable(prim, *avals, **params):
        if prim.name != "dot_general":
            return False
        (_, _), (lhs_batch, _) = params["dimension_numbers"]
        return not lhs_batch

    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable

    @staticmethod
    def save_only_these_names(*names):
        """Save only the values named (``checkpoint_name``) with one of ``names``."""
        return _NamePolicy("save_only_these_names", names)

    @staticmethod
    def save_any_names_but_these(*names):
        """Save every named value except those named with one of ``names``."""
        return _NamePolicy("save_any_names_but_these", names)

    @staticmethod
    def save_anything_except_these_names(*names):
        """Save every value except those named with one of ``names``."""
        return _NamePolicy("save_anything_except_these_names", names, others=True)

    @staticmethod
    def save_from_both_policies(policy_1, policy_2):
        """Save a value when either policy would."""
        def policy(prim, *avals, **params):
            out1, out2 = policy_1(prim, *avals, **params), policy_2(prim, *avals, **params)
            if not (isinstance(out1, bool) and isinstance(out2, bool)):
                raise ValueError(f"save_from_both_policies: policies must return booleans, "
                                 f"got {out1!r} and {out2!r}")
            return out1 or out2
        return policy


# ---------------------------------------------------------------- the primitive's rules

def _remat_eager(*args, jaxpr, policy, prevent_cse):
    return eval_jaxpr(jaxpr, args)


def _remat_abstract_eval(*avals, jaxpr, policy, prevent_cse):
    return jaxpr.out_avals


def _remat_jvp(primals, tangents, *, jaxpr, policy, prevent_cse):
    nonzeros = tuple(type(t) is not ad.Zero for t in tangents)
    n_out = len(jaxpr.outs)
    new_jaxpr, consts, _ = ad.jvp_jaxpr_nonzeros(jaxpr, nonzeros, (True,) * n_out)
    nz_tangents = [t for t, nz in zip(tangents, nonzeros) if nz]
    outs = remat_p.bind(*consts, *primals, *nz_tangents,
                        jaxpr=new_jaxpr, policy=policy,
                        prevent_cse=prevent_cse)
    return outs[:n_out], outs[n_out:]


def _remat_batch(axis_size, args, dims, *, jaxpr, policy, prevent_cse):
    new_jaxpr, consts = batching.vmap_jaxpr(jaxpr, axis_size, tuple(dims))
    outs = remat_p.bind(*consts, *args, jaxpr=new_jaxpr, policy=policy, prevent_cse=prevent_cse)
    return outs, [0] * len(outs)


def _remat_lower(ctx, *args, jaxpr, policy, prevent_cse):
    return jaxpr_subcomp(ctx.module_ctx, jaxpr, list(args))


def _remat_transpose(cts, *args, jaxpr, policy, prevent_cse):
    # The transposed jaxpr evaluates the non-linear equations forward first: this is
    # where the forward pass is recomputed.
    undef = tuple(ad.is_undefined(a) for a in args)
    t_jaxpr, consts = ad.transpose_jaxpr(jaxpr, undef)
    defined = [a for a in args if not ad.is_undefined(a)]
    if prevent_cse and defined:
        defined = optimization_barrier_p.bind(*defined)
    cts = [ad.instantiate(c) for c in cts]
    outs = iter(eval_jaxpr(t_jaxpr, [*consts, *defined, *cts]))
    return [next(outs) if u else None for u in undef]


def _split_with_policy(jaxpr, unknowns, policy):
    """Split ``jaxpr`` by unknown inputs, saving only what ``policy`` allows.

    Returns ``(jaxpr_known, jaxpr_unknown, out_unknowns, num_saved)``:
    ``jaxpr_known`` maps known inputs to known outputs plus the saved residuals;
    ``jaxpr_unknown`` maps (known inputs, saved residuals, unknown inputs) to the
    unknown outputs, recomputing every other known intermediate it needs.
    """
    jaxpr1, jaxpr2, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, list(unknowns))
    ins1, ins2 = partition_list(list(unknowns), jaxpr.in_binders)
    candidates = [e.out_binders[0] for e in jaxpr1.eqns if len(e.out_binders) == 1
                  and policy(e.primitive, *[x.aval for x in e.inputs], **e.params)]
    cand_set = set(candidates)
    recompute = [e for e in jaxpr1.eqns if not any(v in cand_set for v in e.out_binders)]
    body = pe.dce_jaxpr(Jaxpr(ins1 + candidates + ins2, recompute + jaxpr2.eqns, jaxpr2.outs),
                        [True] * len(jaxpr2.outs))
    used = {x for e in body.eqns for x in e.inputs if type(x) is Var}
    used.update(x for x in body.outs if type(x) is Var)
    saved = [v for v in candidates if v in used]
    unknown_jaxpr = Jaxpr(ins1 + saved + ins2, body.eqns, body.outs)
    n_known_outs = len(jaxpr1.outs) - num_res
    known_outs = jaxpr1.outs[:n_known_outs] + saved
    known_jaxpr = pe.dce_jaxpr(Jaxpr(jaxpr1.in_binders, jaxpr1.eqns, known_outs),
                               [True] * len(known_outs))
    return known_jaxpr, _fresh(unknown_jaxpr), out_unknowns, len(saved)


def _fresh(jaxpr):
    """A copy of ``jaxpr`` with new variables (the two halves must not share binders)."""
    env = {}

    def sub(x):
        if type(x) is not Var:
            return x
        if x not in env:
            env[x] = Var(x.aval)
        return env[x]
    binders = [sub(v) for v in jaxpr.in_binders]
    eqns = [JaxprEqn(e.primitive, [sub(x) for x in e.inputs], e.params,
                     [sub(v) for v in e.out_binders]) for e in jaxpr.eqns]
    return Jaxpr(binders, eqns, [sub(x) for x in jaxpr.outs])


def _remat_partial_eval(trace, tracers, *, jaxpr, policy, prevent_cse):
    unknowns = [not t.pval.is_known for t in tracers]
    jaxpr_k, jaxpr_u, out_unknowns, num_saved = _split_with_policy(jaxpr, unknowns, policy)
    known, unknown = partition_list(unknowns, tracers)
    known_vals = [t.pval.const for t in known]
    outs_k = remat_p.bind(*known_vals, jaxpr=jaxpr_k, policy=policy, prevent_cse=prevent_cse)
    n_out_k = len(outs_k) - num_saved
    outs1, saved = outs_k[:n_out_k], outs_k[n_out_k:]
    res_tracers = [trace.instantiate_const(trace.pure(v)) for v in known_vals + list(saved)]
    outs2 = trace.stage_eqn(remat_p, res_tracers + unknown,
                            dict(jaxpr=jaxpr_u, policy=policy, prevent_cse=prevent_cse),
                            jaxpr_u.out_avals)
    return merge_lists(out_unknowns, outs1, outs2)


def _remat_partial_eval_jaxpr(unknowns, eqn):
    params = eqn.params
    jaxpr_k, jaxpr_u, out_unknowns, num_saved = _split_with_policy(
        params["jaxpr"], unknowns, params["policy"])
    ins1, ins2 = partition_list(unknowns, eqn.inputs)
    outs1, outs2 = partition_list(out_unknowns, eqn.out_binders)
    saved = [Var(a) for a in jaxpr_k.out_avals[len(jaxpr_k.outs) - num_saved:]]
    eqn1 = JaxprEqn(remat_p, ins1, dict(params, jaxpr=jaxpr_k), outs1 + saved)
    eqn2 = JaxprEqn(remat_p, ins1 + saved + ins2, dict(params, jaxpr=jaxpr_u), outs2)
    return eqn1, eqn2, out_unknowns, [x for x in ins1 if type(x) is Var] + saved


remat_p.eager = _remat_eager
remat_p.abstract_eval = _remat_abstract_eval
remat_p.jvp = _remat_jvp
remat_p.batch = _remat_batch
remat_p.lower = _remat_lower
remat_p.transpose = _remat_transpose
remat_p.partial_eval = _remat_partial_eval
remat_p.partial_eval_jaxpr = _remat_partial_eval_jaxpr


# ---------------------------------------------------------------- the public function

def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun`` whose intermediates are recomputed in the backward pass instead of saved.

    ``policy`` (see ``checkpoint_policies``) names intermediates that may be saved;
    by default only the inputs are. Arguments at ``static_argnums`` are Python values
    (hashable, not traced). Usable as ``checkpoint(f)`` or ``@checkpoint(policy=...)``.
    """
    if fun is None:
        return lambda f: checkpoint(f, prevent_cse=prevent_cse, policy=policy,
                                    static_argnums=static_argnums)
    if policy is None:
        policy = checkpoint_policies.nothing_saveable
    if not callable(policy):
        raise TypeError(f"checkpoint policy must be a callable such as "
                        f"checkpoint_policies.dots_saveable, got {policy!r}")
    if not isinstance(policy, NamedCallable):
        policy = NamedCallable(policy, getattr(policy, "__name__", repr(policy)))
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @api_boundary
    @functools.wraps(fun, updated=())
    def remat_fun(*args, **kwargs):
        if eager():   # nothing to differentiate: run it
            return fun(*args, **kwargs)
        if kwargs:
            try:
                bound = inspect.signature(fun).bind(*args, **kwargs)
                args, kwargs = bound.args, bound.kwargs
            except (TypeError, ValueError):
                pass
        n = len(args)
        static_pos = {i % n for i in static if -n <= i < n}
        for i in static:
            if not -n <= i < n:
                raise ValueError(f"checkpoint static_argnums {static_argnums} refers to "
                                 f"argument {i}, but {_fun_name(fun)} was called with {n}")
        dyn = tuple(a for i, a in enumerate(args) if i not in static_pos)
        leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
        avals = [_check_leaf(x, "checkpoint argument") for x in leaves]

        def f(*dyn_args, **kw):
            it = iter(dyn_args)
            return fun(*[args[i] if i in static_pos else next(it) for i in range(n)], **kw)
        flat_fun, store = _flatten_fun(f, in_tree)
        updated = []   # arguments updated in place: their final values are extra outputs
        jaxpr, consts = pe.trace_to_jaxpr(_with_updated_args(flat_fun, updated), avals,
                                          _debug_info("checkpoint", fun))
        outs = remat_p.bind(*consts, *leaves, jaxpr=jaxpr, policy=policy,
                            prevent_cse=prevent_cse)
        if updated:
            n = len(outs) - len(updated)
            write_back_updated(leaves, list(zip(updated, outs[n:])),
                                f"checkpoint of `{_fun_name(fun)}`")
            outs = outs[:n]
        return tree_util.tree_unflatten(store[0], outs)
    return remat_fun


remat = checkpoint


# ---------------------------------------------------------------- saved residuals

def saved_residuals(fun, *args, **kwargs):
    """What reverse-mode differentiation of ``fun`` at ``args`` keeps for the backward
    pass: a list of ``(aval, description)``, one per residual (an argument, a constant,
    a named value or the output of a primitive)."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    avals = [_check_leaf(x, "saved_residuals argument") for x in leaves]
    names = _arg_names(fun, args, kwargs)
    flat_fun, _ = _flatten_fun(fun, in_tree)
    jaxpr, consts = pe.trace_to_jaxpr(flat_fun, avals, _debug_info("saved_residuals", fun))
    n_consts = len(consts)
    nonzeros = (False,) * n_consts + (True,) * len(avals)
    jvp, jvp_consts, _ = ad.jvp_jaxpr_nonzeros(jaxpr, nonzeros, (True,) * len(jaxpr.outs))
    n_known = len(jvp_consts) + n_consts + len(avals)
    unknowns = [False] * n_known + [True] * (len(jvp.in_binders) - n_known)
    known, _, _, num_res = pe.partial_eval_jaxpr(jvp, unknowns)
    residuals = known.outs[len(known.outs) - num_res:]
    binders = {v: i for i, v in enumerate(known.in_binders)}
    first_arg = len(jvp_consts) + n_consts
    out = []
    for v in residuals:
        i = binders.get(v)
        if i is None:
            out.append((v.aval, _produced_by(v, known.eqns)))
        elif i < first_arg:
            out.append((v.aval, "from a constant"))
        else:
            out.append((v.aval, f"from the argument {names[i - first_arg]}"))
    return out


def _produced_by(var, eqns):
    for eqn in eqns:
        if var in eqn.out_binders:
            if eqn.primitive is name_p:
                return f"named '{eqn.params['name']}'"
            if eqn.primitive is remat_p:   # a value the checkpoint's policy saved
                inner = eqn.params["jaxpr"]
                return _produced_by(inner.outs[eqn.out_binders.index(var)], inner.eqns)
            if eqn.primitive.name == "jit":
                return f"output of jitted function '{eqn.params['name']}'"
            return f"output of {eqn.primitive.name}"
    return "from an argument of a checkpointed function"


def _arg_names(fun, args, kwargs):
    """A name per flattened argument leaf: ``x``, ``x[0]``, ``params['w']``."""
    n = tree_util.tree_structure((args, kwargs)).num_leaves
    try:
        pairs = list(inspect.signature(fun).bind(*args, **kwargs).arguments.items())
    except (TypeError, ValueError):
        return [f"at flattened index {i}" for i in range(n)]
    names = [name + tree_util.keystr(path) for name, value in pairs
             for path, _ in tree_util.tree_flatten_with_path(value)[0]]
    return names if len(names) == n else [f"at flattened index {i}" for i in range(n)]


def print_saved_residuals(fun, *args, **kwargs):
    """Print ``saved_residuals(fun, *args, **kwargs)``, one residual a line."""
    for aval, src in saved_residuals(fun, *args, **kwargs):
        print(f"{aval.str_short()} {src}")
