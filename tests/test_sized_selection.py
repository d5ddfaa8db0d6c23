"""Selections whose size depends on the values (nonzero, one-argument where, argwhere,
flatnonzero, extract, compress and the set operations) take JAX's static ``size=`` and
``fill_value=``: JAX's values and padding eagerly and under ``jit``, NumPy's values cut or
padded, per-example results under ``vmap``, and derivatives through the set operations
(the unique family's own tests are in test_unique.py)."""

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import minijax
import minijax.numpy as mnp
from minijax.errors import ConcretizationTypeError
from minijax.test_util import check_grads

A = onp.array([5, 3, 3, 1, 7], onp.int32)
B = onp.array([3, 9, 7, 2], onp.int32)
M = onp.array([[0, 1, 0], [2, 0, 3]], onp.int32)

CASES = [
    ("nonzero", (M,), dict(size=5)),
    ("nonzero", (M,), dict(size=2)),
    ("nonzero", (M,), dict(size=4, fill_value=(-1, -2))),
    ("nonzero", (onp.zeros((0, 3), onp.int32),), dict(size=2)),
    ("argwhere", (onp.zeros((2, 0), onp.int32),), dict(size=2)),
    ("where", (M,), dict(size=4, fill_value=7)),
    ("flatnonzero", (M,), dict(size=5, fill_value=-1)),
    ("argwhere", (M,), dict(size=4, fill_value=-1)),
    ("argwhere", (onp.int32(3),), dict(size=2)),
    ("extract", (M > 0, M * 1.5), dict(size=3)),
    ("extract", (M, M), dict(size=2, fill_value=9)),
    ("compress", (onp.array([True, False, True]), M.T), dict(axis=0, size=3, fill_value=9)),
    ("compress", (onp.array([0, 1]), M), dict(axis=0, size=2)),
    ("compress", (onp.array([True, False, True, True]), M), dict(size=4)),
    ("union1d", (A, B), dict(size=9)),
    ("union1d", (A, B), dict(size=3, fill_value=0)),
    ("intersect1d", (A, B), dict(size=4)),
    ("intersect1d", (A, B), dict(size=4, return_indices=True)),
    ("intersect1d", (A, onp.array([100], onp.int32)), dict(size=2, return_indices=True)),
    ("intersect1d", (onp.array([1, 3, 7], onp.int32), B), dict(assume_unique=True, size=3,
                                                               return_indices=True)),
    ("setdiff1d", (A, B), dict(size=5)),
    ("setdiff1d", (A, A), dict(size=3)),
    ("setdiff1d", (A, B), dict(size=5, assume_unique=True, fill_value=-4)),
    ("setxor1d", (A, B), dict(size=8)),
    ("setxor1d", (A, A), dict(size=3)),
    ("setxor1d", (A, B), dict(size=2, fill_value=1)),
]


