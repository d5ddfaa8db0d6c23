"""Elementwise primitives added for issue 3 (part A): cross-checks, gradients and errors."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
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


# ================================================================ issue 3, part B

import math  # noqa: E402

import ml_dtypes  # noqa: E402
from minijax import jit  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.float16, BF16, np.float32, np.float64]
COMPLEXES = [np.complex64, np.complex128]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
RTOL = {np.dtype(np.float16): 2e-3, BF16: 1.6e-2, np.dtype(np.float32): 2e-6,
        np.dtype(np.float64): 1e-13, np.dtype(np.complex64): 2e-6,
        np.dtype(np.complex128): 1e-13}


def _flush_subnormals(x):
    """XLA on the CPU flushes subnormal floats to zero; keep them out of cross-checks."""
    x = np.array(x)
    if x.dtype.kind == "c":
        return _flush_subnormals(x.real) + 1j * _flush_subnormals(x.imag)
    tiny = np.finfo(x.dtype).tiny if x.dtype != BF16 else ml_dtypes.finfo(BF16).tiny
    with np.errstate(invalid="ignore"):
        x[np.abs(x.astype(np.float64)) < float(tiny)] = 0
    return x


def _floats(dtype, values=SPECIALS, n=8, scale=3.0, seed=0):
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        v = np.concatenate([np.array(values, np.float64), scale * rng.standard_normal(n)])
    return _flush_subnormals(v.astype(dtype))


def _complexes(dtype, n=10, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    return np.concatenate([v, [0, 1j, -1, 0.5 - 2j]]).astype(dtype)


def _ints(dtype, n=12, seed=0):
    info = np.iinfo(dtype)
    edge = [0, 1, 2, 7, info.max, info.min, info.max - 1] + ([-1, -2, info.min + 1] if info.min else [])
    rng = np.random.default_rng(seed)
    return np.concatenate([np.array(edge).astype(dtype),
                           rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)])


def _wide(a):
    """16-bit floats as float32 (NumPy's testing helpers do not handle bfloat16 NaNs)."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype in (BF16, np.float16) else a


def _check_against_jit(fn, args, rtol, atol):
    """For dtype sweeps: the NumPy kernels (eager) against one jit of ``fn`` (XLA), and vmap
    over axis 0 against a loop. Compiling each op once more for eager XLA, as
    check_primitive does, would double the compile time for little gain (same lowering)."""
    eager = fn(*args)
    jitted = jit(fn)(*args)
    for e, o in zip(eager, jitted):
        e, o = np.asarray(e), np.asarray(o)
        assert e.dtype == o.dtype and e.shape == o.shape, (e.dtype, e.shape, o.dtype, o.shape)
        np.testing.assert_allclose(_wide(o), _wide(e), rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg="NumPy kernel vs jit")
    from minijax import vmap
    stacked = [np.stack([a, a[::-1]]) for a in args]
    batched = vmap(fn)(*stacked)
    for i in range(2):
        for b, single in zip(batched, fn(*[st[i] for st in stacked])):
            np.testing.assert_array_equal(_wide(b)[i], _wide(single), strict=True)
    return eager


# name -> (kinds checked, gradient points or None, math oracle or None)
SPECIAL_FNS = {
    "exp2": ("fc", (-0.7, 1.3), lambda v: np.float64(2.0) ** v),
    "acosh": ("fc", (1.3, 2.5), math.acosh),
    "erf": ("f", (-0.7, 1.3), math.erf),
    "erfc": ("f", (-0.7, 1.3), math.erfc),
    "erf_inv": ("f", (-0.7, 0.3), None),
    "lgamma": ("f", (-0.7, 1.3, 4.2), math.lgamma),
    "digamma": ("f", (-0.7, 1.3, 4.2), None),
    "square": ("fc", (-0.7, 1.3), lambda v: v * v),
}


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES, ids=lambda d: np.dtype(d).name)
def test_special_cross_check(dtype):
    # One function of all the operations supporting ``dtype`` (one jit compile per dtype).
    dtype = np.dtype(dtype)
    kind = "c" if dtype.kind == "c" else "f"
    names = [n for n in sorted(SPECIAL_FNS) if kind in SPECIAL_FNS[n][0]]
    for n in sorted(set(SPECIAL_FNS) - set(names)):
        with pytest.raises(TypeError, match=rf"lax\.{n} requires"):
            getattr(lax, n)(np.ones(2, dtype))
    x = _complexes(dtype) if kind == "c" else _floats(dtype, SPECIALS + [-2.5, 2.0, 3.7, -0.99])
    # lgamma and digamma lose relative accuracy near their zeros; erf_inv in float32 is
    # XLA's polynomial approximation (a few ulp)
    rtol = RTOL[dtype] * (100 if kind == "f" else 1)
    _check_against_jit(lambda v: [getattr(lax, n)(v) for n in names], [x], rtol, rtol)
    if kind == "f":
        y = _floats(dtype, [np.nan, 1.0, -1.0, 1.5, 0.0, -0.0, 0.999, -0.9999, 1e-5, 0.5, 0.25],
                    scale=0.4)
        check_primitive(lax.erf_inv, [y], rtol=RTOL[dtype] * 10, atol=RTOL[dtype] * 10)


