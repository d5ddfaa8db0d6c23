"""jacfwd, jacrev, jacobian and hessian on pytree functions (eager, jit, vmap) against
each other and central finite differences; grad's argnums and output checks; the
small differentiation utilities (eval_shape, linear_transpose, device_get, ...)."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import (ShapeDtypeStruct, device_get, eval_shape, grad, hessian, jacfwd, jacobian,
                     jacrev, jit, linear_transpose, stop_gradient, value_and_grad, vmap)
from minijax.errors import NonDifferentiableOutputError
from minijax.tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten

rng = onp.random.default_rng(0)


def _arr(*shape):
    return np.asarray(rng.uniform(0.3, 1.2, shape))


# Each case: (function, args, argnums). Inputs and outputs are pytrees.
CASES = {
    "dict_in_dict_out": (lambda p: {"s": np.sin(p["w"]) * p["b"][0], "t": (p["w"] ** 2).sum()},
                         ({"w": _arr(3), "b": _arr(2)},), 0),
    "tuple_out": (lambda x: (np.exp(x), np.log(x).sum(), x[0] * x[1]), (_arr(3),), 0),
    "matrix": (lambda a: a @ a.T + np.tanh(a), (_arr(2, 2),), 0),
    "two_args": (lambda x, y: {"p": x * y, "q": np.sqrt(x + y)}, (_arr(2), _arr(2)), (0, 1)),
    "second_arg": (lambda x, y: np.cos(x) * y ** 3, (_arr(2), _arr(2)), 1),
    "list_in": (lambda xs: np.stack([xs[0] * xs[1], xs[1] / xs[0]]), ([_arr(2), _arr(2)],), 0),
    "reduction": (lambda x: {"m": np.mean(x, axis=0), "v": np.var(x)}, (_arr(3, 2),), 0),
    "softplus_chain": (lambda p: np.logaddexp(p["a"], 2 * p["a"]) * np.hypot(p["a"], 1.0),
                       ({"a": _arr(3)},), 0),
    "nested": (lambda p: [np.sum(p[0]["x"] * p[1]), {"k": np.prod(p[0]["x"])}],
               (({"x": _arr(3)}, _arr(3)),), 0),
}


def _fd_jac(f, args, argnums, eps=1e-6):
    """Central differences, laid out as jacfwd/jacrev lay out Jacobians."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    dyn = tuple(args[i] for i in nums)
    leaves, tree = tree_flatten(dyn)
    leaves = [onp.asarray(x, float) for x in leaves]

    def call(new_leaves):
        new_dyn = tree_unflatten(tree, [np.asarray(x) for x in new_leaves])
        full = list(args)
        for i, d in zip(nums, new_dyn):
            full[i] = d
        return f(*full)
    out0 = call(leaves)
    out_leaves0, out_tree = tree_flatten(out0)
    blocks = [[onp.zeros(onp.shape(o) + x.shape) for x in leaves] for o in out_leaves0]
    for j, x in enumerate(leaves):
        for idx in onp.ndindex(x.shape):
            plus = [l.copy() for l in leaves]
            minus = [l.copy() for l in leaves]
            plus[j][idx] += eps
            minus[j][idx] -= eps
            op, om = tree_leaves(call(plus)), tree_leaves(call(minus))
            for k in range(len(out_leaves0)):
                d = (onp.asarray(op[k]) - onp.asarray(om[k])) / (2 * eps)
                blocks[k][j][(...,) + idx] = d
    per_out = [tree_unflatten(tree, b) for b in blocks]
    if isinstance(argnums, int):
        per_out = [p[0] for p in per_out]
    return tree_unflatten(out_tree, per_out)


