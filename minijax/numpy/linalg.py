"""``minijax.numpy.linalg``: NumPy's ``numpy.linalg`` (and the Array API linalg
extension) on minijax arrays, differentiable and traceable.

Factorizations are ``minijax.lax.linalg`` primitives; ``solve``, ``inv``, ``det`` and
``slogdet`` are built from ``lu`` and ``triangular_solve``. Unlike NumPy, a singular or
non-positive-definite input does not raise ``LinAlgError`` (the values may be traced):
the results hold inf or NaN, as in JAX.
"""

import builtins
import operator
import warnings

import numpy as _np
from numpy.linalg import _linalg as _np_linalg_impl

from .. import _checks, dtypes, lax
from ..core import get_aval, get_concrete
from ..lax import linalg as _lax_linalg
from ..lax.linalg import batched_mask as _mask
from ..lax.linalg import columns as _cols
from ..lax.linalg import conj_transpose as _H
from ._out import supports_out
from ..lax.linalg import diagonal as _diagonal
from ..lax.linalg import matrix_transpose as _T
from ..lax.linalg import solve as _solve
from ..util import canonicalize_axis
from ._core import broadcast_shapes, promote, to_array
from ._elementwise import divide, greater, multiply
from ._linear_algebra import matmul as _matmul
from ._linear_algebra import outer as _outer
from ._linear_algebra import tensordot as _tensordot
from ._linear_algebra import vector_dot as _vector_dot
from ._indexing import take_along_axis
from ._manipulation import expand_dims
from ._searching import where
from ._sorting import argsort
from ._statistical import max as _max
from ._statistical import sum as _sum

__all__ = ["LinAlgError", "cholesky", "qr", "svd", "svdvals", "eig", "eigvals", "eigh",
           "eigvalsh", "solve",
           "inv", "det", "slogdet", "matrix_rank", "pinv", "norm", "matrix_norm",
           "vector_norm", "lstsq", "matrix_power", "multi_dot", "cross", "outer", "trace",
           "diagonal", "tensordot", "vecdot", "matmul", "matrix_transpose", "cond",
           "tensorinv", "tensorsolve"]

LinAlgError = _np.linalg.LinAlgError   # a ValueError


# NumPy's own result types: the eager path returns NumPy's results as they come, so a
# traced call must build the same types, or the pytree of an eager result would differ
# from a traced one's (a scan carry started from an eager ``qr`` would be refused).
EigResult = _np_linalg_impl.EigResult
EighResult = _np_linalg_impl.EighResult
QRResult = _np_linalg_impl.QRResult
SlogdetResult = _np_linalg_impl.SlogdetResult
SVDResult = _np_linalg_impl.SVDResult


# ---------------------------------------------------------------- argument handling

def _float(name, *arrays):
    """Arrays promoted to one inexact dtype (integers and bools become the default
    float, as NumPy's linalg does)."""
    arrays = [to_array(a) for a in arrays]
    for a in arrays:
        dt = get_aval(a).dtype
        if dt.kind == "f" and dt.itemsize < 4:
            raise TypeError(f"minijax.numpy.linalg.{name}: array type {dt.name} is "
                            f"unsupported in linalg (convert to float32 or float64)")
    dts = [get_aval(a).dtype for a in arrays]
    floats = [d for d in dts if d.kind in "fc"]
    target = _np.result_type(*floats) if floats else dtypes.default_float()
    out = [lax.convert_element_type(a, target) if get_aval(a).dtype != target else a
           for a in arrays]
    return out if len(out) > 1 else out[0]


def _at_least_2d(name, a):
    aval = get_aval(a)
    if aval.ndim < 2:
        raise LinAlgError(f"minijax.numpy.linalg.{name}: {aval.ndim}-dimensional array given "
                          f"(shape {aval.shape}); the array must be at least two-dimensional")


