"""The jit cache: compiled programs reused across ``jit(f)`` wrappers of one function,
bounded per function (LRU), and no memory kept per call."""

import gc
import tracemalloc

import numpy as onp

import minijax
import minijax.numpy as np


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
