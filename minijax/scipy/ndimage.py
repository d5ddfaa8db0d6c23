"""``minijax.scipy.ndimage``: B-spline interpolation (``map_coordinates``, orders 0-5) and
the spline prefilter (``spline_filter``, ``spline_filter1d``), matching SciPy's boundary
handling for every mode.

The prefilter is linear along each axis, so it is built host-side from the static length
as a dense matrix (SciPy's recursive filter, boundary initialisation included, applied to
the identity) and applied with ``tensordot``: it traces, differentiates and batches like
any other product. Interpolation gathers the ``order + 1`` neighbours per axis in one
indexing operation and weights them with B-spline values computed from the coordinates,
so gradients flow to both the input and the coordinates.
"""

import functools
import operator

import numpy as np

from .. import numpy as jnp
from ._util import promote_inexact

__all__ = ["map_coordinates", "spline_filter", "spline_filter1d"]

_MODES = ("constant", "nearest", "reflect", "grid-mirror", "mirror", "wrap", "grid-wrap",
          "grid-constant")
# SciPy pads by this many samples before prefiltering for the modes its recursive filter
# has no exact boundary condition for
_PREPAD = 12


def _check_mode(name, mode):
    if mode not in _MODES:
        raise ValueError(f"{name}: mode={mode!r} is not supported; use one of {list(_MODES)}")
    return "reflect" if mode == "grid-mirror" else mode


def _check_order(name, order, lowest=0):
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) \
            or not lowest <= order <= 5:
        raise ValueError(f"{name}: order must be an integer from {lowest} to 5, got {order!r}")
    return int(order)


# ---- the prefilter: SciPy's recursive filter as a host-side matrix -----------------------

# poles of the B-spline interpolation filter: the roots inside the unit circle of the
# symmetric polynomial whose coefficients are the B-spline's values at the integers
_POLES = {
    2: (np.sqrt(8.0) - 3.0,),
    3: (np.sqrt(3.0) - 2.0,),
    4: (np.sqrt(664.0 - np.sqrt(438976.0)) + np.sqrt(304.0) - 19.0,
        np.sqrt(664.0 + np.sqrt(438976.0)) - np.sqrt(304.0) - 19.0),
    5: (np.sqrt(67.5 - np.sqrt(4436.25)) + np.sqrt(26.25) - 6.5,
        np.sqrt(67.5 + np.sqrt(4436.25)) - np.sqrt(26.25) - 6.5),
}

# which boundary initialisation SciPy's recursive filter uses for each mode
_FILTER_BOUNDARY = {"mirror": "mirror", "constant": "mirror", "grid-constant": "mirror",
                    "wrap": "mirror", "grid-wrap": "wrap", "reflect": "reflect",
                    "nearest": "reflect"}


def _causal_start(c, z, boundary):
    """First value of the causal pass: the infinite sum z**k c[-k] over the extension."""
    n = c.shape[0]
    if boundary == "mirror":  # period 2n - 2, reading c[0], c[1], ..., c[n-1], ..., c[1]
        period = np.concatenate([c, c[-2:0:-1]])
        return (z ** np.arange(2 * n - 2)) @ period / (1.0 - z ** (2 * n - 2))
    if boundary == "wrap":  # period n, reading c[0], c[n-1], c[n-2], ..., c[1]
        period = np.concatenate([c[:1], c[:0:-1]])
        return (z ** np.arange(n)) @ period / (1.0 - z ** n)
    # reflect: c[-1] = c[0], so the sum is c[0] plus z times the sum over the half-sample
    # period c[0], ..., c[n-1], c[n-1], ..., c[0], summed to infinity. (SciPy before 1.18
    # summed into c[0] itself, so that its last term read the running sum: an error of
    # order z**(2n), visible for short axes.)
    powers = z ** np.arange(n)
    total = powers @ c + (z ** n * powers) @ c[::-1]
    return c[0] + z * total / (1.0 - z ** (2 * n))


def _anticausal_start(c, z, boundary):
    """Last value of the anticausal pass (the causal pass already ran)."""
    n = c.shape[0]
    if boundary == "mirror":
        return (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0)
    if boundary == "wrap":
        total = c[n - 1] + (z ** np.arange(1, n)) @ c[:n - 1]
        return total * z / (z ** n - 1.0)
    return c[n - 1] * z / (z - 1.0)  # reflect (SciPy's one-term approximation)