@pytest.mark.parametrize("name", ["erf", "erfc", "lgamma", "exp2", "acosh"])
def test_special_against_math(name):
    oracle = SPECIAL_FNS[name][2]
    x = np.concatenate([np.linspace(-6.05, 6.05, 40), [1e-300, 0.1, 171.5, 1e10, 1e300]])
    if name == "acosh":
        x = np.abs(x) + 1
    with np.errstate(over="ignore"):
        expected = np.array([oracle(v) for v in x], np.float64)
    np.testing.assert_allclose(np.asarray(getattr(lax, name)(x)), expected, rtol=4e-16, atol=0)


def test_erf_inv_inverts_erf():
    y = np.concatenate([np.linspace(-0.999999, 0.999999, 101), [1e-300, 1e-10, 1 - 2 ** -53,
                                                                -(1 - 2 ** -52)]])
    x = np.asarray(lax.erf_inv(y))
    back = np.array([math.erf(v) for v in x])
    tail = np.abs(y) > 0.5
    np.testing.assert_allclose(back[~tail], y[~tail], rtol=4e-16)
    np.testing.assert_allclose(1 - np.abs(back[tail]), 1 - np.abs(y[tail]), rtol=1e-14)
    assert np.array_equal(np.asarray(lax.erf_inv(np.array([1.0, -1.0, 2.0, np.nan]))),
                          [np.inf, -np.inf, np.nan, np.nan], equal_nan=True)


def test_digamma_oracles():
    # psi(1) = -Euler gamma, psi(n + 1) = psi(n) + 1/n, psi(1/2) = -gamma - 2 log 2 and
    # the reflection formula; the negative poles give NaN as in XLA, the pole at zero its
    # one-sided limits as SciPy (-inf at +0, +inf at -0).
    euler = 0.5772156649015329
    n = np.arange(1.0, 30.0)
    expected = -euler + np.concatenate([[0.0], np.cumsum(1 / n[:-1])])
    np.testing.assert_allclose(np.asarray(lax.digamma(n)), expected, rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(float(lax.digamma(np.float64(0.5))), -euler - 2 * np.log(2),
                               rtol=1e-15)
    x = np.array([-0.3, -2.7, -10.4, 0.2])
    np.testing.assert_allclose(np.asarray(lax.digamma(x)),
                               np.asarray(lax.digamma(1 - x)) - np.pi / np.tan(np.pi * x),
                               rtol=1e-13)
    assert np.isnan(np.asarray(lax.digamma(np.array([-1.0, -5.0, -np.inf])))).all()
    for f in (lax.digamma, jit(lax.digamma)):
        assert np.array_equal(np.asarray(f(np.array([0.0, -0.0]))), [-np.inf, np.inf])


@pytest.mark.parametrize("name", [n for n in sorted(SPECIAL_FNS) if SPECIAL_FNS[n][1]])
def test_special_grads(name):
    check_grads(getattr(lax, name), [np.array(SPECIAL_FNS[name][1])], order=2)


def test_digamma_and_lgamma_second_derivatives():
    check_grads(lax.digamma, [np.array([0.4, 1.3, 6.2, -0.6])], order=2)
    check_grads(lax.lgamma, [np.array([0.4, 1.3, 6.2, -0.6])], order=2)


# ---------------------------------------------------------------- zeta, polygamma

@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_zeta_polygamma_cross_check(dtype):
    s = np.array([2.0, 3.0, 1.5, 1.0, 0.5, 2.0, 2.0, 2.0, 4.0, 7.0, 2.0, np.nan, 2.0, np.inf])
    q = np.array([1.0, 0.5, 2.0, 2.0, 2.0, 0.0, -1.0, -1.5, 3.2, 0.1, 1e4, 1.0, np.inf, 2.0])
    dtype = np.dtype(dtype)
    rtol = RTOL[dtype] * 100
    check_primitive(lax.zeta, [s.astype(dtype), q.astype(dtype)], rtol=rtol)
    m = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 1.5, -1.0, 1.0, 1.0, 2.0, 1.0, 0.0, 1.0, 3.0])
    x = np.array([0.3, 2.5, 0.7, 5.1, 0.05, 2.0, 2.0, 0.0, -1.0, -2.5, np.inf, -0.5, 1e4, 30.0])
    check_primitive(lax.polygamma, [m.astype(dtype), x.astype(dtype)], rtol=rtol, atol=rtol)


