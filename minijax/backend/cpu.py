"""The CPU backend: jaxlib's CPU client and everything that holds only on the CPU.

The client has ``config.cpu_device_count`` devices. Buffers are host memory: they are
read in place through DLPack (``kDLCPU``). jaxlib's LAPACK kernels are the CPU's
custom-call targets for ``lax.linalg`` (registered with XLA on first use), and
``xla_ffi_python_cpu_callback`` is the one that calls Python back.
"""

import threading

import numpy as np

from .. import dtypes
from ..config import config
from . import _jaxlib
from .base import Backend

__all__ = ["CpuBackend", "lapack_target", "set_distributed", "HOST_CALLBACK_TARGET", "KDLCPU"]

HOST_CALLBACK_TARGET = "xla_ffi_python_cpu_callback"
KDLCPU = 1


#: While ``minijax.distributed`` is initialized: the keywords of
#: ``_jaxlib.make_distributed_cpu_client`` (the distributed client, this process's id,
#: the number of processes, the collectives' host). None in a single-process run.
distributed = None


def set_distributed(options):
    """Make the CPU client (not made yet) a member of a multi-process run (``options``:
    see ``distributed``), or a single-process one again (None)."""
    global distributed
    distributed = options


class CpuBackend(Backend):
    platform = "cpu"
    device_platforms = ("cpu",)
    host_callback_target = HOST_CALLBACK_TARGET
    dlpack_device_type = KDLCPU
    reads_host_memory = True

    def make_client(self):
        config.fix("cpu_device_count", f"the CPU client was made with "
                                       f"{config.cpu_device_count} device(s); set it (or "
                                       f"MINIJAX_CPU_DEVICE_COUNT) before minijax first uses "
                                       f"a device")
        if distributed is None:
            return _jaxlib.xla_client.make_cpu_client(num_devices=config.cpu_device_count)
        return _jaxlib.make_distributed_cpu_client(config.cpu_device_count, **distributed)

    def client_created(self, client):
        # computations with no committed input run on this process's first device (in a
        # multi-process run the client's first device may be another process's)
        self._default_device = client.local_devices()[0]

    def option_overrides(self, module_text):
        return _jaxlib.cpu_option_overrides(module_text)

    def to_host(self, buffer, dtype=None):
        """A read-only host ndarray view of a PjRt buffer (waits for it to be ready).

        Read through DLPack: jaxlib's own conversion to NumPy imports ``jax.core``."""
        if dtype is not None and dtype == dtypes.bfloat16:
            # DLPack (as NumPy reads it) has no bfloat16: read the bits as uint16.
            bits = self.bitcast(buffer, dtypes.bfloat16, np.uint16)
            return self.to_host(bits).view(dtypes.bfloat16)
        host = np.from_dlpack(_jaxlib.exported(buffer, (KDLCPU, 0)))
        host.flags.writeable = False
        return host


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
                lapack = _jaxlib.load("jaxlib.lapack")
                lapack._lapack.initialize()
                for name, capsule, api_version in lapack.registrations()["cpu"]:
                    _jaxlib.xla_client.register_custom_call_target(
                        name, capsule, platform="cpu", api_version=api_version)
                _lapack_registered = True
    return f"lapack_{_LAPACK_PREFIX[np.dtype(dtype).name]}{fn_base}_ffi"
