"""Whole-program benchmark: small NumPy programs, NumPy against minijax.numpy, warm.

    python benchmarks/programs/run.py [--repeats K] [--only NAME ...] [--tiny] [--json FILE]

For every program (see ``programs/__init__.py``) and each library: one run whose
result is checked against NumPy's (allclose) and which also serves as the warm-up
(minijax compiles its eager kernels there), then K timed runs of the whole program,
alternating the libraries run by run so that both see the machine's noise alike, and
the minimum is reported. Both libraries use the same loop: the clock stops after
``block`` (``block_until_ready`` on every array in the result; a no-op for NumPy).
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as onp

HERE = os.path.dirname(os.path.abspath(__file__))
# benchmarks/ for ``import programs``, and the checkout's minijax before an installed one
sys.path[:0] = [os.path.dirname(HERE), os.path.dirname(os.path.dirname(HERE))]

import programs  # noqa: E402
from breadth import block  # noqa: E402  (one timing loop's wait, shared)


def to_host(out):
    if isinstance(out, dict):
        return {k: to_host(v) for k, v in out.items()}
    if isinstance(out, (tuple, list)):
        return [to_host(v) for v in out]
    return onp.asarray(out)


def differences(got, want, path="result"):
    """A list of where ``got`` (minijax's result, on the host) differs from ``want``."""
    if isinstance(want, dict):
        return [d for k in want for d in differences(got[k], want[k], f"{path}[{k!r}]")]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: structure"]
        return [d for i, (g, w) in enumerate(zip(got, want))
                for d in differences(g, w, f"{path}[{i}]")]
    if got.shape != want.shape:
        return [f"{path}: shape {got.shape} != {want.shape}"]
    if want.dtype.kind in "fc" or got.dtype.kind in "fc":
        ok = onp.allclose(got, want, rtol=1e-6, atol=1e-9, equal_nan=True)
    else:
        ok = onp.array_equal(got, want)
    if not ok:
        return [f"{path}: values differ (max abs diff "
                f"{onp.max(onp.abs(got.astype(complex) - want.astype(complex)))})"]
    return []


def libraries():
    import minijax.numpy as mnp
    return {"numpy": onp, "minijax": mnp}


def check(name, libs, tiny=False):
    """Run the program once per library; return the mismatches against NumPy's result."""
    mod = programs.load(name)
    results = {lib: to_host(block(mod.run(np, **mod.inputs(tiny)))) for lib, np in libs.items()}
    return differences(results["minijax"], results["numpy"])


def time_program(name, libs, repeats):
    """``{lib: min seconds}`` over ``repeats`` whole runs, libraries alternating."""
    mod = programs.load(name)
    args = mod.inputs()
    best = {lib: float("inf") for lib in libs}
    order = list(libs)
    for _ in range(repeats):
        for lib in order:
            np = libs[lib]
            start = time.perf_counter()
            block(mod.run(np, **args))
            best[lib] = min(best[lib], time.perf_counter() - start)
        order.reverse()
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", "-k", type=int, default=5, help="timed runs per library")
    p.add_argument("--only", nargs="*", help="programs to run (default: all)")
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args(argv)
    names = args.only or list(programs.NAMES)
    libs = libraries()
    rows = {}
    for name in names:
        diff = check(name, libs)            # the warm-up run of each library, and the check
        if diff:
            rows[name] = {"error": "; ".join(diff)}
            print(f"{name}: minijax differs from NumPy: {rows[name]['error']}", file=sys.stderr)
            continue
        t = time_program(name, libs, args.repeats)
        rows[name] = {"numpy_s": t["numpy"], "minijax_s": t["minijax"],
                      "ratio": t["minijax"] / t["numpy"]}
    print("| program | NumPy ms | minijax ms | minijax/NumPy |")
    print("|---|---|---|---|")
    for name, r in rows.items():
        if "error" in r:
            print(f"| {name} | – | – | differs: {r['error'][:60]} |")
        else:
            print(f"| {name} | {r['numpy_s'] * 1e3:.2f} | {r['minijax_s'] * 1e3:.2f} | "
                  f"{r['ratio']:.1f}× |")
    ratios = [r["ratio"] for r in rows.values() if "ratio" in r]
    summary = {}
    if ratios:
        summary = {"median": statistics.median(ratios), "max": max(ratios),
                   "count": len(ratios), "failed": len(rows) - len(ratios)}
        print(f"\nminijax/NumPy over {len(ratios)} programs: median {summary['median']:.1f}×, "
              f"max {summary['max']:.1f}× (min of {args.repeats} warm runs each)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"programs": rows, "summary": summary, "repeats": args.repeats}, fh,
                      indent=1)
    return 1 if len(ratios) < len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
