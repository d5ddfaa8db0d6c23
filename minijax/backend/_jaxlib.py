"""The only module that imports jaxlib (its Python surface is not a stable API).

It holds the lazy import, the MLIR dialect modules used by lowering, and the parts
of compilation, transfer and execution that are the same for every PjRt client; the
per-platform parts (the client, host reads, custom-call targets) are the backends'
(``backend/cpu.py``), which reach jaxlib only through this module.

jaxlib is imported on first need (a client, a transfer, a lowering), not when
minijax is imported: eager NumPy-backed code never pays for it. Until then ``ir``,
``hlo``, ``chlo``, ``func_dialect``, ``_jax`` and ``xla_client`` are stand-ins: an
attribute of a dialect module read before loading (``hlo.sine`` in a primitive
definition) is a deferred reference, resolved when called or used.
"""

import functools
import importlib
import os
import re
import threading

import numpy as np

from ..core.avals import ShapedArray
from ..errors import OutOfMemoryError

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
        global _CPU_EMITTER_OPTION
        version = importlib.import_module("jaxlib.version").__version__
        _CPU_EMITTER_OPTION = tuple(int(p) for p in version.split(".")[:2]) < (0, 11)
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


def new_context():
    _load()
    ctx = ir.Context()
    hlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


def parse_module(module_text):
    """StableHLO text as an MLIR module (which keeps its context alive); parsing needs
    the func dialect too, registered through jaxlib's dialect registry."""
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    with new_context() as ctx:
        ctx.append_dialect_registry(registry)
        ctx.load_all_available_dialects()
        return ir.Module.parse(module_text)


def xla_computation(module_text):
    """StableHLO text as XLA's ``XlaComputation`` (``as_hlo_text()``: XLA's HLO)."""
    _load()
    return _jax.mlir.mlir_module_to_xla_computation(module_text, use_tuple_args=False,
                                                    return_tuple=False)


def load(module=None):
    """Import jaxlib (once); with ``module`` (``"jaxlib.lapack"``), import and return
    that jaxlib module too."""
    _load()
    return importlib.import_module(module) if module is not None else None


def quietly(fn):
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


def put(host, device, aval=None):
    """Copy a host ndarray to ``device``; returns a PjRt buffer.

    The buffer may alias ``host`` (zero-copy when XLA can use its memory as is), so
    ``host`` must not be written to while the buffer lives."""
    if aval is None:
        aval = ShapedArray(host.shape, host.dtype)
    return _jax.batched_device_put(aval, device_sharding(device), [host], [device], True,
                                   False, _ZERO_COPY, True)


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


def execute_with_token(executable, buffers, handlers):
    """``execute`` that also returns a token whose ``block_until_ready()`` waits for
    this execution to finish (its outputs need not be held for that)."""
    try:
        if _jax.tracebacks_enabled():
            _jax.set_tracebacks_enabled(False)
            try:
                results = executable.execute_sharded(buffers, with_tokens=True)
            finally:
                _jax.set_tracebacks_enabled(True)
        else:
            results = executable.execute_sharded(buffers, with_tokens=True)
        token = results.consume_token()
        return results.consume_with_handlers(handlers), token
    except _jax.JaxRuntimeError as e:
        if "RESOURCE_EXHAUSTED" in str(e):
            raise OutOfMemoryError(
                "XLA ran out of memory running the program: an array in it is larger "
                "than the memory available; use smaller arrays or fewer at a time") from None
        raise


def buffer_device(buffer):
    """The device a PjRt buffer (a single-device array object) lives on."""
    return buffer._sharding._device


class _Exported:
    """A DLPack capsule in the wrapper ``numpy.from_dlpack`` takes."""

    __slots__ = ("capsule", "device")

    def __init__(self, capsule, device):
        self.capsule = capsule
        self.device = device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def exported(buffer, dlpack_device):
    """``buffer`` as an object ``numpy.from_dlpack`` reads (a DLPack capsule that says
    it lives on ``dlpack_device``, a ``(device type, index)`` pair)."""
    return _Exported(_jax.buffer_to_dlpack_managed_tensor(buffer), dlpack_device)


# ---------------------------------------------------------------- PJRT plugins (GPU)

