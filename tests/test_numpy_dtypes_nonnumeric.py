"""Dates, strings, records and objects (DESIGN 3): an eager Array holds any NumPy dtype
and NumPy computes with it, so every program here runs with ``numpy`` and with
``minijax.numpy`` and the results agree (values, dtypes, shapes). Transformations,
device transfers, ``eager_backend="xla"`` and ``lax`` refuse such arrays with
``NonNumericDtypeError``."""

import datetime
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import lax
from minijax.config import config
from minijax.errors import NonNumericDtypeError
from minijax.numpy._nonnumeric import install_module

DAYS = ["2020-01-01", "2020-01-03", "2019-12-30", "NaT"]


def _host(x):
    return np.asarray(x) if isinstance(x, mnp.ndarray) else x


def _same(got, want, what):
    """``got`` (minijax's result) is ``want`` (NumPy's): arrays of one dtype, shape and
    values (an Array where NumPy gives an array or a NumPy scalar)."""
    if isinstance(want, (tuple, list)) and not isinstance(want, np.ndarray):
        assert type(got) is type(want) and len(got) == len(want), what
        for g, w in zip(got, want):
            _same(g, w, what)
        return
    if isinstance(want, (np.ndarray, np.generic)):
        assert isinstance(got, mnp.ndarray), f"{what}: {type(got).__name__}"
        g = np.asarray(got)
        assert g.dtype == want.dtype, f"{what}: dtype {g.dtype} != {want.dtype}"
        assert g.shape == np.shape(want), f"{what}: shape {g.shape} != {np.shape(want)}"
        if want.dtype.kind in "fc":
            np.testing.assert_array_equal(g, want, err_msg=what)
        else:
            assert g.tolist() == np.asarray(want).tolist(), what   # (NaT reads as None)
        return
    assert got == want and type(got) is type(want), f"{what}: {got!r} != {want!r}"


def _strings(m):
    return m.array(["pear", "fig", "apple", "fig"])


def _dates(m):
    return m.array(DAYS, dtype="datetime64[D]")


def _records(m):
    r = m.zeros(3, dtype=[("x", "f8"), ("y", "i4")])
    r["x"] = [1.5, -2.0, 0.25]
    r["y"] = [3, 1, 2]
    return r


def _objects(m):
    return m.array([1, "a", None, 2.5], dtype=object)


