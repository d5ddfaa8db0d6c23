"""``minijax.numpy``: NumPy's API on minijax arrays, traceable by every transformation.

``import minijax.numpy as np`` in NumPy code; results follow NumPy 2's values and
dtypes (float64 by default, NEP 50 promotion of Python scalars).  One import block per
chapter of the Array API standard (in the standard's order), then NumPy-only chapters.
"""

from ..runtime.array import Array as ndarray
from ..runtime.numpy_dispatch import host_of as _host_of

# The linalg extension (minijax.numpy.linalg)
# Operators and methods on Array and tracers (installed on import)
from . import _operators, linalg  # noqa: F401  (_operators installs operators on arrays)
from . import random  # noqa: F401  (NumPy's random generators, on the host)

# Constants
from ._constants import (
    e,
    inf,
    nan,
    newaxis,
    pi,
)

# Creation functions
from ._creation import (
    arange,
    array,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    geomspace,
    identity,
    indices,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    tril,
    triu,
    zeros,
    zeros_like,
)

# Data types, data type functions and inspection
from ._data_types import (
    __array_api_version__,
    __array_namespace_info__,
    astype,
    bfloat16,
    bool_,
    can_cast,
    complex64,
    complex128,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    result_type,
    uint8,
    uint16,
    uint32,
    uint64,
)

# Element-wise functions
from ._elementwise import (
    abs,
    absolute,
    acos,
    acosh,
    add,
    allclose,
    angle,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    around,
    array_equal,
    array_equiv,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_count,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    cbrt,
    ceil,
    clip,
    conj,
    conjugate,
    copysign,
    cos,
    cosh,
    deg2rad,
    degrees,
    divide,
    divmod,
    equal,
    exp,
    exp2,
    expm1,
    fix,
    float_power,
    floor,
    floor_divide,
    fmax,
    fmin,
    fmod,
    greater,
    greater_equal,
    heaviside,
    hypot,
    imag,
    invert,
    isclose,
    iscomplex,
    iscomplexobj,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    isreal,
    isrealobj,
    left_shift,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    nan_to_num,
    negative,
    nextafter,
    not_equal,
    positive,
    pow,
    power,
    rad2deg,
    radians,
    real,
    reciprocal,
    remainder,
    right_shift,
    rint,
    round,
    sign,
    signbit,
    sin,
    sinc,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    true_divide,
    trunc,
)
from ._elementwise import (  # NumPy-only ufuncs
    fabs,
    frexp,
    gcd,
    lcm,
    ldexp,
    modf,
    spacing,
)

# NumPy only: histograms
from ._histograms import (
    bincount,
)

# Indexing functions
from ._indexing import (
    choose,
    compress,
    diag_indices,
    diag_indices_from,
    extract,
    ix_,
    place,
    put,
    put_along_axis,
    ravel_multi_index,
    select,
    take,
    take_along_axis,
    tril_indices,
    tril_indices_from,
    triu_indices,
    triu_indices_from,
    unravel_index,
)

# Linear algebra functions and tensor contractions
from ._linear_algebra import (
    cross,
    dot,
    einsum,
    inner,
    kron,
    matmul,
    matvec,
    outer,
    tensordot,
    vdot,
    vecdot,
    vecmat,
)

# Manipulation functions
from ._manipulation import (
    append,
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    column_stack,
    concat,
    concatenate,
    copy,
    diag,
    diagonal,
    dsplit,
    dstack,
    expand_dims,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    matrix_transpose,
    moveaxis,
    ndim,
    pad,
    permute_dims,
    ravel,
    repeat,
    reshape,
    roll,
    rot90,
    shape,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    tile,
    transpose,
    unstack,
    vsplit,
    vstack,
)

# Searching functions
from ._searching import (
    argmax,
    argmin,
    argwhere,
    flatnonzero,
    nanargmax,
    nanargmin,
    nonzero,
    searchsorted,
    where,
)

# Set functions
from ._set import (
    intersect1d,
    isin,
    setdiff1d,
    setxor1d,
    union1d,
    unique,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)

# NumPy only: convolution, correlation, interpolation
from ._signal import (
    convolve,
    correlate,
    interp,
)

# Sorting functions
from ._sorting import (
    argpartition,
    argsort,
    partition,
    sort,
)

# Statistical functions
from ._statistical import (
    amax,
    amin,
    average,
    corrcoef,
    count_nonzero,
    cov,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    max,
    mean,
    median,
    min,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmedian,
    nanmin,
    nanpercentile,
    nanprod,
    nanquantile,
    nanstd,
    nansum,
    nanvar,
    percentile,
    prod,
    ptp,
    quantile,
    std,
    sum,
    trace,
    var,
)

