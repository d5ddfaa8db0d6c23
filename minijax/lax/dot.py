"""``dot_general``: contractions with batch dimensions (matmul, einsum pairs)."""

import numpy as np

from .. import _checks, dtypes
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..errors import ShapeMismatchError
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir_type
from ._helpers import ANY, check_kinds
from .elementwise import convert_element_type
from .precision import canonicalize_precision, precision_config
from .shapes import transpose

dot_general_p = Primitive("dot_general")


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """Contract ``lhs`` and ``rhs``.

    ``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.
    The output axes are the batch axes, then lhs's free axes, then rhs's free axes.
    ``precision`` is a ``Precision`` (or pair; see ``lax.precision``).
    ``preferred_element_type`` is the dtype products are accumulated in and returned
    as (int8 operands -> int32, float16 -> float32); by default the operands' dtype.
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(_checks.index(i) for i in lc), tuple(_checks.index(i) for i in rc)),
          (tuple(_checks.index(i) for i in lb), tuple(_checks.index(i) for i in rb)))
    pet = None if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn,
                              precision=canonicalize_precision(precision),
                              preferred_element_type=pet)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix products: the last axis of ``lhs`` with the first of ``rhs``
    (ranks 1 and 2, as ``numpy.dot`` on them)."""
    nl, nr = get_aval(lhs).ndim, get_aval(rhs).ndim
    if nl not in (1, 2) or nr not in (1, 2):
        raise TypeError(f"lax.dot takes operands of rank 1 or 2, got ranks {nl} and {nr}; "
                        f"use lax.dot_general")
    return dot_general(lhs, rhs, (((nl - 1,), (0,)), ((), ())), precision,
                       preferred_element_type)


def _free(ndim, contract, batch):
    return tuple(i for i in range(ndim) if i not in contract and i not in batch)


def _dot_impl(lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    lf, rf = _free(lhs.ndim, lc, lb), _free(rhs.ndim, rc, rb)
    bshape = tuple(lhs.shape[i] for i in lb)
    m = int(np.prod([lhs.shape[i] for i in lf], dtype=np.int64))
    n = int(np.prod([rhs.shape[i] for i in rf], dtype=np.int64))
    k = int(np.prod([lhs.shape[i] for i in lc], dtype=np.int64))
    nb = int(np.prod(bshape, dtype=np.int64))
    a = np.transpose(lhs, lb + lf + lc).reshape(nb, m, k)
    b = np.transpose(rhs, rb + rc + rf).reshape(nb, k, n)
    out_dtype = preferred_element_type or lhs.dtype
    if out_dtype != a.dtype:
        a, b = a.astype(out_dtype), b.astype(out_dtype)
    if a.dtype == np.bool_:
        out = np.matmul(a.astype(np.int8), b.astype(np.int8)) != 0
    else:
        with np.errstate(all="ignore"):
            out = np.matmul(a, b)
    shape = bshape + tuple(lhs.shape[i] for i in lf) + tuple(rhs.shape[i] for i in rf)
    return [out.reshape(shape)]


def _dot_abstract_eval(lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    check_kinds("dot_general", lhs, ANY)
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.dot_general requires operands of one dtype, got "
                        f"{lhs.dtype.name} and {rhs.dtype.name}")
    for name, dims, aval in (("lhs contracting", lc, lhs), ("rhs contracting", rc, rhs),
                             ("lhs batch", lb, lhs), ("rhs batch", rb, rhs)):
        if len(set(dims)) != len(dims) or any(not 0 <= d < aval.ndim for d in dims):
            raise ValueError(f"lax.dot_general: {name} dimensions {dims} are not distinct "
                             f"axes of an operand of shape {aval.shape}")
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise ValueError(f"lax.dot_general: dimension_numbers {dimension_numbers} pair "
                         f"different numbers of lhs and rhs axes")
    if set(lc) & set(lb) or set(rc) & set(rb):
        raise ValueError(f"lax.dot_general: an axis is both contracting and batch in "
                         f"{dimension_numbers}")
    for kind, ld, rd in (("contracting", lc, rc), ("batch", lb, rb)):
        ls, rs = tuple(lhs.shape[i] for i in ld), tuple(rhs.shape[i] for i in rd)
        if ls != rs:
            raise ShapeMismatchError(f"lax.dot_general: {kind} dimensions have different "
                                     f"sizes: lhs {ls} (shape {lhs.shape}) vs rhs {rs} (shape "
                                     f"{rhs.shape})")
    if preferred_element_type is not None:
        _check_preferred(lhs.dtype, np.dtype(preferred_element_type))
    lf, rf = _free(lhs.ndim, lc, lb), _free(rhs.ndim, rc, rb)
    shape = (tuple(lhs.shape[i] for i in lb) + tuple(lhs.shape[i] for i in lf)
             + tuple(rhs.shape[i] for i in rf))
    dtype = preferred_element_type or lhs.dtype
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return [ShapedArray(shape, dtype, weak)]


def _check_preferred(dtype, preferred):
    # As JAX: (integral or bool, integral or floating), (floating, floating),
    # (complex, complex), and never narrower than the operands within one family.
    src, dst = dtypes.kind(dtype), dtypes.kind(preferred)
    allowed = {"b": "biuf", "i": "iuf", "u": "iuf", "f": "f", "c": "c"}[src]
    if dst not in allowed:
        raise TypeError(f"lax.dot_general: preferred_element_type {preferred.name} is "
                        f"incompatible with operands of dtype {dtype.name}; allowed are "
                        f"(integral, integral), (integral, floating), (floating, floating) "
                        f"and (complex, complex)")
    if src == dst and preferred.itemsize < dtype.itemsize:
        raise TypeError(f"lax.dot_general: preferred_element_type {preferred.name} is "
                        f"narrower than the operands' dtype {dtype.name}")


def _dot_lower(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    a_in, b_in = ctx.avals_in
    out = ctx.avals_out[0]
    if out.dtype != a_in.dtype:
        lhs = hlo.convert(ir_type(a_in.update(dtype=out.dtype)), lhs)
        rhs = hlo.convert(ir_type(b_in.update(dtype=out.dtype)), rhs)
    dn = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb), rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc), rhs_contracting_dimensions=list(rc))
    return [hlo.dot_general(ir_type(out), lhs, rhs, dn,
                            precision_config=precision_config(precision))]


