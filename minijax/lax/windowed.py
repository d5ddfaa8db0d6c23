"""Windowed reductions (``reduce_window_sum/max/min``, the pooling monoids) and
cumulative reductions (``cumsum``, ``cumprod``, ``cummax``, ``cummin``,
``cumlogsumexp``).

A window configuration is ``window_dimensions``, ``window_strides``, ``padding``
(one ``(lo, hi)`` pair per axis, negative values crop), ``base_dilation`` (the
operand is dilated by inserting ``d - 1`` identity elements between neighbours)
and ``window_dilation``. The derivative rules of the
max/min windows and of the cumulative reductions are written with ``lax.pad`` and
``lax.slice``.
"""

import itertools

import numpy as np

from .. import _checks
from ..core import Primitive, Tracer, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad
from ..interpreters.lowering import hlo, ir, ir_constant, ir_type
from . import elementwise as ew
from ._helpers import ANY, FLOAT, NUMBER, check_kinds, padtype_to_pads
from ._helpers import dilate_dim as _dilate_dim
from .elementwise import (
    add,
    convert_element_type,
    eq,
    exp,
    gt,
    is_finite,
    log,
    lt,
    max as lax_max,
    mul,
    select_n,
    stop_gradient,
    sub,
)
from .reductions import _identity
from .shapes import broadcast_in_dim, full
from .slicing import pad, rev
from .slicing import slice as _lax_slice

# ---------------------------------------------------------------- window arithmetic

