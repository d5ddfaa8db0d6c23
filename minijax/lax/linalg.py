"""Linear algebra primitives, named as ``jax.lax.linalg``: cholesky, triangular_solve,
lu, qr, svd, eigh, eig and schur.

Operands are batches of matrices ``(..., m, n)`` of float32, float64, complex64 or
complex128 (derivatives: all dtypes, except complete qr of tall complex matrices; schur
has none). Eagerly on the CPU they run NumPy (``numpy.linalg``, or short loops over
columns below; schur, which NumPy lacks, runs its LAPACK lowering through XLA); under ``jit``
they lower to the LAPACK FFI kernels that ship in jaxlib (column-major custom calls),
post-processed as JAX does: a factorization that fails gives NaN. Those lowerings are
the primitives' "cpu" rules (``platform_lower``). Their "cuda" rules call the cuSOLVER
kernels of jaxlib's CUDA plugin as JAX 0.10 lowers them (triangular_solve is XLA's own
op there, a cuBLAS call; eig the plugin's hybrid kernel); schur has no GPU lowering
(``MissingPlatformLoweringError``), as in JAX.
"""

import enum

import numpy as np

from .. import _checks, dtypes
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import chlo, hlo, inline_function, ir, ir_constant, ir_type
from ..backend.cpu import lapack_target
from ..backend.cuda import cusolver_version, initialize_hybrid_kernels
from . import elementwise as ew
from ._helpers import INEXACT, check_kinds, constant
from ._helpers import zeros_like as _zeros_like
from .dot import dot_general
from .reductions import reduce_and, reduce_max, reduce_min, reduce_sum
from .shapes import broadcast_in_dim, broadcasted_iota, expand_dims, full, transpose
from .slicing import GatherDimensionNumbers, GatherScatterMode, gather, pad

__all__ = ["cholesky", "triangular_solve", "lu", "qr", "geqrf", "svd", "SvdAlgorithm", "eigh",
           "cholesky_p",
           "triangular_solve_p", "lu_p", "qr_p", "geqrf_p", "svd_p", "eigh_p",
           "lu_pivots_to_permutation",
           "eig", "eig_p", "schur", "schur_p",
           "lu_pivots_to_permutation_p",
           # helpers on batches of matrices, shared with minijax.numpy.linalg
           "batched_mask", "columns", "conj_transpose", "diagonal", "matrix_transpose", "solve",
           "symmetrize"]


# ---------------------------------------------------------------- checks

def _check_matrix(name, aval, square=False, operand="operand"):
    check_kinds(f"linalg.{name}", aval, INEXACT, operand)
    if aval.ndim < 2:
        raise ValueError(f"lax.linalg.{name} requires a (batch of) matrices of rank >= 2, got "
                         f"{operand} of shape {aval.shape}")
    if square and aval.shape[-1] != aval.shape[-2]:
        raise ValueError(f"lax.linalg.{name} requires square matrices (..., n, n), got "
                         f"{operand} of shape {aval.shape}")


def _check_lapack_dtype(name, aval, operand="operand"):
    """LAPACK's kernels are single and double precision only."""
    if aval.dtype.itemsize < 4:
        raise TypeError(f"lax.linalg.{name}: LAPACK has no {aval.dtype.name} kernel; convert "
                        f"the {operand} to float32, float64, complex64 or complex128")


def _real_only_jvp(name, x):
    if dtypes.kind(get_aval(x).dtype) == "c":
        raise NotImplementedError(f"the derivative of lax.linalg.{name} is implemented for "
                                  f"real dtypes only, got {get_aval(x).dtype.name}")


def _is_complex(x):
    return dtypes.kind(get_aval(x).dtype) == "c"


# ---------------------------------------------------------------- matrix helpers (lax)

def matrix_transpose(x):
    """The transpose of each matrix in a batch (the last two axes swapped)."""
    n = get_aval(x).ndim
    return transpose(x, (*range(n - 2), n - 1, n - 2))


def conj_transpose(x):
    """The conjugate transpose of a batch of matrices (the transpose for real ones)."""
    return ew.conj(matrix_transpose(x)) if _is_complex(x) else matrix_transpose(x)


def _as_dtype_of(x, like):
    """Real ``x`` converted to ``like``'s (possibly complex) dtype."""
    dtype = get_aval(like).dtype
    return x if get_aval(x).dtype == dtype else ew.convert_element_type(x, dtype)


def _matmul(a, b):
    """Product of batches of matrices with the same leading (batch) axes."""
    nb = get_aval(a).ndim - 2
    bd = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (bd, bd)))


def batched_mask(matrix, shape):
    """A constant boolean (r, c) ``matrix`` broadcast over the leading axes of ``shape``."""
    nd = len(shape)
    # (int8, not bool: the shared ir_constant mis-packs bool arrays of > 8 elements)
    m = broadcast_in_dim(constant(matrix, np.int8), shape, (nd - 2, nd - 1))
    return ew.ne(m, full(shape, 0, np.int8))


def _tril(x, k=0):
    shape = get_aval(x).shape
    return ew.select(batched_mask(np.tri(shape[-2], shape[-1], k, dtype=bool), shape), x, _zeros_like(x))


def _triu(x, k=0):
    shape = get_aval(x).shape
    return ew.select(batched_mask(np.tri(shape[-2], shape[-1], k - 1, dtype=bool), shape),
                  _zeros_like(x), x)


def _eye_like(x, k=0):
    """The identity (ones on diagonal ``k``) of ``x``'s matrix shape, broadcast over batch."""
    aval = get_aval(x)
    m, n = aval.shape[-2:]
    return broadcast_in_dim(constant(np.eye(m, n, k, dtype=aval.dtype), aval.dtype),
                            aval.shape, (aval.ndim - 2, aval.ndim - 1))


def diagonal(x):
    """The main diagonal ``(..., min(m, n))`` of a batch of matrices."""
    aval = get_aval(x)
    m, n = aval.shape[-2:]
    d = ew.select(batched_mask(np.eye(m, n, dtype=bool), aval.shape), x, _zeros_like(x))
    return reduce_sum(d, (aval.ndim - 1,) if m <= n else (aval.ndim - 2,))


def _diag_matrix(d):
    """A batch of diagonal matrices from ``(..., n)``."""
    aval = get_aval(d)
    n = aval.shape[-1]
    shape = (*aval.shape, n)
    b = broadcast_in_dim(d, shape, (*range(aval.ndim - 1), aval.ndim))
    return ew.select(batched_mask(np.eye(n, dtype=bool), shape), b, full(shape, 0, aval.dtype))


def columns(x, start, size):
    """Columns ``start .. start+size-1`` of ``x`` (zeros where out of range)."""
    aval = get_aval(x)
    n = aval.shape[-1]
    if start == 0 and size == n:
        return x
    return pad(x, 0, [(0, 0, 0)] * (aval.ndim - 1) + [(-start, start + size - n, 0)])


def _rows(x, start, size):
    """Rows ``start .. start+size-1`` of ``x`` (zeros where out of range)."""
    aval = get_aval(x)
    m = aval.shape[-2]
    if start == 0 and size == m:
        return x
    return pad(x, 0, [(0, 0, 0)] * (aval.ndim - 2) + [(-start, start + size - m, 0), (0, 0, 0)])


def symmetrize(x):
    """``(x + xᴴ) / 2`` over the last two axes (``xᴴ = xᵀ`` for real ``x``)."""
    return ew.div(ew.add(x, conj_transpose(x)), full(get_aval(x).shape, 2, get_aval(x).dtype))


def _symmetric_tangent(g, lower):
    """The symmetric (Hermitian) matrix a kernel that reads only one triangle of ``g``
    sees; for complex ``g`` only the real part of the diagonal is read."""
    off = _tril(g, -1) if lower else _triu(g, 1)
    diag = ew.select(batched_mask(np.eye(*get_aval(g).shape[-2:], dtype=bool), get_aval(g).shape), g,
                  _zeros_like(g))
    if _is_complex(g):
        diag = _as_dtype_of(ew.real(diag), g)
    return ew.add(ew.add(off, conj_transpose(off)), diag)


def _nan_where_failed(x, ok):
    """``x`` with NaN in every batch entry whose ``ok`` (batch-shaped bool) is False."""
    aval = get_aval(x)
    okb = broadcast_in_dim(ok, aval.shape, tuple(range(get_aval(ok).ndim)))
    return ew.select(okb, x, full(aval.shape, np.nan, aval.dtype))


def _finite_matrices(x, part=None):
    """Batch-shaped bool: whether each matrix of ``x`` (only its ``"lower"`` or
    ``"upper"`` triangle, for a kernel that reads one) has finite entries alone."""
    if part is not None:
        x = _tril(x) if part == "lower" else _triu(x)
    finite = ew.is_finite(x) if not _is_complex(x) else ew.bitwise_and(
        ew.is_finite(ew.real(x)), ew.is_finite(ew.imag(x)))
    ndim = get_aval(x).ndim
    return reduce_and(finite, axes=(ndim - 2, ndim - 1))


def _finite_operand(ctx, x, part=None):
    """``_finite_matrices`` of the IR value ``x``, the rule's operand. cuSOLVER's
    ``syevd`` can return finite values and info 0 for a matrix holding NaN or inf, where
    LAPACK gives NaN: the GPU rule gives NaN there too."""
    aval, = ctx.avals_in
    return inline_function(ctx, lambda a: [_finite_matrices(a, part)], [aval], [x])[0]


def _finite_and_safe_operand(ctx, x):
    """``(operand, finite)``: the rule's operand with each matrix holding NaN or inf
    replaced by zeros, and ``_finite_matrices`` of it. LAPACK's and cuSOLVER's SVDs can
    loop forever on such a matrix: its results are NaN without reaching them."""
    aval, = ctx.avals_in
    batch = tuple(range(aval.ndim - 2))

    def split(a):
        finite = _finite_matrices(a)
        keep = broadcast_in_dim(finite, aval.shape, batch)
        return [ew.select(keep, a, _zeros_like(a)), finite]
    return inline_function(ctx, split, [aval], [x])


def _nan_where_failed_or_not_finite(ctx, outs, avals, info, finite):
    """The results ``outs`` (of ``avals``) with NaN in each matrix whose kernel failed
    (``info``) or that held NaN or inf (``finite`` False)."""
    batch = ctx.avals_in[0].shape[:-2]
    flags = [ShapedArray(batch, np.dtype(np.int32)), ShapedArray(batch, np.dtype(bool))]
    return inline_function(
        ctx, lambda i, f, *o: [_nan_where_failed(r, ew.bitwise_and(_ok(i), f)) for r in o],
        [*flags, *avals], [info, finite, *outs])


