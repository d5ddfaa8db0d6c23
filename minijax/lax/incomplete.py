"""Regularized incomplete gamma and beta functions as primitives: ``igamma``, ``igammac``,
``igamma_grad_a``, ``random_gamma_grad`` and ``betainc``.

Each algorithm is written once, against a small namespace of array operations
(``_NumpyOps`` or ``_LaxOps``): the NumPy one is the eager kernel (run in float64), the
lax one is traced into the lowering, so the two paths run the same iterations.

Incomplete gamma: the power series of P(a, x) for x < 1 or x < a, else the continued
fraction of Q(a, x) (Cephes' recurrence). Both carry their derivative with respect to
``a`` along (forward mode through the iteration), which gives ``igamma_grad_a`` and the
implicit derivative of a gamma sample, ``random_gamma_grad`` = -(dP/da) / (dP/dx).
Incomplete beta: the continued fraction of I_x(a, b) (modified Lentz), on the side of
the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where it converges fast; its derivatives in
``a`` and ``b`` (``betainc_grad_a``/``_b``) come from the same iteration in forward mode.
"""

import numpy as np

from .. import dtypes
from ..core import get_aval
from ..interpreters import ad
from ..interpreters.lowering import lower_via
from . import _helpers as helpers
from . import elementwise as ew
from . import loops, reductions, shapes
from ._helpers import FLOAT, naryop
from .special import digamma64, lgamma64

__all__ = ["betainc", "betainc_grad_a", "betainc_grad_a_p", "betainc_grad_b", "betainc_grad_b_p",
           "betainc_p", "igamma", "igamma_grad_a", "igamma_grad_a_p", "igamma_p",
           "igammac", "igammac_p", "random_gamma_grad", "random_gamma_grad_p"]

_MAX_ITERATIONS = 2000
# The gamma series and continued fraction need about 8.5 sqrt(a) terms where x is near a;
# the loops stop when every element has converged, so the cap costs nothing below it.
_GAMMA_MAX_ITERATIONS = 50_000


class _NumpyOps:
    """The operations the shared algorithms use, on NumPy arrays (the eager kernels)."""
    where = staticmethod(np.where)
    log = staticmethod(np.log)
    log1p = staticmethod(np.log1p)
    exp = staticmethod(np.exp)
    abs = staticmethod(np.abs)
    isnan = staticmethod(np.isnan)
    lgamma = staticmethod(lgamma64)
    digamma = staticmethod(digamma64)

    @staticmethod
    def full_like(x, value):
        return np.full(np.shape(x), value, np.asarray(x).dtype)

    @staticmethod
    def counter(x):
        return 0

    @staticmethod
    def keep_going(done, n, limit=_MAX_ITERATIONS):
        return n < limit and not bool(np.all(done))

    @staticmethod
    def loop(cond, body, state):
        while cond(state):
            state = body(state)
        return state


class _LaxOps:
    """The same operations as lax primitives (traced into the lowering)."""

    @staticmethod
    def where(c, a, b):
        ref = c
        return ew.select(c, _LaxOps._like(a, b, ref), _LaxOps._like(b, a, ref))

    @staticmethod
    def _like(v, other, ref):
        if isinstance(v, (int, float)):
            return shapes.full(get_aval(ref).shape, v, get_aval(other).dtype)
        return v

    @staticmethod
    def log(x):
        return ew.log(x)

    @staticmethod
    def log1p(x):
        return ew.log1p(x)

    @staticmethod
    def exp(x):
        return ew.exp(x)

    @staticmethod
    def abs(x):
        return ew.abs(x)

    @staticmethod
    def isnan(x):
        return ew.ne(x, x)

    @staticmethod
    def lgamma(x):
        return ew.lgamma(x)

    @staticmethod
    def digamma(x):
        return ew.digamma(x)

    @staticmethod
    def full_like(x, value):
        return helpers.full_like(x, value)

    @staticmethod
    def counter(x):
        return shapes.full((), 0, np.int32)

    @staticmethod
    def keep_going(done, n, limit=_MAX_ITERATIONS):
        return ew.bitwise_and(ew.bitwise_not(reductions.reduce_and(done)), ew.lt(n, limit))

    @staticmethod
    def loop(cond, body, state):
        return loops.while_loop(cond, body, state)


