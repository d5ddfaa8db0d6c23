"""The eager fast paths (runtime/numpy_dispatch.py, runtime/array.py, the dtype helpers)
give NumPy's answers: the shortcuts taken for speed (inline wrapping, tuple results of
views, the argsort and floor_divide checks, cached finfo/iinfo, result_type by pairwise
promotion) against NumPy as the oracle, and against the general paths they skip."""

import itertools
import re
import warnings

import numpy as onp
import pytest
from numpy.lib.array_utils import byte_bounds
from numpy.lib.stride_tricks import as_strided, sliding_window_view

import minijax
import minijax.numpy as np
from minijax.numpy import _eager_table
from minijax.runtime.array import _overlapping, overlapping_or_read_only

_RNG = onp.random.default_rng(7)
_PROMOTED = [onp.dtype(t) for t in (onp.bool_, onp.int8, onp.int16, onp.int32, onp.int64,
                                     onp.uint8, onp.uint16, onp.uint32, onp.uint64,
                                     onp.float16, onp.float32, onp.float64, onp.complex64,
                                     onp.complex128)]


# ------------------------------------------------------------------ dtype helpers

@pytest.mark.parametrize("x", [onp.ones(2), onp.ones(2, onp.complex64), [1j, 2.0], [1, 2],
                               3.0, 1j, onp.float32(1), onp.complex128(1)])
def test_iscomplexobj_isrealobj_are_python_bools_as_numpy(x):
    for arg in (x, np.asarray(x)):
        assert np.iscomplexobj(arg) is onp.iscomplexobj(x)
        assert np.isrealobj(arg) is onp.isrealobj(x)


def test_iscomplexobj_under_jit_is_static():
    out = minijax.jit(lambda z: z * 2 if np.iscomplexobj(z) else z + 1)(onp.ones(2, onp.complex64))
    onp.testing.assert_array_equal(out, onp.full(2, 2 + 0j))


@pytest.mark.parametrize("a,b", list(itertools.combinations_with_replacement(_PROMOTED, 2)))
def test_result_type_of_strong_dtypes_is_numpys(a, b):
    assert np.result_type(a, b) == onp.result_type(a, b)
    assert np.result_type(np.zeros(2, a), np.zeros(2, b)) == onp.result_type(a, b)


def test_result_type_of_three_and_of_weak_values():
    assert np.result_type(onp.int8, onp.uint8, onp.float16) == onp.result_type(
        onp.int8, onp.uint8, onp.float16)
    assert np.result_type(np.zeros(2, onp.float32), 1.0) == onp.float32   # weak scalar
    assert np.result_type(np.asarray(onp.ones(3, onp.int16))) == onp.int16


def test_result_type_of_three_arrays_is_not_pairwise():
    # int8 with uint8 is int16, which with float16 is float32; NumPy's answer is float16
    arrays = [np.zeros(2, t) for t in (onp.int8, onp.uint8, onp.float16)]
    assert np.result_type(*arrays) == onp.float16
    assert np.result_type(*[a.dtype for a in arrays]) == onp.float16


@pytest.mark.parametrize("dtype", _PROMOTED)
def test_result_type_of_an_array_and_a_python_scalar_is_the_complete_paths(dtype):
    complete = np.result_type.__wrapped__   # (the Python function behind the C one)
    for scalar in (True, 3, 2.5, 1j):
        for first in (np.zeros(2, dtype), onp.zeros(2, dtype), dtype, dtype.type):
            for args in ((first, scalar), (scalar, first)):
                expected = complete(*args)
                assert np.result_type(*args) == expected
                assert np.result_type(*args) == expected   # (the kept answer)
    with minijax.enable_x64(False):
        got = np.result_type(np.zeros(2, dtype), 2.5)
        traced = minijax.jit(lambda x: np.zeros(1, np.result_type(x, 2.5)))(np.zeros(2, dtype))
        assert got == traced.dtype


def test_result_type_of_a_dtype_with_metadata_and_a_python_scalar():
    tagged = onp.dtype("float32", metadata={"unit": "m"})
    complete = np.result_type.__wrapped__
    for _ in range(2):   # (answers kept for plain dtypes are not the tagged one's)
        assert np.result_type(onp.float32, 2.0) == onp.float32
        got = np.result_type(tagged, 2.0)
        assert got == onp.float32 and got.metadata == complete(tagged, 2.0).metadata


def test_result_type_of_weak_values_and_in_32_bit_mode():
    weak = minijax.jit(lambda x: x)(2.0)
    assert weak.weak_type
    assert np.result_type(weak, np.zeros(2, onp.float32)) == onp.float32
    assert np.result_type(np.float32, onp.int64) == onp.float64
    assert np.result_type(onp.zeros(2, onp.int64), np.float64) == onp.float64
    with minijax.enable_x64(False):
        assert np.result_type(np.zeros(2, onp.float32), np.zeros(2, onp.int32)) == onp.float32
        assert np.result_type(onp.float64, onp.int64) == onp.float32
        assert np.result_type(np.float32, 1.0) == onp.float32


def test_result_type_of_minijax_scalar_types_and_bfloat16():
    assert np.result_type(np.float32, np.zeros(2, onp.int8)) == onp.float32
    assert np.result_type(np.int16) == onp.int16
    assert np.result_type(np.float16, 1.0) == onp.float16
    assert np.result_type(np.bfloat16, onp.float32) == onp.float32
    assert np.result_type(np.zeros(2, np.bfloat16), 1.0) == np.bfloat16
    assert np.result_type(np.zeros(2, np.bfloat16), onp.zeros(2, onp.float16)) == onp.float32
    assert np.result_type(1.0, 2) == onp.float64
    with pytest.raises((TypeError, ValueError)):
        np.result_type()


def test_result_type_under_jit_agrees_with_eager():
    args = (onp.zeros(2, onp.int16), onp.zeros(2, onp.float32))
    eager = np.result_type(*[np.asarray(a) for a in args])
    traced = minijax.jit(lambda a, b: np.zeros(1, np.result_type(a, b)))(*args).dtype
    assert eager == traced == onp.float32


_DTYPE_LIKES = [onp.float32, onp.int64, onp.uint8, onp.bool_, onp.complex64, float, int,
                "float16", "i4", onp.dtype("float64"), np.float32, np.int16, np.bfloat16]


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_can_cast_of_dtype_likes_is_numpys_every_time(casting):
    for a, b in itertools.product(_DTYPE_LIKES, repeat=2):
        expected = onp.can_cast(onp.dtype(a), onp.dtype(b), casting=casting)
        for _ in range(2):   # (computed, then kept)
            assert np.can_cast(a, b, casting) is expected
            assert np.can_cast(a, b, casting=casting) is expected
    assert np.can_cast(np.zeros(2, onp.float32), onp.float64)
    assert not np.can_cast(np.zeros(2, onp.float64), np.float32)
    for bad in ((None, onp.float32), (onp.float32, None)):
        with pytest.raises(TypeError, match="None"):
            np.can_cast(*bad)
    with pytest.raises(ValueError):
        np.can_cast(onp.float32, onp.float64, "sometimes")


def test_issubdtype_and_promote_types_of_dtype_likes_are_numpys_every_time():
    kinds = [onp.generic, onp.number, onp.integer, onp.signedinteger, onp.unsignedinteger,
             onp.inexact, onp.floating, onp.complexfloating, np.floating, np.integer]
    for _ in range(2):   # (computed, then kept)
        for a in _DTYPE_LIKES[:-1]:
            for k in kinds + _DTYPE_LIKES[:-1]:
                want = onp.issubdtype(getattr(a, "_numpy_type", a), getattr(k, "_numpy_type", k))
                assert np.issubdtype(a, k) is want
            for b in _DTYPE_LIKES[:-1]:
                assert np.promote_types(a, b) == onp.promote_types(a, b)
        assert np.issubdtype(np.bfloat16, np.floating)
        assert np.promote_types(np.bfloat16, onp.float16) == onp.float32
    with minijax.enable_x64(False):   # (kept answers are the mode's)
        assert np.promote_types(onp.float32, onp.int64) == onp.float32
        assert np.promote_types("float64", onp.int8) == onp.float32
    assert np.promote_types(onp.float32, onp.int64) == onp.float64
    with pytest.raises(TypeError, match="array"):
        np.issubdtype(np.zeros(2), onp.floating)
    with pytest.raises(TypeError, match="array"):
        np.issubdtype(onp.zeros(2), onp.floating)


