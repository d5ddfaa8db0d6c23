"""Helpers shared by the distribution modules."""

import functools

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...api import jvp
from ...custom_derivatives import custom_jvp
from .._util import promote_inexact
from ..special import log_ndtr


def standardize(x, loc, scale, *params):
    """``(x - loc) / scale`` and ``log(scale)``, all arguments promoted to one float dtype."""
    x, loc, scale, *params = promote_inexact(x, loc, scale, *params)
    return ((x - loc) / scale, jnp.log(scale), *params)


def keep_nan(value, x):
    """``value``, but NaN where the argument ``x`` is NaN."""
    return jnp.where(jnp.isnan(x), jnp.nan, value)


def outside(mask, value, fill):
    """``fill`` where ``mask``, else ``value``."""
    return jnp.where(mask, fill, value)


def log_probability(p, q):
    """``log(p)`` for a probability ``p`` whose complement ``q = 1 - p`` is computed
    separately: ``log1p(-q)`` where ``p`` is near 1, so the log keeps its digits."""
    upper = p > 0.5
    return jnp.where(upper, jnp.log1p(-jnp.where(upper, q, 0.0)),
                     jnp.log(jnp.where(upper, 1.0, p)))


def discrete_quantile(cdf, q, upper):
    """The smallest integer ``k`` in ``[0, upper]`` with ``cdf(k) >= q``, for ``q`` in
    ``(0, 1]`` and a finite integer-valued ``upper`` with ``cdf(upper) >= q``.

    A bisection on the integers ``(lo, hi]`` with ``cdf(lo) < q <= cdf(hi)``, run until
    the bracket holds one integer; it is a step function of ``q``, so its derivative is 0.
    """
    q = lax.stop_gradient(q)
    upper = lax.stop_gradient(upper)

    def unresolved(bracket):
        lo, hi = bracket
        return jnp.any(hi - lo > 1)

    def halve(bracket):
        lo, hi = bracket
        mid = jnp.floor(0.5 * (lo + hi))
        reached = cdf(mid) >= q
        return jnp.where(reached, lo, mid), jnp.where(reached, mid, hi)

    lo, hi = lax.while_loop(unresolved, halve, (jnp.full_like(upper, -1.0), upper))
    return hi


def discrete_isf(sf, q, upper):
    """The smallest integer ``k`` in ``[0, upper]`` with ``sf(k) <= q`` (SciPy's inverse
    survival function of a distribution on the non-negative integers), for ``q`` in
    ``(0, 1)`` and an ``upper`` with ``sf(upper) <= q``: ``discrete_quantile`` of ``-sf``."""
    return discrete_quantile(lambda k: -sf(k), -q, upper)


def isf_ends(k, q, top, valid):
    """SciPy's ``isf`` conventions around a search result ``k``: the support's end ``top``
    at ``q = 0``, -1 (below a support starting at 0) at ``q = 1``, NaN for ``q`` outside
    ``[0, 1]`` or parameters that are not ``valid``."""
    k = jnp.where(q == 0, top, jnp.where(q == 1, -1.0, k))
    return jnp.where(valid & (q >= 0) & (q <= 1), k, jnp.nan)


# far enough past the mean that a Poisson-like upper tail is below the smallest double
# (e^-745): Bernstein's bound for a tail of rate 1 needs t^2 / (2 (var + t / 3)) >= 745
TINY_TAIL_SPREAD, TINY_TAIL_OFFSET = 40.0, 800.0

_MAX_NEWTON_STEPS = 100


def tail_target(q, survival):
    """``(upper, log_p)`` for a quantile search: which tail to solve on (the lower one
    unless ``q`` is the far side of 1/2 from it) and the log of that tail's probability,
    ``log(q)`` or ``log1p(-q)`` for whichever of ``q``, ``1 - q`` is the smaller."""
    near = q <= 0.5
    log_p = jnp.where(near, jnp.log(jnp.where(near, q, 0.5)),
                      jnp.log1p(-jnp.where(near, 0.5, q)))
    return (near if survival else ~near), log_p


