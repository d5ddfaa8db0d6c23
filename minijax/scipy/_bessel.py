"""Bessel functions of the first and second kind and modified ones of real order.

Written with ``minijax.numpy`` operations (so jit and vmap apply) in three regions of
``|x|``: the power series below ``_SERIES_MAX``, Miller's backward recurrence normalised
by ``J0 + 2 sum J2k = 1`` (with Neumann's series for Y0, Y1) up to ``_HANKEL_MIN``, and
Hankel's asymptotic expansion above. Integer orders come from the three-term recurrence
(forward where it is stable, backward ratios anchored at ``J_floor(x)`` where it is not).
Derivatives are defined by ``custom_jvp`` from the recurrences between orders.
"""

import math
from functools import partial

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..api import jit
from ..core import Tracer
from ..custom_derivatives import SymbolicZero, custom_jvp
from ._util import promote_inexact

_EULER = 0.5772156649015329
_SERIES_MAX = 8.0
_HANKEL_MIN = 25.0
_MILLER_START = 70  # even; J_70(25) / max_k J_k(25) is below 1e-22
_HANKEL_TERMS = 30
_SERIES_TERMS = 40


def _as(x, value):
    return lax.convert_element_type(value, x.dtype)


def _series_jy01(x):
    """J0, J1, Y0, Y1 by their power series (x in (0, _SERIES_MAX])."""
    y = 0.25 * x * x
    half = 0.5 * x

    def body(i, carry):
        t0, t1, j0, s1, h0, g1, harmonic = carry
        k = _as(x, i)
        t0 = t0 * (-y) / (k * k)             # (-y)^k / k!^2
        t1 = t1 * (-y) / (k * (k + 1.0))     # (-y)^k / (k! (k+1)!)
        harmonic = harmonic + 1.0 / k
        # psi(k+1) + psi(k+2) = 2 H_k + 1/(k+1) - 2 gamma
        return (t0, t1, j0 + t0, s1 + t1, h0 - harmonic * t0,
                g1 + (2.0 * harmonic + 1.0 / (k + 1.0) - 2 * _EULER) * t1, harmonic)

    one, zero = jnp.ones_like(x), jnp.zeros_like(x)
    init = (one, one, one, one, zero, (1.0 - 2 * _EULER) * one, zero)
    _, _, j0, s1, h0, g1, _ = lax.fori_loop(1, _SERIES_TERMS, body, init)
    j1 = half * s1
    log_half = jnp.log(half)
    y0 = (2 / math.pi) * ((log_half + _EULER) * j0 + h0)
    y1 = -2 / (math.pi * x) + (2 / math.pi) * log_half * j1 - (half / math.pi) * g1
    return j0, j1, y0, y1


def _miller_jy01(x):
    """J0, J1, Y0, Y1 by backward recurrence (x in [_SERIES_MAX, _HANKEL_MIN])."""
    inv_x = 1.0 / x

    def body(i, carry):
        # upper, cur: J_{n+1}, J_n unnormalised; norm: J0 + 2 sum_k J_2k;
        # t0: sum_k (-1)^k J_2k / k; t1: sum_k (-1)^k (J_{2k-1} - J_{2k+1}) / k
        upper, cur, norm, t0, t1 = carry
        n = _as(x, _MILLER_START - i)
        lower = 2.0 * n * inv_x * cur - upper
        even = jnp.remainder(n, 2.0) == 0.0
        k = 0.5 * n
        coef = jnp.where(even, jnp.where(jnp.remainder(k, 2.0) == 0.0, 1.0, -1.0) / k, 0.0)
        return (cur, lower, norm + jnp.where(even, 2.0, 0.0) * cur, t0 + coef * cur,
                t1 + coef * (lower - upper))

    zero = jnp.zeros_like(x)
    init = (zero, jnp.full_like(x, 1e-30), zero, zero, zero)
    j1u, j0u, norm, t0, t1 = lax.fori_loop(0, _MILLER_START, body, init)
    norm = norm + j0u
    j0, j1 = j0u / norm, j1u / norm
    log_term = jnp.log(0.5 * x) + _EULER
    y0 = (2 / math.pi) * (log_term * j0 - 2.0 * t0 / norm)
    y1 = (2 / math.pi) * (log_term * j1 - j0 * inv_x + t1 / norm)
    return j0, j1, y0, y1


