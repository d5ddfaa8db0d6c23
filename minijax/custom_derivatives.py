"""User-defined derivative rules: ``custom_jvp`` and ``custom_vjp``.

Each decorated function becomes one application of a higher-order primitive
(``custom_jvp_call`` / ``custom_vjp_call``) holding the jaxpr of the function and
its rule. Every interpreter knows the primitive: eager evaluation and lowering run
the function's jaxpr, the JVP interpreter runs the user's rule, batching batches
both the jaxpr and the rule, and partial evaluation stages it. A ``custom_vjp``
rule differentiates into ``custom_lin``, a linear primitive whose transpose is the
user's backward function.
"""

import functools
import inspect
from typing import Any, NamedTuple

import numpy as np

from . import dtypes, tree_util
from ._mutation import write_back_updated
from .core import Primitive, Tracer, eval_jaxpr, find_top_trace, full_lower, full_raise, get_aval
from .core.avals import same_type
from .core.trace import eager, new_value_main, run_rule, updated
from .core.trace import state as trace_state
from .errors import CustomRuleError
from .interpreters import ad, batching, partial_eval as pe
from .interpreters.lowering import jaxpr_subcomp
from .lax.elementwise import convert_element_type
from .runtime.array import _make
from .util import NamedCallable, split_half, split_list

__all__ = ["custom_jvp", "custom_vjp", "custom_gradient", "SymbolicZero", "closure_convert",
           "custom_jvp_call_p", "custom_vjp_call_p", "custom_lin_p"]


