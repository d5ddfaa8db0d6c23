"""``minijax.scipy.special``: SciPy's special functions, differentiable and jit-able.

Every function is written with ``minijax.numpy``/``lax`` operations, so ``grad``, ``jit``
and ``vmap`` apply. Branches are selected with ``where`` on inputs made safe for each
branch, so the derivative of the branch not taken is never NaN.
"""

import math
from fractions import Fraction

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import Tracer
from ..custom_derivatives import custom_jvp
from . import _faddeeva
from ._bessel import iv, ive, j0, j1, jn, jv, y0, y1, yn, yv
from ._hypergeometric import hyp1f1, hyp2f1
from ._util import check_real, promote_inexact, without_float_warnings

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "dawsn", "digamma",
           "entr", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "exp1", "expi", "expn", "expit", "factorial", "gamma", "gammainc",
           "gammaincc", "gammaln", "gammasgn", "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e", "iv", "ive", "j0", "j1",
           "jn", "jv", "kl_div", "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp",
           "multigammaln", "ndtr", "ndtri", "owens_t", "poch", "polygamma", "psi", "rel_entr", "rgamma",
           "softmax", "sph_harm_y", "spence", "wofz", "xlog1py", "xlogy", "y0", "y1", "yn", "yv", "zeta"]

_SQRT2 = math.sqrt(2.0)
_EULER = 0.5772156649015329
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
    # Where x == 0 the result is 0 even if log(y) is infinite or NaN (y below the pole; a
    # NaN y stays NaN); elsewhere x * log(y), which keeps d/dx = log(y) at x == 0 for
    # finite log(y).
    degenerate = (x == 0) & ((y <= pole) | jnp.isinf(y))
    safe_y = jnp.where(degenerate, pole + 1.0, y)
    return jnp.where(degenerate, 0.0, x * log_fn(safe_y))


def xlogy(x, y):
    """``x * log(y)``, with 0 where ``x == 0`` (and ``y`` is not NaN)."""
    return _xlog_fn(x, y, jnp.log, 0.0)


def xlog1py(x, y):
    """``x * log1p(y)``, with 0 where ``x == 0`` (and ``y`` is not NaN)."""
    return _xlog_fn(x, y, jnp.log1p, -1.0)