def solve(a, b):
    """``a⁻¹ b`` for square ``a`` via ``lu`` (batch axes of a and b agree)."""
    lu_, _, perm = lu_p.bind(a)
    pb = _permute_rows(b, perm)
    y = triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu_, y, left_side=True, lower=False)


def _batch_at_front(prim):
    """The batching rule of a primitive on batches of matrices: leading axes are batch
    axes already, so move each batched axis to the front and apply ``prim`` again."""
    def rule(axis_size, args, dims, **params):
        args = [batching.move_axis_to(axis_size, a, d, 0) for a, d in zip(args, dims)]
        outs = prim.bind(*args, **params)
        outs = outs if prim.multiple_results else [outs]
        return outs, [0] * len(outs)
    return rule


# ---------------------------------------------------------------- LAPACK custom calls

def _layout_attr(aval, column_major):
    nd = aval.ndim
    lay = (nd - 2, nd - 1, *range(nd - 3, -1, -1)) if column_major else tuple(range(nd - 1, -1, -1))
    return ir.DenseIntElementsAttr.get(np.array(lay, np.int64), type=ir.IndexType.get())


def _u8(c):
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _custom_call(attributes, operands, avals_out, aliases=None):
    """The ``stablehlo.custom_call`` of ``attributes`` on ``operands``; ``aliases`` maps
    an operand index to the result that reuses its buffer."""
    if aliases:
        attributes["output_operand_aliases"] = ir.ArrayAttr.get([
            hlo.OutputOperandAlias.get(
                output_tuple_indices=[o] if len(avals_out) > 1 else [],
                operand_index=i, operand_tuple_indices=[])
            for i, o in aliases.items()])
    op = hlo.CustomCallOp.build_generic(results=[ir_type(a) for a in avals_out],
                                        operands=list(operands), attributes=attributes)
    return list(op.results)


def _lapack_attr(value):
    if isinstance(value, str):
        return _u8(value)
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value))


def _lapack_call(fn_base, dtype, operands, avals_in, avals_out, aliases=None, target=None,
                 **attrs):
    """A ``stablehlo.custom_call`` to jaxlib's LAPACK FFI kernel (typed FFI, api_version 4).

    Matrix operands and results (those of the largest rank) are column-major; the rest
    (pivots, singular values, info) are row-major. ``attrs`` are one-character LAPACK
    options (``uplo="L"``), passed as ui8 attributes, or ints, passed as i32 ones.
    ``target`` names a kernel of jaxlib's CPU module outside the ``lapack_<t><fn_base>_ffi``
    pattern (``fn_base`` and ``dtype`` are then unused).
    """
    rank = max(a.ndim for a in avals_in)
    name = lapack_target(fn_base or "", dtype)    # (registers jaxlib's CPU kernels)
    attributes = dict(
        call_target_name=ir.StringAttr.get(target or name),
        has_side_effect=ir.BoolAttr.get(False),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=ir.DictAttr.get({k: _lapack_attr(v) for k, v in attrs.items()}),
        operand_layouts=ir.ArrayAttr.get([_layout_attr(a, a.ndim == rank) for a in avals_in]),
        result_layouts=ir.ArrayAttr.get([_layout_attr(a, a.ndim == rank) for a in avals_out]))
    return _custom_call(attributes, operands, avals_out, aliases)


# ---------------------------------------------------------------- cuSOLVER custom calls
#
# jaxlib's CUDA plugin registers these FFI targets (``cusolver_*_ffi``,
# ``cu_lu_pivots_to_permutation``, ``cuhybrid_eig_*``). They are emitted as JAX emits
# them: api_version 1 with the attributes in ``mhlo.backend_config`` (XLA turns that
# into a typed FFI call), ``num_batch_dims`` as a frontend attribute, the matrices
# column-major.

def _ffi_attr(value):
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), int(value))   # a ui8 option


def _gpu_call(target, operands, avals_in, avals_out, aliases=None, non_batch_dims=2,
              column_major=True, **attrs):
    """A ``stablehlo.custom_call`` to the GPU FFI kernel ``target``. ``attrs`` are bools,
    strings or ui8 integers (``algorithm=0``)."""
    rank = max(a.ndim for a in avals_in)

    def layout(a):
        return _layout_attr(a, column_major and a.ndim == rank)
    attributes = dict(
        call_target_name=ir.StringAttr.get(target),
        has_side_effect=ir.BoolAttr.get(False),
        backend_config=ir.StringAttr.get(""),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        operand_layouts=ir.ArrayAttr.get([layout(a) for a in avals_in]),
        result_layouts=ir.ArrayAttr.get([layout(a) for a in avals_out]))
    attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {k: _ffi_attr(v) for k, v in attrs.items()})
    attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(rank - non_batch_dims))})
    return _custom_call(attributes, operands, avals_out, aliases)


def _hlo_slice(x, aval, limits):
    """``x[..., :limits[0], :limits[1]]`` on the last two axes."""
    start = [0] * aval.ndim
    limit = [*aval.shape[:-2], *limits]
    return hlo.slice(x, start, limit, [1] * aval.ndim), aval.update(shape=tuple(limit))


def _lower_empty(impl):
    """For operands with no elements: the results do not depend on values, so they are
    the NumPy kernel's results, embedded as constants."""
    def rule(ctx, *args, **params):
        outs = impl(*[np.zeros(a.shape, a.dtype) for a in ctx.avals_in], **params)
        return [ir_constant(np.asarray(o, a.dtype)) for o, a in zip(outs, ctx.avals_out)]
    return rule


def _lapack_lowering(impl, lower):
    empty = _lower_empty(impl)

    def rule(ctx, *args, **params):
        if any(a.size == 0 for a in ctx.avals_in):
            return empty(ctx, *args, **params)
        return lower(ctx, *args, **params)
    return rule


def _info_aval(aval):
    return ShapedArray(aval.shape[:-2], np.dtype(np.int32))


def _ok(info, cmp="eq"):
    shape = get_aval(info).shape
    zero = full(shape, 0, np.int32)
    return ew.eq(info, zero) if cmp == "eq" else ew.ge(info, zero)


def _per_matrix(kernel, x):
    """``kernel(x)`` (a list of arrays); if NumPy raises LinAlgError (no convergence,
    e.g. with NaN), retry matrix by matrix and give NaN results where it fails, as the
    LAPACK lowering does."""
    with np.errstate(all="ignore"):
        try:
            return kernel(x)
        except np.linalg.LinAlgError:
            pass
        flat = x.reshape(-1, *x.shape[-2:])
        results = []
        for a in flat:
            try:
                results.append(kernel(a))
            except np.linalg.LinAlgError:
                results.append(None)
        good = next((r for r in results if r is not None), None)
        if good is None:
            good = kernel(np.eye(*x.shape[-2:], dtype=x.dtype))
        outs = []
        for i, like in enumerate(good):
            stacked = np.stack([r[i] if r is not None else np.full_like(like, np.nan)
                                for r in results])
            outs.append(stacked.reshape(*x.shape[:-2], *like.shape))
        return outs


# ---------------------------------------------------------------- cholesky

cholesky_p = Primitive("cholesky")


def cholesky(x, *, symmetrize_input=True):
    """The lower Cholesky factor ``L`` (``x = L Lᴴ``) of Hermitian positive-definite
    matrices ``x`` (..., n, n); NaN where ``x`` is not positive definite. Only the lower
    triangle is read; with ``symmetrize_input`` ``x`` is first replaced by ``(x + xᴴ)/2``."""
    _check_matrix("cholesky", get_aval(x), square=True)
    if symmetrize_input:
        x = symmetrize(x)
    return cholesky_p.bind(x)


def _cholesky_impl(x):
    return _per_matrix(lambda a: [np.linalg.cholesky(a)], x)


def _cholesky_abstract_eval(x):
    _check_matrix("cholesky", x, square=True)
    return [x.strip_weak_type()]


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved."""
    aval = get_aval(x)
    n = aval.shape[-1]
    w = np.where(np.eye(n, dtype=bool), 0.5, 1.0).astype(aval.dtype)
    return ew.mul(_tril(x), broadcast_in_dim(constant(w, aval.dtype), aval.shape,
                                             (aval.ndim - 2, aval.ndim - 1)))


def _cholesky_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    L = cholesky_p.bind(x)
    if type(g) is ad.Zero:
        return [L], [g]
    # L⁻¹ dA L⁻ᴴ, then L Φ(·) (Murray 2016, arXiv:1602.07527); the kernel reads only the
    # lower triangle of x, so dA is the Hermitian matrix that triangle defines.
    g = _symmetric_tangent(g, lower=True)
    tmp = triangular_solve(L, g, left_side=False, lower=True, transpose_a=True,
                           conjugate_a=_is_complex(L))
    inner = triangular_solve(L, tmp, left_side=True, lower=True)
    return [L], [_matmul(L, _phi(inner))]


def _cholesky_lower(ctx, x):
    aval, = ctx.avals_in
    info_aval = _info_aval(aval)
    out, info = _lapack_call("potrf", aval.dtype, [x], [aval], [aval, info_aval],
                             aliases={0: 0}, uplo="L")
    # potrf leaves the strict upper triangle untouched: mask it out.
    return inline_function(ctx, lambda L, i: [_nan_where_failed(_tril(L), _ok(i))],
                   [aval, info_aval], [out, info])


cholesky_p.impl = _cholesky_impl
cholesky_p.abstract_eval = _cholesky_abstract_eval
cholesky_p.jvp = _cholesky_jvp
cholesky_p.batch = _batch_at_front(cholesky_p)
cholesky_p.platform_lower["cpu"] = _lapack_lowering(_cholesky_impl, _cholesky_lower)


def _cholesky_lower_cuda(ctx, x):
    aval, = ctx.avals_in
    info_aval = _info_aval(aval)
    out, info = _gpu_call("cusolver_potrf_ffi", [x], [aval], [aval, info_aval],
                          aliases={0: 0}, lower=True)
    return inline_function(ctx, lambda L, i: [_nan_where_failed(_tril(L), _ok(i))],
                           [aval, info_aval], [out, info])


cholesky_p.platform_lower["cuda"] = _lapack_lowering(_cholesky_impl, _cholesky_lower_cuda)


# ---------------------------------------------------------------- triangular_solve

triangular_solve_p = Primitive("triangular_solve")


def triangular_solve(a, b, left_side=False, lower=False, transpose_a=False, conjugate_a=False,
                     unit_diagonal=False):
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for ``x``, with ``a``
    triangular (..., m, m) and ``op(a)`` = ``a``, ``aᵀ`` (``transpose_a``) or ``aᴴ``
    (and ``conjugate_a``). Only ``a``'s lower (``lower``) or upper triangle is read;
    ``unit_diagonal`` takes its diagonal to be ones. Batch axes of a and b must agree."""
    return triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                   transpose_a=bool(transpose_a),
                                   conjugate_a=bool(conjugate_a),
                                   unit_diagonal=bool(unit_diagonal))


