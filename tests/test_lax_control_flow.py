"""Loops (scan, while_loop, fori_loop, map): eager (NumPy kernels) vs XLA vs jit, vmap vs a
Python loop over the batch, derivatives vs finite differences, errors, and three
programs (an RNN, a Newton solver, an integrator)."""

import jax
import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import grad, jit, jvp, lax, vmap
from minijax.test_util import check_grads, check_primitive

rng = onp.random.default_rng(0)
W = rng.normal(size=(3, 3)) * 0.5
C0 = rng.normal(size=3)
XS = rng.normal(size=(5, 3))


def rnn_like(c, xs, w):
    def body(c, x):
        c = np.tanh(np.dot(w, c) + x)
        return c, np.sin(c) * x
    return lax.scan(body, c, xs)


def pytree_scan(c, xs):
    def body(carry, x):
        u, (v, k) = carry
        u = u * np.cos(x["a"]) + v
        return (u, (v * x["b"], k + 1)), {"s": np.sum(u), "u": u}
    return lax.scan(body, (c, (c * 2, 0)), {"a": xs, "b": xs * 0.5})


def pytree_scan_loss(c, xs):
    (u, (v, _)), ys = pytree_scan(c, xs)
    return np.sum(u) + np.sum(v) + np.sum(ys["s"]) + np.sum(ys["u"] ** 2)


SCANS = {
    "rnn": (lambda c, xs: rnn_like(c, xs, W), [C0, XS]),
    "consts_as_args": (rnn_like, [C0, XS, W]),
    "reverse": (lambda c, xs: lax.scan(lambda c, x: (c * x + 1.0, c - x), c, xs, reverse=True),
                [C0, XS]),
    "pytree": (pytree_scan, [C0, XS]),
    "no_xs": (lambda c: lax.scan(lambda c, _: (np.sin(c) * 2.0, c), c, None, length=4), [C0]),
    "empty": (lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs), [C0, XS[:0]]),
    "int_carry": (lambda c, xs: lax.scan(lambda c, x: (c * 3 - x, c), c, xs),
                  [onp.arange(3), onp.arange(15).reshape(5, 3)]),
    "f32": (lambda c, xs: lax.scan(lambda c, x: (c * x + 1.0, np.exp(c)), c, xs),
            [C0.astype(onp.float32), XS.astype(onp.float32)]),
}


@pytest.mark.parametrize("name", list(SCANS))
def test_scan_eager_xla_jit_vmap_agree(name):
    fn, args = SCANS[name]
    check_primitive(fn, args, rtol=1e-5 if name == "f32" else 1e-12)


def test_scan_edge_values_and_bool_carry():
    edge = onp.array([0.0, -0.0, onp.inf, -onp.inf, onp.nan, 1.5])
    with onp.errstate(all="ignore"):
        check_primitive(lambda xs: lax.scan(lambda c, x: (c + x, np.exp(x) * c), 0.0, xs),
                        [edge], batch_size=0)
    parity = lambda xs: lax.scan(lambda c, x: (np.logical_xor(c, x > 0), c), False, xs)
    c, ys = check_primitive(parity, [edge])
    expected, state = [], False
    for x in edge:
        expected.append(state)
        state = state != (x > 0)
    assert bool(c) == state and onp.asarray(ys).tolist() == expected


def test_scan_matches_python_loop():
    c, ys = rnn_like(C0, XS, W)
    cc, expected = C0, []
    for x in XS:
        cc = onp.tanh(W @ cc + x)
        expected.append(onp.sin(cc) * x)
    onp.testing.assert_allclose(onp.asarray(c), cc, rtol=1e-12)
    onp.testing.assert_allclose(onp.asarray(ys), onp.stack(expected), rtol=1e-12)
    c, ys = lax.scan(lambda c, x: (c + x, c), 0.0, onp.arange(4.0), reverse=True)
    assert float(c) == 6.0
    onp.testing.assert_array_equal(onp.asarray(ys), [6.0, 5.0, 3.0, 0.0])


def test_scan_lowers_to_while_with_dynamic_slices():
    text = jit(lambda c, xs: rnn_like(c, xs, W)).lower(C0, XS).as_text()
    assert "stablehlo.while" in text
    assert "stablehlo.dynamic_slice" in text and "stablehlo.dynamic_update_slice" in text


