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


class UnexpectedTracerError(Exception):
    """A traced value escaped the transformation that created it and was used later."""


class NonConcreteBooleanIndexError(ConcretizationTypeError):
    """A traced boolean array was used as an index (the result's shape would depend on it)."""


class HiddenStateInTransformationError(MinijaxTypeError):
    """A stateful host function (``minijax.numpy.random``) was called inside a
    transformation, where its hidden state would be frozen into the trace."""
