"""``minijax.experimental``: JAX's experimental namespace, as far as minijax has it."""

from . import ode

__all__ = ["ode"]
