"""Set functions (Array API chapter "Set Functions"): the unique family, isin and
NumPy's 1-d set operations (intersect1d, union1d, setdiff1d, setxor1d)."""

import numpy as np
from numpy.lib import _arraysetops_impl as _np_set_impl

from .. import dtypes, lax
from ..core import Tracer, concretization_error, get_aval, get_concrete
from ..util import canonicalize_axis
from ._core import concrete_value, promote, to_array, wrap_host
from ._creation import arange, full, zeros
from ._elementwise import equal, isnan, logical_and, logical_not, logical_or, not_equal
from ._manipulation import concatenate, moveaxis, reshape, stack
from ._searching import static_size, true_positions, where
from ._sorting import argsort
from ._statistical import cumsum
from ._utility import any as any_


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (by broadcasting).
    ``kind`` is NumPy's choice of algorithm, checked as NumPy checks it; the answer is
    the same for every kind."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: {kind!r}. Please use None, 'sort' or 'table'.")
    if kind == "table" and not all(
            get_aval(to_array(x)).dtype.kind in "biu" for x in (element, test_elements)):
        raise ValueError("The 'table' method is only supported for boolean or integer "
                         "arrays. Please select 'sort' or None for kind.")
    e, t = promote(element, test_elements)
    es = get_aval(e).shape
    t = reshape(t, (-1,))
    n = get_aval(t).shape[0]
    shape = es + (n,)
    eq = lax.eq(lax.broadcast_in_dim(e, shape, tuple(range(len(es)))),
                lax.broadcast_in_dim(t, shape, (len(es),)))
    out = lax.reduce_max(eq, (len(es),)) if n else lax.full(es, False, np.bool_)
    return lax.eq(out, lax.full(es, False, np.bool_)) if invert else out


def _numpy_or_size(name, size, ar1, ar2, *flags):
    """NumPy's answer to the set operation ``name`` (wrapped) for untraced inputs without
    ``size=``, else None and the static size of the sized path: as given, or for
    concrete values traced by grad/jvp the length of NumPy's answer (the sized path then
    computes it and keeps the derivative)."""
    np_fn = getattr(np, name)
    if size is not None:
        return None, static_size(size, name)
    if not isinstance(ar1, Tracer) and not isinstance(ar2, Tracer):
        return wrap_host(np_fn(concrete_value(ar1, name), concrete_value(ar2, name),
                               *flags)), None
    values = []
    for a in (ar1, ar2):
        value = get_concrete(to_array(a))
        if value is None:
            raise concretization_error(
                to_array(a), f"{name}() of a traced array: its output size depends on the "
                f"values; give a static size= (and fill_value= to choose the padding), or "
                f"call it outside jit")
        values.append(np.asarray(value))
    answer = np_fn(*values, *flags)
    return None, np.shape(answer[0] if isinstance(answer, tuple) else answer)[0]


def _distinct(x, assume_unique, name):
    """The flattened ``x``'s distinct values in order, padded to its length, which of
    them are real, and the index in ``x`` of each one's first occurrence (NumPy's
    ``unique(x, return_index=True)``, at a static size); ``x`` flattened as it is when
    ``assume_unique``."""
    flat = reshape(to_array(x), (-1,))
    n = get_aval(flat).shape[0]
    if assume_unique:
        return flat, full((n,), True), arange(n)
    values, first, _, counts = _unique_sized(flat, n, None, True, name)
    return values, counts > 0, first


def _sorted_with_absent_last(values, real):
    """The order that sorts ``values`` (stable, NumPy's NaN-last order) with the entries
    that are not ``real`` moved to the end, and the sorted values and realness."""
    order = argsort(values, stable=True)
    order = order[argsort(logical_not(real[order]), stable=True)]
    return order, values[order], real[order]


