"""The only module that imports jaxlib (its Python surface is not a stable API).

It owns the PjRt client (created on first use, with its start-up log silenced),
the MLIR dialect modules used by lowering, compilation, host/device transfer and
execution.
"""

import importlib.util
import os
import sys
import threading

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, func as func_dialect, stablehlo as hlo

from ..config import config
from .. import dtypes

__all__ = ["ir", "hlo", "chlo", "func_dialect", "get_client", "devices", "default_device",
           "compile_module", "to_device", "to_host", "execute", "jaxlib_version",
           "lapack_target"]

jaxlib_version = getattr(xla_client, "_version", None)


# jaxlib attempts ``import jax._src.sharding_impls`` each time it makes an array object
# (every transfer and every executable output). Without JAX installed, each failed
# attempt scans sys.path (~60 us). A None entry in sys.modules is Python's way to make
# an import fail at once, with the same ModuleNotFoundError.
if "jax" not in sys.modules and importlib.util.find_spec("jax") is None:
    for _name in ("jax", "jax._src", "jax._src.sharding_impls"):
        sys.modules[_name] = None
BufferType = _jax.ArrayImpl

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
    ctx = ir.Context()
    hlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


def compile_module(module_text, device):
    """Compile StableHLO text for one device; returns a loaded executable.

    Goes through the persistent compilation cache (compile_cache.py)."""
    from . import compile_cache
    client = get_client()
    device_list = xla_client.DeviceList((device,))
    options = xla_client.CompileOptions()
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


def execute(executable, buffers):
    """Run ``executable`` on device buffers; returns the output buffers."""
    results = executable.execute_sharded(buffers)
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
                from jaxlib import lapack
                lapack._lapack.initialize()
                for name, capsule, api_version in lapack.registrations()["cpu"]:
                    xla_client.register_custom_call_target(name, capsule, platform="cpu",
                                                           api_version=api_version)
                _lapack_registered = True
    return f"lapack_{_LAPACK_PREFIX[np.dtype(dtype).name]}{fn_base}_ffi"