def _solve_log_scale(residual, u0, u_lo, u_hi, tolerance):
    """The root in ``[u_lo, u_hi]`` of an increasing ``residual(u)`` returning
    ``(value, slope)``: Newton steps, each replaced by the bracket's midpoint when it
    would leave the bracket, until every step is within ``tolerance``."""

    def unresolved(state):
        u, _, _, step, count = state
        return (count < _MAX_NEWTON_STEPS) & jnp.any(
            jnp.abs(step) > tolerance * jnp.maximum(1.0, jnp.abs(u)))

    def step_once(state):
        u, lo, hi, _, count = state
        r, slope = residual(u)
        below = r < 0
        lo = jnp.where(below, u, lo)
        hi = jnp.where(below, hi, u)
        newton = u - r / slope
        inside = (newton > lo) & (newton < hi)
        new = jnp.where(r == 0, u, jnp.where(inside, newton, 0.5 * (lo + hi)))
        return new, lo, hi, new - u, count + 1

    u0 = jnp.clip(u0, u_lo, u_hi)
    start = (u0, jnp.full_like(u0, u_lo), jnp.full_like(u0, u_hi), jnp.full_like(u0, jnp.inf), 0)
    return lax.while_loop(unresolved, step_once, start)[0]


def invert_log_tail(log_tail, log_density, log_p, upper, params, x0, x_max):
    """The positive ``x`` with ``log_tail(x, upper, *params) = log_p``: the log CDF where
    ``upper`` is false (increasing in ``x``), the log survival function where it is true.

    ``log_tail`` and ``log_density`` take ``(x, upper, *params)`` and ``(x, *params)``;
    ``x0`` is a starting guess and ``x_max`` the top of the support. The root is found in
    ``u = log x`` by a bracketed Newton iteration on stopped gradients (so ``lax.while_loop``
    sees no tangents), polished by one Newton step in ``x``, then followed by one more step
    left differentiable: started at a root, it carries the implicit derivatives
    ``dx/dlog_p = tail / density`` and ``dx/dparam = -(dtail/dparam) / density``.
    """
    fixed = [lax.stop_gradient(v) for v in (log_p, upper, *params)]
    log_p0, upper0, params0 = fixed[0], fixed[1], fixed[2:]
    sign = jnp.where(upper0, -1.0, 1.0)
    dtype = np.dtype(log_p0.dtype)
    finfo = np.finfo(dtype)

    def residual(u):
        x = jnp.exp(u)
        tail = log_tail(x, upper0, *params0)
        slope = jnp.exp(log_density(x, *params0) + u - tail)
        return sign * (tail - log_p0), slope

    u_min = float(np.log(finfo.tiny))
    u_max = float(np.log(x_max)) if x_max < finfo.max else float(np.log(finfo.max))
    u = _solve_log_scale(residual, jnp.log(lax.stop_gradient(x0)), u_min, u_max,
                         4.0 * float(finfo.eps))
    # a root below the smallest normal number rounds to 0, one above the largest to x_max
    underflow = residual(jnp.full_like(u, u_min))[0] >= 0
    overflow = residual(jnp.full_like(u, u_max))[0] < 0

    def newton(x, upper, log_p, *params):
        tail = log_tail(x, upper, *params)
        step = jnp.where(upper, -1.0, 1.0) * (tail - log_p) * jnp.exp(tail - log_density(x, *params))
        moved = x - step
        return jnp.where(jnp.isfinite(moved) & (moved > 0) & (moved <= x_max), moved, x)

    x = lax.stop_gradient(newton(jnp.exp(u), upper0, log_p0, *params0))
    clamped = underflow | overflow
    x = newton(jnp.where(clamped, 1.0, x), upper, log_p, *params)
    return jnp.where(underflow, 0.0, jnp.where(overflow, x_max, x))


_LOG_HALF = float(np.log(0.5))


def log_ndtr_each(a, b):
    """``log_ndtr(a), log_ndtr(b)`` from one call on both stacked (a traced program
    then holds log_ndtr's large lowering once, not twice)."""
    x = jnp.stack(jnp.broadcast_arrays(a, b))
    # an infinite argument's value is fixed (-inf or 0): set apart, so its derivative is 0
    # rather than log_ndtr's NaN there
    both = log_ndtr(jnp.where(jnp.isfinite(x), x, 0.0))
    both = jnp.where(x == -jnp.inf, -jnp.inf, jnp.where(x == jnp.inf, 0.0, both))
    return both[0], both[1]


def log_ndtr_diff(lo, hi):
    """``log(ndtr(hi) - ndtr(lo))`` (``-inf`` unless ``lo < hi``; either may be infinite), computed
    on the side of 0 where the two tails are small, so it keeps its digits far out in
    either tail."""
    empty = ~(lo < hi)
    lo, hi = jnp.where(empty, -1.0, lo), jnp.where(empty, 1.0, hi)
    upper_side = lo > -hi   # the interval lies mostly above 0: use the upper tails
    near = jnp.where(upper_side, -hi, lo)
    far = jnp.where(upper_side, -lo, hi)
    log_far, log_near = log_ndtr_each(far, near)
    ratio = jnp.exp(log_near - log_far)
    return jnp.where(empty, -jnp.inf, log_far + jnp.log1p(-jnp.minimum(ratio, 1.0)))


