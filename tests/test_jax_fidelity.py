"""JAX programs run unchanged: the same program, written once against a namespace that is
either ``jax`` or ``minijax``, gives the same values and raises the same error classes.
JAX (test-only) is the oracle; it computes in float32, minijax in float64, so values are
compared to float32 precision."""

import operator

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as onp
import pytest

import minijax
import minijax.numpy as mnp

BOTH = [pytest.param((jax, jnp), id="jax"), pytest.param((minijax, mnp), id="minijax")]


def run_both(program, *args):
    """``program(jx, jnp, *args)`` on JAX and on minijax: the minijax values, checked
    against JAX's (a list of numbers/arrays, or an error class name per entry)."""
    want = program(jax, jnp, *args)
    got = program(minijax, mnp, *args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, str):
            assert g == w
        else:
            onp.testing.assert_allclose(onp.asarray(g), onp.asarray(w), rtol=2e-6, atol=1e-6)
    return got


def error_name(fn, *args):
    """The name of the exception class ``fn(*args)`` raises (JAX's and minijax's named
    tracer errors have the same names)."""
    try:
        fn(*args)
    except Exception as e:   # noqa: BLE001  (the class is what is compared)
        return type(e).__name__
    return "no error"


# ---------------------------------------------------------------- custom_jvp / custom_vjp
# JAX's documentation: "Python control flow works with custom_jvp (and custom_vjp) because
# the rule is called on concrete primal values under grad/jvp/vjp"; under jit the same
# branch raises the tracer-to-bool error.

def _branching_rule(jx, jnp):
    @jx.custom_jvp
    def f(x):
        return x

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        x_dot, = tangents
        if x >= 0:
            return f(x), x_dot
        return f(x), 2 * x_dot
    return f


def _branching_primal(jx, jnp):
    @jx.custom_jvp
    def g(x):
        if x > 0:
            return jnp.sin(x)
        return jnp.cos(x)

    @g.defjvp
    def g_jvp(primals, tangents):
        x, = primals
        t, = tangents
        if x > 0:
            return g(x), jnp.cos(x) * t
        return g(x), -jnp.sin(x) * t
    return g


def _branching_vjp(jx, jnp):
    @jx.custom_vjp
    def h(x, y):
        return jnp.sin(x) * y if x > 0 else x * y

    def fwd(x, y):
        if x > 0:
            return h(x, y), (jnp.cos(x), jnp.sin(x), y, True)
        return h(x, y), (y, x, y, False)

    def bwd(res, g):
        a, b, y, positive = res
        if positive:
            return a * g * y, b * g
        return a * g, b * g
    h.defvjp(fwd, bwd)
    return h


def _custom_rule_program(jx, jnp):
    f = _branching_rule(jx, jnp)
    g = _branching_primal(jx, jnp)
    h = _branching_vjp(jx, jnp)
    out = [f(3.0), jx.grad(f)(-1.0), jx.grad(f)(1.0)]
    out += list(jx.jvp(f, (-2.0,), (1.0,)))
    out += [g(1.0), g(-1.0), jx.grad(g)(1.0), jx.grad(g)(-1.0)]
    out += list(jx.value_and_grad(g)(0.5))
    out += [jx.grad(jx.grad(g))(1.0), jx.grad(jx.grad(g))(-1.0)]   # the rule, differentiated
    _, pull = jx.vjp(g, 2.0)
    out += list(pull(1.0))
    out += [h(1.0, 2.0), h(-1.0, 2.0)]
    out += list(jx.grad(h, argnums=(0, 1))(1.0, 2.0))
    out += list(jx.grad(h, argnums=(0, 1))(-1.0, 2.0))
    out += [jx.grad(lambda x: h(x, 3.0) * h(x, x))(0.7)]
    # under a transformation that does not stage, concrete constants stay concrete
    out += [jx.grad(lambda x: g(-2.0) * x)(3.0)]
    return out


def test_custom_rules_run_on_concrete_values_as_jax():
    run_both(_custom_rule_program)


