"""Host callbacks: ``pure_callback`` and the primitive behind ``minijax.debug``.

A callback is a Python function called on minijax Arrays (as JAX's are called on
``jax.Array``s: each a copy of its argument's value on the host). Eagerly it is simply
called; under ``jit`` it becomes a ``stablehlo.custom_call`` to the platform's Python
callback target (``backend.host_callback_target``: on the CPU jaxlib's
``xla_ffi_python_cpu_callback``, on a GPU ``xla_ffi_python_gpu_callback``), and the
function is handed to XLA with the compiled program, so the compiled code calls back
into Python.

``pure_callback`` declares its result shapes and dtypes up front and must be free of
side effects (XLA may drop or repeat it). ``debug_callback`` has no results and is
kept for its side effect; with ``ordered=True`` its custom call also takes and returns
the program's ordering token (see ``interpreters.lowering``), which puts the ordered
calls in program order. Under ``vmap`` a callback runs once per batch element
(``vmap_method="sequential"``), or once on the whole batch (``"expand_dims"``,
``"broadcast_all"``). ``pure_callback`` is not differentiable by itself: wrap it in
a function with a ``custom_jvp``/``custom_vjp`` rule.
"""

import numpy as np

from . import dtypes
from .core import Primitive, ShapedArray, get_aval
from .interpreters import ad, batching
from .interpreters.lowering import ir_type, token_type
from .backend import hlo, host_callback_target, ir
from .runtime.array import _make
from .runtime.dispatch import as_array
from .tree_util import tree_flatten, tree_unflatten

def _user_arrays(arrays):
    """The host ndarrays a callback is handed, as eager Arrays of their own memory (XLA's
    buffers live only for the call)."""
    return [_make(None, np.array(a)) for a in arrays]


def _result_aval(spec):
    shape = tuple(int(d) for d in spec.shape)
    return ShapedArray(shape, dtypes.canonicalize(spec.dtype))


class _HostFunction:
    """The flat host function of one callback site (hashable by identity, so jaxprs
    holding it compare and cache by the site)."""

    __slots__ = ("fn", "result_avals", "name", "__weakref__")

    def __init__(self, fn, result_avals, name=None):
        self.fn = fn
        self.result_avals = result_avals
        self.name = name or getattr(fn, "__name__", "callback")

    def __call__(self, *arrays):
        outs = self.fn(*arrays)
        return [_check_result(o, a, i) for i, (o, a) in enumerate(zip(outs, self.result_avals))]

    def __repr__(self):
        return self.name


def _check_result(value, aval, i):
    value = np.asarray(value)
    if value.shape != aval.shape:
        raise RuntimeError(f"pure_callback result {i} has shape {value.shape}, but "
                           f"result_shape_dtypes declared {aval.shape}")
    if value.dtype != aval.dtype:
        if not np.can_cast(value.dtype, aval.dtype, casting="same_kind"):
            raise RuntimeError(f"pure_callback result {i} has dtype {value.dtype}, but "
                               f"result_shape_dtypes declared {aval.dtype}")
        value = value.astype(aval.dtype)
    return np.asarray(value, order="C")


# ------------------------------------------------------------------ the primitive

callback_p = Primitive("callback", multiple_results=True)


def _callback_impl(*args, callback, result_avals, vmap_method, has_side_effect,
                   ordered=False, io=False):
    return callback(*[np.asarray(a) for a in args])


def _callback_abstract_eval(*avals, callback, result_avals, vmap_method, has_side_effect,
                            ordered=False, io=False):
    return list(result_avals)


