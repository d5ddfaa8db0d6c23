"""Issue 21's test matrix on 1, 2, 4 and 8 CPU devices: the MLP's value_and_grad,
per-example gradients, a data-parallel training loop, a tensor-parallel matmul,
shard_map with psum/all_gather/ppermute and their gradients, and pmap.

Each device count runs in one minijax subprocess (JAX blocked from import there); one
JAX subprocess forced to 8 host devices runs the same programs on meshes of its first
1, 2, 4 and 8 devices. Sharded results must equal minijax's unsharded ones and NumPy's
(values), JAX's values, and JAX's ``out.sharding`` for the shardings chosen by
propagation. This file is also the subprocesses' program (``python <this file> LIB N
OUT``)."""

import importlib
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np
import pytest

COUNTS = (1, 2, 4, 8)
B, D_IN, H, D_OUT = 16, 3, 16, 2     # every extent a multiple of 8
LR, STEPS = 0.1, 3


def _data():
    rng = np.random.default_rng(21)
    params = (rng.normal(size=(D_IN, H)).astype(np.float32) * 0.5,
              rng.normal(size=(H,)).astype(np.float32) * 0.1,
              rng.normal(size=(H, D_OUT)).astype(np.float32) * 0.5)
    xb = rng.normal(size=(B, D_IN)).astype(np.float32)
    yb = rng.normal(size=(B, D_OUT)).astype(np.float32)
    c = rng.normal(size=(B,)).astype(np.float32)   # cotangent weights for the collectives
    return params, xb, yb, c


# ---------------------------------------------------------------- the programs (either library)

def _programs(lib, n):
    """{check name: (sharded outputs, unsharded outputs or None)} on a mesh of ``n``."""
    jnp, lax = lib.numpy, lib.lax
    shard_map = lib.shard_map
    mesh = lib.sharding.Mesh(np.array(lib.devices()[:n]), ("d",))
    NS, P = lib.sharding.NamedSharding, lib.sharding.PartitionSpec
    rep, rows = NS(mesh, P()), NS(mesh, P("d"))
    params, xb, yb, c = _data()

    def loss(p, x, y):
        w1, b1, w2 = p
        return jnp.mean((jnp.tanh(x @ w1 + b1) @ w2 - y) ** 2)

    def put(tree, s):
        return lib.device_put(tree, s)

    sp, sx, sy = put(params, rep), put(xb, rows), put(yb, rows)
    out = {}

    vg = lib.jit(lib.value_and_grad(loss))
    out["mlp_value_and_grad"] = (vg(sp, sx, sy), vg(params, xb, yb))

    per_example = lib.jit(lib.vmap(lib.grad(loss), in_axes=(None, 0, 0)))
    out["per_example_grads"] = (per_example(sp, sx, sy), per_example(params, xb, yb))

    @lib.jit
    def step(p, x, y):
        value, g = lib.value_and_grad(loss)(p, x, y)
        return tuple(w - LR * gw for w, gw in zip(p, g)), value

    def train(p, x, y):
        values = []
        for _ in range(STEPS):
            p, value = step(p, x, y)
            values.append(value)
        return p, values
    out["training_loop"] = (train(sp, sx, sy), train(params, xb, yb))

    w1, w2 = params[0], params[2]   # (D_IN, H) split on H, then (H, D_OUT) on H
    hidden = lib.jit(lambda x, a: jnp.tanh(x @ a))
    full = lib.jit(lambda x, a, b: jnp.tanh(x @ a) @ b)
    sw1, sw2 = put(w1, NS(mesh, P(None, "d"))), put(w2, NS(mesh, P("d", None)))
    out["tensor_parallel_output_axis"] = (hidden(sx, sw1), hidden(xb, w1))
    out["tensor_parallel_contracting_axis"] = (full(sx, sw1, sw2), full(xb, w1, w2))
    out["tensor_parallel_replicated_batch"] = (full(put(xb, rep), sw1, sw2), None)

    def smap(body, out_specs):
        return shard_map(body, mesh=mesh, in_specs=P("d"), out_specs=out_specs)

    collectives = {
        "psum": smap(lambda a: lax.psum(a, "d"), P()),
        "all_gather": smap(lambda a: lax.all_gather(a, "d", tiled=True) * 2.0, P("d")),
        "ppermute": smap(lambda a: lax.ppermute(a, "d", [(i, (i + 1) % n) for i in range(n)]),
                         P("d")),
    }
    xs = put(c, rows)
    for name, f in collectives.items():
        weights = np.arange(f(c).size, dtype=np.float32) + 1.0
        value = lib.jit(f)
        grad = lib.jit(lib.grad(lambda a, f=f, w=weights: jnp.sum(jnp.sin(f(a)) * w)))
        out[f"shard_map_{name}"] = ((value(xs), grad(xs)), None)

    pm = lib.pmap(lambda a: a - lax.pmean(a, "i"), axis_name="i", devices=lib.devices()[:n])
    out["pmap_pmean"] = ((pm(c.reshape(n, -1)),), None)
    return out


