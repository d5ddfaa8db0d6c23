"""``minijax.debug.print``/``callback`` with ``ordered=True``: compiled programs run the
ordered calls in program order. The oracle is the eager run of the same function,
which runs each call where Python reaches it."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import lax
from minijax.core import get_aval
from minijax.interpreters.lowering import lower_jaxpr
from minijax.interpreters.partial_eval import trace_to_jaxpr


def recorder():
    """``(log, record)``: ``record(tag)(*values)`` is an ordered debug callback
    appending ``(tag, *values)`` to ``log``."""
    log = []

    def record(tag):
        def append(*values):
            log.append((tag, *[np.asarray(v).tolist() for v in values]))
        return lambda *values: minijax.debug.callback(append, *values, ordered=True)
    return log, record


def eager_and_jit(f, *args):
    """The ordered calls' log of ``f(*args)`` run eagerly, then under ``jit``."""
    log, record = recorder()
    f(record, *args)
    eager = list(log)
    log.clear()
    minijax.jit(lambda *a: f(record, *a))(*args)
    return eager, list(log)


def test_many_independent_prints_keep_program_order(capsys):
    @minijax.jit
    def f(x):
        for i in range(24):
            minijax.debug.print("{i} {v}", i=i, v=x * i, ordered=True)
        return x
    f(2.0)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{i} {2.0 * i}" for i in range(24)]


def test_ordered_calls_in_loops_run_iteration_by_iteration():
    def f(record, x, n):
        record("start")(x)

        def fori_body(i, c):
            record("fori")(i, c)
            return c + 1.0
        c = lax.fori_loop(0, 3, fori_body, x)            # static bounds
        c = lax.fori_loop(0, n, fori_body, c)            # traced bounds: a while loop

        def cond(s):
            record("cond")(s[0])
            return s[0] < 3

        def body(s):
            record("body")(s[0])
            record("body2")(s[1])
            return s[0] + 1, s[1] * 2.0
        c = lax.while_loop(cond, body, (0, c))[1]

        def step(carry, xi):
            record("scan")(carry, xi)
            return carry + xi, carry
        lax.scan(step, c, mnp.arange(4.0), reverse=True)
        record("end")(c)
        return c
    eager, compiled = eager_and_jit(f, 1.0, 2)
    assert compiled == eager
    assert [t for t, *_ in compiled].count("cond") == 4
    assert [e[2] for e in compiled if e[0] == "scan"] == [3.0, 2.0, 1.0, 0.0]


def test_ordered_calls_in_cond_branches():
    def f(record, x):
        record("before")(x)
        y = lax.cond(x > 0,
                     lambda v: (record("pos")(v), record("pos2")(v + 1), v * 2)[-1],
                     lambda v: (record("neg")(v), -v)[-1], x)
        index = mnp.int32(x > 0) + 1
        z = lax.switch(index, [lambda v: (record(f"case{k}")(v), v + k)[-1]
                               for k in range(3)], y)
        record("after")(z)
        return z
    for x in (3.0, -3.0):
        eager, compiled = eager_and_jit(f, x)
        assert compiled == eager
        assert [t for t, *_ in compiled][0] == "before"
        assert [t for t, *_ in compiled][-1] == "after"


def test_nested_jit_and_repeated_calls_keep_order():
    def f(record, x):
        @minijax.jit
        def inner(y):
            record("inner")(y)
            return y + 1.0
        record("a")(x)
        y = inner(inner(x))
        record("b")(y)
        return lax.fori_loop(0, 2, lambda i, c: inner(c), y)
    eager, compiled = eager_and_jit(f, 0.0)
    assert compiled == eager
    assert [v for t, v in compiled if t == "inner"] == [0.0, 1.0, 2.0, 3.0]


def test_ordered_under_vmap_runs_in_element_order():
    log, record = recorder()

    def f(x):
        record("first")(x)
        record("second")(x * 10)
        return x
    minijax.vmap(f)(mnp.arange(3.0))
    eager = list(log)
    log.clear()
    minijax.jit(minijax.vmap(f))(mnp.arange(3.0))
    assert log == eager
    assert log == [("first", 0.0), ("first", 1.0), ("first", 2.0),
                   ("second", 0.0), ("second", 10.0), ("second", 20.0)]


def test_ordered_under_grad_sees_forward_values_in_order():
    log, record = recorder()

    def f(x):
        record("in")(x)
        y = mnp.sin(x)
        record("mid")(y)
        return lax.fori_loop(0, 2, lambda i, c: (record("loop")(c), c * 2.0)[-1], y)
    g = minijax.grad(f)(0.5)
    eager = list(log)
    log.clear()
    np.testing.assert_allclose(float(minijax.jit(minijax.grad(f))(0.5)), float(g))
    np.testing.assert_allclose(float(g), 4 * np.cos(0.5))
    assert log == eager
    assert [t for t, _ in log] == ["in", "mid", "loop", "loop"]