def _window_out_shape(shape, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation):
    out = []
    for n, w, s, (lo, hi), b, d in zip(shape, window_dimensions, window_strides, padding,
                                       base_dilation, window_dilation):
        padded = _dilate_dim(n, b) + lo + hi
        dw = _dilate_dim(w, d)
        out.append(0 if padded < dw else (padded - dw) // s + 1)
    return tuple(out)


def _check_window(name, x, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
    for what, v in (("window_dimensions", window_dimensions),
                    ("window_strides", window_strides), ("padding", padding),
                    ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if len(v) != x.ndim:
            raise ValueError(f"lax.{name}: {what} {v} must have one entry per axis of the "
                             f"operand of shape {x.shape}")
    for what, v in (("window_dimensions", window_dimensions),
                    ("window_strides", window_strides), ("base_dilation", base_dilation),
                    ("window_dilation", window_dilation)):
        if any(i < 1 for i in v):
            raise ValueError(f"lax.{name}: {what} {v} must be positive")
    for what, v in (("window_dimensions", window_dimensions),
                    ("window_strides", window_strides), ("padding", padding),
                    ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if any(abs(i) > _checks.MAX_EXTENT for i in itertools.chain(
                *(e if isinstance(e, tuple) else (e,) for e in v))):
            raise ValueError(f"lax.{name}: Maximum allowed dimension exceeded: {what} {v} "
                             f"has an entry beyond 2**63 - 1, the largest extent XLA "
                             f"takes; use sizes that fit in int64")
    for n, w, (lo, hi), b, d in zip(x.shape, window_dimensions, padding, base_dilation,
                                    window_dilation):
        if max(_dilate_dim(w, d), _dilate_dim(n, b) + lo + hi) > _checks.MAX_EXTENT:
            raise ValueError(f"lax.{name}: Maximum allowed dimension exceeded: the dilated "
                             f"window or padded operand along an axis is larger than "
                             f"2**63 - 1 (window_dimensions {window_dimensions}, "
                             f"window_dilation {window_dilation}, padding {padding}, "
                             f"base_dilation {base_dilation})")
    for n, (lo, hi), b in zip(x.shape, padding, base_dilation):
        if _dilate_dim(n, b) + lo + hi < 0:
            raise ValueError(f"lax.{name}: padding {padding} crops more than the (dilated) "
                             f"operand of shape {x.shape} holds")


def _windows(x, init, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):
    """An array of shape ``out_shape + window_dimensions``: every window's elements (when
    there are no windows, size-1 window axes holding ``init``: a window may be too large
    to allocate even with no windows)."""
    if any(b > 1 for b in base_dilation):
        dilated = np.full(tuple(_dilate_dim(n, b) for n, b in zip(x.shape, base_dilation)),
                          init, x.dtype)
        dilated[tuple(slice(None, None, b) for b in base_dilation)] = x
        x = dilated
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(x.shape, padding))
    widths = np.array([(max(lo, 0), max(hi, 0)) for lo, hi in padding], np.int64)
    x = x[crop]
    if widths.any():
        x = np.pad(x, widths, constant_values=init)
    out_shape = _window_out_shape(x.shape, window_dimensions, window_strides,
                                  [(0, 0)] * x.ndim, [1] * x.ndim, window_dilation)
    if any(s == 0 for s in out_shape):
        return np.full(out_shape + (1,) * len(window_dimensions), init, x.dtype)
    dws = [_dilate_dim(w, d) for w, d in zip(window_dimensions, window_dilation)]
    view = np.lib.stride_tricks.sliding_window_view(x, dws)
    index = (tuple(slice(None, None, s) for s in window_strides)
             + tuple(slice(None, None, d) for d in window_dilation))
    return view[index]


# ---------------------------------------------------------------- reduce_window_{sum,max,min}

_WINDOW_PARAMS = ("window_dimensions", "window_strides", "padding", "base_dilation",
                  "window_dilation")


def _reduce_window_prim(name, kind, np_reduce, hlo_op, kinds):
    p = Primitive(name)

    def impl(x, **params):
        init = _identity(kind, x.dtype)
        w = _windows(x, init, **params)
        axes = tuple(range(x.ndim, 2 * x.ndim))
        with np.errstate(all="ignore"):
            if kind == "sum":
                return [np.asarray(np.sum(w, axis=axes, dtype=x.dtype))]
            return [np.asarray(np_reduce(w, axis=axes, initial=init))]

    def abstract_eval(x, **params):
        check_kinds(name, x, kinds)
        _check_window(name, x, **params)
        return [ShapedArray(_window_out_shape(x.shape, **params), x.dtype, x.weak_type)]

    def batch(axis_size, args, dims, **params):
        (x,), (d,) = args, dims
        new = {k: list(v) for k, v in params.items()}
        for k, fill in (("window_dimensions", 1), ("window_strides", 1), ("padding", (0, 0)),
                        ("base_dilation", 1), ("window_dilation", 1)):
            new[k].insert(d, fill)
        return [p.bind(x, **{k: tuple(v) for k, v in new.items()})], [d]

    def lower(ctx, x, **params):
        aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
        return [_lower_window(x, aval_in, aval_out, _identity(kind, aval_in.dtype),
                              lambda a, b: hlo_op(a, b), **params)]

    p.impl = impl
    p.abstract_eval = abstract_eval
    p.batch = batch
    p.lower = lower
    return p


def _lower_window(x, aval_in, aval_out, init, body, *, window_dimensions, window_strides,
                  padding, base_dilation, window_dilation):
    """A stablehlo.reduce_window of ``body``. Negative padding (which reduce_window
    refuses) goes to an explicit ``pad`` first, with the base dilation; otherwise both
    stay attributes (XLA recognises cumulative reductions in that form and rewrites
    them to a scan, O(n log n) rather than O(n^2))."""
    init_v = ir_constant(init)
    ndim = len(window_dimensions)
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        x = hlo.pad(x, init_v, ir.DenseI64ArrayAttr.get([lo for lo, _ in padding]),
                    ir.DenseI64ArrayAttr.get([hi for _, hi in padding]),
                    ir.DenseI64ArrayAttr.get([b - 1 for b in base_dilation]))
        padding, base_dilation = [(0, 0)] * ndim, [1] * ndim
    attrs = {}
    if any(b != 1 for b in base_dilation):
        attrs["base_dilations"] = ir.DenseI64ArrayAttr.get(list(base_dilation))
    if any(lo or hi for lo, hi in padding):
        attrs["padding"] = ir.DenseIntElementsAttr.get(
            np.asarray(padding, np.int64).reshape(ndim, 2))
    op = hlo.ReduceWindowOp([ir_type(aval_out)], [x], [init_v],
                            ir.DenseI64ArrayAttr.get(list(window_dimensions)),
                            window_strides=ir.DenseI64ArrayAttr.get(list(window_strides)),
                            window_dilations=ir.DenseI64ArrayAttr.get(list(window_dilation)),
                            **attrs)
    scalar = ir_type(ShapedArray((), aval_in.dtype))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([body(*block.arguments)])
    return op.result


reduce_window_sum_p = _reduce_window_prim("reduce_window_sum", "sum", np.sum, hlo.add, NUMBER)
reduce_window_max_p = _reduce_window_prim("reduce_window_max", "max", np.max, hlo.maximum, ANY)
reduce_window_min_p = _reduce_window_prim("reduce_window_min", "min", np.min, hlo.minimum, ANY)


def _normalize(name, x, window_dimensions, window_strides, padding, base_dilation,
               window_dilation):
    ndim = get_aval(x).ndim
    window_dimensions = tuple(_checks.index(w) for w in window_dimensions)
    ones = (1,) * len(window_dimensions)
    window_strides = (ones if window_strides is None
                      else tuple(_checks.index(s) for s in window_strides))
    base_dilation = (ones if base_dilation is None
                     else tuple(_checks.index(b) for b in base_dilation))
    window_dilation = (ones if window_dilation is None
                       else tuple(_checks.index(d) for d in window_dilation))
    if len(window_dimensions) != ndim:
        raise ValueError(f"lax.{name}: window_dimensions {window_dimensions} must have one "
                         f"entry per axis of the operand of shape {get_aval(x).shape}")
    if isinstance(padding, str):
        dilated = tuple(_dilate_dim(n, b) for n, b in zip(get_aval(x).shape, base_dilation))
        windows = tuple(_dilate_dim(w, d) for w, d in zip(window_dimensions, window_dilation))
        padding = padtype_to_pads(dilated, windows, window_strides, padding, name)
    else:
        padding = tuple((_checks.index(lo), _checks.index(hi)) for lo, hi in padding)
    params = dict(window_dimensions=window_dimensions, window_strides=window_strides,
                  padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)
    _check_window(name, get_aval(x), **params)   # eagerly too, before NumPy's kernel
    return params


def reduce_window_sum(operand, window_dimensions, window_strides=None, padding="VALID",
                      base_dilation=None, window_dilation=None):
    """Sum over each window (sum pooling)."""
    return reduce_window_sum_p.bind(operand, **_normalize(
        "reduce_window_sum", operand, window_dimensions, window_strides, padding,
        base_dilation, window_dilation))


def reduce_window_max(operand, window_dimensions, window_strides=None, padding="VALID",
                      base_dilation=None, window_dilation=None):
    """Maximum over each window (max pooling); padding counts as -inf."""
    return reduce_window_max_p.bind(operand, **_normalize(
        "reduce_window_max", operand, window_dimensions, window_strides, padding,
        base_dilation, window_dilation))


def reduce_window_min(operand, window_dimensions, window_strides=None, padding="VALID",
                      base_dilation=None, window_dilation=None):
    """Minimum over each window; padding counts as +inf."""
    return reduce_window_min_p.bind(operand, **_normalize(
        "reduce_window_min", operand, window_dimensions, window_strides, padding,
        base_dilation, window_dilation))


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """Reduce each window with ``computation`` from ``init_value``.

    ``computation`` must be one of the monoids ``lax.add``, ``lax.max``, ``lax.min``
    (with its identity, or another init value combined afterwards).
    """
    table = {ew.add: (reduce_window_sum, "sum"), ew.max: (reduce_window_max, "max"),
             ew.min: (reduce_window_min, "min")}
    if computation not in table:
        raise TypeError(f"lax.reduce_window: computation {computation!r} is not supported; "
                        f"only lax.add, lax.max and lax.min (the reduce_window_sum/max/min "
                        f"monoids) are")
    fn, kind = table[computation]
    out = fn(operand, window_dimensions, window_strides, padding, base_dilation,
             window_dilation)
    dtype = get_aval(operand).dtype
    if get_aval(init_value).shape != ():
        raise ValueError(f"lax.reduce_window: init_value must be a scalar, got shape "
                         f"{get_aval(init_value).shape}")
    if isinstance(init_value, Tracer):          # not known now: combine it symbolically
        init = convert_element_type(init_value, dtype)
    else:
        concrete = np.asarray(init_value)
        with np.errstate(invalid="ignore", over="ignore"):
            concrete = concrete.astype(dtype)
        if np.array_equal(concrete, _identity(kind, dtype), equal_nan=True):
            return out
        init = full((), concrete, dtype)
    return computation(out, broadcast_in_dim(init, get_aval(out).shape, ()))


# ---------------------------------------------------------------- window derivatives

def _vjp_lhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding,
                     base_dilation, window_dilation):
    pads = []
    for n, w, s, o, (lo, _), b, d in zip(in_shape, window_dimensions, window_strides, out_shape,
                                         padding, base_dilation, window_dilation):
        before = _dilate_dim(w, d) - lo - 1
        after = _dilate_dim(n, b) + _dilate_dim(w, d) - 1 - _dilate_dim(o, s) - before
        pads.append((before, after))
    return tuple(pads)


def _reduce_window_sum_transpose(cts, x, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    # Each operand element receives the cotangents of the windows covering it: a
    # reduce_window_sum of the stride-dilated cotangent with the roles of strides and
    # base dilation exchanged.
    ct = cts[0]
    in_shape = x.aval.shape
    ct_shape = get_aval(ct).shape
    if any(n == 0 for n in ct_shape):
        return [full(in_shape, 0, x.aval.dtype)]
    pads = _vjp_lhs_padding(in_shape, window_dimensions, window_strides, ct_shape, padding,
                            base_dilation, window_dilation)
    out = reduce_window_sum_p.bind(ct, window_dimensions=window_dimensions,
                                   window_strides=base_dilation, padding=pads,
                                   base_dilation=window_strides,
                                   window_dilation=window_dilation)
    assert get_aval(out).shape == in_shape, (get_aval(out).shape, in_shape)
    return [out]


ad.deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


def _choose(kind, x, t, out, params):
    """The tangent at the first position of each window attaining ``out``. Windows
    overlap, so positions are taken one window offset at a time: for offset k, a strided
    slice of the padded operand holds every window's k-th element."""
    out_shape = get_aval(out).shape
    config = [(lo, hi, b - 1) for (lo, hi), b in zip(params["padding"], params["base_dilation"])]
    xp = pad(x, _identity(kind, get_aval(x).dtype).item(), config)
    tp = pad(t, 0, config)
    result = full(out_shape, 0, get_aval(t).dtype)
    offsets = list(itertools.product(*[range(w) for w in params["window_dimensions"]]))
    for k in reversed(offsets):
        start = [i * d for i, d in zip(k, params["window_dilation"])]
        limit = [s + (o - 1) * st + 1 for s, o, st in
                 zip(start, out_shape, params["window_strides"])]
        xk = _lax_slice(xp, start, limit, params["window_strides"])
        tk = _lax_slice(tp, start, limit, params["window_strides"])
        result = select_n(eq(xk, out), result, tk)
    return result


def _chooser_jvp(kind):
    # A window is a product of per-axis windows, so the choice is made one axis at a time
    # (last axis first: the row-major first position attaining the extremum wins); this
    # takes sum(window_dimensions) slices rather than prod(window_dimensions).
    def jvp(primals, tangents, **params):
        (x,), (t,) = primals, tangents
        p = reduce_window_max_p if kind == "max" else reduce_window_min_p
        out = p.bind(x, **params)
        out_aval = get_aval(out)
        if type(t) is ad.Zero:
            return [out], [ad.Zero(ad.tangent_aval(out_aval))]
        if out_aval.size == 0:
            return [out], [full(out_aval.shape, 0, get_aval(t).dtype)]
        ndim = out_aval.ndim
        trivial = dict(window_dimensions=1, window_strides=1, padding=(0, 0),
                       base_dilation=1, window_dilation=1)
        for axis in reversed(range(ndim)):
            one = {k: tuple(params[k][i] if i == axis else v for i in range(ndim))
                   for k, v in trivial.items()}
            if all(one[k][axis] == v for k, v in trivial.items()):
                continue
            x_next = p.bind(x, **one)
            t = _choose(kind, x, t, x_next, one)
            x = x_next
        return [out], [t]
    return jvp


reduce_window_max_p.jvp = _chooser_jvp("max")
reduce_window_min_p.jvp = _chooser_jvp("min")


# ---------------------------------------------------------------- cumulative reductions

def _logaddexp(a, b):
    """log(exp(a) + exp(b)) with lax ops, stable and smooth: the shift by the maximum is
    a constant to differentiation (the value does not depend on it), so derivatives of
    every order are exact, also where a == b."""
    m = stop_gradient(lax_max(a, b))
    m = select_n(is_finite(m), full(get_aval(m).shape, 0, get_aval(m).dtype), m)
    return add(m, log(add(exp(sub(a, m)), exp(sub(b, m)))))


def _pick(later_wins):
    def combine(earlier, later):
        return select_n(later_wins(later, earlier), earlier, later)
    return combine


def _scan(combine, x, axis, reverse, identity):
    """Inclusive scan along ``axis`` in lax ops (Hillis-Steele: log2(n) shifted combines);
    the derivative rules of the cumulative primitives differentiate it."""
    if reverse:
        x = rev(x, (axis,))
    n = get_aval(x).shape[axis]
    k = 1
    while k < n:
        config = [(0, 0, 0)] * get_aval(x).ndim
        config[axis] = (k, -k, 0)
        x = combine(pad(x, identity, config), x)
        k *= 2
    if reverse:
        x = rev(x, (axis,))
    return x


def _cumulative(name, np_accumulate, hlo_body, kind, kinds, combine):
    p = Primitive(name)

    def impl(x, *, axis, reverse):
        if reverse:
            x = np.flip(x, axis)
        with np.errstate(all="ignore"):
            if x.shape[axis] == 0:
                out = x.copy()
            elif kind == "sum":
                out = np.cumsum(x, axis=axis, dtype=x.dtype)
            elif kind == "prod":
                out = np.cumprod(x, axis=axis, dtype=x.dtype)
            else:
                out = np_accumulate(x, axis=axis, dtype=x.dtype)
        return [np.flip(out, axis) if reverse else out]

    def abstract_eval(x, *, axis, reverse):
        check_kinds(name, x, kinds)
        if not 0 <= axis < max(x.ndim, 1) or x.ndim == 0:
            raise ValueError(f"lax.{name}: axis {axis} is out of range for an operand of "
                             f"shape {x.shape}")
        return [ShapedArray(x.shape, x.dtype, x.weak_type)]

    def batch(axis_size, args, dims, *, axis, reverse):
        (x,), (d,) = args, dims
        return [p.bind(x, axis=axis + (d <= axis), reverse=reverse)], [d]

    def lower(ctx, x, *, axis, reverse):
        aval = ctx.avals_in[0]
        n = aval.shape[axis]
        ndim = aval.ndim
        window = [1] * ndim
        window[axis] = max(n, 1)
        padding = [(0, 0)] * ndim
        padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
        if n == 0:
            return [x]
        return [_lower_window(x, aval, ctx.avals_out[0], _cum_identity(kind, aval.dtype),
                              hlo_body, window_dimensions=window,
                              window_strides=[1] * ndim, padding=padding,
                              base_dilation=[1] * ndim, window_dilation=[1] * ndim)]

    def public(operand, axis=0, reverse=False):
        ndim = get_aval(operand).ndim
        if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
            raise ValueError(f"lax.{name}: axis {axis!r} is out of range for an operand "
                             f"of shape {get_aval(operand).shape}")
        return p.bind(operand, axis=_checks.index(axis) % ndim, reverse=bool(reverse))

    p.impl = impl
    p.abstract_eval = abstract_eval
    p.batch = batch
    p.lower = lower
    if combine is not None:
        def jvp(primals, tangents, *, axis, reverse):
            (x,), (t,) = primals, tangents
            out = p.bind(x, axis=axis, reverse=reverse)
            if type(t) is ad.Zero:
                return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
            identity = _cum_identity(kind, get_aval(x).dtype).item()
            _, (t_out,) = ad.jvp_flat(lambda v: [_scan(combine, v, axis, reverse, identity)],
                                      [x], [t])
            return [out], [t_out]
        p.jvp = jvp
    public.__doc__ = f"Inclusive cumulative {kind} of ``operand`` along ``axis``."
    public.__name__ = name
    return p, public


def _cum_identity(kind, dtype):
    if kind == "prod":
        return np.ones((), dtype)
    if kind == "logsumexp":
        return np.asarray(-np.inf, dtype)
    return _identity(kind, dtype)


def _hlo_logaddexp(a, b):
    amax = hlo.maximum(a, b)
    delta = hlo.subtract(a, b)
    isnan = hlo.compare(delta, delta, hlo.ComparisonDirectionAttr.get("NE"),
                        compare_type=hlo.ComparisonTypeAttr.get("FLOAT"))
    safe = hlo.add(amax, hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(delta)))))
    return hlo.select(isnan, hlo.add(a, b), safe)


