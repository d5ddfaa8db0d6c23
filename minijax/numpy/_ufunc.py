"""NumPy's ufunc objects: every elementwise function that is a ufunc in NumPy is an
instance of ``ufunc`` here, with NumPy's call keywords (``out``, ``where``, ``dtype``,
``casting``, ``order``, ``subok``) and methods (``reduce``, ``accumulate``, ``outer``,
``at``, ``reduceat``).

Eagerly on the host each call and method is one NumPy call (DESIGN 3: the runtime's
dispatch entry point hands the host buffers, and ``out``, to NumPy's ufunc). Under a
transformation the methods are built from ``lax``: a reduction for the operations that
have one (sum, product, max, min, and, or), an associative tree fold for the other
associative operations, a ``scan`` (left fold) for the rest; cumulative primitives or a
``scan`` for ``accumulate``; broadcasting for ``outer``; a scatter (``x.at[]``) or a
``scan`` over the indices for ``at``.
"""

import inspect

import numpy as np

from .. import _mutation, dtypes, lax
from ..core import Tracer, get_aval, get_concrete
from ..runtime import numpy_dispatch
from ..runtime.array import Array
from ..util import canonicalize_axis
from . import _eager_table, _indexing
from ._core import check_order, reduction_axes, to_array, with_kept_dims
from ._masked_selection import MaskedSelection
from ._masked_selection import apply_ufunc as apply_masked_selection
from ._out import check_casting, write_out
from ._searching import where as _where

# lax reductions for the operations that have one, by NumPy name (bool operands: or/and)
_LAX_REDUCERS = {
    "add": lax.reduce_sum, "multiply": lax.reduce_prod, "maximum": lax.reduce_max,
    "minimum": lax.reduce_min, "logical_and": lax.reduce_min, "logical_or": lax.reduce_max,
    "bitwise_and": lax.reduce_and, "bitwise_or": lax.reduce_or,
}
_BOOL_REDUCERS = {"add": lax.reduce_max, "multiply": lax.reduce_min,
                  "bitwise_and": lax.reduce_min, "bitwise_or": lax.reduce_max}
# associative (and commutative) operations: a tree fold gives the left fold's value
_ASSOCIATIVE = frozenset(_LAX_REDUCERS) | {
    "bitwise_xor", "logical_xor", "fmax", "fmin", "gcd", "lcm", "logaddexp", "logaddexp2",
    "hypot"}
# the operations for which applying initial again changes nothing (fold(..., i, i) is
# fold(..., i)): a where= mask fills with initial
_IDEMPOTENT = frozenset({"maximum", "minimum", "fmax", "fmin", "lcm"})
# x.at[] scatter operations, by NumPy name
_SCATTERS = {"add": "add", "maximum": "max", "minimum": "min"}
_CUMULATIVE = {"add": lax.cumsum, "multiply": lax.cumprod, "maximum": lax.cummax,
               "minimum": lax.cummin}
_ORDERS = ("K", "A", "C")


class _NoValue:
    """NumPy's "argument not given" (``initial=None`` means something else to reduce)."""

    def __repr__(self):
        return "<no value>"


_NO_VALUE = _NoValue()


