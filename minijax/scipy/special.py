"""``minijax.scipy.special``: SciPy's special functions, differentiable and jit-able.

Every function is written with ``minijax.numpy``/``lax`` operations, so ``grad``, ``jit``
and ``vmap`` apply. Branches are selected with ``where`` on inputs made safe for each
branch, so the derivative of the branch not taken is never NaN.
"""

import math

import numpy as np

from .. import lax
from .. import numpy as jnp
from ._util import promote_inexact

__all__ = ["betainc", "betaln", "digamma", "entr", "erf", "erfc", "erfinv", "expit", "gamma",
           "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "multigammaln", "ndtr", "ndtri", "polygamma", "softmax", "xlog1py", "xlogy", "zeta"]

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


# ---------------------------------------------------------------- exp / log family

def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` along ``axis``, computed without overflow."""
    a, = promote_inexact(a)
    if b is not None:
        a, b = promote_inexact(a, b)
        a, b = jnp.broadcast_arrays(a, b)
    if where is not None:
        a = jnp.where(where, a, -jnp.inf)
    amax = jnp.max(a, axis=axis, keepdims=True) if a.size else jnp.zeros_like(
        jnp.sum(a, axis=axis, keepdims=True))
    amax = lax.stop_gradient(jnp.where(jnp.isfinite(amax), amax, 0.0))
    terms = jnp.exp(a - amax)
    if b is not None:
        terms = terms * b
    if where is not None:
        terms = jnp.where(where, terms, 0.0)
    total = jnp.sum(terms, axis=axis, keepdims=True)
    if return_sign:
        sign = jnp.sign(total)
        total = jnp.abs(total)
    out = jnp.log(total) + amax
    if not keepdims:
        axes = tuple(range(a.ndim)) if axis is None else axis
        out = jnp.squeeze(out, axis=axes)
        if return_sign:
            sign = jnp.squeeze(sign, axis=axes)
    return (out, sign) if return_sign else out


def softmax(x, axis=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (all axes by default, as in SciPy)."""
    x, = promote_inexact(x)
    return jnp.exp(x - logsumexp(x, axis=axis, keepdims=True))


def log_softmax(x, axis=None):
    """``log(softmax(x))`` computed as ``x - logsumexp(x)``."""
    x, = promote_inexact(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    x, = promote_inexact(x)
    return lax.logistic(x)


def logit(x):
    """``log(x / (1 - x))``."""
    x, = promote_inexact(x)
    return jnp.log(x) - jnp.log1p(-x)


def _xlog_fn(x, y, log_fn, pole):
    x, y = promote_inexact(x, y)
    x, y = jnp.broadcast_arrays(x, y)
    # Where x == 0 the result is 0 even if log(y) is infinite; elsewhere x * log(y), which
    # keeps d/dx = log(y) at x == 0 for finite log(y).
    degenerate = (x == 0) & ((y == pole) | jnp.isinf(y))
    safe_y = jnp.where(degenerate, pole + 1.0, y)
    return jnp.where(degenerate, 0.0, x * log_fn(safe_y))


def xlogy(x, y):
    """``x * log(y)``, with 0 where ``x == 0`` (and ``y`` is not NaN)."""
    return _xlog_fn(x, y, jnp.log, 0.0)


def xlog1py(x, y):
    """``x * log1p(y)``, with 0 where ``x == 0`` (and ``y`` is not NaN)."""
    return _xlog_fn(x, y, jnp.log1p, -1.0)


def entr(x):
    """Elementwise entropy ``-x log x`` (0 at 0, ``-inf`` for negative ``x``)."""
    x, = promote_inexact(x)
    positive = x > 0
    safe = jnp.where(positive, x, 1.0)
    out = jnp.where(positive, -safe * jnp.log(safe), jnp.where(x == 0, jnp.zeros_like(x), -jnp.inf))
    return jnp.where(jnp.isnan(x), x, out)


# ---------------------------------------------------------------- gamma family

def gammaln(x):
    """``log(abs(gamma(x)))``."""
    x, = promote_inexact(x)
    return lax.lgamma(x)


def gamma(x):
    """The gamma function (``inf`` at 0 and the poles' sign as SciPy gives it)."""
    x, = promote_inexact(x)
    negative_odd = (x < 0) & (jnp.remainder(jnp.floor(x), 2.0) == 1.0)
    sign = jnp.where(negative_odd, -jnp.ones_like(x), jnp.ones_like(x))
    out = sign * jnp.exp(lax.lgamma(x))
    pole = (x < 0) & (x == jnp.floor(x))
    out = jnp.where(pole | (x == -jnp.inf), jnp.nan, out)
    return jnp.where(x == 0, jnp.copysign(jnp.inf, x), out)


def digamma(x):
    """The logarithmic derivative of the gamma function."""
    x, = promote_inexact(x)
    out = lax.digamma(x)
    return jnp.where(x == 0, jnp.copysign(jnp.inf, -x), out)


def betaln(a, b):
    """``log(abs(beta(a, b)))``."""
    a, b = promote_inexact(a, b)
    return lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = jnp.broadcast_arrays(*promote_inexact(a, x))
    return lax.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = jnp.broadcast_arrays(*promote_inexact(a, x))
    return lax.igammac(a, x)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (differentiable in all three)."""
    a, b, x = jnp.broadcast_arrays(*promote_inexact(a, b, x))
    return lax.betainc(a, b, x)


def polygamma(n, x):
    """The ``n``-th derivative of ``digamma`` (``n`` a non-negative integer)."""
    n, x = promote_inexact(n, x)
    n, x = jnp.broadcast_arrays(n, x)
    return lax.polygamma(n, x)


def zeta(x, q=None):
    """The Hurwitz zeta function ``sum((k + q) ** -x)`` (Riemann's when ``q`` is None).

    Defined for ``x > 1``; NaN elsewhere (SciPy continues Riemann's zeta below 1).
    """
    if q is None:
        q = 1.0
    x, q = promote_inexact(x, q)
    x, q = jnp.broadcast_arrays(x, q)
    return lax.zeta(x, q)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a Python int)."""
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
        raise TypeError(f"multigammaln: d must be a positive Python int, got {d!r}")
    a, = promote_inexact(a)
    d = int(d)
    total = sum(lax.lgamma(a - 0.5 * j) for j in range(d))
    return total + 0.25 * d * (d - 1) * math.log(math.pi)


# ---------------------------------------------------------------- error function family

def erf(x):
    """The error function."""
    x, = promote_inexact(x)
    return lax.erf(x)


def erfc(x):
    """``1 - erf(x)``, accurate where it is small."""
    x, = promote_inexact(x)
    return lax.erfc(x)


def erfinv(x):
    """The inverse of ``erf`` on ``[-1, 1]``."""
    x, = promote_inexact(x)
    return lax.erf_inv(x)


def ndtr(x):
    """The standard normal CDF."""
    x, = promote_inexact(x)
    return 0.5 * lax.erfc(-x / _SQRT2)


def _log_ndtr_bounds(dtype):
    # Below `lower` ndtr nears underflow, so use the asymptotic series; above 0 the log is
    # log1p(-ndtr(-x)), which keeps the digits log(ndtr(x)) would lose near 1.
    return (-20.0, 0.0) if np.dtype(dtype) == np.float64 else (-10.0, 0.0)


def log_ndtr(x):
    """``log(ndtr(x))``, accurate for large negative and large positive ``x``."""
    x, = promote_inexact(x)
    lower, upper = _log_ndtr_bounds(x.dtype)
    # each branch sees only inputs in its own range (where, not clip: clip would split the
    # derivative at the boundary between the branches)
    in_hi, in_lo = x > upper, x < lower
    mid = jnp.where(in_hi | in_lo, -1.0, x)
    mid_val = jnp.log(ndtr(mid))
    hi = jnp.where(in_hi, x, 1.0)
    hi_val = jnp.log1p(-ndtr(-hi))
    lo = jnp.where(in_lo, x, 2.0 * lower)
    # log ndtr(x) = -x^2/2 - log(-x) - log(sqrt(2 pi)) + log(1 + sum_n (-1)^n (2n-1)!! / x^2n)
    inv_x2 = 1.0 / (lo * lo)
    series = jnp.zeros_like(lo)
    for n in range(12, 0, -1):
        series = -(2 * n - 1) * inv_x2 * (1.0 + series)
    lo_val = -0.5 * lo * lo - jnp.log(-lo) - _LOG_SQRT_2PI + jnp.log1p(series)
    return jnp.where(in_hi, hi_val, jnp.where(in_lo, lo_val, mid_val))


def _normal_log_density(x):
    return -0.5 * x * x - _LOG_SQRT_2PI


def ndtri(p):
    """The inverse of ``ndtr``: the standard normal quantile of ``p``."""
    p, = promote_inexact(p)
    upper_half = p > 0.5
    q = jnp.where(upper_half, 1.0 - p, p)
    q = jnp.where((q > 0) & (q <= 0.5), q, 0.25)  # safe input where the result is fixed below
    log_q = jnp.log(q)

    def newton(x):  # one Newton step on log_ndtr(x) = log(q)
        lx = log_ndtr(x)
        return x - (lx - log_q) * jnp.exp(lx - _normal_log_density(x))

    # Starting point: erf_inv in the body, Abramowitz & Stegun 26.2.23 in the tail.
    qs = lax.stop_gradient(q)
    central = _SQRT2 * lax.erf_inv(2.0 * qs - 1.0)
    t = jnp.sqrt(-2.0 * jnp.log(qs))
    tail = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
             / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    x = jnp.where(qs < 1e-3, tail, central)
    for _ in range(3):
        x = lax.stop_gradient(newton(x))
    # Two more steps left differentiable: starting from a root, k Newton steps carry the
    # inverse function's derivatives correctly up to order k (implicit differentiation).
    x = newton(newton(x))
    x = jnp.where(upper_half, -x, x)
    x = jnp.where(p == 0, -jnp.inf, jnp.where(p == 1, jnp.inf, x))
    return jnp.where((p < 0) | (p > 1) | jnp.isnan(p), jnp.nan, x)


# ---------------------------------------------------------------- modified Bessel functions

# Below _BESSEL_SWITCH the power series (all terms positive) is summed in nested form,
# which neither underflows nor overflows; above it the asymptotic expansion
# I_v(x) e^-x sqrt(2 pi x) = 1 - (4v^2 - 1)/(8x) + ... converges to full precision.
_BESSEL_SWITCH = 30.0
_SERIES_TERMS = 64
_ASYMPTOTIC_TERMS = 30


def _bessel_series(x, order):
    """sum_k (x^2/4)^k / (k! (k+order)!) times (x/2)^order, for order 0 or 1."""
    y = 0.25 * x * x
    s = jnp.ones_like(x)
    for k in range(_SERIES_TERMS, 0, -1):
        s = 1.0 + y / (k * (k + order)) * s
    return s if order == 0 else 0.5 * x * s


def _bessel_asymptotic(ax, order):
    """I_order(ax) * exp(-ax) for ax >= _BESSEL_SWITCH."""
    inv = 1.0 / ax
    s = jnp.ones_like(ax)
    for k in range(_ASYMPTOTIC_TERMS, 0, -1):
        s = 1.0 + ((2 * k - 1) ** 2 - 4 * order * order) / (8.0 * k) * inv * s
    return s / jnp.sqrt(2.0 * math.pi * ax)


def _bessel(x, order, scaled):
    x, = promote_inexact(x)
    ax = jnp.abs(x)
    small = ax < _BESSEL_SWITCH
    xs = jnp.where(small, x, 0.0)
    series = _bessel_series(xs, order)
    if scaled:
        series = series * jnp.exp(-jnp.abs(xs))
    big = jnp.where(small, _BESSEL_SWITCH, ax)
    asym = _bessel_asymptotic(big, order)
    if not scaled:
        asym = jnp.where(jnp.isinf(big), jnp.inf, asym * jnp.exp(big))
    if order == 1:
        asym = jnp.where(x < 0, -asym, asym)
    out = jnp.where(small, series, asym)
    return jnp.where(jnp.isnan(x), x, out)


def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return _bessel(x, 0, scaled=False)


def i0e(x):
    """``i0(x) * exp(-abs(x))``."""
    return _bessel(x, 0, scaled=True)


def i1(x):
    """The modified Bessel function of the first kind, order 1."""
    return _bessel(x, 1, scaled=False)


def i1e(x):
    """``i1(x) * exp(-abs(x))``."""
    return _bessel(x, 1, scaled=True)
