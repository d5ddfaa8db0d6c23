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


# ------------------------------------------------------------ JAX's further helpers

_JAX_TREES = [(1, [2, None]), {"b": 1, "a": (2, 3)}, collections.OrderedDict(z=1, a=2),
              None, [], {"k": {"j": [1, 2, 3]}}]


@pytest.mark.parametrize("tree", _JAX_TREES)
def test_flatten_one_level_matches_jax(tree):
    jtu = pytest.importorskip("jax.tree_util")
    children, aux = jtu.flatten_one_level(tree)
    assert tu.flatten_one_level(tree) == (tuple(children), aux)
    keyed, aux = tu.flatten_one_level_with_keys(tree)
    jkeyed, jaux = jtu.flatten_one_level_with_keys(tree)
    assert aux == jaux
    assert [(str(k), c) for k, c in keyed] == [(str(k), c) for k, c in jkeyed]


def test_flatten_one_level_of_a_leaf_and_of_a_namedtuple():
    with pytest.raises(ValueError, match="leaf"):
        tu.flatten_one_level(1.0)
    with pytest.raises(ValueError, match="leaf"):
        tu.flatten_one_level_with_keys("a")
    assert tu.flatten_one_level(Point(1, (2, 3)))[0] == (1, (2, 3))
    keys = [str(k) for k, _ in tu.flatten_one_level_with_keys(Point(1, 2))[0]]
    assert keys == [".x", ".y"]


def test_is_tree_node_matches_jax():
    jtu = pytest.importorskip("jax.tree_util")
    for typ in (int, float, str, type(None), tuple, list, dict, collections.OrderedDict,
                collections.defaultdict, Point):
        assert tu.is_tree_node(typ) == jtu.is_tree_node(typ), typ
    assert tu.is_tree_node(Box)
    with pytest.raises(TypeError, match="type"):
        tu.is_tree_node((1, 2))


@pytest.mark.parametrize("n", range(8))
def test_tree_reduce_associative_pairs_as_jax(n):
    jtu = pytest.importorskip("jax.tree_util")
    leaves = {f"k{i}": i + 1 for i in range(n)}
    pair = lambda a, b: (a, b)   # (records the pairing)
    assert (tu.tree_reduce_associative(pair, leaves, identity=0)
            == jtu.tree_reduce_associative(pair, leaves, identity=0))
    if n == 0:
        with pytest.raises(TypeError, match="identity"):
            tu.tree_reduce_associative(pair, leaves)


@pytest.mark.parametrize("prefix, full", [
    ((1, 2), ((3, 4), {"a": 5})),
    ({"a": 1}, {"a": (1, None, [2])}),
    (7, [1, (2, 3)]),
    ([1, None], [(1, 2), None]),
])
def test_tree_broadcast_matches_jax(prefix, full):
    jtu = pytest.importorskip("jax.tree_util")
    assert tu.tree_broadcast(prefix, full) == jtu.tree_broadcast(prefix, full)
    from minijax import tree
    assert tree.broadcast(prefix, full) == tu.tree_broadcast(prefix, full)


def test_tree_broadcast_rejects_a_non_prefix():
    with pytest.raises(ValueError, match="structure"):
        tu.tree_broadcast((1, 2, 3), ((3, 4), {"a": 5}))


def test_treedef_children_and_tuple():
    td = tu.tree_structure({"a": (1, 2), "b": [3]})
    kids = tu.treedef_children(td)
    assert kids == [tu.tree_structure((1, 2)), tu.tree_structure([3])]
    assert tu.treedef_children(tu.tree_structure(1.0)) == []
    both = tu.treedef_tuple([td, tu.tree_structure(1.0)])
    assert both == tu.tree_structure(({"a": (1, 2), "b": [3]}, 1.0))
    assert tu.tree_unflatten(both, [1, 2, 3, 4]) == ({"a": (1, 2), "b": [3]}, 4)


def test_register_static_carries_the_instance_in_the_structure():
    import minijax

    @tu.register_static
    class Config:
        def __init__(self, scale):
            self.scale = scale

        def __hash__(self):
            return hash(self.scale)

        def __eq__(self, other):
            return type(other) is Config and other.scale == self.scale

    tree = [Config(3.0), 2.0]
    assert tu.tree_leaves(tree) == [2.0]
    assert tu.tree_map(lambda x: x + 1, tree)[0] == Config(3.0)
    # under jit it is static data: a new value retraces, the same value does not
    traces = []

    @minijax.jit
    def f(cfg, y):
        traces.append(1)
        return y * cfg.scale
    assert float(f(Config(3.0), 1.0)) == 3.0
    assert float(f(Config(3.0), 2.0)) == 6.0
    assert float(f(Config(4.0), 2.0)) == 8.0
    assert len(traces) == 2


def test_tree_static_field_for_register_dataclass():
    import dataclasses
    from minijax import tree

    @dataclasses.dataclass
    class Layer:
        w: object
        name: str = tree.static(default="dense", metadata={"doc": "kept"})
    tu.register_dataclass(Layer)
    leaves, td = tu.tree_flatten(Layer(1.0))
    assert leaves == [1.0]
    assert tu.tree_unflatten(td, [2.0]) == Layer(2.0, "dense")
    assert dataclasses.fields(Layer)[1].metadata == {"doc": "kept", "static": True}
