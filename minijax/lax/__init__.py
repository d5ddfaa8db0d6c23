"""``minijax.lax``: the primitive operations every ``minijax.numpy`` function is built on.

Names follow JAX's ``lax`` so that JAX material reads across. Primitives are strict:
operands of binary operations must share shape and dtype (Python scalars excepted).
One import block per topic; ``linalg`` is the ``jax.lax.linalg`` namespace.
"""


# Elementwise: arithmetic, powers and rounding
# Linear algebra (jax.lax.linalg)
from . import linalg

# Padding helper shared with minijax.numpy
from ._helpers import (
    padtype_to_pads,
)

# Calls
from .call import (
    jit_p,
)

# Sharding
from .sharding import (
    sharding_constraint_p,
    with_sharding_constraint,
)

# Collectives over named axes (shard_map, pmap); their primitives are in lax.parallel and
# lax.shard_map (they run only inside a shard_map body, not as rows of the primitive table)
from .parallel import (
    all_gather,
    all_to_all,
    axis_index,
    axis_size,
    pmax,
    pmean,
    pmin,
    ppermute,
    psum,
    psum_scatter,
)

# Control flow
from .control_flow import (
    cond,
    cond_p,
    switch,
)

# Convolution
from .convolution import (
    ConvDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_dilated_p,
    conv_with_general_padding,
)
from .conv_transpose import (
    conv_general_shape_tuple,
    conv_transpose,
    conv_transpose_shape_tuple,
    reduce_window_shape_tuple,
)

# Contractions
from .dot import (
    dot,
    dot_general,
    dot_general_p,
)
from .precision import Precision

# Elementwise: comparison and selection
# Elementwise: exponential and logarithmic
# Elementwise: trigonometric and hyperbolic
# Elementwise: special functions
# Elementwise: bitwise operations and shifts
# Elementwise: conversions and stop_gradient
# Elementwise: complex parts
from .elementwise import (
    RoundingMethod,
    abs,
    abs_p,
    acos,
    acos_p,
    acosh,
    acosh_p,
    add,
    add_p,
    and_p,
    asin,
    asin_p,
    asinh,
    asinh_p,
    atan,
    atan2,
    atan2_p,
    atan_p,
    atanh,
    atanh_p,
    bitcast_convert_type,
    bitcast_convert_type_p,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    cbrt,
    cbrt_p,
    ceil,
    ceil_p,
    clamp,
    clamp_p,
    clz,
    clz_p,
    complex,
    complex_p,
    conj,
    conj_p,
    convert_element_type,
    convert_element_type_p,
    cos,
    cos_p,
    cosh,
    cosh_p,
    digamma,
    digamma_p,
    div,
    div_p,
    eq,
    eq_p,
    erf,
    erf_inv,
    erf_inv_p,
    erf_p,
    erfc,
    erfc_p,
    exp,
    exp2,
    exp2_p,
    exp_p,
    expm1,
    expm1_p,
    floor,
    floor_p,
    ge,
    ge_p,
    gt,
    gt_p,
    imag,
    imag_p,
    integer_pow,
    integer_pow_p,
    is_finite,
    is_finite_p,
    le,
    le_p,
    lgamma,
    lgamma_p,
    log,
    log1p,
    log1p_p,
    log_p,
    logistic,
    logistic_p,
    lt,
    lt_p,
    max,
    max_p,
    min,
    min_p,
    mul,
    mul_p,
    ne,
    ne_p,
    neg,
    neg_p,
    nextafter,
    nextafter_p,
    not_p,
    or_p,
    polygamma,
    polygamma_p,
    population_count,
    population_count_p,
    pow,
    pow_p,
    real,
    real_p,
    rem,
    rem_p,
    round,
    round_p,
    rsqrt,
    rsqrt_p,
    select,
    select_n,
    select_n_p,
    shift_left,
    shift_left_p,
    shift_right_arithmetic,
    shift_right_arithmetic_p,
    shift_right_logical,
    shift_right_logical_p,
    sign,
    sign_p,
    sin,
    sin_p,
    sinh,
    sinh_p,
    sqrt,
    sqrt_p,
    square,
    square_p,
    optimization_barrier,
    optimization_barrier_p,
    stop_gradient,
    stop_gradient_p,
    sub,
    sub_p,
    tan,
    tan_p,
    tanh,
    tanh_p,
    xor_p,
    zeta,
    zeta_p,
)

