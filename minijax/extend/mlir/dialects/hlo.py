"""``hlo``: the StableHLO dialect under the name JAX's lowering rules import it by
(``from jax._src.lib.mlir.dialects import hlo``); the same module as ``stablehlo``."""

from .... import backend as _backend


def __getattr__(name):
    return getattr(_backend.hlo, name)
