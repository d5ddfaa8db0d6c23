"""Errors that teach: each error class's message says what happened, where, and which
fix applies (seeds 002 and 004); error classes fit both NumPy's and JAX's except
clauses; tracebacks show the user's frames."""

import traceback

import numpy as onp
import pytest

import minijax
import minijax.numpy as jnp
from minijax import errors, jit, lax, vmap


def test_omnistaging_shape_arithmetic_names_reduce_prod_and_its_line():
    # seed 002: shape arithmetic with minijax.numpy inside jit
    @jit
    def ex1(x):
        size = jnp.prod(jnp.array(x.shape))   # the line the message must name
        return x.reshape((size,))
    line = ex1.__wrapped__.__code__.co_firstlineno + 2
    with pytest.raises(errors.ConcretizationTypeError) as e:
        ex1(jnp.ones((3, 4)))
    msg = str(e.value)
    assert "does not depend on the arguments" in msg
    assert f"reduce_prod at test_errors_teach.py:{line}" in msg
    assert "omnistaging" in msg and "numpy.prod(x.shape)" in msg
    assert "jit of function `ex1`" in msg
    assert "depends on the traced function's arguments" not in msg

    # seed 004: the same through an Array method
    @jit
    def f(x):
        return x.reshape(jnp.array(x.shape).prod())
    with pytest.raises(errors.ConcretizationTypeError, match="reduce_prod at"):
        f(jnp.ones((2, 3)))
    # the fix the message suggests works
    onp.testing.assert_array_equal(jit(lambda x: x.reshape((onp.prod(x.shape),)))(
        jnp.ones((2, 3))), onp.ones(6))


def test_bool_conversion_names_the_argument_and_the_static_fix():
    def f(x, neg):
        return -x if neg else x
    with pytest.raises(errors.TracerBoolConversionError) as e:
        jit(f)(1.0, True)
    msg = str(e.value)
    assert "argument `neg` (position 1)" in msg
    assert "static_argnums=(1,)" in msg and "static_argnames=('neg',)" in msg
    assert "lax.cond" in msg
    # JAX's opening words, which libraries match (array-api-extra's test_testing.py)
    assert msg.startswith("Attempted boolean conversion of traced array with shape bool[]")
    assert isinstance(e.value, TypeError)
    assert float(jit(f, static_argnums=(1,))(1.0, True)) == -1.0   # the suggested fix

    def divide(x, y):
        return x / y if y >= 1.0 else 0.0
    with pytest.raises(errors.TracerBoolConversionError, match=r"argument `y` \(position 1\)"):
        jit(divide)(3.0, 2.0)
    assert float(minijax.grad(divide)(3.0, 2.0)) == 0.5   # grad alone keeps it concrete

    def kw(x, *, scale):
        return x * 2 if scale > 1 else x
    with pytest.raises(errors.TracerBoolConversionError) as e:
        jit(kw)(1.0, scale=2.0)
    assert "keyword argument `scale`" in str(e.value)
    assert "static_argnames=('scale',)" in str(e.value)


_NEEDS_VALUES = {   # a numpy function that needs the value of its traced argument ``v``
    "arange": (lambda x, v: jnp.arange(v) * x, 3),
    "nonzero": (lambda x, v: jnp.nonzero(v), onp.arange(3)),
    "unique": (lambda x, v: jnp.unique(v), onp.arange(3)),
    "bincount": (lambda x, v: jnp.bincount(v), onp.arange(3)),
    "asarray_chkfinite": (lambda x, v: jnp.asarray_chkfinite(v), onp.ones(3)),
    "real_if_close": (lambda x, v: jnp.real_if_close(v * 1j), onp.ones(3)),
    "min_scalar_type": (lambda x, v: jnp.zeros(2, jnp.min_scalar_type(v)), 3),
    "delete": (lambda x, v: jnp.delete(x, v), 1),
}


@pytest.mark.parametrize("name", sorted(_NEEDS_VALUES))
def test_numpy_functions_needing_values_name_the_argument_and_the_static_fix(name):
    fn, v = _NEEDS_VALUES[name]

    def program(x, v):
        return fn(x, v)
    with pytest.raises(errors.ConcretizationTypeError) as e:
        jit(program)(jnp.ones(3), v)
    msg = str(e.value)
    assert "argument `v` (position 1)" in msg
    assert "static_argnums=(1,)" in msg and "static_argnames=('v',)" in msg
    if isinstance(v, int):   # the fix it names works
        jit(program, static_argnums=1)(jnp.ones(3), v)


