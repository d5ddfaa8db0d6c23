"""Small helpers shared by the interpreters and the runtime: list splitting and
merging, axis normalisation, a bounded LRU cache, public names for pickle."""

import collections
import sys

from . import _checks


def split_list(lst, *sizes):
    """``lst`` cut into consecutive groups of the given sizes, then the rest:
    ``split_list(lst, n)`` is ``[lst[:n], lst[n:]]``."""
    out, start = [], 0
    for n in sizes:
        out.append(list(lst[start:start + n]))
        start += n
    out.append(list(lst[start:]))
    return out


def split_half(lst):
    n = len(lst)
    if n % 2:
        raise ValueError("split_half of an odd-length list")
    return split_list(lst, n // 2)


def partition_list(which, lst):
    """Split ``lst`` into (items where ``which`` is False, items where it is True)."""
    false, true = [], []
    for w, x in zip(which, lst):
        (true if w else false).append(x)
    return false, true


def merge_lists(which, false_items, true_items):
    """Inverse of ``partition_list``."""
    f, t = iter(false_items), iter(true_items)
    return [next(t) if w else next(f) for w in which]


def unzip2(pairs):
    a, b = [], []
    for x, y in pairs:
        a.append(x)
        b.append(y)
    return a, b


def canonicalize_axis(axis, ndim, name="axis"):
    """``axis`` of an array of rank ``ndim`` as a non-negative int (see ``_checks.axis``)."""
    return _checks.axis(axis, ndim, name)


class LRUCache:
    """A dict holding at most ``maxsize()`` entries: inserting beyond that evicts the
    least recently used (read or written) first. ``maxsize`` is a callable, read at
    each insertion, so that a config option can resize the cache at run time."""

    __slots__ = ("_data", "_maxsize")

    def __init__(self, maxsize):
        self._data = collections.OrderedDict()
        self._maxsize = maxsize

    def get(self, key, default=None):
        data = self._data
        try:
            value = data[key]
            data.move_to_end(key)
        except KeyError:   # absent, or evicted meanwhile by another thread
            return default
        return value

    def set(self, key, value):
        """Insert or replace ``key``; returns True if an entry was evicted for it."""
        data = self._data
        data[key] = value
        data.move_to_end(key)
        limit = max(1, self._maxsize())
        evicted = False
        while len(data) > limit:
            try:
                data.popitem(last=False)
            except KeyError:
                break
            evicted = True
        return evicted

    __setitem__ = set

    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)

    def clear(self):
        self._data.clear()

    def values(self):
        return list(self._data.values())


class NamedCallable:
    """A function that prints as ``name`` (rule parameters of equations print readably)."""

    __slots__ = ("fn", "name")

    def __init__(self, fn, name):
        self.fn = fn
        self.name = name

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return self.name


def name_functions_where_public(namespace):
    """Let pickle find each public function of a module (its ``globals()``) by
    reference, as it finds NumPy's: a function whose ``__module__`` and ``__qualname__``
    (copied from the function it wraps, or local to the factory that made it) do not
    lead back to it is given the name it has in that module."""
    module_name = namespace["__name__"]
    for name, value in list(namespace.items()):
        if (name.startswith("_") or isinstance(value, type) or not callable(value)
                or getattr(value, "__qualname__", None) is None or _found_by_name(value)):
            continue
        try:
            value.__module__, value.__qualname__ = module_name, name
        except (AttributeError, TypeError):   # (C objects: pickled as they say)
            pass


def _found_by_name(value):
    obj = sys.modules.get(getattr(value, "__module__", None) or "")
    for part in value.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return obj is value
