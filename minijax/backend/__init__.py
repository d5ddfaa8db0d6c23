"""Backends: one per platform, each owning a PjRt client (the only package using jaxlib).

``get_backend(platform)`` gives the ``Backend`` of a platform (the default one, the
CPU, for None); ``devices``, ``default_device`` and ``resolve_device`` answer in terms
of devices. The module-level ``compile_module``, ``to_device`` and ``to_host`` send a
call to the backend of the device or buffer it names. ``_jaxlib`` holds the lazy
jaxlib import and the MLIR dialect modules (``ir``, ``hlo``, ``chlo``,
``func_dialect``) that lowering uses.

Adding a platform: a module beside ``cpu.py`` with a ``Backend`` subclass (its client,
host read and platform facts), registered below with ``register_backend``, and the
per-platform lowering rules its custom calls need (``Primitive.platform_lower``).
"""

import warnings

from ..config import config
from ..errors import InvalidDeviceError, PlatformUnavailableError, UnknownPlatformError
from . import _jaxlib
from ._jaxlib import (chlo, device_sharding, execute, func_dialect, hlo, ir, new_context,
                      parse_module, result_handlers, xla_computation)
from .base import Backend
from . import cpu as _cpu
from .cpu import CpuBackend, lapack_target
from .cuda import INSTALL_HINT as _CUDA_HINT, CudaBackend, find_plugin as _find_cuda_plugin

__all__ = ["Backend", "CpuBackend", "CudaBackend", "LOWERING_PLATFORMS", "backend_for_device",
           "backends", "chlo", "compile_module", "compile_options", "copy_buffer",
           "default_device", "default_platform", "device_sharding", "devices",
           "dlpack_device", "dlpack_export", "execute", "expand_platform",
           "func_dialect", "get_backend", "get_client", "hlo", "host_callback_target", "import_dlpack", "ir",
           "jaxlib_version", "lapack_target", "local_devices", "new_context", "parse_module",
           "platform_of",
           "process_count", "process_index",
           "reads_host_memory", "register_backend", "requested_platforms",
           "resolve_device", "result_handlers", "to_device", "to_host",
           "unregister_backend", "xla_computation"]

#: The platforms lowering rules may be registered for (JAX's names).
LOWERING_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
#: JAX's alias: a rule for "gpu" is a rule for each GPU platform.
_ALIASES = {"gpu": ("cuda", "rocm")}

_backends = {}             # platform -> Backend
_by_device_platform = {}   # what jaxlib's device.platform says -> Backend
_only = None               # the backend, while exactly one is registered (the common case)
_default = None            # the default platform's Backend, once chosen (_select_default)
_visible = None            # {platform: Backend} that config.platforms lets run (_visible_backends)
#: Platforms tried, in order, when ``config.platforms`` names none (JAX's priorities).
_AUTO_ORDER = ("cuda", "rocm", "tpu", "cpu")
#: What to install for a platform that is not available.
_INSTALL = {"cuda": _CUDA_HINT}


def register_backend(backend):
    """Make ``backend`` (a ``Backend`` instance) the one for its platform."""
    global _only
    if backend.platform not in LOWERING_PLATFORMS:
        raise UnknownPlatformError(f"register_backend: platform {backend.platform!r} is not "
                                   f"one of {', '.join(LOWERING_PLATFORMS)}")
    _backends[backend.platform] = backend
    for name in backend.device_platforms:
        _by_device_platform.setdefault(name, backend)
    _only = backend if len(_backends) == 1 else None
    _forget_default()
    return backend


def unregister_backend(platform):
    """Remove the backend of ``platform`` (tests that add a platform take it away)."""
    global _only
    backend = _backends.pop(platform, None)
    for name in list(_by_device_platform):
        if _by_device_platform[name] is backend:
            del _by_device_platform[name]
    _only = next(iter(_backends.values())) if len(_backends) == 1 else None
    _forget_default()