def _record(tree):
    """(values, specs) of every Array leaf of ``tree`` (specs without trailing Nones)."""
    values, specs = [], []
    for leaf in _leaves(tree):
        values.append(np.asarray(leaf))
        sharding = getattr(leaf, "sharding", None)
        spec = getattr(sharding, "spec", None)
        if spec is None:
            specs.append(None)
        else:
            spec = list(spec)
            while spec and spec[-1] is None:
                spec.pop()
            specs.append(tuple(tuple(a) if isinstance(a, (list, tuple)) else a for a in spec))
    return values, specs


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [tree]


def _main(lib_name, counts, path):
    if lib_name == "minijax":
        sys.modules["jax"] = None   # any import of JAX in minijax fails
    lib = importlib.import_module(lib_name)
    results = {}
    for n in counts:
        assert lib.device_count() >= n, (lib_name, lib.device_count(), n)
        for name, (sharded, unsharded) in _programs(lib, n).items():
            results[n, name] = (_record(sharded),
                                None if unsharded is None else _record(unsharded)[0])
    if lib_name == "minijax":
        assert not any(k.split(".")[0] == "jax" for k, v in sys.modules.items()
                       if v is not None)
    with open(path, "wb") as f:
        pickle.dump(results, f)


# ---------------------------------------------------------------- NumPy's answers

def _mlp_grads(params, x, y):
    w1, b1, w2 = (np.asarray(p, np.float64) for p in params)
    h = np.tanh(x @ w1 + b1)
    r = h @ w2 - y
    d_out = 2 * r / r.size
    dz = (d_out @ w2.T) * (1 - h ** 2)
    return np.mean(r ** 2), [x.T @ dz, dz.sum(0), h.T @ d_out]


def _reference(name, n):
    """NumPy's values of check ``name`` on ``n`` devices (float64), in _record's order."""
    params, xb, yb, c = _data()
    xb, yb, c = (np.asarray(a, np.float64) for a in (xb, yb, c))
    if name == "mlp_value_and_grad":
        value, grads = _mlp_grads(params, xb, yb)
        return [value, *grads]
    if name == "per_example_grads":
        each = [_mlp_grads(params, xb[i:i + 1], yb[i:i + 1])[1] for i in range(B)]
        return [np.stack(g) for g in zip(*each)]
    if name == "training_loop":
        p, values = [np.asarray(w, np.float64) for w in params], []
        for _ in range(STEPS):
            value, grads = _mlp_grads(p, xb, yb)
            p = [w - LR * g for w, g in zip(p, grads)]
            values.append(value)
        return [*p, *values]
    w1, w2 = (np.asarray(params[i], np.float64) for i in (0, 2))
    if name == "tensor_parallel_output_axis":
        return [np.tanh(xb @ w1)]
    if name.startswith("tensor_parallel"):
        return [np.tanh(xb @ w1) @ w2]
    blocks = c.reshape(n, -1)
    if name == "shard_map_psum":
        out = blocks.sum(0)
        w = np.arange(out.size) + 1.0
        return [out, np.tile(np.cos(out) * w, n)]
    if name == "shard_map_all_gather":
        out = np.tile(2 * c, n)
        w = np.arange(out.size) + 1.0
        return [out, 2 * (np.cos(out) * w).reshape(n, -1).sum(0)]
    if name == "shard_map_ppermute":
        out = np.roll(blocks, 1, axis=0).ravel()
        w = np.arange(out.size) + 1.0
        return [out, np.roll((np.cos(out) * w).reshape(n, -1), -1, axis=0).ravel()]
    if name == "pmap_pmean":
        return [blocks - blocks.mean(0)]
    raise KeyError(name)


