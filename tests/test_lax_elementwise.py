"""Elementwise primitives added for issue 3 (part A): cross-checks, gradients and errors."""

import numpy as np
import pytest

from minijax import lax
from minijax.test_util import check_grads, check_primitive

# name -> (dtypes, interior points for gradients)
UNARY = {
    "log1p": (0.3, 2.0),
    "expm1": (-0.7, 1.3),
    "tan": (-0.4, 0.9),
    "rsqrt": (0.5, 2.5),
    "sinh": (-1.1, 0.8),
    "cosh": (-1.1, 0.8),
    "asin": (-0.5, 0.6),
    "acos": (-0.5, 0.6),
    "atan": (-1.5, 0.6),
    "asinh": (-1.5, 0.6),
    "atanh": (-0.5, 0.6),
}
SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, 1e-8, 30.0]


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_check(name, dtype):
    x = np.array(SPECIALS, dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    check_primitive(getattr(lax, name), [x], rtol=rtol)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_grads(name):
    check_grads(getattr(lax, name), [np.array(UNARY[name])], order=2)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integers(name):
    with pytest.raises(TypeError, match=name):
        getattr(lax, name)(np.arange(3))


def test_cbrt_and_is_finite():
    for dtype in (np.float32, np.float64):
        x = np.array(SPECIALS, dtype)
        check_primitive(lax.cbrt, [x], rtol=1e-5 if dtype == np.float32 else 1e-12)
        check_primitive(lax.is_finite, [x])
    check_grads(lax.cbrt, [np.array((0.5, -2.0))], order=2)
    with pytest.raises(TypeError, match="is_finite"):
        lax.is_finite(np.arange(3))


def test_atan2():
    v = np.array(SPECIALS)
    x, y = np.meshgrid(v, v)
    check_primitive(lax.atan2, [x.ravel(), y.ravel()], rtol=1e-12)
    check_grads(lax.atan2, [np.array((0.5, -2.0)), np.array((1.5, -0.3))], order=2)
    with pytest.raises(TypeError, match="atan2"):
        lax.atan2(np.ones(3, np.float32), np.ones(3))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32])
def test_rem_integers(dtype):
    info = np.iinfo(dtype)
    v = np.array(sorted({0, 1, 2, 7, info.max, info.min} | ({-1, -2, -7} if info.min < 0 else set())), dtype)
    x, y = np.meshgrid(v, v)
    check_primitive(lax.rem, [x.ravel(), y.ravel()])


def test_rem_floats():
    v = np.array(SPECIALS)
    x, y = np.meshgrid(v, v)
    check_primitive(lax.rem, [x.ravel(), y.ravel()])
    check_primitive(lax.rem, [x.ravel().astype(np.float32), y.ravel().astype(np.float32)])
    check_grads(lax.rem, [np.array((2.5, -3.7)), np.array((1.1, 0.9))], order=2)
    with pytest.raises(TypeError, match="rem"):
        lax.rem(np.ones(3, np.int32), np.ones(3))
