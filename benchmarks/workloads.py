"""The benchmark workloads, written once against a small library facade (``Lib``).

Each steady-state workload is a generator ``def name(L, quick)`` yielding ``Case``s
for one library; each cold workload is ``def cold_name(L)`` returning the seconds
of the first call (trace + lower + compile + run) after checking its result. Inputs
come from a seeded NumPy generator, so every library (and process) gets the same
float32 values; references are computed with NumPy in float64.
"""

import dataclasses
import time

import numpy as onp

RTOL = 2e-3          # float32 results vs a float64 reference


# ------------------------------------------------------------------ libraries

@dataclasses.dataclass
class Lib:
    name: str
    np: object
    lax: object = None
    jit: object = None
    grad: object = None
    value_and_grad: object = None
    vmap: object = None
    fori_loop: object = None
    block: object = staticmethod(lambda x: x)
    devices: object = None

    def asarray(self, host):
        return self.np.asarray(host)


def load_lib(name):
    """The facade for ``name`` in {"minijax", "jax", "numpy"}."""
    if name == "minijax":
        import minijax
        import minijax.numpy as mnp
        return Lib("minijax", mnp, minijax.lax, minijax.jit, minijax.grad,
                   minijax.value_and_grad, minijax.vmap,
                   getattr(minijax.lax, "fori_loop", None), minijax.block_until_ready,
                   minijax.devices)
    if name == "jax":
        import jax
        import jax.numpy as jnp
        return Lib("jax", jnp, jax.lax, jax.jit, jax.grad, jax.value_and_grad, jax.vmap,
                   jax.lax.fori_loop, jax.block_until_ready, jax.devices)
    if name == "numpy":
        return Lib("numpy", onp)
    raise ValueError(f"unknown library {name!r}")


@dataclasses.dataclass
class Case:
    """One timed row: ``fn()`` does one unit of work and returns its result."""
    row: str
    fn: object
    check: object            # check(result) raises AssertionError if wrong
    unit: str = "time"       # or "gflops:<flops per call>"
    na: str = None           # a reason this library cannot run the case


def to_numpy(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree)(to_numpy(t) for t in tree)
    if isinstance(tree, dict):
        return {k: to_numpy(v) for k, v in tree.items()}
    return onp.asarray(tree)


def close(ref, rtol=RTOL, dtype=onp.float32):
    """A checker: the result is ``ref`` (a pytree of float64 arrays) in ``dtype``."""
    def check(result):
        got = to_numpy(result)
        _compare(got, ref, rtol, dtype)
    return check


