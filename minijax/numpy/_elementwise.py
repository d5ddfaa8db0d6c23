"""Elementwise functions (Array API chapter "Element-wise Functions", NumPy's
ufuncs): arithmetic, comparison, exponential and logarithmic, trigonometric and
hyperbolic, rounding, floating-point classification, bitwise, complex parts, and the
elementwise logic functions isclose/allclose/array_equal."""

import functools

import numpy as np

from .. import _checks, dtypes, lax
from .._mutation import derived_view, read_only_view, rebind_or_raise
from ..core import Tracer, eager, get_aval, get_concrete
from ..custom_derivatives import custom_jvp
from ..runtime.array import Array
from ._core import broadcast_arrays, promote_and_broadcast, result_type_of, to_array
from ._out import supports_out


def _unary(name, lax_fn, float_only=True, keep_integers=False):
    """``keep_integers``: integer and bool inputs are returned as they are (NumPy 2's
    floor and ceil); otherwise ``float_only`` converts them to a float first."""
    def fn(x, /):
        x = to_array(x)
        aval = get_aval(x)
        if keep_integers and not dtypes.is_inexact(aval.dtype):
            return x
        if float_only and not dtypes.is_inexact(aval.dtype):
            # NumPy's choice: the smallest float that holds the integer type (int8 -> float16)
            target = dtypes.canonicalize(np.promote_types(aval.dtype, np.float16))
            x = lax.convert_element_type(x, target, aval.weak_type)
        return lax_fn(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name}, as numpy.{name}."
    return fn


sin = _unary("sin", lax.sin)


cos = _unary("cos", lax.cos)


exp = _unary("exp", lax.exp)


log = _unary("log", lax.log)


def _tanh(x):
    out = lax.tanh(x)
    if not dtypes.is_complex(get_aval(x).dtype):
        return out
    # the Array API's special values, which XLA's complex tanh misses: ±1 ± 0j for an
    # infinite real part and a finite imaginary one, ±0 + NaN j for a zero real part and a
    # non-finite imaginary one, and the real tanh (imaginary zero kept) on the real axis
    re, im = lax.real(x), lax.imag(x)
    zero = _full(re, 0)
    finite_im = lax.is_finite(im)
    out = lax.select_n(lax.eq(im, zero), out, lax.complex(lax.tanh(re), im))
    out = lax.select_n(lax.bitwise_and(lax.eq(re, zero), lax.bitwise_not(finite_im)), out,
                       lax.complex(re, _full(re, np.nan)))
    infinite_re = lax.bitwise_and(lax.bitwise_not(lax.is_finite(re)), lax.eq(re, re))
    limit = lax.complex(lax.sign(re), _copysign(zero, im))
    return lax.select_n(lax.bitwise_and(infinite_re, finite_im), out, limit)


tanh = _unary("tanh", _tanh)


sqrt = _unary("sqrt", lax.sqrt)


floor = _unary("floor", lax.floor, keep_integers=True)


ceil = _unary("ceil", lax.ceil, keep_integers=True)


def negative(x, /):
    """Elementwise negation (bool arrays are rejected, as in NumPy)."""
    x = to_array(x)
    if get_aval(x).dtype == np.bool_:
        raise TypeError("negative of a boolean array is not supported; use logical_not")
    return lax.neg(x)


def positive(x, /):
    """``+x`` (bool arrays are rejected, as in NumPy 2)."""
    x = to_array(x)
    if get_aval(x).dtype == np.bool_:
        raise TypeError("positive of a boolean array is not supported (NumPy has no bool "
                        "loop for it); convert it first, e.g. x.astype(int)")
    return x


def absolute(x, /):
    x = to_array(x)
    if get_aval(x).dtype == np.bool_:
        return x
    return lax.abs(x)


abs = absolute


def sign(x, /):
    return lax.sign(to_array(x))


