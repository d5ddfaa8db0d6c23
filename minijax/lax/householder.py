"""Householder reflectors, named as ``jax.lax.linalg.householder_product``: the
orthogonal (unitary) factor that LAPACK's ``orgqr``/``ungqr`` forms from the reflectors
``geqrf`` leaves. A primitive: its CPU lowering is that LAPACK kernel, its NumPy kernel
applies the reflectors one by one. Not differentiable (as in JAX).
"""

import numpy as np

from ..core import Primitive
from ._helpers import INEXACT, check_kinds
from .linalg import _batch_at_front, _cusolver_orgqr, _lapack_lowering, _lapack_orgqr

__all__ = ["householder_product", "householder_product_p"]

householder_product_p = Primitive("householder_product")


def householder_product(a, taus):
    """``H_0 H_1 ... H_{k-1}`` restricted to its first n columns, ``H_i = I - taus[i] v_i
    v_iᴴ`` with ``v_i`` zero above row i, one at row i and ``a[i+1:, i]`` below: the
    (..., m, n) Q (m >= n) of LAPACK's ``orgqr`` (``ungqr`` for complex) from ``a``
    (..., m, n) and ``taus`` (..., k), k <= n."""
    return householder_product_p.bind(a, taus)


def _householder_product_impl(a, taus):
    *batch, m, n = a.shape
    k = taus.shape[-1]
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    rows = np.arange(m)
    for i in range(k - 1, -1, -1):
        v = np.where(rows > i, a[..., :, i], 0).astype(a.dtype)
        v[..., i] = 1
        # q <- (I - tau v vᴴ) q
        vh_q = np.einsum("...i,...ij->...j", v.conj(), q)
        q -= taus[..., i, None, None] * v[..., :, None] * vh_q[..., None, :]
    return [q]


def _householder_product_abstract_eval(a, taus):
    name = "linalg.householder_product"
    check_kinds(name, a, INEXACT, "a")
    check_kinds(name, taus, INEXACT, "taus")
    if a.dtype != taus.dtype:
        raise TypeError(f"lax.linalg.householder_product requires a and taus of one dtype, "
                        f"got {a.dtype.name} and {taus.dtype.name}")
    if a.ndim < 2 or a.shape[-2] < a.shape[-1]:
        raise ValueError(f"lax.linalg.householder_product requires a of shape (..., m, n) with "
                         f"m >= n, got {a.shape}")
    if taus.ndim != a.ndim - 1 or taus.shape[:-1] != a.shape[:-2] \
            or taus.shape[-1] > a.shape[-1]:
        raise ValueError(f"lax.linalg.householder_product requires taus of shape (..., k) "
                         f"with a's batch axes and k <= n, got a of shape {a.shape} and taus "
                         f"of shape {taus.shape}")
    return [a.strip_weak_type()]


def _householder_product_jvp(primals, tangents):
    raise NotImplementedError("the derivative of lax.linalg.householder_product is not "
                              "implemented (JAX has none either)")


def _householder_product_lowering(orgqr):
    def lower(ctx, a, taus):
        a_aval, tau_aval = ctx.avals_in
        return orgqr(a, taus, a_aval, tau_aval)
    return lower


householder_product_p.impl = _householder_product_impl
householder_product_p.abstract_eval = _householder_product_abstract_eval
householder_product_p.jvp = _householder_product_jvp
householder_product_p.batch = _batch_at_front(householder_product_p)
householder_product_p.platform_lower["cpu"] = _lapack_lowering(
    _householder_product_impl, _householder_product_lowering(_lapack_orgqr))
householder_product_p.platform_lower["cuda"] = _lapack_lowering(
    _householder_product_impl, _householder_product_lowering(_cusolver_orgqr))
