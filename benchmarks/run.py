"""Side-by-side benchmarks: minijax vs JAX vs NumPy (see benchmarks/README.md).

    python benchmarks/run.py [--quick] [--only NAME ...] [--libs minijax,jax,numpy]

Every measurement runs in a subprocess of this script, one library per process
(minijax's processes never import JAX), on the same seeded float32 inputs; every
result is checked against a NumPy float64 reference before it is timed, and a wrong
result posts no time (FAILED). Prints a markdown table of medians.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

LIBS = ("minijax", "jax", "numpy")

# (row, workload for --only, unit, description)
ROWS = [
    ("import", "import", "s", "`import <lib>.numpy`, in-process wall time"),
    ("import (peak RSS)", "import", "MB", "peak RSS after the import"),
    ("dispatch_jit_small", "dispatch_jit_small", "s", "jitted `x * y + 1`, 4 elements, per call"),
    ("dispatch_eager_op", "dispatch_eager_op", "s", "eager `add(x, y)`, 4 elements"),
    ("eager_chain_100", "eager_chain_100", "s", "100 eager elementwise ops, 1000 elements"),
    ("trace_compile_mlp (cold)", "trace_compile_mlp", "s",
     "first `jit(value_and_grad(loss))` call, MLP 784-512-512-10, fresh process, no disk cache"),
    ("trace_compile_mlp (cold, warm disk cache)", "trace_compile_mlp", "s",
     "same, minijax with a warm compilation cache (JAX column: its cold time, no cache)"),
    ("mlp_train_step", "mlp_train_step", "s", "steady-state jitted SGD step, batch 128"),
    ("per_example_grads", "per_example_grads", "s",
     "`jit(vmap(grad(loss)))`, MLP 64-128-10, batch 128"),
    ("elementwise_fused_1e7", "elementwise_fused_1e7", "s",
     "jitted `tanh(x) * 2 + sin(x) ** 2`, 1e7 elements (NumPy: eager)"),
    ("matmul_1024 (jit)", "matmul_1024", "gflops", "1024x1024 float32 matmul, jitted"),
    ("matmul_1024 (eager)", "matmul_1024", "gflops", "1024x1024 float32 matmul, eager"),
    ("fori_loop_1000", "fori_loop_1000", "s",
     "jitted `fori_loop(0, 1000, body)`, 16 elements (NumPy: Python loop)"),
    ("grad_of_grad (cold)", "grad_of_grad", "s",
     "first `jit(grad(grad(f)))` call, fresh process, no disk cache"),
    ("grad_of_grad (cold, warm disk cache)", "grad_of_grad", "s",
     "same, minijax with a warm compilation cache (JAX column: its cold time, no cache)"),
    ("grad_of_grad", "grad_of_grad", "s", "steady state of `jit(grad(grad(f)))`, scalar"),
]
WORKLOADS = list(dict.fromkeys(r[1] for r in ROWS))


# ------------------------------------------------------------------ in a worker process

def measure(fn, block, quick):
    """Median seconds per call of ``block(fn())``."""
    target, repeats = (0.005, 3) if quick else (0.05, 7)

    def timed(number):
        start = time.perf_counter()
        for _ in range(number):
            block(fn())
        return time.perf_counter() - start

    number = 1
    while True:
        t = timed(number)
        if t >= target or number >= 1 << 20:
            break
        number *= 2 if t > target / 4 else 8
    return statistics.median(timed(number) / number for _ in range(repeats))


def worker(lib_name, only, quick):
    import workloads
    L = workloads.load_lib(lib_name)
    results = {}
    for wl in workloads.STEADY:
        if wl.__name__ not in only:
            continue
        try:
            cases = list(wl(L, quick))
        except Exception as e:
            results[wl.__name__] = {"status": "FAILED", "msg": _msg(e)}
            continue
        for case in cases:
            if case.na:
                results[case.row] = {"status": "n/a", "msg": case.na}
                continue
            try:
                case.check(L.block(case.fn()))
            except Exception as e:
                results[case.row] = {"status": "FAILED", "msg": _msg(e)}
                continue
            results[case.row] = {"status": "ok", "value": measure(case.fn, L.block, quick),
                                 "unit": case.unit}
    if lib_name == "minijax":
        assert "jax" not in sys.modules, "the minijax worker imported JAX"
    print(json.dumps(results))


def cold_worker(lib_name, name):
    import workloads
    L = workloads.load_lib(lib_name)
    try:
        seconds = workloads.COLD[name](L)
        out = {"status": "ok", "value": seconds}
    except Exception as e:
        out = {"status": "FAILED", "msg": _msg(e)}
    if lib_name == "minijax":
        from minijax.backend import compile_cache
        out["cache"] = dict(compile_cache.stats)
        if "jax" in sys.modules:
            out = {"status": "FAILED", "msg": "the minijax process imported JAX"}
    print(json.dumps(out))


def import_worker(lib_name):
    import resource
    module = {"minijax": "minijax.numpy", "jax": "jax.numpy", "numpy": "numpy"}[lib_name]
    start = time.perf_counter()
    __import__(module)
    seconds = time.perf_counter() - start
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if lib_name == "minijax":
        assert "jax" not in sys.modules, "importing minijax imported JAX"
    print(json.dumps({"status": "ok", "value": seconds, "rss": rss_mb}))


def _msg(e):
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    return " ".join(text)[:300]


# ------------------------------------------------------------------ the driver

def _env(lib, **extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    # Import from cached bytecode, as an installed package does (pip compiles JAX's
    # at install; an editable minijax gets its cache on the warm-up import).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("JAX_PLATFORMS", "cpu")
    if lib == "jax":
        env.pop("JAX_COMPILATION_CACHE_DIR", None)
        env["JAX_ENABLE_COMPILATION_CACHE"] = "false"
    env.update(extra)
    return env


def _sub(args, env, timeout=1800):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), *args], env=env,
                          capture_output=True, text=True, timeout=timeout)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        return {"status": "FAILED", "msg": f"worker exited {proc.returncode}: {tail}"[:300]}
    return json.loads(lines[-1])


def _median_of(runs):
    bad = [r for r in runs if r["status"] != "ok"]
    if bad:
        return bad[0]
    out = {"status": "ok", "value": statistics.median(r["value"] for r in runs),
           "runs": [r["value"] for r in runs]}
    if "rss" in runs[0]:
        out["rss"] = statistics.median(r["rss"] for r in runs)
    return out


def _available(lib):
    if lib != "jax":
        return True
    probe = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True,
                           env=_env("jax"))
    return probe.returncode == 0


def drive(libs, only, quick, log):
    """Run everything; workloads are the outer loop and libraries the inner one, so a
    change in the machine's load affects every column of a row alike."""
    table = {lib: {} for lib in LIBS}
    active = []
    for lib in LIBS:
        if lib not in libs:
            continue
        if _available(lib):
            active.append(lib)
        else:
            for row, *_ in ROWS:
                table[lib][row] = {"status": "n/a", "msg": f"{lib} not importable"}
            log(f"{lib}: not importable, its column says n/a")
    n_cold = 1 if quick else 5
    if "import" in only:
        samples = {lib: [] for lib in active}
        log(f"import: {n_cold + 2} fresh processes per library, after a warm-up import")
        for lib in active:
            _sub(["--import", lib], _env(lib))
        for _ in range(n_cold + 2):
            for lib in active:
                samples[lib].append(_sub(["--import", lib], _env(lib)))
        for lib in active:
            r = _median_of(samples[lib])
            table[lib]["import"] = r
            table[lib]["import (peak RSS)"] = (
                {"status": "ok", "value": r["rss"]} if r["status"] == "ok" else r)
    for wl in WORKLOADS:
        if wl not in only or wl in ("import", "trace_compile_mlp"):
            continue
        for lib in active:
            log(f"{wl}: {lib}")
            r = _sub(["--worker", lib, "--only", wl] + (["--quick"] if quick else []),
                     _env(lib))
            for row, w, *_ in ROWS:
                if w != wl or row.endswith(")") and "cold" in row:
                    continue
                if "status" in r:            # the worker itself failed
                    table[lib][row] = r
                elif row in r:
                    table[lib][row] = r[row]
                elif wl in r:                # the workload failed before yielding rows
                    table[lib][row] = r[wl]
    for name in ("trace_compile_mlp", "grad_of_grad"):
        if name not in only:
            continue
        cold_libs = [lib for lib in active if lib != "numpy"]
        log(f"{name}: cold, {n_cold} fresh process(es) per library and cache state")
        tmp = tempfile.mkdtemp(prefix="minijax-bench-cache-")
        try:
            cmd = ["--cold", name, "--lib"]
            warm_env = _env("minijax", MINIJAX_COMPILATION_CACHE="1", MINIJAX_CACHE_DIR=tmp)
            prime = _sub(cmd + ["minijax"], warm_env) if "minijax" in cold_libs else None
            cold = {lib: [] for lib in cold_libs}
            warm = []
            for _ in range(n_cold):
                for lib in cold_libs:
                    if lib == "minijax":
                        cold[lib].append(_sub(cmd + [lib],
                                              _env(lib, MINIJAX_COMPILATION_CACHE="0")))
                        warm.append(_sub(cmd + [lib], warm_env))
                    else:
                        cold[lib].append(_sub(cmd + [lib], _env(lib)))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for lib in cold_libs:
            table[lib][f"{name} (cold)"] = _median_of(cold[lib])
            if lib != "minijax":
                table[lib][f"{name} (cold, warm disk cache)"] = table[lib][f"{name} (cold)"]
                continue
            w = _median_of([prime] if prime["status"] != "ok" else warm)
            if w["status"] == "ok" and not all(r["cache"]["hits"] > 0
                                               and r["cache"]["misses"] == 0 for r in warm):
                w = {"status": "FAILED", "msg": "a warm-cache run missed the cache"}
            table[lib][f"{name} (cold, warm disk cache)"] = w
    return table


