"""``minijax.Array``, the public array type as ``jax.Array`` is: an abstract class whose
instances are minijax's arrays and the tracers that stand for them under a
transformation, so ``isinstance(x, minijax.Array)`` answers the same inside ``jit``,
``grad`` and ``vmap`` as outside. Arrays are made by ``minijax.numpy`` (``asarray``,
``array``, ...), not by this class. (``minijax.numpy.ndarray`` is the eager array's own
class, as NumPy's ``ndarray`` is: ``type(x) is np.ndarray`` holds for an eager array.)
"""

import abc

from .core.trace import Tracer
from .runtime.array import Array as _EagerArray


class Array(abc.ABC):
    """The type of minijax arrays, eager or traced (JAX's ``jax.Array``)."""

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise TypeError("create arrays with minijax.numpy.asarray/array, not Array(...)")


Array.register(_EagerArray)
Array.register(Tracer)
Array.__module__ = "minijax"
