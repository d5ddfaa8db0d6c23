"""Histograms (NumPy's statistics chapter): bincount, histogram, histogram2d,
histogramdd, histogram_bin_edges and digitize.

Bin edges from a count and a range (or the data's min and max) are static in shape, so
histograms trace; rules by name ('auto', 'fd', ...) need concrete data."""

import builtins
import operator

import numpy as np

from .. import dtypes, lax
from ..core import Tracer, concretization_error, get_aval, get_concrete
from ..runtime.array import Array
from ._core import concrete_value, to_array
from ._creation import linspace, ones, zeros
from ._elementwise import equal, greater_equal, less_equal, logical_and, logical_or
from ._manipulation import reshape
from ._searching import searchsorted, where
from ._statistical import amax, amin
from ._utility import diff


def bincount(x, weights=None, minlength=0, *, length=None):
    """Counts of each non-negative integer value. ``length`` (static) fixes the size,
    which under ``jit`` NumPy's rule (the largest value + 1) cannot: values from
    ``length`` on are dropped (traced values cannot be checked)."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_integer(aval.dtype):
        raise TypeError(f"bincount: x must be integers, got {aval.dtype.name}")
    if aval.ndim != 1:
        raise ValueError(f"bincount: x must be 1-d (object too deep for desired array), "
                         f"got shape {aval.shape}")
    minlength = operator.index(0 if minlength is None else minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if weights is not None and get_aval(to_array(weights)).shape != aval.shape:
        raise ValueError(f"bincount: the weights and list don't have the same length "
                         f"({get_aval(to_array(weights)).shape} and {aval.shape})")
    if length is None:
        v = get_concrete(x)
        if v is None:
            raise concretization_error(
                x, "bincount() of a traced array: NumPy's output size (the largest value + 1) "
                "depends on the values; pass a static length= (e.g. the number of "
                "classes), or call it outside jit")
        v = np.asarray(v)
        if v.size and v.min() < 0:
            raise ValueError("bincount: x must be non-negative")
        length = max(minlength, int(v.max()) + 1 if v.size else 0)
    else:
        length = operator.index(length)
        if length < 0:
            raise ValueError(f"bincount: length must be non-negative, got {length}")
        length = max(minlength, length)
    n = get_aval(x).shape[0]
    shape = (n, length)
    hit = lax.eq(lax.broadcast_in_dim(lax.convert_element_type(x, np.int64), shape, (0,)),
                 lax.broadcasted_iota(np.int64, shape, 1))
    if weights is None:
        return lax.reduce_sum(lax.convert_element_type(hit, np.int64), (0,))
    w = to_array(weights)
    wdt = get_aval(w).dtype
    wdt = wdt if dtypes.is_inexact(wdt) else np.dtype(np.float64)
    w = lax.broadcast_in_dim(lax.convert_element_type(w, wdt), shape, (0,))
    return lax.reduce_sum(lax.select_n(hit, lax.full(shape, 0, wdt), w), (0,))


_BIN_RULES = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


def _range_edges(a, range_):
    """The outer edges (first, last) of the bins, as NumPy chooses them."""
    if range_ is not None:
        first, last = range_
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif get_aval(a).size == 0:
        first, last = 0, 1
    else:
        value = get_concrete(a)   # (a constant under jit too: NumPy's checks apply)
        if value is None or isinstance(a, Tracer):   # (under grad: the edges' derivative)
            first, last = amin(a), amax(a)
        else:
            value = np.asarray(value)
            first, last = value.min(), value.max()
        lo, hi = get_concrete(first), get_concrete(last)
        if lo is not None and not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
    if isinstance(first, (int, float, np.number)) and isinstance(last, (int, float, np.number)):
        if first == last:
            first, last = first - 0.5, last + 0.5
    else:
        same = equal(first, last)
        first = where(same, first - 0.5, first)
        last = where(same, last + 0.5, last)
    return first, last


def _edge_dtype(a, range_):
    if range_ is None:
        dt = get_aval(a).dtype
    else:
        # Python ends are weak (NEP 50): float32 data keeps float32 edges
        dt = np.result_type(get_aval(a).dtype, *[e if isinstance(e, (int, float)) else
                                                  np.asarray(e).dtype for e in range_])
    if not dtypes.is_inexact(dt):
        dt = np.dtype(np.float64)
    return dtypes.canonicalize(dt)


def _bin_edges(a, bins, range_, weights):
    """The bin edges for ``a`` (flattened) and whether they are uniform."""
    if isinstance(bins, str):
        if bins not in _BIN_RULES:
            raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
        if weights is not None:
            raise TypeError("Automated estimation of the number of bins is not supported "
                            "for weighted data")
        value = concrete_value(a, f"histogram with bins={bins!r}")
        edges = np.histogram_bin_edges(value, bins, range_)
        if isinstance(a, Tracer):   # (under grad: the rule's number of bins, traced edges)
            return _bin_edges(a, len(edges) - 1, range_, weights)
        return to_array(edges)
    if np.ndim(bins) == 0:
        n = operator.index(bins)
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first, last = _range_edges(a, range_)
        dt = _edge_dtype(a, range_)
        edges = linspace(first, last, n + 1, endpoint=True, dtype=dt)
        known = get_concrete(edges)
        ends = [e if isinstance(e, (int, float, np.number)) else get_concrete(e)
                for e in (first, last)]
        if known is None and None not in ends:   # under jit, edges from a given range
            known = np.linspace(*ends, n + 1, endpoint=True, dtype=dt)
        if known is not None and np.any(np.asarray(known)[:-1] >= np.asarray(known)[1:]):
            # a range too narrow (a few subnormals, or neighbouring floats) for n bins
            raise ValueError(f"Too many bins for data range. Cannot create {n} "
                             f"finite-sized bins.")
        return edges
    edges = to_array(bins)
    if get_aval(edges).ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    known = get_concrete(edges)
    if known is not None and np.any(np.asarray(known)[:-1] > np.asarray(known)[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges of the bins ``histogram`` would use: ``bins`` equal-width bins over
    ``range`` (default: the data's min and max), the given edges, or a rule by name
    ('auto', 'fd', ..., which needs concrete data)."""
    a = reshape(to_array(a), (-1,))
    if weights is not None and get_aval(to_array(weights)).shape != get_aval(a).shape:
        raise ValueError("weights should have the same shape as a.")
    return _bin_edges(a, bins, range, weights)


