"""Breadth benchmark: every public ``minijax.numpy`` / ``numpy.linalg`` function and the
common Array methods and operators, eagerly, against NumPy (and JAX on small inputs).

    python benchmarks/breadth.py [--quick] [--sizes small,medium,large] [--only SUBSTR ...]
                                 [--no-jax] [--json FILE]

Inputs are float64 and seeded: small is 3 (vectors) or 3x3, medium 100x100, large
1000x1000 (1-d functions get the flattened matrix unless their cost is quadratic in
the length, then a vector of the side length). minijax and NumPy run interleaved in
this process, batch by batch, on the same input memory; JAX runs in a subprocess of its
own (small inputs only, with ``jax_enable_x64``) so that minijax is never measured
with JAX loaded. See benchmarks/README.md.

A timed batch keeps its results until it blocks on them, so a batch of 100x100 results
needs tens of megabytes; glibc's allocator hands freed memory back to the system between
batches when it is at the top of the heap, and the next batch then pays page faults
(about a microsecond per 4 KiB page, more than a 100x100 elementwise call). Which
library's batch pays depended on the heap's layout, and medium rows measured 0.2x to
17x from run to run. Both processes (this one and the JAX worker) therefore keep freed
memory (``mallopt``: no trimming, no per-array ``mmap`` below 64 MiB), so every library is
timed on memory already mapped.
"""

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as onp

# The checkout's minijax, not an installed copy of another one.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SIZES = {"small": 3, "medium": 100, "large": 1000}


def keep_freed_memory():
    """glibc: keep freed memory mapped (see the module docstring); elsewhere nothing."""
    import ctypes
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_trim_threshold, 1 << 30)
    mallopt(m_mmap_threshold, 1 << 26)
SEED = 0


# ------------------------------------------------------------------ timing

_BLOCKERS = {}   # {type: how to wait for a value of it}, filled by _blocker


def _blocker(t):
    """How to wait for a value of type ``t``: ``block`` for containers, the type's
    ``block_until_ready`` function for arrays that have one, None for NumPy's (looked up
    once per type)."""
    if issubclass(t, (tuple, list, dict)):
        wait = block
    else:
        wait = getattr(t, "block_until_ready", None)
    _BLOCKERS[t] = wait
    return wait


def _leaf_waits(out):
    """``(leaf, its wait)`` for each array with a wait in ``out`` (nested tuples, lists,
    namedtuples, dicts), of any library."""
    if isinstance(out, dict):
        out = list(out.values())
    for leaf in out if isinstance(out, (tuple, list)) else (out,):
        try:
            wait = _BLOCKERS[type(leaf)]
        except KeyError:
            wait = _blocker(type(leaf))
        if wait is block:
            yield from _leaf_waits(leaf)
        elif wait is not None:
            yield leaf, wait


def block(out):
    """Wait for every asynchronous array in ``out``: for one result (a warm-up, a whole
    program's)."""
    for leaf, wait in _leaf_waits(out):
        wait(leaf)
    return out


def library_wait(name, result):
    """How a batch of ``name``'s results like ``result`` is waited for: the library's own
    ``block_until_ready`` of the batch's list, called once (the wait a user of an
    asynchronous library writes); None when ``result`` holds no array with a wait (any
    NumPy result; a list of floats from ``tolist``, a shape tuple).

    (Waiting leaf by leaf from Python, as ``block`` does, cost a minijax or JAX result
    about 40 ns of calls more than an ndarray, about a third of a 100 ns call's time.)"""
    if next(_leaf_waits(result), None) is None:
        return None
    return importlib.import_module(name).block_until_ready


def _batch(fn, number, wait):
    start = time.perf_counter()
    out = [fn() for _ in range(number)]
    if wait is not None:
        wait(out)
    return time.perf_counter() - start


def _calibrate(fn, wait, target, repeats, budget):
    """``(calls per batch, batches still to time, best seconds per call so far)``: a
    batch takes about ``target`` seconds; a call slower than ``target`` is timed alone,
    and no more than ``budget`` seconds go to its batches."""
    first = _batch(fn, 1, wait)
    if first >= target:
        return 1, max(1, min(repeats, int(budget / first))) - 1, first
    number = max(1, int(target / max(first, 1e-7)))
    # Calibrate on a batch: the first call of a row is often slower than the rest.
    while True:
        t = _batch(fn, number, wait)
        if t >= target / 2 or number >= 1 << 22:
            break
        number = max(number * 2, int(number * target / max(t, 1e-9)))
    return number, repeats - 1, t / number


