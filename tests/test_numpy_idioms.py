"""NumPy idioms that new users write: sequences as indices, lists as operator operands,
a reduction's 0-d result used like NumPy's scalar, and in-place assignment into arrays
made inside a transformed function (including boolean masks). Each runs with NumPy and
with minijax (eagerly and under jit/grad/jvp/vmap) and the results are compared."""

import re

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import errors
from minijax.test_util import check_grads

_RNG = onp.random.default_rng(2)
_X = _RNG.uniform(-1.0, 12.0, (5, 3))
_Y = onp.array([0, 2, 1, 0, 2])


def _check(got, want):
    got, want = onp.asarray(got), onp.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    onp.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _both(program, *args):
    """``program`` run with NumPy and with minijax.numpy (eagerly and under jit)."""
    want = program(onp, *args)
    _check(program(np, *[np.asarray(a) for a in args]), want)
    _check(minijax.jit(lambda *xs: program(np, *xs))(*[np.asarray(a) for a in args]), want)


@pytest.mark.parametrize("index", [
    lambda m, x, y: x[range(len(y)), y],
    lambda m, x, y: x[range(1, 4)],
    lambda m, x, y: x[:, range(2)],
    lambda m, x, y: x[(0, 1, 1), ],
])
def test_sequences_as_indices(index):
    _both(index, _X, _Y)


@pytest.mark.parametrize("program", [
    lambda m, x: [2.0, 3.0, 1.0] - x,
    lambda m, x: x - [2.0, 3.0, 1.0],
    lambda m, x: [[1.0], [2.0], [3.0], [4.0], [5.0]] * x,
    lambda m, x: (1, 2, 3) + x,
    lambda m, x: [True, False, True] & (x > 3),
])
def test_lists_as_operands_on_both_sides(program):
    _both(program, _X)


def test_reduction_result_rebinds_like_a_numpy_scalar():
    def program(m, x):
        ll = m.sum(x)
        ll -= x[0]      # NumPy's scalar: the name now holds the broadcast array
        s = m.max(x)
        s *= m.ones(4)
        return ll, s
    want = program(onp, _X)
    for run in (lambda x: program(np, x), minijax.jit(lambda x: program(np, x))):
        got = run(np.asarray(_X))
        for g, w in zip(got, want):
            _check(g, w)


def _promoting_program(m, x, k):
    total = m.sum(k)          # an integer NumPy scalar
    total -= 0.5              # NumPy rebinds it to a float
    peak = m.max(k) * 1
    peak /= 4                 # true division of an integer scalar: a float
    small = m.sum(k.astype(m.float32))
    small *= 2.5              # a weak Python float keeps float32
    first = k[1]
    first += 2.5              # an element, as NumPy's scalar
    return total, peak, small, first


def test_reduction_result_promotes_like_a_numpy_scalar_under_augmented_assignment():
    k = onp.arange(7, dtype=onp.int64)
    want = _promoting_program(onp, _X, k)
    runs = (lambda x, k: _promoting_program(np, x, k),
            minijax.jit(lambda x, k: _promoting_program(np, x, k)))
    for run in runs:
        got = run(np.asarray(_X), np.asarray(k))
        for g, w in zip(got, want):
            _check(g, w)
    batched = minijax.vmap(lambda k: _promoting_program(np, np.asarray(_X), k)[0])(
        onp.stack([k, k + 1]))
    _check(batched, onp.array([_promoting_program(onp, _X, r)[0] for r in (k, k + 1)]))
    def loss(x):
        s = np.sum(x.astype(np.float32))
        s *= 2.5
        return s.astype(np.float64)
    onp.testing.assert_allclose(onp.asarray(minijax.grad(loss)(np.asarray(_X))),
                                onp.full(_X.shape, 2.5), rtol=1e-6)


def test_a_0d_array_keeps_numpy_casting_error_under_augmented_assignment():
    z = np.zeros((), np.int64)
    with pytest.raises(TypeError, match="same_kind"):
        z -= 0.5
    z = onp.zeros((), onp.int64)
    with pytest.raises(TypeError, match="same_kind"):
        z -= 0.5


def _nan_to_num_program(m, x):
    y = x * 1.0
    alias = y
    r = m.nan_to_num(y, copy=False, posinf=9.0)   # NumPy updates y in place
    return y, alias, r


def test_nan_to_num_copy_false_updates_in_place_eager_and_traced():
    x = onp.array([[1.0, onp.nan], [onp.inf, -onp.inf]])
    want = _nan_to_num_program(onp, x)
    for run in (lambda v: _nan_to_num_program(np, v),
                minijax.jit(lambda v: _nan_to_num_program(np, v))):
        for g, w in zip(run(np.asarray(x)), want):
            _check(g, w)
    rows = minijax.vmap(lambda v: _nan_to_num_program(np, v)[0])(x)
    _check(rows, want[0])
    g = minijax.grad(lambda v: _nan_to_num_program(np, v)[0].sum())(np.asarray(x[:1, :1]))
    _check(g, onp.ones((1, 1)))