def _finfo(x):
    return np.finfo(x.dtype if isinstance(x, np.ndarray) else _aval_dtype(x))


def _eps(x):
    return float(_finfo(x).eps)


def _aval_dtype(x):
    return get_aval(x).dtype


def _gamma_series(ops, a, x, active):
    """P(a, x) = exp(a log x - x - lgamma(a + 1)) * S with S = sum_n x^n / ((a+1)...(a+n)):
    returns S and dS/da."""
    eps = _eps(x)
    one = ops.full_like(x, 1.0)
    zero = ops.full_like(x, 0.0)

    def body(state):
        n, done, r, c, s, dc, ds = state
        r_new = r + 1.0
        t = x / r_new
        dc_new = dc * t - c * t / r_new
        c_new = c * t
        s_new = s + c_new
        ds_new = ds + dc_new
        converged = ((ops.abs(c_new) <= eps * ops.abs(s_new))
                     & (ops.abs(dc_new) <= eps * ops.abs(ds_new)))
        keep = done
        return (n + 1, done | converged, ops.where(keep, r, r_new), ops.where(keep, c, c_new),
                ops.where(keep, s, s_new), ops.where(keep, dc, dc_new),
                ops.where(keep, ds, ds_new))

    state = (ops.counter(x), ~active, a, one, one, zero, zero)
    state = ops.loop(lambda s: ops.keep_going(s[1], s[0], _GAMMA_MAX_ITERATIONS), body, state)
    return state[4], state[6]


def _gamma_continued_fraction(ops, a, x, active):
    """Q(a, x) = exp(a log x - x - lgamma(a)) * F with F Cephes' continued fraction:
    returns F and dF/da (the recurrence's numerators and denominators carry their
    derivatives; d(1 - a)/da = -1)."""
    eps = _eps(x)
    big, big_inv = 4503599627370496.0, 2.220446049250313e-16
    y = 1.0 - a
    z = x + y + 1.0
    zero = ops.full_like(x, 0.0)
    one = ops.full_like(x, 1.0)
    p2, q2, p1, q1 = one, x, x + 1.0, z * x
    dp2, dq2, dp1, dq1 = zero, zero, zero, -x
    f = p1 / q1
    df = (dp1 - f * dq1) / q1

    def body(state):
        n, done, c, y, z, p2, q2, p1, q1, dp2, dq2, dp1, dq1, f, df = state
        c_new, y_new, z_new = c + 1.0, y + 1.0, z + 2.0
        yc = y_new * c_new
        p = p1 * z_new - p2 * yc
        q = q1 * z_new - q2 * yc
        dp = dp1 * z_new - p1 - dp2 * yc + p2 * c_new
        dq = dq1 * z_new - q1 - dq2 * yc + q2 * c_new
        nonzero = q != 0.0
        q_safe = ops.where(nonzero, q, one)
        r = p / q_safe
        dr = (dp - r * dq) / q_safe
        converged = nonzero & (ops.abs(f - r) <= eps * ops.abs(r)) & (
            ops.abs(df - dr) <= eps * ops.abs(dr))
        f_new = ops.where(nonzero, r, f)
        df_new = ops.where(nonzero, dr, df)
        scale = ops.where(ops.abs(p) > big, ops.full_like(p, big_inv), ops.full_like(p, 1.0))
        new = (c_new, y_new, z_new, p1 * scale, q1 * scale, p * scale, q * scale,
               dp1 * scale, dq1 * scale, dp * scale, dq * scale, f_new, df_new)
        old = (c, y, z, p2, q2, p1, q1, dp2, dq2, dp1, dq1, f, df)
        kept = tuple(ops.where(done, o, v) for o, v in zip(old, new))
        return (n + 1, done | converged) + kept

    state = (ops.counter(x), ~active, zero, y, z, p2, q2, p1, q1, dp2, dq2, dp1, dq1, f, df)
    state = ops.loop(lambda s: ops.keep_going(s[1], s[0], _GAMMA_MAX_ITERATIONS), body,
                     state)
    return state[-2], state[-1]


