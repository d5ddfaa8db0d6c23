"""Elementwise primitives, by topic: arithmetic, powers and rounding; comparison and
selection; exponential and logarithmic; trigonometric and hyperbolic; special functions;
bitwise operations and shifts; conversions; complex parts.

Each primitive's rules (jvp, transpose, batching, lowering) sit next to its definition.
The NumPy kernels (the eager implementations) reproduce XLA's semantics where the two
libraries differ (shift amounts, float -> int conversion, rounding ties).
"""

import enum

import numpy as np

from .. import _checks, dtypes
from ..core import Primitive, get_aval
from ..core.avals import ShapedArray
from ..interpreters import ad, batching, lowering
from ..interpreters.lowering import (
    chlo,
    full_like_aval,
    hlo,
    ir_type,
    lower_compare,
    lower_elementwise,
)
from ..tree_util import tree_flatten, tree_map, tree_unflatten
from ._helpers import (
    ANY,
    BOOL,
    COMPLEX,
    FLOAT,
    INEXACT,
    INT,
    NUMBER,
    as_operand,
    binop,
    check_kinds,
    check_same,
    scalar_operands,
    unop,
)
from ._helpers import full_like as _full_like
from ._helpers import zeros_like as _zeros_like
from .special import digamma64, erf64, erf_inv64, erfc64, lgamma64, polygamma64, zeta64


def _ignore_fp_errors(fn):
    """``fn`` with NumPy's floating-point warnings off (XLA gives NaN and inf silently)."""
    try:   # what np.errstate sets, at a third of its cost per call
        from numpy._core.umath import _extobj_contextvar as state
        from numpy._core.umath import _make_extobj
    except ImportError:
        def wrapped(*args):
            with np.errstate(all="ignore"):
                return fn(*args)
        return wrapped
    ignore = _make_extobj(all="ignore")

    def wrapped(*args):
        token = state.set(ignore)
        try:
            return fn(*args)
        finally:
            state.reset(token)
    return wrapped


def _lower_unsigned(rule, signed_rule):
    """StableHLO's abs and sign take no unsigned operands: lower those as ``rule``."""
    def lower(ctx, x):
        if ctx.avals_in[0].dtype.kind == "u":
            return [rule(ctx, x)]
        return signed_rule(ctx, x)
    return lower


def _unbroadcast(ct, operand):
    """The cotangent of a rank-0 operand that was combined with a larger one: a sum."""
    if operand.aval.shape == () and get_aval(ct).shape != ():
        from .reductions import reduce_sum   # deferred: reductions imports elementwise
        return reduce_sum(ct)
    return ct


def _ones_like(x):
    return _full_like(x, 1)


def _via_float64(fn):
    """Evaluate ``fn`` in float64 and round the result back to the operand's dtype."""
    def wrapped(x):
        x = np.asarray(x)
        with np.errstate(all="ignore"):
            return np.asarray(fn(np.asarray(x, np.float64)), np.float64).astype(x.dtype)
    return wrapped


def _via_float32(fn):
    """Evaluate ``fn`` on float16/bfloat16 operands in float32 (as XLA does), others as is."""
    def wrapped(x, *args, **params):
        with np.errstate(all="ignore"):
            if x.dtype.itemsize == 2 and dtypes.kind(x.dtype) == "f":
                args = [np.asarray(a, np.float32) for a in args]
                return np.asarray(fn(x.astype(np.float32), *args, **params)).astype(x.dtype)
            return fn(x, *args, **params)
    return wrapped


def _bcast_to(t, shape):
    if get_aval(t).shape == shape:
        return t
    from .shapes import broadcast_in_dim   # deferred: shapes imports elementwise
    return broadcast_in_dim(t, shape, ())


def _via_float64_2(fn):
    def wrapped(a, b):
        a, b = np.asarray(a), np.asarray(b)
        with np.errstate(all="ignore"):
            return np.asarray(fn(a, b), np.float64).astype(a.dtype)
    return wrapped


# -------------------- arithmetic, powers and rounding

neg_p = unop("neg", np.negative, hlo.negate, NUMBER)
sqrt_p = unop("sqrt", _ignore_fp_errors(np.sqrt), hlo.sqrt)
abs_p = unop("abs", np.abs, kinds=NUMBER, result_dtype=dtypes.real_dtype,
             lower=_lower_unsigned(lambda ctx, x: x, lower_elementwise(hlo.abs)))
def _sign_lower_signed(ctx, x):
    aval = ctx.avals_in[0]
    out = hlo.sign(x)
    if dtypes.is_float(aval.dtype):   # sign(-0.0) is 0.0 in NumPy (the kernel); XLA: -0.0
        zero = full_like_aval(0, aval)
        is_zero = hlo.compare(x, zero, hlo.ComparisonDirectionAttr.get("EQ"),
                              compare_type=hlo.ComparisonTypeAttr.get("FLOAT"))
        out = hlo.select(is_zero, zero, out)
    return [out]


sign_p = unop("sign", np.sign, kinds=NUMBER, lower=_lower_unsigned(
    lambda ctx, x: hlo.minimum(x, full_like_aval(1, ctx.avals_in[0])), _sign_lower_signed))
floor_p = unop("floor", np.floor, hlo.floor, "f")
ceil_p = unop("ceil", np.ceil, hlo.ceil, "f")


def neg(x):
    return neg_p.bind(x)


def sqrt(x):
    return sqrt_p.bind(x)


def abs(x):
    return abs_p.bind(x)


def sign(x):
    return sign_p.bind(x)


def floor(x):
    return floor_p.bind(x)


def ceil(x):
    return ceil_p.bind(x)


