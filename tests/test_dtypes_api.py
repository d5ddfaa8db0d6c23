"""minijax.dtypes' public functions: NumPy as the oracle, plus bfloat16 and the
extended (PRNG key) types that NumPy does not know."""

import itertools

import ml_dtypes
import numpy as np
import pytest

import minijax.numpy as mnp
from minijax import config, dtypes

NUMPY_TYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.uint32, np.float16,
               np.float32, np.float64, np.complex64, np.complex128]
ABSTRACT = [np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger,
            np.inexact, np.floating, np.complexfloating, np.bool_]


@pytest.mark.parametrize("a", NUMPY_TYPES)
def test_issubdtype_matches_numpy(a):
    for b in ABSTRACT + NUMPY_TYPES:
        assert dtypes.issubdtype(a, b) == np.issubdtype(a, b), (a, b)
        assert dtypes.issubdtype(np.dtype(a), b) == np.issubdtype(a, b), (a, b)
    assert dtypes.issubdtype(mnp.zeros(2, a), a)


def test_issubdtype_bfloat16_and_extended():
    bf16 = dtypes.bfloat16
    for b in (np.floating, np.inexact, np.number, np.generic, bf16, ml_dtypes.bfloat16):
        assert dtypes.issubdtype(bf16, b)
    for b in (np.integer, np.complexfloating, np.float16, np.float32, dtypes.extended):
        assert not dtypes.issubdtype(bf16, b)
    assert dtypes.issubdtype(dtypes.prng_key, dtypes.extended)
    assert not dtypes.issubdtype(np.float32, dtypes.prng_key)

    class KeyDtype:   # what a typed-key dtype object looks like
        type = dtypes.prng_key
    assert dtypes.issubdtype(KeyDtype(), dtypes.prng_key)
    assert dtypes.issubdtype(KeyDtype(), dtypes.extended)
    assert not dtypes.issubdtype(KeyDtype(), np.floating)
    with pytest.raises(TypeError, match="extended"):
        dtypes.canonicalize_dtype(KeyDtype())
    assert isinstance(dtypes.canonicalize_dtype(KeyDtype(), allow_extended_dtype=True), KeyDtype)


def test_canonicalize_finfo_iinfo():
    assert dtypes.canonicalize_dtype(np.float64) == np.float64
    assert dtypes.canonicalize_dtype("int16") == np.int16
    config.update("enable_x64", False)
    try:
        assert dtypes.canonicalize_dtype(np.float64) == np.float32
        assert dtypes.canonicalize_dtype(np.uint64) == np.uint32
    finally:
        config.update("enable_x64", True)
    for t in (np.float16, np.float32, np.float64, np.complex64):
        assert dtypes.finfo(t).eps == np.finfo(t).eps
    assert dtypes.finfo(dtypes.bfloat16).eps == ml_dtypes.finfo(ml_dtypes.bfloat16).eps
    assert dtypes.finfo(mnp.ones(1, np.float32)).max == np.finfo(np.float32).max
    for t in (np.int8, np.int64, np.uint16):
        assert dtypes.iinfo(t).max == np.iinfo(t).max


@pytest.mark.parametrize("a,b", list(itertools.combinations(NUMPY_TYPES, 2)))
def test_result_type_matches_numpy(a, b):
    assert dtypes.result_type(a, b) == np.result_type(a, b)
    assert dtypes.result_type(mnp.zeros(1, a), np.dtype(b)) == np.result_type(a, b)


def test_result_type_weak_python_scalars():
    assert dtypes.result_type(mnp.ones(2, np.float32), 2.0) == np.float32
    assert dtypes.result_type(np.int8, 3) == np.int8
    assert dtypes.result_type(1, 2.0, return_weak_type_flag=True) == (np.float64, True)
    assert dtypes.result_type(np.int32, return_weak_type_flag=True) == (np.int32, False)
    with pytest.raises(ValueError):
        dtypes.result_type()
