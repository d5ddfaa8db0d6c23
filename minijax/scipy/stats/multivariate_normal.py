"""The multivariate normal distribution (``x`` has the event on its last axis).

``cdf`` and ``logcdf`` integrate the density over the box ``lower_limit < X <= x``: in one
dimension by ``ndtr``, in two by Genz's bivariate normal algorithm (Gauss-Legendre
quadrature of Drezner and Wesolowsky's integral over the correlation), and from three
dimensions on by Genz's separation of variables — the box probability becomes an integral
over the unit cube of a product of univariate normal probabilities, conditioned one
variable at a time through a Cholesky factor whose variables are reordered so the
narrowest conditional interval comes first — integrated by randomised quasi-Monte Carlo:
a Richtmyer (Kronecker) sequence with the tent (baker's) transform, repeated under
several random shifts whose spread gives the error estimate. The integrand is evaluated
in log space, so ``logcdf`` stays finite where ``cdf`` underflows.
"""

import math
from functools import partial

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...api import jit, vjp, vmap
from ...core.trace import get_concrete
from ...custom_derivatives import custom_jvp, custom_vjp
from ...lax import linalg as lax_linalg
from ..special import log_ndtr, logsumexp, ndtr
from .._util import promote_inexact
from . import norm
from ._common import log_ndtr_diff, log_ndtr_each, lower_tail_ndtri

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _event_arrays(name, x, mean, cov):
    """``x, mean, cov`` promoted, with ``cov`` a full ``(n, n)`` matrix."""
    x, mean, cov = promote_inexact(x, mean, cov)
    n = mean.shape[-1]
    if cov.ndim == 0:
        cov = cov * jnp.eye(n, dtype=cov.dtype)
    elif cov.ndim == 1:
        cov = jnp.diag(cov)
    if cov.shape != (n, n) or mean.ndim != 1 or x.shape[-1:] != (n,):
        raise ValueError(f"multivariate_normal.{name}: shapes x {x.shape}, mean {mean.shape}, "
                         f"cov {cov.shape} do not describe {n}-dimensional events (batches of "
                         "means or covariances are not supported)")
    return x, mean, cov


def _spectrum_cutoff(spectrum):
    """SciPy's threshold below which an eigenvalue of ``cov`` counts as zero."""
    factor = 1e6 if spectrum.dtype == np.float64 else 1e3
    return factor * np.finfo(spectrum.dtype).eps * jnp.max(jnp.abs(spectrum))


def _singular_logpdf(x, mean, cov):
    """The density on the support of a possibly singular ``cov`` (its range around
    ``mean``), from the eigendecomposition: the pseudo-determinant and the pseudo-inverse
    over the eigenvalues above the cutoff; ``-inf`` off the support, as SciPy."""
    n = mean.shape[-1]
    vectors, spectrum = lax_linalg.eigh(cov)
    eps = _spectrum_cutoff(spectrum)
    kept = spectrum > eps
    safe = jnp.where(kept, spectrum, 1.0)
    rank = jnp.sum(kept.astype(spectrum.dtype))
    log_pdet = jnp.sum(jnp.where(kept, jnp.log(safe), 0.0))
    batch = x.shape[:-1]
    coords = (x - mean).reshape((-1, n)) @ vectors
    maha = jnp.sum(jnp.where(kept, coords * coords / safe, 0.0), axis=-1).reshape(batch)
    residual = jnp.sqrt(jnp.sum(jnp.where(kept, 0.0, coords * coords), axis=-1)).reshape(batch)
    out = -0.5 * (rank * math.log(2 * math.pi) + log_pdet + maha)
    return jnp.where(residual < eps, out, -jnp.inf)


def logpdf(x, mean, cov, allow_singular=False):
    """Log of the density; ``cov`` is a matrix, a vector (diagonal) or a scalar.

    A concrete singular ``cov`` raises ``LinAlgError`` unless ``allow_singular=True``,
    which gives SciPy's degenerate density: normalised on the range of ``cov`` (through
    its eigendecomposition), ``-inf`` off it."""
    x, mean, cov = promote_inexact(x, mean, cov)
    if mean.ndim == 0:
        if cov.ndim != 0:
            raise ValueError("multivariate_normal: a scalar mean needs a scalar cov")
        if allow_singular:
            return logpdf(x[..., None], mean[None], cov, allow_singular)
        return norm.logpdf(x, mean, jnp.sqrt(cov))
    x, mean, cov = _event_arrays("logpdf", x, mean, cov)
    _check_covariance("logpdf", cov, allow_singular)
    if allow_singular:
        return _singular_logpdf(x, mean, cov)
    n = mean.shape[-1]
    batch = x.shape[:-1]
    centered = (x - mean).reshape((-1, n)).T
    chol = lax_linalg.cholesky(cov)
    white = lax_linalg.triangular_solve(chol, centered, left_side=True, lower=True)
    maha = jnp.sum(white * white, axis=0).reshape(batch)
    log_det = jnp.sum(jnp.log(jnp.diagonal(chol)))
    return -0.5 * maha - log_det - 0.5 * n * math.log(2 * math.pi)