ad.deflinear(neg_p, lambda cts, x: [neg(cts[0])])
ad.defjvp2(sqrt_p, lambda g, ans, x: div(g, mul(_full_like(ans, 2), ans)))
ad.defjvp(abs_p, lambda g, x: _abs_jvp(g, x))
ad.defjvp_zero(sign_p)
ad.defjvp_zero(floor_p)
ad.defjvp_zero(ceil_p)


def _abs_jvp(g, x):
    if dtypes.is_complex(get_aval(x).dtype):
        # d|z| = Re(conj(z) dz) / |z|, taken as 0 at z == 0
        r = abs(x)
        zero = _zeros_like(r)
        is_zero = eq(r, zero)
        safe_r = select_n(is_zero, r, _ones_like(r))
        return select_n(is_zero, div(real(mul(conj(x), g)), safe_r), zero)
    return mul(g, sign(x))


def _int_div(x, y):
    # lax.div rounds toward zero (C semantics), unlike NumPy's floor division. As in XLA,
    # x / 0 is -1 (all bits set for unsigned) and INT_MIN / -1 is INT_MIN.
    with np.errstate(all="ignore"):
        if dtypes.is_integer(x.dtype):
            signed = x.dtype.kind == "i"
            overflow = (x == np.iinfo(x.dtype).min) & (y == -1) if signed else False
            safe = np.where((y == 0) | overflow, 1, y).astype(x.dtype)
            q = x // safe
            inexact = q * safe != x
            q = np.where(inexact & ((x < 0) != (safe < 0)), q + 1, q).astype(x.dtype)
            q = np.where(overflow, x, q)
            return np.where(y == 0, -1 if signed else np.iinfo(x.dtype).max, q).astype(x.dtype)
        return np.divide(x, y)


def _pow(x, y):
    with np.errstate(all="ignore"):
        return np.power(x, y)


add_p = binop("add", np.add, hlo.add, NUMBER, scalars=True)
sub_p = binop("sub", np.subtract, hlo.subtract, NUMBER, scalars=True)
mul_p = binop("mul", np.multiply, hlo.multiply, NUMBER, scalars=True)
div_p = binop("div", _int_div, hlo.divide, NUMBER, scalars=True)
pow_p = binop("pow", _pow, hlo.power, INEXACT, scalars=True)
max_p = binop("max", np.maximum, lowering.maximum, ANY, scalars=True)
min_p = binop("min", np.minimum, lowering.minimum, ANY, scalars=True)


def add(x, y):
    return add_p.bind(*scalar_operands(x, y, add_p))


def sub(x, y):
    return sub_p.bind(*scalar_operands(x, y, sub_p))


def mul(x, y):
    return mul_p.bind(*scalar_operands(x, y, mul_p))


def div(x, y):
    return div_p.bind(*scalar_operands(x, y, div_p))


def pow(x, y):
    return pow_p.bind(*scalar_operands(x, y, pow_p))


def max(x, y):
    return max_p.bind(*scalar_operands(x, y, max_p))


def min(x, y):
    return min_p.bind(*scalar_operands(x, y, min_p))


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
    # d/dx x**y = y * x**(y-1), which is 0 where y == 0 (so 0**0 has slope 0). The
    # exponent y-1 is replaced by 0 there, so no 0 * inf appears in this slope or in
    # its own derivatives (a select after the fact would leave NaN in higher orders).
    one = _ones_like(y)
    safe_y = select_n(eq(y, _zeros_like(y)), y, one)
    return mul(g, mul(y, pow(x, sub(safe_y, one))))


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
rsqrt_p = unop("rsqrt", _ignore_fp_errors(lambda x: (1 / np.sqrt(x)).astype(x.dtype)), hlo.rsqrt)


def rsqrt(x):
    """Elementwise ``1 / sqrt(x)``."""
    return rsqrt_p.bind(x)


ad.defjvp2(rsqrt_p, lambda g, ans, x: mul(g, mul(_full_like(ans, -0.5), div(ans, x))))
cbrt_p = unop("cbrt", np.cbrt, hlo.cbrt, FLOAT)


def cbrt(x):
    """Elementwise cube root."""
    return cbrt_p.bind(x)


ad.defjvp2(cbrt_p, lambda g, ans, x: div(g, mul(_full_like(ans, 3), mul(ans, ans))))


def _rem(x, y):
    # C fmod: the sign of the dividend. XLA gives x % 0 == x and INT_MIN % -1 == 0 for integers.
    with np.errstate(all="ignore"):
        if dtypes.is_integer(x.dtype):
            safe = np.where((y == 0) | (y == -1 if x.dtype.kind == "i" else False), 1, y)
            return np.where(y == 0, x, np.fmod(x, safe)).astype(x.dtype)
        return np.fmod(x, y)


rem_p = binop("rem", _rem, hlo.remainder, INT + FLOAT)


def rem(x, y):
    """Elementwise remainder of ``x / y`` with the sign of ``x`` (C ``fmod``)."""
    return rem_p.bind(*scalar_operands(x, y, rem_p))


ad.defjvp(rem_p, lambda g, x, y: g,
          lambda g, x, y: neg(mul(g, mul(sign(div(x, y)), floor(abs(div(x, y)))))))