def test_canonicalize_keeps_answers_per_mode():
    from minijax import dtypes
    for _ in range(2):
        assert dtypes.canonicalize(onp.float64) == onp.float64
        assert dtypes.canonicalize("int64") == onp.int64
        with minijax.enable_x64(False):
            assert dtypes.canonicalize(onp.float64) == onp.float32
            assert dtypes.canonicalize("int64") == onp.int32
            assert dtypes.canonicalize(onp.dtype("complex128")) == onp.complex64
    tagged = onp.dtype("float64", metadata={"unit": "m"})
    assert dtypes.canonicalize(tagged).metadata == {"unit": "m"}
    assert dtypes.canonicalize(onp.dtype(">f4")) == onp.dtype("<f4")
    assert dtypes.canonicalize([("a", "f4")][0][1]) == onp.float32
    with pytest.raises(TypeError, match="does not support"):
        dtypes.canonicalize(onp.longdouble)


@pytest.mark.parametrize("x", [1, 2.5, 1j, True, "s", b"b", onp.float32(1), None, [1],
                               onp.ones(()), (1,)])
def test_isscalar_is_numpys(x):
    assert np.isscalar(x) is onp.isscalar(x)
    assert not np.isscalar(np.asarray(1.0))


def test_broadcast_shapes_of_two_is_numpys():
    shapes = [(), (1,), (3,), (0,), (1, 3), (3, 1), (2, 3), (0, 1), (2, 1, 3), (4, 1, 1)]
    for a, b in itertools.product(shapes, repeat=2):
        try:
            expected = onp.broadcast_shapes(a, b)
        except ValueError:
            with pytest.raises(ValueError, match="could not be broadcast"):
                np.broadcast_shapes(a, b)
        else:
            assert np.broadcast_shapes(a, b) == expected
    assert np.broadcast_shapes(3, (2, 1)) == (2, 3)
    assert np.broadcast_shapes((2, 1), (1, 3), (1, 1)) == (2, 3)


# ------------------------------------------------------------------ creation

def test_asarray_of_an_ndarray_with_a_dtype_is_a_new_array_of_it():
    h = onp.arange(6.0).reshape(2, 3)
    for dtype in (onp.float64, onp.float32, "int32", np.float32, onp.dtype("complex64")):
        got = np.asarray(h, dtype=dtype)
        assert got.dtype == onp.dtype(dtype)
        onp.testing.assert_array_equal(got, h.astype(dtype))
        assert not np.shares_memory(got, h)
    with minijax.enable_x64(False):
        got = np.asarray(h, dtype=onp.float64)
        assert got.dtype == onp.float32
        got = np.asarray(onp.arange(3), dtype=onp.int64)
        assert got.dtype == onp.int32
    strings = np.asarray(onp.array([1, 2]), dtype=str)
    assert strings.dtype == onp.dtype("<U21") and strings.tolist() == ["1", "2"]
    got = np.asarray(h, dtype=onp.float64, copy=True)
    assert not np.shares_memory(got, h)
    with pytest.raises(ValueError):
        np.asarray(h, dtype=onp.float32, copy=False)


def test_asarray_dtype_spellings_and_byte_orders():
    h = onp.arange(4.0)
    for dtype in (np.float32, onp.float32, onp.dtype("f4"), "f4", np.int8, onp.dtype(">f8"),
                  onp.dtype("<f8"), np.bfloat16, float, complex):
        got = np.asarray(h, dtype)
        want = minijax.dtypes.canonicalize(dtype)
        assert got.dtype == want and not np.shares_memory(got, h), dtype
        onp.testing.assert_array_equal(onp.asarray(got, float), h.astype(want).astype(float))
    swapped = h.astype(">f8")
    got = np.asarray(swapped)
    assert got.dtype == onp.float64 and not np.shares_memory(got, swapped)
    onp.testing.assert_array_equal(got, h)


def test_asarray_copy_true_and_order():
    h = onp.arange(4.0)
    for got in (np.asarray(h, copy=True), np.asarray(h, order="F", copy=True)):
        assert not np.shares_memory(got, h)
        onp.testing.assert_array_equal(got, h)
    for got in (np.asarray(h), np.asarray(h, order="K"), np.asarray(h, copy=False),
                np.asarray(h, order="C")):   # (NumPy's: h is C-contiguous already)
        assert np.shares_memory(got, h)
    with minijax.enable_x64(False):
        got = np.asarray(onp.arange(3), copy=True)
        assert got.dtype == onp.int32


@pytest.mark.parametrize("seq", [[1.0, 2.0], (1, 2, 3), [[1, 2], [3, 4]], [True, False],
                                 [1j, 2], [], [onp.float32(1), 2.0], ["a", "bc"],
                                 [onp.ones(2), onp.zeros(2)]])
def test_asarray_and_array_of_a_sequence_are_numpys(seq):
    want = onp.asarray(seq)
    for make in (np.asarray, np.array):
        got = make(seq)
        assert type(got) is np.ndarray and got.dtype == want.dtype and not got.weak_type
        onp.testing.assert_array_equal(onp.asarray(got), want)
    with minijax.enable_x64(False):
        got = np.asarray(seq)
        if want.dtype.kind in "iufc":
            assert got.dtype == minijax.dtypes.canonicalize(want.dtype)


def test_asarray_of_a_sequence_holding_arrays_and_tracers():
    a, b = np.asarray([1.0, 2.0]), np.asarray([3.0, 4.0])
    onp.testing.assert_array_equal(np.asarray([a, b]), [[1, 2], [3, 4]])
    out = minijax.jit(lambda x: np.asarray([x, 2 * x]))(1.5)
    onp.testing.assert_array_equal(out, [1.5, 3.0])
    grad = minijax.grad(lambda x: np.asarray([x, x * x]).sum())(3.0)
    assert grad == 7.0
    with pytest.raises(ValueError):
        np.asarray([1.0, 2.0], copy=False)


def test_array_copies_views_weak_and_committed_arrays():
    base = np.asarray(onp.arange(6.0).reshape(2, 3))
    for a in (base, base[:, 1], base.T, minijax.jit(lambda: 2.0)(), np.sum(base),
              minijax.device_put(base, minijax.devices()[1])):
        got = np.array(a)
        assert got is not a and got.weak_type == a.weak_type and got.dtype == a.dtype
        onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(a))
        if a.ndim and not a.committed():   # (a committed one's copy shares copy-on-write)
            assert not np.shares_memory(got, a)
    got = np.array(base)
    got[0, 0] = 9.0
    assert base[0, 0] == 0.0
    assert np.array(base, ndmin=3).shape == (1, 2, 3)
    assert np.array(base, dtype=onp.float32).dtype == onp.float32


@pytest.mark.parametrize("x", [1.5, 3, True, 2 - 1j, 2**70, onp.float32(1.5), onp.int16(3),
                               onp.bool_(True), onp.complex64(1j), onp.float16(2),
                               onp.uint64(7), onp.datetime64("2024-01-01")])
def test_asarray_and_array_of_a_scalar_are_the_complete_paths(x):
    for make in (np.asarray, np.array):
        for x64 in (True, False):
            with minijax.enable_x64(x64):
                try:
                    expected = make.__wrapped__(x)
                except OverflowError:
                    with pytest.raises(OverflowError):
                        make(x)
                    continue
                got = make(x)
                assert type(got) is np.ndarray and got.shape == ()
                assert got.dtype == expected.dtype and got.weak_type == expected.weak_type
                assert got.tolist() == expected.tolist()
    traced = minijax.jit(lambda: np.asarray(2.5) + np.array(1))()
    assert traced == 3.5 and traced.dtype == onp.float64
    grad = minijax.grad(lambda v: v * np.asarray(2.0))(1.0)
    assert grad == 2.0


