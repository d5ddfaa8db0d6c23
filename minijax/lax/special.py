"""Special-function kernels in float64 on NumPy arrays: the host-side implementations
behind the ``erf``, ``erfc``, ``erf_inv``, ``lgamma``, ``digamma``, ``zeta`` and ``polygamma``
primitives (``elementwise.py`` defines the primitives and rounds these results back to the
operand's dtype).  NumPy has none of these functions; ``math`` has some for scalars only.
"""

import math
from fractions import Fraction

import numpy as np

__all__ = ["digamma64", "erf64", "erf_inv64", "erfc64", "lgamma64", "polygamma64", "zeta64"]


_math_erf = np.frompyfunc(math.erf, 1, 1)
_math_erfc = np.frompyfunc(math.erfc, 1, 1)


def _lgamma_scalar(v):
    try:
        return math.lgamma(v)
    except ValueError:           # a pole: a non-positive integer
        return math.inf


_math_lgamma = np.frompyfunc(_lgamma_scalar, 1, 1)


def digamma64(x):
    """Digamma in float64: reflection below 1/2, recurrence up to 10, asymptotic series."""
    x = np.asarray(x, np.float64)
    reflect = x < 0.5
    z = np.where(reflect, 1.0 - x, x)
    shift = np.zeros_like(z)
    for _ in range(10):
        small = z < 10.0
        shift = shift - np.where(small, 1.0 / np.where(small, z, 1.0), 0.0)
        z = np.where(small, z + 1.0, z)
    w = 1.0 / (z * z)
    series = w * (1 / 12 - w * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (
        1 / 132 - w * (691 / 32760 - w * (1 / 12)))))))
    psi = np.log(z) - 0.5 / z - series + shift
    # psi(x) = psi(1 - x) - pi / tan(pi x); reduce pi x exactly first (tan has period pi).
    r = x - np.rint(x)
    psi = np.where(reflect, psi - np.pi / np.tan(np.pi * r), psi)
    pole = (x <= 0) & (x == np.floor(x))
    psi = np.where(pole, np.nan, psi)
    # the limits at the pole at zero, from either side (as SciPy): -inf at +0, +inf at -0
    psi = np.where(x == 0, -np.copysign(np.inf, x), psi)
    return np.where(x == np.inf, np.inf, np.where(x == -np.inf, np.nan, psi))


def erf_inv64(y):
    """Inverse error function in float64: a closed-form first guess, then Halley steps
    on erf (|y| <= 1/2) or on erfc (the tails, where 1 - |y| is exact)."""
    y = np.asarray(y, np.float64)
    a = np.abs(y)
    inside = a < 1
    a_safe = np.where(inside, a, 0.5)
    # Winitzki's approximation (relative error ~2e-3), a series for small |y|.
    k = 0.147
    ln = np.log1p(-a_safe * a_safe)
    t = 2 / (np.pi * k) + ln / 2
    guess = np.sqrt(np.sqrt(t * t - ln / k) - t)
    small = a_safe < 1e-3
    guess = np.where(small, np.sqrt(np.pi) / 2 * a_safe * (1 + np.pi / 12 * a_safe ** 2), guess)
    tail = a_safe > 0.5
    target = np.where(tail, 1.0 - a_safe, a_safe)
    x = guess
    for _ in range(4):
        f = np.where(tail, erfc64(x) - target, erf64(x) - target)
        f = np.where(tail, -f, f)            # erfc decreases: step on erf - y = -(erfc - (1-y))
        dfdx = 2 / np.sqrt(np.pi) * np.exp(-x * x)
        ratio = np.where(dfdx > 0, f / np.where(dfdx > 0, dfdx, 1.0), 0.0)
        x = x - ratio / (1 + x * ratio)
    out = np.where(inside, x, np.where(a == 1, np.inf, np.nan))
    return np.copysign(out, y) * np.where(np.isnan(y), np.nan, 1.0)