class SymbolicZero:
    """A tangent known to be zero, passed to a ``custom_jvp`` rule declared with
    ``symbolic_zeros=True`` (and accepted from it as an output tangent)."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short()})"


def _name(fun):
    return getattr(fun, "__name__", None) or type(fun).__name__


def _resolve_args(fun, args, kwargs):
    """Keyword arguments moved into their positions (rules receive positional args)."""
    if not kwargs:
        return args
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{_name(fun)}: {e}") from None
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(f"{_name(fun)} with custom derivative rules takes its arguments "
                        f"positionally or by name, not as **kwargs ({sorted(bound.kwargs)})")
    return bound.args


def _normalize_argnums(nums, nargs, what):
    out = []
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(f"{what} {nums} refers to argument {i}, but the function was "
                             f"called with {nargs} arguments")
        out.append(i % nargs)
    return sorted(set(out))


def _split_nondiff(args, nondiff):
    return ([a for i, a in enumerate(args) if i in nondiff],
            [a for i, a in enumerate(args) if i not in nondiff])


def _merge(nondiff, static_it, diff_it, n):
    return [next(static_it) if i in nondiff else next(diff_it) for i in range(n)]


def _trace_flat(flat_fun, leaves, what):
    avals = [get_aval(x) for x in leaves]
    return pe.trace_to_jaxpr(flat_fun, avals, debug_info=what)


def _where_to_run(diff_leaves, static_leaves):
    """Where a custom-derivative call runs, decided as JAX does: from the innermost
    transformation down, a differentiation level whose values all pass through unchanged
    (zero tangents, known partial values) is skipped with its values lowered; a JVP
    level with a nonzero tangent runs the user's rule on the primal values (concrete
    when the primals are); a staging level (jit, make_jaxpr, control-flow bodies), a
    vmap level or an unknown partial value stages the function into a jaxpr; below
    every level the function is called on the values themselves.

    Returns ``(kind, main, leaves)``: kind ``"eager"``, ``"jvp"`` or ``"stage"``."""
    tracers = [x for x in (*diff_leaves, *static_leaves) if isinstance(x, Tracer)]
    find_top_trace(tracers)   # raises for a tracer that escaped its transformation
    start = max([new_value_main().level] + [x._trace.main.level for x in tracers])
    leaves = list(diff_leaves)
    for level in range(start, 0, -1):
        main = trace_state.stack[level]
        trace = main.trace
        # A vmap level stages even when the arguments are not batched: the function may
        # close over batched values, which a lower level cannot hold.
        if not isinstance(trace, (ad.JVPTrace, pe.PartialEvalTrace)):
            return "stage", main, leaves
        if any(x._trace.main is main for x in static_leaves if isinstance(x, Tracer)):
            return "stage", main, leaves
        mine = [isinstance(x, Tracer) and x._trace.main is main for x in leaves]
        if not any(mine):
            continue
        if isinstance(trace, ad.JVPTrace):
            if any(type(x.tangent) is not ad.Zero for x, m in zip(leaves, mine) if m):
                return "jvp", main, leaves
            leaves = [x.primal if m else x for x, m in zip(leaves, mine)]
        else:
            if not all(x.pval.is_known for x, m in zip(leaves, mine) if m):
                return "stage", main, leaves
            leaves = [x.pval.const if m else x for x, m in zip(leaves, mine)]
        leaves = [_as_array(full_lower(x)) if m else x for x, m in zip(leaves, mine)]
    return "eager", None, leaves


def _as_array(x):
    """A value lowered out of a tracer: a Python scalar one becomes a (weak) 0-d Array, so
    a rule sees arrays (``x.shape``, ``x.dtype``) as it does under a staging trace."""
    if isinstance(x, (bool, int, float, complex)):
        aval = get_aval(x)
        return _make(aval, np.asarray(x, aval.dtype))
    return x


def _closure_error(fun, kind, aval):
    return CustomRuleError(
        f"a {kind} function `{_name(fun)}` closes over a value that is being "
        f"differentiated ({aval.str_short()}); its rule only says how to "
        f"differentiate with respect to the explicit arguments. Pass the value as an "
        f"argument, or use minijax.closure_convert to make closed-over values explicit.")


def _check_no_closure(outs, level, fun, kind):
    """Outputs computed below the JVP levels above ``level`` must not carry those levels'
    tangents: that happens only when the function closes over a differentiated value."""
    for o in outs:
        if (isinstance(o, ad.JVPTracer) and o._trace.main.level > level
                and type(o.tangent) is not ad.Zero):
            raise _closure_error(fun, kind, o.aval)


def _check_closed_over(consts, tangents, fun, kind):
    for c, t in zip(consts, tangents):
        # integer and boolean values (a PRNG key's bits) have no derivative to lose
        if type(t) is not ad.Zero and dtypes.issubdtype(get_aval(c).dtype, np.inexact):
            raise _closure_error(fun, kind, get_aval(c))


def _match_tangent(t, primal_aval, fun):
    """A rule's output tangent as a tangent of ``primal_aval`` (or ``ad.Zero``)."""
    tan_aval = ad.tangent_aval(primal_aval)
    if t is None or isinstance(t, (SymbolicZero, ad.Zero)):
        return ad.Zero(tan_aval)
    aval = get_aval(t)
    if aval.shape != primal_aval.shape:
        raise CustomRuleError(f"the custom JVP rule of `{_name(fun)}` returned a tangent of "
                              f"shape {aval.shape} for a primal output of shape "
                              f"{primal_aval.shape}; they must match")
    if aval.dtype != primal_aval.dtype:
        if not aval.weak_type and not isinstance(t, (int, float, complex)):
            raise CustomRuleError(f"the custom JVP rule of `{_name(fun)}` returned a tangent "
                                  f"of dtype {aval.dtype.name} for a primal output of dtype "
                                  f"{primal_aval.dtype.name}; they must match")
        t = convert_element_type(t, primal_aval.dtype)
    return t


# ---------------------------------------------------------------- custom_jvp

custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)


def _call_jaxpr_eager(*args, call_jaxpr, **_):
    return eval_jaxpr(call_jaxpr, args)


def _call_jaxpr_abstract_eval(*avals, call_jaxpr, **_):
    expected = call_jaxpr.in_avals
    if len(avals) != len(expected) or not all(map(same_type, avals, expected)):
        raise TypeError("custom rule call: operand types do not match its jaxpr")
    return call_jaxpr.out_avals


def _call_jaxpr_lower(ctx, *args, call_jaxpr, **_):
    return jaxpr_subcomp(ctx.module_ctx, call_jaxpr, list(args))


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros):
    consts, primals = split_list(primals, num_consts)
    const_tangents, tangents = split_list(tangents, num_consts)
    _check_closed_over(consts, const_tangents, jvp, "custom_jvp")
    return jvp(primals, tangents)


def _running_main():
    """The transformation whose rule is running (see ``core.trace.run_rule``)."""
    return trace_state.stack[trace_state.new_value_cap + 1]


