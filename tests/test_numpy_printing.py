"""Print options and formatting functions, and NumPy's floating-point error state, in
minijax.numpy against NumPy."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax.errors import TracerArrayConversionError

VALUES = np.array([[1.123456789, -2.5e-9, 1e5], [np.nan, np.inf, 0.0]])


def _body(numpy_repr):
    """The bracketed part of NumPy's repr, laid out for our longer prefix."""
    return numpy_repr[len("array("):numpy_repr.rindex("]") + 1]


@pytest.mark.parametrize("options", [dict(precision=3), dict(suppress=True),
                                     dict(floatmode="fixed", precision=2),
                                     dict(threshold=5, edgeitems=1), dict(sign="+"),
                                     dict(nanstr="NaN", infstr="Inf"),
                                     dict(formatter={"float": "{:.1f}".format})])
def test_repr_and_str_follow_print_options(options):
    big = np.arange(20.0).reshape(4, 5) / 3
    for host in [VALUES, big]:
        x = mnp.asarray(host)
        with mnp.printoptions(**options):
            assert str(x) == str(host)
            expected = np.array2string(host, separator=", ", prefix="Array(")
            assert repr(x) == f"Array({expected}, dtype=float64)"
            assert mnp.array_str(x) == np.array_str(host)
            assert mnp.array2string(x) == np.array2string(host)
        assert mnp.get_printoptions() == np.get_printoptions()


def test_set_printoptions_is_numpys_state():
    old = mnp.get_printoptions()
    try:
        mnp.set_printoptions(precision=2)
        assert np.get_printoptions()["precision"] == 2
        assert repr(mnp.asarray([1.23456])) == "Array([1.23], dtype=float64)"
        assert str(mnp.asarray([1.23456])) == "[1.23]"
    finally:
        np.set_printoptions(**old)
    assert repr(mnp.asarray([1.23456])) == "Array([1.23456], dtype=float64)"


def test_override_repr_print_option():
    with mnp.printoptions(override_repr=lambda a: f"<{a.shape}>"):
        assert repr(mnp.ones((2, 3))) == "<(2, 3)>"


def test_array_repr_str_arguments():
    x = mnp.asarray(VALUES)
    assert mnp.array_repr(x, precision=2) == "Array(" + np.array2string(
        VALUES, precision=2, separator=", ", prefix="Array(") + ", dtype=float64)"
    assert mnp.array_repr(x) == repr(x)
    assert mnp.array_repr(VALUES, precision=2) == np.array_repr(VALUES, precision=2)
    assert mnp.array_str(x, precision=1, suppress_small=True) == np.array_str(
        VALUES, precision=1, suppress_small=True)
    assert mnp.array_str(x, max_line_width=20) == np.array_str(VALUES, max_line_width=20)
    assert mnp.array2string(x, separator=";", precision=3, threshold=2, edgeitems=1) == \
        np.array2string(VALUES, separator=";", precision=3, threshold=2, edgeitems=1)
    assert repr(mnp.zeros((0, 3))) == "Array([], shape=(0, 3), dtype=float64)"


def test_number_formatters():
    for v in [0.1, 1 / 3, 1e-20, 123456.789, -0.0, np.float32(0.1)]:
        for kwargs in [{}, dict(precision=3), dict(unique=False, precision=5),
                       dict(trim="-")]:
            assert mnp.format_float_positional(v, **kwargs) == \
                np.format_float_positional(v, **kwargs)
            assert mnp.format_float_scientific(v, **kwargs) == \
                np.format_float_scientific(v, **kwargs)
        assert mnp.format_float_positional(mnp.asarray(v)) == np.format_float_positional(
            np.asarray(v)[()])
    for n in [0, 5, -5, 255, 2 ** 40]:
        assert mnp.binary_repr(n) == np.binary_repr(n)
        assert mnp.binary_repr(n, width=48) == np.binary_repr(n, width=48)
        assert mnp.binary_repr(mnp.asarray(n)) == np.binary_repr(n)
        for base in [2, 7, 16, 36]:
            assert mnp.base_repr(n, base, padding=2) == np.base_repr(n, base, padding=2)
    assert mnp.base_repr(mnp.asarray(255), 16) == "FF"


def test_formatters_refuse_traced_values():
    for fn in [mnp.array_repr, mnp.array_str, mnp.format_float_positional]:
        with pytest.raises(TracerArrayConversionError, match="traced"):
            minijax.jit(lambda x: fn(x) and x)(mnp.ones(()))


def test_errstate_controls_eager_numpy_calls():
    x = mnp.asarray([0.0, 1.0])
    with mnp.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            mnp.log(x)
        with pytest.raises(FloatingPointError):
            1.0 / x
    with mnp.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.isneginf(np.asarray(mnp.log(x))[0])

    @mnp.errstate(invalid="raise")
    def invalid(v):
        return mnp.sqrt(v)

    with pytest.raises(FloatingPointError):
        invalid(mnp.asarray(-1.0))
    # compiled code never signals floating-point errors: it gives inf/nan
    with mnp.errstate(all="raise"):
        out = minijax.jit(mnp.log)(x)
    assert np.isneginf(np.asarray(out)[0])


def test_seterr_geterr_seterrcall_bufsize():
    old = mnp.seterr(over="raise")
    try:
        assert mnp.geterr()["over"] == "raise" and np.geterr()["over"] == "raise"
        with pytest.raises(FloatingPointError):
            mnp.exp(mnp.asarray([1000.0]))
    finally:
        mnp.seterr(**old)
    calls = []
    old_call = mnp.seterrcall(lambda kind, flag: calls.append(kind))
    try:
        with mnp.errstate(divide="call"):
            mnp.divide(mnp.asarray(1.0), 0.0)
        assert calls == ["divide by zero"] and mnp.geterrcall() is not None
    finally:
        mnp.seterrcall(old_call)
    size = mnp.getbufsize()
    assert size == np.getbufsize()
    mnp.setbufsize(16384)
    try:
        assert np.getbufsize() == 16384
    finally:
        mnp.setbufsize(size)
