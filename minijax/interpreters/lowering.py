"""Lowering jaxprs to StableHLO modules (MLIR), the program text XLA compiles."""

import weakref

import numpy as np

from .. import dtypes
from .._checks import allocatable
from ..backend import chlo, default_platform, func_dialect, hlo, ir, new_context
from ..core import ClosedJaxpr, Jaxpr, Literal, get_aval
from ..core.primitive import missing_rule
from ..core.avals import ShapedArray
from ..errors import MissingPlatformLoweringError
from .partial_eval import trace_to_jaxpr, without_source_info


def ir_element_type(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return ir.IntegerType.get_signless(1)
    if dtype == dtypes.bfloat16:
        return ir.BF16Type.get()
    kind = dtype.kind
    if kind == "i":
        return ir.IntegerType.get_signless(8 * dtype.itemsize)
    if kind == "u":
        return ir.IntegerType.get_unsigned(8 * dtype.itemsize)
    if kind == "f":
        return {2: ir.F16Type, 4: ir.F32Type, 8: ir.F64Type}[dtype.itemsize].get()
    if kind == "c":
        return ir.ComplexType.get(ir_element_type(np.finfo(dtype).dtype))
    raise TypeError(f"no StableHLO element type for dtype {dtype}")


def ir_type(aval):
    # An extent XLA cannot hold aborts the process inside XLA, and one larger than the
    # machine's memory fails there with XLA's text: both are named errors here.
    allocatable(aval.shape, aval.dtype)
    return ir.RankedTensorType.get(aval.shape, ir_element_type(aval.dtype))


def ir_constant(value, dtype=None):
    """A StableHLO constant for a NumPy value (or scalar)."""
    a = np.asarray(value, dtype=dtype)
    if a.dtype == np.bool_:
        # One byte per element: packed bits are read as a splat of the first byte.
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(a),
                                        type=ir.IntegerType.get_signless(1), shape=a.shape)
    elif a.dtype == dtypes.bfloat16:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(a).view(np.uint16),
                                        type=ir.BF16Type.get(), shape=a.shape)
    else:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(a), type=ir_element_type(a.dtype),
                                        shape=a.shape)
    return hlo.constant(attr)


def full_like_aval(value, aval):
    """A constant of ``aval``'s dtype broadcast to its shape."""
    scalar = ir_constant(np.asarray(value, aval.dtype))
    if not aval.shape:
        return scalar
    return hlo.broadcast_in_dim(ir_type(aval), scalar, ir.DenseI64ArrayAttr.get([]))


class ModuleContext:
    def __init__(self, module, platform):
        self.module = module
        self.platform = platform     # the platform the program is lowered for ("cpu")
        self.used_names = set()
        self.cached_functions = {}   # id(jaxpr) -> func op, so repeated calls share one
        self.host_callbacks = []     # Python functions the program calls back (by index)
        # The ordering token at the current insertion point (a ``!stablehlo.token``), or
        # None where nothing ordered is lowered: see ``has_ordered_effects``.
        self.token = None
        # The mesh of the enclosing ``shard_map`` body (its collectives' replica groups
        # are over its devices), None outside one; and the last channel handle used.
        self.manual_mesh = None
        self.channels = 0

    def next_channel(self):
        """A fresh channel handle number (each collective of an SPMD program has one)."""
        self.channels += 1
        return self.channels

    def unique_name(self, base):
        name, i = base, 0
        while name in self.used_names:
            i += 1
            name = f"{base}_{i}"
        self.used_names.add(name)
        return name


class RuleContext:
    """What a lowering rule may need besides its operands."""

    __slots__ = ("module_ctx", "avals_in", "avals_out")

    def __init__(self, module_ctx, avals_in, avals_out):
        self.module_ctx = module_ctx
        self.avals_in = avals_in
        self.avals_out = avals_out

    @property
    def platform(self):
        """The platform the program is lowered for."""
        return self.module_ctx.platform


def lowering_rule(primitive, platform):
    """``primitive``'s lowering rule for ``platform``: its rule for that platform, else
    its default rule; a named error where it has neither."""
    rule = primitive.platform_lower.get(platform) if primitive.platform_lower else None
    if rule is None:
        rule = primitive.lower
        if rule is None:
            if primitive.platform_lower:
                raise MissingPlatformLoweringError(
                    f"'{primitive.name}' has no lowering rule for platform {platform!r} "
                    f"(only for {', '.join(repr(p) for p in primitive.platform_lower)}): "
                    f"register one with minijax.extend.mlir.register_lowering(primitive, "
                    f"rule, platform={platform!r}), or a default rule with platform=None")
            raise missing_rule(primitive, "lowering")
    return rule


# ---------------------------------------------------------------- ordered effects
#
# An equation whose params say ``ordered=True`` (an ordered ``minijax.debug`` callback)
# must run after every ordered equation before it in program order. Its lowering takes
# the current token and produces the next one; XLA schedules by data dependencies, so
# this chain is the order. Every construct holding such an equation threads the token
# through: a loop carries it, each ``cond`` branch returns it, a called function takes
# and returns it.

