"""The only module that imports jaxlib (its Python surface is not a stable API).

It owns the PjRt client (created on first use, with its start-up log silenced),
the MLIR dialect modules used by lowering, compilation, host/device transfer and
execution.

jaxlib is imported on first need (the client, a transfer, a lowering), not when
minijax is imported: eager NumPy-backed code never pays for it. Until then ``ir``,
``hlo``, ``chlo``, ``func_dialect``, ``_jax`` and ``xla_client`` are stand-ins: an
attribute of a dialect module read before loading (``hlo.sine`` in a primitive
definition) is a deferred reference, resolved when called or used.
"""

import functools
import importlib
import os
import threading

import numpy as np

from .. import dtypes
from ..config import config
from ..core.avals import ShapedArray
from ..errors import InvalidDeviceError, OutOfMemoryError
from ..util import LRUCache
from . import compile_cache

__all__ = ["ir", "hlo", "chlo", "func_dialect", "get_client", "devices", "default_device",
           "resolve_device", "compile_module", "to_device", "to_host", "execute", "jaxlib_version",
           "lapack_target"]

_JAXLIB_MODULES = {"_jax": "jaxlib._jax", "xla_client": "jaxlib.xla_client",
                   "ir": "jaxlib.mlir.ir", "chlo": "jaxlib.mlir.dialects.chlo",
                   "func_dialect": "jaxlib.mlir.dialects.func",
                   "hlo": "jaxlib.mlir.dialects.stablehlo",
                   "_jax_mlir_ext": "jaxlib.mlir._mlir_libs._jax_mlir_ext"}
_loaded = False
_load_lock = threading.RLock()


def _load():
    """Import jaxlib; module globals then name the real modules."""
    global _loaded, jaxlib_version, BufferType, _ZERO_COPY, _HANDLER_OPTIONS
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        g = globals()
        for name, module in _JAXLIB_MODULES.items():
            g[name] = importlib.import_module(module)
        jaxlib_version = getattr(g["xla_client"], "_version", None)
        BufferType = g["_jax"].ArrayImpl
        _ZERO_COPY = g["xla_client"].HostBufferSemantics.ZERO_COPY
        # jaxlib 0.10 result handlers run JAX's Python checks unless told to skip them;
        # jaxlib 0.11 dropped the keyword (and the checks). Read from the signature.
        signature = g["_jax"].array_result_handler.__doc__ or ""
        _HANDLER_OPTIONS = {"_skip_checks": True} if "_skip_checks" in signature else {}
        _loaded = True


class _Deferred:
    """``module.attr...`` read before jaxlib is loaded; resolved on use."""

    __slots__ = ("_module", "_path")

    def __init__(self, module, path):
        self._module = module
        self._path = path

    def _resolve(self):
        _load()
        obj = globals()[self._module]
        for name in self._path:
            obj = getattr(obj, name)
        return obj

    def __getattr__(self, name):
        return _Deferred(self._module, self._path + (name,))

    def __call__(self, *args, **kwargs):
        return self._resolve()(*args, **kwargs)

    def __repr__(self):
        return f"<deferred {_JAXLIB_MODULES[self._module]}.{'.'.join(self._path)}>"


class _LazyModule:
    """A jaxlib module before loading. Dialect modules hand out deferred attributes
    (primitive definitions name ops at import); the others load jaxlib on access."""

    def __init__(self, name, defer):
        self._name = name
        self._defer = defer

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self._defer and not _loaded:
            return _Deferred(self._name, (attr,))
        _load()
        return getattr(globals()[self._name], attr)

    def __repr__(self):
        return f"<jaxlib module {_JAXLIB_MODULES[self._name]}, not yet imported>"


_jax = _LazyModule("_jax", False)
_jax_mlir_ext = _LazyModule("_jax_mlir_ext", False)
xla_client = _LazyModule("xla_client", False)
ir = _LazyModule("ir", True)
chlo = _LazyModule("chlo", True)
func_dialect = _LazyModule("func_dialect", True)
hlo = _LazyModule("hlo", True)


def __getattr__(name):
    # ``jaxlib_version`` and ``BufferType`` exist once jaxlib is loaded
    if name in ("jaxlib_version", "BufferType"):
        _load()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Making an array object from a host buffer or from executable outputs goes through
# jaxlib's C++ array type, which needs a sharding for it. Some of jaxlib's entry points
# (``dlpack_managed_tensor_to_buffer``, ``disassemble_into_single_device_arrays``) find
# it by importing ``jax._src.sharding_impls``: with JAX installed that imports all of
# JAX (about a second and 100 MB), without it every attempt fails slowly. The two entry
# points used here take the sharding from the caller instead: ``batched_device_put``
# for transfers and prepared result handlers for outputs. minijax never imports JAX
# and never touches ``sys.modules``.

