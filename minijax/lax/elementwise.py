"""Elementwise primitives: arithmetic, transcendental functions, comparisons, select."""

import numpy as np

from .. import dtypes
from ..core import Primitive, bind, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import chlo, full_like_aval, hlo, ir, ir_type, lower_compare
from ._helpers import (ANY, BOOL, INEXACT, INT, NUMBER, as_operand, binop, check_kinds,
                       scalar_operands, unop)


def _ignore_fp_errors(fn):
    def wrapped(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return wrapped


# ---------------------------------------------------------------- unary

neg_p = unop("neg", np.negative, hlo.negate, NUMBER)
sin_p = unop("sin", _ignore_fp_errors(np.sin), hlo.sine)
cos_p = unop("cos", _ignore_fp_errors(np.cos), hlo.cosine)
exp_p = unop("exp", _ignore_fp_errors(np.exp), hlo.exponential)
log_p = unop("log", _ignore_fp_errors(np.log), hlo.log)
tanh_p = unop("tanh", _ignore_fp_errors(np.tanh), hlo.tanh)
sqrt_p = unop("sqrt", _ignore_fp_errors(np.sqrt), hlo.sqrt)
logistic_p = unop("logistic", _ignore_fp_errors(lambda x: 1 / (1 + np.exp(-x))), hlo.logistic)
abs_p = unop("abs", np.abs, hlo.abs, NUMBER, result_dtype=dtypes.real_dtype)
sign_p = unop("sign", np.sign, hlo.sign, NUMBER)
floor_p = unop("floor", np.floor, hlo.floor, "f")
ceil_p = unop("ceil", np.ceil, hlo.ceil, "f")


def neg(x):
    return neg_p.bind(x)


def sin(x):
    return sin_p.bind(x)


def cos(x):
    return cos_p.bind(x)


def exp(x):
    return exp_p.bind(x)


def log(x):
    return log_p.bind(x)


def tanh(x):
    return tanh_p.bind(x)


def sqrt(x):
    return sqrt_p.bind(x)


def logistic(x):
    return logistic_p.bind(x)


def abs(x):
    return abs_p.bind(x)


def sign(x):
    return sign_p.bind(x)


def floor(x):
    return floor_p.bind(x)


def ceil(x):
    return ceil_p.bind(x)


ad.deflinear(neg_p, lambda cts, x: [neg(cts[0])])
ad.defjvp(sin_p, lambda g, x: mul(g, cos(x)))
ad.defjvp(cos_p, lambda g, x: neg(mul(g, sin(x))))
ad.defjvp2(exp_p, lambda g, ans, x: mul(g, ans))
ad.defjvp(log_p, lambda g, x: div(g, x))
ad.defjvp2(tanh_p, lambda g, ans, x: mul(g, sub(_ones_like(ans), mul(ans, ans))))
ad.defjvp2(sqrt_p, lambda g, ans, x: div(g, mul(_full_like(ans, 2), ans)))
ad.defjvp2(logistic_p, lambda g, ans, x: mul(g, mul(ans, sub(_ones_like(ans), ans))))
ad.defjvp(abs_p, lambda g, x: _abs_jvp(g, x))
ad.defjvp_zero(sign_p)
ad.defjvp_zero(floor_p)
ad.defjvp_zero(ceil_p)


def _lower_unsigned(rule, signed_rule):
    """StableHLO's abs and sign take no unsigned operands: lower those as ``rule``."""
    def lower(ctx, x):
        if ctx.avals_in[0].dtype.kind == "u":
            return [rule(ctx, x)]
        return signed_rule(ctx, x)
    return lower


abs_p.lower = _lower_unsigned(lambda ctx, x: x, abs_p.lower)
sign_p.lower = _lower_unsigned(
    lambda ctx, x: hlo.minimum(x, full_like_aval(1, ctx.avals_in[0])), sign_p.lower)


def _abs_jvp(g, x):
    if dtypes.is_complex(get_aval(x).dtype):
        raise NotImplementedError("derivative of abs of complex values is not implemented")
    return mul(g, sign(x))


# ---------------------------------------------------------------- binary

def _int_div(x, y):
    # lax.div rounds toward zero (C semantics), unlike NumPy's floor division.
    with np.errstate(all="ignore"):
        if dtypes.is_integer(x.dtype):
            safe = np.where(y == 0, 1, y)
            q = np.abs(x) // np.abs(safe)
            q = np.where((x < 0) != (safe < 0), -q, q).astype(x.dtype)
            return np.where(y == 0, -1 if x.dtype.kind == "i" else np.iinfo(x.dtype).max, q)
        return np.divide(x, y)


def _pow(x, y):
    with np.errstate(all="ignore"):
        return np.power(x, y)


add_p = binop("add", np.add, hlo.add, NUMBER, scalars=True)
sub_p = binop("sub", np.subtract, hlo.subtract, NUMBER, scalars=True)
mul_p = binop("mul", np.multiply, hlo.multiply, NUMBER, scalars=True)
div_p = binop("div", _int_div, hlo.divide, NUMBER, scalars=True)
pow_p = binop("pow", _pow, hlo.power, INEXACT, scalars=True)
max_p = binop("max", np.maximum, hlo.maximum, ANY, scalars=True)
min_p = binop("min", np.minimum, hlo.minimum, ANY, scalars=True)


def add(x, y):
    return add_p.bind(*scalar_operands(x, y))


def sub(x, y):
    return sub_p.bind(*scalar_operands(x, y))


def mul(x, y):
    return mul_p.bind(*scalar_operands(x, y))


def div(x, y):
    return div_p.bind(*scalar_operands(x, y))


def pow(x, y):
    return pow_p.bind(*scalar_operands(x, y))


def max(x, y):
    return max_p.bind(*scalar_operands(x, y))


def min(x, y):
    return min_p.bind(*scalar_operands(x, y))


def _unbroadcast(ct, operand):
    """The cotangent of a rank-0 operand that was combined with a larger one: a sum."""
    if operand.aval.shape == () and get_aval(ct).shape != ():
        from .reductions import reduce_sum
        return reduce_sum(ct)
    return ct


def _add_transpose(cts, x, y):
    return [_unbroadcast(cts[0], x) if ad.is_undefined(x) else None,
            _unbroadcast(cts[0], y) if ad.is_undefined(y) else None]


def _sub_transpose(cts, x, y):
    return [_unbroadcast(cts[0], x) if ad.is_undefined(x) else None,
            _unbroadcast(neg(cts[0]), y) if ad.is_undefined(y) else None]


def _mul_transpose(cts, x, y):
    if ad.is_undefined(x):
        return [_unbroadcast(mul(cts[0], y), x), None]
    return [None, _unbroadcast(mul(x, cts[0]), y)]


ad.deflinear(add_p, _add_transpose)
ad.deflinear(sub_p, _sub_transpose)
ad.defjvp(mul_p, lambda g, x, y: mul(g, y), lambda g, x, y: mul(x, g))
mul_p.transpose = _mul_transpose
ad.defjvp(div_p, lambda g, x, y: div(g, y),
          lambda g, x, y: neg(div(mul(g, x), mul(y, y))))
div_p.transpose = lambda cts, x, y: [_unbroadcast(div(cts[0], y), x), None]


def _pow_jvp_x(g, x, y):
    # d/dx x**y = y * x**(y-1), taken as 0 where y == 0 (so 0**0 has slope 0).
    one = _ones_like(y)
    slope = mul(y, pow(x, sub(y, one)))
    return mul(g, select_n(eq(y, _zeros_like(y)), slope, _zeros_like(slope)))


def _pow_jvp_y(g, ans, x, y):
    # d/dy x**y = log(x) * x**y, taken as 0 where x == 0.
    zero = _zeros_like(x)
    is_zero = eq(x, zero)
    safe_log = log(select_n(is_zero, x, _ones_like(x)))
    return mul(g, mul(safe_log, ans))


def _pow_jvp(primals, tangents):
    x, y = primals
    gx, gy = tangents
    ans = pow(x, y)
    t = ad.Zero(ad.tangent_aval(get_aval(ans)))
    if type(gx) is not ad.Zero:
        t = ad.add_tangents(t, _pow_jvp_x(gx, x, y))
    if type(gy) is not ad.Zero:
        t = ad.add_tangents(t, _pow_jvp_y(gy, ans, x, y))
    return [ans], [t]


pow_p.jvp = _pow_jvp


def _minmax_jvp(pick_x):
    # Where x and y tie, each gets half the tangent (as JAX does).
    def jvp_x(g, x, y):
        return mul(g, _tie_weights(pick_x(x, y), eq(x, y), g))

    def jvp_y(g, x, y):
        return mul(g, _tie_weights(pick_x(y, x), eq(x, y), g))
    return jvp_x, jvp_y


def _tie_weights(wins, ties, like):
    dtype = get_aval(like).dtype
    one = convert_element_type(wins, dtype)
    half = mul(convert_element_type(ties, dtype), _full_like(one, 0.5))
    return add(one, half)


ad.defjvp(max_p, *_minmax_jvp(lambda a, b: gt(a, b)))
ad.defjvp(min_p, *_minmax_jvp(lambda a, b: lt(a, b)))


# ---------------------------------------------------------------- comparisons

def _compare(name, np_fn, direction):
    p = binop(name, np_fn, None, ANY, result_dtype=lambda _: np.dtype(np.bool_), scalars=True)
    p.lower = lower_compare(direction)
    ad.defjvp_zero(p)
    return p


eq_p = _compare("eq", np.equal, "EQ")
ne_p = _compare("ne", np.not_equal, "NE")
lt_p = _compare("lt", np.less, "LT")
le_p = _compare("le", np.less_equal, "LE")
gt_p = _compare("gt", np.greater, "GT")
ge_p = _compare("ge", np.greater_equal, "GE")


def eq(x, y):
    return eq_p.bind(*scalar_operands(x, y))


def ne(x, y):
    return ne_p.bind(*scalar_operands(x, y))


def lt(x, y):
    return lt_p.bind(*scalar_operands(x, y))


def le(x, y):
    return le_p.bind(*scalar_operands(x, y))


def gt(x, y):
    return gt_p.bind(*scalar_operands(x, y))


def ge(x, y):
    return ge_p.bind(*scalar_operands(x, y))


# ---------------------------------------------------------------- select_n

select_n_p = Primitive("select_n")


def select_n(which, *cases):
    """``cases[which]`` elementwise; ``which`` is bool (two cases) or int32."""
    return select_n_p.bind(which, *cases)


def _select_n_impl(which, *cases):
    if which.dtype == np.bool_:
        return [np.where(which, cases[1], cases[0])]
    return [np.choose(which, cases, mode="clip")]


def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("lax.select_n requires at least one case")
    if which.dtype == np.bool_:
        if len(cases) > 2:
            raise TypeError(f"lax.select_n with a bool selector takes 1 or 2 cases, "
                            f"got {len(cases)}")
    elif which.dtype != np.int32:
        raise TypeError(f"lax.select_n requires a bool or int32 selector, got "
                        f"{which.dtype.name}")
    from ._helpers import check_same
    check_same("select_n", list(cases))
    if which.shape not in ((), cases[0].shape):
        raise ValueError(f"lax.select_n selector shape {which.shape} must be () or the cases' "
                         f"shape {cases[0].shape}")
    c = cases[0]
    return [ShapedArray(c.shape, c.dtype, all(x.weak_type for x in cases))]


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    _, *tcases = tangents
    out = select_n(which, *cases)
    if all(type(t) is ad.Zero for t in tcases):
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    return [out], [select_n(which, *[ad.instantiate(t) for t in tcases])]


def _select_n_transpose(cts, which, *cases):
    ct = cts[0]
    zeros = _zeros_like(ct)
    outs = [None]
    for i, c in enumerate(cases):
        if ad.is_undefined(c):
            picks = [zeros] * len(cases)
            picks[i] = ct
            outs.append(select_n(which, *picks))
        else:
            outs.append(None)
    return outs


def _select_n_batch(axis_size, args, dims):
    which, *cases = args
    wdim, *cdims = dims
    shape = next(get_aval(c).shape if d is None else batching.mapped_aval(get_aval(c), d).shape
                 for c, d in zip(cases, cdims))
    cases = [batching.move_axis_to(axis_size, c, d, 0) for c, d in zip(cases, cdims)]
    if wdim is not None or get_aval(which).shape != ():
        which = batching.move_axis_to(axis_size, which, wdim, 0)
        if get_aval(which).ndim == 1 and shape:
            from .shapes import broadcast_in_dim
            which = broadcast_in_dim(which, (axis_size, *shape), (0,))
    return [select_n(which, *cases)], [0]


def _select_n_lower(ctx, which, *cases):
    if len(cases) == 1:
        return [cases[0]]
    if ctx.avals_in[0].dtype == np.bool_:
        return [hlo.select(which, cases[1], cases[0])]
    # int32 selector: a chain of selects, choosing case i where which == i.
    wt = ctx.avals_in[0]
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        pred = hlo.compare(which, full_like_aval(i, wt), hlo.ComparisonDirectionAttr.get("LE"),
                           compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
        out = hlo.select(pred, cases[i], out)
    return [out]


select_n_p.impl = _select_n_impl
select_n_p.abstract_eval = _select_n_abstract_eval
select_n_p.jvp = _select_n_jvp
select_n_p.transpose = _select_n_transpose
select_n_p.batch = _select_n_batch
select_n_p.lower = _select_n_lower


# ---------------------------------------------------------------- dtype conversion

convert_element_type_p = Primitive("convert_element_type")


def convert_element_type(x, new_dtype, weak_type=False):
    """``x`` converted to ``new_dtype`` (C-style, like NumPy's astype)."""
    new_dtype = dtypes.canonicalize(new_dtype)
    aval = get_aval(x)
    if aval.dtype == new_dtype and aval.weak_type == weak_type:
        return x
    return convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)


def _convert_impl(x, *, new_dtype, weak_type):
    with np.errstate(all="ignore"):
        if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
            x = np.real(x)
        return [x.astype(new_dtype)]


def _convert_abstract_eval(x, *, new_dtype, weak_type):
    return [ShapedArray(x.shape, new_dtype, weak_type)]


def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    (x,), (g,) = primals, tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if type(g) is ad.Zero or not (dtypes.is_inexact(get_aval(x).dtype)
                                  and dtypes.is_inexact(new_dtype)):
        return [out], [ad.Zero(ad.tangent_aval(get_aval(out)))]
    return [out], [convert_element_type_p.bind(g, new_dtype=new_dtype, weak_type=weak_type)]


def _convert_transpose(cts, x, *, new_dtype, weak_type):
    aval = x.aval
    return [convert_element_type_p.bind(cts[0], new_dtype=aval.dtype, weak_type=aval.weak_type)]


def _convert_lower(ctx, x, *, new_dtype, weak_type):
    src = ctx.avals_in[0]
    out_aval = ctx.avals_out[0]
    if src.dtype == new_dtype:
        return [x]
    if new_dtype == np.bool_:
        zero = full_like_aval(0, src)
        kind = "FLOAT" if dtypes.is_inexact(src.dtype) else (
            "UNSIGNED" if src.dtype.kind in "ub" else "SIGNED")
        return [hlo.compare(x, zero, hlo.ComparisonDirectionAttr.get("NE"),
                            compare_type=hlo.ComparisonTypeAttr.get(kind))]
    if dtypes.is_complex(src.dtype) and not dtypes.is_complex(new_dtype):
        x = hlo.real(x)
    return [hlo.convert(ir_type(out_aval), x)]


convert_element_type_p.impl = _convert_impl
convert_element_type_p.abstract_eval = _convert_abstract_eval
convert_element_type_p.jvp = _convert_jvp
convert_element_type_p.transpose = _convert_transpose
batching.defvectorized(convert_element_type_p)
convert_element_type_p.lower = _convert_lower


# ---------------------------------------------------------------- stop_gradient

stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.impl = lambda x: [x]
stop_gradient_p.abstract_eval = lambda x: [x]
ad.defjvp_zero(stop_gradient_p)
batching.defvectorized(stop_gradient_p)
stop_gradient_p.lower = lambda ctx, x: [x]


def stop_gradient(x):
    """``x`` (any pytree of arrays), treated as a constant by differentiation."""
    from ..tree_util import tree_map
    return tree_map(stop_gradient_p.bind, x)


# ---------------------------------------------------------------- helpers

def _full_like(x, value):
    from .shapes import full
    aval = get_aval(x)
    return full(aval.shape, value, aval.dtype)


def _ones_like(x):
    return _full_like(x, 1)


def _zeros_like(x):
    return _full_like(x, 0)


# ---------------------------------------------------------------- more unary (issue 3, part A)

log1p_p = unop("log1p", _ignore_fp_errors(np.log1p), hlo.log_plus_one)
expm1_p = unop("expm1", _ignore_fp_errors(np.expm1), hlo.exponential_minus_one)
tan_p = unop("tan", _ignore_fp_errors(np.tan), hlo.tan)
rsqrt_p = unop("rsqrt", _ignore_fp_errors(lambda x: (1 / np.sqrt(x)).astype(x.dtype)), hlo.rsqrt)
sinh_p = unop("sinh", _ignore_fp_errors(np.sinh), chlo.sinh)
cosh_p = unop("cosh", _ignore_fp_errors(np.cosh), chlo.cosh)


def log1p(x):
    """Elementwise ``log(1 + x)``."""
    return log1p_p.bind(x)


def expm1(x):
    """Elementwise ``exp(x) - 1``."""
    return expm1_p.bind(x)


def tan(x):
    """Elementwise tangent."""
    return tan_p.bind(x)


def rsqrt(x):
    """Elementwise ``1 / sqrt(x)``."""
    return rsqrt_p.bind(x)


def sinh(x):
    """Elementwise hyperbolic sine."""
    return sinh_p.bind(x)


def cosh(x):
    """Elementwise hyperbolic cosine."""
    return cosh_p.bind(x)


ad.defjvp(log1p_p, lambda g, x: div(g, add(_ones_like(x), x)))
ad.defjvp2(expm1_p, lambda g, ans, x: mul(g, add(ans, _ones_like(ans))))
ad.defjvp2(tan_p, lambda g, ans, x: mul(g, add(_ones_like(ans), mul(ans, ans))))
ad.defjvp2(rsqrt_p, lambda g, ans, x: mul(g, mul(_full_like(ans, -0.5), div(ans, x))))
ad.defjvp(sinh_p, lambda g, x: mul(g, cosh(x)))
ad.defjvp(cosh_p, lambda g, x: mul(g, sinh(x)))

asin_p = unop("asin", _ignore_fp_errors(np.arcsin), chlo.asin)
acos_p = unop("acos", _ignore_fp_errors(np.arccos), chlo.acos)
atan_p = unop("atan", _ignore_fp_errors(np.arctan), chlo.atan)
asinh_p = unop("asinh", _ignore_fp_errors(np.arcsinh), chlo.asinh)
atanh_p = unop("atanh", _ignore_fp_errors(np.arctanh), chlo.atanh)


def asin(x):
    """Elementwise arcsine."""
    return asin_p.bind(x)


def acos(x):
    """Elementwise arccosine."""
    return acos_p.bind(x)


def atan(x):
    """Elementwise arctangent."""
    return atan_p.bind(x)


def asinh(x):
    """Elementwise inverse hyperbolic sine."""
    return asinh_p.bind(x)


def atanh(x):
    """Elementwise inverse hyperbolic tangent."""
    return atanh_p.bind(x)


def _one_minus_sq(x):
    return sub(_ones_like(x), mul(x, x))


ad.defjvp(asin_p, lambda g, x: mul(g, rsqrt(_one_minus_sq(x))))
ad.defjvp(acos_p, lambda g, x: neg(mul(g, rsqrt(_one_minus_sq(x)))))
ad.defjvp(atan_p, lambda g, x: div(g, add(_ones_like(x), mul(x, x))))
ad.defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(mul(x, x), _ones_like(x)))))
ad.defjvp(atanh_p, lambda g, x: div(g, _one_minus_sq(x)))

