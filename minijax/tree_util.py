"""Pytrees: nested tuples, lists, dicts, namedtuples and registered classes.

``None`` is a node with no children. Dict children are ordered by sorted key;
``collections.OrderedDict`` and ``defaultdict`` keep their own order and type.
"""

import collections
import dataclasses
import functools
from typing import Callable, Hashable, NamedTuple, TypeVar

from .errors import PyTreeStructureError


class _NodeType(NamedTuple):
    name: str
    to_children: Callable   # node -> (children, aux_data)
    from_children: Callable  # (aux_data, children) -> node


_registry: dict[type, _NodeType] = {}
node_types = _registry   # (read-only to other modules: block_until_ready's fast walk)


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Register ``nodetype`` as a pytree node.

    ``flatten_func(node) -> (children, aux_data)`` and
    ``unflatten_func(aux_data, children) -> node``; aux_data must be hashable.
    """
    if nodetype in _registry:
        raise ValueError(f"{nodetype.__name__} is already registered as a pytree node")
    _registry[nodetype] = _NodeType(nodetype.__name__, flatten_func, unflatten_func)


def register_pytree_node_class(cls):
    """Class decorator: ``cls.tree_flatten()`` and ``cls.tree_unflatten(aux, children)``."""
    register_pytree_node(cls, lambda node: node.tree_flatten(), cls.tree_unflatten)
    return cls


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError as e:
        raise TypeError(f"pytree dict keys must be sortable, got keys {list(d)!r}") from e


register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs))
register_pytree_node(list, lambda l: (l, None), lambda _, xs: list(xs))
register_pytree_node(type(None), lambda _: ((), None), lambda _, __: None)


def _dict_flatten(d):
    keys = tuple(_sorted_keys(d))
    return [d[k] for k in keys], keys


register_pytree_node(dict, _dict_flatten, lambda keys, xs: dict(zip(keys, xs)))
register_pytree_node(collections.OrderedDict,
                     lambda d: (list(d.values()), tuple(d)),
                     lambda keys, xs: collections.OrderedDict(zip(keys, xs)))


def _defaultdict_flatten(d):
    keys = tuple(_sorted_keys(d))
    return [d[k] for k in keys], (d.default_factory, keys)


register_pytree_node(collections.defaultdict, _defaultdict_flatten,
                     lambda aux, xs: collections.defaultdict(aux[0], zip(aux[1], xs)))


def _node_type(x):
    t = type(x)
    node = _registry.get(t)
    if node is None and isinstance(x, tuple) and hasattr(t, "_fields"):
        node = _NodeType(t.__name__, lambda nt: (tuple(nt), None),
                         lambda _, xs, t=t: t(*xs))
    return node


class PyTreeDef:
    """The structure of a pytree: node types and aux data, with leaves left out."""

    __slots__ = ("node_type", "node_data", "children", "num_leaves", "_hash")

    def __init__(self, node_type, node_data, children):
        self.node_type = node_type   # a type, or None for a leaf
        self.node_data = node_data
        self.children = children
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
        self._hash = hash((node_type, node_data, children))

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return (isinstance(other, PyTreeDef) and self._hash == other._hash
                and self.node_type is other.node_type and self.node_data == other.node_data
                and self.children == other.children)

    @property
    def num_nodes(self):
        return 1 + sum(c.num_nodes for c in self.children)

    def __repr__(self):
        return f"PyTreeDef({self._str()})"

    def _str(self):
        if self.node_type is None:
            return "*"
        kids = [c._str() for c in self.children]
        if self.node_type is tuple:
            return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
        if self.node_type is list:
            return "[" + ", ".join(kids) + "]"
        if self.node_type is dict:
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.node_data, kids)) + "}"
        if self.node_type is type(None):
            return "None"
        return f"{self.node_type.__name__}[{self.node_data!r}](" + ", ".join(kids) + ")"

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this structure's leaves (see ``flatten_up_to``)."""
        return flatten_up_to(self, tree)


_LEAF = PyTreeDef(None, None, ())


