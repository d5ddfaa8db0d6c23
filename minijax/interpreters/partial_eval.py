"""Staging Python into jaxprs, and partial evaluation (splitting known from unknown).

``trace_to_jaxpr`` runs a function on ``JaxprTracer``s under a dynamic main, so
every primitive is recorded (omnistaging). ``partial_eval_flat`` runs a function
on a mix of known values and unknown placeholders: known work runs now, and only
work that depends on an unknown is recorded, as ``linearize`` and ``vjp`` need.
``partial_eval_jaxpr`` does the same split on a jaxpr.
"""

import contextlib
import threading
from typing import Any, NamedTuple
from weakref import ref

from ..core import (
    Jaxpr,
    JaxprEqn,
    Literal,
    Trace,
    Tracer,
    Var,
    bind,
    full_lower,
    full_raise,
    get_aval,
    get_concrete,
    new_base_main,
    new_main,
)
from ..core.avals import ShapedArray
from ..core.primitive import missing_rule
from ..core.trace import same_value, set_current_values
from ..errors import UnexpectedTracerError
from ..traceback_util import user_frame_summary
from ..util import partition_list

# ---------------------------------------------------------------- tracing to a jaxpr

class ArgLabel(NamedTuple):
    """Which argument of a traced function a value comes from (for error messages)."""
    text: str                 # e.g. "argument `n` (position 1)"
    position: Any = None      # for static_argnums
    name: Any = None          # for static_argnames


class Origin(NamedTuple):
    """How a traced value was made: by ``primitive`` at the user's ``where`` from
    ``inputs``; ``args`` are the labels of the function arguments it depends on."""
    primitive: Any
    where: Any
    inputs: tuple
    args: frozenset


class _SourceInfo(threading.local):
    on = True


_source_info = _SourceInfo()


@contextlib.contextmanager
def without_source_info():
    """Trace without recording the user's ``file:line`` of each operation (it is only
    for error messages about the user's code): lowering rules trace minijax's own code,
    where finding the user's frame walks the whole stack for every equation."""
    saved = _source_info.on
    _source_info.on = False
    try:
        yield
    finally:
        _source_info.on = saved


class JaxprTracer(Tracer):
    __slots__ = ("aval", "origin")

    def __init__(self, trace, aval, origin=None):
        self._trace = trace
        self.aval = aval
        self.origin = origin   # an Origin, or None for a constant (error messages only)

    def _same_value(self, other):
        return self._trace.main.payload.same_computation(self, other)

    def _abstract_reason(self):
        args = self.origin.args if self.origin is not None else frozenset()
        info = self._trace.main.debug_info or "the traced function"
        if args:
            labels = sorted(args, key=lambda a: (a.position is None, a.position or 0, a.text))
            names = ", ".join(a.text for a in labels)
            fixes = []
            nums = tuple(a.position for a in labels if a.position is not None)
            if nums:
                fixes.append(f"static_argnums={nums}")
            names_ = tuple(a.name for a in labels if a.name is not None)
            if names_:
                fixes.append(f"static_argnames={names_}")
            fix = (f" If it must be a Python value, mark it static: jit(..., "
                   f"{' or '.join(fixes)}) (it must then be hashable, and each new value "
                   f"compiles again)." if fixes else "")
            return (f"The value depends on {names} of {info}, which is traced as an abstract "
                    f"value (shape and dtype only).{fix}"), True
        ops = []
        stack = [self]
        seen = set()
        while stack and len(ops) < 5:
            t = stack.pop()
            if id(t) in seen or t.origin is None or t.origin.primitive is None:
                continue
            seen.add(id(t))
            where = f" at {t.origin.where}" if t.origin.where else ""
            ops.append(f"{t.origin.primitive}{where}")
            stack.extend(x for x in reversed(t.origin.inputs) if isinstance(x, JaxprTracer))
        made = f" It was produced by: {', '.join(ops)}." if ops else ""
        return (f"The value does not depend on the arguments of {info}: under jit every "
                f"minijax.numpy/lax operation is staged into the compiled program, even on "
                f"constants (omnistaging), so its value exists only when the program "
                f"runs.{made} For shape arithmetic use Python or NumPy on static values "
                f"(math.prod(x.shape) or numpy.prod(x.shape), not minijax.numpy.prod), or "
                f"compute the value outside the jitted function."), True

    def _rebind(self, other):
        builder = self._trace.main.payload
        builder.tracer_to_var[id(self)] = builder.get_var(other)
        super()._rebind(other)