def test_zeta_polygamma_oracles():
    n = np.arange(1.0, 20.0)
    # zeta(2, n) = pi^2/6 - sum_{k<n} 1/k^2; zeta(4, 1) = pi^4/90
    expected = np.pi ** 2 / 6 - np.concatenate([[0.0], np.cumsum(1 / n[:-1] ** 2)])
    np.testing.assert_allclose(np.asarray(lax.zeta(np.full_like(n, 2.0), n)), expected,
                               rtol=1e-14)
    assert abs(float(lax.zeta(np.float64(4.0), np.float64(1.0))) - np.pi ** 4 / 90) < 1e-15
    # zeta(s, q) - zeta(s, q + 1) = q^-s, and polygamma's recurrence
    rng = np.random.default_rng(0)
    q, s = rng.uniform(0.05, 30, 50), rng.uniform(1.1, 12, 50)
    np.testing.assert_allclose(np.asarray(lax.zeta(s, q)) - np.asarray(lax.zeta(s, q + 1)),
                               q ** -s, rtol=1e-11)
    for order in range(0, 6):
        m = np.full_like(q, order)
        step = (-1) ** order * math.factorial(order) * q ** -(order + 1.0)
        lhs, rhs = np.asarray(lax.polygamma(m, q + 1)), np.asarray(lax.polygamma(m, q))
        assert (np.abs(lhs - (rhs + step)) <= 1e-14 * (np.abs(rhs) + np.abs(step))).all()
    # polygamma(0, x) is digamma; non-integer or negative orders give NaN
    np.testing.assert_array_equal(np.asarray(lax.polygamma(np.zeros(3), q[:3])),
                                  np.asarray(lax.digamma(q[:3])))
    assert np.isnan(np.asarray(lax.polygamma(np.array([0.5, -1.0]), np.ones(2)))).all()


def test_zeta_polygamma_grads_and_errors():
    from minijax import grad
    check_grads(lambda x: lax.polygamma(np.full(2, 2.0), x), [np.array([0.7, 3.1])],
                order=2)
    check_grads(lambda q: lax.zeta(np.full(2, 3.0), q), [np.array([0.7, 3.1])], order=2)
    with pytest.raises(NotImplementedError, match=r"lax\.polygamma .* m"):
        grad(lambda m: lax.polygamma(m, 2.0))(1.0)
    with pytest.raises(NotImplementedError, match=r"lax\.zeta .* x"):
        grad(lambda s: lax.zeta(s, 2.0))(3.0)
    with pytest.raises(TypeError, match=r"lax\.polygamma requires floating"):
        lax.polygamma(np.ones(2, np.int32), np.ones(2, np.int32))
    with pytest.raises(TypeError, match=r"lax\.zeta.*one dtype"):
        lax.zeta(np.ones(2, np.float32), np.ones(2))


# ---------------------------------------------------------------- round

@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("method", [0, 1, lax.RoundingMethod.TO_NEAREST_EVEN])
def test_round(dtype, method):
    halves = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, -0.3, 2 ** 52 + 1.0]
    x = _floats(dtype, SPECIALS + halves)
    out = check_primitive(lambda v: lax.round(v, method), [x], rtol=0)
    f = x.astype(np.float64)
    if method:
        expected = np.rint(f)
    else:   # half away from zero, exactly
        t = np.trunc(f)
        with np.errstate(invalid="ignore"):
            expected = np.where(np.abs(f - t) >= 0.5, t + np.sign(f), t)
    np.testing.assert_array_equal(np.asarray(out).astype(np.float64), expected)
    assert np.signbit(np.asarray(lax.round(np.array(-0.3, dtype), method)))