@functools.lru_cache(maxsize=256)
def _filter_matrix(n, order, boundary):
    """The (n, n) matrix taking samples to B-spline coefficients along one axis (n > 1,
    order 2-5): SciPy's gain, causal and anticausal passes applied to the identity."""
    c = np.eye(n)
    poles = _POLES[order]
    c *= np.prod([(1.0 - z) * (1.0 - 1.0 / z) for z in poles])
    for z in poles:
        c[0] = _causal_start(c, z, boundary)
        for i in range(1, n):
            c[i] += z * c[i - 1]
        c[n - 1] = _anticausal_start(c, z, boundary)
        for i in range(n - 2, -1, -1):
            c[i] = z * (c[i + 1] - c[i])
    c.setflags(write=False)
    return c


def _filter_axis(x, order, axis, mode):
    n = x.shape[axis]
    if n == 1 or order < 2:  # the filter is the identity
        return x
    matrix = jnp.asarray(_filter_matrix(n, order, _FILTER_BOUNDARY[mode]),
                         dtype=jnp.real(x).dtype)
    return jnp.moveaxis(jnp.tensordot(matrix, x, axes=([1], [axis])), 0, axis)


def spline_filter1d(input, order=3, axis=-1, mode="mirror"):
    """B-spline coefficients of ``input`` along one ``axis`` (``order`` 0-5; 0 and 1 copy).

    ``mode`` picks the boundary condition as in ``scipy.ndimage.spline_filter1d``; use the
    same ``mode`` when interpolating with ``map_coordinates(..., prefilter=False)``.
    """
    order = _check_order("spline_filter1d", order)
    mode = _check_mode("spline_filter1d", mode)
    input, = promote_inexact(input)
    if input.ndim == 0:
        return input
    if not -input.ndim <= axis < input.ndim:
        raise ValueError(f"spline_filter1d: axis={axis} is out of range for an input with "
                         f"{input.ndim} dimensions")
    return _filter_axis(input, order, axis % input.ndim, mode)


def spline_filter(input, order=3, mode="mirror"):
    """B-spline coefficients of ``input`` along every axis (``order`` 2-5)."""
    order = _check_order("spline_filter", order, lowest=2)
    mode = _check_mode("spline_filter", mode)
    input, = promote_inexact(input)
    for axis in range(input.ndim):
        input = _filter_axis(input, order, axis, mode)
    return input


# ---- interpolation -------------------------------------------------------------------------

def _bspline_weights(u, order):
    """Values of the ``order + 1`` B-splines that are nonzero at fractional offset ``u``.

    ``u`` in [0, 1) is the position inside the knot interval; weight ``j`` belongs to the
    ``j``-th sample of the footprint (Cox-de Boor recursion on integer knots).
    """
    weights = [jnp.ones_like(u)]
    for k in range(1, order + 1):
        nxt = []
        for j in range(k + 1):
            term = 0.0
            if j >= 1:
                term = term + (u + (k - j)) / k * weights[j - 1]
            if j < k:
                term = term + ((j + 1) - u) / k * weights[j]
            nxt.append(term)
        weights = nxt
    return weights


def _mirror_index(i, n):
    """(d c b | a b c d | c b a): period 2n - 2, edges not repeated."""
    if n == 1:
        return jnp.zeros_like(i)
    m = jnp.remainder(i, 2 * n - 2)
    return jnp.where(m >= n, 2 * n - 2 - m, m)


def _reflect_index(i, n):
    """(d c b a | a b c d | d c b a): period 2n, edges repeated."""
    m = jnp.remainder(i, 2 * n)
    return jnp.where(m >= n, 2 * n - 1 - m, m)


def _wrap_index(i, n):
    """(a b c d | a b c d | ...): period n."""
    return jnp.remainder(i, n)


def _clip_index(i, n):
    return jnp.clip(i, 0, n - 1)


# how a footprint sample outside the input is read, per mode ('constant' and 'wrap' read
# mirrored samples near the edges, as SciPy does; 'grid-constant' reads cval instead)
_INDEX_MAPS = {"constant": _mirror_index, "wrap": _mirror_index, "mirror": _mirror_index,
               "reflect": _reflect_index, "grid-wrap": _wrap_index, "nearest": _clip_index,
               "grid-constant": _clip_index}