def tree_flatten(tree, is_leaf=None):
    """Return ``(leaves, treedef)``; ``is_leaf(x)`` may stop the descent at ``x``."""
    leaves = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def _flatten(x, leaves, is_leaf):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    node = _node_type(x)
    if node is None:
        leaves.append(x)
        return _LEAF
    children, data = node.to_children(x)
    return PyTreeDef(type(x), data, tuple(_flatten(c, leaves, is_leaf) for c in children))


def tree_unflatten(treedef, leaves):
    """Rebuild the pytree of structure ``treedef`` from ``leaves``."""
    it = iter(leaves)
    out = _unflatten(treedef, it)
    if next(it, _sentinel) is not _sentinel:
        raise ValueError(f"tree_unflatten got more leaves than the {treedef.num_leaves} "
                         f"that {treedef} has")
    return out


_sentinel = object()


def _unflatten(treedef, it):
    if treedef.node_type is None:
        x = next(it, _sentinel)
        if x is _sentinel:
            raise ValueError("tree_unflatten got fewer leaves than the tree structure has")
        return x
    children = [_unflatten(c, it) for c in treedef.children]
    t = treedef.node_type
    if t not in _registry:   # a namedtuple class
        return t(*children)
    return _registry[t].from_children(treedef.node_data, children)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef):
    return treedef.node_type is None


def tree_map(f, tree, *rest, is_leaf=None):
    """Apply ``f`` leafwise; ``rest`` trees must have ``tree``'s structure (or extend it)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    all_leaves = [leaves] + [flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(*all_leaves)])


def flatten_up_to(treedef, tree):
    """The subtrees of ``tree`` at the leaf positions of ``treedef``.

    Raises ValueError when ``tree`` does not have ``treedef``'s structure above them.
    """
    out = []
    _flatten_up_to(treedef, tree, out, treedef, tree)
    return out


def prefix_per_leaf(prefix, tree, is_leaf=None):
    """One entry per leaf of ``tree``: each leaf of ``prefix`` (a pytree prefix of
    ``tree``, its leaves as ``is_leaf`` says) repeated for the leaves of the subtree it
    stands for (the convention of ``in_axes`` and ``in_shardings``). Raises ValueError
    when ``prefix`` is not a prefix of ``tree``."""
    leaves, treedef = tree_flatten(prefix, is_leaf)
    out = []
    for p, sub in zip(leaves, flatten_up_to(treedef, tree)):
        out.extend([p] * len(tree_leaves(sub)))
    return out


def _flatten_up_to(treedef, x, out, whole_def, whole):
    if treedef.node_type is None:
        out.append(x)
        return
    node = _node_type(x)
    if node is None or type(x) is not treedef.node_type:
        raise ValueError(f"pytree structure mismatch: expected a tree of structure "
                         f"{whole_def}, got {tree_structure(whole)}")
    children, data = node.to_children(x)
    if data != treedef.node_data or len(children) != len(treedef.children):
        raise ValueError(f"pytree structure mismatch: expected a tree of structure "
                         f"{whole_def}, got {tree_structure(whole)}")
    for c, d in zip(children, treedef.children):
        _flatten_up_to(d, c, out, whole_def, whole)


def all_leaves(iterable):
    return all(treedef_is_leaf(tree_structure(x)) for x in iterable)


# ------------------------------------------------------------------ registration helpers

def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Register a dataclass: ``data_fields`` are children, ``meta_fields`` aux data.

    With neither given, a field is meta when its ``metadata`` has ``static=True``
    and data otherwise. Returns ``nodetype``, so this also works as a decorator.
    """
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass({nodetype.__name__}) without data_fields "
                            f"and meta_fields needs a dataclass")
        fields = [f for f in dataclasses.fields(nodetype) if f.init]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    elif data_fields is None or meta_fields is None:
        raise TypeError("register_dataclass needs both data_fields and meta_fields, or neither")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
        if init_fields - set(drop_fields) != set(data_fields) | set(meta_fields):
            raise ValueError(f"data_fields and meta_fields of {nodetype.__name__} must "
                             f"together be its init fields {sorted(init_fields)}, got "
                             f"{sorted(data_fields)} and {sorted(meta_fields)}")

    def flatten_with_keys(node):
        return ([(GetAttrKey(n), getattr(node, n)) for n in data_fields],
                tuple(getattr(node, n) for n in meta_fields))

    def unflatten(meta, children):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, children)))

    register_pytree_with_keys(nodetype, flatten_with_keys, unflatten)
    return nodetype


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Register a node whose children carry keys: ``flatten_with_keys(node) ->
    ([(key, child), ...], aux_data)``; ``flatten_func`` is the keyless fast path."""
    if flatten_func is None:
        def flatten_func(node):
            keyed, aux = flatten_with_keys(node)
            return [c for _, c in keyed], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func)
    _key_registry[nodetype] = flatten_with_keys


def register_pytree_with_keys_class(cls):
    """Class decorator: ``cls.tree_flatten_with_keys()`` and ``cls.tree_unflatten``."""
    register_pytree_with_keys(cls, lambda node: node.tree_flatten_with_keys(),
                              cls.tree_unflatten,
                              getattr(cls, "tree_flatten", None) and
                              (lambda node: node.tree_flatten()))
    return cls


def register_static(cls):
    """Register ``cls`` as a pytree node with no children: its instances (which must be
    hashable) are carried whole in the tree structure, as static data. Returns ``cls``."""
    register_pytree_node(cls, lambda node: ((), node), lambda node, _: node)
    return cls


def is_tree_node(typ):
    """Whether instances of the type ``typ`` are pytree nodes (registered, or a
    namedtuple class)."""
    if not isinstance(typ, type):
        raise TypeError(f"is_tree_node takes a type, got {typ!r}; pass type(x)")
    return typ in _registry or (issubclass(typ, tuple) and hasattr(typ, "_fields"))


def flatten_one_level(tree):
    """``(children, aux_data)`` of the pytree node ``tree``; a ValueError for a leaf."""
    node = _node_type(tree)
    if node is None:
        raise ValueError(f"flatten_one_level: {type(tree).__name__} is a leaf, not a pytree "
                         f"node")
    children, data = node.to_children(tree)
    return tuple(children), data


def flatten_one_level_with_keys(tree):
    """``(((key, child), ...), aux_data)`` of the pytree node ``tree``."""
    node = _node_type(tree)
    if node is None:
        raise ValueError(f"flatten_one_level_with_keys: {type(tree).__name__} is a leaf, not "
                         f"a pytree node")
    return tuple(_keyed_children(tree, node)), node.to_children(tree)[1]


def treedef_children(treedef):
    """The structures of the immediate children of ``treedef``'s root."""
    return list(treedef.children)


