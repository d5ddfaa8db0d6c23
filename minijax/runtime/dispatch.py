"""Eager evaluation: the interpreter at the bottom of the trace stack.

On the CPU a primitive runs its NumPy kernel (microseconds); with
``eager_backend="xla"``, or on a non-CPU device, it runs a compiled one-primitive
XLA executable, cached by (primitive, params, input types, device). ``Executable``
also runs whole jaxprs for ``jit``.
"""

import threading
import weakref

import numpy as np

from .. import dtypes
from ..config import config
from ..core import Jaxpr, JaxprEqn, ShapedArray, Trace, Tracer, Var, get_aval, set_eval_trace
from ..core.trace import set_eager_bind, set_observe
from ..interpreters.lowering import lower_jaxpr
from ..util import LRUCache
from .. import backend
from .array import Array, _make, freeze_arrays
from ..errors import ShardingError
from ..backend import _jaxlib
from .sharding import NamedSharding, PartitionSpec, named_from_hlo, placement_on, put_sharded


class EvalTrace(Trace):
    __slots__ = ()

    def pure(self, val):
        return val

    lift = pure

    def process_primitive(self, primitive, args, params):
        if primitive.eager is not None:
            return primitive.eager(*args, **params)
        if primitive.abstract_eval is None or (primitive.impl is None
                                               and not primitive.has_lowering()):
            return _eval_without_rules(primitive, args, params)
        avals_in = [get_aval(a) for a in args]
        avals_out = _abstract_eval(primitive, avals_in, params)
        placement = result_placement(args)
        if (primitive.impl is not None and config.eager_backend == "numpy"
                and (placement is None or placement._host_eager)
                and not (primitive.prefer_xla and primitive.prefer_xla(*avals_in, **params))):
            hosts = [host_value(a, aval) for a, aval in zip(args, avals_in)]
            outs = primitive.impl(*hosts, **params)
            _guard_aliases(outs, args)
            return [_wrap_host(o, aval, placement, primitive)
                    for o, aval in zip(outs, avals_out)]
        return _eager_xla(primitive, args, avals_in, params, placement)


set_eval_trace(EvalTrace)


def _eval_without_rules(primitive, args, params):
    # A user primitive may define only ``def_impl`` (as in JAX): run it on host values
    # and take the output types from its results.
    if primitive.impl is None:
        raise NotImplementedError(
            f"Evaluation rule for '{primitive.name}' not implemented: define it with "
            f"{primitive.name}_p.def_impl(fn) (a NumPy kernel), or give it an abstract "
            f"evaluation rule and a lowering (minijax.extend.mlir.register_lowering)")
    outs = primitive.impl(*[host_value(a, get_aval(a)) for a in args], **params)
    placement = result_placement(args)
    results = []
    for o in outs:
        o = np.asarray(o)
        results.append(_wrap_host(o, ShapedArray(o.shape, dtypes.canonicalize(o.dtype)),
                                  placement, primitive))
    return results

_avals_out_cache = {}

# ---------------------------------------------------------------- eager fast path
#
# ``bind`` calls ``eager_bind`` first when no transformation is active. It handles
# the common case, every operand an uncommitted Array, with one dict lookup keyed by
# (primitive, input avals, params) that gives the output avals; then the NumPy
# kernel runs and its results are wrapped. Everything else (tracers, Python scalars,
# committed arrays, the XLA eager backend, ``eager`` rules, unhashable params) takes
# ``EvalTrace.process_primitive``, which computes the same thing step by step.

_fast_cache = {}   # (primitive, *avals_in, *params) -> avals_out
_by_id = {}        # (primitive, *ids of avals_in) -> (avals_out, avals_in), no params
_ndarray = np.ndarray


