"""Lowering user primitives to StableHLO (``jax.interpreters.mlir``).

``register_lowering(p, rule, platform=None)`` with
``rule(ctx, *operands, **params) -> [values]``: ``ctx.avals_in``/``ctx.avals_out`` give
the abstract values (``ctx.platform`` the platform lowered for), the operands are MLIR
values, and ``hlo`` builds StableHLO operations. ``lower_fun`` turns a function
written with ``minijax.lax`` into such a rule. ``dialects`` holds the MLIR dialect
modules (``stablehlo``/``hlo``, ``chlo``, ``func``) as ``jax.extend.mlir.dialects``.
"""

from ...backend import expand_platform, hlo, ir
from ...interpreters.lowering import (inline_function, ir_constant, ir_element_type, ir_type,
                                     lower_jaxpr)
from . import dialects

__all__ = ["aval_to_ir_type", "dialects", "dtype_to_ir_type", "hlo", "ir", "ir_constant",
           "lower_fun", "lower_jaxpr", "register_lowering"]

aval_to_ir_type = ir_type
dtype_to_ir_type = ir_element_type


def register_lowering(primitive, rule, platform=None):
    """Install ``rule`` as ``primitive``'s lowering: its default rule (``platform``
    None), or its rule for one platform (``"cpu"``, ``"cuda"``, ``"rocm"``, ``"tpu"``;
    ``"gpu"`` means both GPU platforms), which takes precedence over the default there.
    Another name raises ``UnknownPlatformError`` (a ``ValueError``)."""
    platforms = None if platform is None else expand_platform(platform, "register_lowering")

    def lower(ctx, *args, **params):
        out = rule(ctx, *args, **params)
        if isinstance(out, (list, tuple)):
            return list(out)
        return [out]
    if platforms is None:
        primitive.lower = lower
    else:
        for name in platforms:
            primitive.platform_lower[name] = lower
    return rule


def lower_fun(fun, multiple_results=True):
    """A lowering rule that traces ``fun`` (written with minijax operations) on the
    operands' abstract values and emits its program inline."""
    def rule(ctx, *args, **params):
        def flat(*xs):
            out = fun(*xs, **params)
            return list(out) if multiple_results else [out]
        return inline_function(ctx, flat, ctx.avals_in, args)
    return rule
