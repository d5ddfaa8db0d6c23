"""Forward-mode rules and transposition for user primitives (``jax.interpreters.ad``).

``primitive_jvps[p] = rule`` with ``rule(primals, tangents, **params) -> (primal_out,
tangent_out)``; tangents may be the symbolic ``Zero``. ``primitive_transposes[p] =
rule`` with ``rule(cotangent, *args, **params) -> cotangents`` (one per argument,
None for a non-linear one); linear arguments arrive as ``UndefinedPrimal``.
"""

from ..interpreters.ad import UndefPrimal as UndefinedPrimal
from ..interpreters.ad import Zero, instantiate as instantiate_zeros, is_undefined

__all__ = ["UndefinedPrimal", "Zero", "instantiate_zeros", "is_undefined_primal",
           "primitive_jvps", "primitive_transposes"]


def is_undefined_primal(x):
    """Whether ``x`` is a linear input of a transpose rule (an ``UndefinedPrimal``)."""
    return is_undefined(x)


class _RuleTable(dict):
    """A dict whose assignments install the rule on the primitive."""

    def __init__(self, install):
        super().__init__()
        self._install = install

    def __setitem__(self, primitive, rule):
        self._install(primitive, rule)
        super().__setitem__(primitive, rule)


def _install_jvp(primitive, rule):
    primitive.def_jvp(rule)


def _install_transpose(primitive, rule):
    if primitive.multiple_results:
        primitive.transpose = lambda cts, *args, **params: list(rule(cts, *args, **params))
    else:
        primitive.transpose = lambda cts, *args, **params: list(rule(cts[0], *args, **params))


primitive_jvps = _RuleTable(_install_jvp)
primitive_transposes = _RuleTable(_install_transpose)
