"""minijax.scipy.signal's spectral functions (stft, istft, csd, welch, detrend) and their
windows against scipy.signal: values, shapes, dtypes, warnings and exception classes;
jit against eager, vmap against per-example calls, grad against central differences,
and JAX where minijax follows it."""

import warnings

import numpy as np
import pytest
import scipy.signal as ss

import minijax
import minijax.numpy as jnp
import minijax.scipy.signal as ms
from minijax.scipy._windows import get_window

RNG = np.random.default_rng(23)


def _case_id(case):
    """A test id that is the same in every process (a function shows its name, not its
    address: pytest-xdist's workers must collect the same ids)."""
    def show(v):
        return getattr(v, "__name__", None) or str(v) if callable(v) else str(v)
    if isinstance(case, dict):
        return "{" + ", ".join(f"{k}={show(v)}" for k, v in case.items()) + "}"
    return show(case)


def _signal(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _same(got, want, dtype=np.float64):
    """Equal shapes and dtypes, values to the precision of the computation (single when
    ``dtype`` or an expected result is single precision)."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    single = any(np.dtype(t) in (np.float32, np.complex64, np.float16)
                 for t in [dtype] + [w.dtype for w in want])
    rtol = 2e-4 if single else 1e-10
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        scale = np.abs(w).max(initial=0.0)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * max(scale, 1e-30))


def _calls(fn, *args, **kw):
    """``fn``'s result and the messages of the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kw)
    return out, sorted(str(w.message) for w in caught)


def _same_with_warnings(name, args, kw, dtype):
    got, got_warnings = _calls(getattr(ms, name), *args, **kw)
    want, want_warnings = _calls(getattr(ss, name), *args, **kw)
    _same(got, want, dtype)
    assert got_warnings == want_warnings


# ----------------------------------------------------------------------------- windows

_WINDOWS = ["hann", "hamming", "boxcar", "blackman", "nuttall", "blackmanharris", "flattop",
            "bartlett", "barthann", "triang", "parzen", "bohman", "cosine", "lanczos",
            "exponential", ("exponential", None, 3.0), ("tukey", 0.25), ("tukey", 0.0),
            ("tukey", 1.0), "tukey", ("kaiser", 8.6), ("gaussian", 2.5),
            ("general_gaussian", 1.5, 3.0), ("general_cosine", [0.5, 0.3, 0.2]),
            ("general_hamming", 0.6), ("chebwin", 50), "taylor", ("taylor", 5, 40, False),
            "hann_symmetric", "hann_periodic", ("kbd_symmetric", 3.0), ("kbd", 3.0), "sinc",
            "rect", ("exponential_periodic", 2, 1.5), ("exponential_symmetric", 2, 1.5),
            ("hann", 3), "kaiser", "nonsense", (3,)]


@pytest.mark.parametrize("window", _WINDOWS, ids=_case_id)
def test_windows_match_get_window(window):
    for n in (1, 2, 3, 8, 17):
        for fftbins in (True, False):
            try:
                want = ss.get_window(window, n, fftbins=fftbins)
            except ValueError:
                with pytest.raises(ValueError):
                    get_window(window, n, fftbins=fftbins)
                continue
            got = get_window(window, n, fftbins=fftbins)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def test_window_warnings_and_unsupported():
    with pytest.warns(UserWarning, match="not suitable for spectral analysis"):
        get_window(("chebwin", 30), 8)
    with pytest.raises(NotImplementedError, match="dpss"):
        ms.welch(np.ones(16), window=("dpss", 2.0), nperseg=8)


# ----------------------------------------------------------------------------- stft

_STFT_CASES = [
    dict(nperseg=8),
    dict(nperseg=7, noverlap=2, boundary="odd"),
    dict(nperseg=8, boundary="even", padded=False),
    dict(nperseg=6, noverlap=0, boundary="constant", window="hamming", fs=3.0),
    dict(nperseg=8, boundary=None, detrend="linear"),
    dict(nperseg=9, nfft=16, detrend="constant", return_onesided=False, scaling="psd",
         window=("tukey", 0.25)),
    dict(nperseg=5, noverlap=4, boundary=None, padded=True, detrend="l", fs=0.5),
    dict(nperseg=4, noverlap=-2, window="boxcar"),
    dict(nperseg=1, noverlap=0, boundary=None),
    dict(window=np.arange(1.0, 8.0), nperseg=7, noverlap=3, scaling="psd"),
    dict(window="blackman"),                    # nperseg 256 cut to the signal, warning
    dict(nperseg=10, window="hann_symmetric", detrend="c", boundary="zeros", padded=False),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("kw", _STFT_CASES, ids=_case_id)
def test_stft_matches_scipy(kw, dtype):
    _same_with_warnings("stft", (_signal(41, dtype),), kw, dtype)


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_stft_axes_and_batches(axis):
    x = _signal((4, 5, 3), np.float64) if axis != -1 else _signal((2, 3, 30), np.float64)
    for kw in (dict(nperseg=4), dict(nperseg=3, noverlap=1, boundary="odd", detrend="linear")):
        _same(ms.stft(x, axis=axis, **kw), ss.stft(x, axis=axis, **kw))


@pytest.mark.parametrize("axis", [0, 1, -2, -1])
def test_stft_callable_detrend_sees_scipys_layout(axis):
    # subtracting the first entry of the last axis depends on which axis is last
    def first_removed(d):
        return d - d[..., :1]
    x = _signal((9, 12), np.float64)
    kw = dict(nperseg=4, detrend=first_removed, axis=axis)
    _same(ms.stft(x, **kw), ss.stft(x, **kw))


def test_stft_integer_bool_and_empty_input():
    for x in (np.arange(20) % 7, (np.arange(20) % 3 == 0), np.arange(20, dtype=np.int8)):
        _same(ms.stft(x, nperseg=6), ss.stft(x, nperseg=6))
    _same(ms.stft(np.ones((3, 0)), nperseg=4), ss.stft(np.ones((3, 0)), nperseg=4))


# ----------------------------------------------------------------------------- csd, welch

_WELCH_CASES = [
    dict(nperseg=8),
    dict(nperseg=7, noverlap=2, detrend="linear"),
    dict(nperseg=8, average="median"),
    dict(nperseg=8, average="median", return_onesided=False, detrend=False),
    dict(nperseg=9, nfft=16, return_onesided=False, scaling="spectrum", window=("tukey", 0.25)),
    dict(nperseg=10, nfft=15, fs=10.0, window="flattop"),
    dict(nperseg=6, noverlap=-1, scaling="spectrum", detrend=None),
    dict(window=np.hanning(12), noverlap=7, detrend="c"),
    dict(),                                     # nperseg 256 cut to the signal, warning
    dict(nperseg=41, average="median"),         # one segment: no averaging
    dict(nperseg=5, detrend=lambda d: d - d.mean()),   # SciPy calls it per segment
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("kw", _WELCH_CASES, ids=_case_id)
def test_welch_and_csd_match_scipy(kw, dtype):
    x = _signal(41, dtype)
    _same_with_warnings("welch", (x,), kw, dtype)
    _same_with_warnings("csd", (x, x), kw, dtype)
    got = ms.csd(x, None, **{k: v for k, v in kw.items()})
    _same(got, ss.csd(x, x, **kw), dtype)
    y = _signal(37, np.float64 if dtype == np.complex128 else dtype)
    _same_with_warnings("csd", (x, y), kw, dtype)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_welch_csd_axes_broadcasting_and_padding(axis):
    x = _signal((20, 3, 24), np.float64)
    kw = dict(nperseg=6, axis=axis)
    _same(ms.welch(x, **kw), ss.welch(x, **kw))
    y = _signal((20, 3, 24), np.float64)
    _same(ms.csd(x, y, average="median", **kw), ss.csd(x, y, average="median", **kw))
    # outer axes broadcast, the shorter signal is zero-padded (axis last only: SciPy
    # pads with zeros of the other input's outer shape)
    a, b = _signal((3, 1, 30), np.float64), _signal((1, 4, 30), np.float64)
    _same(ms.csd(a, b, nperseg=8), ss.csd(a, b, nperseg=8))
    a, b = _signal((2, 30), np.float64), _signal((2, 26), np.float64)
    _same(ms.csd(b, a, nperseg=8), ss.csd(b, a, nperseg=8))


def test_welch_csd_dtypes_and_empty_inputs():
    for x in (np.arange(30) % 7, np.arange(30, dtype=np.float16) % 5):
        _same(ms.welch(x, nperseg=8), ss.welch(x, nperseg=8))
        _same(ms.csd(x, x.astype(np.float32), nperseg=8),
              ss.csd(x, x.astype(np.float32), nperseg=8))
    _same(ms.welch(np.ones((2, 0))), ss.welch(np.ones((2, 0))))
    _same(ms.csd(np.ones((2, 0)), np.ones((1, 5))), ss.csd(np.ones((2, 0)), np.ones((1, 5))))


def test_csd_complex_y_follows_jax():
    # SciPy raises for a complex y with a real x and return_onesided; JAX switches to
    # the two-sided spectrum (with a warning), and so does minijax
    jax_signal = pytest.importorskip("jax.scipy.signal")
    import jax
    x, y = _signal(40, np.float64), _signal(40, np.complex128)
    with pytest.raises(ValueError):
        ss.csd(x, y, nperseg=8)
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        with pytest.warns(UserWarning, match="switching to return_onesided=False"):
            want = tuple(np.asarray(a) for a in jax_signal.csd(x, y, nperseg=8))
    finally:
        jax.config.update("jax_enable_x64", previous)
    with pytest.warns(UserWarning, match="switching to return_onesided=False"):
        got = ms.csd(x, y, nperseg=8)
    _same(got, want)
    _same(got, ss.csd(x.astype(complex), y, nperseg=8))
    # padding the shorter input where the outer axes differ: SciPy's concatenation fails
    a, b = _signal((3, 1, 40), np.float64), _signal((1, 4, 33), np.float64)
    with pytest.raises(ValueError):
        ss.csd(a, b, nperseg=8)
    jax.config.update("jax_enable_x64", True)
    try:
        want = tuple(np.asarray(v) for v in jax_signal.csd(a, b, nperseg=8))
    finally:
        jax.config.update("jax_enable_x64", previous)
    _same(ms.csd(a, b, nperseg=8), want)


def test_complex_windows():
    win = np.hanning(8) + 0.3j * RNG.standard_normal(8)
    for x in (_signal(40, np.float64), _signal(40, np.complex128)):
        for scaling in ("spectrum", "psd"):
            _same(ms.stft(x, window=win, nperseg=8, scaling=scaling),
                  ss.stft(x, window=win, nperseg=8, scaling=scaling))
        zxx = ss.stft(x, window=win, nperseg=8)[2]
        kw = dict(window=win, input_onesided=not np.iscomplexobj(x))
        _same(ms.istft(zxx, **kw), ss.istft(zxx, **kw))
        kw = dict(window=win, return_onesided=False, scaling="spectrum")
        _same(ms.welch(x, **kw), ss.welch(x, **kw))
        _same(ms.csd(x, x[::-1].copy(), **kw), ss.csd(x, x[::-1].copy(), **kw))


# ----------------------------------------------------------------------------- istft

_ISTFT_CASES = [
    dict(nperseg=8),
    dict(nperseg=7, noverlap=2, window="hamming"),
    dict(nperseg=8, nfft=12, window=("tukey", 0.5), scaling="psd", fs=4.0),
    dict(nperseg=6, noverlap=0, window="boxcar", boundary=None),
    dict(nperseg=8, noverlap=5, window=np.hanning(8) + 0.1),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("kw", _ISTFT_CASES, ids=_case_id)
def test_istft_round_trip_matches_scipy(kw, dtype):
    x = _signal((2, 40), dtype)
    stft_kw = {k: v for k, v in kw.items() if k != "nfft"} | {"nfft": kw.get("nfft")}
    _, _, zxx = ss.stft(x, **stft_kw)
    onesided = not np.iscomplexobj(x)
    istft_kw = {k: v for k, v in kw.items() if k != "boundary"}
    istft_kw.update(input_onesided=onesided, boundary=kw.get("boundary", "zeros") is not None)
    _same_with_warnings("istft", (zxx,), istft_kw, dtype)
    # and through minijax's own stft
    _, _, mzxx = ms.stft(x, **stft_kw)
    _same(ms.istft(mzxx, **istft_kw), ss.istft(zxx, **istft_kw), dtype)


def test_istft_axes_defaults_and_edge_cases():
    z = _signal((3, 5, 2, 6), np.complex128)
    for t_axis, f_axis in [(-1, -2), (0, 1), (1, 0), (0, -1), (3, 1), (-4, 2)]:
        kw = dict(time_axis=t_axis, freq_axis=f_axis, input_onesided=False)
        _same(ms.istft(z, **kw), ss.istft(z, **kw))
        odd = 2 * (z.shape[f_axis] - 1) + 1   # the odd nperseg a one-sided input allows
        for onesided_kw in (dict(), dict(nperseg=odd, noverlap=odd // 3)):
            kw.update(onesided_kw, input_onesided=True)
            _same(ms.istft(z.real, **kw), ss.istft(z.real, **kw))
    # the window's zeros leave samples uncovered: SciPy's NOLA warning
    z = _signal((5, 7), np.complex128)
    for kw in (dict(nperseg=8, noverlap=0, window="hann"),
               dict(nperseg=8, noverlap=4, boundary=False),
               dict(nperseg=1, nfft=8), dict(nperseg=8, noverlap=0, window="boxcar"),
               dict(nperseg=8, noverlap=-3, window="boxcar")):
        _same_with_warnings("istft", (z,), kw, np.float64)
    for zxx in (np.ones((5, 4), np.float32), np.ones((5, 4), np.int64),
                np.ones((5, 4), np.complex64)):
        _same(ms.istft(zxx), ss.istft(zxx), zxx.dtype if zxx.dtype != np.int64 else np.float64)


# ----------------------------------------------------------------------------- detrend

@pytest.mark.parametrize("kw", [dict(), dict(type="constant"), dict(type="c"), dict(type="l"),
                                dict(bp=[5, 11]), dict(bp=17), dict(bp=np.array([3, 3, 16])),
                                dict(bp=20), dict(axis=0), dict(axis=1, bp=[2]),
                                dict(overwrite_data=True)], ids=_case_id)
def test_detrend_matches_scipy(kw):
    for x in (_signal((4, 20), np.float64), _signal((4, 20), np.float32),
              _signal((4, 20), np.complex64), (np.arange(80) % 7).reshape(4, 20),
              _signal((4, 20), np.float16)):
        _same(ms.detrend(x, **kw), ss.detrend(x, **kw), x.dtype)


# ----------------------------------------------------------------------------- transformations

def test_jit_agrees_with_eager():
    x = _signal((2, 50), np.float64)
    cases = [
        (lambda s: ms.stft(s, nperseg=8, boundary="odd", detrend="linear"), x),
        (lambda s: ms.stft(s, nperseg=7, noverlap=3, return_onesided=False, window=("tukey", .3)),
         x.astype(np.float32)),
        (lambda s: ms.welch(s, nperseg=8, average="median", axis=0), x.T),
        (lambda s: ms.csd(s[0], s[1], nperseg=9, nfft=12, scaling="spectrum"), x),
        (lambda z: ms.istft(z, nperseg=8, noverlap=6), ss.stft(x, nperseg=8, noverlap=6)[2]),
        (lambda s: ms.detrend(s, bp=[10, 31]), x),
        (lambda s: ms.csd(s, s, nperseg=6, detrend=lambda d: d - d.mean()), x),
    ]
    for fn, arg in cases:
        eager, compiled = fn(arg), minijax.jit(fn)(arg)
        _same(tuple(compiled) if isinstance(compiled, tuple) else compiled,
              tuple(np.asarray(e) for e in eager) if isinstance(eager, tuple)
              else np.asarray(eager), arg.dtype)
    # a traced fs and window (not static) work under jit
    got = minijax.jit(lambda s, fs, w: ms.welch(s, fs=fs, window=w))(x[0], 3.0, np.hanning(10))
    _same(got, ss.welch(x[0], fs=3.0, window=np.hanning(10)))
    kw = dict(nperseg=10, noverlap=6, scaling="psd")
    got = minijax.jit(lambda s, fs, w: ms.stft(s, fs=fs, window=w, **kw))(x, 3.0, np.hanning(10))
    _same(got, ss.stft(x, fs=3.0, window=np.hanning(10), **kw))
    zxx = got[2]
    got = minijax.jit(lambda z, fs, w: ms.istft(z, fs=fs, window=w, **kw))(zxx, 3.0, np.hanning(10))
    _same(got, ss.istft(np.asarray(zxx), fs=3.0, window=np.hanning(10), **kw))


def test_vmap_matches_per_example():
    x = _signal((3, 40), np.float64)
    y = _signal((3, 40), np.float64)
    fns = [
        lambda s: ms.stft(s, nperseg=8, detrend="linear")[2],
        lambda s: ms.welch(s, nperseg=8, average="median")[1],
        lambda s: ms.csd(s, s[::-1], nperseg=6, detrend=lambda d: d - d.mean())[1],
        lambda s: ms.istft(ms.stft(s, nperseg=8)[2], nperseg=8)[1],
        lambda s: ms.detrend(s, bp=[12]),
    ]
    for fn in fns:
        batched = np.asarray(minijax.vmap(fn)(x))
        want = np.stack([np.asarray(fn(row)) for row in x])
        np.testing.assert_allclose(batched, want, rtol=1e-12, atol=1e-12)
    got = minijax.vmap(lambda a, b: ms.csd(a, b, nperseg=8)[1])(x, y)
    want = np.stack([ss.csd(a, b, nperseg=8)[1] for a, b in zip(x, y)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def _central_difference_check(loss, x, eps=1e-6):
    direction = RNG.standard_normal(np.shape(x))
    grad = np.asarray(minijax.grad(loss)(jnp.asarray(x)))
    numeric = (float(loss(jnp.asarray(x + eps * direction)))
               - float(loss(jnp.asarray(x - eps * direction)))) / (2 * eps)
    np.testing.assert_allclose(np.sum(grad * direction), numeric, rtol=1e-6, atol=1e-8)


def test_grad_against_central_differences():
    x = _signal(40, np.float64)
    weights = RNG.standard_normal((5, 11))
    losses = [
        lambda s: jnp.sum(jnp.abs(ms.stft(s, nperseg=8, boundary="odd")[2]) ** 2 * weights),
        lambda s: jnp.sum(ms.stft(s, nperseg=8, detrend="linear", boundary="even")[2].real
                          * weights),
        lambda s: jnp.sum(ms.welch(s, nperseg=8)[1] * weights[0, :5]),
        lambda s: jnp.sum(ms.welch(s, nperseg=8, average="median")[1] * weights[0, :5]),
        lambda s: jnp.sum(jnp.abs(ms.csd(s, s[::-1] ** 2, nperseg=8)[1]) * weights[0, :5]),
        lambda s: jnp.sum(ms.istft(ms.stft(s, nperseg=8)[2] * (1 + weights ** 2),
                                   nperseg=8)[1] ** 2),
        lambda s: jnp.sum(ms.detrend(s, bp=[13]) ** 3),
        lambda w: jnp.sum(ms.welch(x, window=w, nperseg=10)[1] * weights[0, :6]),
    ]
    for loss in losses[:-1]:
        _central_difference_check(loss, x)
    _central_difference_check(losses[-1], np.hanning(10) + 0.5)
    _central_difference_check(lambda fs: jnp.sum(ms.welch(x, fs=fs, nperseg=8)[1]) * fs ** 2,
                              np.float64(3.0))


# ----------------------------------------------------------------------------- errors

_ERRORS = [
    ("stft", dict(nperseg=8, noverlap=8)), ("stft", dict(nperseg=0)),
    ("stft", dict(nperseg=8, nfft=7)), ("stft", dict(window="nonsense", nperseg=8)),
    ("stft", dict(nperseg=8, scaling="density")), ("stft", dict(boundary="wrap")),
    ("stft", dict(nperseg=8, detrend="quadratic")), ("stft", dict(nperseg=8, detrend=True)),
    ("stft", dict(window=np.ones((2, 4)))), ("stft", dict(window=np.ones(50))),
    ("stft", dict(window=np.ones(4), nperseg=5)), ("stft", dict(window=("hann", 2))),
    ("welch", dict(nperseg=8, noverlap=9)), ("welch", dict(nperseg=0)),
    ("welch", dict(nperseg=8, nfft=4)), ("welch", dict(window="nonsense")),
    ("welch", dict(nperseg=8, scaling="psd")), ("welch", dict(nperseg=8, average="max")),
    ("welch", dict(nperseg=8, detrend="quadratic")), ("welch", dict(nperseg=8, detrend=True)),
    ("welch", dict(window=np.ones((2, 4)))), ("welch", dict(window=np.ones(50))),
    ("welch", dict(window=np.ones(4), nperseg=5)), ("welch", dict(nperseg=8, fs=0.0)),
    ("welch", dict(window=("kaiser",))),
    ("welch", dict(window=np.hanning(8) + 1j)), ("csd", dict(y=np.ones(40), nperseg=8, noverlap=8)),
    ("csd", dict(y=np.ones(40), window=np.ones(50))), ("csd", dict(y=np.ones((2, 40)), axis=0)),
]


@pytest.mark.parametrize("name,kw", _ERRORS, ids=_case_id)
def test_errors_have_scipys_classes(name, kw):
    x = _signal(40, np.float64)
    with pytest.raises(Exception) as want:
        getattr(ss, name)(x, **kw)
    with pytest.raises(want.type):
        getattr(ms, name)(x, **kw)


def test_more_errors():
    z = _signal((5, 6), np.complex128)
    for kw in (dict(nperseg=8, noverlap=8), dict(nperseg=0), dict(nperseg=8, nfft=6),
               dict(time_axis=0, freq_axis=0), dict(window=np.ones(7)),
               dict(window=np.ones((2, 4))), dict(scaling="density")):
        with pytest.raises(ValueError) as want:
            ss.istft(z, **kw)
        with pytest.raises(ValueError, match=str(want.value)[:20]):
            ms.istft(z, **kw)
    with pytest.raises(ValueError, match="at least 2d"):
        ms.istft(np.ones(4))
    # SciPy compares the raw axes and fails with an IndexError; minijax (as JAX) names it
    with pytest.raises(ValueError, match="differing time and frequency axes"):
        ms.istft(z, time_axis=1, freq_axis=-1)
    with pytest.raises(ValueError, match="broadcast"):
        ms.csd(np.ones((2, 9)), np.ones((3, 9)))
    x = np.arange(10.0)
    for kw in (dict(type="quadratic"), dict(bp=11), dict(bp=-1)):
        with pytest.raises(ValueError):
            ss.detrend(x, **kw)
        with pytest.raises(ValueError, match="Trend type|Breakpoints"):
            ms.detrend(x, **kw)
    with pytest.raises(TypeError, match="Python int"):
        minijax.jit(lambda s, n: ms.stft(s, nperseg=n))(x, 4)
    with pytest.raises(TypeError, match="concrete"):
        minijax.jit(lambda s, b: ms.detrend(s, bp=b))(x, 3)
