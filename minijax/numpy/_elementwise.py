"""Elementwise functions (NumPy ufuncs): promotion and broadcasting, then lax."""

import numpy as np

from .. import dtypes, lax
from ..config import config
from ..core import get_aval, get_concrete
from ..core.trace import state as _trace_state
from ..runtime.array import Array
from ..runtime.dispatch import apply1, apply2
from ._core import (_scalar_aval, broadcast_arrays, promote_and_broadcast, result_type_of,
                    to_array)

# Eager fast paths. When no transformation is active and the operands are Arrays (or
# an Array and a Python scalar whose promotion leaves the Array's type unchanged), a
# function below goes straight to ``dispatch.apply1``/``apply2`` with the primitive its
# general path would bind, skipping the promotion and broadcasting steps that would
# be no-ops. ``_fast_paths = False`` turns them off (tests compare both paths).
_fast_paths = True
_INEXACT = frozenset(d for d in dtypes.SUPPORTED_DTYPES if dtypes.is_inexact(d))
_WEAK_SCALARS = (int, float, complex)
_promotions = {}   # (dtype, weak_type, scalar type, x64) -> NumPy promotion's (dtype, weak_type)


_scalar_arrays = {}   # (id(scalar), dtype, weak_type, x64) -> (scalar, Array or None)


def _promoted_scalar(aval, scalar):
    """``scalar`` as an Array of ``aval``'s dtype and weak type, if promotion of an array
    of type ``aval`` with it gives ``aval``'s dtype and weak type; otherwise None.

    Results are cached by the scalar object's identity (a literal in a loop is one
    object); the entry holds the scalar, so the id cannot be reused while cached."""
    key = (id(scalar), aval.dtype, aval.weak_type, config.enable_x64)
    hit = _scalar_arrays.get(key)
    if hit is not None and hit[0] is scalar:
        return hit[1]
    pkey = (aval.dtype, aval.weak_type, type(scalar), config.enable_x64)
    target = _promotions.get(pkey)
    if target is None:
        probe = Array._from_host(np.zeros((), aval.dtype), _scalar_aval(aval.dtype,
                                                                         aval.weak_type))
        target = _promotions[pkey] = result_type_of(probe, scalar)
    dtype, weak = target
    if dtype != aval.dtype or weak != aval.weak_type:
        arr = None
    else:
        arr = Array._from_host(np.asarray(scalar, dtype), _scalar_aval(dtype, weak))
    if len(_scalar_arrays) > 4096:
        _scalar_arrays.clear()
    _scalar_arrays[key] = (scalar, arr)
    return arr


def _fast_binary(general, prim, bool_prim, scalar_types, dtype_ok=None):
    """``general`` (a binary function) preceded by the fast path: ``prim`` (``bool_prim``
    on bool operands; only dtypes in the set ``dtype_ok``) applied directly when the
    operands are Arrays of one strong type, or an Array and a Python scalar of a type
    in ``scalar_types`` that promotion leaves the Array's type."""
    def fn(x1, x2, /):
        if _fast_paths and len(_trace_state.stack) == 1:
            a, b = x1, x2
            if type(x1) is Array:
                aval = x1.aval
                if type(x2) is Array:
                    a2 = x2.aval
                    # two weak operands promote like two Python scalars: not a no-op
                    if aval.weak_type or aval is not a2 and (
                            aval.shape != a2.shape or aval.dtype != a2.dtype
                            or a2.weak_type):
                        return general(x1, x2)
                elif type(x2) not in scalar_types:
                    return general(x1, x2)
            elif type(x2) is Array and type(x1) in scalar_types:
                aval = x2.aval
            else:
                return general(x1, x2)
            p = prim
            dtype = aval.dtype
            if dtype.kind == "b":
                p = bool_prim
                if p is None:
                    return general(x1, x2)
            elif dtype_ok is not None and dtype not in dtype_ok:
                return general(x1, x2)
            if type(a) is not Array:
                a = _promoted_scalar(aval, a)
                if a is None:
                    return general(x1, x2)
            elif type(b) is not Array:
                b = _promoted_scalar(aval, b)
                if b is None:
                    return general(x1, x2)
            out = apply2(p, a, b)
            if out is not None:
                return out
        return general(x1, x2)
    fn.__name__ = fn.__qualname__ = general.__name__.lstrip("_").replace("_general", "")
    fn.__doc__ = general.__doc__
    return fn