def _batched_rule(fn, avals, axis_size, main, trace_now=False):
    """``fn`` (flat list to flat list, per-example ``avals``) mapped along axis 0 of every
    input, every output batched along axis 0.

    It is traced to a jaxpr on first use, so values the rule closes over become
    constants; those batched by the vmap whose batching rule is running now stay
    batched along their own axes (a rule closing over a vmapped value); ``main`` is
    that vmap's."""
    cache = []

    def call(*args, trace_only=False):
        if not cache:
            jaxpr, consts = pe.trace_to_jaxpr(fn, avals)
            vals, dims = [], []
            for c in consts:
                if isinstance(c, batching.BatchTracer) and c._trace.main is main:
                    vals.append(c.val)
                    dims.append(c.batch_dim)
                else:
                    vals.append(c)
                    dims.append(batching.not_mapped)
            b_jaxpr, b_consts = batching.vmap_jaxpr(jaxpr, axis_size,
                                                    tuple(dims) + (0,) * len(avals))
            cache.append((b_jaxpr, [*b_consts, *vals]))
        if trace_only:
            return None
        b_jaxpr, consts = cache[0]
        return eval_jaxpr(b_jaxpr, [*consts, *args])
    if trace_now:
        call(trace_only=True)
    return call


def _per_example_avals(args, dims):
    return [get_aval(a) if d is batching.not_mapped else batching.mapped_aval(get_aval(a), d)
            for a, d in zip(args, dims)]


