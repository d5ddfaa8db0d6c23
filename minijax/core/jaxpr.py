"""The jaxpr IR: typed, first-order programs in A-normal form.

A ``Jaxpr`` lists its input binders, its equations and its output atoms. Constants
a traced function closed over become leading input binders; ``ClosedJaxpr`` pairs
such a jaxpr with their values.
"""

from typing import NamedTuple

import numpy as np

from .avals import get_aval, same_type
from .primitive import Primitive
from .trace import bind


class Var:
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"Var({self.aval.str_short()})"


class Literal:
    """An inlined scalar constant; ``val`` is the constant object itself."""

    __slots__ = ("val", "aval")

    def __init__(self, val, aval=None):
        self.val = val
        self.aval = get_aval(val) if aval is None else aval

    def __repr__(self):
        return f"Literal({self.val_str()})"

    def val_str(self):
        a = np.asarray(self.val)
        if a.ndim:
            return f"{a.dtype.name}{list(a.shape)}(...)"
        v = a.item()
        return repr(v) if not isinstance(v, float) or np.isfinite(v) else str(v)


class JaxprEqn(NamedTuple):
    primitive: Primitive
    inputs: list
    params: dict
    out_binders: list

    # JAX's names, so interpreters written against JAX's jaxprs run unchanged.
    invars = property(lambda self: self.inputs)
    outvars = property(lambda self: self.out_binders)


class Jaxpr:
    """``num_consts`` leading binders are constants (``constvars``) when the jaxpr is
    part of a ``ClosedJaxpr``; the rest are the arguments (``invars``)."""

    __slots__ = ("in_binders", "eqns", "outs", "num_consts", "__weakref__")

    def __init__(self, in_binders, eqns, outs, num_consts=0):
        self.in_binders = list(in_binders)
        self.eqns = list(eqns)
        self.outs = list(outs)
        self.num_consts = num_consts

    # JAX's names (see JaxprEqn)
    constvars = property(lambda self: self.in_binders[:self.num_consts])
    invars = property(lambda self: self.in_binders[self.num_consts:])
    outvars = property(lambda self: self.outs)

    # Jaxprs are compared by identity: caches keyed on them stay cheap.
    __hash__ = object.__hash__
    __eq__ = object.__eq__

    def __repr__(self):
        return pp_jaxpr(self)

    @property
    def in_avals(self):
        return [v.aval for v in self.in_binders]

    @property
    def out_avals(self):
        return [x.aval for x in self.outs]


class ClosedJaxpr(NamedTuple):
    """A jaxpr whose first ``len(consts)`` binders are bound to ``consts``."""

    jaxpr: Jaxpr
    consts: list

    def __repr__(self):
        return pp_jaxpr(self.jaxpr, num_consts=len(self.consts))

    literals = property(lambda self: self.consts)   # JAX's name

    @property
    def in_avals(self):
        return self.jaxpr.in_avals[len(self.consts):]

    @property
    def out_avals(self):
        return self.jaxpr.out_avals


class JaxprType(NamedTuple):
    in_types: list
    out_types: list

    def __repr__(self):
        ins = ", ".join(a.str_short() for a in self.in_types)
        outs = ", ".join(a.str_short() for a in self.out_types)
        return f"({ins}) -> ({outs})"

    def __eq__(self, other):
        return (len(self.in_types) == len(other.in_types)
                and len(self.out_types) == len(other.out_types)
                and all(map(same_type, self.in_types, other.in_types))
                and all(map(same_type, self.out_types, other.out_types)))

    __hash__ = None


class JaxprTypeError(TypeError):
    """A jaxpr is ill-typed (an internal error: a transformation rule is wrong)."""