class JaxprTrace(Trace):
    __slots__ = ()

    def new_arg(self, aval, label=None):
        origin = Origin(None, None, (), frozenset([label])) if label is not None else None
        tracer = JaxprTracer(self, aval, origin)
        builder = self.main.payload
        builder.arg_vars.append(builder.add_var(tracer))
        return tracer

    def pure(self, val):
        return self.main.payload.const_tracer(self, val)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        if primitive.abstract_eval is None:
            raise missing_rule(primitive, "abstract evaluation")
        avals_out = primitive.abstract_eval(*[t.aval for t in tracers], **params)
        args = frozenset().union(*[t.origin.args for t in tracers
                                   if type(t) is JaxprTracer and t.origin is not None])
        where = user_frame_summary() if _source_info.on else None
        origin = Origin(primitive.name, where, tuple(tracers), args)
        outs = [JaxprTracer(self, a, origin) for a in avals_out]
        self.main.payload.add_eqn(primitive, tracers, params, outs)
        return outs


class JaxprBuilder:
    """Collects equations and constants while a function is traced."""

    def __init__(self):
        self.eqns = []
        self.arg_vars = []
        self.tracer_to_var = {}
        self.const_tracers = {}   # id(constant) -> tracer
        self.constvals = {}       # Var -> constant
        self.keep_alive = []      # tracers and constants whose ids key the dicts above
        # in-place updates of values from outside (closed over) a control-flow body or a
        # custom-derivative function while it is traced (``capture_update``): id(value)
        # -> [value, inner tracer standing for its current value, generation]
        self.capture = False
        self.overrides = {}
        self.generation = 0
        self.updated_outer = []   # the outside values updated, in order of first update
        self.substituted = set()  # ids given an inner value by ``substitute`` (carried)

    def add_var(self, tracer):
        var = Var(tracer.aval)
        self.tracer_to_var[id(tracer)] = var
        self.keep_alive.append(tracer)
        return var

    def get_var(self, tracer):
        var = self.tracer_to_var.get(id(tracer))
        if var is None:
            raise UnexpectedTracerError(
                f"a traced value ({tracer.aval.str_short()}) from another trace reached "
                f"this one; it escaped the transformation that created it")
        return var

    def const_tracer(self, trace, val):
        if self.overrides:
            tracer = self._current(trace, val)
            if tracer is not None:
                return tracer
        tracer = self.const_tracers.get(id(val))
        if tracer is None:
            tracer = JaxprTracer(trace, get_aval(val))
            self.const_tracers[id(val)] = tracer
            self.constvals[self.add_var(tracer)] = val
            self.keep_alive.append(val)
        return tracer

    def _generation(self, val):
        """The generation of the last update of ``val`` or of a base it is a view of."""
        entry = self.overrides.get(id(val))
        gen = entry[2] if entry is not None else 0
        link = getattr(val, "_view_of", None) if isinstance(val, Tracer) else None
        return max(gen, self._generation(link[0])) if link is not None else gen

    def _current(self, trace, val):
        """The inner tracer standing for outside value ``val`` after in-place updates in
        this trace (a view of an updated base is read again from it), else None."""
        if isinstance(val, Tracer) and val._trace.main.level >= trace.main.level:
            return None   # a value of this trace (or deeper): not from outside
        entry = self.overrides.get(id(val))
        link = getattr(val, "_view_of", None) if isinstance(val, Tracer) else None
        if link is not None and _view_reader is not None:
            base_gen = self._generation(link[0])
            if base_gen and (entry is None or entry[2] < base_gen):
                base = self.const_tracer(trace, link[0])
                entry = [val, full_raise(trace, _view_reader(base, link[1])), base_gen]
                self.overrides[id(val)] = entry
        return None if entry is None else entry[1]

    def same_computation(self, a, b):
        """Whether tracers ``a`` and ``b`` of this trace hold the same values: their
        current variables are made by equal equations (one primitive, equal parameters,
        the same output) from variables that are the same in turn, or are equal
        constants. Variables, not tracers, are compared: a tracer updated in place
        stands for a new variable, while its earlier uses keep the old one."""
        va, vb = self.tracer_to_var.get(id(a)), self.tracer_to_var.get(id(b))
        return va is not None and vb is not None and self._same_var(va, vb, [64])

    def _same_var(self, va, vb, budget):
        if va is vb:
            return True
        budget[0] -= 1
        if budget[0] < 0 or va.aval != vb.aval:
            return False
        if va in self.constvals or vb in self.constvals:
            return (va in self.constvals and vb in self.constvals
                    and same_value(self.constvals[va], self.constvals[vb]))
        ea, eb = self._producer(va), self._producer(vb)
        if ea is None or eb is None or ea.primitive is not eb.primitive:
            return False
        if (ea.out_binders.index(va) != eb.out_binders.index(vb)
                or len(ea.inputs) != len(eb.inputs)):
            return False
        try:
            if ea.params != eb.params:
                return False
        except Exception:   # (parameters that do not compare, such as arrays)
            return False
        return all(self._same_var(x, y, budget) for x, y in zip(ea.inputs, eb.inputs))

    def _producer(self, var):
        for eqn in reversed(self.eqns):
            if any(v is var for v in eqn.out_binders):
                return eqn
        return None

    def add_eqn(self, primitive, tracers, params, out_tracers):
        inputs = [self.get_var(t) for t in tracers]
        outs = [self.add_var(t) for t in out_tracers]
        self.eqns.append(JaxprEqn(primitive, inputs, params, outs))

    def build(self, out_tracers):
        constvars = list(self.constvals)
        constvals = [self.constvals[v] for v in constvars]
        in_binders = constvars + self.arg_vars
        outs = [self.get_var(t) for t in out_tracers]
        # a value updated in place stays an input: the caller may carry it
        keep = {id(v) for v, _, _ in self.overrides.values()}
        return inline_literals(Jaxpr(in_binders, self.eqns, outs), constvals, keep)