def _custom_jvp_call_batch(axis_size, args, dims, *, call_jaxpr, jvp, num_consts,
                           symbolic_zeros):
    # Every operand is moved (or broadcast) to axis 0, so the batched rule maps every
    # primal and tangent along axis 0.
    p_avals = _per_example_avals(args, dims)[num_consts:]
    args = [batching.move_axis_to(axis_size, a, d, 0) for a, d in zip(args, dims)]
    new_jaxpr, new_consts = batching.vmap_jaxpr(call_jaxpr, axis_size, (0,) * len(args))
    n_out = len(call_jaxpr.outs)

    def flat(*a):
        p, t = split_half(a)
        p_out, t_out = jvp(list(p), list(t))
        return [*p_out, *[ad.instantiate(x) for x in t_out]]
    batched = _batched_rule(flat, p_avals + [ad.tangent_aval(a) for a in p_avals], axis_size,
                            _running_main())

    def batched_jvp(primals, tangents):
        outs = batched(*primals, *[ad.instantiate(t) for t in tangents])
        return outs[:n_out], outs[n_out:]
    outs = custom_jvp_call_p.bind(*new_consts, *args, call_jaxpr=new_jaxpr,
                                  jvp=NamedCallable(batched_jvp, f"vmap({jvp!r})"),
                                  num_consts=len(new_consts) + num_consts,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


custom_jvp_call_p.eager = _call_jaxpr_eager
custom_jvp_call_p.abstract_eval = _call_jaxpr_abstract_eval
custom_jvp_call_p.jvp = _custom_jvp_call_jvp
custom_jvp_call_p.batch = _custom_jvp_call_batch
custom_jvp_call_p.lower = _call_jaxpr_lower



def _trace_primal(fun, nondiff_argnums, args, kind):
    """Trace ``fun`` on its differentiable arguments (the ``nondiff_argnums`` ones are
    closed over): the split of the arguments, the flat inputs and their tree, the
    jaxpr, its constants and the output tree."""
    n = len(args)
    nondiff = _normalize_argnums(nondiff_argnums, n, "nondiff_argnums")
    static_args, diff_args = _split_nondiff(args, nondiff)
    leaves, in_tree = tree_util.tree_flatten(tuple(diff_args))
    out_store = []

    changed, outer = [], []

    def flat_fun(*flat):
        out = fun(*_merge(nondiff, iter(static_args),
                          iter(tree_util.tree_unflatten(in_tree, flat)), n))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_store.append(out_tree)
        changed[:] = updated(flat)
        return out_leaves + [flat[i] for i in changed]
    jaxpr, consts = pe.trace_to_jaxpr(flat_fun, [get_aval(x) for x in leaves],
                                      debug_info=f"{kind} function {_name(fun)}",
                                      updated_outer=outer)
    write_back = None
    if changed or outer:
        # The function updates its arguments or arrays it closes over in place (DESIGN
        # 5): the call keeps its declared outputs, and the updated values are computed
        # by the function's own operations (differentiated as usual), then written back.
        n_out = len(jaxpr.outs) - len(changed) - len(outer)
        keep = [True] * n_out + [False] * (len(changed) + len(outer))
        new_values = eval_jaxpr(pe.dce_jaxpr(jaxpr, [not k for k in keep]), [*consts, *leaves])
        jaxpr = pe.dce_jaxpr(jaxpr, keep)
        targets = [leaves[i] for i in changed] + outer

        def write_back():
            write_back_updated(targets, list(enumerate(new_values)), f"{kind} `{_name(fun)}`")
    return (nondiff, static_args, diff_args, leaves, in_tree, n, jaxpr, consts,
            out_store[0], write_back)


class _Route(NamedTuple):
    kind: str        # "eager" (``out`` is the result), "jvp" (run the rule at ``main``),
    out: Any         # or "stage" (trace the function into a jaxpr)
    main: Any
    low: list        # the differentiable leaves as seen below ``main``
    nondiff: tuple
    static_args: list
    diff_args: list
    in_tree: Any


def _route(fun, nondiff_argnums, args, what):
    """Where a custom-rule function called on ``args`` runs (``_where_to_run``); an eager
    call has run already."""
    n = len(args)
    nondiff = _normalize_argnums(nondiff_argnums, n, "nondiff_argnums")
    static_args, diff_args = _split_nondiff(args, nondiff)
    leaves, in_tree = tree_util.tree_flatten(tuple(diff_args))
    kind, main, low = _where_to_run(leaves, tree_util.tree_leaves(static_args))
    out = None
    if kind == "eager":
        out = fun(*_merge(nondiff, iter(static_args),
                          iter(tree_util.tree_unflatten(in_tree, low)), n))
        _check_no_closure(tree_util.tree_leaves(out), 0, fun, what)
    return _Route(kind, out, main, low, nondiff, static_args, diff_args, in_tree)

class custom_jvp:  # noqa: N801  (JAX's name)
    """A function with a user-defined forward-mode derivative rule.

    ``f = custom_jvp(fun)``, then ``f.defjvp(rule)`` with ``rule(primals, tangents) ->
    (primal_out, tangent_out)`` (``primals``/``tangents`` are tuples of the arguments),
    or ``f.defjvps(*fns)`` with one ``fn(tangent, primal_out, *primals)`` per argument.
    Reverse mode follows by transposing the rule, so the rule must be linear in the
    tangents. Arguments at ``nondiff_argnums`` are not differentiated and are passed
    first to the rule. With ``symbolic_zeros=True`` the rule receives ``SymbolicZero``
    for tangents known to be zero.
    """

    def __init__(self, fun, nondiff_argnums=(), symbolic_zeros=False):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.symbolic_zeros = symbolic_zeros
        self.jvp = None

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def defjvp(self, jvp, symbolic_zeros=None):
        """Set the rule; returns it (usable as a decorator)."""
        self.jvp = jvp
        if symbolic_zeros is not None:
            self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One ``fn(tangent, primal_out, *primals)`` per argument (None: no dependence)."""
        if self.nondiff_argnums:
            raise TypeError("defjvps does not support nondiff_argnums; use defjvp")

        def rule(primals, tangents):
            out = self(*primals)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            total = [ad.Zero(ad.tangent_aval(get_aval(o))) for o in out_leaves]
            for fn, t in zip(jvps, tangents):
                if fn is None or isinstance(t, SymbolicZero):
                    continue
                contrib = tree_util.tree_leaves(fn(t, out, *primals))
                total = [ad.add_tangents(a, _match_tangent(b, get_aval(o), self.fun))
                         for a, b, o in zip(total, contrib, out_leaves)]
            return out, tree_util.tree_unflatten(out_tree, [ad.instantiate(t) for t in total])
        self.defjvp(rule, symbolic_zeros=True)

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"no JVP rule defined for custom_jvp function "
                                 f"`{_name(self.fun)}`; call .defjvp(rule) first")
        args = _resolve_args(self.fun, args, kwargs)
        if eager():
            return self.fun(*args)
        r = _route(self.fun, self.nondiff_argnums, args, "custom_jvp")
        if r.kind == "eager":
            return r.out
        if r.kind == "jvp":
            return self._jvp_at(r.main, r.static_args, r.low, r.in_tree)
        (nondiff, static_args, diff_args, leaves, in_tree, n, jaxpr, consts,
         out_tree, write_back) = _trace_primal(self.fun, self.nondiff_argnums, args,
                                               "custom_jvp")
        out_avals = jaxpr.out_avals
        rule, fun, symbolic = self.jvp, self.fun, self.symbolic_zeros

        def flat_jvp(primals, tangents):
            p_out, t_out, p_tree = _run_jvp_rule(rule, fun, symbolic, static_args, in_tree,
                                                 primals, tangents, out_tree)
            for p, a in zip(p_out, out_avals):
                if not same_type(get_aval(p), a):
                    raise CustomRuleError(
                        f"the custom JVP rule of `{_name(fun)}` returned a primal output of "
                        f"type {get_aval(p).str_short()} where the function returns "
                        f"{a.str_short()}")
            return p_out, [_match_tangent(t, a, fun) for t, a in zip(t_out, out_avals)]
        outs = custom_jvp_call_p.bind(*consts, *leaves, call_jaxpr=jaxpr,
                                      jvp=NamedCallable(flat_jvp, _name(rule)),
                                      num_consts=len(consts), symbolic_zeros=symbolic)
        if write_back is not None:
            write_back()
        return tree_util.tree_unflatten(out_tree, outs)

    def _jvp_at(self, main, static_args, leaves, in_tree):
        """The rule run on the primal values below JVP level ``main`` (JAX's
        ``process_custom_jvp_call``): the primal function is not traced."""
        trace = main.trace
        tracers = [full_raise(trace, x) for x in leaves]
        primals = [_as_array(t.primal) for t in tracers]
        tangents = [t.tangent for t in tracers]
        fun = self.fun

        def rule(primals, tangents):
            p_out, t_out, p_tree = _run_jvp_rule(self.jvp, fun, self.symbolic_zeros,
                                                 static_args, in_tree, primals, tangents)
            t_out = [_match_tangent(t, get_aval(p), fun) for t, p in zip(t_out, p_out)]
            return p_out, t_out, p_tree
        p_out, t_out, p_tree = run_rule(main, rule, primals, tangents)
        _check_no_closure([*p_out, *t_out], main.level - 1, fun, "custom_jvp")
        outs = [full_lower(ad.JVPTracer(trace, p, t)) for p, t in zip(p_out, t_out)]
        return tree_util.tree_unflatten(p_tree, outs)


def _run_jvp_rule(rule, fun, symbolic, static_args, in_tree, primals, tangents,
                  out_tree=None):
    """Call a ``custom_jvp`` rule on flat primals and tangents; returns the flat primal
    and tangent outputs and the output tree, checked against ``out_tree`` if given."""
    if symbolic:
        tangents = [SymbolicZero(t.aval) if type(t) is ad.Zero else t for t in tangents]
    else:
        tangents = [ad.instantiate(t) for t in tangents]
    p_args = tree_util.tree_unflatten(in_tree, primals)
    t_args = tree_util.tree_unflatten(in_tree, tangents)
    res = rule(*static_args, tuple(p_args), tuple(t_args))
    if not isinstance(res, (tuple, list)) or len(res) != 2:
        raise CustomRuleError(f"the custom JVP rule of `{_name(fun)}` must return a "
                              f"pair (primal_out, tangent_out)")
    p_out, p_tree = tree_util.tree_flatten(res[0])
    t_out, t_tree = tree_util.tree_flatten(
        res[1], is_leaf=lambda x: isinstance(x, SymbolicZero) or x is None)
    expect = p_tree if out_tree is None else out_tree
    if p_tree != expect or len(t_out) != len(p_out):
        raise CustomRuleError(
            f"the custom JVP rule of `{_name(fun)}` returned a primal output of "
            f"structure {p_tree} and a tangent of structure {t_tree}; both must have "
            f"the structure of the function's output, {expect}")
    return p_out, t_out, p_tree


# ---------------------------------------------------------------- custom_vjp

custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
custom_lin_p = Primitive("custom_lin", multiple_results=True)


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, num_consts):
    consts, primals = split_list(primals, num_consts)
    const_tangents, tangents = split_list(tangents, num_consts)
    _check_closed_over(consts, const_tangents, fwd, "custom_vjp")
    outs, res, bwd = fwd(*primals)
    out_tans = [ad.tangent_aval(get_aval(o)) for o in outs]
    if all(type(t) is ad.Zero for t in tangents):
        return outs, [ad.Zero(a) for a in out_tans]
    tangents = [ad.instantiate(t) for t in tangents]
    t_out = custom_lin_p.bind(*res, *tangents, num_res=len(res), bwd=bwd,
                              out_avals=tuple(out_tans))
    return outs, t_out


def _custom_vjp_call_batch(axis_size, args, dims, *, call_jaxpr, fwd, num_consts):
    p_avals = _per_example_avals(args, dims)[num_consts:]
    args = [batching.move_axis_to(axis_size, a, d, 0) for a, d in zip(args, dims)]
    new_jaxpr, new_consts = batching.vmap_jaxpr(call_jaxpr, axis_size, (0,) * len(args))
    n_out = len(call_jaxpr.outs)
    out_avals = [ad.tangent_aval(a) for a in call_jaxpr.out_avals]
    store = []

    def fwd_flat(*p):
        outs, res, bwd = fwd(*p)
        if not store:
            store.append((bwd, [get_aval(r) for r in res]))
        return [*outs, *res]
    main = _running_main()
    batched_fwd_flat = _batched_rule(fwd_flat, p_avals, axis_size, main)
    bwd_store = []

    def batched_fwd(*primals):
        flat_out = batched_fwd_flat(*primals)
        bwd, res_avals = store[0]
        if not bwd_store:
            n_res = len(res_avals)

            def bwd_flat(*a):
                return [ad.instantiate(c) for c in bwd(list(a[:n_res]), list(a[n_res:]))]
            # traced now, while the vmap is active: bwd may close over its values
            bwd_store.append(_batched_rule(bwd_flat, res_avals + out_avals, axis_size, main,
                                           trace_now=True))
        batched_bwd = bwd_store[0]
        return flat_out[:n_out], flat_out[n_out:], (lambda res, cts: batched_bwd(*res, *cts))
    outs = custom_vjp_call_p.bind(*new_consts, *args, call_jaxpr=new_jaxpr,
                                  fwd=NamedCallable(batched_fwd, f"vmap({fwd!r})"),
                                  num_consts=len(new_consts) + num_consts)
    return outs, [0] * len(outs)


custom_vjp_call_p.eager = _call_jaxpr_eager
custom_vjp_call_p.abstract_eval = _call_jaxpr_abstract_eval
custom_vjp_call_p.jvp = _custom_vjp_call_jvp
custom_vjp_call_p.batch = _custom_vjp_call_batch
custom_vjp_call_p.lower = _call_jaxpr_lower


def _no_forward_mode(*args, **params):
    raise CustomRuleError("can't apply forward-mode autodiff (jvp, jacfwd, linearize's "
                          "forward map) to a custom_vjp function: it defines only a reverse "
                          "rule. Use grad/vjp/jacrev, or define it with custom_jvp.")


def _custom_lin_abstract_eval(*avals, num_res, bwd, out_avals):
    return list(out_avals)


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
    res, undefs = split_list(list(args), num_res)
    cts = [ad.instantiate(c) if type(c) is ad.Zero else c for c in cts]
    cts_in = bwd(res, cts)
    return [None] * num_res + [None if type(c) is ad.Zero else c for c in cts_in]


custom_lin_p.eager = _no_forward_mode
custom_lin_p.abstract_eval = _custom_lin_abstract_eval
custom_lin_p.transpose = _custom_lin_transpose
custom_lin_p.lower = _no_forward_mode


class custom_vjp:  # noqa: N801  (JAX's name)
    """A function with a user-defined reverse-mode derivative rule.

    ``f = custom_vjp(fun)``, then ``f.defvjp(fwd, bwd)``: ``fwd(*args) -> (out,
    residuals)`` (residuals any pytree) and ``bwd(residuals, out_cotangent) -> tuple``
    with one cotangent per differentiated argument (None for a zero one). Arguments
    at ``nondiff_argnums`` are passed first to ``bwd`` and get no cotangent.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = None
        self.bwd = None

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def defvjp(self, fwd, bwd, symbolic_zeros=False):
        """Set the forward and backward functions."""
        if symbolic_zeros:
            raise NotImplementedError("custom_vjp.defvjp(symbolic_zeros=True) is not "
                                      "supported; bwd receives instantiated cotangents")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"no VJP rule defined for custom_vjp function "
                                 f"`{_name(self.fun)}`; call .defvjp(fwd, bwd) first")
        args = _resolve_args(self.fun, args, kwargs)
        if eager():
            return self.fun(*args)
        r = _route(self.fun, self.nondiff_argnums, args, "custom_vjp")
        if r.kind == "eager":
            return r.out
        if r.kind == "jvp":
            return self._jvp_at(r.main, r.nondiff, r.static_args, r.diff_args, r.low,
                                r.in_tree, len(args))
        (nondiff, static_args, diff_args, leaves, in_tree, n, jaxpr, consts,
         out_tree, write_back) = _trace_primal(self.fun, self.nondiff_argnums, args,
                                               "custom_vjp")
        flat_fwd = self._flat_fwd(nondiff, static_args, diff_args, leaves, in_tree, n,
                                  out_tree, jaxpr.out_avals)
        outs = custom_vjp_call_p.bind(*consts, *leaves, call_jaxpr=jaxpr,
                                      fwd=NamedCallable(lambda *p: flat_fwd(*p)[:3],
                                                        _name(self.fwd)),
                                      num_consts=len(consts))
        if write_back is not None:
            write_back()
        return tree_util.tree_unflatten(out_tree, outs)

    def _jvp_at(self, main, nondiff, static_args, diff_args, leaves, in_tree, n):
        """``fwd`` run on the primal values below JVP level ``main`` (JAX's
        ``process_custom_vjp_call``): the primal function is not traced, and ``bwd``
        runs on the residuals when the derivative is transposed."""
        trace = main.trace
        tracers = [full_raise(trace, x) for x in leaves]
        primals = [_as_array(t.primal) for t in tracers]
        tangents = [t.tangent for t in tracers]
        flat_fwd = self._flat_fwd(nondiff, static_args, diff_args, primals, in_tree, n)

        def rule(primals, tangents):
            outs, res, bwd, out_tree = flat_fwd(*primals)
            out_tans = tuple(ad.tangent_aval(get_aval(o)) for o in outs)
            t_out = custom_lin_p.bind(*res, *[ad.instantiate(t) for t in tangents],
                                      num_res=len(res), bwd=bwd, out_avals=out_tans)
            return outs, t_out, out_tree
        outs, t_out, out_tree = run_rule(main, rule, primals, tangents)
        _check_no_closure(outs, main.level - 1, self.fun, "custom_vjp")
        outs = [full_lower(ad.JVPTracer(trace, p, t)) for p, t in zip(outs, t_out)]
        return tree_util.tree_unflatten(out_tree, outs)

    def _flat_fwd(self, nondiff, static_args, diff_args, leaves, in_tree, n, out_tree=None,
                  out_avals=None):
        """``fwd`` on flat primals: ``(outputs, residuals, bwd, output tree)``, checked
        against the function's ``out_tree`` and ``out_avals`` when it was traced."""
        in_avals = [get_aval(x) for x in leaves]
        fwd_user, bwd_user, fun = self.fwd, self.bwd, self.fun

        def flat_fwd(*primals):
            args_full = _merge(nondiff, iter(static_args),
                               iter(tree_util.tree_unflatten(in_tree, primals)), n)
            res_pair = fwd_user(*args_full)
            if not isinstance(res_pair, (tuple, list)) or len(res_pair) != 2:
                raise CustomRuleError(f"the fwd function of custom_vjp `{_name(fun)}` must "
                                      f"return a pair (output, residuals)")
            out, res = res_pair
            out_flat, tree = tree_util.tree_flatten(out)
            if out_tree is not None and tree != out_tree:
                raise CustomRuleError(f"the fwd function of custom_vjp `{_name(fun)}` returned "
                                      f"an output of structure {tree}; the function returns "
                                      f"{out_tree}")
            for o, a in zip(out_flat, out_avals or ()):
                if not same_type(get_aval(o), a):
                    raise CustomRuleError(
                        f"the fwd function of custom_vjp `{_name(fun)}` returned an output of "
                        f"type {get_aval(o).str_short()} where the function returns "
                        f"{a.str_short()}")
            res_flat, res_tree = tree_util.tree_flatten(res)
            return out_flat, res_flat, _make_bwd(res_tree, tree), tree

        def _make_bwd(res_tree, out_tree):
            def flat_bwd(res, cts):
                ct = tree_util.tree_unflatten(out_tree, cts)
                cts_in = bwd_user(*static_args, tree_util.tree_unflatten(res_tree, res), ct)
                if not isinstance(cts_in, (tuple, list)):
                    raise CustomRuleError(f"the bwd function of custom_vjp `{_name(fun)}` "
                                          f"must return a tuple with one cotangent per "
                                          f"differentiated argument")
                if len(cts_in) != len(diff_args):
                    raise CustomRuleError(
                        f"the bwd function of custom_vjp `{_name(fun)}` returned {len(cts_in)} "
                        f"cotangents for {len(diff_args)} differentiated arguments")
                flat = []
                for arg, c in zip(diff_args, cts_in):
                    n_leaves = len(tree_util.tree_leaves(arg))
                    if c is None:
                        flat.extend([None] * n_leaves)
                    else:
                        leaves_c = tree_util.tree_leaves(c, is_leaf=lambda x: x is None)
                        if len(leaves_c) != n_leaves:
                            raise CustomRuleError(
                                f"the bwd function of custom_vjp `{_name(fun)}` returned a "
                                f"cotangent whose structure differs from its argument's")
                        flat.extend(leaves_c)
                out = []
                for c, a in zip(flat, in_avals):
                    if c is None:
                        out.append(ad.Zero(ad.tangent_aval(a)))
                    else:
                        out.append(_match_tangent(c, a, fun))
                return out
            return flat_bwd
        return flat_fwd


