"""Forward-mode AD (``jvp``), transposition, ``linearize`` and ``vjp``.

Tangents may be the symbolic ``Zero``: rules skip work for inputs that do not
vary, and zeros are materialised only where a value must exist.
"""

from functools import lru_cache

from ..core import (
    Jaxpr,
    Literal,
    Trace,
    Tracer,
    Var,
    bind,
    eval_jaxpr,
    full_lower,
    full_raise,
    get_aval,
    get_concrete,
    new_main,
)
from ..core.avals import ShapedArray
from ..core.primitive import missing_rule
from ..core.trace import run_rule
from ..core.trace import updated as updated_args
from ..util import split_half, unzip2
from . import partial_eval as pe


class Zero:
    """A symbolic zero tangent (or cotangent) of type ``aval``."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval.str_short()})"


def zeros_like_aval(aval):
    from .. import lax   # deferred: lax imports the interpreters
    return lax.full(aval.shape, 0, aval.dtype)


def instantiate(t):
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(a, b):
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    from .. import lax   # deferred: lax imports the interpreters
    return lax.add(a, b)


def tangent_aval(aval):
    return ShapedArray(aval.shape, aval.dtype)


# ---------------------------------------------------------------- jvp

class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        return get_aval(self.primal)

    def full_lower(self):
        return full_lower(self.primal) if type(self.tangent) is Zero else self

    def to_concrete_value(self):
        return get_concrete(self.primal)

    def _abstract_reason(self):
        if isinstance(self.primal, Tracer):
            return self.primal._abstract_reason()
        return super()._abstract_reason()


class JVPTrace(Trace):
    __slots__ = ()
    runs_eagerly = True

    def pure(self, val):
        return JVPTracer(self, val, Zero(tangent_aval(get_aval(val))))

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if primitive.jvp is None:
            raise missing_rule(primitive, "differentiation")
        primals_out, tangents_out = run_rule(self.main, primitive.jvp, primals, tangents,
                                             **params)
        return [JVPTracer(self, p, t) for p, t in zip(primals_out, tangents_out)]


def jvp_flat(fun, primals, tangents, debug_info=None, updated=None):
    """``fun`` takes and returns flat lists; returns (primals_out, tangents_out). A list
    ``updated`` receives ``(i, primal)`` for each argument ``fun`` updated in place, with
    its final primal value (program order, ``core.updated``)."""
    with new_main(JVPTrace, debug_info=debug_info) as main:
        trace = main.trace
        tracers_in = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
        outs = [full_raise(trace, o) for o in fun(*tracers_in)]
        primals_out, tangents_out = unzip2((t.primal, t.tangent) for t in outs)
        if updated is not None:
            updated.extend((i, tracers_in[i].primal) for i in updated_args(tracers_in))
    return primals_out, [instantiate(t) for t in tangents_out]


@lru_cache(maxsize=4096)
def jvp_jaxpr(jaxpr):
    """A jaxpr computing (primals_out, tangents_out) from (primals_in, tangents_in)."""
    def fun(*args):
        primals, tangents = split_half(args)
        p, t = jvp_flat(lambda *a: eval_jaxpr(jaxpr, a), primals, tangents)
        return [*p, *t]
    avals = [v.aval for v in jaxpr.in_binders]
    return pe.trace_to_jaxpr(fun, avals + [tangent_aval(a) for a in avals])


# ---------------------------------------------------------------- rule helpers

def defjvp(primitive, *jvp_fns):
    """JVP from one function per operand: ``fn(tangent, *primals, **params)``.

    ``None`` marks an operand the output does not depend on differentiably.
    """
    def rule(primals, tangents, **params):
        out = bind(primitive, *primals, **params)
        t_out = Zero(tangent_aval(get_aval(out)))
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                t_out = add_tangents(t_out, fn(t, *primals, **params))
        return [out], [t_out]
    primitive.jvp = rule


def defjvp2(primitive, *jvp_fns):
    """Like ``defjvp``, with the primal output too: ``fn(tangent, out, *primals, **params)``."""
    def rule(primals, tangents, **params):
        out = bind(primitive, *primals, **params)
        t_out = Zero(tangent_aval(get_aval(out)))
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                t_out = add_tangents(t_out, fn(t, out, *primals, **params))
        return [out], [t_out]
    primitive.jvp = rule


def defjvp_zero(primitive):
    """The output does not vary with the inputs (comparisons, integer ops, ...)."""
    def rule(primals, tangents, **params):
        outs = bind(primitive, *primals, **params)
        outs = outs if primitive.multiple_results else [outs]
        return outs, [Zero(tangent_aval(get_aval(o))) for o in outs]
    primitive.jvp = rule


def deflinear(primitive, transpose_rule):
    """A primitive linear in all operands: its JVP applies it to the tangents."""
    def rule(primals, tangents, **params):
        out = bind(primitive, *primals, **params)
        if all(type(t) is Zero for t in tangents):
            return [out], [Zero(tangent_aval(get_aval(out)))]
        t_out = bind(primitive, *[instantiate(t) for t in tangents], **params)
        return [out], [t_out]
    primitive.jvp = rule
    primitive.transpose = transpose_rule


# ---------------------------------------------------------------- transposition

class UndefPrimal:
    """Marks a linear input whose cotangent transposition computes."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefPrimal({self.aval.str_short()})"


