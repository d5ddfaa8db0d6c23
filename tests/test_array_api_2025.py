"""What Array API 2025.12 asks beyond NumPy: the version, the inspection namespace
(devices as a tuple, truthful capabilities), ``finfo`` attributes as Python floats, and
the special values where the standard and NumPy disagree (floor division with one
infinite operand, complex ``expm1`` and ``tanh``), on every path: the eager NumPy
dispatch, the lax path it wraps, and ``jit``."""

import operator

import numpy as np
import pytest

import minijax
import minijax.numpy as xp


def test_version_and_inspection():
    assert xp.__array_api_version__ == "2025.12"
    info = xp.__array_namespace_info__()
    devices = info.devices()
    assert isinstance(devices, tuple) and devices == tuple(minijax.devices())
    assert info.default_device() in devices


def test_capabilities_tell_where_data_dependent_shapes_work():
    info = xp.__array_namespace_info__()
    seen = {}

    def probe(label):
        def f(x):
            caps = info.capabilities()
            seen[label] = (caps["boolean indexing"], caps["data-dependent shapes"])
            if caps["data-dependent shapes"]:
                # what the capability promises: these run here
                return xp.sum(x[x > 1.0]) + xp.sum(xp.unique_values(x)) + xp.sum(x * 0)
            return xp.sum(x)
        return f
    x = xp.asarray([0.5, 2.0, 3.0])
    probe("eager")(x)
    minijax.grad(probe("grad"))(x)
    minijax.jvp(probe("jvp"), (x,), (x,))
    minijax.jit(probe("jit"))(x)
    minijax.vmap(probe("vmap"))(xp.stack([x, x]))
    minijax.jit(minijax.grad(probe("jit of grad")))(x)
    assert seen == {"eager": (True, True), "grad": (True, True), "jvp": (True, True),
                    "jit": (False, False), "vmap": (False, False),
                    "jit of grad": (False, False)}
    # and where it says False, the operations do raise
    with pytest.raises(minijax.errors.NonConcreteBooleanIndexError):
        minijax.jit(lambda v: v[v > 1.0])(x)
    assert info.capabilities()["max dimensions"] == 64
    assert xp.ones((1,) * 64).ndim == 64


@pytest.mark.parametrize("dtype", [xp.float16, xp.float32, xp.float64, xp.complex64,
                                   xp.complex128, xp.bfloat16])
def test_finfo_attributes_are_python_floats(dtype):
    fi = xp.finfo(dtype)
    for name in ("eps", "max", "min", "smallest_normal", "tiny", "resolution"):
        assert type(getattr(fi, name)) is float, name
    assert type(fi.bits) is int
    ref = np.finfo(np.dtype(dtype)) if dtype is not xp.bfloat16 else None
    if ref is not None:
        assert fi.eps == float(ref.eps) and fi.max == float(ref.max)
        assert fi.min == float(ref.min) and fi.smallest_normal == float(ref.smallest_normal)
        assert fi.dtype == ref.dtype and fi.precision == ref.precision   # NumPy's others
        assert fi.machep == ref.machep and fi == ref
    assert xp.finfo(xp.ones(2, xp.float32)).eps == float(np.finfo(np.float32).eps)


# ---------------------------------------------------------------- floor division

INF = np.inf
STANDARD_QUOTIENTS = [   # (x1, x2, floor(x1 / x2)) where NumPy answers NaN or -1.0
    (INF, 1.0, INF), (INF, -2.5, -INF), (-INF, 3.0, -INF), (-INF, -1.0, INF),
    (INF, 1e300, INF), (1.0, -INF, -0.0), (-1.0, INF, -0.0), (2.5, -INF, -0.0),
    (1.0, INF, 0.0), (-1.0, -INF, 0.0),
]


