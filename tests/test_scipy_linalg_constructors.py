"""minijax.scipy.linalg's special-matrix constructors against scipy.linalg (values and
dtypes), jit, vmap, finite differences, and SciPy's exception classes."""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl

import minijax
import minijax.scipy.linalg as ml
from minijax.errors import ConcretizationTypeError
from minijax.test_util import check_grads

RNG = np.random.default_rng(7)


def _scipy(name, *args, **kwargs):
    with warnings.catch_warnings():
        # SciPy 1.17 warns that it will batch hankel's N-d input from 1.19
        warnings.simplefilter("ignore", FutureWarning)
        return getattr(sl, name)(*args, **kwargs)


def _same(got, want, rtol=1e-13, atol=0.0):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _oracle(name, *args, rtol=1e-13, atol=0.0, **kwargs):
    _same(getattr(ml, name)(*args, **kwargs), _scipy(name, *args, **kwargs), rtol, atol)


def _complex(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


# A vector of each input kind SciPy takes: a list of ints, int32, float32, float64,
# complex, a scalar, an empty vector.
VECTORS = [[1, 2, 3], np.arange(1, 5, dtype=np.int32), RNG.standard_normal(4).astype(np.float32),
           RNG.standard_normal(5), _complex(3), 2.5, np.zeros(0)]


# ------------------------------------------------------------ array arguments: values

@pytest.mark.parametrize("c", VECTORS, ids=lambda c: type(c).__name__ + str(np.shape(c)))
def test_toeplitz_circulant_hankel_match_scipy(c):
    _oracle("toeplitz", c)                          # r = conj(c) by default
    _oracle("circulant", c)
    for r in ([7, 8], np.array([4.0], np.float32), _complex(4), np.zeros(0, np.int8)):
        _oracle("toeplitz", c, r)
        if np.ndim(c):
            _oracle("hankel", c, r)
    if np.ndim(c):
        _oracle("hankel", c)                        # r = zeros by default


def test_toeplitz_and_circulant_batch_like_scipy():
    # SciPy >= 1.15 treats leading axes as batches (broadcast between c and r)
    c, r = _complex((2, 3, 4)), RNG.standard_normal((3, 5)).astype(np.float32)
    _oracle("toeplitz", c)
    _oracle("toeplitz", c, r)
    _oracle("toeplitz", c[:, :1], r)
    _oracle("circulant", c)


@pytest.mark.parametrize("a", [[1, 2, 3], np.array([2, -3, 4, 5], np.float32),
                               np.array([1, 2, 3], np.float16), _complex(5).astype(np.complex64),
                               np.array([1, 2, 3], np.uint8), [4, 2], RNG.standard_normal((2, 3, 4))],
                         ids=lambda a: str(np.asarray(a).dtype) + str(np.shape(a)))
def test_companion_matches_scipy(a):
    _oracle("companion", a, rtol=1e-6 if np.asarray(a).dtype.itemsize <= 8 else 1e-13)


@pytest.mark.parametrize("a", [np.arange(1.0, 9.0), np.arange(1, 8, dtype=np.int32), [2, 3, 5],
                               np.array([2, 3, 4, 5], np.float32), _complex(6), [2, 3], [2],
                               np.zeros(0, np.int32), 3, RNG.standard_normal((2, 6)),
                               np.ones((2, 1)), np.ones((3, 2))],
                         ids=lambda a: str(np.asarray(a).dtype) + str(np.shape(a)))
def test_fiedler_and_fiedler_companion_match_scipy(a):
    _oracle("fiedler", a)
    _oracle("fiedler_companion", a, rtol=1e-6)
    # SciPy's fiedler_companion has these eigenvalues: the polynomial's roots
    a = np.asarray(a)
    if a.ndim == 1 and a.size > 2 and a.dtype.kind == "f" and a.dtype.itemsize == 8:
        np.testing.assert_allclose(np.sort_complex(np.linalg.eigvals(ml.fiedler_companion(a))),
                                   np.sort_complex(np.roots(a)), rtol=1e-8)


def test_fiedler_unsigned_and_complex_like_scipy():
    _oracle("fiedler", np.array([1, 5, 2], np.uint8))   # NumPy's wrap-around
    _oracle("fiedler", _complex(4))                     # |a - b| is real
    _oracle("fiedler", np.ones((1, 1), np.int32))       # one element: [[0.]], float64


@pytest.mark.parametrize("f,s", [([1, 2, 3], [0.5, 0.25]),
                                 ([1, 2], np.array([0.5], np.float32)),
                                 (np.ones(3, np.float32), np.full(2, 0.5, np.float32)),
                                 (_complex(4), RNG.standard_normal(3)),
                                 (RNG.standard_normal((2, 4)), RNG.standard_normal(3))])
def test_leslie_matches_scipy(f, s):
    _oracle("leslie", f, s)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolution_matrix_matches_scipy_and_convolve(mode):
    for a in ([1, 2, 3], RNG.standard_normal(5), np.array([1, 2], np.float32), [3], _complex(4),
              RNG.standard_normal((2, 3))):
        for n in (1, 2, 3, 4, 7):
            _oracle("convolution_matrix", a, n, mode=mode)
            if np.ndim(a) == 1:
                v = RNG.standard_normal(n)
                np.testing.assert_allclose(np.asarray(ml.convolution_matrix(a, n, mode)) @ v,
                                           np.convolve(a, v, mode), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------ size arguments: values

SIZES = [0, 1, 2, 5, 12]


@pytest.mark.parametrize("n", SIZES)
def test_hilbert_invhilbert_match_scipy(n):
    _oracle("hilbert", n)
    _oracle("invhilbert", n, rtol=1e-14)
    _oracle("invhilbert", n, exact=True)
    if n:
        np.testing.assert_allclose(np.asarray(ml.invhilbert(n)) @ sl.hilbert(n), np.eye(n),
                                   atol=1e-9 * 10.0 ** n)


def test_invhilbert_exact_largest_and_float_large():
    _oracle("invhilbert", 14, exact=True)          # int64's last size in SciPy
    _oracle("invhilbert", 30, rtol=1e-14)          # entries near 1e43


@pytest.mark.parametrize("kind", ["symmetric", "lower", "upper"])
def test_pascal_invpascal_match_scipy(kind):
    for n in SIZES + [34]:
        for exact in (True, False):
            _oracle("pascal", n, kind, exact=exact)
            _oracle("invpascal", n, kind=kind, exact=exact)
    _oracle("pascal", 70, kind, exact=False)
    _oracle("invpascal", 45, kind, exact=False)
    p, q = sl.pascal(6, kind, exact=False), np.asarray(ml.invpascal(6, kind))
    np.testing.assert_array_equal(q @ p, np.eye(6))


def test_pascal_float_overflows_to_inf_like_scipy():
    # C(i + j, i) passes float64's range from i + j = 1030 on; the finite entries are
    # the correctly rounded binomials, SciPy's float comb within ~1e-12 of them
    got, want = np.asarray(ml.pascal(520, exact=False)), sl.pascal(520, exact=False)
    assert np.isinf(want).any()
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-11)


@pytest.mark.parametrize("scale", [None, "sqrtn", "n"])
def test_dft_matches_scipy_and_fft(scale):
    for n in SIZES + [64]:
        _oracle("dft", n, scale, atol=1e-12)
    x = _complex(8)
    norm = {None: "backward", "sqrtn": "ortho", "n": "forward"}[scale]
    np.testing.assert_allclose(np.asarray(ml.dft(8, scale)) @ x, np.fft.fft(x, norm=norm),
                               atol=1e-12)


@pytest.mark.parametrize("dtype", [int, np.float32, np.int16, np.uint8, complex, "f8"])
def test_hadamard_matches_scipy(dtype):
    for n in (1, 2, 4, 32):
        _oracle("hadamard", n, dtype)
    _oracle("hadamard", 8)
    _oracle("hadamard", 4.0)                        # an integral float n, as SciPy and JAX


def test_dft_takes_an_integral_float_n_like_scipy():
    _oracle("dft", 4.0, atol=1e-15)
    _oracle("dft", np.float32(3.0), "n", atol=1e-15)
    with pytest.raises(ValueError, match="integer"):    # SciPy's 5 x 5 from np.arange(4.5)
        ml.dft(4.5)


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_helmert_matches_scipy(n):
    _oracle("helmert", n)
    _oracle("helmert", n, full=True)
    _oracle("helmert", n, True)


# ------------------------------------------------------------ jit, vmap, grad

# (function, arrays, static arguments): array arguments first
ARRAY_CASES = {
    "toeplitz": (ml.toeplitz, (_complex(3), RNG.standard_normal(4)), ()),
    "hankel": (ml.hankel, (RNG.standard_normal(3), RNG.standard_normal(4)), ()),
    "circulant": (ml.circulant, (RNG.standard_normal(4),), ()),
    "companion": (ml.companion, (RNG.standard_normal(5) + 3.0,), ()),
    "leslie": (ml.leslie, (RNG.standard_normal(4), RNG.standard_normal(3)), ()),
    "fiedler": (ml.fiedler, (np.array([0.3, -1.2, 2.0, 0.7]),), ()),
    "fiedler_companion": (ml.fiedler_companion, (RNG.standard_normal(6) + 3.0,), ()),
    "convolution_matrix": (ml.convolution_matrix, (RNG.standard_normal(3),), (4, "same")),
}


@pytest.mark.parametrize("name", ARRAY_CASES)
def test_array_constructors_jit_vmap_grad(name):
    fn, arrays, static = ARRAY_CASES[name]
    eager = fn(*arrays, *static)
    _same(eager, _scipy(name, *arrays, *static))

    def call(*xs):
        return fn(*xs, *static)
    _same(minijax.jit(call)(*arrays), eager, rtol=1e-15)   # (XLA may fuse a division)
    # vmap over the first argument against the examples one by one
    batch = np.stack([arrays[0], 2.0 * arrays[0] - 1.0])
    expected = np.stack([np.asarray(call(x, *arrays[1:])) for x in batch])
    _same(minijax.vmap(call, in_axes=(0,) + (None,) * (len(arrays) - 1))(batch, *arrays[1:]),
          expected, rtol=1e-14)
    if len(arrays) == 2:
        both = [np.stack([x, x[::-1]]) for x in arrays]
        _same(minijax.vmap(call)(*both),
              np.stack([np.asarray(call(*[x[i] for x in both])) for i in range(2)]), rtol=0)
    check_grads(call, arrays, order=2)


def test_size_constructors_under_jit():
    for fn, args in ((ml.hilbert, (6,)), (ml.invhilbert, (6, True)), (ml.pascal, (5, "lower")),
                     (ml.invpascal, (5, "symmetric", False)), (ml.dft, (6, "sqrtn")),
                     (ml.hadamard, (8, np.int8)), (ml.helmert, (5, True))):
        static = tuple(range(len(args)))
        _same(minijax.jit(fn, static_argnums=static)(*args), fn(*args), rtol=1e-15)
        with pytest.raises(ConcretizationTypeError, match=r"static Python int"):
            minijax.jit(fn, static_argnums=static[1:])(*args)
    with pytest.raises(ConcretizationTypeError, match=r"static Python int"):
        minijax.jit(ml.convolution_matrix)(np.ones(3), 2)


def test_companion_gradient_batched_and_complex():
    a = _complex((2, 4)) + 3.0
    check_grads(ml.companion, (a,), order=1)
    check_grads(lambda c: ml.toeplitz(c), (_complex(3),), order=1)   # conj(c) as r
    check_grads(lambda a: ml.convolution_matrix(a, 3, "valid"), (RNG.standard_normal((2, 5)),),
                order=1)


# ------------------------------------------------------------ JAX's behaviour where we follow it

@pytest.fixture
def jax_x64():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", False)


def test_hankel_batches_like_jax(jax_x64):
    import jax.scipy.linalg as jl  # the optional oracle, only where installed
    c, r = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 5))
    for args in ((c,), (c, r), (c[:, :1], r), (RNG.standard_normal(3), r)):
        _same(ml.hankel(*args), np.asarray(jl.hankel(*args)), rtol=0)


