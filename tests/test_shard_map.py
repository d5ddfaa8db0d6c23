"""shard_map, the collectives and pmap on the suite's 2 CPU devices (4 and 8 in a
subprocess). JAX (2 CPU devices) is the oracle for every collective's values and
gradients, NumPy for the data-parallel step, central differences (check_grads) for the
derivatives of the collectives themselves."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import errors, lax
from minijax.sharding import P, make_mesh
from minijax.test_util import check_grads

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

N = 2


@pytest.fixture(scope="module")
def meshes():
    if minijax.device_count() < N or len(jax.devices()) < N:
        pytest.fail("the suite's conftest gives minijax and JAX 2 CPU devices")
    mine = make_mesh((N,), ("i",))
    theirs = jax.sharding.Mesh(np.array(jax.devices()[:N]), ("i",))
    return mine, theirs


def _both(body, in_specs, out_specs, meshes, *args, check_vma=True, **kw):
    """``body(lax_module, *args)`` under shard_map in minijax and in JAX."""
    mine, theirs = meshes
    m = minijax.shard_map(lambda *a: body(lax, *a), mesh=mine, in_specs=in_specs,
                          out_specs=out_specs, check_vma=check_vma)
    j = jax.shard_map(lambda *a: body(jax.lax, *a), mesh=theirs, in_specs=_j(in_specs),
                      out_specs=_j(out_specs), check_vma=check_vma)
    return m, j


def _j(spec):
    """JAX's PartitionSpec for minijax's (in a tuple of them too)."""
    if isinstance(spec, P):
        return jax.sharding.PartitionSpec(*spec)
    return tuple(_j(s) for s in spec)


def _same(a, b, rtol=1e-6):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6)


X8 = np.arange(8, dtype=np.float32) * 0.5 - 1.5
X84 = (np.arange(32, dtype=np.float32).reshape(8, 4) % 7) * 0.25 - 0.6
X43 = (np.arange(12, dtype=np.float32).reshape(4, 3) % 5) * 0.3 - 0.5

# (id, body(lax, x), in_specs, out_specs, argument)
CASES = [
    ("psum", lambda l, x: l.psum(x, "i"), P("i"), P(), X8),
    ("psum_tuple_names", lambda l, x: l.psum(x, ("i",)), P("i"), P(), X8),
    ("pmean", lambda l, x: l.pmean(x, "i"), P("i"), P(), X8),
    ("pmax", lambda l, x: l.pmax(x, "i"), P("i"), P(), X84),
    ("pmin", lambda l, x: l.pmin(x, "i"), P("i"), P(), X84),
    ("all_gather", lambda l, x: l.all_gather(x, "i"), P("i"), P(), X84),
    ("all_gather_axis1", lambda l, x: l.all_gather(x, "i", axis=1), P("i"), P(), X84),
    ("all_gather_tiled", lambda l, x: l.all_gather(x, "i", tiled=True), P("i"), P(), X84),
    ("all_gather_tiled_axis1", lambda l, x: l.all_gather(x, "i", axis=1, tiled=True),
     P("i"), P(), X84),
    ("psum_scatter_tiled", lambda l, x: l.psum_scatter(x, "i", tiled=True), P("i"),
     P("i"), X84),
    ("psum_scatter_dim1", lambda l, x: l.psum_scatter(x, "i", scatter_dimension=1,
                                                      tiled=True), P("i"), P(None, "i"), X84),
    ("psum_scatter", lambda l, x: l.psum_scatter(x[:2], "i"), P("i"), P("i"), X84),
    ("all_to_all_tiled", lambda l, x: l.all_to_all(x, "i", 0, 1, tiled=True), P("i"),
     P("i"), X84),
    ("all_to_all", lambda l, x: l.all_to_all(x[:2], "i", 0, 1), P("i"), P("i"), X84),
    ("all_to_all_concat_first", lambda l, x: l.all_to_all(x[:, :2], "i", 1, 0), P("i"),
     P("i"), X84),
    ("ppermute_cycle", lambda l, x: l.ppermute(x, "i", [(0, 1), (1, 0)]), P("i"), P("i"),
     X84),
    ("ppermute_partial", lambda l, x: l.ppermute(x, "i", [(0, 1)]), P("i"), P("i"), X84),
    ("axis_index", lambda l, x: x + l.axis_index("i").astype(x.dtype), P("i"), P("i"), X8),
    ("axis_size", lambda l, x: x * l.axis_size("i") + l.psum(1, "i"), P("i"), P("i"), X8),
    ("replicated_input", lambda l, x: x * (l.axis_index("i") + 1).astype(x.dtype), P(),
     P("i"), X43),
]


@pytest.mark.parametrize("name,body,in_specs,out_specs,x", CASES, ids=[c[0] for c in CASES])
def test_collective_values(meshes, name, body, in_specs, out_specs, x):
    # (all_gather's result counts as varying, as in JAX: out_specs P() needs check_vma off)
    m, j = _both(body, in_specs, out_specs, meshes, check_vma=not name.startswith("all_g"))
    got = m(x)
    _same(got, j(jnp.asarray(x)))
    _same(minijax.jit(m)(x), got)


# differentiable bodies, checked through a scalar loss against JAX's gradient
GRAD_CASES = [c for c in CASES if c[0] in (
    "psum", "pmean", "all_gather", "all_gather_tiled_axis1", "psum_scatter_tiled",
    "psum_scatter", "all_to_all_tiled", "ppermute_partial",
    "replicated_input")]


def _loss(np_like, sm):
    def loss(x):
        y = sm(x)
        return np_like.sum(np_like.sin(y) * np_like.cos(np_like.arange(
            y.size, dtype=np.float32).reshape(y.shape)))
    return loss


@pytest.mark.parametrize("name,body,in_specs,out_specs,x", GRAD_CASES,
                         ids=[c[0] for c in GRAD_CASES])
def test_collective_gradients_match_jax(meshes, name, body, in_specs, out_specs, x):
    m, j = _both(body, in_specs, out_specs, meshes, check_vma=not name.startswith("all_g"))
    # (one program each: eager steps on sharded values would compile one per operation)
    got = minijax.jit(minijax.grad(_loss(mnp, m)))(x)
    _same(got, jax.jit(jax.grad(_loss(jnp, j)))(jnp.asarray(x)), rtol=1e-5)


def test_collective_check_grads(meshes):
    """Central differences, forward and reverse, through one program holding the linear
    collectives and pmax (unique maxima) in float64."""
    mine, _ = meshes

    def body(x):
        s = lax.psum(x * x, "i")
        g = lax.all_gather(mnp.sin(x), "i", axis=1, tiled=True)
        r = lax.psum_scatter(g * 2.0, "i", scatter_dimension=1, tiled=True)
        t = lax.all_to_all(r, "i", 0, 1, tiled=True)
        u = lax.all_to_all(x[:2], "i", 0, 1)   # (JAX cannot transpose this one)
        p = lax.ppermute(x, "i", [(0, 1), (1, 0)])
        m = lax.pmax(x, "i")
        return s + mnp.sum(t) + p * m + mnp.sum(u ** 2)

    f = minijax.jit(minijax.shard_map(body, mesh=mine, in_specs=P("i"), out_specs=P("i"),
                                      check_vma=False))
    x = np.linspace(-1.0, 1.3, 32).reshape(8, 4)
    with minijax.enable_x64():
        check_grads(f, (x,), order=1)


def test_grad_value_and_grad_and_second_order(meshes):
    m, j = _both(lambda l, x: l.psum(x * x, "i") * x, P("i"), P("i"), meshes)
    loss_m = lambda x: mnp.sum(m(x) ** 2)   # noqa: E731
    loss_j = lambda x: jnp.sum(j(x) ** 2)   # noqa: E731
    v, g = minijax.value_and_grad(loss_m)(X8)
    vj, gj = jax.value_and_grad(loss_j)(jnp.asarray(X8))
    _same(v, vj, rtol=1e-5)
    _same(g, gj, rtol=1e-5)
    _same(minijax.jit(minijax.grad(loss_m))(X8), gj, rtol=1e-5)
    h = minijax.jit(minijax.grad(lambda x: minijax.grad(loss_m)(x)[3]))(X8)
    _same(h, jax.jit(jax.grad(lambda x: jax.grad(loss_j)(x)[3]))(jnp.asarray(X8)),
          rtol=1e-4)


def test_vmap_of_shard_map_and_vmap_inside(meshes):
    body = lambda l, x: l.all_gather(x, "i", tiled=True) * l.psum(x, "i").sum()  # noqa: E731
    m, j = _both(body, P("i"), P(), meshes, check_vma=False)
    xs = np.stack([X8, X8 * 2 - 1, X8[::-1]])
    _same(minijax.vmap(m)(xs), jax.vmap(j)(jnp.asarray(xs)))
    _same(minijax.vmap(m, in_axes=1)(xs.T), jax.vmap(j, in_axes=1)(jnp.asarray(xs.T)))
    # an (unnamed) vmap inside the body: the collectives' batching rules
    inner = lambda l, x: (minijax if l is lax else jax).vmap(   # noqa: E731
        lambda r: l.all_to_all(l.psum(r, "i") + r, "i", 0, 0, tiled=True))(x)
    m, j = _both(inner, P(None, "i"), P(None, "i"), meshes)
    _same(m(X84.T), j(jnp.asarray(X84.T)))
    _same(minijax.vmap(m)(np.stack([X84.T, X84.T + 1])),
          jax.vmap(j)(jnp.asarray(np.stack([X84.T, X84.T + 1]))))


def test_data_parallel_step_equals_unsharded(meshes):
    mine, _ = meshes
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 2)).astype(np.float32)
    b = np.zeros(2, np.float32)
    xs = rng.normal(size=(8, 3)).astype(np.float32)
    ys = rng.normal(size=(8, 2)).astype(np.float32)

    def loss(params, x, y):
        w, b = params
        return mnp.mean((mnp.tanh(x @ w + b) - y) ** 2)

    def local_step(params, x, y):
        g = lax.pmean(minijax.grad(loss)(params, x, y), "i")
        return [p - 0.1 * gp for p, gp in zip(params, g)]

    step = minijax.jit(minijax.shard_map(local_step, mesh=mine,
                                         in_specs=(P(), P("i"), P("i")), out_specs=P()))
    params = [w, b]
    ref = [w, b]
    for _ in range(3):
        params = step(params, xs, ys)
        ref = [p - 0.1 * g for p, g in zip(ref, minijax.grad(loss)(ref, xs, ys))]
    for a, r in zip(params, ref):
        np.testing.assert_allclose(np.asarray(a), np.asarray(r), rtol=1e-5, atol=1e-6)
    assert params[0].sharding.is_fully_replicated


def test_pmap(meshes):
    xs = X84[:N]
    f = minijax.pmap(lambda x: x - lax.pmean(x, "i"), axis_name="i")
    _same(f(xs), jax.pmap(lambda x: x - jax.lax.pmean(x, "i"), axis_name="i")(xs))
    g = minijax.pmap(lambda x, y, k: x * y + k, in_axes=(0, None, None),
                     static_broadcasted_argnums=2)
    _same(g(xs, X84[0], 3.0), xs * X84[0] + 3.0)
    h = minijax.pmap(lambda x: (x.sum(), lax.axis_index("j")), axis_name="j", out_axes=(0, 0))
    s, idx = h(xs.T[:N])
    _same(s, xs.T[:N].sum(1))
    assert np.asarray(idx).tolist() == [0, 1]
    with pytest.raises(ValueError, match="requires 3 logical devices"):
        minijax.pmap(lambda x: x)(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="inconsistent sizes"):
        minijax.pmap(lambda x, y: x)(np.zeros((2, 2)), np.zeros((1, 2)))


def test_eager_jit_and_mesh_context(meshes):
    mine, _ = meshes
    f = minijax.shard_map(lambda x: x * 2, in_specs=P("i"), out_specs=P("i"))
    with mine:
        out = f(X8)
    _same(out, X8 * 2)
    assert out.sharding == minijax.NamedSharding(mine, P("i"))
    @minijax.shard_map(mesh=mine, in_specs=P("i"), out_specs=P())
    def total(x):
        return lax.psum(x.sum(keepdims=True), "i")
    _same(total(X8), X8.sum(keepdims=True))
    from minijax.experimental.shard_map import shard_map as old
    g = old(lambda x: lax.psum(x, "i"), mine, P("i"), P(), check_rep=True)
    _same(g(X8), X8[:4] + X8[4:])
    scaled = minijax.shard_map(lambda x, k: x * k["k"], mesh=mine, in_specs=(P("i"), None),
                               out_specs=P("i"))   # (a None spec: a static argument)
    _same(scaled(X8, {"k": 3}), X8 * 3)
    jf = minijax.jit(g)
    _same(jf(X8), X8[:4] + X8[4:])
    _same(jf(X8 + 1), X8[:4] + X8[4:] + 2)   # (the jit fast path keeps the mesh)


def test_named_errors(meshes):
    mine, _ = meshes
    with pytest.raises(errors.ShardingError, match="'k'"):
        minijax.shard_map(lambda x: x, mesh=mine, in_specs=P("k"), out_specs=P())(X8)
    with pytest.raises(errors.ShardingError, match="not divisible"):
        minijax.shard_map(lambda x: x, mesh=mine, in_specs=P("i"), out_specs=P("i"))(
            np.zeros(3, np.float32))
    with pytest.raises(errors.ShardingError, match="replicat"):
        minijax.shard_map(lambda x: x * 2, mesh=mine, in_specs=P("i"), out_specs=P())(X8)
    ok = minijax.shard_map(lambda x: x * 2, mesh=mine, in_specs=P("i"), out_specs=P(),
                           check_vma=False)
    assert ok(X8).shape == (4,)
    with pytest.raises(NameError, match="unbound axis name: k"):
        minijax.shard_map(lambda x: lax.psum(x, "k"), mesh=mine, in_specs=P("i"),
                          out_specs=P())(X8)
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.psum(mnp.ones(2), "i")
    with pytest.raises(ValueError, match="all_to_all requires"):
        minijax.shard_map(lambda x: lax.all_to_all(x, "i", 0, 0), mesh=mine,
                          in_specs=P("i"), out_specs=P("i"))(X8)
    with pytest.raises(ValueError, match="unique"):
        minijax.shard_map(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 1)]), mesh=mine,
                          in_specs=P("i"), out_specs=P("i"))(X8)
    with pytest.raises(NotImplementedError, match="in_specs must be given"):
        minijax.shard_map(lambda x: x, mesh=mine, out_specs=P())
    with pytest.raises(errors.ShardingError, match="no mesh"):
        minijax.shard_map(lambda x: x, in_specs=P(), out_specs=P())(X8)


SCRIPT = textwrap.dedent("""
    import os, sys
    import numpy as np
    import minijax
    import minijax.numpy as mnp
    from minijax import lax
    from minijax.sharding import P, make_mesh
    n = minijax.device_count()
    assert n == int(sys.argv[1]), n
    x = np.arange(n * 2 * n, dtype=np.float32).reshape(n * 2, n)
    mesh = make_mesh((n,), ("i",))
    def body(x):
        s = lax.psum(x, "i")
        p = lax.ppermute(x, "i", [(k, (k + 1) % n) for k in range(n)])
        a = lax.all_to_all(x, "i", 1, 0, tiled=True)
        return s, p, a
    f = minijax.jit(minijax.shard_map(body, mesh=mesh, in_specs=P("i"),
                                      out_specs=(P(), P("i"), P("i"))))
    for _ in range(20):   # queued executions of a program with collectives
        s, p, a = f(x)
    blocks = x.reshape(n, 2, n)
    np.testing.assert_array_equal(np.asarray(s), blocks.sum(0))
    np.testing.assert_array_equal(np.asarray(p), np.roll(blocks, 1, 0).reshape(2 * n, n))
    want = np.concatenate([blocks[:, :, k] .reshape(n * 2, 1) for k in range(n)], 0)
    np.testing.assert_array_equal(np.asarray(a), want)
    # programs with collectives from several threads at once: XLA's CPU rendezvous
    # aborted the process after 40 s until minijax ran them one at a time
    import threading
    y = np.random.default_rng(0).normal(size=(n * 128, 128)).astype(np.float32)
    progs = [minijax.jit(minijax.shard_map(h, mesh=mesh, in_specs=P("i"), out_specs=o))
             for h, o in [(lambda x: lax.psum(mnp.tanh(x) @ x.T, "i"), P()),
                          (lambda x: lax.ppermute(mnp.sin(x), "i", [(k, (k + 1) % n)
                                                                     for k in range(n)]),
                           P("i")),
                          (lambda x: lax.all_to_all(mnp.exp(-x * x), "i", 0, 0, tiled=True),
                           P("i"))]]
    for h in progs:
        h(y)   # (compiled first: then the threads only execute)
    threads = [threading.Thread(target=lambda h: [h(y) for _ in range(40)], args=(h,))
               for h in progs * 2]
    [t.start() for t in threads]
    [t.join() for t in threads]
    mesh2 = make_mesh((2, n // 2), ("a", "b"))
    g = minijax.shard_map(lambda x: (lax.psum(x, ("a", "b")),
                                     lax.axis_index(("a", "b")).reshape(1, 1) + 0 * x[:1, :1]),
                          mesh=mesh2, in_specs=P(("a", "b")), out_specs=(P(), P(("a", "b"))))
    s2, idx = g(x)
    np.testing.assert_array_equal(np.asarray(s2), blocks.sum(0))
    assert np.asarray(idx).ravel().tolist() == list(range(n))
    # axis_index_groups: halves and interleaved (JAX gives [1, 1, 5, 5] and [2, 4, 2, 4]
    # for psum on arange(4)); NumPy gives each group's values
    v = np.arange(n, dtype=np.float32) ** 2
    halves = [list(range(n // 2)), list(range(n // 2, n))]
    inter = [list(range(0, n, 2)), list(range(1, n, 2))][::-1]
    uneven = [list(range(n - 1)), [n - 1]]
    def grouped(x):
        return (lax.psum(x, "i", axis_index_groups=halves),
                lax.pmax(x, "i", axis_index_groups=uneven),
                lax.all_gather(x, "i", axis_index_groups=inter, tiled=True),
                lax.psum_scatter(lax.all_gather(x, "i", tiled=True), "i",
                                 axis_index_groups=halves, tiled=True),
                lax.all_to_all(x * 10 + mnp.arange(n // 2, dtype=x.dtype), "i", 0, 0,
                               axis_index_groups=inter))
    gf = minijax.jit(minijax.shard_map(grouped, mesh=mesh, in_specs=P("i"),
                                       out_specs=P("i"), check_vma=False))
    ps, pm, ag, rs, aa = (np.asarray(o) for o in gf(v))
    group_of = lambda gs, k: next(g for g in gs if k in g)   # noqa: E731
    np.testing.assert_array_equal(ps, [v[group_of(halves, k)].sum() for k in range(n)])
    np.testing.assert_array_equal(pm, [v[group_of(uneven, k)].max() for k in range(n)])
    np.testing.assert_array_equal(ag, np.concatenate([v[group_of(inter, k)]
                                                      for k in range(n)]))
    h = n // 2
    np.testing.assert_array_equal(rs, np.concatenate(
        [h * v[g.index(k) * 2:g.index(k) * 2 + 2] for k in range(n)
         for g in [group_of(halves, k)]]))
    # (the device at position p of group g receives element p from each member of g)
    np.testing.assert_array_equal(aa, np.concatenate(
        [v[g] * 10 + g.index(k) for k in range(n) for g in [group_of(inter, k)]]))
    # the transposes: d/dx sum(w * psum_g(x * x)) = 2 x (the sum of w over x's group)
    w = np.arange(1, n + 1, dtype=np.float32)
    grad = minijax.jit(minijax.grad(lambda x: (w * minijax.shard_map(
        lambda x: lax.psum(x * x, "i", axis_index_groups=halves), mesh=mesh,
        in_specs=P("i"), out_specs=P("i"), check_vma=False)(x)).sum()))(v)
    np.testing.assert_allclose(np.asarray(grad), [2 * v[k] * w[group_of(halves, k)].sum()
                                                  for k in range(n)])
    try:
        minijax.shard_map(lambda x: lax.all_gather(x, "i", axis_index_groups=uneven),
                          mesh=mesh, in_specs=P("i"), out_specs=P("i"), check_vma=False)(v)
        raise AssertionError("unequal groups accepted")
    except ValueError as e:
        assert "must all be the same size" in str(e), e
    # partial-manual: manual over "a", automatic over "b" (JAX gives the same values)
    xa = np.arange(4 * n, dtype=np.float32).reshape(4, n) / 10
    pm = minijax.shard_map(lambda x: mnp.sin(x) * lax.psum(x, "a"), mesh=mesh2,
                           in_specs=P("a"), out_specs=P("a"), axis_names={"a"})
    halves2 = xa.reshape(2, 2, n)
    want = np.sin(halves2) * halves2.sum(0)
    np.testing.assert_allclose(np.asarray(minijax.jit(pm)(xa)), want.reshape(4, n),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(pm(xa)), want.reshape(4, n), rtol=1e-6)
    ga = minijax.jit(minijax.grad(lambda x: pm(x).sum()))(xa)
    s2 = halves2.sum(0)
    np.testing.assert_allclose(np.asarray(ga), (np.cos(halves2) * s2 + np.sin(halves2).sum(0)
                                                ).reshape(4, n), rtol=1e-5)
    print("ok", n)
""")


@pytest.mark.parametrize("n", [4, 8])
def test_many_devices_subprocess(n):
    env = dict(os.environ, MINIJAX_CPU_DEVICE_COUNT=str(n), JAX_NUM_CPU_DEVICES=str(n))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(n)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and f"ok {n}" in r.stdout, r.stdout + r.stderr


NAMED_VMAP = [
    ("psum", lambda l, x: l.psum(x, "b")),
    ("pmean", lambda l, x: x - l.pmean(x, "b")),
    ("pmax_pmin", lambda l, x: l.pmax(x, "b") - l.pmin(x, "b")),
    ("all_gather", lambda l, x: l.all_gather(x, "b", axis=1)),
    ("all_gather_tiled", lambda l, x: l.all_gather(x, "b", tiled=True)),
    ("psum_scatter", lambda l, x: l.psum_scatter(x[:3], "b")),
    ("psum_scatter_tiled", lambda l, x: l.psum_scatter(x, "b", scatter_dimension=1,
                                                       tiled=True)),
    ("all_to_all_tiled", lambda l, x: l.all_to_all(x[:3], "b", 0, 1, tiled=True)),
    ("all_to_all", lambda l, x: l.all_to_all(x[:3], "b", 0, 1)),
    ("ppermute", lambda l, x: l.ppermute(x, "b", [(0, 2), (2, 1), (1, 0)])),
    ("axis_index", lambda l, x: x * l.axis_index("b").astype(x.dtype) + l.axis_size("b")),
    ("unbatched_operand", lambda l, x: l.psum(np.ones(6, np.float32), "b") + x[0]),
]


@pytest.mark.parametrize("body", [c[1] for c in NAMED_VMAP], ids=[c[0] for c in NAMED_VMAP])
def test_vmap_with_axis_name(body):
    xs = np.arange(3 * 3 * 6, dtype=np.float32).reshape(3, 3, 6) % 5 - 2
    got = minijax.vmap(lambda x: body(lax, x), axis_name="b")(xs)
    _same(got, jax.vmap(lambda x: body(jax.lax, x), axis_name="b")(jnp.asarray(xs)))
    if body is NAMED_VMAP[2][1]:   # JAX defines no pmax/pmin derivative
        return
    g = minijax.grad(lambda x: mnp.sum(mnp.sin(minijax.vmap(lambda r: body(lax, r),
                                                            axis_name="b")(x))))(xs)
    gj = jax.grad(lambda x: jnp.sum(jnp.sin(jax.vmap(lambda r: body(jax.lax, r),
                                                     axis_name="b")(x))))(jnp.asarray(xs))
    _same(g, gj, rtol=1e-5)


def test_arguments_on_another_device_order(meshes):
    mine, _ = meshes
    flipped = minijax.sharding.Mesh(np.array(minijax.devices()[:N][::-1]), ("i",))
    x = minijax.device_put(X8, minijax.NamedSharding(flipped, P("i")))
    f = minijax.shard_map(lambda x: x + 1, mesh=mine, in_specs=P("i"), out_specs=P("i"))
    with pytest.raises(errors.ShardingError, match="another order"):
        f(x)


# ---------------------------------------------------------------- axis_index_groups

def _grouped(l, x, y):
    """Every collective that takes axis_index_groups, in one body (one program)."""
    rev, solo = [[1, 0]], [[0], [1]]
    return (l.psum(x * x, "i", axis_index_groups=rev) + l.psum(x, "i", axis_index_groups=solo),
            l.pmean(x, "i", axis_index_groups=solo) * l.psum(2, "i", axis_index_groups=rev),
            l.pmax(y, "i", axis_index_groups=rev) - l.pmin(y, "i", axis_index_groups=solo),
            l.all_gather(x, "i", axis_index_groups=rev, axis=1, tiled=True),
            l.all_gather(x, "i", axis_index_groups=solo),
            l.psum_scatter(x, "i", axis_index_groups=rev, scatter_dimension=1, tiled=True),
            l.all_to_all(x, "i", 0, 1, axis_index_groups=rev, tiled=True))


GROUPED_OUT = (P("i"), P("i"), P("i"), P("i"), P("i"), P("i"), P("i"))


def test_axis_index_groups_values_and_gradients(meshes):
    # (JAX takes axis_index_groups only with check_vma=False)
    m, j = _both(_grouped, (P("i"), P("i")), GROUPED_OUT, meshes, check_vma=False)
    y = X84[::-1] * 1.5
    got = m(X84, y)
    want = j(jnp.asarray(X84), jnp.asarray(y))
    for a, b in zip(got, want):
        _same(a, b)
    for a, b in zip(minijax.jit(m)(X84, y), got):
        _same(a, b)

    def loss(np_like, sm):
        def f(x):
            return sum(np_like.sum(np_like.sin(o) * (k + 1)) for k, o in enumerate(sm(x, y)[:2]
                                                                                     + sm(x, y)[3:]))
        return f
    g = minijax.jit(minijax.grad(loss(mnp, m)))(X84)
    _same(g, jax.jit(jax.grad(loss(jnp, j)))(jnp.asarray(X84)), rtol=1e-5)
    # the batching rules: vmap of the shard_map equals its slices (JAX cannot batch a
    # grouped all_to_all)
    xs = np.stack([X84, X84 * 2 - 1])
    second = m(xs[1], y)
    for a, b0, b1 in zip(minijax.vmap(m, in_axes=(0, None))(xs, y), got, second):
        _same(a, np.stack([b0, b1]))


def test_axis_index_groups_errors(meshes):
    mine, theirs = meshes

    def run(body, shard_map, mesh, P_, x=X8):
        return shard_map(body, mesh=mesh, in_specs=P_("i"), out_specs=P_("i"),
                         check_vma=False)(x)
    both = ((lax, minijax.shard_map, mine, P),
            (jax.lax, jax.shard_map, theirs, jax.sharding.PartitionSpec))
    # (JAX does not compare the groups with the axis size: [[0]] and [[0, 2], [1]] pass
    # its check and fail in XLA)
    for groups, impls in (([[0], [0]], both), ([[0, 1], [1]], both), ([[0]], both[:1]),
                          ([[0, 2], [1]], both[:1])):
        for mod, sm, mesh, P_ in impls:
            with pytest.raises(ValueError, match="must cover all indices exactly once"):
                run(lambda x: mod.psum(x, "i", axis_index_groups=groups), sm, mesh, P_)
    # (JAX fails only in XLA, "Invalid replica id -1", or gives the wrong mean)
    for body in (lambda x: lax.all_gather(x, "i", axis_index_groups=[[0, 1], []]),
                 lambda x: lax.pmean(x, "i", axis_index_groups=[[0, 1], []])):
        with pytest.raises(ValueError, match="exactly once"):
            run(body, minijax.shard_map, mine, P)
    with pytest.raises(TypeError, match="list of lists"):
        run(lambda x: lax.psum(x, "i", axis_index_groups=[0, 1]), minijax.shard_map, mine, P)
    with pytest.raises(NotImplementedError, match="not supported in vmap"):
        minijax.vmap(lambda x: lax.psum(x, "b", axis_index_groups=[[0], [1]]),
                     axis_name="b")(np.ones((2, 3)))
    # a grouped sum is not the same on every device along the axis
    with pytest.raises(errors.ShardingError, match="replicat"):
        minijax.shard_map(lambda x: lax.psum(x, "i", axis_index_groups=[[0], [1]]),
                          mesh=mine, in_specs=P("i"), out_specs=P())(X8)


def test_partial_manual_axis_names(meshes):
    """Manual over "a", automatic over "b" (JAX 0.10.2 on an Auto mesh), on 2 x 1 devices
    in-process (2 x 2 and 2 x 4 in the subprocess test)."""
    mine = make_mesh((N, 1), ("a", "b"))
    theirs = jax.sharding.Mesh(np.array(jax.devices()[:N]).reshape(N, 1), ("a", "b"))
    body = lambda l, x: l.pmean(x, "a") * x   # noqa: E731
    m = minijax.shard_map(lambda x: body(lax, x), mesh=mine, in_specs=P("a"),
                          out_specs=P("a"), axis_names={"a"})
    j = jax.shard_map(lambda x: body(jax.lax, x), mesh=theirs,
                      in_specs=jax.sharding.PartitionSpec("a"),
                      out_specs=jax.sharding.PartitionSpec("a"), axis_names={"a"})
    _same(minijax.jit(m)(X84), jax.jit(j)(jnp.asarray(X84)))
    _same(minijax.jit(minijax.grad(lambda x: mnp.sum(m(x) ** 2)))(X84),
          jax.jit(jax.grad(lambda x: jnp.sum(j(x) ** 2)))(jnp.asarray(X84)), rtol=1e-5)
    with pytest.raises(errors.ShardingError, match="must refer to an axis marked as manual"):
        minijax.shard_map(lambda x: x, mesh=mine, in_specs=P("a", "b"), out_specs=P("a"),
                          axis_names={"a"})(X84)
    with pytest.raises(NameError, match="unbound axis name: b"):
        minijax.shard_map(lambda x: lax.psum(x, "b"), mesh=mine, in_specs=P("a"),
                          out_specs=P("a"), axis_names={"a"})(X84)
    with pytest.raises(errors.ShardingError, match="does not have"):
        minijax.shard_map(lambda x: x, mesh=mine, in_specs=P("a"), out_specs=P("a"),
                          axis_names={"c"})(X84)
    wide = make_mesh((1, N), ("a", "b"))
    with pytest.raises(NotImplementedError, match="axis_index"):
        minijax.shard_map(lambda x: x * lax.axis_index("b"), mesh=wide, in_specs=P(None, "b"),
                          out_specs=P(None, "b"), axis_names={"b"})(X84)


def test_nested_shard_map_is_a_named_error(meshes):
    mine, _ = meshes
    inner = minijax.shard_map(lambda y: y + 1, mesh=mine, in_specs=P(), out_specs=P())
    outer = minijax.shard_map(lambda x: inner(x), mesh=mine, in_specs=P("i"),
                              out_specs=P("i"))
    with pytest.raises(NotImplementedError, match="inside another shard_map"):
        outer(X8)
    with pytest.raises(NotImplementedError, match="inside another shard_map"):
        minijax.pmap(lambda x: inner(x), axis_name="i")(X84[:N])
