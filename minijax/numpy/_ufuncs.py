"""More elementwise functions (NumPy ufuncs and the Array API's names), built on lax."""

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from ..custom_derivatives import custom_jvp
from ._core import promote_and_broadcast, result_type_of, to_array
from ._elementwise import (_unary, equal, isfinite, isinf, isnan, logical_and, logical_not,
                           logical_or, maximum, minimum)


def _float_dtype(dtype):
    # NumPy's choice for float functions of integers: the smallest float holding them
    if dtypes.is_inexact(dtype):
        return dtype
    return dtypes.canonicalize(np.promote_types(dtype, np.float16))


def _full(x, value):
    aval = get_aval(x)
    return lax.full(aval.shape, value, aval.dtype)


def _bcast(x, shape):
    return x if get_aval(x).shape == shape else lax.broadcast_to_shape(x, shape)


def _float_binary_operands(x1, x2):
    a, b = promote_and_broadcast(x1, x2)
    aval = get_aval(a)
    target = _float_dtype(aval.dtype)
    if target != aval.dtype:
        a = lax.convert_element_type(a, target, aval.weak_type)
        b = lax.convert_element_type(b, target, aval.weak_type)
    return a, b


def _float_binary(name, body):
    def fn(x1, x2, /):
        a, b = _float_binary_operands(x1, x2)
        return body(a, b)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} with broadcasting, as numpy.{name}."
    return fn


# ---------------------------------------------------------------- unary float functions

log1p = _unary("log1p", lax.log1p)
expm1 = _unary("expm1", lax.expm1)
tan = _unary("tan", lax.tan)
sinh = _unary("sinh", lax.sinh)
cosh = _unary("cosh", lax.cosh)
arcsin = asin = _unary("arcsin", lax.asin)
arccos = acos = _unary("arccos", lax.acos)
arctan = atan = _unary("arctan", lax.atan)
arcsinh = asinh = _unary("arcsinh", lax.asinh)
arctanh = atanh = _unary("arctanh", lax.atanh)
cbrt = _unary("cbrt", lax.cbrt)


def _acosh(x):
    if hasattr(lax, "acosh"):
        return lax.acosh(x)
    # log(x + sqrt(x - 1) * sqrt(x + 1)): accurate near 1 and without overflow of x*x
    one = _full(x, 1)
    return lax.log(lax.add(x, lax.mul(lax.sqrt(lax.sub(x, one)), lax.sqrt(lax.add(x, one)))))


arccosh = acosh = _unary("arccosh", _acosh)


def _log_base(base):
    def body(x):
        return lax.div(lax.log(x), _full(x, np.log(base)))
    return body


log2 = _unary("log2", lax.log2 if hasattr(lax, "log2") else _log_base(2.0))
log10 = _unary("log10", lax.log10 if hasattr(lax, "log10") else _log_base(10.0))


def _exp2(x):
    if hasattr(lax, "exp2"):
        return lax.exp2(x)
    return lax.exp(lax.mul(x, _full(x, np.log(2.0))))


exp2 = _unary("exp2", _exp2)
deg2rad = radians = _unary("deg2rad", lambda x: lax.mul(x, _full(x, np.pi / 180)))
rad2deg = degrees = _unary("rad2deg", lambda x: lax.mul(x, _full(x, 180 / np.pi)))


