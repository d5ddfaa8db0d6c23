"""The cost of one cross-process all-reduce: minijax vs JAX, two processes on 127.0.0.1.

Each library runs the same program in two fresh processes of one device each: a sum over
an axis split across the processes (``jit(lambda x: x.sum(0))`` with the result
replicated: XLA's partitioner makes it one all-reduce over gloo/TCP), timed over the
same loop (``f(x).block_until_ready()``) after 200 warm-up calls; process 0 reports the median
per call; the libraries take turns for ``--rounds`` rounds and the best median counts. Not a test: nothing asserts a time.

    python benchmarks/distributed.py [--sizes 1 1024 262144] [--calls 200] [--rounds 3]
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(lib, rank, port, sizes, calls):
    import numpy as np
    if lib == "jax":
        import jax
        jax.config.update("jax_platforms", "cpu")
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.config.update("jax_num_cpu_devices", 1)
        from jax.sharding import NamedSharding, PartitionSpec as P
        mod = jax
    else:
        import minijax
        minijax.config.update("cpu_device_count", 1)
        from minijax.sharding import NamedSharding, P
        mod = minijax
    mod.distributed.initialize(f"127.0.0.1:{port}", 2, rank, initialization_timeout=60)
    mesh = mod.make_mesh((2,), ("d",), devices=mod.devices())
    split, whole = NamedSharding(mesh, P("d")), NamedSharding(mesh, P())
    out = {}
    for n in sizes:
        x = mod.make_array_from_process_local_data(split, np.full((1, n), rank + 1.0,
                                                                  np.float32))
        f = mod.jit(lambda a: a.sum(0), out_shardings=whole)
        y = f(x)
        assert float(np.asarray(y)[0]) == 3.0
        for _ in range(200):   # (a count, not a time: both processes make the same calls)
            f(x).block_until_ready()
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            f(x).block_until_ready()
            times.append(time.perf_counter() - t)
        out[n] = sorted(times)[len(times) // 2]
    mod.distributed.shutdown()
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def run(lib, sizes, calls):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", lib, str(r), str(port),
                               "--sizes", *map(str, sizes), "--calls", str(calls)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(2)]
    outs = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise SystemExit(f"{lib}: a process passed its deadline")
        if p.returncode:
            raise SystemExit(f"{lib} failed:\n{e[-3000:]}")
        outs.append(o)
    line, = [s for s in outs[0].splitlines() if s.startswith("RESULT ")]
    return {int(k): v for k, v in json.loads(line[7:]).items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 1024, 262144])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--worker", nargs=3)
    a = ap.parse_args()
    if a.worker:
        lib, rank, port = a.worker
        worker(lib, int(rank), port, a.sizes, a.calls)
        return
    # the loopback latency swings with the machine's load: the libraries take turns,
    # and each one's best round counts
    mini, jax = {}, {}
    for _ in range(a.rounds):
        for lib, best in (("minijax", mini), ("jax", jax)):
            for n, t in run(lib, a.sizes, a.calls).items():
                best[n] = min(best.get(n, t), t)
    print(f"{'floats/process':>15} {'minijax ms':>11} {'JAX ms':>9} {'ratio':>6}")
    for n in a.sizes:
        print(f"{n:>15} {mini[n] * 1e3:>11.3f} {jax[n] * 1e3:>9.3f} {mini[n] / jax[n]:>6.2f}")


if __name__ == "__main__":
    main()