def _square(name, a):
    _at_least_2d(name, a)
    shape = get_aval(a).shape
    if shape[-1] != shape[-2]:
        raise LinAlgError(f"minijax.numpy.linalg.{name}: the last 2 dimensions of the array "
                          f"must be square, got shape {shape}")


def _batch_broadcast(x, batch):
    shape = get_aval(x).shape
    target = (*batch, *shape[-2:])
    if shape == target:
        return x
    return lax.broadcast_to_shape(x, target)


def _eye_batch(n, dtype, batch):
    eye = lax.convert_element_type(
        lax.eq(lax.broadcasted_iota(_np.int32, (n, n), 0),
               lax.broadcasted_iota(_np.int32, (n, n), 1)), dtype)
    return lax.broadcast_in_dim(eye, (*batch, n, n), (len(batch), len(batch) + 1))


def _finfo_eps(dtype):
    return float(_np.finfo(dtype).eps)


def _scalar_like(value, x):
    aval = get_aval(x)
    return lax.full(aval.shape, value, aval.dtype)


# ---------------------------------------------------------------- factorizations

def cholesky(a, /, *, upper=False, symmetrize_input=False):
    """Cholesky factor of symmetric positive-definite ``a`` (..., n, n): lower ``L`` with
    ``a = L Lᵀ`` (reads the lower triangle), or upper ``U = Lᵀ`` with ``upper=True``
    (reads the upper triangle). NaN where ``a`` is not positive definite.
    ``symmetrize_input=True`` (JAX's default) factors ``(a + aᴴ)/2`` instead."""
    a = _float("cholesky", a)
    _square("cholesky", a)
    symmetrize = _checks.flag(symmetrize_input, "symmetrize_input")
    if upper:
        return _T(_lax_linalg.cholesky(_T(a), symmetrize_input=symmetrize))
    return _lax_linalg.cholesky(a, symmetrize_input=symmetrize)


