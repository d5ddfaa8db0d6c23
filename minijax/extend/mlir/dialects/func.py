"""The MLIR func dialect: jaxlib's MLIR bindings, the module minijax's lowering uses
(``jax.extend.mlir.dialects.func``). Attributes are read from it on use, so importing
this module does not import jaxlib."""

from ....runtime import xla_bridge as _xla_bridge


def __getattr__(name):
    return getattr(_xla_bridge.func_dialect, name)