def _np_logaddexp_accumulate(x, axis, dtype):
    return np.logaddexp.accumulate(x, axis=axis, dtype=dtype)


def _lt(a, b):
    return lt(a, b)


def _gt(a, b):
    return gt(a, b)


def _mul(a, b):
    return mul(a, b)


cumsum_p, cumsum = _cumulative("cumsum", None, hlo.add, "sum", NUMBER, None)
cumprod_p, cumprod = _cumulative("cumprod", None, hlo.multiply, "prod", NUMBER, _mul)
cummax_p, cummax = _cumulative("cummax", np.maximum.accumulate, hlo.maximum, "max", ANY,
                               _pick(_gt))
cummin_p, cummin = _cumulative("cummin", np.minimum.accumulate, hlo.minimum, "min", ANY,
                               _pick(_lt))
cumlogsumexp_p, cumlogsumexp = _cumulative("cumlogsumexp", _np_logaddexp_accumulate,
                                           _hlo_logaddexp, "logsumexp", FLOAT, _logaddexp)
ad.deflinear(cumsum_p, lambda cts, x, *, axis, reverse: [
    cumsum_p.bind(cts[0], axis=axis, reverse=not reverse)])

__all__ = ["reduce_window", "reduce_window_sum", "reduce_window_max", "reduce_window_min",
           "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]