def qr(a, mode="reduced"):
    """QR decomposition: ``QRResult(Q, R)`` (``mode`` 'reduced' or 'complete'), R
    alone (``mode='r'``), or LAPACK's Householder form ``(h, tau)`` as NumPy returns it
    (``mode='raw'``: ``h`` transposed); NumPy's deprecated 'full' is 'reduced', and its
    'economic' is ``h`` alone."""
    if mode in ("f", "full", "e", "economic"):
        full = mode in ("f", "full")
        warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\nFor backward "
                      "compatibility let mode default." if full else
                      "The 'economic' option is deprecated.", DeprecationWarning, stacklevel=2)
        mode = "reduced" if full else "economic"
    elif mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    a = _float("qr", a)
    _at_least_2d("qr", a)
    if mode in ("raw", "economic"):
        h, tau = _lax_linalg.geqrf(a)
        return h if mode == "economic" else (_lax_linalg.matrix_transpose(h), tau)
    q, r = _lax_linalg.qr(a, full_matrices=(mode == "complete"))
    return r if mode == "r" else QRResult(q, r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """Singular value decomposition: ``SVDResult(U, S, Vh)`` with ``a = U diag(S) Vh``
    and ``S`` descending, or ``S`` alone. With ``hermitian`` (a square ``a``) it comes
    from ``eigh`` of ``a``'s lower triangle, as NumPy's. ``subset_by_index=(start, end)``
    (JAX's) keeps singular values ``start .. end-1`` and their vectors; it needs
    ``full_matrices=False``."""
    a = _float("svd", a)
    _at_least_2d("svd", a)
    if hermitian:
        if subset_by_index is not None:
            raise NotImplementedError("linalg.svd: subset_by_index with hermitian=True is "
                                      "not implemented")
        return _hermitian_svd(a, compute_uv)
    if not compute_uv:
        return _lax_linalg.svd(a, compute_uv=False, full_matrices=full_matrices,
                               subset_by_index=subset_by_index)
    return SVDResult(*_lax_linalg.svd(a, full_matrices=full_matrices,
                                      subset_by_index=subset_by_index))


def _hermitian_svd(a, compute_uv):
    # the singular values are the eigenvalues' magnitudes, descending; their signs
    # move into Vh (NumPy's construction)
    _square("svd", a)
    w, u = eigh(a)
    s = lax.abs(w)
    descending = lax.rev(argsort(s, axis=-1), (get_aval(s).ndim - 1,))
    s = take_along_axis(s, descending, axis=-1)
    if not compute_uv:
        return s
    sign = take_along_axis(lax.sign(w), descending, axis=-1)
    u = take_along_axis(u, expand_dims(descending, -2), axis=-1)
    return SVDResult(u, s, _H(multiply(u, expand_dims(sign, -2))))


def svdvals(x, /):
    """Singular values of ``x`` (..., m, n), descending."""
    x = _float("svdvals", x)
    _at_least_2d("svdvals", x)
    return _lax_linalg.svd(x, compute_uv=False)


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "L"


def eigh(a, UPLO="L", symmetrize_input=False):
    """Eigenvalues (ascending) and eigenvectors of symmetric ``a``, reading its lower
    (``UPLO='L'``) or upper triangle: ``EighResult(eigenvalues, eigenvectors)``.
    ``symmetrize_input=True`` (JAX's default) decomposes ``(a + aᴴ)/2`` instead."""
    a = _float("eigh", a)
    _square("eigh", a)
    v, w = _lax_linalg.eigh(a, lower=_uplo(UPLO), symmetrize_input=_checks.flag(
        symmetrize_input, "symmetrize_input"))
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=False):
    """Eigenvalues (ascending) of symmetric ``a`` (``symmetrize_input`` as ``eigh``'s)."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def eig(a, /):
    """Eigenvalues and right eigenvectors of general square ``a`` (..., n, n):
    ``EigResult(eigenvalues, eigenvectors)`` with ``a @ v[..., :, i] = w[..., i] *
    v[..., :, i]``. Always complex (the Array API's rule; NumPy returns real arrays
    when every eigenvalue happens to be real, a dtype that depends on the values)."""
    a = _float("eig", a)
    _square("eig", a)
    w, v = _lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a, /):
    """The (complex) eigenvalues of general square ``a`` (..., n, n), as ``eig``'s."""
    a = _float("eigvals", a)
    _square("eigvals", a)
    w, = _lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    return w


# ---------------------------------------------------------------- solve, inv, det

def solve(a, b):
    """Solve ``a @ x = b`` for ``x``; ``b`` is (..., n) only when it is 1-d, else
    (..., n, k) (NumPy 2 semantics), with broadcasting of batch axes."""
    a, b = _float("solve", a, b)
    _square("solve", a)
    sa, sb = get_aval(a).shape, get_aval(b).shape
    n = sa[-1]
    vector = len(sb) == 1
    if vector:
        b = lax.reshape(b, (n, 1)) if sb[0] == n else b
    sb2 = get_aval(b).shape
    if len(sb2) < 2 or sb2[-2] != n:
        raise ValueError(f"minijax.numpy.linalg.solve: b of shape {sb} does not match a of "
                         f"shape {sa} (b must be (..., {n}, k) or ({n},))")
    batch = broadcast_shapes(sa[:-2], sb2[:-2], name="solve batch axes")
    a, b = _batch_broadcast(a, batch), _batch_broadcast(b, batch)
    x = _solve(a, b)
    return lax.squeeze(x, (get_aval(x).ndim - 1,)) if vector else x


