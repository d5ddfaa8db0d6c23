"""NumPy's mutation and views (DESIGN 5): owned buffers with copy-on-write, views that
share their base's buffer, in-place methods; values seen by transformations never
change under them. NumPy is the oracle: each program runs on both."""

import re
import warnings

import numpy as onp
import pytest
from hypothesis import given, strategies as st

import minijax
import minijax.numpy as np


def same(got, want):
    got_h = onp.asarray(got)
    assert got_h.shape == want.shape and got_h.dtype == want.dtype, (got_h, want)
    onp.testing.assert_array_equal(got_h, want)


def both(program, *shapes):
    """Run ``program(m, *arrays)`` with m = minijax.numpy and m = numpy on equal inputs;
    compare every array it returns."""
    rng = onp.random.default_rng(0)
    hosts = [rng.integers(1, 9, s).astype(float) for s in shapes]
    want = program(onp, *[h.copy() for h in hosts])
    got = program(np, *[np.asarray(h) for h in hosts])
    for g, w in zip(got, want):
        if isinstance(w, onp.ndarray):
            same(g, w)
        else:
            assert g == w


# ---------------------------------------------------------------- the issue's examples

def test_row_view_update_reaches_base():
    def prog(m, A):
        row = A[0]
        row += 1
        return A, row
    both(prog, (3, 4))


def test_masked_write_through_a_slice():
    def prog(m, Z):
        mask = Z[1:-1, 1:-1] > 4
        Z[1:-1, 1:-1][mask] = 1
        return (Z,)
    both(prog, (5, 5))


def test_iteration_yields_writable_rows():
    def prog(m, A):
        for r in A:
            r /= r.sum()
        return (A,)
    both(prog, (4, 3))


@pytest.mark.parametrize("method,args", [("sort", ()), ("sort", (0,)), ("fill", (7.0,)),
                                         ("put", ([0, 5], [-1.0, -2.0])),
                                         ("partition", (1,))])
def test_in_place_methods_mutate_and_return_none(method, args):
    def prog(m, Z):
        out = getattr(Z, method)(*args)
        assert out is None
        if method == "partition":   # only the kth element's place is fixed by NumPy
            return (Z[:, 1],)
        return (Z,)
    both(prog, (3, 4))


def test_base_updates_are_seen_by_views_and_shares_memory():
    def prog(m, A):
        row, col, t, flat = A[1], A[:, 2], A.T, A.reshape(-1)
        A[1, 2] = 100.0
        t[0, 0] = -5.0
        flat[-1] = 42.0
        return A, row, col, t, flat, m.shares_memory(A, row), m.shares_memory(A, A.copy())
    both(prog, (3, 4))
    A = np.ones((3, 3))
    assert A[0].base is A.base if A.base is not None else A[0].base is A
    assert A.copy().base is None


def test_real_imag_and_diagonal_are_views():
    def prog(m, A):
        c = A + 1j * A
        c.imag[0] = 9.0
        d = A.diagonal()
        return c, d, c.real
    both(prog, (3, 3))


# calls that NumPy answers with the array itself (or with a new view: then both differ)
ITSELF_OR_VIEW = {
    ".real": lambda m, a: a.real, "np.real": lambda m, a: m.real(a),
    ".conj()": lambda m, a: a.conj(), "atleast_1d": lambda m, a: m.atleast_1d(a),
    "atleast_2d": lambda m, a: m.atleast_2d(a), "atleast_3d": lambda m, a: m.atleast_3d(a),
    ".squeeze()": lambda m, a: a.squeeze(), "np.squeeze": lambda m, a: m.squeeze(a),
    "asarray": lambda m, a: m.asarray(a),
    ".astype(copy=False)": lambda m, a: a.astype(a.dtype, copy=False),
    ".T": lambda m, a: a.T, ".ravel()": lambda m, a: a.ravel(),
    ".reshape(shape)": lambda m, a: a.reshape(a.shape), ".view()": lambda m, a: a.view(),
}


@pytest.mark.parametrize("shape", [(3, 3), (1, 3), (2, 1, 3)])
@pytest.mark.parametrize("name", list(ITSELF_OR_VIEW))
def test_calls_return_the_array_itself_where_numpy_does(name, shape):
    call = ITSELF_OR_VIEW[name]
    h = onp.arange(onp.prod(shape), dtype=float).reshape(shape)
    a = np.asarray(h.copy())
    r, hr = call(np, a), call(onp, h)
    assert (r is a) == (hr is h)
    r[...] = 7.0   # (a view or the array itself: the write reaches it, as in NumPy)
    hr[...] = 7.0
    same(a, h)


