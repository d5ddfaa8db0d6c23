"""The public transformations: jit, grad, value_and_grad, vjp, jvp, linearize, vmap,
make_jaxpr, plus device placement. They flatten user pytrees and call the
interpreters on flat lists."""

import contextlib
import functools
import inspect
import operator
import platform
import sys
import threading
import weakref

import numpy as np

from . import _checks, dtypes, errors, tree_util
from .config import config
from .core import ClosedJaxpr, ShapedArray, Tracer, eager, eval_jaxpr, get_aval
from .core.trace import state as trace_state
from .core.trace import updated as updated_args
from .interpreters import ad, batching
from .interpreters import partial_eval as pe
from .interpreters.lowering import lower_jaxpr
from ._mutation import (check_writable, new_object, read_only_leaf, refresh_if_stale,
                        write_back_updated, write_back_values)
from .lax import parallel
from .lax.call import jit_p
from .lax.sharding import with_sharding_constraint
from .dtypes import is_non_numeric
from . import backend
from . import backend as _backends   # (devices(backend=...) shadows the module's name)
from .runtime import dispatch, numpy_dispatch
from .runtime.array import Array, _make, resolve_placement, snapshot, wait_for_arrays
from .runtime.sharding import (NamedSharding, put_local_pieces, shardings_per_leaf)
from .util import LRUCache
from .traceback_util import api_boundary

_VALID_SCALARS = (bool, int, float, complex, np.generic)


def _check_leaf(x, what):
    if isinstance(x, (Array, Tracer, np.ndarray)) or isinstance(x, _VALID_SCALARS):
        try:
            return get_aval(x)
        except errors.NonNumericDtypeError as e:   # a date, string, record or object
            raise e.named(what) from None
    leaf_error = getattr(type(x), "leaf_error", None)   # a named error of its own
    if leaf_error is not None:
        raise leaf_error(x, what)
    raise TypeError(f"{what} of type {type(x).__name__} is not a valid minijax type; "
                    f"pass arrays, NumPy arrays, Python scalars or pytrees of them"
                    f"{' (or mark it static with static_argnums/static_argnames)' if 'jit' in what else ''}")


def _fun_name(fun):
    return getattr(fun, "__name__", None) or type(fun).__name__


def _debug_info(kind, fun):
    code = getattr(inspect.unwrap(fun), "__code__", None)
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code else ""
    return f"{kind} of function `{_fun_name(fun)}`{where}"


def _flatten_fun(fun, in_tree, what="output"):
    """``fun`` on flat leaves; the output tree is stored in the returned list."""
    store = []

    def flat_fun(*leaves):
        args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
        out = fun(*args, **kwargs)
        out_flat, out_tree = tree_util.tree_flatten(out)
        for x in out_flat:
            _check_leaf(x, f"{_fun_name(fun)} {what}")
            if isinstance(x, Tracer) and getattr(x, "_view_of", None) is not None:
                refresh_if_stale(x)   # a view returned after its base was updated
        store.append(out_tree)
        return out_flat
    return flat_fun, store


def _with_updated_args(flat_fun, updated):
    """``flat_fun`` that also returns the final values of the arguments it updated in
    place; their positions (program order of the last update) go into ``updated`` (the
    first position of a traced value given for several leaves, see ``_aliases``)."""
    def fun(*tracers):
        outs = flat_fun(*tracers)
        seen = set()
        for i in updated_args(tracers):
            if id(tracers[i]) not in seen:
                seen.add(id(tracers[i]))
                updated.append(i)
        return [*outs, *[tracers[i] for i in updated]]
    return fun


class _Aliased(Exception):
    """The fast path of a function that updates its arguments met one array twice."""


def _aliases(leaves):
    """None if no array object is among ``leaves`` twice, else for each leaf the position
    of the first leaf that is the same object (itself for the rest)."""
    first, pattern, repeated = {}, [], False
    for i, x in enumerate(leaves):
        if isinstance(x, (Array, Tracer, np.ndarray)):
            j = first.setdefault(id(x), i)
            repeated |= j != i
            pattern.append(j)
        else:
            pattern.append(i)
    return tuple(pattern) if repeated else None


def _detached(x):
    """A distinct object holding ``x``'s current value: a residual of a derivative that
    is an argument about to be written back must keep the value it had."""
    if type(x) is Array:
        return snapshot(x)   # shares the buffer copy-on-write
    if isinstance(x, Tracer):
        return new_object(x)
    return x.copy() if isinstance(x, np.ndarray) else x


# ---------------------------------------------------------------- jit

class _JitState:
    """What a jitted function keeps per input signature, shared by every ``jit`` of the
    same function with the same static arguments. Bounded by ``config.jit_cache_size``
    (least recently used signatures dropped first)."""

    __slots__ = ("traced", "fast", "fast_ids", "fast_trees", "fast_x64", "__weakref__")

    def __init__(self):
        size = lambda: config.jit_cache_size   # noqa: E731
        # (tree, statics, avals, x64) -> (jaxpr, consts, out tree, updated argument leaves)
        self.traced = LRUCache(size)
        self.fast = LRUCache(size)     # input avals -> direct executable call (see __call__)
        self.fast_ids = {}             # ids of input avals -> (direct call, input avals)
        # structure and aval ids of tuples/lists/dicts of Arrays and Python scalars ->
        # (direct call, avals, whether there are scalars)
        self.fast_trees = {}
        self.fast_x64 = config.enable_x64   # the mode the fast entries were traced in

    def clear(self):
        self.traced.clear()
        self._clear_fast()

    def _clear_fast(self):
        self.fast.clear()
        self.fast_ids.clear()
        self.fast_trees.clear()

    def fast_entries_for_mode(self):
        """Drop the fast entries when the x64 mode changed since they were made."""
        if self.fast_x64 is not config.enable_x64:
            self._clear_fast()
            self.fast_x64 = config.enable_x64


# True inside ``disable_jit()``: jitted functions run as plain Python
_jit_disabled = [False]