def test_round_errors_and_grad():
    with pytest.raises(ValueError, match="rounding_method"):
        lax.round(np.ones(2), 3)
    with pytest.raises(TypeError, match=r"lax\.round requires"):
        lax.round(np.arange(3))
    from minijax import grad
    assert float(grad(lambda x: lax.round(x))(1.3)) == 0.0


# ---------------------------------------------------------------- existing float ops on 16-bit and complex

OLD_FLOAT_OPS = ["exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "log1p", "expm1", "tan",
                 "sinh", "cosh", "asin", "acos", "atan", "asinh", "atanh", "logistic", "neg",
                 "abs", "sign", "floor", "ceil", "cbrt", "is_finite"]
COMPLEX_OPS = {"exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "log1p", "expm1", "tan",
               "sinh", "cosh", "asin", "acos", "atan", "asinh", "atanh", "logistic", "neg",
               "abs", "sign"}


@pytest.mark.parametrize("dtype", [np.float16, BF16] + COMPLEXES, ids=lambda d: np.dtype(d).name)
def test_float_ops_more_dtypes(dtype):
    dtype = np.dtype(dtype)
    names = [n for n in OLD_FLOAT_OPS if dtype.kind != "c" or n in COMPLEX_OPS]
    for n in sorted(set(OLD_FLOAT_OPS) - set(names)):
        with pytest.raises(TypeError, match=rf"lax\.{n} requires"):
            getattr(lax, n)(np.ones(2, dtype))
    x = _complexes(dtype) if dtype.kind == "c" else _floats(dtype)
    outs = _check_against_jit(lambda v: [getattr(lax, n)(v) for n in names], [x],
                              RTOL[dtype] * 4, RTOL[dtype])
    if dtype.kind == "c":
        assert np.asarray(outs[names.index("abs")]).dtype == np.finfo(dtype).dtype


def test_sign_of_complex():
    x = np.array([3 + 4j, 0j, -2j])
    np.testing.assert_allclose(np.asarray(lax.sign(x)), [0.6 + 0.8j, 0, -1j])


# ---------------------------------------------------------------- complex parts

@pytest.mark.parametrize("dtype", COMPLEXES, ids=lambda d: np.dtype(d).name)
def test_complex_parts(dtype):
    real_dt = np.finfo(dtype).dtype
    x = _complexes(dtype)
    for fn in (lax.real, lax.imag, lax.conj):
        out = check_primitive(fn, [x], rtol=0)
    assert np.asarray(lax.real(x)).dtype == real_dt
    r = _floats(real_dt, SPECIALS)
    z = check_primitive(lax.complex, [r, r[::-1].copy()], rtol=0)
    assert np.asarray(z).dtype == dtype
    np.testing.assert_array_equal(np.asarray(lax.real(z)), r)
    np.testing.assert_array_equal(np.asarray(lax.imag(z)), r[::-1])
    assert np.signbit(np.asarray(lax.imag(lax.complex(r[:1] * 0, -r[3:4]))))   # -0.0 kept
    out = check_primitive(lax.conj, [r], rtol=0)              # a real operand becomes complex
    assert np.asarray(out).dtype == dtype


def test_complex_parts_grads():
    def f(x, y):
        z = lax.complex(x, y)
        w = lax.mul(z, lax.conj(lax.mul(z, z)))
        return lax.add(lax.real(w), lax.mul(lax.imag(w), lax.imag(w)))
    check_grads(f, [np.array([0.3, -1.2]), np.array([0.8, 0.5])], order=2)
    check_grads(lambda x: lax.real(lax.conj(lax.mul(lax.conj(x), lax.conj(x)))),
                [np.array([0.3, -1.2])], order=2)


def test_complex_part_errors():
    with pytest.raises(TypeError, match=r"lax\.real requires"):
        lax.real(np.ones(2))
    with pytest.raises(TypeError, match=r"lax\.imag requires"):
        lax.imag(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="complex.*float32 or float64"):
        lax.complex(np.ones(2, np.float16), np.ones(2, np.float16))
    with pytest.raises(TypeError, match="complex"):
        lax.complex(np.ones(2, np.float32), np.ones(2))
    with pytest.raises(TypeError, match=r"lax\.conj requires"):
        lax.conj(np.arange(2))


