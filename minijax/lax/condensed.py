"""Reductions to condensed forms, named as ``jax.lax.linalg.hessenberg`` and
``tridiagonal``: LAPACK's ``gehrd`` and ``sytrd``/``hetrd``, in LAPACK's packed form
(the condensed matrix and, outside it, the Householder vectors; their scales apart).

Their NumPy kernels are LAPACK's unblocked algorithms (``gehd2``, ``sytd2``/``hetd2``)
over the batch, their CPU lowerings jaxlib's kernels; neither is differentiable (as in
JAX) and neither has a GPU lowering here.
"""

import numpy as np

from .. import dtypes
from ..core import Primitive
from ..core.avals import ShapedArray
from ..interpreters.lowering import inline_function
from .linalg import _batch_at_front, _check_lapack_dtype, _check_matrix, _info_aval, \
    _lapack_call, _lapack_lowering, _nan_where_failed, _ok

__all__ = ["hessenberg", "hessenberg_p", "tridiagonal", "tridiagonal_p"]


def _check_square(name, aval):
    _check_matrix(name, aval, square=True)
    _check_lapack_dtype(name, aval)
    if aval.shape[-1] == 0:
        raise ValueError(f"lax.linalg.{name} requires matrices of size n >= 1, got shape "
                         f"{aval.shape}")


def _larfg(alpha, x):
    """LAPACK's ``larfg`` over a batch: ``(beta, v, tau)`` with ``(I - tau [1; v] [1;
    v]ᴴ)ᴴ [alpha; x] = [beta; 0]``, ``beta`` real; ``tau = 0`` (the identity) where ``x``
    is zero and ``alpha`` real. ``alpha`` (b,), ``x`` (b, l)."""
    xnorm = np.linalg.norm(x, axis=-1)
    identity = (xnorm == 0) & (alpha.imag == 0)
    beta = np.where(identity, alpha.real,
                    -np.copysign(np.hypot(np.abs(alpha), xnorm), alpha.real))
    safe = np.where(identity, 1, beta)
    tau = np.where(identity, 0, (beta - alpha) / safe).astype(alpha.dtype)
    # (LAPACK scales by the reciprocal, not dividing)
    scale = np.where(identity, 0, 1 / np.where(identity, 1, alpha - beta)).astype(alpha.dtype)
    return beta.astype(alpha.dtype), x * scale[:, None], tau


# ---------------------------------------------------------------- hessenberg

hessenberg_p = Primitive("hessenberg", multiple_results=True)


def hessenberg(a):
    """Reduce square matrices ``a`` (..., n, n) to upper Hessenberg form ``h = qᴴ a q``:
    ``(a, taus)`` as LAPACK's ``gehrd`` leaves them, ``h`` in the upper triangle and
    first subdiagonal, the Householder vectors of ``q = H_0 ... H_{n-2}`` below it (their
    leading 1 implicit) and their scales in ``taus`` (..., n - 1). Not differentiable."""
    return tuple(hessenberg_p.bind(a))


def _hessenberg_impl(a):
    *batch, n, _ = a.shape
    h = np.array(a, copy=True).reshape(-1, n, n)
    taus = np.zeros((h.shape[0], n - 1), a.dtype)
    for i in range(n - 1):
        beta, tail, tau = _larfg(h[:, i + 1, i], h[:, i + 2:, i])
        v = np.concatenate([np.ones((h.shape[0], 1), a.dtype), tail], axis=1)
        t = tau[:, None, None]
        right = h[:, :, i + 1:]             # a := a H from the right (all rows)
        right -= t * np.einsum("bij,bj->bi", right, v)[:, :, None] * v.conj()[:, None, :]
        left = h[:, i + 1:, i + 1:]         # a := Hᴴ a from the left
        left -= t.conj() * v[:, :, None] * np.einsum("bi,bij->bj", v.conj(), left)[:, None, :]
        h[:, i + 1, i], h[:, i + 2:, i], taus[:, i] = beta, tail, tau
    return [h.reshape(a.shape), taus.reshape(*batch, n - 1)]


def _hessenberg_abstract_eval(a):
    _check_square("hessenberg", a)
    return [a.strip_weak_type(), ShapedArray((*a.shape[:-2], a.shape[-1] - 1), a.dtype)]


def _hessenberg_jvp(primals, tangents):
    raise NotImplementedError("the derivative of lax.linalg.hessenberg is not implemented "
                              "(JAX has none either)")


def _hessenberg_lower(ctx, a):
    aval, = ctx.avals_in
    info_aval = _info_aval(aval)
    h, taus, info = _lapack_call("gehrd", aval.dtype, [a], [aval], [*ctx.avals_out, info_aval],
                                 aliases={0: 0}, low=1, high=aval.shape[-1])
    return inline_function(ctx, lambda i, *o: [_nan_where_failed(v, _ok(i)) for v in o],
                           [info_aval, *ctx.avals_out], [info, h, taus])


hessenberg_p.impl = _hessenberg_impl
hessenberg_p.abstract_eval = _hessenberg_abstract_eval
hessenberg_p.jvp = _hessenberg_jvp
hessenberg_p.batch = _batch_at_front(hessenberg_p)
hessenberg_p.platform_lower["cpu"] = _lapack_lowering(_hessenberg_impl, _hessenberg_lower)


