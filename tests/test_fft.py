"""minijax.numpy.fft against numpy.fft: values, dtypes and shapes eagerly and under
``jit``, every ``norm``, ``n``/``s``/``axes`` (cropping, padding, more than three
axes, repeated axes), ``out=``, ``vmap``, derivatives against finite differences, and
the Array API extension's ``fftfreq``/``rfftfreq`` keywords."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
import minijax.numpy as mnp
from minijax import lax
from minijax.test_util import assert_same, check_grads

NORMS = ["backward", "ortho", "forward"]   # (None is "backward": test_default_norm)
RTOL = {np.dtype(np.complex64): 2e-5, np.dtype(np.float32): 2e-5,
        np.dtype(np.complex128): 1e-12, np.dtype(np.float64): 1e-12}


def _data(dtype, shape=(4, 5, 6), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind in "iu":
        x = x * 10
    return x.astype(dtype)


def _agree(name, x, **kwargs):
    """The minijax function agrees with NumPy's eagerly, under jit, and on the lax path
    (the eager NumPy dispatch bypassed)."""
    _agree_each([(name, x, kwargs)])


def _agree_each(cases):
    """``_agree`` for each ``(name, x, kwargs)`` of ``cases``; their jit values come from
    one jit-compiled program (it compiles faster than a program per case)."""
    wants, tols = [], []
    for i, (name, x, kwargs) in enumerate(cases):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want = getattr(np.fft, name)(x, **kwargs)
        fn = getattr(mnp.fft, name)
        rtol = RTOL[want.dtype]
        if np.asarray(x).dtype == np.float16:
            rtol = 1e-3   # NumPy computes the norm's factor in float16 for float16 input
        atol = rtol * max(1.0, float(np.abs(want).max(initial=0)))
        msg = f"case {i}: {name} {kwargs}"
        assert_same(fn(x, **kwargs), want, rtol=rtol, atol=atol, err_msg=f"{msg} eager")
        assert_same(fn.__wrapped_lax__(x, **kwargs), want, rtol=rtol, atol=atol,
                    err_msg=f"{msg} lax path")
        wants.append(want)
        tols.append((rtol, atol))
    jitted = minijax.jit(lambda *xs: [getattr(mnp.fft, name)(v, **kwargs)
                                      for v, (name, _, kwargs) in zip(xs, cases)])(
        *[x for _, x, _ in cases])
    for i, (got, want, (rtol, atol)) in enumerate(zip(jitted, wants, tols)):
        name, _, kwargs = cases[i]
        assert_same(got, want, rtol=rtol, atol=atol, err_msg=f"case {i}: {name} {kwargs} jit")


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.complex128, np.int32])
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_complex_1d(name, dtype, norm):
    x = _data(dtype)
    _agree_each([(name, x, dict(n=n, axis=1, norm=norm)) for n in (None, 3, 9)])


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "fft2", "ifft2"])
def test_complex_nd(name, norm):
    x = _data(np.complex128, (3, 4, 2, 5))
    _agree_each([(name, x, dict(norm=norm)), (name, x, dict(s=(2, 7), axes=(0, 3), norm=norm)),
                 (name, x.astype(np.complex64), dict(s=(-1, 3), axes=(-1, 1), norm=norm))])


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16])
@pytest.mark.parametrize("name", ["rfft", "ihfft"])
def test_real_to_complex_1d(name, dtype, norm):
    x = _data(dtype)
    _agree_each([(name, x, dict(n=n, axis=-1, norm=norm)) for n in (None, 4, 7, 9)])


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float64])
@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_complex_to_real_1d(name, dtype, norm):
    x = _data(dtype)
    _agree_each([(name, x, dict(n=n, axis=1, norm=norm)) for n in (None, 4, 7, 12)])


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["rfftn", "rfft2", "irfftn", "irfft2"])
def test_real_nd(name, norm):
    x = _data(np.complex128 if name.startswith("i") else np.float64, (3, 4, 2, 5))
    _agree_each([(name, x, dict(norm=norm)), (name, x, dict(s=(3, 7), axes=(2, 1), norm=norm)),
                 (name, x, dict(s=(5, -1), axes=(0, 3), norm=norm))])


@pytest.mark.parametrize("name", ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft",
                                  "irfft", "rfft2", "irfft2", "rfftn", "irfftn", "hfft",
                                  "ihfft"])
def test_default_norm(name):
    x = _data(np.float64 if name in ("rfft", "rfft2", "rfftn", "ihfft") else np.complex128,
              (3, 4))
    fn = getattr(mnp.fft, name)
    want = getattr(np.fft, name)(x)
    for norm in ({}, {"norm": None}, {"norm": "backward"}):
        assert_same(fn.__wrapped_lax__(x, **norm), want, rtol=1e-12, atol=1e-12)
        assert_same(fn(x, **norm), want, rtol=1e-12, atol=1e-12)


def test_more_than_three_axes_compose():
    # XLA transforms at most three axes at a time
    x = _data(np.complex128, (2, 3, 2, 4, 3))
    r = _data(np.float64, (2, 3, 2, 4, 3))
    _agree_each([("fftn", x, {}), ("ifftn", x, dict(axes=(4, 0, 2, 1, 3), norm="ortho")),
                 ("rfftn", r, {}), ("rfftn", r, dict(s=(2, 3, 4, 4, 5), axes=(4, 0, 2, 1, 3))),
                 ("irfftn", np.fft.rfftn(r), {}),
                 ("irfftn", np.fft.rfftn(r), dict(s=(2, 3, 2, 4, 4), axes=(0, 1, 2, 3, 4)))])


def test_repeated_axes_are_applied_once_per_mention():
    x = _data(np.complex128, (4, 6))
    _agree_each([("fftn", x, dict(axes=(1, 0, 1))),
                 ("fftn", x, dict(s=(3, 4, 5), axes=(1, 0, 1)))])


@pytest.mark.parametrize("name, kwargs", [
    ("rfftn", dict(axes=(0, 0))), ("rfftn", dict(axes=(0, 2, 0))),
    ("rfftn", dict(axes=(1, 1), s=(7, 3))), ("irfftn", dict(axes=(2, 0, 2))),
    ("irfftn", dict(axes=(0, 0), s=(3, 6))), ("rfft2", dict(axes=(1, 1), norm="ortho")),
    ("irfft2", dict(axes=(0, 0), norm="forward"))])
def test_real_transforms_over_a_repeated_axis_are_numpys(name, kwargs):
    """A repeated axis is transformed once per mention, as NumPy's sequence of 1-d
    transforms (the real one on the last axis named)."""
    x = np.random.default_rng(0).uniform(size=(4, 6, 5))
    want = getattr(np.fft, name)(x, **kwargs)
    for got in (getattr(mnp.fft, name).__wrapped_lax__(mnp.asarray(x), **kwargs),
                minijax.jit(lambda v: getattr(mnp.fft, name)(v, **kwargs))(x)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


def test_real_transforms_reject_complex_input():
    with pytest.raises(TypeError, match="real input"):
        minijax.jit(mnp.fft.rfft)(_data(np.complex128))


@pytest.mark.parametrize("call", [
    lambda x: mnp.fft.fft(x, n=0), lambda x: mnp.fft.irfft(x, n=-2),
    lambda x: mnp.fft.fftn(x, s=(2, 0), axes=(0, 1)), lambda x: mnp.fft.fft(x, norm="both"),
    lambda x: mnp.fft.fftn(x, s=(2, 3), axes=(0,)), lambda x: mnp.fft.fft(x, axis=3)])
def test_bad_arguments_are_named_errors(call):
    x = _data(np.complex128, (4, 6))
    with pytest.raises((ValueError, TypeError, IndexError)) as eager:
        call(x)
    with pytest.raises((ValueError, TypeError, IndexError)) as traced:
        minijax.jit(call)(x)
    assert "XLA" not in str(traced.value) and "mlir" not in str(traced.value).lower()
    assert eager.type is not None


def test_out_writes_into_an_existing_array():
    x = _data(np.complex128, (3, 8))
    out = mnp.zeros((3, 8), mnp.complex128)
    r = mnp.fft.fft(x, out=out, norm="ortho")
    assert r is out
    assert_same(out, np.fft.fft(x, norm="ortho"), rtol=1e-12, atol=1e-12)
    real_out = mnp.zeros((3, 14))
    mnp.fft.irfft(x, n=14, out=real_out)
    assert_same(real_out, np.fft.irfft(x, n=14), rtol=1e-12, atol=1e-12)

    def traced(v):
        o = mnp.zeros((3, 5), mnp.complex128)
        mnp.fft.rfft(v, out=o)
        return o
    assert_same(minijax.jit(traced)(x.real), np.fft.rfft(x.real), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="out has shape"):
        mnp.fft.fft(x, out=mnp.zeros((3, 7), mnp.complex128))
    with pytest.raises(TypeError, match="cannot write"):
        mnp.fft.fft(x, out=mnp.zeros((3, 8)))


@pytest.mark.parametrize("name,kwargs", [
    ("fft", {}), ("ifft", {"n": 5}), ("fft2", {}), ("rfft", {"norm": "ortho"}),
    ("irfftn", {"s": (3, 6), "axes": (0, 1)}), ("hfft", {}), ("ihfft", {"norm": "forward"})])
def test_vmap_matches_a_loop(name, kwargs):
    x = _data(np.complex128 if name in ("fft", "ifft", "fft2", "irfftn", "hfft")
              else np.float64, (4, 3, 6))
    fn = getattr(mnp.fft, name)
    for axis in (0, 1, 2):
        batched = minijax.vmap(lambda v: fn(v, **kwargs), in_axes=axis)(x)
        loop = np.stack([np.asarray(fn(np.take(x, i, axis), **kwargs))
                         for i in range(x.shape[axis])])
        assert_same(batched, loop, rtol=1e-12, atol=1e-12)


def _loss(name, **kwargs):
    weights = None

    def f(x):
        nonlocal weights
        y = getattr(mnp.fft, name)(x, **kwargs)
        if weights is None:
            weights = _data(np.float64, y.shape, seed=7)
        # a real function of real and imaginary parts
        return mnp.sum(weights * mnp.real(y)) + mnp.sum(mnp.imag(y) ** 2)
    return f


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name,kwargs,complex_input", [
    ("fft", {"n": 5}, True), ("ifft", {}, True), ("fftn", {"axes": (0, 1)}, True),
    ("rfft", {"n": 7}, False), ("rfftn", {}, False), ("irfft", {"n": 6}, True),
    ("irfft", {"n": 7}, True), ("irfft2", {}, True), ("hfft", {}, True), ("ihfft", {}, False)])
def test_derivatives_against_finite_differences(name, kwargs, complex_input, norm):
    x = _data(np.complex128 if complex_input else np.float64, (3, 4), seed=3)
    f = _loss(name, norm=norm, **kwargs)
    f(x)   # fixes the weights
    check_grads(f, (x,), order=2 if norm == "backward" else 1)


def test_grad_of_real_input_is_real():
    x = _data(np.float64, (6,))
    g = minijax.grad(lambda v: mnp.sum(mnp.abs(mnp.fft.fft(v)) ** 2))(x)
    assert g.dtype == np.float64
    # Parseval: sum |F x|² = n sum x², so the gradient is 2 n x
    assert_same(g, 2 * 6 * x, rtol=1e-12, atol=1e-12)


def test_lax_fft_checks_its_operands():
    with pytest.raises(TypeError, match="complex"):
        lax.fft(np.ones(4), "FFT", (4,))
    with pytest.raises(ValueError, match="trailing axes"):
        lax.fft(np.ones((3, 4), complex), "FFT", (3,))
    with pytest.raises(ValueError, match="1 to 3"):
        lax.fft(np.ones((2,) * 4, complex), "FFT", (2,) * 4)
    with pytest.raises(ValueError, match="fft_type"):
        lax.fft(np.ones(4, complex), "DCT", (4,))
    assert lax.fft(np.ones((3, 4), np.float32), lax.FftType.RFFT, (4,)).shape == (3, 3)


def test_bfloat16_is_transformed_in_single_precision():
    x = mnp.asarray(_data(np.float32, (6,)), dtype=mnp.bfloat16)
    want = np.fft.fft(np.asarray(x, np.float32))
    for got in (mnp.fft.fft(x), minijax.jit(mnp.fft.fft)(x)):
        assert_same(got, want, rtol=1e-6, atol=1e-6)
    assert mnp.fft.rfft(x).dtype == np.complex64


def test_empty_batch():
    x = np.zeros((0, 4), np.complex64)
    _agree_each([("fft", x, {}), ("rfft", x.real, {})])


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(n, d):
    assert_same(mnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
    assert_same(mnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    f32 = mnp.fft.fftfreq(n, d, dtype=mnp.float32)
    assert_same(f32, np.fft.fftfreq(n, d).astype(np.float32))
    dev = minijax.devices()[0]
    assert mnp.fft.rfftfreq(n, d, device=dev).device == dev
    # a traced spacing
    traced = minijax.jit(lambda s: mnp.fft.fftfreq(n, s))(d)
    assert_same(traced, np.fft.fftfreq(n, d), rtol=1e-15, atol=1e-15)
    with pytest.raises(ValueError, match="dtype"):
        mnp.fft.fftfreq(n, d, dtype=mnp.int32)


def test_shifts():
    x = np.arange(30).reshape(5, 6)
    for axes in (None, 0, (1,), (1, 0)):
        assert_same(mnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
        assert_same(mnp.fft.ifftshift(x, axes), np.fft.ifftshift(x, axes))
        assert_same(minijax.jit(lambda v: mnp.fft.fftshift(v, axes))(x),
                    np.fft.fftshift(x, axes))


def test_namespace_is_complete():
    names = {n for n in dir(np.fft) if not n.startswith("_") and callable(getattr(np.fft, n)) and n != "test"}
    assert names <= set(mnp.fft.__all__)


@st.composite
def _fft_calls(draw):
    """A random transform, operand (shapes of 1 to 4 axes, dtypes NumPy takes), and its
    axes, lengths and norm."""
    name = draw(st.sampled_from(["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn",
                                 "ifftn", "rfftn", "irfftn"]))
    real_in = name in ("rfft", "ihfft", "rfftn")
    dtype = draw(st.sampled_from([np.float32, np.float64] if real_in else
                                 [np.float32, np.float64, np.complex64, np.complex128]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5))
    x = draw(hnp.arrays(dtype, shape, elements=st.floats(-10, 10, width=32)))
    kwargs = {"norm": draw(st.sampled_from(NORMS))}
    if name.endswith("n"):
        axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1,
                             max_size=len(shape), unique=True))
        kwargs["axes"] = axes
        if draw(st.booleans()):
            kwargs["s"] = [draw(st.integers(1, 7)) for _ in axes]
    else:
        kwargs["axis"] = draw(st.integers(-len(shape), len(shape) - 1))
        kwargs["n"] = draw(st.none() | st.integers(1, 7))
        if name in ("irfft", "hfft") and kwargs["n"] is None and \
                shape[kwargs["axis"]] == 1:
            kwargs["n"] = 2   # NumPy's default would be 0 points
    if name == "irfftn" and "s" not in kwargs and shape[kwargs["axes"][-1]] == 1:
        kwargs["s"] = [shape[a] for a in kwargs["axes"][:-1]] + [2]
    return name, x, kwargs


@given(_fft_calls())
def test_random_transforms_match_numpy(call):
    name, x, kwargs = call
    _agree(name, x, **kwargs)
