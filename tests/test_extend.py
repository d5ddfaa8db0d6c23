"""User-defined primitives through ``minijax.extend`` (seed 003's multiply_add), the
errors for missing rules, and JAX's jaxpr attribute names for custom interpreters."""

import importlib.util
import pathlib

import jaxlib.mlir.dialects.stablehlo as jaxlib_stablehlo
import numpy as onp
import pytest

import minijax
import minijax.extend.mlir.dialects.stablehlo as stablehlo_module
import minijax.numpy as np
from minijax.extend import ad, batching, core, mlir
from minijax.extend.mlir import dialects
from minijax.extend.mlir.dialects import chlo, func, hlo, ir, stablehlo

_EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "multiply_add_primitive.py"
_spec = importlib.util.spec_from_file_location("multiply_add_primitive", _EXAMPLE)
ex = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ex)


def test_multiply_add_under_every_transformation():
    sq = ex.square_add_prim
    assert float(sq(2.0, 10.0)) == 14.0
    assert float(minijax.jit(sq)(2.0, 10.0)) == 14.0
    out, t = minijax.jvp(sq, (2.0, 10.0), (1.0, 1.0))
    assert (float(out), float(t)) == (14.0, 5.0)
    assert float(minijax.grad(sq)(2.0, 10.0)) == 4.0
    assert float(minijax.jit(minijax.grad(sq))(2.0, 10.0)) == 4.0
    assert tuple(map(float, minijax.grad(sq, argnums=(0, 1))(3.0, 10.0))) == (6.0, 1.0)
    xs, ys = np.array([2.0, 3.0]), np.array([10.0, 20.0])
    onp.testing.assert_array_equal(minijax.vmap(sq)(xs, ys), [14.0, 29.0])
    onp.testing.assert_array_equal(minijax.jit(minijax.vmap(sq))(xs, ys), [14.0, 29.0])
    onp.testing.assert_array_equal(minijax.vmap(sq, in_axes=(0, None))(xs, 1.0), [5.0, 10.0])
    onp.testing.assert_array_equal(
        minijax.grad(lambda a: minijax.vmap(sq)(a, ys).sum())(xs), [4.0, 6.0])
    onp.testing.assert_array_equal(minijax.vmap(minijax.grad(sq))(xs, ys), [4.0, 6.0])
    # second derivative: the JVP rule is differentiated in turn (its zeros stay constants)
    assert float(minijax.grad(minijax.grad(sq))(3.0, 1.0)) == 2.0
    jaxpr = minijax.make_jaxpr(minijax.grad(sq))(2.0, 10.0)
    assert "multiply_add" in {e.primitive.name for e in jaxpr.jaxpr.eqns}
    # the StableHLO program uses the registered lowering
    assert "stablehlo.multiply" in minijax.jit(sq).lower(2.0, 10.0).as_text()


def test_impl_only_primitive_runs_eagerly_and_missing_rules_are_named():
    p = core.Primitive("twice_plus_one")
    p.def_impl(lambda x: 2 * x + 1)
    onp.testing.assert_array_equal(p.bind(np.array([1.0, 2.0])), [3.0, 5.0])
    assert p.bind(np.array([1, 2])).dtype == onp.int64
    with pytest.raises(NotImplementedError, match=r"Abstract evaluation rule for "
                       r"'twice_plus_one' not implemented.*def_abstract_eval"):
        minijax.jit(p.bind)(1.0)
    p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    with pytest.raises(NotImplementedError, match=r"Lowering rule for 'twice_plus_one'.*"
                       r"register_lowering"):
        minijax.jit(p.bind)(1.0)
    with pytest.raises(NotImplementedError, match=r"Differentiation rule for "
                       r"'twice_plus_one' not implemented"):
        minijax.grad(p.bind)(1.0)
    with pytest.raises(NotImplementedError, match=r"Batching rule for 'twice_plus_one'"):
        minijax.vmap(p.bind)(np.ones(2))
    q = core.Primitive("nothing_yet")
    with pytest.raises(NotImplementedError, match=r"Evaluation rule for 'nothing_yet' not "
                       r"implemented.*def_impl"):
        q.bind(1.0)
    # a JVP whose tangent uses the primitive, without a transpose rule
    p.def_jvp(lambda primals, tangents: (p.bind(primals[0]), p.bind(tangents[0]) - 1))
    with pytest.raises(NotImplementedError, match=r"Transpose rule for 'twice_plus_one'"):
        minijax.grad(p.bind)(1.0)
    mlir.register_lowering(p, mlir.lower_fun(lambda x: 2 * x + 1, multiple_results=False))
    assert float(minijax.jit(p.bind)(4.0)) == 9.0
    # a rule for the GPU platforms is kept beside the default one and not used on the CPU
    mlir.register_lowering(p, lambda ctx, x: [x], platform="gpu")
    assert float(minijax.jit(lambda v: p.bind(v))(5.0)) == 11.0   # a new trace and lowering
    with pytest.raises(ValueError, match=r"unknown platform 'gpus'.*'cuda'"):
        mlir.register_lowering(p, lambda ctx, x: [x], platform="gpus")


