"""``minijax.numpy``: NumPy's API on minijax arrays, traceable by every transformation.

``import minijax.numpy as np`` in NumPy code; results follow NumPy 2's values and
dtypes (float64 by default, NEP 50 promotion of Python scalars).
"""

import numpy as _np

from .. import dtypes as _dtypes
from ..runtime.array import Array
from . import _operators  # noqa: F401  (installs operators on Array and tracers)
from ._creation import (arange, array, asarray, empty, empty_like, eye, full, full_like,
                        linspace, ones, ones_like, zeros, zeros_like)
from ._elementwise import (abs, absolute, add, ceil, clip, cos, divide, equal, exp, floor,
                           greater, greater_equal, isfinite, isinf, isnan, less, less_equal, log,
                           logical_and, logical_not, logical_or, logical_xor, maximum, minimum,
                           multiply, negative, not_equal, positive, power, reciprocal, sign, sin,
                           sqrt, square, subtract, tanh, true_divide, where)
from ._info import (__array_api_version__, __array_namespace_info__, can_cast, finfo, iinfo,
                    isdtype)
from ._linalg import dot, inner, matmul, outer, tensordot, vdot
from ._manipulation import (atleast_1d, atleast_2d, broadcast_to, expand_dims, moveaxis, ndim,
                            permute_dims, ravel, reshape, shape, size, squeeze, swapaxes,
                            transpose)
from ._reductions import all, amax, amin, any, max, mean, min, nonzero, sum

# issue 3: the wider NumPy / Array API namespace
from ._reductions import (argmax, argmin, count_nonzero, cumprod, cumsum, cumulative_prod,
                          cumulative_sum, prod, ptp)
from ._sorting import (argpartition, argsort, argwhere, flatnonzero, partition, searchsorted,
                       sort, unique, unique_all, unique_counts, unique_inverse, unique_values)
from ._statistics import (average, median, nanmax, nanmean, nanmedian, nanmin,
                          nanpercentile, nanprod, nanquantile, nanstd, nansum, nanvar,
                          percentile, quantile, std, var)
from ._ufuncs import (acos, acosh, allclose, arccos, arccosh, arcsin, arcsinh, arctan,
                      arctan2, arctanh, array_equal, array_equiv, asin, asinh, atan, atan2,
                      atanh, cbrt, conj, conjugate, copysign, cosh, deg2rad, degrees, divmod,
                      exp2, expm1, fix, float_power, floor_divide, fmax, fmin, fmod, heaviside,
                      hypot, iscomplex, iscomplexobj, isclose, isneginf, isposinf, isreal,
                      isrealobj, log1p, log2, log10, logaddexp, logaddexp2, mod, nan_to_num,
                      rad2deg, radians, remainder, signbit, sinc, sinh, tan, trunc)

from ._manipulation import (array_split, astype, atleast_3d, broadcast_arrays, column_stack,
                            concat, concatenate, copy, diag, diagonal, diff, dsplit, dstack, flip,
                            fliplr, flipud, hsplit, hstack, indices, matrix_transpose, meshgrid,
                            pad, repeat, roll, rot90, row_stack, split, stack, tile, trace, tri,
                            tril, triu, unstack, vsplit, vstack)
from ._products import cross, einsum, kron
from .linalg import vecdot
from ._creation import from_dlpack  # noqa: E402
from ._extras import (append, bincount, convolve, corrcoef, correlate, cov,  # noqa: E402
                      geomspace, interp, intersect1d, isin, logspace, nanargmax, nanargmin,
                      setdiff1d, setxor1d, union1d)
from . import _methods  # noqa: F401,E402  (more operators and methods on arrays)
from ._ufuncs import (angle, around, bitwise_and, bitwise_count, bitwise_invert,  # noqa: F811
                      bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift,
                      bitwise_xor, clip, imag, invert, left_shift, nextafter, real, right_shift,
                      rint, round)

pow = power


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to."""
    from ._core import broadcast_shapes as _bs
    return tuple(_bs(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes],
                     name="shapes"))


def identity(n, dtype=None):
    """The ``n`` by ``n`` identity matrix."""
    return eye(n, dtype=dtype)

ndarray = Array

bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
bfloat16 = _dtypes.bfloat16.type
dtype = _np.dtype

pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives for these arrays, scalars or dtypes."""
    from ._core import result_type_of
    entries = [a if not isinstance(a, (_np.dtype, type)) else
               Array._from_host(_np.zeros((), _dtypes.canonicalize(a)),
                                __import__("minijax").core.ShapedArray((), _dtypes.canonicalize(a)))
               for a in arrays_and_dtypes]
    return result_type_of(*entries)[0]

from . import linalg  # noqa: E402
# indexing
from ._indexing import (choose, compress, diag_indices, diag_indices_from, extract, ix_,  # noqa: E402
                        place, put, put_along_axis, ravel_multi_index, select, take,
                        take_along_axis, tril_indices, tril_indices_from, triu_indices,
                        triu_indices_from, unravel_index)
from . import random  # noqa: E402,F401  (NumPy's generators, on the host)