def test_pascal_kind_none_and_dft_dtype_like_jax(jax_x64):
    import jax.scipy.linalg as jl  # the optional oracle, only where installed
    for fn in ("pascal", "invpascal"):
        np.testing.assert_allclose(np.asarray(getattr(ml, fn)(6, None)),
                                   np.asarray(getattr(jl, fn)(6, None)), rtol=1e-5)
        _same(getattr(ml, fn)(6, None), _scipy(fn, 6, "symmetric"))
    got = ml.dft(8, "n", dtype=np.complex64)
    # (JAX computes the phases in float32: ours, from float64, are the closer ones)
    _same(got, np.asarray(jl.dft(8, "n", dtype=np.complex64)), rtol=1e-5, atol=1e-6)
    _same(got, sl.dft(8, "n").astype(np.complex64), rtol=1e-7, atol=1e-8)
    with pytest.raises(ValueError, match="complex"):
        ml.dft(4, dtype=np.float64)


def test_convolution_matrix_empty_batch_like_jax(jax_x64):
    import jax.scipy.linalg as jl  # the optional oracle, only where installed
    a = np.zeros((0, 3))
    _same(ml.convolution_matrix(a, 2), np.asarray(jl.convolution_matrix(a, 2)))


# ------------------------------------------------------------ errors: SciPy's classes

