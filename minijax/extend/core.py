"""Primitives, abstract values and jaxprs (``jax.extend.core``)."""

from ..core import (ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Primitive, ShapedArray, Var,
                    eval_jaxpr, jaxpr_as_fun)
from ..core.avals import get_aval

__all__ = ["ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Primitive", "ShapedArray", "Var",
           "eval_jaxpr", "get_aval", "jaxpr_as_fun"]