def treedef_tuple(treedefs):
    """The structure of a tuple whose elements have the structures ``treedefs``."""
    return PyTreeDef(tuple, None, tuple(treedefs))


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: its arguments are children and its
    function is aux data, so it can be passed to and returned from ``jit``."""

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):   # flatten nested partials
            base = func
            func = base.func
            args = base.args + args
            kwargs = {**base.keywords, **kwargs}
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


# ------------------------------------------------------------------ reductions and transposes

_no_initializer = object()


def tree_reduce(function, tree, initializer=_no_initializer, is_leaf=None):
    """``functools.reduce`` of ``function`` over the leaves of ``tree``."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _no_initializer:
        if not leaves:
            raise TypeError("tree_reduce of a tree with no leaves needs an initializer")
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation, tree, *, identity=_no_initializer, is_leaf=None):
    """Reduce the leaves of ``tree`` with the associative ``operation``, pairing them as a
    balanced tree (the halves of the leaf list, recursively), so that the depth of the
    computation is logarithmic. ``identity`` is the result for a tree with no leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _no_initializer:
            raise TypeError("tree_reduce_associative of a tree with no leaves needs "
                            "identity=")
        return identity

    def reduce(xs):
        if len(xs) == 1:
            return xs[0]
        half = len(xs) // 2
        return operation(reduce(xs[:half]), reduce(xs[half:]))
    return reduce(leaves)


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` with each leaf repeated over the subtree of ``full_tree`` it stands
    for: the result has ``full_tree``'s structure. A ValueError names the mismatch when
    ``prefix_tree`` is not a prefix of ``full_tree``."""
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    subtrees = flatten_up_to(treedef, full_tree)
    return tree_unflatten(treedef, [tree_map(lambda _, p=p: p, sub)
                                    for p, sub in zip(leaves, subtrees)])


