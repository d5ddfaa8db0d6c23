"""Sharded Arrays and SPMD programs on the suite's 2 CPU devices (4 and 8 in a
subprocess); NumPy gives the values, JAX (2 CPU devices, Auto mesh axes) the shardings
chosen by propagation."""

import os
import subprocess
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import errors
from minijax.sharding import Mesh, NamedSharding, P, make_mesh

jax = pytest.importorskip("jax")

N = 2


@pytest.fixture(scope="module")
def mesh():
    if minijax.device_count() < N:
        pytest.fail("the suite's conftest gives minijax 2 CPU devices")
    return make_mesh((N,), ("x",))


@pytest.fixture(scope="module")
def jmesh():
    from jax.sharding import Mesh as JMesh
    return JMesh(np.array(jax.devices()[:N]), ("x",))


def _jspec(s):
    return tuple(s.spec)


X = np.arange(8, dtype=np.float32).reshape(4, 2)


def test_named_sharding_api(mesh):
    s = NamedSharding(mesh, P("x"))
    assert s.num_devices == N and s.device_set == set(minijax.devices()[:N])
    assert not s.is_fully_replicated and NamedSharding(mesh, P()).is_fully_replicated
    assert s.shard_shape((4, 2)) == (2, 2)
    assert s.addressable_devices_indices_map((4, 2)) == {
        minijax.devices()[0]: (slice(0, 2), slice(None)),
        minijax.devices()[1]: (slice(2, 4), slice(None))}
    assert s == NamedSharding(mesh, P("x")) and hash(s) == hash(NamedSharding(mesh, P("x")))
    assert s != NamedSharding(mesh, P("x", None))   # (as in JAX 0.10.2)
    assert repr(P("x", None)) == "P('x', None)"
    assert minijax.P is P


def test_device_put_and_host_reads(mesh):
    x = minijax.device_put(X, NamedSharding(mesh, P("x")))
    assert x.sharding == NamedSharding(mesh, P("x"))
    np.testing.assert_array_equal(np.asarray(x), X)
    assert x.tolist() == X.tolist() and float(x[3, 1]) == 7.0
    assert [r.tolist() for r in x] == X.tolist()
    assert str(x) == str(X)
    shards = x.addressable_shards
    assert [sh.device for sh in shards] == minijax.devices()[:N]
    np.testing.assert_array_equal(shards[1].data, X[2:])
    assert shards[1].index == (slice(2, 4), slice(None))
    assert not x.is_fully_replicated and x.is_fully_addressable
    r = minijax.device_put(X, NamedSharding(mesh, P()))
    assert r.is_fully_replicated and [s.replica_id for s in r.global_shards] == [0, 1]
    np.testing.assert_array_equal(np.asarray(r), X)
    with pytest.raises(ValueError, match="devices"):
        x.device


def test_eager_and_jit_shardings_match_jax(mesh, jmesh):
    from jax.sharding import NamedSharding as JNS, PartitionSpec as JP
    x = minijax.device_put(X, NamedSharding(mesh, P("x")))
    jx = jax.device_put(X, JNS(jmesh, JP("x")))
    cases = [lambda a: a * 2, lambda a: a.sum(0), lambda a: a.sum(1), lambda a: a @ a.T,
             lambda a: a.sum()]
    for f in cases:
        for wrap, jwrap in ((lambda g: g, lambda g: g), (minijax.jit, jax.jit)):
            out, jout = wrap(f)(x), jwrap(f)(jx)
            np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=1e-6)
            assert tuple(out.sharding.spec) == _jspec(jout.sharding)


def test_jit_in_out_shardings(mesh, jmesh):
    s_col = NamedSharding(mesh, P(None, "x"))
    f = minijax.jit(lambda a: a * 2, in_shardings=s_col)
    out = f(X)
    assert out.sharding == s_col
    np.testing.assert_array_equal(np.asarray(out), X * 2)
    x = minijax.device_put(X, NamedSharding(mesh, P("x")))
    with pytest.raises(errors.ShardingError, match="does not match"):
        f(x)
    g = minijax.jit(lambda a: a + 1, out_shardings=NamedSharding(mesh, P()))
    assert g(x).sharding == NamedSharding(mesh, P())
    h = minijax.jit(lambda a: minijax.lax.with_sharding_constraint(a + 1, s_col))
    assert h(x).sharding == s_col


