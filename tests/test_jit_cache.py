"""The jit cache: compiled programs reused across ``jit(f)`` wrappers of one function,
bounded per function (LRU), and no memory kept per call."""

import contextlib
import gc
import tracemalloc
import weakref

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import api


def test_jitted_calls_keep_no_memory():
    f = minijax.jit(lambda a, b: a * b + 1.0)
    x, y = np.asarray(onp.arange(4.0)), np.asarray(onp.ones(4))
    for _ in range(2000):
        f(x, y)
    n = 20_000
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(n):
            f(x, y)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = [s for s in after.compare_to(before, "lineno") if s.count_diff > n // 10]
    assert not grown, grown[:3]
    onp.testing.assert_array_equal(onp.asarray(f(x, y)), onp.arange(4.0) + 1)


@contextlib.contextmanager
def _config(name, value):
    old = minijax.config.read(name)
    minijax.config.update(name, value)
    try:
        yield
    finally:
        minijax.config.update(name, old)


def _counting(fn):
    calls = []

    def f(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)
    return f, calls


def test_jit_of_the_same_function_reuses_its_program():
    f, traces = _counting(lambda a, k=1: a * k + 1)
    x = np.asarray(onp.arange(3.0))
    for _ in range(5):
        onp.testing.assert_array_equal(onp.asarray(minijax.jit(f)(x)), [1.0, 2.0, 3.0])
    assert len(traces) == 1
    minijax.jit(f)(np.asarray(onp.arange(4.0)))          # a new signature traces
    assert len(traces) == 2
    out = minijax.jit(f, static_argnames="k")(x, k=3)    # other static arguments: their own
    onp.testing.assert_array_equal(onp.asarray(out), [1.0, 4.0, 7.0])
    assert len(traces) == 3
    minijax.jit(f, static_argnames="k")(x, k=3)
    assert len(traces) == 3
    minijax.jit(f).clear_cache()
    minijax.jit(f)(x)
    assert len(traces) == 4


def test_jit_cache_holds_functions_weakly():
    f, _ = _counting(lambda a: a + 1)
    g = minijax.jit(f)
    g(np.asarray(onp.arange(3.0)))
    assert f in api._jit_states
    ref = weakref.ref(f)
    del f, g
    gc.collect()
    assert ref() is None   # neither the cache nor its programs kept it alive


def test_jit_cache_is_a_bounded_lru():
    f, traces = _counting(lambda a: a * 2)
    g = minijax.jit(f)
    with _config("jit_cache_size", 3):
        xs = [np.asarray(onp.arange(float(n))) for n in range(1, 6)]
        for x in xs:
            onp.testing.assert_array_equal(onp.asarray(g(x)), onp.asarray(x) * 2)
        assert len(traces) == 5
        state = g._state
        assert len(state.traced) <= 3 and len(state.fast) <= 3 and len(state.fast_ids) <= 3
        g(xs[-1])                  # recently used: kept
        assert len(traces) == 5
        g(xs[0])                   # least recently used: dropped, traced again
        assert len(traces) == 6
        onp.testing.assert_array_equal(onp.asarray(g(xs[0])), [0.0])


def test_eager_xla_cache_is_bounded():
    from minijax.runtime import dispatch
    with _config("eager_backend", "xla"), _config("eager_cache_size", 2):
        for n in range(1, 5):
            x = onp.arange(float(n))
            onp.testing.assert_allclose(onp.asarray(np.sin(np.asarray(x))), onp.sin(x))
            assert len(dispatch._eager_cache) <= 2


def test_cache_sizes_are_validated():
    for name in ("jit_cache_size", "eager_cache_size"):
        for bad in (0, -1, 2.5, "8"):
            with pytest.raises(ValueError, match=name):
                minijax.config.update(name, bad)


def test_pytree_arguments_take_the_fast_path_and_agree():
    """Tuples, lists and dicts of Arrays (parameters) are called through the cached
    executable directly after the first call, with the same results and write-back as
    the general path; other containers and committed leaves take the general path."""
    calls = []

    def step(params, x):
        calls.append(1)
        params["w"][0] += 1.0   # an in-place update of a leaf, written back
        return {"y": x @ params["w"] + params["b"][0], "n": params["b"][1]}

    f = minijax.jit(step)
    w, b0, b1 = np.ones((3, 2)), np.zeros(2), np.arange(2.0)
    x = np.arange(3.0)
    for i in range(3):
        out = f({"w": w, "b": [b0, b1]}, x)
        ref_w = onp.ones((3, 2))
        ref_w[0] += i + 1
        onp.testing.assert_array_equal(onp.asarray(w), ref_w)
        onp.testing.assert_array_equal(onp.asarray(out["y"]), onp.arange(3.0) @ ref_w)
        onp.testing.assert_array_equal(onp.asarray(out["n"]), [0.0, 1.0])
    assert len(calls) == 1   # traced once
    assert f._state.fast_trees   # and the later calls were direct
    # the same leaf twice: traced as one value (the general path), as NumPy aliases it
    g = minijax.jit(lambda p: p[0] + p[1])
    a = np.arange(2.0)
    g((a, np.ones(2)))
    onp.testing.assert_array_equal(onp.asarray(g((a, a))), [0.0, 2.0])
    # a Python scalar leaf and a committed leaf are not fast-path trees
    onp.testing.assert_array_equal(onp.asarray(g((a, 1.0))), [1.0, 2.0])
    c = minijax.device_put(np.ones(2), minijax.devices()[1])
    out = g((c, c))
    assert out.device == minijax.devices()[1]


def test_python_scalar_arguments_take_the_fast_path_weakly_typed():
    """Python scalars among the arguments are weakly typed on the fast path as on the
    general one (float32 * 2.0 stays float32), and a new scalar type is a new entry."""
    f = minijax.jit(lambda x, s: x * s)
    x32 = np.ones(3, dtype=np.float32)
    for s in (2.0, 3.0, 4.0):
        out = f(x32, s)
        assert out.dtype == np.float32 and out.tolist() == [s] * 3
    assert f._state.fast_trees
    assert f(x32, 2).dtype == np.float32 and f(x32, True).tolist() == [1.0] * 3
    out = f(x32, 1j)
    assert out.dtype == np.complex64 and out.tolist() == [1j] * 3
    g = minijax.jit(lambda s: s + 1)
    assert [g(1).dtype, g(1.5).dtype, g(True).dtype] == [
        onp.asarray(1).dtype, onp.float64, onp.asarray(1).dtype]
