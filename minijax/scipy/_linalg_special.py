"""The special-matrix constructors of ``scipy.linalg`` (``toeplitz``, ``pascal``, ...).

Two kinds of function live here:

- those built from array arguments (``toeplitz``, ``hankel``, ``circulant``, ``companion``,
  ``leslie``, ``fiedler``, ``fiedler_companion``, ``convolution_matrix``) are gathers of
  their inputs through index tables known from the shapes alone, so they trace, batch
  (over leading axes, and under ``vmap``) and differentiate like any other gather;
- those given only a size ``n`` (``hilbert``, ``invhilbert``, ``pascal``, ``invpascal``,
  ``dft``, ``hadamard``, ``helmert``) need ``n`` as a static Python int, since it sets
  the output's shape. The integer-valued ones are computed exactly with Python integers
  on the host and become constants of the program.
"""

import math

import numpy as np

from .. import _checks, dtypes
from .. import numpy as jnp
from ..core import concretization_error, get_concrete


class _ShapeError(ValueError, IndexError):
    """An argument of an unusable shape or size (a scalar where a vector is needed,
    ``helmert(0)``): SciPy's functions report these as an ``IndexError`` (from indexing
    inside them), JAX's as ``ValueError``; this is both."""


def _size(name, n, *, positive=False, floats=False):
    """``n`` as a static non-negative Python int (the size of ``name``'s output);
    ``floats``: a float of integral value is taken too (as SciPy's and JAX's ``name``
    take it), another float raises ``ValueError``."""
    value = get_concrete(n)
    if value is None:
        raise concretization_error(
            n, f"scipy.linalg.{name}: n sets the shape of the result, so it must be a "
               f"static Python int, not a traced value")
    if floats and np.ndim(value) == 0 and np.asarray(value).dtype.kind == "f":
        if not float(value).is_integer():
            raise ValueError(f"scipy.linalg.{name}: n must be an integer, got {value!r}")
        value = int(value)
    value = _checks.index(value, "n")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"scipy.linalg.{name}: n must be a "
                         f"{'positive' if positive else 'non-negative'} integer, got {value}")
    return value


def _vector(x):
    """``x`` as an array of at least one dimension (the last is the vector's)."""
    return jnp.atleast_1d(jnp.asarray(x))


def _concrete(x):
    """``x``'s values as a NumPy array, or ``None`` when traced."""
    value = get_concrete(x)
    return None if value is None else np.asarray(value)


def _batched(vectors, dtype):
    """The vectors cast to ``dtype`` and broadcast to one batch shape (their leading axes)."""
    batch = np.broadcast_shapes(*(v.shape[:-1] for v in vectors))
    return [jnp.broadcast_to(v.astype(dtype), batch + v.shape[-1:]) for v in vectors]


def _reject_bool(name, x, op="negative"):
    # SciPy negates or subtracts its input, which NumPy refuses for booleans
    if x.dtype == np.bool_:
        raise TypeError(f"scipy.linalg.{name}: the numpy boolean {op} is not supported "
                        f"(give a numeric array)")


# ------------------------------------------------------------- from array arguments