BAD_CALLS = [
    ("invhilbert", (-2,), {}), ("pascal", (-1,), {}), ("invpascal", (-3,), {}),
    ("helmert", (-2,), {}), ("helmert", (0,), {}), ("hadamard", (0,), {}),
    ("hadamard", (-4,), {}), ("hadamard", (6,), {}), ("hadamard", (4, bool), {}),
    ("hadamard", (4.5,), {}), ("pascal", (3, "middle"), {}), ("invpascal", (3, "x"), {}),
    ("dft", (4, "ortho"), {}), ("hilbert", (2.5,), {}),
    ("convolution_matrix", ([1, 2], 0), {}), ("convolution_matrix", ([1, 2], -1), {}),
    ("convolution_matrix", ([1, 2], 2.0), {}), ("convolution_matrix", ([], 2), {}),
    ("convolution_matrix", ([1, 2], 2), {"mode": "circular"}),
    ("convolution_matrix", (3.0, 2), {}),
    ("hankel", (3,), {}), ("hankel", ([1, 2], 3), {}),
    ("companion", ([1],), {}), ("companion", ([0, 1, 2],), {}),
    ("companion", (np.array([[1, 2], [0, 3]]),), {}), ("companion", (np.array([1, 0], bool),), {}),
    ("leslie", ([1, 2], [1, 2]), {}), ("leslie", ([1], []), {}),
    ("fiedler", (np.array([1, 0, 1], bool),), {}),
    ("fiedler_companion", ([0.0, 1.0, 2.0],), {}),
    ("toeplitz", (np.ones((2, 3)), np.ones((3, 3))), {}),
]