class _GradientResiduals:
    """``custom_gradient``'s backward function, closure-converted: its jaxpr and output
    tree (static) and the values it closes over (the residuals, pytree children)."""

    __slots__ = ("jaxpr", "out_tree", "consts")

    def __init__(self, jaxpr, out_tree, consts):
        self.jaxpr, self.out_tree, self.consts = jaxpr, out_tree, list(consts)


tree_util.register_pytree_node(
    _GradientResiduals, lambda r: (r.consts, (r.jaxpr, r.out_tree)),
    lambda aux, consts: _GradientResiduals(aux[0], aux[1], consts))


def custom_gradient(fun):
    """A function with its gradient given alongside its value (TensorFlow's style):
    ``fun(*args) -> (out, vjp)`` with ``vjp(out_cotangent)`` returning one cotangent per
    argument (a tuple; a single one may be returned bare). ``vjp`` may close over values
    of the forward computation; it is traced once on abstract cotangents."""
    @functools.wraps(fun)
    def value_only(*args):
        return fun(*args)[0]

    def fwd(*args):
        res_pair = fun(*args)
        if not isinstance(res_pair, (tuple, list)) or len(res_pair) != 2:
            raise CustomRuleError(f"custom_gradient function `{_name(fun)}` must return a "
                                  f"pair (output, vjp function)")
        ans, rule = res_pair
        ans_flat, ans_tree = tree_util.tree_flatten(ans)
        trees = []

        def flat_rule(*cts):
            out_leaves, out_tree = tree_util.tree_flatten(
                rule(tree_util.tree_unflatten(ans_tree, cts)))
            trees.append(out_tree)
            return out_leaves
        jaxpr, consts = pe.trace_to_jaxpr(
            flat_rule, [ad.tangent_aval(get_aval(a)) for a in ans_flat],
            debug_info=f"the vjp function of custom_gradient `{_name(fun)}`")
        return ans, _GradientResiduals(jaxpr, trees[0], consts)

    def bwd(res, ct):
        outs = eval_jaxpr(res.jaxpr, [*res.consts, *tree_util.tree_leaves(ct)])
        cts = tree_util.tree_unflatten(res.out_tree, outs)
        return (cts,) if tree_util.treedef_is_leaf(res.out_tree) else cts

    wrapped = custom_vjp(value_only)
    wrapped.defvjp(fwd, bwd)
    return wrapped


