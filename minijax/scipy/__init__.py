"""``minijax.scipy``: the parts of SciPy JAX programs use, differentiable and jit-able."""

from . import integrate, linalg, ndimage, optimize, signal, special, stats

__all__ = ["integrate", "linalg", "ndimage", "optimize", "signal", "special", "stats"]
