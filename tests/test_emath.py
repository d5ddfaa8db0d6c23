"""minijax.numpy.emath against numpy.emath: eagerly NumPy's values and dtypes; under
jit/vmap always complex, with NumPy's values."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax.test_util import assert_same, check_grads

UNARY = ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"]
VALUES = [-4.0, -2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0, 9.0, np.inf, -np.inf]
IN_DOMAIN = [0.25, 0.5, 0.75]   # real results for every unary function


def _complex_dtype(dtype):
    small = np.dtype(dtype) in (np.float16, np.float32, np.int8, np.uint8, np.int16,
                                np.uint16, np.complex64)
    return np.complex64 if small else np.complex128


def _tol(dtype):
    return 2e-6 if _complex_dtype(dtype) == np.complex64 else 1e-14


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.complex128])
def test_unary_eager_and_traced(name, dtype):
    values = np.array(VALUES if np.dtype(dtype).kind in "fc" else [-4, -1, 0, 1, 2, 9],
                      dtype)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * np.linspace(-1, 1, len(values))
    ours, theirs = getattr(mnp.emath, name), getattr(np.emath, name)
    with np.errstate(all="ignore"):
        expected = theirs(values)
        in_domain = theirs(np.array(IN_DOMAIN, dtype) if np.dtype(dtype).kind != "i"
                           else np.array([0, 1], dtype))
    with np.errstate(all="ignore"):
        assert_same(ours(mnp.asarray(values)), expected, rtol=1e-15)
        assert_same(ours(values.tolist()), theirs(values.tolist()))
        for v in values[:3]:
            assert_same(ours(v), theirs(v))
    # every input in the real domain: eagerly a real result, as NumPy's
    domain_input = IN_DOMAIN if np.dtype(dtype).kind != "i" else [0, 1]
    assert_same(ours(mnp.asarray(np.array(domain_input, dtype))), in_domain)
    # under jit and vmap the result is complex whatever the values
    cdt = _complex_dtype(dtype)
    finite = np.isfinite(values)
    for f in (minijax.jit(ours), minijax.vmap(ours)):
        got = np.asarray(f(mnp.asarray(values)))
        assert got.dtype == cdt
        np.testing.assert_allclose(got[finite], expected.astype(cdt)[finite],
                                   rtol=_tol(dtype), atol=_tol(dtype))
    # on the real domain: NumPy's real values (computed in the complex type), imag 0
    got = np.asarray(minijax.jit(ours)(mnp.asarray(np.array(domain_input, dtype))))
    assert not np.any(got.imag)
    np.testing.assert_allclose(got, theirs(np.array(domain_input, dtype).astype(cdt)),
                               rtol=_tol(dtype))
    if in_domain.dtype != np.float16:
        np.testing.assert_allclose(got.real, in_domain, rtol=_tol(dtype))


@pytest.mark.parametrize("name", ["logn", "power"])
def test_binary_eager_and_traced(name):
    ours, theirs = getattr(mnp.emath, name), getattr(np.emath, name)
    a = np.array([2.0, -2.0, 3.0, 0.5, -8.0])
    b = np.array([3.0, 2.0, -1.0, 2.0, 10.0])
    with np.errstate(all="ignore"):
        for x, y in [(a, b), (b, a), (2, a), (a, 3), (-2, 3), (2, 3), (2, -2)]:
            expected = theirs(x, y)
            assert_same(ours(x, y), expected, rtol=1e-15)
            got = minijax.jit(ours)(x, y)
            assert np.asarray(got).dtype == np.complex128
            np.testing.assert_allclose(np.asarray(got), np.asarray(expected, complex),
                                       rtol=1e-14)
    # NumPy's negative integer power of an integer gives floats
    assert_same(mnp.emath.power(mnp.asarray([2, 4]), -1), np.emath.power(np.array([2, 4]), -1))


def test_values_and_dtypes_of_documented_examples():
    assert_same(mnp.emath.sqrt(-1), np.complex128(1j))
    assert_same(mnp.emath.sqrt(4), np.float64(2.0))
    assert_same(mnp.emath.log(-np.e), np.emath.log(-np.e))
    assert_same(mnp.emath.arcsin(mnp.asarray([2.0, 0.5], np.float32)),
                np.emath.arcsin(np.array([2.0, 0.5], np.float32)))
    assert mnp.emath.sqrt(mnp.ones(2, np.float32)).dtype == np.float32


def test_grad_through_traced_emath():
    f = lambda x: mnp.sum(mnp.emath.sqrt(x).real)
    check_grads(f, (np.array([0.5, 2.0, 3.0]),), order=1)
    g = minijax.grad(lambda x: mnp.emath.log(x).imag.sum() + mnp.emath.log(x).real.sum())
    assert_same(g(mnp.asarray([2.0, 4.0])), np.array([0.5, 0.25]))


def test_arguments_bind_as_numpys():
    assert_same(mnp.emath.logn(n=2, x=8.0), np.emath.logn(n=2, x=8.0))
    assert_same(mnp.emath.power(-4.0, p=0.5), np.emath.power(-4.0, p=0.5))
    with pytest.raises(TypeError, match=r"emath.sqrt\(x\)"):
        mnp.emath.sqrt(1.0, 2.0)
    with pytest.raises(TypeError, match=r"emath.power\(x, p\)"):
        mnp.emath.power(1.0)