def _staged_branch_errors(jx, jnp):
    f = _branching_rule(jx, jnp)
    g = _branching_primal(jx, jnp)
    h = _branching_vjp(jx, jnp)
    xs = jnp.array([1.0, -1.0])
    return [error_name(jx.jit(jx.grad(f)), 1.0),
            error_name(jx.jit(g), 1.0),
            error_name(jx.jit(jx.grad(g)), 1.0),
            error_name(jx.make_jaxpr(g), 1.0),
            error_name(jx.vmap(g), xs),
            error_name(jx.vmap(jx.grad(g)), xs),
            error_name(jx.jit(lambda x: jx.grad(h)(x, 2.0)), 1.0),
            error_name(lambda x: jx.lax.cond(True, g, g, x), 1.0),
            error_name(jx.jit(lambda x: jx.jvp(f, (x,), (1.0,))), 1.0)]


def test_python_branching_on_staged_values_raises_jax_errors():
    names = run_both(_staged_branch_errors)
    assert set(names) == {"TracerBoolConversionError"}


def test_staged_custom_rules_still_differentiate_as_jax():
    def program(jx, jnp):
        @jx.custom_jvp
        def softplus(x):
            return jnp.log1p(jnp.exp(x))
        softplus.defjvp(lambda p, t: (softplus(p[0]), t[0] / (1 + jnp.exp(-p[0]))))

        @jx.custom_vjp
        def clip_grad(x):
            return x
        clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -0.5, 0.5),))
        xs = jnp.array([-1.0, 0.5, 2.0])
        loss = lambda x: (softplus(x) * clip_grad(3.0 * x)).sum()   # noqa: E731
        return [jx.jit(jx.grad(loss))(xs), jx.vmap(jx.grad(softplus))(xs),
                jx.grad(jx.jit(loss))(xs), jx.jacfwd(softplus)(xs), jx.jacrev(loss)(xs),
                jx.hessian(lambda x: softplus(x).sum())(xs)]
    run_both(program)


# ---------------------------------------------------------------- holomorphic=

def _holomorphic_program(jx, jnp):
    z = jnp.array(1.5 - 0.5j, dtype=jnp.complex64)
    zs = jnp.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], dtype=jnp.complex64)
    out = [jx.grad(lambda z: z ** 2, holomorphic=True)(z),
           jx.grad(jnp.sin, holomorphic=True)(z),
           jx.grad(lambda z: jnp.exp(z) * z, holomorphic=True)(z)]
    out += list(jx.value_and_grad(lambda z: (jnp.sin(z) * z).sum(), holomorphic=True)(zs))
    out += list(jx.grad(lambda a, b: (a * b ** 2).sum(), argnums=(0, 1),
                        holomorphic=True)(zs, 2 * zs))
    (v, aux), g = jx.value_and_grad(lambda z: (z ** 3, z.real), has_aux=True,
                                    holomorphic=True)(z)
    out += [v, aux, g, jx.grad(jx.grad(lambda z: z ** 3, holomorphic=True), holomorphic=True)(z)]
    out += [jx.jit(jx.grad(lambda z: jnp.cos(z), holomorphic=True))(z),
            jx.vmap(jx.grad(lambda z: jnp.tan(z), holomorphic=True))(zs),
            jx.jacrev(lambda z: z ** 2, holomorphic=True)(zs),
            jx.jacfwd(lambda z: z ** 2, holomorphic=True)(zs)]
    # a real-valued function of complex inputs needs no flag (the conjugate convention)
    out += [jx.grad(lambda z: (jnp.abs(z) ** 2).sum())(zs)]
    out += [error_name(jx.grad(lambda x: x ** 2, holomorphic=True), 1.5),
            error_name(jx.grad(lambda z: jnp.abs(z), holomorphic=True), z),
            error_name(jx.grad(lambda z: z ** 2), z),
            error_name(jx.value_and_grad(lambda z: z.real, holomorphic=True), z)]
    return out


def test_holomorphic_grad_as_jax():
    names = run_both(_holomorphic_program)[-4:]
    assert names == ["TypeError"] * 4


# ---------------------------------------------------------------- error classes