def test_scan_weak_init_takes_body_dtype():
    xs = XS.astype(onp.float32)
    c, ys = lax.scan(lambda c, x: (c + np.sum(x), c), 0.0, xs)
    assert c.dtype == onp.float32 and ys.dtype == onp.float32
    c, _ = jit(lambda xs: lax.scan(lambda c, x: (c + np.sum(x), c), 0.0, xs))(xs)
    assert c.dtype == onp.float32


def _vmap_vs_loop(fn, args, axes, rtol=1e-12):
    n = next(onp.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    out = vmap(fn, in_axes=axes)(*args)
    for i in range(n):
        single = fn(*[a if ax is None else onp.take(a, i, ax) for a, ax in zip(args, axes)])
        for o, s in zip(minijax.tree_util.tree_leaves(out), minijax.tree_util.tree_leaves(single)):
            onp.testing.assert_allclose(onp.asarray(o)[i], onp.asarray(s), rtol=rtol,
                                        err_msg=f"vmap in_axes={axes} vs a loop")


@pytest.mark.parametrize("axes", [(0, None, None), (None, 0, None), (None, 1, None),
                                  (None, 2, None), (None, None, 0), (None, None, 1),
                                  (1, 2, 0), (0, 0, 0)])
def test_scan_vmap_any_axis(axes):
    """Batched init, batched xs (at the scanned axis, behind it or after it), batched
    consts, and all of them."""
    args = [C0, XS, W]
    batched = [a if ax is None else onp.stack([a + 0.3 * i for i in range(4)], ax)
               for a, ax in zip(args, axes)]
    _vmap_vs_loop(rnn_like, batched, axes)
    _vmap_vs_loop(jit(rnn_like), batched, axes)


def test_scan_vmap_carry_becomes_batched():
    # the carry starts unbatched and becomes batched through a batched constant
    fn = lambda k, xs: lax.scan(lambda c, x: (c * k + x, c), 0.0, xs)
    _vmap_vs_loop(fn, [onp.array([0.5, 1.0, 2.0]), onp.arange(4.0)], (0, None))


def test_map():
    xs = rng.normal(size=(4, 2))
    out = lax.map(lambda x: {"a": np.sin(x), "b": np.sum(x)}, xs)
    onp.testing.assert_allclose(onp.asarray(out["a"]), onp.sin(xs), rtol=1e-14)
    onp.testing.assert_allclose(onp.asarray(out["b"]), xs.sum(1), rtol=1e-14)
    check_primitive(lambda xs: lax.map(lambda x: np.exp(x) * 2.0, xs), [xs])


# ---------------------------------------------------------------- scan derivatives

@pytest.mark.parametrize("name", ["rnn", "consts_as_args", "reverse", "no_xs"])
def test_scan_grads(name):
    fn, args = SCANS[name]
    loss = lambda *a: sum(np.sum(leaf ** 2) for leaf in minijax.tree_util.tree_leaves(fn(*a)))
    check_grads(loss, args, order=2)


def test_scan_grads_pytree_and_closed_over_consts():
    check_grads(pytree_scan_loss, [C0, XS], order=2)

    def closed(w, c):
        # w reaches the body only by closure: a constant of the body jaxpr
        return np.sum(lax.scan(lambda c, x: (np.sin(w * c + x), w * c), c, XS)[1])
    check_grads(closed, [0.7, C0], order=2)


def test_scan_grads_with_carry_tangents_appearing_midway():
    # the carry starts as a constant (zero tangent) and picks up a tangent from w
    xs = onp.linspace(-1.0, 1.0, 6)

    def loss(w):
        c, ys = lax.scan(lambda c, x: (c * 0.9 + w * x, w * c), 0.0, xs)
        return c + np.sum(ys ** 2)
    check_grads(loss, [0.7], order=2)
    # only the carry is differentiated (known xs), then only the xs (known carry)
    check_grads(lambda c: np.sum(lax.scan(lambda c, x: (np.sin(c) * x, c * x), c, xs)[1]),
                [0.3], order=2)
    check_grads(lambda ys: np.sum(lax.scan(lambda c, y: (c + 1.0, np.sin(y) * c), 1.0, ys)[1]),
                [xs], order=2)


def test_scan_grad_of_jit_and_jit_of_grad():
    loss = lambda c, xs: np.sum(rnn_like(c, xs, W)[1])
    check_grads(jit(loss), [C0, XS], order=1)
    g = grad(loss)(C0, XS)
    onp.testing.assert_allclose(onp.asarray(jit(grad(loss))(C0, XS)), onp.asarray(g),
                                rtol=1e-12)
    onp.testing.assert_allclose(onp.asarray(grad(jit(loss))(C0, XS)), onp.asarray(g),
                                rtol=1e-12)


def test_scan_grad_keeps_loop_invariant_residuals_unstacked():
    loss = lambda w, c: np.sum(rnn_like(c, XS, w)[0])
    scaled = lambda w, c: np.sum(rnn_like(c, XS, w * 2.0)[0])
    inner_scaled = lambda w, c: np.sum(lax.scan(lambda c, x: (np.tanh(np.dot(w * 2.0, c) + x),
                                                               None), c, XS)[0])
    for fn in (loss, scaled, inner_scaled, jit(inner_scaled)):
        # W (or 2W, computed in the body from constants only) reaches the backward scan
        # once, not stacked per step
        assert "f64[5,3,3]" not in str(minijax.make_jaxpr(grad(fn))(W, C0))
    onp.testing.assert_allclose(onp.asarray(grad(jit(inner_scaled))(W, C0)),
                                onp.asarray(grad(scaled)(W, C0)), rtol=1e-12)


def test_cond_inside_scan_and_scan_inside_cond_grads():
    xs = rng.normal(size=6)

    def cond_in_scan(x, xs):
        def body(c, x):
            c = lax.cond(x > 0, lambda c: c * x, lambda c: c + np.sin(x), c)
            return c, c ** 2
        c, ys = lax.scan(body, x, xs)
        return c + np.sum(ys)
    check_grads(cond_in_scan, [0.7, xs], order=2)
    check_grads(jit(cond_in_scan), [0.7, xs], order=1)

    def scan_in_cond(x):
        return lax.cond(x > 0, lambda x: lax.scan(lambda c, y: (c * y + x, c), x, xs)[0],
                        lambda x: x, x)
    check_grads(scan_in_cond, [0.7], order=2)


def test_nested_scan_grads():
    xs = rng.normal(size=4)

    def nested(x):
        def outer(c, y):
            c2, _ = lax.scan(lambda d, z: (np.sin(d * z + c), None), c, xs)
            return c2, c2 * y
        c, ys = lax.scan(outer, x, xs)
        return c + np.sum(ys)
    check_grads(nested, [0.3], order=2)
    onp.testing.assert_allclose(float(jit(grad(grad(nested)))(0.3)),
                                float(grad(grad(nested))(0.3)), rtol=1e-10)


def test_scan_vmap_of_grad():
    loss = lambda c, xs: np.sum(rnn_like(c, xs, W)[1])
    cs = rng.normal(size=(3, 3))
    out = vmap(grad(loss), in_axes=(0, None))(cs, XS)
    for i in range(3):
        onp.testing.assert_allclose(onp.asarray(out)[i], onp.asarray(grad(loss)(cs[i], XS)),
                                    rtol=1e-12)


# ---------------------------------------------------------------- while_loop

def count_doublings(x, limit):
    """How many doublings take |x| (plus 0.1) past ``limit``, and the value reached."""
    def cond(c):
        return c[1] < limit

    def body(c):
        return c[0] + 1, c[1] * 2.0
    return lax.while_loop(cond, body, (0, np.sum(np.abs(x)) + 0.1))


def test_while_eager_xla_jit_vmap_agree():
    # vmap perturbs the inputs per lane, so lanes stop at different iterations: a
    # batched predicate
    check_primitive(count_doublings, [onp.array(0.3), onp.array(50.0)])
    check_primitive(lambda x, lim: count_doublings(x, lim)[1], [rng.normal(size=3), 20.0])
    check_primitive(lambda x: lax.while_loop(lambda c: False, lambda c: c * 2, x), [C0])


def test_while_batched_predicate_keeps_finished_lanes():
    n, v = vmap(count_doublings)(onp.array([1.0, 3.0, 10.0]), onp.array([2.0, 90.0, 5.0]))
    onp.testing.assert_array_equal(onp.asarray(n), [1, 5, 0])
    onp.testing.assert_allclose(onp.asarray(v), [2.2, 3.1 * 32, 10.1])
    # batched body constant with an unbatched predicate, batch at axis 1
    fn = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
    xs = rng.normal(size=(2, 4))
    _vmap_vs_loop(fn, [xs], (1,))


def test_while_lowers_to_while():
    text = jit(count_doublings).lower(1.0, 10.0).as_text()
    assert "stablehlo.while" in text


def test_while_jvp():
    def power(x):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]
    _, t = jvp(power, (1.1,), (1.0,))
    onp.testing.assert_allclose(float(t), 5 * 1.1 ** 4, rtol=1e-12)
    check_grads(power, [1.1], order=2, modes=("fwd",))
    check_grads(jit(power), [1.1], order=2, modes=("fwd",))
    # tangents of a carry that starts constant (zero tangent) and becomes non-constant
    fn = lambda x: lax.while_loop(lambda c: c[0] < 3.0, lambda c: (c[0] + 1.0, c[1] + c[0] * x),
                                  (0.0, 0.0))[1]
    check_grads(fn, [0.4], order=2, modes=("fwd",))
    # linearize: the known (primal) part of the loop runs, the tangent part is staged
    y, f_lin = minijax.linearize(power, 1.1)
    onp.testing.assert_allclose(float(f_lin(1.0)), 5 * 1.1 ** 4, rtol=1e-12)
    onp.testing.assert_allclose(float(y), 1.1 ** 5, rtol=1e-12)


