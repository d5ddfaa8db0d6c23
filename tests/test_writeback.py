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
    state, = api._jit_states[f.fun].values()
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


def _read_then_update(x):
    y = x * x
    x += 1.0
    return y.sum() + (x * x).sum()


@pytest.mark.parametrize("make", [np.asarray, onp.array], ids=["Array", "ndarray"])
def test_derivatives_use_the_value_before_the_write_back(make):
    # residuals that are the argument itself keep its value when the update is written
    # back (the gradient of y.sum() + (x + 1)²·1 is 2x + 2(x + 1))
    x0 = onp.array([1.0, 2.0])
    want = 2 * x0 + 2 * (x0 + 1)
    f = _read_then_update
    for transform in (minijax.grad, lambda g: minijax.jit(minijax.grad(g)),
                      lambda g: minijax.grad(minijax.checkpoint(g)),
                      lambda g: minijax.jit(minijax.grad(minijax.checkpoint(g))),
                      minijax.jacrev):
        x = make(x0.copy())
        onp.testing.assert_allclose(onp.asarray(transform(f)(x)), want)
        same(x, x0 + 1)
    x = make(x0.copy())
    _, f_vjp = minijax.vjp(f, x)
    same(x, x0 + 1)
    onp.testing.assert_allclose(onp.asarray(f_vjp(np.ones(()))[0]), want)
    x = make(x0.copy())
    _, f_jvp = minijax.linearize(f, x)
    onp.testing.assert_allclose(float(f_jvp(np.ones(2))), want.sum())


def test_checkpoint_writes_back_under_transformations():
    def f(x):
        x *= 2.0
        return (x * x).sum()
    cf = minijax.checkpoint(f)
    for transform in (lambda g: g, minijax.jit, minijax.grad,
                      lambda g: minijax.jit(minijax.grad(g))):
        x = np.asarray([1.0, -1.5])
        transform(cf)(x)
        same(x, onp.array([2.0, -3.0]))
    onp.testing.assert_allclose(onp.asarray(minijax.grad(cf)(np.asarray([1.0, -1.5]))),
                                [8.0, -12.0])
    x = np.ones((2, 2))
    minijax.vmap(cf)(x)
    same(x, onp.full((2, 2), 2.0))


# ---------------------------------------------------------------- control-flow bodies
# Each program updates an array in place inside a lax control-flow body; the oracle is
# the same loop written in Python on NumPy arrays (``py``), and eager minijax, jit,
# vmap and grad must agree with it.

def _cf_fori(x):
    def body(i, c):
        x[i] = c          # a closed-over array, updated on every iteration
        return c + x[i] * 0 + 1
    return minijax.lax.fori_loop(0, 3, body, x[3] * 0 + 10.0)


def _py_fori(x):
    c = x[3] * 0 + 10.0
    for i in range(3):
        x[i] = c
        c = c + 1
    return c


def _cf_cond(x):
    def yes(y):
        x[0] = y          # only the taken branch updates x
        x[1:] += 1.0
        return y * 2
    return minijax.lax.cond(x[3] > 0, yes, lambda y: y, x[2] + 1)


def _py_cond(x):
    y = x[2] + 1
    if x[3] > 0:
        x[0] = y
        x[1:] += 1.0
        return y * 2
    return y


def _cf_scan_x(x):
    def body(c, e):
        e[...] = e * c    # an updated x slice is written into xs, as through a view
        return c + 1.0, e * 2
    c, ys = minijax.lax.scan(body, 1.0 + x[0] * 0, x)
    return c + ys.sum()


def _py_scan_x(x):
    c, ys = 1.0 + x[0] * 0, []
    for i in range(len(x)):
        e = x[i:i + 1].reshape(())   # NumPy's view of the slice
        e[...] = e * c
        c, y = c + 1.0, e * 2
        ys.append(y)
    return c + sum(ys)


def _cf_while(x):
    def body(i):
        x[i] = x[i] * 2.0
        return i + 1
    minijax.lax.while_loop(lambda i: i < 2, body, 0)
    return x.sum()


def _py_while(x):
    i = 0
    while i < 2:
        x[i] = x[i] * 2.0
        i += 1
    return x.sum()


CONTROL_FLOW = [(_cf_fori, _py_fori), (_cf_cond, _py_cond), (_cf_scan_x, _py_scan_x),
                (_cf_while, _py_while)]


