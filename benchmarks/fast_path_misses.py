"""Eager calls that used to miss the NumPy host path (DESIGN 3), timed against NumPy.

    PYTHONPATH=. python benchmarks/fast_path_misses.py [--batches 7] [--json FILE]

Not a test: nothing asserts a time. Each row runs the same statement on minijax Arrays
and on NumPy arrays holding the same values, with the same loop (``timeit`` autoranged
to ~0.1 s a batch, the best of ``--batches`` batches, in microseconds per call), and
prints the ratio. Run it with an older checkout first on ``PYTHONPATH`` for the
"before" numbers. The machine may be shared: compare ratios, and rerun for the noise.
"""

import argparse
import json
import timeit

import numpy as onp

import minijax.numpy as mnp

N, C = 64, 10   # a softmax gradient's batch and classes

# name -> (setup statement, timed statement); ``np`` is minijax.numpy or numpy
ROWS = {
    "x[range(N), list(y)]": ("", "x[range(N), list(y)]"),
    "x[range(N), y] -= 1": ("", "x[range(N), y] -= 1"),
    "list(Y)  (64 elements)": ("", "list(Y)"),
    "np.log(2 * np.pi)": ("", "np.log(2 * np.pi)"),
    "-0.5 * c  (c = np.log(2 * np.pi))": ("c = np.log(2 * np.pi)", "-0.5 * c"),
    "c * x - c": ("c = np.log(2 * np.pi)", "c * x - c"),
    "-c": ("c = np.log(2 * np.pi)", "-c"),
    "g * m  (m = np.where(x > 0.5, 1.0, 0.0))": ("m = np.where(x > 0.5, 1.0, 0.0)", "x * m"),
}


def _namespace(np, rng_seed=0):
    rng = onp.random.default_rng(rng_seed)
    x = rng.uniform(size=(N, C))
    y = rng.integers(0, C, N)
    Y = rng.integers(0, C, N)
    conv = np.asarray
    return {"np": np, "N": N, "x": conv(x), "y": conv(y), "Y": conv(Y)}


def _time(setup, stmt, ns, batches):
    ns = dict(ns)
    exec(setup, ns)
    timer = timeit.Timer(stmt, globals=ns)
    number, _ = timer.autorange()
    return min(timer.repeat(batches, number)) / number * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", type=int, default=7)
    p.add_argument("--json")
    args = p.parse_args()
    rows = []
    print(f"{'statement':36} {'minijax us':>11} {'numpy us':>9} {'ratio':>7}")
    for name, (setup, stmt) in ROWS.items():
        mj = _time(setup, stmt, _namespace(mnp), args.batches)
        ref = _time(setup, stmt, _namespace(onp), args.batches)
        rows.append({"name": name, "minijax_us": mj, "numpy_us": ref, "ratio": mj / ref})
        print(f"{name:36} {mj:11.2f} {ref:9.2f} {mj / ref:7.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
