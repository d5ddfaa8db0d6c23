"""Operators, methods and properties of ``Array`` and of every tracer (installed on both
when ``minijax.numpy`` is imported)."""

import sys

import numpy as np

from .. import _mutation, dtypes, lax
from ..core import Tracer, concretization_error, get_aval
from .. import backend
from ..runtime.array import Array, contains, resolve_placement, set_method
from ..runtime.sharding import placement_on
from . import _elementwise as ew
from . import _array_ufunc, _index_tricks, _indexing, _linear_algebra, _searching, _sorting, _utility
from . import _data_types
from . import _manipulation as manip
from . import _statistical as stats
from ._creation import full_like


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


def _binary(name, fn, inplace=True):
    """``__name__``, ``__rname__`` and (if ``inplace``) ``__iname__`` for the binary ``fn``."""
    ops = {f"__{name}__": _defer(fn), f"__r{name}__": _defer(_reflected(fn))}
    if inplace:
        ops[f"__i{name}__"] = _inplace(fn)
    return ops


def _mutating(name, fn):
    """A NumPy method that updates the array in place and returns None (``sort``,
    ``fill``, ...): ``fn`` gives the new value, written into (or rebound to) ``self``."""
    def method(self, *args, **kwargs):
        _mutation.refresh(self)
        _mutation.rebind_or_raise(self, fn(self, *args, **kwargs), f"{name}()")
    method.__name__ = name
    return method


def _inplace(fn):
    """``x op= y``: NumPy's same-kind casting into x's dtype and shape, then ``x`` is rebound
    to the result so every reference to the object sees it (DESIGN decision 5)."""
    def op(self, other):
        if not _operand_ok(other):
            return NotImplemented
        _mutation.refresh(self)
        aval = self.aval
        result = fn(self, other)
        r_aval = get_aval(result)
        if not aval.shape and r_aval.shape:
            # a 0-d array stands for NumPy's scalar (what reductions and x[i, j] give):
            # ``s -= v`` rebinds the name to the broadcast result, as for a scalar
            return result
        if not aval.shape and r_aval.dtype != aval.dtype and (
                isinstance(self, Tracer) or not self._has_host_ndarray()):
            # as above, for the dtype: NumPy's scalar promotes (``s -= 0.5`` on an
            # integer sum gives a float). Only a host 0-d ndarray is known to be an
            # array (NumPy's casting error below); a traced or device-held 0-d value
            # cannot tell whether NumPy would have a scalar there and is taken as one.
            return result
        if not np.can_cast(r_aval.dtype, aval.dtype, casting="same_kind") and not (
                r_aval.dtype == dtypes.bfloat16 or aval.dtype == dtypes.bfloat16):
            raise TypeError(f"cannot cast the result of an in-place operation from "
                            f"{r_aval.dtype.name} to {aval.dtype.name} with casting rule "
                            f"'same_kind'")
        if r_aval.shape != aval.shape:
            raise ValueError(f"non-broadcastable output operand with shape {aval.shape} "
                             f"doesn't match the broadcast shape {r_aval.shape}")
        result = lax.convert_element_type(result, aval.dtype, aval.weak_type)
        if type(self) is Array and self._host_scalar() is not None:
            return result   # NumPy's scalar is immutable: ``s += 1`` rebinds the name
        if type(self) is Array and type(result) is Array:
            self._assign(result)   # writes through views into the base (DESIGN 5)
            return self
        if type(result) is type(self) and (not isinstance(self, Tracer)
                                           or result._trace.main is self._trace.main):
            self._rebind(result)
            _mutation.write_back(self, "an in-place operator")
            return self
        if _mutation.capture_in_body(self, result, "an in-place operator"):
            return self
        return result
    return op


