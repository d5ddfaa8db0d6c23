"""Window functions for ``minijax.scipy.signal``'s spectral functions, by the names and
parameters of ``scipy.signal.get_window``.

A window named by a string or tuple depends only on static values, so it is computed
on the host with NumPy in float64 (SciPy's values) and enters a program as a constant.
"""

import math
import warnings

import numpy as np

__all__ = ["get_window"]


def _cosine_sum(m, coefficients):
    """``sum_k (-1)^k a_k cos(2 pi k n / (m - 1))``: written over a grid from -pi to pi,
    where the alternating signs come out of the cosines."""
    grid = np.linspace(-np.pi, np.pi, m)
    return sum(a * np.cos(k * grid) for k, a in enumerate(coefficients))


def _general_cosine(m, a):
    return _cosine_sum(m, np.asarray(a, dtype=float))


def _general_hamming(m, alpha):
    return _cosine_sum(m, (alpha, 1.0 - alpha))


def _boxcar(m):
    return np.ones(m)


def _triang(m):
    n = np.arange(1, (m + 1) // 2 + 1)
    if m % 2 == 0:
        half = (2 * n - 1.0) / m
        return np.concatenate([half, half[::-1]])
    half = 2 * n / (m + 1.0)
    return np.concatenate([half, half[-2::-1]])


def _parzen(m):
    n = np.abs(np.arange(m) - (m - 1) / 2.0)
    r = n / (m / 2.0)
    return np.where(n <= (m - 1) / 4.0, 1 - 6 * r ** 2 + 6 * r ** 3, 2 * (1 - r) ** 3)


def _bohman(m):
    r = np.abs(np.linspace(-1, 1, m)[1:-1])
    inner = (1 - r) * np.cos(np.pi * r) + np.sin(np.pi * r) / np.pi
    return np.concatenate([[0.0], inner, [0.0]])


def _bartlett(m):
    n = np.arange(m)
    return np.where(n <= (m - 1) / 2.0, 2.0 * n / (m - 1), 2.0 - 2.0 * n / (m - 1))


def _barthann(m):
    r = np.abs(np.arange(m) / (m - 1.0) - 0.5)
    return 0.62 - 0.48 * r + 0.38 * np.cos(2 * np.pi * r)


def _tukey(m, alpha=0.5):
    if alpha <= 0:
        return np.ones(m)
    if alpha >= 1:
        return _general_hamming(m, 0.5)
    n = np.arange(m)
    width = int(math.floor(alpha * (m - 1) / 2.0))
    rise = 0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * n[:width + 1] / alpha / (m - 1))))
    fall = 0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * n[m - width - 1:] / alpha
                                      / (m - 1))))
    return np.concatenate([rise, np.ones(max(m - 2 * width - 2, 0)), fall])


def _kaiser(m, beta):
    centre = (m - 1) / 2.0
    return np.i0(beta * np.sqrt(1 - ((np.arange(m) - centre) / centre) ** 2)) / np.i0(beta)


def _gaussian(m, std):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-n ** 2 / (2 * std * std))


def _general_gaussian(m, p, sig):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-0.5 * np.abs(n / sig) ** (2 * p))


def _cosine(m):
    return np.sin(np.pi / m * (np.arange(m) + 0.5))


def _exponential(m, center=None, tau=1.0):
    if center is None:
        center = (m - 1) / 2
    return np.exp(-np.abs(np.arange(m) - center) / tau)