def inv(a):
    """The inverse of square matrices ``a`` (..., n, n) (inf/NaN if singular)."""
    a = _float("inv", a)
    _square("inv", a)
    aval = get_aval(a)
    return _solve(a, _eye_batch(aval.shape[-1], aval.dtype, aval.shape[:-2]))


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a square matrix of ``a.shape[:ind]`` by
    ``a.shape[ind:]``; the result has shape ``a.shape[ind:] + a.shape[:ind]``."""
    a = _float("tensorinv", a)
    shape = get_aval(a).shape
    ind = _checks.index(ind, "ind")
    if ind <= 0 or ind > len(shape):
        raise ValueError(f"Invalid ind argument: {ind} for an array of dimension "
                         f"{len(shape)}.")
    rows = int(_np.prod(shape[:ind], dtype=_np.int64))
    cols = int(_np.prod(shape[ind:], dtype=_np.int64))
    if rows != cols:
        raise LinAlgError(f"minijax.numpy.linalg.tensorinv: a of shape {shape} is not square "
                          f"as a ({rows}, {cols}) matrix with ind={ind}")
    return lax.reshape(inv(lax.reshape(a, (rows, cols))), (*shape[ind:], *shape[:ind]))


def tensorsolve(a, b, axes=None):
    """Solve ``tensordot(a, x, axes=x.ndim) = b`` for ``x`` (NumPy's ``tensorsolve``)."""
    a, b = _float("tensorsolve", a, b)
    nd = get_aval(a).ndim
    if axes is not None:
        order = [i for i in range(nd) if i not in [canonicalize_axis(x, nd) for x in axes]]
        order += [canonicalize_axis(x, nd) for x in axes]
        a = lax.transpose(a, tuple(order))
    shape, bshape = get_aval(a).shape, get_aval(b).shape
    x_shape = shape[len(bshape):]
    rows = int(_np.prod(bshape, dtype=_np.int64))
    cols = int(_np.prod(x_shape, dtype=_np.int64))
    if shape[:len(bshape)] != bshape or rows != cols:
        raise LinAlgError(f"minijax.numpy.linalg.tensorsolve: a of shape {shape} and b of "
                          f"shape {bshape} do not form a square system")
    x = solve(lax.reshape(a, (rows, cols)), lax.reshape(b, (rows,)))
    return lax.reshape(x, x_shape)


def slogdet(a):
    """``SlogdetResult(sign, logabsdet)`` of square matrices ``a`` (sign 0 and logabsdet
    -inf if singular; for complex ``a`` the sign is a complex number of modulus 1)."""
    return _slogdet(a, "slogdet")


def _slogdet(a, name):
    a = _float(name, a)
    _square(name, a)
    aval = get_aval(a)
    is_complex = aval.dtype.kind == "c"
    lu, pivots, _ = _lax_linalg.lu(a)
    d = _diagonal(lu)
    nd = get_aval(d).ndim
    logabsdet = lax.reduce_sum(lax.log(lax.abs(d)), (nd - 1,))
    int_shape = get_aval(pivots).shape
    swaps = lax.convert_element_type(
        lax.ne(pivots, lax.broadcasted_iota(_np.int32, int_shape, nd - 1)), _np.int32)
    count = lax.reduce_sum(swaps, (nd - 1,))
    if not is_complex:
        negative = lax.convert_element_type(lax.lt(d, _scalar_like(0, d)), _np.int32)
        count = lax.add(count, lax.reduce_sum(negative, (nd - 1,)))
    odd = lax.rem(count, lax.full(aval.shape[:-2], 2, _np.int32))
    sign = lax.convert_element_type(
        lax.sub(lax.full(aval.shape[:-2], 1, _np.int32), lax.mul(odd, lax.full(
            aval.shape[:-2], 2, _np.int32))), aval.dtype)
    if is_complex:      # the product of the pivots' phases
        phases = lax.div(d, lax.convert_element_type(lax.abs(d), aval.dtype))
        sign = lax.mul(sign, lax.reduce_prod(phases, (nd - 1,)))
    singular = lax.reduce_or(lax.eq(d, _scalar_like(0, d)), (nd - 1,))
    sign = lax.select(singular, lax.full(aval.shape[:-2], 0, aval.dtype), sign)
    return SlogdetResult(sign, logabsdet)


def det(a):
    """The determinant of square matrices ``a`` (..., n, n)."""
    sign, logabsdet = _slogdet(a, "det")
    return lax.mul(sign, lax.convert_element_type(lax.exp(logabsdet), get_aval(sign).dtype))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """The number of singular values of ``A`` above ``tol`` (default: ``rtol * max(S)``
    with ``rtol = max(m, n) * eps``)."""
    A = _float("matrix_rank", A)
    aval = get_aval(A)
    if aval.ndim < 2:
        nonzero = lax.reduce_or(lax.ne(A, _scalar_like(0, A)), tuple(range(aval.ndim)))
        return lax.convert_element_type(nonzero, dtypes.default_int())
    s = svd(A, compute_uv=False, hermitian=bool(hermitian))
    if tol is None:
        if rtol is None:
            rtol = max(aval.shape[-2:]) * _finfo_eps(aval.dtype)
        else:
            rtol = expand_dims(to_array(rtol), -1)
        if get_aval(s).shape[-1] == 0:
            return lax.full(get_aval(s).shape[:-1], 0, dtypes.default_int())
        tol = multiply(_max(s, axis=-1, keepdims=True), rtol)
    else:
        tol = expand_dims(to_array(tol), -1)
    return _sum(greater(s, tol), axis=-1)


_NoValue = object()


def _inverse_above(s, rcond):
    """``1/s`` where ``s > rcond * max(s)`` (per matrix), else 0; NaN-free derivative."""
    if not isinstance(rcond, (int, float)):
        rcond = expand_dims(to_array(rcond), -1)
    large = greater(s, multiply(_max(s, axis=-1, keepdims=True), rcond))
    return where(large, divide(1, where(large, s, 1)), 0), large


def pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):
    """Moore-Penrose pseudo-inverse via the SVD; singular values at most
    ``rcond * max(S)`` are treated as zero (NumPy's defaults for rcond/rtol)."""
    a = _float("pinv", a)
    _at_least_2d("pinv", a)
    aval = get_aval(a)
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(aval.shape[-2:]) * _finfo_eps(aval.dtype)
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    m, n = aval.shape[-2:]
    if m == 0 or n == 0:
        return lax.full((*aval.shape[:-2], n, m), 0, aval.dtype)
    u, s, vh = svd(a, full_matrices=False, hermitian=bool(hermitian))
    s_inv, _ = _inverse_above(s, rcond)
    return _matmul(_H(vh), multiply(expand_dims(s_inv, -1), _H(u)))