def _forget_default(name=None):
    global _default, _visible
    if name is None or name == "platforms":
        _default = _visible = None


def _visible_backends():
    """The registered backends ``config.platforms`` lets run: those it names, as JAX's
    ``jax_platforms``, and always the CPU, where eager Arrays live and every other
    platform's buffers are read (all of them when it names none)."""
    global _visible
    if _visible is None:
        requested = requested_platforms()
        _visible = {p: b for p, b in _backends.items()
                    if not requested or p == "cpu" or p in requested}
    return _visible


config.on_update(_forget_default)

register_backend(CpuBackend())
if _find_cuda_plugin() is not None:   # (a file lookup: nothing is loaded until used)
    register_backend(CudaBackend())


def requested_platforms():
    """The platforms ``config.platforms`` (``MINIJAX_PLATFORMS``) names, in order, with
    aliases expanded; () when it names none."""
    text = config.platforms
    if not text:
        return ()
    names = []
    for part in text.split(","):
        part = part.strip().lower()
        if part:
            expanded = expand_platform(part, "config.platforms")
            if len(expanded) > 1:   # an alias ("gpu"): those of its platforms present
                expanded = tuple(p for p in expanded if p in _backends) or expanded[:1]
            for name in expanded:
                if name not in names:
                    names.append(name)
    return tuple(names)


def _unavailable(platform, why):
    hint = _INSTALL.get(platform)
    return PlatformUnavailableError(
        f"platform {platform!r} {why}; minijax runs on "
        f"{', '.join(repr(p) for p in _visible_backends())} in this process"
        + (f": {hint}" if hint else ""))


def _start(backend):
    """``backend`` with its client made, or the named error saying why it cannot start."""
    try:
        backend.get_client()
    except PlatformUnavailableError:
        raise
    except Exception as e:
        raise _unavailable(backend.platform, f"did not start ({type(e).__name__}: {e})") from e
    return backend


def _select_default():
    """Choose the default backend: the first platform ``config.platforms`` names (each
    one named must start, as JAX's ``jax_platforms``), else the first registered
    platform in JAX's priority order whose client starts."""
    global _default
    requested = requested_platforms()
    if requested:
        for name in requested:
            backend = _backends.get(name)
            if backend is None:
                raise _unavailable(name, "was requested (config.platforms / "
                                         "MINIJAX_PLATFORMS) but has no backend")
            if name != "cpu":   # (the CPU cannot fail to start: its client stays lazy)
                _start(backend)
        chosen = _backends[requested[0]]
    else:
        chosen = None
        for name in _AUTO_ORDER:
            backend = _backends.get(name)
            if backend is None:
                continue
            if name == "cpu":
                chosen = backend
                break
            try:
                chosen = _start(backend)
                break
            except PlatformUnavailableError as e:
                warnings.warn(f"minijax: {e}. Falling back to the next platform.",
                              RuntimeWarning, stacklevel=3)
    _default = chosen
    return chosen


def expand_platform(platform, what):
    """The lowering platforms ``platform`` names (an alias names several); anything
    else raises ``UnknownPlatformError`` listing the accepted names."""
    if platform in LOWERING_PLATFORMS:
        return (platform,)
    if platform in _ALIASES:
        return _ALIASES[platform]
    raise UnknownPlatformError(
        f"{what}: unknown platform {platform!r}; the platforms are "
        f"{', '.join(repr(p) for p in LOWERING_PLATFORMS + tuple(_ALIASES))}")


def default_platform():
    """The platform programs are compiled for when no device says otherwise."""
    return (_default or _select_default()).platform


def backends():
    """``{platform: Backend}`` of the platforms this process can run on."""
    return dict(_visible_backends())


