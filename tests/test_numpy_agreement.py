"""minijax.numpy agrees with NumPy on values and dtypes (NEP 50 promotion included)."""

import numpy as onp
import pytest
from hypothesis import given, strategies as st

import minijax
import minijax.numpy as np
from minijax.test_util import assert_same

DTYPES = [onp.bool_, onp.int8, onp.int16, onp.int32, onp.int64, onp.uint8, onp.uint16,
          onp.uint32, onp.float16, onp.float32, onp.float64, onp.complex64, onp.complex128]
SCALARS = [True, 3, -2, 2.5, 1.5j]

BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "equal", "not_equal",
          "less", "less_equal", "greater", "greater_equal", "power"]


def sample(dtype, shape=(2, 3), seed=0):
    rng = onp.random.default_rng(seed)
    if onp.dtype(dtype) == onp.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if onp.dtype(dtype).kind in "iu":
        return rng.integers(1, 5, shape).astype(dtype)
    return (rng.uniform(0.5, 2.0, shape)).astype(dtype)


def applicable(name, dtypes):
    kinds = {onp.dtype(d).kind for d in dtypes}
    if name == "subtract" and kinds == {"b"}:
        return False
    if name in ("maximum", "minimum", "less", "less_equal", "greater", "greater_equal") and "c" in kinds:
        return False
    if name == "power" and kinds <= {"b"}:
        return False
    return True


def check_same(actual, expected, rtol):
    """Same shape, same dtype, values within ``rtol`` (NaNs in the same places)."""
    assert_same(actual, expected, rtol=rtol, err_msg="minijax vs NumPy")


def tol(dtype):
    return {"e": 2e-3, "f": 1e-6, "d": 1e-12}.get(onp.dtype(dtype).char.lower()[:1], 1e-6) \
        if onp.dtype(dtype).kind in "fc" else 0


@given(name=st.sampled_from(BINARY), d1=st.sampled_from(DTYPES), d2=st.sampled_from(DTYPES))
def test_binary_array_array(name, d1, d2):
    if not applicable(name, [d1, d2]):
        return
    a, b = sample(d1), sample(d2, (3,), seed=1)
    with onp.errstate(all="ignore"):
        expected = getattr(onp, name)(a, b)
    check_same(getattr(np, name)(a, b), expected, rtol=max(tol(expected.dtype), 1e-6))


@given(name=st.sampled_from(BINARY), d=st.sampled_from(DTYPES), s=st.sampled_from(SCALARS),
       scalar_first=st.booleans())
def test_binary_with_python_scalar_is_weak(name, d, s, scalar_first):
    a = sample(d)
    args = (s, a) if scalar_first else (a, s)
    if not applicable(name, [d, onp.asarray(s).dtype]):
        return
    try:
        with onp.errstate(all="ignore"):
            expected = getattr(onp, name)(*args)
    except (OverflowError, ValueError, TypeError) as e:
        with pytest.raises(type(e)):
            getattr(np, name)(*[np.asarray(x) if isinstance(x, onp.ndarray) else x for x in args])
        return
    actual = getattr(np, name)(*[np.asarray(x) if isinstance(x, onp.ndarray) else x for x in args])
    check_same(actual, expected, rtol=max(tol(expected.dtype), 1e-6))
    # the same promotion holds under jit, where the scalar is a traced argument
    jitted = minijax.jit(lambda x, y: getattr(np, name)(x, y))(*args)
    assert onp.asarray(jitted).dtype == expected.dtype


@pytest.mark.parametrize("name", ["sin", "cos", "exp", "log", "tanh", "sqrt", "negative",
                                  "absolute", "sign", "floor", "ceil"])
@pytest.mark.parametrize("dtype", [onp.int8, onp.int64, onp.uint8, onp.float16, onp.float32,
                                   onp.float64])
def test_unary(name, dtype):
    a = sample(dtype)
    if name in ("floor", "ceil") and onp.dtype(dtype).kind in "iu":
        return  # NumPy keeps integer dtypes here; minijax too
    with onp.errstate(all="ignore"):
        expected = getattr(onp, name)(a)
    check_same(getattr(np, name)(a), expected, rtol=tol(expected.dtype))


@pytest.mark.parametrize("dtype", [onp.bool_, onp.int8, onp.uint16, onp.int64, onp.float16,
                                   onp.float32, onp.float64])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(dtype, axis, keepdims):
    a = sample(dtype, (3, 4))
    check_same(np.sum(a, axis=axis, keepdims=keepdims), onp.sum(a, axis=axis, keepdims=keepdims),
               rtol=tol(onp.sum(a).dtype))
    check_same(np.max(a, axis=axis, keepdims=keepdims), onp.max(a, axis=axis, keepdims=keepdims), 0)
    check_same(np.min(a, axis=axis, keepdims=keepdims), onp.min(a, axis=axis, keepdims=keepdims), 0)
    if dtype != onp.bool_:
        check_same(np.mean(a, axis=axis, keepdims=keepdims),
                   onp.mean(a, axis=axis, keepdims=keepdims), rtol=max(tol(dtype), 1e-12))


def test_reduction_edge_cases():
    with pytest.raises(ValueError, match="zero-size"):
        np.max(onp.zeros((0, 3)), axis=0)
    check_same(np.sum(onp.zeros((0, 3)), axis=0), onp.zeros(3), 0)
    check_same(np.max(onp.array([1.0, onp.nan])), onp.max(onp.array([1.0, onp.nan])), 0)
    check_same(np.max(onp.zeros((0, 3)), axis=0, initial=-1.0), -onp.ones(3), 0)


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                   ((5, 2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (6, 3, 2)),
                                   ((2, 3, 4), (5, 4, 2))])