def inline_literals(jaxpr, consts, keep=()):
    """Replace scalar non-tracer constants (but those whose ids are in ``keep``) by
    ``Literal``s in the equations."""
    num = len(consts)
    constvars, other = jaxpr.in_binders[:num], jaxpr.in_binders[num:]
    literals = {}
    kept_vars, kept_vals = [], []
    for v, c in zip(constvars, consts):
        if not isinstance(c, Tracer) and v.aval.shape == () and id(c) not in keep:
            literals[v] = Literal(c, v.aval)
        else:
            kept_vars.append(v)
            kept_vals.append(c)
    if not literals:
        return jaxpr, consts
    sub = lambda x: literals.get(x, x) if type(x) is Var else x
    eqns = [JaxprEqn(e.primitive, [sub(x) for x in e.inputs], e.params, e.out_binders)
            for e in jaxpr.eqns]
    return Jaxpr(kept_vars + other, eqns, [sub(x) for x in jaxpr.outs]), kept_vals


def trace_to_jaxpr(fun, in_avals, debug_info=None, arg_labels=None, updated_outer=None):
    """Stage ``fun`` (flat list in, flat list out) into ``(jaxpr, consts)``.

    ``arg_labels`` (``ArgLabel`` per input) let error messages name the argument a
    traced value depends on. With a list ``updated_outer`` (a control-flow body or a
    custom-derivative function), values from outside that ``fun`` updates in place
    (``x[i] = v`` on a closed-over ``x``) are not rebound but recorded: the list gets
    them (in order of first update) and the jaxpr their final values as extra outputs
    after ``fun``'s (DESIGN 5)."""
    builder = JaxprBuilder()
    builder.capture = updated_outer is not None
    with new_base_main(JaxprTrace, builder, debug_info) as main, _capturing(builder):
        trace = builder.trace = main.trace
        labels = arg_labels if arg_labels is not None else [None] * len(in_avals)
        tracers_in = [trace.new_arg(a, lab) for a, lab in zip(in_avals, labels)]
        outs = fun(*tracers_in)
        tracers_out = [full_raise(trace, o) for o in outs]
        if builder.updated_outer:
            updated_outer.extend(builder.updated_outer)
            tracers_out += [builder.overrides[id(v)][1] for v in builder.updated_outer]
        jaxpr, consts = builder.build(tracers_out)
    return jaxpr, consts


