"""A user-defined primitive, ``multiply_add`` (x * y + z), with every rule minijax's
transformations use: the extension-API walk-through of seed 003, on minijax.

Run: python examples/multiply_add_primitive.py
"""

import numpy as onp

import minijax
import minijax.numpy as np
from minijax.extend import ad, batching, core, mlir

multiply_add_p = core.Primitive("multiply_add")


def multiply_add_prim(x, y, z):
    """The traceable way to apply the primitive."""
    return multiply_add_p.bind(x, y, z)


def square_add_prim(a, b):
    """a * a + b, through the new primitive."""
    return multiply_add_prim(a, a, b)


# Eager evaluation: a NumPy kernel on concrete host arrays.
@multiply_add_p.def_impl
def multiply_add_impl(x, y, z):
    return onp.add(onp.multiply(x, y), z)


# Abstract evaluation: output shape and dtype from the inputs' (for jit, grad, vmap).
@multiply_add_p.def_abstract_eval
def multiply_add_abstract_eval(xs, ys, zs):
    if not xs.shape == ys.shape == zs.shape:
        raise TypeError(f"multiply_add needs equal shapes, got {xs.shape}, {ys.shape}, "
                        f"{zs.shape}")
    return core.ShapedArray(xs.shape, xs.dtype)


# Lowering to StableHLO (for jit).
def multiply_add_lowering(ctx, xc, yc, zc):
    return [mlir.hlo.AddOp(mlir.hlo.MulOp(xc, yc), zc).result]


mlir.register_lowering(multiply_add_p, multiply_add_lowering, platform="cpu")


# Forward-mode differentiation: xt * y + x * yt + zt, through the primitive itself.
def multiply_add_value_and_jvp(arg_values, arg_tangents):
    x, y, z = arg_values
    xt, yt, zt = arg_tangents
    primal_out = multiply_add_prim(x, y, z)

    def make_zero(tan):
        return np.zeros_like(x) if type(tan) is ad.Zero else tan
    output_tangent = multiply_add_prim(make_zero(xt), y,
                                       multiply_add_prim(x, make_zero(yt), make_zero(zt)))
    return primal_out, output_tangent


ad.primitive_jvps[multiply_add_p] = multiply_add_value_and_jvp


# Transposition (for reverse mode): the tangent computation above is linear in xt
# (with y constant) or in yt (with x constant), and in zt.
def multiply_add_transpose(ct, x, y, z):
    if not ad.is_undefined_primal(x):
        ct_y = ad.Zero(y.aval) if type(ct) is ad.Zero else multiply_add_prim(x, ct,
                                                                             np.zeros_like(x))
        return None, ct_y, ct
    ct_x = ad.Zero(x.aval) if type(ct) is ad.Zero else multiply_add_prim(ct, y, np.zeros_like(y))
    return ct_x, None, ct


ad.primitive_transposes[multiply_add_p] = multiply_add_transpose


# Batching (for vmap): elementwise, so the batched primitive is the primitive on
# operands moved to a common batch axis.
def multiply_add_batch(vector_arg_values, batch_axes):
    size = next(v.shape[d] for v, d in zip(vector_arg_values, batch_axes)
                if d is not batching.not_mapped)
    moved = []
    for v, d in zip(vector_arg_values, batch_axes):
        if d is batching.not_mapped:
            v = np.broadcast_to(v, (size,) + v.shape)
        else:
            v = np.moveaxis(v, d, 0)
        moved.append(v)
    return multiply_add_prim(*moved), 0


batching.primitive_batchers[multiply_add_p] = multiply_add_batch


if __name__ == "__main__":
    print("eager       ", square_add_prim(2.0, 10.0))
    print("jit         ", minijax.jit(square_add_prim)(2.0, 10.0))
    print("jvp         ", minijax.jvp(square_add_prim, (2.0, 10.0), (1.0, 1.0)))
    print("grad        ", minijax.grad(square_add_prim)(2.0, 10.0))
    print("jit(grad)   ", minijax.jit(minijax.grad(square_add_prim))(2.0, 10.0))
    xs, ys = np.array([2.0, 3.0]), np.array([10.0, 20.0])
    print("vmap        ", minijax.vmap(square_add_prim)(xs, ys))
    print("jit(vmap)   ", minijax.jit(minijax.vmap(square_add_prim))(xs, ys))
    print("grad(vmap)  ", minijax.grad(lambda a: minijax.vmap(square_add_prim)(a, ys).sum())(xs))
    print(minijax.make_jaxpr(minijax.grad(square_add_prim))(2.0, 10.0))