def test_while_vmap_of_jvp():
    def f(x):
        return count_doublings(x, 30.0)[1] * x
    xs = onp.array([0.5, 2.0, 7.0])
    out = vmap(lambda x: jvp(f, (x,), (1.0,))[1])(xs)
    for i, x in enumerate(xs):
        onp.testing.assert_allclose(onp.asarray(out)[i], float(jvp(f, (x,), (1.0,))[1]), rtol=1e-12)


# ---------------------------------------------------------------- fori_loop

def test_fori_loop_static_and_traced_bounds():
    body = lambda i, x: x * 1.5 + i
    expected = 1.0
    for i in range(2, 7):
        expected = expected * 1.5 + i
    assert float(lax.fori_loop(2, 7, body, 1.0)) == pytest.approx(expected, rel=1e-14)
    assert float(jit(lambda x: lax.fori_loop(2, 7, body, x))(1.0)) == pytest.approx(expected)
    traced = jit(lambda lo, hi, x: lax.fori_loop(lo, hi, body, x))
    assert float(traced(2, 7, 1.0)) == pytest.approx(expected, rel=1e-14)
    assert float(lax.fori_loop(5, 2, body, 1.0)) == 1.0     # empty range
    assert float(traced(5, 2, 1.0)) == 1.0
    text = jit(lambda x: lax.fori_loop(0, 3, body, x)).lower(1.0).as_text()
    assert "stablehlo.while" in text
    check_primitive(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 1.5 + i, x),
                    [onp.array(1.0), onp.array(4)], vmap_axes=[(0,), (0,)])
    _vmap_vs_loop(lambda n: lax.fori_loop(0, n, body, 1.0), [onp.array([0, 3, 5])], (0,))


