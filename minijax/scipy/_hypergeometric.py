"""The confluent (1F1) and Gauss (2F1) hypergeometric functions for real arguments.

Both are summed from their power series, moved by exact transformations to where the series'
terms are (almost all) of one sign and decay fast:

- 1F1: Kummer's ``1F1(a; b; x) = e^x 1F1(b - a; b; -x)`` for ``x < 0``, the large-argument
  expansion for ``x`` below about ``-log(finfo.max)``.
- 2F1: Pfaff's ``(1 - x)^-a 2F1(a, c - b; c; x / (x - 1))`` for ``x < 0``, Euler's
  ``(1 - x)^(c - a - b) 2F1(c - a, c - b; c; x)`` when ``c - a - b < 0``, and the connection
  formula in ``1 - z`` (A&S 15.3.6) for ``z > _GAUSS_NEAR_ONE``, or its logarithmic limit
  (DLMF 15.8.10) when ``c - a - b`` is an integer. Polynomials (a non-positive integer
  ``a`` or ``b``) are summed as they are, as SciPy does.

Derivatives in ``x`` come from ``custom_jvp`` with the contiguous-parameter identities; those
in the parameters from forward mode through the same summation, evaluated as primal values.
"""

from functools import partial

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..api import jvp
from ..config import config
from ..custom_derivatives import SymbolicZero, custom_jvp
from ._util import check_real, promote_inexact

_MAX_TERMS = 4000
_GAUSS_NEAR_ONE = 0.9
_INTEGER_EXCESS = 1e-9       # |c - a - b - round| below this takes the integer formula


def _series(nums, dens, x):
    """``sum_k prod (n)_k / prod (d)_k x^k / k!`` until the terms are below ``eps`` of the sum."""
    eps = float(np.finfo(x.dtype).eps)

    def live(s, t):
        return jnp.abs(t) > eps * jnp.abs(s)

    def cond(carry):
        k, s, t = carry
        return (k < _MAX_TERMS) & jnp.any(live(s, t))

    def body(carry):
        k, s, t = carry
        kf = lax.convert_element_type(k, x.dtype)
        ratio = x / (kf + 1.0)
        for n in nums:
            ratio = ratio * (n + kf)
        for d in dens:
            ratio = ratio / (d + kf)
        t = jnp.where(live(s, t), t * ratio, 0.0)
        return k + 1, s + t, t

    one = jnp.ones_like(x)
    return lax.while_loop(cond, body, (0, one, one))[1]


def _is_nonpositive_integer(v):
    return (v <= 0) & (v == jnp.floor(v))


def _gamma(v):
    """gamma(v) with its sign, for the real line off the poles."""
    negative_odd = (v < 0) & (jnp.remainder(jnp.floor(v), 2.0) == 1.0)
    return jnp.where(negative_odd, -1.0, 1.0) * jnp.exp(lax.lgamma(v))


def _rgamma(v):
    """1 / gamma(v), 0 at the poles."""
    pole = _is_nonpositive_integer(v)
    safe = jnp.where(pole, 0.5, v)
    return jnp.where(pole, 0.0, 1.0 / _gamma(safe))


# ----------------------------------------------------------------------------- 1F1