def best_times(fns, waits, target, repeats, budget):
    """``{name: minimum seconds per call of fns[name]()}`` over batches of each.

    Every library goes through the same loop: a batch keeps its results and waits for
    them once, at its end, before the clock stops, with ``waits[name]``
    (``library_wait``). The libraries' batches alternate, so that a stretch of time when
    the shared machine is slow falls on both sides' batches alike; a library whose call
    raises gets the error's text instead of a time.

    Every library's batches make the same number of calls, the largest that any one's
    calibration chose: the first call of a batch runs on caches that the other
    library's batch has just filled, and on 1000x1000 inputs a library calibrated to
    half as many calls per batch (as happened) paid that twice as often per call
    (``x - y``, ``np.greater``, ``np.meshgrid`` read 1.3x to 1.5x that way, 1.0x with
    equal batches).
    """
    plans, best = {}, {}
    for name, fn in fns.items():
        wait = waits[name]
        try:
            number, left, best[name] = _calibrate(fn, wait, target, repeats, budget)
            plans[name] = [fn, wait, number, left]
        except Exception as e:                                  # noqa: BLE001
            best[name] = _error_text(e)
    if len({plan[2] for plan in plans.values()}) > 1:
        number = max(plan[2] for plan in plans.values())
        for name, plan in plans.items():
            plan[2] = number
            plan[3] = max(plan[3], 1)
            best[name] = math.inf   # (timed again with the common batch)
    while any(plan[3] > 0 for plan in plans.values()):
        for name, plan in list(plans.items()):
            fn, wait, number, left = plan
            if left <= 0:
                continue
            plan[3] -= 1
            try:
                best[name] = min(best[name], _batch(fn, number, wait) / number)
            except Exception as e:                              # noqa: BLE001
                best[name] = _error_text(e)
                del plans[name]
    return best


def _error_text(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:80]}" if str(e) else type(e).__name__


# ------------------------------------------------------------------ inputs

class Inputs:
    """Host (NumPy) inputs for one size; ``conv`` turns them into the library's arrays."""

    def __init__(self, n):
        rng = onp.random.default_rng(SEED)
        self.n = n
        self.A = rng.uniform(0.1, 0.9, (n, n))
        self.B = rng.uniform(0.1, 0.9, (n, n))
        self.v = rng.uniform(0.1, 0.9, n)                  # side-length vector
        self.w = rng.uniform(0.1, 0.9, n)
        self.f = self.A.reshape(-1).copy()                 # flattened matrix
        self.g = self.B.reshape(-1).copy()
        self.I = rng.integers(0, 100, (n, n))              # int64
        self.J = rng.integers(0, 5, (n, n))
        self.idx = rng.integers(0, n, n)                   # indices along an axis
        self.mask = self.A > 0.5
        self.spd = self.A @ self.A.T + n * onp.eye(n)      # symmetric positive definite
        self.sorted = onp.sort(self.f)
        self.A3 = self.A[:, :, None]
        self.C3 = rng.uniform(0.1, 0.9, (n, 3))            # rows of 3-vectors (cross)


