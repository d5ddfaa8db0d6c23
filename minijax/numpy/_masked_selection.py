"""``x[mask]`` with a traced boolean ``mask``: a deferred selection.

Its shape depends on the mask's values, so it cannot be a traced array. NumPy code often
reads such a selection only to compute on it elementwise and write it back through the
same mask: ``x[m] += 1``, ``x[m] = np.minimum(x[m], y)``, array-api-extra's
``at(x)[m].add(y)``. A ``MaskedSelection`` keeps the whole array and the mask; elementwise
operators and minijax ufuncs act on the whole array (with scalars, or values that
broadcast to one selected element), and assigning it back through the same mask is
``where(mask, new, x)``; the mask may be recomputed the same way (``x[x > 0] =
np.sqrt(x[x > 0])``: ``core.trace.same_value``). Every other use (its shape, a reduction, conversion to an array)
raises ``NonConcreteBooleanIndexError``.
"""

import numpy as np

from .. import dtypes, lax
from ..core import Tracer, get_aval
from ..core.trace import same_value
from ..errors import NonConcreteBooleanIndexError
from . import _elementwise as ew
from ._core import to_array


def _mask_error(what, mask):
    reason = mask.abstract_reason_text() + " " if isinstance(mask, Tracer) else ""
    return NonConcreteBooleanIndexError(
        f"Array boolean indices must be concrete; got a traced boolean index of type "
        f"{get_aval(mask).str_short()}: {what} of x[mask] would depend on the mask's "
        f"values. {reason}Under a transformation, x[mask] can only be combined "
        f"elementwise with scalars (or values that broadcast to one selected element) and "
        f"assigned back through the same mask (x[mask] = f(x[mask])). Use "
        f"numpy.where(mask, new, x) instead, or make the mask static (static_argnums of "
        f"jit, or compute it outside the traced function).")


class MaskedSelection:
    """``x[mask]`` for a traced ``mask`` covering the leading axes of ``x``: ``full`` is
    ``x`` (or a value computed from it elementwise), meaningful where ``mask`` is true."""

    __slots__ = ("full", "mask")
    __array_priority__ = 10_000   # NumPy defers its operators to ours

    def __init__(self, full, mask):
        self.full, self.mask = full, mask

    @property
    def dtype(self):
        return get_aval(self.full).dtype

    @property
    def ndim(self):
        aval_full, aval_mask = get_aval(self.full), get_aval(self.mask)
        return 1 + aval_full.ndim - aval_mask.ndim

    @property
    def shape(self):
        raise _mask_error("its shape", self.mask)

    @property
    def size(self):
        raise _mask_error("its size", self.mask)

    def __len__(self):
        raise _mask_error("its length", self.mask)

    def __iter__(self):
        raise _mask_error("iterating over it", self.mask)

    def __bool__(self):
        raise _mask_error("its truth value", self.mask)

    def __getitem__(self, key):
        raise _mask_error("indexing it", self.mask)

    def __array__(self, dtype=None, copy=None):
        raise _mask_error("its conversion to an array", self.mask)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _mask_error(f"its method or attribute `{name}`", self.mask)

    def __repr__(self):
        return (f"MaskedSelection(dtype={self.dtype.name}, mask shape "
                f"{get_aval(self.mask).shape})")

    def leaf_error(self, what):
        """The error for this selection passed where a value is needed (a transformed
        function's output or argument: ``what``)."""
        return _mask_error(f"its use as {what}", self.mask)

    def apply(self, fn, operands, what):
        """``fn`` on the whole arrays behind ``operands`` (selections of this one's mask,
        or values broadcasting to one selected element), as selections."""
        full_shape = get_aval(self.full).shape
        trailing = full_shape[get_aval(self.mask).ndim:]
        wholes = []
        for o in operands:
            if isinstance(o, MaskedSelection):
                if (not same_value(o.mask, self.mask)
                        or get_aval(o.full).shape != full_shape):
                    raise _mask_error(f"{what} of selections by different masks", self.mask)
                wholes.append(o.full)
                continue
            v = to_array(o)
            shape = get_aval(v).shape
            try:
                fits = np.broadcast_shapes(shape, trailing) == trailing
            except ValueError:
                fits = False
            if not fits:
                raise _mask_error(f"{what} with an operand of shape {shape}", self.mask)
            wholes.append(v)
        result = fn(*wholes)
        if isinstance(result, tuple):
            return tuple(MaskedSelection(r, self.mask) for r in result)
        return MaskedSelection(result, self.mask)

    def assigned_into(self, x, mask):
        """``x[mask] = self``: the new whole array, ``where(mask, self, x)``."""
        if not same_value(mask, self.mask) or get_aval(x).shape != get_aval(self.full).shape:
            raise _mask_error("assigning a selection through another mask or into "
                              "another array", mask)
        aval = get_aval(x)
        new = self.full
        if get_aval(new).dtype != aval.dtype:
            new = lax.convert_element_type(new, aval.dtype, aval.weak_type)
        m = lax.broadcast_in_dim(mask, aval.shape, tuple(range(get_aval(mask).ndim)))
        return lax.select_n(m, x, new)