def _error_cases(jx, jnp):
    """Bad calls of JAX's API; each entry: the classes among TypeError/ValueError/
    IndexError that the raised error is an instance of."""
    tu, lax = jx.tree_util, jx.lax
    x = jnp.ones(3)

    @jx.custom_jvp
    def bad_jvp(x):
        return x
    bad_jvp.defjvp(lambda p, t: ((p[0], p[0]), t[0]))

    @jx.custom_vjp
    def bad_vjp(x):
        return x
    bad_vjp.defvjp(lambda x: (x, None), lambda r, g: (g, g))
    cases = [
        lambda: tu.tree_map(lambda a, b: a, (1, 2), [1, 2]),
        lambda: tu.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}),
        lambda: tu.tree_unflatten(tu.tree_structure((1, 2)), [1]),
        lambda: tu.tree_unflatten(tu.tree_structure((1, 2)), [1, 2, 3]),
        lambda: tu.tree_structure((1, 2)).flatten_up_to([1, 2]),
        lambda: tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)),
                                  [(1, 2), (3,)]),
        lambda: jx.tree.map(lambda a, b: a, (1, (2,)), (1, 2)),
        lambda: jx.vmap(lambda a, b: a, in_axes=(0, 0, 0))(x, x),
        lambda: jx.vmap(lambda a: a[0], in_axes=([0, 0],))((x, x)),
        lambda: jx.vmap(lambda a: a, in_axes=1)(x),
        lambda: jx.vmap(lambda a, b: a + b)(x, jnp.ones(4)),
        lambda: jx.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(x),
        lambda: jx.vmap(lambda a: a, in_axes="a")(x),
        lambda: jx.jvp(lambda a: a, (x,), [x]),
        lambda: jx.jvp(lambda a: a, ((x, x),), ([x, x],)),
        lambda: jx.jvp(lambda a: a, (x,), (jnp.ones(4),)),
        lambda: jx.jvp(lambda a: a, (x,), (jnp.ones(3, dtype=jnp.float16),)),
        lambda: jx.vjp(lambda a: (a, a), x)[1]([x, x]),
        lambda: jx.vjp(lambda a: a, x)[1](jnp.ones(4)),
        lambda: jx.grad(lambda a: a.sum(), argnums=2)(x),
        lambda: jx.grad(lambda a: a)(x),
        lambda: jx.grad(lambda a: a)(1),
        lambda: jx.jit(lambda a: a, static_argnums=3)(x),
        lambda: jx.jit(lambda a, b: a, static_argnums=1)(x, [1]),
        lambda: lax.scan(lambda c, a: ((c, c), a), 0.0, x),
        lambda: lax.scan(lambda c, a: (c, a), 0.0, (x, jnp.ones(4))),
        lambda: lax.cond(True, lambda a: a, lambda a: (a, a), 1.0),
        lambda: lax.cond(True, lambda a: a, lambda a: a.astype(jnp.int32), 1.0),
        lambda: lax.switch(0, [lambda a: a, lambda a: (a,)], 1.0),
        lambda: lax.while_loop(lambda c: False, lambda c: (c, c), 1.0),
        lambda: lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.int32), 1.0),
        lambda: jx.jvp(bad_jvp, (1.0,), (1.0,)),
        lambda: jx.grad(bad_vjp)(1.0),
        lambda: lax.add(jnp.ones(3), jnp.ones(4)),
        lambda: lax.add(jnp.ones(3, jnp.float32), jnp.ones(3, jnp.int32)),
        lambda: lax.concatenate([x, jnp.ones((3, 1))], 0),
        lambda: lax.slice(x, (0,), (5,)),
        lambda: lax.dynamic_slice(x, (0, 0), (1,)),
        lambda: lax.index_in_dim(x, 5),
        lambda: jx.linear_transpose(lambda a: a, x)([x]),
    ]
    out = []
    for case in cases:
        try:
            case()
            out.append("no error")
        except Exception as e:   # noqa: BLE001  (the class is what is compared)
            out.append(" ".join(c.__name__ for c in (TypeError, ValueError, IndexError)
                                if isinstance(e, c)))
    return out


def test_error_classes_include_jaxs():
    want = _error_cases(jax, jnp)
    got = _error_cases(minijax, mnp)
    for i, (g, w) in enumerate(zip(got, want)):
        assert set(w.split()) <= set(g.split()), (i, g, w)