def test_extend_names():
    assert ad.Zero is minijax.interpreters.ad.Zero
    assert ad.is_undefined_primal(ad.UndefinedPrimal(core.ShapedArray((), onp.float64)))
    assert not ad.is_undefined_primal(1.0)
    z = ad.Zero(core.ShapedArray((2,), onp.float64))
    onp.testing.assert_array_equal(ad.instantiate_zeros(z), [0.0, 0.0])
    assert batching.not_mapped is None
    assert mlir.aval_to_ir_type is not None and mlir.hlo is not None


def _jax_style_eval_jaxpr(jaxpr, consts, *args):
    """The custom interpreter of JAX's documentation, written against JAX's names."""
    env = {}

    def read(var):
        return var.val if type(var) is core.Literal else env[var]

    def write(var, val):
        env[var] = val
    for v, a in zip(jaxpr.invars, args):
        write(v, a)
    for v, c in zip(jaxpr.constvars, consts):
        write(v, c)
    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        outvals = eqn.primitive.bind(*invals, **eqn.params)
        if not eqn.primitive.multiple_results:
            outvals = [outvals]
        for v, o in zip(eqn.outvars, outvals):
            write(v, o)
    return [read(v) for v in jaxpr.outvars]


def test_custom_interpreter_with_jax_names():
    table = np.array([1.0, 2.0, 3.0])

    def f(x):
        return np.exp(np.tanh(x)) * table + 2.0
    closed = minijax.make_jaxpr(f)(np.ones(3))
    assert len(closed.jaxpr.constvars) == len(closed.literals) == 1
    assert len(closed.jaxpr.invars) == 1 and len(closed.jaxpr.outvars) == 1
    x = np.array([0.1, 0.2, 0.3])
    out, = _jax_style_eval_jaxpr(closed.jaxpr, closed.literals, x)
    onp.testing.assert_allclose(out, f(x), rtol=1e-15)
    # a custom interpreter is an ordinary traceable function: it composes
    g = minijax.grad(lambda v: _jax_style_eval_jaxpr(closed.jaxpr, closed.literals, v)[0].sum())
    onp.testing.assert_allclose(g(x), minijax.grad(lambda v: f(v).sum())(x), rtol=1e-14)
    names = [e.primitive.name for e in closed.jaxpr.eqns]
    assert names[:2] == ["tanh", "exp"]
    assert all(isinstance(e.params, dict) for e in closed.jaxpr.eqns)


def test_seed_lowering_with_jax_dialect_imports():
    # seed 003's lowering rule, with `from jax._src.lib.mlir.dialects import hlo` /
    # `jax.extend.mlir.dialects` replaced by minijax's package of the same layout
    p = core.Primitive("multiply_add_seed")
    p.def_impl(lambda x, y, z: onp.add(onp.multiply(x, y), z))

    def abstract_eval(xs, ys, zs):
        assert xs.shape == ys.shape == zs.shape
        return core.ShapedArray(xs.shape, xs.dtype)
    p.def_abstract_eval(abstract_eval)

    def lowering(ctx, xc, yc, zc):
        return [hlo.AddOp(hlo.MulOp(xc, yc), zc).result]
    mlir.register_lowering(p, lowering, platform="cpu")
    sq = lambda a, b: p.bind(a, a, b)   # noqa: E731
    assert float(minijax.jit(sq)(2.0, 10.0)) == 14.0
    assert float(minijax.jit(sq, static_argnums=1)(2.0, 10.0)) == 14.0
    # the same objects as jaxlib's bindings, which minijax's own lowering uses
    assert stablehlo.AddOp is hlo.AddOp is jaxlib_stablehlo.AddOp
    assert stablehlo_module.MulOp is jaxlib_stablehlo.MulOp
    assert func.FuncOp.__module__.startswith("jaxlib.mlir")
    assert chlo.ErfInvOp is not None and ir.RankedTensorType is not None
    assert set(dialects.__all__) >= {"stablehlo", "hlo", "chlo", "func", "ir"}
    assert mlir.dialects is dialects and mlir.hlo.AddOp is hlo.AddOp
