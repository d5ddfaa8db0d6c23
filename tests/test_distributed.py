"""Many processes (``minijax.distributed``) on 127.0.0.1: each test spawns the processes
as subprocesses of this file (``python tests/test_distributed.py SCENARIO RANK N PORT``)
with a deadline on every one. NumPy gives the values (a hand-written MLP gradient)."""

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import minijax

DEADLINE = 60   # seconds, for each process
B, D, H = 8, 4, 8   # global batch, features, hidden units


def _data():
    rng = np.random.default_rng(0)
    params = {"w1": rng.normal(size=(D, H)), "b1": rng.normal(size=H),
              "w2": rng.normal(size=(H, 1)), "b2": rng.normal(size=1)}
    return params, rng.normal(size=(B, D)), rng.normal(size=(B, 1))


def _numpy_value_and_grad(p, x, y):
    h = np.tanh(x @ p["w1"] + p["b1"])
    r = h @ p["w2"] + p["b2"] - y
    dout = 2 * r / r.size
    dz = (dout @ p["w2"].T) * (1 - h ** 2)
    return np.mean(r ** 2), {"w1": x.T @ dz, "b1": dz.sum(0), "w2": h.T @ dout,
                             "b2": dout.sum(0)}


# ---------------------------------------------------------------- the processes