class ufunc(numpy_dispatch.Forwarder):
    """A universal function: elementwise with broadcasting, NumPy's call keywords and
    the methods ``reduce``, ``accumulate``, ``reduceat``, ``outer`` and ``at``."""

    def __new__(cls, np_ufunc, func):
        # A call such as np.add(a, b) goes straight to the dispatching function, its
        # arguments forwarded as they came (the C base class, Forwarder): no Python
        # frame, no argument tuple.
        lax_fn = getattr(func, "__wrapped_lax__", func)
        self = super().__new__(cls)
        # the runtime's table may name a host function of its own (the Array API's
        # special values for floor_divide, expm1, tanh)
        host_fn = _eager_table.NUMPY_FUNCTIONS.get(np_ufunc.__name__) or np_ufunc
        direct = (np_ufunc if host_fn is not np_ufunc
                  and np_ufunc.__name__ in _eager_table.FLOAT_OPERANDS_ARE_NUMPYS else None)
        weak = _eager_table.ufunc_weak_operands(np_ufunc.__name__)
        lax_entry = self._lax_entry if weak is None else _eager_table.with_weak_rule(
            self._lax_entry, weak, False)
        numpy_dispatch.forward_to(self, numpy_dispatch.numpy_call(
            host_fn, lax_entry, nin=np_ufunc.nin, ufunc=direct, weak_operands=weak))
        self._lax = lax_fn
        return self

    def __init__(self, np_ufunc, func):
        self._np = np_ufunc
        self.__name__ = self.__qualname__ = np_ufunc.__name__
        self.__doc__ = func.__doc__ or f"numpy.{np_ufunc.__name__} as a minijax ufunc."
        self.nin, self.nout, self.nargs = np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs
        self.identity = np_ufunc.identity
        self.ntypes, self.types = np_ufunc.ntypes, np_ufunc.types
        self.signature = None
        try:   # what inspect.signature reports: the elementwise function's own parameters
            self.__signature__ = inspect.signature(self._lax)
        except (TypeError, ValueError):
            pass
        self.reduce = numpy_dispatch.numpy_call(np_ufunc.reduce, self._lax_reduce)
        self.accumulate = numpy_dispatch.numpy_call(np_ufunc.accumulate,
                                                    self._lax_accumulate)
        self.reduceat = numpy_dispatch.numpy_call(np_ufunc.reduceat, self._lax_reduceat)
        self.outer = numpy_dispatch.numpy_call(np_ufunc.outer, self._lax_outer)
        self.at = numpy_dispatch.inplace_function_call(np_ufunc.at, self._lax_at)
        for method in ("reduce", "accumulate", "reduceat", "outer", "at"):
            fn = getattr(self, method)
            fn.__name__ = method
            fn.__qualname__ = f"{np_ufunc.__name__}.{method}"
            fn.__module__ = "minijax.numpy"   # (pickle finds minijax.numpy.add.reduce)
            fn.__doc__ = getattr(ufunc, f"_lax_{method}").__doc__

    @property
    def __wrapped_lax__(self):
        return self._lax

    def _lax_entry(self, *args, **kwargs):
        """The call on the lax path: the elementwise function itself when no keyword and
        no output is given."""
        if any(type(a) is MaskedSelection for a in args):   # x[traced mask]: deferred
            return apply_masked_selection(self, args, kwargs)
        if kwargs or len(args) != self.nin:
            return self._lax_call(*args, **kwargs)
        return self._lax(*args)

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    def __reduce__(self):
        return (_by_name, (self.__name__,))

    # ------------------------------------------------------------ __call__
    def _lax_call(self, *args, out=None, where=True, casting="same_kind", order="K",
                  dtype=None, subok=True, signature=None, **unknown):
        name = self.__name__
        if unknown:   # (named for the ufunc, not this method)
            raise TypeError(f"{name}() got an unexpected keyword argument "
                            f"{next(iter(unknown))!r}")
        if len(args) > self.nin:
            if out is not None:
                raise TypeError(f"{name}() got out= both as a positional and a keyword "
                                f"argument")
            out, args = args[self.nin:], args[:self.nin]
        if len(args) != self.nin:
            raise TypeError(f"{name}() takes {self.nin} input argument"
                            f"{'s' if self.nin > 1 else ''}, got {len(args)}")
        outs = self._outs(out)
        check_casting(casting)
        if order not in _ORDERS:
            check_order(order, like=True)
        if subok is not True and subok is not False:
            raise TypeError(f"{name}: subok must be a bool")
        fixed = loop_signature(name, self.nin, self.nout, dtype, signature)
        if fixed is not None or casting not in ("same_kind", "unsafe"):
            args, result_dtypes = cast_inputs(self._np, name, args, fixed, casting)
        results = self._lax(*args)
        results = results if self.nout > 1 else (results,)
        if fixed is not None:
            results = tuple(r if get_aval(r).dtype == dt else lax.convert_element_type(r, dt)
                            for r, dt in zip(results, result_dtypes))
        if where is not True:
            mask = to_array(where)
            if get_aval(mask).dtype != np.bool_:
                raise TypeError(f"{name}: where= must be a boolean array, got "
                                f"{get_aval(mask).dtype.name}")
            results = tuple(self._masked(r, mask, o) for r, o in zip(results, outs))
        final = tuple(r if o is None else write_out(o, r, name, casting, broadcast=True)
                      for r, o in zip(results, outs))
        return final if self.nout > 1 else final[0]

    def _outs(self, out):
        if out is None:
            return (None,) * self.nout
        if not isinstance(out, tuple):
            if self.nout > 1:
                raise TypeError(f"{self.__name__}: out= must be a tuple of {self.nout} "
                                f"arrays (or None) for a ufunc with {self.nout} outputs")
            out = (out,)
        if len(out) != self.nout:
            raise ValueError(f"{self.__name__}: out= must have {self.nout} entr"
                             f"{'ies' if self.nout > 1 else 'y'}, got {len(out)}")
        return out

    @staticmethod
    def _masked(result, mask, out):
        # NumPy leaves the masked-out elements of a fresh output uninitialized: zeros here
        base = out if out is not None else lax.full(get_aval(result).shape, 0,
                                                    get_aval(result).dtype)
        base = to_array(base)
        shape = np.broadcast_shapes(get_aval(result).shape, get_aval(mask).shape,
                                    get_aval(base).shape)
        if get_aval(base).dtype != get_aval(result).dtype:
            base = lax.convert_element_type(base, get_aval(result).dtype)
        return _where(lax.broadcast_to_shape(mask, shape), result, base)

    # ------------------------------------------------------------ methods
    def _binary_only(self, method):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary functions (numpy."
                             f"{self.__name__} takes {self.nin} input"
                             f"{'s' if self.nin > 1 else ''} and gives {self.nout} output"
                             f"{'s' if self.nout > 1 else ''})")

    def _method_dtype(self, method, in_dtype, dtype):
        """The result dtype NumPy's ``method`` gives for ``in_dtype`` (a tiny probe)."""
        probe = np.zeros((2,), in_dtype)
        kw = {} if dtype is None else {"dtype": dtype}
        try:
            if method == "reduceat":
                r = self._np.reduceat(probe, [0], **kw)
            else:
                r = getattr(self._np, method)(probe, **kw)
        except Exception as e:
            raise TypeError(f"{self.__name__}.{method}: {e}") from None
        return dtypes.canonicalize(r.dtype)

    def _combine(self, x, y):
        return self._lax(x, y)

    def _fold(self, a, axis, initial, mask=None):
        """Reduce ``a`` along ``axis`` with the binary operation (a ``lax`` reduction, a
        tree fold or a left fold), starting from ``initial`` if given; a left fold skips
        the elements where ``mask`` (given with ``initial``) is False."""
        name = self.__name__
        dt = get_aval(a).dtype
        reducer = (_BOOL_REDUCERS.get(name) if dt == np.bool_ else None) or \
            _LAX_REDUCERS.get(name)
        if reducer is not None and name in ("logical_and", "logical_or") and dt != np.bool_:
            reducer = None
        if reducer is not None and mask is None:
            res = reducer(a, (axis,))
        elif name in _ASSOCIATIVE and mask is None:
            res = self._tree_fold(a, axis)
        else:
            ndim = get_aval(a).ndim
            moved = lax.transpose(a, (axis,) + tuple(i for i in range(ndim) if i != axis))
            length = get_aval(moved).shape[0]
            if initial is _NO_VALUE:
                first = lax.index_in_dim(moved, 0, 0, keepdims=False)
                rest = lax.slice_in_dim(moved, 1, length)
            else:
                first = lax.full(get_aval(moved).shape[1:], initial, dt)
                rest = moved
            if get_aval(rest).shape[0] == 0:
                return first
            if mask is None:
                res, _ = lax.scan(lambda c, x: (self._retype(self._combine(c, x), dt), None),
                                  first, rest)
                return res
            keep = lax.transpose(mask, (axis,) + tuple(i for i in range(ndim) if i != axis))
            res, _ = lax.scan(lambda c, xm: (_where(xm[1], self._retype(
                self._combine(c, xm[0]), dt), c), None), first, (rest, keep))
            return res
        if initial is not _NO_VALUE:
            res = self._retype(self._combine(lax.full(get_aval(res).shape, initial, dt), res),
                               dt)
        return res

    @staticmethod
    def _retype(x, dt):
        return x if get_aval(x).dtype == dt else lax.convert_element_type(x, dt)

    def _tree_fold(self, a, axis):
        dt = get_aval(a).dtype
        while get_aval(a).shape[axis] > 1:
            n = get_aval(a).shape[axis]
            half = n // 2
            left = lax.slice_in_dim(a, 0, half, axis=axis)
            right = lax.slice_in_dim(a, half, 2 * half, axis=axis)
            combined = self._retype(self._combine(left, right), dt)
            if n % 2:
                combined = lax.concatenate([combined, lax.slice_in_dim(a, n - 1, n, axis=axis)],
                                           axis)
            a = combined
        return lax.index_in_dim(a, 0, axis, keepdims=False)

    def _lax_reduce(self, array, axis=0, dtype=None, out=None, keepdims=False,
                    initial=_NO_VALUE, where=True):
        """Reduce ``array`` along ``axis`` (a tuple for reorderable operations, None for
        all) by repeated application, as numpy.ufunc.reduce."""
        self._binary_only("reduce")
        name = self.__name__
        a = to_array(array)
        aval = get_aval(a)
        axes = reduction_axes(aval.ndim, axis)
        rdt = self._method_dtype("reduce", aval.dtype, dtype)
        if aval.dtype != rdt:
            a = lax.convert_element_type(a, rdt)
        if initial is None:   # as the dispatch entry point: None is "not given"
            initial = _NO_VALUE
        if where is None:
            where = True
        mask = None
        if where is not True:
            if self.identity is None and initial is _NO_VALUE:
                raise ValueError(f"reduction operation '{name}' does not have an identity, "
                                 f"so to use a where mask one has to specify 'initial'")
            mask = lax.broadcast_to_shape(to_array(where, dtype=np.bool_), aval.shape)
            # NumPy leaves the masked-out elements out: the identity stands in for them,
            # or initial where applying it again changes nothing (maximum, ...); other
            # operations (subtract, power, ...) skip them in their left fold
            fill = self.identity if self.identity is not None else \
                initial if name in _IDEMPOTENT else None
            if fill is not None:
                a = _where(mask, a, lax.full(aval.shape, fill, rdt))
                mask = None
        if initial is _NO_VALUE and self.identity is not None and len(axes) > 0 and any(
                aval.shape[i] == 0 for i in axes):
            initial = self.identity
        if initial is _NO_VALUE and any(aval.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             f"identity")
        if len(axes) > 1 and name not in _ASSOCIATIVE:
            raise ValueError(f"reduction operation '{name}' is not reorderable, so at most "
                             f"one axis may be specified")
        if not axes:
            res = a if initial is _NO_VALUE else self._retype(
                self._combine(lax.full(aval.shape, initial, rdt), a), rdt)
            if mask is not None:
                res = _where(mask, res, lax.full(aval.shape, initial, rdt))
        else:
            rest = tuple(i for i in range(aval.ndim) if i not in axes)
            n = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))

            def lined_up(x):   # (the reduced axes first, as one)
                if axes + rest != tuple(range(aval.ndim)):
                    x = lax.transpose(x, axes + rest)
                return lax.reshape(x, (n,) + tuple(aval.shape[i] for i in rest))
            res = self._fold(lined_up(a), 0, initial,
                             None if mask is None else lined_up(mask))
        if keepdims:
            res = with_kept_dims(res, aval.shape, axes)
        return res if out is None else write_out(out, res, f"{name}.reduce", "unsafe")

    def _lax_accumulate(self, array, axis=0, dtype=None, out=None):
        """The running results of the operation along ``axis``, as
        numpy.ufunc.accumulate."""
        self._binary_only("accumulate")
        name = self.__name__
        a = to_array(array)
        aval = get_aval(a)
        if aval.ndim == 0:
            raise TypeError(f"{name}.accumulate: cannot accumulate on a scalar (a 0-d array)")
        axis = canonicalize_axis(axis, aval.ndim)
        rdt = self._method_dtype("accumulate", aval.dtype, dtype)
        if aval.dtype != rdt:
            a = lax.convert_element_type(a, rdt)
        cumulative = _CUMULATIVE.get(name)
        if rdt == np.bool_ and name in ("add", "multiply", "maximum", "minimum",
                                        "logical_or", "logical_and"):
            as_int = lax.convert_element_type(a, np.int8)
            up = name in ("add", "maximum", "logical_or")
            res = lax.convert_element_type((lax.cummax if up else lax.cummin)(as_int, axis),
                                           np.bool_)
        elif cumulative is not None and aval.shape[axis] > 0:
            res = cumulative(a, axis)
        elif aval.shape[axis] == 0:
            res = a
        else:
            moved = lax.transpose(a, (axis,) + tuple(i for i in range(aval.ndim) if i != axis))
            first = lax.index_in_dim(moved, 0, 0, keepdims=False)
            rest = lax.slice_in_dim(moved, 1, get_aval(moved).shape[0])

            def step(c, x):
                c = self._retype(self._combine(c, x), rdt)
                return c, c
            _, ys = lax.scan(step, first, rest)
            stacked = lax.concatenate([lax.expand_dims(first, (0,)), ys], 0)
            perm = list(range(1, aval.ndim))
            perm.insert(axis, 0)
            res = lax.transpose(stacked, tuple(perm))
        return res if out is None else write_out(out, res, f"{name}.accumulate", "unsafe")

    def _lax_reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """Reductions over the slices ``indices[i]:indices[i+1]`` along ``axis``, as
        numpy.ufunc.reduceat."""
        self._binary_only("reduceat")
        name = self.__name__
        a = to_array(array)
        aval = get_aval(a)
        axis = canonicalize_axis(axis, aval.ndim)
        n = aval.shape[axis]
        rdt = self._method_dtype("reduceat", aval.dtype, dtype)
        if aval.dtype != rdt:
            a = lax.convert_element_type(a, rdt)
        idx = get_concrete(to_array(indices))
        if idx is None:
            res = self._traced_reduceat(a, to_array(indices), axis)
        else:
            idx = np.asarray(idx)
            if idx.ndim != 1 or idx.dtype.kind not in "iu":
                raise TypeError(f"{name}.reduceat: indices must be a 1-d integer array")
            if ((idx < 0) | (idx >= n)).any():
                raise IndexError(f"{name}.reduceat: index out of bounds for an axis of "
                                 f"size {n}")
            pieces = []
            for k, start in enumerate(idx.tolist()):
                stop = idx[k + 1] if k + 1 < len(idx) else n
                if stop <= start:
                    stop = start + 1
                seg = lax.slice_in_dim(a, start, int(stop), axis=axis)
                seg = lax.transpose(seg, (axis,) + tuple(i for i in range(aval.ndim)
                                                          if i != axis))
                pieces.append(lax.expand_dims(self._fold(seg, 0, _NO_VALUE), (axis,)))
            if not pieces:
                shape = list(aval.shape)
                shape[axis] = 0
                res = lax.full(tuple(shape), 0, rdt)
            else:
                res = lax.concatenate(pieces, axis) if len(pieces) > 1 else pieces[0]
        return res if out is None else write_out(out, res, f"{name}.reduceat", "unsafe")

    def _traced_reduceat(self, a, idx, axis):
        # each output i reduces the range [idx[i], stop[i]), stop[i] being
        # max(idx[i+1], idx[i] + 1) (n for the last): a[idx[i]] where the indices do not
        # increase. Traced indices cannot be bounds-checked: they are clamped into the
        # axis, as traced reads clamp.
        name = self.__name__
        iaval = get_aval(idx)
        if iaval.ndim != 1 or not dtypes.issubdtype(iaval.dtype, np.integer):
            raise TypeError(f"{name}.reduceat: indices must be a 1-d integer array, got "
                            f"{iaval.dtype.name}{list(iaval.shape)}")
        aval = get_aval(a)
        dt = aval.dtype
        n = aval.shape[axis]
        m = iaval.shape[0]
        if n == 0:
            raise IndexError(f"{name}.reduceat: index out of bounds for an axis of size 0")
        moved = lax.transpose(a, (axis,) + tuple(i for i in range(aval.ndim) if i != axis))
        if m == 0:
            return lax.full(aval.shape[:axis] + (0,) + aval.shape[axis + 1:], 0, dt)
        it = np.int64 if n > 2**31 - 2 else np.int32
        idx = lax.clamp(lax.full((), 0, it), lax.convert_element_type(idx, it),
                        lax.full((), n - 1, it))
        stops = lax.concatenate([lax.slice_in_dim(idx, 1, m), lax.full((1,), n, it)], 0)
        stops = lax.max(stops, lax.add(idx, lax.full((m,), 1, it)))
        reducer = (_BOOL_REDUCERS.get(name) if dt == np.bool_ else None) or \
            _LAX_REDUCERS.get(name)
        if name in ("logical_and", "logical_or") and dt != np.bool_:
            reducer = None
        if reducer is None:
            res = self._scanned_reduceat(moved, idx, stops)
        else:
            res = self._masked_reduceat(moved, idx, stops, reducer)
        perm = list(range(1, aval.ndim))
        perm.insert(axis, 0)
        return lax.transpose(res, tuple(perm))

    def _scanned_reduceat(self, moved, idx, stops):
        """reduceat by one left fold over the axis (moved to the front), carrying every
        output's accumulator: any binary operation, traced indices."""
        dt = get_aval(moved).dtype
        n = get_aval(moved).shape[0]
        rest = get_aval(moved).shape[1:]
        m = get_aval(idx).shape[0]
        it = get_aval(idx).dtype
        out_shape = (m,) + rest
        dims = tuple(range(1, 1 + len(rest)))
        starts_b = lax.broadcast_in_dim(idx, out_shape, (0,))
        stops_b = lax.broadcast_in_dim(stops, out_shape, (0,))

        def step(acc, xs):
            x, j = xs
            xb = lax.broadcast_in_dim(x, out_shape, dims)
            jb = lax.broadcast_in_dim(j, out_shape, ())
            first = lax.eq(jb, starts_b)
            inside = lax.bitwise_and(lax.gt(jb, starts_b), lax.lt(jb, stops_b))
            combined = self._retype(self._combine(acc, xb), dt)
            return lax.select_n(first, lax.select_n(inside, acc, combined), xb), None

        acc0 = lax.full(out_shape, 0, dt)
        res, _ = lax.scan(step, acc0, (moved, lax.iota(it, n)))
        return res

    def _masked_reduceat(self, moved, idx, stops, reducer):
        """reduceat as one masked reduction of an (outputs, axis, ...) array: the
        operations with a lax reduction."""
        name = self.__name__
        dt = get_aval(moved).dtype
        n = get_aval(moved).shape[0]
        m = get_aval(idx).shape[0]
        it = get_aval(idx).dtype
        pos = lax.broadcasted_iota(it, (m, n), 1)
        inside = lax.bitwise_and(lax.ge(pos, lax.broadcast_in_dim(idx, (m, n), (0,))),
                                 lax.lt(pos, lax.broadcast_in_dim(stops, (m, n), (0,))))
        rest = get_aval(moved).shape[1:]
        big = lax.broadcast_in_dim(moved, (m, n) + rest, tuple(range(1, 2 + len(rest))))
        mask = lax.broadcast_in_dim(inside, (m, n) + rest, (0, 1))
        if self.identity is not None:
            fill = self.identity
        elif dtypes.is_inexact(dt):
            fill = -np.inf if name == "maximum" else np.inf
        else:
            info = np.iinfo(dt) if dt != np.bool_ else None
            fill = (False if name == "maximum" else True) if info is None else (
                info.min if name == "maximum" else info.max)
        return reducer(lax.select_n(mask, lax.full(get_aval(big).shape, fill, dt), big), (1,))

    def _lax_outer(self, A, B, /, **kwargs):
        """The operation on every pair ``(a, b)`` of elements, as numpy.ufunc.outer."""
        self._binary_only("outer")
        a, b = to_array(A), to_array(B)
        sa, sb = get_aval(a).shape, get_aval(b).shape
        a = lax.reshape(a, sa + (1,) * len(sb))
        return self._lax_call(a, b, **kwargs)

    def _lax_at(self, a, indices, b=None, /):
        """Unbuffered in-place ``a[indices] = op(a[indices], b)``: repeated indices apply
        once per occurrence, as numpy.ufunc.at (returns None)."""
        name = self.__name__
        if not isinstance(a, (Array, Tracer)):
            raise TypeError(f"{name}.at: the first operand must be an array, got "
                            f"{type(a).__name__}")
        if (b is None) != (self.nin == 1):
            raise TypeError(f"{name}.at: {'a unary ufunc takes no' if self.nin == 1 else 'a binary ufunc needs a'} "
                            f"second operand")
        if self.nout != 1:
            raise ValueError(f"{name}.at: only ufuncs with one output are supported")
        aval = get_aval(a)
        _mutation.refresh(a)
        if b is not None:
            loop = self._np.resolve_dtypes((aval.dtype, _numpy_dtype_of(b), None))
            if not np.can_cast(loop[2], aval.dtype, "same_kind"):
                raise TypeError(f"{name}.at: cannot cast the result from {loop[2].name} to "
                                f"the array's dtype {aval.dtype.name} with casting rule "
                                f"'same_kind'")
        # (multiply: a scatter-multiply has no derivative for repeated indices)
        scatter = _SCATTERS.get(name) if name != "multiply" else None
        if name == "subtract" and aval.dtype != np.bool_:
            result = _indexing._update(a, indices, self._retype(
                lax.neg(to_array(b, dtype=aval.dtype)), aval.dtype), "add")
        elif scatter is not None and aval.dtype.kind != "b":
            vals = to_array(b)
            vals = self._retype(vals, aval.dtype)
            result = _indexing._update(a, indices, vals, scatter)
        else:
            result = self._sequential_at(a, indices, b)
        _mutation.rebind_or_raise(a, result, f"{name}.at")

    def _sequential_at(self, a, indices, b):
        # NumPy's unbuffered semantics: each index (repeats included) is applied in turn
        aval = get_aval(a)
        pos, size = _indexing._flat_positions(aval.shape, indices, None, True)
        pos = to_array(pos)
        count = get_aval(pos).size
        flat = lax.reshape(a, (size,))
        if count == 0:
            return a
        positions = lax.reshape(pos, (count,))
        if b is None:
            def step(x, p):
                old = lax.dynamic_slice(x, (p,), (1,))
                return lax.dynamic_update_slice(x, self._retype(self._lax(old), aval.dtype),
                                                (p,)), None
            flat, _ = lax.scan(step, flat, positions)
        else:
            vals = to_array(b)
            vals = lax.broadcast_to_shape(vals, get_aval(pos).shape)
            vals = lax.reshape(vals, (count,))

            def step(x, pv):
                p, v = pv
                old = lax.dynamic_slice(x, (p,), (1,))
                new = self._retype(self._lax(old, lax.reshape(v, (1,))), aval.dtype)
                return lax.dynamic_update_slice(x, new, (p,)), None
            flat, _ = lax.scan(step, flat, (positions, vals))
        return lax.reshape(flat, aval.shape)