def _unary(name, lax_fn, float_only=True, prim=None, keep_integers=False):
    """``keep_integers``: integer and bool inputs are returned as they are (NumPy 2's
    floor and ceil); otherwise ``float_only`` converts them to a float first."""
    def fn(x, /):
        if type(x) is Array and prim is not None and _fast_paths and len(_trace_state.stack) == 1 and (
                not float_only or x.aval.dtype in _INEXACT):
            out = apply1(prim, x)
            if out is not None:
                return out
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


sin = _unary("sin", lax.sin, prim=lax.sin_p)
cos = _unary("cos", lax.cos, prim=lax.cos_p)
exp = _unary("exp", lax.exp, prim=lax.exp_p)
log = _unary("log", lax.log, prim=lax.log_p)
tanh = _unary("tanh", lax.tanh, prim=lax.tanh_p)
sqrt = _unary("sqrt", lax.sqrt, prim=lax.sqrt_p)
floor = _unary("floor", lax.floor, prim=lax.floor_p, keep_integers=True)
ceil = _unary("ceil", lax.ceil, prim=lax.ceil_p, keep_integers=True)


def negative(x, /):
    """Elementwise negation (bool arrays are rejected, as in NumPy)."""
    if type(x) is Array and _fast_paths and len(_trace_state.stack) == 1 and x.aval.dtype.kind != "b":
        out = apply1(lax.neg_p, x)
        if out is not None:
            return out
    x = to_array(x)
    if get_aval(x).dtype == np.bool_:
        raise TypeError("negative of a boolean array is not supported; use logical_not")
    return lax.neg(x)


def positive(x, /):
    return to_array(x)


def absolute(x, /):
    x = to_array(x)
    if get_aval(x).dtype == np.bool_:
        return x
    return lax.abs(x)


abs = absolute


def sign(x, /):
    return lax.sign(to_array(x))


def _binary(name, lax_fn, bool_ok=True, prim=None, bool_prim=None, scalar_types=()):
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
    if prim is None:
        return general
    return _fast_binary(general, prim, bool_prim, scalar_types)


def _add_bool(a, b):
    if get_aval(a).dtype == np.bool_:
        return lax.max(a, b)   # logical or
    return lax.add(a, b)


def _mul_bool(a, b):
    if get_aval(a).dtype == np.bool_:
        return lax.min(a, b)   # logical and
    return lax.mul(a, b)


def _comparison(name, lax_fn, below, prim):
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
    # Python ints take the general path (out-of-range ints compare by value).
    return _fast_binary(general, prim, prim, (float, complex))


def _flip(below, name):
    # the value when the left operand is the larger one
    return {"equal": False, "not_equal": True}.get(name, not below)


add = _binary("add", _add_bool, prim=lax.add_p, bool_prim=lax.max_p,
              scalar_types=_WEAK_SCALARS)
subtract = _binary("subtract", lax.sub, bool_ok=False, prim=lax.sub_p,
                   scalar_types=_WEAK_SCALARS)
multiply = _binary("multiply", _mul_bool, prim=lax.mul_p, bool_prim=lax.min_p,
                   scalar_types=_WEAK_SCALARS)
maximum = _binary("maximum", lax.max, prim=lax.max_p, bool_prim=lax.max_p,
                  scalar_types=_WEAK_SCALARS)
minimum = _binary("minimum", lax.min, prim=lax.min_p, bool_prim=lax.min_p,
                  scalar_types=_WEAK_SCALARS)
equal = _comparison("equal", lax.eq, below=False, prim=lax.eq_p)
not_equal = _comparison("not_equal", lax.ne, below=True, prim=lax.ne_p)
less = _comparison("less", lax.lt, below=True, prim=lax.lt_p)
less_equal = _comparison("less_equal", lax.le, below=True, prim=lax.le_p)
greater = _comparison("greater", lax.gt, below=False, prim=lax.gt_p)
greater_equal = _comparison("greater_equal", lax.ge, below=False, prim=lax.ge_p)