def _finish(values, keep, size, fill_value, fill_first=True):
    """The entries of 1-d ``values`` where ``keep``, the first ``size`` of them, padded
    with ``fill_value`` (None: with the first entry kept when ``fill_first``, else or
    when there is none with 0); also the positions picked and which are real."""
    positions, real = true_positions(keep, size)
    dtype = get_aval(values).dtype
    if get_aval(values).shape[0] == 0:
        return full((size,), 0 if fill_value is None else fill_value, dtype), positions, real
    picked = values[positions]
    if fill_value is None:
        fill_value = where(real[0], picked[0], zeros((), dtype)) if size and fill_first else 0
    return where(real, picked, full((), fill_value, dtype)), positions, real


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted distinct values in either array (flattened). A traced input needs a
    static ``size=``, as in JAX: the first ``size`` values, padded with ``fill_value``
    (default: the smallest value)."""
    both = concatenate((reshape(to_array(ar1), (-1,)), reshape(to_array(ar2), (-1,))))
    return unique(both, size=size, fill_value=fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted distinct values in both arrays (flattened), and with ``return_indices``
    the index of each one's first occurrence in ``ar1`` and in ``ar2``. A traced input
    needs a static ``size=``, as in JAX: the first ``size`` values, padded with
    ``fill_value`` (default: the smallest value in the result, or 0), indices padded
    with each input's length."""
    answer, size = _numpy_or_size("intersect1d", size, ar1, ar2, assume_unique,
                                  return_indices)
    if answer is not None:
        return answer
    v1, real1, first1 = _distinct(ar1, assume_unique, "intersect1d")
    v2, real2, first2 = _distinct(ar2, assume_unique, "intersect1d")
    n1, n2 = get_aval(v1).shape[0], get_aval(v2).shape[0]
    v1, v2 = promote(v1, v2)
    index_dtype = get_aval(first1).dtype
    if n1 == 0 or n2 == 0:
        values = full((size,), 0 if fill_value is None else fill_value, get_aval(v1).dtype)
        return ((values, full((size,), n1, index_dtype), full((size,), n2, index_dtype))
                if return_indices else values)
    order, aux, real = _sorted_with_absent_last(concatenate((v1, v2)),
                                                concatenate((real1, real2)))
    # a common value sorts as a pair, ar1's entry first (a stable sort of the
    # concatenation; each input's values are distinct)
    keep = logical_and(equal(aux[1:], aux[:-1]), logical_and(real[1:], real[:-1]))
    values, positions, picked = _finish(aux[:-1], keep, size, fill_value)
    if not return_indices:
        return values
    i1 = first1[order[:-1][positions].clip(0, n1 - 1)]
    i2 = first2[(order[1:][positions] - n1).clip(0, n2 - 1)]
    return (values, where(picked, i1.astype(index_dtype), n1),
            where(picked, i2.astype(index_dtype), n2))


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The distinct values of ``ar1`` (flattened) that are not in ``ar2``, sorted (in
    ``ar1``'s order when ``assume_unique``). A traced input needs a static ``size=``,
    as in JAX: the first ``size`` values, padded with ``fill_value`` (default 0)."""
    answer, size = _numpy_or_size("setdiff1d", size, ar1, ar2, assume_unique)
    if answer is not None:
        return answer
    v1, real1, _ = _distinct(ar1, assume_unique, "setdiff1d")
    keep = logical_and(real1, isin(v1, ar2, invert=True))
    return _finish(v1, keep, size, fill_value, fill_first=False)[0]


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted distinct values in exactly one of the arrays (flattened). A traced
    input needs a static ``size=``, as in JAX: the first ``size`` values, padded with
    ``fill_value`` (default: the smallest value in the result, or 0)."""
    answer, size = _numpy_or_size("setxor1d", size, ar1, ar2, assume_unique)
    if answer is not None:
        return answer
    v1, real1, _ = _distinct(ar1, assume_unique, "setxor1d")
    v2, real2, _ = _distinct(ar2, assume_unique, "setxor1d")
    v1, v2 = promote(v1, v2)
    _, aux, real = _sorted_with_absent_last(concatenate((v1, v2)),
                                            concatenate((real1, real2)))
    if get_aval(aux).shape[0] == 0:
        return _finish(aux, real, size, fill_value)[0]
    differs = logical_or(not_equal(aux[1:], aux[:-1]),
                         logical_not(logical_and(real[1:], real[:-1])))
    edge = full((1,), True)
    flag = concatenate((edge, differs, edge))
    keep = logical_and(logical_and(flag[1:], flag[:-1]), real)
    return _finish(aux, keep, size, fill_value)[0]


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True, size=None, fill_value=None):
    """The unique elements of ``ar`` (sorted unless ``sorted=False``), with NumPy's optional
    first indices, inverse indices and counts.

    The output size depends on the values, so a traced ``ar`` (under ``jit``/``vmap``)
    needs a static ``size=`` (as in JAX): the first ``size`` sorted unique values (or
    slices along ``axis``), padded with ``fill_value`` (default: the smallest value),
    padded counts 0 and indices 0.
    """
    if size is None:
        if fill_value is not None:
            raise ValueError("unique: fill_value= pads the result to size=; give size= too")
        value = _concrete(ar, "unique")
        if isinstance(ar, Tracer):
            # a concrete value under grad/jvp: the sized path keeps the derivative
            size = np.unique(value, axis=axis, equal_nan=equal_nan).shape[
                0 if axis is None else axis]
            return unique(ar, return_index, return_inverse, return_counts, axis,
                          equal_nan=equal_nan, size=size)
        res = np.unique(value, return_index=return_index, return_inverse=return_inverse,
                        return_counts=return_counts, axis=axis, equal_nan=equal_nan,
                        sorted=sorted)
        return wrap_host(res)
    if axis is None:
        values, indices, inverse, counts = _unique_sized(ar, size, fill_value, equal_nan,
                                                         "unique")
    else:
        values, indices, inverse, counts = _unique_rows_sized(ar, axis, size, fill_value)
    extra = [r for r, want in ((indices, return_index), (inverse, return_inverse),
                                (counts, return_counts)) if want]
    return (values, *extra) if extra else values


