"""The interpreter stack, ``Trace``/``Tracer`` and ``bind``.

Each active transformation is a ``MainTrace`` on a stack, one stack per thread;
level 0 is eager evaluation. ``bind`` hands a primitive application to the highest-level trace
among its arguments' tracers, or to the *dynamic* trace when that is higher:
``jit`` makes its jaxpr trace dynamic so that every operation is staged, even one
on constants alone (omnistaging).
"""

import itertools
import threading
from contextlib import contextmanager

import numpy as np

from .. import errors
from ..config import config
from .avals import get_aval


class MainTrace:
    """One active transformation: its level, its ``Trace`` and its global data."""

    __slots__ = ("level", "trace", "payload", "active", "debug_info")

    def __init__(self, level, trace_type, payload=None, debug_info=None):
        self.level = level
        self.payload = payload
        self.active = True
        self.debug_info = debug_info
        self.trace = trace_type(self) if trace_type is not None else None

    def __repr__(self):
        name = type(self.trace).__name__
        return f"MainTrace(level={self.level}, {name})"


class Trace:
    """An interpreter: boxes values into its tracers and applies primitive rules."""

    __slots__ = ("main",)
    # True for an interpreter that runs the user's function once on concrete values and
    # only adds derivative information to them (JVP, linearize's partial evaluation):
    # host-side effects such as NumPy's hidden-state random draws happen once per call.
    runs_eagerly = False

    def __init__(self, main):
        self.main = main

    def pure(self, val):
        """Box a non-tracer value."""
        raise NotImplementedError

    def lift(self, tracer):
        """Box a tracer of a lower-level trace."""
        raise NotImplementedError

    def process_primitive(self, primitive, tracers, params):
        raise NotImplementedError


class _TraceState(threading.local):
    """The transformation stack of the calling thread. Each thread has its own (as in
    JAX): tracing in one thread leaves eager code in the others eager."""

    def __init__(self):
        self.eval_main = MainTrace(0, _eval_trace_type)
        self.stack = [self.eval_main]
        self.dynamic = self.eval_main
        # While a transformation's rule runs, arrays it creates belong below that
        # transformation (see ``new_value_main`` and ``rule_of``).
        self.new_value_cap = None
        # Mains of ``vmap``s that only map a derivative basis (jacfwd): see
        # ``basis_map`` and ``runs_eagerly``.
        self.basis_mains = []


_eval_trace_type = None
state = _TraceState()

# ``numpy_flag[0]`` is True while no thread has a transformation active and
# ``eager_backend`` is "numpy": every thread is then eager on the NumPy backend, and
# ``numpy_eager`` reads this one flag instead of its thread's stack (a thread-local
# lookup costs more than the rest of the check). False means "look at the thread's own
# stack", not "not eager". The count goes up before a stack grows and down after it
# shrinks. The NumPy dispatch wrappers read the flag before calling ``numpy_eager``
# (``numpy_flag[0] or numpy_eager()``): a call costs 5% of an eager call on small arrays.
numpy_flag = [config.eager_backend == "numpy"]
_mains_active = 0
_gate_lock = threading.Lock()


def _refresh_gate():
    numpy_flag[0] = _mains_active == 0 and config.eager_backend == "numpy"


def _count_mains(delta):
    global _mains_active
    with _gate_lock:
        _mains_active += delta
        _refresh_gate()


def eager():
    """No transformation is active in the calling thread: every value is concrete and
    operations run now (on the NumPy kernels or, with ``eager_backend="xla"``, XLA)."""
    return len(state.stack) == 1


def numpy_eager():
    """``eager()`` and the eager backend is NumPy's: a ``minijax.numpy`` call may be
    NumPy's call on the host buffers (DESIGN 3). The one test of it in the package."""
    return numpy_flag[0] or (len(state.stack) == 1 and config.eager_backend == "numpy")


config.on_update(lambda name: _refresh_gate() if name == "eager_backend" else None)


def set_eval_trace(trace_type):
    """Install the bottom-of-stack (eager) interpreter; done by the runtime layer."""
    global _eval_trace_type
    _eval_trace_type = trace_type
    state.eval_main.trace = trace_type(state.eval_main)