_ordered_cache = weakref.WeakKeyDictionary()


def _sub_jaxprs(params):
    for v in params.values():
        for item in (v if isinstance(v, (tuple, list)) else (v,)):
            if isinstance(item, ClosedJaxpr):
                yield item.jaxpr
            elif isinstance(item, Jaxpr):
                yield item


def has_ordered_effects(jaxpr):
    """Whether ``jaxpr`` (or a jaxpr inside one of its equations) has an equation with
    ``ordered=True``: it then needs the ordering token threaded through it."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    found = _ordered_cache.get(jaxpr)
    if found is None:
        found = any(eqn.params.get("ordered") is True
                    or any(has_ordered_effects(j) for j in _sub_jaxprs(eqn.params))
                    for eqn in jaxpr.eqns)
        _ordered_cache[jaxpr] = found
    return found


def token_type():
    """The MLIR type of the ordering token (``!stablehlo.token``)."""
    return hlo.TokenType.get()


def jaxpr_subcomp(mctx, jaxpr, args):
    """Emit ``jaxpr``'s equations at the current insertion point; returns its outputs."""
    env = {}

    def read(x):
        if type(x) is Literal:
            return ir_constant(np.asarray(x.val), x.aval.dtype)
        return env[x]

    for v, a in zip(jaxpr.in_binders, args):
        env[v] = a
    platform = mctx.platform
    for eqn in jaxpr.eqns:
        rule = lowering_rule(eqn.primitive, platform)
        ctx = RuleContext(mctx, [x.aval for x in eqn.inputs], [v.aval for v in eqn.out_binders])
        outs = rule(ctx, *[read(x) for x in eqn.inputs], **eqn.params)
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


def define_function(mctx, name, jaxpr, public=False):
    """Add a ``func.func`` computing ``jaxpr`` to the module; returns the op.

    A private function with ordered effects takes the ordering token as its first
    argument and returns the next one as its first result; ``main`` makes its own."""
    threaded = not public and has_ordered_effects(jaxpr)
    tokens = [token_type()] if threaded else []
    in_types = tokens + [ir_type(v.aval) for v in jaxpr.in_binders]
    out_types = tokens + [ir_type(x.aval) for x in jaxpr.outs]
    with ir.InsertionPoint(mctx.module.body):
        fn = func_dialect.FuncOp(mctx.unique_name(name), (in_types, out_types))
        fn.attributes["sym_visibility"] = ir.StringAttr.get("public" if public else "private")
        entry = fn.add_entry_block()
    outer_token = mctx.token
    with ir.InsertionPoint(entry):
        args = list(entry.arguments)
        if threaded:
            mctx.token, args = args[0], args[1:]
        elif public and has_ordered_effects(jaxpr):
            mctx.token = hlo.after_all([])
        outs = jaxpr_subcomp(mctx, jaxpr, args)
        func_dialect.ReturnOp(([mctx.token] if threaded else []) + outs)
    mctx.token = outer_token
    return fn


def call_function(mctx, jaxpr, args, name="jit"):
    """Call ``jaxpr`` as a separate (private) function: a ``func.call`` at this point."""
    fn = mctx.cached_functions.get(id(jaxpr))
    if fn is None:
        fn = mctx.cached_functions[id(jaxpr)] = define_function(mctx, name, jaxpr)
    out_types = [ir_type(x.aval) for x in jaxpr.outs]
    threaded = has_ordered_effects(jaxpr)
    if threaded:
        out_types = [token_type()] + out_types
        args = [mctx.token] + list(args)
    results = list(func_dialect.CallOp(out_types, ir.FlatSymbolRefAttr.get(
        ir.StringAttr(fn.name).value), args).results)
    if threaded:
        mctx.token, results = results[0], results[1:]
    return results


def lower_jaxpr(jaxpr, name="main", host_callbacks=None, platform=None, arg_shardings=None,
                aliases=None, result_shardings=None):
    """StableHLO program text for ``jaxpr`` (its function is ``main``), for ``platform``
    (the default platform for None); the host callbacks it calls (see
    ``minijax.callbacks``) are appended to ``host_callbacks``. ``arg_shardings`` (one
    HLO sharding text per input, for XLA's SPMD partitioner) become the arguments'
    ``mhlo.sharding`` attributes; ``result_shardings`` (one text or None per output)
    those of the results that have one, the others are left to XLA's propagation (a
    result attribute holds even where XLA simplifies the constraint away). ``aliases``
    (``{input index: output index}``, donated arguments) become ``tf.aliasing_output``
    attributes: XLA may write that output into the argument's buffer."""
    with new_context() as ctx, ir.Location.unknown(ctx), without_source_info():
        module = ir.Module.create()
        mctx = ModuleContext(module, platform if platform is not None else default_platform())
        fn = define_function(mctx, "main", jaxpr, public=True)
        if arg_shardings is not None or aliases:
            attrs = [{} for _ in jaxpr.in_avals]
            for attr, text in zip(attrs, arg_shardings or ()):
                attr["mhlo.sharding"] = ir.StringAttr.get(text)
            i32 = ir.IntegerType.get_signless(32)
            for i, out in (aliases or {}).items():
                attrs[i]["tf.aliasing_output"] = ir.IntegerAttr.get(i32, out)
            fn.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in attrs])
        if result_shardings is not None and any(t is not None for t in result_shardings):
            fn.result_attrs = ir.ArrayAttr.get([
                ir.DictAttr.get({} if t is None else {"mhlo.sharding": ir.StringAttr.get(t)})
                for t in result_shardings])
        if host_callbacks is not None:
            host_callbacks.extend(mctx.host_callbacks)
        return str(module)


