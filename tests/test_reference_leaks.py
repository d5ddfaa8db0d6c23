"""The compiled core balances its references (DESIGN 10): calling a hot path many times
leaves no reference behind on the objects it touches (its arguments, their ndarrays,
dtypes, None, NotImplemented, ...) beyond what NumPy's own call leaves, and keeps no
memory. Hand-written C in the ``.pxd`` files (``minijax_ndarray_at``, ...) and Cython's
reference counting both answer here; ``.ci/debug_build`` runs this module under a
debug CPython too."""

import gc
import sys
import tracemalloc

import numpy as onp
import pytest

import minijax
import minijax.numpy as mnp
from minijax.runtime import array as array_module

CALLS = 600


def _arguments():
    h = onp.arange(100.0 * 100).reshape(100, 100)
    a = {"h": h, "x": mnp.asarray(h), "y": mnp.arange(10.0 * 10).reshape(10, 10),
         "v": mnp.arange(100.0), "i": mnp.arange(100), "z": mnp.asarray(3.0),
         "f32": mnp.arange(100, dtype=mnp.float32), "nv": onp.arange(100.0),
         "ni": onp.arange(100), "nf32": onp.arange(100, dtype=onp.float32)}
    a["ro"] = mnp.broadcast_to(a["v"], (3, 100))
    a["nro"] = onp.broadcast_to(a["nv"], (3, 100))
    return a


def _write(target, key, value):
    target[key] = value


def _add_in_place(target, key, value):
    target[key] += value


def _index_error(target):
    try:
        target[1000]
    except IndexError:
        pass


jitted = minijax.jit(lambda a: a * 2.0 + 1.0)

# (name, minijax call, NumPy's call of the same work or None): NumPy's leaves set what
# minijax's may leave (NumPy 2.4's empty and zeros keep a reference to float64 per call)
CASES = [
    ("slice", lambda a: a["x"][1:50], lambda a: a["h"][1:50]),
    ("row", lambda a: a["x"][3], lambda a: a["h"][3]),
    ("element", lambda a: a["x"][3, 4], lambda a: a["h"][3, 4]),
    ("new axis", lambda a: a["x"][:, None], lambda a: a["h"][:, None]),
    ("mask", lambda a: a["v"][a["v"] > 50], lambda a: a["nv"][a["nv"] > 50]),
    ("index array", lambda a: a["v"][a["i"]], lambda a: a["nv"][a["ni"]]),
    ("range index", lambda a: a["v"][range(5)], lambda a: a["nv"][range(5)]),
    ("index error", lambda a: _index_error(a["x"]), lambda a: _index_error(a["h"])),
    ("slice write", lambda a: _write(a["y"], slice(1, 3), 5.0), None),
    ("element write", lambda a: _write(a["y"], (2, 3), 1.5), None),
    ("indexed add", lambda a: _add_in_place(a["y"], a["i"][:5], 1.0), None),
    ("binary", lambda a: a["x"] + a["x"], lambda a: a["h"] + a["h"]),
    ("scalar operand", lambda a: 2.0 - a["v"], lambda a: 2.0 - a["nv"]),
    ("comparison", lambda a: a["v"] < 3, lambda a: a["nv"] < 3),
    ("0-d", lambda a: a["z"] + 1, None),
    ("unary", lambda a: -a["v"], lambda a: -a["nv"]),
    ("transpose", lambda a: a["x"].T, lambda a: a["h"].T),
    ("ravel", lambda a: a["x"].ravel(), lambda a: a["h"].ravel()),
    ("reshape", lambda a: a["x"].reshape(-1), lambda a: a["h"].reshape(-1)),
    ("sum", lambda a: a["x"].sum(), lambda a: a["h"].sum()),
    ("argmax of a broadcast", lambda a: a["ro"].argmax(), lambda a: a["nro"].argmax()),
    ("astype", lambda a: a["x"].astype(mnp.float32), lambda a: a["h"].astype(onp.float32)),
    ("iteration", lambda a: [r for r in a["x"][:10]], lambda a: [r for r in a["h"][:10]]),
    ("list", lambda a: list(a["v"][:10]), lambda a: list(a["nv"][:10])),
    ("asarray of an ndarray", lambda a: mnp.asarray(a["h"]), lambda a: onp.asarray(a["h"])),
    ("ndarray of an Array", lambda a: onp.asarray(a["x"]), lambda a: onp.asarray(a["h"])),
    ("asarray of a list", lambda a: mnp.asarray([[1, 2], [3, 4]]),
     lambda a: onp.asarray([[1, 2], [3, 4]])),
    ("empty", lambda a: mnp.empty((3, 3)), lambda a: onp.empty((3, 3))),
    ("zeros_like", lambda a: mnp.zeros_like(a["x"]), lambda a: onp.zeros_like(a["h"])),
    ("unstack", lambda a: mnp.unstack(a["x"][:5]), lambda a: onp.unstack(a["h"][:5])),
    ("diag_indices", lambda a: mnp.diag_indices(5), lambda a: onp.diag_indices(5)),
    ("unravel_index", lambda a: mnp.unravel_index(a["i"][:5], (10, 10)),
     lambda a: onp.unravel_index(a["ni"][:5], (10, 10))),
    ("ix_", lambda a: mnp.ix_(a["v"][:3], a["v"][:4]),
     lambda a: onp.ix_(a["nv"][:3], a["nv"][:4])),
    ("ufunc", lambda a: mnp.sin(a["v"]), lambda a: onp.sin(a["nv"])),
    ("where", lambda a: mnp.where(a["v"] > 3, a["v"], 0.0),
     lambda a: onp.where(a["nv"] > 3, a["nv"], 0.0)),
    ("argsort with its tie check", lambda a: mnp.argsort(a["f32"][::-1]),
     lambda a: onp.argsort(a["nf32"][::-1], kind="stable")),
    ("block_until_ready", lambda a: minijax.block_until_ready([a["x"], (a["v"], [a["z"]])]),
     None),
    ("float", lambda a: float(a["z"]), None),
    ("jit", lambda a: jitted(a["v"]), None),
]