def get_backend(platform=None):
    """The ``Backend`` of ``platform`` (the default platform for None)."""
    if platform is None:
        return _default or _select_default()
    visible = _visible_backends()
    backend = visible.get(platform)
    if backend is None:
        for name in expand_platform(platform, "get_backend"):
            if name in visible:
                return visible[name]
        if platform in _backends:   # installed, but config.platforms leaves it out
            raise PlatformUnavailableError(
                f"platform {platform!r} is not available: minijax has no backend for "
                f"platform {platform!r} among those config.platforms (MINIJAX_PLATFORMS) "
                f"names ({config.platforms!r}); minijax runs on "
                f"{', '.join(repr(p) for p in visible)} in this process: name it there "
                f"to use it")
        raise _unavailable(platform, "is not available: minijax has no backend for "
                                     f"platform {platform!r}")
    return backend


def backend_for_device(device):
    """The ``Backend`` that owns ``device``."""
    backend = _only
    if backend is None:
        backend = _by_device_platform.get(device.platform)
        if backend is None or backend._client is not device.client:
            # two backends whose devices say the same platform: the client decides
            for other in _backends.values():
                if other._client is not None and other._client is device.client:
                    return other
            if backend is None:
                raise InvalidDeviceError(f"{device!r} belongs to no minijax backend")
    return backend


def platform_of(device):
    """The lowering platform of programs that run on ``device`` (None: the default)."""
    if device is None:
        return default_platform()
    return backend_for_device(device).platform


def reads_host_memory(device):
    """Whether buffers on ``device`` are host memory NumPy can read in place (True for
    None, the host)."""
    return device is None or backend_for_device(device).reads_host_memory


# The backend class of each platform minijax knows, for facts about a platform this
# process has no backend for (lowering for a GPU on a CPU machine). ROCm's Python
# callback target is the GPU one too.
_BACKEND_CLASSES = {"cpu": CpuBackend, "cuda": CudaBackend, "rocm": CudaBackend}


def host_callback_target(platform):
    """The custom-call target through which programs for ``platform`` call Python (the
    registered backend's, else its backend class's); None for a platform without one."""
    owner = _backends.get(platform) or _BACKEND_CLASSES.get(platform)
    return None if owner is None else owner.host_callback_target


def dlpack_device(device):
    """DLPack's ``(device type, device index)`` for an Array on ``device`` (None: the
    host). Host memory is one DLPack device, ``(kDLCPU, 0)``, whichever CPU device
    holds the buffer (NumPy's export says so too)."""
    if device is None:
        return (get_backend("cpu").dlpack_device_type, 0)
    owner = backend_for_device(device)
    if owner.reads_host_memory:
        return (owner.dlpack_device_type, 0)
    return (owner.dlpack_device_type, getattr(device, "local_hardware_id", None) or device.id)


#: DLPack device types of host memory: kDLCPU, kDLCUDAHost, kDLCUDAManaged.
HOST_DLPACK_TYPES = (1, 3, 13)
_DLPACK_PLATFORMS = {2: "cuda", 10: "rocm"}   # kDLCUDA, kDLROCM


def copy_buffer(buffer, device):
    """A copy of a PjRt buffer on ``device`` (which may be another client's)."""
    return _jaxlib.copy_to_device(buffer, device)


def dlpack_export(buffer, stream=None):
    """A DLPack capsule of a device buffer (``stream``: the consumer's, made to wait)."""
    return _jaxlib.dlpack_export(buffer, stream)


