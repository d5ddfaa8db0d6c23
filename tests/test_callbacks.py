"""minijax.pure_callback and minijax.debug: host callbacks eagerly and from compiled
code (jaxlib's CPU Python-callback custom call), under jit, vmap and grad."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import ShapeDtypeStruct


def _sin_callback(calls):
    def host_sin(x):
        calls.append(np.array(x))
        # (as JAX hands its callbacks jax.Arrays: a minijax Array, eagerly usable)
        assert type(x) is mnp.ndarray
        return mnp.sin(x)
    return host_sin


def test_pure_callback_eager_and_jit_call_the_host_at_run_time():
    calls = []
    host_sin = _sin_callback(calls)

    def f(x):
        return minijax.pure_callback(host_sin, ShapeDtypeStruct(x.shape, x.dtype), x) * 2

    x = np.linspace(0, 1, 4)
    np.testing.assert_allclose(np.asarray(f(mnp.asarray(x))), 2 * np.sin(x))
    jf = minijax.jit(f)
    for shift in (0.0, 1.0, 2.0):
        np.testing.assert_allclose(np.asarray(jf(mnp.asarray(x + shift))), 2 * np.sin(x + shift))
    assert len(calls) == 4   # once eagerly, then once per compiled run
    np.testing.assert_array_equal(calls[-1], x + 2.0)
    assert "xla_ffi_python_cpu_callback" in jf.lower(mnp.asarray(x)).as_text()


def test_pure_callback_pytrees_dtypes_and_kwargs():
    def host(a, b, *, scale):
        return {"sum": (a + b) * scale, "n": np.int32(a.size)}
    spec = {"sum": ShapeDtypeStruct((3,), np.float64), "n": ShapeDtypeStruct((), np.int32)}

    @minijax.jit
    def f(a, b):
        return minijax.pure_callback(host, spec, a, b, scale=3.0)
    out = f(mnp.arange(3.0), mnp.ones(3))
    np.testing.assert_array_equal(np.asarray(out["sum"]), [3.0, 6.0, 9.0])
    assert out["n"].dtype == np.int32 and int(out["n"]) == 3


def test_pure_callback_wrong_result_is_a_clear_error():
    with pytest.raises(RuntimeError, match="shape"):
        minijax.pure_callback(lambda x: x[:2], ShapeDtypeStruct((3,), np.float64), mnp.ones(3))
    with pytest.raises(RuntimeError, match="structure"):
        minijax.pure_callback(lambda x: (x, x), ShapeDtypeStruct((3,), np.float64), mnp.ones(3))
    with pytest.raises(NotImplementedError, match="sharding"):
        minijax.pure_callback(np.sin, ShapeDtypeStruct((3,), np.float64), mnp.ones(3),
                              sharding=object())


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
@pytest.mark.parametrize("jit", [False, True])
def test_pure_callback_under_vmap(method, jit):
    shapes = []

    def host(x, y):
        shapes.append((x.shape, y.shape))
        return x * y

    def f(x, y):
        return minijax.pure_callback(host, ShapeDtypeStruct(x.shape, x.dtype), x, y,
                                     vmap_method=method)
    g = minijax.vmap(f, in_axes=(0, None))
    if jit:
        g = minijax.jit(g)
    xs, y = np.arange(6.0).reshape(3, 2), np.array([2.0, 5.0])
    np.testing.assert_allclose(np.asarray(g(mnp.asarray(xs), mnp.asarray(y))), xs * y)
    expected = {"sequential": [((2,), (2,))] * 3, "expand_dims": [((3, 2), (1, 2))],
                "broadcast_all": [((3, 2), (3, 2))]}[method]
    assert shapes == expected


def test_pure_callback_needs_vmap_method_and_a_rule_for_grad():
    def f(x):
        return minijax.pure_callback(np.sin, ShapeDtypeStruct((), x.dtype), x)
    with pytest.raises(NotImplementedError, match="vmap_method"):
        minijax.vmap(f)(mnp.ones(3))
    with pytest.raises(TypeError, match="custom_jvp"):
        minijax.grad(f)(1.0)


def test_debug_print_runs_with_runtime_values(capsys):
    @minijax.jit
    def f(x):
        minijax.debug.print("x={} total={t}", x, t=mnp.sum(x))
        return x * 2
    f(mnp.arange(3.0))
    f(mnp.arange(3.0) + 10)
    out = capsys.readouterr().out.splitlines()
    assert out == ["x=[0. 1. 2.] total=3.0", "x=[10. 11. 12.] total=33.0"]


def test_debug_callback_under_vmap_and_grad(capsys):
    seen = []

    def f(x):
        minijax.debug.callback(lambda v: seen.append(float(v)), x)
        return x ** 2
    minijax.vmap(f)(mnp.arange(3.0))
    assert seen == [0.0, 1.0, 2.0]
    seen.clear()
    assert float(minijax.grad(f)(3.0)) == 6.0
    assert float(minijax.jit(minijax.grad(f))(4.0)) == 8.0
    assert seen == [3.0, 4.0]
    minijax.jit(minijax.vmap(f))(mnp.arange(2.0))
    assert seen[-2:] == [0.0, 1.0]


def test_pure_callback_differentiates_through_a_custom_jvp_rule():
    @minijax.custom_jvp
    def host_sin(x):
        return minijax.pure_callback(np.sin, ShapeDtypeStruct(x.shape, x.dtype), x)

    @host_sin.defjvp
    def host_sin_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        cos = minijax.pure_callback(np.cos, ShapeDtypeStruct(x.shape, x.dtype), x)
        return host_sin(x), cos * t

    for x in (0.3, 1.0, 2.0):
        assert float(minijax.grad(host_sin)(x)) == pytest.approx(np.cos(x), rel=1e-14)
        assert float(minijax.jit(minijax.grad(host_sin))(x)) == pytest.approx(np.cos(x),
                                                                               rel=1e-14)


def test_callbacks_get_arrays_of_their_own_as_jax():
    jax = pytest.importorskip("jax")
    seen = {}

    def record(name):
        def host(x):
            seen[name] = x
            return x * 2
        return host
    spec = ShapeDtypeStruct((3,), np.float64)
    x = np.arange(3.0)
    out = minijax.jit(lambda v: minijax.pure_callback(record("ours"), spec, v))(x)
    with jax.enable_x64(True):
        jax.jit(lambda v: jax.pure_callback(record("jax"), jax.ShapeDtypeStruct((3,), np.float64),
                                            v))(x)
    assert isinstance(seen["jax"], jax.Array) and isinstance(seen["ours"], minijax.Array)
    np.testing.assert_array_equal(np.asarray(out), 2 * x)
    # the Array outlives the call: it holds its own copy of XLA's buffer
    np.testing.assert_array_equal(np.asarray(seen["ours"]), x)
    minijax.jit(lambda v: minijax.debug.callback(record("debug"), v))(x)
    assert isinstance(seen["debug"], minijax.Array)
    np.testing.assert_array_equal(np.asarray(seen["debug"]), x)


def test_io_callback_as_jax():
    from minijax.experimental import io_callback
    log = []

    def host(x):
        log.append(float(x))
        return x * 2
    spec = ShapeDtypeStruct((), np.float64)
    assert float(minijax.jit(lambda x: io_callback(host, spec, x))(1.5)) == 3.0
    assert float(io_callback(host, spec, 4.0)) == 8.0
    out = minijax.vmap(lambda x: io_callback(host, spec, x))(np.arange(3.0))
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])
    assert sorted(log[-3:]) == [0.0, 1.0, 2.0]
    # kept although its result is unused: it is called for its side effect
    log.clear()
    minijax.jit(lambda x: (io_callback(host, spec, x), x + 1)[1])(3.0)
    assert log == [3.0]
    # ordered calls run in program order; no result with result_shape_dtypes=None
    order = []

    def prog(x):
        for i in range(4):
            io_callback(lambda v, i=i: order.append(i), None, x, ordered=True)
        return x
    minijax.jit(prog)(1.0)
    assert order == [0, 1, 2, 3]
    assert io_callback(lambda v: None, None, 1.0) is None
    with pytest.raises(ValueError, match="ordered=True cannot be vmapped"):
        minijax.vmap(lambda x: io_callback(host, spec, x, ordered=True))(np.arange(3.0))
    with pytest.raises(ValueError, match="cannot be differentiated"):
        minijax.grad(lambda x: io_callback(host, spec, x))(1.0)


def test_io_callback_errors_match_jax():
    jax = pytest.importorskip("jax")
    from jax.experimental import io_callback as jax_io
    from minijax.experimental import io_callback
    spec = ShapeDtypeStruct((), np.float64)
    with jax.enable_x64(True):
        with pytest.raises(ValueError):
            jax.grad(lambda x: jax_io(lambda v: v, jax.ShapeDtypeStruct((), np.float64), x))(1.0)
        with pytest.raises(ValueError):
            jax.vmap(lambda x: jax_io(lambda v: v, jax.ShapeDtypeStruct((), np.float64), x,
                                      ordered=True))(np.arange(2.0))
    with pytest.raises(ValueError):
        minijax.grad(lambda x: io_callback(lambda v: v, spec, x))(1.0)
