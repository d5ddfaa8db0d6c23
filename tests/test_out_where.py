"""``out=`` (and ``where=``) on every function and Array method that takes it in NumPy:
the result is written into the given array with NumPy's casting rule for that function,
``out`` itself is returned, views write into their base, and under transformations an
array made inside the function is rebound functionally. NumPy is the oracle."""

import warnings

import numpy as onp
import pytest

import minijax
import minijax.numpy as np

_RNG = onp.random.default_rng(1)
_A = _RNG.uniform(-2.0, 2.0, (3, 4))
_B = _RNG.uniform(-2.0, 2.0, (4, 2))

# (label, call taking (module, a, out), shape and dtype of out)
_CASES = [
    ("sum", lambda m, a, o: m.sum(a, axis=0, out=o), (4,), onp.float64),
    ("sum-int-out", lambda m, a, o: m.sum(a, axis=1, out=o), (3,), onp.int64),
    ("prod", lambda m, a, o: m.prod(a, axis=1, out=o, keepdims=True), (3, 1), onp.float64),
    ("mean", lambda m, a, o: m.mean(a, axis=0, out=o), (4,), onp.float64),
    ("max", lambda m, a, o: m.max(a, axis=1, out=o), (3,), onp.float64),
    ("min", lambda m, a, o: m.min(a, out=o), (), onp.float64),
    ("amax", lambda m, a, o: m.amax(a, axis=0, out=o), (4,), onp.float64),
    ("std", lambda m, a, o: m.std(a, axis=0, out=o, ddof=1), (4,), onp.float64),
    ("var", lambda m, a, o: m.var(a, axis=1, out=o), (3,), onp.float64),
    ("any", lambda m, a, o: m.any(a > 1, axis=0, out=o), (4,), onp.bool_),
    ("all", lambda m, a, o: m.all(a > -1, axis=1, out=o), (3,), onp.bool_),
    ("argmax", lambda m, a, o: m.argmax(a, axis=0, out=o), (4,), onp.int64),
    ("argmin", lambda m, a, o: m.argmin(a, axis=1, out=o), (3,), onp.int64),
    ("cumsum", lambda m, a, o: m.cumsum(a, axis=1, out=o), (3, 4), onp.float64),
    ("cumprod", lambda m, a, o: m.cumprod(a, axis=0, out=o), (3, 4), onp.float64),
    ("nansum", lambda m, a, o: m.nansum(a, axis=0, out=o), (4,), onp.float64),
    ("nanmean", lambda m, a, o: m.nanmean(a, axis=1, out=o), (3,), onp.float64),
    ("nanmax", lambda m, a, o: m.nanmax(a, axis=1, out=o), (3,), onp.float64),
    ("median", lambda m, a, o: m.median(a, axis=0, out=o), (4,), onp.float64),
    ("quantile", lambda m, a, o: m.quantile(a, 0.3, axis=1, out=o), (3,), onp.float64),
    ("ptp", lambda m, a, o: m.ptp(a, axis=0, out=o), (4,), onp.float64),
    ("trace", lambda m, a, o: m.trace(a, out=o), (), onp.float64),
    ("clip", lambda m, a, o: m.clip(a, -1, 1, out=o), (3, 4), onp.float64),
    ("clip-broadcast", lambda m, a, o: m.clip(a[0], -1, 1, out=o), (3, 4), onp.float64),
    ("round", lambda m, a, o: m.round(a, 1, out=o), (3, 4), onp.float64),
    ("around", lambda m, a, o: m.around(a, out=o), (3, 4), onp.float64),
    ("take", lambda m, a, o: m.take(a, [0, 5, 7], out=o), (3,), onp.float64),
    ("dot", lambda m, a, o: m.dot(a, m.asarray(_B), out=o), (3, 2), onp.float64),
    ("matmul", lambda m, a, o: m.matmul(a, m.asarray(_B), out=o), (3, 2), onp.float64),
    ("einsum", lambda m, a, o: m.einsum("ij,jk->ik", a, m.asarray(_B), out=o), (3, 2),
     onp.float64),
    ("concatenate", lambda m, a, o: m.concatenate([a, a], axis=0, out=o), (6, 4),
     onp.float64),
    ("concat", lambda m, a, o: m.concat([a, a], axis=1, out=o), (3, 8), onp.float64),
    ("cumulative_sum", lambda m, a, o: m.cumulative_sum(a, axis=1, out=o), (3, 4),
     onp.float64),
    ("cumulative_prod", lambda m, a, o: m.cumulative_prod(a, axis=0, out=o,
                                                          include_initial=True), (4, 4),
     onp.float64),
    ("fix", lambda m, a, o: m.fix(a, out=o), (3, 4), onp.float64),
    ("isneginf", lambda m, a, o: m.isneginf(a / 0.0, out=o), (3, 4), onp.bool_),
    ("isposinf", lambda m, a, o: m.isposinf(a / 0.0, out=o), (3, 4), onp.bool_),
    ("outer", lambda m, a, o: m.outer(a[0], a[1], out=o), (4, 4), onp.float64),
    ("all-where", lambda m, a, o: m.all(a > 0, axis=1, out=o, where=a < 1), (3,), onp.bool_),
    ("any-where", lambda m, a, o: m.any(a > 0, axis=0, out=o, where=a < 1), (4,), onp.bool_),
    ("mean-where", lambda m, a, o: m.mean(a, axis=1, out=o, where=a > -1), (3,), onp.float64),
    ("add", lambda m, a, o: m.add(a, 1.5, out=o), (3, 4), onp.float64),
    ("logical_not", lambda m, a, o: m.logical_not(a > 0, out=o), (3, 4), onp.bool_),
    ("add.reduce", lambda m, a, o: m.add.reduce(a, axis=1, out=o), (3,), onp.float64),
    ("multiply.accumulate", lambda m, a, o: m.multiply.accumulate(a, axis=1, out=o), (3, 4),
     onp.float64),
    ("method-sum", lambda m, a, o: a.sum(axis=0, out=o), (4,), onp.float64),
    ("method-mean", lambda m, a, o: a.mean(axis=1, out=o), (3,), onp.float64),
    ("method-max", lambda m, a, o: a.max(axis=0, out=o), (4,), onp.float64),
    ("method-clip", lambda m, a, o: a.clip(-1, 1, out=o), (3, 4), onp.float64),
    ("method-round", lambda m, a, o: a.round(1, out=o), (3, 4), onp.float64),
    ("method-cumsum", lambda m, a, o: a.cumsum(axis=0, out=o), (3, 4), onp.float64),
    ("method-prod", lambda m, a, o: a.prod(axis=0, out=o), (4,), onp.float64),
    ("method-std", lambda m, a, o: a.std(axis=0, out=o), (4,), onp.float64),
    ("method-any", lambda m, a, o: (a > 0).any(axis=0, out=o), (4,), onp.bool_),
    ("method-argmax", lambda m, a, o: a.argmax(axis=1, out=o), (3,), onp.int64),
    ("method-dot", lambda m, a, o: a.dot(m.asarray(_B), out=o), (3, 2), onp.float64),
]