def _concrete(x, name):
    x = to_array(x)
    value = get_concrete(x)
    if value is None:
        raise concretization_error(
            x, f"{name}() of a traced array: its output size depends on the values; give a "
            f"static size= (and fill_value= to choose the padding), or call it outside jit")
    return np.asarray(value)


def _unique_sized(x, size, fill_value, equal_nan, name):
    """The sorted unique values of ``x`` padded or cut to ``size`` entries, the index of
    each one's first occurrence, the inverse indices (shaped like ``x``) and the counts,
    from a sort: works on traced values."""
    size = static_size(size, name)
    x = to_array(x)
    shape, dtype = get_aval(x).shape, get_aval(x).dtype
    flat = reshape(x, (-1,))
    n = get_aval(flat).shape[0]
    index_dtype = dtypes.canonicalize(np.dtype(np.intp))
    if n == 0:
        if size and fill_value is None:
            raise ValueError(f"{name} of an empty array with size={size} needs fill_value=")
        pad = zeros((size,), index_dtype)
        return (full((size,), fill_value if size else 0, dtype), pad,
                zeros(shape, index_dtype), pad)
    perm = argsort(flat, stable=True)
    ordered = flat[perm]
    new = not_equal(ordered[1:], ordered[:-1])
    if equal_nan and dtypes.issubdtype(dtype, np.inexact):
        new = logical_and(new, logical_not(logical_and(isnan(ordered[1:]),
                                                       isnan(ordered[:-1]))))
    first = concatenate([full((1,), True), new])
    group = (cumsum(first) - 1).astype(index_dtype)
    slot = where(first, group, size)   # only a value's first occurrence writes; > size drops
    values = zeros((size,), dtype).at[slot].set(ordered)
    present = arange(size) < group[-1] + 1
    fill = ordered[0] if fill_value is None else fill_value
    values = where(present, values, full((), fill, dtype))
    indices = zeros((size,), index_dtype).at[slot].set(perm.astype(index_dtype))
    counts = zeros((size,), index_dtype).at[group].add(1)
    inverse = reshape(zeros((n,), index_dtype).at[perm].set(group), shape)
    return values, indices, inverse, counts


def _unique_rows_sized(x, axis, size, fill_value):
    """``unique(x, axis=axis, size=size)``: the distinct slices along ``axis`` in
    lexicographic order (NaNs distinct, as NumPy's), from a multi-key sort."""
    size = static_size(size, "unique")
    x = to_array(x)
    shape = get_aval(x).shape
    axis = canonicalize_axis(axis, len(shape))
    moved = moveaxis(x, axis, 0)
    rest = get_aval(moved).shape[1:]
    n = shape[axis]
    rows = reshape(moved, (n, -1))
    width = get_aval(rows).shape[1]
    index_dtype = dtypes.canonicalize(np.dtype(np.intp))
    if n == 0:
        raise ValueError("unique with size= of an array with no slices along axis: "
                         "nothing to pad with")
    if width == 0:   # zero-width slices are all equal
        perm, ordered = lax.iota(index_dtype, n), rows
        new = full((n - 1,), False)
    else:
        columns = [rows[:, j] for j in range(width)]
        *keys, perm = lax.sort(columns + [lax.iota(index_dtype, n)], 0, num_keys=width)
        ordered = stack(keys, axis=1)
        new = any_(ordered[1:] != ordered[:-1], axis=1)
    first = concatenate([full((1,), True), new])
    group = (cumsum(first) - 1).astype(index_dtype)
    slot = where(first, group, size)
    values = zeros((size, width), get_aval(x).dtype).at[slot].set(ordered)
    present = (arange(size) < group[-1] + 1)[:, None]
    fill = ordered[0] if fill_value is None else full((width,), fill_value, get_aval(x).dtype)
    values = where(present, values, fill)
    values = moveaxis(reshape(values, (size,) + rest), 0, axis)
    indices = zeros((size,), index_dtype).at[slot].set(perm)
    counts = zeros((size,), index_dtype).at[group].add(1)
    inverse = zeros((n,), index_dtype).at[perm].set(group)
    return values, indices, inverse, counts


