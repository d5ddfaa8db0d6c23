"""The Array object protocol: conversion, repr, devices, mutation sugar, import hygiene."""

import copy
import pickle
import subprocess
import sys

import numpy as onp
import pytest

import minijax
import minijax.numpy as np


def test_repr_and_str():
    assert repr(np.array([1.0, 2.0])) == "Array([1., 2.], dtype=float64)"
    assert repr(np.array([1, 2], dtype=np.int32)) == "Array([1, 2], dtype=int32)"
    assert str(np.array([1.0, 2.0])) == "[1. 2.]"
    assert "weak_type=True" in repr(minijax.jit(lambda x: x)(2.0))


def test_numpy_interop():
    x = np.arange(6.0).reshape(2, 3)
    h = onp.asarray(x)
    assert isinstance(h, onp.ndarray) and h.shape == (2, 3) and not h.flags.writeable
    onp.testing.assert_array_equal(onp.add(x, 1), onp.arange(6.0).reshape(2, 3) + 1)
    onp.testing.assert_array_equal(onp.from_dlpack(x), h)
    assert x.__dlpack_device__() == (1, 0)
    assert float(np.array(2.5)) == 2.5 and int(np.array(3)) == 3 and bool(np.array(True))
    assert x.tolist() == h.tolist() and np.array(4.0).item() == 4.0
    src = onp.ones(3)
    a, b = np.asarray(src), np.array(src)
    src[0] = 5.0   # asarray shares a NumPy input's memory (as NumPy's); array copies it
    assert float(a.sum()) == 7.0 and float(b.sum()) == 3.0


def test_devices_and_device_put():
    devs = minijax.devices()
    assert devs and devs[0].platform == "cpu"
    x = minijax.device_put(onp.arange(3.0), devs[0])
    assert x.device == devs[0] and x.committed()
    assert x.block_until_ready() is x
    y = minijax.jit(lambda a: a * 2)(x)
    assert y.device == devs[0]
    onp.testing.assert_array_equal(onp.asarray(y), [0.0, 2.0, 4.0])
    tree = minijax.device_put({"a": onp.ones(2), "b": [3.0]})
    assert isinstance(tree["a"], minijax.Array)
    assert minijax.block_until_ready(tree) is tree


def test_block_until_ready_of_a_batch_waits_for_every_array_in_it():
    f = minijax.jit(lambda a: a * 2)
    for batch in ([f(np.ones(3)) for _ in range(4)],
                  (f(np.ones(2)), [None, 1.5, onp.float32(2), onp.ones(2), (f(np.ones(1)),)]),
                  [f(np.ones(2)), {"k": f(np.ones(2))}, minijax.random.key(0)]):
        assert minijax.block_until_ready(batch) is batch
        leaves = minijax.tree_util.tree_leaves(batch)
        assert all(leaf.is_ready() for leaf in leaves if isinstance(leaf, minijax.Array))