# ---------------------------------------------------------------- lax operands

def _lax_operand_cases(jx, jnp):
    lax = jx.lax
    xi = jnp.arange(4, dtype=jnp.int32)
    xf = jnp.arange(4, dtype=jnp.float32)
    cases = [
        lambda: lax.shift_left(xi, onp.int32(2)),
        lambda: lax.shift_right_logical(xi, jnp.array(1, jnp.int32)),
        lambda: lax.shift_left(xi, 2),
        lambda: lax.add(xf, 2.0),
        lambda: lax.add(2.0, xf),
        lambda: lax.max(xi, 0),
        lambda: lax.min(0, xi),
        lambda: lax.add(xf, onp.float32(2)),
        lambda: lax.add(xf, jnp.array(2, jnp.float32)),
        lambda: lax.add(xf, onp.array(2, onp.float32)),
        lambda: lax.add(xf, jnp.ones(1, jnp.float32)),
        lambda: lax.add(xf.reshape(4, 1), jnp.ones((1, 3), jnp.float32)),
        lambda: lax.mul(xf.astype(jnp.complex64), 1j),
        lambda: lax.div(xi, 2),
        lambda: lax.rem(xi, 3),
        lambda: lax.pow(xf, 2.0),
        lambda: lax.atan2(xf, 1.0),
        lambda: lax.bitwise_and(xi, 1),
        lambda: lax.bitwise_and(xi > 1, True),
        lambda: lax.eq(xi, 2),
        lambda: lax.lt(xf, 1.5),
        lambda: lax.nextafter(xf, jnp.float32(1.0)),
        lambda: jx.jit(lambda a: lax.shift_left(a, onp.int32(1)))(xi),
        lambda: jx.jit(lambda a: lax.add(a, jnp.ones(1, jnp.float32)))(xf),
        lambda: jx.vmap(lambda a: lax.max(a, 0))(xi),
        lambda: jx.vmap(lambda a: lax.shift_left(a, onp.int32(1)))(xi.reshape(2, 2)),
        lambda: jx.grad(lambda a: lax.mul(a, jnp.ones(1, jnp.float32)).sum())(xf),
        lambda: jx.grad(lambda a: lax.mul(jnp.float32(3), a).sum())(xf),
        # errors: lossy Python scalars, different dtypes, ranks and shapes
        lambda: lax.add(xi, 2.0),
        lambda: lax.mul(xf, 1j),
        lambda: lax.add(xf, jnp.ones(3, jnp.float32)),
        lambda: lax.add(xf, jnp.ones((2, 1), jnp.float32)),
        lambda: lax.add(xf, xi),
    ]
    out = []
    for case in cases:
        try:
            r = case()
            out.append((onp.asarray(r), str(r.dtype)))
        except Exception as e:   # noqa: BLE001  (the class is what is compared)
            out.append(" ".join(c.__name__ for c in (TypeError, ValueError) if isinstance(e, c)))
    return out


def test_lax_binary_operands_as_jax():
    want = _lax_operand_cases(jax, jnp)
    got = _lax_operand_cases(minijax, mnp)
    for i, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, str):
            assert isinstance(g, str) and set(w.split()) <= set(g.split()), (i, g, w)
        else:
            assert not isinstance(g, str), (i, g)
            assert g[1] == w[1], (i, g[1], w[1])
            onp.testing.assert_allclose(g[0], w[0], rtol=1e-6)


# ---------------------------------------------------------------- top-level names

