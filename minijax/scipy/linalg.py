"""``minijax.scipy.linalg``: SciPy's dense linear algebra with JAX's signatures.

``overwrite_*`` and ``check_finite`` are accepted and have no effect (arrays are never
overwritten, and inputs are not checked for infinities) -- as in JAX.
"""

import math
from functools import partial

import operator

import numpy as np

from .. import lax
from ..api import jit, jvp
from ..core import Tracer
from ..custom_derivatives import custom_jvp
from .. import numpy as jnp
from ..lax import linalg as lax_linalg
from ._linalg_special import (circulant, companion, convolution_matrix, dft, fiedler,
                              fiedler_companion, hadamard, hankel, helmert, hilbert,
                              invhilbert, invpascal, leslie, pascal, toeplitz)
from ._util import promote_inexact, reject

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
           "convolution_matrix", "det", "dft", "eig", "eigh", "eigvals", "expm", "expm_frechet",
           "fiedler", "fiedler_companion", "hadamard", "hankel", "helmert", "hessenberg",
           "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
           "pascal", "polar", "qr", "qr_multiply",
           "schur", "solve", "solve_banded", "solve_sylvester", "solve_triangular", "sqrtm",
           "svd", "toeplitz"]


def _matrix(name, a, square=True):
    a, = promote_inexact(a)
    if a.ndim < 2 or (square and a.shape[-1] != a.shape[-2]):
        what = "a square matrix" if square else "a matrix"
        raise ValueError(f"scipy.linalg.{name}: expected {what} (..., n, n), got shape {a.shape}")
    return a


def _lapack_matrix(name, a):
    """A square matrix of a dtype LAPACK has: 16-bit floats become float32, as in SciPy."""
    a = _matrix(name, a)
    return a.astype(np.float32) if a.dtype.itemsize == 2 else a


def _h(x):
    """Conjugate transpose of the last two axes."""
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of a Hermitian positive-definite matrix (upper by default)."""
    c = lax_linalg.cholesky(_matrix("cholesky", a))
    return c if lower else _h(c)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(c, lower)`` for ``cho_solve``; the other triangle of ``c`` is zero."""
    return cholesky(a, lower=lower), lower