def _raised(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the class is what is compared
        return e
    return None


def test_to_device_takes_a_device_and_numpys_name():
    x = np.arange(3.0)
    for device in (x.device, minijax.devices()[-1], "cpu"):
        y = x.to_device(device)
        assert y.committed() and y.device in minijax.devices()
        onp.testing.assert_array_equal(onp.asarray(y), onp.asarray(x))
    assert x.to_device(minijax.devices()[-1]).device == minijax.devices()[-1]
    assert minijax.jit(lambda a: a.to_device(a.device) * 2)(x).shape == (3,)
    h = onp.arange(3.0)
    # NumPy's classes for bad devices: ValueError for an unknown name, TypeError otherwise
    for bad in ("gpu", 3, None, 1.5):
        theirs = _raised(lambda: h.to_device(bad))
        for call in (lambda: x.to_device(bad),
                     lambda: minijax.jit(lambda a: a.to_device(bad))(x)):
            ours = _raised(call)
            assert isinstance(ours, minijax.errors.InvalidDeviceError)
            assert isinstance(ours, type(theirs)), (bad, ours, theirs)
            assert "minijax.devices()" in str(ours)
    with pytest.raises(minijax.errors.InvalidDeviceError, match="'gpu'"):
        minijax.device_put(x, "gpu")
    assert type(_raised(lambda: h.to_device("cpu", stream=1))) is ValueError
    with pytest.raises(ValueError, match="stream"):
        x.to_device("cpu", stream=1)


def test_array_namespace_versions():
    x, h = np.ones(2), onp.ones(2)
    for version in (None, "2021.12", "2022.12", "2023.12", "2024.12", np.__array_api_version__):
        assert x.__array_namespace__(api_version=version) is np
    assert h.__array_namespace__(api_version="2023.12") is onp   # NumPy supports it too
    for bad in ("2099.01", "2020.10", "", 2023):
        theirs = _raised(lambda: h.__array_namespace__(api_version=bad))
        assert type(theirs) is ValueError
        with pytest.raises(ValueError, match="api_version|not supported"):
            x.__array_namespace__(api_version=bad)
    assert type(_raised(lambda: h.__array_namespace__("2023.12"))) is TypeError
    with pytest.raises(TypeError):
        x.__array_namespace__("2023.12")


def test_pickle_and_copy():
    x = np.arange(4.0)
    for y in (pickle.loads(pickle.dumps(x)), copy.copy(x), copy.deepcopy(x), x.copy()):
        onp.testing.assert_array_equal(onp.asarray(y), onp.asarray(x))
        assert y.dtype == x.dtype


def test_inplace_operators_rebind_the_object():
    x = np.zeros(3)
    alias = x
    x += 1
    assert alias is x
    onp.testing.assert_array_equal(onp.asarray(alias), [1.0, 1.0, 1.0])
    i = np.zeros(3, dtype=np.int64)
    with pytest.raises(TypeError, match="same_kind"):
        i += 1.5
    with pytest.raises(ValueError, match="broadcast"):
        x += np.ones((2, 3))

    @minijax.jit
    def f(v):
        w = v
        w *= 2
        return v   # the alias sees the update inside jit too
    onp.testing.assert_array_equal(onp.asarray(f(np.ones(2))), [2.0, 2.0])
    assert float(minijax.grad(lambda v: (lambda w: (w.__imul__(3), w)[1])(v) * 1.0)(2.0)) == 3.0


def test_iteration_and_len():
    x = np.arange(6.0).reshape(3, 2)
    assert len(x) == 3
    rows = list(x)
    onp.testing.assert_array_equal(onp.asarray(rows[2]), [4.0, 5.0])
    out = minijax.jit(lambda a: sum(r for r in a))(x)
    onp.testing.assert_array_equal(onp.asarray(out), [6.0, 9.0])
    with pytest.raises(TypeError):
        iter(np.array(1.0))


def test_arrays_are_unhashable_and_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        hash(np.ones(2))
    with pytest.raises(TypeError, match="asarray"):
        minijax.Array(onp.ones(2))


def test_import_is_quiet_and_lazy():
    code = ("import minijax.numpy as np, minijax.backend as mb; "
            "assert not mb.get_backend().client_made; "
            "x = minijax.jit(lambda a: a + 1)(np.ones(2)); "
            "print(float(x.sum()))")
    code = "import minijax; " + code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "4.0", out.stderr[-3000:]
    assert "pjrt" not in out.stderr.lower() and out.stderr.strip() == ""


def test_copies_are_new_objects_under_every_transformation():
    def f(x):
        copies = [np.array(x), np.asarray(x, copy=True), np.copy(x), np.astype(x, x.dtype)]
        for c in copies:
            c += 1.0
        same = np.asarray(x)
        assert same is x
        return x, copies
    x = np.asarray(onp.arange(3.0))
    for fn in (f, minijax.jit(f)):
        out, copies = fn(x)
        onp.testing.assert_array_equal(onp.asarray(out), onp.arange(3.0))
        for c in copies:
            onp.testing.assert_array_equal(onp.asarray(c), onp.arange(3.0) + 1)
    g = minijax.grad(lambda v: sum(np.sum(c) for c in f(v)[1]) + np.sum(f(v)[0]))
    onp.testing.assert_array_equal(onp.asarray(g(x)), onp.full(3, 5.0))


# ---------------------------------------------------------------- asarray shares, as NumPy's

def test_asarray_of_ndarray_shares_memory_both_ways():
    src = onp.arange(6.0).reshape(2, 3)
    a = np.asarray(src)
    assert np.shares_memory(a, src)
    a[0, 0] = -1.0          # a write through the Array is seen by the ndarray
    src[1, 2] = 9.0         # and a write to the ndarray by the Array
    want = onp.array([[-1.0, 1, 2], [3, 4, 9]])
    onp.testing.assert_array_equal(src, want)
    onp.testing.assert_array_equal(onp.array(a), want)
    row = a[1]              # views of the Array share the same memory
    row += 1
    assert src[1, 0] == 4.0
    assert np.asarray(src[:, 1:]).shape == (2, 2)   # non-contiguous inputs too
    assert np.shares_memory(np.asarray(src[:, 1:]), src)


def test_asarray_copies_when_asked_or_when_the_dtype_changes():
    src = onp.arange(3.0)
    for a in (np.asarray(src, copy=True), np.array(src), np.asarray(src, dtype=np.float32)):
        assert not np.shares_memory(a, src)


@pytest.mark.parametrize("dtype", ["i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8",
                                   "c8", "c16"])
def test_byteswapped_ndarrays_convert_to_native_order(dtype):
    native = (onp.arange(-3, 9).reshape(3, 4) * 1.5).astype(dtype)
    swapped = native.astype(onp.dtype(dtype).newbyteorder())
    assert not swapped.dtype.isnative and (swapped == native).all()
    for a in (np.asarray(swapped), np.array(swapped), np.asarray(swapped[:, ::2]),
              np.asarray(swapped[1, 2]), np.asarray(swapped, dtype=swapped.dtype)):
        host = onp.asarray(a)
        assert host.dtype == onp.dtype(dtype) and host.dtype.isnative
        onp.testing.assert_array_equal(host, native[:, ::2] if a.shape == (3, 2) else
                                       native[1, 2] if a.shape == () else native)
    # as an operand, eagerly and under transformations
    onp.testing.assert_array_equal(onp.asarray(np.add(swapped, 1)), native + 1)
    jitted = minijax.jit(lambda x: x * 2)(swapped)
    assert jitted.dtype == onp.dtype(dtype)
    onp.testing.assert_array_equal(onp.asarray(jitted), native * 2)
    rows = minijax.vmap(lambda r: r.sum())(swapped)
    onp.testing.assert_allclose(onp.asarray(rows), native.sum(axis=1), rtol=1e-3)
    assert np.zeros(2, dtype=swapped.dtype).dtype == onp.dtype(dtype)
    with pytest.raises(ValueError, match="copy"):
        np.asarray(swapped, copy=False)


def test_grad_through_a_byteswapped_input():
    x = onp.linspace(-1.0, 1.0, 5).astype(">f8")
    g = minijax.grad(lambda v: (np.asarray(v) ** 2).sum())(x)
    onp.testing.assert_allclose(onp.asarray(g), 2 * x.astype("f8"), rtol=1e-12)


def test_shared_ndarray_stays_writable_after_export_and_jit():
    src = onp.arange(4.0)
    a = np.asarray(src)
    exported = onp.asarray(a)              # an export marks minijax's own view read-only
    assert not exported.flags.writeable
    assert src.flags.writeable             # ... not the caller's ndarray
    out = minijax.jit(lambda x: x * 2)(a)
    src[0] = 7.0                           # the caller can still write its array
    onp.testing.assert_array_equal(onp.asarray(out), [0.0, 2, 4, 6])
    a[1] = -1.0                            # after an export the Array's write copies first
    assert src[1] == 1.0 and float(a[1]) == -1.0 and float(a[0]) == 7.0
    onp.testing.assert_array_equal(exported, [7.0, 1, 2, 3])


def test_asarray_of_read_only_ndarray_copies_on_write():
    src = onp.arange(3.0)
    src.flags.writeable = False
    a = np.asarray(src)
    a[0] = 5.0
    assert src[0] == 0.0 and float(a[0]) == 5.0


def test_asarray_under_jit_still_stages_the_input():
    src = onp.arange(3.0)
    f = minijax.jit(lambda x: np.asarray(src) + x)
    onp.testing.assert_array_equal(onp.asarray(f(1.0)), src + 1)


def test_from_dlpack_shares_unless_copy():
    src = onp.arange(3.0)
    assert np.shares_memory(np.from_dlpack(src), src)
    assert not np.shares_memory(np.from_dlpack(src, copy=True), src)


def test_empty_is_uninitialised_but_shaped_and_writable():
    for got, want in ((np.empty((2, 3)), onp.empty((2, 3))),
                      (np.empty(4, np.int32), onp.empty(4, onp.int32)),
                      (np.empty_like(np.ones((2, 2), np.float32)),
                       onp.empty_like(onp.ones((2, 2), onp.float32)))):
        assert got.shape == want.shape and got.dtype == want.dtype
        got[...] = 1
        onp.testing.assert_array_equal(onp.asarray(got), onp.ones(want.shape))
    # under jit there is no uninitialised memory: zeros
    out = minijax.jit(lambda x: np.empty_like(x) + x)(np.arange(3.0))
    onp.testing.assert_array_equal(onp.asarray(out), [0.0, 1, 2])


def test_minijax_array_is_the_type_of_eager_and_traced_arrays():
    """As ``jax.Array``: ``isinstance(x, minijax.Array)`` holds for eager arrays, for the
    tracers that stand for them under jit, grad and vmap, and for typed PRNG keys; not
    for NumPy's arrays or Python numbers. ``minijax.numpy.ndarray`` stays the eager
    array's own class (``type(x) is np.ndarray``, as in NumPy)."""
    x = np.ones(3)
    assert isinstance(x, minijax.Array) and type(x) is np.ndarray
    assert not isinstance(onp.ones(2), minijax.Array) and not isinstance(1.0, minijax.Array)
    assert isinstance(minijax.random.key(0), minijax.Array)
    seen = []

    def f(a):
        seen.append(isinstance(a, minijax.Array))
        return a * 2
    minijax.jit(f)(x)
    minijax.grad(lambda a: f(a).sum())(x)
    minijax.vmap(f)(np.ones((2, 3)))
    assert seen == [True, True, True]
    assert issubclass(np.ndarray, minijax.Array)
