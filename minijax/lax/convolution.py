"""``conv_general_dilated``: N-d convolutions (strides, padding, dilations, layouts,
feature and batch groups), and the ``conv`` / ``conv_with_general_padding`` wrappers.

Terms (as in XLA): the lhs has a batch axis N, a feature axis C and spatial axes; the
rhs (kernel) has an output-feature axis O, an input-feature axis I and spatial axes;
the output has a batch axis, a feature axis (size O) and spatial axes.
``dimension_numbers`` say where each sits (``ConvDimensionNumbers``: for each of
lhs, rhs and out the tuple (batch/O axis, feature/I axis, spatial axes...)).

- feature_group_count G: C = G * I; output features are G blocks of O/G, block g
  reading input features g*I ... (g+1)*I - 1 (G = C gives depthwise convolutions).
- batch_group_count B: the lhs batch is B blocks of N/B, output features are B blocks
  of O/B, block b reading lhs batch block b; the output batch is N/B. (This is what
  the kernel gradient of a grouped convolution is.)
"""

import operator
from typing import NamedTuple

import numpy as np

from .. import dtypes
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad
from ..interpreters.lowering import full_like_aval, hlo, ir, ir_type
from ._helpers import INEXACT, INT, check_kinds, padtype_to_pads
from ._helpers import dilate_dim as _dilate_dim
from .elementwise import convert_element_type
from .shapes import full, reshape, transpose
from .slicing import rev

_NAME = "conv_general_dilated"


