"""``Backend``: what minijax needs of one platform (a PjRt client and its facts).

A backend owns its client (made on first use, once, under a lock), its devices, the
compile options of a program for one of them, transfers and host reads, and the
platform facts other modules ask about (the host-callback target, the DLPack device
type, whether its buffers are host memory). Subclasses (``backend/cpu.py``) say how
to make the client and override what differs; the rest is the same for every PjRt
client and lives here.
"""

import threading

import numpy as np

from .. import dtypes
from ..config import config
from ..core.avals import ShapedArray
from ..util import LRUCache
from . import _jaxlib, compile_cache
from ._jaxlib import xla_client


class Backend:
    """One platform: subclasses set the facts below and ``make_client``."""

    #: The platform name lowering rules are registered under ("cpu", "cuda", ...).
    platform = None
    #: What jaxlib's ``device.platform`` says for this backend's devices.
    device_platforms = ()
    #: The custom-call target that calls Python back from a compiled program, or None.
    host_callback_target = None
    #: DLPack's device type for buffers on this platform (``kDLCPU`` is 1).
    dlpack_device_type = None
    #: Whether a buffer on this platform is host memory NumPy can read in place (so
    #: eager NumPy kernels may run on it without a transfer).
    reads_host_memory = False

    def __init__(self):
        self._client = None
        self._default_device = None
        self._lock = threading.Lock()
        self._bitcasts = LRUCache(lambda: config.eager_cache_size)

    def __repr__(self):
        return f"<minijax backend {self.platform!r}>"

    def make_client(self):
        """Create this platform's PjRt client (called once)."""
        raise NotImplementedError

    @property
    def client_made(self):
        """Whether the client exists yet (nothing is made by asking)."""
        return self._client is not None

    def get_client(self):
        """The PjRt client, made on first use."""
        if self._client is None:
            _jaxlib.load()
            with self._lock:
                if self._client is None:
                    client = _jaxlib.quietly(self.make_client)
                    # With traceback collection on (jaxlib's default), each execution
                    # through ``execute_sharded`` captures a Python traceback that is never
                    # freed (~90 bytes a call). minijax does not use them. The switch is
                    # process-wide and must not flip while executions are in flight in
                    # other threads (an execution begun with it off and finished with it
                    # on fails), so it is turned off once, here, and left off.
                    _jaxlib._jax.set_tracebacks_enabled(False)
                    self._default_device = client.devices()[0]
                    self._client = client
                    self.client_created(client)
        return self._client

    def client_created(self, client):
        """Hook run once the client exists (the registry listens to it)."""

    def devices(self):
        return self.get_client().devices()

    def default_device(self):
        device = self._default_device
        return device if device is not None else self.get_client().devices()[0]

    def compile_options(self, device):
        """XLA's options for a program that runs on ``device``: its device assignment
        names that device (without it the program is assigned to the client's first
        device, and a buffer on any other device is refused at execution)."""
        options = xla_client.CompileOptions()
        options.device_assignment = xla_client.DeviceAssignment.create(
            np.array([[device.id]], dtype=np.int32))
        return options

    def option_overrides(self, module_text):
        """XLA options (name, value) that the program ``module_text`` needs besides
        ``compile_options``' (none here; see the CPU backend's)."""
        return []

    def compile(self, module_text, device, host_callbacks=()):
        """Compile StableHLO text for ``device``; returns a loaded executable.

        Goes through the persistent compilation cache (backend/compile_cache.py), except
        for a program with ``host_callbacks`` (Python functions its custom calls name by
        index): those live only in this process."""
        client = self.get_client()
        device_list = xla_client.DeviceList((device,))
        options = self.compile_options(device)
        overrides = self.option_overrides(module_text)
        if overrides:
            options.env_option_overrides = overrides
        if host_callbacks:
            return self._compile_with_callbacks(client, module_text, device_list, options,
                                                host_callbacks)
        return compile_cache.compile_cached(
            module_text, client, device, options.SerializeAsString(),
            lambda: client.compile_and_load(module_text, device_list, options),
            lambda data: client.deserialize_executable(data, device_list, options))

    def _compile_with_callbacks(self, client, module_text, device_list, options, callbacks):
        # (this overload of compile_and_load takes a parsed module, not text)
        module = _jaxlib.parse_module(module_text)
        with module.context:
            return client.compile_and_load(module, device_list, options, list(callbacks))

    def to_device(self, host, device, aval=None):
        """Copy a host ndarray to ``device`` (see ``_jaxlib.put``)."""
        return _jaxlib.put(host, device, aval)

    def to_host(self, buffer, dtype=None):
        """A read-only host ndarray with ``buffer``'s values (waits for it)."""
        raise NotImplementedError

    def bitcast(self, buffer, from_dtype, to_dtype):
        """``buffer`` (of ``from_dtype``) reinterpreted on its device as ``to_dtype``, of
        the same width."""
        shape = buffer.aval.shape
        device = _jaxlib.buffer_device(buffer)
        key = (shape, np.dtype(from_dtype), np.dtype(to_dtype), device)
        entry = self._bitcasts.get(key)
        if entry is None:
            names = {np.dtype(dtypes.bfloat16): "bf16", np.dtype(np.uint16): "ui16"}
            dims = "".join(f"{d}x" for d in shape)
            t_in, t_out = (f"tensor<{dims}{names[np.dtype(d)]}>" for d in (from_dtype, to_dtype))
            text = (f"func.func @main(%a: {t_in}) -> {t_out} {{\n"
                    f"  %b = stablehlo.bitcast_convert %a : ({t_in}) -> {t_out}\n"
                    f"  return %b : {t_out}\n}}")
            exe = self.compile(text, device)
            handlers = _jaxlib.result_handlers([ShapedArray(shape, np.dtype(to_dtype))], device)
            entry = self._bitcasts[key] = (exe, handlers)
        exe, handlers = entry
        return _jaxlib.execute(exe, [buffer], handlers)[0]