def _substitute(t, b, lower):
    """Solve ``t @ x = b`` for triangular ``t`` by substitution, vectorised over batch."""
    n = t.shape[-1]
    x = np.zeros(b.shape, np.result_type(t, b))
    for i in (range(n) if lower else range(n - 1, -1, -1)):
        done = slice(0, i) if lower else slice(i + 1, n)     # the solved rows only
        acc = np.matmul(t[..., i:i + 1, done], x[..., done, :])[..., 0, :]
        x[..., i, :] = (b[..., i, :] - acc) / t[..., i, i][..., None]
    return x


def _trsm_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        idx = np.arange(t.shape[-1])
        t[..., idx, idx] = 1
    if conjugate_a:
        t = t.conj()
    if transpose_a:
        t, lower = np.swapaxes(t, -1, -2), not lower
    with np.errstate(all="ignore"):
        if left_side:
            return [_substitute(t, b, lower)]
        # x t = b  <=>  tᵀ xᵀ = bᵀ
        x = _substitute(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2), not lower)
        return [np.swapaxes(x, -1, -2)]


def _trsm_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    _check_matrix("triangular_solve", a, square=True, operand="a")
    _check_matrix("triangular_solve", b, operand="b")
    if a.dtype != b.dtype:
        raise TypeError(f"lax.linalg.triangular_solve requires a and b of one dtype, got "
                        f"{a.dtype.name} and {b.dtype.name}")
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f"lax.linalg.triangular_solve requires a and b with the same batch "
                         f"axes, got shapes {a.shape} and {b.shape}")
    axis = -2 if left_side else -1
    if b.shape[axis] != a.shape[-1]:
        raise ValueError(f"lax.linalg.triangular_solve with left_side={left_side}: b of shape "
                         f"{b.shape} does not match a of shape {a.shape} (b.shape[{axis}] "
                         f"must be {a.shape[-1]})")
    return [b.strip_weak_type()]