_STIRLING_FROM = 30.0   # the series below is then exact to 4e-17


def _log_gamma_prefactor(ops, a, x):
    """``a log x - x - lgamma(a + 1)``. For large ``a`` the three terms are each near
    ``a log a`` and cancel to a few units, losing ``log10(a)`` digits; there it is
    ``-a (t - log1p(t)) - log(2 pi a) / 2 - stirling(a)`` with ``t = (x - a) / a`` and the
    Stirling series remainder of ``lgamma(a + 1)``, which keeps them."""
    direct = a * ops.log(x) - x - ops.lgamma(a + 1.0)
    large = a >= _STIRLING_FROM
    a_l = ops.where(large, a, _STIRLING_FROM)
    x_l = ops.where(large, x, _STIRLING_FROM)
    t = (x_l - a_l) / a_l
    inv = 1.0 / a_l
    inv2 = inv * inv
    stirling = inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 / 1680)))
    uniform = (-a_l * (t - ops.log1p(t)) - 0.5 * ops.log(2 * np.pi * a_l) - stirling)
    return ops.where(large, uniform, direct)


def _igamma_kernel(ops, a, x, mode):
    """``mode``: 'p' (igamma), 'q' (igammac), 'grad_a' (dP/da) or 'sample' (dx/da at
    fixed P, the derivative of a gamma sample)."""
    inf = float("inf")
    invalid = ops.isnan(a) | ops.isnan(x) | (a < 0.0) | (x < 0.0) | ((a == 0.0) & (x == 0.0))
    regular = (~invalid) & (a > 0.0) & (x > 0.0) & (a < inf) & (x < inf)
    use_fraction = (x >= 1.0) & (x >= a)
    # Q = exp(a log x - x - lgamma(a)) * F with F < 1: zero to working precision when the
    # exponent is far below the smallest float (and the recurrence would overflow there)
    a_n, x_n = ops.where(regular, a, 1.0), ops.where(regular, x, 1.0)
    log_floor = float(np.log(_finfo(x).tiny)) - 50.0
    negligible_q = use_fraction & regular & (a_n * ops.log(x_n) - x_n - ops.lgamma(a_n)
                                             < log_floor)
    in_series, in_fraction = regular & ~use_fraction, regular & use_fraction & ~negligible_q
    a_s, x_s = ops.where(in_series, a, 1.0), ops.where(in_series, x, 0.5)
    a_f, x_f = ops.where(in_fraction, a, 1.0), ops.where(in_fraction, x, 2.0)
    s, ds = _gamma_series(ops, a_s, x_s, in_series)
    f, df = _gamma_continued_fraction(ops, a_f, x_f, in_fraction)
    log_x_s, log_x_f, log_a_f = ops.log(x_s), ops.log(x_f), ops.log(a_f)
    series_scale = ops.exp(_log_gamma_prefactor(ops, a_s, x_s))
    fraction_scale = ops.exp(_log_gamma_prefactor(ops, a_f, x_f) + log_a_f)
    series_da = s * (log_x_s - ops.digamma(a_s + 1.0)) + ds
    fraction_da = f * (log_x_f - ops.digamma(a_f)) + df
    if mode in ("p", "q"):
        p = ops.where(use_fraction, 1.0 - fraction_scale * f, series_scale * s)
        q = ops.where(use_fraction, fraction_scale * f, 1.0 - series_scale * s)
        out = p if mode == "p" else q
        out = ops.where(negligible_q, 1.0 if mode == "p" else 0.0, out)
        # the limits: P(a, 0) = 0, P(a, inf) = 1, P(0, x > 0) = 1, P(inf, x < inf) = 0
        zero_p = (x == 0.0) | ((a == inf) & (x < inf))
        one_p = (x == inf) | (a == 0.0)
        lo, hi = (0.0, 1.0) if mode == "p" else (1.0, 0.0)
        out = ops.where(zero_p, lo, ops.where(one_p, hi, out))
    elif mode == "grad_a":
        out = ops.where(use_fraction, -fraction_scale * fraction_da, series_scale * series_da)
        out = ops.where(negligible_q, 0.0, out)
        out = ops.where((x == 0.0) | (x == inf) | ((a == inf) & (x < inf)), 0.0, out)
        out = ops.where(a == 0.0, float("nan"), out)
    else:
        out = ops.where(use_fraction, x_f * fraction_da, -(x_s / a_s) * series_da)
        out = ops.where(x == 0.0, 0.0, out)
        out = ops.where((a == 0.0) | (x == inf) | (a == inf), float("nan"), out)
    return ops.where(invalid, float("nan"), out)


