"""Trace state is per thread: a transformation active in one thread leaves the others
eager; compiled calls from many threads at once give the right results."""

import threading

import numpy as onp

import minijax
import minijax.numpy as np
from minijax.core import Tracer
from minijax.runtime.array import Array

TIMEOUT = 60


def _run_threads(targets):
    errors = []

    def guarded(fn):
        def run():
            try:
                fn()
            except BaseException as e:   # reported by the main thread
                errors.append(e)
        return run

    threads = [threading.Thread(target=guarded(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
        assert not t.is_alive(), "a thread hung"
    if errors:
        raise errors[0]


def test_eager_ops_in_one_thread_while_another_traces():
    host = onp.linspace(0.1, 0.9, 6).reshape(2, 3)
    for iteration in range(20):
        tracing, eager_done = threading.Event(), threading.Event()
        seen = {}

        def traced(a):
            b = np.sin(a) * 2 + iteration       # staged: a is a tracer here
            seen["tracer"] = isinstance(b, Tracer)
            tracing.set()
            assert eager_done.wait(TIMEOUT)   # the trace stays open meanwhile
            return b.sum(axis=0)

        def tracer_thread():
            out = minijax.jit(traced)(np.asarray(host))
            onp.testing.assert_allclose(onp.asarray(out), (onp.sin(host) * 2 + iteration).sum(0))

        def eager_thread():
            assert tracing.wait(TIMEOUT)
            try:
                x = np.asarray(host)
                y = np.sin(x) * 2 + 1
                assert type(y) is Array
                onp.testing.assert_allclose(onp.asarray(y), onp.sin(host) * 2 + 1)
                s = np.sum(x[0] @ x.T)
                assert type(s) is Array and float(s) == float((host[0] @ host.T).sum())
                z = x.copy()
                z += 1.0
                assert type(z) is Array
                d = minijax.grad(lambda t: np.sum(np.sin(t)))(x)   # a trace of its own
                assert type(d) is Array
                onp.testing.assert_allclose(onp.asarray(d), onp.cos(host))
            finally:
                eager_done.set()

        _run_threads([tracer_thread, eager_thread])
        assert seen["tracer"]


def test_compiled_calls_from_eight_threads():
    f = minijax.jit(lambda a, b: np.tanh(a) @ b + 1.0)
    rng = onp.random.default_rng(0)
    inputs = [(rng.normal(size=(4, 4)), rng.normal(size=(4, 2))) for _ in range(8)]
    f(np.asarray(inputs[0][0]), np.asarray(inputs[0][1]))   # compiled once, then shared
    start = threading.Barrier(8)

    def worker(a, b):
        def run():
            x, y = np.asarray(a), np.asarray(b)
            expected = onp.tanh(a) @ b + 1.0
            start.wait(TIMEOUT)
            for _ in range(200):
                onp.testing.assert_allclose(onp.asarray(f(x, y)), expected, rtol=1e-12)
        return run

    _run_threads([worker(a, b) for a, b in inputs])


def test_first_calls_from_eight_threads_trace_and_compile_concurrently():
    g = minijax.jit(lambda a: np.cumsum(a * 3.0) - a)
    start = threading.Barrier(8)

    def worker(n):
        def run():
            host = onp.arange(float(n + 1))
            start.wait(TIMEOUT)
            for _ in range(3):
                out = g(np.asarray(host))
                assert type(out) is Array
                onp.testing.assert_allclose(onp.asarray(out), onp.cumsum(host * 3.0) - host)
        return run

    _run_threads([worker(n) for n in range(8)])
