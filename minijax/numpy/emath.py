"""``minijax.numpy.emath``: mathematical functions that leave the real line for the
complex plane where the real function has no value (``sqrt(-1)`` is ``1j``), as
``numpy.emath``.

The output dtype of these functions depends on the input *values* (real where every
input is in the real domain, complex otherwise). Eagerly that is NumPy's result, value
and dtype. Under a transformation the values are not known when the output type is
fixed, so the result is always complex (complex64 for inputs of 16 bits or fewer and
float32/complex64, else complex128), with the same values as NumPy's on the real domain
(imaginary part zero) and off it. Take ``.real`` where a real result is wanted.
"""

import inspect

import numpy as np

from .. import dtypes, lax
from ..core import Tracer
from ..runtime.numpy_dispatch import host_of, wrap
from . import _elementwise as ew
from ._core import _contains_tracer, to_array

__all__ = ["sqrt", "log", "log2", "log10", "logn", "power", "arccos", "arcsin", "arctanh"]

# NumPy's emath turns these input dtypes into complex64 (the rest into complex128)
_TO_COMPLEX64 = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.int8, np.uint8,
                                                np.int16, np.uint16, np.complex64))


def _traced(args):
    return any(isinstance(a, Tracer) or _contains_tracer(a) for a in args)


def _complex(x):
    x = to_array(x)
    d = x.dtype
    if dtypes.is_complex(d):
        return x
    target = np.complex64 if d in _TO_COMPLEX64 or d == dtypes.bfloat16 else np.complex128
    return lax.convert_element_type(x, dtypes.canonicalize(target))


def _emath_function(name, traced_fn):
    numpy_fn = getattr(np.emath, name)
    signature = inspect.signature(numpy_fn)   # (x), (n, x) or (x, p)

    def fn(*args, **kwargs):
        try:
            args = signature.bind(*args, **kwargs).args
        except TypeError as e:
            raise TypeError(f"emath.{name}{signature}: {e}") from None
        if _traced(args):
            return traced_fn(*[_complex(a) for a in args])
        return wrap(numpy_fn(*[host_of(a) for a in args]))
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__signature__ = signature
    return fn


def _logn(n, x):
    return ew.divide(ew.log(x), ew.log(n))


sqrt = _emath_function("sqrt", ew.sqrt)
sqrt.__doc__ = "Square root, complex for negative real inputs (``sqrt(-4) == 2j``)."
log = _emath_function("log", ew.log)
log.__doc__ = "Natural logarithm, complex for negative real inputs (``log(-1) == pi*1j``)."
log2 = _emath_function("log2", ew.log2)
log2.__doc__ = "Base-2 logarithm, complex for negative real inputs."
log10 = _emath_function("log10", ew.log10)
log10.__doc__ = "Base-10 logarithm, complex for negative real inputs."
logn = _emath_function("logn", _logn)
logn.__doc__ = "Logarithm of ``x`` to base ``n``, complex where either is negative real."
power = _emath_function("power", ew.power)
power.__doc__ = ("``x ** p``, complex for negative real ``x`` (and a negative integer power "
                 "of an integer gives floats).")
arccos = _emath_function("arccos", ew.arccos)
arccos.__doc__ = "Inverse cosine, complex for real inputs with ``abs(x) > 1``."
arcsin = _emath_function("arcsin", ew.arcsin)
arcsin.__doc__ = "Inverse sine, complex for real inputs with ``abs(x) > 1``."
arctanh = _emath_function("arctanh", ew.arctanh)
arctanh.__doc__ = "Inverse hyperbolic tangent, complex for real inputs with ``abs(x) > 1``."