def pdf(x, mean, cov, allow_singular=False):
    """The density (``allow_singular`` as in ``logpdf``)."""
    return jnp.exp(logpdf(x, mean, cov, allow_singular))


@custom_jvp
def _rank_and_log_pdet(cov):
    """The numerical rank of ``cov`` and the log of its pseudo-determinant."""
    spectrum = lax_linalg.eigh(cov)[1]
    kept = spectrum > _spectrum_cutoff(spectrum)
    rank = jnp.sum(kept.astype(spectrum.dtype))
    return rank, jnp.sum(jnp.where(kept, jnp.log(jnp.where(kept, spectrum, 1.0)), 0.0))


@_rank_and_log_pdet.defjvp
def _rank_and_log_pdet_jvp(primals, tangents):
    # d log pdet = tr(pinv(cov) dcov), without the eigenvectors' derivatives (which are
    # undefined where eigenvalues repeat, as the zero ones of a singular cov do)
    (cov,), (dcov,) = primals, tangents
    rank, log_pdet = _rank_and_log_pdet(cov)
    return (rank, log_pdet), (jnp.zeros_like(rank), jnp.sum(_pinvh(cov) * dcov))


@custom_jvp
def _pinvh(cov):
    """The pseudo-inverse of symmetric ``cov`` over its eigenvalues above the cutoff."""
    vectors, spectrum = lax_linalg.eigh(cov)
    kept = spectrum > _spectrum_cutoff(spectrum)
    inv = jnp.where(kept, 1.0 / jnp.where(kept, spectrum, 1.0), 0.0)
    return (vectors * inv) @ vectors.T


@_pinvh.defjvp
def _pinvh_jvp(primals, tangents):
    # the derivative of the pseudo-inverse at constant rank (Golub and Pereyra), written
    # with the pseudo-inverse itself so that every order is defined
    (cov,), (dcov,) = primals, tangents
    dcov = 0.5 * (dcov + dcov.T)
    pinv = _pinvh(cov)
    eye = jnp.eye(cov.shape[-1], dtype=cov.dtype)
    null = eye - pinv @ cov
    sq = pinv @ pinv
    return pinv, -pinv @ dcov @ pinv + sq @ dcov @ null.T + null @ dcov @ sq


def entropy(mean=None, cov=1):
    """The differential entropy ``(rank (1 + log 2 pi) + log pdet(cov)) / 2``; a singular
    ``cov`` counts its range only, as SciPy."""
    if mean is None:
        cov, = promote_inexact(cov)
        mean = jnp.zeros((), cov.dtype)
    mean, cov = promote_inexact(mean, cov)
    if mean.ndim == 0:
        mean = jnp.zeros(cov.shape[-1] if cov.ndim else 1, mean.dtype) + mean
    _, mean, cov = _event_arrays("entropy", mean, mean, cov)
    _check_covariance("entropy", cov, True)
    rank, log_pdet = _rank_and_log_pdet(cov)
    return 0.5 * (rank * (1.0 + math.log(2 * math.pi)) + log_pdet)


# ---------------------------------------------------------------- cdf / logcdf

def cdf(x, mean=None, cov=1, allow_singular=False, maxpts=None, abseps=1e-5, releps=1e-5, *,
        lower_limit=None, rng=None):
    """The probability of the box ``lower_limit < X <= x`` (``lower_limit`` defaults to
    ``-inf``), with SciPy's signature and meaning.

    ``x`` has the components on its last axis (any batch shape in front); a 1-d ``x`` is
    one point, or, for a one-dimensional distribution, a batch of points. The output is
    squeezed as SciPy squeezes it. Where a component of ``lower_limit`` exceeds that of
    ``x`` the two are swapped and the sign of the result flips for each swap, as in SciPy.

    One and two dimensions are computed to full precision. From three on, the result is a
    quasi-Monte Carlo estimate: lattice points are added in blocks (``10`` random shifts
    of ``100 * dim`` points each) until three standard errors across the shifts fall
    below ``max(abseps, releps * cdf)`` or ``maxpts`` points (default ``1000000 * dim``)
    have been used. The loop runs compiled, the same way eagerly and under ``jit`` (where
    ``abseps`` and ``releps`` may be traced; ``maxpts`` must be a Python int). The points
    are fixed unless ``rng`` (a NumPy ``Generator``, ``RandomState`` or seed) draws the
    shifts (one and two dimensions are exact: there ``rng`` is checked but not needed),
    so eager, ``jit`` and ``vmap`` results agree, and for those points the
    estimate is a smooth function of ``x``, ``mean`` and ``cov``: ``grad`` differentiates
    it exactly (reverse mode; the stopping rule runs in a ``while_loop``, so forward mode
    is not available above two dimensions). Far in the tails the integrand is
    heavy-tailed and the shifts can underestimate the error (in three dimensions at
    ``x = -10`` a relative error near ``1e-4`` where ``1e-5`` was asked).

    ``allow_singular=False`` rejects a singular ``cov`` with ``LinAlgError`` and any
    ``cov`` that is not positive semidefinite with ``ValueError`` when its values are
    known (outside ``jit``); a traced singular ``cov`` is integrated as with
    ``allow_singular=True`` (the degenerate directions become indicator factors).
    """
    log_p, sign, squeeze = _box_log_probability("cdf", x, mean, cov, allow_singular, maxpts,
                                                abseps, releps, lower_limit, rng)
    return squeeze(sign * jnp.exp(log_p))


