"""``minijax.scipy``: the parts of SciPy JAX programs use, differentiable and jit-able."""

from . import linalg, signal, special, stats

__all__ = ["linalg", "signal", "special", "stats"]