def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``r[0]`` is
    ignored; ``r = conj(c)`` by default, Hermitian for real ``c[0]``). Leading axes of
    ``c`` and ``r`` are batch axes, broadcast against each other (as SciPy >= 1.15 and
    JAX): the result is ``(..., len(c), len(r))``, of ``c`` and ``r``'s result dtype."""
    c = _vector(c)
    r = jnp.conj(c) if r is None else _vector(r)
    c, r = _batched([c, r], jnp.result_type(c, r))
    m, n = c.shape[-1], r.shape[-1]
    # vals = c reversed then r[1:], so that entry (i, j) is vals[m - 1 - i + j]
    vals = jnp.concatenate([jnp.flip(c, -1), r[..., 1:]], axis=-1)
    return vals[..., (m - 1) - np.arange(m)[:, None] + np.arange(n)]


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (``r[0]`` is ignored;
    zeros by default). Leading axes of ``c`` and ``r`` are batch axes, broadcast against
    each other, as in JAX -- SciPy 1.17 flattens them with a ``FutureWarning`` and plans
    to batch from 1.19. The result is ``(..., len(c), len(r))``, of the result dtype."""
    c = jnp.asarray(c)
    r = jnp.zeros_like(c) if r is None else jnp.asarray(r)
    for arg, x in (("c", c), ("r", r)):
        if x.ndim == 0:
            raise _ShapeError(f"scipy.linalg.hankel: {arg} must be at least 1-dimensional, "
                              f"got a scalar")
    c, r = _batched([c, r], jnp.result_type(c, r))
    m, n = c.shape[-1], r.shape[-1]
    vals = jnp.concatenate([c, r[..., 1:]], axis=-1)
    return vals[..., np.arange(m)[:, None] + np.arange(n)]


def circulant(c):
    """The circulant matrix with first column ``c``: entry ``(i, j)`` is
    ``c[(i - j) % n]``. Leading axes of ``c`` are batch axes: ``(..., n, n)``."""
    c = _vector(c)
    n = c.shape[-1]
    if n == 0:
        return jnp.zeros(c.shape + (0,), c.dtype)
    return c[..., (np.arange(n)[:, None] - np.arange(n)) % n]


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest degree
    first): first row ``-a[1:] / a[0]``, ones on the subdiagonal. ``a`` needs at least
    two coefficients; leading axes are batch axes. The dtype is SciPy's (integers give
    float64). A zero ``a[..., 0]`` raises ``ValueError`` as in SciPy where the values
    are known; under ``jit``/``vmap`` they are not, and it gives inf/NaN entries."""
    a = _vector(a)
    n = a.shape[-1]
    if n < 2:
        raise ValueError(f"scipy.linalg.companion: the length of `a` along the last axis "
                         f"must be at least 2, got shape {a.shape}")
    _reject_bool("companion", a)
    value = _concrete(a)
    if value is not None and np.any(value[..., 0] == 0):
        raise ValueError("scipy.linalg.companion: the first coefficient(s) of `a` "
                         "(a[..., 0]) must not be zero")
    first_row = jnp.negative(a[..., 1:]) / (a[..., :1] * 1.0)
    m = n - 1
    rows, cols = np.arange(m)[:, None], np.arange(m)
    ones = (rows == cols + 1).astype(first_row.dtype)
    return jnp.where(rows == 0, first_row[..., None, :], ones)


def leslie(f, s):
    """The Leslie matrix with fecundity coefficients ``f`` (its first row, length n) and
    survival coefficients ``s`` (its subdiagonal, length n - 1 >= 1). Leading axes of
    ``f`` and ``s`` are batch axes, broadcast against each other: ``(..., n, n)``."""
    f, s = _vector(f), _vector(s)
    if f.shape[-1] != s.shape[-1] + 1:
        raise ValueError(f"scipy.linalg.leslie: incorrect lengths for f and s: the length "
                         f"of s along the last axis must be one less than the length of f, "
                         f"got shapes {f.shape} and {s.shape}")
    if s.shape[-1] == 0:
        raise ValueError("scipy.linalg.leslie: the length of s must be at least 1")
    f, s = _batched([f, s], jnp.result_type(f, s))
    n = f.shape[-1]
    # vals = [0, f..., s...]: row 0 takes f, the subdiagonal s, the rest the zero
    vals = jnp.concatenate([jnp.zeros(f.shape[:-1] + (1,), f.dtype), f, s], axis=-1)
    rows, cols = np.arange(n)[:, None], np.arange(n)
    src = np.where(rows == 0, 1 + cols, np.where(rows == cols + 1, 1 + n + cols, 0))
    return vals[..., src]