def test_asarray_of_an_array_with_a_dtype():
    a = np.asarray(onp.arange(4.0).reshape(2, 2))
    assert np.asarray(a, dtype=onp.float64) is a
    assert np.asarray(a, np.float64) is a
    for dtype in (onp.float32, onp.int32, onp.complex128, onp.bool_, onp.float16, np.float32):
        got = np.asarray(a, dtype=dtype)
        want = minijax.lax.convert_element_type(a, onp.dtype(dtype))
        assert got.dtype == want.dtype and not got.weak_type
        onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(want))
    for a in (np.asarray(onp.arange(3, dtype=onp.int8)), np.asarray([1.0, 2.0])[::2],
              np.asarray(onp.ones((2, 3), order="F")), minijax.jit(lambda: 2.0)(),
              minijax.device_put(np.asarray([1.0, 2.0]), minijax.devices()[1])):
        for dtype in (onp.float64, onp.float32, onp.int64, onp.complex128):
            got = np.asarray(a, dtype=dtype)
            want = minijax.lax.convert_element_type(a, onp.dtype(dtype))
            assert got.dtype == want.dtype and got.weak_type == want.weak_type
            assert got.committed() == want.committed()
            onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(want))
            assert onp.asarray(got).strides == onp.asarray(want).strides
    f = np.asarray(onp.ones((2, 3), order="F"))
    assert onp.asarray(np.asarray(f, onp.float32)).flags.f_contiguous
    # narrowing casts: NumPy's cast where it sets no flag, else the conversion's values
    values = [1.5, -2.0, 0.0, -0.0, onp.inf, -onp.inf, onp.nan, 1e300, -1e-300, 1e-40,
              70000.0, 3e38, 5e-324, 2.0**31, -(2.0**63), 255.5, -1.0]
    for src in (onp.float64, onp.float32, onp.int64, onp.uint8, onp.bool_, onp.complex128):
        for v in values:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                h = onp.array([v, 1.0]).astype(src)
            a = np.asarray(h)
            for dtype in (onp.float32, onp.float16, onp.int32, onp.int8, onp.uint16,
                          onp.bool_, onp.complex64):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    got = np.asarray(a, dtype=dtype)
                    want = minijax.lax.convert_element_type(a, onp.dtype(dtype))
                assert got.dtype == want.dtype, (src, v, dtype)
                onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(want))
                assert onp.array_equal(onp.signbit(onp.asarray(got).real),
                                       onp.signbit(onp.asarray(want).real))
    with minijax.enable_x64(False):
        b = np.asarray([1.0, 2.0])
        assert np.asarray(b, dtype=onp.float64) is b
    out = minijax.jit(lambda x: np.asarray(a, dtype=onp.float32) + x)(1.0)
    assert out.dtype == onp.float32
    assert np.asarray(a, dtype=onp.float64, copy=True) is not a


def test_array_with_a_dtype_is_a_new_array_as_the_complete_path_makes():
    h = onp.arange(6.0).reshape(2, 3)
    a = np.asarray(h.copy())
    for x in (h, a, h.T, a[:, ::2], onp.arange(3)):
        for dtype in (onp.float64, onp.float32, np.int16, "f4", onp.complex64, onp.bool_):
            got = np.array(x, dtype=dtype)
            want = np.array.__wrapped__(x, dtype=dtype)
            assert got is not x and got.dtype == want.dtype and not got.weak_type
            onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(want))
            got[...] = 0   # (a new array: x is unchanged)
            assert onp.asarray(x).any()
    with minijax.enable_x64(False):
        assert np.array(h, dtype=onp.float64).dtype == onp.float32
        assert np.array(onp.arange(3), dtype=onp.int64).dtype == onp.int32


def test_asarray_and_array_of_an_arrays_scalar_is_a_new_0d_array():
    s = np.sum(np.asarray([1.0, 2.0]))   # (holds NumPy's scalar)
    for make in (np.asarray, np.array):
        got = make(s)
        assert got is not s and got.shape == () and got == 3.0


def test_asarray_of_an_arrays_scalar_is_a_new_0d_array():
    s = np.sum(np.asarray([1.0, 2.0]))   # (holds NumPy's scalar)
    got = np.asarray(s)
    assert got.shape == () and got == 3.0
    a = np.asarray([1.0])
    assert np.asarray(a) is a and np.asarray(a[0]).shape == ()


def test_from_dlpack_shares_as_asarray_does():
    src = onp.arange(3.0)
    out = np.from_dlpack(src)
    src[0] = 7.0
    assert out[0] == 7.0
    np.asarray(out).__array__()   # (exported: the next write copies first)
    out += 1
    assert src[0] == 7.0 and out[0] == 8.0 and src.flags.writeable
    assert not np.shares_memory(np.from_dlpack(src, copy=True), src)
    with minijax.enable_x64(False):
        narrowed = np.from_dlpack(src)
        assert narrowed.dtype == onp.float32 and not np.shares_memory(narrowed, src)


def test_from_dlpack_of_other_exporters_and_with_device():
    src = np.asarray(onp.arange(3.0))
    out = np.from_dlpack(src)
    onp.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    cpu = minijax.devices()[0]
    out = np.from_dlpack(onp.arange(3.0), device=cpu)
    onp.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    ints = onp.arange(3, dtype=onp.int16)
    assert np.from_dlpack(ints).dtype == onp.int16 and np.shares_memory(np.from_dlpack(ints), ints)


def test_ascontiguousarray_is_at_least_1d():
    h = onp.ones((2, 3))
    assert np.shares_memory(np.ascontiguousarray(h), h)
    assert np.ascontiguousarray(2.0).shape == (1,)
    assert np.ascontiguousarray(np.asarray(2.0)).shape == (1,)
    assert np.asfortranarray([[1, 2]]).shape == (1, 2)
    assert minijax.jit(lambda x: np.ascontiguousarray(x))(2.0).shape == (1,)


