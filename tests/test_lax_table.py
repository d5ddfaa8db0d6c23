"""The primitive table: one row per ``minijax.lax`` primitive, each checked the same way.

For every row and each dtype it supports: the NumPy kernel against the XLA lowering
(eager op-by-op and under ``jit``) on values that include NaN, ±inf, -0.0 and the
integer extremes, and ``vmap`` against a Python loop for every batch axis. For every
differentiable row: JVP and VJP against central finite differences, orders 1 and 2.
``test_every_primitive_has_a_row`` keeps the table complete as primitives are added.
"""

from dataclasses import dataclass

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.core import Primitive
from minijax.test_util import check_grads, check_primitive

F16, BF16 = np.dtype(np.float16), np.dtype(minijax.numpy.bfloat16)
FLOAT = [np.float32, np.float64]
ONE_DEVICE = minijax.NamedSharding(minijax.make_mesh((1,), ("x",), devices=minijax.devices()[:1]),
                                   minijax.P())
SINT = [np.int8, np.int32, np.int64]
UINT = [np.uint8, np.uint32]
INT = SINT + UINT
NUM = FLOAT + INT
ALL = NUM + [np.bool_]

# Higher-order primitives are covered by their own tests (control flow, jit).
# (over jaxprs; tested in test_lax_control_flow.py, test_lax_solves.py, ...)
HIGHER_ORDER = {"cond", "jit", "while", "scan", "custom_linear_solve", "custom_root"}

RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12, F16: 2e-3, BF16: 2e-2,
        np.dtype(np.complex64): 1e-5, np.dtype(np.complex128): 1e-12}


@dataclass
class Row:
    name: str                  # the primitive the row exercises
    fn: callable
    shapes: tuple              # operand shapes
    dtypes: list               # dtypes of the operands (all operands share it)
    grad: tuple = None         # (low, high) of a float64 domain for derivative checks
    vmap_axes: list = None
    grad_order: int = 2
    finite: bool = False       # sample without NaN and ±inf
    loop_vmap: bool = True     # vmap agrees with a loop (rng_bit_generator's does not)
    rtol_factor: float = 1     # XLA's own error for hard special functions
    cuda: bool = True          # lowers for cuda (False: minijax has no GPU kernel for it)

    def __str__(self):
        return self.name