def _compare(got, ref, rtol, dtype):
    if isinstance(ref, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(ref), \
            f"structure {type(got).__name__} of {len(got)} != {len(ref)}"
        for g, r in zip(got, ref):
            _compare(g, r, rtol, dtype)
        return
    got = onp.asarray(got)
    ref = onp.asarray(ref)
    assert got.shape == ref.shape, f"shape {got.shape} != {ref.shape}"
    if dtype is not None:
        assert got.dtype == dtype, f"dtype {got.dtype}, expected {onp.dtype(dtype)}"
    scale = float(onp.max(onp.abs(ref))) if ref.size else 0.0
    onp.testing.assert_allclose(got.astype(onp.float64), ref, rtol=rtol,
                                atol=rtol * scale + 1e-6)


def rng(seed):
    return onp.random.default_rng(seed)


def f32(a):
    return onp.asarray(a, onp.float32)


# ------------------------------------------------------------------ the MLP

def mlp_params(sizes, seed):
    r = rng(seed)
    return [(f32(r.normal(0, 1 / onp.sqrt(m), (m, n))), f32(r.normal(0, 0.01, n)))
            for m, n in zip(sizes[:-1], sizes[1:])]


def mlp_data(batch, n_in, n_out, seed):
    r = rng(seed)
    x = f32(r.normal(size=(batch, n_in)))
    y = f32(onp.eye(n_out)[r.integers(0, n_out, batch)])
    return x, y


def make_loss(L):
    xp, lax = L.np, L.lax

    def logsumexp(z):
        m = lax.stop_gradient(xp.max(z, axis=1, keepdims=True))
        return xp.log(xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = xp.maximum(h @ w + b, 0.0)
        w, b = params[-1]
        logits = h @ w + b
        return -xp.mean(xp.sum(y * (logits - logsumexp(logits)), axis=1))

    return loss


def ref_value_and_grad(params, x, y):
    """NumPy float64 forward and backward pass of ``make_loss``'s loss."""
    params = [(w.astype(onp.float64), b.astype(onp.float64)) for w, b in params]
    x, y = x.astype(onp.float64), y.astype(onp.float64)
    hs, zs = [x], []
    for w, b in params[:-1]:
        zs.append(hs[-1] @ w + b)
        hs.append(onp.maximum(zs[-1], 0.0))
    w, b = params[-1]
    logits = hs[-1] @ w + b
    m = logits.max(axis=1, keepdims=True)
    lse = onp.log(onp.exp(logits - m).sum(axis=1, keepdims=True)) + m
    batch = x.shape[0]
    loss = -onp.mean(onp.sum(y * (logits - lse), axis=1))
    soft = onp.exp(logits - lse)
    d = (soft * y.sum(axis=1, keepdims=True) - y) / batch
    grads = []
    for i in range(len(params) - 1, -1, -1):
        w, b = params[i]
        grads.append((hs[i].T @ d, d.sum(axis=0)))
        if i:
            d = (d @ w.T) * (zs[i - 1] > 0)
    return loss, grads[::-1]


# ------------------------------------------------------------------ steady state

def dispatch_jit_small(L, quick):
    x, y = f32([1.0, 2.0, 3.0, 4.0]), f32([0.5, -1.0, 2.0, 0.25])
    ref = x.astype(onp.float64) * y + 1
    if L.jit is None:
        yield Case("dispatch_jit_small", lambda: x * y + 1, close(ref))
        return
    f = L.jit(lambda a, b: a * b + 1)
    xa, ya = L.asarray(x), L.asarray(y)
    yield Case("dispatch_jit_small", lambda: f(xa, ya), close(ref))


def dispatch_eager_op(L, quick):
    x, y = f32([1.0, 2.0, 3.0, 4.0]), f32([0.5, -1.0, 2.0, 0.25])
    xa, ya = L.asarray(x), L.asarray(y)
    add = L.np.add
    yield Case("dispatch_eager_op", lambda: add(xa, ya), close(x.astype(onp.float64) + y))


def _chain(xp, x):
    for _ in range(25):
        x = x * 1.001
        x = x + 0.01
        x = xp.tanh(x)
        x = x - 0.001
    return x


def eager_chain_100(L, quick):
    x = f32(rng(3).normal(size=1000))
    xa = L.asarray(x)
    yield Case("eager_chain_100", lambda: _chain(L.np, xa),
               close(_chain(onp, x.astype(onp.float64))))


def mlp_train_step(L, quick):
    if L.jit is None:
        yield Case("mlp_train_step", None, None, na="no autodiff")
        return
    params = mlp_params([784, 512, 512, 10], seed=4)
    x, y = mlp_data(128, 784, 10, seed=5)
    loss_ref, grads_ref = ref_value_and_grad(params, x, y)
    lr = 0.01
    new_ref = [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, grads_ref)]
    vg = L.value_and_grad(make_loss(L))

    @L.jit
    def step(params, x, y):
        loss, grads = vg(params, x, y)
        return loss, [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, grads)]

    pa = [(L.asarray(w), L.asarray(b)) for w, b in params]
    xa, ya = L.asarray(x), L.asarray(y)
    yield Case("mlp_train_step", lambda: step(pa, xa, ya), close((loss_ref, new_ref)))


def per_example_grads(L, quick):
    if L.jit is None:
        yield Case("per_example_grads", None, None, na="no autodiff")
        return
    params = mlp_params([64, 128, 10], seed=6)
    x, y = mlp_data(128, 64, 10, seed=7)
    refs = [ref_value_and_grad(params, x[i:i + 1], y[i:i + 1])[1] for i in range(128)]
    ref = [(onp.stack([r[k][0] for r in refs]), onp.stack([r[k][1] for r in refs]))
           for k in range(len(params))]
    loss = make_loss(L)

    def loss_one(params, xi, yi):
        return loss(params, L.np.reshape(xi, (1, 64)), L.np.reshape(yi, (1, 10)))

    f = L.jit(L.vmap(L.grad(loss_one), in_axes=(None, 0, 0)))
    pa = [(L.asarray(w), L.asarray(b)) for w, b in params]
    xa, ya = L.asarray(x), L.asarray(y)
    yield Case("per_example_grads", lambda: f(pa, xa, ya), close(ref))


def _elementwise(xp, x):
    return xp.tanh(x) * 2 + xp.sin(x) ** 2