numpy_dispatch.enable_vectorcall(ufunc)


def _numpy_dtype_of(x):
    """A dtype for NumPy's type resolution: Python's scalar types for weak values."""
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, (int, float, complex)):
        return type(x)
    aval = get_aval(to_array(x)) if not isinstance(x, (Array, Tracer)) else get_aval(x)
    if aval.weak_type and aval.dtype.kind in "iufc":
        return {"i": int, "u": int, "f": float, "c": complex}[aval.dtype.kind]
    return aval.dtype


def loop_signature(name, nin, nout, dtype, signature):
    """The loop dtypes a call fixes, as NumPy's ``signature=`` tuple (a dtype or None per
    input and output), from ``dtype=`` (the outputs') or ``signature=`` (that tuple, or a
    type string such as ``"dl->d"``); None where neither is given."""
    if signature is None:
        return None if dtype is None else (None,) * nin + (np.dtype(dtype),) * nout
    if dtype is not None:
        raise TypeError(f"{name}: give dtype= or signature=, not both")
    if isinstance(signature, str):
        ins, arrow, outs = signature.partition("->")
        if not arrow or len(ins) != nin or len(outs) != nout:
            raise ValueError(f"a type-string for {name}, {nin} typecode(s) before and "
                             f"{nout} after the -> sign")
        return tuple(np.dtype(code) for code in ins + outs)
    if not isinstance(signature, (tuple, list)) or len(signature) != nin + nout:
        raise TypeError(f"{name}: signature must be a string or a tuple of {nin + nout} "
                        f"dtypes or None, got {signature!r}")
    return tuple(None if s is None else np.dtype(s) for s in signature)


