"""The CHLO (client HLO) dialect: jaxlib's MLIR bindings, the module minijax's lowering uses
(``jax.extend.mlir.dialects.chlo``). Attributes are read from it on use, so importing
this module does not import jaxlib."""

from .... import backend as _backend


def __getattr__(name):
    return getattr(_backend.chlo, name)
