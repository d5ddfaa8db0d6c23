"""Histograms (NumPy's statistics chapter): bincount."""

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from ._core import _concrete, to_array


def bincount(x, weights=None, minlength=0, *, length=None):
    """Counts of each non-negative integer value (``length`` fixes the size under jit)."""
    x = to_array(x)
    if not dtypes.is_integer(get_aval(x).dtype):
        raise TypeError("bincount: x must be integers")
    if length is None:
        v = _concrete(x, "bincount")
        if v.size and v.min() < 0:
            raise ValueError("bincount: x must be non-negative")
        length = max(int(minlength), int(v.max()) + 1 if v.size else 0)
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
