"""lax.conv_transpose and the convolution / reduce_window shape helpers, with JAX's
lax as the oracle (float32 inputs; JAX's default mode)."""

import jax
import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import lax
from minijax.test_util import check_grads

RNG = np.random.default_rng(0)

CASES = [
    # lhs shape, rhs shape, strides, padding, rhs_dilation, dimension_numbers
    ((2, 7, 3), (3, 3, 4), (2,), "SAME", None, None),
    ((2, 7, 3), (3, 3, 4), (3,), "VALID", None, None),
    ((1, 5, 6, 2), (3, 2, 2, 3), (2, 1), "SAME", (1, 2), None),
    ((1, 5, 6, 2), (2, 2, 2, 3), (2, 3), "VALID", None, None),
    ((1, 5, 6, 2), (3, 3, 2, 3), (1, 2), [(1, 2), (0, 1)], None, None),
    ((1, 2, 5, 6), (3, 2, 3, 3), (2, 2), "SAME", None, ("NCHW", "OIHW", "NCHW")),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose_matches_jax(case, transpose_kernel):
    lhs_shape, rhs_shape, strides, padding, dilation, dn = CASES[case]
    if transpose_kernel and dn is None:   # kernel I and O swap: match the lhs features
        rhs_shape = rhs_shape[:-2] + (rhs_shape[-1], rhs_shape[-2])
    if transpose_kernel and dn is not None:
        rhs_shape = (rhs_shape[1], rhs_shape[0]) + rhs_shape[2:]
    lhs = RNG.standard_normal(lhs_shape).astype(np.float32)
    rhs = RNG.standard_normal(rhs_shape).astype(np.float32)
    ours = lax.conv_transpose(mnp.asarray(lhs), mnp.asarray(rhs), strides, padding,
                              rhs_dilation=dilation, dimension_numbers=dn,
                              transpose_kernel=transpose_kernel)
    theirs = jax.lax.conv_transpose(lhs, rhs, strides, padding, rhs_dilation=dilation,
                                    dimension_numbers=dn, transpose_kernel=transpose_kernel)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=2e-5)
    if dilation is None and not transpose_kernel:
        dn_default = dn or {3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC")}[len(lhs_shape)]
        assert lax.conv_transpose_shape_tuple(lhs_shape, rhs_shape, strides, padding,
                                              dn_default) == ours.shape


def test_conv_transpose_is_the_input_gradient_and_differentiates():
    x = RNG.standard_normal((1, 6, 2))
    k = RNG.standard_normal((3, 2, 4))
    dn = ("NHC", "HIO", "NHC")

    def forward(v):
        return lax.conv_general_dilated(v, mnp.asarray(k), (2,), "SAME", dimension_numbers=dn)
    out, vjp = minijax.vjp(forward, mnp.asarray(x))
    ct = mnp.asarray(RNG.standard_normal(out.shape))
    grad_x, = vjp(ct)
    via_transpose = lax.conv_transpose(ct, mnp.asarray(k), (2,), "SAME", dimension_numbers=dn,
                                       transpose_kernel=True)
    np.testing.assert_allclose(np.asarray(via_transpose), np.asarray(grad_x), rtol=1e-12)
    check_grads(lambda a, b: lax.conv_transpose(a, b, (2,), "VALID"),
                (mnp.asarray(x), mnp.asarray(RNG.standard_normal((3, 2, 3)))), order=2)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_general_shape_tuple_matches_jax(case):
    lhs_shape, rhs_shape, strides, padding, _, dn = CASES[case]
    dn = dn or {3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC")}[len(lhs_shape)]
    ours = lax.conv_general_shape_tuple(lhs_shape, rhs_shape, strides, padding, dn)
    theirs = jax.lax.conv_general_shape_tuple(lhs_shape, rhs_shape, strides, padding, dn)
    assert ours == tuple(theirs)
    real = lax.conv_general_dilated(mnp.ones(lhs_shape), mnp.ones(rhs_shape), strides, padding,
                                    dimension_numbers=dn)
    assert real.shape == ours


@pytest.mark.parametrize("base,window", [(None, None), ((1, 2), None), (None, (2, 1)),
                                         ((2, 2), (1, 3))])
def test_reduce_window_shape_tuple_matches_jax(base, window):
    args = ((9, 8), (3, 2), (2, 1), ((1, 0), (2, 1)))
    ours = lax.reduce_window_shape_tuple(*args, base_dilation=base, window_dilation=window)
    theirs = jax.lax.reduce_window_shape_tuple(*args, base_dilation=base,
                                               window_dilation=window)
    assert ours == tuple(int(d) for d in theirs)