class RoundingMethod(enum.IntEnum):
    """How ``lax.round`` breaks ties: away from zero (C ``round``) or to even."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def _round_afz(x):
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _round_impl(x, *, rounding_method):
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.rint(x)
    return _round_afz(x)


def _round_lower(ctx, x, *, rounding_method):
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return [hlo.round_nearest_even(x)]
    return [hlo.round_nearest_afz(x)]


round_p = unop("round", _via_float32(_round_impl), kinds=FLOAT, lower=_round_lower)
ad.defjvp_zero(round_p)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    """Elementwise rounding to the nearest integer; ``rounding_method`` breaks ties."""
    try:
        method = RoundingMethod(_checks.index(rounding_method))
    except (TypeError, ValueError):
        raise ValueError(f"lax.round got rounding_method={rounding_method!r}; expected "
                         f"RoundingMethod.AWAY_FROM_ZERO (0) or TO_NEAREST_EVEN (1)") from None
    return round_p.bind(x, rounding_method=method)


square_p = unop("square", _ignore_fp_errors(np.square), kinds=NUMBER,
                lower=lambda ctx, x: [hlo.multiply(x, x)])


def square(x):
    """Elementwise ``x * x``."""
    return square_p.bind(x)


ad.defjvp(square_p, lambda g, x: mul(g, mul(_full_like(x, 2), x)))


def _integer_pow_steps(x, y, mul_fn, one, recip):
    """x ** y by repeated squaring (the multiplication order the lowering uses too)."""
    if y == 0:
        return one()
    n = -y if y < 0 else y
    acc = None
    while n > 0:
        if n & 1:
            acc = x if acc is None else mul_fn(acc, x)
        n >>= 1
        if n > 0:
            x = mul_fn(x, x)
    return recip(acc) if y < 0 else acc


def _integer_pow_impl(x, *, y):
    with np.errstate(all="ignore"):
        return np.asarray(_integer_pow_steps(
            x, y, np.multiply, lambda: np.ones_like(x), lambda a: np.divide(
                np.ones((), x.dtype), a))).astype(x.dtype)


def _integer_pow_lower(ctx, x, *, y):
    aval = ctx.avals_in[0]
    return [_integer_pow_steps(x, y, hlo.multiply, lambda: full_like_aval(1, aval),
                               lambda a: hlo.divide(full_like_aval(1, aval), a))]


def _integer_pow_check(x, *, y):
    if type(y) is not int and not isinstance(y, np.integer):
        raise TypeError(f"lax.integer_pow requires a static Python int exponent, got {y!r}")
    if y < 0 and not dtypes.is_inexact(x.dtype):
        raise TypeError(f"lax.integer_pow with a negative exponent ({y}) requires a "
                        f"floating or complex operand, got dtype {x.dtype.name}")


integer_pow_p = unop("integer_pow", _integer_pow_impl, kinds=NUMBER, check=_integer_pow_check,
                     lower=_integer_pow_lower)


def integer_pow(x, y):
    """Elementwise ``x ** y`` for a static integer ``y``, by repeated multiplication."""
    if isinstance(y, (bool, np.bool_)) or not isinstance(y, (int, np.integer)):
        raise TypeError(f"lax.integer_pow requires a static Python int exponent, got {y!r}")
    return integer_pow_p.bind(x, y=_checks.index(y))


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        return _zeros_like(g)
    return mul(g, mul(_full_like(x, y), integer_pow(x, y - 1)))


ad.defjvp(integer_pow_p, _integer_pow_jvp)
nextafter_p = binop("nextafter", np.nextafter, chlo.next_after, FLOAT)
# (one float step from x1: it moves with x1, as x1 + spacing does, and not with x2)
ad.defjvp(nextafter_p, lambda g, x1, x2: g, None)


def nextafter(x1, x2):
    """Elementwise next representable value after ``x1`` in the direction of ``x2``."""
    return nextafter_p.bind(*scalar_operands(x1, x2, nextafter_p))


# -------------------- comparison and selection

def _compare(name, np_fn, direction):
    p = binop(name, np_fn, kinds=ANY, result_dtype=lambda _: np.dtype(np.bool_), scalars=True,
              lower=lower_compare(direction))
    ad.defjvp_zero(p)
    return p


eq_p = _compare("eq", np.equal, "EQ")
ne_p = _compare("ne", np.not_equal, "NE")
lt_p = _compare("lt", np.less, "LT")
le_p = _compare("le", np.less_equal, "LE")
gt_p = _compare("gt", np.greater, "GT")
ge_p = _compare("ge", np.greater_equal, "GE")


def eq(x, y):
    return eq_p.bind(*scalar_operands(x, y, eq_p))


def ne(x, y):
    return ne_p.bind(*scalar_operands(x, y, ne_p))


def lt(x, y):
    return lt_p.bind(*scalar_operands(x, y, lt_p))


def le(x, y):
    return le_p.bind(*scalar_operands(x, y, le_p))


def gt(x, y):
    return gt_p.bind(*scalar_operands(x, y, gt_p))


def ge(x, y):
    return ge_p.bind(*scalar_operands(x, y, ge_p))


select_n_p = Primitive("select_n")


def select_n(which, *cases):
    """``cases[which]`` elementwise; ``which`` is bool (two cases) or int32."""
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (elementwise)."""
    return select_n(pred, on_false, on_true)


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
            from .shapes import broadcast_in_dim   # deferred: shapes imports elementwise
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
is_finite_p = unop("is_finite", np.isfinite, hlo.is_finite, "f", result_dtype=lambda d: np.dtype(bool))


def is_finite(x):
    """Elementwise test for values that are neither infinite nor NaN."""
    return is_finite_p.bind(x)


ad.defjvp_zero(is_finite_p)
clamp_p = Primitive("clamp")


def clamp(min, x, max):
    """Elementwise ``min(max(x, min), max)``; ``min`` and ``max`` may be rank 0."""
    return clamp_p.bind(as_operand(min, x), x, as_operand(max, x))


def _clamp_impl(lo, x, hi):
    return [np.minimum(np.maximum(x, lo), hi).astype(x.dtype)]


def _clamp_abstract_eval(lo, x, hi):
    check_kinds("clamp", x, INT + FLOAT)
    if not lo.dtype == x.dtype == hi.dtype:
        raise TypeError(f"lax.clamp requires min, operand and max of one dtype, got "
                        f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}")
    for what, a in (("min", lo), ("max", hi)):
        if a.shape not in ((), x.shape):
            raise ValueError(f"lax.clamp requires {what} of rank 0 or of the operand's shape "
                             f"{x.shape}, got {what} of shape {a.shape}")
    return [ShapedArray(x.shape, x.dtype, x.weak_type and lo.weak_type and hi.weak_type)]


