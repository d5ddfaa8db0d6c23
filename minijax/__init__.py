"""minijax: NumPy's API with JAX's composable transformations, compiled through jaxlib.

    import minijax
    import minijax.numpy as np

    @minijax.jit
    def f(x):
        return np.sum(np.sin(x) ** 2)

    minijax.grad(f)(np.arange(3.0))
"""

from . import errors, tree, tree_util
from .config import config
from .runtime import dispatch as _dispatch  # noqa: F401  (installs the eager interpreter)
from ._array_type import Array
from . import lax
from . import numpy
from . import random
from . import nn
from . import debug
from .callbacks import pure_callback
from .api import (block_until_ready, device_put, devices, grad, jit, jvp, linearize, make_jaxpr,
                  value_and_grad, vjp, vmap)
from .api import ShapeDtypeStruct, device_get, eval_shape, linear_transpose
from .api import (clear_caches, default_backend, device_count, disable_jit,
                  ensure_compile_time_eval, local_device_count, local_devices,
                  print_environment_info, process_count, process_index, process_indices, typeof)
from .config import enable_x64
from .lax import stop_gradient
from .core import ClosedJaxpr, Primitive, ShapedArray
from . import custom_batching, custom_derivatives
from .custom_derivatives import closure_convert, custom_gradient, custom_jvp, custom_vjp
from .jacobians import hessian, jacfwd, jacobian, jacrev
from .checkpoint import checkpoint, checkpoint_policies, remat
from . import ad_checkpoint
from . import dlpack
from . import sharding
from .sharding import NamedSharding, P, make_mesh
from .api import (make_array_from_callback, make_array_from_process_local_data,
                  make_array_from_single_device_arrays)
from .lax.shard_map import pmap, shard_map
from . import distributed
from . import flatten_util
from . import image

__version__ = "0.1.0"


def __getattr__(name):
    if name == "scipy":   # (imported when first read: a tenth of the import's time)
        import importlib
        return importlib.import_module(".scipy", __name__)
    raise AttributeError(f"module 'minijax' has no attribute {name!r}")


__all__ = [
    # modules
    "ad_checkpoint", "custom_batching", "custom_derivatives", "debug", "distributed", "dlpack", "errors", "flatten_util", "image", "lax", "nn",
    "numpy", "random", "scipy", "sharding", "tree",
    "tree_util",
    # configuration, arrays, jaxprs
    "Array", "ClosedJaxpr", "Primitive", "ShapeDtypeStruct", "ShapedArray", "config",
    # transformations
    "grad", "jit", "jvp", "linearize", "make_jaxpr", "value_and_grad", "vjp", "vmap",
    "hessian", "jacfwd", "jacobian", "jacrev", "linear_transpose", "pmap", "shard_map",
    # custom derivative rules, rematerialisation
    "checkpoint", "checkpoint_policies", "closure_convert", "custom_gradient", "custom_jvp",
    "custom_vjp", "remat",
    "stop_gradient",
    # shapes, devices
    "block_until_ready", "device_get", "device_put", "devices", "eval_shape",
    "NamedSharding", "P", "make_mesh", "make_array_from_callback",
    "make_array_from_process_local_data", "make_array_from_single_device_arrays",
    # host callbacks
    "pure_callback",
    # debugging and environment
    "clear_caches", "default_backend", "device_count", "disable_jit", "enable_x64",
    "ensure_compile_time_eval", "local_device_count", "local_devices",
    "print_environment_info", "process_count", "process_index", "process_indices", "typeof",
]
