"""minijax.numpy.testing: NumPy's assertions on minijax arrays (alone, mixed with NumPy
arrays, nested in lists and dicts) pass where NumPy's pass and fail with NumPy's
message where NumPy's fail."""

import re
import warnings

import numpy as np
import numpy.testing as nt
import pytest

import minijax
import minijax.numpy as mnp
from minijax.errors import TracerArrayConversionError
from minijax.numpy import testing as mt

A = np.array([1.0, 2.0, 3.0])
CLOSE = A + 1e-9
FAR = np.array([1.0, 2.5, 3.0])


def _forms(x):
    """x as a minijax array, a NumPy array and a list."""
    return [mnp.asarray(x), np.asarray(x), np.asarray(x).tolist()]


def _outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:
        return type(e), _strip_ids(str(e))
    return None


def _numpy_form(x):
    return np.asarray(x) if isinstance(x, mnp.ndarray) else x


def _same_outcome(name, actual, desired, **kwargs):
    """The minijax assertion on minijax/mixed inputs passes or fails exactly as NumPy's
    on the same inputs with NumPy arrays in place of minijax ones (same message)."""
    ours, theirs = getattr(mt, name), getattr(nt, name)
    for a in _forms(actual):
        for d in _forms(desired):
            expected = _outcome(theirs, _numpy_form(a), _numpy_form(d), **kwargs)
            assert _outcome(ours, a, d, **kwargs) == expected, (name, type(a), type(d))


def _strip_ids(message):
    return re.sub(r"0x[0-9a-f]+", "0x", message)


CASES = [
    ("assert_allclose", A, CLOSE, {}), ("assert_allclose", A, FAR, {}),
    ("assert_allclose", A, FAR, {"atol": 1.0}), ("assert_allclose", A, A[:2], {}),
    ("assert_array_equal", A, A, {}), ("assert_array_equal", A, FAR, {}),
    ("assert_array_equal", [1, 2], [[1, 2], [1, 2]], {}),
    ("assert_array_equal", A, CLOSE, {"err_msg": "context"}),
    ("assert_array_almost_equal", A, CLOSE, {}), ("assert_array_almost_equal", A, FAR, {}),
    ("assert_array_almost_equal", A, FAR, {"decimal": 0}),
    ("assert_almost_equal", A, CLOSE, {}), ("assert_almost_equal", A, FAR, {}),
    ("assert_equal", A, A, {}), ("assert_equal", A, FAR, {}),
    ("assert_array_less", A, A + 1, {}), ("assert_array_less", A, FAR, {}),
    ("assert_array_max_ulp", A, np.nextafter(A, 10), {}),
    ("assert_array_max_ulp", A, FAR, {"maxulp": 1}),
    ("assert_array_almost_equal_nulp", A, np.nextafter(A, 10), {}),
    ("assert_array_almost_equal_nulp", A, FAR, {}),
    ("assert_allclose", np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), {}),
    ("assert_allclose", np.array([np.nan, 1.0]), np.array([np.nan, 1.0]),
     {"equal_nan": False}),
    ("assert_array_equal", np.array([1 + 2j]), np.array([1 + 2j]), {}),
    ("assert_allclose", np.float32([1, 2]), np.float32([1, 2.001]), {"rtol": 1e-2}),
]


@pytest.mark.parametrize("name,actual,desired,kwargs", CASES)
def test_assertions_match_numpy(name, actual, desired, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # assert_array_max_ulp and friends may warn
        _same_outcome(name, actual, desired, **kwargs)


def test_scalars_and_0d_arrays():
    mt.assert_equal(mnp.sum(mnp.ones(3)), 3.0)
    mt.assert_almost_equal(mnp.float64(1.0) / 3, 1 / 3)
    mt.assert_approx_equal(mnp.asarray(1.0000001), 1.0, significant=6)
    with pytest.raises(AssertionError) as ours:
        mt.assert_approx_equal(mnp.asarray(1.1), 1.0, significant=6)
    with pytest.raises(AssertionError) as theirs:
        nt.assert_approx_equal(np.asarray(1.1), 1.0, significant=6)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(AssertionError):
        mt.assert_equal(mnp.asarray(2), 3)


def test_nested_containers():
    mt.assert_equal({"a": mnp.ones(2), "b": [mnp.zeros(1), 3]},
                    {"a": np.ones(2), "b": [np.zeros(1), 3]})
    mt.assert_equal((mnp.arange(3), "x"), (np.arange(3), "x"))
    with pytest.raises(AssertionError, match="item=0"):
        mt.assert_equal([mnp.ones(2)], [np.zeros(2)])
    with pytest.raises(AssertionError, match="key='a'"):
        mt.assert_equal({"a": mnp.ones(2)}, {"a": np.zeros(2)})


def test_arrays_stay_usable_and_writable():
    x = mnp.arange(3.0)
    mt.assert_allclose(x, np.arange(3.0))
    x[0] = 5.0   # the assertion did not export the buffer
    assert x[0] == 5.0


def test_non_value_helpers_are_numpys():
    for name in ["assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings",
                 "assert_string_equal", "assert_", "suppress_warnings", "build_err_msg"]:
        assert getattr(mt, name) is getattr(nt, name)
    with mt.assert_raises(ValueError):
        mnp.reshape(mnp.ones(3), (2, 2))
    with mt.assert_warns(RuntimeWarning):
        mnp.log(mnp.asarray(-1.0))
    mt.assert_string_equal("abc", "abc")
    with pytest.raises(AssertionError):
        mt.assert_string_equal("abc", "abd")


def test_traced_values_raise_a_named_error():
    with pytest.raises(TracerArrayConversionError, match="no values to compare"):
        minijax.jit(lambda x: mt.assert_allclose(x, 1.0) or x)(mnp.ones(2))


def test_every_numpy_value_assertion_is_wrapped():
    for name in mt.__all__:
        assert hasattr(nt, name), name
    for name in [n for n in dir(nt) if n.startswith("assert_")]:
        assert hasattr(mt, name), name
