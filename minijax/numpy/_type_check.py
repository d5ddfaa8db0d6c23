"""NumPy's type checks that are not ufuncs: ``isscalar``, ``iterable``,
``real_if_close`` and ``isfortran``."""

import numbers

import numpy as np

from .. import dtypes
from ..core import Tracer, concretization_error, get_aval, get_concrete
from ..runtime.array import Array
from ._core import to_array
from ._elementwise import real


def isscalar(element):
    """Whether ``element`` is a scalar: a Python or NumPy number, string or bytes. Arrays
    are not, even 0-d ones (as in NumPy)."""
    if type(element) in _SCALAR_TYPES:   # (numbers.Number is an ABC: slow to check)
        return True
    return isinstance(element, (np.generic, numbers.Number, str, bytes))


_SCALAR_TYPES = frozenset({bool, int, float, complex, str, bytes})


def iterable(y):
    """Whether ``iter(y)`` works (0-d arrays are not iterable)."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


def real_if_close(a, tol=100):
    """``a``'s real part if every imaginary part is within ``tol`` machine epsilons of
    zero (``tol`` > 1) or absolutely below ``tol``, else ``a``. The result's dtype
    depends on the values, so a complex ``a`` must be concrete."""
    a = to_array(a)
    dt = get_aval(a).dtype
    if not dtypes.is_complex(dt):
        return a
    if tol > 1:
        tol = np.finfo(dt).eps * tol
    value = get_concrete(a)
    if value is None:
        raise concretization_error(
            a, "real_if_close() of a traced complex array: whether the result is real "
            "depends on the values; call it outside jit, or use real() explicitly")
    if np.all(np.abs(np.asarray(value).imag) < tol):
        return real(a)
    return a


def isfortran(a):
    """Whether ``a`` is Fortran-contiguous and not C-contiguous (eagerly, the layout
    of its host buffer: a transpose is a view in Fortran order, as in NumPy; traced
    values have no layout and answer False)."""
    if type(a) is Array:
        return bool(np.isfortran(a._value()))
    if isinstance(a, np.ndarray):
        return bool(np.isfortran(a))
    if isinstance(a, Tracer):
        return False
    raise TypeError(f"isfortran: expected an array, got {type(a).__name__}")