class ConvDimensionNumbers(NamedTuple):
    """Axis positions: ``lhs_spec = (batch, feature, *spatial)``,
    ``rhs_spec = (out feature, in feature, *spatial)``,
    ``out_spec = (batch, feature, *spatial)``."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def _spec_from_string(spec, pair, rhs_string, which):
    if not isinstance(spec, str):
        raise TypeError(f"lax.{_NAME}: dimension_numbers strings expected, got {spec!r} "
                        f"for the {which}")
    a, b = pair
    if spec.count(a) != 1 or spec.count(b) != 1 or len(set(spec)) != len(spec):
        raise ValueError(f"lax.{_NAME}: the {which} layout {spec!r} must name {a!r} and {b!r} "
                         f"once each and repeat no letter")
    spatial = [i for i, c in enumerate(spec) if c not in pair]
    # Spatial axes are matched by letter, in the order the kernel spec lists them.
    spatial.sort(key=lambda i: rhs_string.index(spec[i]) if spec[i] in rhs_string else -1)
    return (spec.index(a), spec.index(b)) + tuple(spatial)


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """``ConvDimensionNumbers`` from None (``NC...``, ``OI...``, ``NC...``), a
    ``ConvDimensionNumbers``, or three layout strings such as ``('NHWC', 'HWIO', 'NHWC')``."""
    ndim = len(lhs_shape)
    if len(rhs_shape) != ndim:
        raise ValueError(f"lax.{_NAME}: lhs and rhs must have the same rank, got lhs shape "
                         f"{tuple(lhs_shape)} and rhs shape {tuple(rhs_shape)}")
    if ndim < 2:
        raise ValueError(f"lax.{_NAME}: operands need rank >= 2 (batch and feature axes), "
                         f"got lhs shape {tuple(lhs_shape)}")
    if dimension_numbers is None:
        spec = tuple(range(ndim))
        return ConvDimensionNumbers(spec, spec, spec)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        dn = ConvDimensionNumbers(*(tuple(operator.index(i) for i in s)
                                    for s in dimension_numbers))
    else:
        try:
            if isinstance(dimension_numbers, str):
                raise TypeError
            lhs_s, rhs_s, out_s = dimension_numbers
        except (TypeError, ValueError):
            raise TypeError(f"lax.{_NAME}: dimension_numbers must be None, a "
                            f"ConvDimensionNumbers or three layout strings, got "
                            f"{dimension_numbers!r}") from None
        if not isinstance(rhs_s, str):
            raise TypeError(f"lax.{_NAME}: dimension_numbers strings expected, got "
                            f"{dimension_numbers!r}")
        letters = [set(s) - set(p) for s, p in ((lhs_s, "NC"), (rhs_s, "OI"), (out_s, "NC"))
                   if isinstance(s, str)]
        if any(l != letters[0] for l in letters):
            raise ValueError(f"lax.{_NAME}: layouts {dimension_numbers!r} do not name the same "
                             f"spatial axes")
        dn = ConvDimensionNumbers(_spec_from_string(lhs_s, "NC", rhs_s, "lhs"),
                                  _spec_from_string(rhs_s, "OI", rhs_s, "rhs"),
                                  _spec_from_string(out_s, "NC", rhs_s, "output"))
    for spec, which in zip(dn, ("lhs", "rhs", "output")):
        if sorted(spec) != list(range(ndim)):
            raise ValueError(f"lax.{_NAME}: the {which} spec {spec} is not a permutation of "
                             f"the {ndim} axes of the operands (lhs shape {tuple(lhs_shape)})")
    return dn


def _int_tuple(name, value, n, default):
    if value is None:
        return (default,) * n
    try:
        out = tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(f"lax.{_NAME}: {name} must be a sequence of {n} ints, got "
                        f"{value!r}") from None
    if len(out) != n:
        raise ValueError(f"lax.{_NAME}: {name} must have one entry per spatial axis ({n}), "
                         f"got {value!r}")
    if any(v < 1 for v in out):
        raise ValueError(f"lax.{_NAME}: {name} entries must be >= 1, got {value!r}")
    return out


conv_general_dilated_p = Primitive(_NAME)


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """General N-d convolution (cross-correlation, as in XLA and JAX).

    ``padding`` is 'VALID', 'SAME', 'SAME_LOWER' or a (low, high) pair per spatial
    axis (negative values crop); ``lhs_dilation`` inserts zeros between input
    elements (transposed convolutions), ``rhs_dilation`` between kernel elements
    (atrous convolutions).
    """
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    strides = _int_tuple("window_strides", window_strides, nsp, 1)
    lhs_dil = _int_tuple("lhs_dilation", lhs_dilation, nsp, 1)
    rhs_dil = _int_tuple("rhs_dilation", rhs_dilation, nsp, 1)
    if isinstance(padding, str):
        window = [_dilate_dim(rhs_shape[a], r) for a, r in zip(dn.rhs_spec[2:], rhs_dil)]
        pads = padtype_to_pads([lhs_shape[a] for a in dn.lhs_spec[2:]], window, strides,
                               padding, _NAME)
    else:
        try:
            pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (TypeError, ValueError):
            raise TypeError(f"lax.{_NAME}: padding must be 'VALID', 'SAME', 'SAME_LOWER' or "
                            f"a sequence of (low, high) int pairs, got {padding!r}") from None
        if len(pads) != nsp:
            raise ValueError(f"lax.{_NAME}: padding needs one (low, high) pair per spatial "
                             f"axis ({nsp}), got {padding!r}")
    pet = None if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=strides, padding=pads, lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil, dimension_numbers=dn,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=None if precision is None else str(precision), preferred_element_type=pet)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """Convolution of an ``NC...`` lhs with an ``OI...`` kernel (no dilation)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """Convolution of an ``NC...`` lhs with an ``OI...`` kernel, with dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


# ---------------------------------------------------------------- abstract evaluation

def _conv_shape(lhs_shape, rhs_shape, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    spatial = []
    for i, (la, ra) in enumerate(zip(lhs_spec[2:], rhs_spec[2:])):
        lo, hi = padding[i]
        n = _dilate_dim(lhs_shape[la], lhs_dilation[i]) + lo + hi
        k = _dilate_dim(rhs_shape[ra], rhs_dilation[i])
        spatial.append(0 if n < k or n <= 0 else (n - k) // window_strides[i] + 1)
    canonical = (lhs_shape[lhs_spec[0]] // batch_group_count, rhs_shape[rhs_spec[0]], *spatial)
    out = [0] * len(canonical)
    for c, a in enumerate(out_spec):
        out[a] = canonical[c]
    return tuple(out)


def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type):
    check_kinds(_NAME, lhs, INT + INEXACT, "lhs")
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.{_NAME} requires lhs and rhs of one dtype, got lhs "
                        f"{lhs.dtype.name} and rhs {rhs.dtype.name}")
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise ValueError(f"lax.{_NAME}: lhs and rhs must have the same rank >= 2, got lhs "
                         f"shape {lhs.shape} and rhs shape {rhs.shape}")
    nsp = lhs.ndim - 2
    for name, v in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                    ("rhs_dilation", rhs_dilation), ("padding", padding)):
        if len(v) != nsp:
            raise ValueError(f"lax.{_NAME}: {name} {v} needs one entry per spatial axis "
                             f"({nsp})")
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    G, B = feature_group_count, batch_group_count
    if G < 1 or B < 1:
        raise ValueError(f"lax.{_NAME}: feature_group_count ({G}) and batch_group_count ({B}) "
                         f"must be >= 1")
    if G > 1 and B > 1:
        raise ValueError(f"lax.{_NAME}: feature_group_count ({G}) and batch_group_count ({B}) "
                         f"cannot both exceed 1")
    N, C = lhs.shape[lhs_spec[0]], lhs.shape[lhs_spec[1]]
    O, I = rhs.shape[rhs_spec[0]], rhs.shape[rhs_spec[1]]
    if C % G:
        raise ValueError(f"lax.{_NAME}: the lhs feature count {C} (lhs shape {lhs.shape}) is "
                         f"not divisible by feature_group_count {G}")
    if C // G != I:
        raise ValueError(f"lax.{_NAME}: the lhs feature count {C} (lhs shape {lhs.shape}) "
                         f"divided by feature_group_count {G} must equal the rhs input feature "
                         f"count {I} (rhs shape {rhs.shape})")
    if O % G:
        raise ValueError(f"lax.{_NAME}: the rhs output feature count {O} (rhs shape "
                         f"{rhs.shape}) is not divisible by feature_group_count {G}")
    if N % B:
        raise ValueError(f"lax.{_NAME}: the lhs batch size {N} (lhs shape {lhs.shape}) is not "
                         f"divisible by batch_group_count {B}")
    if O % B:
        raise ValueError(f"lax.{_NAME}: the rhs output feature count {O} (rhs shape "
                         f"{rhs.shape}) is not divisible by batch_group_count {B}")
    for i, la in enumerate(lhs_spec[2:]):
        lo, hi = padding[i]
        if _dilate_dim(lhs.shape[la], lhs_dilation[i]) + lo + hi < 0:
            raise ValueError(f"lax.{_NAME}: padding {padding[i]} of spatial axis {i} crops "
                             f"more than its (dilated) size "
                             f"{_dilate_dim(lhs.shape[la], lhs_dilation[i])} (lhs shape "
                             f"{lhs.shape})")
    shape = _conv_shape(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, G, B)
    dtype = preferred_element_type or lhs.dtype
    return [ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)]


# ---------------------------------------------------------------- NumPy kernel

def _conv_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count, precision,
               preferred_element_type):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dtype = np.dtype(preferred_element_type or lhs.dtype)
    out_shape = _conv_shape(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation,
                            rhs_dilation, dimension_numbers, feature_group_count,
                            batch_group_count)
    x = np.transpose(lhs, lhs_spec).astype(dtype, copy=False)   # N, C, *spatial
    w = np.transpose(rhs, rhs_spec).astype(dtype, copy=False)   # O, I, *window
    nsp = x.ndim - 2
    canonical_out = tuple(out_shape[a] for a in out_spec)
    if 0 in canonical_out or 0 in w.shape[1:]:     # empty output or empty contraction
        return [np.zeros(out_shape, dtype)]
    # lhs dilation: zeros between elements.
    if any(d > 1 for d in lhs_dilation):
        dil = x.shape[:2] + tuple(_dilate_dim(n, d) for n, d in zip(x.shape[2:], lhs_dilation))
        y = np.zeros(dil, dtype)
        y[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dilation)] = x
        x = y
    # Padding: negative entries crop, positive ones add zeros.
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(padding, x.shape[2:]))
    x = x[(slice(None), slice(None)) + crop]
    x = np.pad(x, [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding])
    # Sliding windows of the dilated kernel extent, subsampled by strides and dilation.
    extent = tuple(_dilate_dim(k, d) for k, d in zip(w.shape[2:], rhs_dilation))
    win = np.lib.stride_tricks.sliding_window_view(x, extent, axis=tuple(range(2, 2 + nsp)))
    win = win[(slice(None), slice(None))
              + tuple(slice(None, None, s) for s in window_strides)
              + tuple(slice(None, None, d) for d in rhs_dilation)]
    win = win[(slice(None), slice(None)) + tuple(slice(0, n) for n in canonical_out[2:])]
    # win: N, C, *out_spatial, *window. One batched matrix product per group:
    # (rows: batch x output positions) @ (in features x window) -> out features.
    G, B = feature_group_count, batch_group_count
    N, C = win.shape[:2]
    O, I = w.shape[:2]
    W, K = win.shape[2:2 + nsp], w.shape[2:]
    nw, nk = int(np.prod(W, dtype=np.int64)), int(np.prod(K, dtype=np.int64))
    groups, n, m = B * G, N // B, O // (B * G)      # one of B, G is 1
    win = win.reshape((B, n, G, I) + W + K)
    win = np.moveaxis(win, 2, 1).reshape((groups, n, I) + W + K)
    a = np.moveaxis(win, 2, 2 + nsp).reshape(groups, n * nw, I * nk)
    b = w.reshape(groups, m, I * nk).transpose(0, 2, 1)
    with np.errstate(all="ignore"):
        out = np.matmul(a, b)                         # groups, n * nw, m
    out = out.reshape((groups, n) + W + (m,))
    out = out.transpose((1, 0, 2 + nsp) + tuple(range(2, 2 + nsp))).reshape((n, O) + W)
    return [np.ascontiguousarray(np.transpose(out, np.argsort(out_spec))).astype(dtype,
                                                                                 copy=False)]


# ---------------------------------------------------------------- lowering

def _conv_lower(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count, precision,
                preferred_element_type):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    a_in, b_in = ctx.avals_in
    out = ctx.avals_out[0]
    if any(b_in.shape[a] == 0 for a in rhs_spec[2:]):
        return [full_like_aval(0, out)]   # XLA rejects empty windows; the sum is empty
    if out.dtype != a_in.dtype:
        lhs = hlo.convert(ir_type(a_in.update(dtype=out.dtype)), lhs)
        rhs = hlo.convert(ir_type(b_in.update(dtype=out.dtype)), rhs)
    dn = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0], kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0], output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]))
    i64 = ir.IntegerType.get_signless(64)
    pads = ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(len(padding), 2))
    op = hlo.ConvolutionOp(ir_type(out), lhs, rhs, dn,
                           ir.IntegerAttr.get(i64, feature_group_count),
                           ir.IntegerAttr.get(i64, batch_group_count),
                           window_strides=list(window_strides), padding=pads,
                           lhs_dilation=list(lhs_dilation), rhs_dilation=list(rhs_dilation))
    return [op.result]


# ---------------------------------------------------------------- reshaping helpers

def _split_axis(x, axis, n):
    """Split ``axis`` (size n*m) into axes (n, m) at ``axis``, ``axis + 1``."""
    shape = list(get_aval(x).shape)
    shape[axis:axis + 1] = [n, shape[axis] // n]
    return reshape(x, tuple(shape))


def _merge_axis(x, src, dst):
    """Merge axis ``src`` into axis ``dst`` as its major factor; the merged axis sits
    where ``dst`` is once ``src`` is removed."""
    shape = get_aval(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    pos = perm.index(dst)
    perm.insert(pos, src)
    x = transpose(x, tuple(perm))
    new = [shape[i] for i in perm]
    new[pos:pos + 2] = [new[pos] * new[pos + 1]]
    return reshape(x, tuple(new))


def _swap_spec(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _to_dtype(x, aval):
    if get_aval(x).dtype != aval.dtype:
        x = convert_element_type(x, aval.dtype, aval.weak_type)
    return x


# ---------------------------------------------------------------- transposition

def _conv_transpose_lhs(ct, rhs, lhs_aval, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type):
    """Cotangent of lhs: the cotangent (dilated by the strides) convolved with the
    spatially flipped kernel whose feature axes swap roles."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    rhs_aval = get_aval(rhs)
    if lhs_aval.size == 0 or rhs_aval.size == 0 or get_aval(ct).size == 0:
        return full(lhs_aval.shape, 0, lhs_aval.dtype)
    groups = max(feature_group_count, batch_group_count)
    if groups > 1:
        # Output features are `groups` blocks; move the block index to the front of
        # the kernel's input-feature axis so the transposed conv's output-feature
        # blocks line up with the groups.
        rhs = _split_axis(rhs, rhs_spec[0], groups)
        i_axis = rhs_spec[1] + (rhs_spec[1] > rhs_spec[0])
        rhs = _merge_axis(rhs, rhs_spec[0], i_axis)
    pads = [(k_dil - 1 - lo, n_dil + lo - g_dil) for lo, n_dil, k_dil, g_dil in _dilated_extents(
        ct, lhs_aval, rhs_aval, padding, window_strides, lhs_dilation, rhs_dilation,
        dimension_numbers)]
    flipped = rev(rhs, tuple(rhs_spec[2:]))
    trans_dn = ConvDimensionNumbers(out_spec, _swap_spec(rhs_spec), lhs_spec)
    out = conv_general_dilated_p.bind(
        ct, flipped, window_strides=lhs_dilation, padding=tuple(pads),
        lhs_dilation=window_strides, rhs_dilation=rhs_dilation, dimension_numbers=trans_dn,
        feature_group_count=groups, batch_group_count=1, precision=precision,
        preferred_element_type=preferred_element_type)
    if batch_group_count > 1:
        # The output features are (batch group, C); the batch group joins the batch.
        out = _split_axis(out, lhs_spec[1], batch_group_count)
        b_axis = lhs_spec[0] + (lhs_spec[0] > lhs_spec[1])
        out = _merge_axis(out, lhs_spec[1], b_axis)
    return _to_dtype(out, lhs_aval)


