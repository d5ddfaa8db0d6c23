"""Tridiagonal systems, named as ``jax.lax.linalg.tridiagonal_solve``.

``tridiagonal_solve_p`` is a primitive because the solve is a linear map in ``b`` whose
transpose is another tridiagonal solve (with the transposed diagonals); its NumPy kernel
is LAPACK's ``gtsv`` (Gaussian elimination with partial pivoting) written over the batch,
its CPU lowering jaxlib's ``gtsv`` kernel. With ``perturb_singular`` they are jaxlib's
``tridiagonal_solve_perturbed`` kernel (LAPACK's ``lagtf``/``lagts`` scheme, from
TensorFlow) and that algorithm written in NumPy, system by system.
"""

import numpy as np

from ..core import Primitive, get_aval
from ..errors import MissingPlatformLoweringError
from ..interpreters import ad
from ..interpreters.lowering import inline_function, lower_via
from . import elementwise as ew
from ._helpers import INEXACT, check_kinds
from .linalg import _batch_at_front, _check_lapack_dtype, _info_aval, _lapack_call, \
    _lapack_lowering, _nan_where_failed, _ok
from .loops import scan
from .shapes import broadcast_in_dim, full, transpose
from .slicing import pad, slice_in_dim

__all__ = ["tridiagonal_solve", "tridiagonal_solve_p"]

tridiagonal_solve_p = Primitive("tridiagonal_solve")


def tridiagonal_solve(dl, d, du, b, *, perturb_singular=False):
    """Solve ``A x = b`` for ``x`` (..., m, k), ``A`` the tridiagonal (..., m, m) matrix
    with lower diagonal ``dl`` (``dl[i] = A[i, i-1]``, ``dl[0]`` ignored), diagonal ``d``
    and upper diagonal ``du`` (``du[i] = A[i, i+1]``, ``du[-1]`` ignored), each (..., m);
    ``b`` is (..., m, k): k right-hand sides. NaN where ``A`` is singular (a zero pivot
    in LU with partial pivoting, LAPACK's ``gtsv``); with ``perturb_singular``, tiny
    pivots of the LU factor ``U`` are perturbed instead (by ``eps * max |U|``, doubled
    until the solution cannot overflow), which gives finite solutions of singular
    systems, as inverse iteration wants."""
    if perturb_singular not in (True, False):
        raise TypeError(f"lax.linalg.tridiagonal_solve: perturb_singular must be a bool, got "
                        f"{perturb_singular!r}")
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))


def _abs1(x):
    # LAPACK's pivot choice for complex gtsv measures |re| + |im|
    return np.abs(x.real) + np.abs(x.imag) if x.dtype.kind == "c" else np.abs(x)


def _gtsv(dl, d, du, b):
    """LAPACK's ``gtsv`` on a batch flattened to (nb, m) and (nb, m, k); returns x and
    whether each system was nonsingular."""
    nb, m = d.shape
    dl, d, du, b = (np.array(v, copy=True) for v in (dl, d, du, b))
    sub = dl[:, 1:]                          # LAPACK's DL: A[i+1, i]
    du2 = np.zeros_like(d)                   # the second superdiagonal pivoting fills
    ok = np.ones(nb, bool)
    for i in range(m - 1):
        keep = _abs1(d[:, i]) >= _abs1(sub[:, i])          # no row interchange
        ok &= ~(keep & (d[:, i] == 0))
        # without interchange
        fact_k = sub[:, i] / np.where(d[:, i] == 0, 1, d[:, i])
        d_next_k = d[:, i + 1] - fact_k * du[:, i]
        b_next_k = b[:, i + 1] - fact_k[:, None] * b[:, i]
        # with rows i and i+1 interchanged
        fact_s = d[:, i] / np.where(keep, 1, sub[:, i])
        d_next_s = du[:, i] - fact_s * d[:, i + 1]
        b_i_s, b_next_s = b[:, i + 1], b[:, i] - fact_s[:, None] * b[:, i + 1]
        last = i == m - 2
        du2_s = np.zeros_like(d[:, i]) if last else du[:, i + 1].copy()
        du_next_s = du[:, i + 1] if last else -fact_s * du2_s
        k1 = keep[:, None]
        new_b_i = np.where(k1, b[:, i], b_i_s)
        new_b_next = np.where(k1, b_next_k, b_next_s)
        b[:, i], b[:, i + 1] = new_b_i, new_b_next
        new_di = np.where(keep, d[:, i], sub[:, i])
        new_dui = np.where(keep, du[:, i], d[:, i + 1])
        d[:, i + 1] = np.where(keep, d_next_k, d_next_s)
        d[:, i] = new_di
        if not last:
            du[:, i + 1] = np.where(keep, du[:, i + 1], du_next_s)
        du[:, i] = new_dui
        du2[:, i] = np.where(keep, 0, du2_s)
    ok &= d[:, m - 1] != 0
    x = np.zeros_like(b)
    for i in range(m - 1, -1, -1):
        acc = b[:, i].copy()
        if i + 1 < m:
            acc -= du[:, i, None] * x[:, i + 1]
        if i + 2 < m:
            acc -= du2[:, i, None] * x[:, i + 2]
        x[:, i] = acc / d[:, i, None]
    return x, ok