def test_finfo_iinfo_are_cached_and_complete():
    assert np.finfo(onp.float32) is np.finfo(onp.float32)
    assert np.iinfo("int16") is np.iinfo("int16")
    for arg in (onp.float32, onp.dtype("float64"), "float32", np.zeros(2, onp.float32)):
        f, ref = np.finfo(arg), onp.finfo(arg.dtype if isinstance(arg, np.ndarray) else arg)
        for name in ("eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert type(getattr(f, name)) is float and getattr(f, name) == float(getattr(ref, name))
        assert (f.bits, f.dtype, f.precision) == (ref.bits, ref.dtype, ref.precision)
    assert not hasattr(np.finfo(onp.float64), "block_until_ready")
    with pytest.raises(AttributeError):
        np.finfo(onp.float64).no_such_attribute   # noqa: B018
    assert np.iinfo(np.zeros(2, onp.uint8)).max == 255


def test_finfo_of_equal_numbers_is_not_confused():
    # 1 == 1.0 == True hash alike: values are not cached, so each gets NumPy's answer
    with pytest.raises((ValueError, TypeError)):
        np.finfo(1)
    with pytest.raises((ValueError, TypeError)):
        np.iinfo(1.0)


# ------------------------------------------------------------------ floor_divide

_SPECIAL = onp.array([onp.inf, -onp.inf, 3.5, -2.0, 0.0, -0.0, onp.nan, 1e300])


def _standard_floor_divide(a, b):
    with onp.errstate(all="ignore"):
        a, b = onp.broadcast_arrays(onp.asarray(a, float), onp.asarray(b, float))
        one_inf = ((onp.isinf(a) & onp.isfinite(b) & (b != 0))
                   | (onp.isfinite(a) & onp.isinf(b)))
        return onp.where(one_inf, onp.true_divide(a, b), onp.floor_divide(a, b))


@pytest.mark.parametrize("shapes", ["same", "scalar_right", "scalar_left", "broadcast"])
def test_floor_divide_special_values_on_every_path(shapes):
    a = _SPECIAL[:, None] * onp.ones((1, _SPECIAL.size))
    b = _SPECIAL[None, :] * onp.ones((_SPECIAL.size, 1))
    cases = {"same": [(a, b), (onp.full(3, 7.0), onp.array([2.0, onp.inf, -3.0]))],
             "scalar_right": [(_SPECIAL, s) for s in (2.0, onp.inf, -onp.inf, 0.0)],
             "scalar_left": [(s, _SPECIAL) for s in (2.0, onp.inf, -1.5)],
             "broadcast": [(_SPECIAL[:, None], _SPECIAL[None, :]),
                           (onp.array([[1.0], [onp.inf]]), onp.array([2.0, -3.0]))]}[shapes]
    for x, y in cases:
        expected = _standard_floor_divide(x, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for got in (np.floor_divide(x, y), np.asarray(x) // y, x // np.asarray(y)):
                onp.testing.assert_array_equal(onp.asarray(got), expected)
                assert onp.array_equal(onp.signbit(onp.asarray(got)), onp.signbit(expected))


def test_floor_divide_finite_and_integer_operands_are_numpys():
    a, b = _RNG.uniform(-5, 5, (4, 5)), _RNG.uniform(0.5, 3, (4, 5))
    onp.testing.assert_array_equal(np.floor_divide(a, b), onp.floor_divide(a, b))
    i, j = _RNG.integers(-9, 9, 6), _RNG.integers(1, 4, 6)
    got = np.floor_divide(i, j)
    onp.testing.assert_array_equal(got, onp.floor_divide(i, j))
    assert got.dtype == onp.int64
    got = np.floor_divide(i, j.astype(float))
    onp.testing.assert_array_equal(got, onp.floor_divide(i, j.astype(float)))
    huge = onp.array([1e300, -1e300])   # the dot product overflows: checked element-wise
    onp.testing.assert_array_equal(np.floor_divide(huge, huge), [1.0, 1.0])


def _floor_divide_operands():
    """Operands the compiled check reads (C-ordered native float32/float64, integers) and
    ones it leaves to the complete path, each with an infinity or a NaN last."""
    for dtype in (onp.float64, onp.float32, onp.float16, ">f8", onp.int32, onp.bool_):
        for special in (onp.inf, -onp.inf, onp.nan, None):
            x = onp.arange(1.0, 13.0).reshape(3, 4)
            if special is not None:
                if onp.dtype(dtype).kind != "f":
                    continue
                x[-1, -1] = special
            yield x.astype(dtype)
            yield x.astype(dtype).T   # (not C-ordered)
            yield x.astype(dtype)[:, ::2]


def test_floor_divide_check_reads_every_float_layout():
    divisors = [onp.full((3, 4), -2.5), 2.0, -onp.inf, onp.float32(3), 3, onp.ones((3, 4), int)]
    for x in _floor_divide_operands():
        for y in divisors:
            for a, b in ((x, y), (y, x)):
                try:
                    with onp.errstate(all="ignore"):
                        expected = _standard_floor_divide(a, b).astype(onp.result_type(a, b))
                except ValueError:   # (shapes that do not broadcast)
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("error", RuntimeWarning)
                    if onp.isfinite(onp.asarray(a, float)).all() and onp.isfinite(
                            onp.asarray(b, float)).all() and onp.all(onp.asarray(b) != 0):
                        got = np.floor_divide(a, b)   # (no warning where NumPy gives none)
                    else:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", RuntimeWarning)
                            got = np.floor_divide(a, b)
                assert got.dtype == expected.dtype, (a, b)
                onp.testing.assert_array_equal(onp.asarray(got), expected)
                assert onp.array_equal(onp.signbit(onp.asarray(got)), onp.signbit(expected))


def test_floor_divide_with_out_and_where_takes_the_complete_path():
    a, b = onp.array([onp.inf, 7.0, -1.0]), onp.array([2.0, 2.0, onp.inf])
    out = np.zeros(3)
    assert np.floor_divide(a, b, out=out) is out
    onp.testing.assert_array_equal(out, [onp.inf, 3.0, -0.0])
    got = np.floor_divide(a, b, where=onp.array([True, False, True]))
    onp.testing.assert_array_equal(got, [onp.inf, 0.0, -0.0])
    traced = minijax.jit(np.floor_divide)(a, b)
    onp.testing.assert_array_equal(traced, np.floor_divide(a, b))


# ------------------------------------------------------------------ views

def test_tuple_results_are_views_of_their_argument():
    for base in (onp.arange(24.0).reshape(4, 6), onp.arange(48.0).reshape(8, 6)[::2]):
        A = np.asarray(base.copy())
        for parts in (np.unstack(A), np.unstack(A, axis=1), np.array_split(A, 3),
                      np.hsplit(A, [1, 4]), np.vsplit(A, 2)):
            for p in parts:
                if p.size:
                    assert p.base is A
        rows = np.unstack(A)
        rows[2][1] = -1.0
        assert A[2, 1] == -1.0
        cols = np.hsplit(A, [2])
        cols[1][0, 0] = -2.0
        assert A[0, 2] == -2.0
        A[3, 5] = 99.0                 # the base's writes are seen by the views
        assert rows[3][5] == 99.0


def test_tuple_results_of_scalars_and_repeated_arrays_are_numpys():
    for call in [lambda xp: xp.unravel_index(5, (3, 3)), lambda xp: xp.diag_indices(3),
                 lambda xp: xp.diag_indices(2, 3), lambda xp: xp.unravel_index([1, 5], (3, 3)),
                 lambda xp: xp.tril_indices(3)]:
        got, want = call(np), call(onp)
        assert type(got) is type(want) and len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert type(g) is np.ndarray and g.dtype == onp.asarray(w).dtype
            onp.testing.assert_array_equal(g, w)
            # NumPy gives diag_indices' one index array for every axis: one Array too
            assert all((got[j] is g) == (want[j] is w) for j in range(i))


def test_tuple_results_of_a_view_argument():
    A = np.asarray(onp.arange(36.0).reshape(6, 6))
    V = A[1:5, ::2]
    parts = np.unstack(V)
    assert all(p.base is A for p in parts)
    parts[0][0] = 100.0
    assert A[1, 0] == 100.0
    halves = np.array_split(V, 2, axis=1)
    halves[1][-1, -1] = 200.0
    assert A[4, 4] == 200.0


def test_broadcast_tuple_results_are_marked_as_numpys_read_only_views():
    A = np.asarray(onp.ones((3, 3)))
    row = np.asarray(onp.arange(3.0))
    a, b = np.broadcast_arrays(A, row)
    assert a.base is None or a.base is A
    assert b.base is row and b._view.read_only
    onp.testing.assert_array_equal(b, onp.broadcast_to(onp.arange(3.0), (3, 3)))
    c, d = np.broadcast_arrays(np.asarray(onp.ones((3, 1))), np.asarray(onp.ones((1, 3))))
    assert c._view.read_only and d._view.read_only


def _overlapping_by_byte_bounds(host):
    lo, hi = byte_bounds(host)
    return hi - lo < host.nbytes or any(st == 0 and n > 1
                                        for st, n in zip(host.strides, host.shape))


def test_overlap_check_matches_byte_bounds():
    a = onp.arange(60.0).reshape(3, 4, 5)
    cases = [a, a[:, ::2], a[::-1], a.T, a[:, 1], onp.broadcast_to(a[0], (3, 4, 5)),
             sliding_window_view(a.ravel(), 3), a[:0], a[:, :0, ::2], a[..., ::-1][:, None],
             as_strided(a, (3, 3), (8, 8)), as_strided(a, (0, 3), (0, 0)),
             as_strided(a, (2, 0), (0, 8)), onp.ones((0, 3))[:, ::2], onp.ones((1, 3))[:, None]]
    for c in cases:
        assert _overlapping(c) == _overlapping_by_byte_bounds(c), (c.shape, c.strides)
    assert overlapping_or_read_only(a.diagonal())
    assert not overlapping_or_read_only(a[:, ::2])


def test_method_results_and_element_reads():
    h = _RNG.uniform(size=(3, 4))
    A = np.asarray(h.copy())
    assert A.ravel().base is A and A.T.base is A and A[:, None].base is A
    assert A[1].base is A and A[1:, ::2].base is A
    assert A.diagonal().base is A
    with pytest.raises(ValueError):
        A.diagonal()[0] = 1.0          # read-only, as NumPy's
    x = A[1, 2]
    assert x.shape == () and x.dtype == onp.float64 and float(x) == h[1, 2]
    assert bool(A[1, 2] > 0.5) is bool(h[1, 2] > 0.5)
    onp.testing.assert_array_equal(A.dot(np.asarray(h.T.copy())), h.dot(h.T))
    onp.testing.assert_array_equal(A.sum(axis=0, keepdims=True), h.sum(axis=0, keepdims=True))
    out = np.zeros(4)
    assert A.sum(axis=0, out=out) is out
    onp.testing.assert_array_equal(out, h.sum(axis=0))
    assert A.argmax() == h.argmax() and type(A.argmax()) is type(A)


@pytest.mark.parametrize("dtype", _PROMOTED + ["bfloat16", ">f8"])
def test_item_and_len_read_from_numpys_struct_are_numpys(dtype):
    import ml_dtypes
    dt = onp.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else onp.dtype(dtype)
    h = (_RNG.uniform(-3, 3, size=(2, 3)) * 10).astype(dt)
    A = np.asarray(h.copy())
    for got, want in [(A[1:2, 2:3], h[1:2, 2:3]), (A.T[2:, :1], h.T[2:, :1]),
                      (A[1, 2], h[1, 2]), (A.sum(), h.sum()), (A[:1, :1][0], h[:1, :1][0])]:
        item, expected = got.item(), onp.asarray(want).item()
        assert type(item) is type(expected) and (item == expected or item != item)
    for got, want in [(A, h), (A.T, h.T), (A[1:], h[1:]), (A[None], h[None])]:
        assert len(got) == len(want)
    with pytest.raises(TypeError, match="unsized"):
        len(A[0, 0])
    with pytest.raises(ValueError, match="size 1"):
        A.item()
    assert A.item(4) == h.item(4) and A.item((1, 0)) == h.item((1, 0))


@pytest.mark.parametrize("dtype", _PROMOTED + ["bfloat16", ">f8", "<U3", "V8"])
def test_integer_reads_are_numpys_values_types_and_errors(dtype):
    """``x[i]``, ``x[i, j, k]`` of plain ints, read from NumPy's struct, against NumPy's
    subscript: in range, negative, out of range, too many, and other integer types."""
    import ml_dtypes
    dt = onp.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else onp.dtype(dtype)
    base = _RNG.uniform(-3, 3, size=(2, 3, 4)) * 10
    h = base.astype(dt) if dt.kind != "V" else base.view(dt)
    A = np.asarray(h.copy())
    h = onp.array(A)   # (as minijax holds it: a non-native byte order is made native)
    keys = [1, -1, -2, 2, (1, 2, 3), (-1, -3, -4), (0, 0, 0), (1, 2), (2, 0, 0),
            (0, 3, 0), (0, 0, -5), (0, 0, 0, 0), (), onp.int64(1), (onp.int8(1), 0, 0),
            (1, 0, np.asarray(onp.arange(4))[3]), 2**70, (0, 0, 2**70), True, (0, False)]
    for key in keys:
        try:
            want = h[key]
        except Exception as e:
            with pytest.raises(type(e), match=re.escape(str(e))):
                A[key]
            continue
        got = A[key]
        assert type(got) is type(A) and got.dtype == want.dtype and got.shape == want.shape
        if dt.kind in "UV":
            assert onp.asarray(got).tobytes() == onp.asarray(want).tobytes(), key
        else:
            onp.testing.assert_array_equal(onp.asarray(got), want)
    assert type(A[1, 2, 3]._host) is type(h[1, 2, 3]) and A[1]._host.base is not None
    B = np.asarray(h.copy()).T[1:]   # a view: a read sees writes made after it
    B_np = h.copy().T[1:]
    A_view_root = B.base
    A_view_root[1, 1, 1] = A_view_root[0, 0, 0]
    B_np.base[1, 1, 1] = B_np.base[0, 0, 0]
    assert onp.asarray(B[0, 1, 1]).tobytes() == onp.asarray(B_np[0, 1, 1]).tobytes()
    r = B[0]
    A_view_root[1, 0, 1] = A_view_root[0, 0, 0]
    assert onp.asarray(r).tobytes() == onp.asarray(B[0]).tobytes()


def test_iteration_reads_each_row_when_it_is_reached():
    """``for r in x`` gives NumPy's rows and elements, read one at a time: a write into
    ``x`` during the loop shows in the rows not read yet, and the rows are views."""
    h = _RNG.uniform(size=(4, 3))
    for x, want in [(np.asarray(h.copy()), h), (np.asarray(h.copy()).T, h.T),
                    (np.asarray(h.copy())[:, 1], h[:, 1]), (np.arange(5), onp.arange(5)),
                    (np.zeros((0, 3)), onp.zeros((0, 3)))]:
        rows = list(x)
        assert len(rows) == len(want) and all(type(r) is type(x) for r in rows)
        for r, w in zip(rows, want):
            assert r.dtype == w.dtype and r.shape == onp.shape(w)
            onp.testing.assert_array_equal(onp.asarray(r), w)
    it = iter(np.asarray(h.copy()))
    assert it.__length_hint__() == 4 and iter(it) is it
    next(it)
    assert it.__length_hint__() == 3
    for exported in (False, True):   # (exported: the write copies x's buffer first)
        x, xn = np.asarray(h.copy()), h.copy()
        seen, seen_np = [], []
        for out, arr in [(seen, x), (seen_np, xn)]:
            for i, r in enumerate(arr):
                if i == 1:
                    if exported:
                        onp.asarray(arr)
                    arr[2:] = -1.0
                r *= 2.0   # (a row is a view: x is written)
                out.append(onp.asarray(r).copy())
        onp.testing.assert_array_equal(onp.asarray(x), xn)
        onp.testing.assert_array_equal(onp.stack(seen), onp.stack(seen_np))
        # a view's rows: the root's write (a copy first when exported) shows in them
        x, xn = np.asarray(h.copy()), h.copy()
        seen, seen_np = [], []
        for out, root in [(seen, x), (seen_np, xn)]:
            for i, r in enumerate(root[1:]):
                if i == 1:
                    if exported:
                        onp.asarray(root)
                    root[3] = -5.0
                out.append(onp.asarray(r).copy())
        onp.testing.assert_array_equal(onp.stack(seen), onp.stack(seen_np))
    weak = np.asarray(np.asarray(2.0) * onp.ones(1).tolist()[0] + np.zeros(2))
    assert [float(e) for e in weak] == [2.0, 2.0]
    with pytest.raises(TypeError, match="0-d"):
        iter(np.asarray(1.0))


def test_copy_is_c_ordered_and_independent():
    A = np.asarray(onp.arange(6.0).reshape(2, 3))
    C = A.T.copy()
    assert C.base is None and onp.asarray(C).flags.c_contiguous
    onp.testing.assert_array_equal(C, onp.arange(6.0).reshape(2, 3).T)
    C[0, 0] = 9.0
    assert A[0, 0] == 0.0
    exported = onp.asarray(A)          # an exported (read-only) buffer copies writable
    D = A.copy()
    D[0, 0] = 5.0
    assert exported[0, 0] == 0.0 and A[0, 0] == 0.0
    s = A[1, 1]
    assert s.copy() == s and s.copy().shape == ()
    w = np.asarray(2.0) + 1            # a weak 0-d result keeps its weak type
    assert w.copy().weak_type == w.weak_type


def test_inplace_operators_with_array_operands():
    h = _RNG.uniform(0.5, 1.5, (4, 3))
    A, ref = np.asarray(h.copy()), h.copy()
    for r, rr in zip(A, ref):
        r /= r.sum()
        rr /= rr.sum()
    onp.testing.assert_allclose(A, ref, rtol=1e-15)
    A += np.asarray(h)
    ref += h
    onp.testing.assert_allclose(A, ref, rtol=1e-15)
    i = np.asarray(onp.arange(6))
    i //= np.asarray(onp.int64(4))
    onp.testing.assert_array_equal(i, onp.arange(6) // 4)
    with pytest.raises(TypeError):     # same_kind casting, as NumPy's in-place operators
        i /= np.asarray(2.0)


# ------------------------------------------------------------------ argsort, tile, eig

@pytest.mark.parametrize("shape,axis", [((200,), -1), ((70, 80), -1), ((70, 80), 0),
                                        ((70, 80), 1), ((3, 70, 4), 1), ((80, 90), None)])
@pytest.mark.parametrize("variant", ["distinct", "ties", "tie_in_last_row", "nan",
                                     "signed_zeros", "float32", "float32_ties", "float16",
                                     "strided"])
def test_argsort_is_stable_on_every_path(shape, axis, variant):
    a = _RNG.uniform(size=shape)
    if variant == "ties":
        a = onp.round(a, 1)
    elif variant == "tie_in_last_row":   # (the check must read every row)
        flat = a.reshape(-1)
        flat[-80:] = onp.round(flat[-80:], 1)
    elif variant == "float32_ties":
        a = onp.round(a, 1).astype(onp.float32)
    elif variant == "float16":
        a = a.astype(onp.float16)
    elif variant == "strided":
        a = onp.repeat(a, 2, axis=-1)[..., ::2]
    elif variant == "nan":
        a.reshape(-1)[::7] = onp.nan
    elif variant == "signed_zeros":
        a.reshape(-1)[::2] = 0.0
        a.reshape(-1)[1::4] = -0.0
    elif variant == "float32":
        a = a.astype(onp.float32)
    expected = onp.argsort(a, axis=axis, kind="stable")
    onp.testing.assert_array_equal(np.argsort(np.asarray(a), axis=axis), expected)
    method_axis = -1 if axis is None else axis
    onp.testing.assert_array_equal(np.asarray(a).argsort(axis=method_axis),
                                   onp.argsort(a, axis=method_axis, kind="stable"))
    onp.testing.assert_array_equal(minijax.jit(lambda x: np.argsort(x, axis=axis))(a), expected)


def test_argsort_bad_axis_is_numpys_error():
    with pytest.raises(onp.exceptions.AxisError):
        np.argsort(np.zeros((100, 100)), axis=2)


def _same_array(got, want):
    assert type(got) is np.ndarray and got.shape == want.shape and got.dtype == want.dtype
    assert got.weak_type == want.weak_type and got.committed() == want.committed()


@pytest.mark.parametrize("name", ["empty", "zeros", "ones"])
def test_shape_makers_are_numpys_and_the_eager_dispatchs(name):
    made, numpys = getattr(np, name), getattr(onp, name)
    for shape in (3, 0, (), (0,), (2, 3), (1, 0, 4), [2, 3], (onp.int64(2), 3)):
        got = made(shape)   # (plain ints: before the eager dispatch; the others: through it)
        _same_array(got, made(shape, dtype=None))   # (a keyword: the eager dispatch)
        want = numpys(shape)
        assert got.shape == want.shape and got.dtype == want.dtype
        if name != "empty":
            onp.testing.assert_array_equal(onp.asarray(got), want)
        got[...] = 7.0   # (writable, and memory of its own)
        assert not np.shares_memory(got, made(shape)) or got.size == 0
    with minijax.enable_x64(False):
        assert made((2, 3)).dtype == onp.float32 == made(3, dtype=None).dtype
    for shape, error, message in (((-1, 3), ValueError, "negative dimensions"),
                                  (-2, ValueError, "negative dimensions"),
                                  ((2 ** 40, 2 ** 40), ValueError, "too big"),
                                  (2 ** 70, ValueError, "Maximum allowed dimension"),
                                  ((10 ** 6, 10 ** 6), MemoryError, "Unable to allocate"),
                                  ((2.0, 3), TypeError, "integer")):
        with pytest.raises(error, match=message):
            made(shape)
        with pytest.raises(error, match=message):
            made(shape, dtype=None)
    jitted = minijax.jit(lambda: made((2, 3)))()
    assert jitted.shape == (2, 3) and jitted.dtype == onp.float64


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like"])
def test_like_makers_are_numpys_and_the_eager_dispatchs_on_every_argument(name):
    made, numpys = getattr(np, name), getattr(onp, name)
    base = np.asarray(_RNG.uniform(size=(2, 3)))
    weak, committed = minijax.jit(lambda: 2.0)(), minijax.device_put(base, minijax.devices()[1])
    for a in (base, base[:, 1], base.T, np.asarray([1, 2], np.int32), np.asarray(2.5), weak,
              committed, onp.ones((2, 2), onp.float32), onp.arange(3), [1.0, 2.0], 3):
        onp.asarray(a)   # (a weak or committed Array then holds its value in an ndarray too)
        got = made(a)
        _same_array(got, made(a, dtype=None))
        want = numpys(onp.asarray(a))
        assert got.shape == want.shape and got.dtype == want.dtype
        if name != "empty_like":
            onp.testing.assert_array_equal(onp.asarray(got), want)
        if got.ndim and not got.committed():
            got[...] = 7.0
            assert not np.shares_memory(got, a) and np.shares_memory(got, got)
    with minijax.enable_x64(False):
        assert made(onp.ones(3)).dtype == onp.float32


def test_tile_fast_path_and_size_check():
    a = _RNG.uniform(size=(2, 3))
    for reps in ((2, 1), (1, 2, 3), (3,), 2, [2, 2], (0, 2), ()):
        onp.testing.assert_array_equal(np.tile(np.asarray(a), reps), onp.tile(a, reps))
    with pytest.raises(ValueError, match="too big"):
        np.tile(np.asarray(a), (2 ** 62, 2))
    with pytest.raises(ValueError, match="too big"):
        np.tile(np.zeros((0, 3)), (2 ** 62, 2 ** 62))


@pytest.mark.parametrize("dtype", [onp.float32, onp.float64, onp.int64, onp.complex128])
def test_eig_eigvals_eagerly_are_numpys_made_complex(dtype):
    a = (_RNG.uniform(-1, 1, (2, 4, 4)) * 3).astype(dtype)
    ref_w, ref_v = onp.linalg.eig(a)
    complex_dtype = onp.result_type(ref_w.dtype, onp.complex64)
    w, v = np.linalg.eig(a)
    assert w.dtype == v.dtype == complex_dtype
    onp.testing.assert_array_equal(w, ref_w.astype(complex_dtype))
    onp.testing.assert_array_equal(v, ref_v.astype(complex_dtype))
    wv = np.linalg.eigvals(a)
    assert wv.dtype == complex_dtype
    jw = minijax.jit(np.linalg.eigvals)(a)
    tol = 1e-4 if complex_dtype == onp.complex64 else 1e-10
    # (each matrix's eigenvalues as a set: their order is the kernel's, and a conjugate
    # pair's two members have the same real part up to rounding, so sorting can swap them)
    distance = abs(onp.asarray(jw)[..., :, None] - onp.asarray(wv)[..., None, :])
    assert (distance.min(-1) <= tol).all() and (distance.min(-2) <= tol).all()


def test_dispatch_tables_name_the_fast_wrappers():
    assert _eager_table.LINALG_FUNCTIONS["eigvals"] is _eager_table._eigvals
    assert "iscomplexobj" not in _eager_table.NUMPY_FUNCTIONS


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_arg_extremum_of_an_observed_buffer_matches_numpy_and_writes_nothing(name, axis):
    # a large buffer copy-on-write marked observed (read-only) is read through an alias
    ref = onp.random.default_rng(0).standard_normal((300, 200))
    x = np.asarray(ref.copy())
    onp.asarray(x.T)   # exports a view: the root buffer is now observed
    assert not x._host.flags.writeable
    for got in (getattr(np, name)(x, axis=axis), getattr(x, name)(axis=axis),
                getattr(np, name)(x, axis=axis, keepdims=True)):
        want = getattr(onp, name)(ref, axis=axis, keepdims=got.ndim == ref.ndim)
        onp.testing.assert_array_equal(onp.asarray(got), want)
    if axis is not None:
        out = np.zeros(ref.shape[1 - axis % 2], dtype=np.intp)
        getattr(x, name)(axis=axis, out=out)
        onp.testing.assert_array_equal(onp.asarray(out), getattr(onp, name)(ref, axis=axis))
    assert not x._host.flags.writeable
    onp.testing.assert_array_equal(onp.asarray(x), ref)


# ------------------------------------------------------------------ keyword calls

_H = _RNG.uniform(-2.0, 2.0, (3, 4))
# (name, positional arguments, keywords): keywords NumPy takes as minijax means them
_KEYWORD_CALLS = [
    ("zeros", (3,), {"dtype": np.float32}), ("zeros", ((2, 3),), {"dtype": onp.float64}),
    ("ones", ((2, 2),), {"dtype": np.int32}), ("ones", ((2, 2),), {"dtype": "i2"}),
    ("zeros", ((2, 2),), {"dtype": onp.dtype("complex64")}), ("zeros", (), {"shape": 3}),
    ("empty", ((0, 2),), {"dtype": np.float64}), ("arange", (5,), {"dtype": np.float64}),
    ("arange", (0, 5), {"step": 2}), ("full", ((2, 2), 2.0), {"dtype": np.float32}),
    ("full", ((2,), 1), {"dtype": np.bool_}), ("eye", (3,), {"k": 1, "dtype": np.int8}),
    ("linspace", (0.0, 1.0, 5), {"endpoint": False}), ("zeros", (3,), {"dtype": float}),
    ("sum", (_H,), {"axis": 0}), ("sum", (_H,), {"axis": (0, 1), "keepdims": True}),
    ("mean", (_H,), {"axis": 1, "keepdims": True}), ("mean", (_H,), {"dtype": np.float32}),
    ("std", (_H,), {"ddof": 1}), ("cumsum", (_H,), {"axis": 1, "dtype": np.float32}),
    ("max", (_H,), {"axis": -1}), ("argmax", (_H,), {"axis": 0, "keepdims": True}),
    ("sum", (onp.arange(6, dtype=onp.int8),), {"dtype": np.int16}),
    ("prod", (onp.ones((2, 2), onp.int32),), {"axis": onp.int64(0)}),
    ("argsort", (_H,), {"axis": 0, "kind": "stable"}), ("squeeze", (_H[:1],), {"axis": 0}),
    ("concatenate", ([_H, _H],), {"axis": 1}), ("transpose", (_H,), {"axes": (1, 0)}),
    ("reshape", (_H, (4, 3)), {"order": "F"}), ("round", (_H,), {"decimals": 1}),
    ("add", (_H, _H), {"dtype": np.float32}), ("exp", (_H,), {"casting": "same_kind"}),
    ("multiply", (2.0, 3.0), {"dtype": np.float32}), ("add", (1, 2), {"dtype": "i1"}),
]


@pytest.mark.parametrize("x64", [True, False])
@pytest.mark.parametrize("name,args,kwargs", _KEYWORD_CALLS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(_KEYWORD_CALLS)])
def test_keyword_calls_of_functions_are_numpys_on_every_path(name, args, kwargs, x64):
    # the wrapper's keyword fast path gives NumPy's answer (narrowed in the 32-bit mode),
    # and what the general path gives (reached here by a keyword it alone converts)
    with minijax.enable_x64(x64):
        fn = getattr(np, name)
        minijax_args = [np.asarray(a) if isinstance(a, onp.ndarray) else a for a in args]
        numpy_kwargs = {k: getattr(v, "_numpy_type", v) for k, v in kwargs.items()}
        want = getattr(onp, name)(*[onp.asarray(a) if isinstance(a, minijax.Array) else a
                                    for a in minijax_args], **numpy_kwargs)
        got = fn(*minijax_args, **kwargs)
        assert type(got) is np.ndarray
        expected_dtype = minijax.dtypes.canonicalize(onp.result_type(want))
        assert got.dtype == expected_dtype and got.shape == onp.shape(want)
        if name != "empty":
            onp.testing.assert_allclose(onp.asarray(got), onp.asarray(want).astype(expected_dtype),
                                        rtol=1e-6)
        for general in ({"out": None}, {"where": True}, {"device": None}):
            try:
                other = fn(*minijax_args, **kwargs, **general)
            except TypeError:
                continue   # (not a keyword of this function)
            assert (other.dtype, other.shape, other.weak_type) == (
                got.dtype, got.shape, got.weak_type), general
            if name != "empty":
                onp.testing.assert_array_equal(onp.asarray(other), onp.asarray(got))


def test_keyword_calls_keep_views_and_scalar_type_dtypes():
    x = np.asarray(_H.copy())
    v = np.transpose(x, axes=(1, 0))   # a view of x, through the keyword path
    assert v.base is x
    x[0, 0] = 100.0
    assert float(v[0, 0]) == 100.0
    s = np.squeeze(x[:1], axis=0)
    assert s.base is x
    # minijax's scalar types and NumPy's (and dtype objects) give one dtype
    for mj_type in (np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16,
                    np.float32, np.float64, np.complex64, np.complex128):
        for spelling in (mj_type, mj_type._numpy_type, onp.dtype(mj_type._numpy_type)):
            z = np.zeros((2,), dtype=spelling)
            assert z.dtype == minijax.dtypes.canonicalize(onp.dtype(mj_type._numpy_type))
            total = np.sum(np.ones((2, 2), dtype=mj_type), axis=0, dtype=spelling)
            assert total.dtype == z.dtype
            onp.testing.assert_array_equal(onp.asarray(total), [1 + (z.dtype != bool)] * 2)
    # an abstract scalar type is not a dtype (NumPy's error, or minijax's)
    for bad in (np.floating, np.integer):
        with pytest.raises(TypeError):
            np.zeros(2, dtype=bad)


def test_keyword_path_passes_numpy_its_dtype_and_the_lax_path_the_callers():
    from minijax.runtime.numpy_dispatch import numpy_call
    seen = []

    def host(*args, **kwargs):
        seen.append(("numpy", kwargs))
        if args[0] < 0:
            raise ValueError("negative")
        return onp.zeros(args[0], **kwargs)

    def lax_definition(*args, **kwargs):
        seen.append(("lax", kwargs))
        return np.zeros(abs(args[0]), **kwargs)

    call = numpy_call(host, lax_definition)
    assert call(2, dtype=np.float32).dtype == onp.float32
    assert seen[-1][1]["dtype"] is onp.dtype(onp.float32)   # (a dtype: NumPy's fastest)
    with pytest.raises(ValueError, match="negative"):   # (NumPy's error stands)
        call(-2, dtype=np.float32, order="C")
    assert [where for where, _ in seen[1:]] == ["numpy", "lax"]
    assert seen[-1][1] == {"dtype": np.float32, "order": "C"}
    assert type(seen[-1][1]["dtype"]) is type(np.float32)   # minijax's own, as given
    for abstract in (np.floating, np.number):   # (not a dtype: passed as given)
        seen.clear()
        with pytest.raises(TypeError):
            call(2, dtype=abstract)
        assert seen[0][1]["dtype"] is abstract


def test_keywords_the_general_path_converts_still_apply():
    x = np.asarray(_H.copy())
    out = np.zeros(4)
    assert np.sum(x, axis=0, out=out) is out
    onp.testing.assert_allclose(onp.asarray(out), _H.sum(axis=0))
    got = np.add(x, 1.0, where=x > 0)   # masked-out elements are zeros
    onp.testing.assert_array_equal(onp.asarray(got), onp.where(_H > 0, _H + 1.0, 0.0))
    onp.testing.assert_allclose(float(np.sum(x, initial=None)), _H.sum())
    onp.testing.assert_allclose(onp.asarray(np.sum(x, axis=[0, 1][0])), _H.sum(axis=0))
    with pytest.raises(TypeError):
        np.zeros(3, dtype=np.float32, no_such_keyword=1)


# ------------------------------------------------------------------ ufuncs with host fixes

_SPECIAL = onp.array([-onp.inf, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, onp.inf, onp.nan])


def _fixed_operands(nin):
    """Operands of every kind a host fix sees: float arrays of each width and layout,
    0-d arrays, Python floats (NumPy's ufunc is called directly on these), and integers,
    complex values and objects (the host fix decides)."""
    x, y = _SPECIAL, onp.roll(_SPECIAL, 3)
    z = onp.empty(x.shape, onp.complex128)
    z.real, z.imag = x, y
    floats = [(x, y), (x.astype(onp.float32), y.astype(onp.float32)),
              (x.astype(onp.float16), y.astype(onp.float16)), (x[::2], y[::2]),
              (x.astype(">f8"), y), (onp.asarray(1.5), onp.asarray(-0.0)), (2.5, y), (x, -1.5),
              (onp.float64(-0.0), onp.float64(onp.inf)), (onp.float32(2.5), x.astype(onp.float32)),
              (onp.float16(-1.5), 2.0),
              (x.reshape(1, -1), y.reshape(-1, 1)[:3])]
    others = [(onp.arange(-3, 4), onp.arange(1, 8)), (onp.array([True, False]), x[:2]),
              (z, y), (z[:4].astype(onp.complex64), x[:4]), (3, 2), (2.0, 3),
              (onp.array([1.5, -2.0], dtype=object), onp.array([2.0, 0.5], dtype=object))]
    return [ops[:nin] for ops in floats + others]


@pytest.mark.parametrize("name", sorted(_eager_table.FLOAT_OPERANDS_ARE_NUMPYS))
def test_ufuncs_with_host_fixes_give_the_fixes_answers(name):
    # float operands: NumPy's ufunc itself; every operand: what the host fix gives
    ufunc = getattr(onp, name)
    host = _eager_table.NUMPY_FUNCTIONS.get(name) or ufunc
    fn = getattr(np, name)
    for operands in _fixed_operands(ufunc.nin):
        with onp.errstate(all="ignore"):
            try:
                want = host(*operands)
            except TypeError:
                continue   # (no loop for these operands)
            args = [np.asarray(o) if isinstance(o, onp.ndarray) else o for o in operands]
            got = fn(*args)
            scalars = fn(*[np.sum(a) if isinstance(a, minijax.Array) and not a.ndim else a
                           for a in args])   # (0-d Arrays holding NumPy's scalars)
            onp.testing.assert_array_equal(onp.asarray(scalars), onp.asarray(got))
        assert type(got) is np.ndarray
        dtype = onp.result_type(want)
        if dtype.kind != "O":
            dtype = minijax.dtypes.canonicalize(dtype)
        assert got.dtype == dtype, (operands, got.dtype, dtype)
        onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(want).astype(dtype))
        if all(type(o) is float for o in operands):
            assert got.weak_type
    if ufunc.nin == 2:   # (positional output, keywords: the general path, as before)
        out = np.zeros(3)
        assert fn(np.ones(3), np.ones(3), out) is out
        with onp.errstate(all="ignore"):
            plain = fn(np.asarray(_SPECIAL), 2.0)
        with onp.errstate(all="ignore"):
            keyword = fn(np.asarray(_SPECIAL), 2.0, casting="same_kind")
        onp.testing.assert_array_equal(onp.asarray(keyword), onp.asarray(plain))


METHOD_FORM_CALLS = [
    ("squeeze", ()), ("swapaxes", (0, 1)), ("transpose", ((1, 0),)),
    ("permute_dims", ((1, 0),)), ("ravel", ("F",)), ("reshape", ((6, 2),)),
    ("diagonal", (1,)), ("take", ([0, 2],)), ("repeat", (2, 1)), ("nonzero", ()),
    ("cumsum", (1,)), ("cumprod", (0, onp.float32)), ("sum", (0, onp.float32)),
    ("prod", (1,)), ("mean", (None,)), ("std", (1,)), ("var", (0,)), ("max", (1,)),
    ("min", ()), ("amax", (0,)), ("amin", (1,)), ("all", (0,)), ("any", ()),
    ("round", (1,)), ("around", ()), ("trace", (1,)), ("clip", (2.5, 7.5)),
]


@pytest.mark.parametrize("name, args", METHOD_FORM_CALLS, ids=[c[0] for c in METHOD_FORM_CALLS])
def test_functions_that_call_an_ndarray_method_give_numpys_results(name, args):
    # (an ndarray and positional arguments: the eager call goes to the method itself)
    h = onp.arange(12.0).reshape(3, 4) / 3.0
    want = getattr(onp, name)(h, *args)
    got = getattr(np, name)(np.asarray(h), *args)
    for w, g in zip(want, got) if isinstance(want, tuple) else [(want, got)]:
        assert type(g) is np.ndarray and g.dtype == w.dtype
        onp.testing.assert_array_equal(onp.asarray(g), w)
    sorted_row = np.asarray(onp.arange(5.0))
    assert int(np.searchsorted(sorted_row, 2.5)) == onp.searchsorted(onp.arange(5.0), 2.5)


DIRECT_FORM_CALLS = [
    ("flipud", ()), ("fliplr", ()), ("flip", ()), ("atleast_1d", ()), ("atleast_2d", ()),
    ("atleast_3d", ()), ("matrix_transpose", ()), ("real", ()), ("imag", ()), ("copy", ()),
    ("copy", ("C",)), ("copy", ("F",)), ("argpartition", (1,)), ("argpartition", (0, 0)),
    ("count_nonzero", ()),
]


@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("name, args", DIRECT_FORM_CALLS,
                         ids=[f"{c[0]}{c[1]}" for c in DIRECT_FORM_CALLS])
def test_functions_with_a_direct_form_are_numpys_views_values_and_errors(name, args, shape):
    # (one operation on the ndarray where NumPy's Python wrapper comes down to one; a
    # view stays a view: a later write into the input shows in the result, as in NumPy)
    h = (onp.arange(24.0) - 1.5j * onp.arange(24.0))[:int(onp.prod(shape))].reshape(shape)
    if name == "argpartition":
        h = h.real.copy()
    x = np.asarray(h.copy())
    h = h[::-1].T.copy() if h.ndim else h.copy()
    x = x[::-1].T if x.ndim else x   # (a view input: the direct form gets a view's ndarray)
    try:
        want = getattr(onp, name)(h, *args)
    except Exception as e:                                    # noqa: BLE001
        with pytest.raises(type(e)):
            getattr(np, name)(x, *args)
        return
    got = getattr(np, name)(x, *args)
    assert type(got) is np.ndarray and got.dtype == onp.asarray(want).dtype
    onp.testing.assert_array_equal(onp.asarray(got), want)
    if h.ndim:
        h[...] = 7
        x[...] = 7
        onp.testing.assert_array_equal(onp.asarray(got), want)


DIRECT_FORM_KEYWORD_CALLS = [
    ("squeeze", {"axis": None}), ("ravel", {"order": "F"}), ("reshape", {"order": "F"}),
    ("diagonal", {"offset": 1, "axis1": 1, "axis2": 0}), ("take", {"axis": 1}),
    ("take", {"axis": 0, "mode": "clip"}), ("repeat", {"axis": 0}),
    ("cumsum", {"axis": 0, "dtype": onp.float32}), ("cumprod", {"axis": 1}),
    ("sum", {"axis": 1, "keepdims": True}), ("prod", {"dtype": onp.float32}),
    ("mean", {"axis": 0, "keepdims": True}), ("std", {"axis": 1, "ddof": 1}),
    ("var", {"ddof": 1, "keepdims": True}), ("max", {"axis": 1, "keepdims": True}),
    ("min", {"axis": 0}), ("amax", {"keepdims": True}), ("amin", {"axis": -1}),
    ("all", {"axis": 0, "keepdims": True}), ("any", {"axis": 1}),
    ("round", {"decimals": 1}), ("around", {"decimals": 2}),
    ("trace", {"offset": 1, "dtype": onp.float32}), ("argpartition", {"axis": 0}),
    ("searchsorted", {"side": "right"}), ("sum", {"axis": 1, "initial": 1.0}),
    ("correlate", {}), ("correlate", {"mode": "full"}),
    ("max", {"axis": 0, "where": True, "initial": -1.0}),
]


@pytest.mark.parametrize("name, kwargs", DIRECT_FORM_KEYWORD_CALLS,
                         ids=[f"{c[0]}-{'-'.join(c[1])}" for c in DIRECT_FORM_KEYWORD_CALLS])
def test_direct_forms_with_keywords_give_numpys_results(name, kwargs):
    # (keywords the direct form takes as the function does go to it too; others, such
    # as where= and initial=, go to the function)
    h = onp.arange(12.0).reshape(3, 4) / 3.0
    extra = {"take": ([0, 2],), "repeat": (2,), "argpartition": (1,), "reshape": ((4, 3),),
             "searchsorted": (2.5,)}.get(name, ())
    if name in ("searchsorted", "correlate"):
        h = onp.arange(5.0)
        extra = extra or (onp.array([1.0, -2.0, 0.5]),)
    want = getattr(onp, name)(h, *extra, **kwargs)
    got = getattr(np, name)(np.asarray(h), *[np.asarray(e) if type(e) is onp.ndarray else e
                                             for e in extra], **kwargs)
    assert type(got) is np.ndarray and got.dtype == want.dtype
    onp.testing.assert_array_equal(onp.asarray(got), want)


def test_method_forms_keep_the_functions_errors_for_other_argument_counts():
    # the method would take these, NumPy's function does not: its error is raised
    x = np.asarray(onp.ones((2, 3)))
    for call in (lambda m: m.transpose(x, 1, 0), lambda m: m.swapaxes(x, 0),
                 lambda m: m.squeeze(x, 0, 1), lambda m: m.nonzero(x, 0)):
        with pytest.raises(TypeError) as numpys:
            call(onp)
        with pytest.raises(TypeError) as ours:
            call(np)
        assert str(ours.value) == str(numpys.value)