def _hyp1f1_value(a, b, x):
    # a pole in b is inf unless a terminates the series first
    b_pole = _is_nonpositive_integer(b) & ~(_is_nonpositive_integer(a) & (a > b))
    b = jnp.where(b_pole, 1.0, b)   # keeps the masked-off series finite
    # a polynomial (a a non-positive integer) is summed as it is, as SciPy does even where
    # b is a pole beyond its degree (where Kummer's transformation does not hold)
    poly = _is_nonpositive_integer(a)
    pos = (x >= 0) | poly
    # x >= 0: the direct series; x < 0: Kummer's transformation (terms of one sign after
    # the first ~(a - b) of them).
    a1 = jnp.where(pos, a, b - a)
    xs = jnp.abs(x)
    # beyond this e^|x| would overflow the Kummer-transformed sum (650 in float64, 79 in float32)
    kummer_max = 0.92 * float(np.log(np.finfo(x.dtype).max))
    near = jnp.where(xs <= kummer_max, xs, 0.0)
    s = _series([a1], [b], jnp.where(poly, x, near))
    out = jnp.where(pos, s, jnp.exp(-near) * s)
    # x -> -inf: Gamma(b)/Gamma(b-a) (-x)^-a sum_k (a)_k (a-b+1)_k / k! (-x)^-k (DLMF 13.7.2), the
    # exponentially small part below float64's range.
    use_far = ~pos & (xs > kummer_max)
    fa, fb = jnp.where(use_far, a, 0.5), jnp.where(use_far, b, 1.5)
    far = jnp.where(use_far, 1.0 / jnp.where(use_far, xs, 1.0), 0.0)
    tail = _asymptotic_sum(fa, fa - fb + 1.0, far)
    asym = _gamma(fb) * _rgamma(fb - fa) * jnp.where(use_far, xs, 1.0) ** (-fa) * tail
    out = jnp.where(use_far, asym, out)
    out = jnp.where(b_pole, jnp.inf, out)
    return jnp.where(jnp.isnan(a) | jnp.isnan(b) | jnp.isnan(x), jnp.nan, out)


def _asymptotic_sum(p, q, w):
    """``sum_k (p)_k (q)_k w^k / k!`` stopped at its smallest term (|w| small)."""
    eps = float(np.finfo(w.dtype).eps)

    def cond(carry):
        k, s, t, _ = carry
        return (k < 200) & jnp.any(jnp.abs(t) > eps * jnp.abs(s))

    def body(carry):
        k, s, t, done = carry
        kf = lax.convert_element_type(k, w.dtype)
        nxt = t * (p + kf) * (q + kf) * w / (kf + 1.0)
        done = done | (jnp.abs(nxt) >= jnp.abs(t)) | (jnp.abs(t) <= eps * jnp.abs(s))
        nxt = jnp.where(done, 0.0, nxt)
        return k + 1, s + nxt, nxt, done

    one = jnp.ones_like(w)
    return lax.while_loop(cond, body, (0, one, one, jnp.zeros(w.shape, bool)))[1]


@partial(custom_jvp, symbolic_zeros=True)
def _hyp1f1(a, b, x):
    return _hyp1f1_value(a, b, x)


@_hyp1f1.defjvp
def _hyp1f1_jvp(primals, tangents):
    (a, b, x), dx = primals, tangents[2]
    out = _hyp1f1(a, b, x)
    tangent = jnp.zeros_like(out)
    if not isinstance(dx, SymbolicZero):
        tangent = tangent + a / b * _hyp1f1(a + 1.0, b + 1.0, x) * dx
    return out, tangent + _parameter_tangent(_hyp1f1_value, primals, tangents, 2)


def _parameter_tangent(value_fn, primals, tangents, n_params):
    """sum_i dF/dp_i * dp_i over the parameters with a tangent.

    Each partial is itself a primal value here: forward mode through the summation (the
    loops stop on the value's convergence, so the differentiated sums converge with it),
    seeded with ones so that the result stays linear in the outer tangents (and so
    transposable for reverse mode, which the loops are not).
    """
    total = 0.0
    for i in range(n_params):
        dp = tangents[i]
        if isinstance(dp, SymbolicZero):
            continue
        seeds = [jnp.zeros_like(p) for p in primals]
        seeds[i] = jnp.ones_like(primals[i])
        _, partial_i = jvp(value_fn, tuple(primals), tuple(seeds))
        total = total + partial_i * dp
    return total


