"""``Array.view``: the same bytes seen as another dtype (NumPy's ``ndarray.view``).

Eagerly the result is a view Array of the same buffer (NumPy's view of the host
ndarray, so writes through either show in the other). Under a transformation it is a
bitcast (``lax.bitcast_convert_type``) with NumPy's shape rule: the same itemsize keeps
the shape; otherwise the last axis is rescaled by the ratio of the itemsizes (and must
divide evenly). Compiled code has no memory layout, so the eager rule that the last
axis be contiguous does not apply there.
"""

import builtins

import numpy as np

from .. import dtypes, lax
from ..core import Tracer
from ..core.trace import non_numeric_context
from ..errors import NonNumericDtypeError
from ..runtime.array import Array, set_method
from ..runtime.numpy_dispatch import wrap

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_FLOAT = {4: np.float32, 8: np.float64}


def _target(dtype, type):
    if isinstance(dtype, builtins.type) and issubclass(dtype, (Array, np.ndarray)):
        dtype, type = None, dtype   # view(ndarray_class), as NumPy reads it
    if type is not None and not (isinstance(type, builtins.type) and issubclass(type, Array)):
        raise TypeError(f"view(type={type!r}): minijax has one array class, so a view "
                        f"cannot change it; use numpy.asarray(x) for a NumPy array")
    return None if dtype is None else np.dtype(dtype)


def view(self, dtype=None, type=None):
    """The array's bytes as ``dtype`` (a view of the same buffer eagerly); with no
    ``dtype``, a new Array object viewing the same buffer."""
    dtype = _target(dtype, type)
    if dtype is not None:
        try:
            dtype = dtypes.canonicalize(dtype)   # a TypeError naming an unsupported dtype
        except NonNumericDtypeError as e:
            if not isinstance(self, Tracer):   # eagerly, NumPy's bytes as strings, ...
                return wrap(self._value().view(dtype), (self,))
            raise e.named(f"Array.view{non_numeric_context()}") from None
    if isinstance(self, Tracer):
        return self if dtype is None else _bitcast(self, dtype)
    host = self._value()
    return wrap(host.view() if dtype is None else host.view(dtype), (self,))


def _bitcast(x, dtype):
    """``x``'s bits as ``dtype``, the last axis rescaled as NumPy's view rescales it."""
    src = x.dtype
    if src == dtype:
        return lax.convert_element_type(x, dtype)
    if src.itemsize != dtype.itemsize:
        if x.ndim == 0:
            raise ValueError(f"view of a 0-d array as {dtype.name}: changing the itemsize "
                             f"(from {src.itemsize} to {dtype.itemsize}) needs at least one "
                             f"axis")
        n = x.shape[-1] * src.itemsize
        if n % dtype.itemsize:
            raise ValueError(f"view as {dtype.name}: the last axis ({x.shape[-1]} items of "
                             f"{src.itemsize} bytes) is not a multiple of {dtype.itemsize} "
                             f"bytes")
    bits = _as_plain(x)   # integer or float items (complex split, bool as uint8)
    out = _plain_to(bits, _plain_dtype(dtype))
    if dtype == np.bool_:
        out = lax.ne(out, lax.convert_element_type(0, out.dtype))
    elif dtypes.is_complex(dtype):
        pairs = lax.reshape(out, (*out.shape[:-1], out.shape[-1] // 2, 2))
        re, im = (lax.index_in_dim(pairs, i, pairs.ndim - 1, keepdims=False) for i in (0, 1))
        out = lax.complex(re, im)
    if src.itemsize == dtype.itemsize and out.shape != x.shape:
        out = lax.reshape(out, x.shape)   # a 0-d array split into parts and back
    return out


def _plain_dtype(dtype):
    """The integer or float dtype whose items make up ``dtype``'s (complex: its part)."""
    if dtype == np.bool_:
        return np.dtype(np.uint8)
    if dtypes.is_complex(dtype):
        return np.dtype(_FLOAT[dtype.itemsize // 2])
    return dtype


def _as_plain(x):
    if x.dtype == np.bool_:
        return lax.convert_element_type(x, np.uint8)
    if dtypes.is_complex(x.dtype):
        parts = lax.concatenate([lax.expand_dims(lax.real(x), (x.ndim,)),
                                 lax.expand_dims(lax.imag(x), (x.ndim,))], x.ndim)
        return lax.reshape(parts, (*x.shape[:-1], x.shape[-1] * 2) if x.ndim else (2,))
    return x


def _plain_to(x, dtype):
    """Bitcast an integer/float array to the integer/float ``dtype`` (last axis rescaled)."""
    src, dst = x.dtype.itemsize, dtype.itemsize
    if src == dst:
        return lax.bitcast_convert_type(x, dtype)
    if src > dst:
        out = lax.bitcast_convert_type(x, dtype)   # gains a trailing axis of src // dst
        if x.ndim == 0:
            return out
        return lax.reshape(out, (*x.shape[:-1], x.shape[-1] * (src // dst)))
    ratio = dst // src
    grouped = lax.reshape(x, (*x.shape[:-1], x.shape[-1] // ratio, ratio))
    return lax.bitcast_convert_type(grouped, dtype)


def install(array_cls, tracer_cls):
    """Give ``Array`` and tracers the ``view`` method."""
    set_method(array_cls, "view", view)
    tracer_cls.view = view