@pytest.mark.parametrize("name,args,kwargs", BAD_CALLS,
                         ids=[f"{n}{a}{k or ''}" for n, a, k in BAD_CALLS])
def test_bad_input_raises_scipys_exception_class(name, args, kwargs):
    with pytest.raises(Exception) as scipy_error:
        _scipy(name, *args, **kwargs)
    with pytest.raises(type(scipy_error.value)):
        getattr(ml, name)(*args, **kwargs)


def test_where_minijax_raises_and_scipy_does_not():
    # SciPy returns an empty matrix for a negative n here (np.arange's empty range),
    # where a negative size is an error elsewhere in SciPy and NumPy
    for name in ("hilbert", "dft"):
        assert _scipy(name, -2).shape == (0, 0)
        with pytest.raises(ValueError, match="non-negative"):
            getattr(ml, name)(-2)
    with pytest.raises(ValueError, match="non-negative"):
        ml.pascal(-2, exact=False)
    # past int64 SciPy returns Python ints (dtype object), which minijax cannot hold
    for name, n in (("invhilbert", 15), ("pascal", 35), ("invpascal", 35)):
        assert _scipy(name, n, exact=True).dtype == object
        with pytest.raises(NotImplementedError, match="exact=False"):
            getattr(ml, name)(n, exact=True)