def function_table():
    """``{name: builder}``; ``builder(np, x)`` returns ``(args, kwargs)`` for the call
    ``np.name(*args, **kwargs)``, with ``x`` the size's inputs in the library's arrays."""
    t = {}

    def add(names, builder):
        for name in names.split():
            t[name] = builder

    # elementwise, one float operand in (0.1, 0.9)
    add("abs absolute acos arccos asin arcsin asinh arcsinh atan arctan atanh arctanh cbrt ceil conj "
        "conjugate cos cosh deg2rad degrees exp exp2 expm1 fix floor imag isfinite isinf isnan "
        "isneginf isposinf iscomplex isreal log log10 log1p log2 negative positive rad2deg "
        "radians real reciprocal rint round around sign signbit sin sinc sinh sqrt square tan "
        "tanh trunc nan_to_num angle logical_not spacing",
        lambda np, x: ((x.A,), {}))
    add("acosh arccosh", lambda np, x: ((x.A1,), {}))
    add("iscomplexobj isrealobj ndim shape size", lambda np, x: ((x.A,), {}))
    # elementwise, two float operands
    add("add arctan2 atan2 copysign divide equal float_power floor_divide fmax fmin fmod "
        "greater greater_equal heaviside hypot less less_equal logaddexp logaddexp2 logical_and "
        "logical_or logical_xor maximum minimum mod multiply nextafter not_equal power pow "
        "remainder subtract true_divide divmod allclose array_equal array_equiv isclose "
        "ldexp",
        lambda np, x: ((x.A, x.B), {}))
    t["ldexp"] = lambda np, x: ((x.A, x.J), {})
    # integer operands
    add("bitwise_count bitwise_invert bitwise_not invert", lambda np, x: ((x.I,), {}))
    add("bitwise_and bitwise_or bitwise_xor gcd lcm", lambda np, x: ((x.I, x.J), {}))
    add("left_shift right_shift bitwise_left_shift bitwise_right_shift",
        lambda np, x: ((x.I, x.J), {}))
    t["clip"] = lambda np, x: ((x.A, 0.2, 0.8), {})
    t["where"] = lambda np, x: ((x.mask, x.A, x.B), {})
    # reductions and statistics
    add("all any amax amin max min mean sum prod ptp argmax argmin count_nonzero cumprod "
        "cumsum median nanmax nanmean nanmedian nanmin nanprod nanstd nansum nanvar std var "
        "average nanargmax nanargmin nancumsum nancumprod", lambda np, x: ((x.A,), {}))
    add("cumulative_sum cumulative_prod", lambda np, x: ((x.A,), {"axis": 0}))
    add("percentile nanpercentile", lambda np, x: ((x.A, 50.0), {}))
    add("quantile nanquantile", lambda np, x: ((x.A, 0.5), {}))
    # sorting, searching, sets
    add("sort argsort argwhere nonzero flatnonzero", lambda np, x: ((x.A,), {}))
    add("partition argpartition", lambda np, x: ((x.A, 1), {}))
    add("unique unique_all unique_counts unique_inverse unique_values",
        lambda np, x: ((x.f,), {}))
    t["searchsorted"] = lambda np, x: ((x.sorted, x.g), {})
    add("intersect1d isin setdiff1d setxor1d union1d in1d", lambda np, x: ((x.f, x.g), {}))
    t["bincount"] = lambda np, x: ((x.I.reshape(-1),), {})
    t["digitize"] = lambda np, x: ((x.f, x.sorted[:: max(1, x.n)]), {})
    t["histogram"] = lambda np, x: ((x.f,), {})
    # shapes and joins
    add("ravel transpose flip fliplr flipud rot90 atleast_1d atleast_2d atleast_3d diag "
        "diagonal trace tril triu diff copy unstack matrix_transpose",
        lambda np, x: ((x.A,), {}))
    t["reshape"] = lambda np, x: ((x.A, (-1,)), {})
    add("swapaxes moveaxis", lambda np, x: ((x.A, 0, 1), {}))
    t["permute_dims"] = lambda np, x: ((x.A, (1, 0)), {})
    t["squeeze"] = lambda np, x: ((x.A3,), {})
    t["expand_dims"] = lambda np, x: ((x.A, 0), {})
    t["broadcast_to"] = lambda np, x: ((x.v, (x.n, x.n)), {})
    t["broadcast_arrays"] = lambda np, x: ((x.A, x.v), {})
    t["roll"] = lambda np, x: ((x.A, 1), {})
    t["tile"] = lambda np, x: ((x.A, (2, 1)), {})
    t["repeat"] = lambda np, x: ((x.A, 2), {})
    t["pad"] = lambda np, x: ((x.A, 1), {})
    add("concatenate concat stack vstack hstack dstack column_stack row_stack",
        lambda np, x: (([x.A, x.B],), {}))
    t["append"] = lambda np, x: ((x.A, x.B), {})
    t["array_split"] = lambda np, x: ((x.A, 3), {})
    add("split hsplit vsplit", lambda np, x: ((x.A, [1]), {}))
    t["dsplit"] = lambda np, x: ((x.A3, [0]), {})
    t["astype"] = lambda np, x: ((x.A, onp.float32), {})
    t["meshgrid"] = lambda np, x: ((x.v, x.w), {})
    t["indices"] = lambda np, x: (((x.n, x.n),), {})
    t["ix_"] = lambda np, x: ((x.idx, x.idx), {})
    add("diag_indices tril_indices triu_indices tri", lambda np, x: ((x.n,), {}))
    add("diag_indices_from tril_indices_from triu_indices_from", lambda np, x: ((x.A,), {}))
    t["ravel_multi_index"] = lambda np, x: (((x.idx, x.idx), (x.n, x.n)), {})
    t["unravel_index"] = lambda np, x: ((x.idx, (x.n, x.n)), {})
    # indexing functions
    t["take"] = lambda np, x: ((x.A, x.idx), {"axis": 1})
    t["take_along_axis"] = lambda np, x: ((x.A, x.Jidx), {"axis": 1})
    # these write into their first argument (in NumPy): give them a copy of their own
    t["put"] = lambda np, x: ((x.fresh("A"), x.idx, 0.5), {})
    t["put_along_axis"] = lambda np, x: ((x.fresh("A"), x.Jidx, 0.5), {"axis": 1})
    t["place"] = lambda np, x: ((x.fresh("A"), x.mask, 0.5), {})
    t["compress"] = lambda np, x: ((x.mask[0], x.A), {"axis": 0})
    t["extract"] = lambda np, x: ((x.mask, x.A), {})
    t["choose"] = lambda np, x: ((x.J01, [x.A, x.B]), {})
    t["select"] = lambda np, x: (([x.mask], [x.A]), {})
    # creation
    add("zeros ones empty", lambda np, x: (((x.n, x.n),), {}))
    t["full"] = lambda np, x: (((x.n, x.n), 1.5), {})
    add("zeros_like ones_like empty_like", lambda np, x: ((x.A,), {}))
    t["full_like"] = lambda np, x: ((x.A, 1.5), {})
    add("eye identity", lambda np, x: ((x.n,), {}))
    t["arange"] = lambda np, x: ((float(x.n * x.n),), {})
    add("linspace logspace geomspace", lambda np, x: ((1.0, 2.0, x.n * x.n), {}))
    add("array asarray", lambda np, x: ((x.host_A,), {}))
    t["from_dlpack"] = lambda np, x: ((x.host_A,), {})
    # products
    add("dot inner matmul vdot kron_unused", lambda np, x: ((x.A, x.B), {}))
    del t["kron_unused"]
    t["kron"] = lambda np, x: ((x.A, x.eye2), {})
    t["outer"] = lambda np, x: ((x.v, x.w), {})
    t["tensordot"] = lambda np, x: ((x.A, x.B, 1), {})
    t["vecdot"] = lambda np, x: ((x.A, x.B), {})
    t["cross"] = lambda np, x: ((x.C3, x.C3[::-1]), {})
    t["einsum"] = lambda np, x: (("ij,jk->ik", x.A, x.B), {})
    add("convolve correlate", lambda np, x: ((x.v, x.w), {}))
    add("cov corrcoef", lambda np, x: ((x.A,), {}))
    t["interp"] = lambda np, x: ((x.f, x.sorted, x.g), {})
    # dtype and shape helpers
    t["result_type"] = lambda np, x: ((x.A, x.I), {})
    t["can_cast"] = lambda np, x: ((onp.float32, onp.float64), {})
    t["finfo"] = lambda np, x: ((onp.float64,), {})
    t["iinfo"] = lambda np, x: ((onp.int32,), {})
    t["isdtype"] = lambda np, x: ((onp.dtype(onp.float64), "real floating"), {})
    t["broadcast_shapes"] = lambda np, x: (((x.n, 1), (1, x.n)), {})
    t["__array_namespace_info__"] = lambda np, x: ((), {})
    return t