def _working(*args):
    """The arguments in float64 when that is enabled: the sums' cancellation and the
    transformations' exponentials cost float32 several digits and much of its range."""
    if args[0].dtype.itemsize < 8 and config.enable_x64:
        return [v.astype(np.float64) for v in args]
    return args


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function ``1F1(a; b; x)`` for real arguments."""
    a, b, x = promote_inexact(a, b, x)
    check_real("hyp1f1", a, b, x, hint="pass real arrays")
    dtype = x.dtype
    a, b, x = jnp.broadcast_arrays(*_working(a, b, x))
    return _hyp1f1(a, b, x).astype(dtype)


# ----------------------------------------------------------------------------- 2F1

def _gauss_unit(a, b, c, z):
    """2F1(a, b; c; z) for 0 <= z < 1."""
    d = c - a - b
    euler = d < 0
    # Euler's transformation when c - a - b < 0 (the direct series' terms grow like k^-d)
    ea = jnp.where(euler, c - a, a)
    eb = jnp.where(euler, c - b, b)
    m = jnp.round(d)
    gap = jnp.abs(d - m)
    high = z > _GAUSS_NEAR_ONE
    near_one = high & (gap > _INTEGER_EXCESS)
    integer = high & (gap <= _INTEGER_EXCESS)
    zs = jnp.where(high, 0.0, z)
    direct = _series([ea, eb], [c], zs)
    direct = jnp.where(euler, (1.0 - zs) ** d * direct, direct)
    # A&S 15.3.6 in w = 1 - z, the two series at |w| < 0.1
    w = jnp.where(near_one, 1.0 - z, 0.0)
    dd = jnp.where(near_one, d, 0.5)
    first = _series([a, b], [1.0 - dd], w)
    second = _series([c - a, c - b], [1.0 + dd], w)
    gc = _gamma(c)
    conn = (gc * _gamma(dd) * _rgamma(c - a) * _rgamma(c - b) * first
            + jnp.where(near_one, w, 1.0) ** dd * gc * _gamma(-dd) * _rgamma(a) * _rgamma(b)
            * second)
    # c - a - b an integer: the logarithmic limit of 15.3.6 (DLMF 15.8.10), on the Euler-
    # transformed parameters so that the integer m = |c - a - b| is >= 0
    ia, ib = jnp.where(integer, ea, 0.5), jnp.where(integer, eb, 0.5)
    im = jnp.where(integer, jnp.abs(m), 0.0)
    iw = jnp.where(integer, 1.0 - z, 0.5)
    log_limit = _gauss_integer_excess(ia, ib, im, iw)
    log_limit = jnp.where(euler, iw ** d * log_limit, log_limit)
    return jnp.where(near_one, conn, jnp.where(integer, log_limit, direct))


def _gauss_integer_excess(a, b, m, w):
    """2F1(a, b; a + b + m; 1 - w) for an integer m >= 0 and small w (DLMF 15.8.10)."""
    c = a + b + m
    eps = float(np.finfo(w.dtype).eps)

    # the finite sum over k < m
    def finite_cond(carry):
        k, _, t = carry
        return jnp.any(lax.convert_element_type(k, w.dtype) < m)

    def finite_body(carry):
        k, s, t = carry
        kf = lax.convert_element_type(k, w.dtype)
        s = s + jnp.where(kf < m, t, 0.0)
        safe = jnp.where(kf + 1.0 < m, 1.0 - m + kf, 1.0)
        t = t * (a + kf) * (b + kf) / ((kf + 1.0) * safe) * w
        return k + 1, s, t

    zero = jnp.zeros_like(w)
    _, finite, _ = lax.while_loop(finite_cond, finite_body, (0, zero, jnp.ones_like(w)))
    m_pos = jnp.where(m > 0, m, 1.0)
    finite = jnp.where(m > 0, _gamma(m_pos) * _gamma(c) * _rgamma(a + m) * _rgamma(b + m)
                       * finite, 0.0)

    # the logarithmic series; the digammas advance by psi(y + 1) = psi(y) + 1/y
    log_w = jnp.log(w)
    am, bm = a + m, b + m

    def cond(carry):
        k, s, t, *_ = carry
        return (k < 500) & jnp.any(jnp.abs(t) > eps * jnp.abs(s))

    def body(carry):
        k, s, t, p1, pm, pa, pb = carry
        s = s + t * (log_w - p1 - pm + pa + pb)
        kf = lax.convert_element_type(k, w.dtype)
        t = t * (am + kf) * (bm + kf) / ((kf + 1.0) * (kf + m + 1.0)) * w
        return (k + 1, s, t, p1 + 1.0 / (kf + 1.0), pm + 1.0 / (kf + m + 1.0),
                pa + 1.0 / (am + kf), pb + 1.0 / (bm + kf))

    t0 = jnp.exp(-lax.lgamma(m + 1.0))   # 1 / m!
    init = (0, zero, t0, lax.digamma(jnp.ones_like(w)), lax.digamma(m + 1.0),
            lax.digamma(am), lax.digamma(bm))
    log_sum = lax.while_loop(cond, body, init)[1]
    sign = jnp.where(jnp.remainder(m, 2.0) == 1.0, -1.0, 1.0)
    return finite - sign * w ** m * _gamma(c) * _rgamma(a) * _rgamma(b) * log_sum


def _hyp2f1_value(a, b, c, x):
    # a pole in c is inf unless a or b terminates the series first
    terminates = (_is_nonpositive_integer(a) & (a > c)) | (_is_nonpositive_integer(b) & (b > c))
    c_pole = _is_nonpositive_integer(c) & ~terminates
    c = jnp.where(c_pole, 1.0, c)   # keeps the masked-off series finite
    # a polynomial (a or b a non-positive integer) is summed as it is, as SciPy does
    poly = _is_nonpositive_integer(a) | _is_nonpositive_integer(b)
    neg = (x < 0) & ~poly
    # Pfaff: (1-x)^-a 2F1(a, c-b; c; x/(x-1)); of the two forms take the one whose new
    # series has the smaller excess a - b (fewer terms of growing size)
    swap = a > b
    p = jnp.where(swap, b, a)
    q = jnp.where(swap, a, b)
    xn = jnp.where(neg, x, 0.0)
    z = jnp.where(neg, xn / (xn - 1.0), jnp.where((x < 1) & ~poly, x, 0.0))
    pa = jnp.where(neg, p, a)
    pb = jnp.where(neg, c - q, b)
    # (the polynomials are summed below; keep their masked-off general path finite)
    out = _gauss_unit(jnp.where(poly, 0.5, pa), jnp.where(poly, 0.5, pb),
                      jnp.where(poly, 1.5, c), z)
    out = jnp.where(neg, (1.0 - xn) ** (-p) * out, out)
    # x == 1: Gauss's sum when c - a - b > 0, else inf; x > 1: inf (SciPy's real function)
    gauss = (x == 1) & (c - a - b > 0) & ~c_pole
    oa, ob, oc = jnp.where(gauss, a, 0.5), jnp.where(gauss, b, 0.5), jnp.where(gauss, c, 2.0)
    at_one = jnp.where(gauss, _gamma(oc) * _gamma(oc - oa - ob) * _rgamma(oc - oa)
                       * _rgamma(oc - ob), jnp.inf)
    out = jnp.where(x == 1, at_one, out)
    out = jnp.where(x > 1, jnp.inf, out)
    out = jnp.where(poly, _series([a, b], [c], jnp.where(poly, x, 0.0)), out)
    out = jnp.where(c_pole, jnp.inf, out)
    out = jnp.where((x == 0) | (a == 0) | (b == 0), 1.0, out)
    bad = jnp.isnan(a) | jnp.isnan(b) | jnp.isnan(c) | jnp.isnan(x)
    return jnp.where(bad, jnp.nan, out)


@partial(custom_jvp, symbolic_zeros=True)
def _hyp2f1(a, b, c, x):
    return _hyp2f1_value(a, b, c, x)


@_hyp2f1.defjvp
def _hyp2f1_jvp(primals, tangents):
    (a, b, c, x), dx = primals, tangents[3]
    out = _hyp2f1(a, b, c, x)
    tangent = jnp.zeros_like(out)
    if not isinstance(dx, SymbolicZero):
        tangent = tangent + a * b / c * _hyp2f1(a + 1.0, b + 1.0, c + 1.0, x) * dx
    return out, tangent + _parameter_tangent(_hyp2f1_value, primals, tangents, 3)


def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function ``2F1(a, b; c; x)`` for real arguments (``x <= 1``)."""
    a, b, c, x = promote_inexact(a, b, c, x)
    check_real("hyp2f1", a, b, c, x, hint="pass real arrays")
    dtype = x.dtype
    a, b, c, x = jnp.broadcast_arrays(*_working(a, b, c, x))
    return _hyp2f1(a, b, c, x).astype(dtype)
