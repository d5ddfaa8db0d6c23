"""The named exceptions minijax raises (see DESIGN decision 7)."""


class MinijaxTypeError(TypeError):
    """Base of the errors raised when a traced value is used where a concrete one is needed."""


class ConcretizationTypeError(MinijaxTypeError):
    """A traced value was needed as a concrete Python value (int, float, index, shape)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """A traced value was converted to ``bool`` (an ``if`` or ``while`` on traced data)."""


class TracerIntegerConversionError(ConcretizationTypeError):
    """A traced value was converted to a Python ``int`` or used as an index."""


class TracerArrayConversionError(MinijaxTypeError):
    """A traced value was converted to a NumPy array (``np.asarray`` of a tracer)."""


class UnexpectedTracerError(MinijaxTypeError):
    """A traced value escaped the transformation that created it and was used later
    (a ``TypeError``, as in JAX)."""


class NonConcreteBooleanIndexError(ConcretizationTypeError, IndexError):
    """A traced boolean array was used as an index (the result's shape would depend on it);
    an ``IndexError`` as in JAX and a ``TypeError`` as minijax's other concretization
    errors."""


class CustomRuleError(TypeError):
    """A ``custom_jvp``/``custom_vjp`` rule returned values that do not fit the function,
    or differentiation reached something the rule does not cover."""


class NonDifferentiableOutputError(TypeError):
    """``grad`` of a function whose output is boolean or integer (it has no derivative)."""


class ShapeMismatchError(ValueError, TypeError):
    """Operand shapes do not fit an operation (contracting sizes of ``dot``/``matmul``):
    a ``ValueError`` as in NumPy and a ``TypeError`` as in JAX."""


class PyTreeStructureError(ValueError, TypeError):
    """A pytree does not have the structure an operation needs (a ``vjp`` cotangent,
    ``jvp`` tangents, ``tree_transpose``'s input): JAX raises ``ValueError`` for some of
    these and ``TypeError`` for others, so this is both."""


class ArgumentMismatchError(ValueError, TypeError):
    """Arguments that do not fit a transformation (``argnums`` beyond the arguments
    passed, an unhashable static argument, a tangent of another dtype than its primal):
    a ``ValueError`` or ``TypeError`` in JAX depending on the case, so this is both."""


class HiddenStateInTransformationError(MinijaxTypeError):
    """A stateful host function (``minijax.numpy.random``) was called inside a
    transformation, where its hidden state would be frozen into the trace."""


class UnsupportedInPlaceUpdateError(MinijaxTypeError):
    """An in-place update inside a control-flow body or a custom-derivative function
    that minijax cannot write back to the caller's array (DESIGN 5); the message says
    what to return from the body instead."""


class InvalidDeviceError(ValueError, TypeError):
    """A device argument (``to_device``, ``device_put``) is not one of minijax's devices:
    a ``ValueError`` for an unknown name, as NumPy raises for ``to_device("gpu")``, and a
    ``TypeError`` for a value of the wrong kind, as NumPy raises for ``to_device(3)``."""


class UnknownPlatformError(ValueError):
    """A platform name (``get_backend``, ``devices``, ``register_lowering``) that minijax
    does not know, or one with no backend in this process; the message lists the known
    ones."""


class PlatformUnavailableError(UnknownPlatformError, RuntimeError):
    """A platform was asked for (``config.update("platforms", ...)``,
    ``MINIJAX_PLATFORMS``, ``devices("cuda")``, a GPU DLPack producer) that cannot start
    in this process: its plugin is not installed or its client failed to start. The
    message says which package to install (``pip install "minijax[cuda12]"``)."""


class MissingPlatformLoweringError(NotImplementedError):
    """A primitive has no lowering rule for the platform a program is compiled for (only
    rules for other platforms): raised while lowering, before XLA sees the program."""


class FileArgumentError(TypeError, AttributeError):
    """A file reader (``fromfile``, ``genfromtxt``, ``fromregex``) was given an array
    where a path or an open file belongs. A ``TypeError``, and an ``AttributeError`` as
    NumPy's readers raise when they call file methods on the array."""


class RecursionLimitError(RecursionError, ValueError):
    """An argument asks for more steps than NumPy's recursive algorithm takes (``polyder``
    of an order beyond the recursion limit): a ``RecursionError`` as NumPy raises, and a
    ``ValueError``, since the argument is out of range and is rejected before any work."""


class UnsupportedNumPyFeatureError(AttributeError):
    """A NumPy name that ``minijax.numpy`` leaves out of scope (extended precision,
    masked arrays, the recarray and matrix classes, ...); the
    message says why and what to use. An ``AttributeError``, so ``hasattr`` is False as
    for any name a module does not have."""
class OutOfMemoryError(MemoryError):
    """An array cannot be allocated: it is larger than the machine's memory, or XLA ran
    out of memory running a program (a ``MemoryError``, as NumPy raises)."""


class NonNumericDtypeError(TypeError):
    """An array of a non-numeric dtype (datetime64, timedelta64, str_, bytes_, a structured
    ``void`` or object) reached a transformation (``jit``, ``grad``, ``vmap``), a device
    transfer, ``eager_backend="xla"`` or a ``lax`` operation. Such arrays live only in
    eager computation, which is NumPy's (DESIGN 3); nothing converts them silently.

    ``dtype`` and ``operation`` are kept as attributes (``operation`` may be None when
    the error is raised below the entry point, which then names it)."""

    def __init__(self, dtype, operation=None):
        self.dtype = dtype
        self.operation = operation
        what = operation or ("an operation that takes numeric arrays only (a transformation "
                             "such as jit, grad or vmap, a device transfer, "
                             "eager_backend='xla', or a lax primitive)")
        got = ("computes with dates, strings, records or objects" if dtype is None
               else f"got an array of dtype {dtype}")
        super().__init__(
            f"{what} {got}: minijax computes with dates, strings, "
            f"records and objects only eagerly through NumPy, outside every transformation, "
            f"on the host and with eager_backend='numpy'. Do that part eagerly, or convert "
            f"the data to numbers first and pass those (x.astype('int64') gives the counts "
            f"of datetime64/timedelta64 units; a structured array's numeric fields are "
            f"x['name'])")

    def named(self, operation, replace=False):
        """This error with ``operation`` filled in if it had none, or ``replace``d (the
        user's call names it better than the primitive it reached)."""
        if self.operation is not None and not replace:
            return self
        return NonNumericDtypeError(self.dtype, operation)


class ShardingError(ValueError):
    """A sharding that does not fit: an unknown or repeated mesh axis in a
    ``PartitionSpec``, a dimension not divisible by its number of shards, a mesh of the
    wrong device count, arrays on different meshes or devices combined, or an argument
    of a multi-device program whose shape, dtype, sharding or devices differ from what
    the program was compiled for (jaxlib does not check these itself)."""


class MultiDeviceCallbackError(NotImplementedError):
    """A host callback (``debug.print``, ``pure_callback``, ``io_callback``) in a program
    that runs on several devices (sharded arguments): minijax runs callbacks only in
    programs on one device."""


class UnboundAxisNameError(NameError, ValueError):
    """A collective (``psum``, ``all_gather``, ``axis_index``, ...) named an axis that no
    enclosing ``pmap``, ``vmap(axis_name=...)`` or ``shard_map`` binds. A ``NameError``
    as in JAX (and a ``ValueError``: the argument's value is wrong)."""


class AxisTypeError(NotImplementedError):
    """A mesh axis type other than ``AxisType.Auto`` (``Explicit``, ``Manual``) was asked
    for: minijax's meshes propagate shardings through XLA's partitioner only."""


class DistributedError(RuntimeError):
    """Processes of a multi-process computation (``minijax.distributed.initialize``) did
    not meet, or lost one another: a peer that never arrived within
    ``initialization_timeout``, or one that died or stopped answering (heartbeats) while
    the others ran. The message names the process and what to check."""

    #: The message of a lost peer, which ``minijax.distributed``'s watchdog raises in the
    #: main thread asynchronously: Python makes that exception by calling the class with
    #: no arguments, so the message is taken from here, and ``delivered`` says it arrived.
    pending = None
    delivered = None

    def __init__(self, *args):
        if not args and DistributedError.pending is not None:
            args = (DistributedError.pending,)
            if DistributedError.delivered is not None:
                DistributedError.delivered.set()
        super().__init__(*args)
