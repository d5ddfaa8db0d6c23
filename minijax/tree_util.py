"""Pytrees: nested tuples, lists, dicts, namedtuples and registered classes.

``None`` is a node with no children. Dict children are ordered by sorted key;
``collections.OrderedDict`` and ``defaultdict`` keep their own order and type.
"""

import collections
from typing import Callable, NamedTuple


class _NodeType(NamedTuple):
    name: str
    to_children: Callable   # node -> (children, aux_data)
    from_children: Callable  # (aux_data, children) -> node


_registry: dict[type, _NodeType] = {}


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
