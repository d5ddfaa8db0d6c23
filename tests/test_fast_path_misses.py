"""Eager calls NumPy takes stay on the NumPy host path (DESIGN 3).

Each statement below runs twice: on minijax Arrays (uncommitted, no transformation
active) and on NumPy arrays holding the same values. With ``debug_dispatch_paths`` the
minijax run must count no call of a lax definition, and its result must be NumPy's
(values, dtype, shape), also after the inputs are then written in place (so views are
views where NumPy gives views). A weakly typed 0-d Array (``np.log(2 * np.pi)``) stands
for the Python scalar it was made from: that is NumPy's operand there (NEP 50)."""

import math

import numpy as onp
import pytest

import minijax
import minijax.numpy as mnp
from minijax.runtime import numpy_dispatch

_X = onp.arange(12.0).reshape(3, 4) * 0.5 - 1.5
_Y = onp.array([0, 2, 1])

# statements setting ``r``. Names: x (3x4 float64), x32 (float32), y (int64 [0, 2, 1]),
# i0 (y[2]: a 0-d result, 1), w (a weak float scalar), wi (a weak int scalar, 2);
# np is minijax.numpy or numpy, onp is numpy.
INDEX = [
    "r = x[range(3), list(y)]", "r = x[range(3), y]", "r = x[range(2)]",
    "r = x[range(1, 3), 1:]", "r = x[(range(2), [1, 3])]", "r = x[1:, range(2)]",
    "r = x[1:][0, range(2)]", "r = x.T[range(2)]", "r = x[range(0)]",
    "r = x[[0, 2]]", "r = x[[i0, i0]]", "r = x[[[0, 1], [2, 0]]]", "r = x[[]]",
    "r = x[[y, y]]", "r = x[[True, False, True]]", "r = x[:, [True, False, True, False]]",
    "r = x[None, ..., [1, 2]]", "r = x[[0, 1], 2:]", "r = x[1, [0, 3]]",
    "r = x[onp.array([0, 2])]", "r = x[y[1:]]", "r = x[y > 0]", "r = x[x > 0]",
    "r = x[x[:, 0] > -1, :2]", "r = x[i0]", "r = x[i0, i0]", "r = x[onp.int64(1)]",
    "r = x[wi]", "r = x[wi, range(2)]", "r = x[1:, ::2]", "r = x[1]", "r = x[..., None]",
]
WRITE = [
    "x[range(3), y] -= 1; r = x", "x[range(3), list(y)] = 0; r = x",
    "x[range(3), y] += w; r = x", "x[[0, 2]] = w; r = x", "x[y > 0] = onp.float32(3); r = x",
    "x[i0] = [1, 2, 3, 4]; r = x", "x[:, [True, False, True, False]] = x[1, :2]; r = x",
    "x[1:][0] *= 2; r = x", "x[(0, range(4))] = (1.0, 2.0, 3.0, 4.0); r = x",
    "x[None, 0] = i0; r = x", "x[0] = range(4); r = x", "x[[0, 1], 1:3] = x[2, :2]; r = x",
    "x += w; r = x", "x += y[:, None]; r = x", "x *= x[0]; r = x",
    "x -= [1.0, 2.0, 3.0, 4.0]; r = x", "x /= (1.0, 2.0, 3.0, 4.0); r = x",
    "x += onp.float64(2); r = x", "x += i0; r = x", "x **= wi; r = x",
    "v = x[1:]; v += 1; r = x", "v = x[1:]; v[0, range(2)] = w; r = x",
    "s = w; s += x; r = s", "s = w; s *= 2; r = s",
]
OPERATORS = [
    "r = x + w", "r = w * x", "r = x32 * w", "r = w * x32", "r = w - x32", "r = w + w",
    "r = -w", "r = abs(-w)", "r = wi * 2", "r = w < 1", "r = 2 * w - wi", "r = wi / 2",
    "r = wi // 3", "r = -0.5 * w", "r = w ** 2", "r = x > w",
    "r = x[0] @ x[1]", "r = x + [1.0, 2.0, 3.0, 4.0]", "r = x + (1.0, 2.0, 3.0, 4.0)",
    "r = [1.0, 2.0, 3.0, 4.0] - x", "r = np.multiply(w, [1.0, 2.0])", "r = x * onp.float32(2)",
    "r = onp.float32(2) * x", "r = x + i0", "r = i0 * x", "r = x[0] + x[1:][0]",
    "r = x @ x.T", "r = x32 + x", "r = y + True", "r = x ** 2", "r = 2 ** y",
    "r = x // 0.7", "r = x % 2", "r = y & 1", "r = y << 1", "r = x == [1, 2, 3, 4]",
    "r = x.sum() * x", "r = x.sum() - 0.5", "r = -x[1:]", "r = ~y",
    # a weakly typed array (np.where of Python scalars) next to its own dtype or scalars
    "m = np.where(x > 0, 1.0, 0.0); r = x * m", "m = np.where(x > 0, 1.0, 0.0); r = m * x",
    "m = np.where(x > 0, 1.0, 0.0); r = m * 2 - m", "m = np.where(x > 0, 1.0, 0.0); r = -m",
    "m = np.where(y > 0, 1, 0); r = m * 2.5", "m = np.where(x > 0, 1.0, 0.0); r = m < x",
    "m = np.where(x > 0, 1.0, 0.0); x *= m; r = x",
]
FUNCTIONS = [
    "r = np.log(2 * np.pi)", "r = np.add(w, x)", "r = np.exp(-w * x)",
    "r = 0.5 * np.log(2 * np.pi) + x", "r = np.maximum(x, 0)", "r = np.where(x > 0, x, w)",
    "r = np.sum(x, axis=0)", "r = np.mean(x[1:])", "r = np.dot(x, [1.0, 2.0, 3.0, 4.0])",
    "r = np.concatenate([x, x[:1]])", "r = np.stack([y, y])", "r = np.clip(x, -w, w)",
    "r = np.sqrt(abs(x))", "r = np.tanh(x) * w", "r = np.argmax(x, axis=1)",
    "r = np.exp(x - np.max(x, axis=1, keepdims=True))", "r = x.sum(axis=1) / w",
    "r = x.reshape([4, 3])", "r = x.reshape(i0 * 4, 3)", "r = np.multiply(x, x32[0])",
    "r = np.add(x[1:], [1.0, 2.0, 3.0, 4.0])", "r = np.log(x[1:][1:] + 2)",
    "r = np.maximum(x, i0)", "r = np.power(wi, 3)", "r = np.zeros_like(x) + w",
    "r = list(y)", "r = list(x)", "r = list(x[1:, 0])", "r = [e * 2 for e in y]",
]


