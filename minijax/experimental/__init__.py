"""``minijax.experimental``: JAX's experimental namespace, as far as minijax has it."""

from . import multihost_utils, ode, shard_map

__all__ = ["multihost_utils", "ode", "shard_map"]
