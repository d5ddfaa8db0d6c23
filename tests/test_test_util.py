"""The test helpers reject derivatives that are 1% wrong, and results of the wrong shape.

Each case builds a user ``Primitive`` whose derivative rule is off by a factor
``1 + error`` and checks that ``check_grads`` accepts it at ``error=0`` and rejects it
at ``error=0.01`` — in the configurations where a looser helper let such a mutation
through: a float64 function that also returns integers (as ``lax.linalg.lu`` and
``lax.top_k`` do), complex64 and complex128 (forward and reverse mode), float32, and
a second derivative. The agreement checks must reject a reduction that drops
``keepdims`` for one rank.
"""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import lax
from minijax.core import ShapedArray, get_aval
from minijax.interpreters import ad
from minijax.test_util import assert_same, check_grads, check_jvp, check_vjp

from test_numpy_agreement import check_same

WRONG = 0.01


def exp_with_jvp_error(error):
    """``exp`` whose JVP (and so its transpose, the VJP) is ``1 + error`` times the truth."""
    p = minijax.Primitive(f"exp_err{error}")
    p.def_impl(onp.exp)
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))

    @p.def_jvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = p.bind(x)
        return y, lax.mul(ad.instantiate(t), lax.mul(y, onp.asarray(1 + error, x.dtype)))
    return p.bind


def sin_with_second_derivative_error(error):
    """``sin`` whose first derivative is right and whose second is ``1 + error`` off."""
    sin_p, cos_p = minijax.Primitive("sin_err"), minijax.Primitive("cos_err")
    for p, fn in ((sin_p, onp.sin), (cos_p, onp.cos)):
        p.def_impl(fn)
        p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))

    @sin_p.def_jvp
    def _sin_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return sin_p.bind(x), lax.mul(ad.instantiate(t), cos_p.bind(x))

    @cos_p.def_jvp
    def _cos_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return cos_p.bind(x), lax.mul(ad.instantiate(t),
                                      lax.mul(sin_p.bind(x), onp.asarray(-1 - error, x.dtype)))
    return sin_p.bind


def sort_with_jvp_error(error):
    """Sorted values and their integer permutation (as ``top_k``/``lu`` return), with
    the values' JVP ``1 + error`` off."""
    p = minijax.Primitive(f"argsorted_err{error}", multiple_results=True)
    p.def_impl(lambda x: [onp.sort(x), onp.argsort(x).astype(onp.int32)])
    p.def_abstract_eval(lambda x: [ShapedArray(x.shape, x.dtype),
                                   ShapedArray(x.shape, onp.dtype(onp.int32))])

    @p.def_jvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        values, perm = p.bind(x)
        t_values = lax.mul(np.take(ad.instantiate(t), perm), onp.asarray(1 + error, x.dtype))
        return [values, perm], [t_values, ad.Zero(ad.tangent_aval(get_aval(perm)))]
    return p.bind


def _sample(dtype, shape=(5,), seed=0):
    rng = onp.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, shape)
    if onp.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1.0, 1.0, shape)
    return x.astype(dtype)


def _accepts_and_rejects(build, f_of, x, order=1, modes=("fwd", "rev")):
    for mode in modes:
        check_grads(f_of(build(0.0)), [x], order=order, modes=(mode,))
        with pytest.raises(AssertionError):
            check_grads(f_of(build(WRONG)), [x], order=order, modes=(mode,))


@pytest.mark.parametrize("order", [1, 2])
def test_float64_function_with_integer_outputs(order):
    # Both outputs are checked: the integer permutation must not loosen the tolerance.
    _accepts_and_rejects(sort_with_jvp_error, lambda f: f, _sample(onp.float64), order)


@pytest.mark.parametrize("dtype", [onp.complex64, onp.complex128])
def test_complex(dtype):
    _accepts_and_rejects(exp_with_jvp_error, lambda f: f, _sample(dtype))


@pytest.mark.parametrize("dtype", [onp.float32, onp.complex64])
def test_single_precision(dtype):
    _accepts_and_rejects(exp_with_jvp_error, lambda f: f, _sample(dtype, (3, 4)))


@pytest.mark.parametrize("dtype", [onp.float64, onp.float32])
def test_second_derivative(dtype):
    x = _sample(dtype)
    check_grads(sin_with_second_derivative_error(WRONG), [x], order=1)   # first is right
    _accepts_and_rejects(sin_with_second_derivative_error, lambda f: f, x, order=2)


def test_second_derivative_with_integer_outputs():
    def with_perm(sin):
        return lambda x: (sin(x), lax.top_k(x, 2)[1])
    _accepts_and_rejects(sin_with_second_derivative_error, with_perm, _sample(onp.float64),
                         order=2)


@pytest.mark.parametrize("dtype", [onp.complex64, onp.complex128])
def test_reverse_mode_of_holomorphic_functions(dtype):
    # The pairing is Re sum(ct * J t), with no conjugation: correct VJPs pass.
    z = _sample(dtype, (4,))
    for f in (np.sin, np.exp, lambda z: z * z, lambda z: np.sum(z ** 3)):
        check_vjp(f, [z], order=2)
        check_jvp(f, [z], order=2)


def test_reverse_mode_of_non_holomorphic_functions():
    z = _sample(onp.complex128, (4,))
    for f in (np.conj, np.real, np.imag, np.abs, lambda z: z * np.conj(z)):
        check_grads(f, [z], order=2)


def test_a_wrong_shape_or_dtype_of_a_derivative_is_rejected():
    p = minijax.Primitive("double_with_float32_tangent")
    p.def_impl(lambda x: 2 * x)
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))

    @p.def_jvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return p.bind(x), lax.convert_element_type(lax.mul(ad.instantiate(t), 2.0), onp.float32)
    with pytest.raises(AssertionError, match="dtype|tangent"):
        check_jvp(p.bind, [onp.array([1.0, 2.0])])


def test_values_of_the_wrong_shape_or_dtype_are_rejected():
    with pytest.raises(AssertionError, match="shape"):
        assert_same(onp.ones(()), onp.ones((2, 2)))
    with pytest.raises(AssertionError, match="dtype"):
        assert_same(onp.ones(2, onp.float32), onp.ones(2))


def test_keepdims_dropped_for_one_rank_is_caught():
    def sum_dropping_keepdims_of_matrices(a, axis=None, keepdims=False):
        out = np.sum(a, axis=axis, keepdims=keepdims)
        return np.squeeze(out) if keepdims and np.ndim(a) == 2 else out

    a = onp.ones((3, 4))             # all-equal sums: values alone cannot tell
    for axis in (None, 0, 1):
        expected = onp.sum(a, axis=axis, keepdims=True)
        check_same(np.sum(a, axis=axis, keepdims=True), expected, 0)
        with pytest.raises(AssertionError, match="shape"):
            check_same(sum_dropping_keepdims_of_matrices(a, axis, True), expected, 0)
    b = onp.ones((2, 3, 4))          # the other ranks are untouched by the mutation
    check_same(sum_dropping_keepdims_of_matrices(b, 1, True), onp.sum(b, 1, keepdims=True), 0)