def _hankel_pq(x, order):
    """Hankel's P and Q of ``order`` (a float or an array like x) for large x."""
    mu = 4.0 * order * order
    inv8x = 1.0 / (8.0 * x)

    def body(i, carry):
        term, p, q = carry
        k = _as(x, i)
        term = term * (mu - (2.0 * k - 1.0) ** 2) * inv8x / k
        # term k carries the sign (-1)^floor(k/2); odd k go to Q, even k to P
        signed = jnp.where(jnp.remainder(jnp.floor(0.5 * k), 2.0) == 0.0, term, -term)
        odd = jnp.remainder(k, 2.0) == 1.0
        return term, p + jnp.where(odd, 0.0, signed), q + jnp.where(odd, signed, 0.0)

    one = jnp.ones_like(x)
    _, p, q = lax.fori_loop(1, 2 * _HANKEL_TERMS, body, (one, one, jnp.zeros_like(x)))
    return p, q


def _hankel_jy01(x):
    """J0, J1, Y0, Y1 by Hankel's expansion (x >= _HANKEL_MIN)."""
    amp = jnp.sqrt(2.0 / (math.pi * x))
    c, s = jnp.cos(x), jnp.sin(x)
    r = 1.0 / math.sqrt(2.0)
    # chi = x - pi/4 (order 0), x - 3 pi/4 (order 1), expanded so that x is reduced exactly
    cos0, sin0 = r * (c + s), r * (s - c)
    cos1, sin1 = r * (s - c), -r * (s + c)
    p0, q0 = _hankel_pq(x, 0.0)
    p1, q1 = _hankel_pq(x, 1.0)
    return (amp * (p0 * cos0 - q0 * sin0), amp * (p1 * cos1 - q1 * sin1),
            amp * (p0 * sin0 + q0 * cos0), amp * (p1 * sin1 + q1 * cos1))


def _jy01(ax):
    """J0, J1, Y0, Y1 at ``ax >= 0`` (NaN propagates; Y at 0 is -inf)."""
    small = ax <= _SERIES_MAX
    large = ax >= _HANKEL_MIN
    xs = jnp.where(small & (ax > 0), ax, 1.0)
    xm = jnp.where(small | large, 10.0, ax)
    xl = jnp.where(large, ax, 30.0)
    out = []
    for a, b, c in zip(_series_jy01(xs), _miller_jy01(xm), _hankel_jy01(xl)):
        out.append(jnp.where(small, a, jnp.where(large, c, b)))
    j0, j1, y0, y1 = out
    zero = ax == 0
    j0 = jnp.where(zero, 1.0, j0)
    j1 = jnp.where(zero, 0.0, j1)
    y0 = jnp.where(zero, -jnp.inf, y0)
    y1 = jnp.where(zero, -jnp.inf, y1)
    return j0, j1, y0, y1


# compiled once, so that eager calls (and finite differences) run one program
_jy01_compiled = jit(_jy01)


def _odd(x, v):
    return jnp.where(jnp.signbit(x), -v, v)


@custom_jvp
def j0(x):
    """The Bessel function of the first kind of order 0."""
    x, = promote_inexact(x)
    return _jy01_compiled(jnp.abs(x))[0]


@custom_jvp
def j1(x):
    """The Bessel function of the first kind of order 1."""
    x, = promote_inexact(x)
    return _odd(x, _jy01_compiled(jnp.abs(x))[1])


