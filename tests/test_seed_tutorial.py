"""Every program and printed value of the seed tutorial (a JAX core in one file),
run with minijax's public API."""

import numpy as onp
import pytest

import minijax.numpy as np
from minijax import grad, jit, jvp, linearize, lax, make_jaxpr, vjp, vmap


def f(x):
    y = np.sin(x) * 2.
    z = - y + x
    return z


def deriv(fun):
    return lambda x: jvp(fun, (x,), (1.,))[1]


def assert_allclose(*vals):
    for v1, v2 in zip(vals[:-1], vals[1:]):
        onp.testing.assert_allclose(onp.asarray(v1), onp.asarray(v2))


def test_eval():
    assert float(f(3.0)) == pytest.approx(2.7177599838802657, rel=1e-15)


def test_jvp_of_sin_and_f():
    _, d = jvp(np.sin, (3.0,), (1.0,))
    assert float(d) == pytest.approx(-0.9899924966004454, rel=1e-15)
    y, ydot = jvp(f, (3.0,), (1.0,))
    assert float(y) == pytest.approx(2.7177599838802657, rel=1e-15)
    assert float(ydot) == pytest.approx(2.979984993200891, rel=1e-15)


def test_deriv_nested_four_times():
    expected = [-0.9899924966004454, -0.1411200080598672, 0.9899924966004454,
                0.1411200080598672]
    fun = np.sin
    for e in expected:
        fun = deriv(fun)
        assert float(fun(3.)) == pytest.approx(e, rel=1e-14)


def test_python_control_flow_under_jvp():
    def g(x):
        if x > 0.:
            return 2. * x
        return x
    assert float(deriv(g)(3.)) == 2.0
    assert float(deriv(g)(-3.)) == 1.0


def test_pytree_outputs_under_jvp():
    def g(x):
        y = np.sin(x) * 2.
        z = - y + x
        return {'hi': z, 'there': [x, y]}
    y, ydot = jvp(g, (3.,), (1.,))
    assert float(y['hi']) == pytest.approx(2.7177599838802657)
    assert float(y['there'][0]) == 3.0 and float(y['there'][1]) == pytest.approx(0.2822400161197344)
    assert float(ydot['hi']) == pytest.approx(2.979984993200891)
    assert float(ydot['there'][0]) == 1.0
    assert float(ydot['there'][1]) == pytest.approx(-1.9799849932008908)


def test_vmap_add_one_to_a_scalar():
    def add_one_to_a_scalar(scalar):
        assert np.ndim(scalar) == 0
        return 1 + scalar
    out = vmap(add_one_to_a_scalar, (0,))(np.arange(3.))
    onp.testing.assert_array_equal(onp.asarray(out), [1., 2., 3.])


def test_jacfwd_from_vmap_and_jvp():
    def jacfwd(fun, x):
        pushfwd = lambda v: jvp(fun, (x,), (v,))[1]
        vecs_in = np.reshape(np.eye(np.size(x)), np.shape(x) * 2)
        return vmap(pushfwd, (0,))(vecs_in)
    out = jacfwd(np.sin, np.arange(3.))
    onp.testing.assert_allclose(onp.asarray(out), onp.diag(onp.cos(onp.arange(3.))), atol=1e-15)


def test_jaxprs_as_printed():
    assert str(make_jaxpr(lambda x: 2. * x)(3.)) == \
        "{ lambda ; a:f64[]. let b:f64[] = mul 2.0 a in (b,) }"
    # omnistaging: an operation on constants alone is staged too
    assert str(make_jaxpr(lambda: lax.mul(2., 2.))()) == \
        "{ lambda ; . let a:f64[] = mul 2.0 2.0 in (a,) }"
    jaxpr = make_jaxpr(np.sin)(np.ones(3))
    assert str(jaxpr) == "{ lambda ; a:f64[3]. let b:f64[3] = sin a in (b,) }"


def test_jit_traces_once_per_signature(capsys):
    @jit
    def g(x, y):
        print('tracing!')
        return np.sin(x) * np.cos(y)
    z = g(3., 4.)
    assert float(z) == pytest.approx(-0.09224219304455371)
    z = g(4., 5.)
    assert capsys.readouterr().out.count('tracing!') == 1
    assert float(z) == pytest.approx(onp.sin(4.) * onp.cos(5.))
    g(np.ones(2), np.ones(2))
    assert capsys.readouterr().out.count('tracing!') == 1


def test_jit_reduce_sum_and_deriv():
    @jit
    def g(x):
        return lax.reduce_sum(x, axes=(0,))
    assert float(g(np.array([1., 2., 3.]))) == 6.0
    assert float(deriv(deriv(f))(3.)) == pytest.approx(0.2822400161197344)
    assert float(jit(deriv(deriv(f)))(3.)) == pytest.approx(0.2822400161197344)


