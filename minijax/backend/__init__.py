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

from ..errors import InvalidDeviceError, UnknownPlatformError
from . import _jaxlib
from ._jaxlib import (chlo, device_sharding, execute, func_dialect, hlo, ir, new_context,
                      result_handlers)
from .base import Backend
from .cpu import CpuBackend, lapack_target

__all__ = ["Backend", "CpuBackend", "LOWERING_PLATFORMS", "backend_for_device", "backends",
           "chlo", "compile_module", "compile_options", "default_device", "default_platform",
           "device_sharding", "devices", "dlpack_device", "execute", "expand_platform",
           "func_dialect", "get_backend", "get_client", "hlo", "ir", "jaxlib_version",
           "lapack_target", "new_context", "platform_of", "reads_host_memory",
           "register_backend", "resolve_device", "result_handlers", "to_device", "to_host"]

#: The platforms lowering rules may be registered for (JAX's names).
LOWERING_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
#: JAX's alias: a rule for "gpu" is a rule for each GPU platform.
_ALIASES = {"gpu": ("cuda", "rocm")}

_backends = {}             # platform -> Backend
_by_device_platform = {}   # what jaxlib's device.platform says -> Backend
_only = None               # the backend, while exactly one is registered (the common case)
_DEFAULT_PLATFORM = "cpu"


def register_backend(backend):
    """Make ``backend`` (a ``Backend`` instance) the one for its platform."""
    global _only
    if backend.platform not in LOWERING_PLATFORMS:
        raise UnknownPlatformError(f"register_backend: platform {backend.platform!r} is not "
                                   f"one of {', '.join(LOWERING_PLATFORMS)}")
    _backends[backend.platform] = backend
    for name in backend.device_platforms:
        _by_device_platform[name] = backend
    _only = backend if len(_backends) == 1 else None
    return backend


register_backend(CpuBackend())


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
    return _DEFAULT_PLATFORM


def backends():
    """``{platform: Backend}`` of the platforms this process can run on."""
    return dict(_backends)


def get_backend(platform=None):
    """The ``Backend`` of ``platform`` (the default platform for None)."""
    if platform is None:
        platform = _DEFAULT_PLATFORM
    backend = _backends.get(platform)
    if backend is None:
        for name in expand_platform(platform, "get_backend"):
            if name in _backends:
                return _backends[name]
        raise UnknownPlatformError(
            f"get_backend: minijax has no backend for platform {platform!r} in this "
            f"process; it runs on {', '.join(repr(p) for p in _backends)}")
    return backend


def backend_for_device(device):
    """The ``Backend`` that owns ``device``."""
    backend = _only
    if backend is None:
        backend = _by_device_platform.get(device.platform)
        if backend is None:
            raise InvalidDeviceError(f"{device!r} belongs to no minijax backend")
    return backend


def platform_of(device):
    """The lowering platform of programs that run on ``device`` (None: the default)."""
    if device is None:
        return _DEFAULT_PLATFORM
    return backend_for_device(device).platform


def reads_host_memory(device):
    """Whether buffers on ``device`` are host memory NumPy can read in place (True for
    None, the host)."""
    return device is None or backend_for_device(device).reads_host_memory


def dlpack_device(device):
    """DLPack's ``(device type, device index)`` for an Array on ``device`` (None: the
    host). Host memory is one DLPack device, ``(kDLCPU, 0)``, whichever CPU device
    holds the buffer (NumPy's export says so too)."""
    if device is None:
        return (get_backend("cpu").dlpack_device_type, 0)
    owner = backend_for_device(device)
    return (owner.dlpack_device_type, 0 if owner.reads_host_memory else device.id)


def get_client(platform=None):
    """The PjRt client of ``platform`` (made on first use)."""
    return get_backend(platform).get_client()


def devices(platform=None):
    """The devices of ``platform`` (the default platform for None)."""
    return get_backend(platform).devices()


def default_device():
    """The device a computation with no committed input runs on."""
    return get_backend().default_device()


def resolve_device(device, what):
    """``device`` as one of the backends' devices: a device object (what ``x.device``
    and ``minijax.devices()`` return), or a platform name (``"cpu"``, NumPy's device
    name), meaning that platform's default device. Anything else raises
    ``InvalidDeviceError`` naming what to pass."""
    names = ", ".join(repr(p) for p in _backends)
    if isinstance(device, str):
        if device in _backends:
            return _backends[device].default_device()
        raise InvalidDeviceError(
            f"{what}: unsupported device {device!r}. minijax runs on {names}: pass a device "
            f"object (x.device, or one of minijax.devices()) or a platform name ({names})")
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
