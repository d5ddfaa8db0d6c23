"""Shared pieces of primitive definitions: operand checks and rule builders.

An elementwise primitive is one call to ``unop`` or ``binop``: they register the
NumPy kernel, the abstract evaluation with its checks, the batching rule and the
lowering; JVP and transpose rules are added next to the definition.
"""

import numpy as np

from .. import _checks, dtypes
from ..errors import NonNumericDtypeError, ShapeMismatchError
from ..core import Primitive, get_aval
from ..core.trace import non_numeric_context
from ..core.avals import ShapedArray
from ..interpreters import batching
from ..interpreters.lowering import lower_elementwise
from ..runtime.array import _make

# Operand dtype classes, by ``dtypes.kind``.
BOOL, SINT, UINT, FLOAT, COMPLEX = "b", "i", "u", "f", "c"
INT = SINT + UINT
INEXACT = FLOAT + COMPLEX
NUMBER = INT + INEXACT
ANY = BOOL + NUMBER
_KIND_NAMES = {BOOL: "bool", SINT: "signed integer", UINT: "unsigned integer",
               FLOAT: "floating", COMPLEX: "complex"}


def check_kinds(name, aval, kinds, operand="operand"):
    if dtypes.kind(aval.dtype) not in kinds:
        allowed = " or ".join(_KIND_NAMES[k] for k in kinds)
        raise TypeError(f"lax.{name} requires {allowed} {operand}s, got {operand} of dtype "
                        f"{aval.dtype.name}")


def check_same(name, avals, allow_scalars=False):
    """Operands share one dtype and one shape (rank-0 operands aside if allowed);
    returns that shape."""
    first = avals[0]
    for a in avals[1:]:
        if a.dtype != first.dtype:
            raise TypeError(f"lax.{name} requires operands of one dtype, got "
                            f"{', '.join(x.dtype.name for x in avals)}; convert them with "
                            f"lax.convert_element_type (minijax.numpy functions promote)")
    shapes = {a.shape for a in avals if not (allow_scalars and a.shape == ())}
    if len(shapes) > 1:
        raise ShapeMismatchError(f"lax.{name} requires operands of one shape"
                         f"{' (or rank 0)' if allow_scalars else ''}, got "
                         f"{', '.join(str(x.shape) for x in avals)}; lax does not "
                         f"broadcast (minijax.numpy functions do)")
    return shapes.pop() if shapes else ()


def all_weak(avals):
    return all(a.weak_type for a in avals)


def _lowering(name, hlo_op, lower):
    if (hlo_op is None) == (lower is None):
        raise TypeError(f"primitive {name}: give exactly one of hlo_op and lower")
    return lower if lower is not None else lower_elementwise(hlo_op)


def unop(name, np_fn, hlo_op=None, kinds=INEXACT, result_dtype=None, check=None, lower=None):
    """An elementwise unary primitive.

    ``np_fn(x, **params)`` is the eager kernel; ``result_dtype(dtype)`` maps the output
    dtype; ``check(aval, **params)`` adds operand checks after the dtype-kind check; the
    lowering is the single op ``hlo_op`` or else the rule ``lower(ctx, x, **params)``."""
    p = Primitive(name)
    p.impl = lambda x, **params: [np_fn(x, **params)]

    def abstract_eval(x, **params):
        check_kinds(name, x, kinds)
        if check is not None:
            check(x, **params)
        dtype = x.dtype if result_dtype is None else result_dtype(x.dtype)
        return [ShapedArray(x.shape, dtype, x.weak_type and dtype == x.dtype)]
    p.abstract_eval = abstract_eval
    p.lower = _lowering(name, hlo_op, lower)
    batching.defvectorized(p)
    return p


def naryop(name, np_fn, hlo_op=None, kinds=NUMBER, result_dtype=None, nargs=2, scalars=False,
           check=None, lower=None):
    """An elementwise primitive of operands of one shape and dtype.

    With ``scalars=True`` rank-0 operands combine with operands of any shape (as in
    ``x * 2.0``): jaxprs stay short and eager code skips a broadcast. Its lowering
    and transpose rules must then broadcast or sum those operands. ``check(*avals)``
    adds operand checks after the dtype-kind check; the lowering is the single op
    ``hlo_op`` or else the rule ``lower(ctx, *operands)``.
    """
    p = Primitive(name)
    p.impl = lambda *xs: [np_fn(*xs)]

    def abstract_eval(*avals):
        if len(avals) != nargs:
            raise TypeError(f"lax.{name} takes {nargs} operands, got {len(avals)}")
        check_kinds(name, avals[0], kinds)
        if check is not None:
            check(*avals)
        shape = check_same(name, avals, scalars)
        x = avals[0]
        dtype = x.dtype if result_dtype is None else result_dtype(x.dtype)
        weak = all_weak(avals) and dtype == x.dtype
        return [ShapedArray(shape, dtype, weak)]
    p.abstract_eval = abstract_eval
    p.lower = _lowering(name, hlo_op, lower)
    batching.defbroadcasting(p)
    if scalars:
        _TAKES_RANK0.add(p)
    return p


def binop(name, np_fn, hlo_op=None, kinds=NUMBER, result_dtype=None, scalars=False,
          check=None, lower=None):
    return naryop(name, np_fn, hlo_op, kinds, result_dtype, nargs=2, scalars=scalars,
                  check=check, lower=lower)


