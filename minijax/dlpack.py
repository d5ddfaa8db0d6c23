"""``jax.dlpack``: exchanging arrays with other libraries through DLPack.

Arrays export themselves (``__dlpack__``); ``from_dlpack`` imports, sharing memory.
minijax's arrays live in NumPy buffers, so the dtypes are NumPy's DLPack dtypes:
bfloat16 (which NumPy's DLPack export refuses) is not among them, unlike JAX's.
"""

import numpy as np

from .numpy import from_dlpack

__all__ = ["from_dlpack", "is_supported_dtype"]

_SUPPORTED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))


def is_supported_dtype(dtype):
    """Whether arrays of ``dtype`` can be exchanged through DLPack."""
    return np.dtype(dtype) in _SUPPORTED