def import_dlpack(producer, copy=None):
    """``(PjRt buffer, device)`` sharing the memory of a DLPack ``producer`` whose data
    is on a device (a GPU), not in host memory; ``PlatformUnavailableError`` when no
    backend of this process owns that device."""
    dl_type, index = producer.__dlpack_device__()
    owner = None
    for b in _backends.values():
        if b.dlpack_device_type == dl_type and not b.reads_host_memory:
            owner = b
            break
    if owner is None:
        platform = _DLPACK_PLATFORMS.get(int(dl_type), f"of DLPack device type {dl_type}")
        raise _unavailable(platform, f"holds the array given to from_dlpack (DLPack device "
                                     f"({dl_type}, {index})), and minijax has no backend for it")
    owned = [d for d in _start(owner).devices()
             if (getattr(d, "local_hardware_id", None) or d.id) == index]
    if not owned:
        raise InvalidDeviceError(f"from_dlpack: the array is on {owner.platform} device "
                                 f"{index}, which is not one of {list(owner.devices())}")
    device = owned[0]
    stream = _jaxlib.external_ready_stream(device)
    buf = _jaxlib.dlpack_import(producer.__dlpack__(stream=stream), device, stream)
    if copy:
        buf = copy_buffer(buf, device)
    return buf, device


def get_client(platform=None):
    """The PjRt client of ``platform`` (made on first use)."""
    return get_backend(platform).get_client()


def devices(platform=None):
    """The devices of ``platform`` (the default platform for None)."""
    return get_backend(platform).devices()


def local_devices(platform=None):
    """This process's devices of ``platform`` (all of them in a single-process run)."""
    return get_backend(platform).get_client().local_devices()


def process_index():
    """This process's index in a multi-process run (``minijax.distributed``); 0 alone."""
    options = _cpu.distributed
    return 0 if options is None else options["process_id"]


def process_count():
    """The number of processes of the run (``minijax.distributed``); 1 alone."""
    options = _cpu.distributed
    return 1 if options is None else options["num_processes"]


def default_device():
    """The device a computation with no committed input runs on."""
    return get_backend().default_device()


def resolve_device(device, what):
    """``device`` as one of the backends' devices: a device object (what ``x.device``
    and ``minijax.devices()`` return), or a platform name (``"cpu"``, NumPy's device
    name), meaning that platform's default device. Anything else raises
    ``InvalidDeviceError`` naming what to pass."""
    visible = _visible_backends()
    names = ", ".join(repr(p) for p in visible)
    if isinstance(device, str):
        if device in visible:
            return visible[device].default_device()
        raise InvalidDeviceError(
            f"{what}: unsupported device {device!r}. minijax runs on {names}: pass a device "
            f"object (x.device, or one of minijax.devices()) or a platform name ({names})")
    client = getattr(device, "client", None)
    backend = next((b for b in _backends.values() if b._client is not None
                    and b._client is client), None)
    if backend is None:
        backend = _by_device_platform.get(getattr(device, "platform", None))
    known = backend.devices() if backend is not None else devices()
    if any(device is d or (type(device) is type(d) and device == d) for d in known):
        return device
    raise InvalidDeviceError(
        f"{what}: {device!r} (of type {type(device).__name__}) is not one of minijax's "
        f"devices {list(known)}; pass a device object (x.device, or one of "
        f"minijax.devices()) or a platform name ({names})")


def compile_options(device):
    """XLA's compile options for a program that runs on ``device``."""
    return backend_for_device(device).compile_options(device)


def compile_module(module_text, device, host_callbacks=()):
    """Compile StableHLO text for ``device`` on its backend; returns a loaded executable."""
    return backend_for_device(device).compile(module_text, device, host_callbacks)


def to_device(host, device, aval=None):
    """Copy a host ndarray to ``device``; returns a PjRt buffer (which may alias
    ``host``: do not write to ``host`` while it lives)."""
    backend = _only if _only is not None else backend_for_device(device)
    return backend.to_device(host, device, aval)


def to_host(buffer, dtype=None):
    """A read-only host ndarray with a PjRt buffer's values (waits for it)."""
    backend = _only
    if backend is None:
        backend = backend_for_device(_jaxlib.buffer_device(buffer))
    return backend.to_host(buffer, dtype)


def __getattr__(name):
    # ``jaxlib_version`` and ``BufferType`` exist once jaxlib is loaded
    if name in ("jaxlib_version", "BufferType"):
        return getattr(_jaxlib, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
