"""NumPy's scalar types, type hierarchy and dtype helpers in minijax.numpy, against NumPy;
the out-of-scope names; Array.view; lib.stride_tricks; exceptions; runtime info."""

import pickle

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax.errors import (ConcretizationTypeError, TracerArrayConversionError,
                            UnsupportedNumPyFeatureError)
from minijax.test_util import assert_same, check_grads

CONCRETE = ["bool", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
            "uint64", "float16", "float32", "float64", "complex64", "complex128", "byte",
            "ubyte", "short", "ushort", "intc", "uintc", "int_", "uint", "long", "ulong",
            "longlong", "ulonglong", "intp", "uintp", "half", "single", "double", "csingle",
            "cdouble"]
ABSTRACT = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact",
            "floating", "complexfloating", "flexible", "character"]


@pytest.mark.parametrize("name", CONCRETE)
def test_scalar_type_is_numpys_dtype(name):
    ours, theirs = getattr(mnp, name), getattr(np, name)
    assert np.dtype(ours) == np.dtype(theirs)
    assert ours == theirs and theirs == ours and not ours != theirs
    assert ours in (theirs,) and theirs in [ours] and {ours: 1}[ours] == 1
    # one key of a dict or set with NumPy's type, either way round
    assert hash(ours) == hash(theirs)
    assert {theirs: 1}[ours] == 1 and {ours: 2}[theirs] == 2
    assert ours in {theirs} and theirs in {ours} and len({ours, theirs}) == 1
    assert ours == np.dtype(theirs) and np.dtype(theirs) == ours
    assert np.dtype(theirs).type in (ours,)
    assert issubclass(ours, theirs)
    assert mnp.zeros(2, ours).dtype == np.dtype(theirs)
    assert mnp.ones(2).astype(ours).dtype == np.dtype(theirs)
    assert mnp.dtype(ours) == np.dtype(theirs)
    assert mnp.ones(3).dtype.type == mnp.float64
    # called on Python and NumPy scalars (and strings), NumPy's own scalar
    value = ours(1)
    assert type(value) is theirs and value == theirs(1)
    assert type(ours()) is theirs
    assert isinstance(theirs(1), ours)
    assert pickle.loads(pickle.dumps(ours)) is ours
    for abstract in ABSTRACT:
        assert issubclass(ours, getattr(mnp, abstract)) == issubclass(theirs,
                                                                      getattr(np, abstract))
        assert mnp.issubdtype(ours, getattr(mnp, abstract)) == np.issubdtype(
            theirs, getattr(np, abstract)), abstract
        assert np.issubdtype(theirs, getattr(mnp, abstract)) == np.issubdtype(
            theirs, getattr(np, abstract)), abstract


def test_abstract_scalar_types_hash_as_numpys():
    for name in ABSTRACT:
        ours, theirs = getattr(mnp, name), getattr(np, name)
        assert ours == theirs and hash(ours) == hash(theirs) and {theirs: 0}[ours] == 0
    # a table keyed by NumPy's types, as libraries build them, finds minijax's
    table = {np.float32: "f4", np.float64: "f8", np.int64: "i8", np.bool_: "b1"}
    assert [table[t] for t in (mnp.float32, mnp.float64, mnp.int64, mnp.bool)] == \
        ["f4", "f8", "i8", "b1"]
    assert table[mnp.asarray([1.0]).dtype.type] == "f8"


def test_aliases_are_numpys_aliases():
    for a in CONCRETE:
        for b in CONCRETE:
            assert (getattr(mnp, a) is getattr(mnp, b)) == (getattr(np, a) is getattr(np, b)), \
                (a, b)
    assert mnp.bool is mnp.bool_ and mnp.bool.__name__ == "bool"
    assert mnp.False_ is np.False_ and mnp.True_ is np.True_
    assert mnp.float64("1.5") == 1.5 and mnp.int64("12") == 12


def test_abstract_types():
    for name in ABSTRACT:
        ours, theirs = getattr(mnp, name), getattr(np, name)
        with pytest.raises(TypeError, match="abstract"):
            ours(1)
        assert ours == theirs and {ours: 1}[ours] == 1
    assert issubclass(np.str_, mnp.flexible) and issubclass(np.str_, mnp.character)
    assert not issubclass(np.float64, mnp.flexible)
    for a in ABSTRACT:
        for b in ABSTRACT:
            assert mnp.issubdtype(getattr(mnp, a), getattr(mnp, b)) == np.issubdtype(
                getattr(np, a), getattr(np, b)), (a, b)
            assert issubclass(getattr(mnp, a), getattr(mnp, b)) == issubclass(
                getattr(np, a), getattr(np, b)), (a, b)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32", "float64",
                                   "complex128"])