def _inputs(lib):
    if lib is onp:
        ns = {"x": _X.copy(), "x32": _X.astype(onp.float32), "y": _Y.copy(),
              "w": math.log(2 * math.pi), "wi": 2}
    else:
        ns = {"x": mnp.array(_X), "x32": mnp.array(_X, dtype=mnp.float32),
              "y": mnp.array(_Y), "w": mnp.log(2 * mnp.pi), "wi": mnp.floor_divide(5, 2)}
        assert ns["w"].weak_type and ns["wi"].weak_type
    ns["i0"] = ns["y"][2]
    ns.update(np=lib, onp=onp)
    return ns


def _check_same(got, want, stmt):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), stmt
        for g, e in zip(got, want):
            _check_same(g, e, stmt)
        return
    assert isinstance(got, mnp.ndarray), (stmt, type(got))
    g, e = onp.asarray(got), onp.asarray(want)
    assert (g.shape, g.dtype) == (e.shape, e.dtype), stmt
    onp.testing.assert_array_equal(g, e, err_msg=stmt)


@pytest.fixture
def counting():
    before = minijax.config.debug_dispatch_paths
    minijax.config.update("debug_dispatch_paths", True)
    numpy_dispatch.lax_definition_counts.clear()
    yield numpy_dispatch.lax_definition_counts
    minijax.config.update("debug_dispatch_paths", before)
    numpy_dispatch.lax_definition_counts.clear()


@pytest.mark.parametrize("stmt", INDEX + WRITE + OPERATORS + FUNCTIONS)
def test_stays_on_host_path(stmt, counting):
    want_ns, got_ns = _inputs(onp), _inputs(mnp)
    counting.clear()
    exec(stmt, got_ns)
    assert counting == {}, f"{stmt}: fell back to the lax path {counting}"
    exec(stmt, want_ns)
    _check_same(got_ns["r"], want_ns["r"], stmt)
    # a write into the inputs shows in the result where NumPy's result is a view
    for ns in (got_ns, want_ns):
        exec("x += 1; y += 1", ns)
    _check_same(got_ns["r"], want_ns["r"], stmt + " (after writing the inputs)")
    assert counting == {}, f"{stmt}: fell back to the lax path {counting}"


def test_weak_scalar_results_stay_weak(counting):
    w = mnp.log(2 * mnp.pi)
    for r in (-w, 2 * w, w + w, w * 3, abs(w), mnp.floor_divide(5, 2) * 2):
        assert r.weak_type and r.shape == ()
    x32 = mnp.ones(3, mnp.float32)
    assert (w * x32).dtype == mnp.float32 and not (w * x32).weak_type
    assert (w < 1).dtype == mnp.bool_ and not (w < 1).weak_type
    assert counting == {}


def test_counter_counts_lax_definitions_only_in_debug_mode(counting):
    x = minijax.device_put(mnp.arange(3.0), minijax.devices()[0])   # committed: lax
    x + 1
    assert counting == {"__add__": 1}
    minijax.config.update("debug_dispatch_paths", False)
    x + 1
    assert counting == {"__add__": 1}
    minijax.jit(lambda a: a * 2)(mnp.arange(3.0))   # traced, not eager: not counted
    minijax.config.update("debug_dispatch_paths", True)
    minijax.jit(lambda a: a * 3)(mnp.arange(3.0))
    assert counting == {"__add__": 1}