def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b`` (a 2-d): ``(x, residuals, rank, s)``.
    ``residuals`` are the squared residual norms when ``rank == n < m`` (when the rank
    is not concrete, as under ``jit``, they are always returned)."""
    a, b = _float("lstsq", a, b)
    sa, sb = get_aval(a).shape, get_aval(b).shape
    if len(sa) != 2:
        raise LinAlgError(f"minijax.numpy.linalg.lstsq: a must be 2-dimensional, got shape "
                          f"{sa}")
    vector = len(sb) == 1
    if len(sb) not in (1, 2) or sb[0] != sa[0]:
        raise LinAlgError(f"minijax.numpy.linalg.lstsq: incompatible dimensions: a {sa}, "
                          f"b {sb}")
    m, n = sa
    b2 = lax.reshape(b, (m, 1)) if vector else b
    if rcond is None:
        rcond = _finfo_eps(get_aval(a).dtype) * max(m, n)
    k = min(m, n)
    dtype = get_aval(a).dtype
    real_dtype = dtypes.real_dtype(dtype)
    if k == 0:
        x = lax.full((n, get_aval(b2).shape[1]), 0, dtype)
        s = lax.full((0,), 0, real_dtype)
        rank = lax.full((), 0, _np.int32)
    else:
        u, s, vh = _lax_linalg.svd(a, full_matrices=False)
        s_inv, large = _inverse_above(s, rcond)
        utb = lax.dot_general(_H(u), b2, (((1,), (0,)), ((), ())))
        s_inv = lax.convert_element_type(s_inv, dtype)
        utb = lax.mul(lax.broadcast_in_dim(s_inv, get_aval(utb).shape, (0,)), utb)
        x = lax.dot_general(_H(vh), utb, (((1,), (0,)), ((), ())))
        rank = lax.reduce_sum(lax.convert_element_type(large, _np.int32), (0,))
    r = lax.sub(b2, lax.dot_general(a, x, (((1,), (0,)), ((), ()))))
    if dtype.kind == "c":
        r = lax.concatenate([lax.real(r), lax.imag(r)], 0)     # |r|² = re² + im²
    resid = lax.reduce_sum(lax.mul(r, r), (0,))
    concrete_rank = get_concrete(rank)
    if m <= n or (concrete_rank is not None and int(_np.asarray(concrete_rank)) < n):
        resid = lax.full((0,), 0, real_dtype)
    if vector:
        x = lax.reshape(x, (n,))
    return x, resid, rank, s


def cond(x, p=None):
    """Condition number of ``x``: ``max(S) / min(S)`` for p None, 2, -2 (its inverse),
    else ``norm(x, p) * norm(inv(x), p)``."""
    x = _float("cond", x)
    _at_least_2d("cond", x)
    if 0 in get_aval(x).shape[-2:]:
        raise LinAlgError(f"cond is not defined on empty arrays (got shape "
                          f"{get_aval(x).shape}): a condition number needs at least one "
                          f"row and one column")
    if p is None or p in (2, -2):
        s = svdvals(x)
        nd = get_aval(s).ndim
        big, small = lax.reduce_max(s, (nd - 1,)), lax.reduce_min(s, (nd - 1,))
        return lax.div(small, big) if p == -2 else lax.div(big, small)
    _square("cond", x)
    return lax.mul(norm(x, p, axis=(-2, -1)), norm(inv(x), p, axis=(-2, -1)))


# ---------------------------------------------------------------- norms

def _sum_axes(x, axes):
    return lax.reduce_sum(x, tuple(axes))


def _restore_axes(out, in_shape, axes):
    return lax.reshape(out, tuple(1 if i in axes else s for i, s in enumerate(in_shape)))


def _real_abs(x):
    """``|x|`` for complex ``x`` (the norms below depend on moduli only), else ``x``."""
    return lax.abs(x) if get_aval(x).dtype.kind == "c" else x


def _vector_norm(x, ord, axis):
    """Norm of ``x`` along one axis (int), NumPy's ``ord`` conventions."""
    x = _real_abs(x)
    ax = (axis,)
    if ord == _np.inf:
        return lax.reduce_max(lax.abs(x), ax)
    if ord == -_np.inf:
        return lax.reduce_min(lax.abs(x), ax)
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == 0:
        nz = lax.ne(x, _scalar_like(0, x))
        return _sum_axes(lax.convert_element_type(nz, get_aval(x).dtype), ax)
    if ord == 1:
        return _sum_axes(lax.abs(x), ax)
    if ord is None or ord == 2:
        return lax.sqrt(_sum_axes(lax.mul(x, x), ax))
    p = float(ord)
    powered = lax.pow(lax.abs(x), _scalar_like(p, x))
    total = _sum_axes(powered, ax)
    return lax.pow(total, _scalar_like(1.0 / p, total))


