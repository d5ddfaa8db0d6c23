"""Operators and methods of the wider namespace (floor division, modulo, bitwise ops,
more reductions), installed on ``Array`` and tracers.

None of these names is installed by ``_operators``.
"""

from ..core import Tracer
from ..runtime.array import Array
from . import _elementwise as uf
from . import _searching, _sorting, _utility
from . import _statistical as stats
from ._manipulation import diagonal, repeat
from ._operators import _defer, _inplace, _reflected, add_methods
from ._statistical import trace

_METHODS = {
    "__floordiv__": _defer(uf.floor_divide), "__rfloordiv__": _defer(_reflected(uf.floor_divide)),
    "__mod__": _defer(uf.remainder), "__rmod__": _defer(_reflected(uf.remainder)),
    "__divmod__": _defer(uf.divmod), "__rdivmod__": _defer(_reflected(uf.divmod)),
    "__and__": _defer(uf.bitwise_and), "__rand__": _defer(_reflected(uf.bitwise_and)),
    "__or__": _defer(uf.bitwise_or), "__ror__": _defer(_reflected(uf.bitwise_or)),
    "__xor__": _defer(uf.bitwise_xor), "__rxor__": _defer(_reflected(uf.bitwise_xor)),
    "__lshift__": _defer(uf.left_shift), "__rlshift__": _defer(_reflected(uf.left_shift)),
    "__rshift__": _defer(uf.right_shift), "__rrshift__": _defer(_reflected(uf.right_shift)),
    "__invert__": uf.invert,
    "__round__": lambda self, ndigits=None: uf.round(self, 0 if ndigits is None else ndigits),
    "__ifloordiv__": _inplace(uf.floor_divide), "__imod__": _inplace(uf.remainder),
    "__iand__": _inplace(uf.bitwise_and), "__ior__": _inplace(uf.bitwise_or),
    "__ixor__": _inplace(uf.bitwise_xor), "__ilshift__": _inplace(uf.left_shift),
    "__irshift__": _inplace(uf.right_shift),
    "prod": lambda self, axis=None, dtype=None, out=None, keepdims=False, **kw:
        stats.prod(self, axis, dtype, out, keepdims, **kw),
    "cumsum": lambda self, axis=None, dtype=None, out=None: stats.cumsum(self, axis, dtype, out),
    "cumprod": lambda self, axis=None, dtype=None, out=None: stats.cumprod(self, axis, dtype,
                                                                        out),
    "argmax": lambda self, axis=None, out=None, *, keepdims=False:
        _searching.argmax(self, axis, out, keepdims=keepdims),
    "argmin": lambda self, axis=None, out=None, *, keepdims=False:
        _searching.argmin(self, axis, out, keepdims=keepdims),
    "all": lambda self, axis=None, out=None, keepdims=False: _utility.all(self, axis, out, keepdims),
    "any": lambda self, axis=None, out=None, keepdims=False: _utility.any(self, axis, out, keepdims),
    "var": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw:
        stats.var(self, axis, dtype, out, ddof, keepdims, **kw),
    "std": lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw:
        stats.std(self, axis, dtype, out, ddof, keepdims, **kw),
    "ptp": lambda self, axis=None, out=None, keepdims=False: stats.ptp(self, axis, out, keepdims),
    "sort": lambda self, axis=-1, kind=None, order=None: _sorting.sort(self, axis, kind, order),
    "argsort": lambda self, axis=-1, kind=None, order=None: _sorting.argsort(self, axis, kind,
                                                                            order),
    "searchsorted": lambda self, v, side="left", sorter=None:
        _searching.searchsorted(self, v, side, sorter),
    "nonzero": lambda self: _searching.nonzero(self),
    "clip": lambda self, min=None, max=None: uf.clip(self, min, max),
    "round": lambda self, decimals=0: uf.round(self, decimals),
    "conj": lambda self: uf.conjugate(self),
    "conjugate": lambda self: uf.conjugate(self),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: diagonal(self, offset, axis1, axis2),
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None:
        trace(self, offset, axis1, axis2, dtype),
    "repeat": lambda self, repeats, axis=None: repeat(self, repeats, axis),
}

_PROPERTIES = {
    "real": lambda self: uf.real(self),
    "imag": lambda self: uf.imag(self),
}


add_methods(Array, _METHODS, _PROPERTIES)
add_methods(Tracer, _METHODS, _PROPERTIES)