def _dilated_extents(ct, lhs_aval, rhs_aval, padding, window_strides, lhs_dilation,
                     rhs_dilation, dimension_numbers):
    """Per spatial axis: the low padding and the dilated sizes of lhs, kernel and
    cotangent, from which both transposes derive their padding."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    ct_shape = get_aval(ct).shape
    return [(padding[i][0], _dilate_dim(lhs_aval.shape[la], lhs_dilation[i]),
             _dilate_dim(rhs_aval.shape[ra], rhs_dilation[i]),
             _dilate_dim(ct_shape[oa], window_strides[i]))
            for i, (la, ra, oa) in enumerate(zip(lhs_spec[2:], rhs_spec[2:], out_spec[2:]))]


def _conv_transpose_rhs(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type):
    """Cotangent of rhs: lhs (batch and feature axes swapped) convolved with the
    cotangent as kernel; strides and kernel dilation trade places."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_aval = get_aval(lhs)
    if rhs_aval.size == 0 or lhs_aval.size == 0 or get_aval(ct).size == 0:
        return full(rhs_aval.shape, 0, rhs_aval.dtype)
    pads = [(lo, k_dil - 1 + g_dil - n_dil - lo) for lo, n_dil, k_dil, g_dil in _dilated_extents(
        ct, lhs_aval, rhs_aval, padding, window_strides, lhs_dilation, rhs_dilation,
        dimension_numbers)]
    trans_dn = ConvDimensionNumbers(_swap_spec(lhs_spec), _swap_spec(out_spec),
                                    _swap_spec(rhs_spec))
    out = conv_general_dilated_p.bind(
        lhs, ct, window_strides=rhs_dilation, padding=tuple(pads), lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides, dimension_numbers=trans_dn,
        feature_group_count=batch_group_count, batch_group_count=feature_group_count,
        precision=precision, preferred_element_type=preferred_element_type)
    return _to_dtype(out, rhs_aval)