@contextlib.contextmanager
def disable_jit(disable=True):
    """Inside this context, ``jit``-compiled functions run as plain Python, operation by
    operation on concrete values (for debugging with prints and breakpoints)."""
    disable = _checks.flag(disable, "disable_jit: disable")
    prev = _jit_disabled[0]
    _jit_disabled[0] = disable
    try:
        yield
    finally:
        _jit_disabled[0] = prev


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Inside this context, operations on concrete values run now, even while a function
    is traced under ``jit`` (operations on traced values are still staged): Python can
    then branch on values computed from constants."""
    prev = trace_state.dynamic, trace_state.new_value_cap
    trace_state.dynamic = trace_state.eval_main
    trace_state.new_value_cap = 0   # new arrays are concrete, not constants of the trace
    try:
        yield
    finally:
        trace_state.dynamic, trace_state.new_value_cap = prev


def clear_caches():
    """Drop every traced and compiled program minijax keeps in memory (jitted functions'
    programs, transformed jaxprs, eager executables); the on-disk compilation cache is
    kept."""
    with _jit_states_lock:
        states = [st for per_fun in _jit_states.values() for st in per_fun.values()]
    for st in states:
        st.clear()
    for cached in (ad.jvp_jaxpr, ad.transpose_jaxpr, ad.jvp_jaxpr_nonzeros,
                   batching.vmap_jaxpr, batching.batch_jaxpr):
        cached.cache_clear()
    dispatch.clear_eager_cache()


def typeof(x):
    """The abstract value (``ShapedArray``: shape, dtype, weak type) of an array, scalar or
    traced value."""
    return _check_leaf(x, "typeof argument")


# function -> {(static_argnums, static_argnames, in_shardings): _JitState}; its entries go
# when it does. ``jit(f)`` called anew each time on the same ``f`` reuses its programs.
_jit_states = weakref.WeakKeyDictionary()
_jit_states_lock = threading.Lock()


def _jit_state(fun, statics):
    try:
        with _jit_states_lock:
            per_fun = _jit_states.get(fun)
            if per_fun is None:
                per_fun = _jit_states[fun] = {}
            state = per_fun.get(statics)
            if state is None:
                state = per_fun[statics] = _JitState()
            return state
    except TypeError:   # not weakly referenceable or not hashable: a state of its own
        return _JitState()


def _check_static_args(fun, params, positional, nums, names):
    """static_argnums/static_argnames must name parameters ``fun`` has (JAX's check): one
    that does not would be silently ignored."""
    kinds = {p.kind for p in params}
    if inspect.Parameter.VAR_POSITIONAL not in kinds:
        bad = [i for i in nums if not -len(positional) <= i < len(positional)]
        if bad:
            raise ValueError(f"jit: static_argnums={nums} names argument {bad[0]}, but "
                             f"`{_fun_name(fun)}` takes {len(positional)} positional "
                             f"argument(s)")
    if inspect.Parameter.VAR_KEYWORD not in kinds:
        known = {p.name for p in params if p.kind != p.POSITIONAL_ONLY}
        bad = sorted(n for n in names if n not in known)
        if bad:
            raise ValueError(f"jit: static_argnames names {bad}, but `{_fun_name(fun)}` "
                             f"has no such parameter")


class Jitted:
    """A function compiled by XLA per input signature (see ``jit``)."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), in_shardings=None,
                 out_shardings=None, donate_argnums=(), donate_argnames=()):
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        donate_argnums = _checks.argnums(() if donate_argnums is None else donate_argnums,
                                         "jit: donate_argnums")
        donate_argnames = _checks.argnames(() if donate_argnames is None else donate_argnames,
                                           "jit: donate_argnames")
        # (the general path only: shardings move or check arguments, donation deletes them)
        self._sharded = (in_shardings is not None or out_shardings is not None
                         or bool(donate_argnums) or bool(donate_argnames))
        if out_shardings is not None:
            user = fun

            def fun(*args, **kwargs):
                out = user(*args, **kwargs)
                return with_sharding_constraint(out, out_shardings)
            functools.update_wrapper(fun, user)
        self.static_argnums = _checks.argnums(static_argnums, "jit: static_argnums")
        self.static_argnames = set(_checks.argnames(static_argnames, "jit: static_argnames"))
        try:
            params = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            params = None
        positional = [p.name for p in params or () if p.kind in (p.POSITIONAL_ONLY,
                                                                  p.POSITIONAL_OR_KEYWORD)]
        if params is not None:
            _check_static_args(fun, params, positional, self.static_argnums,
                               self.static_argnames)
        for i in self.static_argnums:
            if -len(positional) <= i < len(positional):
                self.static_argnames.add(positional[i])
        self._positional = positional
        self._donate_nums = {i if i >= 0 else i + len(positional) for i in donate_argnums}
        self._donate_names = set(donate_argnames)
        for i in donate_argnums:   # each names the other, as static_argnums/argnames do
            if -len(positional) <= i < len(positional):
                self._donate_names.add(positional[i])
        for name in donate_argnames:
            if name in positional:
                self._donate_nums.add(positional.index(name))
        both = self._donate_names & self.static_argnames
        if both:
            raise ValueError(f"static_argnames and donate_argnames cannot intersect. "
                             f"Argument names {both} appear in both static_argnames and "
                             f"donate_argnames")
        self._donate = (tuple(sorted(self._donate_nums)), tuple(sorted(self._donate_names)))
        self._body = fun
        # (in_shardings are constraints in the traced body: a trace of its own)
        self._state = _jit_state(fun, (self.static_argnums,
                                       tuple(sorted(self.static_argnames)), in_shardings))
        self._as_method = None

    def __reduce__(self):
        # Pickled as the function and its static arguments (the function by reference,
        # as pickle stores functions); compiled programs are per process and are rebuilt.
        return (Jitted, (self.fun, self.static_argnums, tuple(sorted(self.static_argnames)),
                         self._in_shardings, self._out_shardings, *self._donate))

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        # On a method, the instance (argument 0) is static: hashed, not traced.
        if self._as_method is None:
            self._as_method = Jitted(self.fun, self.static_argnums + (0,), self.static_argnames,
                                     self._in_shardings, self._out_shardings,
                                     *self._donate)
        return functools.partial(self._as_method, obj)

    def _is_static(self, i, n):
        return any(i == (s if s >= 0 else s + n) for s in self.static_argnums) or (
            i < len(self._positional) and self._positional[i] in self.static_argnames)

    def _split(self, args, kwargs):
        n = len(args)
        static_pos = tuple(i for i in range(n) if self._is_static(i, n))
        statics = tuple((i, args[i]) for i in static_pos) + tuple(
            sorted((k, v) for k, v in kwargs.items() if k in self.static_argnames))
        for key, value in statics:
            try:
                hash(value)
            except TypeError:
                raise errors.ArgumentMismatchError(f"static argument {key!r} of jit-compiled "
                                f"`{_fun_name(self.fun)}` has unhashable type "
                                f"{type(value).__name__}; static arguments must be hashable "
                                f"(use a tuple instead of a list)") from None
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        return dyn_args, dyn_kwargs, static_pos, statics

    def __call__(self, *args, **kwargs):
        if _jit_disabled[0]:
            return self.fun(*args, **kwargs)
        if self._sharded:
            return self._call(args, kwargs)
        # Fast paths: positional uncommitted Arrays, or tuples, lists and dicts of them
        # (parameters), no transformation active. They skip bind and call the cached
        # executable directly. Input avals are looked up by identity (see _fast_lookup).
        state = self._state
        if not kwargs and eager() and config.enable_x64 is state.fast_x64:
            ids = []
            try:
                for a in args:
                    if type(a) is not Array or a.committed():
                        break
                    ids.append(id(a.aval))
                else:
                    entry = state.fast_ids.get(tuple(ids))
                    if entry is None:
                        entry = self._fast_lookup(args, tuple(ids))
                    if entry is not None:
                        try:
                            return entry[0](args)
                        except _Aliased:   # an argument passed twice: the general path
                            pass
                    return self._call(args, kwargs)
                leaves = []
                # (no structure is read for a function that never had a tree entry)
                entry = state.fast_trees and state.fast_trees.get(_array_tree_key(args, leaves))
                if entry:
                    if entry[2]:   # Python scalars among the leaves: as (weak) Arrays
                        leaves = [a if type(a) is Array else dispatch.as_array(a)
                                  for a in leaves]
                    try:
                        return entry[0](leaves)
                    except _Aliased:
                        pass
            except errors.NonNumericDtypeError:   # a date, string, ...: _call names it
                pass
        return self._call(args, kwargs)

    def _fast_lookup(self, args, ids):
        state = self._state
        fast = state.fast.get(tuple(a.aval for a in args))
        if fast is None:
            return None
        if len(state.fast_ids) >= config.jit_cache_size:
            state.fast_ids.clear()
        # the entry keeps the avals alive, so their ids stay theirs
        entry = state.fast_ids[ids] = (fast, [a.aval for a in args])
        return entry

    def _place_inputs(self, dyn_args, dyn_kwargs):
        """The arguments moved to ``in_shardings`` (a committed Array sharded otherwise
        is JAX's error)."""
        if self._in_shardings is None:
            return dyn_args
        if dyn_kwargs:
            raise ValueError(f"pjit does not support kwargs when in_shardings is specified. "
                             f"(jit-compiled `{_fun_name(self.fun)}` was given keyword "
                             f"arguments {sorted(dyn_kwargs)}: pass them positionally)")
        if not eager():   # (the constraint in the traced body moves them: see _trace)
            return dyn_args
        per_leaf = shardings_per_leaf(self._in_shardings, dyn_args,
                                      f"jit-compiled `{_fun_name(self.fun)}`: in_shardings")
        leaves, tree = tree_util.tree_flatten(dyn_args)
        placed = []
        for x, s in zip(leaves, per_leaf):
            if s is not None and not isinstance(x, Tracer):
                if isinstance(x, Array) and x.committed() and x.sharding != s:
                    raise errors.ShardingError(
                        f"Sharding passed to jit does not match the sharding on the "
                        f"respective arg. Got jit sharding: {s!r}, arg sharding: "
                        f"{x.sharding!r}; move it with minijax.device_put first")
                x = device_put(x, s)
            placed.append(x)
        return tuple(tree_util.tree_unflatten(tree, placed))

    @api_boundary
    def _call(self, args, kwargs):
        dyn_args, dyn_kwargs, static_pos, statics = self._split(args, kwargs)
        if self._in_shardings is not None:
            dyn_args = self._place_inputs(dyn_args, dyn_kwargs)
            it = iter(dyn_args)
            args = tuple(a if i in static_pos else next(it) for i, a in enumerate(args))
        leaves, in_tree, avals, key = self._signature(dyn_args, dyn_kwargs, statics)
        state = self._state
        entry, cached = self._traced_entry(key, args, kwargs, static_pos, in_tree, avals)
        alias = _aliases(leaves) if entry[3] else None
        if alias is not None:
            # A function that updates its arguments in place, given one array twice: it
            # is traced again with one traced value for both, as NumPy sees one object.
            cached = False
            entry = state.traced.get(key + (alias,))
            if entry is None:
                entry = self._trace(args, kwargs, static_pos, in_tree, avals, alias)
                if not any(isinstance(c, Tracer) for c in entry[1]):
                    state.traced[key + (alias,)] = entry
        jaxpr, consts, out_tree, updated = entry
        who = f"jit-compiled `{_fun_name(self.fun)}`"
        if updated:
            check_writable(leaves, updated, who)
        inputs = leaves if alias is None else [x for i, x in enumerate(leaves) if alias[i] == i]
        donated = self._donated_leaves(args, kwargs, static_pos) if (
            self._donate != ((), ()) and alias is None and eager()) else None
        if donated:
            donated = [len(consts) + i for i in donated if i not in updated]
            outs = dispatch.call_donating(jaxpr, [*consts, *inputs], donated)
        else:
            outs = jit_p.bind(*consts, *inputs, jaxpr=jaxpr, name=_fun_name(self.fun))
        if updated:
            n = len(outs) - len(updated)
            write_back_values(leaves, updated, outs[n:], who)
            outs = outs[:n]
        if (cached and not kwargs and not static_pos and eager() and not self._sharded
                and dispatch.spmd_mesh(jaxpr) is None   # (runs on the mesh of a shard_map
                and dispatch.constrained_placement(jaxpr) is None):   # or constraint inside)
            if all(type(a) is Array and not a.committed() for a in args):
                state.fast_entries_for_mode()
                if state.fast.set(tuple(a.aval for a in args),
                                  _direct_call(jaxpr, consts, out_tree, updated, who)):
                    state.fast_ids.clear()   # it may hold the evicted entry
            else:
                tree_leaves = []
                tree_key = _array_tree_key(args, tree_leaves)
                if tree_key is not None:
                    state.fast_entries_for_mode()
                    if len(state.fast_trees) >= config.jit_cache_size:
                        state.fast_trees.clear()
                    # (the entry keeps the avals alive, so their ids in the key stay theirs)
                    arrays = [a for a in tree_leaves if type(a) is Array]
                    state.fast_trees[tree_key] = (
                        _direct_call(jaxpr, consts, out_tree, updated, who),
                        [a.aval for a in arrays], len(arrays) < len(tree_leaves))
        return tree_util.tree_unflatten(out_tree, outs)

    def _donated_leaves(self, args, kwargs, static_pos):
        """The positions among the flat dynamic inputs of the donated arguments' leaves."""
        out, n = [], 0
        for i, a in enumerate(args):
            if i in static_pos:
                continue
            k = len(tree_util.tree_leaves(a))
            if i in self._donate_nums:
                out.extend(range(n, n + k))
            n += k
        for name in sorted(kwargs):
            if name in self.static_argnames:
                continue
            k = len(tree_util.tree_leaves(kwargs[name]))
            if name in self._donate_names:
                out.extend(range(n, n + k))
            n += k
        return out

    def _signature(self, dyn_args, dyn_kwargs, statics):
        """``(leaves, in_tree, avals, key)`` of a call's dynamic arguments: the key of
        its trace in the cache, the same for a call and for ``trace``."""
        leaves, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple(_check_leaf(x, f"argument of jit-compiled `{_fun_name(self.fun)}`")
                      for x in leaves)
        return leaves, in_tree, avals, (in_tree, statics, avals, config.enable_x64)

    def _traced_entry(self, key, args, kwargs, static_pos, in_tree, avals):
        """``(entry, cached)``: the cached trace for ``key``, else a new one (cached when
        it closes over no traced value)."""
        state = self._state
        entry = state.traced.get(key)
        if entry is not None:
            return entry, True
        entry = self._trace(args, kwargs, static_pos, in_tree, avals)
        if any(isinstance(c, Tracer) for c in entry[1]):
            return entry, False
        state.traced[key] = entry
        return entry, True

    def _trace(self, args, kwargs, static_pos, in_tree, avals, alias=None):
        """``(jaxpr, consts, out tree, updated leaves)``; with ``alias`` (see ``_aliases``)
        the jaxpr takes only the first of the leaves that are one object."""
        def fun(*dyn_args, **dyn_kwargs):
            if self._in_shardings is not None:
                # under an outer grad or vmap the arguments are traced values: the
                # constraint lays them out (and their cotangents) as in_shardings says
                per_leaf = shardings_per_leaf(self._in_shardings, dyn_args, "in_shardings")
                leaves, tree = tree_util.tree_flatten(dyn_args)
                dyn_args = tree_util.tree_unflatten(tree, [
                    with_sharding_constraint(x, s) if isinstance(s, NamedSharding) else x
                    for x, s in zip(leaves, per_leaf)])
            it = iter(dyn_args)
            full = [args[i] if i in static_pos else next(it) for i in range(len(args))]
            kw = {k: (kwargs[k] if k in self.static_argnames else dyn_kwargs[k]) for k in kwargs}
            return self._body(*full, **kw)
        flat_fun, store = _flatten_fun(fun, in_tree)
        updated = []
        traced = _with_updated_args(flat_fun, updated)
        labels = self._arg_labels(args, kwargs, static_pos)
        if alias is not None:
            firsts = [i for i, j in enumerate(alias) if i == j]
            slot = {i: k for k, i in enumerate(firsts)}
            inner = traced

            def traced(*tracers):
                return inner(*[tracers[slot[j]] for j in alias])
            avals = [avals[i] for i in firsts]
            labels = [labels[i] for i in firsts]
        jaxpr, consts = pe.trace_to_jaxpr(traced, avals, _debug_info("jit", self.fun), labels)
        return jaxpr, consts, store[0], tuple(updated)

    def _arg_labels(self, args, kwargs, static_pos):
        """One ``ArgLabel`` per flat dynamic input, naming its argument."""
        labels = []
        for i, a in enumerate(args):
            if i in static_pos:
                continue
            name = self._positional[i] if i < len(self._positional) else None
            text = f"argument `{name}` (position {i})" if name else f"argument {i}"
            lab = pe.ArgLabel(text, i, name)
            labels.extend([lab] * len(tree_util.tree_leaves(a)))
        for k in sorted(kwargs):
            if k in self.static_argnames:
                continue
            lab = pe.ArgLabel(f"keyword argument `{k}`", None, k)
            labels.extend([lab] * len(tree_util.tree_leaves(kwargs[k])))
        return labels

    def clear_cache(self):
        """Drop the traced and compiled programs of this function (for every ``jit`` of
        it with these static arguments)."""
        self._state.clear()

    def lower(self, *args, **kwargs):
        """This function lowered for these arguments, as JAX's ``jit(f).lower``: a
        ``Lowered`` (``as_text()``, ``compile()``)."""
        return self.trace(*args, **kwargs).lower()

    def trace(self, *args, **kwargs):
        """This function traced for these arguments: a ``Traced`` (its ``jaxpr``) whose
        ``lower(lowering_platforms=("cuda",))`` lowers it for a platform, as JAX spells
        it (a platform this process has no device for included). The trace is the one
        a call with these arguments uses."""
        dyn_args, dyn_kwargs, static_pos, statics = self._split(args, kwargs)
        _, in_tree, avals, key = self._signature(dyn_args, dyn_kwargs, statics)
        entry, _ = self._traced_entry(key, args, kwargs, static_pos, in_tree, avals)
        return Traced(self, entry, args, kwargs, static_pos, in_tree, avals)


