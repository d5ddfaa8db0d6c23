"""``Array``: minijax's array, resident on a device.

Its storage is a host ndarray (CPU, what NumPy kernels read) and/or a PjRt
buffer (what XLA executables read); each is made from the other on first need.
Arrays are immutable: in-place operators rebind an Array to a new value.
"""

import numpy as np

from .. import dtypes
from ..core.avals import ShapedArray
from . import xla_bridge


class Array:
    __slots__ = ("aval", "_host", "_buffer", "_device", "__weakref__")
    __array_priority__ = 100

    def __init__(self, *args, **kwargs):
        raise TypeError("create arrays with minijax.numpy.asarray/array, not Array(...)")

    @classmethod
    def _from_host(cls, host, aval, device=None):
        self = object.__new__(cls)
        self.aval = aval
        self._host = host
        self._buffer = None
        self._device = device
        return self

    @classmethod
    def _from_buffer(cls, buffer, aval, device):
        self = object.__new__(cls)
        self.aval = aval
        self._host = None
        self._buffer = buffer
        self._device = device
        return self

    # ------------------------------------------------------------ storage
    def _value(self):
        """The host ndarray (read-only)."""
        host = self._host
        if host is None:
            host = self._host = xla_bridge.to_host(self._buffer, self.aval.dtype)
        return host

    def _device_buffer(self, device):
        """The value as a PjRt buffer on ``device`` (kept when that is its home device)."""
        buf = self._buffer
        home = self._device if self._device is not None else xla_bridge.default_device()
        if buf is not None and home == device:
            return buf
        buf = xla_bridge.to_device(self._value(), device, self.aval)
        if home == device:
            self._buffer = buf
        return buf

    def _rebind(self, other):
        """Make this Array hold ``other``'s value (in-place update sugar)."""
        self.aval = other.aval
        self._host = other._host
        self._buffer = other._buffer
        self._device = other._device

    # ------------------------------------------------------------ attributes
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    @property
    def itemsize(self):
        return self.aval.dtype.itemsize

    @property
    def nbytes(self):
        return self.aval.size * self.aval.dtype.itemsize

    @property
    def device(self):
        return self._device if self._device is not None else xla_bridge.default_device()

    def devices(self):
        return {self.device}

    def committed(self):
        return self._device is not None

    def to_device(self, device, /, *, stream=None):
        from ..api import device_put   # deferred: api imports this module
        return device_put(self, device)

    def block_until_ready(self):
        if self._buffer is not None:
            self._buffer.block_until_ready()
        return self

    def is_ready(self):
        return self._buffer is None or self._buffer.is_ready()

    # ------------------------------------------------------------ conversions
    def __array__(self, dtype=None, copy=None):
        host = self._value()
        if host.flags.writeable and self._host is host:
            host.flags.writeable = False
        if copy:
            host = host.copy()
        return host if dtype is None else host.astype(dtype, copy=False)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        host = self._value()
        try:
            return host.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)
        except BufferError:
            # Read-only buffers cannot be exported to pre-1.0 DLPack consumers.
            return host.copy().__dlpack__(max_version=max_version, dl_device=dl_device)

    def __dlpack_device__(self):
        return (1, 0)   # kDLCPU

    def tolist(self):
        return self._value().tolist()

    def item(self, *args):
        return self._value().item(*args)

    def __bool__(self):
        return bool(self._value())

    def __int__(self):
        return int(self._value())

    def __float__(self):
        return float(self._value())

    def __complex__(self):
        return complex(self._value())

    def __index__(self):
        if not dtypes.is_integer(self.dtype) and self.dtype != np.bool_:
            raise TypeError(f"only integer arrays can be used as an index, got {self.dtype}")
        return self._value().__index__()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d array)")
        return self.shape[0]

    __hash__ = None

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value()[()], spec)
        return format(str(self), spec)

    def __repr__(self):
        host = self._value()
        extra = f", dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
        if host.size == 0:
            body = f"[], shape={host.shape}" if host.ndim != 1 else "[]"
        else:
            body = np.array2string(host, separator=", ", prefix="Array(")
        return f"Array({body}{extra})"

    def __str__(self):
        return str(self._value())

    def __reduce__(self):
        return (_rebuild, (np.array(self._value()), self.weak_type))

    def copy(self):
        return _rebuild(self._value(), self.weak_type)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()


def _rebuild(host, weak_type=False):
    host = np.array(host)
    return Array._from_host(host, ShapedArray(host.shape, host.dtype, weak_type))


def array_from_host(host, weak_type=False):
    """An Array holding a host ndarray of a supported dtype (not copied)."""
    return Array._from_host(host, ShapedArray(host.shape, host.dtype, weak_type))