def _trsm_jvp_a(g, ans, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    k = 1 if unit_diagonal else 0
    g = ew.neg(_tril(g, -k) if lower else _triu(g, k))
    if transpose_a:
        g = matrix_transpose(g)
    if conjugate_a and _is_complex(g):
        g = ew.conj(g)
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    if left_side:      # x = op(a)⁻¹ b:  dx = op(a)⁻¹ (-d op(a)) x
        return triangular_solve_p.bind(a, _matmul(g, ans), **params)
    return triangular_solve_p.bind(a, _matmul(ans, g), **params)   # x (-d op(a)) op(a)⁻¹


def _trsm_transpose(cts, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    if ad.is_undefined(a):
        raise NotImplementedError("lax.linalg.triangular_solve is not linear in a")
    ct = triangular_solve_p.bind(a, cts[0], left_side=left_side, lower=lower,
                                 transpose_a=not transpose_a, conjugate_a=conjugate_a,
                                 unit_diagonal=unit_diagonal)
    return [None, ct]


def _trsm_lower(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a_aval, b_aval = ctx.avals_in
    if conjugate_a and not transpose_a and dtypes.kind(a_aval.dtype) == "c":
        a = chlo.conj(a)
    trans = ("C" if conjugate_a else "T") if transpose_a else "N"
    return _lapack_call("trsm", a_aval.dtype, [a, b], [a_aval, b_aval], [b_aval],
                        aliases={1: 0}, side="L" if left_side else "R",
                        uplo="L" if lower else "U", trans_x=trans,
                        diag="U" if unit_diagonal else "N")


triangular_solve_p.impl = _trsm_impl
triangular_solve_p.abstract_eval = _trsm_abstract_eval
ad.defjvp2(triangular_solve_p, _trsm_jvp_a,
           lambda g, ans, a, b, **params: triangular_solve_p.bind(a, g, **params))
triangular_solve_p.transpose = _trsm_transpose
triangular_solve_p.batch = _batch_at_front(triangular_solve_p)
triangular_solve_p.platform_lower["cpu"] = _lapack_lowering(_trsm_impl, _trsm_lower)


def _trsm_lower_cuda(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                     unit_diagonal):
    # XLA's own op: on the GPU it becomes a cuBLAS trsm (``__cublas$triangularSolve``).
    conjugate_a = conjugate_a and dtypes.kind(ctx.avals_in[0].dtype) == "c"
    if conjugate_a and not transpose_a:
        a = chlo.conj(a)
    transpose = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
    return [hlo.triangular_solve(a, b, ir.BoolAttr.get(left_side), ir.BoolAttr.get(lower),
                                 ir.BoolAttr.get(unit_diagonal),
                                 hlo.TransposeAttr.get(transpose))]


triangular_solve_p.platform_lower["cuda"] = _lapack_lowering(_trsm_impl, _trsm_lower_cuda)


# ---------------------------------------------------------------- lu

lu_p = Primitive("lu", multiple_results=True)


def lu(x):
    """LU decomposition with partial pivoting of ``x`` (..., m, n): returns ``(lu, pivots,
    permutation)`` with ``x[..., permutation, :] = L @ U``; ``lu`` holds U and the strict
    lower part of the unit-diagonal L, ``pivots`` (..., min(m, n)) int32 the row swaps,
    ``permutation`` (..., m) int32 their product."""
    return tuple(lu_p.bind(x))


def _lu_impl(x):
    *batch, m, n = x.shape
    k = min(m, n)
    nb = int(np.prod(batch, dtype=np.int64))
    a = np.array(x, copy=True).reshape(nb, m, n)
    pivots = np.zeros((nb, k), np.int32)
    perm = np.tile(np.arange(m, dtype=np.int32), (nb, 1))
    rows = np.arange(nb)
    complex_ = a.dtype.kind == "c"
    with np.errstate(all="ignore"):
        for j in range(k):
            # LAPACK's i?amax measures |re| + |im| and never picks a NaN (its comparisons
            # are false) unless first
            col = a[:, j:, j]
            col = np.abs(col.real) + np.abs(col.imag) if complex_ else np.abs(col)
            p = j + np.argmax(np.where(np.isnan(col), -1, col), axis=1)
            pivots[:, j] = p
            row_j, row_p = a[:, j, :].copy(), a[rows, p, :].copy()
            a[:, j, :], a[rows, p, :] = row_p, row_j
            perm_j, perm_p = perm[:, j].copy(), perm[rows, p].copy()
            perm[:, j], perm[rows, p] = perm_p, perm_j
            d = a[:, j, j]
            nonzero = d != 0
            scale = np.where(nonzero, d, 1)[:, None]
            a[:, j + 1:, j] = np.where(nonzero[:, None], a[:, j + 1:, j] / scale, a[:, j + 1:, j])
            a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    return [a.reshape(x.shape), pivots.reshape(*batch, k), perm.reshape(*batch, m)]


def _lu_abstract_eval(x):
    _check_matrix("lu", x)
    *batch, m, n = x.shape
    return [x.strip_weak_type(), ShapedArray((*batch, min(m, n)), np.dtype(np.int32)),
            ShapedArray((*batch, m), np.dtype(np.int32))]


def _permute_rows(x, perm):
    """``x[..., perm, :]`` (``perm`` of shape (..., m), batch axes as ``x``'s), a gather."""
    aval = get_aval(x)
    if aval.shape[-2] == 0:     # no rows to permute (gather takes no empty collapsed axis)
        return x
    nd = aval.ndim
    batch = tuple(range(nd - 2))
    dnums = GatherDimensionNumbers((nd - 1,), (nd - 2,), (nd - 2,), batch, batch)
    return gather(x, expand_dims(perm, (nd - 1,)), dnums, (1,) * (nd - 1) + (aval.shape[-1],),
                  unique_indices=True, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu_, pivots, perm = lu_p.bind(a)
    outs = [lu_, pivots, perm]
    int_zeros = [ad.Zero(ad.tangent_aval(get_aval(pivots))),
                 ad.Zero(ad.tangent_aval(get_aval(perm)))]
    if type(a_dot) is ad.Zero:
        return outs, [ad.Zero(ad.tangent_aval(get_aval(lu_))), *int_zeros]
    # De Hoog, Anderssen and Lukas: with F = L⁻¹ P dA U⁻¹,
    # dL = L tril(F, -1) and dU = triu(F) U.
    aval = get_aval(a)
    m, n = aval.shape[-2:]
    k = min(m, n)
    l = ew.add(columns(_tril(lu_, -1), 0, m), _eye_like(columns(lu_, 0, m)))
    u_tail = constant(np.diag((np.arange(n) >= k).astype(aval.dtype)), aval.dtype)
    u = _triu(_rows(lu_, 0, n))
    u = ew.add(u, broadcast_in_dim(u_tail, get_aval(u).shape, (aval.ndim - 2, aval.ndim - 1)))
    pa = _permute_rows(a_dot, perm)
    la = triangular_solve(l, pa, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    lu_dot = ew.add(_matmul(l, _tril(lau, -1)), _matmul(_triu(lau), u))
    return outs, [lu_dot, *int_zeros]


lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


def lu_pivots_to_permutation(pivots, permutation_size):
    """The permutation (..., permutation_size) int32 that the row swaps ``pivots``
    (int32 (..., k): ``row i <-> row pivots[i]``, in order) apply to
    ``arange(permutation_size)``."""
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=_checks.index(permutation_size))


def _pivots_impl(pivots, *, permutation_size):
    *batch, k = pivots.shape
    nb = int(np.prod(batch, dtype=np.int64))
    piv = pivots.reshape(nb, k)
    perm = np.tile(np.arange(permutation_size, dtype=np.int32), (nb, 1))
    rows = np.arange(nb)
    for i in range(k):
        p = piv[:, i]
        perm_i, perm_p = perm[:, i].copy(), perm[rows, p].copy()
        perm[:, i], perm[rows, p] = perm_p, perm_i
    return [perm.reshape(*batch, permutation_size)]


def _pivots_abstract_eval(pivots, *, permutation_size):
    if pivots.dtype != np.int32:
        raise TypeError(f"lax.linalg.lu_pivots_to_permutation requires int32 pivots, got "
                        f"{pivots.dtype.name}")
    if pivots.ndim < 1 or pivots.shape[-1] > permutation_size:
        raise ValueError(f"lax.linalg.lu_pivots_to_permutation requires pivots of shape "
                         f"(..., k) with k <= permutation_size={permutation_size}, got shape "
                         f"{pivots.shape}")
    return [ShapedArray((*pivots.shape[:-1], permutation_size), np.dtype(np.int32))]


def _swap_step(i, perm, piv):
    """One step of the loop: swap ``perm[..., i]`` and ``perm[..., piv[..., i]]``."""
    pshape, shape = get_aval(piv).shape, get_aval(perm).shape
    nb = len(shape) - 1

    def pick(v, where):   # v[..., j] at the one position where ``where`` holds
        return reduce_sum(ew.select(where, v, _zeros_like(v)), (nb,))

    def spread(x):
        return broadcast_in_dim(x, shape, tuple(range(nb)))

    p = pick(piv, ew.eq(broadcasted_iota(np.int32, pshape, nb), broadcast_in_dim(i, pshape, ())))
    idx = broadcasted_iota(np.int32, shape, nb)
    at_i = ew.eq(idx, broadcast_in_dim(i, shape, ()))
    at_p = ew.eq(idx, spread(p))
    v_i, v_p = spread(pick(perm, at_i)), spread(pick(perm, at_p))
    one = full((), 1, np.int32)
    return [ew.add(i, one), ew.select(at_i, v_p, ew.select(at_p, v_i, perm)), piv]


def _lower_pivots(ctx, piv, piv_aval, m):
    """A ``stablehlo.while`` over the k pivots (program size independent of k)."""
    shape = (*piv_aval.shape[:-1], m)
    perm_aval = ShapedArray(shape, np.dtype(np.int32))
    i_aval = ShapedArray((), np.dtype(np.int32))
    perm0, = inline_function(ctx, lambda: [broadcasted_iota(np.int32, shape, len(shape) - 1)], [], [])
    types = [ir_type(i_aval), ir_type(perm_aval), ir_type(piv_aval)]
    loop = hlo.WhileOp(types, [ir_constant(np.int32(0)), perm0, piv])
    cond = loop.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.return_([hlo.compare(cond.arguments[0], ir_constant(np.int32(piv_aval.shape[-1])),
                                 hlo.ComparisonDirectionAttr.get("LT"),
                                 compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))])
    body = loop.body.blocks.append(*types)
    with ir.InsertionPoint(body):
        hlo.return_(inline_function(ctx, _swap_step, [i_aval, perm_aval, piv_aval],
                            list(body.arguments)))
    return loop.results[1]


def _pivots_lower(ctx, pivots, *, permutation_size):
    return [_lower_pivots(ctx, pivots, ctx.avals_in[0], permutation_size)]


lu_pivots_to_permutation_p.impl = _pivots_impl
lu_pivots_to_permutation_p.abstract_eval = _pivots_abstract_eval
ad.defjvp_zero(lu_pivots_to_permutation_p)
lu_pivots_to_permutation_p.batch = _batch_at_front(lu_pivots_to_permutation_p)
lu_pivots_to_permutation_p.lower = _lapack_lowering(_pivots_impl, _pivots_lower)


def _lu_lower(ctx, x):
    aval, = ctx.avals_in
    lu_aval, piv_aval, perm_aval = ctx.avals_out
    info_aval = _info_aval(aval)
    lu_, piv, info = _lapack_call("getrf", aval.dtype, [x], [aval],
                                  [lu_aval, piv_aval, info_aval], aliases={0: 0})

    def post(lu_, piv, info):
        piv = ew.sub(piv, full(get_aval(piv).shape, 1, np.int32))   # LAPACK's are 1-based
        return [_nan_where_failed(lu_, _ok(info, "ge")), piv]
    lu_, piv = inline_function(ctx, post, [lu_aval, piv_aval, info_aval], [lu_, piv, info])
    return [lu_, piv, _lower_pivots(ctx, piv, piv_aval, aval.shape[-2])]


lu_p.impl = _lu_impl
lu_p.abstract_eval = _lu_abstract_eval
lu_p.jvp = _lu_jvp
lu_p.batch = _batch_at_front(lu_p)
lu_p.platform_lower["cpu"] = _lapack_lowering(_lu_impl, _lu_lower)


def _pivots_lower_cuda(ctx, pivots, *, permutation_size):
    return _gpu_call("cu_lu_pivots_to_permutation", [pivots], ctx.avals_in, ctx.avals_out,
                     non_batch_dims=1, column_major=False)


lu_pivots_to_permutation_p.platform_lower["cuda"] = _lapack_lowering(_pivots_impl,
                                                                     _pivots_lower_cuda)


def _lu_lower_cuda(ctx, x):
    aval, = ctx.avals_in
    lu_aval, piv_aval, perm_aval = ctx.avals_out
    info_aval = _info_aval(aval)
    lu_, piv, info = _gpu_call("cusolver_getrf_ffi", [x], [aval],
                               [lu_aval, piv_aval, info_aval], aliases={0: 0})

    def post(lu_, piv, info):
        piv = ew.sub(piv, full(get_aval(piv).shape, 1, np.int32))   # cuSOLVER's are 1-based
        return [_nan_where_failed(lu_, _ok(info, "ge")), piv]
    lu_, piv = inline_function(ctx, post, [lu_aval, piv_aval, info_aval], [lu_, piv, info])
    perm, = _gpu_call("cu_lu_pivots_to_permutation", [piv], [piv_aval], [perm_aval],
                      non_batch_dims=1, column_major=False)
    return [lu_, piv, perm]


lu_p.platform_lower["cuda"] = _lapack_lowering(_lu_impl, _lu_lower_cuda)


# ---------------------------------------------------------------- qr

qr_p = Primitive("qr", multiple_results=True)


def qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """QR decomposition of ``x`` (..., m, n): ``(q, r)`` with orthonormal columns in
    ``q`` (..., m, m) and upper-triangular ``r`` (..., m, n); with ``full_matrices=False``
    the reduced factors (..., m, k) and (..., k, n), k = min(m, n). With ``pivoting``,
    ``(q, r, p)``: LAPACK's column-pivoted QR (``geqp3``), ``x[..., p] = q r`` with ``p``
    (..., n) int32 column indices (no derivative; q and r differentiate as the QR of
    ``x[..., p]``). ``use_magma`` picks MAGMA's kernel on a GPU; on the CPU it has no
    effect, as in JAX."""
    if use_magma not in (None, True, False):
        raise TypeError(f"lax.linalg.qr: use_magma must be None or a bool, got {use_magma!r}")
    if pivoting not in (True, False):
        raise TypeError(f"lax.linalg.qr: pivoting must be a bool, got {pivoting!r}")
    _check_matrix("qr", get_aval(x))
    return tuple(qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices)))


def _geqp3_pivots(a):
    """The column order LAPACK's ``geqp3`` (its unblocked ``laqp2``) picks for one
    matrix: at each step the column of largest remaining norm (first of ties), the norms
    downdated as LAPACK does and recomputed where cancellation makes that inaccurate."""
    a = np.array(a, copy=True)
    m, n = a.shape
    real = np.finfo(a.dtype).dtype
    perm = np.arange(n)
    vn1 = np.linalg.norm(a, axis=0).astype(real)
    vn2 = vn1.copy()
    tol3z = np.sqrt(np.finfo(real).eps / 2)        # sqrt of LAPACK's lamch("Epsilon")
    for i in range(min(m, n)):
        rest = vn1[i:]
        # LAPACK's idamax: the first maximum, and NaN never beats the running maximum
        pvt = i if np.isnan(rest[0]) else i + int(np.argmax(np.where(np.isnan(rest), -np.inf,
                                                                          rest)))
        if pvt != i:
            a[:, [i, pvt]] = a[:, [pvt, i]]
            perm[[i, pvt]] = perm[[pvt, i]]
            vn1[pvt], vn2[pvt] = vn1[i], vn2[i]
        alpha, tail = a[i, i], a[i + 1:, i]
        xnorm = np.linalg.norm(tail)
        if xnorm != 0 or alpha.imag != 0:             # else the reflector is the identity
            beta = -np.copysign(np.hypot(abs(alpha), xnorm), alpha.real)
            tau = (beta - alpha) / beta
            v = np.concatenate([np.ones(1, a.dtype), tail / (alpha - beta)])
            block = a[i:, i + 1:]
            block -= np.conj(tau) * np.outer(v, v.conj() @ block)
        j = np.arange(i + 1, n)
        j = j[vn1[j] != 0]
        with np.errstate(all="ignore"):
            temp = np.maximum(1 - (np.abs(a[i, j]) / vn1[j]) ** 2, 0).astype(real)
            temp2 = temp * (vn1[j] / vn2[j]) ** 2
        redo = temp2 <= tol3z
        vn1[j[~redo]] *= np.sqrt(temp[~redo])
        fresh = (np.linalg.norm(a[i + 1:, j[redo]], axis=0) if i + 1 < m
                 else np.zeros(int(redo.sum()), real))
        vn1[j[redo]] = vn2[j[redo]] = fresh
    return perm


def _qr_impl(x, *, pivoting, full_matrices):
    mode = "complete" if full_matrices else "reduced"
    if not pivoting:
        q, r = np.linalg.qr(x, mode=mode)
        return [q, r]
    *batch, m, n = x.shape
    flat = x.reshape(int(np.prod(batch, dtype=np.int64)), m, n)
    with np.errstate(all="ignore"):
        perms = np.array([_geqp3_pivots(a) for a in flat], np.int32).reshape(*batch, n)
        q, r = np.linalg.qr(np.take_along_axis(x, perms[..., None, :], axis=-1), mode=mode)
    return [q, r, perms]


def _qr_abstract_eval(x, *, pivoting, full_matrices):
    _check_matrix("qr", x)
    _check_lapack_dtype("qr", x)
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    outs = [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]
    return outs + [ShapedArray((*batch, n), np.dtype(np.int32))] if pivoting else outs


def _permute_columns(x, perm):
    """``x[..., perm]`` (``perm`` of shape (..., n), batch axes as ``x``'s)."""
    return matrix_transpose(_permute_rows(matrix_transpose(x), perm))


def _thin_qr_jvp(q, r, dx):
    """JVP of the QR decomposition of (..., m, n) matrices with m >= n (reduced)."""
    dx_rinv = triangular_solve(r, dx)                # dx r⁻¹
    qt_dx_rinv = _matmul(conj_transpose(q), dx_rinv)
    low = _tril(qt_dx_rinv, -1)
    do = ew.sub(low, conj_transpose(low))                        # skew-symmetric (skew-Hermitian)
    if _is_complex(q):
        # The kernel's r has a real diagonal: qᴴ dq takes the diagonal's imaginary part.
        im = ew.sub(qt_dx_rinv, _as_dtype_of(ew.real(qt_dx_rinv), q))
        do = ew.add(do, ew.select(batched_mask(np.eye(*get_aval(im).shape[-2:], dtype=bool),
                                     get_aval(im).shape), im, _zeros_like(im)))
    dq = ew.add(_matmul(q, ew.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(ew.sub(qt_dx_rinv, do), r)
    return dq, dr


def _qr_jvp(primals, tangents, *, pivoting, full_matrices):
    (x,), (dx,) = primals, tangents
    outs = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices)
    dx = ad.instantiate(dx)
    if pivoting:    # the QR of x[..., p]; p is locally constant
        p = outs[2]
        x, dx = _permute_columns(x, p), _permute_columns(dx, p)
        dq, dr = _qr_tangents(x, *outs[:2], dx, full_matrices)
        return outs, [dq, dr, ad.Zero(ad.tangent_aval(get_aval(p)))]
    return outs, list(_qr_tangents(x, *outs, dx, full_matrices))


def _qr_tangents(x, q, r, dx, full_matrices):
    """``(dq, dr)`` of the (unpivoted) QR ``x = q r`` along ``dx``."""
    m, n = get_aval(x).shape[-2:]
    if m < n:
        # x = [x1 x2] with x1 square: q r1 = x1 and r2 = qᵀ x2.
        x2, dx1, dx2 = columns(x, m, n - m), columns(dx, 0, m), columns(dx, m, n - m)
        dq, dr1 = _thin_qr_jvp(q, columns(r, 0, m), dx1)
        dr2 = ew.add(_matmul(conj_transpose(dq), x2), _matmul(conj_transpose(q), dx2))
        return dq, ew.add(columns(dr1, 0, n), columns(dr2, -m, n))
    if not full_matrices or m == n:
        return _thin_qr_jvp(q, r, dx)
    _real_only_jvp("qr with full_matrices of tall matrices", x)
    # Tall, complete: the thin part as above; the last m - n columns of q follow from
    # Roberts & Roberts (arXiv:2409.13374, eqs. 32-33), with z = q_pn (q_nn - I)⁻¹.
    p = m - n
    q_mn, q_mp = columns(q, 0, n), columns(q, n, p)
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, _rows(r, 0, n), dx)
    q_nn, q_pn = _rows(q_mn, 0, n), _rows(q_mn, n, p)
    dq_nn, dq_pn = _rows(dq_mn, 0, n), _rows(dq_mn, n, p)
    z_t = solve(matrix_transpose(ew.sub(q_nn, _eye_like(q_nn))), matrix_transpose(q_pn))        # zᵀ (n, p)
    z = matrix_transpose(z_t)
    dq_mp = ew.sub(_matmul(dq_mn, z_t),
                   _matmul(ew.add(q_mn, _matmul(q_mp, z)),
                           matrix_transpose(ew.sub(dq_pn, _matmul(z, dq_nn)))))
    dq = ew.add(columns(dq_mn, 0, m), columns(dq_mp, -n, m))
    return dq, _rows(dr_nn, 0, m)


def _lapack_geqrf(x, aval, tau_aval):
    return _lapack_call("geqrf", aval.dtype, [x], [aval], [aval, tau_aval], aliases={0: 0})


def _lapack_orgqr(h, taus, h_aval, tau_aval):
    orgqr = "ungqr" if dtypes.kind(h_aval.dtype) == "c" else "orgqr"
    return _lapack_call(orgqr, h_aval.dtype, [h, taus], [h_aval, tau_aval], [h_aval],
                        aliases={0: 0})


def _cusolver_geqrf(x, aval, tau_aval):
    return _gpu_call("cusolver_geqrf_ffi", [x], [aval], [aval, tau_aval], aliases={0: 0})


def _cusolver_orgqr(h, taus, h_aval, tau_aval):
    # (one target for real and complex: cuSOLVER's orgqr and ungqr)
    return _gpu_call("cusolver_orgqr_ffi", [h, taus], [h_aval, tau_aval], [h_aval],
                     aliases={0: 0})


def _qr_lowering(geqrf, orgqr):
    """The lowering of ``qr`` through a platform's Householder kernels: ``geqrf(x, aval,
    tau_aval)`` gives the reflectors and their scales, ``orgqr(h, taus, h_aval,
    tau_aval)`` the product of the reflectors."""
    def rule(ctx, x, *, pivoting, full_matrices):
        if pivoting:
            raise NotImplementedError("lax.linalg.qr with pivoting has no GPU lowering in "
                                      "minijax (JAX's needs MAGMA); run it on the CPU")
        return _qr_lower(ctx, x, full_matrices, geqrf, orgqr)
    return rule


def _qr_lower(ctx, x, full_matrices, geqrf, orgqr):
    aval, = ctx.avals_in
    *batch, m, n = aval.shape
    k = min(m, n)
    tau_aval = ShapedArray((*batch, k), aval.dtype)
    a, taus = geqrf(x, aval, tau_aval)
    if m < n:
        h, h_aval = _hlo_slice(a, aval, (m, m))
    elif full_matrices and m > n:
        h_aval = aval.update(shape=(*batch, m, m))
        zero = ir_constant(np.zeros((), aval.dtype))
        pad = [0] * aval.ndim
        h = hlo.pad(a, zero, pad, [0] * (aval.ndim - 1) + [m - n], pad)
    else:
        h, h_aval = a, aval
    q, = orgqr(h, taus, h_aval, tau_aval)
    if not full_matrices and m > n:
        a, aval = _hlo_slice(a, aval, (n, n))
    return [q, *inline_function(ctx, lambda r: [_triu(r)], [aval], [a])]


def _qr_lower_cpu(ctx, x, *, pivoting, full_matrices):
    if not pivoting:
        return _qr_lower(ctx, x, full_matrices, _lapack_geqrf, _lapack_orgqr)
    aval, = ctx.avals_in
    jpvt_aval = ctx.avals_out[2]
    jpvt = []

    def geqp3(x, aval, tau_aval):
        # jpvt in: zeros (every column free to move); out: LAPACK's 1-based indices
        zeros = ir_constant(np.zeros(jpvt_aval.shape, np.int32))
        a, p, taus = _lapack_call("geqp3", aval.dtype, [x, zeros], [aval, jpvt_aval],
                                  [aval, jpvt_aval, tau_aval], aliases={0: 0, 1: 1})
        jpvt.append(p)
        return a, taus
    q, r = _qr_lower(ctx, x, full_matrices, geqp3, _lapack_orgqr)
    p, = inline_function(ctx, lambda p: [ew.sub(p, full(jpvt_aval.shape, 1, np.int32))],
                         [jpvt_aval], jpvt)
    return [q, r, p]


qr_p.impl = _qr_impl
qr_p.abstract_eval = _qr_abstract_eval
qr_p.jvp = _qr_jvp
qr_p.batch = _batch_at_front(qr_p)
qr_p.platform_lower["cpu"] = _lapack_lowering(_qr_impl, _qr_lower_cpu)
qr_p.platform_lower["cuda"] = _lapack_lowering(_qr_impl,
                                               _qr_lowering(_cusolver_geqrf, _cusolver_orgqr))


geqrf_p = Primitive("geqrf", multiple_results=True)


def geqrf(x):
    """The QR decomposition of ``x`` (..., m, n) in LAPACK's Householder form: ``(a,
    taus)`` with ``r`` in ``a``'s upper triangle, the reflectors' vectors under its
    diagonal (their leading 1 implicit) and their scales in ``taus`` (..., min(m, n)).
    Not differentiable."""
    return tuple(geqrf_p.bind(x))


def _geqrf_impl(x):
    h, taus = np.linalg.qr(x, mode="raw")   # (NumPy's h is LAPACK's matrix transposed)
    return [np.swapaxes(h, -1, -2), taus]


def _geqrf_abstract_eval(x):
    _check_matrix("geqrf", x)
    *batch, m, n = x.shape
    return [x, ShapedArray((*batch, min(m, n)), x.dtype)]


def _geqrf_lowering(kernel):
    def rule(ctx, x):
        aval, = ctx.avals_in
        return list(kernel(x, aval, ctx.avals_out[1]))
    return _lapack_lowering(_geqrf_impl, rule)


geqrf_p.impl = _geqrf_impl
geqrf_p.abstract_eval = _geqrf_abstract_eval
geqrf_p.batch = _batch_at_front(geqrf_p)
geqrf_p.platform_lower["cpu"] = _geqrf_lowering(_lapack_geqrf)
geqrf_p.platform_lower["cuda"] = _geqrf_lowering(_cusolver_geqrf)


# ---------------------------------------------------------------- svd

svd_p = Primitive("svd", multiple_results=True)


class SvdAlgorithm(enum.Enum):
    """The algorithm of ``svd``, as ``jax.lax.linalg.SvdAlgorithm``. On the CPU, DEFAULT
    and DIVIDE_AND_CONQUER are LAPACK's ``gesdd``, QR its ``gesvd``; JACOBI and POLAR
    exist on GPUs only."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """Singular value decomposition of ``x`` (..., m, n): ``(u, s, vh)`` with
    ``x = u @ diag(s) @ vh``, ``s`` descending; ``s`` alone if not ``compute_uv``.
    With ``full_matrices=False`` u and vh are (..., m, k) and (..., k, n), k = min(m, n).
    ``subset_by_index=(start, end)`` keeps singular values ``start .. end-1`` of the
    descending order and their vectors (it needs ``full_matrices=False``, unless it is
    the whole range); they are sliced from the full decomposition. ``algorithm`` is a
    ``SvdAlgorithm`` (None: DEFAULT); with QR, eager calls run the LAPACK kernel
    through XLA too (NumPy has no ``gesvd``)."""
    if algorithm is None:
        algorithm = SvdAlgorithm.DEFAULT
    if not isinstance(algorithm, SvdAlgorithm):
        raise TypeError(f"lax.linalg.svd: algorithm must be a lax.linalg.SvdAlgorithm or "
                        f"None, got {algorithm!r}")
    aval = get_aval(x)
    _check_matrix("svd", aval)
    k = min(aval.shape[-2:])
    subset = _index_range("svd", subset_by_index, k)
    if subset is not None and full_matrices and subset != (0, k):
        raise ValueError("lax.linalg.svd: full_matrices and subset_by_index cannot both be "
                         "set; pass full_matrices=False")
    outs = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                      algorithm=algorithm)
    if subset is not None and subset != (0, k):
        start, size = subset[0], subset[1] - subset[0]
        s = columns(outs[0], start, size)
        if not compute_uv:
            return s
        _, u, vh = outs
        return columns(u, start, size), s, _rows(vh, start, size)
    if compute_uv:
        s, u, vh = outs
        return u, s, vh
    return outs[0]


def _index_range(name, subset_by_index, size):
    """``subset_by_index`` checked as a (start, end) pair of ints, 0 <= start <= end <=
    size; None stays None."""
    if subset_by_index is None:
        return None
    try:
        start, end = (_checks.index(v) for v in subset_by_index)
    except (TypeError, ValueError):
        raise TypeError(f"lax.linalg.{name}: subset_by_index must be a (start, end) pair of "
                        f"ints, got {subset_by_index!r}") from None
    if not 0 <= start <= end <= size:
        raise ValueError(f"lax.linalg.{name}: subset_by_index={subset_by_index!r} is not a "
                         f"range 0 <= start <= end <= {size}")
    return start, end


def _svd_impl(x, *, full_matrices, compute_uv, algorithm):
    finite = np.isfinite(x).all(axis=(-2, -1))
    if not finite.all():   # (as _finite_and_safe_operand: NaN, never LAPACK's endless loop)
        outs = _svd_impl(np.where(finite[..., None, None], x, 0), full_matrices=full_matrices,
                         compute_uv=compute_uv, algorithm=algorithm)
        return [np.where(finite.reshape(finite.shape + (1,) * (o.ndim - finite.ndim)), o,
                         np.nan) for o in outs]
    if not compute_uv:
        return _per_matrix(lambda a: [np.linalg.svd(a, compute_uv=False)], x)

    def kernel(a):
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
        return [s, u, vh]
    return _per_matrix(kernel, x)


def _svd_prefer_xla(x, *, algorithm, **_):
    # NumPy's SVD is gesdd: another algorithm runs (or refuses) in its lowering
    return algorithm not in (SvdAlgorithm.DEFAULT, SvdAlgorithm.DIVIDE_AND_CONQUER)


def _svd_abstract_eval(x, *, full_matrices, compute_uv, algorithm):
    _check_matrix("svd", x)
    _check_lapack_dtype("svd", x)
    *batch, m, n = x.shape
    k = min(m, n)
    s = ShapedArray((*batch, k), dtypes.real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    return [s, ShapedArray((*batch, m, m if full_matrices else k), x.dtype),
            ShapedArray((*batch, n if full_matrices else k, n), x.dtype)]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, algorithm):
    (a,), (da,) = primals, tangents
    m, n = get_aval(a).shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("the derivative of lax.linalg.svd with compute_uv and "
                                  "full_matrices is implemented for square matrices only; "
                                  "use full_matrices=False")
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True, algorithm=algorithm)
    da = ad.instantiate(da)
    uh, v = conj_transpose(u), conj_transpose(vt)
    ds_mat = _matmul(_matmul(uh, da), v)
    ds = diagonal(ds_mat)
    if _is_complex(ds):
        ds = ew.real(ds)
    if not compute_uv:
        return [s], [ds]
    primal = [s, u, vt]      # full_matrices only for square matrices: the same factors
    k = min(m, n)
    aval_kk = ShapedArray((*get_aval(s).shape, k), get_aval(s).dtype)
    s_row = broadcast_in_dim(s, aval_kk.shape, (*range(get_aval(s).ndim - 1), aval_kk.ndim - 1))
    s_col = matrix_transpose(s_row)
    eye = _eye_like(s_row)
    diffs = ew.mul(ew.add(s_row, s_col), ew.sub(s_row, s_col))     # s_j² - s_i²
    ones = full(aval_kk.shape, 1, aval_kk.dtype)
    F = _as_dtype_of(ew.sub(ew.div(ones, ew.add(diffs, eye)), eye), a)
    dss = ew.mul(_as_dtype_of(s_row, a), ds_mat)
    sds = ew.mul(_as_dtype_of(s_col, a), ds_mat)
    zero_s = ew.convert_element_type(ew.eq(s, full(get_aval(s).shape, 0, get_aval(s).dtype)),
                                     get_aval(s).dtype)
    s_inv = ew.sub(ew.div(full(get_aval(s).shape, 1, get_aval(s).dtype), ew.add(s, zero_s)),
                   zero_s)
    half = full(get_aval(ds_mat).shape, 0.5, get_aval(a).dtype)
    dudv_diag = ew.mul(ew.mul(half, ew.sub(ds_mat, conj_transpose(ds_mat))),
                       _as_dtype_of(_diag_matrix(s_inv), a))
    du = _matmul(u, ew.add(ew.mul(F, ew.add(dss, conj_transpose(dss))), dudv_diag))
    dv = _matmul(v, ew.mul(F, ew.add(sds, conj_transpose(sds))))
    if m > n:
        dav = _matmul(da, v)
        s_m = broadcast_in_dim(s, (*get_aval(s).shape[:-1], m, k),
                               (*range(get_aval(s).ndim - 1), get_aval(s).ndim))
        du = ew.add(du, ew.div(ew.sub(dav, _matmul(u, _matmul(uh, dav))), _as_dtype_of(s_m, a)))
    if n > m:
        dahu = _matmul(conj_transpose(da), u)
        s_n = broadcast_in_dim(s, (*get_aval(s).shape[:-1], n, k),
                               (*range(get_aval(s).ndim - 1), get_aval(s).ndim))
        dv = ew.add(dv, ew.div(ew.sub(dahu, _matmul(v, _matmul(vt, dahu))),
                               _as_dtype_of(s_n, a)))
    return primal, [ds, du, conj_transpose(dv)]


def _svd_lower(ctx, x, *, full_matrices, compute_uv, algorithm):
    if algorithm in (SvdAlgorithm.JACOBI, SvdAlgorithm.POLAR):
        raise NotImplementedError(f"lax.linalg.svd: {algorithm} is not implemented on the "
                                  f"CPU (as in JAX); use DEFAULT, QR or DIVIDE_AND_CONQUER")
    aval, = ctx.avals_in
    *batch, m, n = aval.shape
    k = min(m, n)
    full_uv = full_matrices and compute_uv
    s_aval = ShapedArray((*batch, k), dtypes.real_dtype(aval.dtype))
    u_aval = ShapedArray((*batch, m, m if full_uv else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full_uv else k, n), aval.dtype)
    if algorithm is SvdAlgorithm.QR and not compute_uv:
        # (gesvd's kernel wants the square u and vᴴ it would have computed, as JAX gives)
        u_aval = ShapedArray((*batch, m, m), aval.dtype)
        vt_aval = ShapedArray((*batch, n, n), aval.dtype)
    info_aval = _info_aval(aval)
    mode = ("A" if full_matrices else "S") if compute_uv else "N"
    x, finite = _finite_and_safe_operand(ctx, x)
    kernel = "gesvd" if algorithm is SvdAlgorithm.QR else "gesdd"
    _, s, u, vt, info = _lapack_call(kernel, aval.dtype, [x], [aval],
                                     [aval, s_aval, u_aval, vt_aval, info_aval],
                                     aliases={0: 0}, mode=mode)
    outs, avals = ([s, u, vt], [s_aval, u_aval, vt_aval]) if compute_uv else ([s], [s_aval])
    return _nan_where_failed_or_not_finite(ctx, outs, avals, info, finite)


svd_p.impl = _svd_impl
svd_p.abstract_eval = _svd_abstract_eval
svd_p.jvp = _svd_jvp
svd_p.batch = _batch_at_front(svd_p)
svd_p.prefer_xla = _svd_prefer_xla
svd_p.platform_lower["cpu"] = _lapack_lowering(_svd_impl, _svd_lower)

#: The largest m and n for which the GPU lowering of ``svd`` uses Jacobi's method
#: (``gesvdj``), as JAX does; larger matrices use the QR algorithm (``gesvd``).
GPU_JACOBI_SVD_MAX = 1024


def _svd_lower_cuda(ctx, x, *, full_matrices, compute_uv, algorithm):
    if algorithm in (SvdAlgorithm.POLAR, SvdAlgorithm.DIVIDE_AND_CONQUER):
        raise NotImplementedError(f"lax.linalg.svd: {algorithm} has no CUDA lowering in "
                                  f"minijax; use DEFAULT, QR or JACOBI")
    aval, = ctx.avals_in
    *batch, m, n = aval.shape
    batch = tuple(batch)
    x, finite = _finite_and_safe_operand(ctx, x)
    k = min(m, n)
    s_aval = ShapedArray((*batch, k), dtypes.real_dtype(aval.dtype))
    info_aval = _info_aval(aval)
    full_uv = full_matrices and compute_uv
    u_aval = ShapedArray((*batch, m, m if full_uv else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full_uv else k, n), aval.dtype)
    jacobi = algorithm is SvdAlgorithm.JACOBI or (
        algorithm is SvdAlgorithm.DEFAULT and m <= GPU_JACOBI_SVD_MAX and n <= GPU_JACOBI_SVD_MAX)
    if jacobi:
        # gesvdj returns V, not Vᴴ, always computes both, and has an economic mode only
        # for matrices larger than 32 x 32 (its batched kernel has none).
        econ = not full_matrices and m > 32 and n > 32
        uj_aval = ShapedArray((*batch, m, k if econ else m), aval.dtype)
        v_aval = ShapedArray((*batch, n, k if econ else n), aval.dtype)
        _, s, u, v, info = _gpu_call(
            "cusolver_gesvdj_ffi", [x], [aval], [aval, s_aval, uj_aval, v_aval, info_aval],
            aliases={0: 0}, full_matrices=not econ, compute_uv=compute_uv)
        vt = None
        if compute_uv:
            nb = len(batch)
            vt = hlo.transpose(v, ir.DenseI64ArrayAttr.get([*range(nb), nb + 1, nb]))
            if dtypes.kind(aval.dtype) == "c":
                vt = hlo.complex(hlo.real(vt), hlo.negate(hlo.imag(vt)))
            if not full_matrices and not econ:
                u, _ = _hlo_slice(u, uj_aval, (m, k))
                vt, _ = _hlo_slice(vt, v_aval.update(shape=(*batch, n, n)), (k, n))
    else:
        # gesvd wants m >= n: a wide matrix is factored transposed (read row-major).
        transposed = m < n
        if not compute_uv:
            u_aval = vt_aval = ShapedArray((), aval.dtype)
        outs = [aval, s_aval] + ([vt_aval, u_aval] if transposed else [u_aval, vt_aval])
        _, s, u, vt, info = _gpu_call(
            "cusolver_gesvd_ffi", [x], [aval], outs + [info_aval], aliases={0: 0},
            column_major=not transposed, full_matrices=full_matrices,
            compute_uv=compute_uv, transposed=transposed)
        if transposed:
            u, vt = vt, u
    outs, avals = (([s, u, vt], [s_aval, *ctx.avals_out[1:]]) if compute_uv
                   else ([s], [s_aval]))
    return _nan_where_failed_or_not_finite(ctx, outs, avals, info, finite)


svd_p.platform_lower["cuda"] = _lapack_lowering(_svd_impl, _svd_lower_cuda)


# ---------------------------------------------------------------- eigh

eigh_p = Primitive("eigh", multiple_results=True)


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
         subset_by_index=None):
    """Eigendecomposition of symmetric matrices ``x`` (..., n, n): ``(v, w)`` with
    eigenvalues ``w`` ascending and eigenvectors in the columns of ``v``
    (``x @ v = v * w``). Only the lower (``lower``) or upper triangle is read; with
    ``symmetrize_input`` ``x`` is first replaced by ``(x + xᴴ)/2``.
    ``subset_by_index=(start, end)`` keeps eigenvalues ``start .. end-1`` of the
    ascending order and their vectors (sliced from the full decomposition).
    ``sort_eigenvalues=False`` allows any order; LAPACK's is ascending anyway."""
    _check_matrix("eigh", get_aval(x), square=True)
    _checks.flag(sort_eigenvalues, "sort_eigenvalues")
    n = get_aval(x).shape[-1]
    subset = _index_range("eigh", subset_by_index, n)
    if symmetrize_input:
        x = symmetrize(x)
    v, w = eigh_p.bind(x, lower=bool(lower))
    if subset is not None and subset != (0, n):
        start, size = subset[0], subset[1] - subset[0]
        v, w = columns(v, start, size), columns(w, start, size)
    return v, w


def _eigh_impl(x, *, lower):
    def kernel(a):
        w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
        return [v, w]
    return _per_matrix(kernel, x)


def _eigh_abstract_eval(x, *, lower):
    _check_matrix("eigh", x, square=True)
    return [x.strip_weak_type(), ShapedArray(x.shape[:-1], dtypes.real_dtype(x.dtype))]


def _eigh_jvp(primals, tangents, *, lower):
    (a,), (g,) = primals, tangents
    v, w = eigh_p.bind(a, lower=lower)
    if type(g) is ad.Zero:
        return [v, w], [ad.Zero(ad.tangent_aval(get_aval(v))),
                        ad.Zero(ad.tangent_aval(get_aval(w)))]
    # Distinct eigenvalues: dw = diag(vᴴ dA v), dv = v (F ∘ vᴴ dA v),
    # F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (for complex v, the phase of each
    # eigenvector moves so that diag(vᴴ dv) = 0).
    g = _symmetric_tangent(g, lower)
    aval = get_aval(a)
    w_row = broadcast_in_dim(w, aval.shape, (*range(aval.ndim - 2), aval.ndim - 1))
    eye = _eye_like(w_row)
    ones = full(aval.shape, 1, get_aval(w).dtype)
    F = _as_dtype_of(ew.sub(ew.div(ones, ew.add(eye, ew.sub(w_row, matrix_transpose(w_row)))), eye), a)
    vh_g_v = _matmul(_matmul(conj_transpose(v), g), v)
    dv = _matmul(v, ew.mul(F, vh_g_v))
    dw = diagonal(vh_g_v)
    return [v, w], [dv, ew.real(dw) if _is_complex(dw) else dw]


def _eigh_lower(ctx, x, *, lower):
    aval, = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    info_aval = _info_aval(aval)
    syevd = "heevd" if dtypes.kind(aval.dtype) == "c" else "syevd"
    v, w, info = _lapack_call(syevd, aval.dtype, [x], [aval], [v_aval, w_aval, info_aval],
                              aliases={0: 0}, uplo="L" if lower else "U", mode="V")
    return inline_function(ctx, lambda v, w, i: [_nan_where_failed(v, _ok(i)),
                                         _nan_where_failed(w, _ok(i))],
                   [v_aval, w_aval, info_aval], [v, w, info])


eigh_p.impl = _eigh_impl
eigh_p.abstract_eval = _eigh_abstract_eval
eigh_p.jvp = _eigh_jvp
eigh_p.batch = _batch_at_front(eigh_p)
eigh_p.platform_lower["cpu"] = _lapack_lowering(_eigh_impl, _eigh_lower)


def _eigh_lower_cuda(ctx, x, *, lower):
    aval, = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    info_aval = _info_aval(aval)
    finite = _finite_operand(ctx, x, "lower" if lower else "upper")
    # algorithm 0: the plugin's choice (Jacobi for small batched matrices, else syevd)
    v, w, info = _gpu_call("cusolver_syevd_ffi", [x], [aval], [v_aval, w_aval, info_aval],
                           aliases={0: 0}, lower=lower, algorithm=0)
    return _nan_where_failed_or_not_finite(ctx, [v, w], [v_aval, w_aval], info, finite)


eigh_p.platform_lower["cuda"] = _lapack_lowering(_eigh_impl, _eigh_lower_cuda)


# ---------------------------------------------------------------- eig

eig_p = Primitive("eig", multiple_results=True)


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True):
    """Eigendecomposition of general square matrices ``x`` (..., n, n): the complex
    eigenvalues ``w``, then the left eigenvectors ``vl`` (``vlᴴ x = w vlᴴ``) if
    ``compute_left_eigenvectors``, then the right ones ``vr`` (``x vr = vr w``) if
    ``compute_right_eigenvectors``, as columns of unit norm whose largest component is
    real (LAPACK's ``geev``). Results are complex for real input too; NaN where the
    algorithm fails to converge."""
    _check_matrix("eig", get_aval(x), square=True)
    return tuple(eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                            compute_right_eigenvectors=bool(compute_right_eigenvectors)))