def _matrix_norm(x, ord, row_axis, col_axis):
    if ord in (2, -2, "nuc"):
        nd = get_aval(x).ndim
        moved = _move_to_end(x, (row_axis, col_axis))
        s = _lax_linalg.svd(moved, compute_uv=False)
        last = (nd - 2,)
        if ord == 2:
            return lax.reduce_max(s, last)
        if ord == -2:
            return lax.reduce_min(s, last)
        return lax.reduce_sum(s, last)
    x = _real_abs(x)
    if ord in (1, -1):
        sums = _sum_axes(lax.abs(x), (row_axis,))
        c = col_axis - 1 if col_axis > row_axis else col_axis
        return (lax.reduce_max if ord == 1 else lax.reduce_min)(sums, (c,))
    if ord in (_np.inf, -_np.inf):
        sums = _sum_axes(lax.abs(x), (col_axis,))
        r = row_axis - 1 if row_axis > col_axis else row_axis
        return (lax.reduce_max if ord == _np.inf else lax.reduce_min)(sums, (r,))
    if ord in (None, "fro", "f"):
        return lax.sqrt(_sum_axes(lax.mul(x, x), (row_axis, col_axis)))
    raise ValueError(f"Invalid norm order {ord!r} for matrices.")


def _move_to_end(x, axes):
    nd = get_aval(x).ndim
    rest = [i for i in range(nd) if i not in axes]
    return lax.transpose(x, (*rest, *axes))