def _binary(name, lax_fn, bool_ok=True):
    def general(x1, x2, /):
        if (type(x1) is Array and type(x2) is Array and x1.aval == x2.aval
                and not x1.aval.weak_type):
            a, b = x1, x2   # already one strong dtype and shape: promotion is a no-op
        else:
            a, b = promote_and_broadcast(x1, x2, keep_scalars=True)
        if not bool_ok and get_aval(a).dtype == np.bool_:
            raise TypeError(f"numpy.{name} does not support boolean operands; use "
                            f"logical_{'or' if name == 'add' else 'xor'}")
        return lax_fn(a, b)
    general.__name__ = general.__qualname__ = name
    general.__doc__ = f"Elementwise {name} with broadcasting, as numpy.{name}."
    return general


def _add_bool(a, b):
    if get_aval(a).dtype == np.bool_:
        return lax.max(a, b)   # logical or
    return lax.add(a, b)


def _mul_bool(a, b):
    if get_aval(a).dtype == np.bool_:
        return lax.min(a, b)   # logical and
    return lax.mul(a, b)


def _comparison(name, lax_fn, below):
    """A comparison; ``below`` is its value when the left operand is the smaller one.

    NumPy 2 compares an integer array with an out-of-range Python int by value (so
    ``uint8_array == -1`` is all False) rather than raising; minijax does the same.
    """
    plain = _binary(name, lax_fn)

    def general(x1, x2, /):
        for arr, scalar, arr_is_left in ((x1, x2, True), (x2, x1, False)):
            if type(scalar) is int and not isinstance(arr, (int, float, complex, bool)):
                dtype = get_aval(to_array(arr)).dtype
                if dtypes.is_integer(dtype):
                    info = np.iinfo(dtype)
                    if not info.min <= scalar <= info.max:
                        arr_smaller = scalar > info.max
                        value = below if arr_smaller == arr_is_left else _flip(below, name)
                        return lax.full(get_aval(to_array(arr)).shape, value, np.bool_)
        return plain(x1, x2)
    general.__name__ = general.__qualname__ = name
    general.__doc__ = plain.__doc__
    return general


def _flip(below, name):
    # the value when the left operand is the larger one
    return {"equal": False, "not_equal": True}.get(name, not below)


add = _binary("add", _add_bool)


subtract = _binary("subtract", lax.sub, bool_ok=False)


multiply = _binary("multiply", _mul_bool)


maximum = _binary("maximum", lax.max)


minimum = _binary("minimum", lax.min)


equal = _comparison("equal", lax.eq, below=False)


not_equal = _comparison("not_equal", lax.ne, below=True)


less = _comparison("less", lax.lt, below=True)


less_equal = _comparison("less_equal", lax.le, below=True)


greater = _comparison("greater", lax.gt, below=False)


greater_equal = _comparison("greater_equal", lax.ge, below=False)


def divide(x1, x2, /):
    """True division; integer and bool operands give the default float, as in NumPy."""
    dtype, weak = result_type_of(x1, x2)
    if not dtypes.is_inexact(dtype):
        dtype = dtypes.default_float()
    a, b = promote_and_broadcast(x1, x2, dtype=dtype, weak=weak, keep_scalars=True)
    return lax.div(a, b)