def linalg_table():
    t = {}
    add = lambda names, b: t.update(dict.fromkeys(names.split(), b))  # noqa: E731
    add("det inv slogdet svd svdvals qr norm cond matrix_rank pinv eigvals eig "
        "matrix_norm vector_norm diagonal trace matrix_transpose", lambda np, x: ((x.A,), {}))
    add("cholesky eigh eigvalsh", lambda np, x: ((x.spd,), {}))
    add("solve lstsq", lambda np, x: ((x.A, x.B), {}))
    t["matrix_power"] = lambda np, x: ((x.A, 3), {})
    t["multi_dot"] = lambda np, x: (([x.A, x.B, x.A],), {})
    add("matmul vecdot", lambda np, x: ((x.A, x.B), {}))
    t["tensordot"] = lambda np, x: ((x.A, x.B), {"axes": 1})
    t["outer"] = lambda np, x: ((x.v, x.w), {})
    t["cross"] = lambda np, x: ((x.C3, x.C3[::-1]), {})
    t["tensorinv"] = lambda np, x: ((x.A,), {"ind": 1})
    t["tensorsolve"] = lambda np, x: ((x.A, x.v), {})
    return t


# Results not comparable with NumPy's: uninitialised memory, info objects.
# partition/argpartition order the non-kth elements as they please.
NO_CHECK = {"empty", "empty_like", "finfo", "iinfo", "partition", "argpartition",
            "__array_namespace_info__"}

# Functions whose cost grows faster than the element count: on large inputs they get
# their side-length (not flattened) vectors already; these are skipped at large because
# one call alone would take minutes in some library.
SKIP_LARGE = {"ix_"}