def _clamp_lower(ctx, lo, x, hi):
    return [hlo.clamp(lo, x, hi)]


def _clamp_batch(axis_size, args, dims):
    lo, x, hi = args
    ld, xd, hd = dims
    x = batching.move_axis_to(axis_size, x, xd, 0)
    shape = get_aval(x).shape
    from .shapes import broadcast_in_dim   # deferred: shapes imports elementwise
    out = []
    for a, d in ((lo, ld), (hi, hd)):
        if d is None and get_aval(a).shape == ():
            out.append(a)
        elif d is None:
            out.append(broadcast_in_dim(a, shape, tuple(range(1, len(shape)))))
        elif get_aval(a).ndim == 1:
            out.append(broadcast_in_dim(a, shape, (d,)))
        else:
            out.append(batching.move_axis_to(axis_size, a, d, 0))
    return [clamp(out[0], x, out[1])], [0]


def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    out = clamp(lo, x, hi)
    shape = get_aval(out).shape
    t = ad.Zero(ad.tangent_aval(get_aval(out)))
    # The output follows min where x < min < max, x where min < x < max, and max where
    # max < x or max < min (min(max(x, min), max) is max when the bounds cross).
    takes = (lambda: bitwise_and(_bcast_to(gt(lo, x), shape), _bcast_to(lt(lo, hi), shape)),
             lambda: bitwise_and(_bcast_to(gt(x, lo), shape), _bcast_to(lt(x, hi), shape)),
             lambda: bitwise_or(_bcast_to(lt(hi, x), shape), _bcast_to(lt(hi, lo), shape)))
    for take, g in zip(takes, tangents):
        if type(g) is not ad.Zero:
            g = _bcast_to(g, shape)
            t = ad.add_tangents(t, select_n(take(), _zeros_like(g), g))
    return [out], [t]


clamp_p.impl = _clamp_impl
clamp_p.abstract_eval = _clamp_abstract_eval
clamp_p.jvp = _clamp_jvp
clamp_p.batch = _clamp_batch
clamp_p.lower = _clamp_lower


# -------------------- exponential and logarithmic

exp_p = unop("exp", _ignore_fp_errors(np.exp), hlo.exponential)
log_p = unop("log", _ignore_fp_errors(np.log), hlo.log)
logistic_p = unop("logistic", _ignore_fp_errors(lambda x: 1 / (1 + np.exp(-x))), hlo.logistic)


def exp(x):
    return exp_p.bind(x)


def log(x):
    return log_p.bind(x)


def logistic(x):
    return logistic_p.bind(x)


ad.defjvp2(exp_p, lambda g, ans, x: mul(g, ans))
ad.defjvp(log_p, lambda g, x: div(g, x))
ad.defjvp2(logistic_p, lambda g, ans, x: mul(g, mul(ans, sub(_ones_like(ans), ans))))
log1p_p = unop("log1p", _ignore_fp_errors(np.log1p), hlo.log_plus_one)
expm1_p = unop("expm1", _ignore_fp_errors(np.expm1), hlo.exponential_minus_one)


def log1p(x):
    """Elementwise ``log(1 + x)``."""
    return log1p_p.bind(x)


def expm1(x):
    """Elementwise ``exp(x) - 1``."""
    return expm1_p.bind(x)


ad.defjvp(log1p_p, lambda g, x: div(g, add(_ones_like(x), x)))
ad.defjvp2(expm1_p, lambda g, ans, x: mul(g, add(ans, _ones_like(ans))))


def _exp2_impl(x):
    if dtypes.is_complex(x.dtype):
        return np.power(np.asarray(2, x.dtype), x)
    return np.exp2(x)


def _exp2_lower(ctx, x):
    # pow(2, x) (exact for integral x, unlike exp(x log 2)); 16-bit floats go through float32.
    aval = ctx.avals_in[0]
    wide = aval.update(dtype=np.dtype(np.float32)) if aval.dtype.itemsize == 2 else aval
    if wide is not aval:
        x = hlo.convert(ir_type(wide), x)
    out = hlo.power(full_like_aval(2, wide), x)
    return [hlo.convert(ir_type(aval), out) if wide is not aval else out]


exp2_p = unop("exp2", _ignore_fp_errors(_via_float32(_exp2_impl)), lower=_exp2_lower)


def exp2(x):
    """Elementwise ``2 ** x``."""
    return exp2_p.bind(x)


ad.defjvp2(exp2_p, lambda g, ans, x: mul(g, mul(ans, _full_like(ans, np.log(2)))))


# -------------------- trigonometric and hyperbolic

sin_p = unop("sin", _ignore_fp_errors(np.sin), hlo.sine)
cos_p = unop("cos", _ignore_fp_errors(np.cos), hlo.cosine)
tanh_p = unop("tanh", _ignore_fp_errors(np.tanh), hlo.tanh)


def sin(x):
    return sin_p.bind(x)


def cos(x):
    return cos_p.bind(x)


def tanh(x):
    return tanh_p.bind(x)


ad.defjvp(sin_p, lambda g, x: mul(g, cos(x)))
ad.defjvp(cos_p, lambda g, x: neg(mul(g, sin(x))))
ad.defjvp2(tanh_p, lambda g, ans, x: mul(g, sub(_ones_like(ans), mul(ans, ans))))
tan_p = unop("tan", _ignore_fp_errors(np.tan), hlo.tan)
sinh_p = unop("sinh", _ignore_fp_errors(np.sinh), chlo.sinh)
cosh_p = unop("cosh", _ignore_fp_errors(np.cosh), chlo.cosh)


def tan(x):
    """Elementwise tangent."""
    return tan_p.bind(x)