def fiedler(a):
    """The symmetric Fiedler matrix ``|a[i] - a[j]|`` (leading axes of ``a`` are batch
    axes). As SciPy: an ``a`` of one element gives ``[[0.]]`` and an empty ``a`` the
    empty 1-d array, both float64; otherwise the dtype is that of ``abs(a - a)``."""
    a = _vector(a)
    if a.size == 0:
        return jnp.zeros((0,), dtypes.default_float())
    if a.size == 1:
        return jnp.zeros((1, 1), dtypes.default_float())
    _reject_bool("fiedler", a, "subtract")
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """The pentadiagonal Fiedler companion matrix of the polynomial with coefficients
    ``a`` (highest degree first); it has the same eigenvalues as ``companion(a)``.
    Leading axes are batch axes. As SciPy: fewer than two coefficients give an empty
    ``(..., 0)`` array of ``a``'s dtype; otherwise the dtype is that of ``a / a[0]``.
    A zero ``a[0]`` (with more than two coefficients) raises ``ValueError`` where the
    values are known; under ``jit``/``vmap`` it gives inf/NaN entries."""
    a = _vector(a)
    n = a.shape[-1]
    if n <= 1:
        return jnp.zeros(a.shape[:-1] + (0,), a.dtype)
    value = _concrete(a)
    if n > 2 and value is not None and np.any(value[..., 0] == 0):
        raise ValueError("scipy.linalg.fiedler_companion: leading coefficient is zero")
    a = a / a[..., :1]
    if n == 2:
        return jnp.negative(a[..., 1:])[..., None]
    m = n - 1
    # vals = [0, 1, -a[1], ..., -a[m]]: -a[k] sits at index k + 1
    neg = jnp.negative(a[..., 1:])
    vals = jnp.concatenate([jnp.zeros(neg.shape[:-1] + (1,), neg.dtype),
                            jnp.ones(neg.shape[:-1] + (1,), neg.dtype), neg], axis=-1)
    i, j = np.arange(m)[:, None], np.arange(m)
    even = i % 2 == 0
    src = np.select(
        [(i == 0) & (j == 0), (i == 1) & (j == 0),
         even & (j == i + 1), even & (j == i + 2),     # -a[i + 2] and 1 above the diagonal
         even & (i >= 2) & (j == i - 1),               # -a[i + 1] below it
         ~even & (i >= 3) & (j == i - 2)],             # and 1 two below
        [2, 1, i + 3, 1, i + 2, 1], 0)
    return vals[..., src]


def convolution_matrix(a, n, mode="full"):
    """The Toeplitz matrix ``A`` with ``A @ v == np.convolve(a, v, mode)`` for ``v`` of
    length ``n`` (a static positive int). ``mode``: 'full' (``m + n - 1`` rows),
    'same' (``max(m, n)``) or 'valid' (``max(m, n) - min(m, n) + 1``). Leading axes of
    ``a`` are batch axes; the dtype is ``a``'s. An empty batch gives an empty result
    (SciPy raises there, as for an empty ``a``)."""
    n = _size("convolution_matrix", n, positive=True)
    a = jnp.asarray(a)
    if a.size == 0 and (a.ndim <= 1 or a.shape[-1] == 0):
        raise ValueError("scipy.linalg.convolution_matrix: len(a) must be at least 1")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"scipy.linalg.convolution_matrix: mode must be one of 'full', "
                         f"'valid', 'same', got {mode!r}")
    if a.ndim == 0:
        raise _ShapeError("scipy.linalg.convolution_matrix: a must be at least "
                          "1-dimensional, got a scalar")
    m = a.shape[-1]
    if mode == "full":
        first, count = 0, m + n - 1
    elif mode == "same":
        first, count = (min(m, n) - 1) // 2, max(m, n)
    else:
        first, count = min(m, n) - 1, max(m, n) - min(m, n) + 1
    # row i of the full matrix holds a[i - j] in column j (zero outside 0 <= i - j < m)
    k = np.arange(first, first + count)[:, None] - np.arange(n)
    src = np.where((k >= 0) & (k < m), k, m)
    vals = jnp.concatenate([a, jnp.zeros(a.shape[:-1] + (1,), a.dtype)], axis=-1)
    return vals[..., src]