class _Capturing(threading.local):
    def __init__(self):
        self.builders = []   # this thread's builders tracing with ``updated_outer``


_capturing_builders = _Capturing()
_capturing_threads = [0]   # threads with a body being traced: the hook is on while any
_capturing_lock = threading.Lock()


@contextlib.contextmanager
def _capturing(builder):
    if not builder.capture:
        yield
        return
    builders = _capturing_builders.builders
    builders.append(builder)
    if len(builders) == 1:
        with _capturing_lock:
            _capturing_threads[0] += 1
            set_current_values(_current_args)
    try:
        yield
    finally:
        builders.pop()
        if not builders:
            with _capturing_lock:
                _capturing_threads[0] -= 1
                if not _capturing_threads[0]:
                    set_current_values(None)


def _current_args(args):
    """``args`` with the outside values updated in a body this thread is tracing replaced
    by their current values there (the innermost body that updated them): a primitive
    must not see the value from before the update (nor a snapshot of it)."""
    builders = _capturing_builders.builders
    if not builders:   # (another thread is tracing a body)
        return args
    out = None
    for i, a in enumerate(args):
        if isinstance(a, (int, float, complex, bool)):
            continue
        for b in reversed(builders):
            if b.overrides:
                t = b._current(b.trace, a)
                if t is not None:
                    if out is None:
                        out = list(args)
                    out[i] = t
                    break
    return args if out is None else out


_view_reader = None


def set_view_reader(fn):
    """``fn(base, key)`` reads a basic-indexing view again from its base (installed by
    minijax.numpy, which this module cannot import)."""
    global _view_reader
    _view_reader = fn


def capture_update(target, value):
    """Record the in-place update of ``target``, a value from outside the control-flow
    body or custom-derivative function being traced, to ``value`` (traced there): later
    reads of ``target`` in that trace see ``value``, and the caller writes the final
    value back (``trace_to_jaxpr(updated_outer=...)``). False if ``value`` is not from
    such a trace or ``target`` is not from outside it."""
    if type(value) is not JaxprTracer:
        return False
    builder = value._trace.main.payload
    if not builder.capture or (isinstance(target, Tracer)
                               and target._trace.main.level >= value._trace.main.level):
        return False
    if id(target) not in builder.overrides and id(target) not in builder.substituted:
        builder.updated_outer.append(target)
        builder.keep_alive.append(target)
    builder.generation += 1
    builder.overrides[id(target)] = [target, value, builder.generation]
    return True


def substitute(trace, targets, values):
    """In the body being traced by ``trace``, reads of outside values ``targets`` see
    ``values`` (inner tracers the caller carries); their updates are not recorded
    as ``updated_outer``: the caller reads them back with ``current_values``."""
    builder = trace.main.payload
    for t, v in zip(targets, values):
        builder.generation += 1
        builder.overrides[id(t)] = [t, full_raise(trace, v), builder.generation]
        builder.substituted.add(id(t))
        builder.keep_alive.append(t)


def current_values(trace, targets):
    """The inner tracers standing for outside values ``targets`` now (see ``substitute``)."""
    builder = trace.main.payload
    return [builder.overrides[id(t)][1] for t in targets]


# ---------------------------------------------------------------- partial evaluation

class PartialVal(NamedTuple):
    aval: ShapedArray
    const: Any

    @classmethod
    def known(cls, val):
        return PartialVal(get_aval(val), val)

    @classmethod
    def unknown(cls, aval):
        return PartialVal(aval, None)

    is_known = property(lambda self: self.const is not None)


class LambdaBindingRecipe(NamedTuple):
    pass


class ConstRecipe(NamedTuple):
    val: Any


class EqnRecipe(NamedTuple):
    primitive: Any
    nodes_in: list
    params: dict
    avals_out: list
    node_refs_out: list


class _Node:
    """A value in the partial-evaluation graph. Recipes refer to nodes, not tracers, so
    rebinding a tracer (in-place update sugar) leaves earlier uses of it intact."""

    __slots__ = ("pval", "recipe", "__weakref__")

    def __init__(self, pval, recipe):
        self.pval = pval
        self.recipe = recipe


