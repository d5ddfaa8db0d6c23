"""Printing: NumPy's print options (which minijax arrays' ``repr`` and ``str`` follow),
``array2string``, ``array_repr``, ``array_str`` and the number formatters."""

import numpy as np

from ..core import Tracer
from ..errors import TracerArrayConversionError
from ..runtime import array as _array
from ..runtime.array import Array

set_printoptions = np.set_printoptions
get_printoptions = np.get_printoptions
printoptions = np.printoptions


def _host(x, name):
    """``x``'s value for NumPy's formatters: an Array's ndarray, NumPy/Python input as is."""
    if isinstance(x, Tracer):
        raise TracerArrayConversionError(
            f"{name}() of a traced value: its digits are not known under jit/grad/vmap "
            f"(print it with minijax.debug.print instead)")
    if type(x) is Array:
        return x._value()
    if np.asarray(x).dtype == object:   # a type, a function, ragged lists: not an array
        raise TypeError(f"{name}: expected an array, got {type(x).__name__} ({x!r}); "
                        f"object arrays are out of minijax's scope")
    return x


def _scalar(x, name):
    """A 0-d Array as a NumPy scalar (the number formatters take scalars)."""
    x = _host(x, name)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    return x


def array2string(a, *args, **kwargs):
    """NumPy's ``array2string`` of ``a``'s values (same arguments)."""
    return np.array2string(np.asarray(_host(a, "array2string")), *args, **kwargs)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """``repr`` of an array with these print options for this call; a minijax array is
    shown as ``Array([...], dtype=...)``, as its ``repr``."""
    if isinstance(arr, Tracer):
        _host(arr, "array_repr")
    if type(arr) is Array:
        return _array.array_repr(arr, max_line_width, precision, suppress_small)
    return np.array_repr(np.asarray(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """``str`` of an array with these print options for this call."""
    return np.array_str(np.asarray(_host(a, "array_str")), max_line_width, precision,
                        suppress_small)


def format_float_positional(x, *args, **kwargs):
    """NumPy's shortest-round-trip positional notation of a float (a 0-d array too)."""
    return np.format_float_positional(_scalar(x, "format_float_positional"), *args, **kwargs)


def format_float_scientific(x, *args, **kwargs):
    """NumPy's shortest-round-trip scientific notation of a float (a 0-d array too)."""
    return np.format_float_scientific(_scalar(x, "format_float_scientific"), *args, **kwargs)


def base_repr(number, base=2, padding=0):
    """The digits of the integer ``number`` in ``base`` (2 to 36), as a string."""
    return np.base_repr(_scalar(number, "base_repr"), base, padding)


def binary_repr(num, width=None):
    """The binary digits of the integer ``num`` (two's complement when ``width`` is
    given and ``num`` is negative)."""
    return np.binary_repr(_scalar(num, "binary_repr"), width)