def test_isinstance_of_scalars_and_0d_arrays(dtype):
    """NumPy scalars and minijax 0-d arrays (where NumPy gives scalars) are instances of
    their dtype's types; larger arrays and other dtypes are not."""
    x = mnp.zeros((), dtype)
    for name in ABSTRACT + ["bool", "int8", "uint32", "float32", "float64", "complex128"]:
        expected = isinstance(np.zeros((), dtype)[()], getattr(np, name))
        assert isinstance(x, getattr(mnp, name)) == expected, name
        assert isinstance(np.zeros((), dtype)[()], getattr(mnp, name)) == expected, name
        assert not isinstance(mnp.zeros(2, dtype), getattr(mnp, name))
        seen = []
        minijax.jit(lambda t: seen.append(isinstance(t, getattr(mnp, name))) or t)(x)
        assert seen == [expected]
    assert isinstance(mnp.sum(mnp.ones(3)), mnp.floating)
    assert isinstance(mnp.argmax(mnp.ones(3)), mnp.integer)
    assert not isinstance(1.0, mnp.floating) and not isinstance("a", mnp.generic)


@pytest.mark.parametrize("name", ["int64", "int8", "uint8", "float32", "float64",
                                  "complex64", "bool_"])
def test_scalar_type_casts_arrays_and_traced_values(name):
    ours, theirs = getattr(mnp, name), getattr(np, name)
    # (a negative float to an unsigned type is undefined in C: NumPy wraps, XLA saturates)
    values = np.array([1.5, 2.7 if name.startswith("u") else -2.7, 0.0, 3.2])
    expected = values.astype(theirs)
    assert_same(ours(mnp.asarray(values)), expected)
    assert_same(ours(values), expected)
    assert_same(ours(values.tolist()), expected)
    assert_same(minijax.jit(ours)(mnp.asarray(values)), expected)
    assert_same(minijax.vmap(ours)(mnp.asarray(values)), expected)
    assert_same(minijax.jit(lambda v: ours(v[0]))(mnp.asarray(values)), expected[0])
    assert_same(minijax.jit(lambda v: ours([v[0], v[1]]))(mnp.asarray(values)), expected[:2])


def test_scalar_type_cast_is_differentiable():
    f = lambda x: mnp.float64(x) ** 2 + mnp.float32(x).astype(mnp.float64)
    assert_same(minijax.grad(f)(3.0), np.float64(7.0))
    check_grads(lambda x: mnp.sin(mnp.float64(x)), (np.array([0.3, 1.2]),), order=2)
    primal, tangent = minijax.jvp(lambda x: mnp.float32(x), (np.float64(2.0),),
                                  (np.float64(1.0),))
    assert_same(primal, np.float32(2.0))
    assert_same(tangent, np.float32(1.0))
    # an integer cast has a zero derivative, as astype
    assert_same(minijax.grad(lambda x: mnp.int64(x) * x)(2.5), np.float64(2.0))


def test_sctypedict_typecodes_scalartype():
    for name, t in mnp.sctypeDict.items():
        assert np.dtype(t) == np.dtype(name) or name == "bfloat16", name
    for name in ["float64", "int32", "bool", "complex64", "double", "intp", "uint"]:
        assert mnp.sctypeDict[name] == np.sctypeDict[name]
    assert "float128" not in mnp.sctypeDict and "str" not in mnp.sctypeDict
    assert mnp.typecodes["Float"] == "efd" and mnp.typecodes["Complex"] == "FD"
    assert mnp.typecodes["AllInteger"] == np.typecodes["AllInteger"]
    assert set(mnp.typecodes["All"]) <= set(np.typecodes["All"]) and "O" not in \
        mnp.typecodes["All"]
    assert mnp.float32 in mnp.ScalarType and int in mnp.ScalarType
    assert mnp.little_endian == np.little_endian
    assert type(mnp.ones(2).dtype) is mnp.dtypes.Float64DType
    assert mnp.euler_gamma == np.euler_gamma


