"""In-place updates of a transformed function's arguments reach the caller's arrays
(DESIGN 5): ``jit``, ``vmap`` and the derivative transformations write the updated
(primal) value back, as NumPy's eager run mutates its argument. NumPy is the oracle:
each program runs eagerly on NumPy arrays and transformed on minijax arrays."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import api


def same(got, want):
    got_h = onp.asarray(got)
    assert got_h.shape == want.shape and got_h.dtype == want.dtype, (got_h, want)
    onp.testing.assert_array_equal(got_h, want)


# Each program updates its argument in place one way and returns a float scalar (so
# grad applies); ``m`` is the numpy module it runs with.
def _setitem(m, x):
    x[1] = 5.0
    return (x * x).sum()


def _augmented(m, x):
    x *= 3.0
    x -= 1.0
    return x.sum()


def _out(m, x):
    m.multiply(x, 2.0, out=x)
    m.clip(x, 1.0, 6.0, out=x)
    return x.sum()


def _sort(m, x):
    x.sort()
    return (x * m.arange(x.shape[0])).sum()


def _fill(m, x):
    s = x.sum()
    x.fill(2.5)
    return s + x.sum()


def _put(m, x):
    m.put(x, [0, 2], [7.0, -1.0])
    return x.sum()


def _row_view(m, x):
    v = x[1:]
    v += 10.0
    return v.sum()


def _view_of_view(m, x):
    v = x[::-1][1:]
    v[0] = -4.0
    return (x * x).sum()


PROGRAMS = [_setitem, _augmented, _out, _sort, _fill, _put, _row_view, _view_of_view]
HOST = onp.array([3.0, 1.0, 4.0, 1.5])


def _eager_numpy(prog, host):
    x = host.copy()
    value = prog(onp, x)
    return x, value


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_jit_writes_back_each_in_place_form(prog):
    want, want_value = _eager_numpy(prog, HOST)
    f = minijax.jit(lambda x: prog(np, x))
    x = np.asarray(HOST.copy())
    onp.testing.assert_allclose(onp.asarray(f(x)), want_value)
    same(x, want)
    # a second call hits the cache (and the fast path) and writes back again
    want2, want_value2 = _eager_numpy(prog, want)
    onp.testing.assert_allclose(onp.asarray(f(x)), want_value2)
    same(x, want2)
    want3, _ = _eager_numpy(prog, want2)
    f(x)
    same(x, want3)
    # a NumPy array argument is written with x[...] = value
    xn = HOST.copy()
    f(xn)
    same(xn, want)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_derivatives_write_back_the_primal(prog):
    want, want_value = _eager_numpy(prog, HOST)
    f = lambda x: prog(np, x)   # noqa: E731
    for transform in (minijax.grad, minijax.value_and_grad, minijax.jacfwd,
                      minijax.jacrev, lambda g: minijax.jit(minijax.grad(g)),
                      lambda g: minijax.grad(minijax.jit(g))):
        x = np.asarray(HOST.copy())
        transform(f)(x)
        same(x, want)
    x = np.asarray(HOST.copy())
    value, _ = minijax.jvp(f, (x,), (np.ones(4),))
    onp.testing.assert_allclose(onp.asarray(value), want_value)
    same(x, want)
    for transform in (minijax.vjp, minijax.linearize):
        x = np.asarray(HOST.copy())
        value, _ = transform(f, x)
        onp.testing.assert_allclose(onp.asarray(value), want_value)
        same(x, want)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_vmap_writes_back_the_batched_value(prog):
    batch = onp.stack([HOST, HOST[::-1] * 2, HOST + 1])
    want = onp.stack([_eager_numpy(prog, h)[0] for h in batch])
    f = lambda x: prog(np, x)   # noqa: E731
    for vmapped in (minijax.vmap(f), minijax.jit(minijax.vmap(f)),
                    minijax.vmap(minijax.jit(f))):
        x = np.asarray(batch.copy())
        vmapped(x)
        same(x, want)
    # mapped along axis 1: the value is written back with the batch axis there
    x = np.asarray(batch.T.copy())
    minijax.vmap(f, in_axes=1)(x)
    same(x, want.T)


def test_issue_example():
    def f(x):
        x[0] = 5.0
        x += 1
        return x.sum()
    a = onp.zeros(3)
    f(a)
    b = np.zeros(3)
    assert float(minijax.jit(f)(b)) == 8.0
    same(b, a)


def test_pytree_arguments_are_written_back_leaf_by_leaf():
    def f(params, xs):
        params["w"] -= 0.5 * params["g"]
        xs[1][0] = -1.0
        return params["w"].sum() + xs[0].sum()

    def inputs(m):
        return ({"w": m.asarray([1.0, 2.0]), "g": m.asarray([2.0, 2.0])},
                [m.asarray([1.0]), m.asarray([3.0, 4.0])])
    want_p, want_xs = inputs(onp)
    want_value = f(want_p, want_xs)
    params, xs = inputs(np)
    assert float(minijax.jit(f)(params, xs)) == want_value
    for k in want_p:
        same(params[k], want_p[k])
    for g, w in zip(xs, want_xs):
        same(g, w)
    params, xs = inputs(np)
    minijax.grad(f)(params, xs)   # only the differentiated argument is traced
    same(params["w"], want_p["w"])


def test_views_of_the_argument_see_the_update():
    a = np.zeros((2, 3))
    row = a[1]
    snapshot = a.copy()
    exported = onp.asarray(a)   # an export: kept as it was (copy-on-write)

    def f(x):
        x[1, 1] = 7.0
        x += 1.0
        return x.sum()
    minijax.jit(f)(a)
    want = onp.ones((2, 3))
    want[1, 1] = 8.0
    same(a, want)
    same(row, want[1])
    same(snapshot, onp.zeros((2, 3)))
    same(exported, onp.zeros((2, 3)))
    row[0] = -3.0   # the view still writes through to the base
    assert float(a[1, 0]) == -3.0


def test_an_argument_that_is_a_view_writes_into_its_base():
    base = np.zeros((3, 4))
    minijax.jit(lambda r: r.fill(2.0))(base[1])
    minijax.vmap(lambda c: c.__iadd__(1.0))(base[:, 1:3])
    want = onp.zeros((3, 4))
    want[1] = 2.0
    want[:, 1:3] += 1.0
    same(base, want)


def test_read_only_arguments_raise_before_running():
    calls = []

    def f(x, y):
        calls.append(1)
        y += 1.0
        x[0] = 1.0
        return x.sum()
    jf = minijax.jit(f)
    ok = np.zeros(3)
    jf(np.zeros(3), np.zeros(3))
    calls.clear()
    frozen = onp.zeros(3)
    frozen.flags.writeable = False
    for read_only in (frozen, np.broadcast_to(np.zeros(1), (3,)),
                      np.broadcast_to(np.zeros(3), (2, 3))[0]):
        with pytest.raises(ValueError, match="read-only"):
            jf(read_only, ok)
        same(ok, onp.zeros(3))   # nothing written to the other argument
    assert not calls   # decided from the cached trace: nothing ran again
    with pytest.raises(ValueError, match="read-only"):
        minijax.grad(f)(np.zeros(3), frozen)
    with pytest.raises(ValueError, match="read-only"):
        minijax.vmap(f)(frozen.reshape(1, 3), np.zeros((1, 3)))


def test_scalars_and_static_arguments_are_not_written_back():
    def f(x, n, s):
        x += n
        n += 1.0
        return x.sum() + n + s[0]
    x = np.zeros(2)
    n = 1.0
    g = onp.float64(1.0)
    minijax.jit(f, static_argnums=2)(x, n, (3.0,))
    assert n == 1.0
    minijax.jit(f, static_argnums=2)(x, g, (3.0,))
    assert g == 1.0
    same(x, onp.full(2, 2.0))


def test_nested_jit_rebinds_the_outer_value():
    inner = minijax.jit(lambda x: x.__imul__(2.0).sum())

    def outer(x):
        inner(x)       # the inner write-back updates the outer traced x
        x += 1.0
        return inner(x)
    x = np.asarray([1.0, 2.0])
    minijax.jit(outer)(x)
    same(x, (onp.array([1.0, 2.0]) * 2 + 1) * 2)


def test_an_array_passed_twice_is_one_object_as_in_numpy():
    def f(x, y):
        x += 1.0
        y *= 2.0
        return x.sum() + y.sum()
    want = onp.ones(3)
    want_value = f(want, want)
    jf = minijax.jit(f)
    b, c = np.ones(3), np.ones(3)
    jf(b, c)                          # distinct arrays first: cached and fast
    same(b, onp.full(3, 2.0))
    same(c, onp.full(3, 2.0))
    for _ in range(2):                # then one array twice (fast path falls back)
        a = np.ones(3)
        assert float(jf(a, a)) == want_value
        same(a, want)
    a = onp.ones(3)                   # NumPy arrays too
    jf(a, a)
    same(a, want)


def test_functions_that_do_not_update_arguments_write_nothing():
    x = np.asarray([1.0, 2.0])
    host = x._value()
    f = minijax.jit(lambda v: (v * 2).sum())
    f(x)
    f(x)
    assert x._value() is host
    state = api._jit_states[f.fun][((), ())]
    assert all(entry[3] == () for entry in state.traced.values())


def test_tracing_only_transformations_do_not_write_back():
    def f(x):
        x += 1.0
        return x.sum()
    x = np.zeros(2)
    minijax.make_jaxpr(f)(x)
    minijax.eval_shape(f, x)
    minijax.jit(f).lower(x)
    same(x, onp.zeros(2))


def test_an_array_passed_twice_to_vmap_is_one_object():
    def f(x, y):
        x += 1.0
        y *= 2.0
        return x.sum() + y.sum()
    want = onp.ones((2, 3))
    want_values = onp.array([f(r, r) for r in want])
    for make in (np.ones, onp.ones):
        a = make((2, 3))
        same(minijax.vmap(f)(a, a), want_values)
        same(a, want)
    # mapped along different axes it is two values: the last update in program order wins
    a = np.ones((3, 3))
    minijax.vmap(f, in_axes=(0, 1))(a, a)
    same(a, onp.full((3, 3), 2.0))


def test_keyword_arguments_are_written_back():
    def f(x, *, acc):
        acc += x
        return acc.sum()
    acc = np.zeros(2)
    jf = minijax.jit(f)
    for _ in range(3):
        jf(np.ones(2), acc=acc)
    same(acc, onp.full(2, 3.0))
