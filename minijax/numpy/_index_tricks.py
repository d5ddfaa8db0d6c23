"""NumPy's index tricks and iteration helpers (``numpy.lib`` "index tricks"):
``mgrid``, ``ogrid``, ``r_``, ``c_``, ``s_``, ``index_exp``, ``ndindex``,
``ndenumerate``, ``nditer`` and ``nested_iters`` (eager), ``broadcast``, ``Array.flat``, ``mask_indices``,
and the functions that write into an array in place: ``fill_diagonal``, ``copyto``
and ``putmask``.

The in-place functions follow DESIGN 5: eagerly NumPy writes into the Array's buffer
(copy-on-write, through views); under a transformation the array is rebound to the
updated value. They return None, as NumPy's.
"""

import itertools
import math
import numbers

import numpy as np

from .. import _checks, dtypes
from ..core import Tracer, eager, get_aval, get_concrete
from ..runtime.array import Array
from ..runtime.numpy_dispatch import wrap
from ._core import to_array
from ._creation import arange, array, asarray, indices, linspace, ones
from .._mutation import rebind_or_raise, refresh
from ._indexing import getitem
from ._manipulation import broadcast_to, concatenate, reshape, resize, swapaxes, transpose
from ._searching import nonzero, where


# ---------------------------------------------------------------- grids


def _slice_parts(s):
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    return start, s.stop, step


def _is_complex_step(step):
    return isinstance(step, (complex, np.complexfloating))