def typecheck_jaxpr(jaxpr):
    """Check binding and types of every equation; returns the jaxpr's ``JaxprType``."""
    env = set()

    def check_atom(x):
        if isinstance(x, Literal):
            return x.aval
        if x not in env:
            raise JaxprTypeError(f"unbound variable {x} in jaxpr:\n{jaxpr}")
        return x.aval

    for v in jaxpr.in_binders:
        if v in env:
            raise JaxprTypeError(f"variable {v} bound twice")
        env.add(v)
    for eqn in jaxpr.eqns:
        in_types = [check_atom(x) for x in eqn.inputs]
        out_types = eqn.primitive.abstract_eval(*in_types, **eqn.params)
        if len(out_types) != len(eqn.out_binders):
            raise JaxprTypeError(f"{eqn.primitive} returns {len(out_types)} values, "
                                 f"binds {len(eqn.out_binders)}")
        for binder, t in zip(eqn.out_binders, out_types):
            if not same_type(binder.aval, t):
                raise JaxprTypeError(f"{eqn.primitive} produces {t.str_short()} but its "
                                     f"binder has type {binder.aval.str_short()}")
            if binder in env:
                raise JaxprTypeError(f"variable {binder} bound twice")
            env.add(binder)
    return JaxprType([v.aval for v in jaxpr.in_binders], [check_atom(x) for x in jaxpr.outs])


def eval_jaxpr(jaxpr, args):
    """Evaluate ``jaxpr`` on ``args`` by binding each equation's primitive."""
    env = {}
    for v, a in zip(jaxpr.in_binders, args):
        env[v] = a

    def read(x):
        return x.val if type(x) is Literal else env[x]

    for eqn in jaxpr.eqns:
        outs = bind(eqn.primitive, *[read(x) for x in eqn.inputs], **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


def jaxpr_as_fun(jaxpr):
    return lambda *args: eval_jaxpr(jaxpr, args)


# ---------------------------------------------------------------- pretty printing

class _Names:
    def __init__(self):
        self.names = {}

    def __call__(self, v):
        if type(v) is Literal:
            return v.val_str()
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = _var_name(len(self.names))
        return name


def _var_name(i):
    letters = "abcdefghijklmnopqrstuvwxyz"
    s = ""
    while True:
        s = letters[i % 26] + s
        i = i // 26 - 1
        if i < 0:
            return s


def _binder(names, v):
    return f"{names(v)}:{v.aval.str_short()}"


def _param_str(v):
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        return "{...}"
    if isinstance(v, np.dtype):
        return v.name
    return str(v)


def pp_jaxpr(jaxpr, num_consts=0, indent=0, names=None):
    names = names or _Names()
    consts = " ".join(_binder(names, v) for v in jaxpr.in_binders[:num_consts])
    ins = " ".join(_binder(names, v) for v in jaxpr.in_binders[num_consts:])
    head = f"{{ lambda {consts}; {ins}. let"
    lines = [_pp_eqn(names, e, indent + 4) for e in jaxpr.eqns]
    outs = ", ".join(names(x) for x in jaxpr.outs)
    tail = f"in ({outs}{',' if len(jaxpr.outs) == 1 else ''}) }}"
    one_line = f"{head} {' '.join(lines)} {tail}" if lines else f"{head} {tail}"
    if len(one_line) + indent <= 80 and all("\n" not in l for l in lines):
        return one_line
    pad = " " * (indent + 4)
    body = "\n".join(pad + l for l in lines)
    return f"{head}\n{body}\n{' ' * (indent + 2)}{tail}"


def _pp_eqn(names, eqn, indent):
    outs = " ".join(_binder(names, v) for v in eqn.out_binders)
    ins = " ".join(names(x) for x in eqn.inputs)
    simple = {k: v for k, v in eqn.params.items() if not isinstance(v, (Jaxpr, ClosedJaxpr))}
    params = " ".join(f"{k}={_param_str(v)}" for k, v in sorted(simple.items()))
    line = f"{outs} = {eqn.primitive.name}{'[' + params + ']' if params else ''} {ins}"
    subs = [(k, v) for k, v in sorted(eqn.params.items()) if isinstance(v, (Jaxpr, ClosedJaxpr))]
    for k, v in subs:
        sub = v.jaxpr if isinstance(v, ClosedJaxpr) else v
        nc = len(v.consts) if isinstance(v, ClosedJaxpr) else 0
        line += f"\n{' ' * (indent + 2)}{k}=" + pp_jaxpr(sub, nc, indent + 2, _Names())
    return line
