"""Functional programming helpers (NumPy's ``numpy.lib`` "functional" chapter):
``vectorize``, ``frompyfunc``, ``apply_along_axis``, ``apply_over_axes`` and
``piecewise``.

Eagerly (concrete inputs, no transformation) they are NumPy's: the Python function is
called on NumPy scalars or slices, in a loop. Under a transformation the loop is a
``vmap`` of the function (so it must be traceable: no Python ``if`` on element values),
as JAX's ``vectorize`` is built.
"""

import re

import numpy as np

from .. import dtypes
from ..core import Tracer, eager, get_aval
from ..runtime.array import Array
from ._core import to_array
from ._creation import asarray, zeros_like
from ._manipulation import broadcast_to, concatenate, expand_dims, moveaxis
from ._searching import where
from ._utility import any as _any


def _vmap(fn, in_axes=0):
    # deferred: minijax.api imports the interpreters and runtime, which import numpy's
    # siblings; vmap is needed only when called under a transformation
    from ..api import vmap
    return vmap(fn, in_axes=in_axes)


def _traced(*values):
    """Whether any value is traced (a transformation is active and sees it)."""
    if not eager():
        return True
    return any(isinstance(v, Tracer) for v in values)


def _is_array(x):
    return isinstance(x, (Array, Tracer, np.ndarray))


_DIMENSION = r"\w+"
_CORE = rf"\((?:{_DIMENSION}(?:,{_DIMENSION})*)?\)"
_ARGS = rf"{_CORE}(?:,{_CORE})*"
_SIGNATURE = rf"^{_ARGS}->{_ARGS}$"


def _parse_signature(signature):
    """``'(m,n),(n)->(m)'`` as ([('m', 'n'), ('n',)], [('m',)])."""
    signature = re.sub(r"\s+", "", signature)
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.split("->")
    parse = lambda part: [tuple(re.findall(_DIMENSION, arg))
                          for arg in re.findall(_CORE, part)]
    return parse(ins), parse(outs)


