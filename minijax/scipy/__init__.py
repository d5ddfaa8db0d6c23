"""``minijax.scipy``: the parts of SciPy JAX programs use, differentiable and jit-able."""

from . import linalg, ndimage, optimize, signal, special, stats

__all__ = ["linalg", "ndimage", "optimize", "signal", "special", "stats"]