def norm(x, ord=None, axis=None, keepdims=False):
    """Matrix or vector norm (NumPy's ``ord``: None, 'fro', 'nuc', inf, -inf, 0, 1, -1,
    2, -2 or any p for vectors), over ``axis`` (int or 2-tuple; None: the whole array
    for ord None, else its 1 or 2 axes)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    x = _float("norm", x)
    aval = get_aval(x)
    nd = aval.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            x = _real_abs(x)
            out = lax.sqrt(lax.reduce_sum(lax.mul(x, x), tuple(range(nd))))
            return lax.reshape(out, (1,) * nd) if keepdims else out
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (operator.index(axis),)
        except TypeError:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    axes = tuple(canonicalize_axis(a, nd) for a in axis)
    if len(axes) == 1:
        out = _vector_norm(x, ord, axes[0])
    elif len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError("Duplicate axes given.")
        out = _matrix_norm(x, ord, axes[0], axes[1])
    else:
        raise ValueError("Improper number of dimensions to norm.")
    return _restore_axes(out, aval.shape, axes) if keepdims else out


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Norm of the matrices in the last two axes of ``x`` (Array API)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    x = to_array(x)
    _at_least_2d("matrix_norm", x)
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm over ``axis`` (None: all elements; a tuple: those axes flattened)."""
    keepdims = _checks.flag(keepdims, "keepdims")
    x = _float("vector_norm", x)
    aval = get_aval(x)
    nd = aval.ndim
    axes = tuple(range(nd)) if axis is None else (
        tuple(canonicalize_axis(a, nd) for a in axis) if isinstance(axis, tuple)
        else (canonicalize_axis(axis, nd),))
    moved = _move_to_end(x, axes)
    rest = tuple(aval.shape[i] for i in range(nd) if i not in axes)
    size = int(_np.prod([aval.shape[i] for i in axes], dtype=_np.int64))
    flat = lax.reshape(moved, (*rest, size))
    out = _vector_norm(flat, ord, len(rest))
    return _restore_axes(out, aval.shape, axes) if keepdims else out


# ---------------------------------------------------------------- products and others

def matrix_power(a, n):
    """``a`` (..., m, m) raised to the integer power ``n`` (negative: of its inverse)."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("exponent must be an integer") from None
    a = to_array(a)
    _square("matrix_power", a)
    aval = get_aval(a)
    if n == 0:
        return _eye_batch(aval.shape[-1], aval.dtype, aval.shape[:-2])
    if n < 0:
        a, n = inv(a), -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else _matmul(result, base)
        n >>= 1
        if n:
            base = _matmul(base, base)
    return result


@supports_out(casting="no")
def multi_dot(arrays, *, out=None, precision=None):
    """The product of a sequence of matrices (1-d ends are row/column vectors);
    ``precision`` is ``lax.dot_general``'s."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    result = arrays[0]
    for b in arrays[1:]:
        result = _matmul(result, b, precision=precision)
    return result


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Matrix product (Array API ``linalg.matmul``); ``precision`` and
    ``preferred_element_type`` are ``lax.dot_general``'s."""
    return _matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """Tensor contraction over ``axes`` (Array API ``linalg.tensordot``)."""
    return _tensordot(x1, x2, axes, precision=precision,
                      preferred_element_type=preferred_element_type)


