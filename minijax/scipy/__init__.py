"""``minijax.scipy``: the parts of SciPy JAX programs use, differentiable and jit-able."""

from . import special, stats

__all__ = ["special", "stats"]