def _divide_general(x1, x2, /):
    """True division; integer and bool operands give the default float, as in NumPy."""
    dtype, weak = result_type_of(x1, x2)
    if not dtypes.is_inexact(dtype):
        dtype = dtypes.default_float()
    a, b = promote_and_broadcast(x1, x2, dtype=dtype, weak=weak, keep_scalars=True)
    return lax.div(a, b)


def _power_general(x1, x2, /):
    """``x1 ** x2`` elementwise."""
    a, b = promote_and_broadcast(x1, x2)
    aval = get_aval(a)
    if dtypes.is_inexact(aval.dtype):
        return lax.pow(a, b)
    return _integer_power(a, b)


divide = _fast_binary(_divide_general, lax.div_p, None, _WEAK_SCALARS, dtype_ok=_INEXACT)
true_divide = divide
power = _fast_binary(_power_general, lax.pow_p, None, _WEAK_SCALARS, dtype_ok=_INEXACT)


def _integer_power(a, b):
    # Exponentiation by squaring over the exponent's bits, unrolled: exact for integers.
    aval = get_aval(a)
    if aval.dtype == np.bool_:
        return lax.max(a, lax.eq(b, lax.full(aval.shape, False, np.bool_)))
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


def where(condition, x=None, y=None, /):
    """``x`` where ``condition`` else ``y``, with broadcasting (the one-argument form is
    ``nonzero``)."""
    if x is None and y is None:
        from ._reductions import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("where() takes either one argument or three")
    cond = to_array(condition)
    if get_aval(cond).dtype != np.bool_:
        cond = lax.ne(cond, lax.full(get_aval(cond).shape, 0, get_aval(cond).dtype))
    a, b = promote_and_broadcast(x, y)
    from ._core import broadcast_arrays
    cond, a, b = broadcast_arrays(cond, a, b)
    return lax.select_n(cond, b, a)


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
    inf = lax.full((), np.inf, dtypes.real_dtype(aval.dtype))
    if dtypes.is_complex(aval.dtype):
        raise NotImplementedError("isinf of complex arrays needs lax.real/imag (issue 3)")
    return lax.eq(lax.abs(x), inf)


def isfinite(x, /):
    """Elementwise test for values that are neither infinite nor NaN."""
    x = to_array(x)
    aval = get_aval(x)
    if not dtypes.is_inexact(aval.dtype):
        return lax.full(aval.shape, True, np.bool_)
    return logical_not(logical_or(isnan(x), isinf(x)))


def _as_bool(x):
    x = to_array(x)
    aval = get_aval(x)
    if aval.dtype == np.bool_:
        return x
    return lax.ne(x, lax.full((), 0, aval.dtype))


def logical_not(x, /):
    return lax.eq(_as_bool(x), lax.full((), False, np.bool_))


def logical_and(x1, x2, /):
    a, b = broadcast_arrays(_as_bool(x1), _as_bool(x2), keep_scalars=True)
    return lax.min(a, b)


def logical_or(x1, x2, /):
    a, b = broadcast_arrays(_as_bool(x1), _as_bool(x2), keep_scalars=True)
    return lax.max(a, b)


def logical_xor(x1, x2, /):
    a, b = broadcast_arrays(_as_bool(x1), _as_bool(x2), keep_scalars=True)
    return lax.ne(a, b)


def clip(a, a_min=None, a_max=None):
    """``a`` limited to ``[a_min, a_max]`` (either bound may be None)."""
    if a_min is None and a_max is None:
        raise ValueError("clip: at least one of a_min and a_max must be given")
    out = to_array(a)
    if a_min is not None:
        out = maximum(out, a_min)
    if a_max is not None:
        out = minimum(out, a_max)
    return out


def reciprocal(x, /):
    x = to_array(x)
    return divide(lax.full((), 1, get_aval(x).dtype), x) if dtypes.is_inexact(
        get_aval(x).dtype) else lax.div(lax.full((), 1, get_aval(x).dtype), x)


def square(x, /):
    x = to_array(x)
    return lax.mul(x, x)