@pytest.mark.parametrize("name,args,kwargs", CASES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(CASES)])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_sized_selections_match_jax(name, args, kwargs, mode):
    want = jax.tree_util.tree_leaves(getattr(jnp, name)(*args, **kwargs))
    fn = getattr(mnp, name)
    got = (fn(*args, **kwargs) if mode == "eager"
           else minijax.jit(lambda *a: fn(*a, **kwargs))(*args))
    got = minijax.tree_util.tree_leaves(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        onp.testing.assert_array_equal(onp.asarray(g), onp.asarray(w))
    # the dtypes are NumPy's (JAX's are narrower without x64)
    host = getattr(onp, name)(*args, **{k: v for k, v in kwargs.items()
                                         if k not in ("size", "fill_value")})
    for g, h in zip(got, jax.tree_util.tree_leaves(host)):
        assert onp.asarray(g).dtype == onp.asarray(h).dtype


def _cut_or_pad(values, size, fill):
    values = values[:size]
    return onp.concatenate([values, onp.full(size - len(values), fill, values.dtype)])


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
@pytest.mark.parametrize("kind", ["int", "float with NaN", "assume_unique"])
def test_set_operations_under_jit_are_numpys_cut_or_padded(name, kind):
    rng = onp.random.default_rng(7)
    for trial in range(6):
        if kind == "assume_unique":
            pool = rng.permutation(20)
            a, b = pool[:rng.integers(0, 9)], rng.permutation(pool[5:5 + rng.integers(0, 9)])
            keywords = {} if name == "union1d" else {"assume_unique": True}
        else:
            a = rng.integers(0, 8, rng.integers(0, 9))
            b = rng.integers(0, 8, (2, rng.integers(0, 5)))
            keywords = {}
            if kind != "int":
                a, b = a.astype(onp.float64), b.astype(onp.float32)
                a[rng.random(a.shape) < 0.2] = onp.nan
                b[rng.random(b.shape) < 0.2] = onp.nan
        want = getattr(onp, name)(a, b, **keywords)
        for size in {max(len(want) - 1, 0), len(want), len(want) + 2}:
            got = minijax.jit(lambda x, y: getattr(mnp, name)(
                x, y, size=size, fill_value=-3, **keywords))(a, b)
            got = onp.asarray(got)
            assert got.dtype == want.dtype
            onp.testing.assert_array_equal(got, _cut_or_pad(want, size, -3))


@pytest.mark.parametrize("assume_unique", [False, True])
def test_intersect1d_indices_under_jit_are_numpys(assume_unique):
    rng = onp.random.default_rng(3)
    for trial in range(8):
        if assume_unique:
            a, b = rng.permutation(12)[:rng.integers(1, 8)], rng.permutation(12)[:6]
        else:
            a, b = rng.integers(0, 6, rng.integers(1, 9)), rng.integers(0, 6, (2, 3))
        values, i1, i2 = onp.intersect1d(a, b, assume_unique, return_indices=True)
        size = len(values) + 1
        got = minijax.jit(lambda x, y: mnp.intersect1d(
            x, y, assume_unique, return_indices=True, size=size))(a, b)
        onp.testing.assert_array_equal(onp.asarray(got[0])[:-1], values)
        onp.testing.assert_array_equal(onp.asarray(got[1]), onp.append(i1, a.size))
        onp.testing.assert_array_equal(onp.asarray(got[2]), onp.append(i2, b.size))


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_sized_set_operations_under_vmap_are_per_example(name):
    rng = onp.random.default_rng(0)
    a = rng.integers(0, 6, (4, 7)).astype(onp.float64)
    b = rng.integers(0, 6, (4, 5)).astype(onp.float64)
    fn = getattr(mnp, name)
    got = onp.asarray(minijax.vmap(lambda x, y: fn(x, y, size=8, fill_value=-1.0))(a, b))
    for i in range(4):
        onp.testing.assert_array_equal(got[i], _cut_or_pad(getattr(onp, name)(a[i], b[i]),
                                                           8, -1.0))


def test_sized_nonzero_and_compress_under_vmap_are_per_example():
    rng = onp.random.default_rng(1)
    x = rng.integers(0, 3, (4, 2, 5))
    rows, cols = minijax.vmap(lambda v: mnp.nonzero(v, size=6, fill_value=-1))(x)
    picked = minijax.vmap(lambda c, v: mnp.compress(c, v, axis=1, size=4))(x[:, 0] > 0, x)
    for i in range(4):
        r, c = onp.nonzero(x[i])
        onp.testing.assert_array_equal(onp.asarray(rows[i]), _cut_or_pad(r, 6, -1))
        onp.testing.assert_array_equal(onp.asarray(cols[i]), _cut_or_pad(c, 6, -1))
        want = onp.compress(x[i, 0] > 0, x[i], axis=1)[:, :4]
        want = onp.pad(want, ((0, 0), (0, 4 - want.shape[1])))
        onp.testing.assert_array_equal(onp.asarray(picked[i]), want)


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_derivatives_flow_through_the_set_operations(name):
    """Eagerly (no size=) as under jit (size=): the chosen values carry their
    derivatives, as the unique family's do."""
    x = onp.array([0.3, 1.7, 0.9, 2.4, 1.1])
    y = onp.array([1.7, 5.0, 2.4]) if name == "intersect1d" else onp.array([1.5, 5.0, 2.2])
    weights = onp.linspace(1.0, 2.0, len(getattr(onp, name)(x, y)))
    fn = getattr(mnp, name)
    size = len(weights)
    grad = minijax.grad(lambda a, b: mnp.sum(fn(a, b) * weights), argnums=(0, 1))(x, y)
    jit_grad = minijax.jit(minijax.grad(
        lambda a, b: mnp.sum(fn(a, b, size=size) * weights), argnums=(0, 1)))(x, y)
    for g, j in zip(grad, jit_grad):
        onp.testing.assert_allclose(onp.asarray(g), onp.asarray(j))
    if name == "intersect1d":   # (ar1's entry of each common pair is the value)
        onp.testing.assert_allclose(onp.asarray(grad[0]), [0, 1, 0, 2, 0])
        onp.testing.assert_allclose(onp.asarray(grad[1]), [0, 0, 0])
    else:   # (no value is in both: a small step changes no choice)
        check_grads(lambda a, b: mnp.sum(fn(a, b) * weights), (x, y), order=1)


@pytest.mark.parametrize("call", [
    lambda x: mnp.nonzero(x), lambda x: mnp.where(x), lambda x: mnp.argwhere(x),
    lambda x: mnp.flatnonzero(x), lambda x: mnp.extract(x, x), lambda x: mnp.union1d(x, x),
    lambda x: mnp.intersect1d(x, x), lambda x: mnp.setdiff1d(x, x),
    lambda x: mnp.setxor1d(x, x)])
def test_a_traced_selection_without_size_says_to_give_one(call):
    with pytest.raises(ConcretizationTypeError, match="size="):
        minijax.jit(call)(onp.arange(4.0))


def test_bad_sizes_and_fills_are_named_errors():
    x = onp.arange(4)
    with pytest.raises(ValueError, match="non-negative"):
        mnp.nonzero(x, size=-1)
    with pytest.raises(TypeError, match="integer"):
        mnp.setdiff1d(x, x, size=2.5)
    with pytest.raises(ValueError, match="one-argument form"):
        mnp.where(x > 1, x, x, size=3)
    with pytest.raises(ValueError, match="give size= too"):
        mnp.nonzero(x, fill_value=0)
    with pytest.raises(ValueError, match="one per dimension"):
        mnp.nonzero(x.reshape(2, 2), size=2, fill_value=(1, 2, 3))
    with pytest.raises(ValueError, match="0d"):
        mnp.nonzero(onp.float64(1.0), size=2)
    with pytest.raises(IndexError, match="out of bounds"):
        mnp.compress(onp.array([0, 0, 0, 0, 1]), x, size=2)


def test_place_with_a_traced_mask_is_numpys():
    """place keeps the array's shape, so its mask may be traced (the i-th true entry
    takes ``vals[i % len(vals)]``)."""
    rng = onp.random.default_rng(2)
    for trial in range(5):
        x = rng.standard_normal((3, 4))
        mask = rng.random((3, 4)) < 0.5
        vals = rng.standard_normal(rng.integers(1, 4))
        want = x.copy()
        onp.place(want, mask, vals)
        got = minijax.jit(lambda a, m, v: mnp.place(a, m, v, inplace=False))(x, mask, vals)
        onp.testing.assert_array_equal(onp.asarray(got), want)
        rows = minijax.vmap(lambda a, m: mnp.place(a, m, vals, inplace=False))(x, mask)
        for i in range(3):
            want = x[i].copy()
            onp.place(want, mask[i], vals)
            onp.testing.assert_array_equal(onp.asarray(rows[i]), want)
    with pytest.raises(ValueError, match="empty array"):
        minijax.jit(lambda a, m: mnp.place(a, m, onp.zeros(0), inplace=False))(x, mask)


def test_the_array_methods_take_size_too():
    x = onp.array([0.0, 2.0, 0.0, 3.0])
    for call in (lambda a: a.nonzero(size=3, fill_value=-1),
                 lambda a: a.compress(a > 1, size=3, fill_value=7.0)):
        want = call(jnp.asarray(x))
        for got in (call(mnp.asarray(x)), minijax.jit(call)(x)):
            for g, w in zip(minijax.tree_util.tree_leaves(got),
                            jax.tree_util.tree_leaves(want)):
                onp.testing.assert_array_equal(onp.asarray(g), onp.asarray(w))
    with pytest.raises(TypeError, match="keyword"):   # (NumPy's error, when neither takes it)
        mnp.asarray(x).nonzero(sise=3)


def test_an_empty_array_pads_with_the_fill_value():
    # (JAX 0.10 returns zeros here whatever fill_value says; minijax pads as documented)
    for x in (onp.zeros((0, 3)), onp.zeros((2, 0))):
        rows, cols = minijax.jit(lambda a: mnp.nonzero(a, size=2, fill_value=(-1, -2)))(x)
        onp.testing.assert_array_equal(onp.asarray(rows), [-1, -1])
        onp.testing.assert_array_equal(onp.asarray(cols), [-2, -2])
