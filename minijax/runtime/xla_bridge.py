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

import builtins
import functools
import importlib
import importlib.util
import os
import sys
import threading
import types

import numpy as np

from .. import dtypes
from ..config import config
from . import compile_cache

__all__ = ["ir", "hlo", "chlo", "func_dialect", "get_client", "devices", "default_device",
           "compile_module", "to_device", "to_host", "execute", "jaxlib_version",
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
    global _loaded, jaxlib_version, BufferType
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


# jaxlib imports ``jax._src.sharding_impls`` each time it makes an array object from
# a transfer or with ``disassemble_into_single_device_arrays`` (executable outputs use
# prepared result handlers instead, see ``result_handlers``) and calls its
# ``make_single_device_sharding``. Without JAX installed each failed attempt costs tens
# of microseconds. So, when JAX is not installed: "jax" and "jax._src" map to None in
# sys.modules (any import of them fails at once with ModuleNotFoundError, as it would
# anyway), a stand-in module whose function makes jaxlib's own SingleDeviceSharding is
# registered under that name, and this module's ``__builtins__`` (which CPython's
# C-level import consults for calls made from this module's frames, i.e. jaxlib calls
# made here) gets an ``__import__`` that hands the stand-in to jaxlib. Imports
# elsewhere are untouched. With JAX installed nothing is replaced: jaxlib's first
# transfer then imports JAX (``jax.core``, about a second), and blocking that would
# break JAX's own DLPack import if the program imports JAX later.
_SHARDING_MODULE = "jax._src.sharding_impls"


@functools.lru_cache(maxsize=None)   # a C-level cache: jaxlib calls this per array made
def _make_single_device_sharding(device, memory_kind=None):
    return _jax.SingleDeviceSharding(device, memory_kind=memory_kind)


_stub = types.ModuleType(_SHARDING_MODULE, "minijax's stand-in for jaxlib's array "
                         "construction (see minijax.runtime.xla_bridge)")
_stub.make_single_device_sharding = _make_single_device_sharding
if "jax" not in sys.modules and importlib.util.find_spec("jax") is None:
    for _name in ("jax", "jax._src"):
        sys.modules[_name] = None
    sys.modules[_SHARDING_MODULE] = _stub
_real_import = builtins.__import__


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if name == _SHARDING_MODULE and sys.modules.get(name) is _stub:
        return _stub
    return _real_import(name, globals, locals, fromlist, level)


__builtins__ = dict(vars(builtins), __import__=_import)

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
                _default_device = client.devices()[0]
                _client = client
    return _client


def devices():
    """The devices of the (CPU) client."""
    return get_client().devices()


def default_device():
    return _default_device if _default_device is not None else get_client().devices()[0]


def new_context():
    _load()
    ctx = ir.Context()
    hlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


def compile_module(module_text, device, host_callbacks=()):
    """Compile StableHLO text for one device; returns a loaded executable.

    Goes through the persistent compilation cache (compile_cache.py), except for a
    program with ``host_callbacks`` (Python functions its custom calls to
    ``xla_ffi_python_cpu_callback`` name by index): those live only in this process."""
    client = get_client()
    device_list = xla_client.DeviceList((device,))
    options = xla_client.CompileOptions()
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


def to_device(host, device):
    """Copy a host ndarray to ``device``; returns a PjRt buffer."""
    if host.dtype == dtypes.bfloat16:
        return _bfloat16_to_device(host, device)
    if not (host.flags.writeable and host.flags.c_contiguous):
        host = np.array(host, order="C")   # DLPack exports neither read-only nor broadcast views
    return _jax.dlpack_managed_tensor_to_buffer(host.__dlpack__(), device, None, None)


def to_host(buffer):
    """A read-only host ndarray view of a PjRt buffer."""
    return buffer._single_device_array_to_np_array_did_copy()[0]


def result_handlers(avals, device):
    """Prepared output builders for ``execute``, one per output aval (None if this
    jaxlib lacks them). They make jaxlib's array objects directly, without the
    per-array sharding lookup of ``disassemble_into_single_device_arrays``."""
    make = getattr(_jax, "array_result_handler", None)
    if make is None:
        return None
    sharding = _make_single_device_sharding(device)
    return [make(aval, sharding, False, _skip_checks=True) for aval in avals]


def execute(executable, buffers, handlers=None):
    """Run ``executable`` on device buffers; returns the output buffers."""
    results = executable.execute_sharded(buffers)
    if handlers is not None:
        return results.consume_with_handlers(handlers)
    return [outs[0] for outs in results.disassemble_into_single_device_arrays()]


_bitcast_executables = {}


def _bfloat16_to_device(host, device):
    # DLPack has no bfloat16: send the bits as uint16 and bitcast on the device.
    bits = np.array(host, order="C").view(np.uint16)
    key = (host.shape, device)
    exe = _bitcast_executables.get(key)
    if exe is None:
        dims = "x".join(map(str, host.shape))
        t_in = f"tensor<{dims + 'x' if dims else ''}ui16>"
        t_out = f"tensor<{dims + 'x' if dims else ''}bf16>"
        text = (f"func.func @main(%a: {t_in}) -> {t_out} {{\n"
                f"  %b = stablehlo.bitcast_convert %a : ({t_in}) -> {t_out}\n"
                f"  return %b : {t_out}\n}}")
        exe = _bitcast_executables[key] = compile_module(text, device)
    buf = _jax.dlpack_managed_tensor_to_buffer(bits.__dlpack__(), device, None, None)
    return execute(exe, [buf])[0]


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