class Traced:
    """A jit-compiled function traced for some arguments (``Jitted.trace``): its
    ``jaxpr``, and ``lower()``."""

    def __init__(self, jitted, entry, args, kwargs, static_pos, in_tree, in_avals):
        self.jaxpr, _, self.out_tree, _ = entry
        self.in_tree = in_tree
        self._jitted = jitted
        self._in_avals = in_avals
        # the static arguments, put back around the dynamic ones a Compiled is called with
        self._static_args = {i: args[i] for i in static_pos}
        self._n_args = len(args)
        self._static_kwargs = {k: v for k, v in kwargs.items() if k in jitted.static_argnames}

    def lower(self, *, lowering_platforms=None):
        """Lower for one platform (``lowering_platforms=("cuda",)``; the default
        platform for None). Rules are chosen per platform, so no device of that
        platform is needed."""
        if lowering_platforms is None:
            return Lowered(lower_jaxpr(self.jaxpr), self, None)
        if isinstance(lowering_platforms, str) or len(lowering_platforms) != 1:
            raise ValueError(f"Traced.lower: lowering_platforms must be a tuple of one "
                             f"platform name, such as ('cuda',), got {lowering_platforms!r} "
                             f"(minijax lowers for one platform at a time)")
        platform, = lowering_platforms
        platform, *more = backend.expand_platform(platform, "Traced.lower")
        if more:
            raise ValueError(f"Traced.lower: {lowering_platforms[0]!r} names several "
                             f"platforms; name one of {platform!r}, "
                             f"{', '.join(repr(p) for p in more)}")
        return Lowered(lower_jaxpr(self.jaxpr, platform=platform), self, platform)


