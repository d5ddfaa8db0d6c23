"""Eager evaluation: the interpreter at the bottom of the trace stack.

On the CPU a primitive runs its NumPy kernel (microseconds); with
``eager_backend="xla"``, or on a non-CPU device, it runs a compiled one-primitive
XLA executable, cached by (primitive, params, input types, device). ``Executable``
also runs whole jaxprs for ``jit``.
"""

import sys
import threading
import warnings
import weakref

import numpy as np

from .. import dtypes, errors
from ..config import config
from ..core import (Jaxpr, JaxprEqn, Literal, ShapedArray, Trace, Tracer, Var, get_aval,
                    set_eval_trace)
from ..core.trace import set_eager_bind, set_observe
from ..interpreters.lowering import lower_jaxpr
from ..util import LRUCache
from .. import backend
from .array import Array, _make, freeze_arrays, set_method
from ..errors import ShardingError
from ..backend import _jaxlib
from .sharding import Mesh, NamedSharding, PartitionSpec, named_from_hlo, placement_on, put_sharded


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

    def __init__(self, jaxpr, device, committed=False, aliases=None):
        self.in_avals = jaxpr.in_avals
        self.out_avals = jaxpr.out_avals
        self.device = device
        self.out_placement = placement_on(device) if committed else None
        host_callbacks = []
        self.text = lower_jaxpr(jaxpr, host_callbacks=host_callbacks,
                                platform=backend.platform_of(device),
                                aliases=dict(aliases) if aliases else None)
        self.loaded = backend.compile_module(self.text, device, host_callbacks)
        self.handlers = backend.result_handlers(self.out_avals, device)

    def __call__(self, args, donated=()):
        device = self.device
        bufs = [device_buffer(a, aval, device) for a, aval in zip(args, self.in_avals)]
        for i in donated:
            bufs[i] = _donatable(args[i], bufs[i], lambda a: backend.to_device(
                np.array(a._value()), device, a.aval))
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


def compiled_jaxpr(jaxpr, device, committed, aliases=()):
    """The cached ``Executable`` of ``jaxpr`` for ``device`` (``aliases``: the
    ``(input, output)`` pairs of donated arguments)."""
    per_jaxpr = _compiled.get(jaxpr)
    if per_jaxpr is None:
        per_jaxpr = _compiled[jaxpr] = {}
    key = (device, committed, aliases) if aliases else (device, committed)
    exe = per_jaxpr.get(key)
    if exe is None:
        exe = per_jaxpr[key] = Executable(jaxpr, device, committed, aliases)
    return exe


# ---------------------------------------------------------------- donation

