"""minijax against the NumPy versions it supports (2.0 up to 2.5): importing it reads no
NumPy name that a supported NumPy lacks, and names that NumPy removed or has not added
yet behave the same whatever NumPy is installed.

The older and newer NumPy are stood in for by the installed one with names deleted
before minijax is imported, in a subprocess."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp

# Removed from NumPy's main namespace in 2.5 (as was ``chararray``, which minijax never
# offered; NumPy 2.0 removed the aliases in numpy._expired_attrs_2_0: round_, ...).
REMOVED_IN_NUMPY_2_5 = ["row_stack"]
# Added to NumPy after 2.0: missing from the oldest NumPy minijax supports.
ADDED_AFTER_NUMPY_2_0 = ["cumulative_sum", "cumulative_prod", "unstack", "matvec", "vecmat"]
# Names minijax.numpy does not offer: NumPy 2 removed them (chararray: 2.5).
REMOVED_BEFORE = ["trapz", "in1d", "product", "cumproduct", "sometrue", "alltrue", "msort",
                  "round_", "asfarray", "chararray"]

_CHILD = r"""
import json, sys, warnings
import numpy
for name in sys.argv[1:]:
    if name in vars(numpy):
        delattr(numpy, name)
import minijax, minijax.numpy as mnp
x = numpy.arange(6.0).reshape(2, 3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    stacked = numpy.asarray(mnp.row_stack((x, x))).tolist()
    jit_stacked = numpy.asarray(minijax.jit(lambda a: mnp.row_stack((a, a)))(x)).tolist()
out = {
    "missing": [n for n in sys.argv[1:] if hasattr(numpy, n)],
    "row_stack": stacked, "row_stack_jit": jit_stacked,
    "row_stack_warnings": [str(w.category.__name__) for w in caught],
    "cumulative_sum": numpy.asarray(mnp.cumulative_sum(x, axis=1,
                                                       include_initial=True)).tolist(),
    "cumulative_prod": numpy.asarray(mnp.cumulative_prod(x, axis=0)).tolist(),
    "unstack": [numpy.asarray(a).tolist() for a in mnp.unstack(x, axis=1)],
    "matvec": numpy.asarray(mnp.matvec(x, numpy.ones(3))).tolist(),
    "vecmat": numpy.asarray(mnp.vecmat(numpy.ones(2), x)).tolist(),
    "has": {n: hasattr(mnp, n) for n in %r},
}
print(json.dumps(out))
""" % (REMOVED_BEFORE,)


def _child(deleted):
    proc = subprocess.run([sys.executable, "-c", _CHILD, *deleted], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _expected(x):
    return {
        "row_stack": np.vstack((x, x)).tolist(),
        "cumulative_sum": np.concatenate([np.zeros((2, 1)), np.cumsum(x, 1)], 1).tolist(),
        "cumulative_prod": np.cumprod(x, 0).tolist(),
        "unstack": [x[:, i].tolist() for i in range(3)],
        "matvec": (x @ np.ones(3)).tolist(),
        "vecmat": (np.ones(2) @ x).tolist(),
    }


@pytest.mark.parametrize("deleted", [REMOVED_IN_NUMPY_2_5, ADDED_AFTER_NUMPY_2_0],
                         ids=["numpy-2.5-names", "numpy-2.0-names"])
def test_import_and_names_without_numpy_names(deleted):
    out = _child(deleted)
    assert out["missing"] == []   # the stand-in really lacks them
    expected = _expected(np.arange(6.0).reshape(2, 3))
    for key, value in expected.items():
        assert out[key] == value, key
    assert out["row_stack_jit"] == expected["row_stack"]
    # row_stack is minijax's own (deprecated) alias: it warns eagerly and under jit alike
    assert out["row_stack_warnings"] == ["DeprecationWarning"] * 2
    assert not any(out["has"].values()), out["has"]


def test_row_stack_is_a_deprecated_vstack():
    x = np.arange(6.0).reshape(2, 3)
    with pytest.warns(DeprecationWarning, match="use minijax.numpy.vstack"):
        got = mnp.row_stack((x, np.ones(3, np.float32)))
    np.testing.assert_array_equal(got, np.vstack((x, np.ones(3, np.float32))))
    assert got.dtype == np.float64
    with pytest.warns(DeprecationWarning, match="use minijax.numpy.vstack"):
        got = minijax.jit(lambda a: mnp.row_stack((a, a), dtype=np.float32))(x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.vstack((x, x)).astype(np.float32))


def test_fix_and_typename_are_deprecated_as_in_numpy_2_5():
    x = np.array([-2.5, -0.5, 0.5, 2.5, np.inf, np.nan])
    for arg in (x, x.astype(np.float32), np.arange(-3, 3, dtype=np.int8), np.array([True])):
        with pytest.warns(DeprecationWarning, match="use minijax.numpy.trunc"):
            got = mnp.fix(arg)
        with pytest.warns(DeprecationWarning, match="use minijax.numpy.trunc"):
            jitted = minijax.jit(mnp.fix)(arg)
        # NumPy 2.1+ (not 2.0) keeps bool and integer dtypes, as minijax does
        want = arg.copy() if arg.dtype.kind in "biu" else np.trunc(arg)
        for result in (got, jitted):
            assert result.dtype == want.dtype
            np.testing.assert_array_equal(result, want)
    with pytest.warns(DeprecationWarning, match="dtype"):
        assert mnp.typename("d") == "double precision"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # NumPy 2.5's own
        for char in ["S1", *"?bBhHiIlLqQfdgFDGSUVO"]:
            assert mnp.typename(char) == np.typename(char), char


def test_deprecation_warnings_point_at_the_callers_line():
    x = mnp.asarray(np.array([-1.5, 2.5]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mnp.fix(x)
        mnp.fix(x, None)
        mnp.fix(x=x)
        mnp.typename("d")
        mnp.row_stack((x, x))
        minijax.jit(mnp.fix)(x)
    assert [w.category for w in caught] == [DeprecationWarning] * 6
    assert [w.filename for w in caught[:5]] == [__file__] * 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning, match="use minijax.numpy.trunc"):
            mnp.fix(x)


def test_removed_numpy_names_stay_absent():
    for name in REMOVED_BEFORE:
        assert not hasattr(mnp, name), name
        with pytest.raises(AttributeError):
            getattr(mnp, name)
