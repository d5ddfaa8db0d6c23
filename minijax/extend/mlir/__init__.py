"""Lowering user primitives to StableHLO (``jax.interpreters.mlir``).

``register_lowering(p, rule)`` with ``rule(ctx, *operands, **params) -> [values]``:
``ctx.avals_in``/``ctx.avals_out`` give the abstract values, the operands are MLIR
values, and ``hlo`` builds StableHLO operations. ``lower_fun`` turns a function
written with ``minijax.lax`` into such a rule. ``dialects`` holds the MLIR dialect
modules (``stablehlo``/``hlo``, ``chlo``, ``func``) as ``jax.extend.mlir.dialects``.
"""

from ...core import get_aval
from ...interpreters import partial_eval as pe
from ...interpreters.lowering import (ir_constant, ir_element_type, ir_type, jaxpr_subcomp,
                                     lower_jaxpr)
from ...backend import hlo, ir
from . import dialects

__all__ = ["aval_to_ir_type", "dialects", "dtype_to_ir_type", "hlo", "ir", "ir_constant",
           "lower_fun", "lower_jaxpr", "register_lowering"]

aval_to_ir_type = ir_type
dtype_to_ir_type = ir_element_type


def register_lowering(primitive, rule, platform=None):
    """Install ``rule`` as ``primitive``'s lowering (minijax compiles for the CPU only;
    ``platform`` other than None/'cpu' raises)."""
    if platform not in (None, "cpu"):
        raise NotImplementedError(f"register_lowering: minijax lowers for the CPU only, "
                                  f"got platform={platform!r}")

    def lower(ctx, *args, **params):
        out = rule(ctx, *args, **params)
        if isinstance(out, (list, tuple)):
            return list(out)
        return [out]
    primitive.lower = lower
    return rule


def lower_fun(fun, multiple_results=True):
    """A lowering rule that traces ``fun`` (written with minijax operations) on the
    operands' abstract values and emits its program inline."""
    def rule(ctx, *args, **params):
        def flat(*xs):
            out = fun(*xs, **params)
            return list(out) if multiple_results else [out]
        jaxpr, consts = pe.trace_to_jaxpr(flat, list(ctx.avals_in))
        const_vals = [ir_constant(c, get_aval(c).dtype) for c in consts]
        return jaxpr_subcomp(ctx.module_ctx, jaxpr, const_vals + list(args))
    return rule
