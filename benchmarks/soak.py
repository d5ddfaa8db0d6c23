"""Soak test (not a test): resident memory over many jitted calls and many shapes.

    python benchmarks/soak.py [--calls 1000000] [--shapes 10000] [--quick]

Phase 1 calls one jitted function ``--calls`` times on the same small input and
prints the RSS growth per call after a warm-up (it should be ~0: nothing is kept per
call). Phase 2 calls one jitted function on ``--shapes`` distinct input shapes, each
a new compilation; with the bounded per-function cache (``jit_cache_size``) RSS must
level off instead of growing with the number of shapes. The persistent compilation
cache is off for the run.
"""

import argparse
import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as onp  # noqa: E402

import minijax  # noqa: E402
import minijax.numpy as np  # noqa: E402

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss():
    """Current resident set size in bytes."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * _PAGE


def calls_phase(n, report_every):
    f = minijax.jit(lambda a, b: a * b + 1.0)
    x = np.asarray(onp.arange(4.0))
    y = np.asarray(onp.ones(4))
    for _ in range(20_000):          # warm-up: caches, allocator pools
        f(x, y)
    gc.collect()
    start_rss, start = rss(), time.perf_counter()
    print(f"calls: start RSS {start_rss / 2**20:.1f} MB")
    done = 0
    while done < n:
        step = min(report_every, n - done)
        for _ in range(step):
            f(x, y)
        done += step
        print(f"  {done:>9,} calls  RSS {rss() / 2**20:8.1f} MB  "
              f"(+{(rss() - start_rss) / done:6.1f} B/call)", flush=True)
    gc.collect()
    growth = rss() - start_rss
    seconds = time.perf_counter() - start
    print(f"calls: {n:,} in {seconds:.1f} s ({seconds / n * 1e6:.2f} µs/call); RSS growth "
          f"{growth / 2**20:.2f} MB = {growth / n:.1f} bytes/call")
    return growth / n


def shapes_phase(n, report_every):
    f = minijax.jit(lambda a: a * 2.0 + 1.0)
    gc.collect()
    start_rss, start = rss(), time.perf_counter()
    print(f"shapes: start RSS {start_rss / 2**20:.1f} MB, per-function cache "
          f"{minijax.config.jit_cache_size} signatures")
    samples = []
    for i in range(1, n + 1):
        f(np.asarray(onp.zeros(i))).block_until_ready()
        if i % report_every == 0 or i == n:
            gc.collect()
            samples.append((i, rss()))
            print(f"  {i:>6,} shapes  RSS {samples[-1][1] / 2**20:8.1f} MB  "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    half = samples[len(samples) // 2][1]
    print(f"shapes: RSS growth {(samples[-1][1] - start_rss) / 2**20:.1f} MB over {n:,} "
          f"shapes; second half {(samples[-1][1] - half) / 2**20:.1f} MB")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=1_000_000)
    p.add_argument("--shapes", type=int, default=10_000)
    p.add_argument("--quick", action="store_true", help="10^5 calls, 1000 shapes")
    args = p.parse_args(argv)
    if args.quick:
        args.calls, args.shapes = 100_000, 1_000
    minijax.config.update("compilation_cache", False)
    if args.calls:
        calls_phase(args.calls, max(1, args.calls // 10))
    if args.shapes:
        shapes_phase(args.shapes, max(1, args.shapes // 10))


if __name__ == "__main__":
    main()