def power(x1, x2, /):
    """``x1 ** x2`` elementwise (``integer_pow`` for a Python int exponent, as JAX)."""
    if type(x2) is int and isinstance(x1, (Array, Tracer)):
        kind = get_aval(x1).dtype.kind
        if kind in "fc" or (kind in "iu" and 0 <= x2 <= np.iinfo(get_aval(x1).dtype).max):
            return lax.integer_pow(x1, x2)
    a, b = promote_and_broadcast(x1, x2)
    aval = get_aval(a)
    if dtypes.is_inexact(aval.dtype):
        return lax.pow(a, b)
    # a concrete exponent raises under jit too (b is staged there)
    exponent = x2 if isinstance(x2, (Array, Tracer)) else np.asarray(x2)
    concrete = get_concrete(exponent) if isinstance(exponent, (Array, Tracer)) else exponent
    if aval.dtype.kind == "i" and concrete is not None and np.any(np.asarray(concrete) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")
    return _integer_power(a, b)


true_divide = divide


pow = power


def _integer_power(a, b):
    # Exponentiation by squaring over the exponent's bits, unrolled: exact for integers.
    aval = get_aval(a)
    if aval.dtype == np.bool_:   # (NumPy's power has no boolean loop: int8)
        a, b = _no_bool_loop(a), _no_bool_loop(b)
        aval = get_aval(a)
    concrete = get_concrete(b)
    if concrete is not None and np.any(np.asarray(concrete) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")
    bits = 8 * aval.dtype.itemsize
    one = lax.full(aval.shape, 1, aval.dtype)
    two = lax.full(aval.shape, 2, aval.dtype)
    zero = lax.full(aval.shape, 0, aval.dtype)
    acc, base, e = one, a, b
    for _ in range(bits):
        odd = lax.ne(lax.sub(e, lax.mul(lax.div(e, two), two)), zero)
        acc = lax.select_n(odd, acc, lax.mul(acc, base))
        base = lax.mul(base, base)
        e = lax.div(e, two)
    if aval.dtype.kind == "i":   # NumPy: integers to negative powers are an error; XLA gives 0
        acc = lax.select_n(lax.lt(b, zero), acc, zero)
    return acc


def isnan(x, /):
    """Elementwise NaN test (False for integers and bools)."""
    x = to_array(x)
    if not dtypes.is_inexact(get_aval(x).dtype):
        return lax.full(get_aval(x).shape, False, np.bool_)
    return lax.ne(x, x)


def isinf(x, /):
    """Elementwise test for positive or negative infinity (either part, for complex)."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_inexact(aval.dtype):
        return lax.full(aval.shape, False, np.bool_)
    if dtypes.is_complex(aval.dtype):
        return logical_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return lax.eq(lax.abs(x), lax.full((), np.inf, aval.dtype))


def isfinite(x, /):
    """Elementwise test for values that are neither infinite nor NaN."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_inexact(aval.dtype):
        return lax.full(aval.shape, True, np.bool_)
    if dtypes.is_complex(aval.dtype):
        return logical_and(isfinite(lax.real(x)), isfinite(lax.imag(x)))
    return logical_not(logical_or(isnan(x), isinf(x)))


def as_bool(x):
    x = to_array(x)
    aval = get_aval(x)
    if aval.dtype == np.bool_:
        return x
    return lax.ne(x, lax.full((), 0, aval.dtype))


def logical_not(x, /):
    return lax.eq(as_bool(x), lax.full((), False, np.bool_))


def logical_and(x1, x2, /):
    a, b = broadcast_arrays(as_bool(x1), as_bool(x2), keep_scalars=True)
    return lax.min(a, b)


def logical_or(x1, x2, /):
    a, b = broadcast_arrays(as_bool(x1), as_bool(x2), keep_scalars=True)
    return lax.max(a, b)


def logical_xor(x1, x2, /):
    a, b = broadcast_arrays(as_bool(x1), as_bool(x2), keep_scalars=True)
    return lax.ne(a, b)


def _no_bool_loop(x):
    # NumPy's ufuncs without a boolean loop take booleans as int8
    return lax.convert_element_type(x, np.int8) if get_aval(x).dtype == np.bool_ else x


def reciprocal(x, /):
    x = _no_bool_loop(to_array(x))
    aval = get_aval(x)
    if dtypes.is_inexact(aval.dtype):
        return divide(lax.full((), 1, aval.dtype), x)
    # integers: 1 / x truncated, and at 0 what NumPy's loop gives (its cast of 1.0 / 0)
    with np.errstate(all="ignore"):
        at_zero = np.reciprocal(np.zeros((), aval.dtype))
    quotient = lax.div(lax.full(aval.shape, 1, aval.dtype), x)
    return lax.select_n(lax.eq(x, _full(x, 0)), quotient, lax.full(aval.shape, at_zero,
                                                                    aval.dtype))


def square(x, /):
    x = _no_bool_loop(to_array(x))
    return lax.mul(x, x)


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
    if not dtypes.is_inexact(aval.dtype):
        # NumPy's loop is the first float each strong operand casts to safely: int8 with
        # uint8 is float16 (their promotion, int16, would be float32)
        strong = [get_aval(x).dtype for x in (to_array(x1), to_array(x2))
                  if not get_aval(x).weak_type]
        if len(strong) == 2:
            target = dtypes.canonicalize(np.result_type(*map(_float_dtype, strong)))
    if target != aval.dtype:
        a = lax.convert_element_type(a, target, aval.weak_type)
        b = lax.convert_element_type(b, target, aval.weak_type)
    return a, b


def _reject_complex(name, x):
    """NumPy's TypeError for a ufunc with no complex loop; returns ``x``."""
    if dtypes.is_complex(get_aval(x).dtype):
        raise TypeError(f"ufunc '{name}' not supported for the input types, and the inputs "
                        f"could not be safely coerced to any supported types according to "
                        f"the casting rule ''safe'' (it has no complex loop)")
    return x


def _float_binary(name, body):
    def fn(x1, x2, /):
        a, b = _float_binary_operands(x1, x2)
        _reject_complex(name, a)
        return body(a, b)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} with broadcasting, as numpy.{name}."
    return fn


log1p = _unary("log1p", lax.log1p)


def _expm1(x):
    out = lax.expm1(x)
    if not dtypes.is_complex(get_aval(x).dtype):
        return out
    # the Array API's special values (the eager NumPy path patches the same ones)
    re, im = lax.real(x), lax.imag(x)
    inf, zero = _full(re, np.inf), _full(re, 0)
    finite_im = lax.is_finite(im)
    # on the real axis: the real expm1, +0 for ±0 (a select: XLA folds x + 0 to x)
    on_axis = lax.complex(lax.select_n(lax.eq(re, zero), lax.expm1(re), zero), im)
    out = lax.select_n(lax.eq(im, zero), out, on_axis)
    nonfinite_im = lax.bitwise_not(finite_im)
    out = lax.select_n(lax.bitwise_and(lax.eq(re, inf), nonfinite_im), out,
                       lax.complex(inf, _full(re, np.nan)))
    return lax.select_n(lax.bitwise_and(lax.eq(re, lax.neg(inf)), nonfinite_im), out,
                        lax.complex(_full(re, -1), zero))


expm1 = _unary("expm1", _expm1)


tan = _unary("tan", lax.tan)


sinh = _unary("sinh", lax.sinh)


cosh = _unary("cosh", lax.cosh)


arcsin = asin = _unary("arcsin", lax.asin)


arccos = acos = _unary("arccos", lax.acos)


arctan = atan = _unary("arctan", lax.atan)


arcsinh = asinh = _unary("arcsinh", lax.asinh)


arctanh = atanh = _unary("arctanh", lax.atanh)


cbrt = _unary("cbrt", lax.cbrt)


arccosh = acosh = _unary("arccosh", lax.acosh)


def _log_base(base):
    def body(x):
        w = lax.log(x)
        if not dtypes.is_complex(get_aval(w).dtype):
            return lax.div(w, _full(w, np.log(base)))
        # the real and imaginary parts scaled apart: a complex division would turn
        # log(0) = -inf + 0j into -inf + nan*j
        scale = lax.full((), 1 / np.log(base), dtypes.real_dtype(get_aval(w).dtype))
        re, im = lax.real(w), lax.imag(w)
        scale = lax.broadcast_to_shape(scale, get_aval(re).shape)
        return lax.complex(lax.mul(re, scale), lax.mul(im, scale))
    return body


log2 = _unary("log2", _log_base(2.0))
log10 = _unary("log10", _log_base(10.0))


exp2 = _unary("exp2", lax.exp2)


deg2rad = radians = _unary("deg2rad", lambda x: lax.mul(_reject_complex("deg2rad", x),
                                                         _full(x, np.pi / 180)))


rad2deg = degrees = _unary("rad2deg", lambda x: lax.mul(_reject_complex("rad2deg", x),
                                                         _full(x, 180 / np.pi)))


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
        lambda d: lax.div(lax.log1p(lax.exp2(d)), _full(d, ln2)), a, b)


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
_logaddexp2.defjvp(_logaddexp_jvp_with(_logaddexp2, lax.exp2))


