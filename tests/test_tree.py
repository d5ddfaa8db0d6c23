"""minijax.tree and tree_util's key paths, dataclasses, Partial, reduce/transpose/all,
with JAX's tree_util as the oracle for paths and key strings."""

import collections
import dataclasses
import functools
import operator

import jax
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import tree, tree_util as tu

Point = collections.namedtuple("Point", ["x", "y"])


def _trees():
    return [
        {"b": [1, (2, 3)], "a": Point(4, {"k": 5})},
        [None, (), {"z": 1}],
        collections.OrderedDict([("z", 1), ("a", [2, 3])]),
        7,
    ]


@pytest.mark.parametrize("idx", range(4))
def test_paths_and_keystr_match_jax(idx):
    t = _trees()[idx]
    ours, ours_def = tu.tree_flatten_with_path(t)
    theirs, _ = jax.tree_util.tree_flatten_with_path(t)
    assert [leaf for _, leaf in ours] == [leaf for _, leaf in theirs]
    assert [tu.keystr(p) for p, _ in ours] == [jax.tree_util.keystr(p) for p, _ in theirs]
    assert ([tu.keystr(p, simple=True, separator="/") for p, _ in ours]
            == [jax.tree_util.keystr(p, simple=True, separator="/") for p, _ in theirs])
    assert ours_def == tu.tree_structure(t)
    assert tree.leaves_with_path(t) == ours


def test_tree_namespace_matches_tree_util():
    t = _trees()[0]
    assert tree.leaves(t) == tu.tree_leaves(t) == [4, 5, 1, 2, 3]
    leaves, treedef = tree.flatten(t)
    assert tree.unflatten(treedef, leaves) == t
    assert tree.structure(t) == treedef
    assert tree.map(lambda x, y: x + y, t, t) == jax.tree.map(lambda x, y: x + y, t, t)
    assert tree.reduce(operator.add, t) == 15
    assert tree.reduce(operator.add, t, 100) == 115
    assert tree.all(t) and not tree.all([1, 0]) and tree.all([])
    with pytest.raises(TypeError, match="initializer"):
        tree.reduce(operator.add, [])


def test_map_with_path():
    t = {"a": [1, 2], "b": Point(3, 4)}
    out = tree.map_with_path(lambda p, x, y: (tu.keystr(p), x + y), t, t)
    ref = jax.tree.map_with_path(lambda p, x, y: (jax.tree_util.keystr(p), x + y), t, t)
    assert out == ref
    assert tree.map_with_path(lambda p, x: len(p), t) == {"a": [2, 2], "b": Point(2, 2)}


def test_transpose():
    t = [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "b": 6}]
    outer, inner = tree.structure([0, 0, 0]), tree.structure({"a": 0, "b": 0})
    assert tree.transpose(outer, inner, t) == {"a": [1, 3, 5], "b": [2, 4, 6]}
    assert tree.transpose(outer, None, t) == {"a": [1, 3, 5], "b": [2, 4, 6]}
    assert tu.tree_transpose(outer, inner, t) == jax.tree_util.tree_transpose(
        jax.tree.structure([0, 0, 0]), jax.tree.structure({"a": 0, "b": 0}), t)
    with pytest.raises(ValueError, match="structure"):
        tree.transpose(outer, inner, [{"a": 1}, {"a": 3}, {"a": 5}])


@dataclasses.dataclass
class Params:
    w: object
    b: object
    name: str = dataclasses.field(default="layer", metadata={"static": True})


tu.register_dataclass(Params)


def test_register_dataclass_inferred_and_explicit():
    p = Params(1.0, 2.0, "dense")
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1.0, 2.0]
    assert tu.tree_unflatten(treedef, [3.0, 4.0]) == Params(3.0, 4.0, "dense")
    assert treedef != tu.tree_structure(Params(1.0, 2.0, "other"))   # meta is aux data
    assert [tu.keystr(k) for k, _ in tu.tree_leaves_with_path(p)] == [".w", ".b"]

    @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=["n"])
    @dataclasses.dataclass
    class Explicit:
        x: object
        n: int

    assert tu.tree_leaves(Explicit([1, 2], 3)) == [1, 2]
    with pytest.raises(ValueError, match="init fields"):
        @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=[])
        @dataclasses.dataclass
        class Wrong:
            x: object
            n: int
    with pytest.raises(TypeError, match="dataclass"):
        tu.register_dataclass(int)


def test_dataclass_through_jit_and_grad():
    @minijax.jit
    def f(p):
        return mnp.sum(p.w * 2.0 + p.b)
    p = Params(mnp.arange(3.0), mnp.ones(3))
    assert float(f(p)) == 9.0
    g = minijax.grad(f)(p)
    assert isinstance(g, Params) and g.name == "layer"
    np.testing.assert_array_equal(np.asarray(g.w), [2.0, 2.0, 2.0])


class Pair:
    def __init__(self, left, right):
        self.left, self.right = left, right


tu.register_pytree_with_keys(
    Pair, lambda p: ([(tu.GetAttrKey("left"), p.left), (tu.GetAttrKey("right"), p.right)], None),
    lambda _, ch: Pair(*ch))


@tu.register_pytree_node_class
class Opaque:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_registered_keys_and_flattened_index_keys():
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path({"p": Pair(1, [2])})]
    assert paths == ["['p'].left", "['p'].right[0]"]
    paths = [p for p, _ in tu.tree_leaves_with_path(Opaque(1, 2))]
    assert paths == [(tu.FlattenedIndexKey(0),), (tu.FlattenedIndexKey(1),)]
    assert str(tu.FlattenedIndexKey(1)) == str(jax.tree_util.FlattenedIndexKey(1))
    assert tu.tree_leaves(Pair(3, 4)) == [3, 4]
    assert tu.keystr((tu.DictKey("a"), tu.SequenceKey(0), tu.GetAttrKey("x"))) == "['a'][0].x"


def test_partial_is_a_pytree_through_jit():
    p = tu.Partial(mnp.multiply, mnp.arange(3.0))
    leaves, treedef = tu.tree_flatten(p)
    assert len(leaves) == 1
    rebuilt = tu.tree_unflatten(treedef, [mnp.ones(3)])
    np.testing.assert_array_equal(np.asarray(rebuilt(2.0)), [2.0, 2.0, 2.0])

    @minijax.jit
    def apply(fn, x):
        return fn(x)
    np.testing.assert_array_equal(np.asarray(apply(p, 2.0)), [0.0, 2.0, 4.0])
    nested = tu.Partial(tu.Partial(lambda a, b, c: a + b + c, 1), 2)
    assert nested(3) == 6 and nested.args == (1, 2)