class PartialEvalTracer(Tracer):
    __slots__ = ("node",)

    def __init__(self, trace, pval, recipe):
        self._trace = trace
        self.node = _Node(pval, recipe)

    pval = property(lambda self: self.node.pval)
    aval = property(lambda self: self.node.pval.aval)

    def full_lower(self):
        return full_lower(self.pval.const) if self.pval.is_known else self

    def to_concrete_value(self):
        return get_concrete(self.pval.const) if self.pval.is_known else None


class PartialEvalTrace(Trace):
    __slots__ = ()
    runs_eagerly = True   # linearize: the known (primal) values are computed eagerly

    def new_arg(self, pval):
        return PartialEvalTracer(self, pval, LambdaBindingRecipe())

    def pure(self, val):
        return PartialEvalTracer(self, PartialVal.known(val), None)

    lift = pure

    def instantiate_const(self, tracer):
        if not tracer.pval.is_known:
            return tracer
        pval = PartialVal.unknown(tracer.aval)
        return PartialEvalTracer(self, pval, ConstRecipe(tracer.pval.const))

    def process_primitive(self, primitive, tracers, params):
        if all(t.pval.is_known for t in tracers):
            out = bind(primitive, *[t.pval.const for t in tracers], **params)
            return out if primitive.multiple_results else [out]
        if primitive.partial_eval is not None:
            return primitive.partial_eval(self, tracers, **params)
        tracers_in = [self.instantiate_const(t) for t in tracers]
        if primitive.abstract_eval is None:
            raise missing_rule(primitive, "abstract evaluation")
        avals_out = primitive.abstract_eval(*[t.aval for t in tracers_in], **params)
        return self.stage_eqn(primitive, tracers_in, params, avals_out)

    def stage_eqn(self, primitive, tracers_in, params, avals_out):
        """Record ``primitive`` on unknown ``tracers_in``; returns the unknown outputs."""
        outs = [PartialEvalTracer(self, PartialVal.unknown(a), None) for a in avals_out]
        recipe = EqnRecipe(primitive, [t.node for t in tracers_in], params, avals_out,
                           [ref(t.node) for t in outs])
        for t in outs:
            t.node.recipe = recipe
        return outs


def partial_eval_flat(fun, pvals_in, debug_info=None):
    """Run ``fun`` on partially known inputs.

    Returns ``(jaxpr, pvals_out, consts)`` where ``jaxpr`` computes the unknown
    outputs from ``consts`` (residuals) followed by the unknown inputs.
    """
    with new_main(PartialEvalTrace, debug_info=debug_info) as main:
        trace = main.trace
        tracers_in = [trace.new_arg(p) for p in pvals_in]
        outs = fun(*tracers_in)
        tracers_out = [full_raise(trace, o) for o in outs]
        pvals_out = [t.pval for t in tracers_out]
        unk_in = [t.node for t in tracers_in if not t.pval.is_known]
        unk_out = [t.node for t in tracers_out if not t.pval.is_known]
        jaxpr, consts = nodes_to_jaxpr(unk_in, unk_out)
    return jaxpr, pvals_out, consts


def _parents(t):
    return t.recipe.nodes_in if isinstance(t.recipe, EqnRecipe) else []