logaddexp = _float_binary("logaddexp", _logaddexp)


logaddexp2 = _float_binary("logaddexp2", _logaddexp2)


_SAME_WIDTH_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _signbit_float(x):
    dt = get_aval(x).dtype
    bits = lax.bitcast_convert_type(x, _SAME_WIDTH_INT[dt.itemsize])
    return lax.lt(bits, _full(bits, 0))   # the sign bit, NaNs included


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
    """``x1 // x2``: the floor of the quotient (integer division by zero gives 0). Where
    exactly one operand is infinite it is floor(x1 / x2) (±inf or ±0), as the Array API
    standard says; NumPy's floor_divide gives NaN or -1.0 there (``divmod`` keeps NumPy's)."""
    a, b = _div_operands(x1, x2, "floor_divide")
    q = _divmod(a, b)[0]
    if not dtypes.is_inexact(get_aval(a).dtype):
        return q
    fa, fb = lax.is_finite(a), lax.is_finite(b)
    inf_a = lax.bitwise_and(lax.bitwise_and(lax.bitwise_not(fa), lax.eq(a, a)),
                            lax.bitwise_and(fb, lax.ne(b, _full(b, 0))))
    inf_b = lax.bitwise_and(fa, lax.bitwise_and(lax.bitwise_not(fb), lax.eq(b, b)))
    return lax.select_n(lax.bitwise_or(inf_a, inf_b), q, lax.div(a, b))


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


