"""Abstract values: what a transformation knows about an array (shape, dtype, weak type)."""

import math

import numpy as np

from .. import dtypes

_SHORT_NAMES = {"bool": "bool", "bfloat16": "bf16"}


def short_dtype_name(dtype):
    name = dtype.name
    if name in _SHORT_NAMES:
        return _SHORT_NAMES[name]
    return name[0] + name.lstrip("abcdefghijklmnopqrstuvwxyz")   # float64 -> f64, uint8 -> u8


class ShapedArray:
    """The set of arrays of one shape and dtype; ``weak_type`` marks Python-scalar origin."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.weak_type = weak_type
        self._hash = hash((self.shape, dtype, weak_type))

    ndim = property(lambda self: len(self.shape))

    @property
    def size(self):
        return math.prod(self.shape)

    def update(self, shape=None, dtype=None, weak_type=None):
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def strip_weak_type(self):
        return ShapedArray(self.shape, self.dtype) if self.weak_type else self

    def str_short(self):
        return f"{short_dtype_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other):
        return self is other or (type(other) is ShapedArray and self._hash == other._hash
                                 and self.shape == other.shape and self.dtype == other.dtype
                                 and self.weak_type == other.weak_type)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"


def same_type(a, b):
    """Shape and dtype agree (weak types may differ)."""
    return a.shape == b.shape and a.dtype == b.dtype


def get_aval(x):
    """The abstract value of a tracer, an Array, a NumPy array or a Python scalar."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    if dtypes.is_python_scalar(x):
        dtype, weak = dtypes.python_scalar_dtype(x)
        dtypes.check_python_int(x, dtype)
        return ShapedArray((), dtype, weak)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(np.shape(x), dtypes.canonicalize(x.dtype))
    raise TypeError(f"value of type {type(x).__name__} is not a valid minijax array type; "
                    f"pass arrays, NumPy arrays or Python scalars")


def zeros_like_aval(aval):
    return np.zeros(aval.shape, aval.dtype)