def _conv_transpose(cts, lhs, rhs, **params):
    ct = cts[0]
    if ad.is_undefined(lhs) and ad.is_undefined(rhs):
        raise NotImplementedError(f"lax.{_NAME} is bilinear, not linear in both operands")
    if ad.is_undefined(lhs):
        return [_conv_transpose_lhs(ct, rhs, lhs.aval, **params), None]
    return [None, _conv_transpose_rhs(ct, lhs, rhs.aval, **params)]


# ---------------------------------------------------------------- batching

def _merge_into_groups(x, v_axis, axis, groups):
    """Merge the vmapped axis ``v_axis`` into ``axis`` read as (groups, size/groups): each
    group gains the vmapped axis as its major factor, (groups, V * size/groups)."""
    x = _split_axis(x, axis, groups)                  # ..., groups, size/groups, ...
    v = v_axis + (v_axis > axis)
    x = _merge_axis(x, v, axis + 1)
    g = axis - (v < axis)
    return _merge_axis(x, g, g + 1)


def _conv_batch(axis_size, args, dims, **params):
    (lhs, rhs), (ld, rd) = args, dims
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    G, B = params["feature_group_count"], params["batch_group_count"]
    V = axis_size

    def at(spec_axis, bdim):   # position of an unbatched axis in the batched array
        return spec_axis + (spec_axis >= bdim)

    if ld is not None and rd is not None:
        # Each batch element is its own group: fold the batch into the lhs features
        # (or the batch groups) and into the kernel's output features.
        if B > 1:
            lhs = _merge_axis(lhs, ld, at(lhs_spec[0], ld))
            params = dict(params, batch_group_count=B * V)
        else:
            lhs = _merge_axis(lhs, ld, at(lhs_spec[1], ld))
            params = dict(params, feature_group_count=G * V)
        rhs = _merge_axis(rhs, rd, at(rhs_spec[0], rd))
        out = conv_general_dilated_p.bind(lhs, rhs, **params)
        return [_split_axis(out, out_spec[1], V)], [out_spec[1]]
    if ld is not None:
        if B == 1:
            lhs = _merge_axis(lhs, ld, at(lhs_spec[0], ld))
        else:
            # lhs batch = (B, N/B): slot the vmapped axis inside each batch group.
            lhs = _merge_into_groups(lhs, ld, at(lhs_spec[0], ld), B)
        out = conv_general_dilated_p.bind(lhs, rhs, **params)
        return [_split_axis(out, out_spec[0], V)], [out_spec[0]]
    groups = max(G, B)
    o_axis = at(rhs_spec[0], rd)
    if groups == 1:
        rhs = _merge_axis(rhs, rd, o_axis)
        out = conv_general_dilated_p.bind(lhs, rhs, **params)
        return [_split_axis(out, out_spec[1], V)], [out_spec[1]]
    # Output features = (groups, O/groups): slot the vmapped axis inside each group.
    rhs = _merge_into_groups(rhs, rd, o_axis, groups)
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    f = out_spec[1]
    out = _split_axis(out, f, groups)                    # groups, V * O/groups
    out = _split_axis(out, f + 1, V)                     # groups, V, O/groups
    out = _merge_axis(out, f, f + 2)                     # V, O
    return [out], [f]


def _conv_jvp_lhs(g, lhs, rhs, **params):
    return conv_general_dilated_p.bind(g, rhs, **params)


def _conv_jvp_rhs(g, lhs, rhs, **params):
    return conv_general_dilated_p.bind(lhs, g, **params)


# Eagerly, convolutions of at least this many multiply-adds (at stride 1) run
# through XLA's compiled kernel, several times faster than the NumPy windows here.
XLA_EAGER_MIN_WORK = 1 << 20


def _conv_prefer_xla(lhs, rhs, *, dimension_numbers, **params):
    in_features = lhs.shape[dimension_numbers[0][1]]
    return (lhs.dtype.kind in "fc"
            and lhs.size // max(in_features, 1) * rhs.size >= XLA_EAGER_MIN_WORK)


conv_general_dilated_p.impl = _conv_impl
conv_general_dilated_p.prefer_xla = _conv_prefer_xla
conv_general_dilated_p.abstract_eval = _conv_abstract_eval
conv_general_dilated_p.lower = _conv_lower
ad.defjvp(conv_general_dilated_p, _conv_jvp_lhs, _conv_jvp_rhs)
conv_general_dilated_p.transpose = _conv_transpose
conv_general_dilated_p.batch = _conv_batch
