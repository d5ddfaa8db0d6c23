"""Complex inputs: every elementwise function and reduction NumPy defines on complex
arrays agrees with NumPy (values, dtype, shape; eager and under ``jit``), and the
derivatives of the differentiable ones hold along complex directions, in forward and
reverse mode.

The elementwise list is NumPy's own: every ufunc with a complex loop (the contractions
``matmul``/``vecdot``/``matvec``/``vecmat`` excepted, they are linear algebra).
"""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax.test_util import assert_same, check_grads

COMPLEX = [onp.complex64, onp.complex128]
CONTRACTIONS = {"matmul", "vecdot", "matvec", "vecmat"}
UFUNCS = sorted(n for n in dir(onp) if isinstance(getattr(onp, n), onp.ufunc)
                and n not in CONTRACTIONS
                and any("D" in t.split("->")[0] for t in getattr(onp, n).types))
UNARY = [n for n in UFUNCS if getattr(onp, n).nin == 1]
BINARY = [n for n in UFUNCS if getattr(onp, n).nin == 2]
# Elementwise functions on complex input that are not ufuncs in NumPy.
OTHER_UNARY = ["real", "imag", "angle", "isreal", "iscomplex", "round", "around",
               "nan_to_num", "sinc"]
# Differentiable almost everywhere at the sample points (the rest are piecewise
# constant: comparisons, predicates, sign, rint, round).
NOT_DIFFERENTIABLE = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
                      "isfinite", "isinf", "isnan", "logical_and", "logical_not", "logical_or",
                      "logical_xor", "sign", "rint", "isreal", "iscomplex", "round", "around",
                      "fmax", "fmin", "maximum", "minimum"}

REDUCTIONS = ["sum", "prod", "mean", "var", "std", "nansum", "nanprod", "nanmean", "nanvar",
              "nanstd", "cumsum", "cumprod", "nancumsum", "nancumprod", "all", "any",
              "count_nonzero", "average", "max", "min", "nanmax", "nanmin", "ptp", "argmax",
              "argmin", "nanargmax", "nanargmin", "median", "nanmedian"]
NOT_DIFFERENTIABLE_REDUCTIONS = {"all", "any", "count_nonzero", "argmax", "argmin",
                                 "nanargmax", "nanargmin", "max", "min", "nanmax", "nanmin",
                                 "ptp", "median", "nanmedian"}
# Reductions with no ``axis`` tuple or ``keepdims`` in NumPy.
ONE_AXIS = {"cumsum", "cumprod", "nancumsum", "nancumprod", "argmax", "argmin", "nanargmax",
            "nanargmin"}


def sample(dtype, shape=(2, 3), seed=0):
    """Complex values away from branch cuts and poles, with ties in the real parts
    (so the lexicographic order looks at imaginary parts too)."""
    rng = onp.random.default_rng(seed)
    re = rng.choice([0.25, 0.5, 0.75], shape)
    im = rng.uniform(-0.6, 0.6, shape)
    return (re + 1j * im).astype(dtype)


def tol(dtype):
    return 2e-5 if onp.dtype(dtype) == onp.complex64 else 1e-12


def _agree(name, call, args, dtype):
    """``call(module, *args)`` with minijax.numpy (eager and jit) and with NumPy."""
    _agree_each(name, [(call, args)], dtype)


def _agree_each(name, cases, dtype):
    """``_agree`` for each ``(call, args)`` of ``cases``; their jit values come from one
    jit-compiled program (it compiles faster than a program per case)."""
    rtol = tol(dtype) * (10 if name in ("power", "float_power", "pow") else 1)
    expected = []
    for i, (call, args) in enumerate(cases):
        with onp.errstate(all="ignore"):
            expected.append(call(onp, *args))
        assert_same(call(np, *args), expected[i], rtol=rtol, atol=rtol,
                    err_msg=f"{name} eager, case {i}")

    def every_case(*flat):
        outs, start = [], 0
        for call, args in cases:
            outs.append(call(np, *flat[start:start + len(args)]))
            start += len(args)
        return outs
    jitted = minijax.jit(every_case)(*[a for _, args in cases for a in args])
    for i, (got, want) in enumerate(zip(jitted, expected)):
        assert_same(got, want, rtol=rtol, atol=rtol, err_msg=f"{name} jit, case {i}")


def _named(name):
    return lambda mod, *args: getattr(mod, name)(*args)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", UNARY + OTHER_UNARY)
def test_unary(name, dtype):
    _agree(name, _named(name), [sample(dtype)], dtype)


