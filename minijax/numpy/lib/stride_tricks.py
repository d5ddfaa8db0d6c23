"""``minijax.numpy.lib.stride_tricks``: ``sliding_window_view``. ``as_strided`` is out
of scope: an arbitrary strided view has no meaning for compiled code (it raises
``UnsupportedNumPyFeatureError`` saying what to use)."""

import operator

import numpy as np

from ...core import Tracer
from ...errors import UnsupportedNumPyFeatureError
from ...runtime.array import Array
from ...runtime.numpy_dispatch import host_of, wrap
from ...util import canonicalize_axis
from .. import _indexing
from .. import _manipulation as manip
from .._core import _contains_tracer, to_array

__all__ = ["sliding_window_view"]


def _windows(shape, window_shape, axis):
    """``[(axis, window), ...]`` after NumPy's checks of ``window_shape`` and ``axis``."""
    try:
        window_shape = (tuple(map(operator.index, window_shape))
                        if np.iterable(window_shape) else (operator.index(window_shape),))
    except TypeError:
        raise TypeError(f"sliding_window_view: window_shape must be an int or a tuple of "
                        f"ints, got {window_shape!r}") from None
    if any(w < 0 for w in window_shape):
        raise ValueError("sliding_window_view: window_shape cannot contain negative values")
    if axis is None:
        if len(window_shape) != len(shape):
            raise ValueError(f"sliding_window_view: window_shape {window_shape} needs one "
                             f"entry per axis of the array (it has {len(shape)}) when axis "
                             f"is None")
        axes = tuple(range(len(shape)))
    else:
        axes = tuple(canonicalize_axis(a, len(shape))
                     for a in (axis if np.iterable(axis) else (axis,)))
        if len(axes) != len(window_shape):
            raise ValueError(f"sliding_window_view: window_shape {window_shape} and axis "
                             f"{axis} must have the same length")
    trimmed = list(shape)
    for a, w in zip(axes, window_shape):
        if trimmed[a] < w:
            raise ValueError("sliding_window_view: window shape cannot be larger than the "
                             "input array's shape")
        trimmed[a] -= w - 1
    return list(zip(axes, window_shape))


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of ``window_shape`` that fits in ``x`` (along ``axis``, all axes if
    None): the window positions first, then the window's own axes, as NumPy's.

    Eagerly the result is NumPy's read-only view of ``x``'s buffer (writable with
    ``writeable=True``); under a transformation it is a gather of the windows.
    """
    if subok:
        raise TypeError("sliding_window_view(subok=True): minijax has one array class; "
                        "leave subok=False")
    if not (isinstance(x, Tracer) or _contains_tracer(x)):
        host = host_of(x) if not isinstance(x, (list, tuple)) else to_array(x)._value()
        host = np.asarray(host)
        _windows(host.shape, window_shape, axis)
        out = wrap(np.lib.stride_tricks.sliding_window_view(host, window_shape, axis,
                                                            writeable=writeable))
        if type(x) is Array:
            # NumPy's result is based on a stand-in object, not on x's ndarray: link the
            # view to x's root by hand (DESIGN 5), so it follows x's buffer
            out._make_view_of(x, writeable)
        return out
    x = to_array(x)
    for a, w in _windows(x.shape, window_shape, axis):
        starts = np.arange(x.shape[a] - w + 1)[:, None] + np.arange(w)[None, :]
        x = manip.moveaxis(_indexing.take(x, starts, axis=a), a + 1, -1)
    return x


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """Out of scope (raises): use ``sliding_window_view``, ``broadcast_to`` or indexing."""
    raise UnsupportedNumPyFeatureError(
        "minijax.numpy.lib.stride_tricks.as_strided is not provided: arbitrary strides "
        "have no meaning for compiled code; use sliding_window_view, broadcast_to, reshape "
        "or indexing")
