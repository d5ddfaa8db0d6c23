"""``minijax.experimental.ode``: JAX's ``jax.experimental.ode.odeint``."""

from ..scipy.integrate import odeint

__all__ = ["odeint"]