_plugin_c_apis = {}   # plugin name -> the C API capsule its loading returned


def load_pjrt_plugin(name, library_path):
    """Load and initialize the PJRT plugin ``name`` from its shared object (once);
    returns its C API capsule, or None when another library in this process loaded it
    first (a plugin loads once per process: with JAX beside minijax, JAX must start
    its GPU backend first, else JAX's own load fails)."""
    _load()
    with _load_lock:
        if name not in _plugin_c_apis:
            if xla_client.pjrt_plugin_loaded(name):
                # another library (JAX) loaded it, and registered its targets: the
                # plugin is shared; None says there is nothing left to register
                _plugin_c_apis[name] = None
                return None
            c_api = xla_client.load_pjrt_plugin_dynamically(name, library_path)
            if not xla_client.pjrt_plugin_initialized(name):
                xla_client.initialize_pjrt_plugin(name)
            _plugin_c_apis[name] = c_api
    return _plugin_c_apis[name]


def gpu_plugin_options():
    """jaxlib's default options of a GPU plugin client (allocator, its XLA_* settings)."""
    _load()
    return dict(xla_client.generate_pjrt_gpu_plugin_options())


def make_plugin_client(name, options):
    """A PjRt client of the loaded plugin ``name``."""
    return xla_client.make_c_api_client(name, options, None)


def _plugin_submodule(plugin, submodule):
    # jaxlib finds the plugin package (jax_cuda13_plugin, then jax_cuda12_plugin) and
    # checks that its version is jaxlib's; older jaxlibs lack the helper.
    try:
        support = importlib.import_module("jaxlib.plugin_support")
    except ImportError:
        return None
    return support.import_from_plugin(plugin, submodule)


def register_gpu_targets(plugin, xla_platform, c_api):
    """Register a GPU plugin's custom-call targets with XLA: the plugin extension's
    handlers (custom calls reach the plugin's copy of XLA through its C API) and the
    linear-algebra, PRNG and sparse kernels of jaxlib's ``gpu_*`` modules."""
    ext = _plugin_submodule(plugin, "cuda_plugin_extension" if plugin == "cuda"
                            else "rocm_plugin_extension")
    if ext is not None:
        if hasattr(xla_client, "register_custom_type_handler") and hasattr(
                ext, "register_custom_type"):
            xla_client.register_custom_type_handler(
                xla_platform, functools.partial(ext.register_custom_type, c_api))
            for name, value in getattr(ext, "ffi_types", dict)().items():
                xla_client.register_custom_type(name, value, platform=xla_platform)
        xla_client.register_custom_call_handler(
            xla_platform, functools.partial(ext.register_custom_call_target, c_api))
        for getter in ("ffi_handlers", "ffi_registrations", "registrations"):
            if hasattr(ext, getter):
                for name, value in getattr(ext, getter)().items():
                    xla_client.register_custom_call_target(name, value, platform=xla_platform,
                                                           api_version=1)
                break
    for module in ("jaxlib.gpu_solver", "jaxlib.gpu_linalg", "jaxlib.gpu_prng",
                   "jaxlib.gpu_sparse"):
        try:
            targets = importlib.import_module(module).registrations().get(xla_platform, ())
        except ImportError:
            continue
        for name, value, api_version in targets:
            xla_client.register_custom_call_target(name, value, platform=xla_platform,
                                                   api_version=api_version)


def copy_to_device(buffer, device):
    """``buffer`` copied to ``device``, which may belong to another client (a GPU buffer
    to a CPU device: the host read that imports nothing beyond jaxlib)."""
    return _jax.batched_copy_array_to_devices_with_sharding(
        [buffer], [xla_client.DeviceList((device,))], [device_sharding(device)],
        [_jax.ArrayCopySemantics.ALWAYS_COPY])[0]


def buffer_to_numpy(buffer):
    """A host ndarray copy of ``buffer`` through jaxlib's own conversion (with JAX
    installed, jaxlib imports ``jax.core`` on its first use: a fallback only)."""
    return buffer._single_device_array_to_np_array_did_copy()[0]


def dlpack_export(buffer, stream=None):
    """A DLPack capsule of ``buffer`` on its own device (``stream``: the consumer's
    stream, which is made to wait for the buffer)."""
    return _jax.buffer_to_dlpack_managed_tensor(buffer, stream=stream)


