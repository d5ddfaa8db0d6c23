"""minijax.image (resize, scale_and_translate, ResizeMethod) against jax.image, and the
checks that need no oracle: constant images, identity warps, linear weights and nearest
indices derived by hand, jit, vmap, grad against central differences, named errors."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import image
from minijax.test_util import check_grads

RNG = np.random.default_rng(23)
METHODS = ["nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area"]
KERNEL_METHODS = METHODS[1:]
# (input shape, output shape); dimensions that keep their size are batch or channel
# dimensions, and are not resampled
CASES = {
    "1d-up": ((5,), (12,)),
    "1d-down": ((3, 17, 2), (3, 6, 2)),
    "2d-mixed": ((2, 7, 9, 3), (2, 15, 4, 3)),
    "3d-mixed": ((6, 5, 4, 2), (3, 11, 9, 2)),
}
F64 = dict(rtol=1e-12, atol=1e-12)


def _image(shape, dtype=np.float64):
    if dtype == np.uint8:
        return RNG.integers(0, 256, shape).astype(np.uint8)
    return RNG.standard_normal(shape).astype(dtype)


def _jax_image():
    jax = pytest.importorskip("jax")
    return jax, jax.image


def _assert_matches(got, want, dtype):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    if dtype == np.float64:
        np.testing.assert_allclose(got, want, **F64)
    else:   # float32 results (uint8 inputs give float32, as JAX's)
        scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale)


# ---- JAX as the oracle ------------------------------------------------------------------

# antialias changes only downsampling, and never nearest
RESIZE_RUNS = [(method, antialias, case) for method in METHODS for antialias in (True, False)
               for case in CASES
               if antialias or (method != "nearest" and case != "1d-up")]


@pytest.mark.parametrize("method,antialias,case", RESIZE_RUNS)
def test_resize_matches_jax(method, antialias, case):
    jax, jimage = _jax_image()
    shape_in, shape_out = CASES[case]
    x = _image(shape_in)
    with jax.enable_x64(True):
        want = np.asarray(jimage.resize(x, shape_out, method, antialias=antialias))
    _assert_matches(image.resize(x, shape_out, method, antialias=antialias), want,
                    np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
@pytest.mark.parametrize("method", METHODS)
def test_resize_dtypes_match_jax(method, dtype):
    jax, jimage = _jax_image()
    shape_in, shape_out = CASES["2d-mixed"]
    x = _image(shape_in, dtype)
    with jax.enable_x64(True):
        want = np.asarray(jimage.resize(x, shape_out, method, antialias=dtype == np.uint8))
    got = image.resize(x, shape_out, method, antialias=dtype == np.uint8)
    if method == "nearest":
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.dtype == dtype
    _assert_matches(got, want, dtype)


SCALE_AND_TRANSLATE = [
    # image shape, output shape, spatial dims, scale, translation, antialias, dtype
    ((2, 7, 9, 3), (2, 10, 5, 3), (1, 2), (1.7, 0.45), (0.6, -1.3), True, np.float64),
    ((8, 6), (5, 9), (-2, -1), (0.6, 1.25), (-0.8, 2.1), False, np.float64),
    ((3, 8, 2), (3, 12, 2), (1,), (1.3,), (-2.4,), True, np.float32),
]


@pytest.mark.parametrize("args", SCALE_AND_TRANSLATE, ids=["2d", "negative-dims", "1d-f32"])
@pytest.mark.parametrize("method", KERNEL_METHODS)
def test_scale_and_translate_matches_jax(method, args):
    jax, jimage = _jax_image()
    shape_in, shape_out, dims, scale, translation, antialias, dtype = args
    x = _image(shape_in, dtype)
    scale, translation = np.array(scale, dtype), np.array(translation, dtype)
    with jax.enable_x64(True):   # (one program: JAX runs it op by op otherwise)
        want = np.asarray(jax.jit(lambda a, s, t: jimage.scale_and_translate(
            a, shape_out, dims, s, t, method, antialias=antialias))(x, scale, translation))
    got = image.scale_and_translate(x, shape_out, dims, scale, translation, method,
                                    antialias=antialias)
    _assert_matches(got, want, dtype)


@pytest.mark.parametrize("method", ["lanczos3", "lanczos5"])
def test_near_identity_warp_matches_jax(method):
    """Sample points a few thousandths of a pixel off the centres: the Lanczos kernel near
    0, where JAX takes it to be 1 below 1e-3 and evaluates it above."""
    jax, jimage = _jax_image()
    x = _image((7, 6))
    scale, translation = np.array([1.0, 1.0]), np.array([0.004, -0.0004])
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(lambda a, s, t: jimage.scale_and_translate(
            a, (7, 6), (0, 1), s, t, method))(x, scale, translation))
    got = image.scale_and_translate(x, (7, 6), (0, 1), scale, translation, method)
    _assert_matches(got, want, np.float64)


DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint32, np.int32, np.int64, np.float16,
          np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_output_dtypes_match_jax(dtype):
    jax, jimage = _jax_image()
    x = np.ones((4, 3), dtype)
    scale, translation = np.array([1.5], np.float32), np.array([0.25], np.float32)
    with jax.enable_x64(True):
        for method in ("nearest", "linear"):
            want = jax.eval_shape(lambda a: jimage.resize(a, (6, 3), method), x)
            assert image.resize(x, (6, 3), method).dtype == want.dtype, method
        want = jax.eval_shape(lambda a: jimage.scale_and_translate(
            a, (6, 3), (0,), scale, translation, "cubic"), x)
    assert image.scale_and_translate(x, (6, 3), (0,), scale, translation,
                                     "cubic").dtype == want.dtype


def test_resize_method_names_match_jax():
    jax, jimage = _jax_image()
    assert [(m.name, m.value) for m in image.ResizeMethod] == \
        [(m.name, m.value) for m in jimage.ResizeMethod]
    for name in ["nearest", "linear", "bilinear", "trilinear", "triangle", "lanczos3",
                 "lanczos5", "cubic", "bicubic", "tricubic", "cubic-pytorch",
                 "bicubic-pytorch", "area"]:
        assert image.ResizeMethod.from_string(name).name == \
            jimage.ResizeMethod.from_string(name).name
    x = _image((3, 5))
    for method in (image.ResizeMethod.LANCZOS3, "lanczos3"):
        np.testing.assert_array_equal(np.asarray(image.resize(x, (3, 2), method)),
                                      np.asarray(image.resize(x, (3, 2), "lanczos3")))


def test_32_bit_mode_matches_jax_default():
    jax, jimage = _jax_image()
    x = _image((5, 6), np.float32)
    want = np.asarray(jimage.resize(x, (8, 4), "lanczos3"))   # JAX's 32-bit default
    minijax.config.update("enable_x64", False)
    got = image.resize(x, (8, 4), "lanczos3")
    assert got.dtype == np.float32
    _assert_matches(got, want, np.float32)


# ---- checks that need no oracle -----------------------------------------------------------

@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("method", METHODS)
def test_constant_image_stays_constant(method, antialias):
    x = np.full((4, 9, 2), 2.5)
    for shape in [(11, 3, 2), (2, 20, 2), (1, 1, 2)]:
        np.testing.assert_allclose(np.asarray(image.resize(x, shape, method, antialias)),
                                   np.full(shape, 2.5), **F64)


@pytest.mark.parametrize("method", METHODS)
def test_same_shape_is_identity(method):
    x = _image((3, 4, 5))
    np.testing.assert_array_equal(np.asarray(image.resize(x, x.shape, method)), x)
    pixels = _image((3, 4), np.uint8)
    same = image.resize(pixels, (3, 4), method)
    assert same.dtype == (np.uint8 if method == "nearest" else np.float32)
    np.testing.assert_array_equal(np.asarray(same), pixels)


@pytest.mark.parametrize("method", ["linear", "cubic", "lanczos3", "lanczos5", "area"])
def test_unit_scale_and_integer_translation_shift(method):
    """scale 1 and an integer translation move the image by whole pixels; the pixels
    that come from outside it are zero."""
    x = _image((6, 5))
    got = image.scale_and_translate(x, (6, 5), (0, 1), [1.0, 1.0], [2.0, -1.0], method)
    want = np.zeros_like(x)
    want[2:, :4] = x[:4, 1:]
    np.testing.assert_allclose(np.asarray(got), want, **F64)
    same = image.scale_and_translate(x, (6, 5), (0, 1), [1.0, 1.0], [0.0, 0.0], method)
    np.testing.assert_allclose(np.asarray(same), x, **F64)


def _upsample_2x_linear(x, axis):
    """Output 2j sits a quarter pixel left of input j, output 2j + 1 a quarter right: 3/4
    of the nearer pixel, 1/4 of the other; at the ends the outside neighbour's weight is
    renormalised away, which is the edge pixel repeated."""
    x = np.moveaxis(x, axis, 0)
    padded = np.concatenate([x[:1], x, x[-1:]])
    out = np.empty((2 * x.shape[0],) + x.shape[1:])
    out[0::2] = 0.75 * x + 0.25 * padded[:-2]
    out[1::2] = 0.75 * x + 0.25 * padded[2:]
    return np.moveaxis(out, 0, axis)


@pytest.mark.parametrize("antialias", [True, False])
def test_linear_2x_upsampling_weights(antialias):
    x = _image((5, 4, 2))
    want = _upsample_2x_linear(_upsample_2x_linear(x, 0), 1)
    got = image.resize(x, (10, 8, 2), "bilinear", antialias=antialias)
    np.testing.assert_allclose(np.asarray(got), want, **F64)


def test_linear_2x_downsampling_weights():
    """Without antialiasing each output is the mean of the two pixels it covers; with it
    the triangle is twice as wide: weights 1/8, 3/8, 3/8, 1/8 on the four pixels around
    the centre, the outside one dropped and the rest renormalised at the ends."""
    x = RNG.standard_normal(8)
    no_antialias = image.resize(x, (4,), "linear", antialias=np.bool_(False))
    np.testing.assert_allclose(np.asarray(no_antialias),
                               (x[0::2] + x[1::2]) / 2, **F64)
    padded = np.concatenate([[0.0], x, [0.0]])
    want = (padded[0:8:2] + 3 * padded[1:9:2] + 3 * padded[2:10:2] + padded[3:11:2]) / 8
    want[0] = (3 * x[0] + 3 * x[1] + x[2]) / 7
    want[-1] = (x[5] + 3 * x[6] + 3 * x[7]) / 7
    np.testing.assert_allclose(np.asarray(image.resize(x, (4,), "linear")), want, **F64)


def test_nearest_indices():
    """The pixel under each output centre: floor((i + 0.5) * in / out), exactly."""
    np.testing.assert_array_equal(np.asarray(image.resize(np.arange(5), (3,), "nearest")),
                                  [0, 2, 4])
    np.testing.assert_array_equal(np.asarray(image.resize(np.arange(3), (7,), "nearest")),
                                  [0, 0, 1, 1, 1, 2, 2])
    # sizes where the centres computed in float32 floor to the wrong pixel
    for m, n in [(1839, 4696), (4721, 1892)]:
        want = [(2 * i + 1) * m // (2 * n) for i in range(n)]
        f32 = np.float32
        in_f32 = np.floor((np.arange(n, dtype=f32) + f32(0.5)) * f32(m) / f32(n))
        assert np.any(in_f32 != want)   # (the case this checks)
        np.testing.assert_array_equal(np.asarray(image.resize(np.arange(m), (n,), "nearest")),
                                      want)
    x = np.array([[True, False, True]])
    got = image.resize(x, (2, 5), "nearest")
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(got), x[:, [0, 0, 1, 2, 2]].repeat(2, 0))


def test_complex_image_resamples_both_parts():
    x = _image((4, 6)) + 1j * _image((4, 6))
    got = image.resize(x, (7, 3), "lanczos3")
    want = (np.asarray(image.resize(x.real, (7, 3), "lanczos3"))
            + 1j * np.asarray(image.resize(x.imag, (7, 3), "lanczos3")))
    assert got.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(got), want, **F64)


def test_empty_dimensions():
    x = _image((4, 3))
    assert image.resize(x, (0, 3), "linear").shape == (0, 3)
    assert image.resize(x, (4, 0), "nearest").shape == (4, 0)
    assert image.resize(np.zeros((0, 3)), (0, 5), "cubic").shape == (0, 5)


@pytest.mark.parametrize("method,antialias", [("nearest", True), ("linear", True),
                                              ("lanczos5", True), ("cubic-pytorch", False),
                                              ("area", True)])
def test_jit_matches_eager(method, antialias):
    x = _image((5, 8, 2))
    fn = minijax.jit(lambda a: image.resize(a, (9, 3, 2), method, antialias))
    np.testing.assert_allclose(np.asarray(fn(x)),
                               np.asarray(image.resize(x, (9, 3, 2), method, antialias)), **F64)


@pytest.mark.parametrize("method", ["linear", "lanczos3"])
def test_jit_with_traced_scale_and_translation(method):
    x = _image((6, 7))
    scale, translation = np.array([0.55, 1.6]), np.array([1.1, -0.7])
    fn = minijax.jit(lambda a, s, t: image.scale_and_translate(a, (4, 10), (0, 1), s, t,
                                                               method))
    want = image.scale_and_translate(x, (4, 10), (0, 1), scale, translation, method)
    np.testing.assert_allclose(np.asarray(fn(x, scale, translation)), np.asarray(want), **F64)


def test_vmap_matches_per_example():
    xs = _image((3, 5, 6))
    got = minijax.vmap(lambda a: image.resize(a, (8, 4), "cubic"))(xs)
    for x, g in zip(xs, got):
        np.testing.assert_allclose(np.asarray(g), np.asarray(image.resize(x, (8, 4), "cubic")),
                                   **F64)
    scales = np.array([[0.7, 1.4], [1.9, 0.5], [1.0, 1.0]])
    translations = np.array([[0.3, -0.6], [-1.2, 0.0], [0.5, 0.25]])

    def warp(a, s, t):
        return image.scale_and_translate(a, (7, 5), (0, 1), s, t, "lanczos3")
    for in_axes, args in [((None, 0, 0), (xs[0], scales, translations)),
                          ((0, 0, 0), (xs, scales, translations)),
                          ((0, None, 0), (xs, scales[0], translations))]:
        got = minijax.vmap(warp, in_axes=in_axes)(*args)
        for k in range(3):
            one = [a if ax is None else a[k] for a, ax in zip(args, in_axes)]
            np.testing.assert_allclose(np.asarray(got[k]), np.asarray(warp(*one)), **F64)


@pytest.mark.parametrize("method", ["linear", "cubic", "lanczos3", "area"])
def test_grad_in_image_scale_and_translation(method):
    x = _image((5, 6))
    scale, translation = np.array([0.63, 1.37]), np.array([0.41, -0.29])
    check_grads(lambda a: image.resize(a, (3, 9), method), (x,), modes=("rev",))
    check_grads(lambda a, s, t: image.scale_and_translate(a, (4, 7), (0, 1), s, t, method),
                (x, scale, translation))
    # one scalar loss by hand: minijax.grad against central differences in scale[0]
    weights = _image((4, 7))

    def loss(s):
        warped = image.scale_and_translate(x, (4, 7), (0, 1), s, translation, method)
        return jnp.sum(warped * weights)
    eps = 1e-6
    step = np.array([eps, 0.0])
    central = (float(loss(scale + step)) - float(loss(scale - step))) / (2 * eps)
    np.testing.assert_allclose(float(minijax.grad(loss)(scale)[0]), central, rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("method", ["lanczos3", "cubic"])
def test_grad_at_the_identity_warp(method):
    """Every distance is then an integer, 0 included (where the Lanczos kernel is 0/0 and
    |x| has no derivative): the smooth kernels' derivatives there are finite and agree
    with central differences (a small step: Keys' kernel is only C1 at 1)."""
    x = _image((4, 5))
    check_grads(lambda a, s, t: image.scale_and_translate(a, (4, 5), (0, 1), s, t, method),
                (x, np.ones(2), np.zeros(2)), eps=1e-7)


def test_precision_reaches_the_contractions():
    x = _image((3, 4))

    def precisions(**kw):
        jaxpr = minijax.make_jaxpr(lambda a: image.resize(a, (5, 2), "linear", **kw))(x)
        return {e.params["precision"] for e in jaxpr.jaxpr.eqns
                if e.primitive.name == "dot_general"}
    P = minijax.lax.Precision
    assert precisions() == {(P.HIGHEST, P.HIGHEST)}
    assert precisions(precision="default") == {(P.DEFAULT, P.DEFAULT)}
    jaxpr = minijax.make_jaxpr(lambda a: image.scale_and_translate(
        a, (5, 2), (0, 1), [1.5, 0.5], [0.0, 0.0], "cubic", precision=P.HIGH))(x)
    assert {e.params["precision"] for e in jaxpr.jaxpr.eqns
            if e.primitive.name == "dot_general"} == {(P.HIGH, P.HIGH)}


X = np.ones((4, 5))
ERRORS = [
    (lambda: image.resize(X, (8,), "linear"), ValueError, "one entry per dimension"),
    (lambda: image.resize(X, (8, 5, 1), "linear"), ValueError, "one entry per dimension"),
    (lambda: image.resize(X, (8, -1), "linear"), ValueError, "negative dimensions"),
    (lambda: image.resize(X, (8, 2.0), "linear"), TypeError, "sequence of integers"),
    (lambda: image.resize(X, (8, 5), "bilinearr"), ValueError, 'Unknown resize method "bili'),
    (lambda: image.resize(X, (8, 5), None), TypeError, "must be a ResizeMethod"),
    (lambda: image.resize(X, (8, 5), 1), TypeError, "must be a ResizeMethod"),
    (lambda: image.resize(X, (8, 5), "linear", precision="fast"), TypeError, "precision"),
    (lambda: image.resize(X, (8, 5), "nearest", precision="fast"), TypeError, "precision"),
    (lambda: image.resize(np.ones((0, 2)), (3, 2), "linear"), ValueError, "of size 0"),
    (lambda: image.resize(np.ones((0, 2)), (3, 2), "nearest"), ValueError, "of size 0"),
    (lambda: image.ResizeMethod.from_string("LINEAR"), ValueError, "Unknown resize method"),
    (lambda: image.scale_and_translate(X, (8, 5), (0,), [2.0], [0.0], "nearest"),
     ValueError, "nearest-neighbour"),
    (lambda: image.scale_and_translate(X, (8, 5), (0, 1), [2.0], [0.0, 0.0], "linear"),
     ValueError, "scale must have one entry per spatial dimension"),
    (lambda: image.scale_and_translate(X, (8, 5), (0,), [2.0], [[0.0]], "linear"),
     ValueError, "translation must have one entry"),
    (lambda: image.scale_and_translate(X, (8, 6), (0,), [2.0], [0.0], "linear"),
     ValueError, "dimension 1 is not spatial"),
    (lambda: image.scale_and_translate(X, (8, 5), (2,), [2.0], [0.0], "linear"),
     np.exceptions.AxisError, "out of bounds"),
    (lambda: image.scale_and_translate(X, (8, 5), (0, -2), [2.0, 2.0], [0.0, 0.0], "linear"),
     ValueError, "duplicate"),
    (lambda: image.scale_and_translate(X, (8, 5), 0, 2.0, 0.0, "linear"),
     ValueError, r"scale must have one entry per spatial dimension \(1\), got shape \(\)"),
    (lambda: image.scale_and_translate(X, (8, 5), (0,), [2j], [0.0], "linear"),
     TypeError, "must be real"),
]


@pytest.mark.parametrize("call,error,match", ERRORS)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
