"""Where an Array lives: its placement.

An Array's placement is None while it is uncommitted (on the default device, free to
move; the eager NumPy path computes on it on the host), or a sharding once it is
committed to devices (``device_put`` with a device, results of committed inputs).
A sharded Array carries a ``NamedSharding`` in the same place and holds one jaxlib
multi-device array (one buffer per device of the mesh) as its device buffer.

A ``NamedSharding`` reaches XLA as an HLO sharding text (``hlo_text``: the
``mhlo.sharding`` spelling, which jaxlib's ``HloSharding.from_string`` also parses), whose
device numbers are positions in the mesh's flat device order: the order of every
multi-device array and SPMD program minijax makes for that mesh.
"""

import enum
import itertools
import math
import threading

import numpy as np

from .. import backend
from ..backend import _jaxlib
from ..errors import AxisTypeError, ShardingError
from .. import tree_util


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


# ---------------------------------------------------------------- meshes and specs

class PartitionSpec(tuple):
    """How each array dimension is split over mesh axes: one entry per leading
    dimension, each None (not split), a mesh axis name, or a tuple of names (split over
    their product, major first). Missing trailing entries mean None."""

    __slots__ = ()

    def __new__(cls, *entries):
        for e in entries:
            if not (e is None or isinstance(e, str) or (
                    isinstance(e, tuple) and all(isinstance(n, str) for n in e))):
                raise TypeError(f"PartitionSpec entries are None, a mesh axis name or a "
                                f"tuple of names; got {e!r}")
        return tuple.__new__(cls, entries)

    def __repr__(self):
        return f"P({', '.join(map(repr, self))})"

    def __reduce__(self):
        return (PartitionSpec, tuple(self))


_mesh_stack = threading.local()


class Mesh:
    """An n-dimensional array of devices with a name per axis (``with mesh:`` makes it
    the mesh that bare ``PartitionSpec``s refer to)."""

    def __init__(self, devices, axis_names, axis_types=None):
        devices = np.asarray(devices, dtype=object)
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        if devices.ndim != len(axis_names):
            raise ShardingError(f"Mesh: {len(axis_names)} axis names {axis_names} for a "
                                f"device array of {devices.ndim} dimensions {devices.shape}")
        if len(set(axis_names)) != len(axis_names):
            raise ShardingError(f"Mesh: axis names must be distinct, got {axis_names}")
        flat = tuple(devices.flat)
        if len({id(d) for d in flat}) != len(flat):
            raise ShardingError("Mesh: a device appears more than once in the device array")
        self.devices = devices
        self.axis_names = axis_names
        self.axis_types = _auto_axis_types(axis_types, len(axis_names))
        self._flat = flat

    @property
    def shape(self):
        return dict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self):
        return tuple(self.devices.shape)

    @property
    def size(self):
        return self.devices.size

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self):
        return [self._flat[i] for i in _local_positions(self)]

    def __eq__(self, other):
        return (isinstance(other, Mesh) and other.axis_names == self.axis_names
                and other.devices.shape == self.devices.shape and other._flat == self._flat)

    def __hash__(self):
        return hash((self.axis_names, self.devices.shape, self._flat))

    def __repr__(self):
        return (f"Mesh(axis_sizes={self.axis_sizes!r}, axis_names={self.axis_names!r}, "
                f"axis_types={self.axis_types!r})")

    def __str__(self):
        axes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.devices.shape))
        return f"Mesh({axes}, axis_types={self.axis_types!r})"

    def __enter__(self):
        stack = getattr(_mesh_stack, "meshes", None)
        if stack is None:
            stack = _mesh_stack.meshes = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _mesh_stack.meshes.pop()
        return False


class AxisType(enum.Enum):
    """How a mesh axis is sharded (JAX's members): ``Auto``, XLA's partitioner propagates
    shardings (the only one minijax runs); ``Explicit``, shardings are part of array
    types; ``Manual``, inside ``shard_map``."""

    Auto = 1
    Explicit = 2
    Manual = 3

    def __repr__(self):
        return self.name


def _auto_axis_types(axis_types, n):
    """Every mesh axis is ``AxisType.Auto`` (XLA's partitioner propagates shardings):
    other axis types are refused with a named error, never accepted and ignored."""
    if axis_types is None:
        return (AxisType.Auto,) * n
    types = tuple(axis_types) if isinstance(axis_types, (tuple, list)) else (axis_types,) * n
    out = []
    for t in types:
        name = t.name if isinstance(t, AxisType) else str(getattr(t, "name", t))
        if name.lower() != "auto":
            raise AxisTypeError(f"Mesh: axis type {name} is not supported; minijax's mesh "
                                f"axes are all AxisType.Auto (XLA's partitioner propagates "
                                f"shardings): pass axis_types=(AxisType.Auto,) * {n} or "
                                f"leave it out, and place values with device_put, "
                                f"jit(in_shardings=, out_shardings=) and "
                                f"lax.with_sharding_constraint")
        out.append(AxisType.Auto)
    if len(out) != n:
        raise ShardingError(f"Mesh: {len(out)} axis types for {n} axes")
    return tuple(out)