def test_unary_special_values():
    z = onp.array([1 + 1j, complex(onp.inf, 0), complex(0, -onp.inf), complex(onp.nan, 1),
                   complex(-onp.inf, onp.nan), 0j])
    for dtype in COMPLEX:
        for name in ("isinf", "isfinite", "isnan", "nan_to_num"):
            _agree(name, _named(name), [z.astype(dtype)], dtype)
        for name in ("isposinf", "isneginf"):
            with pytest.raises(TypeError, match="complex"):
                getattr(np, name)(z.astype(dtype))
    assert_same(np.nan_to_num(z, nan=7.0, posinf=5.0, neginf=-5.0),
                onp.nan_to_num(z, nan=7.0, posinf=5.0, neginf=-5.0))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, dtype):
    a, b = sample(dtype), sample(dtype, (3,), seed=1)
    _agree_each(name, [
        (_named(name), [a, b]),
        # mixed with a real operand, and with a Python complex (weak) on either side
        (_named(name), [a, onp.linspace(0.5, 1.5, 3).astype(onp.float32)]),
        (lambda mod, x: getattr(mod, name)(x, 0.5 - 0.25j), [a]),
        (lambda mod, x: getattr(mod, name)(0.5 - 0.25j, x), [a])], dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name, dtype):
    a = sample(dtype, (3, 4))
    axes = [None, 0, 1, -1] + ([] if name in ONE_AXIS else [(0, 1)])
    kws = [{}] if name in ONE_AXIS else [{}, {"keepdims": True}]
    _agree_each(name, [(lambda mod, x, axis=axis, kw=kw: getattr(mod, name)(x, axis=axis, **kw),
                        [a]) for axis in axes for kw in kws], dtype)


def test_nan_statistics_are_real():
    a = onp.array([1 + 1j, 2 - 1j, 3 + 0j, complex(onp.nan, 0)])
    assert_same(np.nanstd(a), onp.nanstd(a), rtol=1e-15)
    assert_same(np.nanvar(a), onp.nanvar(a), rtol=1e-15)
    onp.testing.assert_allclose([float(np.nanstd(a)), float(np.nanvar(a))], [1.1547, 1.3333],
                                rtol=1e-4)
    b = sample(onp.complex64, (3, 4))
    b[1, 2] = onp.nan
    c = onp.array([[1 + 1j, 2 - 1j, complex(onp.nan, 0), 0.5j], [3 + 0j, 1 - 1j, 2 + 2j, 1 + 0j]])
    for fn in ("median", "nanmedian", "nancumsum", "nancumprod", "nanmax", "nanargmin"):
        for axis in (None, 1):
            assert_same(getattr(np, fn)(c, axis=axis), getattr(onp, fn)(c, axis=axis),
                        rtol=1e-15, err_msg=fn)
    for fn in ("nanstd", "nanvar", "std", "var"):
        assert_same(getattr(np, fn)(b, axis=1, ddof=1), getattr(onp, fn)(b, axis=1, ddof=1),
                    rtol=1e-5)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_vdot_and_friends(dtype):
    a, b = sample(dtype, (2, 3)), sample(dtype, (2, 3), seed=1)
    for name, args in [("vdot", (a, b)), ("vdot", (a, b.real)), ("dot", (a, b.T)),
                       ("inner", (a, b)), ("outer", (a, b)), ("vecdot", (a, b)),
                       ("matmul", (a, b.T)), ("tensordot", (a, b))]:
        _agree(name, _named(name), list(args), dtype)


DIFFERENTIABLE_UNARY = [n for n in UNARY + OTHER_UNARY if n not in NOT_DIFFERENTIABLE
                        and n != "nan_to_num"]
DIFFERENTIABLE_BINARY = [n for n in BINARY if n not in NOT_DIFFERENTIABLE]
DIFFERENTIABLE_REDUCTIONS = [n for n in REDUCTIONS if n not in NOT_DIFFERENTIABLE_REDUCTIONS]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", DIFFERENTIABLE_UNARY)
def test_unary_derivatives(name, dtype):
    check_grads(getattr(np, name), [sample(dtype)], order=1)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", DIFFERENTIABLE_BINARY)
def test_binary_derivatives(name, dtype):
    check_grads(getattr(np, name), [sample(dtype), sample(dtype, seed=1)], order=1)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", DIFFERENTIABLE_REDUCTIONS)
def test_reduction_derivatives(name, dtype):
    check_grads(lambda x: getattr(np, name)(x, axis=1), [sample(dtype, (3, 4))], order=1)


def test_second_derivatives_along_complex_directions():
    z = sample(onp.complex128)
    for f in (np.sin, np.exp, np.log, np.sqrt, lambda x: x ** 3, np.tanh, np.abs):
        check_grads(f, [z], order=2)
    check_grads(lambda a, b: np.vdot(a, b), [z, sample(onp.complex128, seed=1)], order=2)


def test_complex_log2_log10_of_zero_under_jit():
    # log(0) = -inf + 0j scaled by a real constant keeps the 0j (a complex division
    # would give -inf + nan*j)
    z = onp.asarray([0j, 1 + 1j, -2 + 0j, onp.inf + 0j])
    for name in ("log2", "log10"):
        with onp.errstate(divide="ignore"):
            want = getattr(onp, name)(z)
        got = onp.asarray(minijax.jit(getattr(np, name))(z))
        onp.testing.assert_allclose(got, want, rtol=1e-15)
