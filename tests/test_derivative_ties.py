"""Derivatives where naive rules go wrong: binary elementwise functions at ties
(x == y, |x| == |y|, x == -y) and reductions over length-1 axes, up to order 2,
against central finite differences; bool/int outputs of grad; x ** 0.0."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import grad, hessian, jit, vmap
from minijax.test_util import check_grads

# Smooth in both arguments at every tie point below (positive operands for the
# power functions).
SMOOTH_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "power",
                 "float_power", "arctan2", "hypot", "logaddexp", "logaddexp2"]
TIES = {"equal": (0.4, 0.4), "equal_big": (2.0, 2.0), "abs_equal": (2.0, -2.0),
        "arrays": (onp.array([0.4, 1.5, 3.0]), onp.array([0.4, -1.5, 3.0]))}
POSITIVE_ONLY = {"power", "float_power"}


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("name", SMOOTH_BINARY)
def test_binary_second_derivatives_at_ties(name, tie):
    fn = getattr(np, name)
    x, y = TIES[tie]
    if name in POSITIVE_ONLY:
        x, y = onp.abs(x), onp.abs(y)
    x, y = np.asarray(x), np.asarray(y)
    check_grads(lambda a, b: fn(a, b), (x, y), order=2)
    h = hessian(lambda v: fn(v[0], v[1]).sum())(np.stack([x, y]))
    assert onp.all(onp.isfinite(onp.asarray(h)))


@pytest.mark.parametrize("name,point,expect", [
    ("logaddexp", (0.4, 0.4), [[0.25, -0.25], [-0.25, 0.25]]),
    ("logaddexp2", (0.4, 0.4), onp.log(2) * onp.array([[0.25, -0.25], [-0.25, 0.25]])),
    ("hypot", (2.0, 2.0), onp.array([[1, -1], [-1, 1]]) / (4 * onp.sqrt(2))),
    ("hypot", (2.0, -2.0), onp.array([[1, 1], [1, 1]]) / (4 * onp.sqrt(2))),
])
def test_hessian_values_at_ties(name, point, expect):
    fn = getattr(np, name)

    def f(v):
        return fn(v[0], v[1])
    v = np.asarray(point)
    for h in (hessian(f)(v), jit(hessian(f))(v), vmap(hessian(f))(np.stack([v, v]))[1]):
        onp.testing.assert_allclose(h, expect, rtol=1e-12, atol=1e-15)


def test_logaddexp_infinities_keep_finite_gradients():
    g = grad(lambda a, b: np.logaddexp(a, b), argnums=(0, 1))
    onp.testing.assert_allclose(g(1.0, -np.inf), (1.0, 0.0))
    onp.testing.assert_allclose(g(np.inf, np.inf), (0.5, 0.5))
    onp.testing.assert_allclose(grad(lambda a: np.logaddexp2(a, 3.0))(3.0), 0.5)
    assert float(grad(lambda a: np.hypot(a, 0.0))(0.0)) == 0.0


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_kinked_binary_split_ties_and_have_no_nan_curvature(name):
    fn = getattr(np, name)
    gx, gy = grad(lambda a, b: fn(a, b), argnums=(0, 1))(0.7, 0.7)
    assert (float(gx), float(gy)) == (0.5, 0.5)
    h = hessian(lambda v: fn(v[0], v[1]))(np.array([0.7, 0.7]))
    onp.testing.assert_array_equal(h, onp.zeros((2, 2)))
    check_grads(lambda a, b: fn(a, b), (0.7, 0.2), order=2)


REDUCTIONS = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "nansum",
              "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "average", "median", "ptp",
              "cumsum", "cumprod"]
LENGTH_ONE = {"0d": (onp.asarray(0.7), None), "axis0": (onp.array([[0.3, -1.2, 2.0]]), 0),
              "axis1": (onp.array([[0.3], [-1.2]]), 1), "all": (onp.array([[0.9]]), None)}


@pytest.mark.parametrize("case", LENGTH_ONE)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_derivatives_over_length_one_axes(name, case):
    fn = getattr(np, name)
    x, axis = LENGTH_ONE[case]
    if name in ("cumsum", "cumprod") and axis is None and x.ndim == 0:
        axis = None
    f = (lambda a: fn(a)) if axis is None else (lambda a: fn(a, axis=axis))
    check_grads(f, (np.asarray(x),), order=2)
    g = grad(lambda a: f(a).sum())(np.asarray(x))
    assert onp.all(onp.isfinite(onp.asarray(g)))


@pytest.mark.parametrize("name", ["std", "var", "nanstd", "nanvar"])
@pytest.mark.parametrize("dtype", [onp.float64, onp.complex128])
def test_spread_is_identically_zero_over_one_element(name, dtype):
    fn = getattr(np, name)
    for x, axis in ((onp.asarray(1.5, dtype), None), (onp.ones((1, 3), dtype) * 2, 0)):
        x = np.asarray(x)
        f = (lambda a: fn(a, axis=axis).sum()) if axis is not None else (lambda a: fn(a))
        assert float(f(x)) == 0.0
        for g in (grad(f), jit(grad(f))):
            got = onp.asarray(g(x))
            assert got.shape == x.shape
            onp.testing.assert_array_equal(got, onp.zeros(x.shape))
    # elsewhere std keeps its ordinary derivative
    check_grads(lambda a: fn(a, axis=0), (np.array([[0.2, 1.0], [1.5, -0.5]]),), order=2)


def test_power_zero_exponent_all_orders():
    for f in (lambda x: x ** 0.0, lambda x: np.power(x, 0.0), lambda x: np.float_power(x, 0.0)):
        for x in (0.0, 2.0):
            assert float(grad(f)(x)) == 0.0
            assert float(grad(grad(f))(x)) == 0.0
            assert float(grad(grad(grad(f)))(x)) == 0.0
    # x ** y at x == 0 with y a traced exponent > 1: ordinary derivatives, no NaN
    onp.testing.assert_allclose(grad(grad(lambda x: x ** 2.0))(0.0), 2.0)
    onp.testing.assert_allclose(grad(lambda y: 2.0 ** y)(0.0), onp.log(2.0))


def test_grad_of_bool_or_int_output_raises_named_type_error():
    fns = [lambda x: np.allclose(x, 1.0), lambda x: x > 0, lambda x: np.argmax(x),
           lambda x: np.sum(x > 0)]
    for f in fns:
        with pytest.raises(minijax.errors.NonDifferentiableOutputError,
                           match="floating-point output"):
            grad(lambda x: f(x) if np.ndim(f(x)) == 0 else f(x)[0])(np.array([1.0, 2.0]))
        with pytest.raises(TypeError):
            jit(grad(lambda x: f(x) if np.ndim(f(x)) == 0 else f(x)[0]))(np.array([1.0, 2.0]))


def test_nanvar_of_complex_is_real_like_numpy():
    a = onp.array([1 + 1j, 2, 3 - 2j, onp.nan])
    onp.testing.assert_allclose(np.nanvar(np.asarray(a)), onp.nanvar(a), rtol=1e-14)
    onp.testing.assert_allclose(np.nanstd(np.asarray(a)), onp.nanstd(a), rtol=1e-14)
    assert np.nanvar(np.asarray(a)).dtype == onp.nanvar(a).dtype
