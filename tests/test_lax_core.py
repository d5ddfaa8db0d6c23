"""The first primitives: NumPy kernel vs XLA lowering, eager vs jit, vmap vs a loop,
derivatives vs finite differences, and errors raised before XLA."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import lax
from minijax.test_util import check_grads, check_primitive

rng = onp.random.default_rng(0)
F = rng.uniform(0.5, 2.0, (2, 3))
EDGE = onp.array([[0.0, -0.0, onp.inf], [-onp.inf, onp.nan, 1.5]])

UNARY = [lax.neg, lax.sin, lax.cos, lax.exp, lax.log, lax.tanh, lax.sqrt, lax.logistic, lax.abs,
         lax.sign, lax.floor, lax.ceil]
BINARY = [lax.add, lax.sub, lax.mul, lax.div, lax.pow, lax.max, lax.min, lax.eq, lax.ne, lax.lt,
          lax.le, lax.gt, lax.ge]


@pytest.mark.parametrize("fn", UNARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [onp.float32, onp.float64])
def test_unary_kernels_agree(fn, dtype):
    with onp.errstate(all="ignore"):
        check_primitive(fn, [F.astype(dtype)], rtol=2e-6 if dtype == onp.float32 else 1e-13)
        check_primitive(fn, [EDGE.astype(dtype)], rtol=2e-6 if dtype == onp.float32 else 1e-13,
                        batch_size=0)


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [onp.float32, onp.float64, onp.int32, onp.uint8])
def test_binary_kernels_agree(fn, dtype):
    if fn is lax.pow and onp.dtype(dtype).kind != "f":
        return
    a = (F * 3).astype(dtype)
    b = (F[::-1] * 2 + 1).astype(dtype)
    check_primitive(fn, [a, b], rtol=2e-6 if dtype == onp.float32 else 1e-13)
    if onp.dtype(dtype).kind == "f":
        with onp.errstate(all="ignore"):
            check_primitive(fn, [EDGE.astype(dtype), EDGE[::-1].astype(dtype)], batch_size=0,
                            rtol=2e-6 if dtype == onp.float32 else 1e-13)


def test_integer_division_truncates_like_xla():
    a = onp.array([7, -7, 7, -7, 0, 5], onp.int32)
    b = onp.array([2, 2, -2, -2, 3, 0], onp.int32)
    out = check_primitive(lax.div, [a, b], batch_size=0)
    onp.testing.assert_array_equal(onp.asarray(out)[:5], [3, -3, -3, 3, 0])


@pytest.mark.parametrize("case", [
    (lambda x: lax.reshape(x, (3, 2)), F),
    (lambda x: lax.transpose(x, (1, 0)), F),
    (lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), F),
    (lambda x: lax.broadcast_in_dim(x, (2, 5, 3), (0, 2)), F[:, :1].repeat(3, 1)),
    (lambda x: lax.squeeze(x, (1,)), F[:, :1]),
    (lambda x: lax.expand_dims(x, (0, 3)), F),
    (lambda x: lax.reduce_sum(x, (1,)), F),
    (lambda x: lax.reduce_max(x, (0,)), F),
    (lambda x: lax.reduce_min(x, (0, 1)), F),
    (lambda x: lax.convert_element_type(x, onp.int32), F * 10),
    (lambda x: lax.convert_element_type(x, onp.float32), F),
    (lambda x: lax.select(x > 1.0, x, -x), F),
    (lambda x: lax.dot_general(x, x, (((1,), (1,)), ((), ()))), F),
    (lambda x: lax.dot_general(x, x, (((1,), (1,)), ((0,), (0,)))), F),
    (lambda x: lax.dot_general(x, x, (((0,), (0,)), ((), ()))), F),
    (lambda x: lax.stop_gradient(x) * x, F),
], ids=lambda c: str(id(c))[-4:] if callable(c) else "")
def test_structural_primitives(case):
    fn, x = case
    check_primitive(fn, [x], rtol=1e-13)


def test_iota_and_full():
    out = check_primitive(lambda: lax.broadcasted_iota(onp.int32, (2, 3), 1), [], batch_size=0)
    onp.testing.assert_array_equal(onp.asarray(out), [[0, 1, 2], [0, 1, 2]])
    onp.testing.assert_array_equal(onp.asarray(lax.full((2,), 3.5, onp.float32)), [3.5, 3.5])


@pytest.mark.parametrize("fn", [
    lambda x: lax.sin(x) * lax.cos(x),
    lambda x: lax.exp(lax.tanh(x)) / lax.sqrt(x),
    lambda x: lax.log(x) + lax.logistic(x),
    lambda x: lax.pow(x, x * 0.5),
    lambda x: lax.reduce_sum(lax.max(x, lax.full(x.shape, 1.0, x.dtype)) * x, (0,)),
    lambda x: lax.reduce_max(x * x, (1,)),
    lambda x: lax.dot_general(x, lax.transpose(x, (1, 0)), (((1,), (0,)), ((), ()))),
    lambda x: lax.dot_general(lax.reshape(x, (2, 3, 1)), lax.reshape(x, (2, 1, 3)),
                              (((2,), (1,)), ((0,), (0,)))),
    lambda x: lax.broadcast_in_dim(lax.reduce_sum(x, (1,)), (2, 4), (0,)),
    lambda x: lax.convert_element_type(x, onp.float32) * 2,
])
def test_derivatives(fn):
    check_grads(fn, (F,), order=2)


def test_errors_name_the_primitive_before_xla():
    with pytest.raises(ValueError, match=r"lax.add.*\(2, 3\).*\(3,\)"):
        lax.add(F, F[0])
    with pytest.raises(TypeError, match="lax.add.*float64.*int32|lax.add.*int32.*float64"):
        minijax.jit(lax.add)(F, F.astype(onp.int32))
    with pytest.raises(TypeError, match="lax.sin requires floating or complex"):
        lax.sin(onp.ones(2, onp.int32))
    with pytest.raises(ValueError, match="lax.reshape"):
        lax.reshape(F, (4, 2))
    with pytest.raises(ValueError, match="lax.transpose"):
        lax.transpose(F, (0, 0))
    with pytest.raises(ValueError, match="lax.broadcast_in_dim"):
        lax.broadcast_in_dim(F, (2, 4), (0, 1))
    with pytest.raises(ValueError, match="lax.dot_general.*contracting"):
        lax.dot_general(F, F, (((1,), (0,)), ((), ())))
    with pytest.raises(ValueError, match="lax.reduce_sum"):
        lax.reduce_sum_p.bind(F, axes=(2,))
    with pytest.raises(TypeError, match="cond predicate must be a scalar"):
        lax.cond(np.ones(2) > 0, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="same types"):
        lax.cond(True, lambda: np.ones(2), lambda: np.ones(3))
    with pytest.raises(TypeError, match="same tree structure"):
        lax.cond(True, lambda: (1.0, 2.0), lambda: [1.0, 2.0])


def test_user_defined_primitive():
    # the extension API of the seed on user-defined primitives: multiply_add
    from minijax.interpreters import ad, batching
    from minijax.interpreters.lowering import hlo
    from minijax.core import ShapedArray

    multiply_add_p = minijax.Primitive("multiply_add")

    def multiply_add(x, y, z):
        return multiply_add_p.bind(x, y, z)

    multiply_add_p.def_impl(lambda x, y, z: x * y + z)
    multiply_add_p.def_abstract_eval(lambda x, y, z: ShapedArray(x.shape, x.dtype))
    multiply_add_p.def_lowering(lambda ctx, x, y, z: hlo.add(hlo.multiply(x, y), z))
    @multiply_add_p.def_jvp
    def multiply_add_jvp(primals, tangents):
        (x, y, z), (tx, ty, tz) = primals, [ad.instantiate(t) for t in tangents]
        return multiply_add(x, y, z), lax.add(lax.add(lax.mul(tx, y), lax.mul(x, ty)), tz)
    batching.defbroadcasting(multiply_add_p)

    def f(x, y):
        return np.sum(multiply_add(x, y, x))
    x, y = F, F * 2
    onp.testing.assert_allclose(onp.asarray(f(x, y)), onp.sum(x * y + x))
    onp.testing.assert_allclose(onp.asarray(minijax.jit(f)(x, y)), onp.sum(x * y + x))
    check_grads(f, (x, y), order=1, modes=("fwd",))
    onp.testing.assert_allclose(onp.asarray(minijax.vmap(lambda a: multiply_add(a, a, a))(x)),
                                x * x + x)


def test_32bit_mode():
    cfg = minijax.config
    cfg.update("enable_x64", False)
    try:
        assert np.ones(3).dtype == onp.float32
        assert np.arange(3).dtype == onp.int32
        assert np.asarray(onp.ones(2)).dtype == onp.float32
        assert minijax.jit(lambda x: x * 2.0)(1.0).dtype == onp.float32
    finally:
        cfg.update("enable_x64", True)
    assert np.ones(3).dtype == onp.float64
    with pytest.raises(ValueError, match="eager_backend"):
        cfg.update("eager_backend", "gpu")


@pytest.mark.parametrize("fn", [lax.add, lax.sub, lax.mul, lax.div, lax.pow, lax.max, lax.lt],
                         ids=lambda f: f.__name__)
def test_rank0_operands(fn):
    s = onp.asarray(1.7)
    check_primitive(fn, [F, s], rtol=1e-13)
    check_primitive(fn, [s, F], rtol=1e-13)
    if fn is not lax.lt:
        check_grads(lambda a, b: fn(a, b), (F, s), order=2)
        check_grads(lambda a, b: fn(a, b), (s, F), order=2)
    # a batched scalar against an unbatched array, and against an array batched on axis 1
    out = minijax.vmap(fn, in_axes=(None, 0))(F, onp.arange(1.0, 4.0))
    onp.testing.assert_allclose(onp.asarray(out), onp.stack([onp.asarray(fn(F, v)) for v in
                                                           onp.arange(1.0, 4.0)]))
    out = minijax.vmap(fn, in_axes=(1, 0))(F, onp.arange(1.0, 4.0))
    onp.testing.assert_allclose(onp.asarray(out), onp.stack([onp.asarray(fn(F[:, i], v)) for i, v in
                                                           enumerate(onp.arange(1.0, 4.0))]))