# Utility functions
from ._utility import (
    all,
    any,
    diff,
)

# NumPy only: vander and the NumPy-flavoured creation functions
from ._creation import (
    asanyarray,
    asarray_chkfinite,
    ascontiguousarray,
    asfortranarray,
    frombuffer,
    fromfunction,
    fromiter,
    require,
    vander,
)

# NumPy only: functional programming helpers
from ._functional import (
    apply_along_axis,
    apply_over_axes,
    frompyfunc,
    piecewise,
    vectorize,
)

# NumPy only: histograms and binning
from ._histograms import (
    digitize,
    histogram,
    histogram2d,
    histogram_bin_edges,
    histogramdd,
)

# NumPy only: index tricks, iteration and in-place writes
from ._index_tricks import (
    broadcast,
    c_,
    copyto,
    fill_diagonal,
    flatiter,
    index_exp,
    mask_indices,
    mgrid,
    ndenumerate,
    ndindex,
    nditer,
    nested_iters,
    ogrid,
    putmask,
    r_,
    s_,
)
from ._linear_algebra import einsum_path

# NumPy only: more manipulation functions
from ._manipulation import (
    block,
    delete,
    diagflat,
    ediff1d,
    insert,
    packbits,
    resize,
    rollaxis,
    trim_zeros,
    unpackbits,
)

# NumPy only: polynomials
from ._polynomial import (
    poly,
    poly1d,
    polyadd,
    polyder,
    polydiv,
    polyfit,
    polyint,
    polymul,
    polysub,
    polyval,
    roots,
)

# NumPy only: sampled signals and windows
from ._signal import (
    bartlett,
    blackman,
    gradient,
    hamming,
    hanning,
    i0,
    kaiser,
    trapezoid,
    unwrap,
)
from ._sorting import lexsort, sort_complex
from ._type_check import isfortran, isscalar, iterable, real_if_close

__all__ = [
    "e", "inf", "nan", "newaxis", "pi", "arange", "array", "asarray", "empty", "empty_like",
    "eye", "from_dlpack", "full", "full_like", "geomspace", "identity", "indices", "linspace",
    "logspace", "meshgrid", "ones", "ones_like", "tri", "tril", "triu", "zeros", "zeros_like",
    "__array_api_version__", "__array_namespace_info__", "astype", "bfloat16", "bool_",
    "can_cast", "complex128", "complex64", "dtype", "finfo", "float16", "float32", "float64",
    "iinfo", "int16", "int32", "int64", "int8", "isdtype", "result_type", "uint16", "uint32",
    "uint64", "uint8", "ndarray", "abs", "absolute", "acos", "acosh", "add", "allclose",
    "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "around", "array_equal", "array_equiv", "asin", "asinh", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "cbrt", "ceil", "clip", "conj",
    "conjugate", "copysign", "cos", "cosh", "deg2rad", "degrees", "divide", "divmod", "equal",
    "exp", "exp2", "expm1", "fix", "float_power", "floor", "floor_divide", "fmax", "fmin",
    "fmod", "greater", "greater_equal", "heaviside", "hypot", "imag", "invert", "isclose",
    "iscomplex", "iscomplexobj", "isfinite", "isinf", "isnan", "isneginf", "isposinf",
    "isreal", "isrealobj", "left_shift", "less", "less_equal", "log", "log10", "log1p", "log2",
    "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor",
    "maximum", "minimum", "mod", "multiply", "nan_to_num", "negative", "nextafter",
    "not_equal", "positive", "pow", "power", "rad2deg", "radians", "real", "reciprocal",
    "remainder", "right_shift", "rint", "round", "sign", "signbit", "sin", "sinc", "sinh",
    "sqrt", "square", "subtract", "tan", "tanh", "true_divide", "trunc", "choose", "compress",
    "diag_indices", "diag_indices_from", "extract", "ix_", "place", "put", "put_along_axis",
    "ravel_multi_index", "select", "take", "take_along_axis", "tril_indices",
    "tril_indices_from", "triu_indices", "triu_indices_from", "unravel_index", "cross", "dot",
    "einsum", "inner", "kron", "matmul", "outer", "tensordot", "vdot", "append", "array_split",
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "broadcast_shapes",
    "broadcast_to", "column_stack", "concat", "concatenate", "copy", "diag", "diagonal",
    "dsplit", "dstack", "expand_dims", "flip", "fliplr", "flipud", "hsplit", "hstack",
    "matrix_transpose", "moveaxis", "ndim", "pad", "permute_dims", "ravel", "repeat",
    "reshape", "roll", "rot90", "row_stack", "shape", "size", "split", "squeeze", "stack",
    "swapaxes", "tile", "trace", "transpose", "unstack", "vsplit", "vstack", "argmax",
    "argmin", "argwhere", "count_nonzero", "flatnonzero", "nanargmax", "nanargmin", "nonzero",
    "searchsorted", "where", "intersect1d", "isin", "setdiff1d", "setxor1d", "union1d",
    "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values", "argpartition",
    "argsort", "partition", "sort", "amax", "amin", "average", "corrcoef", "cov", "cumprod",
    "cumsum", "cumulative_prod", "cumulative_sum", "max", "mean", "median", "min", "nancumprod",
    "nancumsum", "nanmax",
    "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd",
    "nansum", "nanvar", "percentile", "prod", "ptp", "quantile", "std", "sum", "var", "all",
    "any", "diff", "bincount", "convolve", "correlate", "interp", "linalg", "vecdot",
]