cbrt_p = unop("cbrt", np.cbrt, hlo.cbrt)
is_finite_p = unop("is_finite", np.isfinite, hlo.is_finite, "f", result_dtype=lambda d: np.dtype(bool))
atan2_p = binop("atan2", _ignore_fp_errors(np.arctan2), hlo.atan2, INEXACT)


def cbrt(x):
    """Elementwise cube root."""
    return cbrt_p.bind(x)


def is_finite(x):
    """Elementwise test for values that are neither infinite nor NaN."""
    return is_finite_p.bind(x)


def atan2(x, y):
    """Elementwise four-quadrant arctangent of ``x / y``."""
    return atan2_p.bind(x, y)


ad.defjvp2(cbrt_p, lambda g, ans, x: div(g, mul(_full_like(ans, 3), mul(ans, ans))))
ad.defjvp_zero(is_finite_p)
ad.defjvp(atan2_p, lambda g, x, y: div(mul(g, y), add(mul(x, x), mul(y, y))),
          lambda g, x, y: neg(div(mul(g, x), add(mul(x, x), mul(y, y)))))


def _rem(x, y):
    # C fmod: the sign of the dividend. XLA gives x % 0 == x and INT_MIN % -1 == 0 for integers.
    with np.errstate(all="ignore"):
        if dtypes.is_integer(x.dtype):
            safe = np.where((y == 0) | (y == -1 if x.dtype.kind == "i" else False), 1, y)
            return np.where(y == 0, x, np.fmod(x, safe)).astype(x.dtype)
        return np.fmod(x, y)


rem_p = binop("rem", _rem, hlo.remainder, NUMBER)


def rem(x, y):
    """Elementwise remainder of ``x / y`` with the sign of ``x`` (C ``fmod``)."""
    return rem_p.bind(x, y)


ad.defjvp(rem_p, lambda g, x, y: g,
          lambda g, x, y: neg(mul(g, mul(sign(div(x, y)), floor(abs(div(x, y)))))))