def eager_bind(primitive, args, params):
    """The outputs (a list) of ``primitive`` on ``args``, or None: not handled here."""
    # Avals are looked up by identity first (outputs of this path reuse the cached
    # output avals, so chains of operations hit), by value on a miss. The entry keeps
    # its input avals alive so their ids cannot be reused by other objects.
    if config.eager_backend != "numpy":
        return None
    if len(args) == 2 and not params:
        x, y = args
        if type(x) is not Array or type(y) is not Array:
            return None
        hx, hy = x._host, y._host
        if (type(hx) is not _ndarray or type(hy) is not _ndarray or x._view is not None
                or y._view is not None or x._placement is not None or y._placement is not None):
            return _eager_bind(primitive, args, params)
        entry = _by_id.get((primitive, id(x.aval), id(y.aval)))
        if entry is None:
            entry = _id_entry(primitive, args, (primitive, id(x.aval), id(y.aval)))
            if entry is None:
                return None
        outs = primitive.impl(hx, hy)
        _guard_aliases(outs, args)
    elif len(args) == 1 and not params:
        x = args[0]
        if type(x) is not Array:
            return None
        hx = x._host
        if type(hx) is not _ndarray or x._view is not None or x._placement is not None:
            return _eager_bind(primitive, args, params)
        entry = _by_id.get((primitive, id(x.aval)))
        if entry is None:
            entry = _id_entry(primitive, args, (primitive, id(x.aval)))
            if entry is None:
                return None
        outs = primitive.impl(hx)
        _guard_aliases(outs, args)
    else:
        return _eager_bind(primitive, args, params)
    avals_out = entry[0]
    return [_host_result(o, aval, primitive) for o, aval in zip(outs, avals_out)]


def _guard_aliases(outs, args):
    """A kernel output that shares memory with an input (a reshape, a slice) makes both
    copy-on-write: a lax result is a value, never a view."""
    for o in outs:
        if type(o) is _ndarray and (o.base is not None or any(
                type(a) is Array and a._host is o for a in args)):
            o.flags.writeable = False
            for a in args:
                if type(a) is Array:
                    a._freeze()
            return


def _host_result(o, aval, primitive):
    """An uncommitted Array holding the kernel output ``o`` (checked and converted by
    ``_wrap_host`` unless it is already an ndarray of ``aval``'s dtype and shape)."""
    if type(o) is not _ndarray or o.dtype != aval.dtype or o.shape != aval.shape:
        return _wrap_host(o, aval, None, primitive)
    return _make(aval, o)


def _id_entry(primitive, args, key):
    if primitive.prefer_xla and primitive.prefer_xla(*[a.aval for a in args]):
        return None
    avals_out = _lookup(primitive, args, {}, (primitive, *[a.aval for a in args]))
    if avals_out is None:
        return None
    if len(_by_id) > 20_000:
        _by_id.clear()
    entry = _by_id[key] = (avals_out, [a.aval for a in args])
    return entry


def _lookup(primitive, args, params, key):
    try:
        avals_out = _fast_cache[key]
    except KeyError:
        avals_out = _fast_entry(primitive, args, params, key)
    except TypeError:   # unhashable params
        return None
    return avals_out


def _eager_bind(primitive, args, params):
    # The general form: any number of operands, params, host values made on demand.
    if primitive.eager is not None or primitive.impl is None or primitive.abstract_eval is None:
        return None
    for a in args:
        if type(a) is not Array or a._placement is not None:
            return None
    avals_out = _lookup(primitive, args, params,
                        (primitive, *[a.aval for a in args], *params.items()))
    if avals_out is None or (primitive.prefer_xla
                             and primitive.prefer_xla(*[a.aval for a in args], **params)):
        return None
    outs = primitive.impl(*[a._value() for a in args], **params)
    _guard_aliases(outs, args)
    return [_wrap_host(o, aval, None, primitive) for o, aval in zip(outs, avals_out)]


def _fast_entry(primitive, args, params, key):
    if primitive.eager is not None or primitive.impl is None or primitive.abstract_eval is None:
        return None
    avals_out = _abstract_eval(primitive, [a.aval for a in args], params)
    if len(_fast_cache) > 20_000:
        _fast_cache.clear()
    _fast_cache[key] = avals_out = tuple(avals_out)
    return avals_out


def _abstract_eval(primitive, avals_in, params):
    """``primitive.abstract_eval``, memoised: eager code repeats the same signatures."""
    key = (primitive, *avals_in, *params.items())
    try:
        out = _avals_out_cache.get(key)
    except TypeError:   # unhashable params
        return primitive.abstract_eval(*avals_in, **params)
    if out is None:
        out = primitive.abstract_eval(*avals_in, **params)
        if len(_avals_out_cache) > 50_000:
            _avals_out_cache.clear()
        _avals_out_cache[key] = out
    return out