def current_mesh():
    """The mesh of the innermost ``with mesh:`` (None outside one)."""
    stack = getattr(_mesh_stack, "meshes", None)
    return stack[-1] if stack else None


def make_mesh(axis_shapes, axis_names, devices=None, *, axis_types=None):
    """A ``Mesh`` of shape ``axis_shapes`` over ``devices`` (all devices by default; their
    number must be the product of the shape). Its axes are ``AxisType.Auto`` (JAX 0.10.2's
    ``make_mesh`` defaults to ``Explicit``, which minijax does not run)."""
    axis_shapes = tuple(int(n) for n in axis_shapes)
    if devices is None:
        devices = backend.devices()
    devices = list(devices)
    if math.prod(axis_shapes) != len(devices):
        raise ShardingError(f"make_mesh: a mesh of shape {axis_shapes} needs "
                            f"{math.prod(axis_shapes)} devices, {len(devices)} were given "
                            f"(set the device count with config.update('cpu_device_count', "
                            f"N) or MINIJAX_CPU_DEVICE_COUNT before first use)")
    return Mesh(np.array(devices, dtype=object).reshape(axis_shapes), axis_names, axis_types)


# ---------------------------------------------------------------- NamedSharding

def _axes(entry):
    return () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)


class NamedSharding:
    """An array split over a ``Mesh`` as a ``PartitionSpec`` says (JAX's name and API)."""

    # (placement protocol of runtime/array.py: ``_device`` None (several devices),
    # ``_host_eager`` False: eager operations run as programs compiled for the mesh)
    _device = None
    _host_eager = False

    def __init__(self, mesh, spec=PartitionSpec(), *, memory_kind=None):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding: mesh must be a minijax.sharding.Mesh, got "
                            f"{type(mesh).__name__}")
        if memory_kind not in (None, "device"):
            raise NotImplementedError(f"NamedSharding: memory_kind={memory_kind!r} is not "
                                      f"supported; leave it None")
        if not isinstance(spec, PartitionSpec):
            if spec is None:
                spec = PartitionSpec()
            elif isinstance(spec, (tuple, list)):
                spec = PartitionSpec(*spec)
            else:
                raise TypeError(f"NamedSharding: spec must be a PartitionSpec, got {spec!r}")
        used = []
        for entry in spec:
            for name in _axes(entry):
                if name not in mesh.axis_names:
                    raise ShardingError(f"Resource axis: {name} of {spec!r} is not found in "
                                        f"mesh: {mesh.axis_names}.")
                if name in used:
                    raise ShardingError(f"A single NamedSharding spec specification can map "
                                        f"every mesh axis to at most one positional "
                                        f"dimension, but {spec!r} has duplicate entries for "
                                        f"`{name}`")
                used.append(name)
        self.mesh = mesh
        self.spec = spec
        self._used = used

    memory_kind = "device"

    @property
    def device_set(self):
        return set(self.mesh._flat)

    @property
    def _device_assignment(self):
        return self.mesh._flat

    @property
    def addressable_devices(self):
        return {self.mesh._flat[i] for i in _local_positions(self.mesh)}

    @property
    def num_devices(self):
        return self.mesh.size

    @property
    def is_fully_replicated(self):
        sizes = self.mesh.shape
        return all(sizes[n] == 1 for n in self._used)

    @property
    def is_fully_addressable(self):
        return len(_local_positions(self.mesh)) == self.mesh.size

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and other.mesh == self.mesh
                and other.spec == self.spec)

    def __hash__(self):
        return hash((self.mesh, self.spec))

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}, memory_kind=device)"

    def __reduce__(self):
        return (NamedSharding, (self.mesh, self.spec))

    # -- shapes and indices
    def _tiles(self, ndim):
        """Shards per dimension for an array of ``ndim`` dimensions."""
        if len(self.spec) > ndim:
            raise ShardingError(f"{self!r} has {len(self.spec)} entries, more than the "
                                f"{ndim} dimensions of the array it is given to")
        sizes = self.mesh.shape
        return [math.prod(sizes[n] for n in _axes(self.spec[d])) if d < len(self.spec) else 1
                for d in range(ndim)]

    def _check_shape(self, shape):
        tiles = self._tiles(len(shape))
        for d, (n, t) in enumerate(zip(shape, tiles)):
            if n % t:
                raise ShardingError(
                    f"Sharding {self!r} implies that array axis {d} is partitioned {t} "
                    f"times, but the dimension size is {n} (full shape: {tuple(shape)}, "
                    f"per-dimension tiling factors: {tiles} should evenly divide the shape)")
        return tiles

    def shard_shape(self, global_shape):
        """The shape of each shard of an array of ``global_shape``."""
        tiles = self._check_shape(global_shape)
        return tuple(n // t for n, t in zip(global_shape, tiles))

    def _indices(self, shape):
        """One index (a tuple of slices) per device, in the mesh's flat order."""
        shape = tuple(shape)
        key = (self, shape)
        out = _index_cache.get(key)
        if out is not None:
            return out
        tiles = self._check_shape(shape)
        names = self.mesh.axis_names
        sizes = self.mesh.devices.shape
        out = []
        for coords in itertools.product(*map(range, sizes)):
            at = dict(zip(names, coords))
            index = []
            for d, n in enumerate(shape):
                if tiles[d] == 1:
                    index.append(slice(None))
                    continue
                block = 0
                for name in _axes(self.spec[d]):
                    block = block * self.mesh.shape[name] + at[name]
                chunk = n // tiles[d]
                index.append(slice(block * chunk, (block + 1) * chunk))
            out.append(tuple(index))
        if len(_index_cache) > 1000:
            _index_cache.clear()
        _index_cache[key] = out
        return out

    def devices_indices_map(self, global_shape):
        """``{device: index}``: the part of an array of ``global_shape`` each device holds."""
        return dict(zip(self.mesh._flat, self._indices(global_shape)))

    def addressable_devices_indices_map(self, global_shape):
        """``{device: index}`` for this process's devices only."""
        indices = self._indices(global_shape)
        flat = self.mesh._flat
        return {flat[i]: indices[i] for i in _local_positions(self.mesh)}

    def hlo_text(self, ndim):
        """The HLO sharding text (``mhlo.sharding``) of an ``ndim``-dimensional array."""
        key = (self, ndim)
        text = _hlo_cache.get(key)
        if text is not None:
            return text
        tiles = self._tiles(ndim)
        names = self.mesh.axis_names
        sizes = self.mesh.shape
        if all(t == 1 for t in tiles):
            text = "{replicated}"
        else:
            order = [names.index(n) for d in range(min(ndim, len(self.spec)))
                     for n in _axes(self.spec[d])]
            rest = [i for i in range(len(names)) if i not in order]
            replicas = math.prod(sizes[names[i]] for i in rest)
            positions = np.arange(self.mesh.size).reshape(self.mesh.devices.shape)
            positions = positions.transpose(order + rest).ravel()
            dims = tiles + ([replicas] if replicas > 1 else [])
            text = (f"{{devices=[{','.join(map(str, dims))}]{','.join(map(str, positions))}"
                    + (" last_tile_dim_replicate}" if replicas > 1 else "}"))
        _hlo_cache[key] = text
        return text

    def _jaxlib_sharding(self, ndim):
        return _jaxlib.gspmd_sharding(self.mesh._flat, self.hlo_text(ndim))


_index_cache = {}
_hlo_cache = {}
_named_cache = {}


def named_from_hlo(mesh, text, ndim):
    """The ``NamedSharding`` on ``mesh`` whose HLO sharding is ``text`` (what XLA chose
    for a program's output), with trailing None entries dropped as JAX does; None when
    no spec on this mesh gives it."""
    key = (mesh, text, ndim)
    if key in _named_cache:
        return _named_cache[key]
    target = _jaxlib.xla_client.HloSharding.from_string(text)
    axes = [n for n, s in mesh.shape.items() if s > 1]
    found = None
    if target.is_replicated():
        found = NamedSharding(mesh, PartitionSpec())
    else:
        for assign in itertools.product(range(-1, ndim), repeat=len(axes)):
            groups = [[a for a, d in zip(axes, assign) if d == dim] for dim in range(ndim)]
            for orders in itertools.product(*[itertools.permutations(g) for g in groups]):
                entries = [None if not o else o[0] if len(o) == 1 else tuple(o)
                           for o in orders]
                while entries and entries[-1] is None:
                    entries.pop()
                candidate = NamedSharding(mesh, PartitionSpec(*entries))
                if _jaxlib.xla_client.HloSharding.from_string(
                        candidate.hlo_text(ndim)) == target:
                    found = candidate
                    break
            if found is not None:
                break
    _named_cache[key] = found
    return found


class Shard:
    """One device's piece of an Array: ``device``, ``index`` (into the global array),
    ``replica_id`` and ``data`` (an Array committed to that device)."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


def _index_key(index):
    return tuple((s.start, s.stop) for s in index)


def replica_ids(sharding, shape):
    """For each device (mesh order), how many earlier devices hold the same piece."""
    seen = {}
    out = []
    for index in sharding._indices(shape):
        k = _index_key(index)
        out.append(seen.get(k, 0))
        seen[k] = seen.get(k, 0) + 1
    return out


def _local_positions(mesh):
    """The positions in ``mesh``'s flat device order of this process's devices (all of
    them unless ``minijax.distributed`` joined several processes)."""
    positions = mesh.__dict__.get("_local")
    if positions is None:
        here = backend.process_index()
        positions = mesh._local = tuple(
            i for i, d in enumerate(mesh._flat) if getattr(d, "process_index", 0) == here)
    return positions


def put_sharded(host, sharding, aval):
    """A multi-device buffer holding the host ndarray ``host`` split as ``sharding``
    (only this process's pieces are placed: the others are other processes')."""
    indices = sharding._indices(host.shape)
    flat = sharding.mesh._flat
    local = _local_positions(sharding.mesh)
    return _jaxlib.put_sharded([np.array(host[indices[i]]) for i in local],
                               [flat[i] for i in local],
                               sharding._jaxlib_sharding(len(host.shape)), aval)


def put_local_pieces(pieces, sharding, aval):
    """A multi-device buffer of ``aval`` from ``pieces``: one host ndarray per device of
    this process, in the mesh's flat order (each of its shard's shape)."""
    flat = sharding.mesh._flat
    return _jaxlib.put_sharded(list(pieces), [flat[i] for i in _local_positions(sharding.mesh)],
                               sharding._jaxlib_sharding(len(aval.shape)), aval)


def local_pieces(buffer, sharding, aval):
    """``[(device, index, host ndarray)]``: this process's pieces of the multi-device
    ``buffer`` (read-only), in the mesh's flat order."""
    return _pieces_at(buffer, sharding, aval, _local_positions(sharding.mesh))