@pytest.mark.parametrize("prog,py", CONTROL_FLOW, ids=lambda f: f.__name__)
def test_control_flow_body_updates_are_written_back(prog, py):
    for start in ([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, -4.0]):
        want_x = onp.array(start)
        want = py(want_x)
        for name, run in [("eager", prog), ("jit", minijax.jit(prog))]:
            x = np.array(start)
            got = run(x)
            same(x, want_x)
            onp.testing.assert_allclose(onp.asarray(got), want, err_msg=name)
    # vmap: every row is updated as its own eager run would update it
    rows = onp.array([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, -4.0]])
    want_rows = rows.copy()
    want = [py(r) for r in want_rows]
    xb = np.array(rows)
    got = minijax.vmap(prog)(xb)
    same(xb, want_rows)
    onp.testing.assert_allclose(onp.asarray(got), want)


@pytest.mark.parametrize("prog,py", [(_cf_fori, _py_fori), (_cf_cond, _py_cond),
                                     (_cf_scan_x, _py_scan_x)], ids=lambda f: f.__name__)
def test_control_flow_body_updates_under_grad(prog, py):
    def loss(x):
        prog(x)
        return (x * x).sum()   # reads the updated x
    start = [1.0, 2.0, 3.0, 4.0]
    x = np.array(start)
    g = minijax.grad(loss)(x)
    want_x = onp.array(start)
    py(want_x)
    same(x, want_x)   # the primal update is written back
    eps = 1e-6
    num = []
    for i in range(4):
        d = onp.zeros(4)
        d[i] = eps
        up, down = onp.array(start) + d, onp.array(start) - d
        py(up), py(down)
        num.append(((up * up).sum() - (down * down).sum()) / (2 * eps))
    onp.testing.assert_allclose(onp.asarray(g), num, rtol=1e-5, atol=1e-6)


def test_control_flow_carry_updated_in_place_reaches_init():
    def prog(x):
        def body(i, c):
            c[i] = i * 2.0
            return c
        return minijax.lax.fori_loop(0, 3, body, x)
    for run in (prog, minijax.jit(prog)):
        x = np.zeros(4)
        out = run(x)
        same(x, onp.array([0.0, 2.0, 4.0, 0.0]))
        same(out, onp.array([0.0, 2.0, 4.0, 0.0]))


def test_control_flow_updates_that_cannot_be_written_back_raise():
    def other_carry(x):
        def body(i, c):
            c[i] = 1.0
            return c * 2
        return minijax.lax.fori_loop(0, 2, body, x)
    with pytest.raises(minijax.errors.UnsupportedInPlaceUpdateError, match="return the updated"):
        other_carry(np.zeros(3))

    def through_eager_view(x):
        v = x[1]
        def body(i, c):
            v[i] = c
            return c
        return minijax.lax.fori_loop(0, 2, body, 1.0)
    with pytest.raises(minijax.errors.UnsupportedInPlaceUpdateError, match="base array"):
        through_eager_view(np.zeros((2, 3)))

    def in_cond_fun(x):
        def cond(i):
            x[0] = 1.0
            return i < 2
        return minijax.lax.while_loop(cond, lambda i: i + 1, 0)
    with pytest.raises(minijax.errors.UnsupportedInPlaceUpdateError, match="body_fun"):
        in_cond_fun(np.zeros(3))


# ---------------------------------------------------------------- custom derivatives

@minijax.custom_jvp
def _cjvp_updates(x):
    x[0] = 5.0
    return x.sum()


_cjvp_updates.defjvp(lambda p, t: (_cjvp_updates(p[0]), t[0].sum()))


@minijax.custom_vjp
def _cvjp_updates(x):
    x *= 2.0
    return x.sum()


_cvjp_updates.defvjp(lambda x: (_cvjp_updates(x), None), lambda _, ct: (ct * np.ones(3),))


@pytest.mark.parametrize("fn,update", [(_cjvp_updates, lambda a: a.__setitem__(0, 5.0)),
                                       (_cvjp_updates, lambda a: a.__imul__(2.0))],
                         ids=["custom_jvp", "custom_vjp"])
def test_custom_derivative_function_updates_are_written_back(fn, update):
    start = onp.array([1.0, 2.0, 3.0])
    want_x = start.copy()
    update(want_x)
    for name, run in [("eager", fn), ("jit", minijax.jit(fn)), ("grad", minijax.grad(fn))]:
        x = np.array(start)
        run(x)
        same(x, want_x)
    xb = np.array(onp.stack([start, start + 1]))
    wb = onp.stack([start, start + 1])
    for row in wb:
        update(row)
    out = minijax.vmap(fn)(xb)
    same(xb, wb)
    onp.testing.assert_allclose(onp.asarray(out), wb.sum(1))