def test_integer_and_array_conversion_errors():
    with pytest.raises(errors.TracerIntegerConversionError) as e:
        jit(lambda x, n: jnp.zeros(int(n)) + x)(1.0, 3)
    assert "argument `n` (position 1)" in str(e.value)
    assert "int conversion" in str(e.value)
    with pytest.raises(errors.TracerArrayConversionError) as e:
        jit(lambda x: onp.asarray(x) + 1)(jnp.ones(2))
    msg = str(e.value)
    assert "converted to a NumPy array" in msg and "argument `x` (position 0)" in msg
    assert "minijax.numpy functions" in msg


def test_vmap_conversion_explains_batching():
    with pytest.raises(errors.TracerBoolConversionError) as e:
        vmap(lambda x: x if x > 0 else -x)(jnp.array([1.0, -2.0]))
    msg = str(e.value)
    assert "batched by vmap" in msg and "numpy.where" in msg
    assert "static_argnums" not in msg


def test_boolean_index_error_is_index_and_type_error():
    with pytest.raises(IndexError) as e:
        jit(lambda x: x[x > 0])(jnp.array([1.0, -1.0]))
    assert isinstance(e.value, TypeError)
    assert isinstance(e.value, errors.NonConcreteBooleanIndexError)
    msg = str(e.value)
    assert "boolean indices must be concrete" in msg and "numpy.where" in msg
    assert "argument `x` (position 0)" in msg


def test_unexpected_tracer_error_is_a_type_error():
    leaked = []

    @jit
    def f(x):
        leaked.append(x)
        return x
    f(1.0)
    with pytest.raises(TypeError) as e:
        jnp.sin(leaked[0])
    assert isinstance(e.value, errors.UnexpectedTracerError)
    msg = str(e.value)
    assert "escaped" in msg and "Return the value" in msg and "jit of function `f`" in msg


def test_dot_shape_mismatch_is_value_and_type_error():
    for fn in (jnp.dot, jnp.matmul, jnp.inner):
        with pytest.raises(ValueError) as e:
            fn(jnp.ones((2, 3)), jnp.ones((4, 2)))
        assert isinstance(e.value, TypeError)
        assert isinstance(e.value, errors.ShapeMismatchError)
        assert "not aligned" in str(e.value) and "3" in str(e.value)
    with pytest.raises(TypeError, match="different sizes"):
        lax.dot_general(jnp.ones((2, 3)), jnp.ones((4, 2)), (((1,), (0,)), ((), ())))


def test_tracebacks_hide_internal_frames_by_default():
    def user_fn(x, n):
        if n > 0:   # the failing line
            return x
        return -x

    def frames(exc):
        return [f for f in traceback.extract_tb(exc.__traceback__)]
    with pytest.raises(errors.TracerBoolConversionError) as e:
        minijax.grad(jit(user_fn))(1.0, 2.0)
    fs = frames(e.value)
    internal = [f for f in fs if "/minijax/" in f.filename.replace("\\", "/")
                and "traceback_util" not in f.filename]
    assert internal == []
    assert fs[-1].name == "user_fn" and "if n > 0" in fs[-1].line
    minijax.config.update("traceback_filtering", "off")
    try:
        with pytest.raises(errors.TracerBoolConversionError) as e:
            minijax.grad(jit(user_fn))(1.0, 2.0)
        assert len(frames(e.value)) > len(fs) + 5
    finally:
        minijax.config.update("traceback_filtering", "auto")
    with pytest.raises(ValueError):
        minijax.config.update("traceback_filtering", "sometimes")


def test_non_differentiable_output_and_custom_rule_errors_are_type_errors():
    with pytest.raises(TypeError, match="floating-point output"):
        minijax.grad(lambda x: x > 0)(1.0)
    assert issubclass(errors.CustomRuleError, TypeError)
    assert issubclass(errors.NonDifferentiableOutputError, TypeError)