def sinh(x):
    """Elementwise hyperbolic sine."""
    return sinh_p.bind(x)


def cosh(x):
    """Elementwise hyperbolic cosine."""
    return cosh_p.bind(x)


ad.defjvp2(tan_p, lambda g, ans, x: mul(g, add(_ones_like(ans), mul(ans, ans))))
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
atan2_p = binop("atan2", _ignore_fp_errors(np.arctan2), hlo.atan2, FLOAT)


def atan2(x, y):
    """Elementwise four-quadrant arctangent of ``x / y``."""
    return atan2_p.bind(*scalar_operands(x, y, atan2_p))


ad.defjvp(atan2_p, lambda g, x, y: div(mul(g, y), add(mul(x, x), mul(y, y))),
          lambda g, x, y: neg(div(mul(g, x), add(mul(x, x), mul(y, y)))))
acosh_p = unop("acosh", _ignore_fp_errors(np.arccosh), chlo.acosh)


def acosh(x):
    """Elementwise inverse hyperbolic cosine."""
    return acosh_p.bind(x)


ad.defjvp(acosh_p, lambda g, x: mul(g, rsqrt(mul(sub(x, _ones_like(x)),
                                                  add(x, _ones_like(x))))))


# -------------------- special functions (float64 kernels in special.py)

erf_p = unop("erf", _via_float64(erf64), chlo.erf, FLOAT)
erfc_p = unop("erfc", _via_float64(erfc64), chlo.erfc, FLOAT)
erf_inv_p = unop("erf_inv", _via_float64(erf_inv64), chlo.erf_inv, FLOAT)
lgamma_p = unop("lgamma", _via_float64(lgamma64), chlo.lgamma, FLOAT)


def _digamma_lower(ctx, x):
    # the pole at zero from either side: -1/x is -inf at +0 and +inf at -0 (as SciPy)
    aval = ctx.avals_in[0]
    at_zero = _float_cmp(x, full_like_aval(0, aval), "EQ")
    return [hlo.select(at_zero, hlo.negate(hlo.divide(full_like_aval(1, aval), x)),
                       chlo.digamma(x))]


digamma_p = unop("digamma", _via_float64(digamma64), kinds=FLOAT, lower=_digamma_lower)


def erf(x):
    """Elementwise error function."""
    return erf_p.bind(x)


def erfc(x):
    """Elementwise complementary error function ``1 - erf(x)``."""
    return erfc_p.bind(x)


def erf_inv(x):
    """Elementwise inverse of the error function."""
    return erf_inv_p.bind(x)


def lgamma(x):
    """Elementwise log of the absolute value of the gamma function."""
    return lgamma_p.bind(x)


def digamma(x):
    """Elementwise digamma function, the derivative of ``lgamma``."""
    return digamma_p.bind(x)


def _two_over_sqrt_pi(x):
    return _full_like(x, 2 / np.sqrt(np.pi))


def _digamma_jvp(g, x):
    # trigamma; below zero by reflection, psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
    # (polygamma gives NaN for negative non-integer x)
    one, negative = _ones_like(x), lt(x, _zeros_like(x))
    # each branch sees only its own inputs (else 0 * NaN poisons reverse-mode derivatives)
    x_neg = select_n(negative, _full_like(x, -0.5), x)
    x_pos = select_n(negative, x, _full_like(x, 0.5))
    reflected = sub(div(_full_like(x, np.pi ** 2),
                        square(sin(mul(_full_like(x, np.pi), x_neg)))),
                    polygamma(one, sub(one, x_neg)))
    return mul(g, select_n(negative, polygamma(one, x_pos), reflected))


ad.defjvp(erf_p, lambda g, x: mul(g, mul(_two_over_sqrt_pi(x), exp(neg(square(x))))))
ad.defjvp(erfc_p, lambda g, x: neg(mul(g, mul(_two_over_sqrt_pi(x), exp(neg(square(x)))))))
ad.defjvp2(erf_inv_p, lambda g, ans, x: mul(g, mul(_full_like(x, np.sqrt(np.pi) / 2),
                                                   exp(square(ans)))))
ad.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))
ad.defjvp(digamma_p, _digamma_jvp)


def _float_cmp(a, b, direction):
    return hlo.compare(a, b, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get("FLOAT"))


def _mask_negative_q(ctx, out, s, q, s_is_order):
    """Fix XLA's zeta-based results up: NaN for negative non-integer q, 0 at q = +inf."""
    aval = ctx.avals_in[1]
    zero, inf, nan = (full_like_aval(v, aval) for v in (0, np.inf, np.nan))
    negative_fraction = hlo.and_(_float_cmp(q, zero, "LT"),
                                 _float_cmp(q, hlo.floor(q), "NE"))
    at_inf = _float_cmp(q, inf, "EQ")
    if s_is_order:        # polygamma: only orders m >= 1 go through zeta
        m_pos = _float_cmp(s, zero, "GT")
        negative_fraction = hlo.and_(negative_fraction, m_pos)
        at_inf = hlo.and_(at_inf, m_pos)
    else:
        at_inf = hlo.and_(at_inf, _float_cmp(s, full_like_aval(1, aval), "GT"))
    out = hlo.select(negative_fraction, nan, out)
    return hlo.select(at_inf, zero, out)


