import collections

import pytest

from minijax import tree_util as tu

Point = collections.namedtuple("Point", ["x", "y"])


class Box:
    def __init__(self, a, b, meta):
        self.a, self.b, self.meta = a, b, meta

    def __eq__(self, other):
        return isinstance(other, Box) and (self.a, self.b, self.meta) == (other.a, other.b, other.meta)

    def __repr__(self):
        return f"Box({self.a!r}, {self.b!r}, meta={self.meta!r})"


tu.register_pytree_node(Box, lambda b: ((b.a, b.b), b.meta), lambda meta, ch: Box(*ch, meta))

TREES = [
    1.0,
    None,
    (1, 2),
    [1, (2, 3), {"b": 4, "a": [5, None]}],
    {"z": 1, "a": 2},
    Point(1, (2, 3)),
    collections.OrderedDict([("z", 1), ("a", 2)]),
    collections.defaultdict(list, {"k": [1, 2]}),
    Box([1, 2], 3, meta="m"),
    (),
    [[]],
]


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_roundtrip(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert tu.tree_unflatten(treedef, leaves) == tree
    assert treedef.num_leaves == len(leaves)
    assert tu.tree_structure(tree) == treedef
    assert hash(tu.tree_structure(tree)) == hash(treedef)


def test_dict_keys_sorted_and_none_is_a_node():
    assert tu.tree_leaves({"b": 1, "a": 2}) == [2, 1]
    assert tu.tree_leaves([None, 1]) == [1]
    assert tu.tree_leaves(Point(3, 4)) == [3, 4]


def test_tree_map_and_mismatch():
    assert tu.tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)}) == \
        {"x": 11, "y": (22, 33)}
    with pytest.raises(ValueError, match="structure"):
        tu.tree_map(lambda a, b: a, (1, 2), [1, 2])
    assert tu.tree_map(lambda x: x * 2, [1, None, 2]) == [2, None, 4]


def test_is_leaf_and_errors():
    assert tu.tree_leaves([(1, 2), (3, 4)], is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2), (3, 4)]
    with pytest.raises(ValueError):
        tu.tree_unflatten(tu.tree_structure((1, 2)), [1])
    with pytest.raises(ValueError):
        tu.tree_unflatten(tu.tree_structure((1, 2)), [1, 2, 3])
    with pytest.raises(ValueError, match="already registered"):
        tu.register_pytree_node(Box, lambda b: ((), None), lambda m, c: None)
    assert tu.tree_structure((1, 2)) != tu.tree_structure([1, 2])
    assert "PyTreeDef" in repr(tu.tree_structure({"a": (1,)}))