def _beta_continued_fraction(ops, a, b, x, active, derivatives):
    """The continued fraction of I_x(a, b) (modified Lentz), with its derivatives in ``a``
    and ``b`` carried along: returns (h, dh/da, dh/db). Without ``derivatives`` the loop
    stops when h has converged (the derivatives are then not accurate); with them h is
    frozen once converged (further factors of 1 +- an ulp would only add rounding)."""
    eps = _eps(x)
    tiny = float(_finfo(x).tiny) / eps
    zero = ops.full_like(x, 0.0)
    one = ops.full_like(x, 1.0)

    def guard(v):
        return ops.where(ops.abs(v) < tiny, tiny, v)

    def reciprocal(v, dv):     # 1 / v and its derivative
        r = 1.0 / guard(v)
        return r, tuple(-r * r * t for t in dv)

    q = 1.0 - (a + b) * x / (a + 1.0)
    d, dd = reciprocal(q, (-x / (a + 1.0) + (a + b) * x / ((a + 1.0) * (a + 1.0)),
                           -x / (a + 1.0)))

    def lentz_step(coef, dcoef, c, dc, d, dd, h, dh):
        d_new, dd_new = reciprocal(1.0 + coef * d, tuple(
            dk * d + coef * ddk for dk, ddk in zip(dcoef, dd)))
        c_new = guard(1.0 + coef / c)
        dc_new = tuple(dk / c - coef * dck / (c * c) for dk, dck in zip(dcoef, dc))
        step = d_new * c_new
        h_new = h * step
        dh_new = tuple(dhk * step + h * (ddk * c_new + d_new * dck)
                       for dhk, ddk, dck in zip(dh, dd_new, dc_new))
        return c_new, dc_new, d_new, dd_new, h_new, dh_new, step

    def body(state):
        n, done, h_done, m, c, d, h, dca, dcb, dda, ddb, dha, dhb = state
        m_new = m + 1.0
        m2 = 2.0 * m_new
        den = (a - 1.0 + m2) * (a + m2)
        even = m_new * (b - m_new) * x / den
        d_even = (-even * (1.0 / (a - 1.0 + m2) + 1.0 / (a + m2)), m_new * x / den)
        c1, dc1, d1, dd1, h1, dh1, _ = lentz_step(even, d_even, c, (dca, dcb), d, (dda, ddb),
                                                  h, (dha, dhb))
        odd = -(a + m_new) * (a + b + m_new) * x / ((a + m2) * (a + 1.0 + m2))
        d_odd = (odd * (1.0 / (a + m_new) + 1.0 / (a + b + m_new) - 1.0 / (a + m2)
                        - 1.0 / (a + 1.0 + m2)), odd / (a + b + m_new))
        c2, dc2, d2, dd2, h2, dh2, step = lentz_step(odd, d_odd, c1, dc1, d1, dd1, h1, dh1)
        value_converged = ops.abs(step - 1.0) <= eps
        h2 = ops.where(h_done, h, h2)
        h_done = h_done | value_converged
        converged = h_done
        if derivatives:
            converged = converged & (ops.abs(dh2[0] - dha) <= eps * ops.abs(dh2[0])) & (
                ops.abs(dh2[1] - dhb) <= eps * ops.abs(dh2[1]))
        old = (m, c, d, h, dca, dcb, dda, ddb, dha, dhb)
        new = (m_new, c2, d2, h2) + dc2 + dd2 + dh2
        kept = tuple(ops.where(done, o, v) for o, v in zip(old, new))
        return (n + 1, done | converged, h_done) + kept

    state = (ops.counter(x), ~active, ~active, zero, one, d, d, zero, zero) + dd + dd
    state = ops.loop(lambda s: ops.keep_going(s[1], s[0]), body, state)
    return state[6], state[11], state[12]