def method_rows():
    """``[(label, setup, call)]``: ``setup(x)`` returns state, ``call(state)`` is timed."""
    rows = []

    def row(label, call, setup=lambda x: x):
        rows.append((label, setup, call))

    row("x + y", lambda x: x.A + x.B)
    row("x - y", lambda x: x.A - x.B)
    row("x * y", lambda x: x.A * x.B)
    row("x / y", lambda x: x.A / x.B)
    row("x ** 2", lambda x: x.A ** 2)
    row("x ** y", lambda x: x.A ** x.B)
    row("x @ y", lambda x: x.A @ x.B)
    row("x < y", lambda x: x.A < x.B)
    row("-x", lambda x: -x.A)
    row("abs(x)", lambda x: abs(x.A))
    row("x + 1.0", lambda x: x.A + 1.0)
    row("2.0 * x", lambda x: 2.0 * x.A)
    row("x[i]", lambda x: x.A[1])
    row("x[i, j]", lambda x: x.A[1, 2])
    row("x[i:j]", lambda x: x.A[1:-1])
    row("x[1:, ::2]", lambda x: x.A[1:, ::2])
    row("x[mask]", lambda x: x.A[x.mask])
    row("x[idx]", lambda x: x.A[x.idx])
    row("x[:, None]", lambda x: x.A[:, None])
    row("x[i] = v", lambda s: s.__setitem__(1, 0.0), setup=lambda x: x.fresh("A"))
    row("x[i, j] = v", lambda s: s.__setitem__((1, 2), 0.0), setup=lambda x: x.fresh("A"))
    row("x[i:j] = v", lambda s: s.__setitem__(slice(1, -1), 0.0),
        setup=lambda x: x.fresh("A"))
    row("x[mask] = v", lambda s: s[0].__setitem__(s[1], 0.0),
        setup=lambda x: (x.fresh("A"), x.mask))
    row("x += y", _iadd, setup=lambda x: ([x.fresh("A")], x.B))
    row("x *= 1.0", _imul, setup=lambda x: [x.fresh("A")])
    row(".T", lambda x: x.A.T)
    row(".reshape(-1)", lambda x: x.A.reshape(-1))
    row(".ravel()", lambda x: x.A.ravel())
    row(".flatten()", lambda x: x.A.flatten())
    row(".transpose()", lambda x: x.A.transpose())
    row(".copy()", lambda x: x.A.copy())
    row(".astype(float32)", lambda x: x.A.astype(onp.float32))
    row(".sum()", lambda x: x.A.sum())
    row(".sum(axis=0)", lambda x: x.A.sum(axis=0))
    row(".mean()", lambda x: x.A.mean())
    row(".max()", lambda x: x.A.max())
    row(".argmax()", lambda x: x.A.argmax())
    row(".std()", lambda x: x.A.std())
    row(".dot(y)", lambda x: x.A.dot(x.B))
    row(".clip(.2, .8)", lambda x: x.A.clip(0.2, 0.8))
    row(".diagonal()", lambda x: x.A.diagonal())
    row(".real", lambda x: x.A.real)
    row(".sort()", lambda s: s.sort(), setup=lambda x: x.fresh("A"))
    row(".fill(0.0)", lambda s: s.fill(0.0), setup=lambda x: x.fresh("A"))
    row(".shape", lambda x: x.A.shape)
    row("len(x)", lambda x: len(x.A))
    row("iteration", lambda x: [r for r in x.A])
    row("float(x[i, j])", lambda x: float(x.A[1, 2]))
    row("float(x.sum())", lambda x: float(x.A.sum()))
    row(".item()", lambda x: x.s.item())
    row(".tolist()", lambda x: x.A.tolist())
    row("bool(x[i, j] > 0)", lambda x: bool(x.A[1, 2] > 0))
    row("numpy.asarray(x)", lambda x: onp.asarray(x.A))
    return rows


def _iadd(state):
    holder, y = state
    holder[0] += y


def _imul(holder):
    holder[0] *= 1.0


def view_rows():
    """NumPy programs that rely on views: ``[(label, run)]``; ``run(np, host_A)``
    returns the array(s) whose values show whether the program behaved as in NumPy."""
    def row_inplace(np, A):
        row = A[0]
        row += 1
        return A

    def slice_then_mask(np, A):
        Z = np.zeros(A.shape)
        Z[1:-1, 1:-1][A[1:-1, 1:-1] > 0.5] = 1
        return Z

    def normalise_rows(np, A):
        for r in A:
            r /= r.sum()
        return A

    def sort_in_place(np, A):
        out = A.sort()
        return A, out is None

    def transpose_write(np, A):
        A.T[0] = 0.0
        return A

    def diagonal_read(np, A):
        d = A.diagonal()
        A[0, 0] = 5.0
        return d

    return [("row = A[0]; row += 1", row_inplace),
            ("Z[1:-1, 1:-1][mask] = 1", slice_then_mask),
            ("for r in A: r /= r.sum()", normalise_rows),
            ("A.sort() in place", sort_in_place),
            ("A.T[0] = 0", transpose_write),
            ("d = A.diagonal(); A[0, 0] = 5", diagonal_read)]


def row_fill(np, n):
    """Fill a preallocated ``n`` x ``n`` array row by row."""
    Z = np.zeros((n, n))
    row = onp.arange(n, dtype=onp.float64)
    for i in range(n):
        Z[i] = row
    return Z


# ------------------------------------------------------------------ libraries

class LibInputs:
    """``Inputs`` converted to one library's arrays (scalars and dtypes unchanged).

    ``like``: another library's inputs whose memory these read (NumPy's inputs are
    read-only NumPy views of minijax's, so that both libraries read the same bytes at the
    same addresses; see ``measure_rows``)."""

    NAMES = ("A", "B", "v", "w", "f", "g", "I", "J", "idx", "mask", "spd", "sorted", "A3",
             "C3", "A1", "Jidx", "J01", "eye2", "s")

    def __init__(self, lib_np, host, like=None):
        conv = lib_np.asarray
        self._conv = conv
        self._host = host
        self.n = host.n
        self.host_A = host.A
        if like is not None:
            for name in self.NAMES:
                setattr(self, name, conv(getattr(like, name)))
            return
        for name in self.NAMES[:14]:
            setattr(self, name, conv(getattr(host, name).copy()))
        self.A1 = conv(host.A + 1.0)
        self.Jidx = conv(onp.argsort(host.A, axis=1))
        self.J01 = conv(host.J % 2)
        self.eye2 = conv(onp.eye(2))
        self.s = conv(host.A[0, 0])

    def fresh(self, name):
        return self._conv(getattr(self._host, name).copy())