def tree_all(tree, is_leaf=None):
    """Whether every leaf of ``tree`` is truthy."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """Turn a tree of structure outer-of-inner into one of inner-of-outer
    (``inner_treedef=None`` takes the inner structure from the first subtree)."""
    try:
        subtrees = flatten_up_to(outer_treedef, pytree_to_transpose)
        if inner_treedef is None:
            if not subtrees:
                raise ValueError("tree_transpose cannot infer the inner structure of an "
                                 "outer tree with no leaves; pass inner_treedef")
            inner_treedef = tree_structure(subtrees[0])
        rows = [flatten_up_to(inner_treedef, s) for s in subtrees]
    except ValueError as e:   # JAX raises TypeError here
        raise PyTreeStructureError(f"tree_transpose: {e}") from None
    columns = [tree_unflatten(outer_treedef, col) for col in zip(*rows)] if rows else \
        [tree_unflatten(outer_treedef, []) for _ in range(inner_treedef.num_leaves)]
    return tree_unflatten(inner_treedef, columns)


# ------------------------------------------------------------------ key paths

class SequenceKey(NamedTuple):
    """The position of a child in a tuple or list."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


class DictKey(NamedTuple):
    """The key of a child in a dict."""
    key: object

    def __str__(self):
        return f"[{self.key!r}]"


class GetAttrKey(NamedTuple):
    """The attribute name of a child (namedtuples, dataclasses)."""
    name: str

    def __str__(self):
        return f".{self.name}"


class FlattenedIndexKey(NamedTuple):
    """The position of a child of a node registered without keys."""
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


KeyEntry = TypeVar("KeyEntry", bound=Hashable)
KeyPath = tuple[KeyEntry, ...]

_key_registry: dict[type, Callable] = {}


def _keyed_children(x, node):
    t = type(x)
    if t in _key_registry:
        keyed, _ = _key_registry[t](x)
        return list(keyed)
    children, data = node.to_children(x)
    if t in (tuple, list):
        keys = [SequenceKey(i) for i in range(len(children))]
    elif t in (dict, collections.OrderedDict):
        keys = [DictKey(k) for k in data]
    elif t is collections.defaultdict:
        keys = [DictKey(k) for k in data[1]]
    elif isinstance(x, tuple) and hasattr(t, "_fields"):
        keys = [GetAttrKey(f) for f in t._fields]
    else:
        keys = [FlattenedIndexKey(i) for i in range(len(children))]
    return list(zip(keys, children))


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], treedef)``; a key path is a tuple of keys."""
    out = []
    _flatten_with_path(tree, (), out, is_leaf)
    return out, tree_structure(tree, is_leaf)


def _flatten_with_path(x, path, out, is_leaf):
    node = None if is_leaf is not None and is_leaf(x) else _node_type(x)
    if node is None:
        out.append((path, x))
        return
    for key, child in _keyed_children(x, node):
        _flatten_with_path(child, path + (key,), out, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    """``[(key_path, leaf), ...]``."""
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None):
    """``f(key_path, leaf, *rest_leaves)`` at every leaf of ``tree``."""
    keyed, treedef = tree_flatten_with_path(tree, is_leaf)
    leaves = [leaf for _, leaf in keyed]
    rests = [flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(path, *xs) for (path, _), xs
                                    in zip(keyed, zip(leaves, *rests))])


def keystr(keys, *, simple=False, separator=""):
    """A key path as text: ``"['a'][0].x"``, or with ``simple=True`` the bare keys
    joined by ``separator`` (``"a/0/x"`` with ``separator="/"``)."""
    if not simple:
        return separator.join(str(k) for k in keys)
    return separator.join(str(k[0]) for k in keys)