def _pieces_at(buffer, sharding, aval, positions):
    devices = sharding.mesh._flat
    indices = sharding._indices(aval.shape)
    out = []
    for i in positions:
        piece = buffer if len(devices) == 1 else _jaxlib.shard_buffer(
            buffer, devices, i, sharding.hlo_text(len(aval.shape)))
        host = backend.get_backend(backend.platform_of(devices[i])).to_host(piece, aval.dtype)
        out.append((devices[i], indices[i], host))
    return out


NOT_ADDRESSABLE = ("Fetching value for `minijax.Array` that spans non-addressable (non "
                   "process local) devices is not possible. You can use "
                   "`minijax.experimental.multihost_utils.process_allgather` to print the "
                   "global array or use `.addressable_shards` method of minijax.Array to "
                   "inspect the addressable (process local) shards.")


def gather(buffer, sharding, aval):
    """A read-only host ndarray of the multi-device ``buffer`` (one read per distinct
    shard; no JAX import). An Array split across processes cannot be read here (JAX's
    RuntimeError); a replicated one is read from this process's first shard."""
    out = np.empty(aval.shape, aval.dtype)
    devices = sharding.mesh._flat
    local = _local_positions(sharding.mesh)
    if len(local) != len(devices):
        if not local or not sharding.is_fully_replicated:
            raise RuntimeError(NOT_ADDRESSABLE)
        (_, _, host), = _pieces_at(buffer, sharding, aval, local[:1])
        return host
    done = set()
    for i, index in enumerate(sharding._indices(aval.shape)):
        k = _index_key(index)
        if k in done:
            continue
        done.add(k)
        piece = buffer if len(devices) == 1 else _jaxlib.shard_buffer(buffer, devices, i,
                                                                  sharding.hlo_text(len(aval.shape)))
        out[index] = backend.get_backend(backend.platform_of(devices[i])).to_host(
            piece, aval.dtype)
    out.flags.writeable = False
    return out


def _is_sharding_leaf(s):
    return s is None or isinstance(s, (NamedSharding, SingleDeviceSharding, PartitionSpec))


def shardings_per_leaf(shardings, tree, what):
    """One sharding (or None) per leaf of ``tree``: ``shardings`` is one sharding for all,
    or a pytree prefix of ``tree`` of them (JAX's ``in_shardings`` convention)."""
    try:
        return tree_util.prefix_per_leaf(shardings, tree, is_leaf=_is_sharding_leaf)
    except (ValueError, TypeError) as e:
        raise ShardingError(f"{what}: the shardings {shardings!r} are not a pytree prefix "
                            f"of the arguments ({e})") from None