class Lowered:
    """A lowered program (``jit(f).lower(...)`` or ``Traced.lower``), as JAX's: its text
    (``as_text``), its IR (``compiler_ir``), and ``compile()``."""

    def __init__(self, text, traced, platform):
        self._text = text
        self._traced = traced
        self._platform = platform
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    def as_text(self, dialect=None):
        """The program's text: StableHLO (``dialect`` None or ``"stablehlo"``) or XLA's
        HLO (``"hlo"``)."""
        if _ir_dialect(dialect, "as_text") == "hlo":
            return self.compiler_ir("hlo").as_hlo_text()
        return self._text

    def compiler_ir(self, dialect=None):
        """The program as an MLIR module (StableHLO, the default) or as XLA's
        ``XlaComputation`` (``"hlo"``)."""
        if _ir_dialect(dialect, "compiler_ir") == "hlo":
            return backend.xla_computation(self._text)
        return backend.parse_module(self._text)

    def compile(self):
        """The program compiled by XLA for the default device: a ``Compiled``, called
        with the arguments the function was lowered for, less its static ones."""
        platform = backend.platform_of(backend.default_device())
        if self._platform is not None and self._platform != platform:
            raise ValueError(f"Lowered.compile: this program was lowered for "
                             f"{self._platform!r}, and the default device is {platform!r}; "
                             f"lower it without lowering_platforms to compile it here")
        return Compiled(self._traced)


def _ir_dialect(dialect, method):
    if dialect in (None, "stablehlo"):
        return "stablehlo"
    if dialect == "hlo":
        return "hlo"
    raise ValueError(f"Lowered.{method}: unknown dialect {dialect!r}; use 'stablehlo' (the "
                     f"default) or 'hlo'")


class Compiled:
    """A jit-compiled function compiled for the arguments it was lowered for
    (``Lowered.compile``), as JAX's: call it with those arguments less the static ones
    (the static ones are the lowering's); ``as_text``, ``cost_analysis`` and
    ``memory_analysis`` read XLA's executable."""

    def __init__(self, traced):
        self._traced = traced
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree
        jaxpr = traced.jaxpr
        # (a program with a mesh of its own is compiled for that mesh at its first call)
        self._executable = None if (
            dispatch.spmd_mesh(jaxpr) is not None
            or dispatch.constrained_placement(jaxpr) is not None) else \
            dispatch.compiled_jaxpr(jaxpr, backend.default_device(), False)

    def __call__(self, *args, **kwargs):
        t = self._traced
        jitted = t._jitted
        n = len(args) + len(t._static_args)
        dyn = iter(args)
        full = tuple(t._static_args[i] if i in t._static_args else next(dyn, None)
                     for i in range(n))
        extra = set(kwargs) & jitted.static_argnames
        if n != t._n_args or extra:
            raise TypeError(f"Compiled `{_fun_name(jitted.fun)}` takes the arguments it "
                            f"was lowered for less the static ones: "
                            f"{t._n_args - len(t._static_args)} positional, got {len(args)}"
                            + (f", and static keyword arguments {sorted(extra)}" if extra
                               else ""))
        kwargs = {**kwargs, **t._static_kwargs}
        dyn_args, dyn_kwargs, _, statics = jitted._split(full, kwargs)
        _, in_tree, avals, _ = jitted._signature(dyn_args, dyn_kwargs, statics)
        if in_tree != t.in_tree:
            raise TypeError(f"Compiled `{_fun_name(jitted.fun)}` was lowered for "
                            f"arguments of structure {t.in_tree}, and is called with "
                            f"{in_tree}")
        for i, (got, want) in enumerate(zip(avals, t._in_avals)):
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                raise TypeError(f"Argument types differ from the types for which "
                                f"`{_fun_name(jitted.fun)}` was compiled: leaf {i} is "
                                f"{got.str_short()}, compiled for {want.str_short()}")
        return jitted._call(full, kwargs)

    def _loaded(self, what):
        if self._executable is None:
            raise ValueError(f"Compiled.{what}: this program runs on the mesh of its "
                             f"shardings and is compiled for it at its first call")
        return self._executable.loaded

    def as_text(self):
        """XLA's optimized HLO of the program."""
        return self._loaded("as_text").hlo_modules()[0].to_string()

    def cost_analysis(self):
        """XLA's estimate of the program's cost (flops, bytes accessed, ...)."""
        return self._loaded("cost_analysis").cost_analysis()

    def memory_analysis(self):
        """XLA's sizes of the program's arguments, outputs, temporaries and code."""
        return self._loaded("memory_analysis").get_compiled_memory_stats()


def _array_tree_key(x, leaves):
    """A hashable key of ``x``'s structure and its leaves' avals (by identity; a Python
    scalar's by its type) when ``x`` is made of tuples, lists, dicts and None around
    uncommitted Arrays and Python scalars, appending the leaves to ``leaves`` in
    ``tree_flatten``'s order; None for anything else."""
    t = type(x)
    if t is Array:
        if x.committed():
            return None
        leaves.append(x)
        return id(x.aval)
    if t is float or t is int or t is bool or t is complex:
        leaves.append(x)
        return t
    if t is tuple or t is list:
        key = [t]
        for item in x:
            k = _array_tree_key(item, leaves)
            if k is None:
                return None
            key.append(k)
        return tuple(key)
    if t is dict:
        try:
            names = sorted(x)
        except TypeError:
            return None
        key = [dict, tuple(names)]
        for name in names:
            k = _array_tree_key(x[name], leaves)
            if k is None:
                return None
            key.append(k)
        return tuple(key)
    return () if x is None else None


def _direct_call(jaxpr, consts, out_tree, updated=(), who="jit"):
    exe = dispatch.compiled_jaxpr(jaxpr, backend.default_device(), False)
    if updated:
        # (on the fast path the arguments are the flat leaves)
        call = dispatch.uncommitted_caller(exe, consts)
        n = len(jaxpr.outs) - len(updated)
        single = tree_util.treedef_is_leaf(out_tree)

        def call_and_write_back(args):
            if len(args) > 1 and len({id(a) for a in args}) != len(args):
                raise _Aliased
            for i in updated:
                if read_only_leaf(args[i]):
                    check_writable(args, updated, who)
            outs = call(args)
            for i, v in zip(updated, outs[n:]):
                args[i]._replace_storage(v)
            return outs[0] if single else tree_util.tree_unflatten(out_tree, outs[:n])
        return call_and_write_back
    if tree_util.treedef_is_leaf(out_tree):
        return dispatch.uncommitted_caller(exe, consts, single=True)
    call = dispatch.uncommitted_caller(exe, consts)
    return lambda args: tree_util.tree_unflatten(out_tree, call(args))