def dlpack_import(capsule, device, stream=None):
    """A PjRt buffer on ``device`` sharing the DLPack ``capsule``'s memory."""
    return _jax.dlpack_managed_tensor_to_buffer(capsule, device, stream)


def external_ready_stream(device):
    """The stream a DLPack producer on ``device`` should make its data ready on (None
    where the client has none)."""
    try:
        return device.get_stream_for_external_ready_events()
    except Exception:   # (UNIMPLEMENTED on clients without streams)
        return None


# ---------------------------------------------------------------- many devices

@functools.lru_cache(maxsize=256)
def gspmd_sharding(devices, hlo_text):
    """jaxlib's ``GSPMDSharding`` over ``devices`` (a tuple: the program's device order)
    for the HLO sharding ``hlo_text`` (the ``mhlo.sharding`` spelling)."""
    _load()
    return _jax.GSPMDSharding(xla_client.DeviceList(devices),
                              xla_client.HloSharding.from_string(hlo_text))


def put_sharded(hosts, devices, sharding, aval):
    """One multi-device array from ``hosts`` (one host ndarray per entry of ``devices``,
    each of its shard's shape) with the ``GSPMDSharding`` ``sharding``."""
    return _jax.batched_device_put(aval, sharding, list(hosts), list(devices), True, False,
                                   _ZERO_COPY, True)


def assemble(aval, sharding, buffers):
    """One multi-device array made of single-device ``buffers`` (in ``sharding``'s
    device order)."""
    return _jax.ArrayImpl(aval, sharding, list(buffers), True, _skip_checks=True)


def shard_buffer(buffer, devices, position, hlo_text):
    """The single-device piece of the multi-device ``buffer`` on ``devices[position]``:
    ``reorder_shards`` to a device order starting with that device (each tile stays on
    its device), whose first buffer is the piece, which DLPack then reads (``_arrays``
    would import JAX). ``hlo_text``: the buffer's HLO sharding."""
    order = (devices[position],) + devices[:position] + devices[position + 1:]
    perm = list(range(len(devices)))
    perm = [position] + perm[:position] + perm[position + 1:]
    dst = reordered_sharding(order, hlo_text, tuple(perm))
    return _jax.reorder_shards(buffer, dst, _jax.ArrayCopySemantics.REUSE_INPUT)


@functools.lru_cache(maxsize=256)
def reordered_sharding(order, text, perm):
    # the same tiles over devices listed in ``order``: logical id k of the new list is
    # logical id perm[k] of the old one, so each tile's device number is renamed
    _load()
    hlo = xla_client.HloSharding.from_string(text)
    if hlo.is_replicated():
        return _jax.GSPMDSharding(xla_client.DeviceList(order), hlo)
    tiles = hlo.tile_assignment_devices()
    inverse = {old: new for new, old in enumerate(perm)}
    dims = list(hlo.tile_assignment_dimensions())
    renamed = [inverse[d] for d in tiles]
    body = f"devices=[{','.join(map(str, dims))}]{','.join(map(str, renamed))}"
    if hlo.replicate_on_last_tile_dim():
        body += " last_tile_dim_replicate"
    return _jax.GSPMDSharding(xla_client.DeviceList(order),
                              xla_client.HloSharding.from_string("{" + body + "}"))


# jaxlib 0.10's XLA CPU fusion emitters crash the process (SIGSEGV while generating code)
# on a bitwise and/or of a signed integer type narrower than 64 bits fed by a conversion
# to that type, as ``x.astype(np.int32) & y`` is (JAX 0.10.2 crashes on the same
# program). Its older emitters, which the test suite compiles everything with, generate
# such a program correctly; jaxlib 0.11's XLA has only the fusion emitters (and no
# option to choose).
_CPU_EMITTER_OPTION = False
_NARROW_SIGNED = r"tensor<(?:[0-9]+x)*i(?:8|16|32)>"
_NARROW_BITWISE = re.compile(r"stablehlo\.(?:and|or)\b[^\n]*" + _NARROW_SIGNED)
_NARROW_CONVERT = re.compile(r"stablehlo\.convert\b[^\n]*-> " + _NARROW_SIGNED)