def cast_inputs(np_ufunc, name, args, fixed, casting):
    """``(inputs, output dtypes)``: ``args`` converted to the loop dtypes NumPy's ufunc
    ``np_ufunc`` takes for them, with the dtypes ``fixed`` (``loop_signature``'s, or
    None) and NumPy's ``casting=`` rule and errors."""
    in_dtypes = tuple(_numpy_dtype_of(a) for a in args)
    if casting == "equiv":
        # (NumPy's resolve_dtypes crashes on "equiv" with a Python scalar's type. For
        # minijax's dtypes, all in native byte order, it is "no", except that NumPy's
        # call first refuses a Python scalar whose own dtype is not the loop's)
        loop = _loop(np_ufunc, name, in_dtypes, fixed, "unsafe")
        for given, dt in zip(in_dtypes, loop):
            if isinstance(given, type) and np.dtype(given) != dt:
                raise TypeError(f"cannot cast Python {given.__name__} to {dt} under "
                                f"the casting rule 'equiv'")
    loop = _loop(np_ufunc, name, in_dtypes, fixed, casting)
    out = []
    for a, dt in zip(args, loop[:np_ufunc.nin]):
        a = to_array(a)
        dt = dtypes.canonicalize(dt)
        out.append(a if get_aval(a).dtype == dt else lax.convert_element_type(a, dt))
    return out, [dtypes.canonicalize(dt) for dt in loop[np_ufunc.nin:]]