def _perturb_pivot(perturb, pivot, row):
    """``(pivot, row)`` with ``pivot`` moved away from zero (by ``perturb``, doubling)
    until ``row / pivot`` cannot overflow, or both scaled up where ``pivot`` is
    subnormal (LAPACK's ``lagts``)."""
    real = np.finfo(row.dtype).dtype
    safemin = np.finfo(real).tiny
    bignum = real.type(1) / safemin
    one = real.type(1)
    perturb = np.copysign(max(abs(perturb), safemin), pivot.real).astype(real)
    biggest = np.abs(row).max(initial=0)
    while abs(pivot) < one:
        if abs(pivot) < safemin:
            if abs(pivot) == 0 or biggest * safemin > abs(pivot):
                pivot, perturb = pivot + perturb, perturb * 2
                continue
            return pivot * bignum, row * bignum
        if biggest > abs(pivot) * bignum:
            pivot, perturb = pivot + perturb, perturb * 2
            continue
        break
    return pivot, row


def _solve_perturbed(dl, d, du, b):
    """One system (m,), (m, k) by LU with partial pivoting (rows chosen by relative size
    in their row, as ``lagtf``), the forward substitution on the fly, and ``U``'s tiny
    pivots perturbed in the back substitution."""
    m = d.shape[0]
    dtype = b.dtype
    eps = np.finfo(dtype).eps
    x = np.array(b, copy=True)
    if m == 1:
        pivot, row = _perturb_pivot(eps * abs(d[0]), d[0], x[0])
        return row * (1 / pivot)
    u = np.zeros((m, 3), dtype)              # U's diagonal and two superdiagonals
    u[0, 0], u[0, 1] = d[0], du[0]
    max_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = abs(u[0, 0]) + abs(u[0, 1])
    for k in range(m - 1):
        u[k + 1, 0] = d[k + 1]
        scale2 = abs(dl[k + 1]) + abs(u[k + 1, 0]) + (abs(du[k + 1]) if k < m - 2 else 0)
        if dl[k + 1] == 0:
            scale1 = scale2
            u[k + 1, 1], u[k, 2] = du[k + 1], 0
        else:
            piv1 = 0 if u[k, 0] == 0 else abs(u[k, 0]) / scale1
            if abs(dl[k + 1]) / scale2 <= piv1:
                scale1 = scale2
                factor = dl[k + 1] / u[k, 0]
                u[k + 1, 0] = d[k + 1] - factor * u[k, 1]
                u[k + 1, 1], u[k, 2] = du[k + 1], 0
                x[k + 1] = x[k + 1] - factor * x[k]
            else:                           # rows k and k+1 interchanged
                factor = u[k, 0] / dl[k + 1]
                u[k, 0] = dl[k + 1]
                u[k + 1, 0] = u[k, 1] - factor * d[k + 1]
                u[k, 1] = d[k + 1]
                if k < m - 2:
                    u[k, 2], u[k + 1, 1] = du[k + 1], -factor * du[k + 1]
                x[k], x[k + 1] = x[k + 1].copy(), x[k] - factor * x[k + 1]
        if k < m - 2:                       # (as the kernel: not row m - 2)
            max_u = max(max_u, np.abs(u[k]).max())
    tol = eps * max(max_u, abs(u[m - 1, 0]))
    for k in range(m - 1, -1, -1):
        row = x[k]
        if k + 1 < m:
            row = row - u[k, 1] * x[k + 1]
        if k + 2 < m:
            row = row - u[k, 2] * x[k + 2]
        pivot, row = _perturb_pivot(tol, u[k, 0], row)
        x[k] = row * (1 / pivot)
    return x