def test_fori_loop_static_bounds_grads():
    def f(x):
        return lax.fori_loop(0, 6, lambda i, c: np.sin(c) * x + i, x)
    check_grads(f, [0.8], order=2)
    check_grads(jit(f), [0.8], order=2)


# ---------------------------------------------------------------- errors

def test_scan_carry_type_errors():
    def to_f32(c, x):
        return c.astype(np.float32), x
    with pytest.raises(TypeError, match=r"lax\.scan.*`to_f32`.*f64\[3\].*f32\[3\]"):
        lax.scan(to_f32, C0, XS)

    def grows(c, x):
        return np.ones(6) * np.sum(c), x
    with pytest.raises(TypeError, match=r"lax\.scan.*`grows`.*f64\[3\].*f64\[6\]"):
        lax.scan(grows, C0, XS)

    def tree_change(c, x):
        return (c, c), x
    with pytest.raises(TypeError, match=r"lax\.scan.*`tree_change`.*tree structure"):
        lax.scan(tree_change, C0, XS)
    with pytest.raises(TypeError, match=r"lax\.scan.*must return a pair"):
        lax.scan(lambda c, x: c, C0, XS)


def test_scan_length_errors():
    with pytest.raises(ValueError, match=r"lax\.scan.*same leading axis size.*\(5, 3\).*\(4,\)"):
        lax.scan(lambda c, x: (c, None), 0.0, (XS, onp.ones(4)))
    with pytest.raises(ValueError, match=r"lax\.scan: length=4 does not match.*5"):
        lax.scan(lambda c, x: (c, None), 0.0, XS, length=4)
    with pytest.raises(ValueError, match=r"lax\.scan.*explicit length"):
        lax.scan(lambda c, x: (c, None), 0.0, None)
    with pytest.raises(ValueError, match=r"lax\.scan.*scalar"):
        lax.scan(lambda c, x: (c, None), 0.0, 1.0)