def log_ndtri(log_p):
    """The standard normal quantile of ``exp(log_p)`` (``ndtri`` of a probability given by
    its log), accurate where the probability underflows; ``log_p`` is at most 0."""
    upper = log_p > _LOG_HALF
    # the smaller of the two tails, as a log: log(1 - p) on the upper half
    lp = jnp.where(upper, jnp.log(-jnp.expm1(jnp.where(upper, log_p, -1.0))), log_p)
    return jnp.where(upper, -lower_tail_ndtri(lp), lower_tail_ndtri(lp))


def lower_tail_ndtri(log_p):
    """``ndtri(exp(log_p))`` for ``log_p <= log(1/2)`` (``-inf`` gives ``-inf``): Newton's
    method on ``log_ndtr(x) = log_p`` from Abramowitz and Stegun's 26.2.23 (error below
    4.5e-4), which three steps take to full precision."""
    # (a floor whose square's terms stay finite in the dtype: -1e300 for float64)
    floor = -min(1e300, float(np.finfo(np.dtype(log_p.dtype)).max) / 4)
    lp = jnp.clip(log_p, floor, _LOG_HALF)
    t = jnp.sqrt(-2.0 * lax.stop_gradient(lp))
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
          / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))

    def newton(x):
        lx = log_ndtr(x)
        # (a Python float: NumPy's float64 scalar would promote a float32 x)
        return x - (lx - lp) * jnp.exp(lx + 0.5 * x * x + 0.5 * float(np.log(2 * np.pi)))

    x = lax.stop_gradient(newton(x))
    x = newton(newton(x))   # differentiable steps: implicit derivative of the root
    return jnp.where(log_p == -jnp.inf, -jnp.inf, x)


def nan_unless(valid, value):
    """``value`` where the parameters are ``valid``, else NaN (SciPy's invalid-argument value)."""
    return jnp.where(valid, value, jnp.nan)


def log1mexp(t):
    """``log(1 - exp(-t))`` for ``t >= 0``: ``log(-expm1(-t))`` near 0, ``log1p(-exp(-t))``
    beyond ``log 2``, each where it keeps its digits."""
    big = t > 0.6931471805599453
    return jnp.where(big, jnp.log1p(-jnp.exp(-jnp.where(big, t, 1.0))),
                     jnp.log(-jnp.expm1(-jnp.where(big, 1.0, t))))


_HALF_LOG_2PI = 0.5 * float(np.log(2.0 * np.pi))


def stirling_error(x):
    """``lgamma(x + 1) - (x + 1/2) log x + x - log(2π)/2`` for ``x > 0``: its asymptotic
    series past 15 (five terms: error below 1e-17), ``lgamma`` below."""
    big = x > 15.0
    xb = jnp.where(big, x, 16.0)
    inv2 = 1.0 / (xb * xb)
    series = (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - inv2 / 1188) * inv2)
                          * inv2) * inv2) / xb
    xs = jnp.where(big, 1.0, x)
    direct = lax.lgamma(xs + 1.0) - (xs + 0.5) * jnp.log(xs) + xs - _HALF_LOG_2PI
    return jnp.where(big, series, direct)


def deviance(x, m):
    """``x log(x / m) + m - x`` for ``x >= 0``, ``m > 0`` (Loader's ``bd0``): near ``x = m``
    from the series in ``v = (x - m) / (x + m)``, whose terms keep the digits the direct
    form cancels away."""
    near = jnp.abs(x - m) < 0.1 * (x + m)
    v = jnp.where(near, (x - m) / (x + m), 0.0)
    total = (x - m) * v
    term = 2.0 * x * v
    for j in range(1, 12):   # |v| < 0.1: v^24 is below the last digit
        term = term * v * v
        total = total + term / (2 * j + 1)
    safe = jnp.where(x > 0, x, 1.0)
    direct = jnp.where(x > 0, safe * jnp.log(safe / m), 0.0) + m - x
    return jnp.where(near, total, direct)


_HALF_WIDTH = 1000   # the summation window: 2001 points
_SPREAD = 14.0       # half-width in standard deviations (mass outside: below 1e-44)


