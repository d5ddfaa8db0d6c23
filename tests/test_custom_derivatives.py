"""custom_jvp / custom_vjp: the JAX documentation's standard examples, composed with
jit, vmap, grad, scan and each other; values against NumPy and finite differences."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import custom_jvp, custom_vjp, grad, jit, jvp, lax, vjp, vmap
from minijax.errors import CustomRuleError
from minijax.test_util import check_grads


def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# ---------------------------------------------------------------- log1pexp

def log1pexp_naive(x):
    return np.log(1.0 + np.exp(x))


@custom_jvp
def log1pexp(x):
    return np.log(1.0 + np.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + np.exp(x)))


TRANSFORMS = {
    "eager": lambda g: g,
    "jit": jit,
    "vmap": lambda g: (lambda x: vmap(g)(np.stack([x, x]))[1]),
    "jit_vmap": lambda g: (lambda x: jit(vmap(g))(np.stack([x, x]))[0]),
}


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_log1pexp_gradient_finite_where_naive_is_nan(transform):
    wrap = TRANSFORMS[transform]
    with onp.errstate(over="ignore", invalid="ignore"):
        naive = float(wrap(grad(log1pexp_naive))(1000.0))
    assert onp.isnan(naive)
    assert float(wrap(grad(log1pexp))(1000.0)) == 1.0
    for x in (-3.0, 0.0, 2.5):
        onp.testing.assert_allclose(wrap(grad(log1pexp))(x), 1 / (1 + onp.exp(-x)), rtol=1e-12)
        onp.testing.assert_allclose(log1pexp(x), onp.log1p(onp.exp(x)), rtol=1e-12)


def test_log1pexp_primitive_in_jaxpr_and_values_under_every_transform():
    jaxpr = minijax.make_jaxpr(log1pexp)(1.0)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["custom_jvp_call"]
    x = np.array([-2.0, 0.5, 3.0])
    expect = onp.log1p(onp.exp(onp.asarray(x)))
    onp.testing.assert_allclose(jit(log1pexp)(x), expect, rtol=1e-12)
    onp.testing.assert_allclose(vmap(log1pexp)(x), expect, rtol=1e-12)
    onp.testing.assert_allclose(jit(vmap(log1pexp))(x), expect, rtol=1e-12)
    # jvp of vmap and vmap of jvp
    out, t = jvp(vmap(log1pexp), (x,), (np.ones(3),))
    onp.testing.assert_allclose(t, 1 / (1 + onp.exp(-onp.asarray(x))), rtol=1e-12)
    out2, t2 = vmap(lambda a: jvp(log1pexp, (a,), (1.0,)))(x)
    onp.testing.assert_allclose(t2, t, rtol=1e-12)
    onp.testing.assert_allclose(out2, expect, rtol=1e-12)


def test_custom_jvp_under_grad_of_grad_and_scan():
    sig = lambda x: 1 / (1 + onp.exp(-x))   # noqa: E731
    for x in (-1.0, 0.3, 2.0):
        onp.testing.assert_allclose(grad(grad(log1pexp))(x), sig(x) * (1 - sig(x)), rtol=1e-10)
        onp.testing.assert_allclose(jit(grad(grad(log1pexp)))(x), sig(x) * (1 - sig(x)),
                                    rtol=1e-10)

    def loop(x):
        def body(c, _):
            return log1pexp(c), None
        return lax.scan(body, x, None, length=3)[0]
    check_grads(loop, (0.7,), order=2)
    onp.testing.assert_allclose(grad(loop)(0.7), _fd(lambda v: float(loop(v)), 0.7), rtol=1e-7)


# ---------------------------------------------------------------- safe functions (custom_jvp)

@custom_jvp
def safe_log(x):
    return np.log(x)


@safe_log.defjvp
def _safe_log_jvp(primals, tangents):
    x, = primals
    t, = tangents
    safe_x = np.where(x > 0, x, 1.0)
    return safe_log(x), np.where(x > 0, t / safe_x, 0.0)


def test_safe_log_finite_where_naive_nan():
    def safe(x):
        return np.sum(np.where(x > 0, safe_log(x), 0.0))
    x = np.array([0.0, 2.0, 4.0])
    with onp.errstate(divide="ignore", invalid="ignore"):
        assert onp.isnan(onp.asarray(grad(lambda v: np.sum(np.where(v > 0, np.log(v), 0.0)))(x))).any()
    for g in (grad(safe), jit(grad(safe))):
        onp.testing.assert_allclose(g(x), [0.0, 0.5, 0.25])
    onp.testing.assert_allclose(vmap(grad(lambda v: safe_log(v)))(x[1:]), [0.5, 0.25])


@custom_jvp
def f_sqrt_ratio(x):
    return x / (1 + np.sqrt(x))


@f_sqrt_ratio.defjvp
def _f_sqrt_ratio_jvp(primals, tangents):
    x, = primals
    t, = tangents
    ans = f_sqrt_ratio(x)
    return ans, ((np.sqrt(x) + 2) / (2 * (np.sqrt(x) + 1) ** 2)) * t


def test_docs_sqrt_ratio_at_zero():
    naive = lambda x: x / (1 + np.sqrt(x))   # noqa: E731
    with onp.errstate(divide="ignore", invalid="ignore"):
        assert onp.isnan(float(grad(naive)(0.0)))
    assert float(grad(f_sqrt_ratio)(0.0)) == 1.0
    assert float(jit(grad(f_sqrt_ratio))(0.0)) == 1.0


def test_defjvps_nondiff_argnums_and_symbolic_zeros():
    @custom_jvp
    def f(x, y):
        return np.sin(x) * y

    f.defjvps(lambda x_dot, ans, x, y: np.cos(x) * x_dot * y,
              lambda y_dot, ans, x, y: np.sin(x) * y_dot)
    check_grads(f, (0.4, 1.3), order=2)
    gx, gy = grad(f, argnums=(0, 1))(0.4, 1.3)
    onp.testing.assert_allclose([gx, gy], [onp.cos(0.4) * 1.3, onp.sin(0.4)], rtol=1e-12)

    seen = []

    @custom_jvp
    def g(x, y):
        return x * y

    @g.defjvp
    def _g_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        seen.append((type(tx).__name__, type(ty).__name__))
        return g(x, y), tx * y + x * ty
    grad(g)(2.0, 3.0)
    assert seen[-1][1] != "SymbolicZero"   # instantiated without symbolic_zeros

    @custom_jvp
    def h(x, y):
        return x * y

    def _h_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        seen.append((type(tx).__name__, type(ty).__name__))
        out = tx * y if not isinstance(tx, minijax.custom_derivatives.SymbolicZero) else 0.0
        if not isinstance(ty, minijax.custom_derivatives.SymbolicZero):
            out = out + x * ty
        return h(x, y), out
    h.defjvp(_h_jvp, symbolic_zeros=True)
    assert float(grad(h)(2.0, 3.0)) == 3.0
    assert seen[-1][1] == "SymbolicZero" and seen[-1][0] != "SymbolicZero"

    from functools import partial

    @partial(custom_jvp, nondiff_argnums=(0,))
    def app(fn, x):
        return fn(x)

    @app.defjvp
    def _app_jvp(fn, primals, tangents):
        x, = primals
        t, = tangents
        return app(fn, x), 2.0 * t   # deliberately not the true derivative
    assert float(grad(lambda x: app(np.sin, x))(0.3)) == 2.0
    assert float(jit(grad(lambda x: app(np.sin, x)))(0.3)) == 2.0


def test_custom_jvp_errors_teach():
    @custom_jvp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="defjvp"):
        f(1.0)

    @f.defjvp
    def _bad(primals, tangents):
        return primals[0], np.zeros(3)
    with pytest.raises(CustomRuleError, match="shape"):
        grad(f)(1.0)

    def closes_over(y):
        @custom_jvp
        def k(x):
            return x * y

        k.defjvp(lambda p, t: (k(*p), t[0] * y))
        return k(2.0)
    with pytest.raises(CustomRuleError, match="closes over"):
        grad(closes_over)(3.0)


# ---------------------------------------------------------------- custom_vjp

@custom_vjp
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return (None, None, np.clip(g, lo, hi))


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_gradient_clipping_under_transforms():
    f = lambda x: clip_gradient(-0.75, 0.75, np.sin(x)) * 3.0   # noqa: E731
    xs = onp.array([0.1, 1.0, 2.0, 3.0])
    expect = onp.clip(3.0, -0.75, 0.75) * onp.cos(xs)
    onp.testing.assert_allclose([float(grad(f)(x)) for x in xs], expect, rtol=1e-12)
    onp.testing.assert_allclose(jit(vmap(grad(f)))(np.asarray(xs)), expect, rtol=1e-12)
    onp.testing.assert_allclose(vmap(grad(f))(np.asarray(xs)), expect, rtol=1e-12)
    onp.testing.assert_allclose(grad(lambda v: vmap(f)(v).sum())(np.asarray(xs)), expect,
                                rtol=1e-12)
    onp.testing.assert_allclose(grad(jit(f))(1.0), expect[1], rtol=1e-12)
    onp.testing.assert_allclose(jit(f)(1.0), 3 * onp.sin(1.0), rtol=1e-12)
    with pytest.raises(CustomRuleError, match="forward-mode"):
        jvp(f, (1.0,), (1.0,))


def test_custom_vjp_pytree_residuals_and_outputs():
    @custom_vjp
    def f(d):
        return {"s": np.sin(d["a"]) * d["b"], "c": np.cos(d["a"])}

    def fwd(d):
        return f(d), {"sin": np.sin(d["a"]), "cos": np.cos(d["a"]), "b": (d["b"],)}

    def bwd(res, ct):
        b, = res["b"]
        ga = ct["s"] * res["cos"] * b - ct["c"] * res["sin"]
        return ({"a": ga, "b": ct["s"] * res["sin"]},)
    f.defvjp(fwd, bwd)

    def loss(d):
        out = f(d)
        return np.sum(out["s"] ** 2 + out["c"])

    def loss_ref(d):
        return np.sum((np.sin(d["a"]) * d["b"]) ** 2 + np.cos(d["a"]))
    d = {"a": np.array([0.3, 1.2]), "b": np.array([2.0, -1.0])}
    for g in (grad(loss), jit(grad(loss))):
        got, ref = g(d), grad(loss_ref)(d)
        for k in d:
            onp.testing.assert_allclose(got[k], ref[k], rtol=1e-12)
    batched = vmap(grad(loss))({"a": np.stack([d["a"]] * 3), "b": np.stack([d["b"]] * 3)})
    onp.testing.assert_allclose(batched["a"][2], grad(loss_ref)(d)["a"], rtol=1e-12)


def test_custom_vjp_under_vmap_scan_and_grad_of_grad():
    @custom_vjp
    def sq(x):
        return x * x

    sq.defvjp(lambda x: (x * x, x), lambda x, g: (2 * x * g,))

    def loop(x):
        return lax.scan(lambda c, _: (sq(c), None), x, None, length=2)[0]
    onp.testing.assert_allclose(grad(loop)(1.3), 4 * 1.3 ** 3, rtol=1e-12)
    onp.testing.assert_allclose(jit(grad(loop))(1.3), 4 * 1.3 ** 3, rtol=1e-12)
    onp.testing.assert_allclose(vmap(grad(sq))(np.array([1.0, 2.0])), [2.0, 4.0])
    onp.testing.assert_allclose(grad(lambda v: vmap(sq)(v).sum())(np.array([1.0, 2.0])),
                                [2.0, 4.0])
    # the bwd rule is differentiable too
    onp.testing.assert_allclose(grad(grad(sq))(1.5), 2.0)


def test_fixed_point_implicit_differentiation():
    from functools import partial

    @partial(custom_vjp, nondiff_argnums=(0,))
    def fixed_point(f, a, x_guess):
        def cond_fun(carry):
            x_prev, x = carry
            return np.abs(x_prev - x) > 1e-12

        def body_fun(carry):
            _, x = carry
            return x, f(a, x)
        _, x_star = lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
        return x_star

    def fixed_point_fwd(f, a, x_init):
        x_star = fixed_point(f, a, x_init)
        return x_star, (a, x_star)

    def fixed_point_rev(f, res, x_star_bar):
        a, x_star = res
        _, vjp_a = vjp(lambda a: f(a, x_star), a)
        _, vjp_x = vjp(lambda x: f(a, x), x_star)

        def rev_iter(u):
            return x_star_bar + vjp_x(u)[0]
        u = x_star_bar
        for _ in range(60):
            u = rev_iter(u)
        a_bar, = vjp_a(u)
        return a_bar, None
    fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)

    def newton_sqrt(a):
        return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)
    for a in (2.0, 9.0):
        onp.testing.assert_allclose(newton_sqrt(a), onp.sqrt(a), rtol=1e-12)
        onp.testing.assert_allclose(grad(newton_sqrt)(a), 0.5 / onp.sqrt(a), rtol=1e-10)
        onp.testing.assert_allclose(jit(grad(newton_sqrt))(a), 0.5 / onp.sqrt(a), rtol=1e-10)
    onp.testing.assert_allclose(vmap(grad(newton_sqrt))(np.array([2.0, 9.0])),
                                0.5 / onp.sqrt([2.0, 9.0]), rtol=1e-10)


def test_custom_vjp_bwd_errors_and_closure_convert():
    @custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g * r[1],))
    with pytest.raises(CustomRuleError, match="1 cotangents for 2"):
        grad(f)(1.0, 2.0)

    def outer(y):
        def inner(x):
            return x * y
        conv, consts = minijax.closure_convert(inner, 1.0)
        assert len(consts) == 1

        @custom_vjp
        def call(x, *c):
            return conv(x, *c)

        def fwd(x, *c):
            return conv(x, *c), (x, c)

        def bwd(res, g):
            x, c = res
            _, pull = vjp(conv, x, *c)
            return pull(g)
        call.defvjp(fwd, bwd)
        return call(2.0, *consts)
    onp.testing.assert_allclose(grad(outer)(3.0), 2.0)


def test_rules_closing_over_vmapped_values_in_either_order():
    ys = np.array([1.0, 2.0, 3.0])

    def with_jvp(y, x):
        @custom_jvp
        def f(x):
            return np.sin(x) * y

        f.defjvp(lambda p, t: (f(*p), np.cos(p[0]) * t[0] * y))
        return f(x)

    def with_vjp(y, x):
        @custom_vjp
        def f(x):
            return np.sin(x) * y

        f.defvjp(lambda x: (np.sin(x) * y, np.cos(x)), lambda c, g: (c * g * y,))
        return f(x)
    expect = onp.cos(0.5) * onp.asarray(ys)
    for fn in (with_jvp, with_vjp):
        onp.testing.assert_allclose(vmap(lambda y: grad(lambda x: fn(y, x))(0.5))(ys), expect)
        onp.testing.assert_allclose(
            grad(lambda x: vmap(lambda y: fn(y, x))(ys).sum())(0.5), expect.sum())
        onp.testing.assert_allclose(
            jit(grad(lambda x: vmap(lambda y: fn(y, x))(ys).sum()))(0.5), expect.sum())
    _, t = jvp(lambda x: vmap(lambda y: with_jvp(y, x))(ys), (0.5,), (1.0,))
    onp.testing.assert_allclose(t, expect)
    _, t2 = vmap(lambda y: jvp(lambda x: with_jvp(y, x), (0.5,), (1.0,)))(ys)
    onp.testing.assert_allclose(t2, expect)