def _tridiagonal_solve_impl(dl, d, du, b, *, perturb_singular):
    *batch, m, k = b.shape
    dtype = b.dtype
    if m == 0 or k == 0:
        return [np.zeros(b.shape, dtype)]
    flat = [v.reshape(-1, m) for v in (dl, d, du)]
    if perturb_singular:
        with np.errstate(all="ignore"):
            x = [_solve_perturbed(*v, rhs) for *v, rhs in zip(*flat, b.reshape(-1, m, k))]
        return [np.array(x, dtype).reshape(b.shape)]
    with np.errstate(all="ignore"):
        x, ok = _gtsv(*flat, b.reshape(-1, m, k))
    x = np.where(ok[:, None, None], x, np.nan).astype(dtype)
    return [x.reshape(b.shape)]


def _tridiagonal_solve_abstract_eval(dl, d, du, b, *, perturb_singular):
    name = "linalg.tridiagonal_solve"
    for aval, operand in zip((dl, d, du, b), ("dl", "d", "du", "b")):
        check_kinds(name, aval, INEXACT, operand)
    if len({dl.dtype, d.dtype, du.dtype, b.dtype}) != 1:
        raise TypeError(f"lax.linalg.tridiagonal_solve requires dl, d, du and b of one dtype, "
                        f"got {dl.dtype.name}, {d.dtype.name}, {du.dtype.name} and "
                        f"{b.dtype.name}")
    _check_lapack_dtype("tridiagonal_solve", b, "operands")
    if not dl.shape == d.shape == du.shape:
        raise ValueError(f"lax.linalg.tridiagonal_solve requires dl, d and du of one shape, "
                         f"got {dl.shape}, {d.shape} and {du.shape}")
    if d.ndim < 1 or b.ndim != d.ndim + 1 or b.shape[:-1] != d.shape:
        raise ValueError(f"lax.linalg.tridiagonal_solve requires b of shape (..., m, k) whose "
                         f"leading axes (..., m) are the diagonals' shape {d.shape}, got b of "
                         f"shape {b.shape}")
    return [b.strip_weak_type()]


def tridiagonal_matmul(dl, d, du, x):
    """``A @ x`` for the tridiagonal ``A`` of ``tridiagonal_solve``'s diagonals."""
    aval = get_aval(x)
    nd = aval.ndim

    def col(v):                          # (..., m) -> (..., m, k)
        return broadcast_in_dim(v, aval.shape, tuple(range(nd - 1)))

    def shift(v, by):                    # v[..., i + by, :], zeros past the ends
        return pad(v, 0, [(0, 0, 0)] * (nd - 2) + [(-by, by, 0), (0, 0, 0)])
    # row i: dl[i] x[i-1] + d[i] x[i] + du[i] x[i+1]; dl[0] and du[-1] meet the zeros
    return ew.add(ew.add(ew.mul(col(dl), shift(x, -1)), ew.mul(col(d), x)),
                  ew.mul(col(du), shift(x, 1)))


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    dl, d, du, b = primals
    x = tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=perturb_singular)
    ddl, dd, ddu, db = tangents
    if all(type(t) is ad.Zero for t in tangents):
        return [x], [ad.Zero(ad.tangent_aval(get_aval(x)))]
    rhs = ad.instantiate(db)
    if not all(type(t) is ad.Zero for t in (ddl, dd, ddu)):
        # A x = b  =>  A dx = db - dA x
        dA_x = tridiagonal_matmul(*(ad.instantiate(t) for t in (ddl, dd, ddu)), x)
        rhs = ew.sub(rhs, dA_x)
    return [x], [tridiagonal_solve_p.bind(dl, d, du, rhs, perturb_singular=perturb_singular)]


def _transposed_diagonals(dl, d, du):
    """The diagonals of ``Aᵀ``: its lower diagonal is ``A``'s upper one moved down a row,
    its upper diagonal ``A``'s lower one moved up."""
    nd = get_aval(d).ndim

    def shift(v, by):
        return pad(v, 0, [(0, 0, 0)] * (nd - 1) + [(by, -by, 0)])
    return shift(du, 1), d, shift(dl, -1)