def shares_memory(a, b, /, max_work=None):
    """Whether ``a`` and ``b`` share memory (views of one buffer do), as NumPy's."""
    return _numpy.shares_memory(_host_of(a), _host_of(b),
                                max_work)


def may_share_memory(a, b, /, max_work=None):
    """NumPy's quick overlap test on the buffers of ``a`` and ``b``."""
    return _numpy.may_share_memory(_host_of(a), _host_of(b),
                                   max_work)


__all__ += ["shares_memory", "may_share_memory"]
__all__ += [
    "asanyarray", "asarray_chkfinite", "ascontiguousarray", "asfortranarray", "frombuffer",
    "fromfunction", "fromiter", "require", "vander", "apply_along_axis",
    "apply_over_axes", "frompyfunc", "piecewise", "vectorize", "digitize", "histogram",
    "histogram2d", "histogram_bin_edges", "histogramdd", "broadcast", "c_", "copyto",
    "fill_diagonal", "flatiter", "index_exp", "mask_indices", "mgrid", "ndenumerate",
    "ndindex", "nditer", "ogrid", "putmask", "r_", "s_", "einsum_path", "block", "delete",
    "diagflat", "ediff1d", "insert", "packbits", "resize", "rollaxis", "trim_zeros",
    "unpackbits", "poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit", "polyint",
    "polymul", "polysub", "polyval", "roots", "bartlett", "blackman", "gradient", "hamming",
    "hanning", "i0", "kaiser", "trapezoid", "unwrap", "lexsort", "sort_complex", "isscalar",
    "iterable", "real_if_close", "nested_iters", "isfortran",
]

# NumPy only: scalar types, the type hierarchy and dtype helpers beyond the Array API
from . import emath  # noqa: E402,F401
from ._data_types import (  # noqa: E402
    ScalarType,
    False_,
    True_,
    byte,
    cdouble,
    character,
    common_type,
    complexfloating,
    csingle,
    double,
    flexible,
    floating,
    generic,
    half,
    inexact,
    int_,
    intc,
    integer,
    intp,
    issubdtype,
    little_endian,
    long,
    longlong,
    min_scalar_type,
    mintypecode,
    number,
    promote_types,
    sctypeDict,
    short,
    signedinteger,
    single,
    typecodes,
    typename,
    ubyte,
    uint,
    uintc,
    uintp,
    ulong,
    ulonglong,
    unsignedinteger,
    ushort,
)
from ._data_types import bool_ as bool  # noqa: E402  (the Array API's name; shadows builtins.bool here)
from numpy import dtypes  # noqa: E402,F401  (NumPy's dtype classes: type(x.dtype) is one)
from ._constants import euler_gamma  # noqa: E402

__all__ += [
    "ScalarType", "False_", "True_", "bool", "byte", "cdouble", "character", "common_type",
    "complexfloating", "csingle", "double", "dtypes", "emath", "euler_gamma", "flexible",
    "floating", "generic", "half", "inexact", "int_", "intc", "integer", "intp", "issubdtype",
    "little_endian", "long", "longlong", "min_scalar_type", "mintypecode", "number",
    "promote_types", "sctypeDict", "short", "signedinteger", "single", "typecodes",
    "typename", "ubyte", "uint", "uintc", "uintp", "ulong", "ulonglong", "unsignedinteger",
    "ushort",
]

# NumPy only: floating-point error state, printing, files, runtime information
from . import exceptions, lib  # noqa: E402,F401  (testing: imported when first read)
from ._floating_point_errors import (  # noqa: E402
    errstate,
    getbufsize,
    geterr,
    geterrcall,
    setbufsize,
    seterr,
    seterrcall,
)
from ._io import (  # noqa: E402
    fromfile,
    fromregex,
    fromstring,
    genfromtxt,
    load,
    loadtxt,
    save,
    savetxt,
    savez,
    savez_compressed,
)
from ._printing import (  # noqa: E402
    array2string,
    array_repr,
    array_str,
    base_repr,
    binary_repr,
    format_float_positional,
    format_float_scientific,
    get_printoptions,
    printoptions,
    set_printoptions,
)
from ._runtime_info import show_config, show_runtime  # noqa: E402

