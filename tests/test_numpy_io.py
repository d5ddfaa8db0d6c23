"""Text and binary I/O in minijax.numpy against NumPy: files written by one are read by
the other, readers return minijax arrays with NumPy's values, dtypes and shapes."""

import io

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax.errors import TracerArrayConversionError
from minijax.test_util import assert_same

DATA = np.array([[1.5, -2.0, 3.25], [4.0, 5.5, -6.125]])


def test_savetxt_loadtxt_round_trip(tmp_path):
    path = tmp_path / "a.txt"
    mnp.savetxt(path, mnp.asarray(DATA), fmt="%.6f", delimiter=",", header="x,y,z")
    assert path.read_text() == _numpy_text(DATA, fmt="%.6f", delimiter=",", header="x,y,z")
    got = mnp.loadtxt(path, delimiter=",")
    assert isinstance(got, mnp.ndarray)
    assert_same(got, np.loadtxt(path, delimiter=","))
    for kwargs in [dict(usecols=(0, 2)), dict(unpack=True), dict(dtype=np.float32),
                   dict(max_rows=1, ndmin=2, skiprows=1), dict(skiprows=1, dtype=int, converters=float)]:
        assert_same(mnp.loadtxt(path, delimiter=",", **kwargs),
                    np.loadtxt(path, delimiter=",", **kwargs))
    got = mnp.loadtxt(io.StringIO("1 2\n3 4\n"), dtype=np.int32)
    assert_same(got, np.array([[1, 2], [3, 4]], np.int32))
    got[0, 0] = 9   # a minijax array of its own
    assert got[0, 0] == 9


def _numpy_text(x, **kwargs):
    buf = io.StringIO()
    np.savetxt(buf, x, **kwargs)
    return buf.getvalue()


def test_genfromtxt_fills_missing_values():
    text = "1,2,3\n4,,6\n7,8,\n"
    for kwargs in [dict(delimiter=","), dict(delimiter=",", filling_values=-1.0),
                   dict(delimiter=",", usecols=(0, 1), skip_header=1)]:
        assert_same(mnp.genfromtxt(io.StringIO(text), **kwargs),
                    np.genfromtxt(io.StringIO(text), **kwargs))
    with pytest.raises(TypeError, match="masked arrays"):
        mnp.genfromtxt(io.StringIO(text), delimiter=",", usemask=True)
    # records and strings: NumPy's arrays, held by eager Arrays (DESIGN 3)
    for text, kwargs in [("a,b\n1,2\n", dict(delimiter=",", names=True)),
                         ("a b\n", dict(dtype=str))]:
        got = mnp.genfromtxt(io.StringIO(text), **kwargs)
        want = np.genfromtxt(io.StringIO(text), **kwargs)
        assert isinstance(got, mnp.ndarray) and got.dtype == want.dtype
        assert np.asarray(got).tolist() == want.tolist()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.uint16, np.bool_,
                                   np.complex64])
def test_save_load_npy_both_ways(tmp_path, dtype):
    host = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    mnp.save(tmp_path / "ours.npy", mnp.asarray(host))
    assert_same(np.load(tmp_path / "ours.npy"), host)
    np.save(tmp_path / "theirs.npy", host)
    got = mnp.load(tmp_path / "theirs.npy")
    assert isinstance(got, mnp.ndarray)
    assert_same(got, host)
    buf = io.BytesIO()
    mnp.save(buf, mnp.asarray(host).T)
    buf.seek(0)
    assert_same(mnp.load(buf), host.T)


def test_savez_and_load_npz(tmp_path):
    a, b = mnp.arange(4.0), mnp.ones((2, 2), mnp.int32)
    mnp.savez(tmp_path / "u.npz", a, weights=b)
    mnp.savez_compressed(tmp_path / "c.npz", a, weights=b)
    for name in ["u.npz", "c.npz"]:
        with np.load(tmp_path / name) as theirs:
            assert sorted(theirs.files) == ["arr_0", "weights"]
            assert_same(theirs["weights"], np.ones((2, 2), np.int32))
        with mnp.load(tmp_path / name) as ours:
            assert sorted(ours.files) == ["arr_0", "weights"] and len(ours) == 2
            assert "weights" in ours and sorted(ours) == ["arr_0", "weights"]
            assert isinstance(ours["arr_0"], mnp.ndarray)
            assert_same(ours["arr_0"], np.arange(4.0))
            assert_same(dict(ours.items())["weights"], np.ones((2, 2), np.int32))
            with pytest.raises(KeyError):
                ours["missing"]


def test_load_refuses_pickles_and_mmap(tmp_path):
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="allow_pickle"):
        mnp.load(tmp_path / "obj.npy")
    got = mnp.load(tmp_path / "obj.npy", allow_pickle=True)   # an object Array, as NumPy's
    assert isinstance(got, mnp.ndarray) and got.dtype == object and got.tolist() == [{"a": 1}]
    np.save(tmp_path / "a.npy", DATA)
    with pytest.raises(ValueError, match="mmap_mode"):
        mnp.load(tmp_path / "a.npy", mmap_mode="r")


def test_fromfile_fromstring_fromregex(tmp_path):
    DATA.tofile(tmp_path / "a.bin")
    assert_same(mnp.fromfile(tmp_path / "a.bin"), DATA.ravel())
    assert_same(mnp.fromfile(tmp_path / "a.bin", np.float64, count=2, offset=8),
                np.fromfile(tmp_path / "a.bin", np.float64, count=2, offset=8))
    mnp.asarray(DATA).tofile(tmp_path / "a.txt", sep=" ")
    assert_same(mnp.fromfile(tmp_path / "a.txt", sep=" "),
                np.fromfile(tmp_path / "a.txt", sep=" "))
    assert_same(mnp.fromstring("1, 2, 3", dtype=np.int64, sep=","),
                np.fromstring("1, 2, 3", dtype=np.int64, sep=","))
    with pytest.raises(ValueError, match="frombuffer"):
        mnp.fromstring(b"\x00\x01", dtype=np.uint8, sep="")
    (tmp_path / "log.txt").write_text("x=1 y=2.5\nx=3 y=4.5\nnoise\nx=5 y=6\n")
    got = mnp.fromregex(tmp_path / "log.txt", r"x=(\d+) y=([\d.]+)", np.float64)
    assert_same(got, np.array([[1, 2.5], [3, 4.5], [5, 6]]))
    assert_same(mnp.fromregex(tmp_path / "log.txt", r"x=(\d+)", np.int64),
                np.array([1, 3, 5]))
    assert_same(mnp.fromregex(io.StringIO("a1 a22 a3"), r"a(\d+)", np.int32),
                np.fromregex(io.StringIO("a1 a22 a3"), r"a(\d+)", [("n", np.int32)])["n"])
    with pytest.raises(TypeError, match="structured"):
        mnp.fromregex(tmp_path / "log.txt", r"x=(\d+)", [("x", np.int64)])
    with pytest.raises(TypeError, match="like"):
        mnp.loadtxt(io.StringIO("1"), like=[1])


def test_writers_refuse_traced_values(tmp_path):
    with pytest.raises(TracerArrayConversionError, match="save"):
        minijax.jit(lambda x: mnp.save(tmp_path / "t.npy", x) or x)(mnp.ones(2))