def test_dot_and_matmul(sa, sb):
    a, b = sample(onp.float64, sa), sample(onp.float64, sb, seed=2)
    check_same(np.dot(a, b), onp.dot(a, b), 1e-12)
    if len(sa) < 3 or len(sb) < 3 or sa[:-2] == sb[:-2] or 1 in (sa[0], sb[0]):
        check_same(np.matmul(a, b), onp.matmul(a, b), 1e-12)
    check_same(np.dot(a.astype(onp.int32), b.astype(onp.int32)),
               onp.dot(a.astype(onp.int32), b.astype(onp.int32)), 0)


def test_creation():
    check_same(np.zeros((2, 3)), onp.zeros((2, 3)), 0)
    check_same(np.ones(3, dtype=np.int8), onp.ones(3, dtype=onp.int8), 0)
    check_same(np.full((2,), 7), onp.full((2,), 7), 0)
    check_same(np.full((2,), 1.5, dtype=np.float32), onp.full((2,), 1.5, dtype=onp.float32), 0)
    check_same(np.array([[1, 2], [3, 4]]), onp.array([[1, 2], [3, 4]]), 0)
    check_same(np.asarray([1.0, 2], dtype=np.float32), onp.asarray([1.0, 2], dtype=onp.float32), 0)
    check_same(np.eye(3, 4, k=1), onp.eye(3, 4, k=1), 0)
    check_same(np.linspace(0, 1, 7), onp.linspace(0, 1, 7), 1e-15)
    check_same(np.zeros_like(onp.ones((2, 2), onp.int16)), onp.zeros((2, 2), onp.int16), 0)
    for args in [(5,), (1, 7, 2), (10, 0, -3), (0.0, 1.0, 0.25), (2.5,), (onp.int8(3),)]:
        check_same(np.arange(*args), onp.arange(*args), 1e-15)
    strings = np.array(["a", "b"])   # an eager Array of NumPy's strings (DESIGN 3)
    assert strings.dtype == onp.dtype("<U1") and strings.tolist() == ["a", "b"]
    with pytest.raises(ValueError):   # ragged, as NumPy says
        np.array([[1, 2], [3]])


def test_manipulation():
    a = sample(onp.float64, (2, 3, 4))
    check_same(np.reshape(a, (4, -1)), onp.reshape(a, (4, -1)), 0)
    check_same(np.transpose(a), onp.transpose(a), 0)
    check_same(np.transpose(a, (1, 0, 2)), onp.transpose(a, (1, 0, 2)), 0)
    check_same(np.moveaxis(a, 0, -1), onp.moveaxis(a, 0, -1), 0)
    check_same(np.expand_dims(a, (0, 2)), onp.expand_dims(a, (0, 2)), 0)
    check_same(np.squeeze(onp.ones((1, 3, 1))), onp.squeeze(onp.ones((1, 3, 1))), 0)
    check_same(np.broadcast_to(onp.arange(3.0), (2, 3)), onp.broadcast_to(onp.arange(3.0), (2, 3)), 0)
    check_same(np.asarray(a).T, a.T, 0)
    check_same(np.asarray(a).reshape(6, 4), a.reshape(6, 4), 0)
    with pytest.raises(ValueError, match="reshape"):
        np.reshape(a, (5, 5))


def test_where_and_integer_power():
    c = onp.array([True, False, True])
    check_same(np.where(c, onp.arange(3), 2.5), onp.where(c, onp.arange(3), 2.5), 0)
    check_same(np.where(onp.arange(3))[0], onp.where(onp.arange(3))[0], 0)
    base = onp.array([2, -3, 0, 5], dtype=onp.int64)
    check_same(np.power(base, onp.array([3, 3, 0, 20])), onp.power(base, onp.array([3, 3, 0, 20])), 0)
    check_same(np.asarray(base) ** 2, base ** 2, 0)
    with pytest.raises(ValueError, match="negative"):
        np.power(base, -1)


def test_weak_results_and_overflow():
    a = onp.ones(3, onp.int8)
    with pytest.raises(OverflowError):
        onp.add(a, 300)
    with pytest.raises(OverflowError):
        np.add(a, 300)
    assert (np.asarray(onp.ones(2, onp.float32)) * 2.0).dtype == onp.float32
    assert (np.asarray(onp.ones(2, onp.float32)) * onp.float64(2.0)).dtype == onp.float64


@pytest.mark.parametrize("dtype", [onp.bool_, onp.int16, onp.float32, onp.float64])
def test_predicates_and_logic(dtype):
    a = onp.array([[0, 1, 2], [3, 0, 5]]).astype(dtype)
    if onp.dtype(dtype).kind == "f":
        a = onp.array([[0.0, onp.nan, onp.inf], [-onp.inf, 1.5, -0.0]], dtype)
    b = a[::-1]
    with onp.errstate(all="ignore"):
        for name in ("isnan", "isinf", "isfinite", "logical_not"):
            check_same(getattr(np, name)(a), getattr(onp, name)(a), 0)
        for name in ("logical_and", "logical_or", "logical_xor"):
            check_same(getattr(np, name)(a, b), getattr(onp, name)(a, b), 0)
        for axis in (None, 0, 1):
            check_same(np.all(a, axis=axis), onp.all(a, axis=axis), 0)
            check_same(np.any(a, axis=axis, keepdims=True), onp.any(a, axis=axis, keepdims=True), 0)
        if dtype != onp.bool_:
            check_same(np.clip(a, 1, 3), onp.clip(a, 1, 3), 0)
            check_same(np.square(a), onp.square(a), 0)
        if onp.dtype(dtype).kind == "f":
            check_same(np.reciprocal(a), onp.reciprocal(a), 0)