def window_entropy(log_mass, mean, sd, top):
    """``-sum p log p`` over the non-negative integers up to ``top`` of a mass function
    ``p = exp(log_mass(k))`` (``-inf`` allowed) with this ``mean`` and standard deviation
    ``sd``, unimodal with tails lighter than a normal's ``_SPREAD`` deviations out.

    The sum runs over a window of ``2 _HALF_WIDTH + 1`` integers holding the mean; past a
    standard deviation of ``_HALF_WIDTH / _SPREAD``, where the window cannot hold the
    mass, ``log_mass`` (then taken at non-integers) is integrated by the trapezoid rule on
    as many points: for a mass this wide and smooth both the sum over the integers and
    the rule differ from the integral by ``exp(-2 pi^2 sd^2 / step^2)``, nothing.
    """
    offsets = np.arange(-_HALF_WIDTH, _HALF_WIDTH + 1, dtype=np.dtype(mean.dtype))
    lattice = sd <= _HALF_WIDTH / _SPREAD
    start = jnp.maximum(jnp.floor(mean) - _HALF_WIDTH, 0.0) + _HALF_WIDTH
    step = jnp.where(lattice, 1.0, _SPREAD * sd / _HALF_WIDTH)
    centre = jnp.where(lattice, start, mean)
    k = centre[..., None] + step[..., None] * offsets
    inside = (k >= 0) & (k <= top[..., None])
    log_p = log_mass(jnp.where(inside, k, jnp.maximum(mean, 0.0)[..., None]))
    log_p = jnp.where(inside & (log_p > -jnp.inf), log_p, 0.0)
    return -step * jnp.sum(jnp.exp(log_p) * log_p, axis=-1)



_CHUNK = 1024


def support_sum(term, lower, upper, *params):
    """``sum_{k = lower}^{upper} term(k, *params)`` over the integers, elementwise in the
    broadcast ``lower``, ``upper`` (finite integer-valued bounds, not differentiated) and
    ``params``; ``term`` takes ``k`` with a trailing axis and the parameters with a
    trailing axis of 1. Summed in chunks of ``_CHUNK`` by ``lax.while_loop`` (the count
    depends on the bounds' values), so its derivatives in ``params`` come from a rule
    that sums ``term``'s derivatives in the same loop."""
    lower, upper, *params = jnp.broadcast_arrays(*promote_inexact(lower, upper, *params))
    return _support_sum(term, lower, upper, *params)


def _chunked(term, lower, upper, params, derivatives):
    """The sum (and with ``derivatives``, the sums of ``term``'s derivative in each
    parameter), chunk by chunk from the smallest ``lower`` to the largest ``upper``."""
    stop = jnp.max(jnp.where(upper >= lower, upper, -jnp.inf), initial=-jnp.inf)
    first = jnp.min(jnp.where(upper >= lower, lower, jnp.inf), initial=jnp.inf)
    first = jnp.where(jnp.isfinite(first), first, 0.0)
    offsets = np.arange(_CHUNK, dtype=np.dtype(lower.dtype))
    wide = [p[..., None] for p in params]
    count = len(params) if derivatives else 0

    def body(state):
        start, sums = state
        k = start + offsets
        keep = (k >= lower[..., None]) & (k <= upper[..., None])
        safe = jnp.where(keep, k, jnp.maximum(lower, 0.0)[..., None])
        values = [term(safe, *wide)]
        for i in range(count):
            def along(v, i=i):
                return term(safe, *wide[:i], v, *wide[i + 1:])
            values.append(jvp(along, (wide[i],), (jnp.ones_like(wide[i]),))[1])
        sums = [s + jnp.sum(jnp.where(keep, v, 0.0), axis=-1) for s, v in zip(sums, values)]
        return start + _CHUNK, sums

    zeros = [jnp.zeros(lower.shape, lower.dtype) for _ in range(count + 1)]
    _, sums = lax.while_loop(lambda state: state[0] <= stop, body, (first, zeros))
    return sums


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _support_sum(term, lower, upper, *params):
    return _chunked(term, lower, upper, params, False)[0]


@_support_sum.defjvp
def _support_sum_jvp(term, primals, tangents):
    lower, upper, *params = primals
    total, *slopes = _chunked(term, lower, upper, params, True)
    tangent = jnp.zeros_like(total)
    for slope, dp in zip(slopes, tangents[2:]):
        tangent = tangent + slope * dp
    return total, tangent