def _zeta_lower(ctx, s, q):
    out = _mask_negative_q(ctx, chlo.zeta(s, q), s, q, False)
    # The poles at q = 0, -1, -2, ...: inf, where XLA gives NaN.
    aval = ctx.avals_in[1]
    pole = hlo.and_(_float_cmp(q, full_like_aval(0, aval), "LE"),
                    hlo.and_(_float_cmp(q, hlo.floor(q), "EQ"), _float_cmp(s, s, "EQ")))
    out = hlo.select(pole, full_like_aval(np.inf, aval), out)
    # s = +inf: q^-inf alone survives (1 at q = 1, 0 above, inf on (0, 1))
    zero, one = full_like_aval(0, aval), full_like_aval(1, aval)
    at_inf = hlo.and_(_float_cmp(s, full_like_aval(np.inf, aval), "EQ"),
                      _float_cmp(q, zero, "GT"))
    limit = hlo.select(_float_cmp(q, one, "EQ"), one,
                       hlo.select(_float_cmp(q, one, "GT"), zero,
                                  full_like_aval(np.inf, aval)))
    return [hlo.select(at_inf, limit, out)]


def _polygamma_shift_sum(m, x):
    """The lax form of ``special.polygamma_shift_sum64`` (a while loop over the shift)."""
    from .loops import while_loop   # deferred: loops imports elementwise
    from .reductions import reduce_or   # deferred: reductions imports elementwise
    zero = _zeros_like(x)
    negative_fraction = bitwise_and(lt(x, zero), ne(x, floor(x)))
    shift = select(negative_fraction, ceil(neg(x)), zero)
    power = neg(add(m, _ones_like(m)))

    def body(state):
        j, total = state
        active = lt(j, shift)
        term = pow(select(active, add(x, j), _ones_like(x)), power)
        return add(j, _ones_like(j)), add(total, select(active, term, zero))
    _, total = while_loop(lambda st: reduce_or(lt(st[0], shift)), body, (zero, zero))
    return shift, total


def _polygamma_lower(ctx, m, x):
    # negative non-integer x: psi^(m)(x) = psi^(m)(x + K) - (-1)^m m! sum_{j<K} (x+j)^-(m+1)
    # (chlo.polygamma covers x > 0 only)
    from ..interpreters.lowering import lower_via
    shift, total = lower_via(_polygamma_shift_sum)(ctx, m, x)
    shifted = hlo.add(x, shift)
    base = _mask_negative_q(ctx, chlo.polygamma(m, shifted), m, shifted, True)
    aval = ctx.avals_in[1]
    zero, one = full_like_aval(0, aval), full_like_aval(1, aval)
    # (-1)^(m+1) m!, the factorial exact below 25 as in the NumPy kernel
    factorial = hlo.exponential(chlo.lgamma(hlo.add(m, one)))
    factorial = hlo.select(_float_cmp(m, full_like_aval(25, aval), "LT"),
                           hlo.round_nearest_even(factorial), factorial)
    even = _float_cmp(hlo.remainder(m, full_like_aval(2, aval)), zero, "EQ")
    factor = hlo.select(even, hlo.negate(factorial), factorial)
    corrected = hlo.add(base, hlo.multiply(factor, total))
    # poles, positive x and digamma (m = 0, which reflects by itself) are left as they were
    unshifted = hlo.or_(_float_cmp(shift, zero, "EQ"), _float_cmp(m, zero, "EQ"))
    return [hlo.select(unshifted, _mask_negative_q(ctx, chlo.polygamma(m, x), m, x, True),
                       corrected)]


zeta_p = binop("zeta", _via_float64_2(zeta64), kinds=FLOAT, lower=_zeta_lower)
polygamma_p = binop("polygamma", _via_float64_2(polygamma64), kinds=FLOAT, lower=_polygamma_lower)


def zeta(x, q):
    """Elementwise Hurwitz zeta function ``sum_k (q + k) ** -x``."""
    return zeta_p.bind(*scalar_operands(x, q, zeta_p))


def polygamma(m, x):
    """Elementwise ``m``-th derivative of the digamma function (``m`` a non-negative
    integer value of ``x``'s dtype)."""
    return polygamma_p.bind(*scalar_operands(m, x, polygamma_p))


def _not_differentiable(name, operand):
    def jvp(g, *args):
        raise NotImplementedError(f"lax.{name} is not differentiable with respect to "
                                  f"{operand}; only its other operand has a derivative")
    return jvp


ad.defjvp(zeta_p, _not_differentiable("zeta", "x (the exponent)"),
          lambda g, x, q: mul(g, neg(mul(x, zeta(add(x, _ones_like(x)), q)))))
ad.defjvp(polygamma_p, _not_differentiable("polygamma", "m (the order)"),
          lambda g, m, x: mul(g, polygamma(add(m, _ones_like(m)), x)))


# -------------------- bitwise operations and shifts

not_p = unop("not", np.invert, hlo.not_, BOOL + INT)
and_p = binop("and", np.bitwise_and, hlo.and_, BOOL + INT)
or_p = binop("or", np.bitwise_or, hlo.or_, BOOL + INT)
xor_p = binop("xor", np.bitwise_xor, hlo.xor, BOOL + INT)


def _popcount(x):
    # of the bit pattern (NumPy counts the bits of |x| for signed integers)
    return np.bitwise_count(np.asarray(x).view(_unsigned(x.dtype))).astype(x.dtype)


def _unsigned(dtype):
    return np.dtype(f"u{dtype.itemsize}")


def _clz(x):
    bits = 8 * x.dtype.itemsize
    u = np.asarray(x).view(_unsigned(x.dtype))
    n = np.zeros(x.shape, x.dtype)
    for s in (32, 16, 8, 4, 2, 1):
        if s < bits:
            top_zero = (u >> np.asarray(bits - s, u.dtype)) == 0
            n = n + np.where(top_zero, s, 0).astype(x.dtype)
            u = np.where(top_zero, u << np.asarray(s, u.dtype), u)
    return n + ((u >> np.asarray(bits - 1, u.dtype)) == 0).astype(x.dtype)


population_count_p = unop("population_count", _popcount, hlo.popcnt, INT)
clz_p = unop("clz", _clz, hlo.count_leading_zeros, INT)


def bitwise_not(x):
    """Elementwise bitwise NOT (logical NOT for bool)."""
    return not_p.bind(x)