# Loops
from .associative_scan import associative_scan
from .solves import custom_linear_solve, custom_root, linear_solve_p, root_p
from .derived import (batch_matmul, broadcast, broadcast_shapes, broadcast_to_rank, collapse,
                      conv_general_dilated_patches, conv_general_permutations, conv_shape_tuple,
                      dtype, empty, full_like, index_take, mulhi, reciprocal, reduce, reduce_xor,
                      scatter_sub, stack, tile, unstack)
from .loops import (
    fori_loop,
    map,
    scan,
    scan_p,
    while_loop,
    while_p,
)

# Reductions
from .reductions import (
    argmax,
    argmax_p,
    argmin,
    argmin_p,
    reduce_and,
    reduce_and_p,
    reduce_max,
    reduce_max_p,
    reduce_min,
    reduce_min_p,
    reduce_or,
    reduce_or_p,
    reduce_prod,
    reduce_prod_p,
    reduce_sum,
    reduce_sum_p,
)

# Shapes: broadcasting, reshaping, iota
from .shapes import (
    broadcast_in_dim,
    broadcast_in_dim_p,
    broadcast_to_shape,
    broadcasted_iota,
    expand_dims,
    full,
    iota,
    iota_p,
    reshape,
    reshape_p,
    squeeze,
    squeeze_p,
    transpose,
    transpose_p,
)

# Slicing, gather and scatter
from .slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    concatenate,
    concatenate_p,
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_slice_p,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    dynamic_update_slice_p,
    gather,
    gather_p,
    index_in_dim,
    pad,
    pad_p,
    rev,
    rev_p,
    scatter,
    scatter_add,
    scatter_add_p,
    scatter_max,
    scatter_max_p,
    scatter_min,
    scatter_min_p,
    scatter_mul,
    scatter_mul_p,
    scatter_p,
    slice,
    slice_in_dim,
    split,
    slice_p,
)

# Sorting
from .sorting import (
    sort,
    sort_key_val,
    sort_p,
    top_k,
    top_k_p,
)

# Windowed reductions and cumulative scans
from .windowed import (
    cumlogsumexp,
    cumlogsumexp_p,
    cummax,
    cummax_p,
    cummin,
    cummin_p,
    cumprod,
    cumprod_p,
    cumsum,
    cumsum_p,
    reduce_window,
    reduce_window_max,
    reduce_window_max_p,
    reduce_window_min,
    reduce_window_min_p,
    reduce_window_sum,
    reduce_window_sum_p,
)