def jit(fun=None, *, static_argnums=(), static_argnames=(), in_shardings=None,
        out_shardings=None, donate_argnums=(), donate_argnames=()):
    """Compile ``fun`` with XLA, once per input shapes/dtypes and static arguments.

    Usable as ``jit(f)``, ``@jit`` or ``@jit(static_argnums=...)``; on a method the
    instance is a static argument (it must be hashable).

    In-place updates of the arguments (``x[i] = v``, ``x += y``, ``out=x``, ``x.sort()``,
    ``x.fill(v)``, writes through views of ``x``) reach the caller's arrays after each
    call, as in NumPy: a minijax Array is updated through its in-place path (its views
    see the change), a writeable NumPy array by ``x[...] = value``, a traced argument of
    an enclosing transformation by rebinding it. A read-only argument (a read-only NumPy
    array, a broadcast view) raises NumPy's ``ValueError`` before the program runs.
    Python and NumPy scalars, and static arguments, are not written back (immutable).
    One array passed for two arguments is traced as one value, as NumPy sees one object;
    two different arrays sharing memory (a base and its view) are traced as independent
    values, written back in the program order of their last updates. A function that
    updates no argument pays nothing for this.

    ``in_shardings`` / ``out_shardings`` (a ``NamedSharding`` for all, or a pytree prefix
    of the positional arguments / of the result, None entries unspecified): arguments
    are moved to theirs before the call, results are constrained to theirs; XLA's SPMD
    partitioner compiles the program for the mesh.

    ``donate_argnums`` / ``donate_argnames``: those arguments' Arrays are given to the
    program, which may write a result of the same shape and dtype into their buffers;
    they are deleted after the call (``is_deleted()``; reading one raises). A donated
    Array that no result fits is kept, with JAX's warning "Some donated buffers were
    not usable". Donation applies to calls outside other transformations.
    """
    if fun is None:
        return lambda f: jit(f, static_argnums=static_argnums, static_argnames=static_argnames,
                             in_shardings=in_shardings, out_shardings=out_shardings,
                             donate_argnums=donate_argnums, donate_argnames=donate_argnames)
    return Jitted(fun, static_argnums, static_argnames, in_shardings, out_shardings,
                  donate_argnums, donate_argnames)


# ---------------------------------------------------------------- forward mode

@api_boundary
def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), J·tangents)``; ``primals`` and ``tangents`` are tuples of pytrees.

    A primal updated in place by ``fun`` gets its final value written back (see ``jit``)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp expects primals and tangents as tuples (or lists) of arguments, "
                        f"got {type(primals).__name__} and {type(tangents).__name__}")
    p_flat, in_tree = tree_util.tree_flatten((tuple(primals), {}))
    t_flat, t_tree = tree_util.tree_flatten((tuple(tangents), {}))
    t_flat = [_from_float0(p, t) for p, t in zip(p_flat, t_flat)]
    if tree_util.tree_structure(primals) != tree_util.tree_structure(tangents):
        raise errors.PyTreeStructureError(
            f"jvp: primals and tangents must have the same tree structure, got "
            f"{tree_util.tree_structure(primals)} and {tree_util.tree_structure(tangents)}")
    for p, t in zip(p_flat, t_flat):
        pa, ta = _check_leaf(p, "jvp primal"), _check_leaf(t, "jvp tangent")
        if pa.shape != ta.shape:
            raise ValueError(f"jvp: primal {pa.str_short()} and tangent {ta.str_short()} must "
                             f"have the same shape and dtype")
        if pa.dtype != ta.dtype and not isinstance(t, _VALID_SCALARS):
            raise errors.ArgumentMismatchError(
                f"jvp: primal {pa.str_short()} and tangent {ta.str_short()} must have the "
                f"same shape and dtype")
    t_flat = [_as_dtype(t, get_aval(p).dtype) for p, t in zip(p_flat, t_flat)]
    flat_fun, store = _flatten_fun(fun, in_tree)
    if has_aux:
        flat_fun, aux_store = _split_aux(flat_fun, store)
    updated = []
    p_out, t_out = ad.jvp_flat(flat_fun, p_flat, t_flat, _debug_info("jvp", fun), updated)
    write_back_updated(p_flat, updated, f"jvp of `{_fun_name(fun)}`")
    out_tree = store[0]
    if has_aux:
        n = out_tree.num_leaves
        aux = tree_util.tree_unflatten(aux_store[0], p_out[n:])
        p_out, t_out = p_out[:n], t_out[:n]
        return (tree_util.tree_unflatten(out_tree, p_out),
                tree_util.tree_unflatten(out_tree, t_out), aux)
    return tree_util.tree_unflatten(out_tree, p_out), tree_util.tree_unflatten(out_tree, t_out)


def _from_float0(primal, tangent):
    """A ``float0`` tangent (JAX's, of an integer or boolean primal) as zeros of the
    primal's dtype."""
    if getattr(tangent, "dtype", None) != dtypes.float0:
        return tangent
    aval = _check_leaf(primal, "jvp primal")
    if dtypes.is_inexact(aval.dtype):
        raise errors.ArgumentMismatchError(
            f"jvp: a float0 tangent is for an integer or boolean primal, got one for "
            f"{aval.str_short()}")
    if np.shape(tangent) != aval.shape:
        raise ValueError(f"jvp: primal {aval.str_short()} and float0 tangent of shape "
                         f"{np.shape(tangent)} must have the same shape")
    return np.zeros(aval.shape, aval.dtype)


def _to_float0(primal_aval, cotangent):
    """The cotangent of a primal: ``float0`` zeros for an integer or boolean one (JAX's)."""
    if dtypes.is_inexact(primal_aval.dtype):
        return cotangent
    return np.zeros(primal_aval.shape, dtypes.float0)


def _as_dtype(x, dtype):
    if isinstance(x, _VALID_SCALARS) or isinstance(x, np.ndarray):
        return _make(get_aval(np.asarray(x, dtype)), np.asarray(x, dtype))
    return x


def _split_aux(flat_fun, store):
    """For has_aux: the user function returns (out, aux); outputs become out + aux leaves."""
    aux_store = []

    def fun(*leaves):
        flat = flat_fun(*leaves)
        tree = store.pop()
        if tree.node_type is not tuple or len(tree.children) != 2:
            raise TypeError("a function used with has_aux=True must return a pair (output, aux)")
        out_tree, aux_tree = tree.children
        store.append(out_tree)
        aux_store.append(aux_tree)
        return flat
    return fun, aux_store


