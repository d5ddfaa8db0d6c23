"""Where an Array lives: its placement.

An Array's placement is None while it is uncommitted (on the default device, free to
move; the eager NumPy path computes on it on the host), or a sharding once it is
committed to devices (``device_put`` with a device, results of committed inputs).
Only single-device shardings exist today; a sharded Array will carry another sharding
class in the same place.
"""

from .. import backend


class SingleDeviceSharding:
    """All of an array's data on one device (JAX's name and minimal API)."""

    __slots__ = ("_device", "_host_eager")

    def __new__(cls, device, *, memory_kind=None):
        if memory_kind not in (None, "device"):
            raise NotImplementedError(f"SingleDeviceSharding: memory_kind={memory_kind!r} "
                                      f"is not supported (minijax uses each device's "
                                      f"default memory, 'device'); leave it None")
        sharding = _interned.get(device)
        if sharding is None:
            sharding = object.__new__(cls)
            sharding._device = device
            # whether the eager NumPy path may compute on the host for this placement
            sharding._host_eager = backend.reads_host_memory(device)
            _interned[device] = sharding
        return sharding

    @property
    def device_set(self):
        return {self._device}

    @property
    def num_devices(self):
        return 1

    @property
    def memory_kind(self):
        return "device"

    @property
    def is_fully_replicated(self):
        return True

    @property
    def is_fully_addressable(self):
        return True

    @property
    def addressable_devices(self):
        return {self._device}

    def __eq__(self, other):
        return (isinstance(other, SingleDeviceSharding) and other._device == self._device)

    def __hash__(self):
        return hash(("SingleDeviceSharding", self._device))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r})"

    def __reduce__(self):
        return (SingleDeviceSharding, (self._device,))


_interned = {}   # device -> its SingleDeviceSharding (one object per device)


def placement_on(device):
    """The committed placement of ``device`` (a device object)."""
    sharding = _interned.get(device)
    return sharding if sharding is not None else SingleDeviceSharding(device)


def default_sharding():
    """The sharding an uncommitted Array reports: its data is on the default device."""
    return placement_on(backend.default_device())