def _as_columns(b, n, name):
    b, = promote_inexact(b)
    if b.ndim == 0 or b.shape[0] != n:
        raise ValueError(f"scipy.linalg.{name}: b must have {n} rows, got shape {b.shape}")
    return b[:, None] if b.ndim == 1 else b.reshape((n, -1)), b.shape


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``A x = b`` given ``cho_factor(A)``."""
    c, lower = c_and_lower
    c = _matrix("cho_solve", c)
    cols, shape = _as_columns(b, c.shape[-1], "cho_solve")
    c, cols = promote_inexact(c, cols)
    if not lower:
        c = _h(c)
    y = lax_linalg.triangular_solve(c, cols, left_side=True, lower=True)
    x = lax_linalg.triangular_solve(c, y, left_side=True, lower=True, transpose_a=True,
                                    conjugate_a=True)
    return x.reshape(shape)


_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """Solve ``op(a) x = b`` for triangular ``a`` (``trans``: 0/'N', 1/'T', 2/'C')."""
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    transpose, conjugate = _TRANS[trans]
    a = _matrix("solve_triangular", a)
    cols, shape = _as_columns(b, a.shape[-1], "solve_triangular")
    a, cols = promote_inexact(a, cols)
    x = lax_linalg.triangular_solve(a, cols, left_side=True, lower=lower, transpose_a=transpose,
                                    conjugate_a=conjugate, unit_diagonal=unit_diagonal)
    return x.reshape(shape)


def _unpack_lu(lu_matrix):
    m, n = lu_matrix.shape[-2:]
    k = min(m, n)
    lower = jnp.tril(lu_matrix[..., :, :k], -1) + jnp.eye(m, k, dtype=lu_matrix.dtype)
    upper = jnp.triu(lu_matrix[..., :k, :])
    return lower, upper


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """``(p, l, u)`` with ``a = p @ l @ u`` (or ``(p @ l, u)`` with ``permute_l``)."""
    a = _matrix("lu", a, square=False)
    lu_matrix, _, perm = lax_linalg.lu(a)
    lower, upper = _unpack_lu(lu_matrix)
    m = a.shape[-2]
    # a[perm] = l @ u, so p has p[perm[i], i] = 1
    p = (perm[..., None, :] == jnp.arange(m)[:, None]).astype(a.dtype)
    if permute_l:
        return p @ lower, upper
    return p, lower, upper


def lu_factor(a, overwrite_a=False, check_finite=True):
    """``(lu, piv)`` as LAPACK's getrf gives them (0-based row swaps)."""
    lu_matrix, pivots, _ = lax_linalg.lu(_matrix("lu_factor", a))
    return lu_matrix, pivots


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve ``op(A) x = b`` given ``lu_factor(A)`` (``trans``: 0, 1 or 2)."""
    lu_matrix, pivots = lu_and_piv
    lu_matrix = _matrix("lu_solve", lu_matrix)
    if trans not in _TRANS:
        raise ValueError(f"lu_solve: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    transpose, conjugate = _TRANS[trans]
    n = lu_matrix.shape[-1]
    cols, shape = _as_columns(b, n, "lu_solve")
    lu_matrix, cols = promote_inexact(lu_matrix, cols)
    perm = lax_linalg.lu_pivots_to_permutation(pivots, n)
    if not transpose:
        y = lax_linalg.triangular_solve(lu_matrix, cols[perm], left_side=True, lower=True,
                                        unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu_matrix, y, left_side=True, lower=False)
    else:
        # A^T = U^T L^T P^T: solve with U^T, then L^T, then undo the row permutation
        y = lax_linalg.triangular_solve(lu_matrix, cols, left_side=True, lower=False,
                                        transpose_a=True, conjugate_a=conjugate)
        y = lax_linalg.triangular_solve(lu_matrix, y, left_side=True, lower=True,
                                        transpose_a=True, conjugate_a=conjugate,
                                        unit_diagonal=True)
        x = y[jnp.argsort(perm)]
    return x.reshape(shape)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """QR decomposition; ``mode`` 'full', 'economic' or 'r' (which returns ``(r,)``).
    ``pivoting=True`` also returns LAPACK ``geqp3``'s column permutation ``p`` (int32),
    with ``a[:, p] = q @ r``: ``(q, r, p)``, or ``(r, p)`` for 'r'."""
    reject("qr", lwork=lwork)
    if mode not in ("full", "economic", "r"):
        raise NotImplementedError(f"scipy.linalg.qr: mode={mode!r} is not supported "
                                  "(use 'full', 'economic' or 'r')")
    a = _matrix("qr", a, square=False)
    if pivoting:
        q, r, p = lax_linalg.qr(a, pivoting=True, full_matrices=(mode != "economic"))
        return (r, p) if mode == "r" else (q, r, p)
    q, r = lax_linalg.qr(a, full_matrices=(mode != "economic"))
    return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """Singular value decomposition ``a = u @ diag(s) @ vh``, by LAPACK's ``gesdd``
    (divide and conquer) or, with ``lapack_driver='gesvd'``, its QR-iteration ``gesvd``."""
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f"svd: lapack_driver must be 'gesdd' or 'gesvd', got {lapack_driver!r}")
    a = _matrix("svd", a, square=False)
    if lapack_driver == "gesvd":
        out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                             algorithm=lax_linalg.SvdAlgorithm.QR)
        return tuple(out) if compute_uv else out
    return jnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eig(a, b=None, left=False, right=True, overwrite_a=False, overwrite_b=False,
        check_finite=True, homogeneous_eigvals=False):
    """Eigenvalues ``w`` of a general square matrix and, as asked, its left eigenvectors
    ``vl`` (``vl[:, i]ᴴ a = w[i] vl[:, i]ᴴ``) and right ones ``vr`` (``a vr[:, i] =
    w[i] vr[:, i]``): unit columns whose largest component is real (LAPACK's ``geev``).
    Returns ``w``, ``(w, vl)``, ``(w, vr)`` or ``(w, vl, vr)``, as SciPy. Eigenvalues
    and eigenvectors are complex, also where SciPy gives real vectors (a real matrix
    whose eigenvalues are all real): the dtype cannot depend on the values under ``jit``.
    ``homogeneous_eigvals`` stacks ``(w, 1)`` on the axis before the last."""
    reject("eig", b=b)
    outs = lax_linalg.eig(_lapack_matrix("eig", a), compute_left_eigenvectors=bool(left),
                          compute_right_eigenvectors=bool(right))
    w = outs[0]
    if homogeneous_eigvals:
        w = jnp.stack([w, jnp.ones_like(w)], axis=-2)
    return w if len(outs) == 1 else (w, *outs[1:])


def eigvals(a, b=None, overwrite_a=False, check_finite=True, homogeneous_eigvals=False):
    """The (complex) eigenvalues of a general square matrix, as ``eig(a)[0]``."""
    return eig(a, b, left=False, right=False, homogeneous_eigvals=homogeneous_eigvals)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         type=1, check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix;
    ``subset_by_index=(lo, hi)`` keeps the eigenvalues lo to hi, inclusive."""
    reject("eigh", b=b, subset_by_value=subset_by_value, driver=driver)
    if type != 1:
        raise NotImplementedError("scipy.linalg.eigh: only type=1 (the standard problem)")
    a = _matrix("eigh", a)
    subset = None
    if subset_by_index is not None:
        n = a.shape[-1]
        lo, hi = (operator.index(i) for i in subset_by_index)
        if not 0 <= lo <= hi < n:
            raise ValueError(f"Requested eigenvalue indices are not valid. Valid range is "
                             f"[0, {n - 1}] and start <= end, but start={lo}, end={hi} is "
                             f"given")
        subset = (lo, hi + 1)
    vectors, values = lax_linalg.eigh(a, lower=lower, subset_by_index=subset)
    return values if eigvals_only else (values, vectors)


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of a square matrix."""
    return jnp.linalg.inv(_matrix("inv", a))


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of a square matrix."""
    return jnp.linalg.det(_matrix("det", a))


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a="gen", transposed=False):
    """Solve ``a x = b``; ``assume_a='pos'`` uses a Cholesky factorization."""
    if assume_a not in ("gen", "general", "sym", "symmetric", "her", "hermitian", "pos",
                        "positive definite"):
        raise NotImplementedError(f"scipy.linalg.solve: assume_a={assume_a!r} is not supported")
    a = _matrix("solve", a)
    a, b = promote_inexact(a, b)
    if transposed:
        a = jnp.swapaxes(a, -1, -2)
    if assume_a in ("pos", "positive definite"):
        if a.ndim != 2:
            raise NotImplementedError("scipy.linalg.solve: assume_a='pos' takes one matrix")
        return cho_solve(cho_factor(a, lower=lower), b)
    if b.ndim == 1:
        return jnp.linalg.solve(a, b[:, None])[:, 0]
    return jnp.linalg.solve(a, b)