@api_boundary
def linearize(fun, *primals):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the linear map, staged.

    A primal updated in place by ``fun`` gets its final value written back (see ``jit``)."""
    p_flat, in_tree = tree_util.tree_flatten((primals, {}))
    for p in p_flat:
        _check_leaf(p, "linearize primal")
    flat_fun, store = _flatten_fun(fun, in_tree)
    updated = []
    out, jaxpr, consts = ad.linearize_flat(flat_fun, p_flat, _debug_info("linearize", fun),
                                           updated, _detached)
    write_back_updated(p_flat, updated, f"linearize of `{_fun_name(fun)}`")
    out_tree = store[0]

    def f_jvp(*tangents):
        t_flat, t_tree = tree_util.tree_flatten((tangents, {}))
        if t_tree != in_tree:
            raise TypeError(f"linearized function expects tangents of structure {in_tree}, "
                            f"got {t_tree}")
        return tree_util.tree_unflatten(out_tree, eval_jaxpr(jaxpr, [*consts, *t_flat]))
    return tree_util.tree_unflatten(out_tree, out), f_jvp


# ---------------------------------------------------------------- reverse mode

@api_boundary
def _flat_cotangent(ct, out_tree, out_avals, who):
    """The leaves of ``ct``, checked against the output's structure and shapes and cast
    to its dtypes."""
    ct_flat, ct_tree = tree_util.tree_flatten(ct)
    if ct_tree != out_tree:
        raise errors.PyTreeStructureError(f"{who}: the cotangent has structure {ct_tree}, the function's "
                        f"output has {out_tree}")
    for c, a in zip(ct_flat, out_avals):
        ca = _check_leaf(c, "cotangent")
        if ca.shape != a.shape:
            raise ValueError(f"{who}: cotangent of shape {ca.shape} for an output of "
                             f"shape {a.shape}")
    return [_as_dtype(c, a.dtype) for c, a in zip(ct_flat, out_avals)]


def vjp(fun, *primals, has_aux=False):
    """``(fun(*primals), f_vjp)`` where ``f_vjp(cotangent)`` returns a tuple of
    cotangents, one per primal. A primal updated in place by ``fun`` gets its final
    value written back (see ``jit``); calling ``f_vjp`` writes nothing."""
    p_flat, in_tree = tree_util.tree_flatten((primals, {}))
    p_avals = [_check_leaf(p, "vjp primal") for p in p_flat]
    flat_fun, store = _flatten_fun(fun, in_tree)
    if has_aux:
        flat_fun, aux_store = _split_aux(flat_fun, store)
    updated = []
    out, f_vjp_flat = ad.vjp_flat(flat_fun, p_flat, _debug_info("vjp", fun), updated,
                                  _detached)
    write_back_updated(p_flat, updated, f"vjp of `{_fun_name(fun)}`")
    out_tree = store[0]
    n = out_tree.num_leaves
    out_avals = [get_aval(o) for o in out[:n]]
    n_aux = len(out) - n

    def f_vjp(ct):
        ct_flat = _flat_cotangent(ct, out_tree, out_avals, "vjp function")
        cts_in = f_vjp_flat(ct_flat + [None] * n_aux)
        cts_in = [_to_float0(a, c) for a, c in zip(p_avals, cts_in)]
        args, _ = tree_util.tree_unflatten(in_tree, cts_in)
        return args
    primal_out = tree_util.tree_unflatten(out_tree, out[:n])
    if has_aux:
        return primal_out, f_vjp, tree_util.tree_unflatten(aux_store[0], out[n:])
    return primal_out, f_vjp


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """A function returning ``(fun(*args), gradient)``; ``fun`` must return a real scalar
    (with ``holomorphic=True``: complex inputs and a complex scalar, whose complex
    derivative is returned). With ``allow_int=True`` integer and boolean arguments may be
    differentiated too: their gradient is ``float0`` zeros (as JAX's).

    The differentiated arguments that ``fun`` updates in place get their final (primal)
    values written back, as an eager call would leave them (see ``jit``). The other
    arguments are not traced: an update of one by a value that does not depend on the
    differentiated arguments happens eagerly; by a value that does, ``y[key] = v`` raises
    ``MinijaxTypeError`` (an array cannot turn into a traced value in place) and
    ``y += v`` binds the local name to the new value, leaving the caller's array as it
    was."""
    single = hasattr(argnums, "__index__") and not isinstance(argnums, bool)
    nums = _checks.argnums(argnums, "grad: argnums", allow_empty=False)
    holomorphic = _checks.flag(holomorphic, "holomorphic")
    allow_int = _checks.flag(allow_int, "allow_int")

    @api_boundary
    @functools.wraps(fun, updated=())
    def value_and_grad_fun(*args, **kwargs):
        for i in nums:
            if not -len(args) <= i < len(args):
                raise errors.ArgumentMismatchError(f"argnums {argnums} refers to argument {i}, but "
                                 f"{_fun_name(fun)} was called with {len(args)} positional "
                                 f"arguments")
        requested = [i % len(args) for i in nums]
        idx = list(dict.fromkeys(requested))   # each argument differentiated once
        for i in idx:
            for leaf in tree_util.tree_leaves(args[i]):
                aval = _check_leaf(leaf, "grad argument")
                if holomorphic and not dtypes.is_complex(aval.dtype):
                    raise TypeError(f"grad with holomorphic=True requires inputs with complex "
                                    f"dtype, but argument {i} has dtype {aval.dtype.name}")
                if not dtypes.is_inexact(aval.dtype) and not (
                        allow_int and aval.dtype.kind in "biu"):
                    raise TypeError(f"grad requires floating-point (or complex) inputs, but "
                                    f"argument {i} has dtype {aval.dtype.name}; convert it, "
                                    f"for example with x.astype(float), or pass "
                                    f"allow_int=True for a float0 gradient")

        def partial_fun(*diff_args):
            full = list(args)
            for i, a in zip(idx, diff_args):
                full[i] = a
            return fun(*full, **kwargs)
        res = vjp(partial_fun, *[args[i] for i in idx], has_aux=has_aux)
        ans, f_vjp = res[0], res[1]
        aval = _check_leaf(ans, "grad output") if not isinstance(ans, (tuple, list, dict)) else None
        if aval is None or aval.shape != ():
            shape = "a pytree" if aval is None else f"shape {aval.shape}"
            raise TypeError(f"grad requires a function returning a scalar, but "
                            f"{_fun_name(fun)} returned {shape}; reduce it (e.g. .sum()) or "
                            f"use vjp/jacrev")
        if not dtypes.is_inexact(aval.dtype):
            raise errors.NonDifferentiableOutputError(
                f"grad requires a floating-point output, but {_fun_name(fun)} returned "
                f"{aval.str_short()}: a boolean or integer value (a comparison, "
                f"allclose, argmax, ...) has no derivative. Return a float (for example the "
                f"quantity you compared), or use stop_gradient where a constant is meant.")
        if holomorphic and not dtypes.is_complex(aval.dtype):
            raise TypeError(f"grad with holomorphic=True requires outputs with complex dtype, "
                            f"but {_fun_name(fun)} returned {aval.str_short()}")
        if dtypes.is_complex(aval.dtype) and not holomorphic:
            raise TypeError(f"grad requires real-valued outputs, but {_fun_name(fun)} "
                            f"returned {aval.str_short()}. For holomorphic differentiation, "
                            f"pass holomorphic=True; for a non-holomorphic function with "
                            f"complex outputs, use vjp directly.")
        g = f_vjp(_make(aval.strip_weak_type(), np.ones((), aval.dtype)))
        g = g[0] if single else tuple(g[idx.index(i)] for i in requested)
        if has_aux:
            return (ans, res[2]), g
        return ans, g
    return value_and_grad_fun


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The gradient of scalar-valued ``fun`` with respect to argument(s) ``argnums``
    (``holomorphic=True``: the complex derivative of a holomorphic ``fun``;
    ``allow_int=True``: integer arguments get ``float0`` zeros).

    In-place updates of the differentiated arguments are written back to the caller's
    arrays, as in ``value_and_grad``."""
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @api_boundary
    @functools.wraps(fun, updated=())
    def grad_fun(*args, **kwargs):
        (value, g) = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return grad_fun


# ---------------------------------------------------------------- vmap

def _axes_for_leaves(axes, tree, what):
    """Broadcast a pytree prefix of axes (ints/None) to the leaves of ``tree``."""
    for ax in tree_util.tree_leaves(axes, is_leaf=lambda x: x is None):
        if ax is not None and not isinstance(ax, int):
            raise TypeError(f"vmap {what} entries must be int or None, got {ax!r}")
    try:
        return tree_util.prefix_per_leaf(axes, tree, is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(f"vmap {what} {axes!r} does not match the structure of the "
                         f"arguments: {e}") from None


def vmap(fun, in_axes=0, out_axes=0, axis_size=None, *, axis_name=None,
         spmd_axis_name=None):
    """Map ``fun`` over an array axis, vectorized: ``in_axes``/``out_axes`` are ints,
    None, or pytree prefixes of the arguments/outputs.

    A mapped argument that ``fun`` updates in place gets the batched final value
    written back (its batch axis at its ``in_axes`` position), as a loop over the
    elements updating each in place would leave it (see ``jit``). An unmapped argument
    (``in_axes`` None) is not traced: an update of it by an unbatched value happens
    eagerly (once, not once per element); by a batched value, ``y[key] = v`` raises
    ``MinijaxTypeError`` and ``y += v`` binds the local name only. One array passed for two arguments mapped along the same
    axis is traced as one value, as NumPy sees one object."""
    if spmd_axis_name is not None:
        raise NotImplementedError("vmap: spmd_axis_name is not supported; leave it None")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)

    @api_boundary
    @functools.wraps(fun, updated=())
    def vmapped(*args, **kwargs):
        axes = in_axes
        if isinstance(axes, tuple) and len(axes) != len(args):
            raise ValueError(f"vmap in_axes has {len(axes)} entries but "
                             f"{_fun_name(fun)} was called with {len(args)} positional "
                             f"arguments")
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        dims = _axes_for_leaves((axes, 0), (args, kwargs), "in_axes")
        sizes = set()
        norm = []
        for x, d in zip(leaves, dims):
            aval = _check_leaf(x, "vmap argument")
            if d is not None:
                if not -aval.ndim <= d < aval.ndim:
                    raise ValueError(f"vmap in_axes {d} is out of range for an argument of "
                                     f"shape {aval.shape}")
                d %= aval.ndim
                sizes.add(aval.shape[d])
            norm.append(d)
        if axis_size is not None:
            sizes.add(axis_size)
        if len(sizes) > 1:
            raise ValueError(f"vmap got inconsistent sizes for the mapped axes: "
                             f"{sorted(sizes)}; every mapped argument must have the same "
                             f"size along its in_axes")
        if not sizes:
            raise ValueError("vmap needs at least one mapped argument (in_axes not None) "
                             "or an explicit axis_size")
        size = sizes.pop()
        flat_fun, store = _flatten_fun(fun, in_tree)
        if axis_name is not None:   # collectives over axis_name act on the batch axis
            flat_fun = _with_vmap_axis(flat_fun, axis_name, size)

        def out_dims(n):
            fake = tree_util.tree_unflatten(store[0], [0] * n)
            return _axes_for_leaves(out_axes, fake, "out_axes")
        updated = []
        arrays = [dispatch.as_array(x) for x in leaves]
        alias = _aliases(leaves)
        if alias is not None:   # one NumPy array given twice stays one object
            arrays = [arrays[j] for j in alias]
        outs = batching.vmap_flat(flat_fun, size, arrays, norm, out_dims,
                                  _debug_info("vmap", fun), updated)
        write_back_updated(leaves, updated, f"vmap of `{_fun_name(fun)}`")
        return tree_util.tree_unflatten(store[0], outs)
    return vmapped


def _with_vmap_axis(flat_fun, axis_name, size):
    def fun(*tracers):
        trace = next((t._trace for t in tracers if isinstance(t, batching.BatchTracer)), None)
        if trace is None:
            raise NotImplementedError("vmap with axis_name needs a mapped argument")
        with parallel.vmap_axis_frame(axis_name, size, trace):
            return flat_fun(*tracers)
    return fun


# ---------------------------------------------------------------- make_jaxpr

def make_jaxpr(fun, static_argnums=()):
    """A function returning the ``ClosedJaxpr`` of ``fun`` at the given arguments.

    It only traces ``fun``: in-place updates of the arguments are not written back."""
    static_argnums = _checks.argnums(static_argnums, "make_jaxpr: static_argnums")

    @api_boundary
    @functools.wraps(fun, updated=())
    def make(*args, **kwargs):
        static = {i % len(args) for i in static_argnums}
        dyn = tuple(a for i, a in enumerate(args) if i not in static)
        leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
        avals = [_check_leaf(x, "make_jaxpr argument") for x in leaves]

        def f(*dyn_args, **kw):
            it = iter(dyn_args)
            return fun(*[args[i] if i in static else next(it) for i in range(len(args))], **kw)
        flat_fun, _ = _flatten_fun(f, in_tree)
        jaxpr, consts = pe.trace_to_jaxpr(flat_fun, avals, _debug_info("make_jaxpr", fun))
        jaxpr.num_consts = len(consts)   # a fresh jaxpr: constvars/invars as in JAX
        return ClosedJaxpr(jaxpr, consts)
    return make


# ---------------------------------------------------------------- devices

def _platform_name(backend, what):
    # JAX's functions take a platform name or a backend (a client); minijax takes names
    if backend is None or isinstance(backend, str):
        return backend
    platform = getattr(backend, "platform", None)
    if isinstance(platform, str):
        return "cuda" if platform == "gpu" else platform
    raise TypeError(f"{what}: backend must be a platform name such as 'cpu' or 'cuda' (or "
                    f"None for the default platform), got {backend!r}")


def devices(backend=None):
    """The devices of platform ``backend`` (``"cpu"``, ``"cuda"``/``"gpu"``; None: the
    default platform's). A platform that cannot start raises
    ``PlatformUnavailableError`` saying what to install."""
    return _backends.devices(_platform_name(backend, "devices"))


def local_devices(process_index=None, backend=None, host_id=None):
    """The devices of process ``process_index`` (this one by default) on platform
    ``backend``."""
    if host_id is not None:
        process_index = host_id
    platform = _platform_name(backend, "local_devices")
    if process_index is None:
        return _backends.local_devices(platform)
    if not 0 <= operator.index(process_index) < process_count():
        raise ValueError(f"local_devices: process_index={process_index!r} is not one of "
                         f"the {process_count()} process indices 0..{process_count() - 1}")
    return [d for d in _backends.devices(platform) if d.process_index == process_index]


def device_count(backend=None):
    """The number of devices of platform ``backend`` (None: the default platform)."""
    return len(_backends.devices(_platform_name(backend, "device_count")))


def local_device_count(backend=None):
    """The number of this process's devices of platform ``backend``."""
    return len(local_devices(backend=backend))


def default_backend():
    """The platform name of the default device, as JAX spells it (``"cpu"``, ``"gpu"``
    for CUDA)."""
    return _backends.default_device().platform


def process_count():
    """The number of processes of the computation (``minijax.distributed``; 1 alone)."""
    return _backends.process_count()


def process_index():
    """This process's index among ``process_count()`` processes."""
    return _backends.process_index()


def process_indices():
    """The indices of all processes."""
    return list(range(process_count()))


def print_environment_info(return_string=False):
    """Print (or return) the versions of minijax, jaxlib, NumPy and Python, and the
    platform and devices, for bug reports."""
    from . import __version__   # deferred: the package imports this module
    devs = backend.devices()
    text = (f"minijax:    {__version__}\n"
            f"jaxlib:     {backend.jaxlib_version}\n"
            f"numpy:      {np.__version__}\n"
            f"python:     {sys.version.replace(chr(10), ' ')}\n"
            f"device info: {default_backend()}-{len(devs)}, {len(devs)} local devices\n"
            f"process_count: {process_count()}\n"
            f"platform: {platform.uname()}\n")
    if return_string:
        return text
    print(text, end="")
    return None


def device_put(x, device=None):
    """Copy a pytree of arrays to ``device`` (committed), or make Arrays of it on the
    default device (uncommitted) when ``device`` is None."""
    placement = None if device is None else resolve_placement(device, "device_put")

    def put(leaf):
        if device is None and isinstance(leaf, (Array, np.ndarray, np.generic)) and \
                is_non_numeric(leaf.dtype):
            return leaf if type(leaf) is Array else numpy_dispatch.wrap(np.array(leaf))
        try:
            arr = dispatch.as_array(leaf) if not isinstance(leaf, Array) else leaf
            if isinstance(arr, Tracer):
                return arr
            if placement is None:
                return arr
            return arr._put(placement, "device_put")
        except errors.NonNumericDtypeError as e:
            raise e.named(f"device_put to {placement._device or placement}") from None
    return tree_util.tree_map(put, x)


def block_until_ready(x):
    """Wait for every array in the pytree ``x``; returns ``x``."""
    if type(x) is Array:
        return x.block_until_ready()
    if (type(x) is list or type(x) is tuple) and wait_for_arrays(x, tree_util.node_types):
        return x
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x


def device_get(x):
    """A pytree with every array replaced by a NumPy array on the host."""
    def get(leaf):
        if isinstance(leaf, Tracer):
            raise errors.TracerArrayConversionError(
                f"device_get of a traced value ({leaf.aval.str_short()}): its value is not "
                f"known while the function is being transformed; return it from the "
                f"transformed function and call device_get on the result")
        return np.asarray(leaf) if isinstance(leaf, Array) else leaf
    return tree_util.tree_map(get, x)


# ---------------------------------------------------------------- shapes without computing

class ShapeDtypeStruct:
    """A stand-in for an array with only a shape and a dtype (input to and output of
    ``eval_shape``)."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtypes.canonicalize(np.dtype(dtype))
        self.weak_type = weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    @property
    def aval(self):
        return ShapedArray(self.shape, self.dtype, self.weak_type)

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other):
        return (type(other) is ShapeDtypeStruct and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


@api_boundary
def eval_shape(fun, *args, **kwargs):
    """The shapes and dtypes of ``fun(*args, **kwargs)`` as a pytree of
    ``ShapeDtypeStruct``, found by tracing without computing anything. Arguments may
    be arrays or ``ShapeDtypeStruct``s; in-place updates of them are not written back."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    avals = [x.aval if isinstance(x, ShapeDtypeStruct) else _check_leaf(x, "eval_shape argument")
             for x in leaves]
    flat_fun, store = _flatten_fun(fun, in_tree)
    jaxpr, _ = pe.trace_to_jaxpr(flat_fun, avals, _debug_info("eval_shape", fun))
    outs = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in jaxpr.out_avals]
    return tree_util.tree_unflatten(store[0], outs)


