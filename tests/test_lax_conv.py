"""lax.conv_general_dilated: NumPy kernel vs XLA vs jit, vmap vs loops, gradients, errors."""

import numpy as np
import pytest

from minijax import api, lax
from minijax.test_util import check_grads, check_primitive, check_vmap_each_axis

# name -> (lhs shape, rhs shape, keyword arguments)
CONFIGS = {
    "1d_same_stride": ((2, 3, 9), (4, 3, 3), dict(window_strides=(2,), padding="SAME")),
    "1d_valid_rhs_dilation": ((2, 2, 8), (3, 2, 3),
                              dict(window_strides=(1,), padding="VALID", rhs_dilation=(2,))),
    "2d_negative_pad_lhs_dilation": ((2, 3, 6, 5), (4, 3, 3, 2),
                                     dict(window_strides=(1, 2), padding=[(1, -1), (0, 2)],
                                          lhs_dilation=(2, 1))),
    "2d_nhwc_hwio": ((2, 6, 5, 4), (3, 2, 4, 5),
                     dict(window_strides=(2, 1), padding="SAME",
                          dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "2d_groups_same_lower": ((2, 6, 5, 5), (4, 3, 2, 2),
                             dict(window_strides=(1, 1), padding="SAME_LOWER",
                                  rhs_dilation=(1, 2), feature_group_count=2)),
    "2d_depthwise_nhwc": ((1, 6, 6, 4), (3, 3, 1, 8),
                          dict(window_strides=(2, 2), padding="VALID", feature_group_count=4,
                               dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "2d_batch_groups": ((4, 3, 5, 4), (6, 3, 2, 2),
                        dict(window_strides=(1, 1), padding=[(1, 0), (0, 1)],
                             batch_group_count=2)),
    "2d_mixed_layouts": ((5, 2, 3, 4), (2, 3, 4, 2),
                         dict(window_strides=(2, 1), padding=[(2, -1), (1, 1)],
                              lhs_dilation=(1, 2), rhs_dilation=(2, 1),
                              dimension_numbers=("HNCW", "HIWO", "NWHC"))),
    "2d_spec_tuples": ((3, 2, 5, 4), (2, 4, 3, 5),
                       dict(window_strides=(1, 1), padding="SAME",
                            dimension_numbers=lax.ConvDimensionNumbers(
                                (1, 3, 2, 0), (3, 1, 0, 2), (2, 0, 3, 1)))),
    "3d": ((1, 2, 4, 5, 3), (3, 2, 2, 3, 2),
           dict(window_strides=(1, 2, 1), padding=[(1, 0), (0, 1), (1, 1)])),
    "3d_groups_dilated": ((2, 4, 3, 4, 3), (4, 2, 2, 2, 1),
                          dict(window_strides=(2, 1, 1), padding="SAME", lhs_dilation=(1, 1, 2),
                               rhs_dilation=(1, 2, 1), feature_group_count=2)),
}

# Smaller versions for second-order gradient checks (and their vmaps).
GRAD_CONFIGS = {
    "1d_strided": ((1, 2, 6), (2, 2, 3), dict(window_strides=(2,), padding=[(1, -1)],
                                              lhs_dilation=(2,), rhs_dilation=(1,))),
    "2d_nhwc_same": ((2, 4, 3, 2), (2, 2, 2, 3),
                     dict(window_strides=(2, 1), padding="SAME", rhs_dilation=(1, 2),
                          dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "2d_groups": ((1, 4, 4, 3), (4, 2, 2, 2),
                  dict(window_strides=(1, 2), padding=[(0, 1), (1, -1)], lhs_dilation=(2, 1),
                       feature_group_count=2)),
    "2d_depthwise": ((2, 3, 4, 4), (3, 1, 2, 2),
                     dict(window_strides=(2, 1), padding="VALID", feature_group_count=3)),
    "2d_batch_groups": ((4, 2, 3, 3), (4, 2, 2, 2),
                        dict(window_strides=(1, 1), padding="SAME", batch_group_count=2)),
    "3d": ((1, 2, 3, 3, 2), (2, 2, 2, 2, 1),
           dict(window_strides=(1, 2, 1), padding="SAME_LOWER", rhs_dilation=(1, 1, 2))),
}


def _conv_fn(kwargs):
    return lambda lhs, rhs: lax.conv_general_dilated(lhs, rhs, **kwargs)


def _inputs(config, dtype, seed=0):
    lhs_shape, rhs_shape, kwargs = config
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(lhs_shape).astype(dtype),
            rng.standard_normal(rhs_shape).astype(dtype), kwargs)


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_check(name, dtype):
    lhs, rhs, kwargs = _inputs(CONFIGS[name], dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    check_primitive(_conv_fn(kwargs), [lhs, rhs], rtol=tol, atol=tol, batch_size=0)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_vmap(name):
    lhs, rhs, kwargs = _inputs(CONFIGS[name], np.float64)
    check_vmap_each_axis(_conv_fn(kwargs), [lhs, rhs], rtol=1e-12, atol=1e-12)


def test_vmap_under_jit():
    # Batched grouped convolutions become batch-grouped ones: check them in XLA too
    # (one jitted function holding every case, to compile once).
    cases = []
    for name in ("2d_groups_same_lower", "2d_batch_groups"):
        lhs, rhs, kwargs = _inputs(CONFIGS[name], np.float64)
        lhs_b, rhs_b = np.stack([lhs, lhs + 1], 1), np.stack([rhs, rhs - 1], 2)
        for axes in ((1, 2), (None, 2), (1, None)):
            args = (lhs if axes[0] is None else lhs_b, rhs if axes[1] is None else rhs_b)
            cases.append((api.vmap(_conv_fn(kwargs), in_axes=axes), args))

    def all_cases(*flat):
        return [f(flat[2 * i], flat[2 * i + 1]) for i, (f, _) in enumerate(cases)]
    flat = [a for _, args in cases for a in args]
    for eager, jitted in zip(all_cases(*flat), api.jit(all_cases)(*flat)):
        np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-12,
                                   atol=1e-12)


def test_reference_values():
    # An oracle independent of the kernel: a direct loop over the output.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 7))
    w = rng.standard_normal((6, 2, 3))
    out = np.asarray(lax.conv_general_dilated(x, w, (2,), [(1, 2)], rhs_dilation=(2,),
                                              feature_group_count=2))
    xp = np.pad(x, [(0, 0), (0, 0), (1, 2)])
    expected = np.zeros((2, 6, (10 - 5) // 2 + 1))
    for n in range(2):
        for o in range(6):
            g = o // 3
            for y in range(expected.shape[2]):
                expected[n, o, y] = sum(xp[n, g * 2 + c, y * 2 + k * 2] * w[o, c, k]
                                        for c in range(2) for k in range(3))
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_complex():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 4, 6, 5)) + 1j * rng.standard_normal((2, 4, 6, 5))
    w = rng.standard_normal((4, 2, 3, 2)) + 1j * rng.standard_normal((4, 2, 3, 2))
    f = lambda a, b: lax.conv_general_dilated(a, b, (1, 2), "SAME", rhs_dilation=(2, 1),
                                              feature_group_count=2)
    check_primitive(f, [x.astype(np.complex64), w.astype(np.complex64)], batch_size=0,
                    rtol=1e-5, atol=1e-5)
    check_primitive(f, [x, w], batch_size=0, rtol=1e-12, atol=1e-12)


def test_integer_and_preferred_type():
    rng = np.random.default_rng(2)
    x = rng.integers(-5, 5, (2, 3, 6, 5)).astype(np.int32)
    w = rng.integers(-5, 5, (4, 3, 3, 2)).astype(np.int32)
    f = lambda x, w: lax.conv_general_dilated(x, w, (1, 2), "SAME", lhs_dilation=(2, 1))
    out = check_primitive(f, [x, w], batch_size=0)
    assert np.asarray(out).dtype == np.int32
    g = lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID",
                                              preferred_element_type=np.float64)
    out = check_primitive(g, [x.astype(np.float32), w.astype(np.float32)], batch_size=0,
                          rtol=1e-12)
    assert np.asarray(out).dtype == np.float64


def test_wrappers_and_edge_shapes():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((2, 3, 5, 5)), rng.standard_normal((4, 3, 2, 2))
    np.testing.assert_allclose(
        np.asarray(lax.conv(x, w, (1, 1), "SAME")),
        np.asarray(lax.conv_general_dilated(x, w, (1, 1), "SAME")))
    np.testing.assert_allclose(
        np.asarray(lax.conv_with_general_padding(x, w, (2, 1), [(1, 1), (0, -1)], (1, 2),
                                                 (2, 1))),
        np.asarray(lax.conv_general_dilated(x, w, (2, 1), [(1, 1), (0, -1)], (1, 2), (2, 1))))
    # Empty batch, features or window, a window larger than the input, and no
    # spatial axes at all.
    conv = lambda a, b: lax.conv(a, b, (1, 1), "VALID")
    check_primitive(conv, [np.zeros((0, 3, 5, 5)), w], batch_size=0)
    check_primitive(conv, [np.ones((2, 0, 5, 5)), np.ones((4, 0, 2, 2))], batch_size=0)
    check_primitive(conv, [x, np.ones((4, 3, 0, 2))], batch_size=0)
    for args in ([x, np.ones((4, 3, 0, 2))], [np.ones((2, 0, 5, 5)), np.ones((4, 0, 2, 2))]):
        grads = api.grad(lambda a, b: lax.reduce_sum(conv(a, b)), argnums=(0, 1))(*args)
        for g, a in zip(grads, args):
            np.testing.assert_array_equal(np.asarray(g), np.zeros_like(a))
    big = rng.standard_normal((4, 3, 6, 1))
    out = check_primitive(lambda a, b: lax.conv(a, b, (1, 1), "VALID"), [x, big], batch_size=0)
    assert out.shape == (2, 4, 0, 5)
    check_primitive(lambda a, b: lax.conv(a, b, (), ()),
                    [rng.standard_normal((2, 3)), rng.standard_normal((4, 3))], batch_size=0,
                    rtol=1e-12)
    dn = lax.conv_dimension_numbers((2, 5, 5, 3), (2, 2, 3, 4), ("NHWC", "HWIO", "NCHW"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 1, 2, 3))


@pytest.mark.parametrize("name", sorted(GRAD_CONFIGS))
def test_grads(name):
    lhs, rhs, kwargs = _inputs(GRAD_CONFIGS[name], np.float64)
    check_grads(_conv_fn(kwargs), [lhs, rhs], order=2)


@pytest.mark.parametrize("name", ["2d_groups", "2d_batch_groups", "2d_nhwc_same"])
def test_grad_under_jit(name):
    lhs, rhs, kwargs = _inputs(GRAD_CONFIGS[name], np.float64)
    f = _conv_fn(kwargs)
    ct = np.random.default_rng(5).standard_normal(f(lhs, rhs).shape)

    def loss(a, b):
        return lax.reduce_sum(lax.mul(f(a, b), ct))
    eager = api.grad(loss, argnums=(0, 1))(lhs, rhs)
    jitted = api.jit(api.grad(loss, argnums=(0, 1)))(lhs, rhs)
    for e, j in zip(eager, jitted):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-12, atol=1e-12)
    # Gradients vmap too (the transposed convolutions have their own batching).
    stacked = np.stack([lhs, 2 * lhs])
    batched = api.vmap(api.grad(loss, argnums=(0, 1)), in_axes=(0, None))(stacked, rhs)
    for k in range(2):
        single = api.grad(loss, argnums=(0, 1))(stacked[k], rhs)
        for b, s in zip(batched, single):
            np.testing.assert_allclose(np.asarray(b)[k], np.asarray(s), rtol=1e-12, atol=1e-12)


def test_float32_grads():
    lhs, rhs, kwargs = _inputs(GRAD_CONFIGS["2d_groups"], np.float32)
    check_grads(_conv_fn(kwargs), [lhs, rhs], order=1)


# ---------------------------------------------------------------- errors

def test_error_rank_mismatch():
    with pytest.raises(ValueError, match="conv_general_dilated.*same rank"):
        lax.conv_general_dilated(np.ones((2, 3, 5)), np.ones((4, 3, 3, 3)), (1,), "VALID")


def test_error_feature_groups():
    with pytest.raises(ValueError, match="conv_general_dilated.*not divisible by "
                                         "feature_group_count"):
        lax.conv_general_dilated(np.ones((2, 5, 5)), np.ones((4, 2, 3)), (1,), "VALID",
                                 feature_group_count=2)
    with pytest.raises(ValueError, match="conv_general_dilated.*rhs input feature"):
        lax.conv_general_dilated(np.ones((2, 4, 5)), np.ones((4, 3, 3)), (1,), "VALID",
                                 feature_group_count=2)
    with pytest.raises(ValueError, match="conv_general_dilated.*output feature count 3"):
        lax.conv_general_dilated(np.ones((2, 4, 5)), np.ones((3, 2, 3)), (1,), "VALID",
                                 feature_group_count=2)


def test_error_batch_groups():
    with pytest.raises(ValueError, match="conv_general_dilated.*batch size 3.*batch_group"):
        lax.conv_general_dilated(np.ones((3, 2, 5)), np.ones((4, 2, 3)), (1,), "VALID",
                                 batch_group_count=2)
    with pytest.raises(ValueError, match="conv_general_dilated.*output feature count 3.*"
                                         "batch_group_count 2"):
        lax.conv_general_dilated(np.ones((4, 2, 5)), np.ones((3, 2, 3)), (1,), "VALID",
                                 batch_group_count=2)
    with pytest.raises(ValueError, match="conv_general_dilated.*must be >= 1"):
        lax.conv_general_dilated(np.ones((4, 2, 5)), np.ones((3, 2, 3)), (1,), "VALID",
                                 feature_group_count=0)
    with pytest.raises(ValueError, match="conv_general_dilated.*cannot both"):
        lax.conv_general_dilated(np.ones((4, 2, 5)), np.ones((4, 1, 3)), (1,), "VALID",
                                 feature_group_count=2, batch_group_count=2)


def test_error_padding():
    x, w = np.ones((1, 2, 5)), np.ones((3, 2, 3))
    with pytest.raises(ValueError, match="conv_general_dilated.*'FULL'"):
        lax.conv_general_dilated(x, w, (1,), "FULL")
    with pytest.raises(ValueError, match="conv_general_dilated.*one .low, high. pair"):
        lax.conv_general_dilated(x, w, (1,), [(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="conv_general_dilated.*crops more than"):
        lax.conv_general_dilated(x, w, (1,), [(-3, -3)])
    with pytest.raises(TypeError, match="conv_general_dilated.*padding"):
        lax.conv_general_dilated(x, w, (1,), [0, 1])


def test_error_strides_and_dilation():
    x, w = np.ones((1, 2, 5)), np.ones((3, 2, 3))
    with pytest.raises(ValueError, match="conv_general_dilated.*window_strides"):
        lax.conv_general_dilated(x, w, (1, 1), "VALID")
    with pytest.raises(ValueError, match="conv_general_dilated.*rhs_dilation.*>= 1"):
        lax.conv_general_dilated(x, w, (1,), "VALID", rhs_dilation=(0,))


def test_error_dtypes():
    with pytest.raises(TypeError, match="conv_general_dilated.*float32 and rhs float64"):
        lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3)), (1,),
                                 "VALID")
    with pytest.raises(TypeError, match="conv_general_dilated.*bool"):
        lax.conv_general_dilated(np.ones((1, 2, 5), bool), np.ones((3, 2, 3), bool), (1,),
                                 "VALID")


def test_error_dimension_numbers():
    x, w = np.ones((1, 5, 2)), np.ones((3, 2, 3))
    with pytest.raises(ValueError, match="conv_general_dilated.*'NWW'"):
        lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=("NWW", "WIO", "NWC"))
    with pytest.raises(ValueError, match="conv_general_dilated.*same spatial"):
        lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=("NWC", "HIO", "NWC"))
    with pytest.raises(TypeError, match="conv_general_dilated.*dimension_numbers"):
        lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers="NWC")
    with pytest.raises(TypeError, match="conv_general_dilated.*strings expected"):
        lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=((0, 2, 1), 1, 2))
    with pytest.raises(ValueError, match="conv_general_dilated.*not a permutation"):
        lax.conv_general_dilated(x, w, (1,), "VALID",
                                 dimension_numbers=lax.ConvDimensionNumbers((0, 2, 2), (0, 1, 2),
                                                                            (0, 1, 2)))