@contextmanager
def new_main(trace_type, payload=None, dynamic=False, debug_info=None):
    """Push a transformation; ``dynamic=True`` makes it stage every operation."""
    main = MainTrace(len(state.stack), trace_type, payload, debug_info)
    _count_mains(1)
    state.stack.append(main)
    prev_dynamic, prev_cap = state.dynamic, state.new_value_cap
    if dynamic:
        state.dynamic = main
    state.new_value_cap = None
    try:
        yield main
    finally:
        main.active = False
        state.stack.pop()
        _count_mains(-1)
        state.dynamic = prev_dynamic
        state.new_value_cap = prev_cap


@contextmanager
def basis_map():
    """Mark the innermost transformation (a ``vmap`` over the standard basis of the
    tangents, as ``jacfwd`` makes) as one that maps derivatives only: the primal values
    under it stay concrete and unbatched."""
    main = state.stack[-1]
    state.basis_mains.append(main)
    try:
        yield
    finally:
        state.basis_mains.pop()


def runs_eagerly():
    """True when every active transformation of this thread only differentiates concrete
    values (``grad``, ``jvp``, ``vjp``, the jacobians): the function runs once per call
    on concrete primal values, so a host side effect happens once per call too."""
    if eager():
        return True
    return all(main.level == 0 or main.trace.runs_eagerly
               or any(main is m for m in state.basis_mains) for main in state.stack)


def new_value_main():
    """The transformation a newly created array joins: the innermost one, or, while a
    rule of some transformation runs, the one below it (a JVP rule's ``zeros_like(x)``
    is a constant of the rule, not a new input of the same JVP, which would re-enter
    the rule forever)."""
    cap = state.new_value_cap
    return state.stack[-1] if cap is None else state.stack[cap]


def run_rule(main, rule, *args, **params):
    """Call ``rule`` of transformation ``main``; arrays it creates join the level below."""
    prev = state.new_value_cap
    state.new_value_cap = main.level - 1
    try:
        return rule(*args, **params)
    finally:
        state.new_value_cap = prev


@contextmanager
def new_base_main(trace_type, payload=None, debug_info=None):
    """A dynamic main that stages everything, for tracing to a jaxpr."""
    with new_main(trace_type, payload, dynamic=True, debug_info=debug_info) as main:
        yield main


def _escaped_error(tracer):
    info = tracer._trace.main.debug_info
    where = f" created while tracing {info}" if info else ""
    return errors.UnexpectedTracerError(
        f"A traced value ({tracer.aval.str_short()}){where} is used after that "
        f"transformation finished: it escaped, for example through a global variable, "
        f"a list appended to, or an attribute set inside the traced function. Return "
        f"the value from the function instead of storing it.")


def find_top_trace(args):
    top = state.dynamic
    level = top.level
    for x in args:
        if isinstance(x, Tracer):
            main = x._trace.main
            if not main.active:
                raise _escaped_error(x)
            if main.level > level:
                top, level = main, main.level
    return top.trace


def full_raise(trace, val):
    if not isinstance(val, Tracer):
        return trace.pure(val)
    main = val._trace.main
    if main is trace.main:
        return val
    if main.level < trace.main.level:
        return trace.lift(val)
    if not main.active:
        raise _escaped_error(val)
    raise errors.UnexpectedTracerError(
        f"A traced value of level {main.level} reached a transformation of level "
        f"{trace.main.level}; a tracer escaped from an inner transformation.")


def full_lower(val):
    return val.full_lower() if isinstance(val, Tracer) else val


_eager_bind = None
_observe = None


def set_observe(fn):
    """Install ``fn(args) -> args``, applied to the operands of every primitive under a
    transformation: the runtime replaces concrete arrays by snapshots sharing their
    (now copy-on-write) buffers, so a later in-place update cannot change a value a
    transformation saw (a trace constant, a residual)."""
    global _observe
    _observe = fn


_refresh_view = None
_current_values = None


def set_current_values(fn):
    """Install ``fn(args) -> args`` (or None: uninstall), applied to the operands of every
    primitive while a control-flow body is traced: values from outside it that it
    updated in place are replaced by their current (traced) values (DESIGN 5)."""
    global _current_values
    _current_values = fn


def set_view_refresh(fn):
    """Install ``fn(view)``, called on each traced basic-indexing view (a tracer with a
    ``_view_of`` link) a primitive reads: it reads the view again from its base when
    the base was updated in place after the view was made (DESIGN 5)."""
    global _refresh_view
    _refresh_view = fn


def set_eager_bind(fn):
    """Install ``fn(primitive, args, params) -> outs or None``: the runtime's fast path
    for primitives applied outside every transformation (None: take the general path)."""
    global _eager_bind
    _eager_bind = fn


