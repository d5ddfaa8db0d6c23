"""``minijax.nn``: JAX's neural-network functions (activations, softmax, attention)
and ``minijax.nn.initializers``."""

from . import initializers  # noqa: F401

from .functions import (celu, dot_product_attention, elu, gelu, glu, hard_sigmoid,  # noqa: F401
                        hard_silu, hard_swish, hard_tanh, identity, leaky_relu, log1mexp,
                        log_sigmoid, log_softmax, logmeanexp, logsumexp, mish, one_hot, relu,
                        relu6, selu, sigmoid, silu, soft_sign, softmax, softplus, sparse_plus,
                        sparse_sigmoid, squareplus, standardize, swish, tanh)