@custom_jvp
def y0(x):
    """The Bessel function of the second kind of order 0 (NaN for negative ``x``)."""
    x, = promote_inexact(x)
    out = _jy01_compiled(jnp.abs(x))[2]
    return jnp.where(x < 0, jnp.nan, out)


@custom_jvp
def y1(x):
    """The Bessel function of the second kind of order 1 (NaN for negative ``x``)."""
    x, = promote_inexact(x)
    out = _jy01_compiled(jnp.abs(x))[3]
    return jnp.where(x < 0, jnp.nan, out)


def _safe_div_x(v, x):
    return v / jnp.where(x == 0, 1.0, x)


@j0.defjvp
def _j0_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return j0(x), -j1(x) * dx


@j1.defjvp
def _j1_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    out = j1(x)
    return out, jnp.where(x == 0, 0.5, j0(x) - _safe_div_x(out, x)) * dx


@y0.defjvp
def _y0_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return y0(x), -y1(x) * dx


@y1.defjvp
def _y1_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    out = y1(x)
    return out, (y0(x) - out / x) * dx


# ---------------------------------------------------------------- integer orders

def _static_orders(n, name):
    """The integer orders ``n`` as a NumPy array (they set the recurrence's length)."""
    if isinstance(n, Tracer):
        raise TypeError(f"{name}: the order n must be concrete (its largest value sets the "
                        "length of the recurrence); pass it outside jit/vmap")
    arr = np.asarray(n)
    if arr.dtype.kind == "f":
        if not np.all(arr[np.isfinite(arr)] == np.round(arr[np.isfinite(arr)])):
            raise NotImplementedError(f"{name}: only integer orders are supported, got {n!r}")
        if not np.all(np.isfinite(arr)):
            raise NotImplementedError(f"{name}: the order must be finite, got {n!r}")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name}: the order must be an integer, got {n!r}")
    return arr


def _jn_values(x, nmax):
    """J_0..J_nmax at ``x``, stacked (J_k(-x) = (-1)^k J_k(x))."""
    values = _jn_values_nonnegative(jnp.abs(x), nmax)
    odd = (np.arange(nmax + 1) % 2 == 1).reshape((-1,) + (1,) * x.ndim)
    return jnp.where(odd & jnp.signbit(x), -values, values)


def _jn_values_nonnegative(ax, nmax):
    """J_0..J_nmax at ``ax >= 0``, stacked: forward recurrence for k <= ax, and above it
    ratios r_k = J_k / J_{k-1} from the backward continued fraction, anchored at the last
    forward value (J_floor(x) has no zero before x)."""
    j0v, j1v, _, _ = _jy01(ax)
    if nmax < 2:
        return jnp.stack([j0v, j1v][:nmax + 1], axis=0)
    safe = jnp.where(ax == 0, 1.0, ax)
    start = nmax + 40 + int(6 * math.sqrt(nmax))

    def ratio(r, k):
        r = ax / (2.0 * _as(ax, k) - ax * r)
        return r, r

    ks = np.arange(start, 1, -1)
    _, ratios = lax.scan(ratio, ax / (2.0 * start), ks)
    ratios = ratios[start - nmax:][::-1]  # r_2 .. r_nmax

    def forward(carry, xs):
        prev, cur = carry
        k, r = xs
        k = _as(ax, k)
        nxt = jnp.where(k <= ax, 2.0 * (k - 1.0) / safe * cur - prev, cur * r)
        return (cur, nxt), nxt

    _, rest = lax.scan(forward, (j0v, j1v), (np.arange(2, nmax + 1), ratios))
    return jnp.concatenate([j0v[None], j1v[None], rest], axis=0)