def test_dtype_helpers_against_numpy():
    for c in "?bBhHiIlLqQfdFD":
        assert mnp.typename(c) == np.typename(c)
    cases = [(["f", "d"],), (["F", "d"],), ("ifd",), ("bh",), ([np.ones(2, np.float32)],),
             (["f", "F"], "FD"), (["i"], "GDFgdf", "q")]
    for args in cases:
        assert mnp.mintypecode(*args) == np.mintypecode(*args), args
    assert mnp.mintypecode([mnp.ones(2, mnp.float32)]) == "f"
    pairs = [("int8", "uint8"), ("int64", "float32"), ("float16", "int16"), (np.bool_, "int8"),
             ("complex64", "float64"), ("uint64", "int64"), (mnp.float32, mnp.int32)]
    for a, b in pairs:
        assert mnp.promote_types(a, b) == np.promote_types(np.dtype(a), np.dtype(b)), (a, b)
    assert mnp.promote_types(mnp.bfloat16, "float16") == np.float32
    for a, b in [("U3", "float32"), ("M8[D]", "M8[s]"), ("S2", "U1")]:
        assert mnp.promote_types(a, b) == np.promote_types(a, b)
    with pytest.raises(TypeError, match="does not support dtype"):
        mnp.promote_types("longdouble", "float32")
    for v in [3, -3, 300, 70000, 1.5, 1e300, 1 + 2j, True, np.float32(1), np.arange(3)]:
        assert mnp.min_scalar_type(v) == np.min_scalar_type(v), v
        if not isinstance(v, np.ndarray) and not isinstance(v, complex):
            assert mnp.min_scalar_type(mnp.asarray(v)) == np.min_scalar_type(np.asarray(v))
    assert minijax.jit(lambda x: mnp.zeros(2, mnp.min_scalar_type(x)))(mnp.ones(3)).dtype == \
        np.float64
    with pytest.raises(ConcretizationTypeError, match="min_scalar_type"):
        minijax.jit(mnp.min_scalar_type)(1.0)
    groups = [[np.ones(2, np.int8)], [np.ones(2, np.float16)], [np.ones(2, np.float32)],
              [np.ones(2, np.float32), np.ones(2, np.int32)],
              [np.ones(2, np.complex64), np.ones(2, np.float64)],
              [np.ones(2, np.complex64), np.ones(2, np.float16)], [np.ones(2, np.float64)]]
    for g in groups:
        assert mnp.common_type(*[mnp.asarray(a) for a in g]) == np.common_type(*g), g
    assert mnp.common_type() == np.common_type()
    with pytest.raises(TypeError):
        mnp.common_type(mnp.ones(2, bool))
    assert mnp.issubdtype(mnp.bfloat16, mnp.floating) and not mnp.issubdtype(
        mnp.bfloat16, mnp.integer)
    assert mnp.issubdtype(mnp.ones(2).dtype, mnp.inexact)
    assert mnp.issubdtype("int32", mnp.signedinteger) and mnp.issubdtype(float, mnp.float64)


@pytest.mark.parametrize("name", ["longdouble", "clongdouble", "float128", "complex256",
                                  "ma", "ctypeslib", "f2py", "matrix", "asmatrix",
                                  "bmat", "memmap", "recarray", "record", "polynomial"])
def test_out_of_scope_names_raise_a_named_error(name):
    with pytest.raises(UnsupportedNumPyFeatureError, match=f"minijax.numpy.{name} is not "
                       "provided: .*out of scope"):
        getattr(mnp, name)
    assert not hasattr(mnp, name)   # an AttributeError: probing libraries see it missing


def test_unknown_names_and_version():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'") as info:
        mnp.no_such_name
    assert not isinstance(info.value, UnsupportedNumPyFeatureError)
    assert mnp.__version__ == minijax.__version__
    with pytest.raises(AttributeError, match="removed in NumPy 2.0.*float64") as info:
        mnp.float_
    assert not isinstance(info.value, UnsupportedNumPyFeatureError)


def test_show_config_and_runtime(capsys):
    versions = mnp.show_config(mode="dicts")
    assert versions["minijax"] == minijax.__version__ and versions["numpy"] == np.__version__
    with pytest.raises(ValueError, match="mode"):
        mnp.show_config("json")
    mnp.show_config()
    out = capsys.readouterr().out
    assert f"minijax {minijax.__version__}" in out and f"numpy {np.__version__}" in out
    mnp.show_runtime()
    out = capsys.readouterr().out
    assert "devices" in out and "enable_x64" in out