def _tridiagonal_solve_transpose(cts, dl, d, du, b, *, perturb_singular):
    if any(ad.is_undefined(v) for v in (dl, d, du)):
        raise NotImplementedError("lax.linalg.tridiagonal_solve is linear in b only, not "
                                  "in the diagonals")
    ct, = cts
    if type(ct) is ad.Zero:
        return [None, None, None, ct]
    return [None, None, None, tridiagonal_solve_p.bind(*_transposed_diagonals(dl, d, du), ct,
                                                       perturb_singular=perturb_singular)]


def _tridiagonal_solve_lower(ctx, dl, d, du, b, *, perturb_singular):
    avals = list(ctx.avals_in)
    b_aval = avals[3]
    if perturb_singular:     # (one kernel for every dtype; no info: never NaN)
        return _lapack_call(None, b_aval.dtype, [dl, d, du, b], avals, [b_aval],
                            target="tridiagonal_solve_perturbed_ffi")
    info_aval = _info_aval(b_aval)
    *_, x, info = _lapack_call("gtsv", b_aval.dtype, [dl, d, du, b], avals,
                               [*avals, info_aval], aliases={0: 0, 1: 1, 2: 2, 3: 3})
    return inline_function(ctx, lambda x, i: [_nan_where_failed(x, _ok(i))],
                           [b_aval, info_aval], [x, info])


def _thomas(dl, d, du, b, *, perturb_singular=False):
    """Thomas elimination (Gaussian elimination without pivoting) in lax operations, two
    ``scan``s over the rows: the lowering where no LAPACK kernel is at hand (GPUs)."""
    if perturb_singular:
        raise MissingPlatformLoweringError(
            "lax.linalg.tridiagonal_solve(perturb_singular=True) has no GPU lowering in "
            "minijax (jaxlib's perturbed kernel is the CPU's); it runs on the CPU")
    nd = get_aval(d).ndim
    rows_first = (nd - 1,) + tuple(range(nd - 1))
    dl, d, du = (transpose(v, rows_first) for v in (dl, d, du))
    b = transpose(b, (nd - 1,) + tuple(range(nd - 1)) + (nd,))
    zero_row = [(0, 0, 0)] * (nd - 1)
    # (dl[0] and du[-1] are outside the matrix: zeros, whatever they hold)
    dl = pad(slice_in_dim(dl, 1, None), 0, [(1, 0, 0)] + zero_row)
    du = pad(slice_in_dim(du, 0, -1), 0, [(0, 1, 0)] + zero_row)

    def eliminate(carry, row):
        c_prev, y_prev = carry
        l_i, d_i, u_i, b_i = row
        pivot = ew.sub(d_i, ew.mul(l_i, c_prev))
        c = ew.div(u_i, pivot)
        y = ew.div(ew.sub(b_i, ew.mul(_col(l_i, b_i), y_prev)), _col(pivot, b_i))
        return (c, y), (c, y)

    def substitute(x_next, row):
        c, y = row
        x = ew.sub(y, ew.mul(_col(c, y), x_next))
        return x, x
    dtype = get_aval(b).dtype
    row_of_d, row_of_b = (full(get_aval(v).shape[1:], 0, dtype) for v in (d, b))
    _, (c, y) = scan(eliminate, (row_of_d, row_of_b), (dl, d, du, b))
    _, x = scan(substitute, row_of_b, (c, y), reverse=True)
    return transpose(x, tuple(range(1, nd)) + (0, nd))


def _col(v, like):
    """``v`` (...) broadcast to ``like``'s shape (..., k)."""
    aval = get_aval(like)
    return broadcast_in_dim(v, aval.shape, tuple(range(aval.ndim - 1)))


tridiagonal_solve_p.impl = _tridiagonal_solve_impl
tridiagonal_solve_p.abstract_eval = _tridiagonal_solve_abstract_eval
tridiagonal_solve_p.jvp = _tridiagonal_solve_jvp
tridiagonal_solve_p.transpose = _tridiagonal_solve_transpose
tridiagonal_solve_p.batch = _batch_at_front(tridiagonal_solve_p)
tridiagonal_solve_p.platform_lower["cpu"] = _lapack_lowering(_tridiagonal_solve_impl,
                                                             _tridiagonal_solve_lower)
# (no cuSPARSE call checked on a GPU yet: the same elimination in lax operations)
tridiagonal_solve_p.platform_lower["cuda"] = lower_via(_thomas)