def _yn_values(ax, nmax):
    """Y_0..Y_nmax at ``ax >= 0``, stacked, by forward recurrence (stable for Y)."""
    _, _, y0v, y1v = _jy01(ax)
    if nmax < 2:
        return jnp.stack([y0v, y1v][:nmax + 1], axis=0)

    def forward(carry, k):
        prev, cur = carry
        nxt = 2.0 * (_as(ax, k) - 1.0) / ax * cur - prev
        # past overflow the recurrence gives -inf - (-inf); the value is -inf
        nxt = jnp.where(jnp.isneginf(cur), -jnp.inf, nxt)
        return (cur, nxt), nxt

    _, rest = lax.scan(forward, (y0v, y1v), np.arange(2, nmax + 1))
    return jnp.concatenate([y0v[None], y1v[None], rest], axis=0)


def _make_table(values_fn):
    """Orders 0..nmax of ``values_fn`` stacked on a new first axis, differentiable in x."""
    stack = jit(values_fn, static_argnums=1)

    @partial(custom_jvp, nondiff_argnums=(1,))
    def table(x, nmax):
        return stack(x, nmax)

    @table.defjvp
    def _table_jvp(nmax, primals, tangents):
        (x,), (dx,) = primals, tangents
        vals = table(x, nmax + 1)
        # Z_k' = (Z_{k-1} - Z_{k+1}) / 2, Z_{-1} = -Z_1
        below = jnp.concatenate([-vals[1:2], vals[:nmax]], axis=0)
        deriv = 0.5 * (below - vals[1:nmax + 2])
        return vals[:nmax + 1], deriv * dx

    return table


_jn_table = _make_table(_jn_values)
_yn_table = _make_table(_yn_values)


def _pick(table, n_abs):
    idx = jnp.asarray(n_abs)[None]
    idx = jnp.broadcast_to(idx, (1,) + table.shape[1:])
    return jnp.take_along_axis(table, idx, axis=0)[0]


def jn(n, x):
    """The Bessel function of the first kind of integer order ``n`` (concrete)."""
    orders = _static_orders(n, "jn")
    x, = promote_inexact(x)
    shape = np.broadcast_shapes(orders.shape, x.shape)
    orders = np.broadcast_to(orders, shape)
    x = jnp.broadcast_to(x, shape)
    n_abs = np.abs(orders)
    nmax = int(n_abs.max()) if n_abs.size else 0
    out = _pick(_jn_table(x, nmax), n_abs)
    # J_{-n} = (-1)^n J_n
    flip = jnp.asarray((orders < 0) & (n_abs % 2 == 1))
    return jnp.where(flip, -out, out)


def yn(n, x):
    """The Bessel function of the second kind of integer order ``n`` (concrete)."""
    orders = _static_orders(n, "yn")
    x, = promote_inexact(x)
    shape = np.broadcast_shapes(orders.shape, x.shape)
    orders = np.broadcast_to(orders, shape)
    x = jnp.broadcast_to(x, shape)
    n_abs = np.abs(orders)
    nmax = int(n_abs.max()) if n_abs.size else 0
    safe = jnp.where(x < 0, 1.0, x)
    out = _pick(_yn_table(safe, nmax), n_abs)
    flip = jnp.asarray((orders < 0) & (n_abs % 2 == 1))
    out = jnp.where(flip, -out, out)
    return jnp.where(x < 0, jnp.nan, out)


def jv(v, z):
    """The Bessel function of the first kind; minijax supports integer orders ``v`` only."""
    return jn(v, z)


def yv(v, z):
    """The Bessel function of the second kind; minijax supports integer orders ``v`` only."""
    return yn(v, z)


# ---------------------------------------------------------------- modified, real order

_I_SWITCH = 30.0
_I_SERIES_TERMS = 80


