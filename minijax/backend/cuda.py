"""The CUDA backend: jaxlib's CUDA PJRT plugin, loaded without importing JAX.

The plugin is a shared object in the ``jax_plugins`` namespace package
(``jax_plugins/xla_cuda13/xla_cuda_plugin.so`` from ``jax-cuda13-pjrt``, or
``xla_cuda12``); importing ``jax_plugins.xla_cuda13`` itself would import JAX, so it
is found on the package's search path instead and loaded through jaxlib's PJRT plugin
API. Its devices say ``platform == "gpu"``; lowering rules are registered under
``"cuda"``. GPU memory is not host memory: eager NumPy calls on Arrays committed to a
GPU run compiled on it, and host reads copy.
"""

import ctypes
import functools
import importlib.util
import os

from ..config import config
from ..errors import PlatformUnavailableError
from . import _jaxlib
from .base import Backend

__all__ = ["CudaBackend", "find_plugin", "client_options", "cusolver_version",
           "initialize_hybrid_kernels",
           "HOST_CALLBACK_TARGET", "KDLCUDA", "INSTALL_HINT"]

HOST_CALLBACK_TARGET = "xla_ffi_python_gpu_callback"
KDLCUDA = 2
INSTALL_HINT = ('install the CUDA plugin with pip install "minijax[cuda12]" (CUDA 12) or '
                'pip install "minijax[cuda13]" (CUDA 13), which pin jax-cuda*-plugin and '
                'jax-cuda*-pjrt to jaxlib\'s version, and check that nvidia-smi sees a GPU')
#: The plugin directories, newest CUDA first, and the CUDA major version of each.
PLUGIN_DIRS = (("xla_cuda13", 13), ("xla_cuda12", 12))
PLUGIN_LIBRARY = "xla_cuda_plugin.so"


def find_plugin():
    """``(path of the plugin's shared object, CUDA major version)``, or None when no
    CUDA plugin is installed (nothing is imported: the namespace package is searched)."""
    try:
        spec = importlib.util.find_spec("jax_plugins")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    for directory, major in PLUGIN_DIRS:
        for location in locations:
            path = os.path.join(location, directory, PLUGIN_LIBRARY)
            if os.path.isfile(path):
                return path, major
    return None


# NVIDIA's pip wheels (nvidia-*-cu12, nvidia-cu13) put the CUDA libraries under the
# ``nvidia`` namespace package; loaded first, the plugin finds them there rather than
# on the system's library path (JAX does the same).
_NVIDIA_LIBRARIES = {
    13: [("cu13", ("libcudart.so.13", "libnvrtc.so.13", "libcublas.so.13",
                   "libcublasLt.so.13", "libcusparse.so.12", "libcusolver.so.12",
                   "libcufft.so.12"))],
    12: [("cuda_runtime", ("libcudart.so.12",)), ("cuda_nvrtc", ("libnvrtc.so.12",)),
         ("cublas", ("libcublas.so.12", "libcublasLt.so.12")),
         ("cusparse", ("libcusparse.so.12",)), ("cusolver", ("libcusolver.so.11",)),
         ("cufft", ("libcufft.so.11",)), ("cudnn", ("libcudnn.so.9",))],
}


def _preload_nvidia_libraries(major):
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return
    if spec is None:
        return
    for location in spec.submodule_search_locations or ():
        for package, libraries in _NVIDIA_LIBRARIES[major]:
            for lib in libraries:
                path = os.path.join(location, package, "lib", lib)
                if os.path.isfile(path):
                    try:
                        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                    except OSError:
                        pass   # the plugin reports what it cannot find when it starts


def client_options():
    """The CUDA client's options: jaxlib's GPU defaults and minijax's memory settings
    (``config.gpu_memory_fraction``, ``config.gpu_preallocate``)."""
    options = _jaxlib.gpu_plugin_options()
    if config.gpu_memory_fraction is not None:
        options["memory_fraction"] = float(config.gpu_memory_fraction)
    if config.gpu_preallocate is not None:
        options["preallocate"] = bool(config.gpu_preallocate)
    return options


class CudaBackend(Backend):
    platform = "cuda"
    device_platforms = ("gpu", "cuda")
    host_callback_target = HOST_CALLBACK_TARGET
    dlpack_device_type = KDLCUDA
    reads_host_memory = False

    def __init__(self, plugin=None):
        super().__init__()
        self.plugin = plugin if plugin is not None else find_plugin()
        self._host_read = None   # how to_host reads (chosen on the first read)

    def make_client(self):
        if self.plugin is None:
            raise PlatformUnavailableError(f"platform 'cuda': no CUDA plugin is installed; "
                                           f"{INSTALL_HINT}")
        path, major = self.plugin
        _preload_nvidia_libraries(major)
        try:
            c_api = _jaxlib.load_pjrt_plugin("cuda", path)
            if c_api is not None:   # (None: JAX loaded the plugin and registered them)
                _jaxlib.register_gpu_targets("cuda", "CUDA", c_api)
            return _jaxlib.make_plugin_client("cuda", client_options())
        except PlatformUnavailableError:
            raise
        except Exception as e:
            raise PlatformUnavailableError(
                f"platform 'cuda': the CUDA plugin {path} did not start "
                f"({type(e).__name__}: {e}); {INSTALL_HINT}") from e

    def to_host(self, buffer, dtype=None):
        """A read-only host ndarray copy of a GPU buffer (waits for it).

        NumPy cannot read GPU memory through DLPack: the buffer is copied to the CPU
        client's device and read there; where the plugin cannot copy across clients,
        jaxlib's own conversion is used."""
        if self._host_read is not False:
            try:
                cpu = _cpu_backend()
                host = cpu.to_host(_jaxlib.copy_to_device(buffer, cpu.default_device()), dtype)
                self._host_read = True
                return host
            except Exception:
                if self._host_read:
                    raise
                self._host_read = False
        host = _jaxlib.buffer_to_numpy(buffer)
        host.flags.writeable = False
        return host


@functools.lru_cache(maxsize=None)
def cusolver_version():
    """The version number of the cuSOLVER jaxlib's CUDA plugin uses (11701 for 11.7.1),
    or None where no plugin is installed."""
    try:
        versions = _jaxlib._plugin_submodule("cuda", "_versions")
        return None if versions is None else int(versions.cusolver_get_version())
    except Exception:   # (a plugin whose libraries do not load: lowered as without one)
        return None


@functools.lru_cache(maxsize=None)
def initialize_hybrid_kernels():
    """Give the plugin's hybrid kernels (``cuhybrid_eig_*``: LAPACK on the host) their
    LAPACK, once, as JAX does when it lowers ``eig``: uninitialized, they call a null
    function and the process crashes."""
    try:
        solver = _jaxlib.load("jaxlib.gpu_solver")
    except ImportError:   # (no GPU support in this jaxlib: nothing runs them)
        return
    solver.initialize_hybrid_kernels()


def _cpu_backend():
    # (the registry imports this module: look the CPU backend up when first needed)
    from . import get_backend
    return get_backend("cpu")