def as_operand(x, like=None):
    """``x`` as something ``bind`` takes; Python scalars take ``like``'s dtype, weakly."""
    if dtypes.is_python_scalar(x) and like is not None:
        aval = get_aval(like)
        return _make(ShapedArray((), aval.dtype, True), np.asarray(x, aval.dtype))
    return x


# primitives built with ``scalars=True``: their rules take rank-0 operands as they are
_TAKES_RANK0 = set()


def _check_scalar_kind(name, scalar, like):
    """A Python scalar operand takes the other operand's dtype, as in JAX, only when
    that loses nothing of its kind: a float needs an inexact dtype, a complex a complex
    one, an int (not a bool) needs a non-bool dtype."""
    dtype = get_aval(like).dtype
    if isinstance(scalar, complex):
        ok = dtypes.is_complex(dtype)
    elif isinstance(scalar, float):
        ok = dtypes.is_inexact(dtype)
    elif isinstance(scalar, bool):
        ok = True
    else:
        ok = dtype != np.bool_
    if not ok:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{dtype.name} and a Python {type(scalar).__name__}; convert with "
                        f"lax.convert_element_type (minijax.numpy functions promote)")


def scalar_operands(x, y, prim=None):
    """The operands of a binary ``lax`` operation, as JAX's ``lax`` takes them: a Python
    scalar takes the other operand's dtype (weakly) and shape; a rank-0 array (a NumPy
    scalar, a 0-d array) broadcasts to the other operand's shape, and so do size-1 axes
    of operands of one rank. Dtypes are not promoted (``prim``'s rules check them)."""
    name = prim.name if prim is not None else "binary operation"
    try:
        return _scalar_operands(x, y, prim, name)
    except NonNumericDtypeError as e:   # a date, string, ... array reached lax
        raise e.named(f"lax.{name}{non_numeric_context()}") from None


def _scalar_operands(x, y, prim, name):
    x_scalar, y_scalar = dtypes.is_python_scalar(x), dtypes.is_python_scalar(y)
    from .shapes import broadcast_in_dim, broadcast_to_shape   # deferred: shapes imports _helpers
    if x_scalar != y_scalar:
        if x_scalar:
            _check_scalar_kind(name, x, y)
            return broadcast_to_shape(as_operand(x, y), get_aval(y).shape), y
        _check_scalar_kind(name, y, x)
        return x, broadcast_to_shape(as_operand(y, x), get_aval(x).shape)
    if x_scalar:
        return x, y
    sx, sy = get_aval(x).shape, get_aval(y).shape
    if sx == sy or (prim in _TAKES_RANK0 and (sx == () or sy == ())):
        return x, y
    if sx and sy and len(sx) != len(sy):
        raise ShapeMismatchError(f"lax.{name}: operands must have the same number of "
                                 f"dimensions (or rank 0), got shapes {sx}, {sy}; lax "
                                 f"broadcasts only rank-0 operands and size-1 axes")
    if not sx or not sy:
        shape = sx or sy
    elif all(a == b or a == 1 or b == 1 for a, b in zip(sx, sy)):
        shape = tuple(b if a == 1 else a for a, b in zip(sx, sy))
    else:
        return x, y   # the primitive's shape check names the mismatch
    bx = x if sx == shape else broadcast_in_dim(x, shape, tuple(range(len(sx))))
    by = y if sy == shape else broadcast_in_dim(y, shape, tuple(range(len(sy))))
    return bx, by


def constant(value, dtype, weak_type=False):
    """An Array constant (scalar or ndarray) of ``dtype``."""
    host = np.asarray(value, dtype)
    return _make(ShapedArray(host.shape, host.dtype, weak_type), host)


def padtype_to_pads(in_shape, window_shape, window_strides, padding, name="reduce_window"):
    """``(lo, hi)`` pairs for the padding strings ``'VALID'``, ``'SAME'`` and
    ``'SAME_LOWER'`` (which puts the odd element first); pairs pass through."""
    if not isinstance(padding, str):
        return tuple((_checks.index(lo), _checks.index(hi)) for lo, hi in padding)
    mode = padding.upper()
    if mode == "VALID":
        return tuple((0, 0) for _ in in_shape)
    if mode in ("SAME", "SAME_LOWER"):
        pads = []
        for n, w, s in zip(in_shape, window_shape, window_strides):
            total = max((-(-n // s) - 1) * s + w - n, 0)
            small, big = total // 2, total - total // 2
            pads.append((big, small) if mode == "SAME_LOWER" else (small, big))
        return tuple(pads)
    raise ValueError(f"lax.{name}: padding must be 'VALID', 'SAME', 'SAME_LOWER' or a "
                     f"sequence of (low, high) pairs, got {padding!r}")


def dilate_dim(n, d):
    """The size of an axis of ``n`` elements with ``d - 1`` holes inserted between them."""
    return 0 if n == 0 else 1 + d * (n - 1)


def full_like(x, value):
    """An array of ``value`` with the shape and dtype of ``x``."""
    from .shapes import full   # deferred: shapes imports _helpers
    aval = get_aval(x)
    return full(aval.shape, value, aval.dtype)


def zeros_like(x):
    return full_like(x, 0)
