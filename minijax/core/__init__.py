"""The tracing core: primitives, the trace stack, abstract values and jaxprs.

It knows nothing of NumPy's function set or of XLA.
"""

from .avals import ShapedArray, get_aval, same_type, short_dtype_name
from .jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprType, JaxprTypeError, Literal, Var,
                    eval_jaxpr, jaxpr_as_fun, pp_jaxpr, typecheck_jaxpr)
from .primitive import Primitive
from .trace import (MainTrace, Trace, Tracer, bind, concretization_error, eager, find_top_trace,
                    full_lower, full_raise, get_concrete, new_base_main, new_main, numpy_eager,
                    set_eval_trace, state)

__all__ = ["ClosedJaxpr", "Jaxpr", "JaxprEqn", "JaxprType", "JaxprTypeError", "Literal",
           "MainTrace", "Primitive", "ShapedArray", "Trace", "Tracer", "Var", "bind",
           "concretization_error", "eager", "numpy_eager",
           "eval_jaxpr", "find_top_trace", "full_lower", "full_raise", "get_aval",
           "get_concrete", "jaxpr_as_fun", "new_base_main", "new_main", "pp_jaxpr", "same_type",
           "set_eval_trace", "short_dtype_name", "state", "typecheck_jaxpr"]