def sinc(x, /):
    """Normalised sinc, ``sin(pi x) / (pi x)`` (1 at 0)."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_inexact(aval.dtype):
        x = lax.convert_element_type(x, dtypes.default_float())
    zero = lax.eq(x, _full(x, 0))
    safe = lax.select_n(zero, x, _full(x, 1))
    px = lax.mul(safe, _full(safe, np.pi))
    return lax.select_n(zero, lax.div(lax.sin(px), px), _full(x, 1))


# ---------------------------------------------------------------- binary float functions

def _atan2(a, b):
    return lax.atan2(a, b)


arctan2 = atan2 = _float_binary("arctan2", _atan2)


@custom_jvp
def _hypot(a, b):
    a, b = lax.abs(a), lax.abs(b)
    big, small = lax.max(a, b), lax.min(a, b)
    zero = lax.eq(big, _full(big, 0))
    safe = lax.select_n(zero, big, _full(big, 1))
    ratio = lax.div(small, safe)
    out = lax.mul(big, lax.sqrt(lax.add(_full(ratio, 1), lax.mul(ratio, ratio))))
    out = lax.select_n(zero, out, _full(out, 0))
    # inf wins over NaN, as in C hypot
    either_inf = lax.max(lax.eq(a, _full(a, np.inf)), lax.eq(b, _full(b, np.inf)))
    return lax.select_n(either_inf, out, _full(out, np.inf))


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    # d hypot = (a da + b db) / hypot: smooth where |a| == |b| (the max/min form of the
    # value has a kink there that would lose the curvature); 0 at the origin.
    a, b = primals
    ta, tb = tangents
    out = _hypot(a, b)
    safe = lax.select_n(lax.eq(out, _full(out, 0)), out, _full(out, 1))
    return out, lax.div(lax.add(lax.mul(a, ta), lax.mul(b, tb)), safe)


hypot = _float_binary("hypot", _hypot)


def _logaddexp_with(log1p_exp, a, b):
    big = lax.max(a, b)
    delta = lax.sub(a, b)
    is_nan = lax.ne(delta, delta)
    safe = lax.select_n(is_nan, delta, _full(delta, 0))
    out = lax.add(big, log1p_exp(lax.neg(lax.abs(safe))))
    # inf - inf (equal infinities) gives NaN delta: the answer is a + b (inf or -inf, or NaN)
    return lax.select_n(is_nan, out, lax.add(a, b))


@custom_jvp
def _logaddexp(a, b):
    return _logaddexp_with(lambda d: lax.log1p(lax.exp(d)), a, b)


@custom_jvp
def _logaddexp2(a, b):
    ln2 = np.log(2.0)
    return _logaddexp_with(
        lambda d: lax.div(lax.log1p(_exp2(d)), _full(d, ln2)), a, b)


def _logaddexp_jvp_with(fun, weight):
    # d out = weight(a - out) da + weight(b - out) db, the softmax weights: smooth where
    # a == b (the max-based form of the value has a kink there). An operand equal to an
    # infinite result (inf - inf) gets weight 1/2, the limit along a == b.
    def jvp(primals, tangents):
        a, b = primals
        ta, tb = tangents
        out = fun(a, b)
        infinite_out = lax.bitwise_not(lax.is_finite(out))

        def w(x):
            tie = lax.bitwise_and(lax.eq(x, out), infinite_out)
            zero = _full(out, 0)
            diff = lax.sub(lax.select_n(tie, x, zero), lax.select_n(tie, out, zero))
            return lax.select_n(tie, weight(diff), _full(out, 0.5))
        return out, lax.add(lax.mul(ta, w(a)), lax.mul(tb, w(b)))
    return jvp


_logaddexp.defjvp(_logaddexp_jvp_with(_logaddexp, lax.exp))
_logaddexp2.defjvp(_logaddexp_jvp_with(_logaddexp2, lambda d: _exp2(d)))


logaddexp = _float_binary("logaddexp", _logaddexp)
logaddexp2 = _float_binary("logaddexp2", _logaddexp2)


_SAME_WIDTH_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _signbit_float(x):
    dt = get_aval(x).dtype
    if hasattr(lax, "bitcast_convert_type") and dt.itemsize in _SAME_WIDTH_INT:
        bits = lax.bitcast_convert_type(x, _SAME_WIDTH_INT[dt.itemsize])
        return lax.lt(bits, _full(bits, 0))   # the sign bit, NaNs included
    # x < 0, or x is -0.0 (1 / -0.0 == -inf). The sign of a NaN is not visible here.
    neg = lax.lt(x, _full(x, 0))
    zero = lax.eq(x, _full(x, 0))
    safe = lax.select_n(zero, _full(x, 1), x)
    neg_zero = lax.min(zero, lax.lt(lax.div(_full(x, 1), safe), _full(x, 0)))
    return lax.max(neg, neg_zero)


def signbit(x, /):
    """Whether the sign bit is set (elementwise, NaNs included)."""
    x = to_array(x)
    aval = get_aval(x)
    if aval.dtype == np.bool_ or aval.dtype.kind == "u":
        return lax.full(aval.shape, False, np.bool_)
    if aval.dtype.kind == "i":
        return lax.lt(x, _full(x, 0))
    if dtypes.is_complex(aval.dtype):
        raise TypeError("signbit is not defined for complex arrays")
    return _signbit_float(x)


def _copysign(a, b):
    mag = lax.abs(a)
    return lax.select_n(_signbit_float(b), mag, lax.neg(mag))


copysign = _float_binary("copysign", _copysign)


def _heaviside(a, b):
    zero, one = _full(a, 0), _full(a, 1)
    out = lax.select_n(lax.lt(a, zero), lax.select_n(lax.gt(a, zero), b, one), zero)
    return lax.select_n(lax.ne(a, a), out, a)   # NaN stays NaN


heaviside = _float_binary("heaviside", _heaviside)


def _nan_ignoring(lax_fn):
    def body(a, b):
        out = lax_fn(a, b)
        if dtypes.is_inexact(get_aval(a).dtype):
            out = lax.select_n(lax.ne(b, b), out, a)
            out = lax.select_n(lax.ne(a, a), out, b)
        return out
    return body


def fmax(x1, x2, /):
    """Elementwise maximum that ignores NaNs (NaN only when both are NaN)."""
    a, b = promote_and_broadcast(x1, x2)
    return _nan_ignoring(lax.max)(a, b)


def fmin(x1, x2, /):
    """Elementwise minimum that ignores NaNs (NaN only when both are NaN)."""
    a, b = promote_and_broadcast(x1, x2)
    return _nan_ignoring(lax.min)(a, b)


def float_power(x1, x2, /):
    """``x1 ** x2`` computed in float64 (complex128 for complex inputs)."""
    dtype, _ = result_type_of(x1, x2)
    target = np.complex128 if dtypes.is_complex(dtype) else np.float64
    a, b = promote_and_broadcast(x1, x2, dtype=dtypes.canonicalize(target))
    return lax.pow(a, b)


# ---------------------------------------------------------------- division family

def _div_operands(x1, x2, name):
    a, b = promote_and_broadcast(x1, x2)
    aval = get_aval(a)
    if aval.dtype == np.bool_:
        a = lax.convert_element_type(a, np.int8, aval.weak_type)
        b = lax.convert_element_type(b, np.int8, aval.weak_type)
    elif dtypes.is_complex(aval.dtype):
        raise TypeError(f"numpy.{name} is not defined for complex arguments")
    return a, b


def _int_divmod(a, b):
    zero = _full(b, 0)
    b_zero = lax.eq(b, zero)
    safe = lax.select_n(b_zero, b, _full(b, 1))
    q = lax.div(a, safe)
    r = lax.rem(a, safe)
    if get_aval(a).dtype.kind == "i":
        adjust = lax.min(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(safe, zero)))
        q = lax.select_n(adjust, q, lax.sub(q, _full(q, 1)))
        r = lax.select_n(adjust, r, lax.add(r, safe))
    return lax.select_n(b_zero, q, zero), lax.select_n(b_zero, r, zero)


def _float_divmod(a, b):
    # NumPy's npy_divmod, elementwise
    zero, one = _full(a, 0), _full(a, 1)
    mod = lax.rem(a, b)
    div = lax.div(lax.sub(a, mod), b)
    fix = lax.min(lax.ne(mod, zero), lax.ne(lax.lt(b, zero), lax.lt(mod, zero)))
    mod = lax.select_n(fix, mod, lax.add(mod, b))
    div = lax.select_n(fix, div, lax.sub(div, one))
    mod_zero = lax.eq(mod, zero)
    mod = lax.select_n(mod_zero, mod, _copysign(zero, b))
    floordiv = lax.floor(div)
    floordiv = lax.select_n(lax.gt(lax.sub(div, floordiv), _full(a, 0.5)), floordiv,
                            lax.add(floordiv, one))
    b_zero = lax.eq(b, zero)
    quotient = lax.div(a, b)
    floordiv = lax.select_n(lax.eq(div, zero), floordiv, _copysign(zero, quotient))
    floordiv = lax.select_n(b_zero, floordiv, quotient)
    return floordiv, mod


def _divmod(a, b):
    if dtypes.is_inexact(get_aval(a).dtype):
        return _float_divmod(a, b)
    return _int_divmod(a, b)


def floor_divide(x1, x2, /):
    """``x1 // x2``: the floor of the quotient (integer division by zero gives 0)."""
    return _divmod(*_div_operands(x1, x2, "floor_divide"))[0]