def _want(call, shape, dtype):
    out = onp.full(shape, 7, dtype)
    r = call(onp, _A.copy(), out)
    assert r is out
    return out


def _check(got, want):
    got = onp.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    onp.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("label,call,shape,dtype", _CASES, ids=[c[0] for c in _CASES])
def test_out_eagerly_writes_and_returns_out(label, call, shape, dtype):
    want = _want(call, shape, dtype)
    out = np.full(shape, 7, dtype)
    assert call(np, np.asarray(_A), out) is out
    _check(out, want)


@pytest.mark.parametrize("label,call,shape,dtype", _CASES, ids=[c[0] for c in _CASES])
def test_out_on_the_lax_path_under_jit(label, call, shape, dtype):
    want = _want(call, shape, dtype)

    def run(a):
        out = np.full(shape, 7, dtype)   # made inside: rebound functionally
        r = call(np, a, out)
        assert r is out
        return out
    _check(minijax.jit(run)(np.asarray(_A)), want)


def test_out_into_a_view_updates_the_base():
    base = np.zeros((2, 4))
    np.sum(np.asarray(_A), axis=0, out=base[1])
    want = onp.zeros((2, 4))
    onp.sum(_A, axis=0, out=want[1])
    _check(base, want)

    def run(a):
        b = np.zeros((2, 4))
        np.sum(a, axis=0, out=b[1])
        np.multiply(a[0], 2.0, out=b[0])
        return b
    onp.multiply(_A[0], 2.0, out=want[0])
    _check(minijax.jit(run)(np.asarray(_A)), want)


