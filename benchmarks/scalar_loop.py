"""Scalar loop benchmark: ``for i in range(n): s += x[i] * y[i]`` over 1-d float64
arrays, NumPy against minijax.numpy, warm (issue 19's target: at most 1.6x NumPy).

    python benchmarks/scalar_loop.py [--n N] [--repeats K]

Both libraries run the same function on their own arrays of the same values; the runs
alternate, and the minimum over ``K`` runs of each is reported. The loop's result is a
NumPy scalar for NumPy and a 0-d Array for minijax: the clock stops after ``block``.
"""

import argparse
import os
import sys
import time

import numpy as onp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from breadth import block  # noqa: E402  (one timing loop's wait, shared)
import minijax.numpy as mnp  # noqa: E402


def dot_loop(x, y):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    return s


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    rng = onp.random.default_rng(0)
    hx, hy = rng.random(args.n), rng.random(args.n)
    inputs = {"numpy": (hx, hy), "minijax": (mnp.asarray(hx), mnp.asarray(hy))}
    want = dot_loop(hx, hy)
    best = {}
    for name, (x, y) in inputs.items():
        got = float(onp.asarray(dot_loop(x, y)))   # (the warm-up, and the check)
        if abs(got - want) > 1e-9 * abs(want):
            raise SystemExit(f"{name}: {got} != NumPy's {want}")
        best[name] = float("inf")
    for _ in range(args.repeats):
        for name, (x, y) in inputs.items():
            start = time.perf_counter()
            block(dot_loop(x, y))
            best[name] = min(best[name], time.perf_counter() - start)
    for name, t in best.items():
        print(f"{name:8s} {t * 1e6:9.1f} µs")
    print(f"minijax/NumPy: {best['minijax'] / best['numpy']:.2f}x")


if __name__ == "__main__":
    main()