def _in_place_on_0d(xp, make):
    s = make(xp)
    alias = s
    s += 1.0
    return s is alias, s, alias


@pytest.mark.parametrize("make", [lambda xp: xp.asarray(xp.sum(xp.asarray(_X))),
                                  lambda xp: xp.sum(xp.asarray(_X)),
                                  lambda xp: xp.asarray(_X)[0, 1]],
                         ids=["0-d array", "reduction (NumPy's scalar)", "element"])
def test_in_place_on_0d_updates_an_array_and_rebinds_a_scalar(make):
    same, s, alias = _in_place_on_0d(np, make)
    want_same, want_s, want_alias = _in_place_on_0d(onp, make)
    assert same == want_same
    _check(s, want_s)
    _check(alias, want_alias)


def _fill_program(m, w):
    s = m.zeros((4, 3))
    s[1] = w[0]
    d = m.zeros(3)
    d[w[0] > 5] = 1.0
    xs = m.zeros((3, 4))
    for t in range(3):
        xs[t][t + 1] = w[t, 0]
    x = w * 1.0
    x[x > 10] = -1.0
    x[x[:, 0] < 2] = m.asarray([7.0, 8.0, 9.0])
    return s.sum() + d.sum() * w[0, 0] + xs.sum() * w[1, 1] + (x * x).sum()


def test_assignment_into_arrays_made_inside_under_every_transformation():
    w = _X[:4]
    want = _fill_program(onp, w)
    _check(_fill_program(np, np.asarray(w)), want)
    _check(minijax.jit(lambda a: _fill_program(np, a))(np.asarray(w)), want)
    batched = minijax.vmap(lambda a: _fill_program(np, a))(np.asarray(onp.stack([w, 2 * w])))
    _check(batched, onp.array([want, _fill_program(onp, 2 * w)]))
    primal, tangent = minijax.jvp(lambda a: _fill_program(np, a), (np.asarray(w),),
                                  (np.ones((4, 3)),))
    _check(primal, want)
    check_grads(lambda a: _fill_program(np, a), (np.asarray(w),), order=1)


def test_one_hot_through_a_row_view_under_grad():
    def one_hot(m, w):
        xs = m.zeros((3, 4))
        for t in range(3):
            xs[t][t] = 1.0
        return (xs * w).sum()
    w = _RNG.uniform(size=(3, 4))
    _check(minijax.grad(lambda a: one_hot(np, a))(np.asarray(w)), onp.eye(3, 4))


def test_masked_assignment_with_a_value_that_needs_the_mask_raises_named():
    def bad(x):
        x = x * 1.0
        x[x > 3] = np.arange(15.0)   # the value's shape depends on how many are selected
        return x
    with pytest.raises(errors.NonConcreteBooleanIndexError, match="where"):
        minijax.jit(bad)(np.asarray(_X))


_SCALAR_RESULTS = {
    "sum": lambda xp, x: xp.sum(x),
    "mean": lambda xp, x: xp.mean(x),
    "element": lambda xp, x: x[1],
    "element of ints": lambda xp, x: xp.arange(3)[2],
    "max": lambda xp, x: x.max(),
    "bool": lambda xp, x: xp.any(x > 1),
    "complex": lambda xp, x: xp.sum(x * 1j),
    "float32": lambda xp, x: x.astype(xp.float32)[0],
}


@pytest.mark.parametrize("name", sorted(_SCALAR_RESULTS))
def test_scalar_results_hash_as_numpys_scalars(name):
    make = _SCALAR_RESULTS[name]
    x = onp.array([0.5, 2.0, 3.0])
    got, want = make(np, np.asarray(x)), make(onp, x)
    assert hash(got) == hash(want)
    str(got), onp.asarray(got), float(got.real)   # reading it keeps it a scalar
    assert hash(got) == hash(want)
    assert {got: "v"}[want] == "v" and got in {want} and want in {got}


def test_scalars_in_sets_dicts_and_caches():
    import functools
    assert set(np.arange(3)) == set(onp.arange(3)) == {0, 1, 2}
    assert np.arange(5)[3] in {3: 1}

    @functools.lru_cache(maxsize=None)
    def double(k):
        return 2 * k
    assert double(np.arange(4)[3]) == 6 and double(np.sum(np.ones(4, int)) - 1) == 6
    assert double.cache_info().hits == 1


@pytest.mark.parametrize("make", [lambda: np.zeros(()), lambda: np.arange(3),
                                  lambda: np.asarray(np.sum(np.ones(2))),
                                  lambda: np.ones((2, 2))[0]],
                         ids=["0-d array", "1-d", "asarray of a scalar", "row view"])