def _worker(scenario, rank, n, port):
    import minijax.numpy as jnp
    from minijax.experimental import multihost_utils
    from minijax.runtime.sharding import local_pieces
    from minijax.sharding import NamedSharding, P

    address = f"127.0.0.1:{port}"
    if scenario == "mlp":
        with pytest.raises(NotImplementedError, match="local_device_ids"):
            minijax.distributed.initialize(address, n, rank, local_device_ids=[0])
        with pytest.raises(ValueError, match="process_id < num_processes"):
            minijax.distributed.initialize(address, n, n)
        assert not minijax.distributed.is_initialized()
    if scenario in ("dead0", "raise"):
        # the survivor is blocked in a collective when its peer dies: it is ended after
        # this grace whatever its length (3 s by default: idle time for this test)
        minijax.distributed.DELIVERY_GRACE = 0.5
    timeout = 1 if scenario == "missing" else 30
    minijax.distributed.initialize(address, n, rank, initialization_timeout=timeout,
                                   heartbeat_timeout_seconds=10)
    assert minijax.distributed.is_initialized()
    assert minijax.process_index() == rank and minijax.process_count() == n
    local = minijax.local_devices()
    assert all(d.process_index == rank for d in local)
    assert minijax.local_device_count() == len(local)
    assert minijax.device_count() == n * len(local)
    assert [d.process_index for d in minijax.devices()] == sorted(
        d.process_index for d in minijax.devices())
    assert len({d.id for d in minijax.devices()}) == minijax.device_count()

    mesh = minijax.make_mesh((minijax.device_count(),), ("d",))
    rows = NamedSharding(mesh, P("d"))
    replicated = NamedSharding(mesh, P())
    params, x, y = _data()
    block = slice(rank * B // n, (rank + 1) * B // n)
    gx = minijax.make_array_from_process_local_data(rows, x[block])
    gy = minijax.make_array_from_process_local_data(rows, y[block], (B, 1))
    assert gx.shape == (B, D) and not gx.is_fully_addressable
    assert gx.sharding.addressable_devices == set(local)

    def loss(p, x, y):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

    step = minijax.jit(minijax.value_and_grad(loss), in_shardings=(replicated, rows, rows),
                       out_shardings=replicated)
    value, grads = step(params, gx, gy)
    result = {"loss": float(value), **{k: np.asarray(v).tolist() for k, v in grads.items()}}

    if scenario == "mlp":
        with pytest.raises(RuntimeError, match="process_allgather"):
            np.asarray(gx)
        for device, index, piece in local_pieces(gx._buffer, gx.sharding, gx.aval):
            assert device.process_index == rank
            np.testing.assert_array_equal(piece, x[index])
        total = minijax.jit(jnp.sum)
        cb = minijax.make_array_from_callback((B, D), rows, lambda index: x[index])
        np.testing.assert_allclose(float(total(cb)), x.sum())
        singles = [minijax.device_put(x[index], device)
                   for device, index in rows.addressable_devices_indices_map((B, D)).items()]
        assert len(singles) == len(local)
        sd = minijax.make_array_from_single_device_arrays((B, D), rows, singles)
        np.testing.assert_allclose(float(total(sd)), x.sum())
        np.testing.assert_array_equal(multihost_utils.process_allgather(gx, tiled=True), x)
        np.testing.assert_array_equal(multihost_utils.process_allgather(np.array([rank])),
                                      np.arange(n)[:, None])
        multihost_utils.sync_global_devices("end")
        with pytest.raises(RuntimeError, match="must be called before"):
            minijax.distributed.initialize(address, n, rank)
    print("RESULT " + json.dumps(result), flush=True)
    if scenario == "dead0" and rank == 0:
        # one more step first: its collective completes only once the others have
        # printed their result and joined it (else, on a loaded machine, it could die
        # while a survivor was still finishing the result's own collectives)
        step(params, gx, gy)[0].block_until_ready()
        os._exit(7)   # dies without a word
    if scenario == "raise" and rank == n - 1:
        raise KeyError("a bug in the last process")   # ends on an uncaught exception
    if scenario in ("dead0", "raise"):
        while True:       # the others are in collectives when it dies
            step(params, gx, gy)[0].block_until_ready()
    minijax.distributed.shutdown()
    assert not minijax.distributed.is_initialized()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(scenario, n, devices_each, ranks=None):
    """Start processes ``ranks`` (all n by default) of an n-process run."""
    port = _free_port()
    env = dict(os.environ, MINIJAX_CPU_DEVICE_COUNT=str(devices_each),
               PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(
                   os.path.abspath(minijax.__file__)))] + sys.path))
    return [subprocess.Popen([sys.executable, __file__, scenario, str(r), str(n), str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
            for r in (range(n) if ranks is None else ranks)]


def _wait(procs):
    """``[(returncode, stdout, stderr, seconds)]`` once each process ended (all are
    killed at DEADLINE, and the test fails)."""
    start = time.monotonic()
    out = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=max(1.0, DEADLINE - (time.monotonic() - start)))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            o, e = p.communicate()
            pytest.fail(f"a process passed its {DEADLINE} s deadline:\n{e[-3000:]}")
        out.append((p.returncode, o, e, time.monotonic() - start))
    return out


def _run(scenario, n, devices_each):
    return _wait(_start(scenario, n, devices_each))


def _result(stdout):
    line, = [s for s in stdout.splitlines() if s.startswith("RESULT ")]
    return json.loads(line[7:])


@pytest.mark.parametrize("n,devices_each", [(2, 2), (4, 1)])
def test_data_parallel_mlp_across_processes(n, devices_each):
    runs = _run("mlp", n, devices_each)
    for code, out, err, _ in runs:
        assert code == 0, err[-3000:]
    params, x, y = _data()
    value, grads = _numpy_value_and_grad(params, x, y)
    for _, out, _, _ in runs:
        got = _result(out)
        np.testing.assert_allclose(got["loss"], value, rtol=1e-5)
        for k, g in grads.items():
            np.testing.assert_allclose(np.array(got[k]), g, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("victim", [1, 0])
def test_dead_peer_is_a_named_error(victim):
    # process 1 ends on an uncaught exception; process 0 is killed (the coordination
    # service lives in a process of its own, so the others outlive it)
    runs = _run("dead0" if victim == 0 else "raise", 2, 2)
    if victim == 0:
        assert runs[0][0] == 7
    else:
        assert runs[1][0] == 1 and "KeyError: 'a bug in the last process'" in runs[1][2]
    code, out, err, seconds = runs[1 - victim]
    assert "RESULT" in out
    assert code == 1 and "minijax.errors.DistributedError" in err, err[-3000:]
    assert "Aborted" not in err
    assert f"process {victim} died" in err


def test_missing_peer_is_a_named_error():
    # alone: process 0 (which serves the others), and process 1 (no one serves it)
    runs = _wait(_start("missing", 2, 1, ranks=[0]) + _start("missing", 2, 1, ranks=[1]))
    for code, out, err, seconds in runs:
        assert code == 1 and "minijax.errors.DistributedError" in err, err[-3000:]
        assert "could not meet the others" in err and "initialization_timeout=1" in err


def test_initialize_after_the_backend_started_is_refused():
    minijax.devices()
    with pytest.raises(RuntimeError, match="must be called before"):
        minijax.distributed.initialize("127.0.0.1:1", 2, 0)
    assert not minijax.distributed.is_initialized()
    minijax.distributed.shutdown()   # (nothing to shut down: does nothing)


if __name__ == "__main__":
    _worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
