"""``minijax.numpy.exceptions``: NumPy's exception and warning classes themselves, so
``except np.exceptions.AxisError`` catches what minijax raises and what NumPy raises."""

from numpy.exceptions import (
    AxisError,
    ComplexWarning,
    DTypePromotionError,
    ModuleDeprecationWarning,
    TooHardError,
    VisibleDeprecationWarning,
)

__all__ = ["AxisError", "ComplexWarning", "DTypePromotionError", "ModuleDeprecationWarning",
           "TooHardError", "VisibleDeprecationWarning"]