# ---------------------------------------------------------------- transposition

def linear_transpose(fun, *primals):
    """The transpose of linear ``fun``: ``f_t(cotangent) -> tuple`` of input cotangents.

    ``primals`` give the input shapes and dtypes (their values are not used).
    """
    leaves, in_tree = tree_util.tree_flatten((primals, {}))
    avals = [x.aval if isinstance(x, ShapeDtypeStruct) else _check_leaf(x, "linear_transpose "
             "argument") for x in leaves]
    for a in avals:
        if not dtypes.is_inexact(a.dtype):
            raise TypeError(f"linear_transpose requires floating-point inputs, got "
                            f"{a.dtype.name}")
    flat_fun, store = _flatten_fun(fun, in_tree)
    jaxpr, consts = pe.trace_to_jaxpr(flat_fun, avals, _debug_info("linear_transpose", fun))
    out_tree = store[0]
    out_avals = jaxpr.out_avals

    def transposed(ct):
        ct_flat = _flat_cotangent(ct, out_tree, out_avals, "linear_transpose")
        undefs = [ad.UndefPrimal(a.strip_weak_type()) for a in avals]
        try:
            cts = ad.backward_pass(jaxpr, list(consts) + undefs, ct_flat)
        except NotImplementedError as e:
            raise TypeError(f"linear_transpose: `{_fun_name(fun)}` is not linear in its "
                            f"inputs ({e})") from None
        cts = [ad.instantiate(c) for c in cts]
        args, _ = tree_util.tree_unflatten(in_tree, cts)
        return args
    return transposed