class _Deleted:
    """What a donated Array holds as its host value: every use of it (``numpy.asarray``,
    an operator, an attribute: the ways the eager path reads a host value) raises JAX's
    error."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def _raise(self, *args, **kwargs):
        raise RuntimeError(f"Array has been deleted with shape={_jax_str(self.aval)}.")

    __array__ = __getattr__ = __getitem__ = __len__ = __iter__ = __float__ = _raise
    __int__ = __index__ = __bool__ = __complex__ = _raise


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
              "or", "xor", "lshift", "rshift", "divmod"):
    setattr(_Deleted, f"__{_name}__", _Deleted._raise)
    setattr(_Deleted, f"__r{_name}__", _Deleted._raise)
for _name in ("neg", "pos", "abs", "invert", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(_Deleted, f"__{_name}__", _Deleted._raise)


def _jax_str(aval):
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def delete(x):
    """Delete the Array ``x``: its buffer is dropped and every later read raises
    ``RuntimeError: Array has been deleted``."""
    if not is_deleted(x):
        x._aval = x.aval
        x._host = _Deleted(x._aval)
        x._buffer = None
        x._view = None


def is_deleted(x):
    """Whether the Array ``x`` was deleted (donated to a jit-compiled function)."""
    return type(x._host) is _Deleted


# (JAX's Array methods; defined here beside the donation that uses them, as
# numpy/_operators.py defines Array.flat)
set_method(Array, "delete", delete)
set_method(Array, "is_deleted", is_deleted)


def donation_aliases(in_avals, out_avals, donated):
    """``(pairs, unusable)``: each donated input position (in order) paired with the first
    output not yet taken of its shape and dtype, as JAX pairs them; the avals of donated
    inputs no output fits."""
    taken = set()
    pairs, unusable = [], []
    for i in donated:
        aval = in_avals[i]
        for k, out in enumerate(out_avals):
            if k not in taken and out.shape == aval.shape and out.dtype == aval.dtype:
                taken.add(k)
                pairs.append((i, k))
                break
        else:
            unusable.append(aval)
    return tuple(pairs), unusable


def unusable_donation_warning(avals):
    return (f"Some donated buffers were not usable: {', '.join(map(_jax_str, avals))}.\n"
            f"See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.")


def _donatable(a, buf, copy):
    """The buffer to hand over for the donated argument ``a`` (whose own buffer for the
    program is ``buf``): ``buf`` itself when nothing else holds it (no other Array
    shares it copy-on-write, ``a`` is not a view), else a private copy (``copy(a)``),
    so that no other Array sees its memory reused."""
    if type(a) is not Array:
        return buf
    if a._view is None and a._buffer is buf and sys.getrefcount(buf) <= 4:
        # (the references: ``a._buffer``, the caller's list, ``buf``, getrefcount's own)
        return buf
    return copy(a)


# ---------------------------------------------------------------- SPMD programs

_spmd_eager_jaxprs = LRUCache(lambda: config.eager_cache_size)


class SpmdExecutable:
    """A jaxpr compiled by XLA's SPMD partitioner for the devices of a mesh, for one
    sharding of each input (``mhlo.sharding`` on ``main``'s arguments); XLA chooses the
    outputs' shardings, read back from the executable (never assumed), except those of
    results that are sharding constraints (``out_shardings``): those are ``main``'s
    result attributes too. ``recover``: the position of the first argument committed to
    a ``NamedSharding``; a result of its rank laid out equivalently gets that sharding
    itself (JAX's rule: on a 1-device mesh ``P('d')`` stays ``P('d')``). ``known``: a
    sharding (or None) per result that the program defines (an eager shard_map's
    out_specs), kept as it is where XLA's layout is equivalent."""

    def __init__(self, jaxpr, mesh, in_shardings, aliases=(), recover=None, known=None):
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
                                arg_shardings=self.in_texts,
                                aliases=dict(aliases) if aliases else None,
                                result_shardings=_constrained_results(jaxpr, mesh))
        if host_callbacks:
            raise errors.MultiDeviceCallbackError(
                f"host callbacks (debug.print, pure_callback, io_callback) in a program "
                f"that runs on the {len(self.devices)} devices of {mesh!r} are not "
                f"supported; call it on one device (move the arguments with "
                f"minijax.device_put(x, minijax.devices()[0])) or take the callback out "
                f"of the sharded function")
        client = backend.backend_for_device(device).get_client()
        self.loaded = _jaxlib.compile_spmd(client, self.text, self.devices)
        self.out_shardings = []
        texts = _jaxlib.output_sharding_texts(self.loaded, len(self.out_avals))
        orig = in_shardings[recover] if recover is not None else None
        for text, aval in zip(texts, self.out_avals):
            ndim = len(aval.shape)
            named = named_from_hlo(mesh, text, ndim)
            own = known[len(self.out_shardings)] if known is not None else None
            if own is not None and named == named_from_hlo(mesh, own.hlo_text(ndim), ndim):
                named = own
            elif (orig is not None and ndim == len(self.in_avals[recover].shape)
                    and named == named_from_hlo(mesh, orig.hlo_text(ndim), ndim)):
                named = orig
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

    def __call__(self, args, donated=()):
        bufs = []
        for i, (a, aval, s) in enumerate(zip(args, self.in_avals, self.in_shardings)):
            bufs.append(self._check(i, a, aval, s))
        for i in donated:
            s = self.in_shardings[i]
            bufs[i] = _donatable(args[i], bufs[i],
                                 lambda a: put_sharded(np.array(a._value()), s, a.aval))
        if self.collectives:
            outs = execute_collective(self.loaded, bufs, self.handlers)
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


def _constrained_results(jaxpr, mesh):
    """The HLO sharding text of each output of ``jaxpr`` that a sharding constraint on
    ``mesh`` produces (or a ``jit`` inside whose output it is), else None. XLA drops a
    constraint whose value is an argument (``a * 1`` simplified to ``a``) and the result
    then keeps the argument's sharding; a result attribute it keeps."""
    made = {}
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "sharding_constraint":
            s = eqn.params["sharding"]
            if s.mesh._flat == mesh._flat:
                made[eqn.out_binders[0]] = s.hlo_text(len(eqn.out_binders[0].aval.shape))
        elif eqn.primitive.name == "jit":
            inner = eqn.params["jaxpr"]
            for v, text in zip(eqn.out_binders,
                               _constrained_results(getattr(inner, "jaxpr", inner), mesh)):
                if text is not None:
                    made[v] = text
    return [made.get(x) if type(x) is not Literal else None for x in jaxpr.outs]


_collective_lock = threading.Lock()


_last_collective = [None]   # the token of the last program with collectives launched


def execute_collective(loaded, bufs, handlers):
    """Run a multi-device program that contains collectives once the previous such
    program has finished (it is waited for here, not this one: the caller goes on while
    it runs). XLA's CPU client runs the partitions of queued programs on one thread pool
    of max(cores, devices) threads; programs queued together can fill it with
    partitions waiting at different collectives, none of which ever completes (XLA
    then aborts the process after 40 s). One program in flight has a thread for each
    of its partitions."""
    with _collective_lock:
        token = _last_collective[0]
        if token is not None:
            token.block_until_ready()
        outs, _last_collective[0] = _jaxlib.execute_with_token(loaded, bufs, handlers)
    return outs


_spmd_compiled = weakref.WeakKeyDictionary()


def spmd_call(jaxpr, args, placement, aliases=(), known=None):
    """Run ``jaxpr`` on ``args``, some of them sharded (``placement``: one of their
    shardings): each sharded argument keeps its sharding, the others are replicated
    over the same mesh. ``aliases``: ``(input, output)`` pairs of donated arguments;
    ``known``: the results' shardings where the program defines them (see
    ``SpmdExecutable``; the same for every call of ``jaxpr``)."""
    mesh = placement.mesh
    replicated = NamedSharding(mesh, PartitionSpec())
    shardings = []
    recover = None
    for i, a in enumerate(args):
        p = a._placement if type(a) is Array else None
        if p is not None and p._device is None:
            shardings.append(p)
            if recover is None and p.mesh._flat == mesh._flat:
                recover = i
        else:
            shardings.append(replicated)
    per_jaxpr = _spmd_compiled.get(jaxpr)
    if per_jaxpr is None:
        per_jaxpr = _spmd_compiled[jaxpr] = {}
    key = (mesh._flat, tuple(s.hlo_text(len(aval.shape))
                             for s, aval in zip(shardings, jaxpr.in_avals)), aliases,
           recover, None if recover is None else shardings[recover])
    exe = per_jaxpr.get(key)
    if exe is None:
        exe = per_jaxpr[key] = SpmdExecutable(jaxpr, mesh, shardings, aliases, recover,
                                              known)
    return exe(args, [i for i, _ in aliases])


def _first_in_program(jaxpr, pick, cache):
    """The first ``pick(eqn)`` that is not None over the equations of ``jaxpr`` and of
    the jaxprs inside them, else None (cached per jaxpr in ``cache``)."""
    try:
        return cache[jaxpr]
    except KeyError:
        pass
    found = None
    for eqn in jaxpr.eqns:
        found = pick(eqn)
        if found is not None:
            break
        for v in eqn.params.values():
            for item in (v if isinstance(v, (tuple, list)) else (v,)):
                inner = getattr(item, "jaxpr", item)
                if isinstance(inner, Jaxpr):
                    found = _first_in_program(inner, pick, cache)
                    if found is not None:
                        break
            if found is not None:
                break
        if found is not None:
            break
    cache[jaxpr] = found
    return found


def _constraint_sharding(eqn):
    return eqn.params["sharding"] if eqn.primitive.name == "sharding_constraint" else None


def _shard_map_mesh(eqn):
    mesh = eqn.params.get("mesh")
    return mesh if isinstance(mesh, Mesh) else None


_constrained = weakref.WeakKeyDictionary()
_meshes = weakref.WeakKeyDictionary()


def constrained_placement(jaxpr):
    """The sharding of the first sharding constraint in ``jaxpr`` or a jaxpr inside it
    (``jit(in_shardings=, out_shardings=)``, ``with_sharding_constraint``), else None: a
    program with one runs on that mesh even when no argument is sharded."""
    return _first_in_program(jaxpr, _constraint_sharding, _constrained)


def spmd_mesh(jaxpr):
    """The mesh of the first ``shard_map`` in ``jaxpr`` (or in a jaxpr inside it), else
    None: a program holding one runs on that mesh."""
    return _first_in_program(jaxpr, _shard_map_mesh, _meshes)


def mesh_placement(mesh, placement):
    """The placement a program holding a shard_map over ``mesh`` runs with, given its
    arguments' (``placement``): sharded arguments must be on the mesh's devices in its
    order (the shard_map's device positions are the program's)."""
    if placement is not None and placement._device is None:
        if mesh._flat != placement.mesh._flat:
            raise ShardingError(f"a shard_map over {mesh!r} was given arguments sharded over "
                                f"{placement.mesh!r}, other devices or another order of "
                                f"them; move them onto the shard_map's mesh first")
        return placement
    return NamedSharding(mesh, PartitionSpec())


def jit_call(jaxpr, args, aliases=()):
    """Evaluate a jit-compiled ``jaxpr`` on ``args``: on the mesh of its sharded arguments
    or sharding constraints (SPMD), else on their device (the default one when none is
    committed). ``aliases``: ``(input, output)`` pairs of donated arguments."""
    placement = result_placement(args)
    mesh = spmd_mesh(jaxpr)
    if mesh is not None:   # a shard_map inside: the program runs on its mesh
        return spmd_call(jaxpr, args, mesh_placement(mesh, placement), aliases)
    if placement is None:
        constrained = constrained_placement(jaxpr)
        if constrained is not None:
            return spmd_call(jaxpr, args, constrained, aliases)
    if placement is not None and placement._device is None:
        return spmd_call(jaxpr, args, placement, aliases)
    target = placement._device if placement is not None else backend.default_device()
    exe = compiled_jaxpr(jaxpr, target, placement is not None, aliases)
    return exe(args, [i for i, _ in aliases])


def call_donating(jaxpr, args, donated):
    """Evaluate a jit-compiled ``jaxpr`` on ``args`` (no transformation active), donating
    the Arrays at the positions ``donated``: each is paired with an output of its type
    (``tf.aliasing_output``; XLA may reuse its buffer) and deleted after the call. Those
    no output fits are kept, with JAX's warning."""
    donated = [i for i in donated if type(args[i]) is Array]
    aliases, unusable = donation_aliases(jaxpr.in_avals, jaxpr.out_avals, donated)
    if unusable:
        warnings.warn(unusable_donation_warning(unusable), UserWarning, stacklevel=4)
    for i, _ in aliases:
        for j, a in enumerate(args):
            if a is args[i] and j != i:
                raise ValueError(
                    f"jit: the same Array is donated (flat argument {i}) and passed again "
                    f"(flat argument {j}); a donated buffer can be used once: pass a copy "
                    f"(x.copy()) for one of them")
    outs = jit_call(jaxpr, args, aliases)
    for i, _ in aliases:
        delete(args[i])
    return outs


set_eager_bind(eager_bind)
set_observe(freeze_arrays)