def test_out_sharding_keywords_lay_results_out(mesh):
    rows = NamedSharding(mesh, P("x"))
    labels = jnp.arange(4) % 3
    key = np.array([0, 1, 2, 3], np.uint32)
    for run in (lambda f: f(), lambda f: minijax.jit(f)()):
        hot = run(lambda: minijax.nn.one_hot(labels, 3, out_sharding=rows))
        assert hot.sharding == rows
        np.testing.assert_array_equal(np.asarray(hot), np.eye(3)[[0, 1, 2, 0]])
        _, bits = run(lambda: minijax.lax.rng_bit_generator(key, (4, 2), out_sharding=rows))
        assert bits.sharding == rows
        np.testing.assert_array_equal(np.asarray(bits), np.asarray(
            minijax.lax.rng_bit_generator(key, (4, 2))[1]))


def _mlp_loss(params, xb, yb):
    w1, b1, w2 = params
    h = jnp.tanh(xb @ w1 + b1)
    return jnp.mean((h @ w2 - yb) ** 2)


def test_data_parallel_mlp_value_and_grad(mesh):
    rng = np.random.default_rng(0)
    params = (rng.normal(size=(3, 5)).astype(np.float32),
              rng.normal(size=(5,)).astype(np.float32),
              rng.normal(size=(5, 1)).astype(np.float32))
    xb = rng.normal(size=(8, 3)).astype(np.float32)
    yb = rng.normal(size=(8, 1)).astype(np.float32)
    data = NamedSharding(mesh, P("x"))
    step = minijax.jit(minijax.value_and_grad(_mlp_loss))
    v, g = step(minijax.device_put(params, NamedSharding(mesh, P())),
                minijax.device_put(xb, data), minijax.device_put(yb, data))
    v0, g0 = minijax.value_and_grad(_mlp_loss)(params, xb, yb)
    np.testing.assert_allclose(v, v0, rtol=1e-5)
    for a, b in zip(g, g0):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
        assert a.sharding.is_fully_replicated
    # NumPy for the loss
    h = np.tanh(xb @ params[0] + params[1])
    np.testing.assert_allclose(v, np.mean((h @ params[2] - yb) ** 2), rtol=1e-5)


def test_tensor_parallel_matmul(mesh, jmesh):
    from jax.sharding import NamedSharding as JNS, PartitionSpec as JP
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4, 6)).astype(np.float32)
    w1 = rng.normal(size=(6, 8)).astype(np.float32)
    w2 = rng.normal(size=(8, 3)).astype(np.float32)
    f = lambda a, w1, w2: jnp.tanh(a @ w1) @ w2   # noqa: E731
    jf = lambda a, w1, w2: jax.numpy.tanh(a @ w1) @ w2   # noqa: E731
    ours = minijax.jit(f)(a, minijax.device_put(w1, NamedSharding(mesh, P(None, "x"))),
                          minijax.device_put(w2, NamedSharding(mesh, P("x"))))
    theirs = jax.jit(jf)(a, jax.device_put(w1, JNS(jmesh, JP(None, "x"))),
                         jax.device_put(w2, JNS(jmesh, JP("x"))))
    np.testing.assert_allclose(np.asarray(ours), np.tanh(a @ w1) @ w2, rtol=1e-4, atol=1e-5)
    assert tuple(ours.sharding.spec) == _jspec(theirs.sharding)


def test_named_errors(mesh):
    with pytest.raises(errors.ShardingError, match="not found in mesh"):
        NamedSharding(mesh, P("y"))
    with pytest.raises(errors.ShardingError, match="duplicate"):
        NamedSharding(make_mesh((N, 1), ("x", "y")), P("x", "x"))
    with pytest.raises(errors.ShardingError, match="evenly divide"):
        minijax.device_put(np.arange(5.0), NamedSharding(mesh, P("x")))
    with pytest.raises(errors.ShardingError, match="needs 4 devices"):
        make_mesh((4,), ("x",), devices=minijax.devices()[:N])
    x = minijax.device_put(X, NamedSharding(mesh, P("x")))
    one = minijax.device_put(np.ones(2, np.float32), minijax.devices()[0])
    with pytest.raises(errors.ShardingError, match="incompatible devices"):
        x + one
    flipped = Mesh(np.array(minijax.devices()[:N][::-1]), ("x",))
    y = minijax.device_put(X, NamedSharding(flipped, P("x")))
    np.testing.assert_array_equal(np.asarray(y), X)
    with pytest.raises(errors.ShardingError, match="different devices"):
        x + y