def block_diag(*arrs):
    """The block-diagonal matrix of the given arrays (0-d and 1-d are 1 x n blocks)."""
    if not arrs:
        return jnp.zeros((1, 0))
    blocks = [jnp.atleast_2d(jnp.asarray(a)) for a in arrs]
    for blk in blocks:
        if blk.ndim != 2:
            raise ValueError(f"block_diag: arguments must have at most 2 dimensions, got "
                             f"shape {blk.shape}")
    dtype = jnp.result_type(*blocks)
    rows = sum(blk.shape[0] for blk in blocks)
    cols = sum(blk.shape[1] for blk in blocks)
    out = jnp.zeros((rows, cols), dtype=dtype)
    r = c = 0
    for blk in blocks:
        out = out.at[r:r + blk.shape[0], c:c + blk.shape[1]].set(blk.astype(dtype))
        r, c = r + blk.shape[0], c + blk.shape[1]
    return out


# ---------------------------------------------------------------- expm

# [13/13] Pade approximant of exp, with scaling and squaring (Higham 2005): the
# coefficients are (26 - j)! 13! / (26! j! (13 - j)!), up to a common factor.
_PADE13 = [math.factorial(26 - j) / (math.factorial(j) * math.factorial(13 - j))
           for j in range(14)]
_PADE13 = [c / _PADE13[-1] for c in _PADE13]
_THETA13 = 5.371920351148152