def bitwise_and(x, y):
    """Elementwise bitwise AND (logical AND for bool)."""
    return and_p.bind(*scalar_operands(x, y, and_p))


def bitwise_or(x, y):
    """Elementwise bitwise OR (logical OR for bool)."""
    return or_p.bind(*scalar_operands(x, y, or_p))


def bitwise_xor(x, y):
    """Elementwise bitwise XOR (logical XOR for bool)."""
    return xor_p.bind(*scalar_operands(x, y, xor_p))


def population_count(x):
    """Elementwise number of set bits."""
    return population_count_p.bind(x)


def clz(x):
    """Elementwise number of leading zero bits."""
    return clz_p.bind(x)


def _shift_parts(x, y):
    bits = 8 * x.dtype.itemsize
    ut = _unsigned(x.dtype)
    amount = np.asarray(y).view(ut)
    big = amount >= bits
    return bits, ut, big, np.where(big, 0, amount).astype(ut)


def _shift_left(x, y):
    bits, ut, big, s = _shift_parts(x, y)
    out = (np.asarray(x).view(ut) << s).view(x.dtype)
    return np.where(big, np.zeros((), x.dtype), out)


def _shift_right_logical(x, y):
    bits, ut, big, s = _shift_parts(x, y)
    out = (np.asarray(x).view(ut) >> s).view(x.dtype)
    return np.where(big, np.zeros((), x.dtype), out)


def _shift_right_arithmetic(x, y):
    bits, ut, big, s = _shift_parts(x, y)
    st = np.dtype(f"i{x.dtype.itemsize}")
    s = np.where(big, bits - 1, s).astype(st)
    return (np.asarray(x).view(st) >> s).view(x.dtype)


shift_left_p = binop("shift_left", _shift_left, hlo.shift_left, INT)
shift_right_logical_p = binop("shift_right_logical", _shift_right_logical,
                              hlo.shift_right_logical, INT)
shift_right_arithmetic_p = binop("shift_right_arithmetic", _shift_right_arithmetic,
                                 hlo.shift_right_arithmetic, INT)


def shift_left(x, y):
    """Elementwise ``x << y`` (0 where ``y`` is at least the bit width)."""
    return shift_left_p.bind(*scalar_operands(x, y, shift_left_p))


def shift_right_logical(x, y):
    """Elementwise logical right shift (0 where ``y`` is at least the bit width)."""
    return shift_right_logical_p.bind(*scalar_operands(x, y, shift_right_logical_p))


def shift_right_arithmetic(x, y):
    """Elementwise arithmetic right shift (sign fill where ``y`` is at least the bit width)."""
    return shift_right_arithmetic_p.bind(*scalar_operands(x, y, shift_right_arithmetic_p))


for _p in (not_p, and_p, or_p, xor_p, population_count_p, clz_p, shift_left_p,
           shift_right_logical_p, shift_right_arithmetic_p):
    ad.defjvp_zero(_p)


# -------------------- conversions and stop_gradient

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
        if dtypes.is_float(x.dtype) and dtypes.is_integer(new_dtype):
            return [_float_to_int(x, new_dtype)]
        return [x.astype(new_dtype)]


def _float_to_int(x, new_dtype):
    # XLA converts floats to integers with saturation: NaN -> 0, values beyond the
    # range -> the nearest end of the range (NumPy's cast is undefined there).
    x = x.astype(np.float64) if x.itemsize < 8 else x
    info = np.iinfo(new_dtype)
    too_big = x >= 2.0 ** (8 * new_dtype.itemsize - (new_dtype.kind == "i"))
    too_small = x <= (float(info.min) - 1.0 if info.min else -1.0)
    safe = np.where(too_big | too_small | np.isnan(x), 0, x)
    out = safe.astype(new_dtype)
    out = np.where(too_big, info.max, out)
    return np.where(too_small, info.min, out).astype(new_dtype)


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
    if dtypes.is_complex(src.dtype) and not dtypes.is_complex(new_dtype):
        # as JAX does: drop the imaginary part first (also before a test against zero)
        x = hlo.real(x)
        src = src.update(dtype=dtypes.real_dtype(src.dtype))
    if new_dtype == np.bool_:
        zero = full_like_aval(0, src)
        kind = "FLOAT" if dtypes.is_inexact(src.dtype) else (
            "UNSIGNED" if src.dtype.kind in "ub" else "SIGNED")
        return [hlo.compare(x, zero, hlo.ComparisonDirectionAttr.get("NE"),
                            compare_type=hlo.ComparisonTypeAttr.get(kind))]
    return [hlo.convert(ir_type(out_aval), x)]


convert_element_type_p.impl = _convert_impl
convert_element_type_p.abstract_eval = _convert_abstract_eval
convert_element_type_p.jvp = _convert_jvp
convert_element_type_p.transpose = _convert_transpose
batching.defvectorized(convert_element_type_p)
convert_element_type_p.lower = _convert_lower
stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.impl = lambda x: [x]
stop_gradient_p.abstract_eval = lambda x: [x]
ad.defjvp_zero(stop_gradient_p)
batching.defvectorized(stop_gradient_p)
stop_gradient_p.lower = lambda ctx, x: [x]


def stop_gradient(x):
    """``x`` (any pytree of arrays), treated as a constant by differentiation."""
    return tree_map(stop_gradient_p.bind, x)


optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)


def optimization_barrier(operand):
    """``operand`` (any pytree of arrays) unchanged, as JAX's: XLA does not move work
    across the barrier (used to order computations, as rematerialization does). It does
    not pin rounding: XLA's CPU compiler still fused a product before the barrier into a
    sum after it (one multiply-add)."""
    leaves, tree = tree_flatten(operand)
    return tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


def _barrier_batch(axis_size, args, dims):
    return optimization_barrier_p.bind(*args), list(dims)


