"""Set functions (Array API chapter "Set Functions"): the unique family, isin and
NumPy's 1-d set operations (intersect1d, union1d, setdiff1d, setxor1d)."""

from collections import namedtuple

import numpy as np

from .. import lax
from ..core import get_aval
from ._core import _concrete, _wrap, promote
from ._manipulation import reshape


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (by broadcasting)."""
    e, t = promote(element, test_elements)
    es = get_aval(e).shape
    t = reshape(t, (-1,))
    n = get_aval(t).shape[0]
    shape = es + (n,)
    eq = lax.eq(lax.broadcast_in_dim(e, shape, tuple(range(len(es)))),
                lax.broadcast_in_dim(t, shape, (len(es),)))
    out = lax.reduce_max(eq, (len(es),)) if n else lax.full(es, False, np.bool_)
    return lax.eq(out, lax.full(es, False, np.bool_)) if invert else out


def _set_op(name):
    np_fn = getattr(np, name)

    def fn(ar1, ar2, *args, **kwargs):
        res = np_fn(_concrete(ar1, name), _concrete(ar2, name), *args, **kwargs)
        return _wrap(res)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.{name} (eager only: the output size depends on the values)."
    return fn


intersect1d = _set_op("intersect1d")


union1d = _set_op("union1d")


setdiff1d = _set_op("setdiff1d")


setxor1d = _set_op("setxor1d")


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """Sorted unique elements (eager only: the output size depends on the values)."""
    value = _concrete(ar, "unique")
    res = np.unique(value, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    return _wrap(res)


UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])


UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])


UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def unique_all(x, /):
    """Array API unique_all: values, first indices, inverse indices and counts."""
    r = np.unique_all(_concrete(x, "unique_all"))
    return UniqueAllResult(*_wrap(tuple(r)))


def unique_counts(x, /):
    """Array API unique_counts: values and their counts."""
    r = np.unique_counts(_concrete(x, "unique_counts"))
    return UniqueCountsResult(*_wrap(tuple(r)))


def unique_inverse(x, /):
    """Array API unique_inverse: values and the inverse indices (shaped like ``x``)."""
    r = np.unique_inverse(_concrete(x, "unique_inverse"))
    return UniqueInverseResult(*_wrap(tuple(r)))


def unique_values(x, /):
    """Array API unique_values: the distinct values (NaNs are distinct)."""
    return _wrap(np.unique_values(_concrete(x, "unique_values")))
