"""Where a cold first ``jit`` call spends its time, minijax beside JAX.

    python benchmarks/cold_compile_split.py [-n 5] [--only trace_compile_mlp grad_of_grad]

Each sample is a fresh process with every persistent cache off (minijax:
``MINIJAX_COMPILATION_CACHE=0``; JAX: ``JAX_ENABLE_COMPILATION_CACHE=false``); minijax
and JAX processes alternate, and the medians over the samples are printed, in ms of wall time and of process CPU
time (all threads; steadier than wall time on a loaded machine):

- trace: building the jaxpr, autodiff included;
- lower: jaxpr -> StableHLO module (minijax: the text it compiles);
- compile: XLA's compilation (minijax: ``backend.compile_module``, which with the
  cache off is the options plus ``client.compile_and_load``);
- rest: everything else in the first call (argument transfer, execution, results);
- total: the whole first call, as ``run.py`` times it.

minijax is timed through its ordinary first call, with its three phases wrapped; JAX
through ``jit(f).trace(*args)``, ``.lower()``, ``.compile()`` and a call of the
compiled function (its ordinary first call takes the same steps). ``--hlo DIR``
writes each library's lowered program text for comparison.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run  # noqa: E402  (the benchmark driver's environment and subprocess helpers)

PHASES = ("trace", "lower", "compile", "rest", "total")
WORKLOADS = ("trace_compile_mlp", "grad_of_grad")


def _setup(L, name):
    """``(function to jit, args, check)`` as the cold workloads of workloads.py build them."""
    import numpy as onp
    import workloads as w
    L.devices()
    if name == "trace_compile_mlp":
        params = w.mlp_params([784, 512, 512, 10], seed=4)
        x, y = w.mlp_data(128, 784, 10, seed=5)
        ref = w.ref_value_and_grad(params, x, y)
        args = ([(L.asarray(a), L.asarray(b)) for a, b in params], L.asarray(x), L.asarray(y))
        L.block(args)
        return L.value_and_grad(w.make_loss(L)), args, w.close(ref)
    x = w.f32(0.7)
    xa = L.block(L.asarray(x))
    return (L.grad(L.grad(lambda v: w._f_scalar(L.np, v))), (xa,),
            w.close(w._f_scalar_dd(onp.float64(x))))


def _block(out):
    for leaf in (out if isinstance(out, (list, tuple)) else [out]):
        if isinstance(leaf, (list, tuple)):
            _block(leaf)
        elif hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()


def minijax_worker(name, hlo_dir):
    import workloads as w
    from minijax import api
    from minijax import backend
    from minijax.runtime import dispatch
    L = w.load_lib("minijax")
    fun, args, check = _setup(L, name)
    spent = dict.fromkeys(PHASES[:3], 0.0)
    cpu = dict.fromkeys(PHASES[:3], 0.0)
    depth = [0]

    def timed(phase, f, outermost_only=False):
        def wrapper(*a, **k):
            if outermost_only and depth[0]:
                return f(*a, **k)
            depth[0] += 1
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                return f(*a, **k)
            finally:
                spent[phase] += time.perf_counter() - start
                cpu[phase] += time.process_time() - start_cpu
                depth[0] -= 1
        return wrapper

    texts = []

    def lower_and_keep(*a, **k):
        texts.append(lower(*a, **k))
        return texts[-1]

    lower = dispatch.lower_jaxpr
    api.pe.trace_to_jaxpr = timed("trace", api.pe.trace_to_jaxpr, outermost_only=True)
    dispatch.lower_jaxpr = timed("lower", lower_and_keep)
    backend.compile_module = timed("compile", backend.compile_module)
    f = L.jit(fun)
    start, start_cpu = time.perf_counter(), time.process_time()
    out = f(*args)
    _block(out)
    total, total_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    check(out)
    if hlo_dir:
        with open(os.path.join(hlo_dir, f"{name}.minijax.mlir"), "w") as fh:
            fh.write("\n".join(texts))
    assert "jax" not in sys.modules
    return {"wall": dict(spent, rest=total - sum(spent.values()), total=total),
            "cpu": dict(cpu, rest=total_cpu - sum(cpu.values()), total=total_cpu)}


def jax_worker(name, hlo_dir):
    import workloads as w
    L = w.load_lib("jax")
    fun, args, check = _setup(L, name)
    import jax
    f = jax.jit(fun)
    wall, cpu = [time.perf_counter()], [time.process_time()]

    def mark():
        wall.append(time.perf_counter())
        cpu.append(time.process_time())

    traced = f.trace(*args)
    mark()
    lowered = traced.lower()
    mark()
    compiled = lowered.compile()
    mark()
    out = compiled(*args)
    _block(out)
    mark()
    check(out)
    if hlo_dir:
        with open(os.path.join(hlo_dir, f"{name}.jax.mlir"), "w") as fh:
            fh.write(lowered.as_text())
    return {kind: dict(zip(PHASES, [t[i + 1] - t[i] for i in range(4)] + [t[4] - t[0]]))
            for kind, t in (("wall", wall), ("cpu", cpu))}


def _sample(lib, name, hlo_dir):
    extra = {"MINIJAX_COMPILATION_CACHE": "0"} if lib == "minijax" else {}
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", lib, name]
    if hlo_dir:
        cmd += ["--hlo", hlo_dir]
    proc = subprocess.run(cmd, env=run._env(lib, **extra), capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{lib} {name} worker failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-n", type=int, default=5, help="fresh processes per library (median)")
    p.add_argument("--only", nargs="*", default=list(WORKLOADS))
    p.add_argument("--libs", default="minijax,jax")
    p.add_argument("--hlo", default=None, help="write the lowered programs to this folder")
    p.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        lib, name = a.worker
        worker = minijax_worker if lib == "minijax" else jax_worker
        print(json.dumps(worker(name, a.hlo)))
        return
    if a.hlo:
        os.makedirs(a.hlo, exist_ok=True)
    libs = a.libs.split(",")
    for name in a.only:
        for lib in libs:               # a warm-up process each: bytecode, page cache
            _sample(lib, name, None)
        samples = {lib: [] for lib in libs}
        for i in range(a.n):
            for lib in libs:
                samples[lib].append(_sample(lib, name, a.hlo if i == 0 else None))
        print(f"\n{name} (median of {a.n} fresh processes each, ms)")
        print("| library | " + " | ".join(PHASES) + " |")
        print("|---" * (len(PHASES) + 1) + "|")
        for kind in ("wall", "cpu"):
            med = {}
            for lib in libs:
                med[lib] = {ph: statistics.median(s[kind][ph] for s in samples[lib])
                            for ph in PHASES}
                print(f"| {lib} ({kind}) | " + " | ".join(
                    f"{med[lib][ph] * 1e3:.1f}" for ph in PHASES) + " |")
            if set(libs) >= {"minijax", "jax"}:
                print(f"| minijax/JAX ({kind}) | " + " | ".join(
                    f"{med['minijax'][ph] / med['jax'][ph]:.2f}×" if med["jax"][ph] > 0
                    else "—" for ph in PHASES) + " |")
        for lib in libs:
            print(f"  {lib} wall totals: " + ", ".join(f"{s['wall']['total'] * 1e3:.0f}"
                                                       for s in samples[lib]))


if __name__ == "__main__":
    main()
