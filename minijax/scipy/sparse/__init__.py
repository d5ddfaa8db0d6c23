"""``minijax.scipy.sparse``: iterative solvers of linear systems (``linalg``)."""

from . import linalg

__all__ = ["linalg"]