def load(name):
    if name == "numpy":
        return onp, onp.linalg
    if name == "minijax":
        import minijax.numpy as mnp
        return mnp, mnp.linalg
    if name == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        return jnp, jnp.linalg
    raise ValueError(name)


def public_functions(module):
    import inspect
    names = getattr(module, "__all__", None) or [n for n in dir(module)
                                                  if not n.startswith("_")]
    out = []
    for name in names:
        obj = getattr(module, name, None)
        if callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj):
            out.append(name)
    return sorted(out)


def all_rows(sizes, only):
    """``[(section, label, size)]`` in run order."""
    import minijax.numpy as mnp
    rows = []
    fns, lfns = function_table(), linalg_table()
    unmeasured = []
    for size in sizes:
        for name in public_functions(mnp):
            if name in fns:
                rows.append(("np", name, size))
            elif size == sizes[0]:
                unmeasured.append(f"numpy.{name}")
        for name in public_functions(mnp.linalg):
            if name in lfns:
                rows.append(("linalg", name, size))
            elif size == sizes[0]:
                unmeasured.append(f"numpy.linalg.{name}")
        for label, _, _ in method_rows():
            rows.append(("method", label, size))
        for label, _ in view_rows():
            rows.append(("view", label, size))
    if "large" in sizes or "medium" in sizes:
        rows.append(("fill", "row-by-row fill 1000x1000", "large"))
    rows = [r for r in rows if not (r[2] == "large" and r[1] in SKIP_LARGE)]
    if only:
        rows = [r for r in rows if any(s in r[1] for s in only)]
    return rows, unmeasured


def make_call(section, label, lib, x):
    """A zero-argument callable for the row, in library ``lib`` = (np, linalg)."""
    np, linalg = lib
    if section in ("np", "linalg"):
        module = np if section == "np" else linalg
        fn = getattr(module, label)
        args, kwargs = (function_table() if section == "np" else linalg_table())[label](np, x)
        return lambda: fn(*args, **kwargs)
    if section == "method":
        for lab, setup, call in method_rows():
            if lab == label:
                state = setup(x)
                return lambda: call(state)
    if section == "view":
        for lab, run in view_rows():
            if lab == label:
                return lambda: run(np, np.asarray(x.host_A.copy()))
    if section == "fill":
        return lambda: row_fill(np, 1000)
    raise KeyError(label)


def to_host(out):
    if isinstance(out, (tuple, list)):
        return type(out)(to_host(o) for o in out) if not hasattr(out, "_fields") else \
            tuple(to_host(o) for o in out)
    if out is None or isinstance(out, (bool, int, float, complex, str, type, onp.dtype)):
        return out
    try:
        return onp.asarray(out)
    except Exception:
        return out


