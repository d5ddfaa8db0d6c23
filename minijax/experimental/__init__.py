"""``minijax.experimental``: JAX's experimental namespace, as far as minijax has it."""

from . import ode, shard_map

__all__ = ["ode", "shard_map"]