# ---------------------------------------------------------------- integer_pow and square

@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES + [np.int8, np.int32, np.int64, np.uint16],
                         ids=lambda d: np.dtype(d).name)
def test_integer_pow(dtype):
    dtype = np.dtype(dtype)
    ys = [0, 1, 2, 3, 5, 8, 13]
    if dtype.kind in "iu":
        with pytest.raises(TypeError, match="integer_pow.*negative"):
            lax.integer_pow(np.ones(2, dtype), -2)
        x = _ints(dtype)
    else:
        ys += [-1, -2, -7]
        x = _complexes(dtype) if dtype.kind == "c" else _floats(dtype)
    rtol = 0 if dtype.kind in "iu" else RTOL[dtype] * 8
    outs = _check_against_jit(lambda v: [lax.integer_pow(v, y) for y in ys], [x], rtol, rtol)
    if dtype.kind in "iu":   # wraps like repeated multiplication
        for y, out in zip(ys, outs):
            expected = np.ones_like(x)
            for _ in range(y):
                expected = expected * x
            np.testing.assert_array_equal(np.asarray(out), expected)


def test_integer_pow_grads_and_errors():
    for y in (0, 1, 2, 3, -1, -3):
        check_grads(lambda v: lax.integer_pow(v, y), [np.array([0.7, -1.3])], order=2)
    with pytest.raises(TypeError, match="integer_pow.*static Python int"):
        lax.integer_pow(np.ones(2), 2.0)
    with pytest.raises(TypeError, match=r"lax\.integer_pow requires"):
        lax.integer_pow(np.array([True]), 2)


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_square_integers(dtype):
    check_primitive(lax.square, [_ints(dtype)], rtol=0)


# ---------------------------------------------------------------- bitwise and shifts

@pytest.mark.parametrize("dtype", [np.bool_] + INTS, ids=lambda d: np.dtype(d).name)
def test_bitwise(dtype):
    x = np.array([True, False, True, False]) if dtype == np.bool_ else _ints(dtype)
    y = np.roll(x, 1)
    ops = [lax.bitwise_and, lax.bitwise_or, lax.bitwise_xor]
    refs = [np.bitwise_and(x, y), np.bitwise_or(x, y), np.bitwise_xor(x, y)]
    outs = check_primitive(lambda a, b: [fn(a, b) for fn in ops], [x, y])
    for out, ref in zip(outs, refs):
        np.testing.assert_array_equal(np.asarray(out), ref)
    unary = [lax.bitwise_not] + ([] if dtype == np.bool_ else [lax.population_count, lax.clz])
    outs = check_primitive(lambda a: [fn(a) for fn in unary], [x])
    np.testing.assert_array_equal(np.asarray(outs[0]), ~x)
    if dtype != np.bool_:
        width = 8 * x.itemsize
        bits = [bin(int(v) % (1 << width)).count("1") for v in x]
        np.testing.assert_array_equal(np.asarray(outs[1]), bits)
        assert np.asarray(outs[1]).dtype == np.asarray(outs[2]).dtype == x.dtype
        np.testing.assert_array_equal(
            np.asarray(outs[2]), [width - (int(v) % (1 << width)).bit_length() for v in x])


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_shifts(dtype):
    info = np.iinfo(dtype)
    width = 8 * np.dtype(dtype).itemsize
    amounts = sorted({0, 1, 3, width - 1, width, width + 1, 2 * width, info.max} |
                     ({-1, -width, info.min} if info.min else set()))
    values = _ints(dtype, n=4)
    x, y = (a.ravel() for a in np.meshgrid(values, np.array(amounts).astype(dtype)))
    left, logical, arith = check_primitive(
        lambda a, b: [lax.shift_left(a, b), lax.shift_right_logical(a, b),
                      lax.shift_right_arithmetic(a, b)], [x, y])
    # oracle: Python integers on the two's complement bit patterns
    mask = (1 << width) - 1
    for xi, yi, le, lo, ar in zip(x, y, np.asarray(left), np.asarray(logical),
                                  np.asarray(arith)):
        bits, amount = int(xi) & mask, int(yi) & mask
        signed = bits - (1 << width) if bits >> (width - 1) else bits
        assert int(le) & mask == ((bits << amount) & mask if amount < width else 0)
        assert int(lo) & mask == (bits >> amount if amount < width else 0)
        assert int(ar) & mask == (signed >> min(amount, width - 1)) & mask