# ---------------------------------------------------------------- rule helpers

def broadcast_scalar_operands(ctx, args):
    """Broadcast rank-0 operands to the output shape (StableHLO ops do not broadcast)."""
    shape = ctx.avals_out[0].shape
    if not shape:
        return list(args)
    return [hlo.broadcast_in_dim(ir_type(a.update(shape=shape)), x, ir.DenseI64ArrayAttr.get([]))
            if a.shape != shape else x for a, x in zip(ctx.avals_in, args)]


def lower_elementwise(op):
    """Rule for a primitive that is a single StableHLO/CHLO op on its operands."""
    def rule(ctx, *args, **params):
        return [op(*broadcast_scalar_operands(ctx, args))]
    return rule


def _is_complex(x):
    return isinstance(ir.RankedTensorType(x.type).element_type, ir.ComplexType)


def _float_compare(x, y, direction):
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get("FLOAT"))


def complex_compare(x, y, direction):
    """NumPy's order of complex numbers: by real part, then by imaginary part (EQ and NE
    compare both parts; a NaN part makes every ordered comparison false)."""
    if direction in ("EQ", "NE"):
        return _float_compare(x, y, direction)
    re_x, re_y, im_x, im_y = hlo.real(x), hlo.real(y), hlo.imag(x), hlo.imag(y)
    strict = direction[0] + "T"
    return hlo.or_(_float_compare(re_x, re_y, strict),
                   hlo.and_(_float_compare(re_x, re_y, "EQ"),
                            _float_compare(im_x, im_y, direction)))


def _is_nan(x):
    return hlo.or_(_float_compare(hlo.real(x), hlo.real(x), "NE"),
                   _float_compare(hlo.imag(x), hlo.imag(x), "NE"))


def maximum(x, y):
    """``hlo.maximum``, with NumPy's lexicographic order and NaN propagation for complex."""
    if not _is_complex(x):
        return hlo.maximum(x, y)
    return hlo.select(hlo.or_(complex_compare(x, y, "GT"), _is_nan(x)), x, y)


def minimum(x, y):
    """``hlo.minimum``, with NumPy's lexicographic order and NaN propagation for complex."""
    if not _is_complex(x):
        return hlo.minimum(x, y)
    return hlo.select(hlo.or_(complex_compare(x, y, "LT"), _is_nan(x)), x, y)


def lower_compare(direction):
    def rule(ctx, x, y):
        x, y = broadcast_scalar_operands(ctx, (x, y))
        aval = ctx.avals_in[0]
        if dtypes.is_complex(aval.dtype):
            return [complex_compare(x, y, direction)]
        if dtypes.is_inexact(aval.dtype):
            kind = "FLOAT"
        elif aval.dtype == np.bool_ or aval.dtype.kind == "u":
            kind = "UNSIGNED"
        else:
            kind = "SIGNED"
        return [hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                            compare_type=hlo.ComparisonTypeAttr.get(kind))]
    return rule


def inline_function(ctx, fun, avals, values):
    """Emit ``fun`` (a function of a flat list to a list, written with minijax
    operations) applied to the IR ``values`` of ``avals``: traced to a jaxpr, inlined."""
    jaxpr, consts = trace_to_jaxpr(lambda *a: list(fun(*a)), list(avals))
    # (each constant as the dtype of its constvar: a float64 NumPy constant is float32
    # there when x64 is off)
    const_vals = [ir_constant(c, get_aval(c).dtype) for c in consts]
    return jaxpr_subcomp(ctx.module_ctx, jaxpr, const_vals + list(values))


def lower_via(fun):
    """Lower by tracing ``fun`` (written with minijax.lax) and inlining its jaxpr."""

    def rule(ctx, *args, **params):
        return inline_function(ctx, lambda *a: _as_list(fun(*a, **params)), ctx.avals_in,
                               args)
    return rule


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


__all__ = ["ir", "hlo", "chlo", "ir_type", "ir_element_type", "ir_constant", "full_like_aval",
           "jaxpr_subcomp", "lower_jaxpr", "call_function", "lower_elementwise",
           "lower_compare", "complex_compare", "maximum", "minimum", "lower_via", "inline_function",
           "RuleContext", "ShapedArray", "has_ordered_effects", "token_type", "lowering_rule",
           "ModuleContext"]