@pytest.mark.skipif(onp.lib.NumpyVersion(onp.__version__) < "2.1.0",
                    reason="ndarray.reshape takes copy= from NumPy 2.1")
@pytest.mark.parametrize("copy", [None, True, False])
@pytest.mark.parametrize("transposed", [False, True])
def test_reshape_copy_keyword_matches_numpy(copy, transposed):
    def prog(m, A):
        v = A.T if transposed else A
        try:
            r = v.reshape(-1, copy=copy)
        except ValueError as e:
            return (str(e),)
        r[0] = 100.0   # (a view writes through, a copy does not)
        return A, r
    both(prog, (3, 4))


# ---------------------------------------------------------------- copy-on-write

def test_exported_buffers_do_not_change():
    x = np.asarray(onp.arange(4.0))
    exported = onp.asarray(x)
    v = x[1:]
    x[0] = 10.0
    v[0] = 20.0           # the write reaches x; the exported array keeps its values
    same(exported, onp.arange(4.0))
    same(x, onp.array([10.0, 20.0, 2.0, 3.0]))
    same(v, onp.array([20.0, 2.0, 3.0]))


@pytest.mark.parametrize("make", [lambda xp, a, b: xp.ix_(a, b)[1],
                                  lambda xp, a, b: xp.meshgrid(a, b, sparse=True, copy=False)[1],
                                  lambda xp, a, b: xp.broadcast_arrays(a, b[:, None])[1]])
def test_results_view_the_argument_whose_memory_they_share(make):
    # (both Arrays view one caller's ndarray, so NumPy's .base cannot tell them apart:
    # the memory bounds do; after a copy-on-write of b the result must still follow b)
    h, ref = onp.arange(10.0), onp.arange(10.0)
    a, b = np.asarray(h[:5]), np.asarray(h[5:])
    out, ref_out = make(np, a, b), make(onp, ref[:5], ref[5:])
    onp.asarray(b)   # (exported: the next write copies b's buffer first)
    b[0] = 100.0
    ref[5] = 100.0
    same(out, ref_out)
    a[1] = -1.0
    ref[1] = -1.0
    same(out, ref_out)


def test_copies_are_independent():
    x = np.asarray(onp.arange(4.0))
    for y in (np.array(x), np.copy(x), x.copy(), np.asarray(x, copy=True)):
        y[0] = -1.0
    same(x, onp.arange(4.0))


def test_values_seen_by_transformations_do_not_change():
    c = np.asarray(onp.arange(3.0))
    f = minijax.jit(lambda x: x * c)
    first = f(np.ones(3))
    c[0] = 50.0                       # the trace constant was captured by value
    same(f(np.ones(3)), onp.asarray(first))
    y, f_vjp = minijax.vjp(lambda x: x * c, np.ones(3))
    c[1] = 70.0                       # the residual saved for the derivative is unchanged
    same(f_vjp(np.ones(3))[0], onp.array([50.0, 1.0, 2.0]))
    x = np.asarray(onp.arange(3.0))
    out = minijax.jit(lambda a: a + 1)(x)
    x += 1.0                          # the argument (aliased by a device buffer) is copied
    same(out, onp.arange(3.0) + 1)
    same(x, onp.arange(3.0) + 1)


def test_row_by_row_fill_writes_in_place():
    A = np.zeros((50, 4))
    host_before = A._value()
    for i in range(50):
        A[i] = i
    assert A._value() is host_before   # no copy: nothing observed the buffer
    same(A, onp.repeat(onp.arange(50.0)[:, None], 4, axis=1))


def test_inplace_casting_errors_are_numpys():
    x = np.zeros(3, dtype=np.int64)
    with pytest.raises(TypeError):
        x += 1.5
    with pytest.raises(ValueError):
        np.zeros(3)[...] += np.ones(4)


# ---------------------------------------------------------------- property tests

_OPS = st.lists(st.tuples(st.sampled_from(["row", "col", "slice", "T", "ravel", "set",
                                           "iadd", "imul", "mask", "base_set", "export"]),
                          st.integers(0, 2), st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.5, 3.0])),
                min_size=1, max_size=8)