@supports_out(broadcast=True, casting="same_kind")
def fix(x, out=None):
    """Round toward zero, as numpy.fix (integers are returned unchanged)."""
    return trunc(x)


def _no_complex(name, x):
    if dtypes.is_complex(get_aval(x).dtype):
        raise TypeError(f"{name} is not defined for {get_aval(x).dtype.name} values: the "
                        f"sign of a complex infinity is ambiguous (as in NumPy); test the "
                        f"real and imaginary parts instead")


@supports_out(broadcast=True, casting="same_kind")
def isneginf(x, out=None):
    """Elementwise test for negative infinity (a TypeError for complex input, as NumPy)."""
    x = to_array(x)
    _no_complex("isneginf", x)
    return logical_and(isinf(x), signbit(x))


@supports_out(broadcast=True, casting="same_kind")
def isposinf(x, out=None):
    """Elementwise test for positive infinity (a TypeError for complex input, as NumPy)."""
    x = to_array(x)
    _no_complex("isposinf", x)
    return logical_and(isinf(x), logical_not(signbit(x)))


def isreal(x, /):
    """Whether each element has a zero imaginary part."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_complex(aval.dtype):
        return lax.full(aval.shape, True, np.bool_)
    im = lax.imag(x)
    return lax.eq(im, _full(im, 0))


def iscomplex(x, /):
    """Whether each element has a nonzero imaginary part."""
    return logical_not(isreal(x))


# (isrealobj and iscomplexobj read the dtype an Array, tracer, ndarray or NumPy scalar
# carries themselves, without converting it: a helper's frame was a fifth of the call)

def isrealobj(x):
    """Whether ``x`` has a non-complex dtype (a Python bool, as NumPy's)."""
    dtype = getattr(x, "dtype", None)
    if not isinstance(dtype, np.dtype):
        dtype = get_aval(to_array(x)).dtype
    return dtype.kind != "c"


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (a Python bool, as NumPy's)."""
    dtype = getattr(x, "dtype", None)
    if not isinstance(dtype, np.dtype):
        dtype = get_aval(to_array(x)).dtype
    return dtype.kind == "c"


def conjugate(x, /):
    """Complex conjugate (the identity for real arrays)."""
    x = to_array(x)
    if get_aval(x).dtype == np.bool_:   # NumPy's conjugate has no bool loop: int8
        return lax.convert_element_type(x, np.int8)
    if not dtypes.is_complex(get_aval(x).dtype):
        return x
    return lax.conj(x)


conj = conjugate


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and infinities by ``posinf``/``neginf`` (the dtype's extremes
    by default). ``copy=False`` updates the array ``x`` in place and returns it."""
    if isinstance(copy, str):   # (NumPy's check and message)
        raise ValueError("strings are not allowed for 'copy' keyword. Use True/False/None "
                         "instead.")
    copy = bool(copy)   # NumPy's truth test: an array of several elements raises
    if not copy and not isinstance(x, (Array, Tracer, np.ndarray)):
        raise ValueError(f"nan_to_num: Unable to avoid copy while creating an array as "
                         f"requested (copy=False needs an array to update, got "
                         f"{type(x).__name__})")
    out = _replace_non_finite(to_array(x), nan, posinf, neginf)
    if not copy and isinstance(x, (Array, Tracer)) and out is not x:
        rebind_or_raise(x, out, "nan_to_num(copy=False)")
        return x
    return out


def returning_the_updated_array(dispatched):
    """``nan_to_num`` as installed over its NumPy-dispatching version: eagerly,
    ``copy=False`` on an Array writes the result into that Array and returns the Array
    itself, as NumPy returns its input (the dispatch would wrap NumPy's ndarray anew)."""
    @functools.wraps(dispatched)
    def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
        if type(x) is Array and not bool(copy) and eager():
            x._assign(dispatched(x, True, nan, posinf, neginf))
            return x
        return dispatched(x, copy, nan, posinf, neginf)
    return nan_to_num


def _replace_non_finite(x, nan, posinf, neginf):
    aval = get_aval(x)
    if not dtypes.is_inexact(aval.dtype):
        return x
    if dtypes.is_complex(aval.dtype):   # each part on its own, as NumPy
        parts = [_replace_non_finite(part, nan, posinf, neginf)
                 for part in (lax.real(x), lax.imag(x))]
        return lax.complex(*parts)
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


@supports_out(casting="same_kind")
def round(a, decimals=0, out=None):
    """Round half to even, to ``decimals`` decimal places (as numpy.round)."""
    x = to_array(a)
    aval = get_aval(x)
    decimals = _checks.index(decimals, "decimals")
    if not -2**31 <= decimals < 2**31:   # NumPy takes a C int
        raise OverflowError(f"round: decimals must fit a C int, got {decimals}")
    if aval.dtype == np.bool_:   # NumPy rounds booleans by rint (float16), and scales
        if decimals:             # them by 10**decimals in bool (which it refuses)
            raise TypeError(f"Cannot cast ufunc '{'multiply' if decimals > 0 else 'divide'}'"
                            f" output from dtype('float64') to dtype('bool') with casting "
                            f"rule 'same_kind'")
        return lax.convert_element_type(x, np.float16)
    if dtypes.is_integer(aval.dtype):
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
    """Real part (the array itself for real arrays); under a transformation, as NumPy's
    view, writing into it sets the real parts of ``val``."""
    x = to_array(val)
    if not dtypes.is_complex(get_aval(x).dtype):
        return x
    return derived_view(lax.real(x), x, lax.real,
                        lambda base, value: lax.complex(value, lax.imag(base)))


def imag(val, /):
    """Imaginary part (read-only zeros for real arrays); under a transformation, as
    NumPy's view, writing into it sets the imaginary parts of ``val``."""
    x = to_array(val)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        return derived_view(lax.imag(x), x, lax.imag,
                            lambda base, value: lax.complex(lax.real(base), value))

    def zeros(base):
        return lax.full(aval.shape, 0, aval.dtype)
    return read_only_view(zeros(x), x, zeros)


def angle(z, deg=False):
    """Counterclockwise angle from the positive real axis (radians unless ``deg``)."""
    x = to_array(z)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        re, im = lax.real(x), lax.imag(x)
    else:   # (NumPy's arctan2(0, z): the Python 0 makes booleans the default int)
        dt = dtypes.default_int() if aval.dtype == np.bool_ else aval.dtype
        x = lax.convert_element_type(x, _float_dtype(dt))
        re, im = x, _full(x, 0)
    out = lax.atan2(im, re)
    return lax.mul(out, _full(out, 180 / np.pi)) if deg else out


def nextafter(x1, x2, /):
    """The next representable float after ``x1`` towards ``x2``."""
    a, b = _float_binary_operands(x1, x2)
    return lax.nextafter(a, b)


_UFUNC_KEYWORDS = frozenset({"where", "casting", "order", "dtype", "subok", "signature"})


@supports_out(broadcast=True, casting="same_kind")
def clip(a, /, min=None, max=None, out=None, *, a_min=None, a_max=None, **kwargs):
    """``a`` limited to ``[min, max]`` (either may be None); NumPy's ``a_min``/``a_max``
    keywords are accepted too, and its ufunc keywords (``where``, ``dtype``,
    ``casting``, ...), applied as NumPy's ``clip`` applies them: through ``maximum`` and
    ``minimum``."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    above, below = maximum, minimum
    if kwargs:
        for name in kwargs:
            if name not in _UFUNC_KEYWORDS:
                raise TypeError(f"clip() got an unexpected keyword argument {name!r}")
        from ._ufunc import _by_name   # (the ufunc objects are made from this module)
        above, below = _by_name("maximum"), _by_name("minimum")
    res = to_array(a)
    dt = get_aval(res).dtype
    if dt.kind in "iu":   # NumPy's: a Python int bound past the dtype's range limits nothing
        info = np.iinfo(dt)
        if type(lo) is int and lo < info.min:
            lo = None
        if type(hi) is int and hi > info.max:
            hi = None
    if lo is not None:
        res = above(res, lo, **kwargs)
    if hi is not None:
        res = below(res, hi, **kwargs)
    return res


def fabs(x, /):
    """Absolute value of real numbers, as a float (complex input is a TypeError)."""
    x = to_array(x)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        raise TypeError("fabs is not defined for complex arrays; use absolute")
    target = _float_dtype(aval.dtype)
    if target != aval.dtype:
        x = lax.convert_element_type(x, target, aval.weak_type)
    return lax.abs(x)


def _gcd(a, b):
    # Euclid's algorithm on absolute values, all lanes until every remainder is zero
    a, b = lax.abs(a), lax.abs(b)
    zero = _full(a, 0)

    def cond(c):
        return lax.reduce_max(lax.ne(c[1], zero), tuple(range(get_aval(a).ndim)))

    def body(c):
        x, y = c
        done = lax.eq(y, zero)
        safe = lax.select_n(done, y, _full(y, 1))
        return lax.select_n(done, y, x), lax.select_n(done, lax.rem(x, safe), zero)
    return lax.while_loop(cond, body, (a, b))[0]


def gcd(x1, x2, /):
    """Greatest common divisor of integers (non-negative; gcd(0, 0) is 0)."""
    a, b = _integer_operands("gcd", x1, x2)
    if get_aval(a).dtype == np.bool_:
        raise TypeError("numpy.gcd is not defined for boolean arrays")
    return _gcd(a, b)


def lcm(x1, x2, /):
    """Least common multiple of integers (0 when either is 0), as NumPy's: non-negative
    unless it overflows the dtype."""
    a, b = _integer_operands("lcm", x1, x2)
    if get_aval(a).dtype == np.bool_:
        raise TypeError("numpy.lcm is not defined for boolean arrays")
    g = _gcd(a, b)
    zero = _full(g, 0)
    g_zero = lax.eq(g, zero)
    safe = lax.select_n(g_zero, g, _full(g, 1))
    if get_aval(a).dtype.kind == "i":   # NumPy's |a| / gcd * |b|, wrapping on overflow
        a, b = lax.abs(a), lax.abs(b)
    return lax.select_n(g_zero, lax.mul(lax.div(a, safe), b), zero)


def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for an integer exponent ``x2``."""
    x = to_array(x1)
    e = to_array(x2)
    edt = get_aval(e).dtype
    if not (dtypes.is_integer(edt) or edt == np.bool_):
        raise TypeError(f"ldexp: the exponent must be an integer array, got {edt.name}")
    if edt == np.uint64:   # (NumPy's loops take int64 exponents at most)
        raise TypeError("ufunc 'ldexp' not supported for the input types, and the inputs "
                        "could not be safely coerced to any supported types according to "
                        "the casting rule ''safe''")
    xdt = get_aval(x).dtype
    if dtypes.is_complex(xdt):
        raise TypeError("ldexp is not defined for complex mantissas")
    target = _float_dtype(xdt) if not get_aval(x).weak_type else dtypes.default_float()
    x = lax.convert_element_type(x, target)
    if edt.itemsize > 4:   # (beyond +-2**20 every float's result is 0 or inf already)
        e = lax.clamp(lax.full((), -2**20, edt), e, lax.full((), 2**20, edt))
    x, e = broadcast_arrays(x, lax.convert_element_type(e, np.int32), keep_scalars=False)
    # two half steps, so 2**e itself cannot overflow where the product does not
    half = lax.div(e, _full(e, 2))
    rest = lax.sub(e, half)
    f1 = lax.exp2(lax.convert_element_type(half, target))
    f2 = lax.exp2(lax.convert_element_type(rest, target))
    # (zeros and infinities are themselves whatever the exponent: no 0 * inf)
    fixed = lax.bitwise_or(lax.eq(x, _full(x, 0)), lax.bitwise_not(lax.is_finite(x)))
    return lax.select_n(fixed, lax.mul(lax.mul(x, f1), f2), x)


def frexp(x, /):
    """``(mantissa, exponent)`` with ``x = mantissa * 2**exponent`` and
    ``0.5 <= |mantissa| < 1`` (0, inf and NaN have exponent 0 and themselves as mantissa)."""
    x = to_array(x)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        raise TypeError("frexp is not defined for complex arrays")
    target = _float_dtype(aval.dtype)
    x = lax.convert_element_type(x, target)
    special = lax.bitwise_or(lax.eq(x, _full(x, 0)), lax.bitwise_not(lax.is_finite(x)))
    safe = lax.select_n(special, lax.abs(x), _full(x, 1))
    e = lax.add(lax.floor(lax.div(lax.log(safe), _full(safe, np.log(2.0)))), _full(safe, 1))
    # compiled code on the CPU flushes subnormals to zero (XLA): they come back unchanged
    special = lax.bitwise_or(special, lax.bitwise_not(lax.is_finite(e)))
    safe = lax.select_n(special, safe, _full(safe, 1))
    e = lax.select_n(special, e, _full(e, 0))
    # the log may be off by one near powers of two: correct with exact scaling
    half, one = _full(safe, 0.5), _full(safe, 1)
    for _ in range(2):
        m = ldexp(safe, lax.neg(lax.convert_element_type(e, np.int32)))
        e = lax.select_n(lax.ge(m, one), e, lax.add(e, one))
        e = lax.select_n(lax.lt(m, half), e, lax.sub(e, one))
    m = ldexp(x, lax.neg(lax.convert_element_type(e, np.int32)))
    mantissa = lax.select_n(special, m, x)
    exponent = lax.select_n(special, lax.convert_element_type(e, np.int32),
                            lax.full(aval.shape, 0, np.int32))
    return mantissa, exponent


def modf(x, /):
    """``(fractional part, integral part)``, both with the sign of ``x``."""
    x = to_array(x)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        raise TypeError("modf is not defined for complex arrays")
    x = lax.convert_element_type(x, _float_dtype(aval.dtype))
    whole = trunc(x)
    frac = lax.select_n(isinf(x), lax.sub(x, whole), _full(x, 0))
    return _copysign(frac, x), whole


def spacing(x, /):
    """The distance from ``x`` to the next float away from zero (negative for x < 0)."""
    x = to_array(x)
    aval = get_aval(x)
    if dtypes.is_complex(aval.dtype):
        raise TypeError("spacing is not defined for complex arrays")
    x = lax.convert_element_type(x, _float_dtype(aval.dtype))
    away = lax.select_n(lax.lt(x, _full(x, 0)), _full(x, np.inf), _full(x, -np.inf))
    return lax.sub(lax.nextafter(x, away), x)