def as_array(x):
    """``x`` (an Array, tracer, NumPy array or scalar, Python scalar) as an Array or
    tracer: host values are copied in their canonical dtype, Python scalars weakly
    typed; anything else raises ``TypeError``."""
    if isinstance(x, (Array, Tracer)):
        return x
    aval = get_aval(x)
    return _make(aval, np.array(x, aval.dtype))


def host_value(x, aval):
    if type(x) is Array:
        return x._value()
    return np.asarray(x, dtype=aval.dtype)


def _wrap_host(out, aval, placement, primitive):
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    if out.dtype != aval.dtype:
        out = out.astype(aval.dtype)
    if out.shape != aval.shape:
        raise AssertionError(f"internal error: NumPy kernel of {primitive} returned shape "
                             f"{out.shape}, its abstract evaluation says {aval.shape}")
    return _make(aval, out, None, placement)


def result_placement(args):
    """The placement arguments are committed to (None: none is committed). Sharded
    arguments may have different specs (and meshes) over the same devices in the same
    order; the first one's is returned (``spmd_call`` takes each argument's own)."""
    placement = None
    for a in args:
        if type(a) is Array and a._placement is not None:
            p = a._placement
            if placement is None:
                placement = p
            elif p != placement:
                if p._device is None and placement._device is None:
                    if p.mesh._flat == placement.mesh._flat:
                        continue
                    raise ShardingError(
                        f"arrays sharded over different devices (or the same devices in "
                        f"another order) were combined: {placement!r} and {p!r}; move "
                        f"them onto one mesh with minijax.device_put first")
                if p._device is None or placement._device is None:
                    raise ShardingError(
                        f"Received incompatible devices: an array sharded over "
                        f"{(p if p._device is None else placement).num_devices} devices "
                        f"was combined with one committed to a single device "
                        f"({(placement if p._device is None else p)._device}); move them "
                        f"with minijax.device_put first")
                raise ValueError(f"arrays committed to different devices "
                                 f"({placement._device} and {p._device}) were "
                                 f"combined; move them with minijax.device_put first")
    return placement


_eager_cache = LRUCache(lambda: config.eager_cache_size)   # bounded: config.eager_cache_size


def clear_eager_cache():
    """Drop the one-primitive executables kept for eager evaluation on the XLA path."""
    _eager_cache.clear()


def _eager_xla(primitive, args, avals_in, params, placement):
    if placement is not None and placement._device is None:
        # a sharded operand: the one-primitive program compiled for its mesh
        in_vars = [Var(a) for a in avals_in]
        out_vars = [Var(a) for a in _abstract_eval(primitive, avals_in, params)]
        jaxpr = Jaxpr(in_vars, [JaxprEqn(primitive, in_vars, params, out_vars)], out_vars)
        try:
            key = (primitive, tuple(avals_in), tuple(sorted(params.items())))
            hash(key)
        except TypeError:
            return spmd_call(jaxpr, args, placement)
        cached = _spmd_eager_jaxprs.get(key)
        if cached is None:
            cached = _spmd_eager_jaxprs[key] = jaxpr
        return spmd_call(cached, args, placement)
    target = placement._device if placement is not None else backend.default_device()
    try:
        key = (primitive, tuple(avals_in), tuple(sorted(params.items())), target)
        hash(key)
    except TypeError:
        key = None
    exe = _eager_cache.get(key) if key is not None else None
    if exe is None:
        in_vars = [Var(a) for a in avals_in]
        out_avals = primitive.abstract_eval(*avals_in, **params)
        out_vars = [Var(a) for a in out_avals]
        jaxpr = Jaxpr(in_vars, [JaxprEqn(primitive, in_vars, params, out_vars)], out_vars)
        exe = Executable(jaxpr, target, committed=placement is not None)
        if key is not None:
            _eager_cache[key] = exe
    return exe(args)