# ------------------------------------------------------------- from a size n

def _host_constant(values, dtype):
    return jnp.asarray(np.asarray(values, dtype=dtype))


def _exact_limit(name, n, limit):
    if n > limit:
        raise NotImplementedError(
            f"scipy.linalg.{name}(n={n}, exact=True): for n > {limit} the entries need "
            f"more than 64 bits, which SciPy returns as Python ints (an object array) "
            f"and minijax arrays cannot hold; use exact=False (float64)")


def _to_float(ints):
    """An object array of Python ints as float64, correctly rounded (inf past the range,
    where SciPy's floating-point arithmetic overflows too)."""
    def one(v):
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    return np.array([one(v) for v in ints.ravel().tolist()],
                    dtype=np.float64).reshape(ints.shape)


def _binomials(n):
    """``b[i, j] = C(i, j)`` for ``0 <= i, j < n`` as exact Python ints (object array),
    row by row through Pascal's rule."""
    b = np.zeros((n, n), dtype=object)
    if n:
        b[:, 0] = 1
    for i in range(1, n):
        b[i, 1:] = b[i - 1, 1:] + b[i - 1, :-1]
    return b


def hilbert(n):
    """The n x n Hilbert matrix ``1 / (i + j + 1)`` (float64; ``n`` a static int)."""
    n = _size("hilbert", n)
    i = jnp.arange(n, dtype=dtypes.default_float())
    return 1.0 / (i[:, None] + i + 1.0)


def invhilbert(n, exact=False):
    """The inverse of ``hilbert(n)``, from its closed form in exact integer arithmetic.
    float64, or int64 with ``exact=True`` -- which SciPy gives for ``n <= 14`` only;
    beyond, its Python-int (object) result has no minijax dtype: NotImplementedError."""
    n = _size("invhilbert", n)
    if exact:
        _exact_limit("invhilbert", n, 14)
    out = np.zeros((n, n), dtype=object)
    for i in range(n):
        for j in range(i + 1):
            s = i + j
            out[i, j] = out[j, i] = ((-1) ** s * (s + 1) * math.comb(n + i, n - j - 1)
                                     * math.comb(n + j, n - i - 1) * math.comb(s, i) ** 2)
    return _host_constant(out, np.int64) if exact else jnp.asarray(_to_float(out))


_KINDS = ("symmetric", "lower", "upper")


def _kind(name, kind):
    # None is JAX's spelling of the default
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        raise ValueError(f"scipy.linalg.{name}: kind must be 'symmetric', 'lower' or "
                         f"'upper', got {kind!r}")
    return kind


def pascal(n, kind="symmetric", exact=True):
    """The n x n Pascal matrix: 'lower' ``C(i, j)``, 'upper' its transpose, 'symmetric'
    ``C(i + j, i)`` (their product); ``kind=None`` means 'symmetric', as in JAX. With
    ``exact=True`` (the default) it is uint64, as SciPy's, which for ``n >= 35`` gives
    Python ints (an object array) that minijax cannot hold: NotImplementedError there.
    ``exact=False`` gives float64 (JAX's ``pascal`` is always float32)."""
    kind = _kind("pascal", kind)
    n = _size("pascal", n)
    if exact:
        _exact_limit("pascal", n, 34)
    if kind == "symmetric":
        i = np.arange(n)[:, None]
        ints = _binomials(max(2 * n - 1, 0))[i + np.arange(n), i] if n else _binomials(0)
    else:
        ints = _binomials(n)
        ints = ints.T if kind == "upper" else ints
    return _host_constant(ints, np.uint64) if exact else jnp.asarray(_to_float(ints))