# ---------------------------------------------------------------- the tests

def _launch(lib_name, counts, devices, directory):
    path = os.path.join(directory, f"{lib_name}-{counts}.pkl")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
        + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    # (each library's own spelling only: minijax honours JAX's too)
    for name in ("XLA_FLAGS", "JAX_NUM_CPU_DEVICES", "MINIJAX_CPU_DEVICE_COUNT"):
        env.pop(name, None)
    if lib_name == "minijax":
        env["MINIJAX_CPU_DEVICE_COUNT"] = str(devices)
    else:
        env["JAX_NUM_CPU_DEVICES"] = str(devices)
        env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), lib_name,
                             ",".join(map(str, counts)), path], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, path


@pytest.fixture(scope="module")
def runs():
    """{device count: minijax's results}, JAX's results (all counts)."""
    pytest.importorskip("jax")
    with tempfile.TemporaryDirectory() as directory:
        launched = {n: _launch("minijax", (n,), n, directory) for n in COUNTS}
        launched["jax"] = _launch("jax", COUNTS, max(COUNTS), directory)
        results = {}
        try:
            for key, (proc, path) in launched.items():
                _, err = proc.communicate(timeout=150)   # the deadline of every run
                assert proc.returncode == 0, f"{key}: {err[-3000:]}"
                with open(path, "rb") as f:
                    results[key] = pickle.load(f)
        finally:
            for proc, _ in launched.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    return {n: results[n] for n in COUNTS}, results["jax"]


CHECKS = ("mlp_value_and_grad", "per_example_grads", "training_loop",
          "tensor_parallel_output_axis", "tensor_parallel_contracting_axis",
          "tensor_parallel_replicated_batch", "shard_map_psum", "shard_map_all_gather",
          "shard_map_ppermute", "pmap_pmean")


def _close(actual, expected, what):
    actual = np.asarray(actual)
    assert actual.shape == np.shape(expected), (what, actual.shape, np.shape(expected))
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("count", COUNTS)
def test_sharded_equals_unsharded_numpy_and_jax(runs, count):
    ours, theirs = runs
    assert sorted(ours[count]) == sorted((count, name) for name in CHECKS)
    for name in CHECKS:
        (values, specs), unsharded = ours[count][count, name]
        (j_values, j_specs), _ = theirs[count, name]
        reference = _reference(name, count)
        assert len(values) == len(reference) == len(j_values), name
        for i, (v, r, jv) in enumerate(zip(values, reference, j_values)):
            what = f"{name} on {count} devices, output {i}"
            assert v.dtype == np.float32, what
            _close(v, r, what + " vs NumPy")
            _close(v, jv, what + " vs JAX")
            if unsharded is not None:
                _close(v, unsharded[i], what + " vs unsharded")
        # the shardings chosen by propagation (and out_specs), as JAX chooses them
        assert specs == j_specs, (name, count, specs, j_specs)


if __name__ == "__main__":
    _main(sys.argv[1], [int(n) for n in sys.argv[2].split(",")], sys.argv[3])