def _toplevel_program(jx, jnp):
    traces = []

    @jx.jit
    def f(x):
        traces.append(1)
        if x > 0:
            return x * 2
        return -x

    out = [error_name(f, 3.0)]
    with jx.disable_jit():
        out += [f(3.0), f(-2.0)]
    out.append(error_name(f, 3.0))   # compiled again outside the context

    @jx.jit
    def g(x):
        with jx.ensure_compile_time_eval():
            y = jnp.sin(3.0)
            z = jnp.zeros(2) + 1.0
            if y > 0 and z[0] == 1:   # concrete: Python may branch
                scale = 2.0
            else:
                scale = 3.0
        return x * scale + z
    out.append(g(jnp.ones(2, jnp.float32)))

    h = jx.jit(lambda x: (traces.append(1), x + 1)[1])
    before = len(traces)
    h(1.0)
    h(1.0)
    jx.clear_caches()
    out += [h(1.0), len(traces) - before]   # traced again after clear_caches
    t = jx.typeof(jnp.ones((2, 3), jnp.float32))
    out += [t.shape, str(t.dtype), jx.typeof(1.0).weak_type, jx.typeof(jnp.float32(1)).weak_type]
    out += [jx.default_backend(), jx.device_count(), jx.local_device_count(),
            len(jx.local_devices()), jx.process_count(), jx.process_index(),
            jx.process_indices()]
    with jx.enable_x64(False):
        out.append(str(jnp.ones(2).dtype))
    with jx.enable_x64(True):
        out.append(str(jnp.ones(2).dtype))
    return out


def test_toplevel_names_as_jax():
    want = _toplevel_program(jax, jnp)
    got = _toplevel_program(minijax, mnp)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, (str, bool, int, tuple, list)):
            assert g == w
        else:
            onp.testing.assert_allclose(onp.asarray(g), onp.asarray(w), rtol=1e-6)
    info = minijax.print_environment_info(return_string=True)
    assert "minijax" in info and "jaxlib" in info and "numpy" in info


def _custom_gradient_program(jx, jnp):
    @jx.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)

    @jx.custom_gradient
    def h(x, y):
        s = jnp.sin(x)
        return s * y, lambda g: (g * jnp.cos(x) * y * 10.0, g * s)

    @jx.custom_gradient
    def clip(x):
        return x, lambda g: jnp.clip(g, -1.0, 1.0)   # a bare cotangent for one argument
    xs = jnp.array([0.5, 2.0, -3.0])
    return [f(3.0), jx.grad(f)(3.0), *jx.grad(h, argnums=(0, 1))(0.3, 2.0),
            jx.jit(jx.grad(lambda x: h(x, 3.0)))(0.7),
            jx.vmap(jx.grad(lambda x: (clip(x) * 5.0)))(xs),
            jx.grad(lambda x: jnp.sum(clip(x * 4.0)))(xs),
            jx.grad(jx.grad(lambda x: h(x, 2.0)))(0.4)]


def test_custom_gradient_as_jax():
    run_both(_custom_gradient_program)


def test_dlpack_module_exchanges_the_dtypes_it_reports():
    for dt in [onp.bool_, onp.int8, onp.uint16, onp.int64, onp.float16, onp.float32,
               onp.float64, onp.complex64, onp.complex128, ml_dtypes.bfloat16]:
        supported = minijax.dlpack.is_supported_dtype(dt)
        assert supported == (jax.dlpack.is_supported_dtype(dt) and dt is not ml_dtypes.bfloat16)
        host = onp.arange(3).astype(dt)
        if supported:
            back = onp.from_dlpack(minijax.dlpack.from_dlpack(host))
            onp.testing.assert_array_equal(back, host)
        else:
            with pytest.raises(BufferError):
                minijax.dlpack.from_dlpack(host)


@pytest.mark.parametrize("repeats, length", [([1, 2, 0, 3], 6), ([1, 2, 0, 3], 4),
                                             ([1, 2, 0, 3], 9), (2, 5), ([0, 0, 0, 2], 3),
                                             ([2, 0, 0, 0], 4), (3, 0)])
def test_repeat_to_a_total_length_as_jax_with_traced_counts(repeats, length):
    """JAX's ``total_repeat_length``: the output's length, so that the counts may be
    traced (cut when longer, the last element repeated when shorter)."""
    a = onp.arange(4.0) * 10
    want = onp.asarray(jnp.repeat(jnp.asarray(a), jnp.asarray(repeats),
                                  total_repeat_length=length))
    for got in (mnp.repeat(a, repeats, total_repeat_length=length),
                minijax.jit(lambda x, r: mnp.repeat(x, r, total_repeat_length=length))(
                    a, onp.asarray(repeats))):
        onp.testing.assert_array_equal(onp.asarray(got), want)
    m = onp.arange(6.0).reshape(2, 3)
    onp.testing.assert_array_equal(
        onp.asarray(minijax.jit(lambda x, r: mnp.repeat(x, r, axis=1, total_repeat_length=5))(
            m, onp.array([1, 2, 2]))),
        onp.asarray(jnp.repeat(m, jnp.array([1, 2, 2]), axis=1, total_repeat_length=5)))
    with pytest.raises(NotImplementedError, match="total_repeat_length"):
        minijax.jit(lambda r: mnp.repeat(a, r))(onp.array([1, 1, 1, 1]))