def test_bitwise_errors():
    with pytest.raises(TypeError, match=r"lax\.and requires"):
        lax.bitwise_and(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match=r"lax\.or requires"):
        lax.bitwise_or(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError, match=r"lax\.not requires"):
        lax.bitwise_not(np.ones(2))
    with pytest.raises(TypeError, match=r"lax\.xor.*one dtype"):
        lax.bitwise_xor(np.ones(2, np.int32), np.ones(2, np.int64))
    with pytest.raises(TypeError, match=r"lax\.shift_left.*one dtype"):
        lax.shift_left(np.ones(2, np.int32), np.ones(2, np.uint32))
    with pytest.raises(TypeError, match=r"lax\.shift_right_logical requires"):
        lax.shift_right_logical(np.array([True]), np.array([True]))
    with pytest.raises(ValueError, match="shift_right_arithmetic.*one shape"):
        lax.shift_right_arithmetic(np.ones(2, np.int8), np.ones(3, np.int8))
    with pytest.raises(TypeError, match=r"lax\.population_count requires"):
        lax.population_count(np.array([True]))
    with pytest.raises(TypeError, match=r"lax\.clz requires"):
        lax.clz(np.ones(2))


def test_zero_derivatives():
    from minijax import grad
    for fn in (lambda x: lax.round(x),
               lambda x: lax.convert_element_type(lax.population_count(
                   lax.convert_element_type(x, np.int32)), np.float64)):
        assert float(grad(fn)(1.7)) == 0.0


# ---------------------------------------------------------------- nextafter

@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_nextafter(dtype):
    v = _floats(dtype, [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0], n=0)
    x, y = (a.ravel() for a in np.meshgrid(v, v))
    keep = ~((x == 0) & (y != 0))         # a step off zero lands on a subnormal (flushed by XLA)
    out = check_primitive(lax.nextafter, [x[keep], y[keep]], rtol=0)
    xs, ys, moved = (np.asarray(a).astype(np.float64) for a in (x[keep], y[keep], out))
    nan = np.isnan(xs) | np.isnan(ys)
    assert np.isnan(moved[nan]).all()
    same = xs == ys
    np.testing.assert_array_equal(moved[same], ys[same])
    step = ~nan & ~same & np.isfinite(xs)
    assert (np.sign(moved - xs)[step] == np.sign(ys - xs)[step]).all()
    assert (np.abs(moved - xs)[step] <= np.abs(xs[step]) * 2.0 ** -7).all()   # one ulp or so
    with pytest.raises(TypeError, match=r"lax\.nextafter requires"):
        lax.nextafter(np.arange(2), np.arange(2))


# ---------------------------------------------------------------- clamp