def test_jvp_and_vmap_of_jit(capsys):
    @jit
    def g(x):
        print('tracing!')
        y = np.sin(x) * 2.
        return - y + x
    y, ydot = jvp(g, (3.,), (1.,))
    assert capsys.readouterr().out.count('tracing!') == 1
    assert float(y) == pytest.approx(2.7177599838802657)
    assert float(ydot) == pytest.approx(2.979984993200891)
    jvp(g, (3.,), (1.,))
    assert 'tracing!' not in capsys.readouterr().out
    ys = vmap(g, (0,))(np.arange(3.))
    onp.testing.assert_allclose(onp.asarray(ys), [0., -0.68294197, 0.18140515], rtol=1e-7)


def test_linearize():
    y, sin_lin = linearize(np.sin, 3.)
    assert float(y) == pytest.approx(0.1411200080598672)
    assert float(sin_lin(1.)) == pytest.approx(-0.9899924966004454)

    y, f_lin = linearize(jit(f), 3.)
    assert float(y) == pytest.approx(2.7177599838802657)
    assert float(f_lin(1.)) == pytest.approx(2.979984993200891)

    @jit
    def g2(x, y):
        return np.cos(x) + y

    @jit
    def f2(x):
        y = np.sin(x) * 2.
        return g2(x, y)
    y, f_lin = linearize(f2, 3.)
    assert float(y) == pytest.approx(-0.7077524804807109)
    assert float(f_lin(1.)) == pytest.approx(-2.121105001260758)


def test_vjp_and_grad():
    y, f_vjp = vjp(np.sin, 3.)
    (ct,) = f_vjp(1.)
    assert float(ct) == pytest.approx(np.cos(3.).item())
    assert float(grad(f)(3.)) == pytest.approx(1 - 2 * onp.cos(3.))

    @jit
    def g(x):
        return np.cos(x) * 2.

    @jit
    def h(x):
        return g(x * 2.)
    assert float(grad(h)(3.)) == pytest.approx(-4 * onp.sin(6.))


def test_compositionality_stress_test():
    # fun_with_nested_calls_2 from JAX's core tests
    def foo(x):
        @jit
        def bar(y):
            def baz(w):
                q = jit(lambda x: y)(x)
                q = q + jit(lambda: y)()
                q = q + jit(lambda y: w + y)(y)
                q = jit(lambda w: jit(np.sin)(x) * y)(1.0) + q
                return q
            p, t = jvp(baz, (x + 1.0,), (y,))
            return t + (x * p)
        return bar(x)

    ans1 = foo(3.)
    ans2 = jit(foo)(3.)
    ans3, _ = jvp(foo, (3.,), (5.,))
    ans4, _ = jvp(jit(foo), (3.,), (5.,))
    assert_allclose(ans1, ans2, ans3, ans4)

    deriv1 = grad(foo)(3.)
    deriv2 = grad(jit(foo))(3.)
    deriv3 = jit(grad(jit(foo)))(3.)
    _, deriv4 = jvp(foo, (3.,), (1.,))
    _, deriv5 = jvp(jit(foo), (3.,), (1.,))
    assert_allclose(deriv1, deriv2, deriv3, deriv4, deriv5)

    hess1 = grad(grad(foo))(3.)
    hess2 = grad(grad(jit(foo)))(3.)
    hess3 = grad(jit(grad(foo)))(3.)
    hess4 = jit(grad(grad(foo)))(3.)
    _, hess5 = jvp(grad(foo), (3.,), (1.,))
    _, hess6 = jvp(jit(grad(foo)), (3.,), (1.,))
    _, hess7 = jvp(jit(grad(foo)), (3.,), (1.,))
    assert_allclose(hess1, hess2, hess3, hess4, hess5, hess6, hess7)


def test_cond_programs():
    assert int(lax.cond(True, lambda: 3, lambda: 4)) == 3
    _, out_tan = jvp(lambda x: lax.cond(True, lambda: x * x, lambda: 0.), (1.,), (1.,))
    assert float(out_tan) == 2.0
    out = vmap(lambda x: lax.cond(True, lambda: x + 1., lambda: 0.), (0,))(np.array([1., 2., 3.]))
    onp.testing.assert_array_equal(onp.asarray(out), [2., 3., 4.])
    assert int(jit(lambda: lax.cond(False, lambda: 1, lambda: 2))()) == 2
    _, f_lin = linearize(lambda x: lax.cond(True, lambda: x, lambda: 0.), 1.)
    assert float(f_lin(3.14)) == pytest.approx(3.14)
    _, f_lin = linearize(jit(lambda x: lax.cond(True, lambda: x, lambda: 0.)), 1.)
    assert float(f_lin(3.14)) == pytest.approx(3.14)
    assert float(grad(lambda x: lax.cond(True, lambda: x * x, lambda: 0.))(1.)) == 2.0
