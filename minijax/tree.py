"""``minijax.tree``: the pytree functions under short names (``minijax.tree.map``)."""

import dataclasses

from .tree_util import (tree_all as all, tree_broadcast as broadcast,  # noqa: F401
                        tree_flatten as flatten,
                        tree_flatten_with_path as flatten_with_path, tree_leaves as leaves,
                        tree_leaves_with_path as leaves_with_path, tree_map as map,
                        tree_map_with_path as map_with_path, tree_reduce as reduce,
                        tree_reduce_associative as reduce_associative,
                        tree_structure as structure, tree_transpose as transpose,
                        tree_unflatten as unflatten)


__all__ = ["all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
           "map", "map_with_path", "reduce", "reduce_associative", "static", "structure",
           "transpose", "unflatten"]


def static(**kwargs):
    """``dataclasses.field(**kwargs)`` marked static: ``register_dataclass`` then makes the
    field aux data, not a child."""
    metadata = {**(kwargs.pop("metadata", None) or {}), "static": True}
    return dataclasses.field(metadata=metadata, **kwargs)