def test_while_loop_errors():
    def to_int(c):
        return c.astype(np.int32)
    with pytest.raises(TypeError, match=r"lax\.while_loop.*`to_int`.*f64\[\].*i32\[\]"):
        lax.while_loop(lambda c: c < 3, to_int, 1.0)
    with pytest.raises(TypeError, match=r"lax\.while_loop.*tree structure"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0],), (1.0, 2.0))
    with pytest.raises(TypeError, match=r"lax\.while_loop: cond_fun.*boolean scalar.*f64\[\]"):
        lax.while_loop(lambda c: c, lambda c: c - 1.0, 3.0)
    with pytest.raises(TypeError, match=r"lax\.while_loop: cond_fun.*boolean scalar.*bool\[3\]"):
        lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, C0)


def test_grad_of_while_loop_error():
    def power(x):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]
    for fn in (power, jit(power)):
        with pytest.raises(ValueError, match=r"(?s)Reverse-mode.*while_loop.*not supported"
                                             r".*lax\.scan.*fori_loop with static"):
            grad(fn)(1.1)
    # fori_loop with traced bounds is a while_loop
    traced = jit(lambda n, x: lax.fori_loop(0, n, lambda i, c: c * x, x))
    with pytest.raises(ValueError, match=r"fori_loop with static"):
        grad(traced, argnums=1)(3, 1.1)


def test_fori_loop_bound_errors():
    with pytest.raises(TypeError, match=r"lax\.fori_loop: upper bound must be an integer"):
        lax.fori_loop(0, 2.5, lambda i, x: x, 1.0)


# ---------------------------------------------------------------- programs