def _wrap_coordinate(c, n):
    """SciPy's 'wrap': coordinates outside [0, n - 1] move by whole multiples of n - 1."""
    if n == 1:
        return jnp.zeros_like(c)
    size = n - 1
    below = c + size * (jnp.trunc(-c / size) + 1)
    above = c - size * jnp.trunc(c / size)
    return jnp.where(c < 0, below, jnp.where(c > size, above, c))


def map_coordinates(input, coordinates, order=3, mode="constant", cval=0.0, prefilter=True):
    """Sample ``input`` at fractional ``coordinates`` (one array per axis of ``input``) by
    B-spline interpolation of ``order`` 0-5, as ``scipy.ndimage.map_coordinates``.

    ``mode``: 'constant' (``cval`` outside [0, n - 1]), 'grid-constant' (``cval`` samples
    beyond the edges), 'nearest', 'reflect' (= 'grid-mirror'), 'mirror', 'wrap' or
    'grid-wrap'. ``prefilter`` (orders 2-5) first turns the samples into spline
    coefficients; pass ``False`` when ``input`` already holds them (``spline_filter``).
    """
    order = _check_order("map_coordinates", order)
    mode = _check_mode("map_coordinates", mode)
    input, = promote_inexact(input)
    if input.ndim == 0:
        raise ValueError("map_coordinates: input must have at least one dimension")
    if len(coordinates) != input.ndim:
        raise ValueError(f"map_coordinates: {len(coordinates)} coordinate arrays for an input "
                         f"with {input.ndim} dimensions")
    coords = [jnp.asarray(c) for c in coordinates]
    if any(jnp.iscomplexobj(c) for c in coords):
        raise TypeError("map_coordinates: coordinates must be real, not complex")
    coords = jnp.broadcast_arrays(*promote_inexact(*coords))
    coords = [c.astype(jnp.real(input).dtype) for c in coords]

    shift = 0
    if prefilter and order > 1:
        if mode in ("nearest", "grid-constant"):
            shift = _PREPAD
            if mode == "nearest":
                input = jnp.pad(input, _PREPAD, mode="edge")
            else:
                input = jnp.pad(input, _PREPAD, mode="constant", constant_values=cval)
        input = spline_filter(input, order, mode)

    index_map = _INDEX_MAPS[mode]
    ndim, taps = input.ndim, order + 1
    indices, weights, inside = [], [], []
    for axis, (c, n) in enumerate(zip(coords, input.shape)):
        if mode == "wrap":
            c = _wrap_coordinate(c, n)
        c = c + shift
        # odd orders centre the footprint on the knot interval, even ones on the sample
        position = c if order % 2 else c + 0.5
        lower = jnp.floor(position)
        start = lower.astype(int) - order // 2
        offsets = jnp.arange(taps).reshape((taps,) + (1,) * c.ndim)
        index = start[None] + offsets
        if mode == "grid-constant":
            inside.append(_axis_view(((index >= 0) & (index < n)), axis, ndim))
        indices.append(_axis_view(index_map(index, n), axis, ndim))
        weights.append(_axis_view(jnp.stack(_bspline_weights(position - lower, order)),
                                  axis, ndim))
    samples = input[tuple(indices)]  # shape (taps,) * ndim + coordinate shape
    if inside:
        samples = jnp.where(functools.reduce(operator.and_, inside), samples, cval)
    out = jnp.sum(samples * functools.reduce(operator.mul, weights), axis=tuple(range(ndim)))
    if mode == "constant":
        within = functools.reduce(operator.and_, [(c >= 0) & (c <= n - 1)
                                                  for c, n in zip(coords, input.shape)])
        out = jnp.where(within, out, cval)
    return jnp.asarray(out).astype(input.dtype)


def _axis_view(stacked, axis, ndim):
    """Give the leading (taps) axis of ``stacked`` position ``axis`` among ``ndim`` axes."""
    taps = stacked.shape[0]
    shape = (1,) * axis + (taps,) + (1,) * (ndim - axis - 1) + stacked.shape[1:]
    return stacked.reshape(shape)