def is_undefined(x):
    return type(x) is UndefPrimal


def backward_pass(jaxpr, args, cotangents):
    """Transpose ``jaxpr``, linear in its ``UndefPrimal`` args; returns their cotangents.

    Equations that touch no linear input are evaluated forward first.
    """
    primal_env = {}
    ct_env = {}

    def read_primal(x):
        if type(x) is Literal:
            return x.val
        return primal_env[x] if x in primal_env else UndefPrimal(x.aval)

    for v, a in zip(jaxpr.in_binders, args):
        if not is_undefined(a):
            primal_env[v] = a
    linear_eqns = []
    for eqn in jaxpr.eqns:
        ins = [read_primal(x) for x in eqn.inputs]
        if any(is_undefined(x) for x in ins):
            linear_eqns.append(eqn)
        else:
            outs = bind(eqn.primitive, *ins, **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            primal_env.update(zip(eqn.out_binders, outs))

    def write_ct(x, ct):
        if type(x) is Var and ct is not None and type(ct) is not Zero:
            ct_env[x] = add_tangents(ct_env[x], ct) if x in ct_env else ct

    for x, ct in zip(jaxpr.outs, cotangents):
        write_ct(x, ct)
    for eqn in reversed(linear_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.out_binders]
        if all(ct is None for ct in cts):
            continue
        cts = [zeros_like_aval(v.aval) if ct is None else ct
               for v, ct in zip(eqn.out_binders, cts)]
        if eqn.primitive.transpose is None:
            raise missing_rule(eqn.primitive, "transpose")
        cts_in = eqn.primitive.transpose(cts, *[read_primal(x) for x in eqn.inputs],
                                         **eqn.params)
        for x, ct in zip(eqn.inputs, cts_in):
            write_ct(x, ct)
    return [ct_env[v] if v in ct_env else Zero(tangent_aval(v.aval))
            for v, a in zip(jaxpr.in_binders, args) if is_undefined(a)]


@lru_cache(maxsize=4096)
def transpose_jaxpr(jaxpr, undef_mask):
    """A jaxpr mapping (defined inputs, output cotangents) to undefined inputs' cotangents."""
    in_avals = [v.aval for v in jaxpr.in_binders]
    defined = [a for a, u in zip(in_avals, undef_mask) if not u]
    out_avals = [tangent_aval(a) for a in jaxpr.out_avals]

    def fun(*args):
        res, cts = args[:len(defined)], args[len(defined):]
        it = iter(res)
        full = [UndefPrimal(a) if u else next(it) for a, u in zip(in_avals, undef_mask)]
        return [instantiate(c) for c in backward_pass(jaxpr, full, list(cts))]
    return pe.trace_to_jaxpr(fun, defined + out_avals)


# ---------------------------------------------------------------- linearize and vjp

def linearize_flat(fun, primals, debug_info=None, updated=None, detach=None):
    """Returns ``(primals_out, linear_jaxpr, consts)``; the jaxpr maps
    ``(*consts, *tangents_in)`` to the output tangents. A list ``updated`` receives
    ``(i, primal)`` for the arguments updated in place (see ``jvp_flat``); a residual
    that is one of those arguments is replaced by ``detach(argument)``, an object
    keeping its value when the caller writes the update back into the argument."""
    pvals = ([pe.PartialVal.known(p) for p in primals]
             + [pe.PartialVal.unknown(tangent_aval(get_aval(p))) for p in primals])
    changed = []

    def fun_jvp(*args):
        primals_in, tangents_in = split_half(args)
        p, t = jvp_flat(fun, primals_in, tangents_in, debug_info,
                        changed if updated is not None else None)
        return [*p, *t, *[v for _, v in changed]]   # the updated primals: known outputs

    jaxpr, pvals_out, consts = pe.partial_eval_flat(fun_jvp, pvals, debug_info)
    if changed:
        pvals_out, extra = pvals_out[:-len(changed)], pvals_out[-len(changed):]
        updated.extend((i, p.const) for (i, _), p in zip(changed, extra))
    primal_pvals, tangent_pvals = split_half(pvals_out)
    if not all(p.is_known for p in primal_pvals):
        raise TypeError("internal error: a primal output of linearize depends on tangents")
    if any(p.is_known for p in tangent_pvals):
        # Some output tangents do not depend on the inputs (constant outputs): rebuild
        # the jaxpr so every tangent output is computed from it.
        jaxpr, consts = _instantiate_known_outputs(jaxpr, consts, tangent_pvals)
    if changed and detach is not None:
        written = {id(primals[i]) for i, _ in changed}
        consts = [detach(c) if id(c) in written else c for c in consts]
    return [p.const for p in primal_pvals], jaxpr, consts


def _instantiate_known_outputs(jaxpr, consts, pvals):
    """Put known outputs into ``jaxpr`` as extra constants so it returns every output."""
    new_vars, new_consts, outs = [], [], []
    unknown_outs = iter(jaxpr.outs)
    for p in pvals:
        if p.is_known:
            v = Var(p.aval)
            new_vars.append(v)
            new_consts.append(p.const)
            outs.append(v)
        else:
            outs.append(next(unknown_outs))
    n = len(consts)
    binders = jaxpr.in_binders[:n] + new_vars + jaxpr.in_binders[n:]
    return Jaxpr(binders, jaxpr.eqns, outs), list(consts) + new_consts


def vjp_flat(fun, primals, debug_info=None, updated=None, detach=None):
    """Returns ``(primals_out, f_vjp)`` with ``f_vjp(cts_out) -> cts_in`` (flat lists);
    ``updated`` and ``detach`` as in ``linearize_flat``."""
    primals_out, jaxpr, consts = linearize_flat(fun, primals, debug_info, updated, detach)
    undefs = [UndefPrimal(tangent_aval(get_aval(p))) for p in primals]

    def f_vjp(cts):
        cts_in = backward_pass(jaxpr, list(consts) + undefs, cts)
        return [instantiate(c) for c in cts_in]
    return primals_out, f_vjp


@lru_cache(maxsize=4096)
def jvp_jaxpr_nonzeros(jaxpr, nonzeros, force):
    """Like ``jvp_jaxpr``, taking tangents only for inputs where ``nonzeros`` is True.

    Returns ``(jvp_jaxpr, consts, out_nonzeros)``: the jaxpr maps ``(*primals,
    *nonzero tangents)`` to ``(*primals_out, *nonzero tangents_out)``; an output
    tangent is returned when it is not a symbolic zero or ``force`` asks for it.
    (Loop rules iterate this to a fixed point over which carries have tangents.)
    """
    avals = [v.aval for v in jaxpr.in_binders]
    n = len(avals)
    store = []

    def fun(*args):
        primals, nz_tangents = args[:n], iter(args[n:])
        tangents = [next(nz_tangents) if nz else Zero(tangent_aval(a))
                    for a, nz in zip(avals, nonzeros)]
        with new_main(JVPTrace) as main:
            trace = main.trace
            tracers_in = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
            outs = [full_raise(trace, o) for o in eval_jaxpr(jaxpr, tracers_in)]
            p_out, t_out = unzip2((t.primal, t.tangent) for t in outs)
        out_nz = [type(t) is not Zero or f for t, f in zip(t_out, force)]
        store.append(out_nz)
        return [*p_out, *[instantiate(t) for t, nz in zip(t_out, out_nz) if nz]]

    nz_avals = [tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    new_jaxpr, consts = pe.trace_to_jaxpr(fun, avals + nz_avals)
    return new_jaxpr, consts, tuple(store[0])
