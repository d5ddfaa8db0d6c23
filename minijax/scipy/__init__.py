"""``minijax.scipy``: the parts of SciPy JAX programs use, differentiable and jit-able."""

from . import fft, integrate, interpolate, linalg, ndimage, optimize, signal, sparse, special, stats

__all__ = ["fft", "integrate", "interpolate", "linalg", "ndimage", "optimize", "signal", "sparse",
           "special", "stats"]
