"""``minijax.scipy``: the parts of SciPy JAX programs use, differentiable and jit-able."""

from . import linalg, ndimage, signal, special, stats

__all__ = ["linalg", "ndimage", "signal", "special", "stats"]
