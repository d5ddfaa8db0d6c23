"""NumPy's polynomial functions (``numpy.lib.polynomial``): coefficients are 1-d arrays
with the highest power first. ``poly1d`` wraps them in a class with arithmetic.

Everything with a static output shape (``polyval``, ``polyadd``, ``polymul``,
``polyder``, ``polyint``, ``polyfit``, ``vander``-based fits) is written with minijax
operations and traces; ``roots`` (unless ``strip_zeros=False``) and the trimmed
remainder of ``polydiv`` depend on the values and need concrete inputs.
"""

import sys
import warnings

import numpy as np

from .. import _checks, dtypes
from ..core import Tracer, concretization_error, get_aval, get_concrete
from ..errors import RecursionLimitError
from ..runtime.array import Array
from . import linalg
from ._core import to_array
from ._creation import arange, eye, ones, vander, zeros, zeros_like
from ._elementwise import real, sqrt
from ._manipulation import atleast_1d, concatenate, pad
from ._signal import convolve


def _is_poly1d(*ps):
    return any(isinstance(p, poly1d) for p in ps)


def _coeffs(p):
    return p.coeffs if isinstance(p, poly1d) else p


def _atleast_1d(p):
    return atleast_1d(to_array(_coeffs(p)))


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (or the
    characteristic polynomial of a square matrix)."""
    if np.ndim(seq_of_zeros) == 0:   # NumPy's dispatcher iterates over the argument
        raise TypeError(f"poly: seq_of_zeros must be a sequence of roots or a square "
                        f"matrix, got the scalar {seq_of_zeros!r}")
    seq = _atleast_1d(seq_of_zeros)
    shape = get_aval(seq).shape
    real_matrix = False
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        real_matrix = not dtypes.is_complex(get_aval(seq).dtype)
        seq = linalg.eigvals(seq)
    elif len(shape) == 1:
        dt = get_aval(seq).dtype
        if not dtypes.is_inexact(dt) or dt == np.float16:
            seq = seq.astype(np.float64)
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    n = get_aval(seq).shape[0]
    if n == 0:
        return 1.0
    dt = get_aval(seq).dtype
    a = ones((1,), dtype=dt)
    for i in range(n):
        # multiply by (x - zero): shift up and subtract zero times the old coefficients
        a = concatenate([a, zeros((1,), dt)]) - seq[i] * concatenate([zeros((1,), dt), a])
    if real_matrix:   # (its eigenvalues come in conjugate pairs, as LAPACK gives them)
        a = real(a)
    elif dtypes.is_complex(dt):
        roots_ = get_concrete(seq)
        if roots_ is None:
            raise concretization_error(
                seq, "poly() of traced complex roots: whether the result is real depends on "
                "the values (conjugate pairs); call it outside jit or pass real roots")
        roots_ = np.asarray(roots_)
        if np.all(np.sort(roots_) == np.sort(roots_.conjugate())):
            a = real(a)
    return a


def roots(p, *, strip_zeros=True):
    """The roots of the polynomial with coefficients ``p``: the eigenvalues of its
    companion matrix, differentiable. NumPy's leading and trailing zeros are stripped
    (``strip_zeros=True``), which needs concrete coefficients; with
    ``strip_zeros=False`` (as in JAX) it traces, a leading zero giving non-finite
    roots, and the result is always complex."""
    if isinstance(p, poly1d):
        p = p.coeffs
    p = to_array(p)
    if get_aval(p).ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    trailing = 0
    if strip_zeros:
        value = get_concrete(p)
        if value is None:
            raise concretization_error(
                p, "roots() of traced coefficients: how many roots there are depends on "
                "their zeros; pass strip_zeros=False (zeros are then not stripped), or "
                "call it outside jit")
        value = np.asarray(value)
        nonzero = np.nonzero(value)[0]
        if len(nonzero) == 0:
            return to_array(np.roots(value))
        trailing = len(value) - 1 - int(nonzero[-1])
        p = p[int(nonzero[0]):int(nonzero[-1]) + 1]
    if not dtypes.is_inexact(get_aval(p).dtype):
        p = p.astype(dtypes.canonicalize(np.dtype(np.float64)))
    n = get_aval(p).shape[0]
    if n > 1:
        companion = concatenate([(-p[1:] / p[0])[None, :],
                                 eye(n - 2, n - 1, dtype=get_aval(p).dtype)])
        found = linalg.eigvals(companion)
        if strip_zeros and not np.any(np.asarray(get_concrete(found)).imag):
            found = real(found)   # (NumPy's dtype: real when every root is)
    else:
        found = zeros((0,), get_aval(p).dtype)
    return concatenate([found, zeros((trailing,), get_aval(found).dtype)])


def polyval(p, x):
    """The polynomial ``p`` (highest power first) evaluated at ``x`` (Horner's scheme)."""
    if isinstance(p, poly1d):
        p = p.coeffs
    p = to_array(p)
    if get_aval(p).ndim == 0:
        raise TypeError("polyval: p must be a sequence of coefficients (highest power "
                        "first), got a 0-d value")
    if isinstance(x, poly1d):
        y = 0
    else:
        x = to_array(x)
        y = zeros_like(x)
    for i in range(get_aval(p).shape[0]):
        y = y * x + p[i]
    return y


def _aligned(a1, a2):
    a1, a2 = _atleast_1d(a1), _atleast_1d(a2)
    n1, n2 = get_aval(a1).shape[0], get_aval(a2).shape[0]
    shorter = a1 if n1 < n2 else a2
    if n1 != n2 and get_aval(shorter).ndim != 1:   # NumPy prepends zeros by concatenating
        raise ValueError(f"all the input arrays must have same number of dimensions, but "
                         f"the shorter polynomial has {get_aval(shorter).ndim} dimensions "
                         f"and the zeros that pad it have 1")
    if n1 < n2:
        a1 = pad(a1, (n2 - n1, 0))
    elif n2 < n1:
        a2 = pad(a2, (n1 - n2, 0))
    return a1, a2


def polyadd(a1, a2):
    """The sum of two polynomials (a ``poly1d`` if either is one)."""
    x, y = _aligned(a1, a2)
    out = x + y
    return poly1d(out) if _is_poly1d(a1, a2) else out


def polysub(a1, a2):
    """The difference of two polynomials (a ``poly1d`` if either is one)."""
    x, y = _aligned(a1, a2)
    out = x - y
    return poly1d(out) if _is_poly1d(a1, a2) else out


def polymul(a1, a2, *, trim_leading_zeros=True):
    """The product of two polynomials (a ``poly1d`` if either is one). As in NumPy,
    leading zero coefficients are dropped first (when they are concrete; not with
    ``trim_leading_zeros=False``, JAX's default)."""
    if _checks.flag(trim_leading_zeros, "trim_leading_zeros"):
        x, y = poly1d(a1).coeffs, poly1d(a2).coeffs
    else:
        x, y = _atleast_1d(a1), _atleast_1d(a2)
    kinds = {get_aval(x).dtype.kind, get_aval(y).dtype.kind}
    if "c" in kinds or "b" in kinds:   # convolve takes neither: sum the shifted rows
        out = _convolve_by_shifts(x, y)
    else:
        out = convolve(x, y)
    return poly1d(out) if _is_poly1d(a1, a2) else out


def _convolve_by_shifts(x, y):
    n, m = get_aval(x).shape[0], get_aval(y).shape[0]
    out = None
    for i in range(n):
        term = pad(x[i] * y, (i, n - 1 - i))
        out = term if out is None else out + term
    return out if m else x[:0] * y[:0]


def polydiv(u, v, *, trim_leading_zeros=True):
    """Quotient and remainder of the division of polynomial ``u`` by ``v``. The
    remainder's leading (near-)zeros are trimmed, as NumPy's, so it needs concrete
    values; with ``trim_leading_zeros=False`` (JAX's default) it keeps the length of
    ``u`` and traces."""
    trim = _checks.flag(trim_leading_zeros, "trim_leading_zeros")
    truepoly = _is_poly1d(u, v)
    u = _atleast_1d(u) + 0.0
    v = _atleast_1d(v) + 0.0
    w = u[0] + v[0]
    dt = get_aval(w).dtype
    m, n = get_aval(u).shape[0] - 1, get_aval(v).shape[0] - 1
    scale = 1.0 / v[0]
    q = zeros((max(m - n + 1, 1),), dt)
    r = u.astype(dt)
    for k in range(m - n + 1):
        d = scale * r[k]
        q = q.at[k].set(d)
        r = r.at[k:k + n + 1].add(-(d * v))
    if trim:
        r = _trimmed_remainder(r)
    if truepoly:
        return poly1d(q), poly1d(r)
    return q, r


def _trimmed_remainder(r):
    """NumPy's remainder of polydiv: without its leading (near-)zeros."""
    rv = get_concrete(r) if isinstance(r, (Array, Tracer)) else r
    if rv is None:
        raise concretization_error(
            r, "polydiv() of traced polynomials: the remainder's length depends on its "
            "leading zeros; pass trim_leading_zeros=False (the remainder keeps the length "
            "of u), or call it outside jit")
    rv = np.asarray(rv)
    start = 0
    while np.allclose(rv[start], 0, rtol=1e-14) and rv.shape[-1] - start > 1:
        start += 1
    return r[start:]


def polyder(p, m=1):
    """The ``m``-th derivative of polynomial ``p``."""
    m = _order(m, "derivative")
    truepoly = _is_poly1d(p)
    p = to_array(_coeffs(p))
    if m > sys.getrecursionlimit():
        raise RecursionLimitError(
            f"polyder: m={m} derivatives: NumPy takes one recursive call per derivative "
            f"and exceeds the recursion limit ({sys.getrecursionlimit()}) here. Every "
            f"derivative of order len(p) or more is the empty polynomial, p[:0]")
    # past order len(p) the coefficients stay empty
    for _ in range(min(m, get_aval(p).shape[0] + 1)):
        n = get_aval(p).shape[0] - 1
        p = p[:-1] * arange(n, 0, -1)
    return poly1d(p) if truepoly else p


def _order(m, what):
    m = int(m)
    if m < 0:
        raise ValueError(f"Order of {what} must be positive (see polyint)"
                         if what == "integral" else
                         "Order of derivative must be positive (see polyint)")
    return m


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of ``p``; ``k`` holds the integration constants
    (a scalar is used for every order, a sequence needs ``m`` of them)."""
    m = _order(m, "integral")
    if k is None:
        k = zeros(m, np.float64)
    k = atleast_1d(to_array(k))
    if get_aval(k).shape[0] == 1 and m > 1:
        k = k[0] * ones(m, np.float64)
    if get_aval(k).shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    truepoly = _is_poly1d(p)
    p = to_array(_coeffs(p))
    for i in range(m):
        n = get_aval(p).shape[0]
        p = concatenate([p / arange(n, 0, -1), k[i:i + 1]])
    return poly1d(p) if truepoly else p


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares fit of a polynomial of degree ``deg`` to points (``x``, ``y``);
    ``y`` may be 2-d (one fit per column). ``full`` adds the diagnostics of ``lstsq``
    and ``rcond``; ``cov`` adds the covariance of the coefficients (``"unscaled"``:
    without the residual variance factor)."""
    order = int(deg) + 1
    x = to_array(x) + 0.0
    y = to_array(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if get_aval(x).ndim != 1:
        raise TypeError("expected 1D vector for x")
    if get_aval(x).size == 0:
        raise TypeError("expected non-empty vector for x")
    if get_aval(y).ndim < 1 or get_aval(y).ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    n = get_aval(x).shape[0]
    if n != get_aval(y).shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = n * np.finfo(get_aval(x).dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = to_array(w) + 0.0
        if get_aval(w).ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if get_aval(w).shape[0] != n:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if get_aval(rhs).ndim == 2 else w)
    scale = sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    rank_value = get_concrete(rank)
    if rank_value is not None and int(np.asarray(rank_value)) != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if cov:
        base = linalg.inv(lhs.T @ lhs) / (scale[:, None] * scale[None, :])
        if cov == "unscaled":
            fac = 1
        else:
            if n <= order:
                raise ValueError("the number of data points must exceed order to scale "
                                 "the covariance matrix")
            fac = resids / (n - order)
        if get_aval(y).ndim == 1:
            return c, base * fac
        return c, base[:, :, None] * fac
    return c


class poly1d:
    """A polynomial as an object: ``poly1d([1, 2, 3])`` is x² + 2x + 3.
    ``poly1d(r, True)`` builds it from its roots; ``variable`` names x when printed.
    Supports calls, arithmetic with polynomials and scalars, ``**`` by an integer,
    indexing by power (``p[k]`` is the coefficient of x**k), ``deriv`` and ``integ``."""

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable
            self._coeffs = c_or_r._coeffs
            if variable is not None:
                self._variable = variable
            return
        if r:
            c_or_r = poly(c_or_r)
        c_or_r = atleast_1d(to_array(c_or_r))
        if get_aval(c_or_r).ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        self._coeffs = _trim_leading_zeros(c_or_r)
        self._variable = "x" if variable is None else variable

    @property
    def coeffs(self):
        """The coefficients, highest power first."""
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value):
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    c = coef = coefficients = coeffs

    @property
    def variable(self):
        """The name of the variable when printed."""
        return self._variable

    @property
    def order(self):
        """The degree of the polynomial (traced coefficients: their count - 1, since
        their leading zeros cannot be dropped)."""
        return get_aval(self._coeffs).shape[0] - 1

    o = order

    @property
    def roots(self):
        """The roots (needs concrete coefficients)."""
        return roots(self._coeffs)

    r = roots

    def __array__(self, t=None, copy=None):
        value = np.asarray(self._coeffs)
        return value if t is None else value.astype(t)

    def __len__(self):
        return self.order

    def __call__(self, val):
        return polyval(self._coeffs, val)

    def __neg__(self):
        return poly1d(-self._coeffs)

    def __pos__(self):
        return self

    def __mul__(self, other):
        if _is_scalar(other):
            return poly1d(self._coeffs * other)
        return poly1d(polymul(self._coeffs, _coeffs(poly1d(other))))

    def __rmul__(self, other):
        if _is_scalar(other):
            return poly1d(other * self._coeffs)
        return poly1d(polymul(_coeffs(poly1d(other)), self._coeffs))

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, _coeffs(poly1d(other))))

    __radd__ = __add__

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, _coeffs(poly1d(other))))

    def __rsub__(self, other):
        return poly1d(polysub(_coeffs(poly1d(other)), self._coeffs))

    def __pow__(self, val):
        if not _is_scalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = to_array([1])
        for _ in range(int(val)):
            res = polymul(self._coeffs, res)
        return poly1d(res)

    def __truediv__(self, other):
        if _is_scalar(other):
            return poly1d(self._coeffs / other)
        return polydiv(self, poly1d(other))

    __div__ = __truediv__

    def __rtruediv__(self, other):
        if _is_scalar(other):
            return poly1d(other / self._coeffs)
        return polydiv(poly1d(other), self)

    __rdiv__ = __rtruediv__

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        a, b = self._coeffs, other._coeffs
        if isinstance(a, Tracer) or isinstance(b, Tracer):
            # traced coefficients keep their leading zeros: compare them padded
            n = max(get_aval(a).shape[0], get_aval(b).shape[0])
            a, b = (concatenate((zeros(n - get_aval(c).shape[0], get_aval(c).dtype), c))
                    for c in (a, b))
        elif get_aval(a).shape != get_aval(b).shape:
            return False
        return bool((a == b).all())

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val):
        ind = self.order - val
        if val > self.order or val < 0:
            return get_aval(self._coeffs).dtype.type(0)
        return self._coeffs[ind]

    def __setitem__(self, key, val):
        ind = self.order - key
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            zr = zeros(key - self.order, get_aval(self._coeffs).dtype)
            self._coeffs = concatenate((zr, self._coeffs))
            ind = 0
        self._coeffs = self._coeffs.at[ind].set(val)

    def __iter__(self):
        return iter(self._coeffs)

    def integ(self, m=1, k=0):
        """The ``m``-th antiderivative (integration constants ``k``)."""
        return poly1d(polyint(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        """The ``m``-th derivative."""
        return poly1d(polyder(self._coeffs, m=m))

    def __repr__(self):
        return repr(np.poly1d(np.asarray(self._coeffs), variable=self._variable))

    def __str__(self):
        return str(np.poly1d(np.asarray(self._coeffs), variable=self._variable))


def _is_scalar(x):
    return isinstance(x, (int, float, complex, np.number)) or (
        isinstance(x, (Array, Tracer)) and get_aval(x).ndim == 0)


def _trim_leading_zeros(c):
    """NumPy's poly1d drops leading zero coefficients (keeping at least one)."""
    if isinstance(c, Tracer):
        # traced (also under grad/jvp, whose primal is known: dropping a zero
        # coefficient there would drop its derivative): kept as given
        return c
    value = np.asarray(get_concrete(c))
    nz = np.flatnonzero(value)
    if len(nz) == 0:
        return to_array(np.array([0], dtype=value.dtype))
    return c[int(nz[0]):]
