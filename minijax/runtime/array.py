"""``Array``: minijax's array, resident on a device.

Its storage is a host ndarray (CPU, what NumPy kernels read) and/or a PjRt
buffer (what XLA executables read); each is made from the other on first need. A 0-d
result of the eager NumPy path may hold the NumPy scalar NumPy returned (immutable, and
much cheaper to compute with than a 0-d ndarray); ``_value`` makes it an ndarray when
one is needed.

Mutation (DESIGN 5). An Array owns its host buffer and in-place operations write into
it (``_writable``). A host ndarray that is not writeable is one something else may
observe (exported through ``__array__``/DLPack, aliased by a device buffer, shared with
another Array, or seen by a transformation: ``_freeze``), and a write copies it first
(copy-on-write). A view Array (basic indexing, ``.T``, reshape, ...) holds a NumPy view
of its root Array's buffer and a link to the root, ``_view``: the root Array alone when
the view's ndarray has the root's ndarray as its NumPy ``.base`` (which then records the
buffer it was derived from), else a ``ViewLink`` (the root, the root's ndarray it was
derived from, and whether NumPy made the view read-only, as a broadcast); when the
root's buffer is replaced by a copy-on-write, the view is derived again at the same place
in the new buffer, so views and their base stay attached as in NumPy.
"""

import types
import warnings

import cython   # (compiled: directives only; uncompiled: Cython's pure-Python shadow)
import numpy as np
from numpy.lib.array_utils import byte_bounds

from ..config import config
from ..core.avals import ShapedArray
from ..core.trace import numpy_flag
from ..dtypes import SUPPORTED_DTYPES, canonicalize, is_non_numeric
from ..errors import NonNumericDtypeError
from ..traceback_util import warn_in_user_code
from .. import backend
from ..backend import HOST_DLPACK_TYPES  # noqa: F401  (re-exported for minijax.numpy)
from .sharding import (NamedSharding, SingleDeviceSharding, Shard, default_sharding, gather,
                       local_pieces, placement_on, put_sharded, replica_ids)


# NumPy 2.1 added DLPack 1.0 (``max_version``, ``dl_device``, ``copy``) to
# ``ndarray.__dlpack__`` and ``device``/``copy`` to ``numpy.from_dlpack``; 2.0 has neither.
_NUMPY_DLPACK_1 = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


def ndarray_from_dlpack(x, copy=None):
    """``numpy.from_dlpack(x, copy=copy)`` on every supported NumPy."""
    if _NUMPY_DLPACK_1:
        return np.from_dlpack(x, copy=copy)
    host = np.from_dlpack(x)
    return host.copy() if copy else host


_ndarray = np.ndarray
# a method's positional-only parameter not given (compiled, _ABSENT is a C variable;
# the other modules import NOT_GIVEN)
NOT_GIVEN = _ABSENT = object()

if not cython.compiled:
    # An ndarray's fields as the core reads them. Compiled, these are C functions reading
    # NumPy's array struct (array.pxd): an attribute lookup each costs about 100
    # instructions, as much as a small ufunc's loop.
    def ndarray_dtype(a):
        return a.dtype

    def ndarray_base(a):
        return a.base

    def ndarray_ndim(a):
        return a.ndim

    def ndarray_dim(a, i):
        return a.shape[i]

    def ndarray_writeable(a):
        return not _read_only(a)   # (the flag without a broadcast output's warning)

    def ndarray_contiguous(a):
        return a.flags.c_contiguous or a.flags.f_contiguous

    def ndarray_size(a):
        return a.size

    def ndarray_is_complex(a):
        return a.dtype.kind == "c"

    def ndarray_bounds_overlap(a, b):
        return np.may_share_memory(a, b)

    # NumPy's view makers, as its methods called without arguments (or a shape) make
    # them (compiled: NumPy's C API)
    def ndarray_transposed(a):
        return a.transpose()

    def ndarray_raveled(a):
        return a.ravel()

    def ndarray_squeezed(a):
        return a.squeeze()

    def ndarray_diagonal(a):
        return a.diagonal()

    def ndarray_item(a):
        return a.item()

    def ndarray_reshaped(a, shape):
        return a.reshape(shape)

    def ndarray_row(a, i):
        return a[i]

    def ndarray_at(a, idx):
        return NotImplemented   # (compiled: an element or row read straight from the struct)

    def ndarray_writeable_alias(a):
        return _ndarray_at(a, 0, a, writeable=True)

    def call_with_keywords(fn, a, b, c, n, kwargs):
        """``fn(a, b, c, **kwargs)`` of its first ``n`` + 1 positional arguments
        (compiled: a vectorcall, without the copy of ``kwargs`` that ``**`` makes)."""
        return fn(a, **kwargs) if n == 0 else fn(a, b, **kwargs) if n == 1 else \
            fn(a, b, c, **kwargs)

    def import_numpy_c_api():
        pass

    bound_method = types.MethodType   # (compiled: CPython's PyMethod_New)

    def set_class_attribute(cls, name, value):
        setattr(cls, name, value)   # (compiled: written into the C type's dict)
_interned = {}
import_numpy_c_api()


def shaped_array(shape, dtype):
    """The (strong) ``ShapedArray`` of ``shape`` and ``dtype``, one object per pair while
    the table is not full: the eager caches key on avals by identity."""
    key = (shape, dtype)
    aval = _interned.get(key)
    if aval is None:
        if is_non_numeric(dtype):
            # (an eager Array may hold one, DESIGN 3; asking for its aval means a
            # transformation, a device or lax is about to use it)
            raise NonNumericDtypeError(dtype)
        if len(_interned) > 10_000:
            _interned.clear()
        aval = _interned[key] = ShapedArray(shape, dtype)
    return aval


def _not_installed(*args):
    raise RuntimeError("minijax.numpy is not imported: Array operators are installed by it")


class _InstalledMethod:
    """A method of ``Array`` that ``set_method`` installs: its place in the class body
    (until installed, and for a callable that does not bind as a function does), bound
    to the Array it is read from."""
    __slots__ = ("fn",)

    def __init__(self, fn=_not_installed):
        self.fn = fn

    def __get__(self, obj, objtype):
        return self.fn if obj is None else bound_method(self.fn, obj)