@pytest.mark.parametrize("dtype", [np.float32, np.float64, BF16, np.int8, np.uint32, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_clamp(dtype):
    dtype = np.dtype(dtype)
    x = _floats(dtype) if dtype.kind == "f" or dtype == BF16 else _ints(dtype)
    lo, hi = np.array(1, dtype), np.array(7, dtype)
    out = check_primitive(lax.clamp, [lo, x, hi], rtol=0)
    np.testing.assert_array_equal(np.asarray(out).astype(np.float64),
                                  np.minimum(np.maximum(x, lo), hi).astype(np.float64))
    rng = np.random.default_rng(3)
    los = np.sort(rng.choice(x, (2, x.size)), axis=0)
    check_primitive(lax.clamp, [los[0], x, los[1]], rtol=0)
    check_primitive(lax.clamp, [lo, x, los[1]], rtol=0)
    check_primitive(lax.clamp, [np.array(2, dtype), np.array(5, dtype), np.array(3, dtype)], rtol=0)


def test_clamp_empty_and_batched_bounds():
    x = np.zeros((0, 3))
    check_primitive(lax.clamp, [np.array(0.0), x, np.array(1.0)])
    from minijax import vmap
    lo = np.array([0.0, 0.5, 1.0])
    out = vmap(lambda l: lax.clamp(l, np.array([-1.0, 0.7, 3.0]), np.array(2.0)))(lo)
    np.testing.assert_array_equal(np.asarray(out), [[0, 0.7, 2], [0.5, 0.7, 2], [1, 1, 2]])


def test_clamp_grads_and_errors():
    lo, hi = np.array([-0.5, 0.2, -2.0]), np.array([0.5, 1.4, -1.0])
    x = np.array([-0.9, 0.6, 1.5])
    check_grads(lax.clamp, [lo, x, hi], order=2)
    check_grads(lambda l, v, h: lax.clamp(l, v, h), [np.array(-0.3), x, np.array(1.1)], order=2)
    with pytest.raises(TypeError, match="clamp.*one dtype"):
        lax.clamp(np.float32(0), np.ones(3), np.float32(1))
    with pytest.raises(ValueError, match="clamp.*min of rank 0"):
        lax.clamp(np.zeros(2), np.ones(3), np.array(1.0))
    with pytest.raises(TypeError, match=r"lax\.clamp requires"):
        lax.clamp(np.array(False), np.array([True]), np.array(True))
    with pytest.raises(TypeError, match=r"lax\.clamp requires.*complex128"):
        lax.clamp(np.array(0j), np.array([1j]), np.array(2j))


# ---------------------------------------------------------------- bitcast_convert_type

@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.int32, np.float32),
                                     (np.float64, np.uint64), (np.float16, np.int16),
                                     (BF16, np.uint16), (np.uint16, BF16), (np.int64, np.int8),
                                     (np.float32, np.uint8), (np.float64, np.float32),
                                     (np.uint8, np.float32), (np.int16, np.float64),
                                     (np.float32, np.float64), (np.uint8, np.int8)],
                         ids=str)
def test_bitcast_convert_type(src, dst):
    src, dst = np.dtype(src), np.dtype(dst)
    rng = np.random.default_rng(0)
    shape = (3, 8 // src.itemsize) if src.itemsize < dst.itemsize else (2, 3)
    if src.itemsize < dst.itemsize:
        shape = (3, dst.itemsize // src.itemsize)
    bits = rng.integers(0, 256, (*shape, src.itemsize), dtype=np.uint8)
    x = _flush_subnormals(bits.view(src).reshape(shape)) if src.kind == "f" or src == BF16 \
        else bits.view(src).reshape(shape)
    out = check_primitive(lambda v: lax.bitcast_convert_type(v, dst), [x], rtol=0,
                          vmap_axes=[(0, 1)] if src.itemsize < dst.itemsize else None)
    out = np.asarray(out)
    assert out.dtype == dst
    np.testing.assert_array_equal(np.frombuffer(out.tobytes(), np.uint8),
                                  np.frombuffer(x.tobytes(), np.uint8))
    back = np.asarray(lax.bitcast_convert_type(out, src))
    np.testing.assert_array_equal(back.view(np.uint8), x.view(np.uint8))


def test_bitcast_convert_type_0d_and_errors():
    out = lax.bitcast_convert_type(np.float32(1.0), np.uint16)
    assert np.asarray(out).shape == (2,)
    with pytest.raises(ValueError, match="bitcast_convert_type.*last axis has size 4"):
        lax.bitcast_convert_type(np.ones(3, np.uint8), np.float32)
    with pytest.raises(ValueError, match="bitcast_convert_type"):
        lax.bitcast_convert_type(np.uint8(3), np.int16)
    with pytest.raises(TypeError, match="bitcast_convert_type.*bool"):
        lax.bitcast_convert_type(np.ones(2, np.uint8), np.bool_)
    with pytest.raises(TypeError, match="bitcast_convert_type.*complex64"):
        lax.bitcast_convert_type(np.ones(2, np.complex64), np.uint64)


def test_float_only_binary_ops_reject_complex():
    z = np.ones(2, np.complex128)
    with pytest.raises(TypeError, match=r"lax\.atan2 requires floating"):
        lax.atan2(z, z)
    with pytest.raises(TypeError, match=r"lax\.rem requires"):
        lax.rem(z, z)
    with pytest.raises(TypeError, match=r"lax\.nextafter requires floating"):
        lax.nextafter(z, z)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0)], ids=str)