def test_exceptions_are_numpys():
    for name in mnp.exceptions.__all__:
        assert getattr(mnp.exceptions, name) is getattr(np.exceptions, name)
    with pytest.raises(mnp.exceptions.AxisError):
        mnp.sum(mnp.ones(3), axis=2)


# ---------------------------------------------------------------- Array.view

VIEW_CASES = [("float64", "int64", (6,)), ("float64", "int32", (2, 3)),
              ("int32", "float64", (3, 4)), ("uint8", "int8", (5,)),
              ("int16", "uint8", (2, 2)), ("uint8", "float32", (2, 8)),
              ("complex128", "float64", (3,)), ("float32", "complex64", (2, 4)),
              ("complex64", "int64", (3,)), ("bool", "uint8", (4,)), ("uint8", "bool", (4,)),
              ("float32", "float32", (3,)), ("float16", "int16", ()), ("complex64", "float64",
                                                                          ())]


def _bits(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = rng.integers(0, 256, n, dtype=np.uint8)
    out = raw.view(np.dtype(dtype).newbyteorder("=")) if dtype != "bool" else raw % 2 == 1
    if np.dtype(dtype).kind in "fc":   # no NaNs: their payloads need not survive
        out = np.nan_to_num(out, nan=1.5)
    return out.reshape(shape)


@pytest.mark.parametrize("src,dst,shape", VIEW_CASES)
def test_view_matches_numpy_eager_jit_vmap(src, dst, shape):
    host = _bits(src, shape)
    expected = host.view(dst)
    x = mnp.asarray(host)
    assert_same(x.view(dst), expected)
    assert_same(minijax.jit(lambda a: a.view(dst))(x), expected)
    if shape:
        assert_same(minijax.vmap(lambda a: a.view(dst))(x.reshape(1, *shape)),
                    expected.reshape(1, *expected.shape))


def test_view_shares_the_buffer_eagerly():
    x = mnp.arange(4.0)
    v = x.view(mnp.int64)
    assert v.base is x and mnp.shares_memory(x, v)
    v[0] = np.float64(7.0).view(np.int64)
    assert x[0] == 7.0
    w = x.view()
    assert w.base is x and w is not x and w.dtype == x.dtype
    w[1] = -1.0
    assert x[1] == -1.0
    assert x.view(mnp.ndarray).base is x


def test_view_errors():
    with pytest.raises(ValueError):
        mnp.ones(3, mnp.float32).view(mnp.float64)
    with pytest.raises(ValueError, match="not a multiple"):
        minijax.jit(lambda a: a.view(mnp.float64))(mnp.ones(3, mnp.float32))
    with pytest.raises(ValueError, match="0-d"):
        minijax.jit(lambda a: a.view(mnp.int32))(mnp.ones((), mnp.float64))
    with pytest.raises(TypeError, match="does not support dtype"):
        mnp.ones(3).view("longdouble")
    # eagerly, NumPy reads the bytes as strings (an eager Array holds them, DESIGN 3; the
    # bytes must be code points: a float's are not, and NumPy makes an invalid str of them)
    assert mnp.arange(3).view("U2").tolist() == np.arange(3).view("U2").tolist()
    with pytest.raises(TypeError, match="one array class"):
        mnp.ones(3).view(type=np.ma.MaskedArray)


def test_view_under_grad_has_no_derivative_but_runs():
    g = minijax.grad(lambda x: mnp.sum(x.view(mnp.int64).astype(mnp.float64) * 0) + x.sum())
    assert_same(g(mnp.ones(3)), np.ones(3))


def test_tobytes_and_tofile(tmp_path):
    host = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = mnp.asarray(host)
    assert x.tobytes() == host.tobytes() and x.tobytes("F") == host.tobytes("F")
    assert x.T.tobytes() == host.T.tobytes()
    x.tofile(tmp_path / "a.bin")
    assert_same(np.fromfile(tmp_path / "a.bin", np.int32), host.ravel())
    x.tofile(tmp_path / "a.txt", sep=",", format="%d")
    assert (tmp_path / "a.txt").read_text() == "0,1,2,3,4,5"
    with pytest.raises(TracerArrayConversionError, match="tobytes"):
        minijax.jit(lambda a: a.tobytes())(x)


# ---------------------------------------------------------------- lib.stride_tricks

@pytest.mark.parametrize("shape,window,axis", [((7,), 3, None), ((4, 5), (2, 3), None),
                                               ((4, 5), 2, 1), ((4, 5), (2, 2), (0, 0)),
                                               ((3, 4, 5), (2, 3), (-1, 0)), ((3,), 3, None),
                                               ((3,), 0, None)])
def test_sliding_window_view(shape, window, axis):
    from minijax.numpy.lib.stride_tricks import sliding_window_view as ours
    host = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    expected = np.lib.stride_tricks.sliding_window_view(host, window, axis)
    x = mnp.asarray(host)
    eager = ours(x, window, axis)
    assert_same(eager, expected)
    assert eager.base is x
    assert mnp.shares_memory(eager, x) == np.shares_memory(expected, host)
    assert_same(minijax.jit(lambda a: ours(a, window, axis))(x), expected)
    assert_same(ours(host, window, axis), expected)
    with pytest.raises(ValueError):
        eager[(0,) * eager.ndim] = 1.0   # read-only, as NumPy's


def test_sliding_window_view_grad_and_errors():
    from minijax.numpy.lib import stride_tricks
    f = lambda x: mnp.sum(stride_tricks.sliding_window_view(x, 3) ** 2)
    assert_same(minijax.grad(f)(mnp.arange(5.0)), 2 * np.arange(5.0) * [1, 2, 3, 2, 1])
    for window, axis in [(4, None), ((1, 1), None), (-1, None), (2, (0, 1))]:
        with pytest.raises(ValueError):
            stride_tricks.sliding_window_view(mnp.ones(3), window, axis)
        with pytest.raises(ValueError):
            minijax.jit(lambda a: stride_tricks.sliding_window_view(a, window, axis))(
                mnp.ones(3))
    with pytest.raises(UnsupportedNumPyFeatureError, match="as_strided"):
        stride_tricks.as_strided(mnp.ones(3), (2,), (8,))
    assert mnp.lib.scimath is mnp.emath
    assert mnp.lib.NumpyVersion("2.1.0") > "2.0.0"


def test_traced_values_refuse_host_only_helpers():
    with pytest.raises(TracerArrayConversionError):
        minijax.jit(lambda x: mnp.array2string(x))(mnp.ones(2))


def test_read_only_views_stay_read_only_after_a_copy_on_write():
    """A broadcast (read-only in NumPy) stays read-only when its base's buffer is copied
    (here after a transformation saw the base), and keeps following the base."""
    x = mnp.arange(3.0)
    b = mnp.broadcast_to(x, (2, 3))
    minijax.jit(lambda a: a + 1)(x)   # freezes x's buffer: its next write copies it
    x[0] = 7.0
    assert_same(b, np.array([[7.0, 1, 2], [7.0, 1, 2]]))
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 5.0
    assert_same(x, np.array([7.0, 1, 2]))


def test_hypothesis_array_api_strategies_accept_the_namespace():
    """hypothesis' Array API strategies need the standard's ``bool`` dtype name."""
    from hypothesis import given
    from hypothesis.extra import array_api

    xps = array_api.make_strategies_namespace(mnp)

    @given(xps.arrays(xps.scalar_dtypes(), xps.array_shapes(max_dims=2, max_side=3)))
    def check(x):
        assert isinstance(x, mnp.ndarray)
        assert_same(x, np.asarray(x))

    @given(xps.arrays(mnp.bool, 3))
    def check_bool(x):
        assert x.dtype == mnp.bool and x.shape == (3,)

    check()
    check_bool()


def test_result_type_takes_dtype_strings_and_typename_rejects_unknown_codes():
    for args in [("f8", "i4"), (np.ones(2, np.float32), "f2"), (np.float32, "i8"),
                 (np.int8, "u1")]:
        assert mnp.result_type(*args) == np.result_type(*args)
    with pytest.raises(TypeError, match="cannot interpret"):
        mnp.result_type((1, 2))   # NumPy: TypeError too
    assert mnp.typename("d") == np.typename("d")
    with pytest.raises(ValueError, match="not a NumPy type character"):
        mnp.typename("nonsense")   # NumPy: a bare KeyError