def _apply_math(ufunc, x):
    """A scalar ``math`` function (wrapped by np.frompyfunc) over a float64 array."""
    return np.asarray(ufunc(np.asarray(x, np.float64).astype(object)), np.float64)


def erf64(x):
    return _apply_math(_math_erf, x)


def erfc64(x):
    return _apply_math(_math_erfc, x)


def lgamma64(x):
    return _apply_math(_math_lgamma, x)


def _bernoulli_coefficients(n):
    """B_2j / (2j)! for j = 1..n, from the Bernoulli numbers' recurrence (exact fractions)."""
    b = [Fraction(1)]
    for m in range(1, 2 * n + 1):
        b.append(-sum(Fraction(math.comb(m + 1, k)) * b[k] for k in range(m)) / (m + 1))
    return [float(b[2 * j] / math.factorial(2 * j)) for j in range(1, n + 1)]


_EM_COEFFS = _bernoulli_coefficients(12)


def zeta64(s, q):
    """Hurwitz zeta sum_k (q + k)^-s in float64 (Euler-Maclaurin after 12 explicit terms).

    s == 1 gives inf, s < 1 NaN (as XLA); q <= 0 gives inf at integers and NaN otherwise
    (XLA's expansion is wrong for most negative q, so the lowering masks those too)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    acc = np.zeros(s.shape)
    for k in range(12):
        acc = acc + (q + k) ** -s
    a = q + 12
    acc = acc + a ** (1 - s) / (s - 1) + 0.5 * a ** -s
    term = s * a ** (-s - 1)
    for j, c in enumerate(_EM_COEFFS, start=1):
        acc = acc + c * term
        term = term * (s + 2 * j - 1) * (s + 2 * j) / (a * a)
    acc = np.where(s == 1, np.inf, np.where(s < 1, np.nan, acc))
    acc = np.where(q <= 0, np.where(q == np.floor(q), np.inf, np.nan), acc)
    acc = np.where((q == np.inf) & (s > 1), 0.0, acc)
    # s = +inf: only the first term can survive, q^-inf (1 at q = 1, 0 above, inf below)
    at_inf = (s == np.inf) & (q > 0)
    acc = np.where(at_inf, np.where(q == 1, 1.0, np.where(q > 1, 0.0, np.inf)), acc)
    return np.where(np.isnan(s) | np.isnan(q), np.nan, acc)


def polygamma_shift_sum64(m, x):
    """sum_{j < K} (x + j)^-(m+1) with K = ceil(-x) for negative non-integer ``x`` (0
    elsewhere): the recurrence psi^(m)(x) = psi^(m)(x + K) - (-1)^m m! * this sum moves
    a negative argument to (0, 1), where the zeta form holds."""
    m, x = np.broadcast_arrays(np.asarray(m, np.float64), np.asarray(x, np.float64))
    shift = np.where((x < 0) & (x != np.floor(x)), np.ceil(-x), 0.0)
    total = np.zeros(x.shape)
    j = 0.0
    while np.any(j < shift):
        active = j < shift
        total = total + np.where(active, np.where(active, x + j, 1.0) ** -(m + 1), 0.0)
        j += 1.0
    return shift, total


def polygamma64(m, x):
    m, x = np.broadcast_arrays(np.asarray(m, np.float64), np.asarray(x, np.float64))
    valid = (m >= 0) & (m == np.floor(m))
    mm = np.where(valid, m, 1.0)
    sign = np.where(np.fmod(mm, 2) == 0, -1.0, 1.0)            # (-1)^(m+1)
    factorial = np.exp(lgamma64(mm + 1))
    factorial = np.where(mm < 25, np.round(factorial), factorial)
    shift, total = polygamma_shift_sum64(mm, x)
    out = sign * factorial * (zeta64(mm + 1, x + shift) + total)
    out = np.where(m == 0, digamma64(x), out)
    return np.where(valid, out, np.nan)