def logcdf(x, mean=None, cov=1, allow_singular=False, maxpts=None, abseps=1e-5, releps=1e-5, *,
           lower_limit=None, rng=None):
    """Log of ``cdf``, with its arguments.

    Accurate far in the lower tail where ``cdf`` underflows: to full precision in one and
    two dimensions (below ``1e-12`` the bivariate probability is integrated in log space
    by tanh-sinh quadrature); from three on it is the log of the quasi-Monte Carlo
    estimate, and since the error of a log is the relative error of its argument, the
    points are added until three standard errors fall below ``max(abseps, releps)``
    times the estimate (rather than ``cdf``'s absolute ``abseps``, which a tiny
    probability meets at once); see ``cdf`` on the far tails.

    A negative ``cdf`` (an odd number of swapped limits) has a complex log, as in SciPy:
    when the limits are known the result is then complex (``log|cdf| + i pi``); under
    ``jit`` with a traced ``lower_limit`` the dtype cannot depend on values, so such
    entries are NaN.
    """
    log_p, sign, squeeze = _box_log_probability("logcdf", x, mean, cov, allow_singular, maxpts,
                                                abseps, releps, lower_limit, rng)
    concrete_sign = get_concrete(sign)
    if concrete_sign is not None and np.any(np.asarray(concrete_sign) < 0):
        complex_dtype = jnp.result_type(log_p.dtype, np.complex64)
        return squeeze(log_p.astype(complex_dtype) + jnp.where(sign < 0, 1j * math.pi, 0.0))
    return squeeze(jnp.where(sign < 0, jnp.nan, log_p))


_N_SHIFTS = 10
_SHIFT_SEED = 20_040_527   # the fixed shifts used when no rng is given


def _first_primes(count):
    primes, candidate = [], 2
    while len(primes) < count:
        if all(candidate % p for p in primes if p * p <= candidate):
            primes.append(candidate)
        candidate += 1
    return primes


def _process_arguments(name, x, mean, cov, lower_limit):
    """``x``, ``mean``, ``cov`` and the lower limits as SciPy reads them: the dimension
    from ``mean`` (or else ``cov``), a scalar or vector ``cov`` expanded to a matrix."""
    where = f"multivariate_normal.{name}"
    if mean is None:
        cov_shape = np.shape(cov)
        dim = 1 if len(cov_shape) < 2 else cov_shape[0]
        mean = np.zeros(dim)
    else:
        dim = math.prod(np.shape(mean))
    args = [x, mean, cov] + ([] if lower_limit is None else [lower_limit])
    x, mean, cov, *rest = promote_inexact(*args)
    if dim == 1:
        if mean.size != 1 or cov.size != 1:
            raise ValueError(f"{where}: a one-dimensional distribution needs one mean and one "
                             f"variance, got mean {mean.shape} and cov {cov.shape}")
        mean, cov = mean.reshape(1), cov.reshape(1, 1)
    if mean.ndim != 1 or mean.shape[0] != dim:
        raise ValueError(f"{where}: mean must be a vector of length {dim}, got shape "
                         f"{mean.shape}")
    if cov.ndim == 0:
        cov = cov * jnp.eye(dim, dtype=cov.dtype)
    elif cov.ndim == 1:
        if cov.shape != (dim,):
            raise ValueError(f"{where}: a vector cov is the diagonal and needs length {dim}, "
                             f"got shape {cov.shape}")
        cov = jnp.diag(cov)
    elif cov.shape != (dim, dim):
        raise ValueError(f"{where}: cov must be a ({dim}, {dim}) matrix for a {dim}-dimensional "
                         f"mean, got shape {cov.shape}")
    if x.ndim == 0:
        x = x.reshape(1)
    if x.ndim == 1:
        x = x.reshape((-1, 1)) if dim == 1 else x.reshape((1, -1))
    if x.shape[-1] != dim:
        raise ValueError(f"{where}: x must have the {dim} components of each point on its "
                         f"last axis, got shape {x.shape}")
    lower = jnp.full(x.shape, -jnp.inf, dtype=x.dtype) if lower_limit is None else rest[0]
    try:
        shape = np.broadcast_shapes(x.shape, lower.shape)
    except ValueError:
        raise ValueError(f"{where}: lower_limit of shape {lower.shape} does not broadcast "
                         f"with x of shape {x.shape}") from None
    if shape[-1:] != (dim,):
        raise ValueError(f"{where}: lower_limit of shape {lower.shape} does not give the {dim} "
                         f"components of each point")
    return jnp.broadcast_to(x, shape), mean, cov, jnp.broadcast_to(lower, shape)


