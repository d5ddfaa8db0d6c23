"""NumPy's ``out=`` argument on the ``lax`` path: a result is cast and written into an
existing array with the eager model's mutation semantics (DESIGN 5): an eager Array is
written in place (through a view into its base), a traced array is rebound to the new
value, a NumPy ndarray is written into. Eagerly on the host, the runtime's dispatch
entry point hands ``out`` to NumPy itself."""

import functools
import inspect

import numpy as np

from .. import lax
from .._mutation import rebind_or_raise, refresh
from ..core import Tracer, get_aval
from ..errors import TracerArrayConversionError
from ..runtime.array import Array

CASTING_RULES = ("no", "equiv", "safe", "same_kind", "unsafe")


def check_casting(casting):
    if casting not in CASTING_RULES:
        raise ValueError(f"casting must be one of {', '.join(map(repr, CASTING_RULES))}, "
                         f"got {casting!r}")


def write_out(out, result, name, casting="same_kind", broadcast=False):
    """Write ``result`` into ``out`` (NumPy's ``out=``) and return ``out``.

    ``broadcast``: the result may broadcast to ``out``'s shape (ufuncs); otherwise the
    shapes must be equal (reductions, ``dot``, ...). The dtype is cast under ``casting``."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"{name}: out= must be one array (or a 1-tuple), got a tuple of "
                             f"{len(out)}")
        out = out[0]
    if not isinstance(out, (Array, Tracer, np.ndarray)):
        raise TypeError(f"{name}: out= must be an array, got {type(out).__name__}")
    check_casting(casting)
    r_aval = get_aval(result)
    o_shape, o_dtype = (out.shape, out.dtype) if isinstance(out, np.ndarray) else (
        get_aval(out).shape, get_aval(out).dtype)
    if r_aval.shape != o_shape:
        ok = broadcast
        if ok:
            try:
                ok = np.broadcast_shapes(r_aval.shape, o_shape) == o_shape
            except ValueError:
                ok = False
        if not ok:
            raise ValueError(f"{name}: out= has shape {o_shape} but the result has shape "
                             f"{r_aval.shape}" + ("" if broadcast else
                                                  " (they must be equal)"))
    if r_aval.dtype != o_dtype and not np.can_cast(r_aval.dtype, o_dtype, casting):
        raise TypeError(f"{name}: cannot cast the result from {r_aval.dtype.name} to out's "
                        f"dtype {o_dtype.name} with casting rule {casting!r}")
    if r_aval.shape != o_shape:
        result = lax.broadcast_to_shape(result, o_shape)
    if isinstance(out, np.ndarray):
        if isinstance(result, Tracer):
            raise TracerArrayConversionError(
                f"{name}: out= is a NumPy ndarray but the result is traced; pass a "
                f"minijax array as out= (or use the returned value)")
        out[...] = np.asarray(result).astype(o_dtype, copy=False)
        return out
    weak = get_aval(out).weak_type
    if r_aval.dtype != o_dtype or r_aval.weak_type != weak:
        result = lax.convert_element_type(result, o_dtype, weak)
    refresh(out)
    rebind_or_raise(out, result, f"{name}(out=...)")
    return out


def supports_out(fn=None, *, broadcast=False, casting="unsafe"):
    """Decorate a function whose parameters include NumPy's ``out``: the function runs
    with ``out=None`` and its result is then written into ``out`` (``write_out``).

    ``casting`` is NumPy's rule for that function's ``out`` (reductions cast unsafely,
    ufunc-like functions by 'same_kind'); a ``casting=`` argument of the call wins."""
    if fn is None:
        return functools.partial(supports_out, broadcast=broadcast, casting=casting)
    default_casting = casting
    params = list(inspect.signature(fn).parameters.values())
    names = [p.name for p in params]
    position = names.index("out")
    positional = params[position].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                           inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if not positional:
        position = None

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if position is not None and len(args) > position:
            if "out" in kwargs:
                raise TypeError(f"{fn.__name__}() got multiple values for argument 'out'")
            out = args[position]
            args = args[:position] + (None,) + args[position + 1:]
        else:
            out = kwargs.pop("out", None)
        result = fn(*args, **kwargs)
        if out is None:
            return result
        return write_out(out, result, fn.__name__, kwargs.get("casting", default_casting),
                         broadcast)
    return call
