"""``gaussian_kde``: a Gaussian kernel density estimate, with JAX's interface (a pytree;
``resample`` takes a PRNG key) and SciPy's values."""

import dataclasses
import numbers

import numpy as np

from ... import numpy as jnp
from ... import random
from ...tree_util import register_pytree_node_class
from .. import linalg
from .._util import promote_inexact
from ..special import logsumexp, ndtr

_FIELDS = ("neff", "dataset", "weights", "covariance", "inv_cov", "factor")


def _whiten(chol, x):
    """``chol^-1 x`` for a lower Cholesky factor and columns ``x`` of shape ``(d, ...)``."""
    flat = x.reshape((x.shape[0], -1))
    return linalg.solve_triangular(chol, flat, lower=True).reshape(x.shape)


def _log_norm(chol):
    """Log of the normal density's constant, ``-log det(chol) - d/2 log(2π)``."""
    d = chol.shape[0]
    return -jnp.sum(jnp.log(jnp.diagonal(chol))) - 0.5 * d * float(np.log(2.0 * np.pi))


def _pair_energies(chol, a, b):
    """Half the squared Mahalanobis distances ``(a_i - b_j)^T (chol chol^T)^-1 (a_i - b_j)
    / 2`` between the columns of ``a`` (d, m) and ``b`` (d, n), as an ``(m, n)`` array;
    from the whitened differences, so a point on a data point gives exactly 0."""
    diff = _whiten(chol, a[:, :, None] - b[:, None, :])
    return 0.5 * jnp.sum(diff * diff, axis=0)