def remainder(x1, x2, /):
    """``x1 % x2`` with the sign of the divisor (integer remainder by zero gives 0)."""
    return _divmod(*_div_operands(x1, x2, "remainder"))[1]


mod = remainder


def divmod(x1, x2, /):
    """``(x1 // x2, x1 % x2)``, as numpy.divmod."""
    return _divmod(*_div_operands(x1, x2, "divmod"))


def fmod(x1, x2, /):
    """Remainder with the sign of the dividend (C fmod; integer fmod by zero gives 0)."""
    a, b = _div_operands(x1, x2, "fmod")
    if dtypes.is_inexact(get_aval(a).dtype):
        return lax.rem(a, b)
    zero = _full(b, 0)
    b_zero = lax.eq(b, zero)
    return lax.select_n(b_zero, lax.rem(a, lax.select_n(b_zero, b, _full(b, 1))), zero)


def trunc(x, /):
    """Round toward zero (integers are returned unchanged)."""
    x = to_array(x)
    if not dtypes.is_inexact(get_aval(x).dtype):
        return x
    if dtypes.is_complex(get_aval(x).dtype):
        raise TypeError("trunc is not defined for complex arrays")
    return lax.select_n(lax.lt(x, _full(x, 0)), lax.floor(x), lax.ceil(x))