optimization_barrier_p.impl = lambda *xs: list(xs)
optimization_barrier_p.abstract_eval = lambda *avals: list(avals)
# (the tangents are not held back: they are new values the barrier never saw)
optimization_barrier_p.jvp = lambda primals, tangents: (
    optimization_barrier_p.bind(*primals), list(tangents))
optimization_barrier_p.batch = _barrier_batch
optimization_barrier_p.lower = lambda ctx, *xs: list(hlo.OptimizationBarrierOp(list(xs)).results)


bitcast_convert_type_p = Primitive("bitcast_convert_type")


def bitcast_convert_type(x, new_dtype):
    """``x``'s bits reinterpreted as ``new_dtype``; a wider source gains a trailing axis
    (of size the width ratio), a narrower one loses its trailing axis of that size."""
    return bitcast_convert_type_p.bind(x, new_dtype=dtypes.canonicalize(new_dtype))


def _bitcast_impl(x, *, new_dtype):
    x = np.asarray(x)
    src, dst = x.dtype.itemsize, new_dtype.itemsize
    if src == dst:
        return [x.view(new_dtype)]
    flat = np.ascontiguousarray(x).reshape(-1).view(new_dtype)
    return [flat.reshape(*x.shape, src // dst) if src > dst else flat.reshape(x.shape[:-1])]


def _bitcast_abstract_eval(x, *, new_dtype):
    for what, dt in (("operand", x.dtype), ("new_dtype", new_dtype)):
        if dt == np.bool_ or dtypes.is_complex(dt):
            raise TypeError(f"lax.bitcast_convert_type does not support {dt.name} "
                            f"({what}); bitcasts take integer and floating dtypes")
    src, dst = x.dtype.itemsize, new_dtype.itemsize
    if src == dst:
        shape = x.shape
    elif src > dst:
        shape = (*x.shape, src // dst)
    else:
        if not x.shape or x.shape[-1] != dst // src:
            raise ValueError(f"lax.bitcast_convert_type from {x.dtype.name} to the wider "
                             f"{new_dtype.name} requires an operand whose last axis has size "
                             f"{dst // src}, got shape {x.shape}")
        shape = x.shape[:-1]
    return [ShapedArray(shape, new_dtype)]


def _bitcast_batch(axis_size, args, dims, *, new_dtype):
    (x,), (d,) = args, dims
    if get_aval(x).dtype.itemsize < new_dtype.itemsize and d == get_aval(x).ndim - 1:
        x, d = batching.moveaxis(x, d, 0), 0
    return [bitcast_convert_type(x, new_dtype)], [d]


bitcast_convert_type_p.impl = _bitcast_impl
bitcast_convert_type_p.abstract_eval = _bitcast_abstract_eval
ad.defjvp_zero(bitcast_convert_type_p)
bitcast_convert_type_p.batch = _bitcast_batch
bitcast_convert_type_p.lower = lambda ctx, x, *, new_dtype: [
    hlo.bitcast_convert(ir_type(ctx.avals_out[0]), x)]


# -------------------- complex parts

def _check_complexable(name, aval):
    if aval.dtype not in (np.float32, np.float64):
        raise TypeError(f"lax.{name} requires float32 or float64 operands, got operand of "
                        f"dtype {aval.dtype.name}")


real_p = unop("real", np.real, hlo.real, COMPLEX, result_dtype=dtypes.real_dtype)
imag_p = unop("imag", np.imag, hlo.imag, COMPLEX, result_dtype=dtypes.real_dtype)


def _complex_impl(x, y):
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), _complex_dtype(x.dtype))
    out.real, out.imag = x, y
    return out


def _complex_dtype(dtype):
    return np.dtype(np.complex64 if dtype == np.float32 else np.complex128)


complex_p = binop("complex", _complex_impl, hlo.complex, FLOAT, result_dtype=_complex_dtype,
                  check=lambda x, y: _check_complexable("complex", x))


def _conj_impl(x):
    return np.conj(x) if dtypes.is_complex(x.dtype) else x.astype(_complex_dtype(x.dtype))


def _conj_result(dtype):
    return dtype if dtypes.is_complex(dtype) else _complex_dtype(dtype)


def _conj_lower(ctx, x):
    if dtypes.is_complex(ctx.avals_in[0].dtype):
        return [chlo.conj(x)]
    return [hlo.complex(x, full_like_aval(0, ctx.avals_in[0]))]


conj_p = unop("conj", _conj_impl, kinds=FLOAT + COMPLEX, result_dtype=_conj_result,
              lower=_conj_lower, check=lambda x: dtypes.is_complex(x.dtype) or _check_complexable("conj", x))


def real(x):
    """Elementwise real part of a complex array."""
    return real_p.bind(x)


def imag(x):
    """Elementwise imaginary part of a complex array."""
    return imag_p.bind(x)


def complex(x, y):
    """Elementwise ``x + i y`` (float32 -> complex64, float64 -> complex128)."""
    return complex_p.bind(*scalar_operands(x, y, complex_p))


def conj(x):
    """Elementwise complex conjugate (a real operand becomes complex with zero imaginary part)."""
    return conj_p.bind(x)


# Transposes follow JAX's convention for cotangents of complex values.
ad.deflinear(real_p, lambda cts, x: [complex(cts[0], _zeros_like(cts[0]))])


ad.deflinear(imag_p, lambda cts, x: [complex(_zeros_like(cts[0]), neg(cts[0]))])
ad.deflinear(complex_p, lambda cts, x, y: [real(cts[0]) if ad.is_undefined(x) else None,
                                           imag(neg(cts[0])) if ad.is_undefined(y) else None])
ad.deflinear(conj_p, lambda cts, x: [conj(cts[0]) if dtypes.is_complex(x.aval.dtype)
                                     else real(cts[0])])
