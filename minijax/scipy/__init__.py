"""``minijax.scipy``: the parts of SciPy JAX programs use, differentiable and jit-able."""

from . import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