def cpu_option_overrides(text):
    """The XLA options (name, value) that the CPU program ``text`` (StableHLO) is
    compiled with besides the defaults: the older emitters where the fusion emitters of
    jaxlib 0.10 would crash on it."""
    _load()
    if (_CPU_EMITTER_OPTION and _NARROW_BITWISE.search(text)
            and _NARROW_CONVERT.search(text)):
        return [("xla_cpu_use_fusion_emitters", False)]
    return []


def compile_spmd(client, text, devices):
    """Compile StableHLO ``text`` (with ``mhlo.sharding`` attributes) for ``devices``
    with XLA's SPMD partitioner: one partition per device, in this order."""
    _load()
    options = xla_client.CompileOptions()
    options.num_replicas = 1
    options.num_partitions = len(devices)
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.allow_spmd_sharding_propagation_to_output = [True]
    build.device_assignment = xla_client.DeviceAssignment.create(
        np.array([[d.id for d in devices]], dtype=np.int32))
    if client.platform == "cpu":
        options.env_option_overrides = cpu_option_overrides(text)
    return quietly(lambda: client.compile_and_load(text, xla_client.DeviceList(tuple(devices)),
                                                   options))


_COLLECTIVES = re.compile(r"\b(all-reduce|all-gather|all-to-all|collective-permute|"
                          r"reduce-scatter|collective-broadcast)(-start)?\(")


def has_collectives(executable):
    """Whether the compiled (partitioned) program of ``executable`` communicates between
    its devices (the partitioner may insert collectives the source never named)."""
    return any(_COLLECTIVES.search(m.to_string()) for m in executable.hlo_modules())


def output_sharding_texts(executable, n_outputs):
    """The HLO sharding text of each output of an SPMD executable (XLA reports none for a
    program of one partition: its outputs are whole, replicated)."""
    shardings = executable.get_output_shardings()
    if shardings is None:
        return ["{replicated}"] * n_outputs
    return [str(xla_client.HloSharding.from_proto(s)) for s in shardings]


def multi_result_handlers(avals, shardings):
    """Output builders making multi-device arrays with the given ``GSPMDSharding``s."""
    return [_jax.array_result_handler(aval, s, True, **_HANDLER_OPTIONS)
            for aval, s in zip(avals, shardings)]


# ---------------------------------------------------------------- many processes

def distributed_service(bind_address, num_processes, heartbeat_timeout, register_timeout,
                        shutdown_timeout):
    """jaxlib's coordination service for ``num_processes`` processes. Recoverable: a task
    that fails is not reported to the others through error polling, whose handler
    aborts the process (minijax reports lost peers itself, as ``DistributedError``)."""
    _load()
    return _jax.get_distributed_runtime_service(
        bind_address, num_processes, heartbeat_timeout=heartbeat_timeout,
        cluster_register_timeout=register_timeout, shutdown_timeout=shutdown_timeout,
        recoverable=True)


def distributed_client(address, process_id, init_timeout, heartbeat_timeout,
                       shutdown_timeout, on_error):
    """jaxlib's client of the coordination service at ``address`` (not connected yet).
    ``on_error``: a Python callable; with one, a failed ``connect`` raises instead of
    aborting the process (jaxlib's default handler terminates it)."""
    _load()
    return _jax.get_distributed_runtime_client(
        address, process_id, init_timeout=init_timeout, heartbeat_timeout=heartbeat_timeout,
        shutdown_timeout=shutdown_timeout, missed_heartbeat_callback=on_error,
        shutdown_on_destruction=False, use_compression=True)


def make_distributed_cpu_client(num_devices, client, process_id, num_processes, host,
                                timeout_minutes):
    """A CPU client whose devices are those of every process (global ids), with
    collectives between processes over gloo (TCP on ``host``'s interface)."""
    collectives = _jax.make_gloo_tcp_collectives(client, hostname=host)
    return xla_client.make_cpu_client(
        distributed_client=client, node_id=process_id, num_nodes=num_processes,
        collectives=collectives, num_devices=num_devices,
        get_local_topology_timeout_minutes=timeout_minutes,
        get_global_topology_timeout_minutes=timeout_minutes)