def _run_ops(m, A, ops):
    """Apply a sequence of view creations and in-place updates; return every array."""
    arrays = [A]
    for op, i, v in ops:
        cur = arrays[-1]
        if cur.ndim == 0:
            cur = A
        if op == "row":
            arrays.append(cur[i % cur.shape[0]])
        elif op == "col" and cur.ndim == 2:
            arrays.append(cur[:, i % cur.shape[1]])
        elif op == "slice":
            arrays.append(cur[i % cur.shape[0]:])
        elif op == "T":
            arrays.append(cur.T)
        elif op == "swap":
            arrays.append(m.swapaxes(cur, 0, -1))
        elif op == "ravel_root":   # (a root is contiguous: its ravel is a view)
            arrays.append(A.ravel())
        elif op == "squeeze":
            arrays.append(m.squeeze(m.expand_dims(cur, 0), 0))
        elif op == "ravel" and cur.ndim == 2 and (cur.flags.c_contiguous if m is onp
                                                  else onp.asarray(cur).flags.c_contiguous):
            arrays.append(cur.ravel())
        elif op == "set":
            cur[i % cur.shape[0]] = v
        elif op == "iadd":
            cur += v
        elif op == "imul":
            cur *= v
        elif op == "mask":
            cur[cur > v] = 0.0
        elif op == "base_set":
            A[i % A.shape[0]] = v
        elif op == "export" and m is np:
            onp.asarray(cur)   # the buffer is observed: the next write copies it first
    return arrays


@pytest.mark.parametrize("root", ["asarray", "computed"])
@given(ops=_OPS)
def test_view_and_update_sequences_match_numpy(root, ops):
    host = onp.arange(12.0).reshape(3, 4)
    want = _run_ops(onp, host.copy(), ops)
    # the root holds a view of the caller's ndarray, or a buffer NumPy made for it (its
    # views' links then differ: a tuple, or the root alone)
    got = _run_ops(np, np.asarray(host) if root == "asarray" else np.asarray(host) * 1.0,
                   ops)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)


def test_copies_of_views_are_snapshots():
    A = np.asarray(onp.arange(6.0).reshape(2, 3))
    row = A[0]
    copies = [np.array(row), np.copy(row), row.copy()]
    A[0] = -1.0
    for c in copies:
        same(c, onp.arange(3.0))
    same(row, -onp.ones(3))


# Under jit, vmap and grad the same programs run through functional updates: a traced
# view remembers its base and index (or how it was transposed or reshaped), an update of
# it is written back into the base.
_TRACED_OPS = st.lists(st.tuples(st.sampled_from(["row", "col", "slice", "T", "swap",
                                                  "ravel_root", "squeeze", "set", "iadd",
                                                  "imul", "base_set"]),
                                 st.integers(0, 2), st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.5, 3.0])),
                       min_size=1, max_size=8)


def _check_sequence_under_transformations(ops):
    # the result and the argument itself (written back, as NumPy mutates it) agree
    # with NumPy's eager run, under jit, vmap and grad
    # every view the program made (read after later updates of its base) too
    host = onp.arange(12.0).reshape(3, 4)
    wants = _run_ops(onp, host.copy(), ops)
    want = wants[0]
    arg = np.asarray(host.copy())
    gots = minijax.jit(lambda A: _run_ops(np, A, ops))(arg)
    assert len(gots) == len(wants)
    for g, w in zip(gots, wants):
        same(g, w)
    same(arg, want)
    batch = onp.stack([host, 2 * host])
    runs = [_run_ops(onp, h.copy(), ops) for h in batch]
    wants_b = [onp.stack(ws) for ws in zip(*runs)]
    want_b = wants_b[0]
    arg_b = np.asarray(batch.copy())
    gots = minijax.vmap(lambda A: _run_ops(np, A, ops))(arg_b)
    for g, w in zip(gots, wants_b):
        same(g, w)
    same(arg_b, want_b)
    arg = np.asarray(host.copy())
    value, _ = minijax.value_and_grad(lambda A: _run_ops(np, A, ops)[0].sum())(arg)
    onp.testing.assert_allclose(onp.asarray(value), want.sum(), rtol=1e-12)
    same(arg, want)


@given(ops=_TRACED_OPS)
def test_view_and_update_sequences_under_transformations(ops):
    _check_sequence_under_transformations(ops)


@pytest.mark.parametrize("ops", [
    # issue 8: a write through a view of a view, reported lost under vmap
    [("slice", 2, -2.0), ("set", 0, -2.0), ("row", 0, -2.0), ("set", 0, -0.5)],
    [("row", 1, 0.0), ("slice", 1, 0.0), ("set", 0, 3.0), ("base_set", 1, -0.5),
     ("iadd", 0, 1.5)],
    [("col", 2, 0.0), ("slice", 1, 0.0), ("imul", 0, -2.0), ("set", 0, 0.5)],
])
def test_view_of_view_update_sequences_regressions(ops):
    _check_sequence_under_transformations(ops)


