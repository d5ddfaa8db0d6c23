"""Shardings: where an Array's data lives (``jax.sharding``'s names). minijax has
single-device shardings only; ``Array.sharding`` gives one, and ``device_put`` and
``Array.to_device`` accept one in place of a device."""

from .runtime.sharding import SingleDeviceSharding

__all__ = ["SingleDeviceSharding"]