def _floor_paths():
    def inplace(a, b):
        out = xp.asarray(np.array(a, dtype=np.float64))
        out //= b
        return out
    return {
        "floor_divide": xp.floor_divide,
        "lax path": xp.floor_divide.__wrapped_lax__,
        "jit": minijax.jit(xp.floor_divide),
        "operator": lambda a, b: operator.floordiv(xp.asarray(a), xp.asarray(b)),
        "reflected": lambda a, b: a.tolist() // xp.asarray(b) if np.ndim(a) else
        float(a) // xp.asarray(b),
        "in place": inplace,
        "jit operator": minijax.jit(lambda a, b: a // b),
    }


@pytest.mark.parametrize("path", list(_floor_paths()))
def test_floor_division_follows_the_standard_for_infinite_operands(path):
    fn = _floor_paths()[path]
    x1 = np.array([q[0] for q in STANDARD_QUOTIENTS])
    x2 = np.array([q[1] for q in STANDARD_QUOTIENTS])
    want = np.array([q[2] for q in STANDARD_QUOTIENTS])
    got = np.asarray(fn(x1, x2))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    for a, b, q in STANDARD_QUOTIENTS:   # scalar operands too
        r = np.asarray(fn(np.float64(a), np.float64(b)))
        assert r == q and np.signbit(r) == np.signbit(q), (a, b, r)


@pytest.mark.parametrize("path", list(_floor_paths()))
def test_floor_division_agrees_with_numpy_elsewhere(path):
    fn = _floor_paths()[path]
    values = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -7.5, 3.0, 1e-300, INF, -INF, np.nan])
    a, b = (v.ravel() for v in np.meshgrid(values, values))
    with np.errstate(all="ignore"):
        want = np.floor_divide(a, b)
    got = np.asarray(fn(a, b))
    special = ((np.isinf(a) & np.isfinite(b) & (b != 0)) | (np.isfinite(a) & np.isinf(b)))
    np.testing.assert_array_equal(got[~special], want[~special])
    np.testing.assert_array_equal(np.signbit(got[~special]), np.signbit(want[~special]))
    ints = np.arange(-6, 7)
    np.testing.assert_array_equal(np.asarray(fn(ints, np.full_like(ints, -4))), ints // -4)


def test_float32_floor_division_and_divmod_keeps_numpy():
    f32 = np.array([INF, 1.0], np.float32)
    d = np.array([2.0, -INF], np.float32)
    out = xp.floor_divide(f32, d)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.array([INF, -0.0], np.float32))
    # divmod is NumPy-only: its quotient stays NumPy's
    with np.errstate(all="ignore"):
        want = np.divmod(f32, d)
    for got in (xp.divmod(f32, d), minijax.jit(xp.divmod)(f32, d)):
        np.testing.assert_array_equal(np.asarray(got[0]), want[0])


# ---------------------------------------------------------------- complex expm1, tanh

def _same(a, b, rtol=1e-15):
    a, b = np.asarray(a), np.asarray(b)
    for x, y in ((a.real, b.real), (a.imag, b.imag)):
        np.testing.assert_array_equal(np.isnan(x), np.isnan(y))
        both = ~np.isnan(x)
        np.testing.assert_allclose(x[both], y[both], rtol=rtol, atol=0)
        np.testing.assert_array_equal(np.signbit(x[both]), np.signbit(y[both]))


EXPM1 = [   # (z, expm1(z)) from the standard's special cases
    (complex(0.0, 0.0), complex(0.0, 0.0)), (complex(-0.0, 0.0), complex(0.0, 0.0)),
    (complex(INF, 0.0), complex(INF, 0.0)), (complex(-INF, 0.0), complex(-1.0, 0.0)),
    (complex(np.nan, 0.0), complex(np.nan, 0.0)), (complex(INF, np.nan), complex(INF, np.nan)),
    (complex(INF, INF), complex(INF, np.nan)), (complex(-INF, INF), complex(-1.0, 0.0)),
    (complex(-INF, np.nan), complex(-1.0, 0.0)), (complex(1.0, -0.0), complex(np.expm1(1.0), -0.0)),
]
TANH = [
    (complex(INF, 2.5), complex(1.0, 0.0)), (complex(INF, -2.5), complex(1.0, -0.0)),
    (complex(-INF, 1.0), complex(-1.0, 0.0)), (complex(INF, 1e154), complex(1.0, 0.0)),
    (complex(0.0, 0.0), complex(0.0, 0.0)), (complex(0.0, -0.0), complex(0.0, -0.0)),
    (complex(0.0, INF), complex(0.0, np.nan)), (complex(0.0, np.nan), complex(0.0, np.nan)),
    (complex(2.0, 0.0), complex(np.tanh(2.0), 0.0)),
]


@pytest.mark.parametrize("name,cases", [("expm1", EXPM1), ("tanh", TANH)])
def test_complex_special_values(name, cases):
    z = np.array([c[0] for c in cases])
    want = np.array([c[1] for c in cases])
    fn = getattr(xp, name)
    for got in (fn(z), fn.__wrapped_lax__(z), minijax.jit(fn)(z)):
        assert got.dtype == np.complex128
        _same(got, want)
    for zi, wi in cases:   # a 0-d operand gives a 0-d result
        _same(fn(np.complex128(zi)), np.complex128(wi))
    small = np.abs(z.imag) < 1e30   # (1e154 is infinite in complex64)
    z64 = z[small].astype(np.complex64)
    assert fn(z64).dtype == np.complex64
    _same(fn(z64), want[small].astype(np.complex64), rtol=1e-6)


@pytest.mark.parametrize("name", ["expm1", "tanh"])
def test_finite_complex_values_still_match_numpy(name):
    rng = np.random.default_rng(0)
    z = rng.standard_normal(50) * 3 + 1j * rng.standard_normal(50) * 3
    fn = getattr(xp, name)
    want = getattr(np, name)(z)
    np.testing.assert_array_equal(np.asarray(fn(z)), want)
    np.testing.assert_allclose(np.asarray(minijax.jit(fn)(z)), want, rtol=1e-14)
    real = rng.standard_normal(10)
    np.testing.assert_array_equal(np.asarray(fn(real)), getattr(np, name)(real))