def toposort(outs, parents):
    """Nodes reachable from ``outs``, each after all of its parents."""
    order, done = [], set()
    stack = [(n, False) for n in reversed(outs)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if expanded:
            done.add(id(node))
            order.append(node)
            continue
        stack.append((node, True))
        for p in reversed(parents(node)):
            if id(p) not in done:
                stack.append((p, False))
    return order


def nodes_to_jaxpr(nodes_in, nodes_out):
    node_to_var = {id(t): Var(t.pval.aval) for t in nodes_in}
    constvars = {}   # id(const) -> (Var, const)
    done_recipes = set()
    eqns = []
    for t in toposort(nodes_out, _parents):
        r = t.recipe
        if isinstance(r, LambdaBindingRecipe):
            if id(t) not in node_to_var:
                raise TypeError("an unknown input of partial evaluation is not among its inputs")
        elif isinstance(r, ConstRecipe):
            entry = constvars.get(id(r.val))
            if entry is None:
                entry = constvars[id(r.val)] = (Var(t.pval.aval), r.val)
            node_to_var[id(t)] = entry[0]
        elif isinstance(r, EqnRecipe):
            if id(r) in done_recipes:
                continue
            done_recipes.add(id(r))
            inputs = [node_to_var[id(x)] for x in r.nodes_in]
            outs = [Var(a) for a in r.avals_out]
            for tref, v in zip(r.node_refs_out, outs):
                if tref() is not None:
                    node_to_var[id(tref())] = v
            eqns.append(JaxprEqn(r.primitive, inputs, r.params, outs))
        else:
            raise TypeError(f"unknown recipe {r!r}")
    cvars = [v for v, _ in constvars.values()]
    cvals = [c for _, c in constvars.values()]
    jaxpr = Jaxpr(cvars + [node_to_var[id(t)] for t in nodes_in], eqns,
                  [node_to_var[id(t)] for t in nodes_out])
    return jaxpr, cvals


def partial_eval_jaxpr(jaxpr, in_unknowns, instantiate=None):
    """Split ``jaxpr`` by which inputs are unknown.

    Returns ``(jaxpr_known, jaxpr_unknown, out_unknowns, num_res)``: ``jaxpr_known``
    maps known inputs to known outputs plus residuals; ``jaxpr_unknown`` maps
    residuals plus unknown inputs to the unknown outputs. ``instantiate[i]`` forces
    output ``i`` into the unknown side.
    """
    unknown = {}
    residuals = {}   # ordered set of Vars

    def is_unknown(x):
        return type(x) is Var and unknown[x]

    def as_residual(x):
        if type(x) is Var:
            residuals[x] = None
        return x

    for v, uk in zip(jaxpr.in_binders, in_unknowns):
        unknown[v] = uk
    eqns1, eqns2 = [], []
    for eqn in jaxpr.eqns:
        unks_in = [is_unknown(x) for x in eqn.inputs]
        rule = eqn.primitive.partial_eval_jaxpr
        if rule is not None and any(unks_in):
            eqn1, eqn2, unks_out, res = rule(unks_in, eqn)
            if isinstance(eqn1, list):   # a rule may put several equations on the known side
                eqns1.extend(eqn1)
            elif eqn1 is not None:
                eqns1.append(eqn1)
            eqns2.append(eqn2)
            for r in res:
                as_residual(r)
            for v, uk in zip(eqn.out_binders, unks_out):
                unknown[v] = uk
        elif any(unks_in):
            inputs = [x if uk else as_residual(x) for x, uk in zip(eqn.inputs, unks_in)]
            eqns2.append(JaxprEqn(eqn.primitive, inputs, eqn.params, eqn.out_binders))
            for v in eqn.out_binders:
                unknown[v] = True
        else:
            eqns1.append(eqn)
            for v in eqn.out_binders:
                unknown[v] = False
    out_unknowns = [is_unknown(x) for x in jaxpr.outs]
    if instantiate is not None:
        for x, uk, inst in zip(jaxpr.outs, out_unknowns, instantiate):
            if inst and not uk:
                as_residual(x)
        out_unknowns = [uk or inst for uk, inst in zip(out_unknowns, instantiate)]
    residuals = list(residuals)
    ins1, ins2 = partition_list(in_unknowns, jaxpr.in_binders)
    outs1, outs2 = partition_list(out_unknowns, jaxpr.outs)
    jaxpr1 = Jaxpr(ins1, eqns1, outs1 + residuals)
    jaxpr2 = Jaxpr(residuals + ins2, eqns2, outs2)
    return jaxpr1, jaxpr2, out_unknowns, len(residuals)


def dce_jaxpr(jaxpr, used_outputs):
    """Drop outputs not in ``used_outputs`` and equations nothing needs."""
    outs = [x for x, u in zip(jaxpr.outs, used_outputs) if u]
    live = {x for x in outs if type(x) is Var}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        # equations kept for their side effect (host callbacks) have no used outputs
        if eqn.params.get("has_side_effect") or any(v in live for v in eqn.out_binders):
            eqns.append(eqn)
            live.update(x for x in eqn.inputs if type(x) is Var)
    return Jaxpr(jaxpr.in_binders, eqns[::-1], outs)