def _watched(a):
    """The objects whose reference counts a leak would raise."""
    watched = {name: value for name, value in a.items()}
    watched.update({name + "'s host": value._host for name, value in a.items()
                    if type(value) is mnp.ndarray})
    watched.update({"None": None, "True": True, "False": False,
                    "NotImplemented": NotImplemented, "Ellipsis": Ellipsis, "()": (),
                    "Array": mnp.ndarray, "ndarray": onp.ndarray,
                    "absent": array_module.NOT_GIVEN})
    for t in (onp.float64, onp.float32, onp.int64, onp.bool_):
        watched[t.__name__] = t
        watched[t.__name__ + " dtype"] = onp.dtype(t)
    return watched


def _growth(call, a, watched):
    """How much ``CALLS`` calls raise each watched reference count, and traced memory."""
    for _ in range(CALLS // 4):
        call(a)
    gc.collect()
    before = {name: sys.getrefcount(o) for name, o in watched.items()}
    memory = tracemalloc.get_traced_memory()[0]
    for _ in range(CALLS):
        call(a)
    gc.collect()
    memory = tracemalloc.get_traced_memory()[0] - memory
    return {name: sys.getrefcount(o) - before[name] for name, o in watched.items()}, memory


@pytest.mark.parametrize("name, call, numpy_call", CASES, ids=[c[0] for c in CASES])
def test_hot_paths_leave_no_reference_and_no_memory(name, call, numpy_call):
    a = _arguments()
    watched = _watched(a)
    tracemalloc.start()
    try:
        grown, memory = _growth(call, a, watched)
        allowed = _growth(numpy_call, a, watched)[0] if numpy_call else {}
    finally:
        tracemalloc.stop()
    leaks = {k: n for k, n in grown.items() if n - allowed.get(k, 0) >= CALLS // 2}
    assert not leaks, f"{name}: references left per {CALLS} calls: {leaks}"
    # (a leaked Array or ndarray is 64 bytes or more a call)
    assert memory < 16 * CALLS, f"{name}: {memory} bytes kept by {CALLS} calls"