def test_arrays_stay_unhashable_and_the_error_says_what_to_use(make):
    with pytest.raises(TypeError, match=r"unhashable type.*\.item\(\)"):
        hash(make())


def test_scalar_augmented_assignment_keeps_it_hashable():
    s = np.sum(np.arange(4))
    s += 1
    assert hash(s) == hash(onp.int64(7))
    s -= 0.5
    assert s.dtype == onp.float64 and hash(s) == hash(6.5)


@pytest.mark.parametrize("order", ["C", "F", "A", "f", None])
@pytest.mark.parametrize("shape", [(4, 6), (-1, 2), (24,), (2, 2, 2, 3)])
def test_reshape_and_ravel_orders_on_every_path(order, shape):
    x = _RNG.uniform(size=(2, 3, 4))
    want = onp.reshape(x, shape, order=order)
    for f in [lambda a: np.reshape(a, shape, order), lambda a: a.reshape(shape, order=order),
              minijax.jit(lambda a: np.reshape(a, shape, order)),
              minijax.jit(lambda a: a.reshape(shape, order=order))]:
        _check(f(np.asarray(x)), want)
    stacked = np.asarray(onp.stack([x, 2 * x]))
    batched = minijax.vmap(lambda a: np.reshape(a, shape, order))(stacked)
    _check(batched, onp.stack([want, onp.reshape(2 * x, shape, order=order)]))
    for f in [lambda a: np.ravel(a, order), minijax.jit(lambda a: np.ravel(a, order))]:
        _check(f(np.asarray(x)), onp.ravel(x, order))
    _check(minijax.jit(lambda a: np.ravel(a, "K"))(np.asarray(x)), onp.ravel(x, "K"))
    check_grads(lambda a: np.sin(np.reshape(a, shape, order)), (np.asarray(x),), order=1)


@pytest.mark.parametrize("call", [lambda xp, a: xp.reshape(a, 3, 8),
                                  lambda xp, a: xp.reshape(a, (3, 8), "X"),
                                  lambda xp, a: xp.reshape(a, (3, 8), "K")])
def test_reshape_order_errors_are_numpys_eager_and_traced(call):
    x = _RNG.uniform(size=(2, 3, 4))
    with pytest.raises((TypeError, ValueError)) as want:
        call(onp, x)
    for f in [lambda a: call(np, a), minijax.jit(lambda a: call(np, a))]:
        with pytest.raises(type(want.value), match=re.escape(str(want.value))):
            f(np.asarray(x))


_H = onp.arange(12.0).reshape(3, 4)
_LAYOUT_INPUTS = {"C": lambda: _H.copy(), "F": lambda: onp.asfortranarray(_H),
                  "list": lambda: _H.tolist(), "1-d": lambda: _H[0].copy(),
                  "float16": lambda: onp.asfortranarray(_H.astype(onp.float16)),
                  "int32": lambda: _H.astype(onp.int32)}
_LAYOUT_MAKERS = [("asarray", lambda m, a, o: m.asarray(a, order=o)),
                  ("array", lambda m, a, o: m.array(a, order=o)),
                  ("asarray copy", lambda m, a, o: m.asarray(a, order=o, copy=True)),
                  ("array ndmin", lambda m, a, o: m.array(a, order=o, ndmin=3)),
                  ("asfortranarray", lambda m, a, o: m.asfortranarray(a)),
                  ("ascontiguousarray", lambda m, a, o: m.ascontiguousarray(a))]


@pytest.mark.parametrize("order", ["C", "F", "A", "K", None])
@pytest.mark.parametrize("kind", list(_LAYOUT_INPUTS))
@pytest.mark.parametrize("name, make", _LAYOUT_MAKERS, ids=[m[0] for m in _LAYOUT_MAKERS])
def test_order_gives_numpys_memory_layout_and_sharing(name, make, kind, order):
    """``order=`` (and asfortranarray/ascontiguousarray) lay the host memory out as
    NumPy does, which ``ravel(order='K')`` and ``tobytes(order='A')`` read; the input
    itself comes back, or stays shared, where NumPy's does; from an ndarray and from an
    Array alike."""
    want = make(onp, _LAYOUT_INPUTS[kind](), order)
    for given in (_LAYOUT_INPUTS[kind](), np.asarray(_LAYOUT_INPUTS[kind]())):
        got = make(np, given, order)
        assert got.dtype == np.asarray(want).dtype and got.shape == want.shape
        onp.testing.assert_array_equal(onp.asarray(np.ravel(got, order="K")),
                                       onp.ravel(want, order="K"))
        assert got.tobytes(order="A") == onp.asarray(want, got.dtype).tobytes(order="A")
        host = _LAYOUT_INPUTS[kind]()
        if kind == "list" or want.dtype != host.dtype:
            continue
        numpy_shares = onp.shares_memory(make(onp, host, order), host)
        assert (got is given) == (type(given) is not onp.ndarray and numpy_shares)
        if type(given) is onp.ndarray:   # NumPy's sharing: a write through either is seen
            assert onp.shares_memory(onp.asarray(got), given) == numpy_shares