def invpascal(n, kind="symmetric", exact=True):
    """The inverse of ``pascal(n, kind)``: 'lower' is ``(-1)**(i - j) C(i, j)``,
    'upper' its transpose, 'symmetric' the product ``upper @ lower``; ``kind=None``
    means 'symmetric'. int64 with ``exact=True`` (the default), for ``n <= 34`` as in
    SciPy (NotImplementedError beyond, where SciPy gives Python ints); float64 with
    ``exact=False``."""
    kind = _kind("invpascal", kind)
    n = _size("invpascal", n)
    if exact:
        _exact_limit("invpascal", n, 34)
    sign = np.where((np.arange(n)[:, None] + np.arange(n)) % 2, -1, 1).astype(object)
    lower = sign * _binomials(n)
    if kind == "symmetric":
        ints = lower.T @ lower if n else lower
    else:
        ints = lower.T if kind == "upper" else lower
    return _host_constant(ints, np.int64) if exact else jnp.asarray(_to_float(ints))


def dft(n, scale=None, *, dtype=None):
    """The n x n discrete Fourier transform matrix ``exp(-2πi jk / n)`` (``m @ x`` is
    ``fft(x)``), divided by ``sqrt(n)`` for ``scale='sqrtn'`` and by ``n`` for
    ``scale='n'``. complex128, or the complex ``dtype`` given (a JAX keyword). ``jk``
    is reduced modulo ``n`` in integers first, so the phases stay accurate for large n."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"scipy.linalg.dft: scale must be None, 'sqrtn', or 'n'; "
                         f"{scale!r} is not valid")
    n = _size("dft", n, floats=True)
    if dtype is None:
        dtype = np.result_type(dtypes.default_float(), np.complex64)
    dtype = np.dtype(dtype)
    if dtype.kind != "c":
        raise ValueError(f"scipy.linalg.dft: dtype must be a complex floating-point type, "
                         f"got {dtype}")
    k = np.arange(n)
    turns = (k[:, None] * k) % max(n, 1)
    phase = jnp.asarray(turns, dtypes.default_float()) * (-2 * np.pi / max(n, 1))
    m = jnp.cos(phase) + 1j * jnp.sin(phase)
    if scale == "sqrtn":
        m = m / math.sqrt(n)
    elif scale == "n":
        m = m / n
    return m.astype(dtype)


def hadamard(n, dtype=int):
    """The n x n Hadamard matrix of Sylvester's construction, ``(-1)**popcount(i & j)``,
    of ``dtype`` (NumPy's ``int`` by default; the -1s wrap in unsigned dtypes as in
    SciPy). ``n`` must be a power of 2."""
    n = _size("hadamard", n, floats=True)
    if n < 1 or n & (n - 1):
        raise ValueError(f"scipy.linalg.hadamard: n must be a positive integer and a "
                         f"power of 2, got {n}")
    dtype = np.dtype(dtype)
    if dtype == np.bool_ and n > 1:
        raise TypeError("scipy.linalg.hadamard: the numpy boolean negative is not "
                        "supported (dtype=bool needs n == 1)")
    k = np.arange(n)
    odd = np.bitwise_count(k[:, None] & k) % 2
    return _host_constant(np.where(odd, -1, 1).astype(dtype), dtype)


def helmert(n, full=False):
    """The Helmert matrix: rows ``k = 1 .. n-1`` are ``1 / sqrt(k (k + 1))`` in the first
    ``k`` columns and ``-k / sqrt(k (k + 1))`` in column ``k``; ``full=True`` puts the
    row ``1 / sqrt(n)`` first (an orthogonal n x n matrix). float64, ``(n - 1, n)``
    by default; ``n`` must be positive."""
    n = _size("helmert", n)
    if n == 0:
        raise _ShapeError("scipy.linalg.helmert: n must be a positive integer, got 0")
    k = jnp.arange(n, dtype=dtypes.default_float())
    rows, cols = k[:, None], k
    d = jnp.where(k == 0, float(n), k * (k + 1.0))
    h = jnp.where(cols < rows, 1.0, jnp.where(cols == rows, -rows, 0.0))
    h = jnp.where(rows == 0, 1.0, h) / jnp.sqrt(d)[:, None]
    return h if full else h[1:]