def _betainc_kernel(ops, a, b, x, mode="value"):
    """``mode``: 'value' (I_x(a, b)), 'da' or 'db' (its derivative in a or b)."""
    inf = float("inf")
    invalid = (ops.isnan(a) | ops.isnan(b) | ops.isnan(x) | (a < 0.0) | (b < 0.0) | (x < 0.0)
               | (x > 1.0) | ((a == 0.0) & (b == 0.0)) | ((a == inf) & (b == inf)))
    regular = (~invalid) & (a > 0.0) & (b > 0.0) & (x > 0.0) & (x < 1.0) & (a < inf) & (
        b < inf)
    swap = x * (a + b + 2.0) > a + 1.0
    aa = ops.where(regular, ops.where(swap, b, a), 1.0)
    bb = ops.where(regular, ops.where(swap, a, b), 1.0)
    xx = ops.where(regular, ops.where(swap, 1.0 - x, x), 0.5)
    h, dh_aa, dh_bb = _beta_continued_fraction(ops, aa, bb, xx, regular, mode != "value")
    log_xx, log_1m_xx = ops.log(xx), ops.log1p(-xx)
    psi_sum = ops.digamma(aa + bb)
    front = ops.exp(aa * log_xx + bb * log_1m_xx - ops.lgamma(aa) - ops.lgamma(bb)
                    + ops.lgamma(aa + bb)) / aa
    part = front * h
    if mode == "value":
        out = ops.where(swap, 1.0 - part, part)
        # the limits: I_0 = 0, I_1 = 1; a -> 0 or b -> inf puts all mass at 0, and the reverse
        at_zero = ((a == 0.0) | (b == inf)) & (x > 0.0)
        at_one = ((b == 0.0) | (a == inf)) & (x < 1.0)
        out = ops.where(x == 0.0, 0.0, ops.where(x == 1.0, 1.0, out))
        out = ops.where(at_zero, 1.0, ops.where(at_one, 0.0, out))
    else:
        d_aa = part * (log_xx - ops.digamma(aa) + psi_sum - 1.0 / aa) + front * dh_aa
        d_bb = part * (log_1m_xx - ops.digamma(bb) + psi_sum) + front * dh_bb
        # I_x(a, b) = 1 - I_{1-x}(b, a) on the swapped side
        if mode == "da":
            out = ops.where(swap, -d_bb, d_aa)
        else:
            out = ops.where(swap, -d_aa, d_bb)
        edge = ops.where((x == 0.0) | (x == 1.0), ops.full_like(x, 0.0),
                         ops.full_like(x, float("nan")))
        out = ops.where(regular, out, edge)
    return ops.where(invalid, float("nan"), out)


def _eager(kernel):
    """The NumPy kernel, in float64, rounded back to the operands' dtype."""
    def impl(*args):
        dtype = np.asarray(args[0]).dtype
        args = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in args))
        with np.errstate(all="ignore"):
            out = kernel(_NumpyOps, *args)
        return np.asarray(out, np.float64).astype(dtype)
    return impl


