"""NumPy indexing on minijax arrays, with NumPy as the oracle: a table of keys (every kind
and their combinations) read eagerly and under jit (index arrays passed as traced
arguments, all keys of a table in one compiled program), setitem and ``.at`` updates
against NumPy's in-place results and ``ufunc.at``, vmap against a loop, derivatives
against finite differences, and the errors NumPy raises."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax.errors import MinijaxTypeError, NonConcreteBooleanIndexError
from minijax.numpy import _indexing
from minijax.test_util import check_grads

X3 = onp.arange(60.0).reshape(3, 4, 5) - 17.5
X1 = onp.arange(5.0) * 1.5 - 2.0
X0 = onp.array(3.25)
XE = onp.zeros((2, 0, 3))

_I = onp.array      # integer index arrays in the table (traced under jit)

KEYS_3D = [
    0, -1, 2, (1, 2), (1, -1, 3), (), Ellipsis, (Ellipsis, 1), (1, Ellipsis), (0, Ellipsis, 4),
    (slice(None), 1), (slice(1, None), slice(None, None, 2)), (slice(None, None, -1),),
    (slice(3, 0, -2), None, 1), (slice(-2, None, -1), slice(5, 1, -3)), (slice(10, -10, -1),),
    (slice(2, 2),), (slice(None), slice(3, 1)), (None,), (None, Ellipsis, None),
    (1, None, slice(None, None, -2), None), (Ellipsis, None, 2, None),
    _I([0, 2]), _I([[0], [-1]]), (_I([0, 2]), _I([1, 3])), (0, slice(None), _I([1, 2])),
    (slice(None), _I([0, 1]), None, _I([1, 2])), (slice(None), _I([[0], [1]]), _I([1, 2])),
    (_I([0, 1]), None, _I([1, 2])), (slice(None, None, -1), _I([3, 0, 3])),
    (slice(1, None), _I([2, 0]), slice(None, None, 2)), (Ellipsis, _I([4, 0, -1])),
    (_I([2, 0, 2]), Ellipsis, _I([1])), (1, _I([0, 3]), _I([[4], [0]])),
    (_I([1, 0]), 2), (2, _I([[1, 0], [3, 3]])), (_I([], dtype=int),), (slice(None), _I([], int)),
    [0, 2, 1], ([0, 2], [1, 1]), (onp.array(1), [0, -1]),
    X3[..., 0] > 0, X3 > 10, (slice(None), X3[0] > 10), (slice(None), X3[0, :, 0] > 0),
    (1, X3[0, :, 0] < -15),
    (Ellipsis, onp.array([True, False, True, False, True])), (X3[:, 0, 0] > 0, _I([1, 2])),
    True, False, (0, True), (_I([0, 1]), True), (slice(None), True, _I([1, 2])),
    (Ellipsis, False), (onp.True_, slice(None), 1), (onp.array(True), None),
    (onp.int32(1), onp.int64(-2)), (_I([1, 0], dtype=onp.uint8), slice(None, 2)),
]
KEYS_1D = [0, -5, 4, slice(None), slice(None, None, -2), slice(1, -1), None, Ellipsis,
           _I([4, 4, 0]), _I([[1, 2], [3, 0]]), X1 > 0, (None, _I([1, 2])), True,
           (Ellipsis, None), [True, False, True, False, False], _I([], int), (slice(5, 0, -3),)]
KEYS_0D = [(), Ellipsis, None, (None, Ellipsis, None), True, False, (True, None),
           onp.array(True)]
KEYS_EMPTY = [0, (slice(None), slice(None)), (1, Ellipsis, 2), (Ellipsis, _I([0, 2, 1])),
              (slice(None), _I([], int)), (None, slice(None, None, -1)), XE[..., 0] > 0,
              (_I([1, 1]), slice(None), _I([2, 0]))]



def _has(key, pred):
    return any(pred(p) for p in (key if isinstance(key, tuple) else (key,)))


def _is_int_array(p):
    return isinstance(p, onp.ndarray) and p.dtype.kind in "iu" and p.ndim > 0


def _is_int(p):
    return isinstance(p, (int, onp.integer)) and not isinstance(p, (bool, onp.bool_))


# Under jit (an XLA compile costs ~0.1 s per few indexing ops) the 3-d table is checked on
# the keys whose lowering differs from the eager path: traced index arrays, traced
# scalars, and a few basic keys.
BASIC_3D = [(1, -1, 3), (slice(3, 0, -2), None, 1), (Ellipsis, None, 2, None), X3 > 10]
JIT_3D = [k for k in KEYS_3D if _has(k, _is_int_array)] + BASIC_3D
SCALAR_3D = [k for k in KEYS_3D if _has(k, _is_int) and not _has(k, _is_int_array)]

TABLES = [(X3, KEYS_3D), (X1, KEYS_1D), (X0, KEYS_0D), (XE, KEYS_EMPTY)]
TABLE_IDS = ["3d", "1d", "0d", "empty"]


def _same(got, want):
    got = onp.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    onp.testing.assert_array_equal(got, want)


def _split(key, traced_scalars=False):
    """The key with its integer arrays (and, optionally, ints) taken out as arguments:
    returns (rebuild(args) -> key, args)."""
    parts = key if isinstance(key, tuple) else (key,)
    args, slots = [], []
    for k in parts:
        is_int_arr = isinstance(k, onp.ndarray) and k.dtype.kind in "iu"
        is_int = traced_scalars and isinstance(k, (int, onp.integer)) and not isinstance(
            k, (bool, onp.bool_))
        if is_int_arr or is_int:
            slots.append(("arg", len(args)))
            args.append(onp.asarray(k))
        else:
            slots.append(("static", k))
    tuple_key = isinstance(key, tuple)

    def rebuild(vals):
        out = tuple(vals[v] if kind == "arg" else v for kind, v in slots)
        return out if tuple_key else out[0]
    return rebuild, args


def _gather_all(x, table, traced_scalars=False):
    """One jit program reading every key of ``table`` from ``x`` (index arrays traced)."""
    splits = [_split(k, traced_scalars) for k in table]
    counts = [len(a) for _, a in splits]

    def f(x, *flat):
        outs, pos = [], 0
        for (rebuild, _), n in zip(splits, counts):
            outs.append(x[rebuild(flat[pos:pos + n])])
            pos += n
        return tuple(outs)
    flat = [a for _, args in splits for a in args]
    return minijax.jit(f)(np.asarray(x), *[np.asarray(a) for a in flat])


@pytest.mark.parametrize("x,keys", TABLES, ids=TABLE_IDS)
def test_getitem_eager(x, keys):
    """Eager Arrays index with NumPy directly; the lax path (what tracers take) runs its
    NumPy kernels here too."""
    a = np.asarray(x)
    for key in keys:
        _same(a[key], x[key])
        _same(_indexing._getitem(a, key), x[key])


@pytest.mark.parametrize("x,keys", [(X3, JIT_3D)] + TABLES[1:], ids=TABLE_IDS)
def test_getitem_jit_traced_indices(x, keys):
    for key, got in zip(keys, _gather_all(x, keys)):
        _same(got, x[key])


def test_getitem_jit_traced_scalar_indices():
    for key, got in zip(SCALAR_3D, _gather_all(X3, SCALAR_3D, traced_scalars=True)):
        _same(got, X3[key])


def test_getitem_dtypes_and_scalar_results():
    for dtype in (onp.int8, onp.uint32, onp.bool_, onp.float32, onp.complex64):
        x = (onp.arange(12) % 3).astype(dtype).reshape(3, 4)
        for key in (1, (2, 3), (slice(None, None, -1), _I([0, 3])), x > 0 if dtype != onp.bool_
                    else x):
            _same(np.asarray(x)[key], x[key])
    assert np.asarray(X3)[1, 2, 3].shape == ()


def test_basic_keys_do_not_gather():
    jaxpr = str(minijax.make_jaxpr(lambda x: x[1:, ::-2, None, 3])(np.asarray(X3)))
    assert "gather" not in jaxpr and "slice" in jaxpr and "rev" in jaxpr
    jaxpr = str(minijax.make_jaxpr(lambda x, i: x[i, 1:])(np.asarray(X3), np.asarray(1)))
    assert "gather" not in jaxpr and "dynamic_slice" in jaxpr
    jaxpr = str(minijax.make_jaxpr(lambda x, i: x[:, i])(np.asarray(X3), np.asarray([1, 2])))
    assert jaxpr.count("gather") == 1


def test_traced_out_of_bounds_indices_clamp():
    got = minijax.jit(lambda x, i: x[i])(np.asarray(X1), np.asarray([7, -9, 2]))
    _same(got, X1[[4, 0, 2]])
    got = minijax.jit(lambda x, i: x[i])(np.asarray(X1), np.asarray(-1))
    _same(got, X1[-1])


def test_iteration():
    _same(onp.array([onp.asarray(r) for r in np.asarray(X3)]), X3)
    rows = minijax.jit(lambda x: tuple(x))(np.asarray(X3[0]))
    for r, w in zip(rows, X3[0]):
        _same(r, w)
    with pytest.raises(TypeError, match="0-d"):
        iter(np.asarray(X0))


# ---------------------------------------------------------------- setitem

DUP_FREE = [k for k in KEYS_3D if not (isinstance(k, tuple) and any(
    isinstance(p, onp.ndarray) and p.dtype.kind in "iu" and len(set(p.ravel().tolist())) <
    p.size for p in k)) and not (isinstance(k, onp.ndarray) and k.dtype.kind in "iu"
                                 and len(set(k.ravel().tolist())) < k.size)]


def _np_set(x, key, v):
    y = x.copy()
    y[key] = v
    return y


@pytest.mark.parametrize("x,keys", TABLES, ids=TABLE_IDS)
def test_setitem_eager(x, keys):
    for key in keys:
        shape = x[key].shape
        for v in (-1.5, onp.arange(int(onp.prod(shape)), dtype=float).reshape(shape) + 100):
            a = np.asarray(x)
            alias = a
            a[key] = v
            _same(alias, _np_set(x, key, v))
            _same(_indexing._update(np.asarray(x), key, v, "set"), _np_set(x, key, v))


def test_setitem_jit_traced_indices():
    chosen = JIT_3D + SCALAR_3D[:4]
    keys = [k for k in DUP_FREE if any(k is c for c in chosen)]
    splits = [_split(k) for k in keys]
    values = [onp.arange(int(onp.prod(X3[k].shape)), dtype=float).reshape(X3[k].shape) + 100
              for k in keys]

    def f(x, vals, *flat):
        outs, pos = [], 0
        for (rebuild, args), v in zip(splits, vals):
            y = x * 1.0
            y[rebuild(flat[pos:pos + len(args)])] = v
            outs.append(y)
            pos += len(args)
        return tuple(outs)
    flat = [np.asarray(a) for _, args in splits for a in args]
    got = minijax.jit(f)(np.asarray(X3), [np.asarray(v) for v in values], *flat)
    for key, v, g in zip(keys, values, got):
        _same(g, _np_set(X3, key, v))


def test_setitem_casts_and_broadcasts_like_numpy():
    a = np.asarray(onp.arange(6).reshape(2, 3))
    a[0, 1] = 1.7
    a[1] = [[7, 8, 9]]          # leading size-1 axes of the value are dropped
    a[:, ::-1][0] = 5           # a slice is a view: the write reaches the base
    want = onp.arange(6).reshape(2, 3)
    want[0, 1] = 1
    want[1] = [7, 8, 9]
    want[:, ::-1][0] = 5
    _same(a, want)
    def fill(x):
        y = x * 1
        y[...] = 1.5            # a whole-array update keeps the array's dtype, not weak
        return y
    out = minijax.jit(fill)(np.zeros(3, np.float32))
    assert out.dtype == onp.float32 and not out.weak_type
    b = np.asarray(onp.zeros(3, bool))
    b[1] = 2.0
    _same(b, onp.array([False, True, False]))


def test_setitem_duplicates_last_write_wins():
    a = np.asarray(X1)
    a[[1, 3, 1, 1]] = np.asarray([10.0, 20.0, 30.0, 40.0])
    _same(a, _np_set(X1, [1, 3, 1, 1], [10.0, 20.0, 30.0, 40.0]))
    got = minijax.jit(lambda x: x.at[_I([0, 0, 2])].set(np.asarray([1.0, 2.0, 3.0])))(
        np.asarray(X1))
    _same(got, _np_set(X1, [0, 0, 2], [1.0, 2.0, 3.0]))


def test_setitem_inside_jit_and_grad_matches_numpy():
    def f(x, np_=np):
        y = x * 2.0
        z = y                   # an alias sees the updates
        y[0] = y[1] * 3.0
        y[1:, ::-1] += 1.0
        y[[0, 2], 1] = y[[2, 0], 2] ** 2
        return (z * z).sum()

    def ref(x):
        y = x * 2.0
        y[0] = y[1] * 3.0
        y[1:, ::-1] += 1.0
        y[[0, 2], 1] = y[[2, 0], 2] ** 2
        return (y * y).sum()
    x = onp.arange(12.0).reshape(3, 4) / 7
    onp.testing.assert_allclose(float(f(np.asarray(x))), ref(x))
    onp.testing.assert_allclose(float(minijax.jit(f)(np.asarray(x))), ref(x))
    check_grads(f, (np.asarray(x),), order=2)

    def local(v):               # a local array created under jit is traced: it can mutate
        out = np.zeros(4)
        out[1] = v
        out[[0, 3]] = v * 2
        return out
    _same(minijax.jit(local)(1.5), onp.array([3.0, 1.5, 0.0, 3.0]))


def test_local_arrays_mutate_under_grad_and_vmap():
    def f(v):
        out = np.zeros(3)
        out[1] = v * 2
        out[2] += v ** 3
        alias = out
        out[0] = np.sin(v)
        return np.sum(alias * alias)

    def ref(v):
        return (2 * v) ** 2 + (v ** 3) ** 2 + onp.sin(v) ** 2
    v = onp.array(0.7)
    onp.testing.assert_allclose(float(f(v)), ref(v))
    check_grads(f, (v,), order=2)
    onp.testing.assert_allclose(float(minijax.jit(minijax.grad(f))(v)),
                                float(minijax.grad(f)(v)))
    vs = onp.array([0.3, -1.1, 2.0])
    _same(minijax.vmap(f)(vs), onp.array([float(f(a)) for a in vs]))
    _same(minijax.vmap(minijax.grad(f))(vs), onp.array([float(minijax.grad(f)(a)) for a in vs]))


def test_setitem_on_an_array_from_outside_with_traced_value_raises():
    outside = np.zeros(3)

    def f(v):
        outside[1] = v
        return outside.sum()
    with pytest.raises(MinijaxTypeError, match="at\\[key\\].set"):
        minijax.grad(f)(1.0)


# ---------------------------------------------------------------- .at

def test_at_methods_match_ufunc_at():
    idx = [0, 2, 2, -1, 0]
    vals = onp.array([1.5, -2.0, 3.0, 0.5, 4.0])
    x = onp.arange(5.0) - 1.0
    for method, ufunc in [("add", onp.add), ("subtract", onp.subtract),
                          ("multiply", onp.multiply), ("min", onp.minimum),
                          ("max", onp.maximum), ("divide", onp.divide)]:
        want = x.copy()
        ufunc.at(want, idx, vals)
        for fn in (lambda a, i, v: getattr(a.at[i], method)(v),
                   minijax.jit(lambda a, i, v: getattr(a.at[i], method)(v))):
            onp.testing.assert_allclose(onp.asarray(fn(np.asarray(x), np.asarray(idx),
                                                       np.asarray(vals))), want, rtol=1e-14)
    uniq = [3, 0, 1]
    want = x.copy()
    want[uniq] = onp.power(x[uniq], [2.0, 3.0, 2.0])
    _same(np.asarray(x).at[np.asarray(uniq)].power(np.asarray([2.0, 3.0, 2.0])), want)
    want = x.copy()
    onp.negative.at(want, uniq)
    _same(np.asarray(x).at[uniq].apply(np.negative), want)
    _same(np.asarray(x).at[1:3].add(1.0), x + onp.array([0, 1, 1, 0, 0]))
    _same(np.asarray(X3).at[:, ::2, _I([0, 4])].multiply(2.0),
          _np_set(X3, (slice(None), slice(None, None, 2), [0, 4]),
                  X3[:, ::2, [0, 4]] * 2))


def test_at_out_of_bounds_modes():
    x = np.asarray(X1)
    _same(x.at[_I([1, 9, -7])].set(0.0), _np_set(X1, [1], 0.0))     # dropped
    _same(x.at[9].add(1.0), X1)
    _same(x.at[_I([1, 9])].set(0.0, mode="clip"), _np_set(X1, [1, 4], 0.0))
    _same(x.at[_I([1, 9])].get(mode="fill", fill_value=-1.0), onp.array([X1[1], -1.0]))
    _same(x.at[7].get(mode="fill"), onp.array(onp.nan))
    _same(x.at[_I([1, 9])].get(mode="clip"), X1[[1, 4]])
    f = minijax.jit(lambda x, i: (x.at[i].set(0.0), x.at[i].get(mode="fill", fill_value=5.0)))
    s, g = f(x, np.asarray(11))
    _same(s, X1)
    _same(g, onp.array(5.0))
    s, g = f(x, np.asarray(-2))
    _same(s, _np_set(X1, -2, 0.0))
    _same(g, onp.array(X1[-2]))


# ---------------------------------------------------------------- vmap

def test_vmap_matches_loop():
    xs = onp.stack([X3 + i for i in range(3)])
    idx = onp.array([[0, 2], [1, 1], [2, 0]])
    for key_fn in (lambda x: x[1, ::-1], lambda x: x[_I([2, 0]), :, 1],
                   lambda x: x[:, _I([0, 3]), _I([[1], [4]])], lambda x: x.at[0, 1:3].set(0.0),
                   lambda x: x.at[_I([1, 1]), 2].add(1.0)):
        got = minijax.vmap(key_fn)(np.asarray(xs))
        _same(got, onp.stack([onp.asarray(key_fn(np.asarray(x))) for x in xs]))
    for fn in (lambda x, i: x[i], lambda x, i: x[:, i], lambda x, i: x.at[i].set(-1.0),
               lambda x, i: x.at[1, i].add(2.0), lambda x, i: x[i[0]]):
        for axes in ((0, 0), (None, 0), (0, None)):
            got = minijax.vmap(fn, in_axes=axes)(np.asarray(xs if axes[0] == 0 else X3),
                                                 np.asarray(idx if axes[1] == 0 else idx[0]))
            want = [fn(np.asarray(xs[b] if axes[0] == 0 else X3),
                       np.asarray(idx[b] if axes[1] == 0 else idx[0])) for b in range(3)]
            _same(got, onp.stack([onp.asarray(w) for w in want]))

    def mutate(x):
        y = x * 1.0
        y[0, ::2] = 7.0
        return y
    _same(minijax.vmap(mutate, in_axes=1)(np.asarray(X3)),
          onp.stack([onp.asarray(mutate(np.asarray(X3[:, b]))) for b in range(4)]))


# ---------------------------------------------------------------- derivatives

def test_grads_gather_and_scatter():
    x = np.asarray(X3 / 10)
    check_grads(lambda x: x[1, ::-2], (x,), order=2)
    check_grads(lambda x: x[:, _I([0, 3, 0]), _I([[1], [4]])] ** 2, (x,), order=2)
    check_grads(lambda x: x[x > 0.5] * x[0, 0, 0], (x,), order=2)
    check_grads(lambda x: np.take_along_axis(x, onp.argsort(X3, 1)[:, :2], 1), (x,), order=2)
    v = np.asarray(onp.arange(8.0).reshape(2, 4) / 3)
    check_grads(lambda x, v: np.asarray(x).at[_I([2, 0]), :, 1].set(v * x[0, :, 0]), (x, v),
                order=2)
    check_grads(lambda x, v: np.asarray(x).at[_I([2, 2]), :, 1].add(v ** 2), (x, v), order=2)
    check_grads(lambda x, v: np.asarray(x).at[1, _I([0, 2]), 1:3].multiply(v[:, 1:3]), (x, v),
                order=2)
    check_grads(lambda x, v: np.asarray(x).at[0, :2, 1:].set(v), (x, v), order=2)
    # set with traced duplicate indices: XLA's CPU scatter applies updates in order, so
    # the derivative matches the concrete path's last-write resolution
    f = lambda x, i: (np.asarray(x).at[i].set(x[1] * x) ** 2).sum()
    x1, dup = np.asarray(X1 / 3), onp.array([0, 0, 3, 3, 2])
    onp.testing.assert_allclose(onp.asarray(minijax.jit(minijax.grad(f))(x1, np.asarray(dup))),
                                onp.asarray(minijax.grad(f)(x1, dup)))
    g = minijax.jit(minijax.grad(lambda x, i: (x[:, i] ** 2).sum()))(x, np.asarray([1, 1]))
    want = onp.zeros_like(X3)
    want[:, 1] = 4 * X3[:, 1] / 10
    onp.testing.assert_allclose(onp.asarray(g), want)


# ---------------------------------------------------------------- errors

def test_index_errors_match_numpy():
    x = np.asarray(X3)
    for key in (3, (0, -5), (0, 0, 5), _I([0, 3]), (slice(None), _I([[4]])), [0, 1, 2, 3, 4],
                (1, 2, 3, 4), 1.0, (0, 1.5), _I([1.0]), "a", (Ellipsis, Ellipsis),
                (_I([0, 1]), _I([0, 1, 2])), X3[0] > 0, (slice(None), onp.array([True, False])),
                slice(1.5, None)):
        with pytest.raises((IndexError, TypeError)) as want:
            X3[key]
        with pytest.raises(want.type, match=_escape(str(want.value))):
            x[key]
        with pytest.raises(want.type):
            x[key] = 0.0
    with pytest.raises(ValueError, match="could not broadcast input array from shape"):
        x[0, :2] = onp.ones(3)

    def traced_set(x):
        x[0, :2] = np.ones(3)
        return x
    with pytest.raises(ValueError, match="value array of shape .3,. could not be broadcast to "
                                         "indexing result of shape .2, 5."):
        minijax.jit(traced_set)(x)
    for key in (3, (0, 0, 5), _I([0, 3]), (1, 2, 3, 4), 1.0, X3[0] > 0):   # the lax path
        with pytest.raises(IndexError):
            minijax.jit(lambda x: x[key])(x)


def _escape(msg):
    import re
    return re.escape(msg.strip())


def test_traced_boolean_mask_raises_named_error():
    x = np.asarray(X1)
    for fn in (lambda x: x[x > 0], lambda x: x.at[x > 0].set(0.0),
               lambda x: np.compress(x > 0, x), lambda x: x[(x > 0)[0]]):
        with pytest.raises(NonConcreteBooleanIndexError, match="where"):
            minijax.jit(fn)(x)
    _same(minijax.jit(lambda x: np.where(x > 0, x, 0.0))(x), onp.where(X1 > 0, X1, 0.0))


# ---------------------------------------------------------------- index functions

def test_index_functions_match_numpy():
    a, A = np.asarray(X3), X3
    order = onp.argsort(A, axis=1)[:, ::-1]
    cases = [
        (np.take(a, [0, -1, 7]), onp.take(A, [0, -1, 7])),
        (np.take(a, [[0, 2]], axis=2), onp.take(A, [[0, 2]], axis=2)),
        (np.take(a, [5, -7], axis=1, mode="wrap"), onp.take(A, [5, -7], axis=1, mode="wrap")),
        (np.take(a, [5, -7], axis=1, mode="clip"), onp.take(A, [5, -7], axis=1, mode="clip")),
        (np.take(a, 2, axis=-1), onp.take(A, 2, axis=-1)),
        (np.take_along_axis(a, order, 1), onp.take_along_axis(A, order, 1)),
        (np.take_along_axis(a, order[:, :1], 1), onp.take_along_axis(A, order[:, :1], 1)),
        (np.take_along_axis(a, onp.array([3, 0]), None),
         onp.take_along_axis(A, onp.array([3, 0]), None)),
        (np.compress([True, False, True], a, axis=1),
         onp.compress([True, False, True], A, axis=1)),
        (np.compress([0, 1], a), onp.compress([0, 1], A)),
        (np.extract(A % 3 == 0, a), onp.extract(A % 3 == 0, A)),
        (np.select([A < -5, A > 4], [a, a ** 2], 42.0),
         onp.select([A < -5, A > 4], [A, A ** 2], 42.0)),
        (a[np.ix_([0, 1], [2, 0], [True, False, True, False, False])],
         A[onp.ix_([0, 1], [2, 0], [True, False, True, False, False])]),
    ]
    choices = [onp.arange(4), onp.arange(4) * 10, onp.full((2, 4), 100)]
    cases += [(np.choose(onp.array([[0, 1, 2, 1]]), choices),
               onp.choose(onp.array([[0, 1, 2, 1]]), choices)),
              (np.choose([5, -1, 2, 3], choices[:2], mode="wrap"),
               onp.choose([5, -1, 2, 3], choices[:2], mode="wrap")),
              (np.choose([5, -1, 0, 1], choices[:2], mode="clip"),
               onp.choose([5, -1, 0, 1], choices[:2], mode="clip"))]
    for got, want in cases:
        _same(got, want)
    for got, want in [(np.diag_indices(3), onp.diag_indices(3)),
                      (np.tril_indices(4, -1), onp.tril_indices(4, -1)),
                      (np.triu_indices(3, 1, 5), onp.triu_indices(3, 1, 5)),
                      (np.triu_indices_from(a[0]), onp.triu_indices_from(A[0])),
                      (np.unravel_index([5, 23], (2, 3, 4)), onp.unravel_index([5, 23], (2, 3, 4))),
                      (minijax.jit(lambda i: np.unravel_index(i, (2, 3, 4), order="F"))(
                          np.asarray([5, 23])), onp.unravel_index([5, 23], (2, 3, 4), order="F"))]:
        for g, w in zip(got, want):
            _same(g, w)
    mi = ([1, 0], [2, 1], [3, 0])
    _same(np.ravel_multi_index(mi, (2, 3, 4)), onp.ravel_multi_index(mi, (2, 3, 4)))
    _same(minijax.jit(lambda i, j: np.ravel_multi_index((i, j), (3, 4)))(
        np.asarray([1, 2]), np.asarray([3, 0])), onp.ravel_multi_index(([1, 2], [3, 0]), (3, 4)))
    with pytest.raises(IndexError, match="out of bounds"):
        np.take(a, [60])
    _same(minijax.jit(lambda a, i: np.take(a, i, mode="fill", fill_value=0.0))(
        a, np.asarray([0, 99])), onp.array([A.flat[0], 0.0]))


def test_mutating_index_functions_rebind():
    order = onp.argsort(X3, axis=1)[:, :1]
    for fn_np, fn_mj in [
            (lambda b: onp.put_along_axis(b, order, -1.0, 1),
             lambda b: np.put_along_axis(b, order, -1.0, 1)),
            (lambda b: onp.put(b, [0, 5, -1], [7, 8]), lambda b: np.put(b, [0, 5, -1], [7, 8])),
            (lambda b: onp.put(b, [0, 99], [7, 8], mode="clip"),
             lambda b: np.put(b, [0, 99], [7, 8], mode="clip")),
            (lambda b: onp.place(b, X3 > 10, [1, 2, 3]),
             lambda b: np.place(b, X3 > 10, [1, 2, 3]))]:
        want = X3.copy()
        fn_np(want)
        b = np.asarray(X3)
        alias = b
        out = fn_mj(b)
        _same(alias, want)
        assert out is None   # as NumPy's: the array is updated in place
        out, b = minijax.jit(lambda b: (fn_mj(b), b))(X3)   # under jit too
        assert out is None
        _same(b, want)

    def put_into_a_copy(b):
        c = b * 1.0
        return np.put(c, np.asarray([1, 2]), 0.0), c
    out, got = minijax.jit(put_into_a_copy)(np.asarray(X1))
    assert out is None
    _same(got, _np_set(X1, [1, 2], 0.0))
    host = X1.copy()   # a NumPy array is written into, where the values are concrete
    assert np.put(host, [0], 5.0, inplace=True) is None and host[0] == 5.0
    with pytest.raises(TypeError, match="cannot be updated in place with traced values"):
        minijax.jit(lambda v: np.put(host, [0], v))(1.0)


# ---------------------------------------------------------------- property tests

from hypothesis import given, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@given(st.one_of(hnp.basic_indices((3, 4, 5), allow_newaxis=True, allow_ellipsis=True),
                 hnp.integer_array_indices((3, 4, 5), result_shape=hnp.array_shapes(
                     min_dims=0, max_dims=2, max_side=3))))
def test_random_keys_match_numpy(key):
    want = X3[key]
    _same(_indexing._getitem(np.asarray(X3), key), want)
    got = _indexing._update(np.asarray(X3), key, -1.0, "set")
    _same(got, _np_set(X3, key, -1.0))