PROGRAMS = {
    # creation
    "array str": _strings,
    "array bytes": lambda m: m.array([b"ab", b"c"]),
    "array datetime": _dates,
    "array datetime seconds": lambda m: m.array(["2020-01-01T10:00:05"], dtype="datetime64[s]"),
    "array timedelta": lambda m: m.array([1, 2, 30], dtype="timedelta64[m]"),
    "array of dates": lambda m: m.array([datetime.date(2021, 3, 4)], dtype="datetime64[D]"),
    "arange datetime": lambda m: m.arange("2020-01", "2020-03", dtype="datetime64[D]"),
    "zeros structured": lambda m: m.zeros(3, dtype=[("x", "f8"), ("y", "i4")]),
    "array object": _objects,
    "array ndmin": lambda m: m.array(["a", "b"], ndmin=2),
    "full str": lambda m: m.full(3, "ab"),
    "zeros str": lambda m: m.zeros(2, dtype="U3"),
    "asarray numpy str": lambda m: m.asarray(np.array(["x", "yz"])),
    "array of str Array": lambda m: m.array(_strings(m)),
    "datetime64 scalar": lambda m: m.array(m.datetime64("2020-05-06")),
    # indexing
    "element": lambda m: _strings(m)[1],
    "element date": lambda m: _dates(m)[0],
    "slice": lambda m: _strings(m)[::-2],
    "fancy": lambda m: _dates(m)[[0, 2]],
    "mask": lambda m: _strings(m)[_strings(m) > "b"],
    "field": lambda m: _records(m)["x"],
    "fields": lambda m: _records(m)[["y", "x"]],
    "record element field": lambda m: _records(m)[1]["y"],
    "object element": lambda m: _objects(m)[1],
    "object None": lambda m: _objects(m)[2],
    "rows of 2-d": lambda m: [r for r in m.array([["a", "b"], ["c", "d"]])],
    # comparisons
    "eq str": lambda m: _strings(m) == "fig",
    "lt str": lambda m: _strings(m) < m.array(["z", "a", "b", "g"]),
    "gt date": lambda m: _dates(m) > np.datetime64("2020-01-01"),
    "eq date": lambda m: _dates(m) == _dates(m),
    "str rev eq": lambda m: "fig" == _strings(m),
    "object eq": lambda m: _objects(m) == 1,
    # sort, unique, concatenate, where, ...
    "sort str": lambda m: m.sort(_strings(m)),
    "sort date": lambda m: m.sort(_dates(m)),
    "argsort str": lambda m: m.argsort(_strings(m), kind="stable"),
    "unique str": lambda m: m.unique(_strings(m)),
    "unique counts": lambda m: m.unique(_strings(m), return_counts=True),
    "concatenate": lambda m: m.concatenate([_strings(m), m.array(["kiwi"])]),
    "stack dates": lambda m: m.stack([_dates(m), _dates(m)]),
    "where str": lambda m: m.where(_strings(m) == "fig", "F", _strings(m)),
    "where date": lambda m: m.where(m.isnat(_dates(m)), np.datetime64("2000-01-01"),
                                    _dates(m)),
    "searchsorted": lambda m: m.searchsorted(m.sort(_strings(m)), "g"),
    "reshape": lambda m: _strings(m).reshape(2, 2).T,
    "flip": lambda m: m.flip(_dates(m)),
    "repeat": lambda m: m.repeat(_strings(m), 2),
    "isin": lambda m: m.isin(_strings(m), ["fig", "kiwi"]),
    "min max date": lambda m: (_dates(m)[:3].min(), m.max(_dates(m)[:3])),
    "argmax date": lambda m: _dates(m)[:3].argmax(),
    "sort records": lambda m: m.sort(_records(m), order="y"),
    "sort method": lambda m: _sorted_in_place(_strings(m)),
    # datetime and timedelta arithmetic
    "date + td": lambda m: _dates(m) + np.timedelta64(2, "D"),
    "date - date": lambda m: _dates(m) - _dates(m)[0],
    "td / td": lambda m: (_dates(m)[1] - _dates(m)[0]) / np.timedelta64(1, "h"),
    "td * int": lambda m: m.array([1, 2], dtype="timedelta64[s]") * 3,
    "td // td": lambda m: m.array([7, 9], dtype="timedelta64[s]") // np.timedelta64(2, "s"),
    "diff dates": lambda m: m.diff(_dates(m)[:3]),
    "scalar - dates": lambda m: np.datetime64("2020-02-01") - _dates(m),
    "date + int": lambda m: _dates(m) + 1,
    "str add": lambda m: m.add(_strings(m), "!"),
    # astype and conversions
    "astype int": lambda m: _dates(m)[:3].astype("int64"),
    "astype month": lambda m: _dates(m).astype("datetime64[M]"),
    "astype bytes": lambda m: _strings(m).astype("S"),
    "numbers astype str": lambda m: m.arange(3).astype(str),
    "str astype float": lambda m: m.array(["1.5", "2"]).astype(float),
    "astype object": lambda m: _dates(m)[:2].astype(object),
    "array dtype int": lambda m: m.array(_dates(m)[:3], dtype="int64"),
    "tolist": lambda m: _dates(m).tolist(),
    "tolist records": lambda m: _records(m).tolist(),
    "item": lambda m: _strings(m)[0].item(),
    "str()": lambda m: str(_dates(m)),
    "len": lambda m: len(_strings(m)),
    # NumPy's date functions and modules
    "isnat": lambda m: m.isnat(_dates(m)),
    "busday_count": lambda m: m.busday_count(_dates(m)[2], _dates(m)[:3]),
    "busday_offset": lambda m: m.busday_offset(_dates(m)[:3], 1, roll="forward"),
    "is_busday": lambda m: m.is_busday(_dates(m)[:3]),
    "busdaycalendar": lambda m: m.is_busday(
        _dates(m)[:3], busdaycal=m.busdaycalendar(holidays=["2020-01-01"])),
    "datetime_as_string": lambda m: m.datetime_as_string(_dates(m)),
    "datetime_data": lambda m: m.datetime_data(_dates(m).dtype),
    "char.upper": lambda m: m.char.upper(_strings(m)),
    "char.str_len": lambda m: m.char.str_len(_strings(m)),
    "char.array": lambda m: _plain(m, m.char.array(["a", "bc"])),
    "strings.replace": lambda m: m.strings.replace(_strings(m), "f", "F"),
    "strings.find": lambda m: m.strings.find(_strings(m), "p"),
    "rec.fromarrays": lambda m: _plain(m, m.rec.fromarrays(
        [m.arange(2), m.array(["a", "b"])], names="n,s")),
    "rec.fromrecords": lambda m: _plain(m, m.rec.fromrecords([(1, 2.5), (3, 4.5)],
                                                             names="a,b"))["b"],
    "rec.array": lambda m: _plain(m, m.rec.array([(1, "x")], dtype=[("a", "i4"),
                                                                   ("b", "U1")])),
    "result_type": lambda m: (m.result_type(_strings(m), "U9"), m.result_type("M8[D]", "m8[h]"),
                              m.can_cast(_dates(m), "M8[s]")),
    "dtype names": lambda m: (m.dtype(m.str_) == np.str_, m.void is np.void,
                              m.object_ is np.object_, m.bytes_ is np.bytes_,
                              m.timedelta64 is np.timedelta64),
}