def _lowered(kernel):
    """The lax kernel, in the operands' dtype (float32 for 16-bit floats)."""
    def fun(*args):
        dtype = get_aval(args[0]).dtype
        narrow = np.dtype(dtype).itemsize < 4
        if narrow:
            args = [ew.convert_element_type(v, np.float32) for v in args]
        out = kernel(_LaxOps, *args)
        return ew.convert_element_type(out, dtype) if narrow else out
    return lower_via(fun)


def _igamma_primitive(name, mode):
    def kernel(ops, a, x):
        return _igamma_kernel(ops, a, x, mode)
    return naryop(name, _eager(kernel), kinds=FLOAT, nargs=2, lower=_lowered(kernel))


igamma_p = _igamma_primitive("igamma", "p")
igammac_p = _igamma_primitive("igammac", "q")
igamma_grad_a_p = _igamma_primitive("igamma_grad_a", "grad_a")
random_gamma_grad_p = _igamma_primitive("random_gamma_grad", "sample")
betainc_p = naryop("betainc", _eager(_betainc_kernel), kinds=FLOAT, nargs=3,
                   lower=_lowered(_betainc_kernel))


def _betainc_primitive(name, mode):
    def kernel(ops, a, b, x):
        return _betainc_kernel(ops, a, b, x, mode)
    return naryop(name, _eager(kernel), kinds=FLOAT, nargs=3, lower=_lowered(kernel))


betainc_grad_a_p = _betainc_primitive("betainc_grad_a", "da")
betainc_grad_b_p = _betainc_primitive("betainc_grad_b", "db")


def _operands(*args):
    """Python scalars among the operands take the first array's dtype and shape."""
    arrays = [v for v in args if not dtypes.is_python_scalar(v)]
    if not arrays:          # all Python scalars: weakly typed, as bind takes them
        return list(args)
    like = arrays[0]
    shape = get_aval(like).shape
    out = []
    for v in args:
        if dtypes.is_python_scalar(v):
            v = shapes.broadcast_to_shape(helpers.as_operand(v, like), shape)
        out.append(v)
    return out


def igamma(a, x):
    """Elementwise regularized lower incomplete gamma function P(a, x)."""
    return igamma_p.bind(*_operands(a, x))


def igammac(a, x):
    """Elementwise regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return igammac_p.bind(*_operands(a, x))


def igamma_grad_a(a, x):
    """Elementwise derivative of ``igamma(a, x)`` with respect to ``a``."""
    return igamma_grad_a_p.bind(*_operands(a, x))


def random_gamma_grad(a, x):
    """Elementwise derivative of a Gamma(a, 1) sample ``x`` with respect to ``a`` at a
    fixed quantile (implicit reparameterisation: -(dP/da) / (dP/dx))."""
    return random_gamma_grad_p.bind(*_operands(a, x))


def betainc(a, b, x):
    """Elementwise regularized incomplete beta function I_x(a, b)."""
    return betainc_p.bind(*_operands(a, b, x))


def betainc_grad_a(a, b, x):
    """Elementwise derivative of ``betainc(a, b, x)`` with respect to ``a``."""
    return betainc_grad_a_p.bind(*_operands(a, b, x))


def betainc_grad_b(a, b, x):
    """Elementwise derivative of ``betainc(a, b, x)`` with respect to ``b``."""
    return betainc_grad_b_p.bind(*_operands(a, b, x))


# -------------------- derivatives

def _xlogy(x, y):
    """``x * log(y)``, 0 where ``x`` is 0 (and the derivative finite there)."""
    zero = ew.eq(x, helpers.full_like(x, 0.0))
    y_safe = ew.select(zero, helpers.full_like(y, 1.0), y)
    return ew.select(zero, helpers.full_like(x, 0.0), ew.mul(x, ew.log(y_safe)))


def _gamma_density(a, x):
    """dP/dx = x^(a-1) e^-x / Gamma(a)."""
    return ew.exp(ew.sub(ew.sub(_xlogy(ew.sub(a, helpers.full_like(a, 1.0)), x), x), ew.lgamma(a)))


def _beta_density(a, b, x):
    """dI_x(a, b)/dx = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    one = helpers.full_like(a, 1.0)
    log_b = ew.sub(ew.add(ew.lgamma(a), ew.lgamma(b)), ew.lgamma(ew.add(a, b)))
    log_density = ew.add(_xlogy(ew.sub(a, one), x), _xlogy(ew.sub(b, one), ew.sub(one, x)))
    return ew.exp(ew.sub(log_density, log_b))