@register_pytree_node_class
@dataclasses.dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """A Gaussian kernel density estimate of ``dataset`` (``(n,)`` or ``(d, n)``: one
    point a column), with optional ``weights`` of shape ``(n,)``.

    ``bw_method`` is ``'scott'`` (the default), ``'silverman'``, a scalar used as the
    bandwidth ``factor``, or a callable taking the estimate (with ``dataset``,
    ``weights``, ``neff``, ``d`` and ``n`` set) and returning the factor. The kernel
    covariance is the weighted data covariance times ``factor**2``.
    """
    neff: object
    dataset: object
    weights: object
    covariance: object
    inv_cov: object
    factor: object

    def __init__(self, dataset, bw_method=None, weights=None):
        if jnp.iscomplexobj(dataset) or (weights is not None and jnp.iscomplexobj(weights)):
            raise NotImplementedError("gaussian_kde does not support complex data")
        dataset = jnp.atleast_2d(jnp.asarray(dataset))
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        if dataset.ndim != 2:
            raise ValueError(f"`dataset` should be at most 2-D, got shape {dataset.shape}")
        d, n = dataset.shape
        if weights is None:
            dataset, = promote_inexact(dataset)
            weights = jnp.full((n,), 1.0 / n, dtype=dataset.dtype)
        else:
            dataset, weights = promote_inexact(dataset, weights)
            weights = jnp.atleast_1d(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if weights.shape[0] != n:
                raise ValueError("`weights` input should be of length n")
            weights = weights / jnp.sum(weights)
        if d > n:
            raise ValueError("Number of dimensions is greater than number of samples: the "
                             "data covariance is singular. gaussian_kde takes each *column* "
                             "of `dataset` as a point; consider transposing it.")
        self._set("dataset", dataset)
        self._set("weights", weights)
        self._set("neff", 1.0 / jnp.sum(weights * weights))
        factor = jnp.asarray(self._bandwidth(bw_method), dtype=dataset.dtype)
        self._set("factor", factor)
        # NumPy's cov(aweights=weights) with ddof 1, in the data's dtype (NumPy's cov
        # computes float32 data in float64)
        centred = dataset - (dataset @ weights)[:, None]
        data_cov = (centred * weights) @ centred.T / (1.0 - jnp.sum(weights * weights))
        self._set("covariance", data_cov * factor**2)
        self._set("inv_cov", jnp.linalg.inv(data_cov) / factor**2)

    def _set(self, name, value):
        # (the dataclass is frozen: its own __init__ would set fields this way too)
        object.__setattr__(self, name, value)

    def _bandwidth(self, bw_method):
        if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
            return self.scotts_factor()
        if isinstance(bw_method, str) and bw_method == "silverman":
            return self.silverman_factor()
        if callable(bw_method):
            return bw_method(self)
        if isinstance(bw_method, numbers.Number) or (
                hasattr(bw_method, "dtype") and np.ndim(bw_method) == 0
                and np.issubdtype(bw_method.dtype, np.number)):
            return bw_method
        raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

    def tree_flatten(self):
        return tuple(getattr(self, name) for name in _FIELDS), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        del aux_data
        kde = cls.__new__(cls)
        for name, value in zip(_FIELDS, children):
            kde._set(name, value)
        return kde

    @property
    def d(self):
        """The number of dimensions."""
        return self.dataset.shape[0]

    @property
    def n(self):
        """The number of data points."""
        return self.dataset.shape[1]

    def scotts_factor(self):
        """Scott's bandwidth factor, ``neff ** (-1 / (d + 4))``."""
        return jnp.power(self.neff, -1.0 / (self.d + 4))

    def silverman_factor(self):
        """Silverman's bandwidth factor, ``(neff (d + 2) / 4) ** (-1 / (d + 4))``."""
        return jnp.power(self.neff * (self.d + 2) / 4.0, -1.0 / (self.d + 4))

    def covariance_factor(self):
        """The bandwidth factor in use (``factor``)."""
        return self.factor

    def _points(self, points):
        if jnp.iscomplexobj(points):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(jnp.asarray(points))
        if points.ndim != 2:
            raise ValueError(f"points should be at most 2-D, got shape {points.shape}")
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:   # one point, given as a row
                points = points.reshape((self.d, 1))
            else:
                raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return promote_inexact(points, self.dataset, self.weights, self.covariance)

    def evaluate(self, points):
        """The estimated density at ``points`` (``(d, m)``, or ``(d,)`` for one point)."""
        points, dataset, weights, covariance = self._points(points)
        chol = jnp.linalg.cholesky(covariance)
        kernels = jnp.exp(-_pair_energies(chol, points, dataset))
        return (kernels @ weights) * jnp.exp(_log_norm(chol))

    __call__ = evaluate

    def pdf(self, x):
        """The estimated density (``evaluate``)."""
        return self.evaluate(x)

    def logpdf(self, x):
        """Log of the estimated density, kept finite far from the data by ``logsumexp``."""
        points, dataset, weights, covariance = self._points(x)
        chol = jnp.linalg.cholesky(covariance)
        energies = _pair_energies(chol, points, dataset)
        return logsumexp(-energies, axis=1, b=weights[None, :]) + _log_norm(chol)

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the normal density ``N(mean, cov)``."""
        mean = jnp.atleast_1d(jnp.squeeze(jnp.asarray(mean)))
        cov = jnp.atleast_2d(jnp.asarray(cov))
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        mean, cov, dataset, weights, covariance = promote_inexact(
            mean, cov, self.dataset, self.weights, self.covariance)
        chol = jnp.linalg.cholesky(covariance + cov)
        energies = _pair_energies(chol, mean[:, None], dataset)[0]
        return jnp.sum(weights * jnp.exp(-energies)) * jnp.exp(_log_norm(chol))

    def integrate_box_1d(self, low, high):
        """The probability of ``[low, high]`` under a one-dimensional estimate."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        low, high, dataset, weights, covariance = promote_inexact(
            low, high, self.dataset[0], self.weights, self.covariance[0, 0])
        sigma = jnp.sqrt(covariance)
        delta = ndtr((high - dataset) / sigma) - ndtr((low - dataset) / sigma)
        return jnp.sum(weights * delta)

    def integrate_kde(self, other):
        """The integral of the product of this estimate and ``other``."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        a, wa, ca, b, wb, cb = promote_inexact(self.dataset, self.weights, self.covariance,
                                               other.dataset, other.weights, other.covariance)
        chol = jnp.linalg.cholesky(ca + cb)
        kernels = jnp.exp(-_pair_energies(chol, a, b))
        return (wa @ kernels @ wb) * jnp.exp(_log_norm(chol))

    def resample(self, key, shape=()):
        """Draws from the estimate, shape ``(d,) + shape``: a data point chosen by weight,
        plus a normal draw with the kernel covariance (JAX's bits for a 0-d or 1-d
        ``shape``)."""
        index_key, noise_key = random.split(key)
        index = random.choice(index_key, self.n, shape=shape, p=self.weights)
        noise = random.multivariate_normal(noise_key, jnp.zeros(self.d, self.covariance.dtype),
                                           self.covariance, shape=shape,
                                           dtype=self.dataset.dtype)
        return self.dataset[:, index] + jnp.moveaxis(noise, -1, 0)

    def marginal(self, dimensions):
        """The estimate of the dimensions ``dimensions`` (int or 1-d; negative ones count
        from the end) with the others integrated out, at the same bandwidth factor."""
        dims = np.atleast_1d(dimensions)
        if not np.issubdtype(dims.dtype, np.integer):
            raise ValueError("Elements of `dimensions` must be integers - the indices of the "
                             "marginal variables being retained.")
        given = dims.copy()
        dims = np.where(dims < 0, dims + self.d, dims)
        if len(np.unique(dims)) != len(dims):
            raise ValueError("All elements of `dimensions` must be unique.")
        invalid = (dims < 0) | (dims >= self.d)
        if np.any(invalid):
            raise ValueError(f"Dimensions {given[invalid]} are invalid for a distribution in "
                             f"{self.d} dimensions.")
        return gaussian_kde(self.dataset[dims], bw_method=self.factor, weights=self.weights)

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not implemented (as in JAX): use ``integrate_box_1d``."""
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError("only 1D box integrations are supported; use "
                                  "`integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not implemented (as in JAX): the estimate is immutable; build a new one."""
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")