def test_new_ops_on_0d_and_empty(shape):
    f = np.full(shape, 0.75)
    i = np.full(shape, -77, np.int16)
    z = np.full(shape, 0.5 - 1j)
    unary_f = [lax.round, lax.exp2, lax.acosh, lax.erf, lax.erfc, lax.erf_inv, lax.lgamma,
               lax.digamma, lax.square, lax.conj, lambda v: lax.integer_pow(v, -3)]
    unary_i = [lax.bitwise_not, lax.population_count, lax.clz, lax.square]
    check_primitive(lambda v: [fn(v) for fn in unary_f] + [lax.nextafter(v, v), lax.zeta(v + 1, v),
                                                           lax.polygamma(v * 0 + 1, v),
                                                           lax.complex(v, v),
                                                           lax.clamp(0.0, v, 0.5),
                                                           lax.bitcast_convert_type(v, np.int64)],
                    [f], rtol=1e-13)
    check_primitive(lambda v: [fn(v) for fn in unary_i] + [
        lax.bitwise_and(v, v), lax.shift_left(v, v), lax.shift_right_arithmetic(v, v),
        lax.shift_right_logical(v, v), lax.bitcast_convert_type(v, np.uint8)], [i])
    check_primitive(lambda v: [lax.real(v), lax.imag(v), lax.conj(v)], [z])


def test_abs_of_complex_grads():
    def f(x, y):
        return lax.abs(lax.mul(lax.complex(x, y), lax.complex(y, x)))
    check_grads(f, [np.array([0.3, -1.2]), np.array([0.8, 0.5])], order=2)
    from minijax import grad
    assert float(grad(lambda x: lax.abs(lax.complex(x, x)))(0.0)) == 0.0


BINARY_OPS = ["add", "sub", "mul", "div", "pow", "max", "min", "atan2", "rem", "nextafter"]
COMPLEX_BINARY_OPS = {"add", "sub", "mul", "div", "pow"}


@pytest.mark.parametrize("dtype", [np.float16, BF16] + COMPLEXES, ids=lambda d: np.dtype(d).name)
def test_binary_ops_more_dtypes(dtype):
    dtype = np.dtype(dtype)
    names = [n for n in BINARY_OPS if dtype.kind != "c" or n in COMPLEX_BINARY_OPS]
    if dtype.kind == "c":
        x, y = _complexes(dtype), _complexes(dtype, seed=1)
    else:
        v = _floats(dtype, [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 0.5], n=0)
        x, y = (a.ravel() for a in np.meshgrid(v, v))
        keep = ~((x == 0) & (y != 0) & ~np.isnan(y))   # nextafter off zero: a subnormal
        x, y = x[keep], y[keep]
    _check_against_jit(lambda a, b: [getattr(lax, n)(a, b) for n in names], [x, y],
                       RTOL[dtype] * 4, RTOL[dtype])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2",
                                  "nextafter", "eq", "lt", "bitwise_and", "bitwise_or",
                                  "bitwise_xor", "shift_left", "shift_right_logical",
                                  "shift_right_arithmetic", "complex", "zeta", "polygamma"])
def test_binary_functions_take_python_scalars(name):
    fn = getattr(lax, name)
    integer = name.startswith(("bitwise", "shift"))
    x = np.array([1, 2, 3], np.int32) if integer else np.array([1.5, 2.0, 3.0], np.float32)
    for args, as_arrays in (((x, 2), (x, np.full_like(x, 2))), ((2, x), (np.full_like(x, 2), x))):
        out, ref = fn(*args), fn(*as_arrays)
        assert out.dtype == ref.dtype
        np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))


def test_nextafter_moves_with_its_first_operand_and_spacing_is_flat():
    """nextafter(x, y) is x plus one float step: derivative 1 in x, 0 in y (central
    differences agree); spacing, nextafter(x, ±inf) - x, has derivative 0."""
    x, y = np.array([0.3, -1.7, 2.5]), np.array([1.0, -3.0, 0.0])
    grads = minijax.grad(lambda a, b: mnp.sum(mnp.nextafter(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(np.asarray(grads[0]), np.ones(3))
    np.testing.assert_array_equal(np.asarray(grads[1]), np.zeros(3))
    np.testing.assert_array_equal(np.asarray(minijax.grad(
        lambda a: mnp.sum(mnp.spacing(a)))(x)), np.zeros(3))
    check_grads(lambda a: mnp.nextafter(a, y) * a, (x,), order=1)