@functools.lru_cache(maxsize=None)
def _sharding_type():
    class DeviceSharding(_jax.SingleDeviceSharding):
        """jaxlib's single-device sharding plus the two members ``batched_device_put``
        reads (JAX adds them in a Python subclass; the C++ class lacks them)."""

        memory_kind = property(lambda self: self._memory_kind)

        def _to_xla_hlo_sharding(self, num_dimensions):
            return xla_client.HloSharding.replicate()

    return DeviceSharding


@functools.lru_cache(maxsize=64)
def device_sharding(device):
    """The single-device sharding jaxlib's array objects on ``device`` carry."""
    _load()
    return _sharding_type()(device)


_client = None
_default_device = None
_client_lock = threading.Lock()


def _quietly(fn):
    """Run ``fn`` with file descriptor 2 sent to /dev/null (absl logs from C++)."""
    try:
        saved = os.dup(2)
    except OSError:
        return fn()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        return fn()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def get_client():
    global _client, _default_device
    if _client is None:
        _load()
        with _client_lock:
            if _client is None:
                n = config.cpu_device_count
                client = _quietly(lambda: xla_client.make_cpu_client(num_devices=n))
                # With traceback collection on (jaxlib's default), each execution through
                # ``execute_sharded`` captures a Python traceback that is never freed
                # (~90 bytes a call). minijax does not use them. The switch is process-wide
                # and must not flip while executions are in flight in other threads (an
                # execution begun with it off and finished with it on fails), so it is
                # turned off once, here, and left off.
                _jax.set_tracebacks_enabled(False)
                _default_device = client.devices()[0]
                _client = client
    return _client


def devices():
    """The devices of the (CPU) client."""
    return get_client().devices()


def default_device():
    return _default_device if _default_device is not None else get_client().devices()[0]


def resolve_device(device, what):
    """``device`` as one of the client's devices: a device object (what ``x.device`` and
    ``minijax.devices()`` return), or ``"cpu"`` (NumPy's device name), meaning the
    default device. Anything else raises ``InvalidDeviceError`` naming what to pass."""
    if isinstance(device, str):
        if device == "cpu":
            return default_device()
        raise InvalidDeviceError(
            f"{what}: unsupported device {device!r}. minijax runs on the CPU: pass a device "
            f"object (x.device, or one of minijax.devices()) or NumPy's device name 'cpu'")
    known = devices()
    if any(device is d or (type(device) is type(d) and device == d) for d in known):
        return device
    raise InvalidDeviceError(
        f"{what}: {device!r} (of type {type(device).__name__}) is not one of minijax's "
        f"devices {list(known)}; pass a device object (x.device, or one of "
        f"minijax.devices()) or 'cpu'")


def new_context():
    _load()
    ctx = ir.Context()
    hlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


def compile_options(device):
    """XLA's options for a program that runs on ``device``: its device assignment names
    that device (without it the program is assigned to the client's first device, and a
    buffer on any other device is refused at execution)."""
    options = xla_client.CompileOptions()
    options.device_assignment = xla_client.DeviceAssignment.create(
        np.array([[device.id]], dtype=np.int32))
    return options


def compile_module(module_text, device, host_callbacks=()):
    """Compile StableHLO text for one device; returns a loaded executable.

    Goes through the persistent compilation cache (compile_cache.py), except for a
    program with ``host_callbacks`` (Python functions its custom calls to
    ``xla_ffi_python_cpu_callback`` name by index): those live only in this process."""
    client = get_client()
    device_list = xla_client.DeviceList((device,))
    options = compile_options(device)
    if host_callbacks:
        # This overload of compile_and_load takes a parsed module, not text; parsing
        # needs the func dialect, registered through jaxlib's dialect registry.
        registry = ir.DialectRegistry()
        _jax_mlir_ext.register_dialects(registry)
        with new_context() as ctx:
            ctx.append_dialect_registry(registry)
            ctx.load_all_available_dialects()
            module = ir.Module.parse(module_text)
            return client.compile_and_load(module, device_list, options, list(host_callbacks))
    return compile_cache.compile_cached(
        module_text, client, device, options.SerializeAsString(),
        lambda: client.compile_and_load(module_text, device_list, options),
        lambda data: client.deserialize_executable(data, device_list, options))


