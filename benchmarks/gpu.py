"""minijax vs JAX on a GPU, same run, same timing loop (issue 20's rows).

Each row times N calls and blocks once on the last result (per timed batch), for
device-resident inputs (``device_put`` to the GPU first) and host NumPy inputs. It also
prints how long the N calls took to *return* (dispatch alone): when that is close to
the total, the library's host-side dispatch, not the GPU, sets the pace.
Run: ``python benchmarks/gpu.py`` (needs a CUDA device and JAX).
"""

import statistics
import sys
import time

import numpy as onp


def timeit(fn, n, repeats=5):
    """(median ms per call, median ms per call until the calls returned)."""
    fn()
    out = fn()
    _block(out)
    totals, returns = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            out = fn()
        t1 = time.perf_counter()
        _block(out)
        t2 = time.perf_counter()
        totals.append((t2 - t0) / n * 1e3)
        returns.append((t1 - t0) / n * 1e3)
    return statistics.median(totals), statistics.median(returns)


def _block(out):
    for leaf in out if isinstance(out, (tuple, list)) else (out,):
        leaf.block_until_ready()


def workloads(lib, jnp, grad, vmap, jit, put):
    f32 = onp.float32
    rng = onp.random.default_rng(0)
    m = rng.standard_normal((4096, 4096)).astype(f32)
    e = rng.standard_normal(25_000_000).astype(f32)
    w1 = (rng.standard_normal((1024, 2048)) * 0.02).astype(f32)
    b1 = onp.zeros(2048, f32)
    w2 = (rng.standard_normal((2048, 10)) * 0.02).astype(f32)
    b2 = onp.zeros(10, f32)
    xb = rng.standard_normal((2048, 1024)).astype(f32)
    yb = rng.standard_normal((2048, 10)).astype(f32)
    xs = rng.standard_normal((256, 64)).astype(f32)
    ys = rng.standard_normal(256).astype(f32)
    w = rng.standard_normal(64).astype(f32)
    tiny = onp.ones(8, f32)

    matmul = jit(lambda a, b: a @ b)
    fused = jit(lambda x: jnp.sum(jnp.tanh(x) * 2.0 + x * x))

    def loss(p, x, y):
        h = jnp.tanh(x @ p[0] + p[1])
        return jnp.mean((h @ p[2] + p[3] - y) ** 2)
    sgd = jit(lambda p, x, y: tuple(a - 0.01 * g for a, g in zip(p, grad(loss)(p, x, y))))
    pex = jit(vmap(grad(lambda w, x, y: (jnp.dot(x, w) - y) ** 2), in_axes=(None, 0, 0)))
    small = jit(lambda x: x * 2 + 1)
    rows = [
        ("matmul 4096^2", lambda a, b: matmul(a, b), (m, m), 20),
        ("fused elementwise+sum 2.5e7", fused, (e,), 50),
        ("MLP SGD step 2048x1024->2048->10", lambda p, x, y: sgd(p, x, y),
         ((w1, b1, w2, b2), xb, yb), 100),
        ("per-example grads 256", lambda w, x, y: pex(w, x, y), (w, xs, ys), 100),
        ("tiny dispatch x*2+1", small, (tiny,), 1000),
    ]
    out = {}
    for name, fn, args, n in rows:
        dev_args = [tuple(put(a) for a in x) if isinstance(x, tuple) else put(x)
                    for x in args]
        out[name, "device"] = timeit(lambda: fn(*dev_args), n)
        if name.startswith(("matmul", "fused", "tiny")):
            out[name, "host"] = timeit(lambda: fn(*args), max(n // 10, 3))
    return out


def main():
    import jax
    import jax.numpy as jjnp
    import minijax
    import minijax.numpy as mnp
    try:
        jgpu = jax.devices("gpu")[0]   # first: the CUDA plugin loads once per process,
        gpu = minijax.devices("cuda")[0]   # and minijax shares the one JAX loaded
    except RuntimeError as e:   # (minijax's PlatformUnavailableError is one too)
        raise SystemExit(f"benchmarks/gpu.py needs a CUDA device for JAX and minijax: {e}")
    print(f"minijax {minijax.__version__} on {gpu}; JAX {jax.__version__} on {jgpu}")
    mj = workloads("minijax", mnp, minijax.grad, minijax.vmap, minijax.jit,
                   lambda a: minijax.device_put(mnp.asarray(a), gpu))
    jx = workloads("jax", jjnp, jax.grad, jax.vmap, jax.jit,
                   lambda a: jax.device_put(a, jgpu))
    print(f"{'workload':40s} {'inputs':7s} {'minijax ms':>11s} {'JAX ms':>9s} {'ratio':>6s}"
          f" {'mj return':>10s} {'JAX return':>10s}")
    for key in mj:
        (m_total, m_ret), (j_total, j_ret) = mj[key], jx[key]
        print(f"{key[0]:40s} {key[1]:7s} {m_total:11.4f} {j_total:9.4f} "
              f"{m_total / j_total:6.2f} {m_ret:10.4f} {j_ret:10.4f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