def agree(a, b):
    """'' when the results match NumPy's (values, shapes and dtypes), else what differs."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            return "structure"
        for p, q in zip(a, b):
            d = agree(p, q)
            if d:
                return d
        return ""
    if isinstance(b, onp.ndarray) or isinstance(a, onp.ndarray):
        a, b = onp.asarray(a), onp.asarray(b)
        if a.shape != b.shape:
            return "shape"
        if a.dtype != b.dtype:
            return f"dtype {a.dtype}"
        if a.dtype.kind in "fc":
            if not onp.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True):
                return "value"
        elif not onp.array_equal(a, b):
            return "value"
        return ""
    if type(a) is not type(b) and not (isinstance(a, (int, float, bool, onp.generic))
                                       and isinstance(b, (int, float, bool, onp.generic))):
        return f"type {type(a).__name__}"
    try:
        return "" if a == b or (a != a and b != b) else "value"
    except Exception:
        return ""


# A row whose ratio to NumPy falls outside [1 / CONFIRM_BAND, CONFIRM_BAND] is timed once
# more at the end, both libraries again through the same loop, and each keeps the
# minimum of its two timings: a burst on the shared machine that spanned one row's
# timing (NumPy's own time for one row moved 2x between runs) is then not reported as
# that row's ratio. Rows in either direction are confirmed alike.
CONFIRM_BAND = 1.2


def measure_rows(libnames, rows, quick, check=True):
    """``{lib: {key: seconds or error string}}``, ``{key: mismatch}`` and the keys timed
    a second time (``CONFIRM_BAND``)."""
    # Many short batches: on a shared machine the minimum over them is the call's cost
    # with the fewest interruptions (a long batch is rarely uninterrupted).
    target, repeats, budget = (0.0005, 15, 0.5) if quick else (0.002, 25, 2.0)
    libs = {name: load(name) for name in libnames}
    hosts = {size: Inputs(SIZES[size]) for size in dict.fromkeys(r[2] for r in rows)}
    # NumPy reads minijax's input memory. With a copy each, NumPy's own ``tile`` on
    # minijax's copy of the 1000x1000 input took 1.6x to 1.75x its time on its own copy,
    # for a whole run and in four runs of four (a fresh copy was as fast as NumPy's; the
    # transparent huge pages were the same; the cause was not found): that was where the
    # input lay, not either library.
    inputs = {}
    for size in hosts:
        for name in sorted(libnames, key=lambda n: n == "numpy"):
            like = inputs.get(("minijax", size)) if name == "numpy" else None
            inputs[(name, size)] = LibInputs(libs[name][0], hosts[size], like)
    times = {name: {} for name in libnames}
    mismatch = {}
    warnings.simplefilter("ignore")

    def time_row(section, label, size, check):
        key = f"{size}|{section}|{label}"
        results, fns, waits = {}, {}, {}
        for name in libnames:
            try:
                fn = make_call(section, label, libs[name], inputs[(name, size)])
                first = block(fn())                              # warm-up, and the check
                results[name] = to_host(first)
                waits[name] = library_wait(name, first)
                fns[name] = make_call(section, label, libs[name], inputs[(name, size)])
            except Exception as e:                              # noqa: BLE001
                times[name][key] = _error_text(e)
        for name, t in best_times(fns, waits, target, repeats, budget).items():
            before = times[name].get(key)
            times[name][key] = (min(t, before) if isinstance(t, float)
                                and isinstance(before, float) else t)
        if check and "numpy" in results and len(results) > 1 and label not in NO_CHECK:
            for name, res in results.items():
                if name != "numpy" and not isinstance(times[name][key], str):
                    d = agree(res, results["numpy"])
                    if d:
                        mismatch[key] = d

    def out_of_band(key):
        base = times.get("numpy", {}).get(key)
        return isinstance(base, float) and base > 0 and any(
            isinstance(t, float) and not 1 / CONFIRM_BAND <= t / base <= CONFIRM_BAND
            for t in (times[name].get(key) for name in libnames if name != "numpy"))

    for section, label, size in rows:
        time_row(section, label, size, check)
    confirmed = [row for row in rows if out_of_band(f"{row[2]}|{row[0]}|{row[1]}")]
    for section, label, size in confirmed:
        time_row(section, label, size, False)
    return times, mismatch, [f"{size}|{section}|{label}" for section, label, size in confirmed]


# ------------------------------------------------------------------ report

def summary(ratios):
    if not ratios:
        return None
    r = sorted(ratios)
    p90 = r[min(len(r) - 1, math.ceil(0.9 * len(r)) - 1)]
    return {"median": statistics.median(r), "p90": p90, "max": r[-1], "count": len(r),
            "over_3x": sum(x > 3 for x in r), "over_1.5x": sum(x > 1.5 for x in r)}


def fmt_t(t):
    if isinstance(t, str):
        return "error"
    if t is None:
        return "n/a"
    if t < 1e-3:
        return f"{t * 1e6:.2f} µs"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def report(times, mismatch, rows, unmeasured, jax_times, top):
    mj, np_ = times["minijax"], times["numpy"]
    lines = []
    sizes = list(dict.fromkeys(r[2] for r in rows))
    per_size = {}
    for size in sizes:
        lines.append(f"\n### {size} ({'x'.join([str(SIZES[size])] * 2)} float64)\n")
        head = "| row | NumPy | minijax | minijax/NumPy |"
        sep = "|---|---|---|---|"
        if jax_times is not None and size == "small":
            head += " JAX | minijax/JAX |"
            sep += "---|---|"
        lines += [head, sep]
        ratios = []
        for section, label, sz in rows:
            if sz != size:
                continue
            key = f"{sz}|{section}|{label}"
            name = (f"np.linalg.{label}" if section == "linalg" else
                    f"np.{label}" if section == "np" else
                    f"view: {label}" if section == "view" else label)
            a, b = mj.get(key), np_.get(key)
            ratio = a / b if isinstance(a, float) and isinstance(b, float) else None
            if ratio is not None:
                ratios.append((ratio, name))
            cell = f"{ratio:.2f}×" if ratio is not None else "–"
            if key in mismatch:
                cell += f" (differs: {mismatch[key]})"
            if isinstance(a, str):
                cell = f"minijax {a}"
            elif isinstance(b, str):
                cell = f"NumPy {b}"
            line = f"| `{name}` | {fmt_t(b)} | {fmt_t(a)} | {cell} |"
            if jax_times is not None and size == "small":
                j = jax_times.get(key)
                jr = f"{a / j:.2f}×" if isinstance(a, float) and isinstance(j, float) else "–"
                line += f" {fmt_t(j) if j is not None else 'n/a'} | {jr} |"
            lines.append(line)
        per_size[size] = ratios
    out = ["## Breadth benchmark: minijax / NumPy, eager, float64", ""]
    out.append("| size | rows | median | p90 | max | > 1.5× | > 3× |")
    out.append("|---|---|---|---|---|---|---|")
    summaries = {}
    for size in sizes:
        s = summary([r for r, _ in per_size[size]])
        summaries[size] = s
        if s:
            out.append(f"| {size} | {s['count']} | {s['median']:.2f}× | {s['p90']:.2f}× | "
                       f"{s['max']:.2f}× | {s['over_1.5x']} | {s['over_3x']} |")
    if jax_times is not None:
        jr = [mj[k] / jax_times[k] for k in jax_times
              if isinstance(mj.get(k), float) and isinstance(jax_times.get(k), float)]
        s = summary(jr)
        if s:
            out.append(f"| small, minijax/JAX | {s['count']} | {s['median']:.2f}× | "
                       f"{s['p90']:.2f}× | {s['max']:.2f}× | {s['over_1.5x']} | "
                       f"{s['over_3x']} |")
    for size in sizes:
        worst = sorted(per_size[size], reverse=True)[:top]
        if worst:
            out.append(f"\nWorst {len(worst)} at {size}: " +
                       ", ".join(f"`{n}` {r:.1f}×" for r, n in worst))
    fill = mj.get("large|fill|row-by-row fill 1000x1000")
    if fill is not None:
        b = np_.get("large|fill|row-by-row fill 1000x1000")
        r = f"{fill / b:.2f}×" if isinstance(fill, float) and isinstance(b, float) else "–"
        out.append(f"\nRow-by-row fill of a 1000x1000 array: NumPy {fmt_t(b)}, "
                   f"minijax {fmt_t(fill)} ({r})")
    errors = sorted(f"{k.replace('|', ' ')}: {v}" for k, v in mj.items() if isinstance(v, str))
    if errors:
        out.append(f"\nminijax errors ({len(errors)}):")
        out += [f"- {e}" for e in errors]
    if mismatch:
        out.append(f"\nResults that differ from NumPy's ({len(mismatch)}; view rows: the "
                   "program's arrays afterwards):")
        out += [f"- {k.replace('|', ' ')}: {v}" for k, v in sorted(mismatch.items())]
    if unmeasured:
        out.append(f"\nNot measured (no argument builder; {len(unmeasured)}): " +
                   ", ".join(unmeasured))
    return "\n".join(out + lines), summaries


# ------------------------------------------------------------------ main

def jax_worker(rows, quick):
    times, _, _ = measure_rows(["jax"], rows, quick, check=False)
    return times["jax"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="shorter timings (noisier)")
    p.add_argument("--sizes", default="small,medium,large")
    p.add_argument("--only", nargs="*", help="rows whose name contains any of these")
    p.add_argument("--no-jax", action="store_true", help="skip the JAX column")
    p.add_argument("--top", type=int, default=10, help="how many worst rows to list")
    p.add_argument("--json", help="write raw results to this file")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s]
    for s in sizes:
        if s not in SIZES:
            p.error(f"unknown size {s!r} (known: {', '.join(SIZES)})")

    keep_freed_memory()
    if args.worker == "jax":
        rows = [tuple(r) for r in json.loads(sys.stdin.read())]
        json.dump(jax_worker(rows, args.quick), sys.stdout)
        return 0

    rows, unmeasured = all_rows(sizes, args.only)
    jax_times = None
    small_rows = [r for r in rows if r[2] == "small" and r[0] != "fill"]
    if not args.no_jax and small_rows and importlib.util.find_spec("jax") is not None:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "jax"]
        if args.quick:
            cmd.append("--quick")
        proc = subprocess.run(cmd, input=json.dumps(small_rows), capture_output=True,
                              text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"))
        if proc.returncode == 0:
            jax_times = json.loads(proc.stdout)
        else:
            print("JAX worker failed:\n" + proc.stderr[-2000:], file=sys.stderr)

    start = time.perf_counter()
    times, mismatch, confirmed = measure_rows(["numpy", "minijax"], rows, args.quick)
    text, summaries = report(times, mismatch, rows, unmeasured, jax_times, args.top)
    print(text)
    print(f"\n({len(rows)} rows in {time.perf_counter() - start:.0f} s, {len(confirmed)} of "
          f"them timed twice (ratio outside {1 / CONFIRM_BAND:.2f}-{CONFIRM_BAND}x at "
          f"first); jax imported in the minijax process: {'jax' in sys.modules})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"times": times, "jax": jax_times, "mismatch": mismatch,
                       "timed_twice": confirmed,
                       "summary": summaries, "unmeasured": unmeasured}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
