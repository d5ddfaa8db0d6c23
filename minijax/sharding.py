"""Shardings: where an Array's data lives (``jax.sharding``'s names): one device
(``SingleDeviceSharding``) or split over a ``Mesh`` of devices (``NamedSharding`` with a
``PartitionSpec``)."""

from .runtime.sharding import (AxisType, Mesh, NamedSharding, PartitionSpec, Shard,
                               SingleDeviceSharding, make_mesh)

P = PartitionSpec

__all__ = ["AxisType", "Mesh", "NamedSharding", "P", "PartitionSpec", "Shard",
           "SingleDeviceSharding", "make_mesh"]