# An Array cannot be part of a reference cycle (it refers to ndarrays, buffers,
# shardings and its root Array, none of which refer back): no GC tracking. Freed Arrays
# are kept for reuse (eager loops make and drop one per operation). Cython reads these
# class directives from the .py only.
@cython.final
@cython.no_gc
@cython.freelist(64)
@cython.cclass
class Array:
    """minijax's array (see the module docstring). A C type when built (``array.pxd``):
    its fields, storage and conversions and the eager fast path of its operators are
    here; the methods ``minijax.numpy`` defines are installed with ``set_method``."""
    # ``_aval`` None: the aval is that of ``_host`` (strong), made on first use; the
    # eager NumPy path creates Arrays this way, as most of them are never asked.
    # ``_placement``: None while uncommitted, else a sharding (runtime/sharding.py).
    __slots__ = ("_aval", "_host", "_buffer", "_placement", "_view", "__weakref__")
    __array_priority__ = 100

    def __init__(self, *args, **kwargs):
        raise TypeError("create arrays with minijax.numpy.asarray/array, not Array(...)")

    # ------------------------------------------------------------ storage
    def _value(self):
        """The host ndarray (read it; write only through ``_writable``)."""
        return _current_host(self)

    def _root(self):
        view = self._view
        return self if view is None else _view_root(view)

    def _freeze(self):
        """Mark the buffer as observed: the next write through any Array copies it."""
        root = self if self._view is None else _view_root(self._view)
        if type(root._host) is _ndarray:   # (a NumPy scalar is immutable already)
            root._host.flags.writeable = False

    def _writable(self):
        """The host ndarray, safe to write into (copied first if it may be observed)."""
        view = self._view
        if view is None:
            host = self._value()
            if not host.flags.writeable:
                host = _copy_same_layout(host)
            self._host = host   # (a NumPy scalar written into becomes a 0-d ndarray)
            self._buffer = None
            return host
        _view_root(view)._writable()
        host = self._value()
        if _read_only(host):
            raise ValueError("assignment destination is read-only")
        if _read_only_link(view) and _warns_on_write(host):
            # an np.broadcast_arrays output: NumPy's one DeprecationWarning, at the user's
            # line (NumPy's own would point into minijax), then the write is silent
            warn_in_user_code(_BROADCAST_WRITE_WARNING, DeprecationWarning)
            host.flags.writeable = True
        self._buffer = None
        return host

    def _derive_again(self):
        # The root's buffer was replaced (copy-on-write): this view's ndarray is made at
        # the same byte offset and strides in the new buffer.
        view = self._view
        root = _view_root(view)
        host = self._host
        old_root = _view_snapshot(view, host)
        new_root = root._value()
        lo, hi = byte_bounds(old_root)
        vlo, vhi = byte_bounds(host)
        if (new_root.dtype != old_root.dtype or new_root.shape != old_root.shape
                or new_root.strides != old_root.strides or vlo < lo or vhi > hi):
            self._view = None   # no longer inside the root's buffer: detach
            return host
        offset = host.ctypes.data - old_root.ctypes.data
        # a view NumPy made read-only (a broadcast, sliding windows) stays read-only
        read_only = _read_only_link(view) or _overlapping(host)
        host = self._host = _ndarray_at(new_root, offset, host)
        if read_only:
            host.flags.writeable = False
        self._view = (view_link(root, new_root, True) if read_only
                      else _link(root, new_root, host))
        self._buffer = None
        return host

    def _assign(self, other):
        """Write ``other``'s value into this Array's buffer (in-place update)."""
        value = other._value() if type(other) is Array else np.asarray(other)
        if value.shape != self.shape:
            raise ValueError(f"could not assign a value of shape {value.shape} to an array "
                             f"of shape {self.shape}")
        self._writable()[...] = value

    def _device_buffer(self, device):
        """The value as a PjRt buffer on ``device`` (kept when that is its home device)."""
        buf = self._buffer
        placement = self._placement
        home = backend.default_device() if placement is None else placement._device
        if buf is not None and home == device:
            return buf
        host = self._value()
        if host.flags.writeable:
            self._freeze()   # the device buffer may alias the host memory
        buf = backend.to_device(host, device, self.aval)
        if home == device:
            self._buffer = buf
        return buf

    def _rebind(self, other):
        """Make this Array hold ``other``'s value; both then share it copy-on-write."""
        other._freeze()
        host = other._host if other._view is None else other._value()
        if type(host) is _ndarray:
            host.flags.writeable = False   # a view's own ndarray too, as in __array__
        self._aval = other._aval   # (None: made from the host when asked, as other's)
        self._host = host
        self._buffer = other._buffer
        self._placement = other._placement
        self._view = None   # a snapshot: it keeps these values when the base is written

    def _replace_storage(self, other):
        """Make this Array hold ``other``'s value (the write-back of a transformed
        function's in-place update): an owned buffer takes ``other``'s device buffer (no
        copy) or, resized, its value; a view is written into its root's buffer."""
        host = self._host
        if (self._view is None and other._aval == self.aval and other._host is None
                and (type(host) is not _ndarray or host.flags.c_contiguous)):
            # this Array's views are derived again from the new buffer (same layout),
            # and a later write copies it first, as the buffer read back is read-only
            self._host = None
            self._buffer = other._buffer
            self._placement = other._placement
        elif self._view is None and other.shape != self.shape:
            self._rebind(other)   # (resized in place, as eagerly)
        else:
            self._assign(other)   # a view (or an unusual layout): into the root's buffer

    def _on_host(self):
        """Whether the eager NumPy path may compute on this Array's host buffer:
        uncommitted, or committed to a CPU device (results keep the placement)."""
        placement = self._placement
        return placement is None or placement._host_eager

    def _index_result(self, r, host, aval=None):
        """The Array holding ``r``, the result of indexing ``host`` (this Array's current
        ndarray): a view Array of this Array's root when ``r`` shares its memory, with
        this Array's placement; ``aval`` None: made from ``r`` when asked."""
        out = view_result(self, host, r, self._placement)
        out._aval = aval
        return out

    def _same_placement(self, other):
        """Raise the named error when ``other`` (an Array) is committed elsewhere."""
        placement = other._placement
        if placement is not None and self._placement is not None \
                and placement != self._placement:
            raise ValueError(f"arrays committed to different devices "
                             f"({self._placement._device} and {placement._device}) were "
                             f"combined; move them with minijax.device_put first")

    def _is_view(self):
        """Whether this Array shares its root's buffer (basic indexing, ``.T``, ...)."""
        return self._view is not None

    def _view_is_read_only(self):
        """Whether this view Array cannot be written (NumPy made it read-only, or its
        elements overlap); False for an Array owning its buffer."""
        view = self._view
        if view is None:
            return False
        if _read_only_link(view):
            return True    # a view NumPy made read-only (a broadcast)
        host = self._value()
        if host.flags.writeable:
            return False
        # read-only because NumPy made it so (its root is writable), or overlapping
        return _view_root(view)._value().flags.writeable or _overlapping(host)

    def _make_view_of(self, root, writeable=True):
        """Mark this Array (whose host ndarray is a NumPy view into ``root``'s buffer) as
        a view of ``root``; ``writeable=False``: a view NumPy made read-only."""
        root = root._root()
        root_host = root._value()
        self._view = (_link(root, root_host, self._host) if writeable
                      else view_link(root, root_host, True))

    def _host_scalar(self):
        """The NumPy scalar a 0-d eager result holds (NumPy gave a scalar), else None."""
        host = self._host
        return host if isinstance(host, np.generic) and self._view is None else None

    def _has_host_ndarray(self):
        """Whether this Array holds a host ndarray (its own or a view's; not a NumPy
        scalar, not only a device buffer)."""
        return type(self._host) is _ndarray

    # ------------------------------------------------------------ attributes
    @property
    def aval(self):
        aval = self._aval
        if aval is None:
            host = self._host
            aval = self._aval = shaped_array(host.shape, host.dtype)
        return aval

    @aval.setter
    def aval(self, aval):
        self._aval = aval

    @property
    def shape(self):
        aval = self._aval
        return self._host.shape if aval is None else aval.shape

    @property
    def dtype(self):
        aval = self._aval
        return self._host.dtype if aval is None else aval.dtype

    @property
    def ndim(self):
        aval = self._aval
        return self._host.ndim if aval is None else len(aval.shape)

    @property
    def size(self):
        aval = self._aval
        return self._host.size if aval is None else aval.size

    @property
    def weak_type(self):
        aval = self._aval
        return False if aval is None else aval.weak_type

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def sharding(self):
        """Where the data lives: a ``SingleDeviceSharding`` (the default device's while
        uncommitted)."""
        placement = self._placement
        return default_sharding() if placement is None else placement

    @property
    def device(self):
        placement = self._placement
        if placement is None:
            return backend.default_device()
        if placement._device is None:
            raise ValueError(f"Length of devices is greater than 1 (this Array is sharded "
                             f"over {placement.num_devices} devices). Please use "
                             f"`.devices()`.")
        return placement._device

    @property
    def is_fully_replicated(self):
        return self.sharding.is_fully_replicated

    @property
    def is_fully_addressable(self):
        return self.sharding.is_fully_addressable

    @property
    def addressable_shards(self):
        """One ``Shard`` per device of this process holding part of this Array."""
        sharding = self.sharding
        if not isinstance(sharding, NamedSharding):
            return [Shard(self.device, tuple(slice(None) for _ in self.shape), 0,
                          self if self._placement is not None else self._put(sharding))]
        replicas = replica_ids(sharding, self.shape)
        position = {d: i for i, d in enumerate(sharding.mesh._flat)}
        if self._buffer is not None:   # (read from the devices: another process's
            pieces = local_pieces(self._buffer, sharding, self.aval)   # are not here)
        else:   # (updated in place on the host: one process)
            host = self._value()
            indices = sharding._indices(self.shape)
            pieces = zip(sharding.mesh._flat, indices, (host[index] for index in indices))
        return [Shard(device, index, replicas[position[device]],
                      _make(None, np.array(piece), None, placement_on(device)))
                for device, index, piece in pieces]

    @property
    def global_shards(self):
        """One ``Shard`` per device holding part of this Array; those of other processes
        have no data (None)."""
        shards = self.addressable_shards
        sharding = self.sharding
        if not isinstance(sharding, NamedSharding) or sharding.is_fully_addressable:
            return shards
        mine = {s.device: s for s in shards}
        return [mine.get(device) or Shard(device, index, replica, None)
                for device, index, replica in zip(sharding.mesh._flat,
                                                  sharding._indices(self.shape),
                                                  replica_ids(sharding, self.shape))]

    def devices(self):
        return self.sharding.device_set

    def committed(self):
        return self._placement is not None

    def to_device(self, device, /, *, stream=None):
        """A copy of this array on ``device`` (a device object, such as ``x.device`` or
        one of ``minijax.devices()``, a ``SingleDeviceSharding``, or ``"cpu"``);
        ``stream`` is not supported."""
        if stream is not None:
            raise ValueError("to_device: the stream argument is not supported (minijax "
                             "copies on the host client's default stream); leave it None")
        return self._put(resolve_placement(device, "to_device"))

    def _put(self, placement, what="to_device"):
        """A new Array of this value committed to ``placement`` (the placement move
        behind ``device_put`` and ``to_device``)."""
        device = placement._device
        try:
            aval = self.aval
        except NonNumericDtypeError as e:
            raise e.named(f"{what} to {device or placement}") from None
        if device is None:   # a NamedSharding: one piece per device of its mesh
            if placement == self._placement:
                return self
            return _make(aval, None, put_sharded(self._value(), placement, aval), placement)
        return _make(aval, None, self._device_buffer(device), placement)

    @cython.binding(False)   # (a method descriptor: the interpreter's fast call)
    def block_until_ready(self):
        if self._buffer is not None:
            self._buffer.block_until_ready()
        return self

    def is_ready(self):
        return self._buffer is None or self._buffer.is_ready()

    # ------------------------------------------------------------ conversions
    @property
    def base(self):
        """The Array whose buffer this view shares (None if it owns its buffer)."""
        view = self._view
        return None if view is None else _view_root(view)

    def __array__(self, dtype=None, copy=None):
        host = self._host
        if type(host) is not _ndarray or self._view is not None:
            host = self._value()
        if copy or (dtype is not None and np.dtype(dtype) != host.dtype):
            # a new ndarray (numpy.array(x), a dtype change): nothing is exported
            return host.copy() if dtype is None else host.astype(dtype)
        if ndarray_writeable(host):   # (the flag itself: no broadcast warning)
            self._freeze()
            host.flags.writeable = False
        return host

    def _device_resident(self):
        """The device this Array lives on when that is not host memory (committed to it,
        or an uncommitted result held only on a non-host default device), else None."""
        placement = self._placement
        if placement is not None:
            return None if placement._host_eager else placement._device
        buf = self._buffer
        if self._host is None and buf is not None:
            device = backend.default_device()
            return None if backend.reads_host_memory(device) else device
        return None

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        device = self._device_resident()
        if device is not None and (dl_device is None
                                   or tuple(dl_device) == backend.dlpack_device(device)):
            # the device buffer itself (a GPU consumer takes it without a copy); the
            # consumer's stream waits for it
            buf = self._device_buffer(device)
            if copy:
                buf = backend.copy_buffer(buf, device)
            return backend.dlpack_export(buf, stream)
        host = self.__array__()
        if not _NUMPY_DLPACK_1:
            # NumPy 2.0 exports DLPack 0.x only, which cannot mark a buffer read-only
            return (host.copy() if copy or not host.flags.writeable else host).__dlpack__()
        try:
            return host.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)
        except BufferError:
            # Read-only buffers cannot be exported to pre-1.0 DLPack consumers.
            return host.copy().__dlpack__(max_version=max_version, dl_device=dl_device)

    def __dlpack_device__(self):
        """DLPack's ``(device type, index)``: ``(kDLCPU, 0)`` for host memory (a CPU
        device), ``(kDLCUDA, id)`` for an Array on a GPU."""
        return backend.dlpack_device(self._device_resident())

    # The conversions read the host buffer directly when this Array owns it (the
    # common case; ``_value`` otherwise): they are the scalar reads of eager loops.
    def tolist(self):
        host = self._host
        if host is None or self._view is not None:
            host = self._value()
        return host.tolist()

    @cython.binding(False)
    def item(self, *args):
        host = self._host
        if host is None or self._view is not None:
            host = self._value()
        elif not args and type(host) is _ndarray:
            return ndarray_item(host)
        return host.item(*args)

    def __bool__(self):
        host = self._host
        if host is None or self._view is not None:
            host = self._value()
        return bool(host)

    def __int__(self):
        host = self._host
        if host is None or self._view is not None:
            host = self._value()
        return int(host)

    def __float__(self):
        host = self._host
        if host is None or self._view is not None:
            host = self._value()
        return float(host)

    def __complex__(self):
        return complex(self._value())

    def __index__(self):
        kind = self.dtype.kind
        if kind != "i" and kind != "u" and kind != "b":
            raise TypeError(f"only integer arrays can be used as an index, got {self.dtype}")
        host = self._host
        if host is None or self._view is not None:
            host = self._value()
        return host.__index__()

    def __len__(self):
        aval = self._aval
        host = self._host
        if aval is not None:
            shape = aval.shape
        elif type(host) is _ndarray:   # (NumPy's struct: no shape tuple)
            if ndarray_ndim(host):
                return ndarray_dim(host, 0)
            shape = ()
        else:
            shape = host.shape
        if not shape:
            raise TypeError("len() of unsized object (a 0-d array)")
        return shape[0]

    def __contains__(self, value):
        return contains(self, value)

    def __hash__(self):
        # A 0-d result that NumPy gives as a scalar (its host is NumPy's scalar) hashes as
        # that scalar does; arrays, as NumPy's, are mutable and unhashable.
        host = self._host
        if isinstance(host, np.generic) and self._view is None:
            return hash(host)
        raise TypeError("unhashable type: 'minijax.Array' (an array is mutable; only 0-d "
                        "results that NumPy gives as scalars hash). For a hashable value "
                        "use x.item() for one element or tuple(x.tolist()) for an array.")

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value()[()], spec)
        return format(str(self), spec)

    def __repr__(self):
        return array_repr(self)

    def __str__(self):
        return str(self._value())

    def __reduce__(self):
        return (_rebuild, (np.array(self._value()), self.weak_type))

    def copy(self, order="C"):
        """A copy in memory ``order`` (as ``numpy.ndarray.copy``)."""
        aval = self._aval
        if aval is None and self._view is None and self._host is not None:
            # an eager Array of a strong type
            host = self._host
            if type(host) is _ndarray:
                host = host.copy(order)
            elif order != "C":
                _ndarray.copy(_NO_ELEMENTS, order)   # (NumPy's check of order)
            return _make(None, host, None, self._placement)
        host = self._value().copy(order)
        return _make(ShapedArray(host.shape, host.dtype, self.weak_type), host, None,
                     self._placement)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ------------------------------------------------------------ operators
    # Each operator runs its common eager case here (see ``_binary``) and every other
    # case through its complete implementation, installed by minijax.numpy
    # (``set_method``: the wrappers of runtime/numpy_dispatch.py over the lax
    # definitions).
    def __add__(self, other):
        return _binary(self, other, _ADD)

    def __radd__(self, other):
        return _binary(self, other, _RADD)

    def __sub__(self, other):
        return _binary(self, other, _SUB)

    def __rsub__(self, other):
        return _binary(self, other, _RSUB)

    def __mul__(self, other):
        return _binary(self, other, _MUL)

    def __rmul__(self, other):
        return _binary(self, other, _RMUL)

    def __truediv__(self, other):
        return _binary(self, other, _TRUEDIV)

    def __rtruediv__(self, other):
        return _binary(self, other, _RTRUEDIV)

    def __floordiv__(self, other):
        return _binary(self, other, _FLOORDIV)

    def __rfloordiv__(self, other):
        return _binary(self, other, _RFLOORDIV)

    def __mod__(self, other):
        return _binary(self, other, _MOD)

    def __rmod__(self, other):
        return _binary(self, other, _RMOD)

    def __divmod__(self, other):
        return _binary(self, other, _DIVMOD)

    def __rdivmod__(self, other):
        return _binary(self, other, _RDIVMOD)

    def __matmul__(self, other):
        return _binary(self, other, _MATMUL)

    def __rmatmul__(self, other):
        return _binary(self, other, _RMATMUL)

    def __and__(self, other):
        return _binary(self, other, _AND)

    def __rand__(self, other):
        return _binary(self, other, _RAND)

    def __or__(self, other):
        return _binary(self, other, _OR)

    def __ror__(self, other):
        return _binary(self, other, _ROR)

    def __xor__(self, other):
        return _binary(self, other, _XOR)

    def __rxor__(self, other):
        return _binary(self, other, _RXOR)

    def __lshift__(self, other):
        return _binary(self, other, _LSHIFT)

    def __rlshift__(self, other):
        return _binary(self, other, _RLSHIFT)

    def __rshift__(self, other):
        return _binary(self, other, _RSHIFT)

    def __rrshift__(self, other):
        return _binary(self, other, _RRSHIFT)

    def __lt__(self, other):
        return _binary(self, other, _LT)

    def __le__(self, other):
        return _binary(self, other, _LE)

    def __gt__(self, other):
        return _binary(self, other, _GT)

    def __ge__(self, other):
        return _binary(self, other, _GE)

    def __eq__(self, other):
        return _binary(self, other, _EQ)

    def __ne__(self, other):
        return _binary(self, other, _NE)

    def __pow__(self, other, mod=None):
        if mod is not None:
            return NotImplemented   # (as ndarray: three-argument pow is not supported)
        return _binary(self, other, _POW)

    def __rpow__(self, other, mod=None):
        if mod is not None:
            return NotImplemented
        return _binary(self, other, _RPOW)

    def __neg__(self):
        return _unary(self, _NEG)

    def __pos__(self):
        return _unary(self, _POS)

    def __abs__(self):
        return _unary(self, _ABS)

    def __invert__(self):
        return _unary(self, _INVERT)

    def __iadd__(self, other):
        return _inplace(self, other, _IADD)

    def __isub__(self, other):
        return _inplace(self, other, _ISUB)

    def __imul__(self, other):
        return _inplace(self, other, _IMUL)

    def __itruediv__(self, other):
        return _inplace(self, other, _ITRUEDIV)

    def __ifloordiv__(self, other):
        return _inplace(self, other, _IFLOORDIV)

    def __imod__(self, other):
        return _inplace(self, other, _IMOD)

    def __ipow__(self, other):
        return _inplace(self, other, _IPOW)

    def __iand__(self, other):
        return _inplace(self, other, _IAND)

    def __ior__(self, other):
        return _inplace(self, other, _IOR)

    def __ixor__(self, other):
        return _inplace(self, other, _IXOR)

    def __ilshift__(self, other):
        return _inplace(self, other, _ILSHIFT)

    def __irshift__(self, other):
        return _inplace(self, other, _IRSHIFT)

    def __imatmul__(self, other):
        return _inplace(self, other, _IMATMUL)

    def __getitem__(self, idx):
        host = self._host
        if not (type(host) is _ndarray and self._view is None and self._aval is None
                and self._placement is None and numpy_flag[0]):   # (not a plain root)
            host = _indexable_host(self)
        if host is not None:
            r = ndarray_at(host, idx)
            if r is NotImplemented:
                hidx = _host_index(idx)
                if hidx is None:
                    return _complete[_GETITEM](self, idx)
                r = host[hidx]
            out = _result(self, host, r)
            if out is not None:
                return out
        return _complete[_GETITEM](self, idx)

    def __setitem__(self, idx, value):
        if _indexes_on_host(self):
            hidx = _host_index(idx)
            if hidx is not None:
                t = type(value)
                if t is float or t is int or t is bool or t is _ndarray:
                    hvalue = value
                else:
                    hvalue = _plain_operand(value) if t is Array else None
                if hvalue is not None:
                    host = direct_write_target(self)
                    if host is not None:
                        # write, and copy first only if NumPy refuses (a read-only
                        # buffer is one something else may observe, DESIGN 5)
                        try:
                            host[hidx] = hvalue
                            return
                        except ValueError:
                            if host.flags.writeable:
                                raise
                    self._writable()[hidx] = hvalue
                    return
        _complete[_SETITEM](self, idx, value)

    # ------------------------------------------------------------ common methods
    # As the operators: the common eager case here (``_method``: plain positional
    # arguments, as many as NumPy and minijax read alike, no keywords), every other
    # through the complete implementation (minijax.numpy's method wrappers). (NumPy's
    # third positional of sum and mean, second of max and min, is ``out``: minijax's is
    # keepdims.) The first arguments are positional-only parameters: a call with few
    # arguments passes them without an argument tuple (Cython's fast calling convention).
    # (``reshape``, ``ravel``, the reductions and the view methods name their parameters
    # as minijax's complete implementations do: no ``**kwargs`` dict to build on each
    # call; the view methods called without arguments go to NumPy's C API)
    @cython.binding(False)   # (a method descriptor: called without order, no dict)
    @cython.embedsignature.format("clinic")
    def reshape(self, *shape, order="C", copy=None):
        default_order = type(order) is str and order == "C"
        if default_order and copy is None and numpy_flag[0]:
            host = _plain_host(self)
            if type(host) is _ndarray and len(shape) > 0:
                s = shape[0] if len(shape) == 1 else shape
                if type(s) is int or type(s) is tuple and _plain_arg(s):
                    r = ndarray_reshaped(host, s)
                    if canonical_dtype(ndarray_dtype(r)):
                        return view_result(self, host, r, None)
        kwargs = {} if not default_order or copy is not None else _NO_KWARGS
        if not default_order:
            kwargs["order"] = order
        if copy is not None:
            kwargs["copy"] = copy
        n = len(shape)
        return _method(self, _RESHAPE, shape[0] if n else _ABSENT,
                       shape[1] if n > 1 else _ABSENT, shape[2:], kwargs, _ANY_NUMBER)

    def ravel(self, order=_ABSENT):
        if order is _ABSENT:
            return _view_method(self, _RAVEL)
        return _complete[_RAVEL](self, order)

    # (the reductions' positional parameters are in NumPy's order; the complete
    # implementation gets keepdims= and the other keywords given by name)
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None,
            where=None, promote_integers=True):
        if out is None and initial is None and where is None and promote_integers is True:
            return _reduction(self, _SUM, axis, dtype, keepdims)
        given = _given_keywords(out=out, initial=initial, where=where)
        if promote_integers is not True:   # (JAX's keyword: NumPy's method lacks it)
            given["promote_integers"] = promote_integers
        return _complete[_SUM](self, axis, dtype, keepdims=keepdims, **given)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
        if out is None and where is None:
            return _reduction(self, _MEAN, axis, dtype, keepdims)
        return _complete[_MEAN](self, axis, dtype, keepdims=keepdims,
                                **_given_keywords(out=out, where=where))

    def max(self, axis=None, out=None, keepdims=False, initial=None, where=None):
        if out is None and initial is None and where is None:
            return _reduction(self, _MAX, axis, None, keepdims)
        return _complete[_MAX](self, axis, keepdims=keepdims,
                               **_given_keywords(out=out, initial=initial, where=where))

    def min(self, axis=None, out=None, keepdims=False, initial=None, where=None):
        if out is None and initial is None and where is None:
            return _reduction(self, _MIN, axis, None, keepdims)
        return _complete[_MIN](self, axis, keepdims=keepdims,
                               **_given_keywords(out=out, initial=initial, where=where))

    def all(self, axis=None, out=None, keepdims=False, *, where=None):
        if out is None and where is None:
            return _reduction(self, _ALL, axis, None, keepdims)
        return _complete[_ALL](self, axis, out=out, keepdims=keepdims, where=where)

    def any(self, axis=None, out=None, keepdims=False, *, where=None):
        if out is None and where is None:
            return _reduction(self, _ANY, axis, None, keepdims)
        return _complete[_ANY](self, axis, out=out, keepdims=keepdims, where=where)

    def astype(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _ASTYPE, x0, x1, rest, kwargs, 1)

    def conj(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _CONJ, x0, x1, rest, kwargs, 0)

    def conjugate(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _CONJUGATE, x0, x1, rest, kwargs, 0)

    def cumprod(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _CUMPROD, x0, x1, rest, kwargs, 2)

    def cumsum(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _CUMSUM, x0, x1, rest, kwargs, 2)

    def flatten(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _FLATTEN, x0, x1, rest, kwargs, 1)

    def prod(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _PROD, x0, x1, rest, kwargs, 2)

    def squeeze(self, axis=None):
        if axis is None:
            return _view_method(self, _SQUEEZE)
        return _method(self, _SQUEEZE, axis, _ABSENT, (), _NO_KWARGS, 1)

    def std(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _STD, x0, x1, rest, kwargs, 2)

    def swapaxes(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _SWAPAXES, x0, x1, rest, kwargs, 2)

    @cython.binding(False)   # (a method descriptor: a call without axes builds no tuple)
    @cython.embedsignature.format("clinic")
    def transpose(self, *axes):
        n = len(axes)
        if n == 0:
            return _view_method(self, _TRANSPOSE_METHOD)
        return _method(self, _TRANSPOSE_METHOD, axes[0], axes[1] if n > 1 else _ABSENT,
                       axes[2:], _NO_KWARGS, _ANY_NUMBER)

    def var(self, x0=_ABSENT, x1=_ABSENT, /, *rest, **kwargs):
        return _method(self, _VAR, x0, x1, rest, kwargs, 2)

    def diagonal(self, offset=_ABSENT, axis1=_ABSENT, axis2=_ABSENT):
        if offset is _ABSENT and axis1 is _ABSENT and axis2 is _ABSENT:
            return _view_method(self, _DIAGONAL)
        return _method(self, _DIAGONAL, 0 if offset is _ABSENT else diagonal_offset(offset),
                       0 if axis1 is _ABSENT else axis1, (1 if axis2 is _ABSENT else axis2,),
                       _NO_KWARGS, 3)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        if out is None:
            return _reduction(self, _ARGMAX, axis, None, keepdims)
        return _complete[_ARGMAX](self, axis, out=out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        if out is None:
            return _reduction(self, _ARGMIN, axis, None, keepdims)
        return _complete[_ARGMIN](self, axis, out=out, keepdims=keepdims)

    def __delitem__(self, idx):
        raise ValueError("cannot delete array elements")

    # ------------------------------------------------------------ installed methods
    # The methods minijax.numpy defines (its wrappers over the lax definitions). A C
    # type's attributes are fixed when it is built, so each is a descriptor here that
    # binds what ``set_method`` installed; the special method ``__iter__`` (a C slot)
    # and the properties are stubs calling it.
    __array_namespace__ = _InstalledMethod()
    __array_ufunc__ = _InstalledMethod()
    __round__ = _InstalledMethod()
    argpartition = _InstalledMethod()
    argsort = _InstalledMethod()
    choose = _InstalledMethod()
    clip = _InstalledMethod()
    compress = _InstalledMethod()
    delete = _InstalledMethod()
    dot = _InstalledMethod()
    dump = _InstalledMethod()
    dumps = _InstalledMethod()
    fill = _InstalledMethod()
    is_deleted = _InstalledMethod()
    nonzero = _InstalledMethod()
    partition = _InstalledMethod()
    ptp = _InstalledMethod()
    put = _InstalledMethod()
    repeat = _InstalledMethod()
    resize = _InstalledMethod()
    round = _InstalledMethod()
    searchsorted = _InstalledMethod()
    sort = _InstalledMethod()
    take = _InstalledMethod()
    tobytes = _InstalledMethod()
    tofile = _InstalledMethod()
    trace = _InstalledMethod()
    view = _InstalledMethod()

    def __iter__(self):
        host = self._host
        if type(host) is _ndarray and ndarray_ndim(host):
            return _rows(self, ndarray_dim(host, 0))
        return _installed["__iter__"](self)

    @property
    def at(self):
        return _installed["at"](self)

    @property
    def imag(self):
        return _installed["imag"](self)

    @property
    def mT(self):
        return _installed["mT"](self)

    @property
    def flat(self):
        return _installed["flat"].fget(self)

    @flat.setter
    def flat(self, value):
        _installed["flat"].fset(self, value)

    @property
    def T(self):
        return _view_method(self, _TRANSPOSE)

    @property
    def real(self):
        if numpy_flag[0]:
            host = _plain_host(self)
            if type(host) is _ndarray and not ndarray_is_complex(host):
                return self   # (NumPy's ``.real`` of a real array is the array itself)
            if host is not None:
                out = _result(self, host, host.real)
                if out is not None:
                    return out
        return _complete[_REAL](self)


def contains(x, value):
    """``value in x`` of an Array or a tracer: whether an element equals ``value``
    (NumPy's ``(x == value).any()``; not the rows an iteration gives)."""
    equal = x == value
    return equal if type(equal) is bool else bool(equal.any())


_NO_ELEMENTS = np.empty(0)
_array_type = Array   # (typed in array.pxd: the constructor allocates without a lookup)


# ---------------------------------------------------------------- the operators' core
# The eager fast path of the operators (DESIGN 10): eager on NumPy, the Array
# uncommitted and strongly typed, the other operand a Python float or int or such an
# Array, the result an ndarray or NumPy scalar of a canonical dtype. Every other case
# takes the operator's complete implementation, ``_complete[code]``.

(_ADD, _RADD, _SUB, _RSUB, _MUL, _RMUL, _TRUEDIV, _RTRUEDIV, _FLOORDIV, _RFLOORDIV,
 _MOD, _RMOD, _DIVMOD, _RDIVMOD, _MATMUL, _RMATMUL, _AND, _RAND, _OR, _ROR, _XOR,
 _RXOR, _LSHIFT, _RLSHIFT, _RSHIFT, _RRSHIFT, _LT, _LE, _GT, _GE, _EQ, _NE, _POW,
 _RPOW, _NEG, _POS, _ABS, _INVERT, _IADD, _ISUB, _IMUL, _ITRUEDIV, _IFLOORDIV, _IMOD,
 _IPOW, _IAND, _IOR, _IXOR, _ILSHIFT, _IRSHIFT, _IMATMUL, _GETITEM, _SETITEM,
 _TRANSPOSE, _REAL, _RESHAPE, _RAVEL, _SUM, _MEAN, _MAX, _MIN, _ALL, _ANY, _ASTYPE, _CONJ,
 _CONJUGATE, _CUMPROD, _CUMSUM, _FLATTEN, _PROD, _SQUEEZE, _STD, _SWAPAXES, _TRANSPOSE_METHOD,
 _VAR, _DIAGONAL, _ARGMAX, _ARGMIN) = range(78)
OPERATORS = (
    '__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__',
    '__truediv__', '__rtruediv__', '__floordiv__', '__rfloordiv__', '__mod__',
    '__rmod__', '__divmod__', '__rdivmod__', '__matmul__', '__rmatmul__', '__and__',
    '__rand__', '__or__', '__ror__', '__xor__', '__rxor__', '__lshift__',
    '__rlshift__', '__rshift__', '__rrshift__', '__lt__', '__le__', '__gt__',
    '__ge__', '__eq__', '__ne__', '__pow__', '__rpow__', '__neg__', '__pos__',
    '__abs__', '__invert__', '__iadd__', '__isub__', '__imul__', '__itruediv__',
    '__ifloordiv__', '__imod__', '__ipow__', '__iand__', '__ior__', '__ixor__',
    '__ilshift__', '__irshift__', '__imatmul__', '__getitem__', '__setitem__', 'T',
    'real', 'reshape', 'ravel', 'sum', 'mean', 'max', 'min', 'all', 'any', 'astype',
    'conj', 'conjugate', 'cumprod', 'cumsum', 'flatten', 'prod', 'squeeze', 'std',
    'swapaxes', 'transpose', 'var', 'diagonal', 'argmax', 'argmin')


_complete = [_not_installed] * len(OPERATORS)


# Array's stubs calling what set_method installed (the other installed methods are
# _InstalledMethod descriptors, which hold it themselves)
_installed = dict.fromkeys(("__iter__", "at", "imag", "mT", "flat"), _not_installed)
_INSTALLABLE = frozenset(name for name, value in Array.__dict__.items()
                         if type(value) is _InstalledMethod)
_INSTALLED_WITH_SETTER = ("flat",)   # (a property: kept whole, the stub calls both)


def set_method(cls, name, fn):
    """``cls.name = fn`` (``fn`` a function or a property). On ``Array`` an operator the
    core runs (one of ``OPERATORS``) takes ``fn`` as its complete implementation, and
    any other name is one of its installed-method stubs (``Array`` is a C type)."""
    if cls is not Array:
        setattr(cls, name, fn)
        return
    if name not in OPERATORS and name not in _installed and name not in _INSTALLABLE:
        raise AttributeError(f"Array has no stub for {name!r}: add one to its class body "
                             f"(runtime/array.py)")
    if isinstance(fn, property) and name not in _INSTALLED_WITH_SETTER:
        fn = fn.fget
    method = Array.__dict__[name]
    if name in OPERATORS:
        _complete[OPERATORS.index(name)] = fn
    elif name in _INSTALLABLE:
        # a function goes into the class's dict itself: a method call then binds no
        # method object (CPython calls it with the Array as its first argument)
        set_class_attribute(Array, name, fn if hasattr(type(fn), "__get__")
                            else _InstalledMethod(fn))
        return
    else:
        _installed[name] = fn
    # the class body's method shows the signature and docstring of what it runs
    # (``inspect.signature`` follows ``__wrapped__``); slots and properties have none
    if type(method) is not property and hasattr(method, "__dict__"):
        target = getattr(fn, "__wrapped_lax__", fn)
        method.__wrapped__ = target
        method.__doc__ = getattr(target, "__doc__", None)


def get_method(cls, name):
    """What ``set_method(cls, name, ...)`` installed last (a property: its getter)."""
    if cls is Array:
        method = Array.__dict__.get(name)
        fn = (_complete[OPERATORS.index(name)] if name in OPERATORS
              else method.fn if type(method) is _InstalledMethod
              else method if name in _INSTALLABLE else _installed[name])
    else:
        fn = getattr(cls, name)
    return fn.fget if isinstance(fn, property) else fn


# Result dtypes kept as NumPy gives them (the supported dtypes the current mode stores);
# any other is converted (32-bit mode: narrowed) or rejected by ``dtypes.canonicalize``.
canonical_dtypes = _canonical_dtypes = set()
canonical_scalars = _canonical_scalars = set()   # their NumPy scalar types


# the last two found canonical: a loop uses one or two (floats, and the integers it
# indexes with)
_last_dtype = _last_scalar_type = _other_dtype = _other_scalar_type = None


def _refresh_canonical():
    global _last_dtype, _last_scalar_type, _other_dtype, _other_scalar_type
    canonical_dtypes.clear()
    canonical_dtypes.update(d for d in SUPPORTED_DTYPES if canonicalize(d) == d)
    canonical_scalars.clear()
    canonical_scalars.update(d.type for d in canonical_dtypes)
    _last_dtype = _last_scalar_type = _other_dtype = _other_scalar_type = None


def canonical_dtype(dtype):
    """Whether results of ``dtype`` are kept as NumPy gives them (``canonical_dtypes``)."""
    global _last_dtype, _other_dtype
    if dtype is _last_dtype or dtype is _other_dtype:
        return True
    if dtype in _canonical_dtypes:
        _other_dtype = _last_dtype
        _last_dtype = dtype
        return True
    return False


def canonical_scalar_type(t):
    """Whether ``t`` is the NumPy scalar type of a canonical dtype."""
    global _last_scalar_type, _other_scalar_type
    if t is _last_scalar_type or t is _other_scalar_type:
        return True
    if t in _canonical_scalars:
        _other_scalar_type = _last_scalar_type
        _last_scalar_type = t
        return True
    return False


_refresh_canonical()
config.on_update(lambda name: _refresh_canonical() if name == "enable_x64" else None)


def _current_host(self):
    """The host ndarray of ``self``, as ``self._value()`` (a C call in the core)."""
    host = self._host
    if type(host) is not _ndarray:
        if host is None:
            placement = self._placement
            host = self._host = (
                backend.to_host(self._buffer, self.aval.dtype)
                if placement is None or placement._device is not None
                else gather(self._buffer, placement, self.aval))   # a sharded Array
        else:   # a NumPy scalar (a 0-d result of the eager path) stays one: a reader
            return np.asarray(host)   # gets a fresh 0-d ndarray, as from NumPy's
    view = self._view
    if view is not None:
        # (_view_root and _view_snapshot, spelled out: this read is on every view's path)
        if type(view) is Array:
            root = view
            if root._host is not ndarray_base(host):
                host = self._derive_again()
        else:
            link = cython.cast(ViewLink, view)
            if link.root._host is not link.root_host:
                host = self._derive_again()
    return host


# A view's link to its root, when the root's ndarray is not the view's NumPy ``.base``
# (the root's ndarray is itself a view, as ``asarray`` of a NumPy array makes it). Like
# the Array, it cannot be part of a cycle: no GC tracking (a tuple here made the
# collector walk every live Array in a loop making views). Links never change once
# made, so the views of one root share one: the last one made is remembered (a borrowed
# reference, forgotten when the link is freed) and given again while it matches.
@cython.final
@cython.no_gc
@cython.freelist(64)
@cython.cclass
class ViewLink:
    """A view Array's link: its ``root`` Array, the ``root_host`` ndarray it was derived
    from, and whether NumPy made the view ``read_only`` (a broadcast)."""
    __slots__ = ("root", "root_host", "read_only")

    def __dealloc__(self):
        global _last_link
        if _last_link == cython.cast(cython.p_void, self):
            _last_link = cython.NULL


_last_link = cython.NULL


@cython.final
@cython.no_gc
@cython.freelist(8)
@cython.cclass
class _Rows:
    """``iter(x)`` of an Array held in host memory: ``x[0]``, ``x[1]``, ... read one at a
    time as ``Array.__getitem__`` reads them, as NumPy's iteration reads ``x[i]`` (a
    write into ``x`` during the loop shows in the rows read after it). While ``x``'s host
    ndarray stays the same object, every row views it the same way: the first row's link
    serves the rest, and while ``x`` (a root) keeps that ndarray and its aval, it stays
    one that indexes on the host."""
    __slots__ = ("array", "index", "length", "host", "link", "aval")

    def __iter__(self):
        return self

    def __next__(self):
        i: cython.Py_ssize_t = self.index
        if i >= self.length:
            raise StopIteration
        self.index = i + 1
        array = self.array
        host = array._host
        if (host is self.host and array._view is None and array._aval is self.aval
                and array._placement is None and numpy_flag[0]
                and i < ndarray_dim(host, 0)):
            return _view_holding(ndarray_row(host, i), self.link)
        host = _indexable_host(array)
        if host is not None and ndarray_ndim(host) and i < ndarray_dim(host, 0):
            if host is self.host and array._placement is None:
                return _view_holding(ndarray_row(host, i), self.link)
            row = _result(array, host, ndarray_row(host, i))
            if row is not None:
                if type(row) is Array and row._view is not None and row._placement is None:
                    self.host = host
                    self.link = row._view
                    self.aval = array._aval
                return row
        return array[i]

    def __length_hint__(self):
        return self.length - self.index


def _rows(array, length):
    rows = _Rows.__new__(_Rows)
    rows.array = array
    rows.index = 0
    rows.length = length
    rows.host = rows.link = rows.aval = None
    return rows


def view_link(root, root_host, read_only):
    """The ``ViewLink`` of ``root``, ``root_host`` and ``read_only``: the last one made
    when it matches (compiled), else a new one."""
    global _last_link
    if cython.compiled and _last_link != cython.NULL:
        last = cython.cast(ViewLink, _last_link)
        if last.root is root and last.root_host is root_host and last.read_only == read_only:
            return last
    link = ViewLink.__new__(ViewLink)
    link.root = root
    link.root_host = root_host
    link.read_only = read_only
    if cython.compiled:
        _last_link = cython.cast(cython.p_void, link)
    return link


def _link(root, root_host, host):
    """The ``_view`` of a view Array holding ``host``, a view of ``root_host`` (``root``'s
    current ndarray): ``root`` alone when ``host``'s NumPy ``.base`` is ``root_host``
    (NumPy keeps it there: nothing to allocate), else a ``ViewLink``."""
    return root if ndarray_base(host) is root_host else view_link(root, root_host, False)


def _view_root(view):
    """The root Array of a view link."""
    return view if type(view) is Array else cython.cast(ViewLink, view).root


def _view_snapshot(view, host):
    """The root's ndarray that the view holding ``host`` was derived from."""
    return ndarray_base(host) if type(view) is Array else cython.cast(ViewLink, view).root_host


def _read_only_link(view):
    """Whether a view link marks a view NumPy made read-only (a broadcast)."""
    return type(view) is not Array and cython.cast(ViewLink, view).read_only


def strong_host(self):
    """``self``'s host value (ndarray or NumPy scalar) when the fast path applies to it:
    uncommitted and strongly typed; else None."""
    if self._placement is not None:
        return None
    aval = self._aval
    if aval is not None and aval.weak_type:
        return None
    host = self._host
    if host is None or self._view is not None:
        host = _current_host(self)
    return host


def _plain_host(self):
    """``strong_host(self)``, answered inline for the plain Array (a host value and no
    other field) that the eager path makes."""
    host = self._host
    if (host is not None and self._aval is None and self._view is None
            and self._placement is None):
        return host
    return strong_host(self)


def _plain_operand(other):
    """The value NumPy takes for ``other`` on the fast path: a Python float or int as it
    is, a strongly typed uncommitted Array's host value; else None."""
    t = type(other)
    if t is float or t is int:
        return other
    if t is Array:
        return _plain_host(other)
    return None


def wait_for_arrays(seq, node_types):
    """Wait for each Array in the list or tuple ``seq`` and in the lists and tuples in
    it. False at the first item that may hold Arrays another way (a type in
    ``node_types``, the pytree node types, or a subclass of tuple such as a namedtuple):
    a pytree left to ``block_until_ready``'s tree walk. Any other item is a leaf with
    nothing to wait for."""
    for item in seq:
        t = type(item)
        if t is Array:
            arr = cython.cast(Array, item)
            if arr._buffer is not None:
                arr._buffer.block_until_ready()
        elif t is list or t is tuple:
            if not wait_for_arrays(item, node_types):
                return False
        elif item is not None and (t in node_types or isinstance(item, tuple)):
            return False
    return True


def view_result(self, host, r, placement):
    """The Array holding ``r`` (an ndarray of a canonical dtype computed from ``host``,
    ``self``'s current ndarray): a view Array of ``self``'s root when ``r`` views its
    buffer (NumPy's ``.base`` is the memory's owner: ``host`` or what ``host`` views);
    ``self`` itself when ``r`` is ``host``, as NumPy returns the array itself (``conj``
    of a real array, ``atleast_1d``, ``squeeze`` without a length-1 axis)."""
    if r is host:
        return self   # (NumPy returned its argument itself, as ``atleast_1d`` does)
    owner = ndarray_base(r)
    if owner is not None and (owner is host or type(host) is _ndarray
                              and owner is ndarray_base(host)):
        root = self if self._view is None else _view_root(self._view)
        root_host = root._host   # (_link, spelled out: owner is r's base)
        link = root if owner is root_host else view_link(root, root_host, False)
        if placement is None:
            return _view_holding(r, link)
        return _make(None, r, None, placement, link)
    return _holding(r) if placement is None else _make(None, r, None, placement, None)


def _result(self, host, r):
    """The Array holding ``r`` (NumPy's result on the fast path), or None where the
    complete implementation must decide (another dtype, another kind of result)."""
    placement = self._placement   # (committed to a CPU device: the same path)
    if type(r) is _ndarray:
        if canonical_dtype(ndarray_dtype(r)):
            return view_result(self, host, r, placement)
    elif canonical_scalar_type(type(r)):   # a 0-d result (an element): the NumPy scalar
        return _holding(r) if placement is None else _make(None, r, None, placement, None)
    return None


def _indexes_on_host(self):
    """Whether NumPy's indexing of ``self``'s host ndarray is minijax's: eager and
    ``host_indexing(self)``."""
    return numpy_flag[0] and host_indexing(self)


def host_indexing(self):
    """Whether NumPy's indexing of ``self``'s host ndarray is minijax's when eager: the
    Array in host memory (uncommitted or committed to a CPU device) and strongly typed."""
    placement = self._placement
    aval = self._aval
    return ((placement is None or placement._host_eager)
            and (aval is None or not aval.weak_type))


def _indexable_host(self):
    """``self``'s current host ndarray when ``_indexes_on_host(self)``, else None."""
    if not _indexes_on_host(self):
        return None
    host = self._host
    if type(host) is not _ndarray or self._view is not None:
        host = _current_host(self)
    return host


def _binary(self, other, code):
    if numpy_flag[0]:
        host = _plain_host(self)
        if host is not None:
            ho = _plain_operand(other)
            if ho is not None:
                r = _apply(code, host, ho)
                if type(r) is not _ndarray and canonical_scalar_type(type(r)):
                    return _holding(r)   # (the common case of _result, inline)
                if r is NotImplemented:
                    return r
                out = _result(self, host, r) if r is not _NO_FAST_PATH else None
                if out is not None:
                    return out
    return _complete[code](self, other)


def _apply(code, a, b):
    if code == _ADD:
        return a + b
    if code == _RADD:
        return b + a
    if code == _SUB:
        return a - b
    if code == _RSUB:
        return b - a
    if code == _MUL:
        return a * b
    if code == _RMUL:
        return b * a
    if code == _TRUEDIV:
        return a / b
    if code == _RTRUEDIV:
        return b / a
    if code == _MOD:
        return a % b
    if code == _RMOD:
        return b % a
    if code == _MATMUL:
        return a @ b
    if code == _AND:
        return a & b
    if code == _RAND:
        return b & a
    if code == _OR:
        return a | b
    if code == _ROR:
        return b | a
    if code == _XOR:
        return a ^ b
    if code == _RXOR:
        return b ^ a
    if code == _LSHIFT:
        return a << b
    if code == _RLSHIFT:
        return b << a
    if code == _RSHIFT:
        return a >> b
    if code == _RRSHIFT:
        return b >> a
    if code == _LT:
        return a < b
    if code == _LE:
        return a <= b
    if code == _GT:
        return a > b
    if code == _GE:
        return a >= b
    if code == _EQ:
        return a == b
    if code == _NE:
        return a != b
    if code == _POW:
        return a ** b
    if code == _RPOW:
        return b ** a
    # floor division (NumPy's answer needs a fix), divmod (a tuple), rmatmul
    return _NO_FAST_PATH


_NO_FAST_PATH = object()


def _unary(self, code):
    if numpy_flag[0]:
        host = _plain_host(self)
        if host is not None:
            out = _result(self, host, _apply_unary(code, host))
            if out is not None:
                return out
    return _complete[code](self)


def _apply_unary(code, a):
    if code == _NEG:
        return -a
    if code == _POS:
        return +a
    if code == _ABS:
        return abs(a)
    return ~a


def _inplace(self, other, code):
    host = self._host
    if numpy_flag[0] and code != _IFLOORDIV and type(host) is not _ndarray:
        # a 0-d result holding the NumPy scalar NumPy gave stands for that scalar, which
        # is immutable: ``s op= y`` rebinds ``s`` to ``s op y`` (``acc += x[i] * y[i]``)
        ho = (_plain_operand(other) if host is not None and self._view is None
              and _plain_host(self) is not None else None)
        if ho is not None and type(ho) is not _ndarray:
            r = _apply(_binary_of_inplace(code), host, ho)
            if type(r) is not _ndarray and canonical_scalar_type(type(r)):
                return _holding(r)   # (the common case of _result, inline)
            out = _result(self, host, r) if r is not _NO_FAST_PATH else None
            if out is not None:
                return out
    elif numpy_flag[0] and code != _IFLOORDIV:
        ho = _plain_operand(other)
        if (ho is not None and _plain_host(self) is not None
                and (type(ho) is not _ndarray or not ndarray_ndim(ho)
                     or ndarray_ndim(self._host))):
            # (a shaped operand into a 0-d Array rebinds it: the complete implementation)
            return ufunc_in_place(self, _INPLACE_UFUNCS[code - _IADD], ho)
    return _complete[code](self, other)


def ufunc_in_place(self, ufunc, operand):
    """``self op= operand`` as ``ufunc(host, operand, host)`` into ``self``'s buffer (the
    output positional, the casting the ufuncs' default "same_kind"): straight in while
    NumPy accepts, as ``__setitem__`` does, and copied first only if NumPy refuses
    because the buffer is read-only (observed, DESIGN 5). Returns ``self``."""
    host = direct_write_target(self)
    if host is not None:
        try:
            ufunc(host, operand, host)
            return self
        except ValueError:
            if host.flags.writeable:
                raise
    host = self._writable()
    ufunc(host, operand, host)
    return self


def _binary_of_inplace(code):
    """The code of the binary operator of the in-place operator ``code``."""
    if code == _IADD:
        return _ADD
    if code == _ISUB:
        return _SUB
    if code == _IMUL:
        return _MUL
    return _BINARY_OF_INPLACE[code - _IADD]


_BINARY_OF_INPLACE = (_ADD, _SUB, _MUL, _TRUEDIV, _FLOORDIV, _MOD, _POW, _AND, _OR, _XOR,
                      _LSHIFT, _RSHIFT, _MATMUL)
_INPLACE_UFUNCS = (np.add, np.subtract, np.multiply, np.true_divide, None, np.remainder,
                   np.power, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift,
                   np.right_shift, np.matmul)


def _plain_args(args):
    """Whether every argument of a method call is one NumPy takes as it is on the fast
    path (``_plain_arg``)."""
    for e in args:
        if not _plain_arg(e):
            return False
    return True


def _plain_arg(e):
    """An int, a tuple of ints, None, a string, a dtype or a scalar type."""
    t = type(e)
    if t is int or e is None or t is str:
        return True
    if t is tuple:
        for d in e:
            if type(d) is not int:
                return False
        return True
    return isinstance(e, type) or isinstance(e, _dtype_type)


_ANY_NUMBER = 1 << 30


def given(x0, x1, rest):
    """The positional arguments of a call to a method or wrapper whose first ones are
    positional-only parameters (``x0``, ``x1``; ``_ABSENT`` if not given) as a tuple."""
    if x0 is _ABSENT:
        return rest
    if x1 is _ABSENT:
        return (x0,) + rest if rest else (x0,)   # (a starred tuple is built as a list)
    return (x0, x1) + rest if rest else (x0, x1)


def _method(self, code, x0, x1, rest, kwargs, most):
    """A common method: its fast path where the arguments allow it (plain, ``most``
    positional at most, no keywords), else its complete implementation."""
    if numpy_flag[0] and (not kwargs or _plain_keywords(code, kwargs)):
        if x0 is _ABSENT:
            out = _method_result(self, code, 0, x0, x1, rest, kwargs)
        elif x1 is _ABSENT:
            out = (_method_result(self, code, 1, x0, x1, rest, kwargs)
                   if most >= 1 and _plain_arg(x0) else None)
        else:
            out = (_method_result(self, code, 2 + len(rest), x0, x1, rest, kwargs)
                   if 2 + len(rest) <= most and _plain_arg(x0) and _plain_arg(x1)
                   and _plain_args(rest) else None)
        if out is not None:
            return out
    fn = _complete[code]
    if kwargs or rest or x1 is not _ABSENT:
        return fn(self, *given(x0, x1, rest), **kwargs)
    return fn(self) if x0 is _ABSENT else fn(self, x0)


def _plain_keywords(code, kwargs):
    """Whether every keyword argument of a common method means to NumPy's method what it
    means to minijax's (``axis=``, ``keepdims=``, ...), with a value NumPy takes as it is."""
    names = _METHOD_KEYWORDS[code - _RESHAPE]
    for k, v in kwargs.items():
        if k not in names or not (v is True or v is False or _plain_arg(v)):
            return False
    return True


_NO_KEYWORDS = frozenset()
# the keywords each common method (OPERATORS from ``reshape`` on) takes on the fast path;
# the methods that name their parameters (_NAMED) never hand this table a keyword
_NAMED = _NO_KEYWORDS
_SCAN_KEYWORDS = frozenset({"axis", "dtype"})
_REDUCE_KEYWORDS = frozenset({"axis", "dtype", "keepdims"})
_MOMENT_KEYWORDS = _REDUCE_KEYWORDS | {"ddof"}
_METHOD_KEYWORDS = (
    _NO_KEYWORDS, _NAMED, _NAMED, _NAMED,   # reshape (order, copy: never) ravel sum mean
    _NAMED, _NAMED, _NAMED, _NAMED,   # max min all any
    _NO_KEYWORDS, _NO_KEYWORDS, _NO_KEYWORDS,   # astype conj conjugate
    _SCAN_KEYWORDS, _SCAN_KEYWORDS, _NO_KEYWORDS,   # cumprod cumsum flatten
    _REDUCE_KEYWORDS, _NAMED, _MOMENT_KEYWORDS,   # prod squeeze std
    _NO_KEYWORDS, _NAMED, _MOMENT_KEYWORDS,   # swapaxes transpose var
    _NAMED, _NAMED, _NAMED)   # diagonal argmax argmin


def _method_result(self, code, n, x0, x1, rest, kwargs):
    """The fast path of a common method: NumPy's method on ``self``'s host value, as an
    Array; None where the complete implementation must decide (a NumPy scalar's too)."""
    host = _plain_host(self)
    if type(host) is not _ndarray:
        return None
    if code >= _ARGMAX:
        host = for_reading(host)   # (NumPy's would copy a read-only input)
    # (ndarray's unbound method, its arguments spelled out: no attribute lookup on the
    # instance, no call through a tuple)
    fn = _NDARRAY_METHODS[code - _RESHAPE]
    if code == _ASTYPE and type(x0) is not type and isinstance(x0, type):
        # (minijax.numpy's scalar type: NumPy's own converts without a lookup)
        x0 = getattr(x0, "_numpy_type", x0)
    if kwargs:
        r = (call_with_keywords(fn, host, x0, x1, n, kwargs) if n <= 2
             else fn(host, *given(x0, x1, rest), **kwargs))
    elif n == 0:
        r = fn(host)
    elif n == 1:
        r = fn(host, x0)
    elif n == 2:
        r = fn(host, x0, x1)
    else:
        r = fn(host, x0, x1, *rest)
    return _result(self, host, r)


def _reduction(self, code, axis, dtype, keepdims):
    """A reduction method called with ``axis``, ``dtype`` (sum and mean; None for the
    others) and ``keepdims`` alone: NumPy's method on the fast path (its other
    positional parameters differ from minijax's: ``keepdims`` goes as a keyword), else
    the complete implementation."""
    if numpy_flag[0] and _plain_arg(axis) and _plain_arg(dtype) and (
            keepdims is False or keepdims is True):
        out = _method_result(self, code, 1 if dtype is None else 2, axis, dtype, (),
                             _KEEPDIMS if keepdims else _NO_KWARGS)
        if out is not None:
            return out
    fn = _complete[code]
    if code == _SUM or code == _MEAN:
        return (fn(self, axis, dtype) if keepdims is False
                else fn(self, axis, dtype, keepdims=keepdims))
    return fn(self, axis) if keepdims is False else fn(self, axis, keepdims=keepdims)


def diagonal_offset(offset):
    """A diagonal's ``offset`` as NumPy's C code takes it without harm: it negates the
    offset, which overflows for -2**31 (a corrupt view, then a crash), and -2**31 + 1
    names the same, empty, diagonal. Any other value as it is (NumPy's own errors)."""
    if (type(offset) is int or isinstance(offset, np.integer)) and offset == -2147483648:
        return -2147483647
    return offset


def _given_keywords(**kwargs):
    """The keyword arguments that are not None (the others were not given)."""
    return {k: v for k, v in kwargs.items() if v is not None}


def _view_method(self, code):
    """A view method called without arguments (``.T``, ``transpose()``, ``ravel()``,
    ``squeeze()``, ``diagonal()``): NumPy's view of ``self``'s host ndarray as an Array
    on the fast path, else the method's complete implementation."""
    if numpy_flag[0]:
        host = _plain_host(self)
        if type(host) is _ndarray:
            if code == _TRANSPOSE or code == _TRANSPOSE_METHOD:
                r = ndarray_transposed(host)
            elif code == _RAVEL:
                r = ndarray_raveled(host)
            elif code == _SQUEEZE:
                r = ndarray_squeezed(host)
            elif ndarray_ndim(host) >= 2:
                r = ndarray_diagonal(host)
            else:
                r = None   # (the complete implementation names the error)
            if r is not None and canonical_dtype(ndarray_dtype(r)):
                return view_result(self, host, r, None)
    return _complete[code](self)


_NO_KWARGS = {}   # (the keyword arguments of a call that has none; never written)
_KEEPDIMS = {"keepdims": True}   # (never written)
_dtype_type = np.dtype
_NDARRAY_METHODS = tuple(getattr(_ndarray, name) for name in OPERATORS[_RESHAPE:])
assert len(_METHOD_KEYWORDS) == len(_NDARRAY_METHODS)


def _host_index(idx):
    """``idx`` as NumPy takes it on the fast path, or None: a basic index (ints, slices,
    None, Ellipsis, or a tuple of them) as it is, NumPy integers too, and an element read
    of integers (a 0-d Array holding a NumPy integer, as ``obs[t]``) as that integer."""
    if type(idx) is tuple:
        if len(idx) == 2:   # (B[:, obs[t]]: the new tuple made at once, not via a list)
            a, b = idx
            if not _basic_index_element(a):
                a = _integer_of(a)
                if a is None:
                    return None
            elif _basic_index_element(b):
                return idx
            if not _basic_index_element(b):
                b = _integer_of(b)
                if b is None:
                    return None
            return (a, b)
        out = None
        i = 0
        for e in idx:
            if not _basic_index_element(e):
                e = _integer_of(e)
                if e is None:
                    return None
                if out is None:
                    out = list(idx)
                out[i] = e
            i += 1
        return idx if out is None else tuple(out)
    if _basic_index_element(idx):
        return idx
    return _integer_of(idx)


def _integer_of(e):
    """``e`` if a NumPy integer, the NumPy integer ``e`` holds if an uncommitted, strongly
    typed 0-d Array (an element read), else None."""
    if type(e) is Array:
        e = strong_host(e)
    return e if type(e) is _int64 or isinstance(e, _numpy_integer) else None


_int64 = np.int64
_numpy_integer = np.integer


def _basic_index_element(e):
    t = type(e)
    return t is int or t is slice or e is None or e is Ellipsis


def direct_write_target(self):
    """``self``'s host ndarray if a write may go straight into it, with NumPy refusing
    (ValueError) when the buffer is read-only; else None (``_writable`` decides). An
    owned buffer qualifies, and a view's ndarray while its root's buffer is the one it
    was derived from and is writable (a view made before the root was marked
    observed is itself still writable, so the root's flag is what counts)."""
    host = self._host
    if type(host) is not _ndarray:
        return None
    view = self._view
    if view is None:
        self._buffer = None
        return host
    if _read_only_link(view):
        return None   # read-only by NumPy's choice (a broadcast): _writable raises
    root = _view_root(view)
    root_host = _view_snapshot(view, host)
    if root._host is root_host and ndarray_writeable(root_host):
        root._buffer = None
        self._buffer = None
        return host
    return None


def array_repr(a, max_line_width=None, precision=None, suppress_small=None):
    """``repr`` of the Array ``a``: ``Array([...], dtype=...)``, laid out by NumPy's print
    options (``numpy.set_printoptions``; the arguments override them for this call)."""
    host = a._value()
    override = np.get_printoptions().get("override_repr")
    if override is not None:
        return override(host)
    dtype = a.dtype
    name = dtype.name if not is_non_numeric(dtype) else _dtype_repr(dtype)
    extra = f", dtype={name}" + (", weak_type=True" if a.weak_type else "")
    if host.size == 0:
        body = f"[], shape={host.shape}" if host.ndim != 1 else "[]"
    else:
        body = np.array2string(host, max_line_width, precision, suppress_small,
                               separator=", ", prefix="Array(")
    return f"Array({body}{extra})"


def _dtype_repr(dtype):
    """A non-numeric dtype as NumPy's array repr spells it: ``'<U3'``,
    ``'datetime64[D]'``, ``[('x', '<f8'), ('y', '<i4')]``, ``object``."""
    if dtype.names is not None:
        return str(dtype)
    if dtype.kind in "USV" or not dtype.isnative:
        return repr(str(dtype))
    name = dtype.name
    return name if name.isalnum() else repr(name)


def _overlapping(host):
    """Whether some elements of ``host`` share memory (a broadcast or sliding windows)."""
    flags = host.flags
    if (flags.c_contiguous or flags.f_contiguous) and host.size:
        return False   # (contiguous: every element has bytes of its own)
    extent = host.itemsize   # hi - lo of byte_bounds, without its Python overhead
    for st, n in zip(host.strides, host.shape):
        if st == 0 and n > 1:
            return True
        extent += (n - 1) * abs(st)
    return extent < host.nbytes


def _copy_same_layout(host):
    """A writeable copy of ``host`` with the same strides (so views keep their offsets)."""
    if host.flags.c_contiguous or host.flags.f_contiguous:
        return host.copy(order="K")
    if _overlapping(host):
        # elements overlap (a broadcast): a write must not land on several of them
        return host.copy()
    lo, hi = byte_bounds(host)
    extent = np.empty(hi - lo, np.uint8)
    new = np.ndarray(host.shape, host.dtype, buffer=extent, offset=host.ctypes.data - lo,
                     strides=host.strides)
    new[...] = host
    return new


class _Interface:
    __slots__ = ("__array_interface__", "keep")


def _ndarray_at(root, offset, like, writeable=False):
    """An ndarray of ``like``'s shape, strides and dtype at byte ``offset`` from ``root``'s
    first element, sharing ``root``'s memory (writeable if ``root`` is, or if asked)."""
    iface = _Interface()
    iface.__array_interface__ = {
        "data": (root.ctypes.data + offset, not (writeable or root.flags.writeable)),
        "shape": like.shape, "strides": like.strides,
        "typestr": f"|V{like.dtype.itemsize}", "version": 3}
    iface.keep = root
    return np.asarray(iface).view(like.dtype)


def _read_only(host):
    # (reading the flag of an np.broadcast_arrays output warns: NumPy will make it
    # read-only; it is writable, with that warning, until then)
    flags = host.flags
    try:
        return not flags._writeable_no_warn   # the flag without the warning
    except AttributeError:   # (a NumPy without it)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return not flags.writeable


_BROADCAST_WRITE_WARNING = (
    "Numpy has detected that you (may be) writing to an array with\noverlapping memory from "
    "np.broadcast_arrays. If this is intentional\nset the WRITEABLE flag True or make a copy "
    "immediately before writing.")


def _warns_on_write(host):
    """Whether ``host`` is writable with NumPy's warning (an np.broadcast_arrays output)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        host.flags.writeable
    return bool(caught)


def for_reading(host):
    """``host``, or if it is read-only a writeable ndarray over its memory: for NumPy
    calls that only read their input but copy one that is not writeable (argmax,
    argmin). The alias is never written. (The flag is read as NumPy stores it: reading
    ``flags.writeable`` of an np.broadcast_arrays output warns.)"""
    return host if ndarray_writeable(host) else ndarray_writeable_alias(host)


def overlapping_or_read_only(host):
    """A view NumPy made read-only (``diagonal``) or whose elements overlap (a broadcast):
    it stays read-only in a view Array."""
    if not ndarray_writeable(host):
        return True
    if ndarray_contiguous(host) and ndarray_size(host):
        return False
    return _overlapping(host)


def as_view_of(out, args):
    """Make ``out`` (an Array whose host is a NumPy view) a view Array of the Array in
    ``args`` whose buffer it shares, if any."""
    host = out._host
    owner = ndarray_base(host)   # NumPy keeps .base pointing at the memory's owner
    for a in args:
        if type(a) is Array:
            arr = a
            root = arr if arr._view is None else _view_root(arr._view)
            root_host = _current_host(root)
            # (a root ndarray that is itself a view shares its owner with what else
            # views it: another argument may be where ``host`` is)
            if root_host is owner or (ndarray_base(root_host) is owner and (
                    sole_source(args) or ndarray_bounds_overlap(host, root_host))):
                # (a read-only link: NumPy chose read-only, as broadcast_to does)
                out._view = (view_link(root, root_host, True)
                             if ndarray_writeable(root_host)
                             and overlapping_or_read_only(host)
                             else _link(root, root_host, host))
                return


def sole_source(args):
    """Whether ``args`` hold one Array and no ndarray (alone or in a list or tuple): a
    NumPy result viewing that Array's memory owner then views that Array."""
    arrays = 0
    for a in args:
        t = type(a)
        if t is Array:
            arrays += 1
        elif t is _ndarray:
            return False
        elif t is list or t is tuple:
            for e in a:
                if type(e) is _ndarray or type(e) is Array:
                    return False
    return arrays == 1


def freeze_arrays(args):
    """``args`` with each Array replaced by a snapshot sharing its buffer copy-on-write:
    what a transformation sees must not change when the Array is updated in place."""
    for a in args:
        if type(a) is Array:
            break
    else:
        return args
    out = []
    for a in args:
        if type(a) is Array:
            snap = _make(None, None)
            snap._rebind(a)
            a = snap
        out.append(a)
    return out


def _rebuild(host, weak_type=False):
    host = np.array(host)
    return _make(ShapedArray(host.shape, host.dtype, weak_type), host)


def array_from_host(host, weak_type=False):
    """An Array holding a host ndarray of a supported dtype (not copied)."""
    return _make(ShapedArray(host.shape, host.dtype, weak_type), host)


def _make(aval, host, buffer=None, placement=None, view=None):
    """The one constructor of Arrays: ``aval`` (None: a strong aval made from ``host``
    when asked), a host ndarray (or the NumPy scalar of a 0-d eager result) and/or a
    PjRt ``buffer``, the ``placement`` (None: uncommitted; else a sharding) and ``view``
    (None, or a view Array's link to its root, see the module docstring)."""
    arr = _array_type.__new__(_array_type)   # (compiled: its fields are None)
    if not cython.compiled:
        arr._aval = arr._buffer = arr._placement = arr._view = None
    # (a field set costs a reference count change on the old value and the new: only
    # those that are not None are set)
    arr._host = host
    if aval is not None:
        arr._aval = aval
    if buffer is not None:
        arr._buffer = buffer
    if placement is not None:
        arr._placement = placement
    if view is not None:
        arr._view = view
    return arr


def _holding(host):
    """``_make(None, host)``: the plain Array, allocated with its other fields None."""
    arr = Array.__new__(Array)
    if not cython.compiled:
        arr._aval = arr._buffer = arr._placement = arr._view = None
    arr._host = host
    return arr


def _view_holding(host, link):
    """``_make(None, host, None, None, link)``: an uncommitted view Array."""
    arr = Array.__new__(Array)
    if not cython.compiled:
        arr._aval = arr._buffer = arr._placement = None
    arr._host = host
    arr._view = link
    return arr


def snapshot(x):
    """A distinct Array holding ``x``'s current value, sharing its buffer copy-on-write."""
    snap = _make(None, None)
    snap._rebind(x)
    return snap


def array_from_device_dlpack(producer, copy=None):
    """An Array committed to the device holding a DLPack ``producer``'s data (a GPU),
    sharing its memory unless ``copy``."""
    buf, device = backend.import_dlpack(producer, copy)
    aval = shaped_array(tuple(buf.shape), np.dtype(buf.dtype))
    return _make(aval, None, buf, placement_on(device))


def resolve_placement(where, what):
    """The committed placement that ``where`` names: a device, a ``SingleDeviceSharding``
    or a platform name (``"cpu"``)."""
    if isinstance(where, (SingleDeviceSharding, NamedSharding)):
        return where
    return placement_on(backend.resolve_device(where, what))