def test_out_aliasing_an_input():
    g = np.asarray(_A)
    np.clip(g, -1, 1, out=g)
    _check(g, onp.clip(_A, -1, 1))
    m = np.asarray(_A > 0)
    np.logical_not(m, out=m)
    _check(m, ~(_A > 0))


def test_out_under_grad_and_vmap():
    def f(a):
        out = np.zeros(4)
        np.sum(a * a, axis=0, out=out)
        return out

    def g(a):
        return f(a).sum()
    grad = minijax.grad(g)(np.asarray(_A))
    _check(grad, 2 * _A)
    batched = minijax.vmap(f)(np.asarray(onp.stack([_A, 2 * _A])))
    _check(batched, onp.stack([(_A * _A).sum(0), (4 * _A * _A).sum(0)]))


def test_numpy_functions_on_minijax_arrays_return_minijax_arrays():
    x = np.asarray(_A)
    for fn in (onp.sum, onp.mean, onp.max, onp.min, onp.prod, onp.std, onp.var,
               onp.cumsum, onp.argmax, onp.any, onp.round, onp.clip):
        args = (x, -1, 1) if fn is onp.clip else (x,)
        r = fn(*args)
        want = fn(*([_A] + list(args[1:])))
        assert isinstance(r, np.ndarray), fn.__name__
        _check(r, onp.asarray(want))


@pytest.mark.parametrize("lax_path", [False, True])
def test_out_errors_name_the_problem(lax_path):
    def fn(f):
        return f.__wrapped_lax__ if lax_path else f
    a = np.asarray(_A)
    with pytest.raises(ValueError, match="shape"):
        fn(np.sum)(a, axis=0, out=np.zeros(3))
    with pytest.raises(TypeError, match="cast"):
        fn(np.clip)(a, 0, 1, out=np.zeros((3, 4), np.int64))
    with pytest.raises(TypeError, match="cast"):
        np.add(a, 1.0, out=np.zeros((3, 4), np.int64))
    with pytest.raises(TypeError, match="array"):
        np.sum.__wrapped_lax__(a, out=[1.0])


def test_where_on_ufunc_calls_keeps_out_elsewhere():
    mask = _A > 0
    want = onp.full((3, 4), -3.0)
    onp.sqrt(_A, out=want, where=mask)
    for run in (lambda a, m: np.sqrt(a, out=np.full((3, 4), -3.0), where=m),
                minijax.jit(lambda a, m: np.sqrt(a, out=np.full((3, 4), -3.0), where=m))):
        _check(run(np.asarray(_A), np.asarray(mask)), want)