def _iv_scaled(v, ax):
    """I_v(ax) * exp(-ax) for ax >= 0 and real v (negative integers folded by the caller)."""
    small = ax < _I_SWITCH
    xs = jnp.where(small, ax, 1.0)
    y = 0.25 * xs * xs

    # sum_k y^k / (k! Gamma(k + v + 1)) with the first term 1/Gamma(v+1) factored out
    def series_step(i, acc):
        k = _as(xs, _I_SERIES_TERMS - i)
        return 1.0 + y / (k * (k + v)) * acc

    s = lax.fori_loop(0, _I_SERIES_TERMS, series_step, jnp.ones_like(xs))
    log_pref = v * jnp.log(0.5 * xs) - xs
    series = _rgamma_sign(v + 1.0) * jnp.exp(log_pref - lax.lgamma(v + 1.0)) * s
    at_zero = jnp.where(v == 0, 1.0, jnp.where((v < 0) & (v != jnp.round(v)), jnp.inf, 0.0))
    series = jnp.where(ax == 0, at_zero, series)
    xl = jnp.where(small, _I_SWITCH, ax)
    mu = 4.0 * v * v
    inv = 1.0 / (8.0 * xl)

    def asym_step(i, acc):
        k = _as(xl, 2 * _HANKEL_TERMS - i)
        return 1.0 - (mu - (2.0 * k - 1.0) ** 2) * inv / k * acc

    a = lax.fori_loop(0, 2 * _HANKEL_TERMS, asym_step, jnp.ones_like(xl))
    asym = a / jnp.sqrt(2.0 * math.pi * xl)
    asym = jnp.where(jnp.isinf(xl), 0.0, asym)
    return jnp.where(small, series, asym)


def _rgamma_sign(x):
    negative_odd = (x < 0) & (jnp.remainder(jnp.floor(x), 2.0) == 1.0)
    return jnp.where(negative_odd, -1.0, 1.0)


@partial(jit, static_argnums=2)
def _iv_compiled(v, x, scaled):
    integer = v == jnp.round(v)
    # I_{-n} = I_n for integer n
    vv = jnp.where(integer & (v < 0), -v, v)
    ax = jnp.abs(x)
    out = _iv_scaled(vv, ax)
    if not scaled:
        out = jnp.where(jnp.isinf(ax), jnp.inf, out * jnp.exp(jnp.where(jnp.isinf(ax), 0.0, ax)))
    odd = integer & (jnp.remainder(jnp.abs(vv), 2.0) == 1.0)
    out = jnp.where((x < 0) & odd, -out, out)
    out = jnp.where((x < 0) & ~integer, jnp.nan, out)
    return jnp.where(jnp.isnan(x) | jnp.isnan(v), jnp.nan, out)


def _iv_core(v, x, scaled):
    v, x = promote_inexact(v, x)
    v, x = jnp.broadcast_arrays(v, x)
    return _iv_compiled(v, x, scaled)


def _order_tangent_unsupported(dv, name):
    if not isinstance(dv, SymbolicZero):
        raise NotImplementedError(f"{name}: the derivative with respect to the order v is "
                                  "not implemented")


@partial(custom_jvp, symbolic_zeros=True)
def iv(v, z):
    """The modified Bessel function of the first kind of real order ``v``."""
    return _iv_core(v, z, scaled=False)


@partial(custom_jvp, symbolic_zeros=True)
def ive(v, z):
    """``iv(v, z) * exp(-abs(z))``."""
    return _iv_core(v, z, scaled=True)


@iv.defjvp
def _iv_jvp(primals, tangents):
    (v, z), (dv, dz) = primals, tangents
    _order_tangent_unsupported(dv, "iv")
    out = iv(v, z)
    if isinstance(dz, SymbolicZero):
        return out, jnp.zeros_like(out)
    return out, 0.5 * (iv(v - 1.0, z) + iv(v + 1.0, z)) * dz


@ive.defjvp
def _ive_jvp(primals, tangents):
    (v, z), (dv, dz) = primals, tangents
    _order_tangent_unsupported(dv, "ive")
    out = ive(v, z)
    if isinstance(dz, SymbolicZero):
        return out, jnp.zeros_like(out)
    z = jnp.asarray(z, out.dtype)
    return out, (0.5 * (ive(v - 1.0, z) + ive(v + 1.0, z)) - jnp.sign(z) * out) * dz