fix = trunc


# ---------------------------------------------------------------- tests and cleaning

def isneginf(x, /):
    """Elementwise test for negative infinity."""
    x = to_array(x)
    return logical_and(isinf(x), signbit(x))


def isposinf(x, /):
    """Elementwise test for positive infinity."""
    x = to_array(x)
    return logical_and(isinf(x), logical_not(signbit(x)))


def _imag(x):
    if hasattr(lax, "imag"):
        return lax.imag(x)
    raise NotImplementedError("this function of complex arrays needs lax.imag")


def isreal(x, /):
    """Whether each element has a zero imaginary part."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_complex(aval.dtype):
        return lax.full(aval.shape, True, np.bool_)
    im = _imag(x)
    return lax.eq(im, _full(im, 0))


def iscomplex(x, /):
    """Whether each element has a nonzero imaginary part."""
    return logical_not(isreal(x))


def isrealobj(x):
    """Whether ``x`` has a non-complex dtype."""
    return not dtypes.is_complex(get_aval(to_array(x)).dtype)


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype."""
    return dtypes.is_complex(get_aval(to_array(x)).dtype)


def conjugate(x, /):
    """Complex conjugate (the identity for real arrays)."""
    x = to_array(x)
    if get_aval(x).dtype == np.bool_:   # NumPy's conjugate has no bool loop: int8
        return lax.convert_element_type(x, np.int8)
    if not dtypes.is_complex(get_aval(x).dtype):
        return x
    if hasattr(lax, "conj"):
        return lax.conj(x)
    raise NotImplementedError("conjugate of complex arrays needs lax.conj")


