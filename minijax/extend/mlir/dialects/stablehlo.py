"""The StableHLO dialect: jaxlib's MLIR bindings, the module minijax's lowering uses
(``jax.extend.mlir.dialects.stablehlo``). Attributes are read from it on use, so importing
this module does not import jaxlib."""

from ....runtime import xla_bridge as _xla_bridge


def __getattr__(name):
    return getattr(_xla_bridge.hlo, name)