def elementwise_fused_1e7(L, quick):
    n = 10_000_000
    x = f32(rng(8).uniform(-3, 3, n))
    ref = _elementwise(onp, x.astype(onp.float64))
    xa = L.asarray(x)
    fn = L.jit(lambda v: _elementwise(L.np, v)) if L.jit is not None else (
        lambda v: _elementwise(onp, v))
    yield Case("elementwise_fused_1e7", lambda: fn(xa), close(ref))


def matmul_1024(L, quick):
    n = 1024
    r = rng(9)
    a, b = f32(r.normal(size=(n, n))), f32(r.normal(size=(n, n)))
    ref = a.astype(onp.float64) @ b.astype(onp.float64)
    aa, ba = L.asarray(a), L.asarray(b)
    unit = f"gflops:{2 * n ** 3}"
    if L.jit is not None:
        mm = L.jit(lambda p, q: p @ q)
        yield Case("matmul_1024 (jit)", lambda: mm(aa, ba), close(ref), unit)
    else:
        yield Case("matmul_1024 (jit)", lambda: aa @ ba, close(ref), unit)
    yield Case("matmul_1024 (eager)", lambda: aa @ ba, close(ref), unit)


def _body_ref(x):
    return x * 0.999 + onp.sin(x) * 0.01


def fori_loop_1000(L, quick):
    x = f32(rng(10).normal(size=16))
    r = x.astype(onp.float64)
    for _ in range(1000):
        r = _body_ref(r)
    if L.jit is None:
        def loop(v):
            for _ in range(1000):
                v = v * onp.float32(0.999) + onp.sin(v) * onp.float32(0.01)
            return v
        yield Case("fori_loop_1000", lambda: loop(x), close(r))
        return
    if L.fori_loop is None:
        yield Case("fori_loop_1000", None, None, na="missing lax.fori_loop")
        return
    xp = L.np
    f = L.jit(lambda v: L.fori_loop(0, 1000, lambda i, c: c * 0.999 + xp.sin(c) * 0.01, v))
    xa = L.asarray(x)
    yield Case("fori_loop_1000", lambda: f(xa), close(r))


def _f_scalar(xp, x):
    return xp.sin(x) * xp.exp(x) + x ** 3


def _f_scalar_dd(x):            # d²/dx² of _f_scalar
    return 2 * onp.cos(x) * onp.exp(x) + 6 * x


def grad_of_grad(L, quick):
    if L.jit is None:
        yield Case("grad_of_grad", None, None, na="no autodiff")
        return
    x = f32(0.7)
    f = L.jit(L.grad(L.grad(lambda v: _f_scalar(L.np, v))))
    xa = L.asarray(x)
    yield Case("grad_of_grad", lambda: f(xa), close(_f_scalar_dd(onp.float64(x))))


STEADY = [dispatch_jit_small, dispatch_eager_op, eager_chain_100, mlp_train_step,
          per_example_grads, elementwise_fused_1e7, matmul_1024, fori_loop_1000,
          grad_of_grad]


# ------------------------------------------------------------------ cold (subprocess)

def _first_call(fn, args, check):
    start = time.perf_counter()
    out = fn(*args)
    for leaf in _leaves(out):
        leaf.block_until_ready() if hasattr(leaf, "block_until_ready") else None
    elapsed = time.perf_counter() - start
    check(out)
    return elapsed


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [tree]


def cold_trace_compile_mlp(L):
    L.devices()                  # the client exists before the timer starts
    params = mlp_params([784, 512, 512, 10], seed=4)
    x, y = mlp_data(128, 784, 10, seed=5)
    ref = ref_value_and_grad(params, x, y)
    pa = [(L.asarray(w), L.asarray(b)) for w, b in params]
    xa, ya = L.asarray(x), L.asarray(y)
    L.block((pa, xa, ya))
    f = L.jit(L.value_and_grad(make_loss(L)))
    return _first_call(f, (pa, xa, ya), close(ref))


def cold_grad_of_grad(L):
    L.devices()
    x = f32(0.7)
    xa = L.block(L.asarray(x))
    f = L.jit(L.grad(L.grad(lambda v: _f_scalar(L.np, v))))
    return _first_call(f, (xa,), close(_f_scalar_dd(onp.float64(x))))


COLD = {"trace_compile_mlp": cold_trace_compile_mlp, "grad_of_grad": cold_grad_of_grad}