def _callback_jvp(primals, tangents, *, callback, result_avals, vmap_method,
                  has_side_effect, ordered=False, io=False):
    if (io or not has_side_effect) and any(type(t) is not ad.Zero for t in tangents):
        kind = "io_callback" if io else "pure_callback"
        raise (ValueError if io else TypeError)(
            f"{kind} ({callback!r}) cannot be differentiated: minijax cannot see "
            f"inside the host function. Give the function that calls it a custom_jvp "
            f"or custom_vjp rule.")
    outs = callback_p.bind(*primals, callback=callback, result_avals=result_avals,
                           vmap_method=vmap_method, has_side_effect=has_side_effect,
                           ordered=ordered, io=io)
    return outs, [ad.Zero(ad.tangent_aval(get_aval(o))) for o in outs]


def _sequential(callback, axis_size, result_avals):
    """A host function running ``callback`` once per batch element (batch axis 0)."""
    def run(*arrays):
        per_element = [callback(*[a[i] for a in arrays]) for i in range(axis_size)]
        return [np.stack([outs[j] for outs in per_element]) if per_element
                else np.zeros(aval.shape, aval.dtype) for j, aval in enumerate(result_avals)]
    return run


def _callback_batch(axis_size, args, dims, *, callback, result_avals, vmap_method,
                    has_side_effect, ordered=False, io=False):
    batched_avals = tuple(ShapedArray((axis_size,) + a.shape, a.dtype) for a in result_avals)
    if io and ordered:
        raise ValueError(f"io_callback ({callback!r}) with ordered=True cannot be vmapped: "
                         f"its calls would have no single order; use ordered=False (one "
                         f"call per batch element, in any order)")
    if vmap_method is None:
        raise NotImplementedError(
            f"pure_callback ({callback!r}) under vmap needs vmap_method: 'sequential' (one "
            f"call per batch element), 'expand_dims' (unbatched arguments get a size-1 "
            f"axis) or 'broadcast_all' (all arguments get the batch axis)")
    if vmap_method == "sequential" or has_side_effect:
        batched_args = [batching.bdim_at_front(axis_size, x, d) for x, d in zip(args, dims)]
        host = _HostFunction(_sequential(callback, axis_size, result_avals), batched_avals,
                             callback.name)
    elif vmap_method in ("expand_dims", "broadcast_all"):
        batched_args = []
        for x, d in zip(args, dims):
            if d is batching.not_mapped and vmap_method == "expand_dims":
                batched_args.append(batching.bdim_at_front(1, x, d))
            else:
                batched_args.append(batching.bdim_at_front(axis_size, x, d))
        host = _HostFunction(callback.fn, batched_avals, callback.name)
    else:
        raise ValueError(f"vmap_method must be 'sequential', 'expand_dims', 'broadcast_all' "
                         f"or None, got {vmap_method!r}")
    outs = callback_p.bind(*batched_args, callback=host, result_avals=batched_avals,
                           vmap_method=vmap_method, has_side_effect=has_side_effect,
                           ordered=ordered, io=io)
    return outs, [0] * len(outs)


