"""The MLIR func dialect: jaxlib's MLIR bindings, the module minijax's lowering uses
(``jax.extend.mlir.dialects.func``). Attributes are read from it on use, so importing
this module does not import jaxlib."""

from .... import backend as _backend


def __getattr__(name):
    return getattr(_backend.func_dialect, name)
