"""MLIR dialects for lowering rules (``jax.extend.mlir.dialects``): ``stablehlo`` (also
as ``hlo``), ``chlo`` and ``func``, with ``ir`` (MLIR's core types and builders). They
are jaxlib's bindings, the same objects minijax's own lowering uses."""

from ....backend import ir
from . import chlo, func, hlo, stablehlo

__all__ = ["chlo", "func", "hlo", "ir", "stablehlo"]
