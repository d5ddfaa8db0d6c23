"""``minijax.extend``: the API for user-defined primitives, named after ``jax.extend``
and ``jax.interpreters`` so that code written for JAX's extension API reads across.

    from minijax.extend import core, ad, batching, mlir

    multiply_add_p = core.Primitive("multiply_add")
    multiply_add_p.def_impl(lambda x, y, z: x * y + z)          # NumPy kernel
    multiply_add_p.def_abstract_eval(lambda x, y, z: core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(multiply_add_p, lowering_rule)        # for jit
    ad.primitive_jvps[multiply_add_p] = jvp_rule                 # for jvp/grad
    ad.primitive_transposes[multiply_add_p] = transpose_rule     # for grad
    batching.primitive_batchers[multiply_add_p] = batch_rule     # for vmap

Each registry writes the rule into the primitive's own slot (minijax keeps every
rule on the primitive), adapting JAX's calling conventions.
"""

from . import ad, batching, core, mlir

__all__ = ["ad", "batching", "core", "mlir"]