conj = conjugate


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and infinities by ``posinf``/``neginf`` (the dtype's extremes
    by default)."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_inexact(aval.dtype):
        return x
    if dtypes.is_complex(aval.dtype):
        raise NotImplementedError("nan_to_num of complex arrays needs lax.real/imag")
    info = np.finfo(aval.dtype) if aval.dtype != dtypes.bfloat16 else __import__(
        "ml_dtypes").finfo(aval.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = lax.select_n(lax.ne(x, x), x, _full(x, nan))
    out = lax.select_n(lax.eq(out, _full(x, np.inf)), out, _full(x, posinf))
    return lax.select_n(lax.eq(out, _full(x, -np.inf)), out, _full(x, neginf))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (equal infinities are close)."""
    x, y = promote_and_broadcast(a, b)
    aval = get_aval(x)
    if not dtypes.is_inexact(aval.dtype):
        x = lax.convert_element_type(x, dtypes.default_float())
        y = lax.convert_element_type(y, dtypes.default_float())
    dt = get_aval(x).dtype
    rdt = dtypes.real_dtype(dt) if dtypes.is_complex(dt) else dt
    diff = lax.abs(lax.sub(x, y))
    tol = lax.add(lax.full(get_aval(diff).shape, atol, rdt),
                  lax.mul(lax.full(get_aval(diff).shape, rtol, rdt), lax.abs(y)))
    close = logical_and(lax.le(diff, tol), isfinite(y))
    close = logical_or(close, lax.eq(x, y))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(x), isnan(y)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element pair is ``isclose`` (a 0-d bool array)."""
    return lax.reduce_min(isclose(a, b, rtol, atol, equal_nan), None)


def array_equal(a1, a2, equal_nan=False):
    """Whether the arrays have one shape and equal elements (a 0-d bool array)."""
    a1, a2 = to_array(a1), to_array(a2)
    if get_aval(a1).shape != get_aval(a2).shape:
        return lax.full((), False, np.bool_)
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return lax.reduce_min(eq, None)


def array_equiv(a1, a2):
    """Whether the arrays broadcast to one shape with equal elements (a 0-d bool array)."""
    a1, a2 = to_array(a1), to_array(a2)
    try:
        np.broadcast_shapes(get_aval(a1).shape, get_aval(a2).shape)
    except ValueError:
        return lax.full((), False, np.bool_)
    return lax.reduce_min(equal(a1, a2), None)


# ---------------------------------------------------------------- bitwise, rounding, complex
# parts (on the lax primitives of elementwise part B)

def _integer_operands(name, *args):
    arrs = promote_and_broadcast(*args) if len(args) > 1 else [to_array(args[0])]
    dt = get_aval(arrs[0]).dtype
    if not (dt == np.bool_ or dtypes.is_integer(dt)):
        raise TypeError(f"numpy.{name} is only defined for integer and boolean arrays, got "
                        f"{dt}")
    return arrs


def _bitwise(name, lax_name):
    def fn(x1, x2, /):
        a, b = _integer_operands(name, x1, x2)
        return getattr(lax, lax_name)(a, b)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} of integers or booleans, as numpy.{name}."
    return fn


bitwise_and = _bitwise("bitwise_and", "bitwise_and")
bitwise_or = _bitwise("bitwise_or", "bitwise_or")
bitwise_xor = _bitwise("bitwise_xor", "bitwise_xor")


def invert(x, /):
    """Elementwise bitwise NOT (logical NOT for booleans)."""
    (a,) = _integer_operands("invert", x)
    return lax.bitwise_not(a)


bitwise_not = bitwise_invert = invert


