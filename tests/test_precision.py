"""lax.Precision and precision= / preferred_element_type= on dot_general, dot, the
NumPy products and convolutions (on the CPU every precision computes in full)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import lax
from minijax.test_util import check_grads

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((4, 5)).astype(np.float32)
PRECISIONS = [None, lax.Precision.DEFAULT, lax.Precision.HIGH, lax.Precision.HIGHEST,
              "highest", "bfloat16", "tensorfloat32", ("high", lax.Precision.HIGHEST)]


def _products(precision, pet=None):
    a, b = mnp.asarray(A), mnp.asarray(B)
    kw = dict(precision=precision, preferred_element_type=pet)
    return {
        "dot_general": lax.dot_general(a, b, (((1,), (0,)), ((), ())), **kw),
        "lax.dot": lax.dot(a, b, **kw),
        "matmul": mnp.matmul(a, b, **kw),
        "dot": mnp.dot(a, b, **kw),
        "tensordot": mnp.tensordot(a, b, 1, **kw),
        "inner": mnp.inner(a, b.T, **kw),
        "einsum": mnp.einsum("ij,jk->ik", a, b, **kw),
        "vdot": mnp.vdot(a[0], b[:, 0], **kw),
    }


@pytest.mark.parametrize("precision", PRECISIONS)
def test_every_precision_gives_the_full_precision_product(precision):
    ref = A.astype(np.float64) @ B.astype(np.float64)
    for name, out in _products(precision).items():
        assert out.dtype == np.float32, name
        expected = ref[0, 0] if name == "vdot" else ref
        np.testing.assert_allclose(np.asarray(out), expected, rtol=2e-6, atol=2e-6, err_msg=name)


def test_preferred_element_type_on_products():
    for name, out in _products("highest", np.float64).items():
        assert out.dtype == np.float64, name
    a8 = mnp.asarray((A * 10).astype(np.int8))
    b8 = mnp.asarray((B * 10).astype(np.int8))
    out = mnp.matmul(a8, b8, preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), np.asarray(a8).astype(np.int32)
                                  @ np.asarray(b8).astype(np.int32))
    out = mnp.einsum("ij,jk,kl->il", a8, b8, b8.T, preferred_element_type=np.int32)
    assert out.dtype == np.int32


def test_precision_in_jaxpr_and_stablehlo_and_under_transformations():
    def f(a, b):
        return mnp.sum(mnp.matmul(a, b, precision=lax.Precision.HIGHEST) ** 2)
    a, b = mnp.asarray(A.astype(np.float64)), mnp.asarray(B.astype(np.float64))
    assert "Precision.HIGHEST" in str(minijax.make_jaxpr(f)(a, b))
    assert "HIGHEST" in minijax.jit(f).lower(a, b).as_text()
    np.testing.assert_allclose(float(minijax.jit(f)(a, b)), float(f(a, b)), rtol=1e-12)
    check_grads(f, (a, b), order=2)
    batched = minijax.vmap(lambda x: lax.dot(x, b, precision="high"))(a)
    np.testing.assert_allclose(np.asarray(batched), np.asarray(a) @ np.asarray(b), rtol=1e-12)


def test_convolution_precision():
    x = mnp.asarray(RNG.standard_normal((1, 2, 6)))
    k = mnp.asarray(RNG.standard_normal((3, 2, 3)))
    outs = [lax.conv_general_dilated(x, k, (1,), "SAME", precision=p) for p in PRECISIONS]
    for out in outs[1:]:
        np.testing.assert_allclose(np.asarray(out), np.asarray(outs[0]), rtol=1e-12)
    fn = minijax.jit(lambda x, k: lax.conv(x, k, (1,), "VALID", precision="highest"))
    assert "HIGHEST" in fn.lower(x, k).as_text()
    out = lax.conv(x.astype(np.float32), k.astype(np.float32), (1,), "VALID",
                   preferred_element_type=np.float64)
    assert out.dtype == np.float64


@pytest.mark.parametrize("bad", ["bogus", 3, ("high",), ("high", "x")])
def test_bad_precision_is_a_type_error(bad):
    with pytest.raises(TypeError, match="precision"):
        lax.dot(mnp.asarray(A), mnp.asarray(B), precision=bad)
    with pytest.raises(TypeError, match="precision"):
        lax.conv(mnp.ones((1, 1, 3)), mnp.ones((1, 1, 2)), (1,), "VALID", precision=bad)


def test_lax_dot_rank_check():
    with pytest.raises(TypeError, match="rank"):
        lax.dot(mnp.ones((2, 2, 2)), mnp.ones((2, 2)))
