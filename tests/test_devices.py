"""Two CPU devices (the suite runs with ``MINIJAX_CPU_DEVICE_COUNT=2``, tests/conftest.py):
a computation runs where its committed inputs live, eagerly (both eager backends), under
``jit``, ``grad`` and ``vmap``, and gives NumPy's values there."""

import os
import subprocess
import sys

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax.config import config

X = onp.arange(12.0).reshape(3, 4) / 7.0
A = onp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def _program(xp, x, a):
    y = xp.sin(x) * 2.0 + x.sum(axis=0)
    z = a @ xp.linalg.solve(a, y[:, :3])
    return xp.concatenate([y[1:, ::2].ravel(), xp.sort(z, axis=None), xp.cumsum(x[0])])


@pytest.fixture
def second():
    devices = minijax.devices()
    assert len(devices) >= 2, "the suite runs with two CPU devices (tests/conftest.py)"
    return devices[1]


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_eager_runs_on_the_committed_device(second, backend):
    config.update("eager_backend", backend)
    x, a = minijax.device_put(X, second), minijax.device_put(A, second)
    out = _program(np, x, a)
    assert out.device == second and out.committed()
    onp.testing.assert_allclose(onp.asarray(out), _program(onp, X, A), rtol=1e-12)


def test_jit_grad_and_vmap_run_on_the_committed_device(second):
    x, a = minijax.device_put(X, second), minijax.device_put(A, second)
    out = minijax.jit(lambda x, a: _program(np, x, a))(x, a)
    assert out.device == second
    onp.testing.assert_allclose(onp.asarray(out), _program(onp, X, A), rtol=1e-12)

    g = minijax.jit(minijax.grad(lambda x: np.sum(np.sin(x) ** 2)))(x)
    assert g.device == second
    onp.testing.assert_allclose(onp.asarray(g), onp.sin(2 * X), rtol=1e-12)

    rows = minijax.vmap(lambda r: np.dot(a, r[:3]))(x)
    assert rows.device == second
    onp.testing.assert_allclose(onp.asarray(rows), X[:, :3] @ A.T, rtol=1e-12)


def test_the_same_program_on_each_device_and_back(second):
    first = minijax.devices()[0]
    f = minijax.jit(lambda v: np.tanh(v) @ v.T)
    outs = [f(minijax.device_put(X, d)) for d in (first, second, first)]
    assert [o.device for o in outs] == [first, second, first]
    for o in outs:
        onp.testing.assert_allclose(onp.asarray(o), onp.tanh(X) @ X.T, rtol=1e-12)
    moved = minijax.device_put(outs[1], first)
    assert moved.device == first
    onp.testing.assert_array_equal(onp.asarray(moved), onp.asarray(outs[1]))


def test_inputs_committed_to_two_devices_are_refused(second):
    x = minijax.device_put(X, second)
    y = minijax.device_put(X, minijax.devices()[0])
    for run in (lambda: x + y, lambda: minijax.jit(lambda a, b: a * b)(x, y)):
        with pytest.raises(ValueError, match="committed to different devices"):
            run()


# ---------------------------------------------------------------- placement and views

def _committed_views(xp, put):
    """Views of a committed array and in-place updates in sequence; returns every array
    made, to compare with NumPy's."""
    y = put(xp.arange(12.0))
    w = y[1:7]          # a view
    v = w[::2]          # a view of a view
    e = y[5]            # an element (a copy)
    y[2] = 100.0        # seen by w and v
    w[0] = -1.0         # written into y
    v[1:] = v[:2]       # overlapping, through two views
    y += 1.0
    m = y[4:8][::-1]    # a reversed view of a view
    m[1:3] = xp.arange(2.0)
    return [y, w, v, e, m]


@pytest.mark.parametrize("index", [0, 1])
def test_views_of_committed_arrays_see_updates_as_numpys(index):
    device = minijax.devices()[index]
    outs = _committed_views(np, lambda a: minijax.device_put(a, device))
    expected = _committed_views(onp, lambda a: a)
    for out, want in zip(outs, expected):
        onp.testing.assert_array_equal(onp.asarray(out), want)
        assert out.device == device and out.committed()
    y, w = outs[:2]
    assert w.base is y and (w * 2).device == device and np.sin(w[1:]).device == device


