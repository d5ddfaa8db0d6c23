"""``hlo``: the StableHLO dialect under the name JAX's lowering rules import it by
(``from jax._src.lib.mlir.dialects import hlo``); the same module as ``stablehlo``."""

from ....runtime import xla_bridge as _xla_bridge


def __getattr__(name):
    return getattr(_xla_bridge.hlo, name)
