"""``jax.experimental.multihost_utils``: host-level helpers of a multi-process run
(``minijax.distributed``)."""

import numpy as np

from .. import backend
from ..api import jit, make_array_from_process_local_data
from ..backend import cpu as _cpu
from ..lax.sharding import with_sharding_constraint
from ..runtime.array import Array
from ..runtime.sharding import Mesh, NamedSharding, PartitionSpec
from .. import tree_util

__all__ = ["process_allgather", "sync_global_devices"]

_replicate = {}   # mesh -> the jitted identity whose output is replicated on it


def _process_mesh():
    """A mesh of every device, one row per process (its devices)."""
    devices = backend.devices("cpu")
    rows = [[d for d in devices if d.process_index == p]
            for p in range(backend.process_count())]
    return Mesh(np.array(rows, dtype=object), ("processes", "local"))


def _replicated(x):
    mesh = x.sharding.mesh
    fn = _replicate.get(mesh)
    if fn is None:
        replicated = NamedSharding(mesh, PartitionSpec())
        # (out_shardings alone is lost when XLA simplifies the body to its argument)
        fn = _replicate[mesh] = jit(lambda a: with_sharding_constraint(a, replicated),
                                    out_shardings=replicated)
    return np.asarray(fn(x))


def process_allgather(in_tree, tiled=False):
    """Every process's data, on the host of every process: a not fully addressable
    Array is gathered whole; any other leaf (this process's value) is stacked with the
    other processes' on a new leading axis (``tiled``: concatenated along axis 0)."""
    def gather(x):
        if isinstance(x, Array) and not x.is_fully_addressable:
            if not tiled:
                raise ValueError("Gathering global non-fully-addressable arrays only "
                                 "supports tiled=True")
            return _replicated(x)
        local = np.asarray(x)
        mesh = _process_mesh()
        sharding = NamedSharding(mesh, PartitionSpec("processes"))
        stacked = make_array_from_process_local_data(
            sharding, local[None], (backend.process_count(),) + local.shape)
        out = _replicated(stacked)
        return out.reshape((-1,) + out.shape[2:]) if tiled and out.ndim > 1 else out
    return tree_util.tree_map(gather, in_tree)


def sync_global_devices(name):
    """Wait until every process has reached ``sync_global_devices(name)``."""
    options = _cpu.distributed
    if options is None:
        return
    options["client"].wait_at_barrier(f"minijax_sync_{name}", 10 * 60 * 1000)
