"""Modified Bessel functions of the first kind of orders 0 and 1, written with ``lax``
operations (so their derivatives, batching and lowering are those of the operations):
``bessel_i0e``/``bessel_i1e`` (JAX's names, scaled by exp(-|x|)) and the unscaled
``bessel_i0``/``bessel_i1`` that ``numpy.i0`` and ``scipy.special.i0``/``i1`` use.

Below ``_SWITCH`` the power series (all terms positive) is summed in nested form, which
neither underflows nor overflows; above it the asymptotic expansion
I_v(x) e^-x sqrt(2 pi x) = 1 - (4v^2 - 1)/(8x) + ... converges to full precision.
"""

import math

from ..core import get_aval
from ._helpers import FLOAT, check_kinds, full_like
from .elementwise import abs, add, div, eq, exp, lt, mul, ne, neg, select, sqrt

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]

_SWITCH = 30.0
_SERIES_TERMS = 64
_ASYMPTOTIC_TERMS = 30


def _series(x, order):
    """sum_k (x^2/4)^k / (k! (k+order)!) times (x/2)^order, for order 0 or 1."""
    y = mul(mul(x, 0.25), x)
    s = full_like(x, 1.0)
    for k in range(_SERIES_TERMS, 0, -1):
        s = add(mul(div(y, k * (k + order)), s), 1.0)
    return s if order == 0 else mul(mul(x, 0.5), s)


def _asymptotic(ax, order):
    """I_order(ax) * exp(-ax) for ax >= _SWITCH."""
    inv = div(full_like(ax, 1.0), ax)
    s = full_like(ax, 1.0)
    for k in range(_ASYMPTOTIC_TERMS, 0, -1):
        s = add(mul(mul(inv, ((2 * k - 1) ** 2 - 4 * order * order) / (8.0 * k)), s), 1.0)
    return div(s, sqrt(mul(ax, 2.0 * math.pi)))


def _modified_bessel(name, x, order, scaled):
    check_kinds(name, get_aval(x), FLOAT)
    ax = abs(x)
    small = lt(ax, _SWITCH)
    xs = select(small, x, full_like(x, 0.0))
    series = _series(xs, order)
    if scaled:
        series = mul(series, exp(neg(abs(xs))))
    big = select(small, full_like(ax, _SWITCH), ax)
    asym = _asymptotic(big, order)
    if not scaled:
        # (big is >= _SWITCH or NaN: infinite exactly where it equals +inf)
        asym = select(eq(big, math.inf), full_like(big, math.inf), mul(asym, exp(big)))
    if order == 1:
        asym = select(lt(x, 0.0), neg(asym), asym)
    out = select(small, series, asym)
    return select(ne(x, x), x, out)


def bessel_i0(x):
    """I_0(x) elementwise (real floating ``x``)."""
    return _modified_bessel("bessel_i0", x, 0, scaled=False)


def bessel_i0e(x):
    """I_0(x) exp(-|x|) elementwise (real floating ``x``)."""
    return _modified_bessel("bessel_i0e", x, 0, scaled=True)


def bessel_i1(x):
    """I_1(x) elementwise (real floating ``x``)."""
    return _modified_bessel("bessel_i1", x, 1, scaled=False)


def bessel_i1e(x):
    """I_1(x) exp(-|x|) elementwise (real floating ``x``)."""
    return _modified_bessel("bessel_i1e", x, 1, scaled=True)