# (label, call taking (module, a, mask), the mask as the call uses it)
_WHERE_CALLS = [
    ("sqrt", lambda m, a, w: m.sqrt(a, where=w), lambda w: w),
    ("add-broadcast-mask", lambda m, a, w: m.add(a, 2.0, where=w[0]), lambda w: w[0]),
    ("mask-widens-shape", lambda m, a, w: m.multiply(a[0], 3.0, where=w), lambda w: w),
    ("isnan-bool", lambda m, a, w: m.isnan(a, where=w), lambda w: w),
    ("divmod-two-outputs", lambda m, a, w: m.divmod(a, 0.7, where=w), lambda w: w),
    ("frexp-int-output", lambda m, a, w: m.frexp(a, where=w), lambda w: w),
    ("dtype", lambda m, a, w: m.exp(a, where=w, dtype=onp.float32), lambda w: w),
    ("scalar-mask", lambda m, a, w: m.negative(a, where=False), lambda w: False),
    ("list-mask", lambda m, a, w: m.abs(a[0], where=[True, False, True, False]),
     lambda w: onp.array([True, False, True, False])),
    ("0-d", lambda m, a, w: m.add(a[0, 1], 1.0, where=w[0, 1]), lambda w: w[0, 1]),
]


@pytest.mark.parametrize("label,call,used_mask", _WHERE_CALLS,
                         ids=[c[0] for c in _WHERE_CALLS])
def test_where_without_out_is_zero_where_masked_eager_and_traced(label, call, used_mask):
    # NumPy leaves the unselected elements of a fresh output uninitialised; minijax
    # defines them as zeros on every path. NumPy is the oracle for the selected
    # elements, dtypes and shapes.
    mask = _A > 0
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "'where' used without 'out'", UserWarning)
        want = call(onp, _A, mask)
    want = want if isinstance(want, tuple) else (want,)
    a, m = np.asarray(_A), np.asarray(mask)
    eager = call(np, a, m)
    traced = minijax.jit(lambda a, m: call(np, a, m))(a, m)
    eager, traced = ((r if isinstance(r, tuple) else (r,)) for r in (eager, traced))
    assert len(eager) == len(traced) == len(want)
    for e, t, w in zip(eager, traced, want):
        e, t, w = onp.asarray(e), onp.asarray(t), onp.asarray(w)
        assert e.dtype == t.dtype == w.dtype and e.shape == t.shape == w.shape
        selected = onp.broadcast_to(used_mask(mask), w.shape)
        onp.testing.assert_allclose(e[selected], w[selected], rtol=1e-6)
        assert not e[~selected].any()
        onp.testing.assert_allclose(t, e, rtol=1e-6)


def test_where_without_out_under_vmap_and_grad():
    mask = _A > 0
    f = lambda a, m: np.sin(a, where=m)   # noqa: E731
    rows = onp.stack([onp.asarray(f(np.asarray(r), np.asarray(k))) for r, k in zip(_A, mask)])
    onp.testing.assert_allclose(onp.asarray(minijax.vmap(f)(_A, mask)), rows, rtol=1e-12)
    g = minijax.grad(lambda a: f(a, mask).sum())(np.asarray(_A))
    onp.testing.assert_allclose(onp.asarray(g), onp.where(mask, onp.cos(_A), 0.0), rtol=1e-12)


@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
def test_variance_where_and_mean_keywords(name):
    rng = onp.random.default_rng(3)
    x = rng.normal(size=(4, 5))
    x_nan = x.copy()
    x_nan[0, 1] = onp.nan
    w = rng.random((4, 5)) > 0.3
    cases = [dict(where=w), dict(where=w, axis=1, ddof=1), dict(where=w[0], axis=1, keepdims=True),
             dict(axis=0, mean=onp.mean(x, axis=0, keepdims=True))]
    for kw in cases:
        for arr in (x, x_nan):
            want = getattr(onp, name)(arr, **kw)
            fn = getattr(np, name)
            for got in (fn(arr, **kw), fn.__wrapped_lax__(arr, **kw),
                        minijax.jit(lambda v: fn(v, **kw))(arr)):
                onp.testing.assert_allclose(onp.asarray(got), want, rtol=1e-12, equal_nan=True)
    from minijax.test_util import check_grads
    check_grads(lambda v: getattr(np, name)(v, where=w, axis=1), (np.asarray(x),), order=1)