class Executable:
    """A jaxpr compiled by XLA for one device."""

    def __init__(self, jaxpr, device, committed=False):
        self.in_avals = jaxpr.in_avals
        self.out_avals = jaxpr.out_avals
        self.device = device
        self.out_placement = placement_on(device) if committed else None
        host_callbacks = []
        self.text = lower_jaxpr(jaxpr, host_callbacks=host_callbacks,
                                platform=backend.platform_of(device))
        self.loaded = backend.compile_module(self.text, device, host_callbacks)
        self.handlers = backend.result_handlers(self.out_avals, device)

    def __call__(self, args):
        device = self.device
        bufs = [device_buffer(a, aval, device) for a, aval in zip(args, self.in_avals)]
        outs = backend.execute(self.loaded, bufs, self.handlers)
        placement = self.out_placement
        return [_make(aval, None, b, placement) for b, aval in zip(outs, self.out_avals)]


def uncommitted_caller(exe, consts, single=False):
    """``call(args) -> [Array]`` (the one Array if ``single``): ``exe`` (compiled for
    the default device, uncommitted) with ``consts`` bound first, for ``args`` that are
    all uncommitted Arrays (the caller checks). It is ``exe([*consts, *args])`` without
    the per-argument dispatch."""
    device = exe.device
    const_bufs = [device_buffer(c, aval, device) for c, aval in zip(consts, exe.in_avals)]
    loaded = exe.loaded
    handlers = exe.handlers
    execute = backend.execute
    out_avals = exe.out_avals

    def call(args):
        bufs = [a._buffer if a._buffer is not None else a._device_buffer(device)
                for a in args]
        if const_bufs:
            bufs = const_bufs + bufs
        result = []
        for b, aval in zip(execute(loaded, bufs, handlers), out_avals):
            result.append(_make(aval, None, b))
        return result

    if single and len(out_avals) == 1:
        aval, = out_avals

        def call_single(args):
            bufs = [a._buffer if a._buffer is not None else a._device_buffer(device)
                    for a in args]
            if const_bufs:
                bufs = const_bufs + bufs
            return _make(aval, None, execute(loaded, bufs, handlers)[0])
        return call_single
    return call


def device_buffer(x, aval, device):
    if type(x) is Array:
        return x._device_buffer(device)
    return backend.to_device(np.asarray(x, dtype=aval.dtype), device)


_compiled = weakref.WeakKeyDictionary()


def compiled_jaxpr(jaxpr, device, committed):
    """The cached ``Executable`` of ``jaxpr`` for ``device``."""
    per_jaxpr = _compiled.get(jaxpr)
    if per_jaxpr is None:
        per_jaxpr = _compiled[jaxpr] = {}
    key = (device, committed)
    exe = per_jaxpr.get(key)
    if exe is None:
        exe = per_jaxpr[key] = Executable(jaxpr, device, committed)
    return exe


# ---------------------------------------------------------------- SPMD programs

_spmd_eager_jaxprs = LRUCache(lambda: config.eager_cache_size)