def _check_covariance(name, cov, allow_singular):
    """SciPy's checks of a concrete ``cov``: symmetric positive semidefinite, and
    nonsingular unless ``allow_singular`` (eigenvalues below ``1e6 * eps * max|eigenvalue|``
    count as zero, ``1e3`` in single precision)."""
    value = get_concrete(cov)
    if value is None:
        return
    value = np.asarray(value)
    if not np.all(np.isfinite(value)):
        raise ValueError(f"multivariate_normal.{name}: cov must be finite")
    spectrum = np.linalg.eigvalsh(value)
    factor = 1e6 if value.dtype == np.float64 else 1e3
    eps = factor * np.finfo(value.dtype).eps * np.max(np.abs(spectrum))
    if np.min(spectrum) < -eps:
        raise ValueError(f"multivariate_normal.{name}: cov must be symmetric positive "
                         "semidefinite")
    if not allow_singular and np.min(spectrum) <= eps:
        raise np.linalg.LinAlgError(f"multivariate_normal.{name}: cov is singular; pass "
                                    "allow_singular=True for the degenerate distribution")


def _shifts(rng, count, dim, dtype):
    if dim == 0:
        return np.zeros((count, 0), dtype)
    if rng is None:
        rng = np.random.default_rng(_SHIFT_SEED)
    if isinstance(rng, np.random.RandomState):
        return rng.random_sample((count, dim)).astype(dtype)
    if not isinstance(rng, (np.random.Generator, np.random.SeedSequence, np.random.BitGenerator,
                            int, np.integer)):
        raise TypeError(f"multivariate_normal: rng must be a NumPy Generator, RandomState or "
                        f"an integer seed, got {type(rng).__name__}")
    return np.random.default_rng(rng).random((count, dim)).astype(dtype)


