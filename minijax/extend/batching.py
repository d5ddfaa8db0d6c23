"""Batching rules for user primitives (``jax.interpreters.batching``).

``primitive_batchers[p] = rule`` with ``rule(batched_args, batch_dims, **params) ->
(out, out_dim)``; an unbatched argument has dimension ``not_mapped``.
"""

from ..interpreters.batching import not_mapped
from .ad import _RuleTable

__all__ = ["not_mapped", "primitive_batchers"]


def _install_batch(primitive, rule):
    def batch(axis_size, args, dims, **params):
        out, out_dim = rule(args, dims, **params)
        if primitive.multiple_results:
            return list(out), list(out_dim)
        return [out], [out_dim]
    primitive.batch = batch


primitive_batchers = _RuleTable(_install_batch)