def bind(primitive, *args, **params):
    """Apply ``primitive`` to ``args`` under the current transformations."""
    try:
        if eager():
            if _eager_bind is not None:
                outs = _eager_bind(primitive, args, params)
                if outs is not None:
                    return outs if primitive.multiple_results else outs[0]
        else:
            if _current_values is not None:
                args = _current_values(args)
            if _observe is not None:
                args = _observe(args)
            if _refresh_view is not None:
                for a in args:
                    if isinstance(a, Tracer) and getattr(a, "_view_of", None) is not None:
                        _refresh_view(a)
        trace = find_top_trace(args)
        if trace.main.level == 0:
            outs = trace.process_primitive(primitive, args, params)
        else:
            tracers = [full_raise(trace, a) for a in args]
            outs = [full_lower(o) for o in trace.process_primitive(primitive, tracers, params)]
    except errors.NonNumericDtypeError as e:   # a date, string, ... array reached lax
        raise e.named(f"lax.{primitive.name}{non_numeric_context()}") from None
    return outs if primitive.multiple_results else outs[0]


def non_numeric_context():
    """Why a non-numeric array cannot be used here, for ``NonNumericDtypeError``."""
    if not eager():
        return " inside a transformation"
    if config.eager_backend != "numpy":
        return " with eager_backend='xla'"
    return ""


def _describe(tracer):
    info = tracer._trace.main.debug_info
    return f" while tracing {info}" if info else ""


class Tracer:
    """A value boxed by a transformation; carries an abstract value."""

    # ``_view_of`` (set by basic indexing, DESIGN 5): (base tracer, index key), so that
    # an in-place update of this value is written back into its base. ``_stamp`` (unset
    # until then) is the program-order stamp of the last in-place update (``_rebind``):
    # the transformations find the arguments a function updated by it (``updated``).
    __slots__ = ("_trace", "_view_of", "_stamp")
    __array_priority__ = 1000

    @property
    def aval(self):
        raise NotImplementedError

    def full_lower(self):
        return self

    def to_concrete_value(self):
        """The concrete array this tracer stands for, or None if it is abstract."""
        return None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        return self.shape[0]

    def _abstract_reason(self):
        """Why this value is not concrete: ``(explanation, replaces_generic_advice)``."""
        return ("The value depends on the traced function's arguments, so it is not known "
                "until the function runs.", False)

    def _same_value(self, other):
        """Whether ``other`` (a tracer of this one's type) certainly holds the same values
        (a transformation that can tell two equal computations apart overrides it)."""
        return self is other

    def abstract_reason_text(self):
        return self._abstract_reason()[0]

    def _concretize(self, kind, error_cls, advice):
        value = self.to_concrete_value()
        if value is not None:
            return value
        reason, specific = self._abstract_reason()
        if specific:   # the reason already says whether marking static helps
            if advice.startswith("Mark the argument static"):
                advice = "Keep the computation in arrays."
            advice = advice.split(", or mark the argument static")[0].split(
                " or mark the argument static")[0].rstrip(".") + "."
        raise error_cls(
            # JAX's wording, which libraries match (array-api-extra's tests do)
            f"Attempted {kind} of traced array with shape {self.aval.str_short()}"
            f"{_describe(self)}. {reason} {advice}")

    def __bool__(self):
        return bool(self._concretize(
            "boolean conversion", errors.TracerBoolConversionError,
            "Python `if`/`while` cannot branch on it: use lax.cond, lax.select or "
            "numpy.where, or mark the argument static with static_argnums/static_argnames."))

    def __int__(self):
        return int(self._concretize(
            "int conversion", errors.TracerIntegerConversionError,
            "Mark the argument static with static_argnums/static_argnames if it must be a "
            "Python int, or keep the computation in arrays."))

    def __index__(self):
        return self._concretize(
            "use as an index (__index__)", errors.TracerIntegerConversionError,
            "Use dynamic indexing (lax.dynamic_slice, array indexing) or mark the argument "
            "static with static_argnums/static_argnames.").__index__()

    def __float__(self):
        return float(self._concretize(
            "float conversion", errors.ConcretizationTypeError,
            "Mark the argument static with static_argnums/static_argnames or keep the "
            "computation in arrays."))

    def __complex__(self):
        return complex(self._concretize(
            "complex conversion", errors.ConcretizationTypeError,
            "Keep the computation in arrays."))

    def __array__(self, dtype=None, copy=None):
        raise errors.TracerArrayConversionError(
            f"A traced value of type {self.aval.str_short()}{_describe(self)} was "
            f"converted to a NumPy array (for example by numpy.asarray or a NumPy "
            f"function). {self.abstract_reason_text()} Use minijax.numpy functions on "
            f"traced values instead.")

    @property
    def itemsize(self):
        return self.aval.dtype.itemsize

    @property
    def nbytes(self):
        return self.aval.size * self.aval.dtype.itemsize

    @property
    def base(self):
        """The traced array this value is a view of (basic indexing), else None."""
        view = getattr(self, "_view_of", None)
        return None if view is None else view[0]

    def block_until_ready(self):
        # nothing to wait for: a traced value is computed when the transformed function runs
        return self

    def is_ready(self):
        self._concretize("is_ready()", errors.ConcretizationTypeError,
                         "Call it on the transformed function's result.")
        return True

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        raise errors.TracerArrayConversionError(
            f"A traced value of type {self.aval.str_short()}{_describe(self)} was exported "
            f"through DLPack. {self.abstract_reason_text()} Export the transformed "
            f"function's result instead.")

    def __dlpack_device__(self):
        return (1, 0)   # kDLCPU, as Array

    def __format__(self, spec):
        if not spec:
            return repr(self)
        return format(self._concretize("formatting", errors.ConcretizationTypeError,
                                       "Use minijax.debug.print to print traced values."),
                      spec)

    def item(self, *args):
        return self._concretize("item()", errors.ConcretizationTypeError,
                                "Keep the computation in arrays.").item(*args)

    def tolist(self):
        return self._concretize("tolist()", errors.ConcretizationTypeError,
                                "Keep the computation in arrays.").tolist()

    __hash__ = None

    def __repr__(self):
        return f"{type(self).__name__}<{self.aval.str_short()}>"

    def _rebind(self, other):
        """Make this tracer stand for ``other`` (in-place update sugar, DESIGN 5)."""
        if type(other) is not type(self):
            raise TypeError(f"cannot rebind a {type(self).__name__} to {type(other).__name__}")
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot not in _OWN_SLOTS and hasattr(other, slot):
                    setattr(self, slot, getattr(other, slot))
        self._stamp = next(_update_stamps)


