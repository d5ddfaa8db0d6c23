"""``jax.ad_checkpoint``: rematerialisation with named values.

``checkpoint_name(x, "name")`` marks a value; ``checkpoint`` with
``checkpoint_policies.save_only_these_names("name")`` (or ``save_any_names_but_these``)
saves the marked values for the backward pass and recomputes the rest;
``print_saved_residuals(f, *args)`` lists what reverse mode keeps.
"""

from .checkpoint import (checkpoint, checkpoint_name, checkpoint_policies, print_saved_residuals,
                         remat, saved_residuals)

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "print_saved_residuals",
           "remat", "saved_residuals"]