@pytest.mark.parametrize("mode", ["clip", "drop", "fill"])
def test_put_along_axis_modes_as_jax(mode):
    # (mode=None keeps NumPy's IndexError for an index out of bounds)
    a, idx = onp.arange(8.0).reshape(2, 4), onp.array([[1, 7], [-9, 0]])
    want = onp.asarray(jnp.put_along_axis(jnp.asarray(a), jnp.asarray(idx), -1.0, axis=1,
                                          inplace=False, mode=mode))
    for put in (lambda x: mnp.put_along_axis(x, idx, -1.0, axis=1, inplace=False, mode=mode),
                minijax.jit(lambda x: mnp.put_along_axis(x, idx, -1.0, axis=1, inplace=False,
                                                         mode=mode))):
        onp.testing.assert_array_equal(onp.asarray(put(a)), want)
    with pytest.raises(IndexError, match="out of bounds"):
        mnp.put_along_axis(a, idx, -1.0, axis=1, inplace=False)
    with pytest.raises(ValueError, match="unknown mode 'wrap'"):
        mnp.put_along_axis(a, idx, -1.0, axis=1, inplace=False, mode="wrap")


_I8 = onp.array([[100, -90, 7], [3, 120, -128]], onp.int8)
_F = onp.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]])
_SPD = onp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])

# (name, args, keywords): JAX's keywords beyond NumPy's, on minijax as on JAX
_JAX_KEYWORD_CALLS = [
    ("linalg.matmul", (_I8, _I8.T), dict(preferred_element_type=onp.int32)),
    ("linalg.matmul", (_F, _F.T), dict(precision="highest")),
    ("linalg.tensordot", (_I8, _I8.T), dict(axes=1, preferred_element_type=onp.int32)),
    ("linalg.vecdot", (_I8, _I8), dict(preferred_element_type=onp.int32)),
    ("linalg.vecdot", (_F, _F), dict(axis=0, precision="highest")),
    ("vecdot", (_I8, _I8), dict(preferred_element_type=onp.int32)),
    ("vecdot", (_F > 0, _F > 1), dict(preferred_element_type=onp.int32)),
    ("linalg.multi_dot", ([_F, _F.T, _F],), dict(precision="highest")),
    ("convolve", (_I8[0], _I8[1]), dict(preferred_element_type=onp.int32)),
    ("correlate", (_I8[1], _I8[0, :2]), dict(mode="full", preferred_element_type=onp.int32)),
    ("sum", (_I8,), dict(promote_integers=False)),
    ("prod", (_I8,), dict(axis=1, promote_integers=False)),
    ("sum", (_F > 0,), dict(promote_integers=False)),
    ("linalg.cholesky", (_SPD + onp.triu(_F[:, :2].sum() * onp.ones((3, 3)), 1),),
     dict(symmetrize_input=True)),
    ("linalg.eigvalsh", (_SPD + onp.triu(onp.ones((3, 3)), 1),), dict(symmetrize_input=True)),
    ("fill_diagonal", (_F, onp.array([7.0, 8.0])), dict(inplace=False)),
    ("delete", (_F, onp.array([2, 0])), dict(axis=1, assume_unique_indices=True)),
    ("mask_indices", (3, jnp.triu), dict(k=1, size=4)),
    ("polydiv", (onp.array([1.0, 3.0, 2.0, 5.0]), onp.array([1.0, 1.0])),
     dict(trim_leading_zeros=False)),
    ("polymul", (onp.array([0.0, 1.0, 2.0]), onp.array([0.0, 3.0])),
     dict(trim_leading_zeros=False)),
    ("roots", (onp.array([1.0, -6.0, 11.0, -6.0]),), dict(strip_zeros=False)),
    ("argsort", (onp.array([3.0, 1.0, 2.0, 1.0]),), dict(dtype=onp.int16)),
    ("argsort", (onp.array([3, 1, 2, 1]),), dict(descending=True, dtype=onp.uint8)),
    ("take", (_F, onp.array([2, 0])), dict(axis=1, unique_indices=True,
                                          indices_are_sorted=False)),
] + [("take_along_axis", (_F, onp.array([[7, 1, -1], [0, -4, 2]])),
      dict(axis=1, mode=mode, wrap_negative_indices=wrap))
     for mode in ("clip", "fill", "drop") for wrap in (None, True, False)]