class _Grid:
    """``mgrid`` (dense) and ``ogrid`` (sparse): ``grid[a:b:step, ...]`` gives the
    coordinates; a complex step ``Nj`` means N points with both ends included."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = _slice_parts(key)
            if _is_complex_step(step):
                count = int(abs(step))
                if count != 1:
                    step = (stop - start) / float(count - 1)
                else:
                    step = abs(step)
                return arange(0, count, 1, dtype=float) * step + start
            return arange(start, stop, step)
        key = tuple(key)
        sizes, numbers_ = [], []
        for s in key:
            if not isinstance(s, slice):
                raise TypeError(f"{'ogrid' if self.sparse else 'mgrid'} takes slices, got "
                                f"{type(s).__name__}")
            start, stop, step = _slice_parts(s)
            if _is_complex_step(step):
                step = abs(step)
                sizes.append(int(step))
            else:
                sizes.append(int(math.ceil((stop - start) / (step * 1.0))))
            numbers_ += [start, stop, step]
        typ = np.result_type(*numbers_)
        if self.sparse:
            grids = [arange(n, dtype=typ) for n in sizes]
        else:
            full = indices(sizes, typ)
            grids = [full[i] for i in range(len(sizes))]
        for i, s in enumerate(key):
            start, stop, step = _slice_parts(s)
            if _is_complex_step(step):
                count = int(abs(step))
                if count != 1:
                    step = (stop - start) / float(count - 1)
            grids[i] = grids[i] * step + start
        if self.sparse:
            n = len(sizes)
            return tuple(reshape(g, tuple(-1 if j == i else 1 for j in range(n)))
                         for i, g in enumerate(grids))
        return concatenate([reshape(g, (1,) + get_aval(g).shape) for g in grids]) \
            if grids else asarray([], dtype=typ)

    def __len__(self):
        return 0


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


# ---------------------------------------------------------------- r_ and c_


class _Concatenator:
    """``r_`` and ``c_``: slices, scalars and arrays joined along an axis. A first
    string entry sets the axis, the minimum rank and where 1-d pieces go ('0,2,0'), or
    asks for a row ('r') or column ('c') 2-d result (NumPy's matrix; here an array)."""

    def __init__(self, axis, ndmin, trans1d):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if not isinstance(key, tuple):
            key = (key,)
        matrix, column = False, False
        pieces, types, scalars = [], [], []
        for k, item in enumerate(key):
            scalar = False
            if isinstance(item, slice):
                start, stop, step = _slice_parts(item)
                if _is_complex_step(step):
                    piece = linspace(start, stop, num=int(abs(step)))
                else:
                    piece = arange(start, stop, step)
                if ndmin > 1:
                    piece = array(piece, ndmin=ndmin)
                    if trans1d != -1:
                        piece = swapaxes(piece, -1, trans1d)
            elif isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                if item in ("r", "c"):
                    matrix, column = True, item == "c"
                    continue
                if "," in item:
                    parts = item.split(",")
                    try:
                        axis, ndmin = (int(p) for p in parts[:2])
                        if len(parts) == 3:
                            trans1d = int(parts[2])
                    except Exception as e:
                        raise ValueError(f"unknown special directive {item!r}") from e
                    continue
                try:
                    axis = int(item)
                except (ValueError, TypeError) as e:
                    raise ValueError(f"unknown special directive {item!r}") from e
                continue
            elif isinstance(item, (numbers.Number, np.generic)) and not isinstance(
                    item, np.ndarray):
                scalar = True
                piece = item
            else:
                item_ndim = np.ndim(item) if not isinstance(item, (Array, Tracer)) else \
                    get_aval(item).ndim
                piece = array(item, ndmin=ndmin)
                if trans1d != -1 and item_ndim < ndmin:
                    k2 = ndmin - item_ndim
                    k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                    order = list(range(ndmin))
                    piece = transpose(piece, tuple(order[:k1] + order[k2:] + order[k1:k2]))
            if scalar:
                scalars.append(len(pieces))
                types.append(item)
            else:
                types.append(get_aval(piece).dtype)
            pieces.append(piece)
        if not pieces:
            return asarray([], dtype=float)
        final = _result_type(types)
        for i in scalars:
            pieces[i] = array(pieces[i], dtype=final, ndmin=ndmin)
        out = concatenate([p if get_aval(p).dtype == final else p.astype(final)
                           for p in pieces], axis=axis)
        if matrix:
            nd = get_aval(out).ndim
            if nd < 2:
                out = reshape(out, (1,) * (2 - nd) + get_aval(out).shape)
            if nd == 1 and column:
                out = transpose(out)
        return out

    def __len__(self):
        return 0


def _result_type(types):
    # Python scalars are weak (NEP 50), as in NumPy's own r_
    return dtypes.canonicalize(np.result_type(*types))


r_ = _Concatenator(0, 1, -1)
c_ = _Concatenator(-1, 2, 0)


class _IndexExpression:
    """``s_[...]`` gives the index object itself; ``index_exp[...]`` always a tuple."""

    def __init__(self, maketuple):
        self.maketuple = maketuple

    def __getitem__(self, item):
        if self.maketuple and not isinstance(item, tuple):
            return (item,)
        return item


s_ = _IndexExpression(maketuple=False)
index_exp = _IndexExpression(maketuple=True)


# ---------------------------------------------------------------- iteration


class ndindex:
    """An iterator over the index tuples of an array of the given shape, in C order."""

    def __init__(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError("negative dimensions are not allowed")
        self.shape = shape
        self._iter = itertools.product(*[range(s) for s in shape])

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iter)


class ndenumerate:
    """Pairs of (index tuple, element) over an array in C order. Eagerly the elements
    are NumPy scalars read from the host; traced, they are traced 0-d arrays."""

    def __init__(self, arr):
        if isinstance(arr, Tracer) or not eager():
            self._arr = to_array(arr)
            self._host = None
        else:
            self._host = np.asarray(arr)
        shape = self._host.shape if self._host is not None else get_aval(self._arr).shape
        self._indices = ndindex(shape)

    def __iter__(self):
        return self

    def __next__(self):
        index = next(self._indices)
        if self._host is not None:
            return index, self._host[index]
        return index, self._arr[index]


def _host_operand(x, writable):
    if type(x) is Array:
        return x._writable() if writable else x._value()
    if isinstance(x, Tracer):
        raise TypeError("nditer iterates over host values: it cannot take a traced array "
                        "(under jit/grad/vmap use array operations or lax.fori_loop)")
    return x


def _writes(flags):
    return any(f in ("readwrite", "writeonly") for f in (flags or ()))


class nditer:
    """NumPy's ``nditer`` over the host buffers of minijax arrays (eager only).
    Operands flagged 'readwrite' or 'writeonly' are written in place, as in NumPy;
    ``operands`` (and ``it[i]``) give minijax arrays sharing the iterator's buffers."""

    def __init__(self, op, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", op_axes=None, itershape=None, buffersize=0):
        many = isinstance(op, (list, tuple))
        ops = list(op) if many else [op]
        if op_flags is None:
            per_op = [None] * len(ops)
        elif op_flags and isinstance(op_flags[0], str):
            per_op = [op_flags] * len(ops)
        else:
            per_op = list(op_flags)
        hosts = [None if o is None else _host_operand(o, _writes(f))
                 for o, f in zip(ops, per_op)]
        self._it = np.nditer(hosts if many else hosts[0], flags, op_flags, op_dtypes,
                             order, casting, op_axes, itershape, buffersize)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __enter__(self):
        self._it.__enter__()
        return self

    def __exit__(self, *exc):
        return self._it.__exit__(*exc)

    def __len__(self):
        return len(self._it)

    def __getitem__(self, i):
        return self._it[i]

    @property
    def operands(self):
        """The operands as minijax arrays (sharing the iterator's buffers)."""
        return tuple(wrap(o) for o in self._it.operands)

    def __getattr__(self, name):
        return getattr(self._it, name)


def nested_iters(op, axes, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", buffersize=0):
    """NumPy's nested ``nditer`` objects over the host buffers of minijax arrays (eager
    only); operands flagged 'readwrite' or 'writeonly' are written in place."""
    ops = list(op) if isinstance(op, (list, tuple)) else [op]
    if op_flags is None:
        per_op = [None] * len(ops)
    elif op_flags and isinstance(op_flags[0], str):
        per_op = [op_flags] * len(ops)
    else:
        per_op = list(op_flags)
    hosts = [None if o is None else _host_operand(o, _writes(f)) for o, f in zip(ops, per_op)]
    return np.nested_iters(hosts, axes, flags, op_flags, op_dtypes, order, casting,
                           buffersize)


class broadcast:
    """The broadcast of its arguments: ``shape``, ``ndim``, ``nd``, ``size``,
    ``numiter``, and (eagerly) iteration over tuples of their broadcast elements."""

    def __init__(self, *args):
        if len(args) > 64:
            raise ValueError("Need at most 64 array objects.")
        self._args = [a if isinstance(a, broadcast) else to_array(a) for a in args]
        shapes = [a.shape if isinstance(a, broadcast) else get_aval(a).shape
                  for a in self._args]
        try:
            self.shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError("shape mismatch: objects cannot be broadcast to a single "
                             "shape.  Mismatch is between " +
                             " and ".join(str(s) for s in shapes)) from None
        self.ndim = self.nd = len(self.shape)
        self.size = math.prod(self.shape)
        self.numiter = sum(a.numiter if isinstance(a, broadcast) else 1 for a in self._args)
        self.reset()

    def _arrays(self):
        out = []
        for a in self._args:
            out.extend(a._arrays() if isinstance(a, broadcast) else [a])
        return out

    @property
    def iters(self):
        """One flat iterator per operand, over its broadcast values."""
        return tuple(broadcast_to(a, self.shape).flat for a in self._arrays())

    def reset(self):
        """Restart the iteration."""
        self.index = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.index >= self.size:
            raise StopIteration
        position = np.unravel_index(self.index, self.shape) if self.shape else ()
        self.index += 1
        values = []
        for a in self._arrays():
            host = get_concrete(a)
            if host is None or isinstance(a, Tracer):   # (under grad: keeps the derivative)
                values.append(broadcast_to(a, self.shape)[position])
            else:
                values.append(np.broadcast_to(np.asarray(host), self.shape)[position])
        return tuple(values)


# ---------------------------------------------------------------- flat


class flatiter:
    """``a.flat``: the elements of ``a`` in C order. Iterate it, index it
    (``a.flat[i]``, slices, integer or boolean arrays) and assign through it
    (``a.flat[i] = v``, values repeated as needed), which updates ``a``."""

    def __init__(self, base):
        self.base = base
        self.index = 0

    @property
    def coords(self):
        """The N-d index of the current position."""
        shape = get_aval(self.base).shape
        return tuple(int(i) for i in np.unravel_index(self.index, shape)) if shape else ()

    def __len__(self):
        return get_aval(self.base).size

    def __iter__(self):
        return self

    def __next__(self):
        if self.index >= len(self):
            raise StopIteration
        value = self[self.index]
        self.index += 1
        return value

    def _flat(self):
        return reshape(self.base, (-1,))

    def __getitem__(self, key):
        if _eager(self.base):
            out = self.base._value().flat[_host_key(key)]
            return asarray(out) if isinstance(out, np.ndarray) else asarray(
                np.asarray(out, dtype=self.base.aval.dtype))
        return getitem(self._flat(), key)

    def __setitem__(self, key, value):
        base = self.base
        if _eager(base) and not isinstance(value, Tracer):
            host_value = value._value() if type(value) is Array else value
            base._writable().flat[_host_key(key)] = host_value
            return
        refresh(base)
        flat = self._flat()
        selected = getitem(flat, key)
        count = get_aval(selected).size
        dt = get_aval(base).dtype
        values = reshape(to_array(value, dtype=dt) if not isinstance(value, Tracer)
                         else value.astype(dt), (-1,))
        if get_aval(values).size != count and count:
            values = resize(values, (count,))
        values = reshape(values, get_aval(selected).shape)
        updated = reshape(flat.at[key].set(values), get_aval(base).shape)
        rebind_or_raise(base, updated, "a.flat[key] = value")

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._flat())
        return value if dtype is None else value.astype(dtype)

    def copy(self):
        """The elements as a new 1-d array."""
        return array(self._flat())


def _eager(x):
    return (type(x) is Array and eager() and not x.committed())


def _host_key(key):
    if type(key) is Array:
        return key._value()
    if isinstance(key, tuple):
        return tuple(_host_key(k) for k in key)
    if isinstance(key, list):
        return [_host_key(k) for k in key]
    return key


def _get_flat(self):
    return flatiter(self)


def _set_flat(self, value):
    flatiter(self)[...] = value


flat_property = property(_get_flat, _set_flat, doc="A flat iterator over the array's "
                         "elements (see ``flatiter``).")


# ---------------------------------------------------------------- in-place functions


def _check_inplace_target(a, name):
    if not isinstance(a, (Array, Tracer)):
        raise TypeError(f"{name}: the array to update must be a minijax array (or a "
                        f"NumPy array outside transformations), got {type(a).__name__}")


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """Write ``val`` (repeated as needed) on the main diagonal of ``a`` (2-d, or n-d
    with equal sides), in place. ``wrap`` continues tall matrices' diagonal below
    every N+1 rows, as NumPy's. Returns None; with ``inplace=False`` (JAX's) the new
    array, ``a`` unchanged."""
    inplace = _checks.flag(inplace, "inplace")
    if inplace:
        _check_inplace_target(a, "fill_diagonal")
    else:
        a = to_array(a)
    shape = get_aval(a).shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    end = None
    if len(shape) == 2:
        step = shape[1] + 1
        if not wrap:
            end = shape[1] * shape[1]
    else:
        if any(s != shape[0] for s in shape):
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(shape[:-1]).sum())
    if inplace:
        refresh(a)
    size = math.prod(shape)
    positions = np.arange(0, size if end is None else min(end, size), step)
    flat = reshape(a, (-1,))
    dt = get_aval(a).dtype
    values = reshape(to_array(val, dtype=dt) if not isinstance(val, Tracer)
                     else val.astype(dt), (-1,))
    if len(positions):
        values = resize(values, (len(positions),))
        flat = flat.at[positions].set(values)
    if not inplace:
        return reshape(flat, shape)
    rebind_or_raise(a, reshape(flat, shape), "fill_diagonal")


def copyto(dst, src, casting="same_kind", where=True):
    """Copy ``src`` (broadcast) into ``dst`` in place where ``where`` is true, casting
    by the rule ``casting``. Returns None."""
    _check_inplace_target(dst, "copyto")
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         f"'unsafe' (got {casting!r})")
    dt = get_aval(dst).dtype
    if isinstance(src, (bool, int, float, complex)):
        src_dtype = np.result_type(dt, src) if casting != "unsafe" else dt
        kind = "scalar"
    else:
        src = to_array(src)
        src_dtype = get_aval(src).dtype
        kind = "array data"
    if not np.can_cast(src_dtype, dt, casting):
        raise TypeError(f"Cannot cast {kind} from {np.dtype(src_dtype)!r} to "
                        f"{np.dtype(dt)!r} according to the rule {casting!r}")
    shape = get_aval(dst).shape
    value = broadcast_to(to_array(src).astype(dt), shape)
    refresh(dst)
    if where is not True:
        mask = to_array(where)
        if get_aval(mask).dtype != np.bool_:
            raise TypeError("copyto: where= must be a boolean array")
        value = _where(broadcast_to(mask, shape), value, dst)
    rebind_or_raise(dst, value, "copyto")


_where = where


def putmask(a, /, mask, values):
    """Set ``a.flat[n] = values.flat[n % len(values)]`` wherever ``mask.flat[n]``, in
    place. Returns None."""
    _check_inplace_target(a, "putmask")
    shape = get_aval(a).shape
    mask = to_array(mask)
    if get_aval(mask).size != math.prod(shape):
        raise ValueError("putmask: mask and data must be the same size")
    dt = get_aval(a).dtype
    values = to_array(values).astype(dt)   # NumPy casts the values unsafely
    if get_aval(values).size == 0:
        if bool(get_concrete(mask) is not None and np.asarray(get_concrete(mask)).any()):
            raise ValueError("putmask: values must not be empty")
        return
    refresh(a)
    filled = resize(values, shape)
    rebind_or_raise(a, _where(reshape(mask.astype(bool), shape), filled, a), "putmask")


def mask_indices(n, mask_func, k=0, *, size=None):
    """The indices of the nonzero entries of ``mask_func(ones((n, n)), k)`` (for example
    ``triu``), as a pair of index arrays (``size=`` as ``nonzero``'s, for a traced
    ``k``)."""
    m = ones((n, n), int)
    a = mask_func(m, k)
    return nonzero(asarray(a) != 0, size=size)