def _shift_operands(name, x1, x2):
    a, b = _integer_operands(name, x1, x2)
    if get_aval(a).dtype == np.bool_:
        a = lax.convert_element_type(a, np.int8, get_aval(a).weak_type)
        b = lax.convert_element_type(b, np.int8, get_aval(b).weak_type)
    return a, b


def left_shift(x1, x2, /):
    """``x1 << x2`` elementwise (0 when shifting by the bit width or more)."""
    a, b = _shift_operands("left_shift", x1, x2)
    return lax.shift_left(a, b)


def right_shift(x1, x2, /):
    """``x1 >> x2`` elementwise (arithmetic for signed integers)."""
    a, b = _shift_operands("right_shift", x1, x2)
    if get_aval(a).dtype.kind == "i":
        return lax.shift_right_arithmetic(a, b)
    return lax.shift_right_logical(a, b)


bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def bitwise_count(x, /):
    """Number of 1-bits in the absolute value of each element (uint8)."""
    (a,) = _integer_operands("bitwise_count", x)
    aval = get_aval(a)
    if aval.dtype == np.bool_:
        return lax.convert_element_type(a, np.uint8)
    if aval.dtype.kind == "i":
        a = lax.abs(a)
    return lax.convert_element_type(lax.population_count(a), np.uint8)


def _round_real(x, decimals):
    nearest_even = lax.RoundingMethod.TO_NEAREST_EVEN
    if decimals == 0:
        return lax.round(x, nearest_even)
    if decimals > 0:
        f = _full(x, 10.0 ** decimals)
        return lax.div(lax.round(lax.mul(x, f), nearest_even), f)
    f = _full(x, 10.0 ** -decimals)
    return lax.mul(lax.round(lax.div(x, f), nearest_even), f)


def round(a, decimals=0, out=None):
    """Round half to even, to ``decimals`` decimal places (as numpy.round)."""
    if out is not None:
        raise NotImplementedError("round: out= is not supported")
    x = to_array(a)
    aval = get_aval(x)
    decimals = int(decimals)
    if aval.dtype == np.bool_ or dtypes.is_integer(aval.dtype):
        if decimals >= 0:
            return x
        f = lax.convert_element_type(x, np.float64)
        return lax.convert_element_type(_round_real(f, decimals), aval.dtype)
    if dtypes.is_complex(aval.dtype):
        return lax.complex(_round_real(lax.real(x), decimals),
                           _round_real(lax.imag(x), decimals))
    return _round_real(x, decimals)


around = round


def _rint(x):
    if dtypes.is_complex(get_aval(x).dtype):
        return round(x)
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


rint = _unary("rint", _rint)


def real(val, /):
    """Real part (the array itself for real arrays)."""
    x = to_array(val)
    return lax.real(x) if dtypes.is_complex(get_aval(x).dtype) else x


def imag(val, /):
    """Imaginary part (zeros for real arrays)."""
    x = to_array(val)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        return lax.imag(x)
    return lax.full(aval.shape, 0, aval.dtype)


def angle(z, deg=False):
    """Counterclockwise angle from the positive real axis (radians unless ``deg``)."""
    x = to_array(z)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        re, im = lax.real(x), lax.imag(x)
    else:
        x = lax.convert_element_type(x, _float_dtype(aval.dtype))
        re, im = x, _full(x, 0)
    out = lax.atan2(im, re)
    return lax.mul(out, _full(out, 180 / np.pi)) if deg else out


def nextafter(x1, x2, /):
    """The next representable float after ``x1`` towards ``x2``."""
    a, b = _float_binary_operands(x1, x2)
    return lax.nextafter(a, b)


def clip(a, /, min=None, max=None, out=None, *, a_min=None, a_max=None):
    """``a`` limited to ``[min, max]`` (either may be None); NumPy's ``a_min``/``a_max``
    keywords are accepted too."""
    if out is not None:
        raise NotImplementedError("clip: out= is not supported")
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    res = to_array(a)
    if lo is not None:
        res = maximum(res, lo)
    if hi is not None:
        res = minimum(res, hi)
    return res