def _box_log_probability(name, x, mean, cov, allow_singular, maxpts, abseps, releps,
                         lower_limit, rng):
    """``(log P(lower < X <= x), sign, squeeze)`` with SciPy's argument handling; ``sign``
    is -1 where an odd number of limits were swapped."""
    x, mean, cov, lower = _process_arguments(name, x, mean, cov, lower_limit)
    _check_covariance(name, cov, allow_singular)
    dim = mean.shape[0]
    if maxpts is None or (isinstance(maxpts, (int, np.integer)) and maxpts == 0):
        maxpts = 1_000_000 * dim
    if not isinstance(maxpts, (int, np.integer)) or maxpts < 0:
        raise TypeError(f"multivariate_normal.{name}: maxpts must be a positive integer, got "
                        f"{maxpts!r}")
    abseps, releps = _tolerance(name, "abseps", abseps), _tolerance(name, "releps", releps)
    if name == "logcdf":   # abseps bounds the error of the log: a relative error of the cdf
        abseps, releps = 0.0, jnp.maximum(abseps, releps)
    budget = max(1, int(maxpts) // (_N_SHIFTS * _block_size(dim)))
    controls = jnp.stack([jnp.asarray(v, dtype=x.dtype) for v in (budget, abseps, releps)])

    shifts = _shifts(rng, _N_SHIFTS, max(dim - 1, 1), np.dtype(x.dtype))
    log_p, sign = _box_core(x, mean, cov, lower, shifts, controls, tail=name == "logcdf")

    def squeeze(value):
        return jnp.squeeze(value)
    return log_p, sign, squeeze


def _block_size(dim):
    return 100 * dim


@partial(jit, static_argnames=("tail",))
def _box_core(x, mean, cov, lower, shifts, controls, *, tail):
    """The box log probability and the sign of the swaps, compiled once per shape (the
    quasi-Monte Carlo loop would otherwise run op by op). ``controls`` holds the number
    of blocks allowed, ``abseps`` and ``releps``."""
    dim = mean.shape[0]
    lower0 = lower
    upper, lower = x - mean, lower - mean
    swapped = upper < lower
    sign = jnp.where(jnp.sum(swapped, axis=-1) % 2 == 1, -1.0, 1.0).astype(x.dtype)
    lower, upper = jnp.minimum(lower, upper), jnp.maximum(lower, upper)
    # correlation form: every variable scaled by its standard deviation
    sd = jnp.sqrt(jnp.diagonal(cov))
    sd = jnp.where(sd > 0, sd, 1.0)
    lower, upper = _scaled_limit(lower, sd), _scaled_limit(upper, sd)
    corr = jnp.tril(cov) / (sd[:, None] * sd[None, :])
    corr = corr + jnp.tril(corr, -1).T   # the lower triangle is the one read, as SciPy's eigh

    if dim == 1:
        log_p = log_ndtr_diff(lower[..., 0], upper[..., 0])
    elif dim == 2:
        log_p = _bivariate_log_probability(lower, upper, corr[0, 1], tail=tail)
    else:
        batch = lower.shape[:-1]

        def one_box(lo, hi):
            chol, lo, hi = _reordered_cholesky(lo, hi, corr)
            return _qmc_log_probability(lo, hi, chol, shifts, _block_size(dim), controls)
        log_p = vmap(one_box)(lower.reshape((-1, dim)), upper.reshape((-1, dim))).reshape(batch)

    unknown = jnp.any(jnp.isnan(x) | jnp.isnan(lower0), axis=-1)
    return jnp.where(unknown, jnp.nan, log_p), sign


def _tolerance(name, what, value):
    """A scalar tolerance, checked to be nonnegative when its value is known."""
    if np.ndim(value) != 0:
        raise TypeError(f"multivariate_normal.{name}: {what} must be a scalar, got shape "
                        f"{np.shape(value)}")
    concrete = get_concrete(value)
    if concrete is not None and not float(concrete) >= 0:
        raise ValueError(f"multivariate_normal.{name}: {what} must be nonnegative, got "
                         f"{float(concrete)}")
    return value


def _scaled_limit(limit, sd):
    """``limit / sd``, keeping infinite limits (and their derivative 0) as they are."""
    finite = jnp.isfinite(limit)
    return jnp.where(finite, jnp.where(finite, limit, 0.0) / sd, limit)


def _conditional_limits(lo, hi, shift, scale):
    """The standardized limits ``(lo - shift) / scale`` and ``(hi - shift) / scale`` of a
    variable given the earlier ones; a variable with no conditional spread (``scale``
    0) contributes the indicator of ``lo <= shift <= hi`` (limits ``(-inf, inf)`` or an
    empty interval)."""
    spread = scale > 0
    safe_scale = jnp.where(spread, scale, 1.0)

    def standardized(limit):
        finite = jnp.isfinite(limit)
        return jnp.where(finite, (jnp.where(finite, limit, 0.0) - shift) / safe_scale, limit)
    inside = (lo <= shift) & (shift <= hi)
    za = jnp.where(spread, standardized(lo), jnp.where(inside, -jnp.inf, 0.0))
    zb = jnp.where(spread, standardized(hi), jnp.where(inside, jnp.inf, 0.0))
    return za, zb


def _truncated_mean(za, zb, log_mass):
    """The mean of a standard normal truncated to ``(za, zb)``, computed from log ratios
    so it stays finite in the tails (0 for an empty interval)."""
    def ratio(z):
        return jnp.exp(jnp.where(jnp.isfinite(z), -0.5 * z * z - _LOG_SQRT_2PI, -jnp.inf)
                       - log_mass)
    mean = ratio(za) - ratio(zb)
    return jnp.where(jnp.isfinite(log_mass), mean, 0.0)


def _reordered_cholesky(lo, hi, corr):
    """Cholesky factor of ``corr`` with its variables reordered (Genz and Bretz's
    prioritisation): each step takes, of the variables left, the one whose interval is
    least probable given the earlier ones set to their truncated means. Returns the
    lower-triangular factor and the limits in the new order. Variables with conditional
    variance below ``1e-10 * step`` (singular ``corr``) get a zero column. A loop over
    the steps (not unrolled, so the traced program does not grow with ``d``): the columns
    not yet computed are zero, so they add nothing to the projections on earlier ones."""
    d = corr.shape[-1]
    dtype = np.dtype(corr.dtype)
    tol = 1e-10 if dtype == np.float64 else 1e-5
    thresholds = np.array([tol * (k + 1) for k in range(d)], dtype=dtype)
    lo_c, hi_c = lax.stop_gradient(lo), lax.stop_gradient(hi)
    positions = jnp.arange(d)

    def step(k, state):
        cols, order, remaining, var, shift = state
        var_c = lax.stop_gradient(var)
        usable = remaining & (var_c > jnp.take(jnp.asarray(thresholds), k))
        za, zb = _conditional_limits(lo_c, hi_c, shift, jnp.sqrt(jnp.where(usable, var_c, 1.0)))
        log_mass = log_ndtr_diff(za, zb)
        criterion = jnp.where(usable, log_mass, jnp.where(remaining, 1.0, 2.0))
        pivot = jnp.argmin(criterion)
        degenerate = ~jnp.any(usable)
        scale = jnp.sqrt(jnp.where(degenerate, 1.0, jnp.take(var, pivot)))
        col = jnp.take(corr, pivot, axis=1) - cols @ jnp.take(cols, pivot, axis=0)
        col = jnp.where(remaining & ~degenerate, col / scale, 0.0)
        mean = lax.stop_gradient(_truncated_mean(jnp.take(za, pivot), jnp.take(zb, pivot),
                                                 jnp.take(log_mass, pivot)))
        mean = jnp.where(degenerate, 0.0, mean)
        cols = jnp.where(positions == k, col[:, None], cols)
        order = jnp.where(positions == k, pivot.astype(order.dtype), order)
        remaining = remaining & (positions != pivot)
        var = var - col * col
        shift = shift + lax.stop_gradient(col) * mean
        return cols, order, remaining, var, shift
    start = (jnp.zeros((d, d), dtype=dtype), jnp.zeros(d, dtype=positions.dtype),
             jnp.ones(d, dtype=bool), jnp.diagonal(corr), jnp.zeros(d, dtype=dtype))
    cols, order = lax.fori_loop(0, d, step, start)[:2]
    chol = jnp.take(cols, order, axis=0)
    return chol, jnp.take(lo, order), jnp.take(hi, order)


def _truncated_quantile(za, zb, log_mass, w):
    """The point ``y`` with ``ndtr(y) = ndtr(za) + w * (ndtr(zb) - ndtr(za))``: both that
    probability and its complement are sums of positive terms, so both logs are exact;
    the quantile comes from the smaller."""
    log_ndtr_za, log_ndtr_minus_zb = log_ndtr_each(za, -zb)
    low = jnp.logaddexp(log_ndtr_za, jnp.log(w) + log_mass)
    high = jnp.logaddexp(log_ndtr_minus_zb, jnp.log1p(-w) + log_mass)
    lower = low <= high
    y = lower_tail_ndtri(jnp.minimum(low, high))
    y = jnp.where(lower, y, -y)
    return jnp.where(jnp.isfinite(log_mass) & jnp.isfinite(y), y, 0.0)


def _log_integrand(lo, hi, chol, w):
    """Log of Genz's integrand at the points ``w`` (shape ``(points, d - 1)``) of the unit
    cube: the sum over variables of the log conditional interval probabilities. A loop
    over the variables (not unrolled, so the traced program does not grow with ``d``)."""
    d = chol.shape[-1]
    points = w.shape[0]
    # a last column for the last variable, whose quantile is never used
    w = jnp.concatenate([w, jnp.full((points, 1), 0.5, dtype=w.dtype)], axis=1)

    def step(k, state):
        total, ys = state
        row = lax.dynamic_index_in_dim(chol, k, axis=0, keepdims=False)
        za, zb = _conditional_limits(lax.dynamic_index_in_dim(lo, k, keepdims=False),
                                     lax.dynamic_index_in_dim(hi, k, keepdims=False),
                                     ys @ row, jnp.take(row, k))
        log_mass = log_ndtr_diff(za, zb)
        y = _truncated_quantile(za, zb, log_mass,
                                lax.dynamic_index_in_dim(w, k, axis=1, keepdims=False))
        ys = jnp.where(jnp.arange(d) == k, y[:, None], ys)
        return total + log_mass, ys
    start = (jnp.zeros((points,), dtype=chol.dtype), jnp.zeros((points, d), dtype=chol.dtype))
    return lax.fori_loop(0, d, step, start)[0]


def _qmc_log_probability(lo, hi, chol, shifts, block, controls):
    """Log of the box probability by randomised quasi-Monte Carlo (see the module
    docstring); a ``custom_vjp`` whose backward pass differentiates the same points."""
    d = chol.shape[-1]
    n_shifts = shifts.shape[0]
    dtype = np.dtype(chol.dtype)
    alpha = np.sqrt(np.array(_first_primes(d - 1), dtype=np.float64)) % 1.0

    def block_log_sums(lo, hi, chol, shifts, alpha, start):
        index = (start + jnp.arange(1, block + 1)).astype(dtype)
        base = (index[:, None] * alpha) % 1.0
        u = (base[None, :, :] + jnp.asarray(shifts)[:, None, :]) % 1.0
        w = jnp.abs(2.0 * u - 1.0)
        log_f = _log_integrand(lo, hi, chol, w.reshape((n_shifts * block, d - 1)))
        return logsumexp(log_f.reshape((n_shifts, block)), axis=1)

    def converged(log_sums, count, controls):
        abseps, releps = controls[1], controls[2]
        log_mean = logsumexp(log_sums) - math.log(n_shifts)
        relative = jnp.exp(log_sums - log_mean)
        rel_error = 3.0 * jnp.std(relative, ddof=1) / math.sqrt(n_shifts)
        log_p = log_mean - jnp.log(count * block)
        # an empty box, and NaN limits, need no more points
        return ((rel_error * jnp.exp(log_p) <= abseps) | (rel_error <= releps)
                | (log_p == -jnp.inf) | jnp.isnan(log_p))

    def integrate(lo, hi, chol, shifts, alpha, controls):
        def keep_going(state):
            count, _, done = state
            return (~done) & (count < controls[0])

        def add_block(state):
            count, log_sums, _ = state
            log_sums = jnp.logaddexp(log_sums,
                                     block_log_sums(lo, hi, chol, shifts, alpha, count * block))
            return count + 1, log_sums, converged(log_sums, count + 1, controls)
        start = (jnp.asarray(0), jnp.full((n_shifts,), -jnp.inf, dtype=dtype), jnp.asarray(False))
        count, log_sums, _ = lax.while_loop(keep_going, add_block, start)
        log_total = logsumexp(log_sums)
        log_p = log_total - jnp.log((count * block * n_shifts).astype(dtype))
        return jnp.minimum(log_p, 0.0), log_total, count   # rounding may pass 1 by an ulp

    @custom_vjp
    def estimate(lo, hi, chol, shifts, alpha, controls):
        return integrate(lo, hi, chol, shifts, alpha, controls)[0]

    def estimate_fwd(lo, hi, chol, shifts, alpha, controls):
        log_p, log_total, count = integrate(lo, hi, chol, shifts, alpha, controls)
        return log_p, (lo, hi, chol, shifts, alpha, controls, log_total, count)

    def estimate_bwd(residuals, cotangent):
        lo, hi, chol, shifts, alpha, controls, log_total, count = residuals
        # d log(sum of f) = sum over blocks of (block sum / total) * d log(block sum)
        def add_block(i, grads):
            def block_log_total(lo, hi, chol):
                return logsumexp(block_log_sums(lo, hi, chol, shifts, alpha, i * block))
            value, pullback = vjp(block_log_total, lo, hi, chol)
            block_grads = pullback(cotangent * jnp.exp(value - log_total))
            return tuple(g + jnp.where(jnp.isfinite(b), b, 0.0)
                         for g, b in zip(grads, block_grads))
        zeros = (jnp.zeros_like(lo), jnp.zeros_like(hi), jnp.zeros_like(chol))
        return (*lax.fori_loop(0, count, add_block, zeros), jnp.zeros_like(shifts),
                jnp.zeros_like(alpha), jnp.zeros_like(controls))

    estimate.defvjp(estimate_fwd, estimate_bwd)
    # every array is an argument: a closed-over constant would reach the rule's check
    # for closed-over differentiated values once vmap has batched it
    return estimate(lo, hi, chol, shifts, jnp.asarray(alpha, dtype=dtype), controls)


_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(20)


def _bivariate_upper_low(h, k, r):
    """``P(X > h, Y > k)`` for ``|r| < 0.925``: the product of the margins plus the
    integral of the density over the correlation, in the angle ``asin(rho)``."""
    asr = jnp.arcsin(r)
    sn = jnp.sin(asr[..., None] * (0.5 * (_GAUSS_NODES + 1.0)))
    hk, hs = (h * k)[..., None], (0.5 * (h * h + k * k))[..., None]
    terms = jnp.exp((sn * hk - hs) / (1.0 - sn * sn))
    return (ndtr(-h) * ndtr(-k)
            + asr / (4 * math.pi) * jnp.sum(_GAUSS_WEIGHTS * terms, axis=-1))


def _bivariate_upper_high(h, k, r):
    """``P(X > h, Y > k)`` for ``0.925 <= r <= 1``: Drezner and Wesolowsky's expansion
    about ``r = 1`` with Genz's correction integral in ``sqrt(1 - rho^2)``."""
    perfect = r >= 1.0
    r = jnp.where(perfect, 0.95, r)
    hk = h * k
    one_minus = (1.0 - r) * (1.0 + r)
    a = jnp.sqrt(one_minus)
    bs = (h - k) ** 2
    c = (4.0 - hk) / 8.0
    d = (12.0 - hk) / 16.0
    series = a * jnp.exp(-0.5 * (bs / one_minus + hk)) * (
        1.0 - c * (bs - one_minus) * (1.0 - d * bs / 5.0) / 3.0 + c * d * one_minus ** 2 / 5.0)
    b = jnp.abs(h - k)
    series = series - (jnp.exp(-0.5 * hk + log_ndtr(-b / a)) * math.sqrt(2 * math.pi) * b
                       * (1.0 - c * bs * (1.0 - d * bs / 5.0) / 3.0))
    half = (0.5 * a)[..., None]
    xs = (half * (_GAUSS_NODES + 1.0)) ** 2
    rs = jnp.sqrt(1.0 - xs)
    bs_, hk_, c_, d_ = bs[..., None], hk[..., None], c[..., None], d[..., None]
    log_e = -0.5 * (bs_ / xs + hk_)
    correction = (jnp.exp(-0.5 * bs_ / xs - hk_ / (1.0 + rs)) / rs
                  - jnp.exp(log_e) * (1.0 + c_ * xs * (1.0 + d_ * xs)))
    series = series + half[..., 0] * jnp.sum(_GAUSS_WEIGHTS * correction, axis=-1)
    edge = ndtr(-jnp.maximum(h, k))
    return jnp.where(perfect, edge, edge - series / (2 * math.pi))


def _bivariate_upper(h, k, r):
    """``P(X > h, Y > k)`` for standard normals of correlation ``r`` (Genz's algorithm);
    ``h`` and ``k`` may be infinite."""
    inf_h, inf_k = jnp.isinf(h), jnp.isinf(k)
    hs, ks = jnp.where(inf_h, 0.0, h), jnp.where(inf_k, 0.0, k)
    low = jnp.abs(r) < 0.925
    value_low = _bivariate_upper_low(hs, ks, jnp.where(low, r, 0.0))
    negative = r < 0
    k_pos = jnp.where(negative, -ks, ks)
    value_pos = _bivariate_upper_high(hs, k_pos, jnp.where(low, 0.95, jnp.abs(r)))
    value_high = jnp.where(negative, ndtr(-hs) - value_pos, value_pos)
    value = jnp.where(low, value_low, value_high)
    value = jnp.where(h == -jnp.inf, ndtr(-ks), jnp.where(k == -jnp.inf, ndtr(-hs), value))
    value = jnp.where((h == jnp.inf) | (k == jnp.inf), 0.0, value)
    return jnp.where(inf_h & inf_k & (h == -jnp.inf) & (k == -jnp.inf), 1.0, value)


def _bivariate_probability(lower, upper, rho):
    """``P(lower < (X, Y) <= upper)`` for standard normals of correlation ``rho``. A side
    with an infinite lower limit is reflected first, so the orthant probabilities need no
    differences of near-equal terms."""
    reflect = lower == -jnp.inf
    lo = jnp.where(reflect, -upper, lower)
    hi = jnp.where(reflect, jnp.inf, upper)
    r = rho * jnp.where(reflect[..., 0] != reflect[..., 1], -1.0, 1.0)
    h0, h1, k0, k1 = lo[..., 0], hi[..., 0], lo[..., 1], hi[..., 1]
    p = (_bivariate_upper(h0, k0, r) - _bivariate_upper(h1, k0, r)
         - _bivariate_upper(h0, k1, r) + _bivariate_upper(h1, k1, r))
    return jnp.clip(p, 0.0, 1.0)


# below this the bivariate algorithm's absolute accuracy is no longer a relative one
_BIVARIATE_TAIL = 1e-12

# tanh-sinh (double exponential) quadrature on (0, 1): nodes expit(pi sinh t), evenly
# spaced t; it converges fast despite the integrand's endpoint singularities. |t| <= 3
# keeps the nodes off 0 and 1 in float64 (1 - w >= 2e-14) and drops weights below 1e-12.
_TANH_SINH_STEP = 0.05
_TANH_SINH_T = np.arange(-60, 61) * _TANH_SINH_STEP


def _tanh_sinh_rule(dtype):
    """Nodes in (0, 1) and log weights of the tanh-sinh rule (log weights computed in
    log form, as the weights underflow at the ends)."""
    u = 0.5 * np.pi * np.sinh(_TANH_SINH_T)
    nodes = 1.0 / (1.0 + np.exp(-2.0 * u))
    log_cosh_u = np.abs(u) + np.log1p(np.exp(-2 * np.abs(u))) - np.log(2.0)
    log_weights = (np.log(_TANH_SINH_STEP * np.pi / 4) + np.log(np.cosh(_TANH_SINH_T))
                   - 2 * log_cosh_u)
    return nodes.astype(dtype), log_weights.astype(dtype)


def _bivariate_log_probability(lower, upper, rho, tail):
    """Log of the bivariate box probability; with ``tail``, probabilities below
    ``1e-12`` come from a log-space integral instead: the first variable (reordered as in
    the general case) integrated exactly and the second by tanh-sinh quadrature, so the
    log is right where the probability underflows."""
    p = _bivariate_probability(lower, upper, rho)
    positive = p > 0
    log_p = jnp.where(positive, jnp.log(jnp.where(positive, p, 1.0)), -jnp.inf)
    if not tail:
        return log_p
    one = jnp.ones_like(rho)
    corr = jnp.stack([jnp.stack([one, rho]), jnp.stack([rho, one])])
    nodes, log_weights = _tanh_sinh_rule(np.dtype(lower.dtype))
    batch = lower.shape[:-1]

    def one_box(lo, hi):
        chol, lo, hi = _reordered_cholesky(lo, hi, corr)
        log_f = _log_integrand(lo, hi, chol, jnp.asarray(nodes)[:, None])
        return logsumexp(log_f + log_weights)
    log_tail = vmap(one_box)(lower.reshape((-1, 2)), upper.reshape((-1, 2))).reshape(batch)
    small = p < _BIVARIATE_TAIL
    return jnp.where(small, log_tail, log_p)
