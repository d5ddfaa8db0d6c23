"""Shape manipulation: reshape, transpose, expand_dims, squeeze, broadcast_to, ravel."""

import operator

import numpy as np

from .. import lax
from ..core import get_aval
from ..util import canonicalize_axis
from ._core import broadcast_shapes, to_array


def shape(a):
    return get_aval(to_array(a)).shape


def ndim(a):
    return get_aval(to_array(a)).ndim


def size(a, axis=None):
    s = shape(a)
    return int(np.prod(s, dtype=np.int64)) if axis is None else s[axis]


def reshape(a, shape=None, order="C", *, newshape=None):
    """``a`` with a new shape (one entry may be -1)."""
    if order != "C":
        raise NotImplementedError("reshape supports only order='C'")
    if shape is None:
        shape = newshape
    a = to_array(a)
    aval = get_aval(a)
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(operator.index(d) for d in shape)
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension (-1) in reshape")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or aval.size % known:
            raise ValueError(f"cannot reshape array of size {aval.size} into shape {shape}")
        shape = tuple(aval.size // known if d == -1 else d for d in shape)
    if int(np.prod(shape, dtype=np.int64)) != aval.size:
        raise ValueError(f"cannot reshape array of size {aval.size} into shape {shape}")
    return lax.reshape(a, shape)


def ravel(a, order="C"):
    return reshape(a, (-1,), order)


def transpose(a, axes=None):
    """Permute axes (reverse them by default)."""
    a = to_array(a)
    nd = get_aval(a).ndim
    if axes is None:
        axes = tuple(range(nd))[::-1]
    axes = tuple(canonicalize_axis(x, nd) for x in axes)
    if sorted(axes) != list(range(nd)):
        raise ValueError(f"axes {axes} don't match array of dimension {nd}")
    return lax.transpose(a, axes)


def permute_dims(a, axes):
    return transpose(a, axes)


def moveaxis(a, source, destination):
    a = to_array(a)
    nd = get_aval(a).ndim
    src = [canonicalize_axis(s, nd) for s in np.atleast_1d(source)]
    dst = [canonicalize_axis(d, nd) for d in np.atleast_1d(destination)]
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return lax.transpose(a, tuple(order))


def swapaxes(a, axis1, axis2):
    a = to_array(a)
    nd = get_aval(a).ndim
    perm = list(range(nd))
    i, j = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, tuple(perm))


def expand_dims(a, axis):
    a = to_array(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out_ndim = get_aval(a).ndim + len(axes)
    axes = [canonicalize_axis(x, out_ndim) for x in axes]
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis in expand_dims")
    return lax.expand_dims(a, axes)


def squeeze(a, axis=None):
    a = to_array(a)
    s = get_aval(a).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(s) if d == 1)
    else:
        axes = tuple(canonicalize_axis(x, len(s))
                     for x in (axis if isinstance(axis, (tuple, list)) else (axis,)))
        for x in axes:
            if s[x] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 "equal to one")
    return lax.squeeze(a, axes)


def broadcast_to(array, shape):
    a = to_array(array)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    src = get_aval(a).shape
    if broadcast_shapes(src, shape, name="input") != tuple(shape):
        raise ValueError(f"cannot broadcast an array of shape {src} to shape {tuple(shape)}")
    return lax.broadcast_to_shape(a, tuple(shape))


def atleast_1d(a):
    a = to_array(a)
    return reshape(a, (1,)) if get_aval(a).ndim == 0 else a


def atleast_2d(a):
    a = to_array(a)
    nd = get_aval(a).ndim
    return reshape(a, (1,) * (2 - nd) + get_aval(a).shape) if nd < 2 else a