def _complex_dtype(dtype):
    return np.dtype(np.complex64 if np.dtype(dtype) in (np.float32, np.complex64)
                    else np.complex128)


def _unit_columns(v):
    """Columns scaled to unit norm with the component of largest modulus real and
    positive (LAPACK's normalization of eigenvectors, up to the sign of real ones)."""
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    k = np.argmax(np.abs(v), axis=-2)[..., None, :]
    big = np.take_along_axis(v, k, axis=-2)
    return v * (np.abs(big) / np.where(big == 0, 1, big))


def _eig_impl(x, *, compute_left_eigenvectors, compute_right_eigenvectors):
    cdt = _complex_dtype(x.dtype)

    def kernel(a):
        w, vr = np.linalg.eig(a)
        outs = [np.asarray(w, cdt)]
        if compute_left_eigenvectors:
            # the rows of vr⁻¹ are the left eigenvectors (conjugated), in w's order
            outs.append(_unit_columns(np.linalg.inv(vr).conj().swapaxes(-1, -2)).astype(cdt))
        if compute_right_eigenvectors:
            outs.append(np.asarray(vr, cdt))
        return outs
    return _per_matrix(kernel, x)


def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors):
    _check_matrix("eig", x, square=True)
    cdt = _complex_dtype(x.dtype)
    outs = [ShapedArray(x.shape[:-1], cdt)]
    outs += [ShapedArray(x.shape, cdt)] * (compute_left_eigenvectors + compute_right_eigenvectors)
    return outs


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors):
    (a,), (g,) = primals, tangents
    outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=compute_right_eigenvectors)
    if type(g) is ad.Zero:
        return outs, [ad.Zero(ad.tangent_aval(get_aval(o))) for o in outs]
    if compute_right_eigenvectors:
        w, v = outs[0], outs[-1]
    else:
        w, v = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
    # Distinct eigenvalues: with V⁻¹ dA V = M, dw = diag(M) and dV = V (F ∘ M),
    # F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it.
    ga = _as_dtype_of(g, v)
    m = _matmul(solve(v, ga), v)
    tangents_out = [diagonal(m)]
    if compute_left_eigenvectors:
        # the left eigenvectors are the right ones of Aᴴ (eigenvalues conj(w)): the same
        # rule with U, conj(w) and dAᴴ
        u = outs[1]
        m_left = _matmul(solve(u, matrix_transpose(ew.conj(ga))), u)
        tangents_out.append(_eigenvector_tangent(u, ew.conj(w), m_left))
    if compute_right_eigenvectors:
        tangents_out.append(_eigenvector_tangent(v, w, m))
    return outs, tangents_out


