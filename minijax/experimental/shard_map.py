"""``minijax.experimental.shard_map``: JAX's older spelling of ``shard_map``."""

from ..lax.shard_map import shard_map as _shard_map


def shard_map(f, mesh, in_specs, out_specs, check_rep=True, auto=frozenset()):
    """``minijax.shard_map`` with JAX's older signature (``check_rep`` is ``check_vma``)."""
    if auto:
        raise NotImplementedError("shard_map: auto= (axes left to the partitioner) is not "
                                  "supported; minijax's shard_map is manual over every "
                                  "mesh axis")
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      check_vma=check_rep)


__all__ = ["shard_map"]