def to_device(host, device, aval=None):
    """Copy a host ndarray to ``device``; returns a PjRt buffer.

    The buffer may alias ``host`` (zero-copy when XLA can use its memory as is), so
    ``host`` must not be written to while the buffer lives."""
    if aval is None:
        aval = ShapedArray(host.shape, host.dtype)
    return _jax.batched_device_put(aval, device_sharding(device), [host], [device], True,
                                   False, _ZERO_COPY, True)


class _Exported:
    """A DLPack capsule in the wrapper ``numpy.from_dlpack`` takes."""

    __slots__ = ("capsule",)

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)   # kDLCPU


def to_host(buffer, dtype=None):
    """A read-only host ndarray view of a PjRt buffer (waits for it to be ready).

    Read through DLPack: jaxlib's own conversion to NumPy imports ``jax.core``."""
    if dtype is not None and dtype == dtypes.bfloat16:
        # DLPack (as NumPy reads it) has no bfloat16: read the bits as uint16.
        return to_host(_bitcast(buffer, dtypes.bfloat16, np.uint16)).view(dtypes.bfloat16)
    host = np.from_dlpack(_Exported(_jax.buffer_to_dlpack_managed_tensor(buffer)))
    host.flags.writeable = False
    return host


_bitcast_executables = LRUCache(lambda: config.eager_cache_size)


def _bitcast(buffer, from_dtype, to_dtype):
    """``buffer`` (of ``from_dtype``) reinterpreted on its device as ``to_dtype``, of the
    same width."""
    shape = buffer.aval.shape
    device = buffer._sharding._device
    key = (shape, np.dtype(from_dtype), np.dtype(to_dtype), device)
    entry = _bitcast_executables.get(key)
    if entry is None:
        names = {np.dtype(dtypes.bfloat16): "bf16", np.dtype(np.uint16): "ui16"}
        dims = "".join(f"{d}x" for d in shape)
        t_in, t_out = (f"tensor<{dims}{names[np.dtype(d)]}>" for d in (from_dtype, to_dtype))
        text = (f"func.func @main(%a: {t_in}) -> {t_out} {{\n"
                f"  %b = stablehlo.bitcast_convert %a : ({t_in}) -> {t_out}\n"
                f"  return %b : {t_out}\n}}")
        exe = compile_module(text, device)
        handlers = result_handlers([ShapedArray(shape, np.dtype(to_dtype))], device)
        entry = _bitcast_executables[key] = (exe, handlers)
    exe, handlers = entry
    return execute(exe, [buffer], handlers)[0]


def result_handlers(avals, device):
    """Prepared output builders for ``execute``, one per output aval: they make
    jaxlib's array objects with the sharding given here."""
    sharding = device_sharding(device)
    return [_jax.array_result_handler(aval, sharding, False, **_HANDLER_OPTIONS)
            for aval in avals]


def execute(executable, buffers, handlers):
    """Run ``executable`` on device buffers; returns the output buffers."""
    # With tracebacks enabled (jaxlib's default) each execution captures a Python
    # traceback that is never freed: 72 bytes a call. minijax does not use them, so
    # they are off during the call and put back after, for JAX if it is loaded too.
    try:
        if _jax.tracebacks_enabled():
            _jax.set_tracebacks_enabled(False)
            try:
                return executable.execute_sharded(buffers).consume_with_handlers(handlers)
            finally:
                _jax.set_tracebacks_enabled(True)
        return executable.execute_sharded(buffers).consume_with_handlers(handlers)
    except _jax.JaxRuntimeError as e:
        if "RESOURCE_EXHAUSTED" in str(e):   # XLA's status text is not for the user
            raise OutOfMemoryError(
                "XLA ran out of memory running the program: an array in it is larger "
                "than the memory available; use smaller arrays or fewer at a time") from None
        raise


# ---------------------------------------------------------------- LAPACK targets

_LAPACK_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}
_lapack_registered = False
_lapack_lock = threading.Lock()


def lapack_target(fn_base, dtype):
    """The name of jaxlib's LAPACK FFI target ``lapack_<s|d|c|z><fn_base>_ffi`` for
    ``dtype``; registers jaxlib's CPU LAPACK targets with XLA once, on first use."""
    global _lapack_registered
    if not _lapack_registered:
        with _lapack_lock:
            if not _lapack_registered:
                _load()
                from jaxlib import lapack
                lapack._lapack.initialize()
                for name, capsule, api_version in lapack.registrations()["cpu"]:
                    xla_client.register_custom_call_target(name, capsule, platform="cpu",
                                                           api_version=api_version)
                _lapack_registered = True
    return f"lapack_{_LAPACK_PREFIX[np.dtype(dtype).name]}{fn_base}_ffi"