def closure_convert(fun, *example_args):
    """``fun`` rewritten to take the values it closes over as extra arguments.

    Returns ``(converted, consts)`` with ``converted(*args, *consts) == fun(*args)``;
    the constants are the traced values (and arrays) ``fun`` captures, so a
    ``custom_vjp`` rule can differentiate with respect to them.
    """
    leaves, in_tree = tree_util.tree_flatten(example_args)
    out_store = []

    def flat_fun(*flat):
        out = fun(*tree_util.tree_unflatten(in_tree, flat))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_store.append(out_tree)
        return out_leaves
    jaxpr, consts = _trace_flat(flat_fun, leaves, f"closure_convert of {_name(fun)}")
    out_tree = out_store[0]
    # Inexact constants become arguments (they may carry derivatives); others stay.
    const_is_diff = [dtypes.is_inexact(get_aval(c).dtype) for c in consts]
    diff_consts = [c for c, d in zip(consts, const_is_diff) if d]
    kept = [c for c, d in zip(consts, const_is_diff) if not d]

    def converted(*args):
        n_args = len(args) - len(diff_consts)
        user_args, hoisted = args[:n_args], args[n_args:]
        flat, tree = tree_util.tree_flatten(tuple(user_args))
        if tree != in_tree:
            raise TypeError(f"closure_convert'ed `{_name(fun)}` expects arguments of "
                            f"structure {in_tree}, got {tree}")
        h_it, k_it = iter(hoisted), iter(kept)
        all_consts = [next(h_it) if d else next(k_it) for d in const_is_diff]
        return tree_util.tree_unflatten(out_tree, eval_jaxpr(jaxpr, [*all_consts, *flat]))
    functools.update_wrapper(converted, fun)
    return converted, diff_consts