def sample(dtype, shape, seed=0, finite=False):
    """Random values of ``dtype`` with the edge values of its kind planted first."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -50), min(info.max, 50)
        flat = rng.integers(lo, hi, n, endpoint=True).astype(dtype)
        edges = [info.min, info.max, 0, 1] + ([-1] if info.min else [])
    else:
        real = np.float64 if dtype.kind == "c" else dtype
        flat = (rng.standard_normal(n) * 2).astype(real)
        edges = [-0.0, 0.0, 1.0, -1.0, 0.5]
        if not finite:
            edges = [np.nan, np.inf, -np.inf] + edges
        if dtype.kind == "c":
            flat = flat + 1j * (rng.standard_normal(n) * 2)
    k = min(n, len(edges)) if n > 4 else 0
    flat[:k] = np.asarray(edges[:k]).astype(flat.dtype)
    return flat.astype(dtype).reshape(shape)


def grad_sample(low, high, shape, seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def unary(name, dtypes=FLOAT, grad=(-2.0, 2.0), fn=None):
    return Row(name, fn or getattr(lax, name), ((3, 4),), dtypes, grad)


def binary(name, dtypes=NUM, grad=(-2.0, 2.0), fn=None):
    return Row(name, fn or getattr(lax, name), ((3, 4), (3, 4)), dtypes, grad)


# x[rows] and x.at[rows] as gather and scatter (out-of-bounds, duplicate and unique rows).
GATHER_ROWS = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                         start_index_map=(0,))
SCATTER_ROWS = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                           scatter_dims_to_operand_dims=(0,))
ROWS_OOB = np.array([[2], [0], [5], [-1]], np.int32)
ROWS_DUP = np.array([[2], [0], [2]], np.int32)
ROWS_UNIQUE = np.array([[2], [0], [1]], np.int32)

ROWS = [
    # elementwise unary
    unary("neg", NUM), unary("sign", NUM), unary("abs", NUM),
    unary("floor"), unary("ceil"), unary("is_finite", grad=None),
    unary("exp"), unary("log", grad=(0.2, 3.0)), unary("log1p", grad=(-0.5, 3.0)),
    unary("expm1"), unary("tanh"), unary("logistic"),
    unary("sin"), unary("cos"), unary("tan", grad=(-1.0, 1.0)),
    unary("asin", grad=(-0.8, 0.8)), unary("acos", grad=(-0.8, 0.8)), unary("atan"),
    unary("sinh"), unary("cosh"), unary("asinh"), unary("atanh", grad=(-0.8, 0.8)),
    unary("sqrt", grad=(0.2, 3.0)), unary("rsqrt", grad=(0.2, 3.0)), unary("cbrt", grad=(0.2, 3.0)),
    unary("acosh", grad=(1.2, 3.0)), unary("square", NUM), unary("exp2"), unary("erf"), unary("erfc"),
    unary("erf_inv", grad=(-0.8, 0.8), fn=lax.erf_inv),
    Row("lgamma", lax.lgamma, ((3, 4),), FLOAT, (0.5, 3.0), rtol_factor=100), unary("digamma", grad=(0.5, 3.0)),
    Row("round", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), ((3, 4),), FLOAT,
        (-2.0, 2.0)),
    Row("round", lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), ((3, 4),), FLOAT),
    Row("integer_pow", lambda x: lax.integer_pow(x, 3), ((3, 4),), NUM, (-2.0, 2.0)),
    Row("integer_pow", lambda x: lax.integer_pow(x, -2), ((3, 4),), FLOAT, (0.5, 2.0)),
    unary("not", INT + [np.bool_], None, fn=lax.bitwise_not),
    unary("population_count", INT, None), unary("clz", INT, None),
    Row("complex", lambda x, y: lax.imag(lax.mul(lax.complex(x, y), lax.complex(y, y))),
        ((3, 4),) * 2, FLOAT, (-2.0, 2.0)),
    Row("real", lambda x, y: lax.real(lax.complex(x, y)), ((3, 4),) * 2, FLOAT, (-2.0, 2.0)),
    Row("imag", lambda x, y: lax.imag(lax.conj(lax.complex(x, y))), ((3, 4),) * 2, FLOAT,
        (-2.0, 2.0)),
    Row("conj", lambda x, y: lax.imag(lax.conj(lax.complex(x, y))), ((3, 4),) * 2, FLOAT,
        (-2.0, 2.0)),
    Row("bitcast_convert_type", lambda x: lax.bitcast_convert_type(
        x, {1: np.int8, 2: np.uint16, 4: np.uint32, 8: np.int64}[x.dtype.itemsize]),
        ((3, 4),), FLOAT + [np.uint8, np.int32]),
    Row("bitcast_convert_type", lambda x: lax.bitcast_convert_type(x, np.uint16), ((3, 4),),
        [np.float64, np.int32]),
    Row("zeta", lambda q: lax.zeta(lax.full(q.shape, 3.0, q.dtype), q), ((3, 4),), FLOAT,
        (0.5, 3.0)),
    Row("polygamma", lambda x: lax.polygamma(lax.full(x.shape, 1.0, x.dtype), x), ((3, 4),),
        FLOAT, (0.5, 3.0)),
    # incomplete gamma and beta (a second derivative in a or b is not implemented)
    Row("igamma", lax.igamma, ((3, 4),) * 2, FLOAT, (0.5, 3.0), grad_order=1, rtol_factor=10),
    Row("igamma", lambda x: lax.igamma(lax.full(x.shape, 1.7, x.dtype), x), ((3, 4),), FLOAT,
        (0.5, 3.0)),
    Row("igammac", lax.igammac, ((3, 4),) * 2, FLOAT, (0.5, 3.0), grad_order=1, rtol_factor=10),
    Row("igamma_grad_a", lax.igamma_grad_a, ((3, 4),) * 2, FLOAT, rtol_factor=10),
    Row("igamma_grad_a", lambda x: lax.igamma_grad_a(lax.full(x.shape, 2.5, x.dtype), x),
        ((3, 4),), FLOAT, (0.5, 3.0), grad_order=1),
    Row("random_gamma_grad", lax.random_gamma_grad, ((3, 4),) * 2, FLOAT, rtol_factor=10),
    Row("random_gamma_grad", lambda x: lax.random_gamma_grad(lax.full(x.shape, 0.8, x.dtype), x),
        ((3, 4),), FLOAT, (0.5, 3.0), grad_order=1),
    Row("betainc", lax.betainc, ((3, 4),) * 3, FLOAT, rtol_factor=10),
    Row("betainc", lambda x: lax.betainc(lax.full(x.shape, 1.5, x.dtype),
                                         lax.full(x.shape, 2.5, x.dtype), x),
        ((3, 4),), FLOAT, (0.1, 0.9)),
    Row("betainc", lambda a, b: lax.betainc(a, b, lax.full(a.shape, 0.3, a.dtype)),
        ((3, 4),) * 2, FLOAT, (0.5, 3.0), grad_order=1),
    Row("betainc_grad_a", lax.betainc_grad_a, ((3, 4),) * 3, FLOAT, rtol_factor=10),
    Row("betainc_grad_a", lambda x: lax.betainc_grad_a(lax.full(x.shape, 1.5, x.dtype),
                                                       lax.full(x.shape, 2.5, x.dtype), x),
        ((3, 4),), FLOAT, (0.1, 0.9), grad_order=1),
    Row("betainc_grad_b", lax.betainc_grad_b, ((3, 4),) * 3, FLOAT, rtol_factor=10),
    Row("betainc_grad_b", lambda x: lax.betainc_grad_b(lax.full(x.shape, 0.7, x.dtype),
                                                       lax.full(x.shape, 4.0, x.dtype), x),
        ((3, 4),), FLOAT, (0.1, 0.9), grad_order=1),
    # elementwise binary
    binary("add"), binary("sub"), binary("mul"), binary("div", grad=(0.5, 2.0)),
    binary("rem", grad=(0.5, 2.0)), binary("pow", FLOAT, grad=(0.5, 2.0)),
    binary("max", ALL), binary("min", ALL), binary("atan2", FLOAT),
    binary("and", INT + [np.bool_], None, lax.bitwise_and),
    binary("or", INT + [np.bool_], None, lax.bitwise_or),
    binary("xor", INT + [np.bool_], None, lax.bitwise_xor),
    binary("shift_left", INT, None), binary("shift_right_logical", INT, None),
    binary("shift_right_arithmetic", INT, None), binary("nextafter", FLOAT, None),
    Row("clamp", lax.clamp, ((3, 4),) * 3, NUM, (-2.0, 2.0)),
    binary("eq", ALL, None), binary("ne", ALL, None), binary("lt", ALL, None),
    binary("le", ALL, None), binary("gt", ALL, None), binary("ge", ALL, None),
    Row("select_n", lambda p, x, y: lax.select_n(lax.gt(p, x), x, y), ((3, 4),) * 3, NUM,
        (-2.0, 2.0)),
    Row("convert_element_type", lambda x: lax.convert_element_type(
        x, np.float64 if x.dtype == np.float32 else np.float32), ((3, 4),),
        FLOAT + [np.int32, np.bool_], (-2.0, 2.0)),
    Row("stop_gradient", lambda x: lax.stop_gradient(x) * x, ((3, 4),), FLOAT),
    Row("optimization_barrier", lambda x, y: lax.optimization_barrier((x, y))[1] * x,
        ((3, 4),) * 2, ALL, (-2.0, 2.0)),
    # a replicated layout on a one-device mesh: the value is unchanged, the layout moves
    Row("sharding_constraint", lambda x: lax.with_sharding_constraint(x, ONE_DEVICE) * 2,
        ((3, 4),), ALL, (-2.0, 2.0)),
    # shapes
    Row("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), ((3, 4),),
        ALL, (-2.0, 2.0)),
    Row("reshape", lambda x: lax.reshape(x, (2, 6)), ((3, 4),), ALL, (-2.0, 2.0)),
    Row("transpose", lambda x: lax.transpose(x, (1, 0)), ((3, 4),), ALL, (-2.0, 2.0)),
    Row("squeeze", lambda x: lax.squeeze(x, (1,)), ((3, 1, 4),), ALL, (-2.0, 2.0)),
    Row("iota", lambda x: lax.broadcasted_iota(np.int32, (2, 3), 1) + x, ((2, 3),),
        [np.int32]),
    Row("rev", lambda x: lax.rev(x, (0,)), ((3, 4),), ALL, (-2.0, 2.0)),
    # slicing and indexing
    Row("pad", lambda x: lax.pad(x, lax.full((), 1, x.dtype), ((1, -1, 1), (0, 2, 0))),
        ((3, 4),), ALL, (-2.0, 2.0)),
    Row("concatenate", lambda x, y: lax.concatenate([x, y], 1), ((3, 4), (3, 2)), ALL,
        (-2.0, 2.0)),
    Row("slice", lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)), ((3, 4),), ALL, (-2.0, 2.0)),
    Row("dynamic_slice", lambda x: lax.dynamic_slice(x, (1, 3), (2, 2)), ((3, 4),), ALL,
        (-2.0, 2.0)),
    Row("dynamic_update_slice", lambda x, u: lax.dynamic_update_slice(x, u, (2, 1)),
        ((3, 4), (2, 2)), ALL, (-2.0, 2.0)),
    Row("gather", lambda x: lax.gather(x, ROWS_OOB, GATHER_ROWS, (1, 4), mode="clip"),
        ((3, 4),), ALL, (-2.0, 2.0)),
    Row("scatter", lambda x, u: lax.scatter(x, ROWS_UNIQUE, u, SCATTER_ROWS,
                                            unique_indices=True), ((3, 4), (3, 4)), ALL,
        (-2.0, 2.0)),
    Row("scatter_add", lambda x, u: lax.scatter_add(x, ROWS_DUP, u, SCATTER_ROWS),
        ((3, 4), (3, 4)), NUM, (-2.0, 2.0)),
    Row("scatter_mul", lambda x, u: lax.scatter_mul(x, ROWS_UNIQUE, u, SCATTER_ROWS,
                                                    unique_indices=True),
        ((3, 4), (3, 4)), NUM, (-2.0, 2.0)),
    Row("scatter_min", lambda x, u: lax.scatter_min(x, ROWS_DUP, u, SCATTER_ROWS),
        ((3, 4), (3, 4)), ALL, (-2.0, 2.0)),
    Row("scatter_max", lambda x, u: lax.scatter_max(x, ROWS_DUP, u, SCATTER_ROWS),
        ((3, 4), (3, 4)), ALL, (-2.0, 2.0)),
    # reductions
    Row("reduce_sum", lambda x: lax.reduce_sum(x, (1,)), ((3, 4),), NUM, (-2.0, 2.0)),
    Row("reduce_max", lambda x: lax.reduce_max(x, (0,)), ((3, 4),), ALL, (-2.0, 2.0)),
    Row("reduce_min", lambda x: lax.reduce_min(x, (0, 1)), ((3, 4),), ALL, (-2.0, 2.0)),
    Row("reduce_and", lambda x: lax.reduce_and(x, (1,)), ((3, 4),), INT + [np.bool_]),
    Row("reduce_or", lambda x: lax.reduce_or(x, (1,)), ((3, 4),), INT + [np.bool_]),
    Row("reduce_prod", lambda x: lax.reduce_prod(x, (1,)), ((3, 4),), NUM, (-2.0, 2.0)),
    Row("argmax", lambda x: lax.argmax(x, 1, np.int32), ((3, 4),), ALL),
    Row("argmin", lambda x: lax.argmin(x, 0, np.int64), ((3, 4),), ALL),
    Row("cumsum", lambda x: lax.cumsum(x, 1), ((3, 4),), NUM, (-2.0, 2.0)),
    Row("cumprod", lambda x: lax.cumprod(x, 1, reverse=True), ((3, 4),), NUM, (-2.0, 2.0)),
    Row("cummax", lambda x: lax.cummax(x, 0), ((3, 4),), ALL, (-2.0, 2.0)),
    Row("cummin", lambda x: lax.cummin(x, 1), ((3, 4),), ALL, (-2.0, 2.0)),
    Row("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 1), ((3, 4),), FLOAT, (-2.0, 2.0)),
    Row("reduce_window_sum", lambda x: lax.reduce_window_sum(x, (2, 2), (1, 2), "SAME"),
        ((3, 4),), NUM, (-2.0, 2.0)),
    Row("reduce_window_max", lambda x: lax.reduce_window_max(x, (2, 3), (1, 1), "VALID"),
        ((3, 4),), ALL, (-2.0, 2.0)),
    Row("reduce_window_min", lambda x: lax.reduce_window_min(x, (2, 2), (2, 1),
                                                             ((1, 0), (0, 1))),
        ((3, 4),), ALL, (-2.0, 2.0)),
    # sorting
    Row("sort", lambda x, y: lax.sort((x, y), dimension=1, num_keys=1), ((3, 4), (3, 4)),
        ALL, (-2.0, 2.0)),
    Row("top_k", lambda x: lax.top_k(x, 2), ((3, 4),), NUM, (-2.0, 2.0)),
    # contractions
    Row("dot_general", lambda x, y: lax.dot_general(x, y, (((2,), (2,)), ((0,), (0,)))),
        ((2, 3, 4), (2, 5, 4)), FLOAT + [np.int32], (-2.0, 2.0)),
    Row("conv_general_dilated", lambda x, k: lax.conv_general_dilated(
        x, k, (2, 1), ((1, 0), (0, 1)), lhs_dilation=(1, 2), rhs_dilation=(2, 1),
        dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2),
        # Infinite weights next to padding or dilation holes give NaN or not depending on
        # XLA's kernel choice (float64 skips the holes, float32 multiplies the zeros).
        ((2, 5, 4, 4), (2, 2, 2, 6)), FLOAT, (-2.0, 2.0), finite=True),
    # linear algebra; factors unique only up to signs enter through sign-free functions
    Row("cholesky", lambda x: lax.linalg.cholesky(_spd(x)), ((3, 3),), FLOAT, (-2.0, 2.0),
        finite=True),
    Row("triangular_solve", lambda a, b: lax.linalg.triangular_solve(
        _spd(a), b, left_side=True, lower=True), ((3, 3), (3, 2)), FLOAT, (-2.0, 2.0),
        finite=True),
    Row("lu", lambda x: lax.linalg.lu(x), ((4, 4),), FLOAT, (-2.0, 2.0), finite=True),
    Row("lu_pivots_to_permutation", lambda p: lax.linalg.lu_pivots_to_permutation(
        lax.rem(lax.abs(p), lax.full(p.shape, 4, p.dtype)), 5), ((4,),), [np.int32]),
    Row("qr", lambda x: [y * y for y in lax.linalg.qr(x, full_matrices=False)], ((4, 3),),
        FLOAT, (-2.0, 2.0), finite=True),
    Row("geqrf", lambda x: [y * 1 for y in lax.linalg.geqrf(x)], ((4, 3),), FLOAT,
        finite=True),
    Row("svd", lambda x: lax.linalg.svd(x, compute_uv=False), ((3, 4),), FLOAT, (-2.0, 2.0),
        finite=True),
    Row("svd", lambda x: lax.linalg.svd(x, compute_uv=False, algorithm=lax.linalg.SvdAlgorithm.QR),
        ((4, 3),), FLOAT, (-2.0, 2.0), finite=True),
    Row("eigh", lambda x: [y * y for y in lax.linalg.eigh(_spd(x))], ((3, 3),), FLOAT,
        (-2.0, 2.0), finite=True),
    Row("eig", lambda x: _parts(lax.linalg.eig(x, compute_left_eigenvectors=False,
                                             compute_right_eigenvectors=False)[0]),
        ((3, 3),), FLOAT, (-2.0, 2.0), finite=True),
    Row("tridiagonal_solve", lambda dl, d, du, b: lax.linalg.tridiagonal_solve(
        dl, lax.add(d, lax.full(d.shape, 8, d.dtype)), du, b), ((4,), (4,), (4,), (4, 2)),
        FLOAT, (-2.0, 2.0), finite=True),
    Row("tridiagonal_solve", lambda dl, d, du, b: lax.linalg.tridiagonal_solve(
        dl, lax.add(d, lax.full(d.shape, 8, d.dtype)), du, b, perturb_singular=True),
        ((4,), (4,), (4,), (4, 2)), FLOAT, (-2.0, 2.0), finite=True, cuda=False),
    Row("householder_product", lambda a, t: lax.linalg.householder_product(a, t),
        ((4, 3), (2,)), FLOAT, finite=True),
    Row("hessenberg", lambda a: lax.linalg.hessenberg(a), ((4, 4),), FLOAT, finite=True),
    Row("tridiagonal", lambda a: lax.linalg.tridiagonal(a, lower=False), ((4, 4),), FLOAT,
        finite=True),
    # no derivative (JAX has none) and no NumPy kernel: eager runs the LAPACK lowering too
    Row("schur", lambda x: lax.linalg.schur(x), ((4, 4),), FLOAT, finite=True),
    # XLA's bits, no NumPy kernel (eager compiles the lowering); its vmap is JAX's (the
    # first key draws the batch's bits), checked against JAX in test_random_impls.py
    Row("rng_bit_generator", lambda k: lax.rng_bit_generator(k, (3, 5), np.uint8),
        ((4,),), [np.uint32], loop_vmap=False),
    Row("rng_bit_generator", lambda k: lax.rng_bit_generator(
        k, (4,), np.uint64, lax.RandomAlgorithm.RNG_THREE_FRY), ((2,),), [np.uint64],
        loop_vmap=False),
    # Fourier transforms, on complex operands built from two real ones
    Row("fft", lambda x, y: _parts(lax.fft(lax.complex(x, y), "FFT", (4,))), ((3, 4),) * 2,
        FLOAT, (-2.0, 2.0), finite=True),
    Row("fft", lambda x, y: _parts(lax.fft(lax.complex(x, y), "IFFT", (3, 4))),
        ((2, 3, 4),) * 2, FLOAT, (-2.0, 2.0), finite=True),
    Row("fft", lambda x: _parts(lax.fft(x, "RFFT", (3, 4))), ((2, 3, 4),), FLOAT, (-2.0, 2.0),
        finite=True),
    Row("fft", lambda x, y: lax.fft(lax.complex(x, y), "IRFFT", (3, 4)), ((2, 3, 3),) * 2,
        FLOAT, (-2.0, 2.0), finite=True),
    Row("fft", lambda x, y: lax.fft(lax.complex(x, y), "IRFFT", (2, 5)), ((2, 2, 3),) * 2,
        FLOAT, (-2.0, 2.0), finite=True),
]


def _parts(z):
    return [lax.real(z), lax.imag(z)]


def _spd(x):
    """A symmetric positive definite matrix made from ``x``."""
    n = x.shape[-1]
    gram = lax.dot_general(x, x, (((1,), (1,)), ((), ())))
    return lax.add(gram, lax.mul(lax.convert_element_type(
        lax.eq(lax.broadcasted_iota(np.int32, (n, n), 0),
               lax.broadcasted_iota(np.int32, (n, n), 1)), x.dtype), float(n)))


def _cases():
    for row in ROWS:
        for dtype in row.dtypes:
            yield pytest.param(row, np.dtype(dtype), id=f"{row.name}-{np.dtype(dtype).name}")


@pytest.mark.parametrize("row,dtype", list(_cases()))
def test_kernels_agree(row, dtype):
    args = [sample(dtype, s, seed=i, finite=row.finite) for i, s in enumerate(row.shapes)]
    rtol = RTOL.get(dtype, 0) * row.rtol_factor
    with np.errstate(all="ignore"):
        check_primitive(row.fn, args, rtol=rtol, atol=rtol * 1e-3, vmap_axes=row.vmap_axes,
                        batch_size=3 if row.loop_vmap else 0)


@pytest.mark.parametrize("row", [r for r in ROWS if r.grad], ids=str)
def test_derivatives(row):
    args = [grad_sample(*row.grad, s, seed=i) for i, s in enumerate(row.shapes)]
    check_grads(row.fn, args, order=row.grad_order)


@pytest.mark.parametrize("row", [r for r in ROWS if r.grad and np.float32 in r.dtypes], ids=str)
def test_float32_derivatives(row):
    # float32 rules (and the float32 kernels they call) at float32's own tolerance
    args = [grad_sample(*row.grad, s, seed=i).astype(np.float32)
            for i, s in enumerate(row.shapes)]
    check_grads(row.fn, args, order=1)


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_row_binds_its_primitive(row):
    args = [sample(row.dtypes[0], s, seed=i) for i, s in enumerate(row.shapes)]
    jaxpr = minijax.make_jaxpr(row.fn)(*args)
    assert row.name in {e.primitive.name for e in jaxpr.jaxpr.eqns}, str(jaxpr)


def test_every_primitive_has_a_row():
    namespace = {**vars(lax), **vars(lax.linalg)}
    primitives = {v.name for v in namespace.values() if isinstance(v, Primitive)}
    missing = primitives - HIGHER_ORDER - {r.name for r in ROWS}
    assert not missing, f"primitives without a row in the table: {sorted(missing)}"
