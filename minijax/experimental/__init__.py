"""``minijax.experimental``: JAX's experimental namespace, as far as minijax has it."""

from . import multihost_utils, ode, shard_map
from ..callbacks import io_callback

__all__ = ["io_callback", "multihost_utils", "ode", "shard_map"]