def _bin_index(x, edges):
    """The bin of each value of ``x`` (the last bin is closed on the right); values
    outside the edges get the (out-of-bounds) index ``len(edges) - 1``."""
    n_bins = get_aval(edges).shape[0] - 1
    idx = searchsorted(edges, x, side="right") - 1
    on_last = equal(x, edges[-1])
    idx = where(on_last, n_bins - 1, idx)
    inside = logical_and(greater_equal(x, edges[0]), less_equal(x, edges[-1]))
    return where(inside, idx, n_bins)


def histogram(a, bins=10, range=None, density=None, weights=None):
    """Counts (or weight sums) of ``a``'s values in bins, and the bin edges. ``density``
    normalizes to a probability density. Values outside the range are left out."""
    a = to_array(a)
    if weights is not None:
        weights = to_array(weights)
        if get_aval(weights).shape != get_aval(a).shape:
            raise ValueError("weights should have the same shape as a.")
        weights = reshape(weights, (-1,))
    a = reshape(a, (-1,))
    edges = _bin_edges(a, bins, range, weights)
    n_bins = get_aval(edges).shape[0] - 1
    idx = _bin_index(a, edges)
    if weights is None:
        hist = zeros((n_bins,), dtypes.default_int()).at[idx].add(1)
    else:
        hist = zeros((n_bins,), get_aval(weights).dtype).at[idx].add(weights)
    if density:
        widths = diff(edges).astype(np.float64)
        return hist / widths / hist.sum(), edges
    return hist, edges


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """The multidimensional histogram of ``sample`` (N points by D coordinates, or a
    sequence of D coordinate arrays) and the list of D edge arrays. ``bins`` is one
    count, one count per dimension, or one edge array per dimension."""
    if isinstance(sample, (Array, Tracer, np.ndarray)):
        sample = to_array(sample)
        if get_aval(sample).ndim <= 1:
            sample = reshape(sample, (-1, 1))
        n, d = get_aval(sample).shape
        columns = [sample[:, i] for i in builtins.range(d)]
    else:
        # NumPy reads a sequence as one array of its D coordinate arrays (a sequence of
        # numbers is then one coordinate: [0, 1] is two points in one dimension)
        if dtypes.is_python_scalar(sample):   # (NumPy iterates over it)
            raise TypeError(f"'{type(sample).__name__}' object is not iterable")
        sample = to_array(sample)
        if get_aval(sample).ndim <= 1:
            sample = reshape(sample, (1, -1))
        d, n = get_aval(sample).shape
        columns = [sample[i] for i in builtins.range(d)]
    if isinstance(bins, (list, tuple)) or (isinstance(bins, (np.ndarray, Array))
                                           and np.ndim(bins) > 0):
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
        per_dim = list(bins)
    else:
        per_dim = [bins] * d
    if range is None:
        range = [None] * d
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    if weights is not None:
        weights = to_array(weights)
        if get_aval(weights).ndim != 1:   # NumPy's bincount of the weights says so
            raise ValueError(f"histogramdd: weights must be 1-d (object too "
                             f"{'deep' if get_aval(weights).ndim > 1 else 'of too small depth'}"
                             f" for desired array), got shape {get_aval(weights).shape}")
        if get_aval(weights).shape[0] != n:
            raise ValueError(f"histogramdd: the weights and list don't have the same "
                             f"length ({get_aval(weights).shape[0]} and {n})")
    edges, indices, counts = [], [], []
    for i in builtins.range(d):
        b = per_dim[i]
        if np.ndim(b) == 0:
            if isinstance(b, str):
                raise TypeError(f"`bins[{i}]` must be an integer or an array, not a "
                                f"string")
            count = operator.index(b)
            if count < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            first, last = _range_edges(columns[i], range[i])
            dt = get_aval(columns[i]).dtype
            if range[i] is not None or not dtypes.is_inexact(dt):
                dt = np.dtype(np.float64)   # NumPy's linspace of the (Python) ends
            e = linspace(first, last, count + 1, dtype=dtypes.canonicalize(dt))
        else:
            e = to_array(b)
            if get_aval(e).ndim != 1:
                raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
            known = get_concrete(e)
            if known is not None and np.any(np.diff(np.asarray(known)) < 0):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an "
                                 f"array")
        edges.append(e)
        k = get_aval(e).shape[0] - 1
        counts.append(k)
        indices.append(_bin_index(columns[i], e))
    shape = tuple(counts)
    flat = zeros((n,), dtypes.default_int())
    outside = zeros((n,), np.bool_)
    for i, k in enumerate(counts):
        outside = logical_or(outside, equal(indices[i], k))
        flat = flat * k + where(equal(indices[i], k), 0, indices[i])
    size = int(np.prod(shape)) if shape else 1
    flat = where(outside, size, flat)
    values = ones((n,), np.float64) if weights is None else weights
    hist = zeros((size,), get_aval(values).dtype).at[flat].add(values)
    if not dtypes.is_inexact(get_aval(hist).dtype):
        hist = hist.astype(np.float64)
    hist = reshape(hist, shape)
    if density:
        total = hist.sum()
        for i in builtins.range(d):
            widths = reshape(diff(edges[i]), tuple(-1 if j == i else 1
                                                    for j in builtins.range(d)))
            hist = hist / widths
        hist = hist / total
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """The 2-d histogram of points (``x``, ``y``) and the edges along x and y."""
    x, y = to_array(x), to_array(y)
    if get_aval(x).ndim != 1 or get_aval(y).ndim != 1 or (
            get_aval(x).shape != get_aval(y).shape):
        raise ValueError(f"histogram2d: x and y must be 1-d arrays of one length, got shapes "
                         f"{get_aval(x).shape} and {get_aval(y).shape}")
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        edges = to_array(bins)
        bins = [edges, edges]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def digitize(x, bins, right=False):
    """The index of the bin of each value of ``x`` for monotonic ``bins`` (increasing or
    decreasing); ``right`` makes the bins closed on the right."""
    x, bins = to_array(x), to_array(bins)
    if dtypes.is_complex(get_aval(x).dtype):
        raise TypeError("x may not be complex")
    if dtypes.is_complex(get_aval(bins).dtype):
        raise TypeError(f"digitize: bins may not be complex (NumPy: Cannot cast array data "
                        f"from dtype('{get_aval(bins).dtype}') to dtype('float64') according "
                        f"to the rule 'safe'); pass real bin edges, for example bins.real")
    if get_aval(bins).ndim != 1:
        raise ValueError("object too deep for desired array" if get_aval(bins).ndim > 1
                         else "object of too small depth for desired array")
    n = get_aval(bins).shape[0]
    side = "left" if right else "right"
    known = get_concrete(bins)
    if known is not None:
        known = np.asarray(known)
        steps = np.diff(known)
        if np.all(steps >= 0):
            increasing = True
        elif np.all(steps <= 0):
            increasing = False
        else:
            raise ValueError("bins must be monotonically increasing or decreasing")
        if increasing:
            return searchsorted(bins, x, side=side)
        return n - searchsorted(bins[::-1], x, side=side)
    up = searchsorted(bins, x, side=side)
    down = n - searchsorted(bins[::-1], x, side=side)
    return where(bins[0] <= bins[-1], up, down) if n else up