def _not_differentiable(name, operand):
    def jvp(g, *args):
        raise NotImplementedError(f"lax.{name} is not differentiable with respect to "
                                  f"{operand}")
    return jvp


def _mul(a, b):
    return ew.mul(a, b)


def _neg(a):
    return ew.neg(a)


def _igamma_grad_a_dx(g, a, x):
    # d/dx dP/da = d/da dP/dx = dP/dx * (log x - digamma(a))
    return _mul(g, _mul(_gamma_density(a, x), ew.sub(ew.log(x), ew.digamma(a))))


def _random_gamma_grad_dx(g, a, x):
    # d/dx of -(dP/da)/(dP/dx), with dP/da's x-derivative from above and
    # d(dP/dx)/dx = dP/dx * ((a - 1)/x - 1)
    s = random_gamma_grad(a, x)
    one = helpers.full_like(a, 1.0)
    d_log_density = ew.sub(ew.div(ew.sub(a, one), x), one)
    # u = dP/da, v = dP/dx: d(-u/v)/dx = -(u'/v) + (u/v) (v'/v), u'/v = log x - digamma(a)
    return _mul(g, ew.sub(_neg(ew.sub(ew.log(x), ew.digamma(a))), _mul(s, d_log_density)))


ad.defjvp(igamma_p, lambda g, a, x: _mul(g, igamma_grad_a(a, x)),
          lambda g, a, x: _mul(g, _gamma_density(a, x)))
ad.defjvp(igammac_p, lambda g, a, x: _neg(_mul(g, igamma_grad_a(a, x))),
          lambda g, a, x: _neg(_mul(g, _gamma_density(a, x))))
ad.defjvp(igamma_grad_a_p, _not_differentiable("igamma_grad_a", "a (a second derivative "
                                               "in a is not implemented)"),
          _igamma_grad_a_dx)
ad.defjvp(random_gamma_grad_p, _not_differentiable("random_gamma_grad", "a (a second "
                                                   "derivative in a is not implemented)"),
          _random_gamma_grad_dx)
ad.defjvp(betainc_p, lambda g, a, b, x: _mul(g, betainc_grad_a(a, b, x)),
          lambda g, a, b, x: _mul(g, betainc_grad_b(a, b, x)),
          lambda g, a, b, x: _mul(g, _beta_density(a, b, x)))


def _beta_density_d(which):
    """d/da or d/db of the density x^(a-1) (1-x)^(b-1) / B(a, b), the x-derivative of
    ``betainc_grad_a`` / ``betainc_grad_b``."""
    def jvp(g, a, b, x):
        log_term = ew.log(x) if which == "a" else ew.log1p(ew.neg(x))
        own = a if which == "a" else b
        factor = ew.add(ew.sub(log_term, ew.digamma(own)), ew.digamma(ew.add(a, b)))
        return _mul(g, _mul(_beta_density(a, b, x), factor))
    return jvp


for _p, _w in ((betainc_grad_a_p, "a"), (betainc_grad_b_p, "b")):
    ad.defjvp(_p, _not_differentiable(_p.name, "a (a second derivative in a or b is not "
                                                "implemented)"),
              _not_differentiable(_p.name, "b (a second derivative in a or b is not "
                                           "implemented)"),
              _beta_density_d(_w))
