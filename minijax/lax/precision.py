"""``Precision``: how exactly XLA may compute the products in ``dot_general`` and
convolutions.

On accelerators lower precisions trade accuracy for speed (bfloat16 passes on TPU,
TF32 on GPU). XLA's CPU backend computes float32 and float64 products at full
precision whatever the setting, so on the CPU every value gives the same numbers;
minijax validates the argument, keeps it on the primitive (it appears in jaxprs) and
writes it into the StableHLO ``precision_config`` for XLA.
"""

import enum

from ..backend import hlo, ir


class Precision(enum.Enum):
    """``DEFAULT`` (fastest), ``HIGH`` or ``HIGHEST`` (most accurate)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"Precision.{self.name}"


_ALIASES = {"default": Precision.DEFAULT, "fastest": Precision.DEFAULT,
            "bfloat16": Precision.DEFAULT, "high": Precision.HIGH,
            "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
            "highest": Precision.HIGHEST, "float32": Precision.HIGHEST}


def _one(p, name):
    if p is None:
        return Precision.DEFAULT
    if isinstance(p, Precision):
        return p
    if isinstance(p, str) and p.lower() in _ALIASES:
        return _ALIASES[p.lower()]
    raise TypeError(f"{name}: precision must be None, a lax.Precision, one of the strings "
                    f"{sorted(_ALIASES)}, or a pair of them for (lhs, rhs); got {p!r}")


def canonicalize_precision(precision, name="lax.dot_general"):
    """None, or the (lhs, rhs) pair of ``Precision`` values for ``precision``."""
    if precision is None:
        return None
    if isinstance(precision, (tuple, list)):
        if len(precision) != 2:
            raise TypeError(f"{name}: a precision pair must have two entries, got {precision!r}")
        return (_one(precision[0], name), _one(precision[1], name))
    p = _one(precision, name)
    return (p, p)


def precision_config(precision):
    """The StableHLO ``precision_config`` attribute for a canonical precision (or None)."""
    if precision is None:
        return None
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get(p.name) for p in precision])