def _plain(m, x):
    """NumPy's chararray/recarray as the plain ndarray minijax gives (one array class)."""
    if m is np:
        x = x.view(np.ndarray)
        if x.dtype.type is np.record:
            x = x.view(np.dtype((np.void, x.dtype)))
    return x


def _sorted_in_place(a):
    a.sort()
    return a


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_numpy_is_the_oracle(name):
    program = PROGRAMS[name]
    _same(program(mnp), program(np), name)


def test_writes_agree_with_numpy():
    def program(m):
        s, d, r, o = _strings(m), _dates(m), _records(m), _objects(m)
        s[0] = "plum"
        s[1:3] = ["x", "y"]
        d[3] = "2021-05-05"
        d[0] = datetime.date(1999, 1, 2)
        r[1] = (5.0, 7)
        r["y"][0] = 9          # through a field view
        o[0] = {"k": 1}
        o[1] = datetime.time(3, 4)
        d += np.timedelta64(1, "D")
        return s, d, r, o
    got, want = program(mnp), program(np)
    for g, w in zip(got, want):
        _same(g, w, "writes")


def test_field_view_shares_the_buffer():
    r = _records(mnp)
    x = r["x"]
    assert x.base is r
    x[2] = 42.0
    assert r.tolist()[2] == (42.0, 2)
    r["x"] = 0.0
    assert x.tolist() == [0.0, 0.0, 0.0]


def test_repr_is_numpys_with_minijax_prefix():
    for make in (_strings, _dates, _records, _objects,
                 lambda m: m.array([b"ab"]), lambda m: m.array([1, 2], dtype="timedelta64[s]"),
                 lambda m: _dates(m)[0], lambda m: m.zeros(0, dtype="U2"),
                 lambda m: m.array(["a", "b"], dtype=">U1")):
        # (minijax's convention, as for numbers: the dtype always follows on the line)
        # (and a 0-d result prints as a 0-d array, where NumPy gives its scalar)
        want = " ".join(repr(np.asarray(make(np))).replace("array(", "Array(", 1).split())
        assert " ".join(repr(make(mnp)).split()) == want
        assert str(make(mnp)) == str(make(np))


def test_numpy_converts_minijax_arrays_back():
    for make in (_strings, _dates, _records, _objects):
        got = np.asarray(make(mnp))
        assert type(got) is np.ndarray
        assert got.dtype == make(np).dtype and got.tolist() == make(np).tolist()


def test_numbers_are_unchanged():
    # numeric results keep minijax's dtypes, and NumPy's errors on bad calls stand
    assert_ = mnp.arange(3) == mnp.arange(3)
    assert isinstance(assert_, mnp.ndarray) and assert_.dtype == np.bool_
    with pytest.raises(TypeError, match="sin"):
        mnp.sin(_strings(mnp))
    with pytest.raises(TypeError):
        _strings(mnp).sum()
    # 0-d results that NumPy gives as scalars hash as those scalars
    assert hash(_strings(mnp)[1]) == hash(np.str_("fig"))
    assert {str(x) for x in _strings(mnp)} == {"pear", "fig", "apple"}


# ---------------------------------------------------------------- refusals

def _refuses(fn, *names):
    with pytest.raises(NonNumericDtypeError) as info:
        fn()
    message = str(info.value)
    assert isinstance(info.value, TypeError)
    for name in names:
        assert name in message, message
    assert "eagerly" in message   # says what to do
    return info.value