class vectorize:
    """A function applied to each element (or each core sub-array, with ``signature``)
    of broadcast array arguments, as NumPy's ``vectorize``.

    ``otypes`` fixes the output dtypes (a string of type codes or a list of dtypes);
    ``excluded`` names positional indices or keywords passed through unvectorized;
    ``signature`` (``'(n),(n)->()'``) gives the core dimensions of a generalized
    function; ``cache`` remembers the first call's outputs as NumPy does. Usable as a
    decorator, with or without keywords."""

    def __init__(self, pyfunc=None, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        if pyfunc is not None and not callable(pyfunc):
            raise TypeError(f"vectorize: pyfunc must be callable, got "
                            f"{type(pyfunc).__name__}")
        self.pyfunc = pyfunc
        self.cache = cache
        self.signature = signature
        if isinstance(otypes, str):
            for char in otypes:
                if char not in np.typecodes["All"]:
                    raise ValueError(f"Invalid otype specified: {char}")
            self._otypes = [np.dtype(c) for c in otypes]
        elif otypes is not None and np.iterable(otypes):
            otypes = self._otypes = [np.dtype(t) for t in otypes]
        elif otypes is not None:
            raise ValueError("Invalid otype specification")
        else:
            self._otypes = None
        self.otypes = otypes   # as NumPy keeps it: the string, or a list of dtypes
        self.excluded = set() if excluded is None else set(excluded)
        self._core = None if signature is None else _parse_signature(signature)
        self.__doc__ = doc if doc is not None else getattr(pyfunc, "__doc__", None)
        if pyfunc is not None:
            self.__name__ = getattr(pyfunc, "__name__", "vectorized")
            self._numpy = np.vectorize(pyfunc, otypes=self.otypes, excluded=excluded,
                                       cache=cache, signature=signature)

    def __call__(self, *args, **kwargs):
        if self.pyfunc is None:   # used as @vectorize(otypes=...): wrap the function
            (func,) = args
            return vectorize(func, self._otypes, self.__doc__, self.excluded, self.cache,
                             self.signature)
        values = [*args, *kwargs.values()]
        if not _traced(*values) and not any(
                isinstance(v, Array) and v.committed() for v in values):
            host = lambda v: v._value() if type(v) is Array else v
            out = self._numpy(*[host(a) for a in args],
                              **{k: host(v) for k, v in kwargs.items()})
            return _wrap_outputs(out)
        return self._vmapped(args, kwargs)

    def _vmapped(self, args, kwargs):
        positions = [i for i in range(len(args)) if i not in self.excluded]
        names = [k for k in kwargs if k not in self.excluded]
        arrays = [to_array(args[i]) for i in positions] + [to_array(kwargs[k]) for k in names]
        if self._core is None:
            in_core = [()] * len(arrays)
            out_core = None
        else:
            in_core, out_core = self._core
            if len(in_core) != len(arrays):
                raise TypeError(f"wrong number of positional arguments: expected "
                                f"{len(in_core)}, got {len(arrays)}")
        sizes = {}
        loop_shapes = []
        for a, core in zip(arrays, in_core):
            shape = get_aval(a).shape
            if len(shape) < len(core):
                raise ValueError(f"{len(shape)}-dimensional argument does not have enough "
                                 f"dimensions for all core dimensions {core}")
            for dim, n in zip(core, shape[len(shape) - len(core):]):
                if sizes.setdefault(dim, n) != n:
                    raise ValueError(f"inconsistent size for core dimension {dim!r}: {n} "
                                     f"vs {sizes[dim]}")
            loop_shapes.append(shape[:len(shape) - len(core)])
        loop = np.broadcast_shapes(*loop_shapes) if loop_shapes else ()
        arrays = [broadcast_to(a, loop + get_aval(a).shape[len(ls):])
                  for a, ls in zip(arrays, loop_shapes)]

        def call(*flat):
            new_args = list(args)
            for i, v in zip(positions, flat):
                new_args[i] = v
            new_kwargs = dict(kwargs)
            for k, v in zip(names, flat[len(positions):]):
                new_kwargs[k] = v
            return self.pyfunc(*new_args, **new_kwargs)

        fn = call
        for _ in loop:
            fn = _vmap(fn)
        out = fn(*arrays)
        multiple = isinstance(out, tuple)
        outs = list(out) if multiple else [out]
        if out_core is not None and len(out_core) != len(outs):
            raise ValueError(f"wrong number of outputs from pyfunc: expected "
                             f"{len(out_core)}, got {len(outs)}")
        if self._otypes is not None:
            if len(self._otypes) != len(outs):
                raise ValueError(f"vectorize: {len(self._otypes)} otypes for "
                                 f"{len(outs)} outputs")
            outs = [asarray(o).astype(dtypes.canonicalize(t))
                    for o, t in zip(outs, self._otypes)]
        else:
            outs = [asarray(o) for o in outs]
        return tuple(outs) if multiple else outs[0]


def _wrap_outputs(out):
    if isinstance(out, tuple):
        return tuple(_wrap_outputs(o) for o in out)
    if isinstance(out, np.ndarray) and out.dtype == object:
        out = np.array(out.tolist())
    return asarray(out)


class _PyUfunc:
    """What ``frompyfunc`` returns: a ufunc-like object calling a Python function on
    each element. minijax has no object dtype, so results take the numeric dtype NumPy
    infers from the Python values the function returns."""

    def __init__(self, func, nin, nout, identity):
        self._ufunc = np.frompyfunc(func, nin, nout, identity=identity)
        self.func = func
        self.nin, self.nout, self.nargs = nin, nout, nin + nout
        self.identity = identity
        self.__name__ = f"{getattr(func, '__name__', 'func')} (vectorized)"

    def __repr__(self):
        return f"<minijax ufunc {self.__name__!r}>"

    def _run(self, method, *args, **kwargs):
        host = lambda v: v._value() if type(v) is Array else v
        for v in [*args, *kwargs.values()]:
            if isinstance(v, Tracer):
                raise TypeError(f"frompyfunc: {self.__name__} runs the Python function on "
                                f"host values; it cannot take traced arrays (use "
                                f"vectorize, which traces the function with vmap)")
        out = method(*[host(a) for a in args], **{k: host(v) for k, v in kwargs.items()})
        return _wrap_outputs(out if not isinstance(out, list) else tuple(out))

    def __call__(self, *args, **kwargs):
        return self._run(self._ufunc, *args, **kwargs)

    def reduce(self, *args, **kwargs):
        """NumPy's ``ufunc.reduce`` with this function."""
        return self._run(self._ufunc.reduce, *args, **kwargs)

    def accumulate(self, *args, **kwargs):
        """NumPy's ``ufunc.accumulate`` with this function."""
        return self._run(self._ufunc.accumulate, *args, **kwargs)

    def outer(self, *args, **kwargs):
        """NumPy's ``ufunc.outer`` with this function."""
        return self._run(self._ufunc.outer, *args, **kwargs)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ufunc-like object applying the Python ``func`` (``nin`` inputs, ``nout``
    outputs) elementwise, on the host."""
    if not callable(func):
        raise TypeError("function must be callable")
    return _PyUfunc(func, nin, nout, identity)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-d slice of ``arr`` along ``axis``; its output's
    dimensions take the place of ``axis`` (a ``vmap`` over the other axes when traced)."""
    arr = to_array(arr)
    nd = get_aval(arr).ndim
    if not -nd <= axis < nd:
        raise np.exceptions.AxisError(axis, nd)
    axis = axis % nd
    moved = moveaxis(arr, axis, -1)
    fn = lambda row: asarray(func1d(row, *args, **kwargs))
    for _ in range(nd - 1):
        fn = _vmap(fn)
    out = fn(moved)
    core = get_aval(out).ndim - (nd - 1)
    for i in range(core):
        out = moveaxis(out, nd - 1 + i, axis + i)
    return out


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` repeatedly for each axis in ``axes``; a result with one
    dimension less gets it back (so the rank is kept)."""
    val = to_array(a)
    n = get_aval(val).ndim
    if isinstance(axes, (int, np.integer)) or (_is_array(axes) and np.ndim(axes) == 0):
        axes = (axes,)
    for axis in axes:
        axis = int(axis)
        if axis < 0:
            axis = n + axis
        res = func(val, axis)
        if get_aval(res).ndim != get_aval(val).ndim:
            res = expand_dims(res, axis)
            if get_aval(res).ndim != get_aval(val).ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


def _is_condition_sequence(x):
    return isinstance(x, list) or _is_array(x)


def piecewise(x, condlist, funclist, *args, **kw):
    """``x`` mapped piecewise: where ``condlist[i]`` holds, ``funclist[i](x, *args,
    **kw)`` (or the constant ``funclist[i]``); one more function than conditions is the
    'otherwise' piece; elsewhere 0. Later pieces win where conditions overlap. The result
    keeps ``x``'s dtype. Traced, each function sees the whole ``x``."""
    x = to_array(x)
    n_funcs = len(funclist)
    if np.isscalar(condlist) or (isinstance(condlist, (Array, Tracer))
                                 and get_aval(condlist).ndim == 0) or (
            not _is_condition_sequence(condlist[0]) and get_aval(x).ndim != 0):
        condlist = [condlist]
    conds = asarray(condlist, dtype=bool)
    n = get_aval(conds).shape[0] if get_aval(conds).ndim else 1
    if get_aval(conds).ndim == 0:
        conds = conds.reshape((1,))
    if n == n_funcs - 1:
        otherwise = ~_any(conds, axis=0, keepdims=True)
        conds = concatenate([conds, otherwise])
        n += 1
    elif n != n_funcs:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are "
                         f"expected")
    y = zeros_like(x)
    dt = get_aval(x).dtype
    for i, func in enumerate(funclist):
        value = func(x, *args, **kw) if callable(func) else func
        value = asarray(value).astype(dt)
        y = where(conds[i], value, y)
    return y