def outer(x1, x2, /):
    """Outer product of two vectors."""
    x1, x2 = to_array(x1), to_array(x2)
    for x in (x1, x2):
        if get_aval(x).ndim != 1:
            raise ValueError(f"Input arrays must be one-dimensional, got shape "
                             f"{get_aval(x).shape}")
    return _outer(x1, x2)


def matrix_transpose(x, /):
    """Swap the last two axes."""
    x = to_array(x)
    if get_aval(x).ndim < 2:
        raise ValueError(f"matrix_transpose: input must be at least 2-dimensional, got shape "
                         f"{get_aval(x).shape}")
    return _T(x)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Dot product of vectors along ``axis`` (with broadcasting; the first argument
    conjugated)."""
    return _vector_dot(x1, x2, axis, precision, preferred_element_type)


def _diag_mask_values(x, offset):
    aval = get_aval(x)
    m, n = aval.shape[-2:]
    zeros = lax.full(aval.shape, 0, aval.dtype)
    return lax.select(_mask(_np.eye(m, n, offset, dtype=bool), aval.shape), x, zeros)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of diagonal ``offset`` of the matrices in the last two axes."""
    x = to_array(x)
    _at_least_2d("trace", x)
    if get_aval(x).dtype == _np.bool_:
        x = lax.convert_element_type(x, dtypes.default_int())
    return _sum(_diag_mask_values(x, _checks.c_int(offset)), axis=(-2, -1), dtype=dtype)


def diagonal(x, /, *, offset=0):
    """Diagonal ``offset`` of the matrices in the last two axes: shape (..., k)."""
    x = to_array(x)
    _at_least_2d("diagonal", x)
    offset = _checks.c_int(offset)
    aval = get_aval(x)
    is_bool = aval.dtype == _np.bool_
    if is_bool:
        x = lax.convert_element_type(x, _np.int8)
    m, n = aval.shape[-2:]
    masked = _diag_mask_values(x, offset)
    nd = aval.ndim
    if offset >= 0:
        length = builtins.max(0, builtins.min(m, n - offset))
        line = lax.reduce_sum(masked, (nd - 1,))          # indexed by row
    else:
        length = builtins.max(0, builtins.min(m + offset, n))
        line = lax.reduce_sum(masked, (nd - 2,))          # indexed by column
    out = _cols(line, 0, length)
    return lax.convert_element_type(out, _np.bool_) if is_bool else out


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along ``axis`` (with broadcasting)."""
    x1, x2 = promote(x1, x2)
    s1, s2 = get_aval(x1).shape, get_aval(x2).shape
    if not s1 or not s2:
        raise ValueError("cross: inputs must have at least one dimension")
    for s in (s1, s2):
        if s[axis] != 3:
            raise ValueError(f"cross: both inputs must have size 3 along axis {axis}, got "
                             f"shapes {s1} and {s2}")
    shape = broadcast_shapes(s1, s2, name="cross operands")
    nd = len(shape)
    ax = canonicalize_axis(axis, nd)
    a = _move_to_end(lax.broadcast_to_shape(x1, shape), (ax,))
    b = _move_to_end(lax.broadcast_to_shape(x2, shape), (ax,))
    comp = lambda v, i: lax.slice_in_dim(v, i, i + 1, axis=-1)      # noqa: E731
    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    c0 = lax.sub(lax.mul(a1, b2), lax.mul(a2, b1))
    c1 = lax.sub(lax.mul(a2, b0), lax.mul(a0, b2))
    c2 = lax.sub(lax.mul(a0, b1), lax.mul(a1, b0))
    out = lax.concatenate([c0, c1, c2], nd - 1)
    perm = list(range(nd - 1))
    perm.insert(ax, nd - 1)
    return lax.transpose(out, tuple(perm))