def _loop(np_ufunc, name, in_dtypes, fixed, casting):
    """NumPy's loop dtypes for ``in_dtypes`` (and the ``fixed`` ones) under ``casting``."""
    # (resolve_dtypes refuses signature=None: the keyword is left out then)
    sig = {} if fixed is None else {"signature": fixed}
    try:
        return np_ufunc.resolve_dtypes(in_dtypes + (None,) * np_ufunc.nout,
                                       casting="no" if casting == "equiv" else casting, **sig)
    except Exception as e:   # NumPy's casting or no-loop error, renamed
        message = str(e).replace("rule 'no'", f"rule {casting!r}")
        raise TypeError(f"{name}: {message}") from None


_UFUNCS = {}


def _by_name(name):
    return _UFUNCS[name]


def install_ufuncs(namespace):
    """Replace every function of ``namespace`` (minijax.numpy's globals) that NumPy has as
    a (non-generalized) ufunc by a ``ufunc`` object; aliases share one object, as in NumPy."""
    by_numpy = {}
    for name, fn in list(namespace.items()):
        np_fn = getattr(np, name, None)
        if not isinstance(np_fn, np.ufunc) or np_fn.signature is not None or not callable(fn):
            continue
        if isinstance(fn, ufunc):
            continue
        obj = by_numpy.get(id(np_fn))
        if obj is None:
            obj = by_numpy[id(np_fn)] = ufunc(np_fn, fn)
            _UFUNCS[np_fn.__name__] = obj
        namespace[name] = obj