class SpmdExecutable:
    """A jaxpr compiled by XLA's SPMD partitioner for the devices of a mesh, for one
    sharding of each input (``mhlo.sharding`` on ``main``'s arguments); XLA chooses the
    outputs' shardings, read back from the executable (never assumed)."""

    def __init__(self, jaxpr, mesh, in_shardings):
        self.in_avals = jaxpr.in_avals
        self.out_avals = jaxpr.out_avals
        self.mesh = mesh
        self.devices = mesh._flat
        self.in_shardings = in_shardings
        self.in_texts = [s.hlo_text(len(a.shape)) for s, a in zip(in_shardings, self.in_avals)]
        host_callbacks = []
        device = self.devices[0]
        self.text = lower_jaxpr(jaxpr, host_callbacks=host_callbacks,
                                platform=backend.platform_of(device),
                                arg_shardings=self.in_texts)
        if host_callbacks:
            raise NotImplementedError("host callbacks (pure_callback, debug.print, ...) in "
                                      "a program on several devices are not supported yet")
        client = backend.backend_for_device(device).get_client()
        self.loaded = _jaxlib.compile_spmd(client, self.text, self.devices)
        self.out_shardings = []
        texts = _jaxlib.output_sharding_texts(self.loaded, len(self.out_avals))
        for text, aval in zip(texts, self.out_avals):
            named = named_from_hlo(mesh, text, len(aval.shape))
            if named is None:
                raise NotImplementedError(
                    f"XLA chose the output sharding {text} for a {aval.str_short()} "
                    f"result, which no PartitionSpec on {mesh!r} expresses; constrain "
                    f"it with out_shardings or lax.with_sharding_constraint")
            self.out_shardings.append(named)
        self.handlers = _jaxlib.multi_result_handlers(
            self.out_avals, [s._jaxlib_sharding(len(a.shape))
                             for s, a in zip(self.out_shardings, self.out_avals)])
        self.collectives = len(self.devices) > 1 and _jaxlib.has_collectives(self.loaded)

    def __call__(self, args):
        bufs = []
        for i, (a, aval, s) in enumerate(zip(args, self.in_avals, self.in_shardings)):
            bufs.append(self._check(i, a, aval, s))
        if self.collectives:
            # XLA's CPU collectives meet in a rendezvous on the client's thread pool: two
            # such programs in flight at once (queued, or from two Python threads) can
            # leave each waiting for threads the other holds, and XLA aborts the process
            # after 40 s. One at a time, each finished before the next starts.
            with _collective_lock:
                outs = backend.execute(self.loaded, bufs, self.handlers)
                for b in outs:
                    b.block_until_ready()
        else:
            outs = backend.execute(self.loaded, bufs, self.handlers)
        return [_make(aval, None, b, s)
                for b, aval, s in zip(outs, self.out_avals, self.out_shardings)]

    def _check(self, i, a, aval, sharding):
        # jaxlib checks only byte sizes: a wrong shape of equal size runs silently, a
        # wrong size or device crashes the process. Everything is checked here first.
        if type(a) is not Array:
            a = as_array(a)
        if a.shape != aval.shape or a.dtype != aval.dtype:
            raise ShardingError(f"argument {i} of the program compiled for {self.mesh!r} is "
                                f"{a.dtype}{list(a.shape)}, it was compiled for "
                                f"{aval.str_short()}")
        placement = a._placement
        if placement is None or placement._device is not None:
            if placement is not None and placement._device not in self.devices:
                raise ShardingError(f"argument {i} is committed to {placement._device}, "
                                    f"which is not one of the mesh's devices")
            if not sharding.is_fully_replicated:
                raise ShardingError(f"argument {i} is not sharded; the program was "
                                    f"compiled for {sharding!r}")
            return put_sharded(a._value(), sharding, a.aval)
        if placement.mesh._flat != self.devices or (
                placement.hlo_text(len(aval.shape)) != self.in_texts[i]):
            raise ShardingError(f"argument {i} is sharded as {placement!r}; the program "
                                f"was compiled for {sharding!r}")
        buf = a._buffer
        if buf is None:   # (written in place on the host since): placed again
            buf = a._buffer = put_sharded(a._value(), placement, a.aval)
        return buf


_spmd_compiled = weakref.WeakKeyDictionary()
_collective_lock = threading.Lock()   # (see SpmdExecutable.__call__)


def spmd_call(jaxpr, args, placement):
    """Run ``jaxpr`` on ``args``, some of them sharded (``placement``: one of their
    shardings): each sharded argument keeps its sharding, the others are replicated
    over the same mesh."""
    mesh = placement.mesh
    replicated = NamedSharding(mesh, PartitionSpec())
    shardings = []
    for a in args:
        p = a._placement if type(a) is Array else None
        shardings.append(p if p is not None and p._device is None else replicated)
    per_jaxpr = _spmd_compiled.get(jaxpr)
    if per_jaxpr is None:
        per_jaxpr = _spmd_compiled[jaxpr] = {}
    key = (mesh._flat, tuple(s.hlo_text(len(aval.shape))
                             for s, aval in zip(shardings, jaxpr.in_avals)))
    exe = per_jaxpr.get(key)
    if exe is None:
        exe = per_jaxpr[key] = SpmdExecutable(jaxpr, mesh, shardings)
    return exe(args)


set_eager_bind(eager_bind)
set_observe(freeze_arrays)
