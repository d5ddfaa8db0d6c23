"""The StableHLO dialect: jaxlib's MLIR bindings, the module minijax's lowering uses
(``jax.extend.mlir.dialects.stablehlo``). Attributes are read from it on use, so importing
this module does not import jaxlib."""

from .... import backend as _backend


def __getattr__(name):
    return getattr(_backend.hlo, name)