def _selection_of(args):
    return next(a for a in args if isinstance(a, MaskedSelection))


def apply_ufunc(uf, args, kwargs):
    """A minijax ufunc called with a selection among its inputs."""
    if "out" in kwargs or "where" in kwargs or len(args) != uf.nin:
        raise _mask_error(f"{uf.__name__} with out= or where=", _selection_of(args).mask)
    return _selection_of(args).apply(lambda *xs: uf(*xs, **kwargs), args, uf.__name__)


def _binary(fn, reflected=False):
    def op(self, other):
        operands = (other, self) if reflected else (self, other)
        return self.apply(fn, operands, fn.__name__)
    return op


def _inplace(fn):
    """``s op= v``: NumPy's same-kind casting into the selection's dtype."""
    def op(self, other):
        result = self.apply(fn, (self, other), fn.__name__)
        r_dtype, dtype = result.dtype, self.dtype
        if not np.can_cast(r_dtype, dtype, casting="same_kind") and not (
                r_dtype == dtypes.bfloat16 or dtype == dtypes.bfloat16):
            raise TypeError(f"cannot cast the result of an in-place operation from "
                            f"{r_dtype.name} to {dtype.name} with casting rule 'same_kind'")
        aval = get_aval(self.full)
        return MaskedSelection(lax.convert_element_type(result.full, dtype, aval.weak_type),
                               self.mask)
    return op


def _unary(fn):
    return lambda self: self.apply(fn, (self,), fn.__name__)


for _name, _fn in (("add", ew.add), ("sub", ew.subtract), ("mul", ew.multiply),
                   ("truediv", ew.divide), ("floordiv", ew.floor_divide),
                   ("mod", ew.remainder), ("pow", ew.power), ("and", ew.bitwise_and),
                   ("or", ew.bitwise_or), ("xor", ew.bitwise_xor),
                   ("lshift", ew.left_shift), ("rshift", ew.right_shift)):
    setattr(MaskedSelection, f"__{_name}__", _binary(_fn))
    setattr(MaskedSelection, f"__r{_name}__", _binary(_fn, reflected=True))
    setattr(MaskedSelection, f"__i{_name}__", _inplace(_fn))
for _name, _fn in (("lt", ew.less), ("le", ew.less_equal), ("gt", ew.greater),
                   ("ge", ew.greater_equal), ("eq", ew.equal), ("ne", ew.not_equal)):
    setattr(MaskedSelection, f"__{_name}__", _binary(_fn))
for _name, _fn in (("neg", ew.negative), ("pos", ew.positive), ("abs", ew.absolute),
                   ("invert", ew.invert)):
    setattr(MaskedSelection, f"__{_name}__", _unary(_fn))
MaskedSelection.__hash__ = None
del _name, _fn
