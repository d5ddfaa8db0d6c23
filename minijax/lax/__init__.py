"""``minijax.lax``: the primitive operations every ``minijax.numpy`` function is built on.

Names follow JAX's ``lax`` so that JAX material reads across. Primitives are strict:
operands of binary operations must share shape and dtype (Python scalars excepted).
"""

from .call import jit_p
from .control_flow import cond, cond_p, switch
from .dot import dot, dot_general, dot_general_p
from .precision import Precision
from ._helpers import padtype_to_pads
from .elementwise import (abs, abs_p, add, add_p, ceil, ceil_p, convert_element_type,
                          convert_element_type_p, cos, cos_p, div, div_p, eq, eq_p, exp, exp_p,
                          floor, floor_p, ge, ge_p, gt, gt_p, le, le_p, log, log_p, logistic,
                          logistic_p, lt, lt_p, max, max_p, min, min_p, mul, mul_p, ne, ne_p,
                          neg, neg_p, pow, pow_p, select_n, select_n_p, sign, sign_p, sin, sin_p,
                          sqrt, sqrt_p, stop_gradient, stop_gradient_p, sub, sub_p,
                          tanh, tanh_p)
from .reductions import (reduce_max, reduce_max_p, reduce_min, reduce_min_p, reduce_sum,
                         reduce_sum_p)
from .shapes import (broadcast_in_dim, broadcast_in_dim_p, broadcast_to_shape,
                     broadcasted_iota, expand_dims, full, iota, iota_p, reshape, reshape_p,
                     squeeze, squeeze_p, transpose, transpose_p)


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (elementwise)."""
    return select_n(pred, on_false, on_true)

# issue 3, first additions
from .elementwise import (acos, acos_p, asin, asin_p, asinh, asinh_p, atan, atan2, atan2_p,  # noqa: E402
                          atan_p, atanh, atanh_p, cbrt, cbrt_p, cosh, cosh_p, expm1, expm1_p,
                          is_finite, is_finite_p, log1p, log1p_p, rem, rem_p, rsqrt, rsqrt_p,
                          sinh, sinh_p, tan, tan_p)
from .reductions import reduce_and, reduce_and_p, reduce_or, reduce_or_p  # noqa: E402
from .slicing import rev, rev_p  # noqa: E402

# issue 3, convolution and sorting
from .convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers,  # noqa: E402
                          conv_general_dilated, conv_general_dilated_p,
                          conv_with_general_padding)
from .sorting import sort, sort_key_val, sort_p, top_k, top_k_p  # noqa: E402
# issue 3, reductions
from .reductions import argmax, argmax_p, argmin, argmin_p, reduce_prod, reduce_prod_p  # noqa: E402
from .windowed import (cumlogsumexp, cumlogsumexp_p, cummax, cummax_p, cummin,  # noqa: E402
                       cummin_p, cumprod, cumprod_p, cumsum, cumsum_p,
                       reduce_window, reduce_window_max, reduce_window_max_p,
                       reduce_window_min, reduce_window_min_p, reduce_window_sum,
                       reduce_window_sum_p)
# issue 3, slicing and indexing
from .slicing import (GatherDimensionNumbers, GatherScatterMode,  # noqa: E402
                      ScatterDimensionNumbers, concatenate, concatenate_p, dynamic_index_in_dim,
                      dynamic_slice, dynamic_slice_in_dim, dynamic_slice_p,
                      dynamic_update_index_in_dim, dynamic_update_slice,
                      dynamic_update_slice_in_dim, dynamic_update_slice_p, gather, gather_p,
                      index_in_dim, pad, pad_p, scatter, scatter_add, scatter_add_p, scatter_max,
                      scatter_max_p, scatter_min, scatter_min_p, scatter_mul, scatter_mul_p,
                      scatter_p, slice, slice_in_dim, slice_p)
# issue 3, linear algebra (jax.lax.linalg)
from . import linalg  # noqa: E402
# issue 3, elementwise part B
from .elementwise import (RoundingMethod, acosh, acosh_p, and_p, bitcast_convert_type,  # noqa: E402
                          bitcast_convert_type_p, bitwise_and, bitwise_not, bitwise_or,
                          bitwise_xor, clamp, clamp_p, clz, clz_p, complex, complex_p, conj,
                          conj_p, digamma, digamma_p, erf, erf_inv, erf_inv_p, erf_p, erfc,
                          erfc_p, exp2, exp2_p, imag, imag_p, integer_pow, integer_pow_p,
                          lgamma, lgamma_p, nextafter, nextafter_p, not_p, or_p,
                          population_count, population_count_p, real, real_p, round, round_p,
                          shift_left, shift_left_p, shift_right_arithmetic,
                          shift_right_arithmetic_p, shift_right_logical, shift_right_logical_p,
                          square, square_p, xor_p)
from .elementwise import polygamma, polygamma_p, zeta, zeta_p  # noqa: E402
# issue 3, loops
from .loops import fori_loop, map, scan, scan_p, while_loop, while_p  # noqa: E402
from .conv_transpose import (conv_general_shape_tuple, conv_transpose,  # noqa: E402
                             conv_transpose_shape_tuple, reduce_window_shape_tuple)