def test_order_is_checked_as_numpy_checks_it_eagerly_and_under_jit():
    for order, error, text in ((0, TypeError, "order must be str, not int"),
                               ("Q", ValueError, "order must be one of 'C', 'F', 'A', or 'K'")):
        with pytest.raises(error, match=text):
            onp.asarray(_H, order=order)
        for fn in (lambda: np.asarray(_H, order=order), lambda: np.array(_H, order=order),
                   minijax.jit(lambda: np.asarray(_H, order=order)),
                   lambda: minijax.jit(lambda x: np.array(x, order=order))(_H)):
            with pytest.raises(error, match=text):
                fn()
    # under jit the layout is XLA's: the values are NumPy's
    out = minijax.jit(lambda x: np.asfortranarray(x) * 2)(np.asarray(_H))
    onp.testing.assert_array_equal(onp.asarray(out), _H * 2)


@pytest.mark.parametrize("make", [
    lambda m, o: m.zeros(2, order=o), lambda m, o: m.ones(2, order=o),
    lambda m, o: m.empty(2, order=o), lambda m, o: m.full(2, 1.0, order=o),
    lambda m, o: m.eye(2, order=o), lambda m, o: m.zeros_like(_H, order=o),
    lambda m, o: m.empty_like(_H, order=o), lambda m, o: m.full_like(_H, 1, order=o)])
@pytest.mark.parametrize("order", ["C", "F", "A", "K", "Q", 3, None])
def test_new_arrays_check_order_as_numpy_under_jit_too(make, order):
    try:
        make(onp, order)
    except (TypeError, ValueError) as e:
        for call in (lambda: make(np, order), minijax.jit(lambda: make(np, order))):
            with pytest.raises(type(e)):
                call()
    else:
        minijax.jit(lambda: make(np, order))()


@pytest.mark.parametrize("name", ["concatenate", "stack", "hstack", "vstack", "einsum"])
@pytest.mark.parametrize("dtype, casting", [(int, "safe"), (int, "unsafe"), (int, None),
                                            (onp.float32, None), (None, "bogus")])
def test_casting_is_checked_as_numpy_checks_it_under_jit_too(name, dtype, casting):
    args = (["i,i->i", _H[0], _H[1]] if name == "einsum" else [[_H[0], _H[1]]])
    kwargs = {"dtype": dtype} | ({} if casting is None else {"casting": casting})
    try:
        want = getattr(onp, name)(*args, **kwargs)
    except (TypeError, ValueError) as e:
        for call in (lambda: getattr(np, name)(*args, **kwargs),
                     minijax.jit(lambda: getattr(np, name)(*args, **kwargs))):
            with pytest.raises(type(e)):
                call()
        return
    for got in (getattr(np, name)(*args, **kwargs),
                minijax.jit(lambda: getattr(np, name)(*args, **kwargs))()):
        _check(got, want)


@pytest.mark.parametrize("kwargs", [{"dtype": onp.float32}, {"dtype": int, "casting": "unsafe"},
                                    {"dtype": int, "casting": "safe"},
                                    {"where": onp.array([True, True, True])}, {"bogus": 1}])
@pytest.mark.parametrize("bounds", [(0, 1), (0, None), (None, 1)])
def test_clip_takes_numpys_ufunc_keywords_under_jit_too(kwargs, bounds):
    x = onp.array([-1.0, 0.5, 2.0])
    calls = (lambda m, v: m.clip(v, *bounds, **kwargs),
             lambda m, v: m.asarray(v).clip(*bounds, **kwargs))
    for call in calls:
        try:
            want = call(onp, x)
        except TypeError:
            for got in (lambda: call(np, x), lambda: minijax.jit(lambda v: call(np, v))(x)):
                with pytest.raises(TypeError):
                    got()
            continue
        _check(call(np, x), want)
        _check(minijax.jit(lambda v: call(np, v))(x), want)


def test_an_unknown_ufunc_keyword_is_named_for_the_ufunc_under_jit():
    with pytest.raises(TypeError, match=r"^maximum\(\) got an unexpected keyword argument 'bogus'"):
        minijax.jit(lambda x: np.maximum(x, 1, bogus=1))(_H)
    with pytest.raises(TypeError, match=r"^clip\(\) got an unexpected keyword argument 'bogus'"):
        minijax.jit(lambda x: np.clip(x, 0, 1, bogus=1))(_H)