@pytest.mark.parametrize("ops", [
    # writes through a transposed view were lost under jit (only index views were
    # tracked): the base kept its values
    [("T", 0, 0.0), ("set", 1, 3.0)],
    [("T", 0, 0.0), ("row", 1, 0.0), ("set", 0, -2.0)],
    [("slice", 1, 0.0), ("T", 0, 0.0), ("imul", 0, -0.5)],
    [("swap", 0, 0.0), ("T", 0, 0.0), ("set", 2, 1.5), ("base_set", 0, 3.0)],
    [("ravel_root", 0, 0.0), ("set", 2, 1.5), ("base_set", 1, -2.0), ("iadd", 0, 0.5)],
    [("squeeze", 0, 0.0), ("col", 1, 0.0), ("set", 2, 3.0)],
])
def test_transposed_and_reshaped_view_update_sequences(ops):
    _check_sequence_under_transformations(ops)


@pytest.mark.parametrize("ops", [
    # a view overwritten whole by a constant no longer varied under vmap (nor had a
    # tangent under grad): its views lowered to plain arrays, and a write through them
    # raised "read-only" or was lost
    [("slice", 2, 0.0), ("set", 0, -2.0), ("T", 0, 0.0), ("row", 0, 0.0), ("set", 0, -2.0)],
    [("slice", 2, 0.0), ("set", 0, -2.0), ("T", 0, 0.0), ("set", 0, -0.5)],
])
def test_views_of_a_view_overwritten_by_a_constant(ops):
    _check_sequence_under_transformations(ops)


def _set_real(m, x):
    r = x.real
    r[0, 0] = 9.0
    r += 1.0
    return (x,)


def _set_imag(m, x):
    i = m.imag(x)
    i[...] = 7.0
    x[1, 1] = 5 + 5j   # (the view sees it)
    return x, i + 0


def _read_diagonal_after_update(m, x):
    d = m.diagonal(x)
    x[1, 1] = 8.0
    return (d + 0,)


@pytest.mark.parametrize("program", [_set_real, _set_imag, _read_diagonal_after_update])
def test_real_imag_and_diagonal_views_under_transformations(program):
    """Writes through ``.real``/``.imag`` of a complex array reach it, and these views
    (and ``diagonal``) see later updates of their base, eagerly, under jit and vmap."""
    a = onp.arange(4.0).reshape(2, 2)
    if program is not _read_diagonal_after_update:
        a = a + 1j * a[::-1]
    want = program(onp, a.copy())
    batched = minijax.vmap(lambda x: program(np, x))(onp.stack([a, a]))
    for got in (program(np, np.asarray(a.copy())),
                minijax.jit(lambda x: program(np, x))(a.copy()), [b[1] for b in batched]):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)


@pytest.mark.skipif(onp.lib.NumpyVersion(onp.__version__) < "2.1.0",
                    reason="reshape(copy=) is NumPy 2.1's")
def test_a_reshape_copy_is_not_a_view_under_jit():
    def program(x):
        r = x.reshape(-1, copy=True)
        r[0] = 9.0
        v = x.reshape(-1)
        v[1] = 7.0
        return x, r
    a = onp.arange(6.0).reshape(2, 3)
    want = program(a.copy())
    for got, w in zip(minijax.jit(program)(a.copy()), want):
        same(got, w)


@pytest.mark.parametrize("write", [lambda m, x: m.diagonal(x).__setitem__(0, 5.0),
                                   lambda m, x: x.imag.__setitem__(0, 1.0)])
def test_writing_a_read_only_view_raises_under_jit(write):
    x = onp.arange(4.0).reshape(2, 2)
    with pytest.raises(ValueError, match="read-only") as numpys:
        write(onp, x.copy())
    with pytest.raises(ValueError, match=re.escape(str(numpys.value))):
        minijax.jit(lambda v: (write(np, v), v)[1])(x)


def test_issue_programs_under_jit():
    def prog(m, A):
        row = A[0]
        row += 1
        for r in A[1:]:
            r *= 2
        A[2:][0][1] = -1.0
        return A
    host = onp.arange(12.0).reshape(3, 4)
    want = prog(onp, host.copy())
    same(prog(np, np.array(host)), want)
    same(minijax.jit(lambda A: prog(np, A))(np.array(host)), want)