def test_committed_views_on_the_xla_backend_and_under_jit(second):
    y = minijax.device_put(onp.arange(6.0), second)
    w = y[1:4]

    def update(x):
        x[2] = 100.0
        return x[1:3].sum()

    s = minijax.jit(update)(y)   # the write-back reaches w, a view of y
    assert s.device == second and float(s) == 101.0
    onp.testing.assert_array_equal(onp.asarray(w), [1.0, 100.0, 3.0])
    assert y.device == second and w.device == second

    config.update("eager_backend", "xla")
    z = y[::2] * 3.0
    z[0] = 7.0
    assert z.device == second and y[1:2].device == second
    onp.testing.assert_array_equal(onp.asarray(z), [7.0, 300.0, 12.0])


def test_committed_arrays_on_two_devices_are_refused_in_indexed_updates(second):
    y = minijax.device_put(onp.arange(6.0), minijax.devices()[0])
    x = minijax.device_put(onp.arange(2.0), second)
    with pytest.raises(ValueError, match="committed to different devices"):
        y[1:3] = x
    with pytest.raises(ValueError, match="committed to different devices"):
        y[1:3] + x
    y[1:3] = np.ones(2)   # an uncommitted value joins y's device
    onp.testing.assert_array_equal(onp.asarray(y), [0, 1, 1, 3, 4, 5])


def test_sharding_devices_and_device_as_jaxs(second):
    jax = pytest.importorskip("jax")
    first = minijax.devices()[0]
    for put, jput in [(lambda a: minijax.device_put(a, second),
                       lambda a: jax.device_put(a, jax.devices()[1])),
                      (lambda a: minijax.device_put(a, first),
                       lambda a: jax.device_put(a, jax.devices()[0])),
                      (np.asarray, jax.numpy.asarray)]:
        x, jx = put(onp.arange(3.0)), jput(onp.arange(3.0))
        s, js = x.sharding, jx.sharding
        assert type(s).__name__ == type(js).__name__ == "SingleDeviceSharding"
        assert [d.id for d in s.device_set] == [d.id for d in js.device_set]
        assert (s.num_devices, s.is_fully_replicated, s.is_fully_addressable,
                s.memory_kind) == (js.num_devices, js.is_fully_replicated,
                                   js.is_fully_addressable, js.memory_kind)
        assert [d.id for d in x.devices()] == [d.id for d in jx.devices()]
        assert x.device.id == jx.device.id and x.committed() == jx.committed
        assert x.devices() == s.device_set and {x.device} == s.device_set
    assert minijax.sharding.SingleDeviceSharding(second) == second_put(second).sharding
    assert hash(minijax.sharding.SingleDeviceSharding(second)) == hash(
        second_put(second).sharding)
    assert minijax.sharding.SingleDeviceSharding(first) != second_put(second).sharding


def second_put(device):
    return minijax.device_put(onp.zeros(2), device)


def test_to_device_and_device_put_with_a_sharding(second):
    first = minijax.devices()[0]
    x = np.arange(4.0)
    assert not x.committed() and x.device == first
    y = x.to_device(second)
    assert y.device == second and y.committed()
    z = y.to_device(minijax.sharding.SingleDeviceSharding(first))
    assert z.device == first and z.committed()
    c = y.to_device(second)   # a copy even on its own device
    c[0] = 9.0
    onp.testing.assert_array_equal(onp.asarray(y), [0.0, 1.0, 2.0, 3.0])
    assert y.to_device("cpu").device == first
    p = minijax.device_put({"a": x}, y.sharding)["a"]
    assert p.device == second and p.sharding == y.sharding
    onp.testing.assert_array_equal(onp.asarray(p), onp.arange(4.0))
    with pytest.raises(NotImplementedError, match="memory_kind"):
        minijax.sharding.SingleDeviceSharding(second, memory_kind="pinned_host")