def _fmt_time(s):
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def _cell(r, unit):
    if r is None:
        return "—"
    if r["status"] == "n/a":
        return f"n/a ({r['msg']})" if r.get("msg") else "n/a"
    if r["status"] != "ok":
        return "FAILED"
    v = r["value"]
    if unit == "MB":
        return f"{v:.0f} MB"
    if unit == "gflops":
        flops = 2 * 1024 ** 3
        return f"{_fmt_time(v)} ({flops / v / 1e9:.0f} GFLOP/s)"
    return _fmt_time(v)


def _ratio(a, b):
    if not a or not b or a["status"] != "ok" or b["status"] != "ok":
        return "—"
    return f"{a['value'] / b['value']:.2f}×"


def render(table, only):
    out = ["| workload | what | minijax | JAX | NumPy | minijax/JAX | minijax/NumPy |",
           "|---|---|---|---|---|---|---|"]
    failures = []
    for row, wl, unit, desc in ROWS:
        if wl not in only:
            continue
        m, j, n = (table[lib].get(row) for lib in LIBS)
        out.append(f"| {row} | {desc} | {_cell(m, unit)} | {_cell(j, unit)} | "
                   f"{_cell(n, unit)} | {_ratio(m, j)} | {_ratio(m, n)} |")
        for lib, r in zip(LIBS, (m, j, n)):
            if r and r["status"] == "FAILED":
                failures.append(f"- {row} / {lib}: {r['msg']}")
    text = "\n".join(out)
    if failures:
        text += "\n\nFailures:\n" + "\n".join(failures)
    return text


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer repeats and processes")
    p.add_argument("--only", nargs="+", metavar="NAME", choices=WORKLOADS,
                   help="run only these workloads")
    p.add_argument("--libs", default=",".join(LIBS), help="comma-separated subset of "
                   + ",".join(LIBS))
    p.add_argument("--json", metavar="FILE", help="also write the raw results here")
    p.add_argument("--worker", choices=LIBS, help=argparse.SUPPRESS)
    p.add_argument("--cold", choices=("trace_compile_mlp", "grad_of_grad"),
                   help=argparse.SUPPRESS)
    p.add_argument("--lib", choices=LIBS, help=argparse.SUPPRESS)
    p.add_argument("--import", dest="import_", choices=LIBS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    only = set(args.only or WORKLOADS)
    if args.worker:
        return worker(args.worker, only, args.quick)
    if args.cold:
        return cold_worker(args.lib, args.cold)
    if args.import_:
        return import_worker(args.import_)
    libs = [lib for lib in args.libs.split(",") if lib]
    start = time.time()
    # minijax's processes use a compilation cache of their own, removed at the end:
    # the run neither reads nor fills the user's cache.
    run_cache = tempfile.mkdtemp(prefix="minijax-bench-run-cache-")
    os.environ["MINIJAX_CACHE_DIR"] = run_cache
    try:
        table = drive(libs, only, args.quick,
                      lambda msg: print(f"[{time.time() - start:6.1f}s] {msg}",
                                        file=sys.stderr, flush=True))
    finally:
        shutil.rmtree(run_cache, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)
    print(render(table, only))
    print(f"\nmedians; ratios are time ratios (below 1 means minijax is faster); "
          f"{'--quick, ' if args.quick else ''}python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(1)