def _local_indices(sharding, shape):
    """``[(device, index)]`` of this process's devices, in the mesh's flat order."""
    return list(sharding.addressable_devices_indices_map(shape).items())


def _from_local_pieces(shape, sharding, pieces, dtype=None):
    """An Array of ``shape`` from one host ndarray per device of this process."""
    pieces = [np.asarray(p, dtype) for p in pieces]
    dtype = dtypes.canonicalize(pieces[0].dtype) if dtype is None else \
        dtypes.canonicalize(np.dtype(dtype))
    pieces = [p.astype(dtype, copy=False) for p in pieces]
    aval = ShapedArray(shape, dtype)
    shard_shape = sharding.shard_shape(shape)
    for p in pieces:
        if p.shape != shard_shape:
            raise errors.ShardingError(f"a piece of shape {p.shape} for an array of shape "
                                       f"{shape} under {sharding!r}, whose shards are "
                                       f"{shard_shape}")
    return _make(aval, None, put_local_pieces(pieces, sharding, aval), sharding)


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """An Array of ``shape`` laid out as ``sharding``, each of this process's devices'
    piece being ``data_callback(index)`` (``index``: a tuple of slices into the global
    array)."""
    shape = tuple(shape)
    if not isinstance(sharding, NamedSharding):
        index = tuple(slice(None) for _ in shape)
        return device_put(np.asarray(data_callback(index), dtype), sharding)
    pieces = {}
    for _, index in _local_indices(sharding, shape):
        key = tuple((s.start, s.stop) for s in index)
        if key not in pieces:
            pieces[key] = np.asarray(data_callback(index), dtype)
    return _from_local_pieces(shape, sharding, [
        pieces[tuple((s.start, s.stop) for s in index)]
        for _, index in _local_indices(sharding, shape)], dtype)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None):
    """An Array of ``shape`` laid out as ``sharding`` from one Array per device of this
    process (each committed to its device, of its shard's shape, in any order)."""
    shape = tuple(shape)
    if not isinstance(sharding, NamedSharding):
        arr, = arrays
        return device_put(arr, sharding)
    by_device = {}
    for a in arrays:
        if not isinstance(a, Array) or not a.committed() or len(a.devices()) != 1:
            raise errors.ShardingError("make_array_from_single_device_arrays: every array "
                                       "must be a minijax Array committed to one device")
        by_device[next(iter(a.devices()))] = a
    local = _local_indices(sharding, shape)
    if set(by_device) != {d for d, _ in local}:
        raise errors.ShardingError(f"make_array_from_single_device_arrays: got arrays on "
                                   f"{sorted(d.id for d in by_device)}, the sharding's "
                                   f"devices in this process are "
                                   f"{sorted(d.id for d, _ in local)}")
    shard_shape = sharding.shard_shape(shape)
    for device, _ in local:
        if by_device[device].shape != shard_shape:
            raise errors.ShardingError(f"make_array_from_single_device_arrays: the array "
                                       f"on {device} has shape {by_device[device].shape}, "
                                       f"the shard shape of {shape} under {sharding!r} is "
                                       f"{shard_shape}")
    return _from_local_pieces(shape, sharding, [by_device[d]._value() for d, _ in local],
                              dtype)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """An Array split as ``sharding`` over the devices of every process, from this
    process's part ``local_data`` (JAX's rules: along a dimension where
    ``global_shape`` equals ``local_data``'s size, the data is the whole dimension,
    the same in every process; elsewhere it is this process's contiguous block of it).
    ``global_shape`` None: inferred from how many blocks each dimension has."""
    local_data = np.asarray(local_data)
    if not isinstance(sharding, NamedSharding):
        return device_put(local_data, sharding)
    ndim = local_data.ndim
    tiles = sharding._tiles(ndim)
    local = _local_indices(sharding, tuple(n * t for n, t in zip(local_data.shape, tiles)))
    if not local:
        raise errors.ShardingError(f"make_array_from_process_local_data: {sharding!r} has "
                                   f"no device of this process (process "
                                   f"{process_index()})")
    if global_shape is None:
        blocks = [len({idx[d].start for _, idx in local}) for d in range(ndim)]
        global_shape = tuple(n * t // b for n, t, b in zip(local_data.shape, tiles, blocks))
    global_shape = tuple(int(n) for n in global_shape)
    if len(global_shape) != ndim:
        raise errors.ShardingError(f"make_array_from_process_local_data: global_shape "
                                   f"{global_shape} has {len(global_shape)} dimensions, the "
                                   f"local data {ndim}")
    local = _local_indices(sharding, global_shape)
    pieces = []
    starts = [min(idx[d].start or 0 for _, idx in local) for d in range(ndim)]
    stops = [max(n if idx[d].stop is None else idx[d].stop for _, idx in local)
             for d, n in enumerate(global_shape)]
    for d, n in enumerate(global_shape):
        if local_data.shape[d] not in (n, stops[d] - starts[d]):
            raise errors.ShardingError(
                f"make_array_from_process_local_data: dimension {d} of the local data has "
                f"size {local_data.shape[d]}; this process's devices hold "
                f"[{starts[d]}:{stops[d]}] of the global size {n} under {sharding!r}, so "
                f"it must be {stops[d] - starts[d]} (this process's block) or {n} (all)")
    for _, index in local:
        pieces.append(local_data[tuple(
            s if local_data.shape[d] == global_shape[d] else
            slice((s.start or 0) - starts[d], (global_shape[d] if s.stop is None else s.stop)
                  - starts[d])
            for d, s in enumerate(index))])
    return _from_local_pieces(global_shape, sharding, pieces)
