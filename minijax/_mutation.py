"""In-place updates where a transformation looks (DESIGN 5): a traced value rebound to
its updated value, a traced view read again from its base and written back into it,
updates inside control-flow bodies recorded for the caller, and the final values of
updated arguments written back into the caller's arrays.

Layer: above ``core``, ``interpreters.partial_eval`` and ``runtime.array`` (it rebinds
tracers, records body updates with partial evaluation, and assigns Arrays), below
``lax``, ``numpy`` and ``api``, which call it. Indexing is the numpy layer's: reading a
view from its base and writing it back are installed by ``numpy/_indexing.py``
(``set_view_indexing``).
"""

import numpy as np

from .core import Tracer, get_aval
from .core.trace import full_raise, set_view_refresh
from .errors import MinijaxTypeError, UnsupportedInPlaceUpdateError
from .interpreters import ad, batching
from .interpreters import partial_eval as pe
from .runtime.array import Array, snapshot

_read_view = None    # (base, key) -> base[key]
_write_view = None   # (base, key, value) -> base with base[key] = value (a new value)


def set_view_indexing(read, write):
    """Install basic indexing for views: ``read(base, key)`` and ``write(base, key,
    value)``, the updated base (done by ``numpy/_indexing.py``)."""
    global _read_view, _write_view
    _read_view, _write_view = read, write


class Derived:
    """The link of a traced view that NumPy makes without indexing (``.T``,
    ``transpose``, ``reshape`` of a root, ``squeeze``): ``read(base)`` is the view's
    value and ``write(base, value)`` the base with the view's elements replaced."""

    __slots__ = ("read", "write")

    def __init__(self, read, write):
        self.read, self.write = read, write


def read_view(base, key):
    """The current value of the view of ``base`` that ``key`` (an index or a
    ``Derived``) makes."""
    return key.read(base) if type(key) is Derived else _read_view(base, key)


def _written(base, key, value):
    return key.write(base, value) if type(key) is Derived else _write_view(base, key, value)


def derived_view(out, base, read, write):
    """``out``, which ``read(base)`` made, recorded as a view of traced ``base`` (see
    ``Derived``); a constant ``base`` or an ``out`` that is ``base`` is left alone."""
    if isinstance(base, Tracer) and isinstance(out, Tracer) and out is not base:
        out._view_of = (base, Derived(read, write), getattr(base, "_stamp", 0))
    return out


def _read_only(base, value):
    raise ValueError("assignment destination is read-only")


def read_only_view(out, base, read):
    """``out`` recorded as a view of traced ``base`` that NumPy makes read-only
    (``diagonal``, ``imag`` of a real array): writing into it raises NumPy's error."""
    return derived_view(out, base, read, _read_only)


def new_object(x):
    """A distinct array object holding ``x``'s value, so that an in-place update of
    either leaves the other as it was (values are immutable: nothing is copied)."""
    if isinstance(x, Tracer):
        out = object.__new__(type(x))
        out._trace = x._trace
        out._rebind(x)
        return out
    return snapshot(x)


# ---------------------------------------------------------------- traced values

def refresh(view):
    """Before an in-place update of a traced view, read it again from its base, which
    may have been updated since the view was made (as a NumPy view would see)."""
    link = getattr(view, "_view_of", None)
    if link is not None:
        base, key = link[0], link[1]
        refresh(base)
        current = read_view(base, key)
        if get_aval(current).shape != view.aval.shape:
            view._view_of = None   # the base changed shape (resize): no longer its view
            return
        if not isinstance(current, Tracer) or current._trace.main.level < view._trace.main.level:
            current = full_raise(view._trace, current)   # (a value constant to view's trace)
        if type(current) is type(view) and current._trace.main is view._trace.main:
            # (this stamps the view too: views of it see that it changed; a view is
            # never an argument tracer, so no argument looks updated by a re-read)
            view._rebind(current)
            view._view_of = (base, key, getattr(base, "_stamp", 0))


def _stale(view):
    """Whether the base of traced view ``view`` (or of a view it is a view of) was
    updated in place after ``view`` was last read from it."""
    base, _, stamp = view._view_of
    if getattr(base, "_stamp", 0) != stamp:
        return True
    return getattr(base, "_view_of", None) is not None and _stale(base)


def refresh_if_stale(view):
    """Read a traced view again if its base was updated since (a NumPy view always
    shows its base's current values); called on every view a primitive reads."""
    if _stale(view):
        refresh(view)


set_view_refresh(refresh_if_stale)


def write_back(view, what):
    """After ``view`` (a traced basic-indexing view) was updated in place, update its
    base to match, as a write through a NumPy view would (recursively for views of
    views)."""
    link = getattr(view, "_view_of", None)
    if link is not None:
        base, key = link[0], link[1]
        rebind_or_raise(base, _written(base, key, view), what)
        if view._view_of is link:   # the view and its updated base agree
            view._view_of = (base, key, getattr(base, "_stamp", 0))