__all__ += [
    "exceptions", "lib", "testing", "errstate", "getbufsize", "geterr", "geterrcall",
    "setbufsize", "seterr", "seterrcall", "fromfile", "fromregex", "fromstring", "genfromtxt",
    "load", "loadtxt", "save", "savetxt", "savez", "savez_compressed", "array2string",
    "array_repr", "array_str", "base_repr", "binary_repr", "format_float_positional",
    "format_float_scientific", "get_printoptions", "printoptions", "set_printoptions",
    "show_config", "show_runtime",
]


# Dates, strings, records and objects: eager Arrays hold them, NumPy computes (DESIGN 3)
import numpy as _numpy  # noqa: E402

from . import char, rec  # noqa: E402
from ._nonnumeric import (  # noqa: E402
    busday_count,
    busday_offset,
    busdaycalendar,
    bytes_,
    datetime64,
    datetime_as_string,
    datetime_data,
    is_busday,
    isnat,
    object_,
    str_,
    timedelta64,
    void,
)

__all__ += [
    "char", "rec", "busday_count", "busday_offset", "busdaycalendar", "bytes_", "datetime64",
    "datetime_as_string", "datetime_data", "is_busday", "isnat", "object_", "str_",
    "timedelta64", "void",
]
if hasattr(_numpy, "strings"):   # NumPy 2.0+
    from . import strings  # noqa: E402,F401
    __all__ += ["strings"]

# Array.view (a bitcast under a transformation), tobytes and tofile, on Array and tracers
from ..core import Tracer as _Tracer  # noqa: E402
from . import _bitcast, _io  # noqa: E402

_bitcast.install(ndarray, _Tracer)
_io.install(ndarray, _Tracer)


def __getattr__(name):
    # __version__ is minijax's (set after this package is imported); NumPy names left
    # out of scope raise UnsupportedNumPyFeatureError (an AttributeError) with the reason
    if name == "__version__":
        import sys   # (here, not at the top: the namespace would gain `sys`)
        return sys.modules["minijax"].__version__
    if name == "testing":   # (as NumPy's: importing numpy.testing is a sixth of the import)
        import importlib
        return importlib.import_module(".testing", __name__)
    from ._unsupported import unsupported   # (likewise)
    raise unsupported(__name__, name)
# The fft extension (minijax.numpy.fft)
from . import fft  # noqa: E402

__all__ += ["fft"]

# DESIGN 3: eagerly, each function and Array method named in the eager table calls
# NumPy once on the host buffers (installed last, over the lax versions).
from . import _eager_table  # noqa: E402
from ..runtime import fast_functions as _fast_functions  # noqa: E402
from ._elementwise import returning_the_updated_array as _returning_the_updated_array  # noqa: E402

_eager_table.install(globals(), linalg, fft, ndarray)
nan_to_num = _returning_the_updated_array(nan_to_num)

# NumPy's ufunc objects (over the dispatching functions): add.reduce, add.at, ...
from ._ufunc import install_ufuncs as _install_ufuncs  # noqa: E402
from ._ufunc import ufunc  # noqa: E402

_install_ufuncs(globals())
__all__ += ["ufunc", "matvec", "vecmat", "fabs", "frexp", "gcd", "lcm", "ldexp", "modf", "spacing"]


# Deprecated names: minijax follows the newest NumPy it supports, whatever NumPy is
# installed, and warns eagerly and under a transformation alike.
def _deprecated(fn, name, since, use):
    message = f"minijax.numpy.{name} is deprecated (as in NumPy {since}): use {use}"
    call = _fast_functions.deprecated(fn, message)   # (compiled: no frame of its own)
    call.__doc__ = f"Deprecated (as in NumPy {since}): use {use}. {fn.__doc__}"
    return call


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays vertically (``vstack``; NumPy 2.5 removed ``row_stack``)."""
    return vstack(tup, dtype=dtype, casting=casting)


row_stack = _deprecated(row_stack, "row_stack", "2.0; removed in 2.5", "minijax.numpy.vstack")
fix = _deprecated(fix, "fix", "2.5", "minijax.numpy.trunc")
typename = _deprecated(typename, "typename", "2.5", "minijax.numpy.dtype(char).name")


from ..util import name_functions_where_public as _name_functions_where_public  # noqa: E402

_name_functions_where_public(globals())   # (pickle finds each function by its name here)