def _eigenvector_tangent(v, w, m):
    """The tangent of the unit eigenvectors ``v`` (eigenvalues ``w``) given
    ``M = V⁻¹ dA V``: ``V (F ∘ M)``, then LAPACK's normalization."""
    vaval = get_aval(v)
    w_row = broadcast_in_dim(w, vaval.shape, (*range(vaval.ndim - 2), vaval.ndim - 1))
    eye = _eye_like(w_row)
    ones = full(vaval.shape, 1, vaval.dtype)
    F = ew.sub(ew.div(ones, ew.add(eye, ew.sub(w_row, matrix_transpose(w_row)))), eye)
    return _normalized_tangent(v, _matmul(v, ew.mul(F, m)))


def _normalized_tangent(v, dv):
    """The tangent of ``v``'s columns under LAPACK's normalization (unit norm, largest
    component real), from the tangent ``dv`` of unnormalized eigenvectors."""
    aval = get_aval(v)
    rdt = dtypes.real_dtype(aval.dtype)
    # keep the norm: remove the component Re(vᴴ dv) along v
    along = ew.real(reduce_sum(ew.mul(ew.conj(v), dv), (aval.ndim - 2,)))
    along = broadcast_in_dim(_as_dtype_of(along, v), aval.shape,
                             (*range(aval.ndim - 2), aval.ndim - 1))
    dv = ew.sub(dv, ew.mul(v, along))
    # keep the phase: the largest component stays real, so remove i v Im(dv_k / v_k)
    absv = ew.abs(v)
    colmax = broadcast_in_dim(_reduce_max_axis(absv, aval.ndim - 2), aval.shape,
                              (*range(aval.ndim - 2), aval.ndim - 1))
    is_k = ew.eq(absv, colmax)
    first_k = _first_true(is_k)
    zeros = _zeros_like(v)
    vk = reduce_sum(ew.select(first_k, v, zeros), (aval.ndim - 2,))
    dvk = reduce_sum(ew.select(first_k, dv, zeros), (aval.ndim - 2,))
    turn = ew.imag(ew.div(dvk, vk))
    turn = broadcast_in_dim(turn, aval.shape, (*range(aval.ndim - 2), aval.ndim - 1))
    i_turn = ew.complex(full(aval.shape, 0, rdt), turn)
    return ew.sub(dv, ew.mul(v, i_turn))