# ---------------------------------------------------------------- tridiagonal

tridiagonal_p = Primitive("tridiagonal", multiple_results=True)


def tridiagonal(a, *, lower=True):
    """Reduce symmetric (Hermitian) matrices ``a`` (..., n, n), of which only the
    ``lower`` (else upper) triangle is read, to tridiagonal form ``t = qᴴ a q``: ``(a, d,
    e, taus)`` as LAPACK's ``sytrd``/``hetrd`` leave them: ``t``'s diagonal ``d`` (..., n)
    and off-diagonal ``e`` (..., n - 1), both real, also on the diagonal and first sub-
    (super-) diagonal of ``a``, the Householder vectors of ``q`` beyond it, their scales in
    ``taus`` (..., n - 1), and the other triangle of ``a`` as given. Not differentiable."""
    if lower not in (True, False):
        raise TypeError(f"lax.linalg.tridiagonal: lower must be a bool, got {lower!r}")
    return tuple(tridiagonal_p.bind(a, lower=bool(lower)))


def _hermitian_from(a, lower):
    """The Hermitian matrix whose ``lower`` (upper) triangle is ``a``'s, real diagonal."""
    tri = np.tril(a, -1) if lower else np.triu(a, 1)
    diag = np.einsum("...ii->...i", a).real
    return tri + np.conj(np.swapaxes(tri, -1, -2)) + diag[..., None] * np.eye(a.shape[-1])


def _sytd2_lower(t):
    """LAPACK's ``sytd2``/``hetd2`` with uplo "L" on a batch (b, n, n) of full Hermitian
    matrices (updated in place); returns ``(e, taus)``."""
    b, n, _ = t.shape
    e = np.zeros((b, n - 1), t.real.dtype)
    taus = np.zeros((b, n - 1), t.dtype)
    for i in range(n - 1):
        beta, tail, tau = _larfg(t[:, i + 1, i], t[:, i + 2:, i])
        v = np.concatenate([np.ones((b, 1), t.dtype), tail], axis=1)
        block = t[:, i + 1:, i + 1:]
        x = tau[:, None] * np.einsum("bij,bj->bi", block, v)           # x = tau A v
        alpha = -0.5 * tau * np.einsum("bi,bi->b", x.conj(), v)        # -tau/2 xᴴ v
        w = x + alpha[:, None] * v
        block -= v[:, :, None] * w.conj()[:, None, :] + w[:, :, None] * v.conj()[:, None, :]
        idx = np.arange(block.shape[-1])
        block[:, idx, idx] = block[:, idx, idx].real     # (her2 keeps the diagonal real)
        t[:, i + 1, i], t[:, i + 2:, i] = beta, tail
        e[:, i], taus[:, i] = beta.real, tau
    return e, taus


def _tridiagonal_impl(a, *, lower):
    *batch, n, _ = a.shape
    flat = a.reshape(-1, n, n)
    # uplo "U" runs the same steps from the last column back: with the order of rows and
    # columns reversed, the upper triangle becomes the lower one
    rev = (slice(None), slice(None, None, -1), slice(None, None, -1))
    t = _hermitian_from(flat if lower else flat[rev], True).astype(a.dtype)
    e, taus = _sytd2_lower(t)
    d = np.einsum("bii->bi", t).real
    if lower:
        packed = np.where(np.tri(n, dtype=bool), t, flat)
    else:
        t, d, e, taus = t[rev], d[:, ::-1], e[:, ::-1], taus[:, ::-1]
        packed = np.where(np.tri(n, dtype=bool).T, t, flat)
    packed[:, np.arange(n), np.arange(n)] = d
    return [packed.reshape(a.shape), d.reshape(*batch, n), e.reshape(*batch, n - 1),
            taus.reshape(*batch, n - 1)]


def _tridiagonal_abstract_eval(a, *, lower):
    _check_square("tridiagonal", a)
    *batch, n, _ = a.shape
    real = dtypes.real_dtype(a.dtype)
    return [a.strip_weak_type(), ShapedArray((*batch, n), real),
            ShapedArray((*batch, n - 1), real), ShapedArray((*batch, n - 1), a.dtype)]


def _tridiagonal_jvp(primals, tangents, *, lower):
    raise NotImplementedError("the derivative of lax.linalg.tridiagonal is not implemented "
                              "(JAX has none either)")


def _tridiagonal_lower(ctx, a, *, lower):
    aval, = ctx.avals_in
    info_aval = _info_aval(aval)
    fn = "hetrd" if dtypes.kind(aval.dtype) == "c" else "sytrd"
    *outs, info = _lapack_call(fn, aval.dtype, [a], [aval], [*ctx.avals_out, info_aval],
                               aliases={0: 0}, uplo="L" if lower else "U")
    return inline_function(ctx, lambda i, *o: [_nan_where_failed(v, _ok(i)) for v in o],
                           [info_aval, *ctx.avals_out], [info, *outs])


tridiagonal_p.impl = _tridiagonal_impl
tridiagonal_p.abstract_eval = _tridiagonal_abstract_eval
tridiagonal_p.jvp = _tridiagonal_jvp
tridiagonal_p.batch = _batch_at_front(tridiagonal_p)
tridiagonal_p.platform_lower["cpu"] = _lapack_lowering(_tridiagonal_impl,
                                                       _tridiagonal_lower)