def test_rnn_loss_gradient_vs_finite_differences():
    """A tanh RNN (hidden 8, sequence 20) with a squared-error readout."""
    r = onp.random.default_rng(3)
    params = {"wh": r.normal(size=(8, 8)) * 0.3, "wx": r.normal(size=(8, 2)) * 0.5,
              "b": r.normal(size=8) * 0.1, "wo": r.normal(size=8) * 0.5}
    xs = r.normal(size=(20, 2))
    targets = r.normal(size=20)

    def loss(p):
        def cell(h, x):
            h = np.tanh(p["wh"] @ h + p["wx"] @ x + p["b"])
            return h, np.dot(p["wo"], h)
        _, outs = lax.scan(cell, np.zeros(8), xs)
        return np.mean((outs - targets) ** 2)
    g = grad(loss)(params)
    gj = jit(grad(loss))(params)
    eps = 1e-6
    for k, v in params.items():
        flat = v.reshape(-1)
        for idx in range(0, flat.size, max(1, flat.size // 7)):
            plus, minus = {**params}, {**params}
            e = onp.zeros(flat.size)
            e[idx] = eps
            plus[k] = v + e.reshape(v.shape)
            minus[k] = v - e.reshape(v.shape)
            fd = (float(loss(plus)) - float(loss(minus))) / (2 * eps)
            onp.testing.assert_allclose(onp.asarray(g[k]).reshape(-1)[idx], fd, rtol=1e-5,
                                        atol=1e-8)
        onp.testing.assert_allclose(onp.asarray(gj[k]), onp.asarray(g[k]), rtol=1e-10)


def test_newton_sqrt_under_jit():
    @jit
    def newton_sqrt(a):
        def cond(s):
            x, _ = s
            return np.abs(x * x - a) > 1e-12 * a

        def body(s):
            x, n = s
            return 0.5 * (x + a / x), n + 1
        return lax.while_loop(cond, body, (a, 0))
    for a in [2.0, 10.0, 1e6, 0.25]:
        x, n = newton_sqrt(a)
        onp.testing.assert_allclose(float(x), onp.sqrt(a), rtol=1e-12)
        assert 0 < int(n) < 40
    x, _ = vmap(newton_sqrt)(onp.array([2.0, 9.0, 1e4]))
    onp.testing.assert_allclose(onp.asarray(x), onp.sqrt([2.0, 9.0, 1e4]), rtol=1e-12)


def test_leapfrog_oscillator_and_gradient_wrt_initial_velocity():
    dt, steps, omega = 0.05, 100, 1.3

    def final_position(v0):
        def step(i, s):
            x, v = s
            v = v - 0.5 * dt * omega ** 2 * x
            x = x + dt * v
            v = v - 0.5 * dt * omega ** 2 * x
            return x, v
        return lax.fori_loop(0, steps, step, (1.0, v0))[0]
    fj = jit(final_position)
    t = dt * steps
    exact = onp.cos(omega * t) + 0.4 / omega * onp.sin(omega * t)
    onp.testing.assert_allclose(float(fj(0.4)), exact, rtol=1e-2)
    onp.testing.assert_allclose(float(fj(0.4)), float(final_position(0.4)), rtol=1e-12)
    g = float(jit(grad(final_position))(0.4))
    eps = 1e-6
    fd = (float(fj(0.4 + eps)) - float(fj(0.4 - eps))) / (2 * eps)
    onp.testing.assert_allclose(g, fd, rtol=1e-7)
    onp.testing.assert_allclose(g, onp.sin(omega * t) / omega, rtol=1e-2)


def _affine_compose(first, second):
    """x -> a x + b maps, applied first then second (associative, not commutative)."""
    return second[0] * first[0], second[0] * first[1] + second[1]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, 7, 16])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
def test_associative_scan_is_jaxs(n, reverse, axis):
    rng = onp.random.default_rng(n)
    a, b = rng.uniform(0.5, 1.5, (n, 3)), rng.standard_normal((n, 3))
    if axis == 1:
        a, b = a.T.copy(), b.T.copy()
    with jax.enable_x64(True):
        want = jax.lax.associative_scan(_affine_compose, (a, b), reverse=reverse, axis=axis)
    for got in (lax.associative_scan(_affine_compose, (a, b), reverse=reverse, axis=axis),
                minijax.jit(lambda x, y: lax.associative_scan(
                    _affine_compose, (x, y), reverse=reverse, axis=axis))(a, b)):
        for g, w in zip(got, want):
            onp.testing.assert_allclose(onp.asarray(g), onp.asarray(w), rtol=1e-12)


def test_associative_scan_differentiates_and_batches():
    rng = onp.random.default_rng(0)
    x = rng.uniform(0.5, 1.5, 9)
    check_grads(lambda v: np.sum(lax.associative_scan(np.multiply, v) ** 2), (x,), order=2)
    rows = rng.standard_normal((4, 6))
    got = minijax.vmap(lambda r: lax.associative_scan(np.maximum, r))(rows)
    onp.testing.assert_array_equal(onp.asarray(got), onp.maximum.accumulate(rows, axis=1))
    flags = onp.array([False, True, False, False])
    onp.testing.assert_array_equal(
        onp.asarray(lax.associative_scan(np.logical_or, flags)), onp.logical_or.accumulate(flags))


def test_associative_scan_errors_are_named():
    with pytest.raises(ValueError, match="same length"):
        lax.associative_scan(np.add, (onp.ones(3), onp.ones(4)))
    with pytest.raises(ValueError, match="at least one axis"):
        lax.associative_scan(np.add, onp.float64(1.0))
    with pytest.raises(ValueError, match="pytree like its arguments"):
        lax.associative_scan(lambda a, b: np.sum(a + b), onp.ones(4))