def _reduce_max_axis(x, axis):
    return reduce_max(x, (axis,))


def _first_true(mask):
    """Only the first True of each column of a boolean batch of matrices."""
    aval = get_aval(mask)
    n = aval.shape[-2]
    idx = broadcasted_iota(np.int32, aval.shape, aval.ndim - 2)
    big = full(aval.shape, n, np.int32)
    first = _reduce_min_axis(ew.select(mask, idx, big), aval.ndim - 2)
    first = broadcast_in_dim(first, aval.shape, (*range(aval.ndim - 2), aval.ndim - 1))
    return ew.eq(idx, first)


def _reduce_min_axis(x, axis):
    return reduce_min(x, (axis,))


def _eig_lower(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors):
    aval, = ctx.avals_in
    cdt = _complex_dtype(aval.dtype)
    w_aval = ShapedArray(aval.shape[:-1], cdt)
    v_aval = ShapedArray(aval.shape, cdt)
    info_aval = _info_aval(aval)
    jobs = dict(compute_left="V" if compute_left_eigenvectors else "N",
                compute_right="V" if compute_right_eigenvectors else "N")
    if dtypes.kind(aval.dtype) == "c":
        w, vl, vr, info = _lapack_call("geev", aval.dtype, [x], [aval],
                                       [w_aval, v_aval, v_aval, info_aval], **jobs)
        parts, part_avals = [w], [w_aval]
    else:
        half = ShapedArray(aval.shape[:-1], aval.dtype)
        wr, wi, vl, vr, info = _lapack_call("geev", aval.dtype, [x], [aval],
                                            [half, half, v_aval, v_aval, info_aval], **jobs)
        parts, part_avals = [wr, wi], [half, half]
    return _eig_post(ctx, parts, part_avals, vl, vr, info, compute_left_eigenvectors,
                     compute_right_eigenvectors)