__all__ = [
    "abs", "abs_p", "add", "add_p", "cbrt", "cbrt_p", "ceil", "ceil_p", "div", "div_p",
    "floor", "floor_p", "integer_pow", "integer_pow_p", "max", "max_p", "min", "min_p", "mul",
    "mul_p", "neg", "neg_p", "nextafter", "nextafter_p", "pow", "pow_p", "rem", "rem_p",
    "round", "round_p", "RoundingMethod", "rsqrt", "rsqrt_p", "sign", "sign_p", "sqrt",
    "sqrt_p", "square", "square_p", "sub", "sub_p", "clamp", "clamp_p", "eq", "eq_p", "ge",
    "ge_p", "gt", "gt_p", "is_finite", "is_finite_p", "le", "le_p", "lt", "lt_p", "ne", "ne_p",
    "select", "select_n", "select_n_p", "exp", "exp2", "exp2_p", "exp_p", "expm1", "expm1_p",
    "log", "log1p", "log1p_p", "log_p", "logistic", "logistic_p", "acos", "acos_p", "acosh",
    "acosh_p", "asin", "asin_p", "asinh", "asinh_p", "atan", "atan2", "atan2_p", "atan_p",
    "atanh", "atanh_p", "cos", "cos_p", "cosh", "cosh_p", "sin", "sin_p", "sinh", "sinh_p",
    "tan", "tan_p", "tanh", "tanh_p", "digamma", "digamma_p", "erf", "erf_inv", "erf_inv_p",
    "erf_p", "erfc", "erfc_p", "lgamma", "lgamma_p", "polygamma", "polygamma_p", "zeta",
    "zeta_p", "and_p", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "clz",
    "clz_p", "not_p", "or_p", "population_count", "population_count_p", "shift_left",
    "shift_left_p", "shift_right_arithmetic", "shift_right_arithmetic_p",
    "shift_right_logical", "shift_right_logical_p", "xor_p", "bitcast_convert_type",
    "bitcast_convert_type_p", "convert_element_type", "convert_element_type_p",
    "stop_gradient", "stop_gradient_p", "optimization_barrier", "optimization_barrier_p",
    "complex", "complex_p", "conj", "conj_p", "imag",
    "imag_p", "real", "real_p", "broadcast_in_dim", "broadcast_in_dim_p", "broadcast_to_shape",
    "broadcasted_iota", "expand_dims", "full", "iota", "iota_p", "reshape", "reshape_p",
    "squeeze", "squeeze_p", "transpose", "transpose_p", "concatenate", "concatenate_p",
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_slice_p",
    "dynamic_update_index_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim",
    "dynamic_update_slice_p", "gather", "gather_p", "GatherDimensionNumbers",
    "GatherScatterMode", "index_in_dim", "pad", "pad_p", "rev", "rev_p", "scatter",
    "scatter_add", "scatter_add_p", "scatter_max", "scatter_max_p", "scatter_min",
    "scatter_min_p", "scatter_mul", "scatter_mul_p", "scatter_p", "ScatterDimensionNumbers",
    "slice", "slice_in_dim", "slice_p", "split", "argmax", "argmax_p", "argmin", "argmin_p",
    "reduce_and", "reduce_and_p", "reduce_max", "reduce_max_p", "reduce_min", "reduce_min_p",
    "reduce_or", "reduce_or_p", "reduce_prod", "reduce_prod_p", "reduce_sum", "reduce_sum_p",
    "cumlogsumexp", "cumlogsumexp_p", "cummax", "cummax_p", "cummin", "cummin_p", "cumprod",
    "cumprod_p", "cumsum", "cumsum_p", "reduce_window", "reduce_window_max",
    "reduce_window_max_p", "reduce_window_min", "reduce_window_min_p", "reduce_window_sum",
    "reduce_window_sum_p", "dot_general", "dot_general_p", "conv", "conv_dimension_numbers",
    "conv_general_dilated", "conv_general_dilated_p", "conv_with_general_padding",
    "ConvDimensionNumbers", "conv_general_shape_tuple", "conv_transpose",
    "conv_transpose_shape_tuple", "reduce_window_shape_tuple", "dot", "Precision", "sort", "sort_key_val", "sort_p", "top_k", "top_k_p", "cond",
    "cond_p", "switch", "fori_loop", "map", "scan", "scan_p", "associative_scan", "custom_linear_solve", "custom_root", "linear_solve_p", "root_p", "batch_matmul", "broadcast", "broadcast_shapes", "broadcast_to_rank", "collapse", "conv_general_dilated_patches", "conv_general_permutations", "conv_shape_tuple", "dtype", "empty", "full_like", "index_take", "mulhi", "reciprocal", "reduce", "reduce_xor", "scatter_sub", "stack", "tile", "unstack", "while_loop", "while_p", "jit_p",
    "sharding_constraint_p", "with_sharding_constraint",
    "all_gather", "all_to_all", "axis_index", "axis_size", "pmax", "pmean", "pmin",
    "ppermute", "psum", "psum_scatter",
    "padtype_to_pads", "linalg",
    "fft", "fft_p", "FftType",
    "RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p",
    "betainc", "betainc_grad_a", "betainc_grad_a_p", "betainc_grad_b", "betainc_grad_b_p",
    "betainc_p", "igamma", "igamma_grad_a", "igamma_grad_a_p", "igamma_p", "igammac",
    "igammac_p", "random_gamma_grad", "random_gamma_grad_p",
    "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e",
]

# Fourier transforms
from .fft import FftType, fft, fft_p  # noqa: E402


# Incomplete gamma and beta functions
from .incomplete import (
    betainc,
    betainc_grad_a,
    betainc_grad_a_p,
    betainc_grad_b,
    betainc_grad_b_p,
    betainc_p,
    igamma,
    igamma_grad_a,
    igamma_grad_a_p,
    igamma_p,
    igammac,
    igammac_p,
    random_gamma_grad,
    random_gamma_grad_p,
)

# Modified Bessel functions of orders 0 and 1 (lax compositions)
from .bessel import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e  # noqa: E402

# XLA's bit generator
from .rng import RandomAlgorithm, rng_bit_generator, rng_bit_generator_p  # noqa: E402


from ..util import name_functions_where_public as _name_functions_where_public  # noqa: E402

_name_functions_where_public(globals())   # (pickle finds each function by its name here)
