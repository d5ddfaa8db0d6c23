"""Sharded programs on 1/2/4/8 CPU devices, minijax vs JAX.

    PYTHONPATH=. python benchmarks/sharding.py [--counts 1 2 4 8] [--batches 5] [--json FILE]

Not a test: nothing asserts a time. Each device count runs in a subprocess of its own
(minijax's ``MINIJAX_CPU_DEVICE_COUNT`` and JAX's ``--xla_force_host_platform_device_count``
set to it), with minijax and JAX in the same process timed by the same loop: a batch
of calls, blocking once on the last result, grown until it takes >= 50 ms; the median
per-call time of ``--batches`` batches, minijax's and JAX's batches alternating so that
both see the same load. Workloads:

- ``dp_mlp_step``: one SGD step of a 256-512-10 MLP on a batch of 1024 split over the
  devices (``P('data')``), parameters replicated (XLA inserts the gradient all-reduce).
- ``tp_matmul``: ``x[1024, 512] @ w[512, 512]`` split on the contracting axis
  (``x`` as ``P(None, 'x')``, ``w`` as ``P('x')``: an all-reduce of the result).
- ``compile dp_mlp_step``: the first call of a freshly traced step (trace, lower,
  compile, run), persistent compilation caches off, median of ``--batches`` functions.

Both libraries check their results against NumPy before timing. The machine may have
fewer cores than devices (each device is a thread of one process): compare ratios.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

WORKER_ENV = "_MINIJAX_SHARDING_BENCH_WORKER"


def _batch_size(call, block):
    number = 1
    while True:
        t = time.perf_counter()
        for _ in range(number):
            out = call()
        block(out)
        if time.perf_counter() - t >= 0.05 or number >= 1 << 16:
            return number
        number *= 2


def _time_pair(calls, blocks, batches):
    """Median per-call seconds of each of two callables, their batches alternating (so
    both see the same load on a shared machine)."""
    numbers = [_batch_size(c, b) for c, b in zip(calls, blocks)]
    samples = [[], []]
    for _ in range(batches):
        for k in (0, 1):
            t = time.perf_counter()
            for _ in range(numbers[k]):
                out = calls[k]()
            blocks[k](out)
            samples[k].append((time.perf_counter() - t) / numbers[k])
    return [statistics.median(s) for s in samples]


def _inputs(n):
    rng = np.random.default_rng(0)
    params = {"w1": rng.normal(size=(256, 512)).astype(np.float32) / 16,
              "b1": np.zeros(512, np.float32),
              "w2": rng.normal(size=(512, 10)).astype(np.float32) / 23,
              "b2": np.zeros(10, np.float32)}
    x = rng.normal(size=(1024, 256)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 1024)]
    a = rng.normal(size=(1024, 512)).astype(np.float32)
    b = rng.normal(size=(512, 512)).astype(np.float32) / 22
    return params, x, y, a, b


def _reference_step(params, x, y, lr=0.1):
    h = np.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    z = logits - logits.max(1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    g_logits = (p - y) / len(x)
    g_h = g_logits @ params["w2"].T * (1 - h * h)
    grads = {"w2": h.T @ g_logits, "b2": g_logits.sum(0), "w1": x.T @ g_h, "b1": g_h.sum(0)}
    return {k: params[k] - lr * grads[k] for k in params}


def _library(name, n):
    """(jit, grad, numpy module, tree_map, device_put, NamedSharding, P, mesh, block)."""
    if name == "minijax":
        import minijax as lib
        import minijax.numpy as lnp
        from minijax.sharding import NamedSharding, PartitionSpec, make_mesh
        tree_map = lib.tree_util.tree_map
        mesh = make_mesh((n,), ("x",))
    else:
        import jax as lib
        import jax.numpy as lnp
        from jax.sharding import NamedSharding, PartitionSpec
        tree_map = lib.tree_util.tree_map
        mesh = lib.sharding.Mesh(np.array(lib.devices()[:n]), ("x",))
    assert lib.device_count() == n, (name, lib.device_count(), n)
    return (lib.jit, lib.grad, lnp, tree_map, lib.device_put, NamedSharding, PartitionSpec,
            mesh, lib.block_until_ready)


def _make_step(jit, grad, lnp, tree_map):
    def loss(params, x, y):
        h = lnp.tanh(x @ params["w1"] + params["b1"])
        logits = h @ params["w2"] + params["b2"]
        z = logits - logits.max(1, keepdims=True)
        logp = z - lnp.log(lnp.exp(z).sum(1, keepdims=True))
        return -(logp * y).sum() / x.shape[0]

    def step(params, x, y):
        g = grad(loss)(params, x, y)
        return tree_map(lambda p, d: p - 0.1 * d, params, g)
    return jit(step)


def _worker(n, batches):
    import minijax   # noqa: F401  (both libraries in this process, minijax first)
    import jax
    jax.config.update("jax_enable_compilation_cache", False)
    minijax.config.update("compilation_cache", False)
    params, x, y, a, b = _inputs(n)
    ref_step = _reference_step(params, x, y)
    setups = {}
    for name in ("minijax", "jax"):
        jit, grad, lnp, tree_map, put, NS, P, mesh, block = _library(name, n)
        rep = NS(mesh, P())
        p_s = tree_map(lambda v: put(v, rep), params)
        x_s, y_s = put(x, NS(mesh, P("x"))), put(y, NS(mesh, P("x")))
        step = _make_step(jit, grad, lnp, tree_map)
        out = step(p_s, x_s, y_s)
        for k in params:
            np.testing.assert_allclose(np.asarray(out[k]), ref_step[k], rtol=2e-3, atol=2e-5)
        a_s, b_s = put(a, NS(mesh, P(None, "x"))), put(b, NS(mesh, P("x")))
        mm = jit(lambda u, v: u @ v)
        np.testing.assert_allclose(np.asarray(mm(a_s, b_s)), a @ b, rtol=2e-3, atol=2e-3)

        def compile_once(jit=jit, grad=grad, lnp=lnp, tree_map=tree_map, p_s=p_s,
                         x_s=x_s, y_s=y_s):
            return _make_step(jit, grad, lnp, tree_map)(p_s, x_s, y_s)   # traced anew
        setups[name] = {"dp_mlp_step": lambda s=step, p=p_s, u=x_s, v=y_s: s(p, u, v),
                        "tp_matmul": lambda f=mm, u=a_s, v=b_s: f(u, v),
                        "compile dp_mlp_step": compile_once, "block": block}
    results = {"minijax": {}, "jax": {}}
    for row in ("dp_mlp_step", "tp_matmul"):
        times = _time_pair([setups["minijax"][row], setups["jax"][row]],
                           [setups["minijax"]["block"], setups["jax"]["block"]], batches)
        results["minijax"][row], results["jax"][row] = times
    compiles = {"minijax": [], "jax": []}
    for _ in range(batches):
        for name in ("minijax", "jax"):
            t = time.perf_counter()
            setups[name]["block"](setups[name]["compile dp_mlp_step"]())
            compiles[name].append(time.perf_counter() - t)
    for name in compiles:
        results[name]["compile dp_mlp_step"] = statistics.median(compiles[name])
    print(json.dumps(results))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--json", help="write the raw results here")
    args = parser.parse_args()
    if os.environ.get(WORKER_ENV):
        _worker(int(os.environ[WORKER_ENV]), args.batches)
        return
    table = {}
    for n in args.counts:
        env = dict(os.environ, MINIJAX_CPU_DEVICE_COUNT=str(n), **{WORKER_ENV: str(n)})
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                            f" --xla_force_host_platform_device_count={n}").strip()
        proc = subprocess.run([sys.executable, __file__, "--batches", str(args.batches)],
                              env=env, capture_output=True, text=True, timeout=600)
        if proc.returncode:
            sys.exit(f"{n} devices: the worker failed:\n{proc.stderr[-3000:]}")
        table[n] = json.loads(proc.stdout.strip().splitlines()[-1])
    rows = ["dp_mlp_step", "tp_matmul", "compile dp_mlp_step"]
    print(f"{'workload':22} {'devices':>7} {'minijax ms':>11} {'jax ms':>9} {'ratio':>6}")
    for row in rows:
        for n in args.counts:
            m, j = table[n]["minijax"][row] * 1e3, table[n]["jax"][row] * 1e3
            print(f"{row:22} {n:7d} {m:11.3f} {j:9.3f} {m / j:6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