def test_spmd_executable_checks_arguments(mesh):
    from minijax.runtime import dispatch
    x = minijax.device_put(X, NamedSharding(mesh, P("x")))
    traced = minijax.jit(lambda a: a + 1).trace(X).jaxpr
    s = NamedSharding(mesh, P("x"))
    exe = dispatch.SpmdExecutable(traced, mesh, [s])
    with pytest.raises(errors.ShardingError, match="compiled for"):
        exe([minijax.device_put(X.T.copy(), NamedSharding(mesh, P("x")))])   # same size
    with pytest.raises(errors.ShardingError, match="compiled for"):
        exe([minijax.device_put(X, NamedSharding(mesh, P(None, "x")))])
    with pytest.raises(errors.ShardingError, match="compiled for"):
        exe([minijax.device_put(X.astype(np.int32), s)])
    np.testing.assert_array_equal(np.asarray(exe([x])[0]), X + 1)


def test_make_array_from_single_device_arrays(mesh):
    s = NamedSharding(mesh, P("x"))
    pieces = [minijax.device_put(X[i * 2:(i + 1) * 2], d)
              for i, d in enumerate(minijax.devices()[:N])]
    a = minijax.make_array_from_single_device_arrays((4, 2), s, pieces)
    assert a.sharding == s
    np.testing.assert_array_equal(np.asarray(a), X)
    b = minijax.make_array_from_callback((4, 2), s, lambda idx: X[idx])
    np.testing.assert_array_equal(np.asarray(b), X)
    with pytest.raises(errors.ShardingError, match="shard shape"):
        minijax.make_array_from_single_device_arrays((4, 2), s, [p[:1] for p in pieces])


_SUBPROCESS = r"""
import sys, numpy as np
sys.modules['jax'] = None   # any import of JAX fails
import minijax, minijax.numpy as jnp
from minijax.sharding import NamedSharding, P, make_mesh
n = minijax.device_count()
assert n == int(sys.argv[1]), n
mesh = make_mesh((n // 2, 2), ('data', 'model'))
x = np.arange(n * 6, dtype=np.float32).reshape(n * 2, 3)
w = np.arange(3 * 4, dtype=np.float32).reshape(3, 4) / 10
xs = minijax.device_put(x, NamedSharding(mesh, P('data')))
ws = minijax.device_put(w, NamedSharding(mesh, P(None, 'model')))
out = minijax.jit(lambda a, b: jnp.tanh(a @ b))(xs, ws)
np.testing.assert_allclose(np.asarray(out), np.tanh(x @ w), rtol=1e-5)
print(out.sharding.spec, float(out.sum()), str(xs)[:5])
assert 'jax' not in {k for k, v in sys.modules.items() if v is not None and k.split('.')[0] == 'jax'}
"""


@pytest.mark.parametrize("count", [4, 8])
def test_many_devices_in_a_subprocess_without_jax(count):
    env = dict(os.environ, MINIJAX_CPU_DEVICE_COUNT=str(count))
    proc = subprocess.run([sys.executable, "-c", _SUBPROCESS, str(count)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "P('data', 'model')" in proc.stdout


def test_axis_types_other_than_auto_are_refused():
    devices = minijax.devices()[:2]
    assert minijax.make_mesh((2,), ("x",), devices=devices).axis_types == (minijax.sharding.AxisType.Auto,)
    assert minijax.make_mesh((2,), ("x",), devices=devices, axis_types=("auto",))
    with pytest.raises(errors.AxisTypeError, match="AxisType.Auto"):
        minijax.make_mesh((2,), ("x",), devices=devices, axis_types=("Explicit",))