@pytest.mark.parametrize("how", ["XLA_FLAGS", "JAX_NUM_CPU_DEVICES", "update"])
def test_jax_spellings_of_the_cpu_device_count(how):
    """Programs written for JAX set the host device count its ways; minijax honours them,
    and the count is fixed once the client exists (a later change raises)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MINIJAX_CPU_DEVICE_COUNT", "JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
    setup = ""
    if how == "XLA_FLAGS":
        env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    elif how == "JAX_NUM_CPU_DEVICES":
        env["JAX_NUM_CPU_DEVICES"] = "4"
    else:
        setup = "minijax.config.update('jax_num_cpu_devices', 4)\n"
    code = ("import minijax\n" + setup +
            "print(minijax.device_count())\n"
            "try:\n"
            "    minijax.config.update('jax_num_cpu_devices', 2)\n"
            "except RuntimeError as e:\n"
            "    print('fixed' if 'before minijax first uses' in str(e) else e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.stdout.split() == ["4", "fixed"], out.stderr[-2000:]


_BASE = onp.arange(6.0).reshape(2, 3)
# (name, positional arguments, keywords) of the functions that make an array and take
# device=; "base" stands for an Array of _BASE
_MAKERS = [("zeros", ((2, 3),), {}), ("ones", (4,), {"dtype": onp.int32}), ("empty", (3,), {}),
           ("full", ((2,), 1.5), {}), ("zeros_like", ("base",), {}),
           ("ones_like", ("base",), {"shape": (4,)}), ("empty_like", ("base",), {}),
           ("full_like", ("base", 2.0), {}), ("arange", (5,), {}), ("eye", (3,), {"k": 1}),
           ("linspace", (0.0, 1.0, 5), {}), ("asarray", ([1.0, 2.0],), {}),
           ("asarray", ("base",), {}), ("array", ("base",), {}),
           ("astype", ("base", onp.float32), {})]


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("name, args, kwargs", _MAKERS, ids=[f"{m[0]}-{i}" for i, m in
                                                              enumerate(_MAKERS)])
def test_creation_functions_commit_to_the_device_they_are_given(second, name, args, kwargs,
                                                                backend):
    import jax
    import jax.numpy as jnp
    config.update("eager_backend", backend)
    base = np.asarray(_BASE)
    given = [base if a == "base" else a for a in args]
    out = getattr(np, name)(*given, **kwargs, device=second)
    assert out.committed() and out.devices() == {second}
    jax_given = [jnp.asarray(_BASE) if a == "base" else a for a in args]
    assert getattr(jnp, name)(*jax_given, **kwargs, device=jax.devices()[1]).committed
    want = getattr(onp, name)(*[_BASE if a == "base" else a for a in args], **kwargs)
    assert out.shape == want.shape and out.dtype == want.dtype
    if "empty" not in name:
        onp.testing.assert_array_equal(onp.asarray(out), want)
    for device in ("cpu", minijax.devices()[0]):   # (a platform name: its first device)
        assert getattr(np, name)(*given, **kwargs, device=device).devices() == {
            minijax.devices()[0]}
    with pytest.raises(ValueError, match="unsupported device 'tpu'"):
        getattr(np, name)(*given, **kwargs, device="tpu")
    # under jit the device is checked, and the staged value stays where jit puts it
    staged = minijax.jit(lambda: getattr(np, name)(*given, **kwargs, device=second))()
    onp.testing.assert_array_equal(staged.shape, out.shape)


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_functions_keep_a_committed_placement_and_weak_type_as_jaxs(second, name):
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec
    make = (lambda f: lambda a, **kw: f(a, 3.0, **kw)) if name == "full_like" else (
        lambda f: f)
    ours, theirs = make(getattr(np, name)), make(getattr(jnp, name))
    numpys = make(getattr(onp, name))
    committed = minijax.device_put(np.asarray(_BASE), second)
    committed_jax = jax.device_put(jnp.asarray(_BASE), jax.devices()[1])
    mesh = minijax.sharding.Mesh(onp.array(minijax.devices()), ("x",))
    sharded = minijax.device_put(np.arange(4.0), minijax.sharding.NamedSharding(
        mesh, minijax.sharding.PartitionSpec("x")))
    sharded_jax = jax.device_put(jnp.arange(4.0), NamedSharding(
        Mesh(onp.array(jax.devices()), ("x",)), PartitionSpec("x")))
    weak, weak_jax = minijax.jit(lambda: 2.0)(), jax.jit(lambda: 2.0)()
    for a, b in ((committed, committed_jax), (sharded, sharded_jax), (weak, weak_jax),
                 (np.asarray(_BASE), jnp.asarray(_BASE)), (2.0, 2.0)):
        for kwargs in ({}, {"shape": (3,)}, {"dtype": onp.int32}):
            got, want = ours(a, **kwargs), theirs(b, **kwargs)
            assert got.committed() == want.committed, (a, kwargs)
            assert len(got.devices()) == len(want.devices())
            assert got.weak_type == want.weak_type and got.shape == want.shape
            assert got.dtype == numpys(onp.asarray(a), **kwargs).dtype
            if want.committed and len(want.devices()) == 1:
                assert got.devices() == {minijax.devices()[next(iter(want.devices())).id]}
    assert ours(sharded).sharding == sharded.sharding