# NumPy's own result types, as numpy.linalg's (see EigResult there).
UniqueAllResult = _np_set_impl.UniqueAllResult
UniqueCountsResult = _np_set_impl.UniqueCountsResult
UniqueInverseResult = _np_set_impl.UniqueInverseResult


# The Array API leaves the order of the unique family unspecified and NumPy 2.3+ returns
# unique_values in hash order; library code (scikit-learn's LabelEncoder, LDA's classes_)
# relies on the values coming out sorted, as np.unique gives them, so all four sort.
def _traced_size(x, size, name):
    """``size``, or for a concrete value traced by grad/jvp (no size given) its number of
    distinct values, so the sized path computes it and keeps the derivative."""
    if size is None and isinstance(x, Tracer):
        return np.unique(_concrete(x, name).reshape(-1), equal_nan=False).shape[0]
    return size


def _sorted_unique(x, name, **returns):
    """np.unique's sorted result for the flattened ``x`` (NaNs distinct), and x's shape."""
    value = _concrete(x, name)
    return np.unique(value.reshape(-1), equal_nan=False, sorted=True, **returns), value.shape


def unique_all(x, /, *, size=None, fill_value=None):
    """Array API unique_all: sorted distinct values (NaNs are distinct), the index of each
    value's first occurrence, the inverse indices (shaped like ``x``) and the counts.
    ``size=``/``fill_value=`` as in ``unique`` (needed under ``jit``)."""
    size = _traced_size(x, size, "unique_all")
    if size is not None:
        return UniqueAllResult(*_unique_sized(x, size, fill_value, False, "unique_all"))
    (values, indices, inverse, counts), shape = _sorted_unique(
        x, "unique_all", return_index=True, return_inverse=True, return_counts=True)
    return UniqueAllResult(*wrap_host((values, indices, inverse.reshape(shape), counts)))


def unique_counts(x, /, *, size=None, fill_value=None):
    """Array API unique_counts: sorted distinct values (NaNs are distinct) and their counts.
    ``size=``/``fill_value=`` as in ``unique`` (needed under ``jit``)."""
    size = _traced_size(x, size, "unique_counts")
    if size is not None:
        values, _, _, counts = _unique_sized(x, size, fill_value, False, "unique_counts")
        return UniqueCountsResult(values, counts)
    (values, counts), _ = _sorted_unique(x, "unique_counts", return_counts=True)
    return UniqueCountsResult(*wrap_host((values, counts)))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """Array API unique_inverse: sorted distinct values (NaNs are distinct) and the inverse
    indices (shaped like ``x``) that rebuild ``x`` from them. ``size=``/``fill_value=`` as
    in ``unique`` (needed under ``jit``)."""
    size = _traced_size(x, size, "unique_inverse")
    if size is not None:
        values, _, inverse, _ = _unique_sized(x, size, fill_value, False, "unique_inverse")
        return UniqueInverseResult(values, inverse)
    (values, inverse), shape = _sorted_unique(x, "unique_inverse", return_inverse=True)
    return UniqueInverseResult(*wrap_host((values, inverse.reshape(shape))))


def unique_values(x, /, *, size=None, fill_value=None):
    """Array API unique_values: the sorted distinct values (NaNs are distinct).
    ``size=``/``fill_value=`` as in ``unique`` (needed under ``jit``)."""
    size = _traced_size(x, size, "unique_values")
    if size is not None:
        return _unique_sized(x, size, fill_value, False, "unique_values")[0]
    values, _ = _sorted_unique(x, "unique_values")
    return wrap_host(values)