def test_sort_under_jit_mutates_and_returns_none():
    def f(z):
        assert z.sort() is None
        return z
    host = onp.array([3.0, 1.0, 2.0])
    same(minijax.jit(f)(np.asarray(host)), onp.sort(host))


def test_integer_power_binds_integer_pow():
    jaxpr = str(minijax.make_jaxpr(lambda x: x ** 2)(np.ones(3)))
    assert "integer_pow" in jaxpr and "pow[" not in jaxpr.replace("integer_pow", "")
    assert "integer_pow" in str(minijax.make_jaxpr(lambda x: x ** 3)(np.ones(3, np.int32)))
    x = np.asarray(onp.array([1.5, -2.0, 3.0]))
    same(minijax.jit(lambda v: v ** 3)(x), onp.asarray(x) ** 3)
    onp.testing.assert_allclose(onp.asarray(minijax.grad(lambda v: (v ** 3).sum())(x)),
                                3 * onp.asarray(x) ** 2)


def test_copy_of_a_broadcast_is_writable_elementwise():
    # a copy-on-write of a broadcast (elements sharing memory) must not keep the
    # overlapping layout, or one write lands on several elements
    for base in (np.broadcast_to(np.asarray(1.0), (3,)),
                 np.broadcast_to(np.asarray([1.0, 2.0]), (2, 2))):
        want = onp.array(onp.asarray(base))
        c = np.asarray(base, copy=True)
        c += np.ones(c.shape) * onp.arange(c.size).reshape(c.shape)
        same(c, want + onp.arange(want.size).reshape(want.shape))
        same(base, onp.broadcast_to(want, want.shape))


def test_copy_of_a_view_does_not_write_into_the_base():
    root = np.arange(8.0)
    view = root.reshape(4, 2)
    c = np.asarray(view, copy=True)
    c += 11.0
    same(root, onp.arange(8.0))
    same(c, onp.arange(8.0).reshape(4, 2) + 11.0)
    view[0, 0] = -1.0                   # the view still writes through to its base
    same(root, onp.concatenate([[-1.0], onp.arange(1.0, 8.0)]))
    same(c[0, 0], onp.asarray(11.0))


def test_a_view_only_read_sees_later_updates_of_its_base_under_transformations():
    # issue 8: `v = x[1:]; x[2] = 7; return v` gives NumPy's updated view when traced
    def prog(m, x):
        v = x[1:]
        x[2] = 7.0
        w = v[1:]          # a view of a stale view
        x[3] += 1.0
        s = x[0]           # NumPy's scalar (a copy), not a view
        x[0] = -5.0
        return v, w, v * 2.0, w.sum(), s
    host = onp.arange(5.0)
    want = prog(onp, host.copy())
    for got in (minijax.jit(lambda x: prog(np, x))(np.asarray(host.copy())),
                prog(np, np.asarray(host.copy()))):
        for g, w in zip(got, want):
            same(g, onp.asarray(w))
    batch = onp.stack([host, host[::-1]])
    wants = [onp.stack(ws) for ws in zip(*[prog(onp, h.copy()) for h in batch])]
    got = minijax.vmap(lambda x: prog(np, x))(np.asarray(batch.copy()))
    for g, w in zip(got, wants):
        same(g, w)
    # the derivative of w.sum() sees x[2] overwritten and x[3] read through the view
    g = minijax.grad(lambda x: prog(np, x)[3])(np.asarray(host.copy()))
    same(g, onp.array([0.0, 0.0, 0.0, 1.0, 1.0]))


def _write_broadcast_arrays_output(xp, write):
    a, b = xp.broadcast_arrays(xp.ones(3), xp.ones((2, 3)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write(a)
        write(a)
    return onp.asarray(a), [(w.category, str(w.message), w.filename) for w in caught]


@pytest.mark.parametrize("write", [lambda a: a.__setitem__((0, 0), 5.0),
                                   lambda a: a.__iadd__(1.0)],
                         ids=["setitem", "iadd"])
def test_writing_a_broadcast_arrays_output_gives_numpys_one_warning_at_the_users_line(write):
    got, got_warnings = _write_broadcast_arrays_output(np, write)
    want, want_warnings = _write_broadcast_arrays_output(onp, write)
    onp.testing.assert_array_equal(got, want)
    assert [(c, m) for c, m, _ in got_warnings] == [(c, m) for c, m, _ in want_warnings]
    assert len(got_warnings) == 1 and got_warnings[0][2] == __file__