def _lanczos(m):
    # built from its right half and mirrored, so that it is exactly symmetric
    half = np.sinc(2.0 * np.arange(m // 2 + m % 2, m) / (m - 1) - 1.0)
    middle = [1.0] if m % 2 else []
    return np.concatenate([half[::-1], middle, half])


def _chebwin(m, at):
    order = m - 1.0
    beta = np.cosh(np.arccosh(10 ** (abs(at) / 20.0)) / order)
    x = beta * np.cos(np.pi * np.arange(m) / m)
    # the Chebyshev polynomial of degree `order` at x, by the branch valid for each x
    with np.errstate(invalid="ignore"):
        p = np.where(x > 1, np.cosh(order * np.arccosh(np.abs(x))),
                     np.where(x < -1, (2 * (m % 2) - 1) * np.cosh(order * np.arccosh(np.abs(x))),
                              np.cos(order * np.arccos(np.clip(x, -1, 1)))))
    if m % 2:
        w = np.real(np.fft.fft(p))[:(m + 1) // 2]
        w = np.concatenate([w[:0:-1], w])
    else:
        w = np.real(np.fft.fft(p * np.exp(1j * np.pi / m * np.arange(m))))[1:m // 2 + 1]
        w = np.concatenate([w[::-1], w])
    return w / np.max(w)


def _taylor(m, nbar=4, sll=30, norm=True):
    a = np.arccosh(10 ** (sll / 20)) / np.pi
    s2 = nbar ** 2 / (a ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar, dtype=float)
    m2 = ma * ma
    coefficients = np.empty(nbar - 1)
    for i in range(nbar - 1):
        numerator = (-1) ** i * np.prod(1 - m2[i] / s2 / (a ** 2 + (ma - 0.5) ** 2))
        others = np.delete(m2, i)
        coefficients[i] = numerator / (2 * np.prod(1 - m2[i] / others))

    def series(n):
        return 1 + 2 * coefficients @ np.cos(2 * np.pi * ma[:, None] * (n - m / 2.0 + 0.5) / m)

    w = series(np.arange(m))
    return w / series((m - 1) / 2) if norm else w


# name -> (function, parameters: False none, True required, None optional), SciPy's aliases
_WINDOWS = {}
for _names, _entry in [
        (("barthann", "brthan", "bth"), (_barthann, False)),
        (("bartlett", "bart", "brt"), (_bartlett, False)),
        (("blackman", "black", "blk"), (lambda m: _cosine_sum(m, (0.42, 0.50, 0.08)), False)),
        (("blackmanharris", "blackharr", "bkh"),
         (lambda m: _cosine_sum(m, (0.35875, 0.48829, 0.14128, 0.01168)), False)),
        (("bohman", "bman", "bmn"), (_bohman, False)),
        (("boxcar", "box", "ones", "rect", "rectangular"), (_boxcar, False)),
        (("chebwin", "cheb"), (_chebwin, True)),
        (("cosine", "halfcosine"), (_cosine, False)),
        (("dpss",), (None, True)),
        (("exponential", "poisson"), (_exponential, None)),
        (("flattop", "flat", "flt"),
         (lambda m: _cosine_sum(m, (0.21557895, 0.41663158, 0.277263158, 0.083578947,
                                    0.006947368)), False)),
        (("gaussian", "gauss", "gss"), (_gaussian, True)),
        (("general cosine", "general_cosine"), (_general_cosine, True)),
        (("general gaussian", "general_gaussian", "general gauss", "general_gauss", "ggs"),
         (_general_gaussian, True)),
        (("general hamming", "general_hamming"), (_general_hamming, True)),
        (("hamming", "hamm", "ham"), (lambda m: _general_hamming(m, 0.54), False)),
        (("hann", "han"), (lambda m: _general_hamming(m, 0.5), False)),
        (("kaiser", "ksr"), (_kaiser, True)),
        (("kaiser bessel derived", "kaiser_bessel_derived", "kbd"), ("kbd", True)),
        (("lanczos", "sinc"), (_lanczos, False)),
        (("nuttall", "nutl", "nut"),
         (lambda m: _cosine_sum(m, (0.3635819, 0.4891775, 0.1365995, 0.0106411)), False)),
        (("parzen", "parz", "par"), (_parzen, False)),
        (("taylor", "taylorwin"), (_taylor, None)),
        (("triangle", "triang", "tri"), (_triang, False)),
        (("tukey", "tuk"), (_tukey, None))]:
    _WINDOWS.update(dict.fromkeys(_names, _entry))


def _kaiser_bessel_derived(m, beta, symmetric):
    if not symmetric:
        raise ValueError("Kaiser-Bessel Derived windows are only defined for symmetric "
                         "shapes")
    if m % 2:
        raise ValueError("Kaiser-Bessel Derived windows are only defined for even number "
                         "of points")
    total = np.cumsum(_kaiser(m // 2 + 1, beta))
    half = np.sqrt(total[:-1] / total[-1])
    return np.concatenate([half, half[::-1]])


def get_window(window, nx, fftbins=True):
    """The window ``window`` (a name, or a tuple of a name and its parameters) of
    ``nx`` points as a float64 NumPy array, as ``scipy.signal.get_window``: periodic
    (``fftbins``) unless the name ends in '_symmetric'; '_periodic' forces periodic."""
    if not (isinstance(nx, (int, np.integer)) and nx > 0):
        raise ValueError(f"Parameter Nx={nx!r} is not a positive integer")
    if not isinstance(window, (str, tuple)):
        raise ValueError(f"Parameter window={window!r} must be a tuple or a string")
    if isinstance(window, tuple) and not (window and isinstance(window[0], str)):
        raise ValueError(f"First tuple entry of parameter window={window!r} is not a str!")
    name, args = (window, ()) if isinstance(window, str) else (window[0], window[1:])
    symmetric = not fftbins
    if name.endswith("_symmetric"):
        symmetric, name = True, name[:-len("_symmetric")]
    elif name.endswith("_periodic"):
        symmetric, name = False, name[:-len("_periodic")]
    if name not in _WINDOWS:
        raise ValueError(f"Invalid window name '{name}' in parameter window={window!r}!")
    fn, takes = _WINDOWS[name]
    if args and takes is False:
        raise ValueError(f"'{name}' does not allow parameters, but window={window!r}!")
    if not args and takes is True:
        raise ValueError(f"'{name}' must have parameters, but window={window!r}!")
    if fn is None:
        raise NotImplementedError(f"minijax.scipy.signal: the window {name!r} (discrete "
                                  f"prolate spheroidal sequences) is not supported")
    if fn == "kbd":
        return _kaiser_bessel_derived(nx, *args, symmetric)
    if fn is _exponential and symmetric and args and args[0] is not None:
        raise ValueError("If sym==True, center must be None.")
    if fn is _chebwin and abs(args[0]) < 45:
        warnings.warn("This window is not suitable for spectral analysis for attenuation "
                      "values lower than about 45dB because the equivalent noise bandwidth "
                      "of a Chebyshev window does not grow monotonically with increasing "
                      "sidelobe attenuation when the attenuation is smaller than about "
                      "45 dB.", stacklevel=4)
    if nx == 1:
        return np.ones(1)
    # a periodic window is the symmetric one of one more point, without its last
    m = nx if symmetric else nx + 1
    return np.asarray(fn(m, *args), dtype=float)[:nx]
