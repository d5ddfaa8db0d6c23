"""Low-rank updates, named as ``jax.lax.linalg``'s ``symmetric_product`` (a rank-k update
``alpha a aᵀ + beta c``) and ``cholesky_update`` (a rank-one update of a Cholesky factor).

Both are compositions of lax operations (a contraction; a ``scan`` of Givens
rotations), so eager evaluation, ``jit``, ``vmap`` and derivatives come from the
operations they are built of. JAX gives neither a derivative; these have them.
"""

import numpy as np

from .. import dtypes
from ..core import get_aval
from . import elementwise as ew
from ._helpers import check_kinds, constant
from .linalg import _matmul, _tril, matrix_transpose
from .loops import scan
from .reductions import reduce_sum
from .shapes import broadcast_in_dim, broadcasted_iota
from .slicing import dynamic_index_in_dim, dynamic_update_index_in_dim

__all__ = ["symmetric_product", "cholesky_update"]

FLOATING = ("f",)


def _check_float(name, aval, operand):
    check_kinds(f"linalg.{name}", aval, FLOATING, operand)
    if aval.dtype.itemsize < 4:
        raise TypeError(f"lax.linalg.{name} requires float32 or float64 operands, got "
                        f"{operand} of dtype {aval.dtype.name}")


def _same_dtype(name, *avals):
    if len({a.dtype for a in avals}) != 1:
        raise TypeError(f"lax.linalg.{name} requires operands of one dtype, got "
                        f"{', '.join(a.dtype.name for a in avals)}")


def symmetric_product(a_matrix, c_matrix, *, alpha=1., beta=0., symmetrize_output=False):
    """``alpha * a @ aᵀ + beta * c`` for real ``a`` (..., m, n) and symmetric ``c``
    (..., m, m). The whole matrix is computed, so it is symmetric (up to rounding) with or
    without ``symmetrize_output``, which copies the lower triangle to the upper one."""
    a_aval, c_aval = get_aval(a_matrix), get_aval(c_matrix)
    _check_float("symmetric_product", a_aval, "a_matrix")
    _check_float("symmetric_product", c_aval, "c_matrix")
    _same_dtype("symmetric_product", a_aval, c_aval)
    if a_aval.ndim < 2 or c_aval.shape != (*a_aval.shape[:-1], a_aval.shape[-2]):
        raise ValueError(f"lax.linalg.symmetric_product requires a_matrix of shape (..., m, n) "
                         f"and c_matrix of shape (..., m, m), got {a_aval.shape} and "
                         f"{c_aval.shape}")
    out = ew.add(ew.mul(_matmul(a_matrix, matrix_transpose(a_matrix)), _scalar(alpha, a_aval)),
                 ew.mul(c_matrix, _scalar(beta, a_aval)))
    if symmetrize_output:
        out = ew.add(_tril(out), matrix_transpose(_tril(out, -1)))
    return out


def _scalar(x, aval):
    """The scalar ``x`` as a factor of the (..., m, m) result: a Python number as it is
    (weak, taken at the operands' dtype), a 0-d array converted and broadcast."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    x_aval = get_aval(x)
    if x_aval.ndim != 0 or dtypes.kind(x_aval.dtype) not in "iuf":
        raise TypeError(f"lax.linalg.symmetric_product requires real scalars alpha and beta, "
                        f"got {x!r}")
    return broadcast_in_dim(ew.convert_element_type(x, aval.dtype), aval.shape[:-1] + (
        aval.shape[-2],), ())


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of ``rᵀ r + w wᵀ`` from the upper factor ``r`` (..., n, n)
    of ``rᵀ r`` and ``w`` (..., n): n Givens rotations, O(n²). Only ``r``'s upper triangle
    is read."""
    r_aval, w_aval = get_aval(r_matrix), get_aval(w_vector)
    _check_float("cholesky_update", r_aval, "r_matrix")
    _check_float("cholesky_update", w_aval, "w_vector")
    _same_dtype("cholesky_update", r_aval, w_aval)
    if (r_aval.ndim < 2 or r_aval.shape[-1] != r_aval.shape[-2]
            or w_aval.shape != r_aval.shape[:-1]):
        raise ValueError(f"lax.linalg.cholesky_update requires a square r_matrix (..., n, n) "
                         f"and w_vector of shape (..., n), got {r_aval.shape} and "
                         f"{w_aval.shape}")
    n = r_aval.shape[-1]
    if n == 0:
        return r_matrix
    nd = r_aval.ndim
    dtype = r_aval.dtype
    r = ew.sub(r_matrix, _tril(r_matrix, -1))           # the upper triangle alone
    col = broadcasted_iota(np.int32, w_aval.shape, nd - 2)

    def rotate(carry, k):
        r, z = carry
        row = dynamic_index_in_dim(r, k, nd - 2, keepdims=False)        # (..., n)
        at_k = ew.eq(col, broadcast_in_dim(k, w_aval.shape, ()))
        zero = ew.sub(row, row)
        x = _pick(ew.select(at_k, row, zero), nd - 2)
        y = _pick(ew.select(at_k, z, zero), nd - 2)
        c, s = _givens(x, y, dtype)
        c, s = (broadcast_in_dim(v, w_aval.shape, tuple(range(nd - 2))) for v in (c, s))
        new_row = ew.sub(ew.mul(c, row), ew.mul(s, z))
        z = ew.add(ew.mul(c, z), ew.mul(s, row))
        return (dynamic_update_index_in_dim(r, new_row, k, nd - 2), z), None
    (r, _), _ = scan(rotate, (r, w_vector), constant(np.arange(n, dtype=np.int32), np.int32))
    return r


def _pick(x, axis):
    """The sum over ``axis`` (of a vector with one nonzero entry)."""
    return reduce_sum(x, (axis,))


def _givens(x, y, dtype):
    """``(c, s)`` with ``c x - s y = hypot(x, y)`` and ``s x + c y = 0``, scaled by
    ``max(|x|, |y|)`` against overflow; ``(1, 0)`` where ``y`` is 0."""
    zero = ew.sub(x, x)
    one = ew.add(zero, 1.0)
    y_zero = ew.eq(y, zero)
    scale = ew.max(ew.abs(x), ew.abs(y))
    scale = ew.select(y_zero, one, scale)
    xs, ys = ew.div(x, scale), ew.div(ew.select(y_zero, zero, y), scale)
    rh = ew.rsqrt(ew.add(ew.mul(xs, xs), ew.mul(ys, ys)))
    return ew.select(y_zero, one, ew.mul(xs, rh)), ew.select(y_zero, zero, ew.neg(ew.mul(ys, rh)))