# slots ``_rebind`` leaves alone: they describe the object, not the value it stands for
_OWN_SLOTS = ("__weakref__", "_view_of", "_stamp")
# program order of in-place updates (itertools.count is atomic under the GIL)
_update_stamps = itertools.count(1)


def updated(tracers):
    """The positions of ``tracers`` (a traced function's argument tracers) that the
    function updated in place (``x[i] = v``, ``x += y``, ``out=x``, ``x.sort()``, a write
    through a view of ``x``), in the program order of their last update: writing their
    final values back in this order makes the last write win when an argument was
    passed twice (DESIGN 5)."""
    stamped = [(getattr(t, "_stamp", 0), i) for i, t in enumerate(tracers)
               if isinstance(t, Tracer)]
    return [i for s, i in sorted(stamped) if s]


def same_value(a, b):
    """Whether ``a`` and ``b`` certainly hold the same values: one object, equal concrete
    arrays, or traced values that are the same computation on the same inputs (two
    evaluations of ``x > 0`` under ``jit``). False when that cannot be told."""
    if a is b:
        return True
    if isinstance(a, Tracer) or isinstance(b, Tracer):
        return type(a) is type(b) and a._trace.main is b._trace.main and a._same_value(b)
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))


def concretization_error(x, message):
    """The named error for an operation (``message``) that needs the value of ``x`` where
    ``x`` is traced: like the conversions' errors, it names the user's arguments the value
    depends on and the exact ``static_argnums``/``static_argnames`` that would make it
    concrete."""
    reason = x._abstract_reason()[0] if isinstance(x, Tracer) else ""
    return errors.ConcretizationTypeError(f"{message.rstrip('.')}. {reason}".rstrip())


def get_concrete(x):
    """``x``'s concrete value if it has one (non-tracer, or a tracer that knows it)."""
    if isinstance(x, Tracer):
        return x.to_concrete_value()
    return x


__all__ = ["MainTrace", "Trace", "Tracer", "bind", "find_top_trace", "full_raise",
           "full_lower", "new_main", "new_base_main", "set_eval_trace", "get_aval",
           "get_concrete", "concretization_error", "new_value_main", "same_value", "run_rule", "state", "updated"]
