"""convert_element_type over every pair of dtypes, and integer division edge cases: the
NumPy kernels (eager) must give what XLA gives (jit), bit for bit."""

import math

import ml_dtypes
import numpy as np
import pytest

from minijax import jit, lax
from minijax.test_util import check_primitive

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(d) for d in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                np.uint16, np.uint32, np.uint64, np.float16, BF16, np.float32,
                                np.float64, np.complex64, np.complex128)]
UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _is_float(dtype):
    return dtype.kind == "f" or dtype == BF16


def _tiny(dtype):
    return float(ml_dtypes.finfo(dtype).tiny)


def _samples(dtype, seed=0):
    """Edge values and random bit patterns of ``dtype``, without subnormals (XLA on the CPU
    flushes them to zero)."""
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return np.array([True, False, True])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edge = [0, 1, 2, 127, 128, 255, 256, 65535, 65536, info.max, info.min, info.max - 1]
        edge = [v for v in edge if info.min <= v <= info.max] + ([-1, -129] if info.min else [])
        return np.concatenate([np.array(edge).astype(dtype),
                               rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)])
    if dtype.kind == "c":
        r = _samples(np.dtype(np.float32 if dtype.itemsize == 8 else np.float64), seed)
        return (r + 1j * np.roll(r, 3)).astype(dtype)
    edge = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 0.9999, -1.5, 2.5,
                     127.5, 128.0, -128.9, -129.0, 255.9, 256.0, 3e4, 65504.0, 7e4,
                     2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1e30,
                     -1e30, 1e300, 1 + 2.0 ** -9, 1 + 2.0 ** -12, 1 + 2.0 ** -24 + 2.0 ** -40])
    bits = rng.integers(0, np.iinfo(UINT_OF_SIZE[dtype.itemsize]).max, 60,
                        dtype=UINT_OF_SIZE[dtype.itemsize], endpoint=True).view(dtype)
    with np.errstate(all="ignore"):
        x = np.concatenate([edge.astype(dtype), bits])
        x[np.abs(x.astype(np.float64)) < _tiny(dtype)] = 0
    return x


def _bits(a):
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return np.stack([_bits(a.real), _bits(a.imag)])
    if _is_float(a.dtype):
        out = a.view(UINT_OF_SIZE[a.dtype.itemsize]).astype(np.uint64)
        return np.where(np.isnan(a.astype(np.float64)), 1 << 63, out)   # any NaN is a NaN
    return a


def _flush(a):
    """Subnormal float32/bfloat16 results as zeros of the same sign: XLA on the CPU flushes
    them (float64 -> float32 rounding to a subnormal gives 0; float16 results are exact)."""
    a = np.array(a)
    if a.dtype.kind == "c":
        a.real, a.imag = _flush(a.real), _flush(a.imag)
        return a
    if a.dtype in (np.float32, BF16):
        small = np.abs(a.astype(np.float64)) < _tiny(a.dtype)
        a[small] = np.copysign(0.0, a[small].astype(np.float64)).astype(a.dtype)
    return a


@pytest.mark.parametrize("src", DTYPES, ids=lambda d: d.name)
def test_convert_element_type_all_pairs(src):
    x = _samples(src)
    fn = lambda v: [lax.convert_element_type(v, d) for d in DTYPES]  # noqa: E731
    eager, jitted = fn(x), jit(fn)(x)
    for dst, e, o in zip(DTYPES, eager, jitted):
        e, o = np.asarray(e), np.asarray(o)
        assert e.dtype == o.dtype == dst
        np.testing.assert_array_equal(_bits(_flush(e)), _bits(o),
                                      err_msg=f"{src.name} -> {dst.name}: NumPy kernel vs XLA")


@pytest.mark.parametrize("src", [np.float16, BF16, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dst", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_float_to_int_saturates(src, dst):
    # The oracle: truncate toward zero, NaN -> 0, clamp into the integer range.
    x = _samples(np.dtype(src))
    info = np.iinfo(dst)

    def expected(v):
        v = complex(v).real
        if math.isnan(v):
            return 0
        if math.isinf(v):
            return info.max if v > 0 else info.min
        return min(max(math.trunc(v), info.min), info.max)
    out = np.asarray(lax.convert_element_type(x, dst))
    np.testing.assert_array_equal(out, np.array([expected(v) for v in x.tolist()], dst))


def test_complex_to_real_and_bool_drop_the_imaginary_part():
    z = np.array([0j, 1j, -2j, 3 + 0j, complex(0.0, math.nan)], np.complex64)
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(z, np.bool_)),
                                  [False, False, False, True, False])
    check_primitive(lambda v: lax.convert_element_type(v, np.bool_), [z])
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(z, np.float32)),
                                  [0, 0, 0, 3, 0])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32,
                                   np.uint64], ids=lambda d: np.dtype(d).name)
def test_integer_div_rem_edges(dtype):
    info = np.iinfo(dtype)
    v = np.array(sorted({0, 1, 2, 3, 7, info.max, info.min, info.max - 1} |
                        ({-1, -2, -3, -7, info.min + 1} if info.min else set())), dtype)
    x, y = (a.ravel() for a in np.meshgrid(v, v))
    q = np.asarray(check_primitive(lax.div, [x, y], rtol=0))
    r = np.asarray(check_primitive(lax.rem, [x, y], rtol=0))
    for xi, yi, qi, ri in zip(x.tolist(), y.tolist(), q.tolist(), r.tolist()):
        if yi == 0:       # XLA: x / 0 is -1 (all ones for unsigned), x % 0 is x
            assert (qi, ri) == (-1 if info.min else info.max, xi)
        elif xi == info.min and yi == -1:     # overflow: INT_MIN / -1 is INT_MIN, rem 0
            assert (qi, ri) == (info.min, 0)
        else:             # C semantics: truncate toward zero, remainder takes x's sign
            t = abs(xi) // abs(yi) * (1 if (xi < 0) == (yi < 0) else -1)
            assert (qi, ri) == (t, xi - t * yi)
