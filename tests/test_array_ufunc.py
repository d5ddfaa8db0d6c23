"""NumPy's ``__array_ufunc__`` protocol on minijax arrays and tracers
(minijax/numpy/_array_ufunc.py): NumPy and SciPy ufuncs called on minijax values give
minijax values equal to the same call on NumPy arrays, eagerly and under jit/vmap/grad."""

import numpy as np
import pytest
import scipy.special as sp

import minijax
import minijax.numpy as mnp

RNG = np.random.default_rng(5)
A = RNG.normal(size=(4, 3))
B = RNG.normal(size=(3,))


def _same(got, want, rtol=1e-12):
    assert isinstance(got, minijax.Array), type(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-14)


NUMPY_CALLS = {
    "exp": lambda a, b: np.exp(a),
    "add": lambda a, b: np.add(a, b),
    "ndarray + array": lambda a, b: np.asarray(A) + b,
    "maximum.reduce": lambda a, b: np.maximum.reduce(a, axis=0),
    "add.outer": lambda a, b: np.add.outer(b, b),
    "multiply.accumulate": lambda a, b: np.multiply.accumulate(a, axis=1),
    "divmod": lambda a, b: np.divmod(a, 0.7)[1],
    "less": lambda a, b: np.less(a, b),
    "ndarray @ array": lambda a, b: np.asarray(A) @ b,      # a generalized ufunc
    "matmul": lambda a, b: np.matmul(a, b),
    "vecdot": lambda a, b: np.vecdot(a, b),
}
SCIPY_CALLS = {
    "erf": lambda a, b: sp.erf(a),
    "gammaln": lambda a, b: sp.gammaln(abs(a) + 0.5),
    "ndtr": lambda a, b: sp.ndtr(a) * 2.0,
    "xlogy": lambda a, b: sp.xlogy(abs(a), abs(b) + 1.0),
    "sici": lambda a, b: sp.sici(a)[1],     # two outputs
}


@pytest.mark.parametrize("name", sorted(NUMPY_CALLS) + sorted(SCIPY_CALLS))
def test_eager_calls_give_minijax_arrays(name):
    fn = {**NUMPY_CALLS, **SCIPY_CALLS}[name]
    _same(fn(mnp.asarray(A), mnp.asarray(B)), fn(A, B))


@pytest.mark.parametrize("name", sorted(NUMPY_CALLS) + sorted(SCIPY_CALLS))
def test_under_jit(name):
    fn = {**NUMPY_CALLS, **SCIPY_CALLS}[name]
    _same(minijax.jit(fn)(A, B), fn(A, B))


@pytest.mark.parametrize("name", ["exp", "add", "erf", "xlogy", "sici"])
def test_under_vmap(name):
    fn = {**NUMPY_CALLS, **SCIPY_CALLS}[name]
    _same(minijax.vmap(fn, in_axes=(0, None))(A, B), np.stack([fn(r, B) for r in A]))


def test_numpy_ufuncs_minijax_has_are_differentiable():
    g = minijax.grad(lambda a: mnp.sum(np.sin(a) * np.exp(a)))(A)
    _same(g, np.cos(A) * np.exp(A) + np.sin(A) * np.exp(A), rtol=1e-10)


def test_a_foreign_ufunc_keeps_its_dtypes():
    _same(sp.erf(mnp.asarray(A, dtype=mnp.float32)), sp.erf(A.astype(np.float32)), 1e-6)
    _same(minijax.jit(sp.erf)(A.astype(np.float32)), sp.erf(A.astype(np.float32)), 1e-6)


def test_numpy_out_arrays_keep_numpys_path():
    n = A.copy()
    n += mnp.asarray(A)
    assert type(n) is np.ndarray
    np.testing.assert_array_equal(n, 2 * A)
    out = np.empty(3)
    assert sp.erf(mnp.asarray(B), out=out) is out
    np.testing.assert_allclose(out, sp.erf(B), rtol=1e-14)


def test_unsupported_forms_raise_named_errors():
    with pytest.raises(TypeError, match="erf"):
        minijax.jit(lambda a: sp.erf(a, dtype=np.float32))(A)
    with pytest.raises(TypeError, match="cannot be written"):
        sp.erf(mnp.asarray(B), out=mnp.zeros(3))
    with pytest.raises(TypeError, match="generalized ufunc"):
        minijax.jit(lambda a: np.linalg._umath_linalg.det(a))(A[:3])
    with pytest.raises(TypeError, match="dtype object"):
        minijax.jit(np.frompyfunc(abs, 1, 1))(A)    # an object-dtype ufunc
    with pytest.raises(TypeError, match="erf.*cannot be differentiated"):
        minijax.grad(lambda a: mnp.sum(sp.erf(a)))(A)   # host code has no derivative