def test_unordered_calls_still_all_run_and_ordered_ones_keep_order():
    def f(record, x):
        for i in range(6):
            record(f"o{i}")(x + i)
            minijax.debug.callback(lambda v, i=i: unordered.append(i), x)
        return x
    unordered = []
    eager, compiled = eager_and_jit(f, 1.0)
    assert compiled == eager
    assert sorted(unordered) == sorted(list(range(6)) * 2)


def test_ordered_calls_inside_checkpoint_and_custom_jvp():
    def f(record, x):
        @minijax.custom_jvp
        def g(v):
            record("g")(v)
            return v * 3.0
        g.defjvp(lambda p, t: (g(p[0]), t[0] * 3.0))

        @minijax.checkpoint
        def h(v):
            record("h")(v)
            return mnp.cos(v)
        record("start")(x)
        return h(g(x))
    eager, compiled = eager_and_jit(f, 0.25)
    assert compiled == eager == [("start", 0.25), ("g", 0.25), ("h", 0.75)]


def _lowered(f, *args):
    jaxpr, _ = trace_to_jaxpr(lambda *a: [f(*a)], [get_aval(mnp.asarray(a)) for a in args])
    return lower_jaxpr(jaxpr)


def test_only_programs_with_ordered_calls_carry_a_token():
    def loop(ordered):
        def f(x):
            def body(i, c):
                minijax.debug.print("{}", c, ordered=ordered)
                return c + 1.0
            return lax.fori_loop(0, 3, body, x)
        return f
    assert "!stablehlo.token" in _lowered(loop(True), 1.0)
    assert "!stablehlo.token" not in _lowered(loop(False), 1.0)


def test_order_holds_across_compiled_calls_and_eager_code():
    log, record = recorder()

    @minijax.jit
    def f(x):
        record("jit")(x)
        return mnp.ones((200, 200)) @ (mnp.ones((200, 200)) * x)
    for i in range(3):
        f(float(i))
        record("eager")(i)
    assert log == [(t, float(i)) if t == "jit" else (t, i)
                   for i in range(3) for t in ("jit", "eager")]


def _scenarios(mj, log):
    """Programs using ordered callbacks, written once for minijax and for JAX."""
    lax, jnp = mj.lax, mj.numpy

    def rec(tag):
        def record(v):
            mj.debug.callback(lambda a: log.append((tag, np.asarray(a).tolist())), v,
                              ordered=True)
        return record

    def branchy(x):
        return lax.cond(x > 1, lambda v: (rec("T")(v), v)[1], lambda v: (rec("F")(v), -v)[1], x)

    def remat(x):
        return (rec("r")(x), jnp.sin(x))[1]

    def loops(x):
        def cond(c):
            rec("cond")(c[0])
            return c[0] < 3

        def body(c):
            rec("body")(c[1])
            return c[0] + 1, c[1] * 2.0
        y = lax.while_loop(cond, body, (0, x))[1]
        return lax.scan(lambda c, xi: ((rec("scan")(c * xi), c + xi)[1], c), y,
                        jnp.arange(3.0))[0]
    return {
        "vmap of a cond with a batched predicate": lambda: mj.vmap(branchy)(jnp.arange(3.0)),
        "jit of that": lambda: mj.jit(mj.vmap(branchy))(jnp.arange(3.0)),
        "grad of checkpoint": lambda: mj.grad(mj.checkpoint(remat))(1.0),
        "jit of grad of checkpoint": lambda: mj.jit(mj.grad(mj.checkpoint(remat)))(1.0),
        "jit of loops": lambda: mj.jit(loops)(1.5),
        "jit of vmap of loops": lambda: mj.jit(mj.vmap(loops))(jnp.arange(2.0)),
        "jit of jvp of loops": lambda: mj.jit(lambda x: mj.jvp(loops, (x,), (1.0,)))(1.5),
    }


def test_ordered_calls_match_jax():
    jax = pytest.importorskip("jax")
    jax_log, mini_log = [], []
    jax_runs, mini_runs = _scenarios(jax, jax_log), _scenarios(minijax, mini_log)
    for name in jax_runs:
        jax_log.clear()
        mini_log.clear()
        jax_out = jax_runs[name]()
        mini_out = mini_runs[name]()
        np.testing.assert_allclose(np.asarray(mini_out), np.asarray(jax_out), rtol=1e-6,
                                   err_msg=name)
        assert mini_log == jax_log, name