def test_transformations_refuse_non_numeric_arguments():
    d, s = _dates(mnp), _strings(mnp)
    _refuses(lambda: minijax.jit(lambda x: x)(d), "jit", "datetime64[D]")
    _refuses(lambda: minijax.jit(lambda x: x)(np.array(["a"])), "jit", "<U1")
    _refuses(lambda: minijax.grad(lambda x: 1.0)(d), "grad", "datetime64[D]")
    _refuses(lambda: minijax.vmap(lambda x: x)(s), "vmap", "<U5")
    _refuses(lambda: minijax.jit(lambda x: x)(_records(mnp)), "jit", "('x', '<f8')")


def test_transformations_refuse_non_numeric_values_inside():
    d = _dates(mnp)
    f = minijax.jit(lambda x: x + (d - d).astype("int64"))
    _refuses(lambda: f(mnp.ones(4)), "Array.__sub__", "inside a transformation")
    _refuses(lambda: minijax.jit(lambda x: d[0])(1.0), "Array.__getitem__",
             "datetime64[D]")
    _refuses(lambda: minijax.jit(lambda x: mnp.array(["a"]))(1.0),
             "minijax.numpy.array inside a transformation", "<U1")
    _refuses(lambda: minijax.jit(lambda x: mnp.arange(
        "2020-01", "2020-02", dtype="datetime64[D]"))(1.0), "minijax.numpy.arange")
    _refuses(lambda: minijax.vmap(lambda x: mnp.char.upper(x))(mnp.ones(2)),
             "minijax.numpy.char.upper inside a transformation")
    _refuses(lambda: minijax.grad(lambda x: mnp.zeros(2, dtype="U2") + x)(1.0),
             "minijax.numpy.zeros")


def test_device_lax_and_xla_backend_refuse():
    s = _strings(mnp)
    device = minijax.devices()[0]
    _refuses(lambda: minijax.device_put(s, device), "device_put", "<U5")
    assert minijax.device_put(s) is s   # no device: it stays an eager host Array
    _refuses(lambda: lax.add(_dates(mnp), _dates(mnp)), "lax.add", "datetime64[D]")
    _refuses(lambda: lax.neg(s), "lax.neg")
    config.update("eager_backend", "xla")
    try:
        _refuses(lambda: mnp.concatenate([s, s]), "minijax.numpy.concatenate",
                 "eager_backend='xla'")
        _refuses(lambda: s[0], "Array.__getitem__", "eager_backend='xla'")
        _refuses(lambda: mnp.array(["a"]), "minijax.numpy.array")
        _refuses(lambda: mnp.busday_count("2020-01-01", "2020-02-01"),
                 "minijax.numpy.busday_count")
    finally:
        config.update("eager_backend", "numpy")
    assert mnp.concatenate([s, s]).shape == (8,)


def test_array_api_namespace_stays_numeric():
    info = mnp.__array_namespace_info__()
    assert not any(minijax.dtypes.is_non_numeric(np.dtype(d)) for d in info.dtypes().values())
    x = mnp.asarray([1.0, 2.0])
    assert x.__array_namespace__() is mnp and x.dtype == mnp.float64


def test_names_numpy_deprecates_warn_when_read_not_at_import():
    # (NumPy 2.5 deprecates numpy.char.chararray: importing minijax must not warn)
    run = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c",
                          "import minijax, minijax.numpy.char, minijax.numpy.rec, "
                          "minijax.numpy.strings"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # a module with a deprecated name, as NumPy's char is on 2.5
    fake = types.ModuleType("fake")
    fake.__all__ = ["upper", "old"]
    fake.upper = np.char.upper

    def deprecated(name):
        if name == "old":
            warnings.warn("old is deprecated", DeprecationWarning, stacklevel=2)
            return np.char.lower
        raise AttributeError(name)
    fake.__getattr__ = deprecated
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        install_module(namespace, fake, "minijax.fake")
    assert "old" not in namespace and namespace["__all__"] == ["upper", "old"]
    with pytest.warns(DeprecationWarning, match="old is deprecated"):
        lower = namespace["__getattr__"]("old")
    _same(lower(mnp.asarray(["AB"])), np.char.lower(np.asarray(["AB"])), "old")
    with pytest.raises(AttributeError, match="no attribute 'other'"):
        namespace["__getattr__"]("other")
