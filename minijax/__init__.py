"""minijax: NumPy's API with JAX's composable transformations, compiled through jaxlib.

    import minijax
    import minijax.numpy as np

    @minijax.jit
    def f(x):
        return np.sum(np.sin(x) ** 2)

    minijax.grad(f)(np.arange(3.0))
"""

from . import errors, tree_util
from .config import config
from .runtime import dispatch as _dispatch  # noqa: F401  (installs the eager interpreter)
from .runtime.array import Array
from . import lax
from . import numpy
from .api import (block_until_ready, device_put, devices, grad, jit, jvp, linearize, make_jaxpr,
                  value_and_grad, vjp, vmap)
from .core import ClosedJaxpr, Primitive, ShapedArray

__version__ = "0.1.0"

__all__ = ["Array", "ClosedJaxpr", "Primitive", "ShapedArray", "block_until_ready", "config",
           "device_put", "devices", "errors", "grad", "jit", "jvp", "lax", "linearize",
           "make_jaxpr", "numpy", "tree_util", "value_and_grad", "vjp", "vmap"]