def _callback_lower(ctx, *args, callback, result_avals, vmap_method, has_side_effect,
                    ordered=False, io=False):
    mctx = ctx.module_ctx
    target = host_callback_target(ctx.platform)
    if target is None:
        raise NotImplementedError(f"callback {callback!r}: minijax cannot call Python back "
                                  f"from a program compiled for {ctx.platform!r}")
    result_types = [ir_type(a) for a in result_avals]
    operands = list(args)
    if ordered and mctx.token is None:
        raise NotImplementedError(
            f"callback {callback!r} with ordered=True is inside a construct that "
            f"does not pass the ordering token on (only jit, cond, switch, while_loop, "
            f"fori_loop and scan do); use ordered=False there")
    if ordered:
        # The token goes in and the next one comes out; XLA hands the callback None
        # for the token operand and expects nothing back for the token result.
        operands = [mctx.token] + operands
        result_types = [token_type()] + result_types

        def host(_token, *arrays):
            return tuple(callback(*arrays))
    else:
        def host(*arrays):
            return tuple(callback(*arrays))

    mctx.host_callbacks.append(host)
    index = len(mctx.host_callbacks) - 1
    attributes = dict(
        call_target_name=ir.StringAttr.get(target),
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=ir.DictAttr.get(
            {"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), index)}))
    op = hlo.CustomCallOp.build_generic(results=result_types, operands=operands,
                                        attributes=attributes)
    results = list(op.results)
    if ordered:
        mctx.token, results = results[0], results[1:]
    return results


callback_p.impl = _callback_impl
callback_p.abstract_eval = _callback_abstract_eval
callback_p.jvp = _callback_jvp
callback_p.batch = _callback_batch
callback_p.lower = _callback_lower


# ------------------------------------------------------------------ public functions

def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """Call the host function ``callback(*args, **kwargs)`` on Arrays, from eager code
    or compiled code; it returns arrays matching ``result_shape_dtypes`` (a pytree
    of objects with ``.shape`` and ``.dtype``) and must have no side effects."""
    return _host_call("pure_callback", callback, result_shape_dtypes, args, kwargs, sharding,
                      vmap_method=vmap_method, has_side_effect=False, ordered=False)


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False,
                **kwargs):
    """Call the host function ``callback(*args, **kwargs)``, which may have side effects
    (reading or writing files, logging, state), eagerly or from compiled code: unlike
    ``pure_callback`` it is never dropped or repeated. It returns arrays matching
    ``result_shape_dtypes`` (None: nothing). With ``ordered=True`` the calls of a
    compiled program run in program order (such a callback cannot be vmapped); otherwise
    under ``vmap`` it runs once per batch element. It cannot be differentiated."""
    return _host_call("io_callback", callback, result_shape_dtypes, args, kwargs, sharding,
                      vmap_method="sequential", has_side_effect=True, ordered=bool(ordered),
                      io=True)


def _host_call(who, callback, result_shape_dtypes, args, kwargs, sharding, **params):
    """Bind ``callback_p`` for ``callback(*args, **kwargs)`` returning arrays like
    ``result_shape_dtypes``."""
    if sharding is not None:
        raise NotImplementedError(f"{who}(sharding=...) is not supported: minijax compiles "
                                  f"for one device")
    flat_args, in_tree = tree_flatten((args, kwargs))
    flat_args = [as_array(a) for a in flat_args]
    out_specs, out_tree = tree_flatten(
        result_shape_dtypes, is_leaf=lambda x: hasattr(x, "shape") and hasattr(x, "dtype"))
    result_avals = tuple(_result_aval(s) for s in out_specs)

    def flat_callback(*arrays):
        a, k = tree_unflatten(in_tree, _user_arrays(arrays))
        leaves, tree = tree_flatten(callback(*a, **k))
        if tree != out_tree:
            raise RuntimeError(f"{who}'s function returned a tree of structure {tree}, but "
                               f"result_shape_dtypes has structure {out_tree}")
        return leaves

    host = _HostFunction(flat_callback, result_avals, getattr(callback, "__name__", None))
    outs = callback_p.bind(*flat_args, callback=host, result_avals=result_avals, **params)
    return tree_unflatten(out_tree, outs)


def debug_callback(callback, *args, ordered=False, **kwargs):
    """Call ``callback(*args, **kwargs)`` on the host for its side effect (printing,
    logging), eagerly or from compiled code; under ``vmap`` once per batch element.
    With ``ordered=True`` the ordered calls of a compiled program run in program order
    (loop iterations in turn); others may run in any order."""
    flat_args, in_tree = tree_flatten((args, kwargs))
    flat_args = [as_array(a) for a in flat_args]

    def flat_callback(*arrays):
        a, k = tree_unflatten(in_tree, _user_arrays(arrays))
        callback(*a, **k)
        return []

    host = _HostFunction(flat_callback, (), getattr(callback, "__name__", None))
    callback_p.bind(*flat_args, callback=host, result_avals=(), vmap_method="sequential",
                    has_side_effect=True, ordered=bool(ordered))


__all__ = ["debug_callback", "io_callback", "pure_callback"]