def _assert_trees_close(a, b, rtol, atol=1e-9):
    la, ta = tree_flatten(a)
    lb, tb = tree_flatten(b)
    assert ta == tb, (ta, tb)
    for x, y in zip(la, lb):
        assert onp.shape(x) == onp.shape(y)
        onp.testing.assert_allclose(onp.asarray(x), onp.asarray(y), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", CASES)
def test_jacfwd_equals_jacrev_and_finite_differences(name):
    f, args, argnums = CASES[name]
    jf = jacfwd(f, argnums)(*args)
    jr = jacrev(f, argnums)(*args)
    _assert_trees_close(jf, jr, rtol=1e-12)
    _assert_trees_close(jr, _fd_jac(f, args, argnums), rtol=1e-6, atol=1e-7)
    _assert_trees_close(jit(jacfwd(f, argnums))(*args), jf, rtol=1e-12)
    _assert_trees_close(jit(jacobian(f, argnums))(*args), jf, rtol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_hessian_matches_finite_differences_eager_jit_vmap(name):
    f, args, argnums = CASES[name]
    h = hessian(f, argnums)(*args)
    fd = _fd_jac(jacrev(f, argnums), args, argnums)
    _assert_trees_close(h, fd, rtol=1e-6, atol=1e-7)
    _assert_trees_close(jit(hessian(f, argnums))(*args), h, rtol=1e-12)
    # vmap over a stack of two argument sets against a loop
    other = tree_map(lambda x: x * 1.1, args)
    stacked = tree_map(lambda a, b: np.stack([a, b]), args, other)
    hv = vmap(hessian(f, argnums))(*stacked)
    h2 = hessian(f, argnums)(*other)
    _assert_trees_close(tree_map(lambda x: x[0], hv), h, rtol=1e-10)
    _assert_trees_close(tree_map(lambda x: x[1], hv), h2, rtol=1e-10)


def test_jacobian_options():
    f = lambda x: (x ** 2, {"aux": x.sum()})   # noqa: E731
    x = np.array([1.0, 2.0])
    for jac in (jacfwd, jacrev):
        j, aux = jac(f, has_aux=True)(x)
        onp.testing.assert_allclose(j, onp.diag([2.0, 4.0]))
        assert float(aux["aux"]) == 3.0
    h, aux = hessian(lambda x: ((x ** 3).sum(), x[0]), has_aux=True)(x)
    onp.testing.assert_allclose(h, onp.diag([6.0, 12.0]))
    assert float(aux) == 1.0
    z = np.array([1 + 1j, 2 - 0.5j])
    for jac in (jacfwd, jacrev):
        onp.testing.assert_allclose(jac(lambda z: z ** 2, holomorphic=True)(z),
                                    onp.diag(2 * onp.asarray(z)))
        with pytest.raises(TypeError, match="holomorphic"):
            jac(lambda z: z ** 2)(z)
        with pytest.raises(TypeError, match="complex"):
            jac(lambda x: x, holomorphic=True)(x)
        with pytest.raises(TypeError, match="floating"):
            jac(lambda x: x * 1.0)(np.arange(3))
    with pytest.raises(ValueError, match="argnums"):
        jacrev(lambda x: x, argnums=2)(x)


def test_grad_argnums_repeated_and_non_float_output():
    f = lambda x, y: x * y   # noqa: E731
    assert tuple(map(float, grad(f, argnums=(0, 0))(1.0, 2.0))) == (2.0, 2.0)
    assert tuple(map(float, grad(f, argnums=(1, 0, 1))(1.0, 2.0))) == (1.0, 2.0, 1.0)
    for g in (lambda x: np.allclose(x, 1.0), lambda x: (x > 0).sum(), lambda x: np.argmax(x)):
        with pytest.raises(NonDifferentiableOutputError, match="floating-point output") as e:
            grad(g)(np.array([1.0, 2.0]))
        assert isinstance(e.value, TypeError)
        assert "no derivative" in str(e.value)


def test_value_and_grad_has_aux_and_stop_gradient_pytree():
    def loss(p):
        out = (p["a"] * stop_gradient(p)["b"]).sum()
        return out, {"n": p["a"].size}
    p = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])}
    (val, aux), g = value_and_grad(loss, has_aux=True)(p)
    assert float(val) == 11.0 and aux == {"n": 2}
    onp.testing.assert_allclose(g["a"], [3.0, 4.0])
    onp.testing.assert_allclose(g["b"], [0.0, 0.0])
    sg = stop_gradient({"x": (1.0, np.ones(2))})
    assert set(sg) == {"x"} and len(sg["x"]) == 2


def test_eval_shape_shape_dtype_struct_device_get():
    def f(x, y):
        return {"mm": x @ y, "s": (x.sum(), y.astype(np.float32))}
    out = eval_shape(f, ShapeDtypeStruct((3, 4), np.float64), np.ones((4, 2)))
    assert out["mm"] == ShapeDtypeStruct((3, 2), np.float64)
    assert out["s"][0].shape == () and out["s"][1].dtype == onp.float32
    assert out["mm"].ndim == 2 and out["mm"].size == 6
    got = device_get({"a": np.arange(3.0), "b": [np.ones(2), 7]})
    assert type(got["a"]) is onp.ndarray and got["b"][1] == 7
    onp.testing.assert_array_equal(got["a"], [0.0, 1.0, 2.0])
    with pytest.raises(minijax.errors.TracerArrayConversionError, match="device_get"):
        jit(lambda x: device_get(x))(np.ones(2))


def test_linear_transpose_against_vjp():
    A = onp.arange(6.0).reshape(2, 3)

    def lin(x, y):
        return {"u": np.asarray(A) @ x + 2 * y[:2], "v": y.sum() - x[0]}
    x, y = np.ones(3), np.ones(4)
    ct = {"u": np.array([1.0, -2.0]), "v": np.asarray(0.5)}
    t = linear_transpose(lin, x, y)(ct)
    _, pull = minijax.vjp(lin, x, y)
    _assert_trees_close(t, pull(ct), rtol=1e-12)
    onp.testing.assert_allclose(jit(lambda c: linear_transpose(lin, x, y)(c))(ct)[0], t[0])
    with pytest.raises(TypeError, match="not linear"):
        linear_transpose(np.sin, 1.0)(1.0)
