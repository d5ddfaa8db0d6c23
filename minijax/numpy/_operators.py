"""Operators and methods shared by ``Array`` and every tracer (installed on both)."""

import numpy as np

from .. import dtypes, lax
from ..core import Tracer, get_aval
from ..runtime.array import Array
from . import _elementwise as ew
from . import _indexing, _linear_algebra
from . import _manipulation as manip
from . import _statistical as red


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _defer(fn):
    """Binary operator that returns NotImplemented for operands it does not know."""
    def op(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return fn(self, other)
    return op


def _operand_ok(x):
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex,
                          list, tuple))


def _inplace(fn):
    """``x op= y``: NumPy's same-kind casting into x's dtype and shape, then ``x`` is rebound
    to the result so every reference to the object sees it (DESIGN decision 5)."""
    def op(self, other):
        if not _operand_ok(other):
            return NotImplemented
        aval = self.aval
        result = fn(self, other)
        r_aval = get_aval(result)
        if not np.can_cast(r_aval.dtype, aval.dtype, casting="same_kind") and not (
                r_aval.dtype == dtypes.bfloat16 or aval.dtype == dtypes.bfloat16):
            raise TypeError(f"cannot cast the result of an in-place operation from "
                            f"{r_aval.dtype.name} to {aval.dtype.name} with casting rule "
                            f"'same_kind'")
        if r_aval.shape != aval.shape:
            raise ValueError(f"non-broadcastable output operand with shape {aval.shape} "
                             f"doesn't match the broadcast shape {r_aval.shape}")
        result = lax.convert_element_type(result, aval.dtype, aval.weak_type)
        if type(result) is type(self) and (not isinstance(self, Tracer)
                                           or result._trace.main is self._trace.main):
            self._rebind(result)
            return self
        return result
    return op


def _astype(self, dtype, copy=True):
    return lax.convert_element_type(self, dtypes.canonicalize(dtype))


def _reshape(self, *shape, order="C"):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return manip.reshape(self, shape, order)


def _transpose_method(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return manip.transpose(self, axes or None)


_METHODS = {
    "__add__": _defer(ew.add), "__radd__": _defer(_reflected(ew.add)),
    "__sub__": _defer(ew.subtract), "__rsub__": _defer(_reflected(ew.subtract)),
    "__mul__": _defer(ew.multiply), "__rmul__": _defer(_reflected(ew.multiply)),
    "__truediv__": _defer(ew.divide), "__rtruediv__": _defer(_reflected(ew.divide)),
    "__pow__": _defer(ew.power), "__rpow__": _defer(_reflected(ew.power)),
    "__matmul__": _defer(_linear_algebra.matmul), "__rmatmul__": _defer(_reflected(_linear_algebra.matmul)),
    "__lt__": _defer(ew.less), "__le__": _defer(ew.less_equal),
    "__gt__": _defer(ew.greater), "__ge__": _defer(ew.greater_equal),
    "__eq__": _defer(ew.equal), "__ne__": _defer(ew.not_equal),
    "__neg__": ew.negative, "__pos__": ew.positive, "__abs__": ew.absolute,
    "__iadd__": _inplace(ew.add), "__isub__": _inplace(ew.subtract),
    "__imul__": _inplace(ew.multiply), "__itruediv__": _inplace(ew.divide),
    "__ipow__": _inplace(ew.power), "__imatmul__": _inplace(_linear_algebra.matmul),
    "__iter__": _indexing.iterate,
    "__getitem__": _indexing.getitem, "__setitem__": _indexing.setitem,
    "__array_namespace__": lambda self, api_version=None: __import__("minijax.numpy").numpy,
    "astype": _astype,
    "reshape": _reshape,
    "transpose": _transpose_method,
    "sum": lambda self, axis=None, dtype=None, keepdims=False: red.sum(self, axis, dtype, keepdims=keepdims),
    "mean": lambda self, axis=None, dtype=None, keepdims=False: red.mean(self, axis, dtype, keepdims=keepdims),
    "max": lambda self, axis=None, keepdims=False: red.max(self, axis, keepdims=keepdims),
    "min": lambda self, axis=None, keepdims=False: red.min(self, axis, keepdims=keepdims),
    "dot": lambda self, b: _linear_algebra.dot(self, b),
    "ravel": lambda self, order="C": manip.ravel(self, order),
    "flatten": lambda self, order="C": manip.ravel(self, order),
    "squeeze": lambda self, axis=None: manip.squeeze(self, axis),
    "swapaxes": lambda self, a1, a2: manip.swapaxes(self, a1, a2),
}

_PROPERTIES = {
    "T": lambda self: manip.transpose(self),
    "mT": lambda self: manip.swapaxes(self, -1, -2),
    "at": _indexing.at,
}


def _fast_op(fn, reflected=False):
    """An Array operator: ``fn`` (whose fast path comes first) at once for Array and
    Python-scalar operands, NotImplemented for operands it does not know."""
    if reflected:
        def op(self, other):
            if type(other) not in _FAST_OPERANDS and not _operand_ok(other):
                return NotImplemented
            return fn(other, self)
    else:
        def op(self, other):
            if type(other) not in _FAST_OPERANDS and not _operand_ok(other):
                return NotImplemented
            return fn(self, other)
    return op


_FAST_OPERANDS = frozenset({Array, int, float, complex, bool})
_ARRAY_METHODS = {
    "__add__": _fast_op(ew.add), "__radd__": _fast_op(ew.add, True),
    "__sub__": _fast_op(ew.subtract), "__rsub__": _fast_op(ew.subtract, True),
    "__mul__": _fast_op(ew.multiply), "__rmul__": _fast_op(ew.multiply, True),
    "__truediv__": _fast_op(ew.divide), "__rtruediv__": _fast_op(ew.divide, True),
    "__pow__": _fast_op(ew.power), "__rpow__": _fast_op(ew.power, True),
    "__lt__": _fast_op(ew.less), "__le__": _fast_op(ew.less_equal),
    "__gt__": _fast_op(ew.greater), "__ge__": _fast_op(ew.greater_equal),
    "__eq__": _fast_op(ew.equal), "__ne__": _fast_op(ew.not_equal),
}


def add_methods(cls, methods, properties):
    for name, fn in methods.items():
        setattr(cls, name, fn)
    for name, fn in properties.items():
        setattr(cls, name, property(fn))


def install(cls):
    add_methods(cls, _METHODS, _PROPERTIES)
    if cls is Array:
        for name, fn in _ARRAY_METHODS.items():
            setattr(cls, name, fn)
    else:
        cls.__hash__ = None


install(Array)
install(Tracer)
