"""jit: caching, static arguments, methods, pytrees, nesting, and error messages."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import errors, jit


def counting(fn):
    calls = []

    def wrapped(*a, **k):
        calls.append(1)
        return fn(*a, **k)
    wrapped.calls = calls
    return wrapped


def _module_level(x, n):
    return x * n + 1


def test_pickle_a_jitted_function():
    import pickle
    for jf in (jit(_module_level, static_argnums=1), jit(_module_level, static_argnames="n")):
        expected = jf(np.arange(3.0), n=2) if jf.static_argnames == {"n"} else None
        loaded = pickle.loads(pickle.dumps(jf))
        assert isinstance(loaded, minijax.api.Jitted)
        assert loaded.static_argnums == jf.static_argnums
        assert loaded.static_argnames == jf.static_argnames
        onp.testing.assert_array_equal(onp.asarray(loaded(np.arange(3.0), 2)), [1.0, 3.0, 5.0])
        if expected is not None:
            onp.testing.assert_array_equal(onp.asarray(loaded(np.arange(3.0), n=2)),
                                           onp.asarray(expected))
    loaded = pickle.loads(pickle.dumps(jit(np.sin)))
    onp.testing.assert_allclose(onp.asarray(loaded(np.ones(2))), onp.sin(onp.ones(2)))


def test_no_retrace_for_same_shapes_and_dtypes():
    f = counting(lambda x, y: x * y + 1)
    jf = jit(f)
    jf(np.ones(3), np.ones(3))
    jf(np.zeros(3), np.arange(3.0))
    jf(onp.ones(3), onp.zeros(3))   # NumPy inputs of the same type hit the cache too
    assert len(f.calls) == 1
    jf(np.ones(4), np.ones(4))
    jf(np.ones(3, dtype=np.float32), np.ones(3, dtype=np.float32))
    assert len(f.calls) == 3


def test_python_scalars_are_weak_under_jit():
    f = jit(lambda x, s: x * s)
    x32 = np.ones(3, dtype=np.float32)
    assert f(x32, 2.0).dtype == np.float32
    assert f(np.ones(3, dtype=np.int8), 3).dtype == np.int8
    assert f(np.ones(3, dtype=np.int8), 3.0).dtype == np.float64


def test_static_argnums_and_argnames():
    f = counting(lambda x, n, *, mode="a": x * n if mode == "a" else x - n)
    jf = jit(f, static_argnums=1, static_argnames="mode")
    assert float(jf(2.0, 3)) == 6.0
    assert float(jf(2.0, 3)) == 6.0
    assert float(jf(2.0, 4, mode="b")) == -2.0
    assert len(f.calls) == 2
    with pytest.raises(TypeError, match="unhashable"):
        jf(2.0, [1, 2])


def test_static_argnums_allow_python_control_flow():
    @jit
    def bad(x, n):
        return x * 2 if n > 0 else x
    with pytest.raises(errors.TracerBoolConversionError):
        bad(1.0, 1)
    good = jit(lambda x, n: x * 2 if n > 0 else x, static_argnums=(1,))
    assert float(good(1.0, 1)) == 2.0 and float(good(1.0, -1)) == 1.0


def test_decorator_forms_and_methods():
    @jit(static_argnames=("k",))
    def f(x, k=2):
        return x ** k
    assert float(f(3.0)) == 9.0 and float(f(3.0, k=3)) == 27.0

    class Model:
        def __init__(self, scale):
            self.scale = scale

        @jit
        def apply(self, x):
            return x * self.scale

        __hash__ = object.__hash__
    m = Model(3.0)
    onp.testing.assert_allclose(onp.asarray(m.apply(np.ones(2))), [3.0, 3.0])


def test_pytree_inputs_outputs_and_kwargs():
    @jit
    def f(params, x, *, bias):
        return {"y": params["w"] * x + bias, "pair": (x, params["b"][0])}
    out = f({"w": 2.0, "b": [np.ones(2)]}, np.arange(2.0), bias=1.0)
    onp.testing.assert_allclose(onp.asarray(out["y"]), [1.0, 3.0])
    assert isinstance(out["pair"], tuple)


def test_jit_of_jit_lowers_to_a_call():
    inner = jit(lambda x: np.sin(x) * 2)
    outer = jit(lambda x: inner(x) + inner(x + 1))
    text = outer.lower(np.ones(3)).as_text()
    assert "func.call" in text and text.count("stablehlo.sine") == 1
    onp.testing.assert_allclose(onp.asarray(outer(np.ones(3))),
                                2 * (onp.sin(1.0) + onp.sin(2.0)) * onp.ones(3))


def test_lower_and_compile_are_jaxs():
    jax = pytest.importorskip("jax")   # (the test-only oracle)

    def f(x, n, *, scale):
        return {"y": x * n * scale, "s": (x ** 2).sum()}
    x = onp.arange(3.0, dtype=onp.float32)
    runs = {}
    for lib, xp in ((minijax, np), (jax, jax.numpy)):
        lowered = lib.jit(f, static_argnums=1).lower(xp.asarray(x), 3, scale=2.0)
        assert "stablehlo.multiply" in lowered.as_text()
        assert lowered.as_text(dialect="hlo").startswith("HloModule")
        assert "func.func" in str(lowered.compiler_ir())
        assert "ENTRY" in lowered.compiler_ir("hlo").as_hlo_text()
        compiled = lowered.compile()
        assert "HloModule" in compiled.as_text()
        assert compiled.cost_analysis()["flops"] > 0
        assert compiled.memory_analysis().argument_size_in_bytes >= 12 + 4
        out = compiled(xp.asarray(x + 1), scale=2.0)   # (the static argument is the lowering's)
        assert lowered.in_tree.num_leaves == compiled.in_tree.num_leaves == 2
        assert lowered.out_tree.num_leaves == 2
        with pytest.raises(TypeError):   # another shape than the one compiled for
            compiled(xp.ones(4, "float32"), scale=2.0)
        with pytest.raises(TypeError):   # the static argument again
            compiled(xp.asarray(x), 3, scale=2.0)
        runs[lib] = out
    for key in ("y", "s"):
        onp.testing.assert_array_equal(runs[minijax][key], runs[jax][key])
    with pytest.raises(ValueError, match="unknown dialect"):
        jit(f, static_argnums=1).lower(x, 3, scale=2.0).as_text("mhlo")


def test_compiled_calls_run_the_program_compile_made():
    from minijax.runtime import dispatch
    f = jit(lambda x: np.cos(x) + 1)
    x = np.ones(5)
    traced = f.trace(x)
    compiled = traced.lower().compile()
    made = dict(dispatch._compiled[traced.jaxpr])
    onp.testing.assert_allclose(compiled(x), onp.cos(1.0) + onp.ones(5))
    onp.testing.assert_allclose(f(x), onp.cos(1.0) + onp.ones(5))
    assert dict(dispatch._compiled[traced.jaxpr]) == made   # (nothing compiled again)


def test_closed_over_arrays_become_arguments():
    w = np.asarray(onp.arange(6.0).reshape(2, 3))
    f = jit(lambda x: x @ w)
    onp.testing.assert_allclose(onp.asarray(f(np.ones(2))), onp.ones(2) @ onp.arange(6.0).reshape(2, 3))
    jaxpr = minijax.make_jaxpr(lambda x: x @ w)(np.ones(2))
    assert len(jaxpr.consts) == 1


def test_invalid_arguments():
    with pytest.raises(TypeError, match="not a valid minijax type"):
        jit(lambda s: s)("hello")
    with pytest.raises(TypeError, match="not a valid minijax type"):
        jit(lambda x: "out")(1.0)


def test_tracer_conversion_errors_name_the_function():
    def my_function(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(errors.TracerBoolConversionError) as info:
        jit(my_function)(1.0)
    msg = str(info.value)
    assert "my_function" in msg and "static_argnums" in msg and "lax.cond" in msg
    with pytest.raises(errors.TracerIntegerConversionError):
        jit(lambda x: int(x))(1.0)
    with pytest.raises(errors.ConcretizationTypeError):
        jit(lambda x: float(x))(1.0)
    with pytest.raises(errors.TracerIntegerConversionError):
        jit(lambda x: [1, 2, 3][x])(1)
    with pytest.raises(errors.TracerArrayConversionError):
        jit(lambda x: onp.asarray(x))(1.0)


def test_leaked_tracer_is_an_error():
    leaked = []

    @jit
    def f(x):
        leaked.append(x)
        return x
    f(1.0)
    with pytest.raises(errors.UnexpectedTracerError, match="escaped"):
        np.sin(leaked[0])


def test_bool_under_jvp_and_grad_is_concrete():
    def f(x):
        return x * 2 if x > 0 else -x
    assert float(minijax.grad(f)(3.0)) == 2.0
    assert float(minijax.grad(f)(-3.0)) == -1.0


def test_shape_and_dtype_errors_before_xla():
    with pytest.raises(ValueError, match=r"\(3,\).*\(4,\)"):
        jit(lambda a, b: a + b)(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="float64.*float32|float32.*float64"):
        minijax.lax.add(np.ones(2), np.ones(2, dtype=np.float32))
    with pytest.raises(ValueError, match="matmul"):
        jit(lambda a, b: a @ b)(np.ones((2, 3)), np.ones((2, 3)))



@pytest.mark.parametrize("shape", [(), (3,), (4, 5), (0, 2)])
def test_bool_constants_keep_their_values(shape):
    # an array literal in a jaxpr becomes a StableHLO constant
    from minijax.core import Jaxpr, Literal
    from minijax import backend
    from minijax.runtime import dispatch
    mask = (onp.arange(int(onp.prod(shape))) % 3 == 0).reshape(shape)
    jaxpr = Jaxpr([], [], [Literal(mask)])
    out, = dispatch.compiled_jaxpr(jaxpr, backend.default_device(), False)([])
    onp.testing.assert_array_equal(onp.asarray(out), mask)


def test_switching_x64_retraces():
    f = jit(lambda x: x + np.ones(2))
    x = np.asarray(onp.ones(2, onp.float32))
    assert f(x).dtype == onp.float64 and f(x).dtype == onp.float64
    minijax.config.update("enable_x64", False)
    try:
        assert f(x).dtype == onp.float32
    finally:
        minijax.config.update("enable_x64", True)
    assert f(x).dtype == onp.float64