def _resize_method(self, *new_shape, refcheck=True):
    """``a.resize(shape)``: NumPy's in-place resize (new entries are zeros); a view
    cannot be resized, as in NumPy."""
    if (type(self) is Array and self._is_view()) or (
            isinstance(self, Tracer) and getattr(self, "_view_of", None) is not None):
        raise ValueError("cannot resize this array: it does not own its data")
    _mutation.refresh(self)
    result = manip.resize_in_place(self, new_shape, refcheck)
    if type(self) is Array and type(result) is Array:
        self._rebind(result)
        return None
    _mutation.rebind_or_raise(self, result, "resize()")
    return None


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True, *, device=None):
    # (order is a memory layout, which a traced or device value does not have)
    target = dtypes.canonicalize(dtype)
    if casting != "unsafe" and not np.can_cast(self.dtype, target, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {target!r} "
                        f"according to the rule {casting!r}")
    return _data_types.astype(self, target, copy=copy, device=device)


def _reshape(self, *shape, order="C", copy=None):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return manip.reshape(self, shape, order, copy=copy)


def _transpose_method(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return manip.transpose(self, axes or None)


# The Array API versions minijax.numpy answers for (its own, __array_api_version__,
# and the earlier ones it is a superset of).
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


def _array_namespace(self, *, api_version=None):
    """``minijax.numpy``, the array's namespace; ``api_version`` (None for the newest)
    must be a version of the Array API standard that it implements."""
    if api_version is not None and not isinstance(api_version, str):
        raise ValueError(f"__array_namespace__: api_version must be None or a string "
                         f"such as {_API_VERSIONS[-1]!r}, got {api_version!r}")
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(f"__array_namespace__: version {api_version!r} of the Array API "
                         f"standard is not supported; minijax.numpy implements "
                         f"{', '.join(_API_VERSIONS)} (pass one of them, or None for the "
                         f"newest)")
    return sys.modules["minijax.numpy"]


_METHODS = {
    **_binary("add", ew.add), **_binary("sub", ew.subtract), **_binary("mul", ew.multiply),
    **_binary("truediv", ew.divide), **_binary("floordiv", ew.floor_divide),
    **_binary("mod", ew.remainder), **_binary("divmod", ew.divmod, inplace=False),
    **_binary("pow", ew.power), **_binary("matmul", _linear_algebra.matmul),
    **_binary("and", ew.bitwise_and), **_binary("or", ew.bitwise_or),
    **_binary("xor", ew.bitwise_xor), **_binary("lshift", ew.left_shift),
    **_binary("rshift", ew.right_shift),
    "__lt__": _defer(ew.less), "__le__": _defer(ew.less_equal),
    "__gt__": _defer(ew.greater), "__ge__": _defer(ew.greater_equal),
    "__eq__": _defer(ew.equal), "__ne__": _defer(ew.not_equal),
    "__neg__": ew.negative, "__pos__": ew.positive, "__abs__": ew.absolute,
    "__invert__": ew.invert,
    "__round__": lambda self, ndigits=None: ew.round(self, 0 if ndigits is None else ndigits),
    "__iter__": _indexing.iterate,
    "__getitem__": _indexing.getitem, "__setitem__": _indexing.setitem,
    "__array_namespace__": _array_namespace,
    "__array_ufunc__": _array_ufunc.array_ufunc,
    "astype": _astype,
    "reshape": _reshape,
    "transpose": _transpose_method,
    # (the positional parameters in NumPy's methods' order)
    "sum": lambda self, axis=None, dtype=None, out=None, keepdims=False, initial=None,
        where=None, promote_integers=True:
        stats.sum(self, axis, dtype, out, keepdims, initial, where, promote_integers),
    "mean": lambda self, axis=None, dtype=None, out=None, keepdims=False, *, where=None:
        stats.mean(self, axis, dtype, out, keepdims, where=where),
    "max": lambda self, axis=None, out=None, keepdims=False, initial=None, where=None:
        stats.max(self, axis, out, keepdims, initial, where),
    "min": lambda self, axis=None, out=None, keepdims=False, initial=None, where=None:
        stats.min(self, axis, out, keepdims, initial, where),
    "prod": lambda self, axis=None, dtype=None, out=None, keepdims=False, initial=None,
        where=None, promote_integers=True:
        stats.prod(self, axis, dtype, out, keepdims, initial, where, promote_integers),
    "cumsum": lambda self, axis=None, dtype=None, out=None: stats.cumsum(self, axis, dtype, out),
    "cumprod": lambda self, axis=None, dtype=None, out=None: stats.cumprod(self, axis, dtype,
                                                                        out),
    "var": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw:
        stats.var(self, axis, dtype, out, ddof, keepdims, **kw),
    "std": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw:
        stats.std(self, axis, dtype, out, ddof, keepdims, **kw),
    "ptp": lambda self, axis=None, out=None, keepdims=False: stats.ptp(self, axis, out, keepdims),
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None:
        stats.trace(self, offset, axis1, axis2, dtype, out),
    "all": lambda self, axis=None, out=None, keepdims=False, *, where=None:
        _utility.all(self, axis, out, keepdims, where=where),
    "any": lambda self, axis=None, out=None, keepdims=False, *, where=None:
        _utility.any(self, axis, out, keepdims, where=where),
    "argmax": lambda self, axis=None, out=None, *, keepdims=False:
        _searching.argmax(self, axis, out, keepdims=keepdims),
    "argmin": lambda self, axis=None, out=None, *, keepdims=False:
        _searching.argmin(self, axis, out, keepdims=keepdims),
    "searchsorted": lambda self, v, side="left", sorter=None:
        _searching.searchsorted(self, v, side, sorter),
    "nonzero": lambda self, *, size=None, fill_value=None:
        _searching.nonzero(self, size=size, fill_value=fill_value),
    "sort": _mutating("sort", lambda self, axis=-1, kind=None, order=None, *, stable=None:
                      _sorting.sort(self, axis, kind, order, stable=stable)),
    "partition": _mutating("partition", lambda self, kth, axis=-1, kind="introselect",
                           order=None: _sorting.partition(self, kth, axis, kind, order)),
    "fill": _mutating("fill", lambda self, value: full_like(self, value)),
    "put": _mutating("put", lambda self, indices, values, mode="raise":
                     _indexing.put(self, indices, values, mode, inplace=False)),
    "argsort": lambda self, axis=-1, kind=None, order=None, *, stable=None:
        _sorting.argsort(self, axis, kind, order, stable=stable),
    "argpartition": lambda self, kth, axis=-1, kind="introselect", order=None:
        _sorting.argpartition(self, kth, axis, kind, order),
    "choose": lambda self, choices, out=None, mode="raise":
        _indexing.choose(self, choices, out, mode),
    "compress": lambda self, condition, axis=None, out=None, *, size=None, fill_value=0:
        _indexing.compress(condition, self, axis, out, size=size, fill_value=fill_value),
    "dot": lambda self, b, out=None: _linear_algebra.dot(self, b, out),
    "ravel": lambda self, order="C": manip.ravel(self, order),
    "flatten": lambda self, order="C": manip.ravel(self, order),
    "squeeze": lambda self, axis=None: manip.squeeze(self, axis),
    "swapaxes": lambda self, a1, a2: manip.swapaxes(self, a1, a2),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: manip.diagonal(self, offset, axis1,
                                                                         axis2),
    "repeat": lambda self, repeats, axis=None: manip.repeat(self, repeats, axis),
    "clip": lambda self, min=None, max=None, out=None, **kwargs:
        ew.clip(self, min, max, out, **kwargs),
    "round": lambda self, decimals=0, out=None: ew.round(self, decimals, out),
    # (NumPy's methods return a real array itself, a bool one too: no int8 conversion)
    "conj": lambda self: ew.conjugate(self) if ew.iscomplexobj(self) else self,
    "conjugate": lambda self: ew.conjugate(self) if ew.iscomplexobj(self) else self,
    "resize": _resize_method,
    "take": lambda self, indices, axis=None, out=None, mode=None:
        _indexing.take(self, indices, axis, out, mode),
}

_PROPERTIES = {
    "T": lambda self: manip.transpose(self),
    "mT": lambda self: manip.swapaxes(self, -1, -2),
    "at": _indexing.at,
    "real": lambda self: ew.real(self),
    "imag": lambda self: ew.imag(self),
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


def _tracer_device(self):
    # a traced value lives where the computation runs: its concrete Array's device if it
    # has one (an eager jvp/vmap value), else the default device
    value = self.to_concrete_value()
    return value.device if isinstance(value, Array) else backend.default_device()


def _tracer_committed(self):
    value = self.to_concrete_value()
    return value.committed() if isinstance(value, Array) else False


def _tracer_to_device(self, device, /, *, stream=None):
    if stream is not None:
        raise ValueError("to_device: stream= is not supported (minijax runs on the host "
                         "client's default stream)")
    resolve_placement(device, "to_device")
    return self   # as device_put under a transformation: the staged value stays put


def _no_buffer(self, name):
    """``delete``/``is_deleted`` of a traced value (it has no buffer): JAX's error."""
    raise concretization_error(self, f"The {name}() method was called on a traced value")


def _cannot_delete(self, key):
    raise ValueError("cannot delete array elements")


# Array methods whose meaning for a tracer needs the runtime (devices) or numpy (copy).
_TRACER_METHODS = {
    "copy": lambda self, order="C": manip.copy(self, order),
    "__copy__": lambda self: manip.copy(self),
    "__deepcopy__": lambda self, memo: manip.copy(self),
    "__contains__": contains,   # (a traced value: the named error unless nothing compares)
    "devices": lambda self: {_tracer_device(self)},
    "committed": lambda self: _tracer_committed(self),
    "to_device": _tracer_to_device,
    "delete": lambda self: _no_buffer(self, "delete"),
    "is_deleted": lambda self: _no_buffer(self, "is_deleted"),
    "__delitem__": _cannot_delete,
}

def _shards_unavailable(name):
    """A property a traced value cannot have (its layout is decided when compiled): JAX's
    ``ConcretizationTypeError``, naming the arguments the value depends on."""
    def prop(self):
        raise concretization_error(self, f"The {name} attribute is not available on a "
                                         f"traced value, whose layout XLA decides when it "
                                         f"compiles; read it on the concrete result")
    return prop


_TRACER_PROPERTIES = {"device": _tracer_device,
                      "sharding": lambda self: placement_on(_tracer_device(self)),
                      **{name: _shards_unavailable(name) for name in (
                          "addressable_shards", "global_shards", "is_fully_addressable",
                          "is_fully_replicated")}}
def _compare_none(op, result):
    """``op`` where ``x == None`` (``!=``) is an array of False (True), as in NumPy,
    not Python's identity answer."""
    def compare(self, other):
        if other is None:
            return lax.full(get_aval(self).shape, result, np.bool_)
        return op(self, other)
    compare.__name__ = op.__name__
    return compare


for _table in (_METHODS, _ARRAY_METHODS):
    _table["__eq__"] = _compare_none(_table["__eq__"], False)
    _table["__ne__"] = _compare_none(_table["__ne__"], True)


def add_methods(cls, methods, properties):
    for name, fn in methods.items():
        set_method(cls, name, fn)
    for name, fn in properties.items():
        set_method(cls, name, property(fn))


def install(cls):
    add_methods(cls, _METHODS, _PROPERTIES)
    if cls is Array:
        for name, fn in _ARRAY_METHODS.items():
            set_method(cls, name, fn)
    else:
        cls.__hash__ = None
        add_methods(cls, _TRACER_METHODS, _TRACER_PROPERTIES)


install(Array)
install(Tracer)
set_method(Array, "flat", _index_tricks.flat_property)   # a property with a setter
Tracer.flat = _index_tricks.flat_property