def _dot_transpose_operand(ct, other, self_aval, dimension_numbers, which, precision=None):
    """The cotangent of one operand of a dot_general: ``ct`` contracted with the other.

    Operand order is chosen so that, for ordinary matrix products, the result already
    has the operand's axis order (no transpose is emitted).
    """
    (lc, rc), (lb, rb) = dimension_numbers
    nb = len(lb)
    ct_dtype = get_aval(ct).dtype
    if get_aval(other).dtype != ct_dtype:
        # With preferred_element_type the cotangent has the output's dtype: contract in it.
        other = convert_element_type(other, ct_dtype)
    if which == "lhs":
        lf = _free(self_aval.ndim, lc, lb)
        rf = _free(get_aval(other).ndim, rc, rb)
        ct_rf = tuple(range(nb + len(lf), nb + len(lf) + len(rf)))
        # result axes: batch, lhs free, rhs contracting (ascending) = lhs contracting
        res = dot_general(ct, other, ((ct_rf, rf), (tuple(range(nb)), rb)), precision)
        axes = list(lb) + list(lf) + [lc[rc.index(r)] for r in sorted(rc)]
    else:
        lf = _free(get_aval(other).ndim, lc, lb)
        rf = _free(self_aval.ndim, rc, rb)
        ct_lf = tuple(range(nb, nb + len(lf)))
        # result axes: batch, lhs contracting (ascending) = rhs contracting, rhs free
        res = dot_general(other, ct, ((lf, ct_lf), (lb, tuple(range(nb)))), precision)
        axes = list(rb) + [rc[lc.index(l)] for l in sorted(lc)] + list(rf)
    out = transpose(res, tuple(axes.index(d) for d in range(self_aval.ndim)))
    return convert_element_type(out, self_aval.dtype, self_aval.weak_type)


def _dot_transpose(cts, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    ct = cts[0]
    if ad.is_undefined(lhs):
        return [_dot_transpose_operand(ct, rhs, lhs.aval, dimension_numbers, "lhs",
                                   precision), None]
    return [None, _dot_transpose_operand(ct, lhs, rhs.aval, dimension_numbers, "rhs",
                                         precision)]


def _dot_batch(axis_size, args, dims, *, dimension_numbers, precision, preferred_element_type):
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if ld is not None and rd is not None:
        lhs = batching.moveaxis(lhs, ld, 0)
        rhs = batching.moveaxis(rhs, rd, 0)
        shift = lambda t: tuple(i + 1 for i in t)
        dn = ((shift(lc), shift(rc)), ((0,) + shift(lb), (0,) + shift(rb)))
        return [dot_general(lhs, rhs, dn, precision, preferred_element_type)], [0]
    nb = len(lb)
    if ld is not None:
        shift = lambda t: tuple(i + (i >= ld) for i in t)
        dn = ((shift(lc), rc), (shift(lb), rb))
        lf = _free(get_aval(lhs).ndim, dn[0][0], dn[1][0])
        out_dim = nb + lf.index(ld)
    else:
        shift = lambda t: tuple(i + (i >= rd) for i in t)
        dn = ((lc, shift(rc)), (lb, shift(rb)))
        lf = _free(get_aval(lhs).ndim, lc, lb)
        rf = _free(get_aval(rhs).ndim, dn[0][1], dn[1][1])
        out_dim = nb + len(lf) + rf.index(rd)
    return [dot_general(lhs, rhs, dn, precision, preferred_element_type)], [out_dim]


# Eagerly, contractions of at least this many multiply-adds run through XLA's
# compiled kernel (faster than NumPy's matmul from about 256 x 256 x 256 here).
XLA_EAGER_MIN_WORK = 1 << 24


def _dot_prefer_xla(lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, _), (lb, _) = dimension_numbers
    shared = int(np.prod([lhs.shape[i] for i in lc + lb], dtype=np.int64))
    return (lhs.dtype.kind in "fc"
            and lhs.size * rhs.size // max(shared, 1) >= XLA_EAGER_MIN_WORK)


dot_general_p.impl = _dot_impl
dot_general_p.prefer_xla = _dot_prefer_xla
dot_general_p.abstract_eval = _dot_abstract_eval
dot_general_p.lower = _dot_lower
ad.defjvp(dot_general_p,
          lambda g, x, y, **p: dot_general_p.bind(g, y, **p),
          lambda g, x, y, **p: dot_general_p.bind(x, g, **p))
dot_general_p.transpose = _dot_transpose
dot_general_p.batch = _dot_batch