def expm(A, *, upper_triangular=False, max_squarings=16):
    """The matrix exponential (NaN if it needs more than ``max_squarings`` squarings)."""
    del upper_triangular  # only a hint for the algorithm; the result is the same
    a = _matrix("expm", A)
    n = a.shape[-1]
    norm = jnp.max(jnp.sum(jnp.abs(a), axis=-2), axis=-1)
    squarings = jnp.maximum(0.0, jnp.ceil(jnp.log2(norm / _THETA13)))
    squarings = lax.stop_gradient(jnp.where(jnp.isfinite(squarings), squarings, 0.0))
    a = a / (2.0 ** squarings)[..., None, None]
    eye = jnp.broadcast_to(jnp.eye(n, dtype=a.dtype), a.shape)
    b = _PADE13
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
             + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = jnp.linalg.solve(v - u, v + u)
    for i in range(max_squarings):
        r = jnp.where((i < squarings)[..., None, None], r @ r, r)
    too_big = (squarings > max_squarings) | ~jnp.isfinite(norm)
    return jnp.where(too_big[..., None, None], np.nan, r)


# ---------------------------------------------------------------- schur, sqrtm

def schur(a, output="real", lwork=None, overwrite_a=False, sort=None, check_finite=True):
    """Schur decomposition ``a = z @ t @ zᴴ``: ``(t, z)`` with ``z`` unitary and ``t``
    upper triangular, or quasi-upper triangular (2x2 blocks for complex-conjugate pairs
    of eigenvalues) for the real Schur form of real ``a`` with ``output='real'``.
    ``output='complex'`` computes the complex form of real ``a``; complex ``a`` always
    gets it. ``lwork`` (a LAPACK workspace size) has no effect: the workspace is always
    sized by the kernel. ``sort`` is not implemented."""
    if output not in ("real", "complex", "r", "c"):
        raise ValueError(f"scipy.linalg.schur: output must be 'real' or 'complex', got {output!r}")
    if sort is not None:
        raise NotImplementedError("scipy.linalg.schur: sort is not implemented (the Schur "
                                  "form is returned unsorted); call it with sort=None")
    a = _lapack_matrix("schur", a)
    if output in ("complex", "c"):
        a = a.astype(_complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def _complex_dtype(dtype):
    return np.result_type(dtype, np.complex64)


def _diag(x):
    return jnp.diagonal(x, axis1=-2, axis2=-1)


def _column_steps(x):
    """``(js, onehot)``: the column indices of ``x``'s matrices and a function giving
    the one-hot row ``(n,)`` of column ``j`` -- to walk over columns with ``lax.scan``."""
    n = x.shape[-1]
    idx = jnp.arange(n)
    return idx, lambda j: (idx == j).astype(x.dtype)


def _sqrt_upper_triangular(t):
    """The upper-triangular square root ``r`` (``r @ r = t``, principal square roots on
    the diagonal) of upper-triangular ``t``, column by column (Björck and Hammarling):
    above the diagonal, column j solves ``(r[:j, :j] + r[j, j] I) r[:j, j] = t[:j, j]``."""
    n = t.shape[-1]
    if n == 0:
        return t
    d = jnp.sqrt(_diag(t))
    idx, onehot = _column_steps(t)
    eye = jnp.eye(n, dtype=t.dtype)

    def column(r, j):
        e = onehot(j)
        dj = jnp.sum(d * e, axis=-1)[..., None]
        done = idx < j
        # r holds the strict upper triangle of columns < j; on the diagonal d_i + d_j
        # for i < j and 1 below, so the solve leaves rows >= j at zero
        # (a zero d_i + d_j, two zero eigenvalues, becomes the smallest normal number:
        # 0/0 gives 0 as in SciPy, so the zero matrix is its own root; x/0, no root,
        # gives a huge value or inf where SciPy gives inf)
        denominator = d + dj
        denominator = jnp.where(denominator == 0, np.finfo(t.real.dtype).tiny, denominator)
        m = r + jnp.where(done, denominator, 1)[..., None] * eye
        rhs = jnp.where(done, jnp.sum(t * e, axis=-1), 0)
        x = lax_linalg.triangular_solve(m, rhs[..., None], left_side=True)
        return r + x * e, None

    r, _ = lax.scan(column, jnp.zeros_like(t), idx)
    return r + d[..., None] * eye


def _sylvester_upper(r, c, s=None):
    """``y`` with ``r @ y + y @ s = c`` for upper-triangular ``r`` and ``s`` (``s = r`` by
    default), column by column: ``(r + s[j, j] I) y[:, j] = c[:, j] - y[:, :j] @ s[:j, j]``
    (linear in ``c``, and transposable: a ``lax.scan``)."""
    s = r if s is None else s
    if c.shape[-1] == 0 or c.shape[-2] == 0:
        return c
    eye = jnp.eye(r.shape[-1], dtype=r.dtype)
    d = _diag(s)
    idx, onehot = _column_steps(s)

    def column(y, j):
        e = onehot(j)
        # the columns >= j of y are still zero
        rhs = jnp.sum(c * e, axis=-1) - jnp.sum(y * jnp.sum(s * e, axis=-1)[..., None, :], axis=-1)
        m = r + jnp.sum(d * e, axis=-1)[..., None, None] * eye
        x = lax_linalg.triangular_solve(m, rhs[..., None], left_side=True)
        return y + x * e, None

    y, _ = lax.scan(column, jnp.zeros_like(c), idx)
    return y


def _schur_sqrt(a, real_input):
    t, z = lax_linalg.schur(a)
    if real_input and t.size:
        # The eigenvalues of a real matrix that lie on the negative real axis come out of
        # the complex Schur form with an imaginary part of either sign at rounding level;
        # put them on the axis (+0j) so that their square roots are +i√|λ|, as SciPy's.
        d = _diag(t)
        tiny = 8 * t.shape[-1] * np.finfo(d.real.dtype).eps * jnp.max(
            jnp.abs(d), axis=-1, keepdims=True)
        on_axis = (d.real < 0) & (jnp.abs(d.imag) <= tiny)
        fix = jnp.where(on_axis, lax.complex(d.real, jnp.zeros_like(d.real)), d) - d
        t = t + fix[..., None] * jnp.eye(t.shape[-1], dtype=t.dtype)
    return z, _sqrt_upper_triangular(t)


@partial(custom_jvp, nondiff_argnums=(1,))
def _sqrtm_complex(a, real_input):
    z, r = _schur_sqrt(a, real_input)
    return z @ r @ _h(z)


@_sqrtm_complex.defjvp
def _sqrtm_complex_jvp(real_input, primals, tangents):
    # x dx + dx x = da; with a = z t zᴴ and x = z r zᴴ, y = zᴴ dx z solves the triangular
    # Sylvester equation r y + y r = zᴴ da z.
    (a,), (da,) = primals, tangents
    z, r = _schur_sqrt(a, real_input)
    zh = _h(z)
    y = _sylvester_upper(r, zh @ da @ z)
    return z @ r @ zh, z @ y @ zh


_sqrtm_compiled = jit(_sqrtm_complex, static_argnums=1)


def _has_real_sqrt(a):
    """Whether real ``a`` (a concrete array) has a real principal square root: no
    eigenvalue on the negative real axis -- no negative 1x1 block in its real Schur form."""
    t, = lax_linalg.schur(a, compute_schur_vectors=False)
    t = np.asarray(t)
    d = np.diagonal(t, axis1=-2, axis2=-1)
    sub = np.diagonal(t, -1, axis1=-2, axis2=-1)
    zero = np.zeros((*sub.shape[:-1], 1), sub.dtype)
    in_block = (np.concatenate([sub, zero], -1) != 0) | (np.concatenate([zero, sub], -1) != 0)
    return not np.any((d < 0) & ~in_block)


def sqrtm(A, disp=True, blocksize=1):
    """The principal matrix square root ``x`` (``x @ x = A``, eigenvalues in the right
    half-plane) by the Schur method. Real ``A`` gives a real result where it has one
    (no eigenvalue on the negative real axis), complex otherwise -- as SciPy, eagerly;
    under a transformation the values are unknown, so real ``A`` gives a complex result
    (take ``.real``). Singular ``A`` may have no square root (huge, inf or NaN entries).
    ``disp=False`` also returns SciPy's error estimate ``‖x@x - A‖²_F / ‖A‖_F``;
    ``blocksize`` (as in SciPy, unused by the algorithm) must be a positive integer.
    Differentiable to first order (the tangent solves ``x dx + dx x = dA``)."""
    if isinstance(blocksize, bool) or not isinstance(blocksize, (int, np.integer)) or blocksize < 1:
        raise ValueError(f"scipy.linalg.sqrtm: blocksize must be a positive integer, got "
                         f"{blocksize!r}")
    a = _lapack_matrix("sqrtm", A)
    real = not jnp.iscomplexobj(a)
    # compiled: eagerly, op by op, the scan over columns is far slower than SciPy
    x = _sqrtm_compiled(a.astype(_complex_dtype(a.dtype)) if real else a, real)
    if real and not isinstance(a, Tracer) and _has_real_sqrt(a):
        x = jnp.real(x)
    if disp:
        return x
    err = jnp.sum(jnp.abs(x @ x - a) ** 2, axis=(-2, -1)) / jnp.linalg.norm(a, axis=(-2, -1))
    return x, err


# ---------------------------------------------------------------- Sylvester, banded

def _sylvester_solve(a, b, q):
    """``x`` with ``a x + x b = q`` (complex) by Bartels and Stewart: with the complex Schur
    forms ``a = u r uᴴ`` and ``b = v s vᴴ``, ``y = uᴴ x v`` solves ``r y + y s = uᴴ q v``."""
    r, u = lax_linalg.schur(a)
    t, v = lax_linalg.schur(b)
    y = _sylvester_upper(r, _h(u) @ q @ v, t)
    return u @ y @ _h(v)


@custom_jvp
def _sylvester(a, b, q):
    return _sylvester_compiled(a, b, q)


@_sylvester.defjvp
def _sylvester_jvp(primals, tangents):
    # a dx + dx b = dq - da x - x db: the same equation, another right-hand side
    # (through the compiled solver, linear in its last argument and so transposable;
    # its Schur factorizations have no derivative: first order only)
    (a, b, q), (da, db, dq) = primals, tangents
    x = _sylvester(a, b, q)
    return x, _sylvester_compiled(a, b, dq - da @ x - x @ db)


# compiled: eagerly, op by op, the scan over columns is far slower than SciPy
_sylvester_compiled = jit(_sylvester_solve)


def solve_sylvester(a, b, q):
    """``x`` with ``a @ x + x @ b = q`` (Bartels-Stewart). Real input gives a real result.
    Where ``a`` and ``-b`` share an eigenvalue there is no unique solution (inf or NaN).
    Differentiable to first order (the tangent solves ``a dx + dx b = dq - da x - x db``)."""
    a, b, q = promote_inexact(a, b, q)
    if a.dtype.itemsize == 2:
        a, b, q = (m.astype(np.float32) for m in (a, b, q))
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != a.shape[1] or b.shape[0] != b.shape[1]:
        raise ValueError(f"scipy.linalg.solve_sylvester: a and b must be square matrices, "
                         f"got shapes {a.shape} and {b.shape}")
    if q.shape != (a.shape[0], b.shape[0]):
        raise ValueError(f"scipy.linalg.solve_sylvester: q must have shape "
                         f"{(a.shape[0], b.shape[0])}, got {q.shape}")
    real = not jnp.iscomplexobj(a)
    ctype = _complex_dtype(a.dtype)
    x = _sylvester(a.astype(ctype), b.astype(ctype), q.astype(ctype))
    return jnp.real(x) if real else x


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` for the banded ``a`` stored as SciPy's ``ab``
    (``a[i, j] = ab[u + i - j, j]``). minijax expands the band to a dense matrix and
    solves by LU: exact as SciPy and differentiable, but O(n^3) time and O(n^2) memory."""
    try:
        lower, upper = (int(v) for v in l_and_u)
    except (TypeError, ValueError):
        raise ValueError("scipy.linalg.solve_banded: l_and_u must be a pair of integers "
                         f"(l, u), got {l_and_u!r}") from None
    ab, b = promote_inexact(ab, b)
    if ab.ndim != 2 or ab.shape[0] != lower + upper + 1 or lower < 0 or upper < 0:
        raise ValueError(f"scipy.linalg.solve_banded: ab must have shape (l + u + 1, n) = "
                         f"({lower + upper + 1}, n) for (l, u) = {(lower, upper)}, got "
                         f"{ab.shape}")
    n = ab.shape[1]
    if b.ndim == 0 or b.shape[0] != n:
        raise ValueError(f"scipy.linalg.solve_banded: b must have {n} rows, got shape "
                         f"{b.shape}")
    rows = upper + np.arange(n)[:, None] - np.arange(n)[None, :]
    inside = (rows >= 0) & (rows <= lower + upper)
    dense = jnp.where(inside, ab[np.clip(rows, 0, lower + upper), np.arange(n)[None, :]], 0)
    if b.ndim == 1:
        return jnp.linalg.solve(dense, b[:, None])[:, 0]
    flat = b.reshape((n, -1))
    return jnp.linalg.solve(dense, flat).reshape(b.shape)


# ---------------------------------------------------------------- expm_frechet, polar, hessenberg

def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    """The Fréchet derivative of the matrix exponential at ``A`` in the direction ``E``
    (and ``expm(A)`` first, with ``compute_expm``). ``method``: 'SPS' (the default: the
    derivative of the scaled Padé approximant and its squarings, as ``jvp(expm)``) or
    'blockEnlarge' (the upper-right block of ``expm([[A, E], [0, A]])``). As SciPy's,
    'SPS' computes in float64 (or complex128) and 'blockEnlarge' in the input's
    floating dtype; leading axes are batch axes."""
    method = "SPS" if method is None else method
    if method not in ("SPS", "blockEnlarge"):
        raise ValueError(f"scipy.linalg.expm_frechet: unknown implementation {method!r} "
                         f"(use 'SPS' or 'blockEnlarge')")
    a, e = promote_inexact(A, E)
    for name, x in (("A", a), ("E", e)):
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError(f"scipy.linalg.expm_frechet: expected {name} to be a square "
                             f"matrix, got shape {x.shape}")
    if a.shape != e.shape:
        raise ValueError(f"scipy.linalg.expm_frechet: expected A and E to be the same "
                         f"shape, got {a.shape} and {e.shape}")
    if method == "SPS":
        dtype = np.result_type(a.dtype, np.float64)
        expm_a, frechet = jvp(expm, (a.astype(dtype),), (e.astype(dtype),))
    else:
        n = a.shape[-1]
        big = jnp.concatenate([jnp.concatenate([a, e], axis=-1),
                               jnp.concatenate([jnp.zeros_like(a), a], axis=-1)], axis=-2)
        big = expm(big)
        expm_a, frechet = big[..., :n, :n], big[..., :n, n:]
    return (expm_a, frechet) if compute_expm else frechet


def polar(a, side="right", *, method="svd", eps=None, max_iterations=None):
    """The polar decomposition: ``(u, p)`` with ``u`` having orthonormal columns (or rows)
    and ``p`` Hermitian positive semidefinite; ``a = u @ p`` for ``side='right'`` (``p``
    is n x n), ``a = p @ u`` for 'left' (m x m). By the SVD, as SciPy (``method='svd'``;
    JAX's default 'qdwh', a Halley iteration, is not implemented and raises, as do
    its ``eps``/``max_iterations``). Leading axes are batch axes; differentiable where
    the singular values are distinct and nonzero."""
    if side not in ("right", "left"):
        raise ValueError(f"scipy.linalg.polar: `side` must be either 'right' or 'left', "
                         f"got {side!r}")
    if method != "svd":
        raise NotImplementedError(f"scipy.linalg.polar: method={method!r} is not "
                                  f"implemented; use method='svd' (SciPy's algorithm)")
    reject("polar", eps=eps, max_iterations=max_iterations)
    a = _lapack_matrix_any("polar", a)
    w, s, vh = jnp.linalg.svd(a, full_matrices=False)
    u = w @ vh
    if side == "right":
        p = (_h(vh) * s[..., None, :]) @ vh
    else:
        p = (w * s[..., None, :]) @ _h(w)
    return u, p


def _lapack_matrix_any(name, a):
    a = _matrix(name, a, square=False)
    return a.astype(np.float32) if a.dtype.itemsize == 2 else a


def _householder(alpha, x):
    """LAPACK's ``larfg``: ``(beta, tau, v)`` with ``(I - tau v vᴴ)ᴴ [alpha; x] =
    [beta; 0]``, ``v[0] = 1``, ``beta`` real of sign opposite to ``Re alpha``; no
    reflection (``tau = 0``) where ``x`` is zero and ``alpha`` real."""
    sq = jnp.sum(jnp.abs(x) ** 2, axis=-1)
    real = jnp.real(alpha)
    identity = (sq == 0) & (jnp.imag(alpha) == 0)
    # (the untaken branch is kept finite, so derivatives through where stay finite)
    norm = jnp.sqrt(jnp.where(identity, 1.0, real ** 2 + jnp.imag(alpha) ** 2 + sq))
    beta = jnp.where(real >= 0, -norm, norm)
    tau = jnp.where(identity, 0, (beta - alpha) / beta)
    scale = jnp.where(identity, 1, 1 / (alpha - beta))
    v = jnp.concatenate([jnp.ones(x.shape[:-1] + (1,), x.dtype), x * scale[..., None]], axis=-1)
    return jnp.where(identity, real, beta), tau, v


def hessenberg(a, calc_q=False, overwrite_a=False, check_finite=True):
    """The upper Hessenberg form ``h = qᴴ a q`` (zero below the first subdiagonal) and,
    with ``calc_q``, the unitary ``q``: Householder reflections as LAPACK's ``gehrd``
    (no balancing, as SciPy), so the signs match SciPy's. A matrix of size at most
    2 x 2 comes back as it is (its dtype too) with ``q = eye``, as in SciPy. Leading
    axes are batch axes; differentiable."""
    a = jnp.asarray(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"scipy.linalg.hessenberg: expected a square matrix, got shape "
                         f"{a.shape}")
    n = a.shape[-1]
    if n <= 2 and a.size:
        return (a, jnp.eye(n)) if calc_q else a
    h = _lapack_matrix("hessenberg", a)
    q = jnp.broadcast_to(jnp.eye(n, dtype=h.dtype), h.shape)
    # (for complex h, a last reflection with nothing below makes the last subdiagonal
    # entry real, as LAPACK's; for real h it is the identity)
    for k in range(n - 1 if jnp.iscomplexobj(h) else n - 2):
        beta, tau, v = _householder(h[..., k + 1, k], h[..., k + 2:, k])
        # h := Hᴴ h H with H = I - tau v vᴴ acting on rows/columns k+1..n-1
        tau = tau[..., None, None]
        col = v[..., :, None]
        rows = h[..., k + 1:, :]
        h = h.at[..., k + 1:, :].set(rows - jnp.conj(tau) * col * (jnp.conj(v)[..., None, :] @ rows))
        cols = h[..., :, k + 1:]
        h = h.at[..., :, k + 1:].set(cols - tau * (cols @ col) * jnp.conj(v)[..., None, :])
        h = h.at[..., k + 1, k].set(beta.astype(h.dtype)).at[..., k + 2:, k].set(0)
        if calc_q:
            qc = q[..., :, k + 1:]
            q = q.at[..., :, k + 1:].set(qc - tau * (qc @ col) * jnp.conj(v)[..., None, :])
    return (h, q) if calc_q else h


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """``(q @ c, r)`` for ``mode='left'`` or ``(c @ q, r)`` for 'right', with ``q, r``
    the economic QR decomposition of ``a`` (m x n, k = min(m, n)): ``c`` is k x p
    ('left') or p x m ('right'); 1-d ``c`` is a column ('left') or row ('right') and
    the result is 1-d. ``conjugate`` uses ``conj(q)``. The result has ``a``'s floating
    dtype, as SciPy's, except that complex ``c`` with real ``a`` gives a complex result
    (SciPy drops the imaginary part). ``pivoting`` is not supported (as in ``qr``).
    Leading axes are batch axes; differentiable."""
    if mode not in ("left", "right"):
        raise ValueError(f"scipy.linalg.qr_multiply: mode can only be 'left' or 'right', "
                         f"got {mode!r}")
    reject("qr_multiply", pivoting=pivoting)
    a = _lapack_matrix_any("qr_multiply", a)
    c = jnp.asarray(c)
    m, n = a.shape[-2:]
    k = min(m, n)
    if c.ndim == 0:
        raise ValueError("scipy.linalg.qr_multiply: c must be at least 1-dimensional")
    dtype = a.dtype
    if jnp.iscomplexobj(c) and not jnp.iscomplexobj(a):
        dtype = _complex_dtype(dtype)
    a, c = a.astype(dtype), c.astype(dtype)
    need = k if mode == "left" else m
    have = c.shape[-1] if c.ndim == 1 or mode == "right" else c.shape[-2]
    if have != need:
        op = "q @ c" if mode == "left" else "c @ q"
        raise ValueError(f"scipy.linalg.qr_multiply: array shapes are not compatible for "
                         f"{op}: a {a.shape} (k = {k}) vs c {c.shape}")
    q, r = lax_linalg.qr(a, full_matrices=False)
    if conjugate:
        q = jnp.conj(q)
    return (q @ c if mode == "left" else c @ q), r
