"""``minijax.scipy.interpolate``: interpolation on a rectilinear grid
(``RegularGridInterpolator``, SciPy's values with JAX's signature)."""

import numpy as np

from .. import numpy as jnp
from ..core import get_concrete
from ..tree_util import register_pytree_node_class

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")
_SPLINE_METHODS = ("slinear", "cubic", "quintic", "pchip")


def _check_method(method):
    if method in _SPLINE_METHODS:
        raise NotImplementedError(f"RegularGridInterpolator: method {method!r} (a spline) is "
                                  f"not implemented in minijax; use 'linear' or 'nearest'")
    if method not in _METHODS:
        raise ValueError(f"Method {method!r} is not defined")


@register_pytree_node_class
class RegularGridInterpolator:
    """Interpolate ``values`` given on the grid ``points`` (one strictly ascending or
    descending 1-D array per dimension; ``values`` may have trailing axes).

    ``method`` is ``'linear'`` or ``'nearest'``; points outside the grid take
    ``fill_value``, or are extrapolated from the edge cells when it is None. With
    ``bounds_error=True`` (SciPy's default, JAX's is False) such points raise a
    ValueError, which needs concrete points (not under ``jit``). A pytree: it can be
    passed to and returned from transformed functions."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        values = jnp.asarray(values)
        if not jnp.issubdtype(values.dtype, jnp.inexact):
            values = values.astype(jnp.result_type(float))
        grid = []
        for i, p in enumerate(points):
            p = jnp.asarray(p)
            if p.ndim != 1:
                raise ValueError(f"The points in dimension {i} must be 1-dimensional")
            concrete = _concrete(p)
            if concrete is not None and p.shape[0] > 1:
                steps = np.diff(concrete)
                if not (np.all(steps > 0) or np.all(steps < 0)):
                    raise ValueError(f"The points in dimension {i} must be strictly ascending "
                                     f"or descending")
                if steps[0] < 0:   # descending: the same grid, both reversed
                    p, values = jnp.flip(p), jnp.flip(values, axis=i)
            grid.append(p)
        if values.ndim < len(grid):
            raise ValueError(f"There are {len(grid)} point arrays, but values has "
                             f"{values.ndim} dimensions")
        for i, p in enumerate(grid):
            if p.shape[0] != values.shape[i]:
                raise ValueError(f"There are {p.shape[0]} points and {values.shape[i]} values "
                                 f"in dimension {i}")
        if fill_value is not None:
            kind = np.asarray(fill_value).dtype if not hasattr(fill_value, "dtype") \
                else fill_value.dtype
            if not np.can_cast(kind, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        self.grid, self.values = tuple(grid), values
        self.method, self.bounds_error, self.fill_value = method, bounds_error, fill_value

    def __call__(self, xi, method=None):
        """The interpolated values at ``xi``: an array whose last axis holds one
        coordinate per grid dimension (for a 1-D grid, any array of points), or a tuple
        of coordinate arrays that broadcast together. The result has ``xi``'s leading
        shape and ``values``' trailing axes."""
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        if isinstance(xi, tuple):   # coordinate arrays, as SciPy reads a tuple
            xi = xi[0] if len(xi) == 1 else jnp.stack(
                jnp.broadcast_arrays(*[jnp.asarray(c) for c in xi]), axis=-1)
        xi = jnp.asarray(xi)
        if ndim == 1 and (xi.ndim == 0 or xi.shape[-1] != 1):
            xi = xi[..., None]
        if xi.shape[-1] != ndim:
            raise ValueError(f"The requested sample points xi have dimension {xi.shape[-1]} "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        if not jnp.issubdtype(xi.dtype, jnp.inexact):
            xi = xi.astype(jnp.result_type(float))
        lead = xi.shape[:-1]
        xi = xi.reshape(-1, ndim)
        # (one column per grid dimension: whether the point lies beyond it)
        beyond = jnp.stack([(xi[:, d] < g[0]) | (xi[:, d] > g[-1])
                            for d, g in enumerate(self.grid)], axis=-1)
        outside = jnp.any(beyond, axis=-1)
        if self.bounds_error:
            found = _concrete(beyond)
            if found is None:
                raise ValueError("RegularGridInterpolator(bounds_error=True) checks the "
                                 "values of xi, which are not known inside jit, vmap or grad; "
                                 "use bounds_error=False")
            if found.any():
                raise ValueError(f"One of the requested xi is out of bounds in dimension "
                                 f"{int(np.argmax(found.any(axis=0)))}")
        cells = [self._cell(g, xi[:, d]) for d, g in enumerate(self.grid)]
        if method == "linear":
            out = self._linear(cells)
        else:
            index = tuple(jnp.where(t <= 0.5, i, i + 1) if g.shape[0] > 1 else i
                          for (i, t), g in zip(cells, self.grid))
            out = self.values[index]
        extra = (1,) * (self.values.ndim - ndim)
        nans = jnp.any(jnp.isnan(xi), axis=-1).reshape(-1, *extra)
        out = jnp.where(nans, jnp.nan, out)
        if self.fill_value is not None:
            out = jnp.where(outside.reshape(-1, *extra), self.fill_value, out)
        return out.reshape(lead + self.values.shape[ndim:])

    @staticmethod
    def _cell(g, x):
        """The cell of the grid ``g`` holding each ``x`` (the edge cells beyond the grid),
        and ``x``'s fraction of the way across it."""
        n = g.shape[0]
        if n == 1:
            return jnp.zeros(x.shape, int), jnp.zeros_like(x)
        i = jnp.clip(jnp.searchsorted(g, x, side="right") - 1, 0, n - 2)
        lo, hi = g[i], g[i + 1]
        return i, (x - lo) / (hi - lo)

    def _linear(self, cells):
        """The weighted sum over the corners of each point's cell."""
        ndim = len(self.grid)
        extra = (1,) * (self.values.ndim - ndim)
        out = 0
        # (a dimension of one point has one corner, of weight 1)
        for corner in np.ndindex(*[min(g.shape[0], 2) for g in self.grid]):
            index, weight = [], 1
            for (i, t), g, c in zip(cells, self.grid, corner):
                index.append(i + c)
                if g.shape[0] > 1:
                    weight = weight * (t if c else 1 - t)
            out = out + jnp.reshape(weight, (-1, *extra)) * self.values[tuple(index)]
        return out

    def tree_flatten(self):
        return (self.grid, self.values, self.fill_value), (self.method, self.bounds_error)

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.grid, obj.values, obj.fill_value = children
        obj.method, obj.bounds_error = aux
        return obj


def _concrete(x):
    """The NumPy value of ``x``, or None when it is traced."""
    value = get_concrete(x)
    return None if value is None else np.asarray(value)
