"""``minijax.numpy.testing``: NumPy's test assertions, taking minijax arrays (and NumPy
arrays, scalars and nested lists, tuples and dicts of them, mixed freely).

Each assertion compares the values as ``numpy.testing`` does and raises its
``AssertionError`` with NumPy's message; the helpers that compare no array values
(``assert_raises``, ``assert_warns``, ``suppress_warnings``, ...) are NumPy's own. Traced
values have no digits to compare: passing one raises ``TracerArrayConversionError``.
"""

import functools

import numpy.testing as _nt

from ..core import Tracer
from ..errors import TracerArrayConversionError
from ..runtime.array import Array

# NumPy's helpers that compare no array values, as they are
from numpy.testing import (  # noqa: F401
    IS_PYPY,
    HAS_REFCOUNT,
    KnownFailureException,
    SkipTest,
    TestCase,
    assert_,
    assert_no_gc_cycles,
    assert_no_warnings,
    assert_raises,
    assert_raises_regex,
    assert_string_equal,
    assert_warns,
    break_cycles,
    build_err_msg,
    clear_and_catch_warnings,
    suppress_warnings,
    tempdir,
    temppath,
    verbose,
)


def _numpy_values(x):
    """``x`` with every minijax array replaced by its ndarray (inside lists, tuples and
    dicts too, which ``assert_equal`` compares item by item)."""
    if type(x) is Array:
        return x._value()
    if isinstance(x, Tracer):
        raise TracerArrayConversionError(
            "a numpy.testing assertion got a traced value: under jit/grad/vmap there are "
            "no values to compare; assert on the function's results outside the "
            "transformation")
    if type(x) in (list, tuple):
        return type(x)(_numpy_values(e) for e in x)
    if type(x) is dict:
        return {k: _numpy_values(v) for k, v in x.items()}
    return x


def _on_values(numpy_assert):
    """``numpy_assert`` applied to the NumPy values of its array arguments."""
    @functools.wraps(numpy_assert)
    def check(*args, **kwargs):
        __tracebackhide__ = True   # noqa: F841  (pytest shows the caller's line)
        return numpy_assert(*_numpy_values(args),
                            **{k: _numpy_values(v) for k, v in kwargs.items()})
    check.__module__ = __name__
    return check


assert_allclose = _on_values(_nt.assert_allclose)
assert_almost_equal = _on_values(_nt.assert_almost_equal)
assert_approx_equal = _on_values(_nt.assert_approx_equal)
assert_array_almost_equal = _on_values(_nt.assert_array_almost_equal)
assert_array_almost_equal_nulp = _on_values(_nt.assert_array_almost_equal_nulp)
assert_array_compare = _on_values(_nt.assert_array_compare)
assert_array_equal = _on_values(_nt.assert_array_equal)
assert_array_less = _on_values(_nt.assert_array_less)
assert_array_max_ulp = _on_values(_nt.assert_array_max_ulp)
assert_equal = _on_values(_nt.assert_equal)
print_assert_equal = _on_values(_nt.print_assert_equal)

__all__ = [
    "IS_PYPY", "HAS_REFCOUNT", "KnownFailureException", "SkipTest", "TestCase", "assert_",
    "assert_allclose", "assert_almost_equal", "assert_approx_equal",
    "assert_array_almost_equal", "assert_array_almost_equal_nulp", "assert_array_compare",
    "assert_array_equal", "assert_array_less", "assert_array_max_ulp", "assert_equal",
    "assert_no_gc_cycles", "assert_no_warnings", "assert_raises", "assert_raises_regex",
    "assert_string_equal", "assert_warns", "break_cycles", "build_err_msg",
    "clear_and_catch_warnings", "print_assert_equal", "suppress_warnings", "tempdir",
    "temppath", "verbose",
]

