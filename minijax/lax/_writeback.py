"""In-place updates inside control-flow bodies, written back to the caller (DESIGN 5).

A body is traced once as usual, noting the arguments it updated in place
(``core.trace.updated``) and the values from outside it updated there
(``partial_eval.capture_update``). When there are any, the control-flow function is
staged again with those outside values as extra operands or carries (``substitute``
makes the body read them from there) and the updated values as extra outputs, which
are then written into the caller's arrays as ``jit`` writes back its arguments.
"""

from .._mutation import write_back_updated
from ..core.trace import Tracer, updated
from ..errors import UnsupportedInPlaceUpdateError
from ..interpreters import partial_eval as pe


class BodyUpdates:
    """What the traced bodies of one control-flow call updated in place: ``outer`` (values
    from outside, in order), ``args`` (argument positions), ``kept`` (carry positions whose
    updated argument is returned as that carry itself)."""

    def __init__(self):
        self.outer, self.args, self.kept = [], set(), set()

    def __bool__(self):
        return bool(self.outer or self.args)


def trace_body(fun, in_avals, what, updates, n_carry=0):
    """``partial_eval.trace_to_jaxpr`` of a body, noting its in-place updates in ``updates``
    (the jaxpr is only usable when there are none)."""
    def noting(*args):
        outs = fun(*args)
        updates.args.update(updated(args))
        updates.kept.update(k for k in range(min(n_carry, len(outs))) if outs[k] is args[k])
        return outs
    outer = []
    jaxpr, consts = pe.trace_to_jaxpr(noting, in_avals, debug_info=what, updated_outer=outer)
    for o in outer:
        if not any(o is p for p in updates.outer):
            updates.outer.append(o)
    return jaxpr, consts


def substitute(objs, vals):
    """In the body now traced, reads of outside values ``objs`` see ``vals`` (its inputs)."""
    if objs:
        pe.substitute(_trace_of(vals), objs, vals)


def current(objs, vals):
    """The current values (in the body now traced) of outside values ``objs``."""
    return pe.current_values(_trace_of(vals), objs) if objs else []


def _trace_of(vals):
    return next(v for v in vals if isinstance(v, Tracer))._trace


def write_back(targets, values, who):
    """Write ``values`` into the caller's ``targets`` (arrays or outer traced values)."""
    write_back_updated(list(targets), list(enumerate(values)), who)


def unsupported(what, advice):
    return UnsupportedInPlaceUpdateError(f"{what} {advice}")
