"""Peak host memory of grad through a deep chain, with and without checkpoint.

Run: PYTHONPATH=. python benchmarks/checkpoint_memory.py  (eager; tracemalloc sees NumPy buffers)
"""

import tracemalloc

import minijax
import minijax.numpy as np

DEPTH, N, SEGMENTS = 64, 250_000, 16


def layer(x):
    return np.sin(x) * 1.01


def chain(x):
    for _ in range(DEPTH):
        x = layer(x)
    return x


@minijax.checkpoint
def segment(x):
    for _ in range(DEPTH // SEGMENTS):
        x = layer(x)
    return x


def segmented(x):
    for _ in range(SEGMENTS):
        x = segment(x)
    return x


def peak(f, x):
    tracemalloc.start()
    g = minijax.grad(lambda v: f(v).sum())(x)
    g.block_until_ready()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top / 2**20, g


if __name__ == "__main__":
    x = np.linspace(0.0, 1.0, N)
    base, g0 = peak(chain, x)
    remat, g1 = peak(segmented, x)
    assert float(abs(g0 - g1).max()) < 1e-12
    mb = N * 8 / 2**20
    print(f"chain of {DEPTH} layers on {N} float64 ({mb:.1f} MiB per array)")
    print(f"  grad, no checkpoint:            peak {base:7.1f} MiB")
    print(f"  grad, {SEGMENTS} checkpointed segments: peak {remat:7.1f} MiB")