@pytest.mark.parametrize("name,args,kwargs", _JAX_KEYWORD_CALLS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(_JAX_KEYWORD_CALLS)])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_jax_keywords_beyond_numpys_act_as_in_jax(name, args, kwargs, mode):
    with jax.enable_x64(True):
        want = operator.attrgetter(name)(jnp)(*args, **kwargs)
    fn = operator.attrgetter(name)(mnp)
    if name == "mask_indices":
        args = (args[0], mnp.triu)
    if mode == "jit":
        arrays = [i for i, a in enumerate(args) if isinstance(a, onp.ndarray)]
        def call(*values):
            full = list(args)
            for i, v in zip(arrays, values):
                full[i] = v
            return fn(*full, **kwargs)
        got = minijax.jit(call)(*[args[i] for i in arrays])
    else:
        got = fn(*args, **kwargs)
    got_leaves = minijax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = onp.asarray(g), onp.asarray(w)
        assert g.dtype == w.dtype
        onp.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_take_along_axis_and_argsort_keyword_errors():
    x = onp.arange(10.0).reshape(2, 5)
    with pytest.raises(ValueError, match="unknown mode 'wrap'"):
        mnp.take_along_axis(x, onp.array([[1]]), 1, mode="wrap")
    # NumPy's default mode raises for an index out of bounds: a negative one now is
    with pytest.raises(IndexError, match="-1 is out of bounds"):
        mnp.take_along_axis(x, onp.array([[1, -1]]), 1, wrap_negative_indices=False)
    onp.testing.assert_array_equal(
        onp.asarray(mnp.take_along_axis(x, onp.array([[1, -1]]), 1)),
        onp.take_along_axis(x, onp.array([[1, -1]]), 1))
    with pytest.raises(ValueError, match="do not fit in int8"):
        mnp.argsort(onp.arange(300), dtype=onp.int8)
    with pytest.raises(TypeError, match="integer dtype"):
        mnp.argsort(onp.arange(3), dtype=onp.float32)


def test_float0_tangents_and_cotangents_of_integers_as_jax():
    f = lambda x, n: x * n
    with jax.enable_x64(True):
        want_g = jax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3)
        want_v = jax.vjp(f, 2.0, onp.arange(3))[1](onp.ones(3))
        want_t = jax.jvp(f, (2.0, 3), (1.0, onp.zeros((), jax.dtypes.float0)))
    assert minijax.dtypes.float0 == jax.dtypes.float0
    got_g = minijax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3)
    got_v = minijax.vjp(f, 2.0, onp.arange(3))[1](onp.ones(3))
    for got, want in [(got_g, want_g), (got_v, want_v)]:
        for g, w in zip(got, want):
            assert onp.asarray(g).dtype == onp.asarray(w).dtype
            assert onp.shape(g) == onp.shape(w)
        onp.testing.assert_allclose(onp.asarray(got[0]), onp.asarray(want[0]))
    got_t = minijax.jvp(f, (2.0, 3), (1.0, onp.zeros((), minijax.dtypes.float0)))
    for g, w in zip(got_t, want_t):
        onp.testing.assert_allclose(onp.asarray(g), onp.asarray(w))
    with pytest.raises(TypeError, match="allow_int=True"):
        minijax.grad(f, argnums=1)(2.0, 3)
    with pytest.raises(minijax.errors.ArgumentMismatchError, match="float0"):
        minijax.jvp(f, (2.0, 3), (onp.zeros((), minijax.dtypes.float0), 0))