def _eig_post(ctx, parts, part_avals, vl, vr, info, compute_left_eigenvectors,
              compute_right_eigenvectors):
    """The eigenvalues from ``parts`` (w, or its real and imaginary parts), and the
    requested eigenvectors; NaN where ``info`` says the kernel failed."""
    aval, = ctx.avals_in
    v_aval = ShapedArray(aval.shape, _complex_dtype(aval.dtype))

    def post(*args):
        *ws, vl, vr, i = args
        w = ws[0] if len(ws) == 1 else ew.complex(*ws)
        ok = _ok(i)
        outs = [_nan_where_failed(w, ok)]
        if compute_left_eigenvectors:
            outs.append(_nan_where_failed(vl, ok))
        if compute_right_eigenvectors:
            outs.append(_nan_where_failed(vr, ok))
        return outs
    return inline_function(ctx, post, [*part_avals, v_aval, v_aval, _info_aval(aval)],
                           [*parts, vl, vr, info])


eig_p.impl = _eig_impl
eig_p.abstract_eval = _eig_abstract_eval
eig_p.jvp = _eig_jvp
eig_p.batch = _batch_at_front(eig_p)
eig_p.platform_lower["cpu"] = _lapack_lowering(_eig_impl, _eig_lower)


#: The first cuSOLVER with a nonsymmetric eigensolver (``geev``): 11.7.1.
CUSOLVER_GEEV = 11701


def _unpack_conjugate_pairs(w, v):
    """Complex eigenvectors from geev's real ones: the eigenvalues of a conjugate pair
    (positive imaginary part first) share two columns of ``v``, the real and the
    imaginary part of the first one's eigenvector."""
    shape = get_aval(v).shape
    nd = len(shape)
    zero = _zeros_like(v)

    def shifted(a, by):   # a[..., j - by] along the last axis, zeros shifted in
        config = [(0, 0, 0)] * (get_aval(a).ndim - 1) + [(by, -by, 0)]
        return pad(a, constant(0, get_aval(a).dtype), config)
    imag = ew.imag(w)
    first = ew.gt(imag, _zeros_like(imag))
    second = shifted(first, 1)
    columns = (*range(nd - 2), nd - 1)
    first, second = (broadcast_in_dim(m, shape, columns) for m in (first, second))
    real = ew.select(second, shifted(v, 1), v)
    imag_part = ew.select(first, shifted(v, -1), ew.select(second, ew.neg(v), zero))
    return ew.complex(real, imag_part)


def _eig_lower_cuda(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors):
    # As JAX: cuSOLVER's geev on the GPU where the plugin's cuSOLVER has it and no left
    # eigenvectors are asked for; else the plugin's hybrid kernel, LAPACK's geev on the
    # host (MAGMA's on the GPU where it is installed and the matrix is large).
    aval, = ctx.avals_in
    cdt = _complex_dtype(aval.dtype)
    v_aval = ShapedArray(aval.shape, cdt)
    info_aval = _info_aval(aval)
    version = cusolver_version()
    if not compute_left_eigenvectors and version is not None and version >= CUSOLVER_GEEV:
        w_aval = ShapedArray(aval.shape[:-1], cdt)
        _, w, _, vr, info = _gpu_call("cusolver_geev_ffi", [x], [aval],
                                      [aval, w_aval, aval, aval, info_aval], left=False,
                                      right=compute_right_eigenvectors)
        if dtypes.kind(aval.dtype) != "c":
            vr, = inline_function(ctx, lambda w, v: [_unpack_conjugate_pairs(w, v)],
                                  [w_aval, aval], [w, vr])
        return _eig_post(ctx, [w], [w_aval], vr, vr, info, False,
                         compute_right_eigenvectors)
    initialize_hybrid_kernels()
    if dtypes.kind(aval.dtype) == "c":
        part_avals = [ShapedArray(aval.shape[:-1], cdt)]
        target = "cuhybrid_eig_comp"
    else:
        part_avals = [ShapedArray(aval.shape[:-1], aval.dtype)] * 2
        target = "cuhybrid_eig_real"
    *parts, vl, vr, info = _gpu_call(target, [x], [aval],
                                     [*part_avals, v_aval, v_aval, info_aval],
                                     magma="auto", left=compute_left_eigenvectors,
                                     right=compute_right_eigenvectors)
    return _eig_post(ctx, parts, part_avals, vl, vr, info, compute_left_eigenvectors,
                     compute_right_eigenvectors)


eig_p.platform_lower["cuda"] = _lapack_lowering(_eig_impl, _eig_lower_cuda)


# ---------------------------------------------------------------- schur

schur_p = Primitive("schur", multiple_results=True)


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """Schur decomposition of square matrices ``x`` (..., n, n): ``(t, z)`` with
    ``x = z t zᴴ``, ``z`` unitary and ``t`` upper triangular (complex input) or
    quasi-upper triangular with 1x1 and 2x2 diagonal blocks (the real Schur form of real
    input), from LAPACK's ``gees``; ``(t,)`` without ``compute_schur_vectors``. NaN
    where the algorithm fails to converge. Sorting the eigenvalues is not implemented.

    There is no NumPy kernel: eagerly too, the LAPACK call is compiled and run by XLA.
    """
    if sort_eig_vals or select_callable is not None:
        raise NotImplementedError("lax.linalg.schur: sorting the eigenvalues "
                                  "(sort_eig_vals/select_callable) is not implemented; "
                                  "call it with sort_eig_vals=False")
    _check_matrix("schur", get_aval(x), square=True)
    return tuple(schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors)))


def _schur_abstract_eval(x, *, compute_schur_vectors):
    _check_matrix("schur", x, square=True)
    if x.dtype.itemsize < 4:
        raise TypeError(f"lax.linalg.schur: LAPACK has no {x.dtype.name} kernel; convert the "
                        f"operand to float32, float64, complex64 or complex128")
    return [x.strip_weak_type()] * (1 + compute_schur_vectors)


def _schur_jvp(primals, tangents, *, compute_schur_vectors):
    raise NotImplementedError("the derivative of lax.linalg.schur is not implemented (the "
                              "Schur form is not unique; JAX has none either). Functions built "
                              "on it with their own rule, such as scipy.linalg.sqrtm, have "
                              "first-order derivatives only")


def _schur_lower(ctx, x, *, compute_schur_vectors):
    aval, = ctx.avals_in
    if aval.size == 0:
        return [ir_constant(np.zeros(a.shape, a.dtype)) for a in ctx.avals_out]
    info_aval = _info_aval(aval)
    w_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    w_avals = [w_aval] * (1 if dtypes.kind(aval.dtype) == "c" else 2)   # w, or wr and wi
    t, z, *_, info = _lapack_call(
        "gees", aval.dtype, [x], [aval], [aval, aval, *w_avals, info_aval, info_aval],
        aliases={0: 0}, mode="V" if compute_schur_vectors else "N", sort="N")
    outs = [t, z] if compute_schur_vectors else [t]
    return inline_function(ctx, lambda i, *o: [_nan_where_failed(v, _ok(i)) for v in o],
                   [info_aval, *ctx.avals_out], [info, *outs])


schur_p.abstract_eval = _schur_abstract_eval
schur_p.jvp = _schur_jvp
schur_p.batch = _batch_at_front(schur_p)
schur_p.platform_lower["cpu"] = _schur_lower


# ---------------------------------------------------------------- more of jax.lax.linalg
# (modules by topic that build on the helpers above; imported last, as they import this one)

from .tridiagonal import tridiagonal_solve, tridiagonal_solve_p  # noqa: E402

__all__ += ["tridiagonal_solve", "tridiagonal_solve_p"]
from .rank_updates import cholesky_update, symmetric_product  # noqa: E402

__all__ += ["cholesky_update", "symmetric_product"]
from .householder import householder_product, householder_product_p  # noqa: E402

__all__ += ["householder_product", "householder_product_p"]
from .condensed import hessenberg, hessenberg_p, tridiagonal, tridiagonal_p  # noqa: E402

__all__ += ["hessenberg", "hessenberg_p", "tridiagonal", "tridiagonal_p"]