def capture_in_body(self, result, what):
    """When ``self`` comes from outside the control-flow body or custom-derivative
    function being traced and ``result`` is its updated value there, record the update
    for the caller to write back (DESIGN 5; a traced view's base is updated too)."""
    if type(self) is Array and self._is_view() and type(result) is not Array:
        if isinstance(result, pe.JaxprTracer) and result._trace.main.payload.capture:
            raise UnsupportedInPlaceUpdateError(
                f"{what}: a view of an array from outside a lax control-flow body or a "
                f"custom_jvp/custom_vjp function is updated in place inside it; minijax "
                f"writes back updates of whole arrays only. Update the base array "
                f"itself (base[i, j] = v) or return the updated values from the body.")
        return False
    if not pe.capture_update(self, result):
        return False
    link = getattr(self, "_view_of", None) if isinstance(self, Tracer) else None
    if link is not None:
        base, key = link[0], link[1]
        rebind_or_raise(base, _written(base, key, result), what)
    return True


def _kept_in_trace(t):
    """The traced value ``t``, in a form that does not lower out of its trace when read.

    A value that the transformation does not change (the same for every element under
    vmap, a zero tangent, a known value while linearizing) is read as the plain value it
    holds; a view made of it would then be a plain array, cut off from the base it must
    write into. An array rebound in place keeps the traced form instead."""
    kind = type(t)
    if kind is batching.BatchTracer and t.batch_dim is batching.not_mapped:
        val = batching.move_axis_to(t._trace.axis_size, t.val, batching.not_mapped, 0)
        return kind(t._trace, val, 0)
    if kind is ad.JVPTracer and type(t.tangent) is ad.Zero:
        return kind(t._trace, t.primal, ad.instantiate(t.tangent))
    if kind is pe.PartialEvalTracer and t.pval.is_known:
        return t._trace.instantiate_const(t)
    return t


def rebind_or_raise(self, result, what):
    """Rebind ``self`` to ``result`` (in-place update sugar, DESIGN 5) when it can hold it."""
    if type(self) is Array and type(result) is Array:
        self._assign(result)   # writes through views into the base (DESIGN 5)
        return
    if capture_in_body(self, result, what):
        return
    if isinstance(self, Tracer) and (not isinstance(result, Tracer) or
                                     result._trace.main.level < self._trace.main.level):
        # the new value does not depend on this transformation (e.g. a whole view
        # overwritten by a constant): it joins self's trace
        result = full_raise(self._trace, result)
    if isinstance(result, Tracer):
        result = _kept_in_trace(result)
    if type(result) is type(self) and (not isinstance(self, Tracer)
                                       or result._trace.main is self._trace.main):
        self._rebind(result)
        write_back(self, what)
        return
    holder = ("a concrete Array" if isinstance(self, Array) else
              f"traced by an outer transformation ({type(self).__name__})")
    raise MinijaxTypeError(
        f"{what}: the array being updated is {holder} but its new value is traced by an "
        f"inner transformation ({type(result).__name__}, e.g. grad or vmap), and an array "
        f"cannot turn into such a traced value in place. Build the array from the traced "
        f"values (for example zeros_like of a traced argument), or write "
        f"x = x.at[key].set(value) instead.")


# ---------------------------------------------------------------- write-back of arguments

def read_only_leaf(x):
    """Whether the argument leaf ``x`` cannot be updated in place (NumPy would raise)."""
    if type(x) is Array:
        return x._view_is_read_only()   # (an Array owning its buffer is writable)
    return isinstance(x, np.ndarray) and not x.flags.writeable


def check_writable(leaves, updated, who):
    """Raise NumPy's error, before anything runs, when an argument the function updates
    in place is read-only."""
    for i in updated:
        if read_only_leaf(leaves[i]):
            x = leaves[i]
            raise ValueError(
                f"assignment destination is read-only: {who} updates an argument of shape "
                f"{tuple(x.shape)} in place (x[...] = v, x += y, out=x, x.sort(), ...), but "
                f"the array passed is read-only (a read-only NumPy array or a broadcast "
                f"view); pass a writeable copy, for example numpy.array(x)")


def write_back_values(leaves, updated, values, who):
    """Write the final values of the arguments a transformed function updated in place
    into the caller's arrays (DESIGN 5): a minijax Array through its in-place path (its
    views see the update, copy-on-write holds), a NumPy array by ``x[...] = value``, a
    traced argument (a transformation around this one) by rebinding. Python and NumPy
    scalars are immutable: nothing is written, as in NumPy."""
    for i, v in zip(updated, values):
        x = leaves[i]
        if type(x) is Array and type(v) is Array:
            x._replace_storage(v)
        elif isinstance(x, (Array, Tracer)):
            rebind_or_raise(x, v, who)
        elif isinstance(x, np.ndarray):
            v = np.asarray(v)
            if v.shape != x.shape:   # (resized: NumPy's resize would need refcheck)
                raise ValueError(f"{who}: the function resized its NumPy array argument "
                                 f"of shape {x.shape} to {v.shape} in place, which minijax "
                                 f"cannot do to a NumPy array; pass a minijax array "
                                 f"(minijax.numpy.asarray(x)), or resize outside it")
            x[...] = v


def write_back_updated(leaves, updated, who):
    """``write_back_values`` for the ``(position, final value)`` pairs a transformation found
    (``updated``); read-only targets raise before anything is written."""
    if updated:
        positions = [i for i, _ in updated]
        check_writable(leaves, positions, who)
        write_back_values(leaves, positions, [v for _, v in updated], who)