def boxcox(x, lmbda):
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` at ``lmbda == 0``)."""
    x, lmbda = jnp.broadcast_arrays(*promote_inexact(x, lmbda))
    return _boxcox_of_log(jnp.log(x), lmbda)


def boxcox1p(x, lmbda):
    """``boxcox(1 + x, lmbda)``, accurate for small ``x``."""
    x, lmbda = jnp.broadcast_arrays(*promote_inexact(x, lmbda))
    return _boxcox_of_log(jnp.log1p(x), lmbda)


def _boxcox_of_log(log_x, lmbda):
    zero = jnp.abs(lmbda) < 1e-19   # (SciPy's cut: the logarithm below it)
    safe = jnp.where(zero, 1.0, lmbda)
    return jnp.where(zero, log_x, jnp.expm1(safe * log_x) / safe)


def rel_entr(x, y):
    """``x log(x / y)`` for positive ``x, y``; 0 at ``x == 0, y >= 0``; ``inf`` otherwise."""
    x, y = jnp.broadcast_arrays(*promote_inexact(x, y))
    both = (x > 0) & (y > 0)
    sx, sy = jnp.where(both, x, 1.0), jnp.where(both, y, 1.0)
    out = jnp.where(both, sx * jnp.log(sx / sy),
                    jnp.where((x == 0) & (y >= 0), 0.0, jnp.inf))
    return jnp.where(jnp.isnan(x) | jnp.isnan(y), jnp.nan, out)


def kl_div(x, y):
    """``x log(x / y) - x + y`` for positive ``x, y``; ``y`` at ``x == 0``; ``inf`` otherwise."""
    x, y = jnp.broadcast_arrays(*promote_inexact(x, y))
    both = (x > 0) & (y > 0)
    sx, sy = jnp.where(both, x, 1.0), jnp.where(both, y, 1.0)
    out = jnp.where(both, sx * jnp.log(sx / sy) - sx + sy,
                    jnp.where((x == 0) & (y >= 0), y, jnp.inf))
    return jnp.where(jnp.isnan(x) | jnp.isnan(y), jnp.nan, out)


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


psi = digamma


def _is_pole(x):
    return (x <= 0) & (x == jnp.floor(x))


def gammasgn(x):
    """The sign of the gamma function (NaN at its poles, ``copysign(1, x)`` at zero)."""
    x, = promote_inexact(x)
    negative_odd = (x < 0) & (jnp.remainder(jnp.floor(x), 2.0) == 1.0)
    out = jnp.where(negative_odd, -1.0, 1.0)
    out = jnp.where(x == 0, jnp.copysign(jnp.ones_like(x), x), out)
    return jnp.where((_is_pole(x) & (x != 0)) | jnp.isnan(x) | (x == -jnp.inf), jnp.nan, out)


@custom_jvp
def rgamma(x):
    """``1 / gamma(x)``, an entire function: 0 at the poles of gamma."""
    x, = promote_inexact(x)
    pole = _is_pole(x) | (x == -jnp.inf)
    safe = jnp.where(pole, 1.0, x)
    zero = jnp.where(x == 0, jnp.copysign(jnp.zeros_like(x), x), 0.0)  # 1 / (+-inf)
    return jnp.where(pole, zero, gammasgn(safe) * jnp.exp(-lax.lgamma(safe)))


@rgamma.defjvp
def _rgamma_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    out = rgamma(x)
    # at the poles of gamma differentiate the reflection 1/gamma(x) = gamma(1-x) sin(pi x)/pi
    # ((-1)^n n! at x = -n, and its own derivatives right at every order)
    pole = _is_pole(x)
    px = jnp.where(pole, x, 0.0)
    at_pole = jnp.exp(lax.lgamma(1.0 - px)) * (
        jnp.cos(np.pi * px) - lax.digamma(1.0 - px) * jnp.sin(np.pi * px) / np.pi)
    safe = jnp.where(pole, 1.0, x)
    return out, jnp.where(pole, at_pole, -lax.digamma(safe) * out) * dx


def loggamma(x):
    """``log(gamma(x))`` for real ``x``: NaN for negative ``x``, as SciPy's real loop."""
    x, = promote_inexact(x)
    check_real("loggamma", x)
    out = lax.lgamma(x)
    return jnp.where(x < 0, jnp.nan, out)


def factorial(n, exact=False):
    """``gamma(n + 1)``, 0 for negative ``n`` (``exact=True`` is not supported)."""
    if exact:
        raise NotImplementedError("minijax.scipy.special.factorial: exact=True (Python "
                                  "integers) is not supported; use exact=False")
    n, = promote_inexact(n)
    return jnp.where(n < 0, 0.0, gamma(jnp.where(n < 0, 0.0, n) + 1.0))


def poch(z, m):
    """The rising factorial ``gamma(z + m) / gamma(z)``."""
    z, m = jnp.broadcast_arrays(*promote_inexact(z, m))
    zm = z + m
    top, bottom = _is_pole(zm), _is_pole(z)
    both = top & bottom
    sz = jnp.where(top | bottom, 0.5, z)
    szm = jnp.where(top | bottom, 0.5, zm)
    out = gammasgn(szm) * gammasgn(sz) * jnp.exp(lax.lgamma(szm) - lax.lgamma(sz))
    # both poles: the ratio of residues, (-1)^m (-z)! / (-z-m)!
    a, b = jnp.where(both, -z, 0.0), jnp.where(both, -zm, 0.0)
    ratio = jnp.where(jnp.remainder(m, 2.0) == 0.0, 1.0, -1.0) * jnp.exp(
        lax.lgamma(a + 1.0) - lax.lgamma(b + 1.0))
    out = jnp.where(both, ratio, jnp.where(bottom, 0.0, jnp.where(top, jnp.inf, out)))
    # z -> inf with integer m: z^m
    out = jnp.where((z == jnp.inf) & (m == jnp.round(m)), jnp.where(m > 0, jnp.inf, 0.0), out)
    return jnp.where(m == 0, 1.0, out)


def comb(N, k, *, exact=False, repetition=False):  # noqa: N803  (SciPy's name)
    """The number of combinations of ``N`` things taken ``k`` at a time (0 outside
    ``0 <= k <= N``); with ``repetition``, ``comb(N + k - 1, k)``."""
    if exact:
        raise NotImplementedError("minijax.scipy.special.comb: exact=True (Python "
                                  "integers) is not supported; use exact=False")
    n, k = jnp.broadcast_arrays(*promote_inexact(N, k))
    undefined = None
    if repetition:
        # SciPy: NaN for negative (or NaN) N or k; comb(0, 0) = 1
        undefined = ~((n >= 0) & (k >= 0))
        n = jnp.where(k == 0, jnp.maximum(n + k - 1.0, 0.0), n + k - 1.0)
    valid = (k <= n) & (n >= 0) & (k >= 0)
    sn, sk = jnp.where(valid, n, 1.0), jnp.where(valid, k, 0.0)
    out = jnp.exp(lax.lgamma(sn + 1.0) - lax.lgamma(sk + 1.0) - lax.lgamma(sn - sk + 1.0))
    out = jnp.where(valid, out, 0.0)
    return out if undefined is None else jnp.where(undefined, jnp.nan, out)


def bernoulli(n):
    """The Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``) for a non-negative int ``n``."""
    if isinstance(n, Tracer) or isinstance(n, bool) or not isinstance(n, (int, np.integer)) \
            or n < 0:
        raise TypeError(f"bernoulli: n must be a non-negative Python int, got {n!r}")
    numbers = [Fraction(1)]
    for m in range(1, int(n) + 1):
        # sum_{j<=m} C(m+1, j) B_j = 0
        numbers.append(-sum(math.comb(m + 1, j) * numbers[j] for j in range(m)) / (m + 1))
    return jnp.asarray([float(b) for b in numbers])


def beta(a, b):
    """The beta function ``gamma(a) gamma(b) / gamma(a + b)``."""
    a, b = jnp.broadcast_arrays(*promote_inexact(a, b))
    pole = _is_pole(a) | _is_pole(b)
    sa = jnp.where(pole, 1.0, a)
    sb = jnp.where(pole, 1.0, b)
    ab = sa + sb
    sign = gammasgn(sa) * gammasgn(sb) * jnp.where(_is_pole(ab), 1.0, gammasgn(ab))
    out = sign * jnp.exp(lax.lgamma(sa) + lax.lgamma(sb) - lax.lgamma(ab))
    # one argument and a + b at poles: gamma(other) / poch(pole, other), both finite
    a_pole, b_pole = _is_pole(a), _is_pole(b)
    both = (a_pole ^ b_pole) & _is_pole(a + b)
    other = jnp.where(both, jnp.where(a_pole, b, a), 1.0)
    at_pole = jnp.where(both, jnp.where(a_pole, a, b), 0.0)
    ratio = gamma(other) / poch(at_pole, other)
    out = jnp.where(both, ratio, jnp.where(pole, jnp.inf, out))
    # gamma(inf) / gamma(inf): the limit is 0 for a finite positive other argument
    infinite = ((a == jnp.inf) & (b > 0) & (b < jnp.inf)) | (
        (b == jnp.inf) & (a > 0) & (a < jnp.inf))
    return jnp.where(infinite, 0.0, out)


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

def erf(z):
    """The error function (real or complex ``z``)."""
    z, = promote_inexact(z)
    return _faddeeva.erf_complex(z) if jnp.iscomplexobj(z) else lax.erf(z)


def erfc(x):
    """``1 - erf(x)``, accurate where it is small (real or complex ``x``)."""
    x, = promote_inexact(x)
    return _faddeeva.erfc_complex(x) if jnp.iscomplexobj(x) else lax.erfc(x)


def wofz(z):
    """The Faddeeva function ``exp(-z**2) erfc(-1j z)`` (complex output)."""
    z, = promote_inexact(z)
    if not jnp.iscomplexobj(z):
        z = z.astype(np.result_type(z.dtype, np.complex64))
    # at infinity (SciPy's values): 0 along the real axis and in the upper half plane,
    # inf down the imaginary axis, NaN in the other directions of the lower half plane
    re, im = jnp.real(z), jnp.imag(z)
    far = jnp.isinf(re) | jnp.isinf(im)
    vanishes = (jnp.isinf(re) & jnp.isfinite(im)) | (im == jnp.inf) & ~jnp.isnan(re)
    limit = jnp.where(vanishes, 0j, jnp.where((im == -jnp.inf) & (re == 0), complex(jnp.inf, 0),
                                              complex(jnp.nan, jnp.nan))).astype(z.dtype)
    w = _faddeeva.wofz(jnp.where(far, jnp.zeros_like(z), z))
    return jnp.where(far, limit, w)


def erfcx(x):
    """The scaled complementary error function ``exp(x**2) erfc(x)`` (real ``x``)."""
    x, = promote_inexact(x)
    check_real("erfcx", x, hint="use wofz(1j * z)")
    ax = jnp.abs(x)
    # erfcx(|x|) = w(i|x|) (real); erfcx(-x) = 2 exp(x^2) - erfcx(x)
    right = jnp.real(wofz(lax.complex(jnp.zeros_like(ax), jnp.where(jnp.isinf(ax), 0.0, ax))))
    right = jnp.where(jnp.isinf(ax), 0.0, right)
    return jnp.where(x < 0, 2.0 * jnp.exp(x * x) - right, right)


def dawsn(x):
    """Dawson's integral ``exp(-x**2) * integral_0^x exp(t**2) dt`` (real ``x``)."""
    x, = promote_inexact(x)
    check_real("dawsn", x)
    # dawsn(x) = sqrt(pi)/2 Im w(x) for real x; below 1 the Taylor series
    # sum_n (-2)^n x^(2n+1) / (2n+1)!!, which keeps the relative precision of tiny x
    small = jnp.abs(x) < 1.0
    finite = jnp.where(jnp.isinf(x) | small, 2.0, x)
    out = 0.5 * math.sqrt(math.pi) * jnp.imag(wofz(lax.complex(finite, jnp.zeros_like(x))))
    xs = jnp.where(small, x, 0.0)
    term, series = xs, xs
    for n in range(1, 26):
        term = term * (-2.0 * xs * xs) / (2 * n + 1)
        series = series + term
    out = jnp.where(small, series, out)
    return jnp.where(jnp.isinf(x), jnp.copysign(jnp.zeros_like(x), x),
                     jnp.where(x == 0, x, out))


def erfinv(x):
    """The inverse of ``erf`` on ``[-1, 1]``."""
    x, = promote_inexact(x)
    return lax.erf_inv(x)


def erfcinv(y):
    """The inverse of ``erfc`` on ``[0, 2]``, accurate for small ``y``."""
    y, = promote_inexact(y)
    return -ndtri(0.5 * y) / _SQRT2


# ---------------------------------------------------------------- exponential integrals

_EXP_INT_CF_TERMS = 80
_EXPI_SERIES_TERMS = 160
_EXPI_SWITCH = 40.0


def _expn_cf(n, x):
    """E_n(x) e^x by the even continued fraction
    1 / (x + n - 1 n / (x + n + 2 - 2 (n + 1) / (x + n + 4 - ...))), for x > 1."""
    def body(i, tail):
        k = lax.convert_element_type(_EXP_INT_CF_TERMS - i, x.dtype)
        return k * (n + k - 1.0) / (x + n + 2.0 * k - tail)

    tail = lax.fori_loop(0, _EXP_INT_CF_TERMS, body, jnp.zeros_like(x))
    return 1.0 / (x + n - tail)


def _expn_series(n, x):
    """E_n(x) for 0 < x <= 1 and integer n >= 1: the power series with its log term
    (-x)^(n-1) / (n-1)! (psi(n) - log x) and sum_{k != n-1} -(-x)^k / ((k - n + 1) k!)."""
    def body(k, carry):
        term, total = carry  # term = (-x)^k / k!
        kf = lax.convert_element_type(k, x.dtype)
        contrib = jnp.where(kf == n - 1.0, 0.0, -term / jnp.where(kf == n - 1.0, 1.0,
                                                                   kf - n + 1.0))
        return -term * x / (kf + 1.0), total + contrib

    _, total = lax.fori_loop(0, 40, body, (jnp.ones_like(x), jnp.zeros_like(x)))
    log_part = (-x) ** (n - 1.0) * jnp.exp(-lax.lgamma(n)) * (lax.digamma(n) - jnp.log(x))
    return total + log_part


def expn(n, x):
    """The generalized exponential integral ``E_n(x) = int_1^inf exp(-x t) / t^n dt``
    for integer ``n >= 0`` (NaN for negative or non-integer ``n`` and negative ``x``)."""
    n, x = jnp.broadcast_arrays(*promote_inexact(n, x))
    good_n = (n >= 0) & (n == jnp.floor(n))
    small = (x <= 1.0) & (x > 0)
    nn = jnp.where(good_n, jnp.maximum(n, 1.0), 1.0)
    xs = jnp.where(small, x, 0.5)
    xl = jnp.where(small | ~(x > 0), 2.0, x)
    large = jnp.exp(-xl) * _expn_cf(nn, jnp.where(jnp.isinf(xl), 2.0, xl))
    large = jnp.where(jnp.isinf(xl), 0.0, large)
    out = jnp.where(small, _expn_series(nn, xs), large)
    # E_0(x) = exp(-x) / x
    x0 = jnp.where(x > 0, x, 1.0)
    out = jnp.where(n == 0, jnp.exp(-x0) / x0, out)
    at_zero = jnp.where(n <= 1, jnp.inf, 1.0 / jnp.where(n <= 1, 1.0, n - 1.0))
    out = jnp.where(x == 0, at_zero, out)
    return jnp.where(~good_n | (x < 0) | jnp.isnan(x) | jnp.isnan(n), jnp.nan, out)


def exp1(x):
    """The exponential integral ``E_1(x) = int_x^inf exp(-t) / t dt`` (NaN for x < 0)."""
    x, = promote_inexact(x)
    return expn(1.0, x)


def expi(x):
    """The exponential integral ``Ei(x)`` (``-E_1(-x)`` for negative ``x``)."""
    x, = promote_inexact(x)
    positive = x > 0
    mid = positive & (x <= _EXPI_SWITCH)
    xm = jnp.where(mid, x, 1.0)

    # gamma + log x + sum_k x^k / (k k!)
    def body(k, carry):
        term, total = carry
        kf = lax.convert_element_type(k, x.dtype)
        term = term * xm / kf
        return term, total + term / kf

    _, series = lax.fori_loop(1, _EXPI_SERIES_TERMS, body, (jnp.ones_like(xm),
                                                            jnp.zeros_like(xm)))
    series = _EULER + jnp.log(xm) + series
    # e^x / x sum_k k! / x^k beyond the switch
    xl = jnp.where(positive & ~mid, x, 2.0 * _EXPI_SWITCH)
    asym = jnp.ones_like(xl)
    term = jnp.ones_like(xl)
    for k in range(1, 41):
        term = term * k / xl
        asym = asym + term
    asym = jnp.where(jnp.isinf(xl), jnp.inf, jnp.exp(xl) / xl * asym)
    negative = -exp1(jnp.where(positive, 1.0, -x))
    out = jnp.where(mid, series, jnp.where(positive, asym, negative))
    return jnp.where(x == 0, -jnp.inf, out)


def sici(x):
    """The sine and cosine integrals ``(Si(x), Ci(x))``; ``Ci`` of negative ``x`` is
    ``Ci(|x|)`` (the real part), as SciPy."""
    x, = promote_inexact(x)
    check_real("sici", x)
    ax = jnp.abs(x)
    small = ax <= 4.0
    xs = jnp.where(small, ax, 1.0)

    # Si = sum (-1)^k x^(2k+1) / ((2k+1) (2k+1)!), Ci = gamma + log x + sum_{k>=1}
    # (-1)^k x^(2k) / (2k (2k)!)
    def body(i, carry):
        even, odd, si, ci = carry  # (-1)^k x^(2k) / (2k)!, (-1)^k x^(2k+1) / (2k+1)!
        k = lax.convert_element_type(i, x.dtype)
        even = -odd * xs / (2.0 * k)
        odd = even * xs / (2.0 * k + 1.0)
        return even, odd, si + odd / (2.0 * k + 1.0), ci + even / (2.0 * k)

    _, _, si_s, ci_s = lax.fori_loop(1, 30, body, (jnp.ones_like(xs), xs, xs,
                                                    jnp.zeros_like(xs)))
    ci_s = _EULER + jnp.log(xs) + ci_s
    # E1(ix) = -Ci(x) + i (Si(x) - pi/2), E1 by its continued fraction
    xl = jnp.where(small | jnp.isinf(ax), 5.0, ax)
    z = lax.complex(jnp.zeros_like(xl), xl)
    e1 = lax.complex(jnp.cos(xl), -jnp.sin(xl)) * _expn_cf(jnp.ones_like(z), z)
    si_l, ci_l = jnp.imag(e1) + 0.5 * math.pi, -jnp.real(e1)
    si_l = jnp.where(jnp.isinf(ax), 0.5 * math.pi, si_l)
    ci_l = jnp.where(ax == jnp.inf, jnp.where(x > 0, 0.0, jnp.nan), ci_l)
    si = jnp.where(small, si_s, si_l)
    ci = jnp.where(small, ci_s, ci_l)
    si = jnp.where(x < 0, -si, si)
    ci = jnp.where(ax == 0, -jnp.inf, ci)
    return si, ci


def fresnel(z):
    """The Fresnel integrals ``(S(z), C(z))`` of ``sin`` and ``cos(pi t**2 / 2)``."""
    z, = promote_inexact(z)
    check_real("fresnel", z)
    az = jnp.abs(z)
    small = az <= 1.5
    zs = jnp.where(small, az, 1.0)
    half_pi = 0.5 * math.pi

    # S = sum (-1)^k (pi/2)^(2k+1) z^(4k+3) / ((2k+1)! (4k+3)),
    # C = sum (-1)^k (pi/2)^(2k) z^(4k+1) / ((2k)! (4k+1))
    def body(i, carry):
        c_term, s_term, c_sum, s_sum = carry  # (pi/2 z^2)^(2k) / (2k)! z, next odd power
        k = lax.convert_element_type(i, z.dtype)
        w = half_pi * zs * zs
        c_term = -s_term * w / (2.0 * k)
        s_term = c_term * w / (2.0 * k + 1.0)
        return (c_term, s_term, c_sum + c_term / (4.0 * k + 1.0),
                s_sum + s_term / (4.0 * k + 3.0))

    c0 = zs
    s0 = zs * half_pi * zs * zs
    _, _, c_s, s_s = lax.fori_loop(1, 30, body, (c0, s0, c0, s0 / 3.0))
    # C + iS = (1 + i)/2 erf(sqrt(pi)/2 (1 - i) z)
    zl = jnp.where(small | jnp.isinf(az), 2.0, az)
    scale = 0.5 * math.sqrt(math.pi)
    w = lax.complex(scale * zl, -scale * zl)
    e = _faddeeva.erf_complex(w)
    c_l = 0.5 * (jnp.real(e) - jnp.imag(e))
    s_l = 0.5 * (jnp.real(e) + jnp.imag(e))
    c_l = jnp.where(jnp.isinf(az), 0.5, c_l)
    s_l = jnp.where(jnp.isinf(az), 0.5, s_l)
    s_out = jnp.where(small, s_s, s_l)
    c_out = jnp.where(small, c_s, c_l)
    neg = z < 0
    return jnp.where(neg, -s_out, s_out), jnp.where(neg, -c_out, c_out)


def _dilog_small(y):
    """Li2(y) = sum_k y^k / k^2 for |y| <= 1/2."""
    def body(i, carry):
        power, total = carry
        k = lax.convert_element_type(i, y.dtype)
        power = power * y
        return power, total + power / (k * k)

    return lax.fori_loop(1, 56, body, (jnp.ones_like(y), jnp.zeros_like(y)))[1]


def _dilog_unit(y):
    """Li2(y) for 0 <= y <= 1: the series, or Euler's reflection above 1/2."""
    low = y <= 0.5
    yl = jnp.where(low, y, 0.0)
    yh = jnp.where(low, 0.75, y)
    one_minus = 1.0 - yh
    reflected = (math.pi ** 2 / 6) - jnp.log(yh) * jnp.where(
        one_minus == 0, 0.0, jnp.log(jnp.where(one_minus == 0, 1.0, one_minus))) \
        - _dilog_small(one_minus)
    return jnp.where(low, _dilog_small(yl), reflected)


def spence(z):
    """Spence's function ``int_1^z log(t) / (1 - t) dt = Li2(1 - z)`` for real ``z >= 0``
    (NaN below 0 and, as in SciPy, at ``inf``)."""
    z, = promote_inexact(z)
    check_real("spence", z)
    y = 1.0 - z
    # y in [0, 1]: direct; y < 0 (z > 1): Landen's Li2(y) = -Li2(y / (y - 1)) - log(1-y)^2/2
    inside = y >= 0
    yi = jnp.where(inside, y, 0.0)
    zo = jnp.where(inside | jnp.isinf(z), 2.0, z)  # 1 - y
    landen = -_dilog_unit((zo - 1.0) / zo) - 0.5 * jnp.log(zo) ** 2
    out = jnp.where(inside, _dilog_unit(yi), landen)
    return jnp.where((z < 0) | jnp.isnan(z) | (z == jnp.inf), jnp.nan, out)  # as SciPy


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
    # the middle and upper branches share one erfc (a large lowering): ndtr(x) in the
    # middle, ndtr(-x) above
    mid = jnp.where(in_lo, -1.0, x)
    tail = 0.5 * lax.erfc(jnp.where(in_hi, mid, -mid) / _SQRT2)
    mid_val = jnp.log(jnp.where(in_hi, 1.0, tail))  # (tail may be 0 above)
    hi_val = jnp.log1p(-tail)
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


# ---------------------------------------------------------------- Bessel functions

def bessel_jn(z, *, v, n_iter=50):
    """Bessel functions of the first kind of orders ``0..v``, stacked on a new first axis
    (JAX's ``jax.scipy.special.bessel_jn``). ``n_iter`` is accepted for JAX compatibility
    and must be a positive int; minijax's recurrence sets its own length."""
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0:
        raise TypeError(f"bessel_jn: v must be a non-negative Python int, got {v!r}")
    if not isinstance(n_iter, (int, np.integer)) or n_iter < 1:
        raise TypeError(f"bessel_jn: n_iter must be a positive int, got {n_iter!r}")
    z, = promote_inexact(z)
    orders = np.arange(int(v) + 1).reshape((-1,) + (1,) * z.ndim)
    return jn(orders, z[None])


# ---------------------------------------------------------------- modified Bessel functions

def _real_operand(name, x):
    x, = promote_inexact(x)
    if jnp.iscomplexobj(x):
        raise TypeError(f"{name} is not supported for complex values (as in SciPy)")
    return x


def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return lax.bessel_i0(_real_operand("i0", x))


def i0e(x):
    """``i0(x) * exp(-abs(x))``."""
    return lax.bessel_i0e(_real_operand("i0e", x))


def i1(x):
    """The modified Bessel function of the first kind, order 1."""
    return lax.bessel_i1(_real_operand("i1", x))


def i1e(x):
    """``i1(x) * exp(-abs(x))``."""
    return lax.bessel_i1e(_real_operand("i1e", x))


# ---------------------------------------------------------------- Owen's T

# Gauss-Legendre rule on [0, 1] for T(h, a) = e^{-h^2/2}/(2 pi) int_0^a e^{-h^2 x^2/2}/(1+x^2) dx
# with 0 <= a <= 1. The integrand is cut at x = _OWENS_CUT / h (the Gaussian factor is below
# 1e-21 there), so it has at most ~_OWENS_CUT standard deviations of the Gaussian on the
# interval; 30 nodes resolve that (and the poles at +-i) to below 1e-16 relative.
_OWENS_CUT = 10.0
_OWENS_NODES, _OWENS_WEIGHTS = np.polynomial.legendre.leggauss(30)
_OWENS_NODES, _OWENS_WEIGHTS = 0.5 * (_OWENS_NODES + 1.0), 0.5 * _OWENS_WEIGHTS


def _owens_t_small_a(h, a):
    """T(h, a) for h >= 0 and 0 <= a <= 1 (finite)."""
    upper = jnp.minimum(a, _OWENS_CUT / jnp.maximum(h, 1.0))
    x = upper[..., None] * jnp.asarray(_OWENS_NODES, h.dtype)
    half_h2 = 0.5 * h * h
    integrand = jnp.exp(-half_h2[..., None] * (1.0 + x * x)) / (1.0 + x * x)
    total = jnp.sum(integrand * jnp.asarray(_OWENS_WEIGHTS, h.dtype), axis=-1)
    return upper * total / (2.0 * np.pi)


@custom_jvp
def _owens_t(h, a):
    h_abs, a_abs = jnp.abs(h), jnp.abs(a)
    small = a_abs <= 1.0
    finite_h = jnp.isfinite(h_abs)
    hs = jnp.where(finite_h, h_abs, 0.0)
    # a <= 1: the quadrature directly
    direct = _owens_t_small_a(hs, jnp.where(small, a_abs, 0.0))
    # a > 1: T(h, a) = (Q(h) + Q(ah))/2 - Q(h) Q(ah) - T(ah, 1/a) with Q(x) = ndtr(-x), which
    # has no cancellation for large h (every term is a tail probability)
    big_a = jnp.where(small | jnp.isnan(a_abs), 2.0, a_abs)
    ah = jnp.where(hs == 0, 0.0, big_a * jnp.where(hs == 0, 1.0, hs))  # 0 * inf stays 0
    ah_finite = jnp.isfinite(ah)
    q1, q2 = ndtr(-hs), ndtr(-ah)
    inv_a = 1.0 / big_a
    reflected = _owens_t_small_a(jnp.where(ah_finite, ah, 0.0), inv_a)
    reflected = jnp.where(ah_finite, reflected, 0.0)
    outer = 0.5 * (q1 + q2) - q1 * q2 - reflected
    out = jnp.where(small, direct, outer)
    out = jnp.where(finite_h, out, 0.0)
    out = jnp.where(jnp.signbit(a), -out, out)
    return jnp.where(jnp.isnan(h) | jnp.isnan(a), jnp.nan, out)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    out = _owens_t(h, a)
    # ah = 0 where h = 0 (also for infinite a): erf(0) = 0 there
    ah = jnp.where(h == 0, 0.0, a * h)
    d_h = -0.5 * jnp.exp(_normal_log_density(h)) * lax.erf(ah / _SQRT2)
    one_a2 = 1.0 + a * a
    d_a = jnp.where(jnp.isinf(a), 0.0,
                    jnp.exp(-0.5 * h * h * one_a2) / (2.0 * np.pi * jnp.where(jnp.isinf(a), 1.0,
                                                                             one_a2)))
    return out, d_h * dh + d_a * da


def owens_t(h, a):
    """Owen's T function ``T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1+x^2)/2) / (1+x^2) dx``."""
    h, a = jnp.broadcast_arrays(*promote_inexact(h, a))
    if jnp.iscomplexobj(h):
        raise TypeError("minijax.scipy.special.owens_t: h and a must be real, got complex")
    return _owens_t(h, a)


# ---------------------------------------------------------------- spherical harmonics

def _static_n_max(n, n_max):
    if n_max is None:
        if isinstance(n, Tracer):
            raise TypeError("minijax.scipy.special.sph_harm_y: n is traced, so its largest "
                            "value is unknown; pass n_max=<int> (it sets the length of the "
                            "recurrence) when calling under jit/vmap")
        arr = np.asarray(n)
        return int(arr.max()) if arr.size else 0
    if isinstance(n_max, Tracer) or isinstance(n_max, bool) or not isinstance(
            n_max, (int, np.integer)):
        raise TypeError("minijax.scipy.special.sph_harm_y: n_max must be a Python int (the "
                        f"largest degree, fixed when tracing), got {n_max!r}")
    return int(n_max)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic ``Y_n^m(theta, phi)`` as ``scipy.special.sph_harm_y``: degree
    ``n``, order ``m``, polar angle ``theta``, azimuth ``phi``, Condon-Shortley phase.

    ``n_max`` (JAX's extra argument) is the largest degree; it must be static and is taken
    from ``n`` when not given. Degrees above ``n_max`` are clipped to it, as in JAX. Like
    JAX, ``diff_n`` is not supported.
    """
    if diff_n is not None:
        raise NotImplementedError("minijax.scipy.special.sph_harm_y: the diff_n argument is "
                                  "not supported (as in JAX); differentiate with grad/jvp")
    for name, v in (("n", n), ("m", m)):
        if not jnp.issubdtype(jnp.result_type(v), jnp.integer):
            raise TypeError(f"minijax.scipy.special.sph_harm_y: {name} must be an integer "
                            f"array, got dtype {jnp.result_type(v)}")
    top = _static_n_max(n, n_max)
    theta, phi = promote_inexact(theta, phi)
    if jnp.iscomplexobj(theta):
        raise TypeError("minijax.scipy.special.sph_harm_y: theta and phi must be real")
    n, m, theta, phi = jnp.broadcast_arrays(jnp.asarray(n), jnp.asarray(m), theta, phi)
    n = jnp.minimum(n, top)
    order = jnp.abs(m)
    dtype = theta.dtype
    s, c = jnp.sin(theta), jnp.cos(theta)

    # Orthonormal P_k^k(cos theta) sqrt((2k+1)/(4 pi) (0)!/(2k)!) up to k = |m|:
    # P_k^k = -sqrt((2k+1) / (2k)) sin(theta) P_{k-1}^{k-1}.
    def diagonal(k, p):
        kf = k.astype(dtype)
        step = -jnp.sqrt((2.0 * kf + 1.0) / (2.0 * kf)) * s
        return jnp.where(k <= order, p * step, p)

    p_mm = lax.fori_loop(1, top + 1, diagonal, jnp.full(theta.shape, 0.5 / math.sqrt(math.pi),
                                                         dtype))

    # Up the degree at fixed order: P_l = a_l (cos P_{l-1} - b_l P_{l-2}) for l = |m|+1 .. n,
    # with a_l = sqrt((4l^2 - 1) / (l^2 - m^2)), b_l = sqrt(((l-1)^2 - m^2) / (4(l-1)^2 - 1)).
    def degree(j, carry):
        prev, cur = carry
        l_deg = (order + j).astype(dtype)
        mf = order.astype(dtype)
        lm1 = l_deg - 1.0
        a_l = jnp.sqrt((4.0 * l_deg * l_deg - 1.0) / (l_deg * l_deg - mf * mf))
        b_l = jnp.sqrt((lm1 * lm1 - mf * mf) / (4.0 * lm1 * lm1 - 1.0))
        nxt = a_l * (c * cur - b_l * prev)
        live = order + j <= n
        return jnp.where(live, cur, prev), jnp.where(live, nxt, cur)

    _, p_nm = lax.fori_loop(1, top + 1, degree, (jnp.zeros_like(p_mm), p_mm))
    # sin(theta) < 0 (theta outside [0, pi]): SciPy uses sqrt(1 - cos^2), i.e. |sin|
    flip = (s < 0) & (order % 2 == 1)
    # Y_n^{-m} = (-1)^m conj(Y_n^m)
    flip = flip ^ ((m < 0) & (order % 2 == 1))
    p_nm = jnp.where(flip, -p_nm, p_nm)
    p_nm = jnp.where((order > n) | (n < 0), 0.0, p_nm)
    angle = m.astype(dtype) * phi
    return lax.complex(p_nm * jnp.cos(angle), p_nm * jnp.sin(angle))


without_float_warnings(globals(), __all__)


from ..util import name_functions_where_public as _name_functions_where_public  # noqa: E402

_name_functions_where_public(globals())   # (pickle finds each function by its name here)
