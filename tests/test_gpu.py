"""The differential tier on a GPU: eager vs jit vs NumPy, on minijax's CUDA backend.

Skipped as a module where no CUDA device starts (every CPU-only machine) and in the
suite, which runs on the CPU platform (tests/conftest.py); run by
``benchmarks/gpu_check.sh`` on a GPU machine. Arrays are committed to the GPU, so eager
calls run compiled there (DESIGN 3) and every result is read back to the host."""

import contextlib
import io
import os
import subprocess
import sys

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import lax, random
from minijax.errors import PlatformUnavailableError


def _gpu():
    try:
        return minijax.devices("cuda")[0]
    except PlatformUnavailableError:
        return None


GPU = _gpu()
pytestmark = pytest.mark.skipif(GPU is None, reason="no CUDA device, or the suite's "
                                "MINIJAX_PLATFORMS=cpu (benchmarks/gpu_check.sh runs it)")
RNG = onp.random.default_rng(0)
A = RNG.normal(size=(5, 5))
SPD = A @ A.T + 5 * onp.eye(5)
B = RNG.normal(size=(5, 3))


def put(a):
    return minijax.device_put(np.asarray(a), GPU)


def check(fn, *args, ref, rtol=1e-6, atol=1e-9):
    """``fn`` eagerly and under jit on GPU arrays, each against NumPy's ``ref``."""
    gpu_args = [put(a) for a in args]
    for mode, f in (("eager", fn), ("jit", minijax.jit(fn))):
        out = f(*gpu_args)
        for o, r in zip(out if isinstance(out, tuple) else (out,),
                        ref if isinstance(ref, tuple) else (ref,)):
            assert o.device == GPU, mode
            onp.testing.assert_allclose(onp.asarray(o), r, rtol=rtol, atol=atol,
                                        err_msg=mode)


def test_placement_and_host_reads():
    x = put(onp.arange(6.0).reshape(2, 3))
    assert x.device.platform == "gpu" and x.committed() and x.devices() == {GPU}
    assert x.__dlpack_device__()[0] == 2
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert float(x[1, 2]) == 5.0 and "5." in str(x) and onp.asarray(x).shape == (2, 3)
    back = minijax.device_put(x, minijax.devices("cpu")[0])
    assert back.device.platform == "cpu" and back.tolist() == x.tolist()
    with pytest.raises(ValueError, match="committed to different devices"):
        x + back


def test_host_reads_do_not_import_jax():
    code = ("import sys, minijax, minijax.numpy as np\n"
            "x = minijax.device_put(np.arange(3.0), minijax.devices('cuda')[0])\n"
            "print((x * 2).tolist(), 'jax' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, MINIJAX_GPU_PREALLOCATE="false"))
    assert out.stdout.split("\n")[0] == "[0.0, 2.0, 4.0] False", out.stderr[-2000:]


def test_elementwise_reductions_matmul():
    check(lambda a, b: np.sin(a) * 2 + np.exp(-b[:, :1] ** 2), A, B,
          ref=onp.sin(A) * 2 + onp.exp(-B[:, :1] ** 2))
    check(lambda a: (a.sum(0), a.max(1), a.mean(), np.cumsum(a, 1)), A,
          ref=(A.sum(0), A.max(1), A.mean(), onp.cumsum(A, 1)))
    check(lambda a, b: a @ b, A, B, ref=A @ B, rtol=1e-10)
    a32 = A.astype(onp.float32)
    check(lambda a: (np.tanh(a) @ a).sum(1), a32, ref=(onp.tanh(a32) @ a32).sum(1), rtol=1e-5,
          atol=1e-5)


def test_grad_vmap():
    x = put(A)
    g = minijax.grad(lambda v: (np.tanh(v) ** 2).sum())(x)
    onp.testing.assert_allclose(onp.asarray(g), 2 * onp.tanh(A) / onp.cosh(A) ** 2,
                                rtol=1e-10)
    v = minijax.vmap(lambda r: r @ r)(x)
    onp.testing.assert_allclose(onp.asarray(v), (A * A).sum(1), rtol=1e-10)
    jv = minijax.jit(minijax.vmap(minijax.grad(lambda r: (r ** 3).sum())))(x)
    onp.testing.assert_allclose(onp.asarray(jv), 3 * A ** 2, rtol=1e-10)


def test_control_flow_sort_fft():
    check(lambda a: lax.cond(a.sum() > 0, lambda t: t * 2, lambda t: t - 1, a), A,
          ref=A * 2 if A.sum() > 0 else A - 1)
    check(lambda a: lax.fori_loop(0, 4, lambda i, t: t * 0.5 + i, a), A,
          ref=(((A * 0.5) * 0.5 + 1) * 0.5 + 2) * 0.5 + 3)
    check(lambda a: lax.scan(lambda c, r: (c + r, c * r), np.zeros(5), a),
          A, ref=(A.sum(0), onp.stack([A[:i].sum(0) * A[i] for i in range(5)])), rtol=1e-10)
    check(lambda a: np.sort(a, axis=1), A, ref=onp.sort(A, axis=1))
    check(lambda a: np.fft.fft(a).real, A, ref=onp.fft.fft(A).real, rtol=1e-9, atol=1e-12)


def test_random_and_indexed_updates():
    key = random.key(0)
    n = random.normal(key, (1000,))
    assert n.shape == (1000,) and abs(float(n.mean())) < 0.2
    check(lambda a: a.at[1:3, 0].set(7.0).at[0].add(1.0), A, ref=_at(A))


def _at(a):
    a = a.copy()
    a[1:3, 0] = 7.0
    a[0] += 1.0
    return a


def test_linalg():
    check(lambda s: np.linalg.cholesky(s), SPD, ref=onp.linalg.cholesky(SPD), rtol=1e-9)
    check(lambda s, b: np.linalg.solve(s, b), SPD, B, ref=onp.linalg.solve(SPD, B), rtol=1e-9)
    check(lambda a: np.linalg.svd(a, compute_uv=False), A,
          ref=onp.linalg.svd(A, compute_uv=False), rtol=1e-9)
    check(lambda s: np.linalg.eigh(s)[0], SPD, ref=onp.linalg.eigh(SPD)[0], rtol=1e-9)
    check(lambda a: np.abs(np.linalg.qr(a)[1]), A, ref=onp.abs(onp.linalg.qr(A)[1]),
          rtol=1e-9)


def test_more_linalg():
    # eigvals: cuSOLVER's geev (the hybrid kernel with an older cuSOLVER); in any order
    for f in (np.linalg.eigvals, minijax.jit(np.linalg.eigvals)):
        w = f(put(A))
        assert w.device == GPU
        onp.testing.assert_allclose(onp.sort_complex(onp.asarray(w)),
                                    onp.sort_complex(onp.linalg.eigvals(A)), rtol=1e-9)
    # left eigenvectors: the plugin's hybrid kernel (LAPACK on the host)
    for f in (lambda a: lax.linalg.eig(a, compute_left_eigenvectors=True),
              minijax.jit(lambda a: lax.linalg.eig(a, compute_left_eigenvectors=True))):
        w, vl, vr = (onp.asarray(o) for o in f(put(A)))
        onp.testing.assert_allclose(vl.conj().T @ A, w[:, None] * vl.conj().T, atol=1e-10)
        onp.testing.assert_allclose(A @ vr, vr * w, atol=1e-10)
    check(lambda a: np.linalg.det(a), A, ref=onp.linalg.det(A), rtol=1e-9)
    check(lambda a: np.linalg.inv(a), A, ref=onp.linalg.inv(A), rtol=1e-8, atol=1e-10)
    check(lambda b: np.linalg.pinv(b), B, ref=onp.linalg.pinv(B), rtol=1e-8, atol=1e-10)
    check(lambda a, b: np.linalg.lstsq(a, b)[0], A, B, ref=onp.linalg.lstsq(A, B)[0],
          rtol=1e-8, atol=1e-10)
    check(lambda s: np.linalg.eigvalsh(s), SPD, ref=onp.linalg.eigvalsh(SPD), rtol=1e-9)


def _host(fn, a):
    """``fn`` on the host (LAPACK's kernels): the reference for NaN placement."""
    with onp.errstate(all="ignore"):
        return onp.asarray(fn(np.asarray(a)))


def test_non_finite_inputs_give_nan_as_on_the_host():
    # cuSOLVER can return finite values (and success) for a matrix holding NaN or inf.
    # (lax's functions: NumPy's own raise LinAlgError for such input, on the host)
    fns = {"svdvals": lambda a: lax.linalg.svd(a, compute_uv=False),
           "eigh_w": lambda a: lax.linalg.eigh(a)[1],
           "svd_u": lambda a: lax.linalg.svd(a)[0]}
    for value in (onp.nan, onp.inf):
        bad = onp.stack([SPD, SPD, SPD])
        bad[1, 2, 1] = bad[1, 1, 2] = value
        bad[2, 0, 0] = value
        for name, fn in fns.items():
            want = onp.isnan(_host(fn, bad))
            for mode, f in (("eager", fn), ("jit", minijax.jit(fn))):
                got = onp.asarray(f(put(bad)))
                onp.testing.assert_array_equal(onp.isnan(got), want,
                                               err_msg=f"{name} {mode} {value}")


def test_convolution_and_half_precision():
    x = RNG.normal(size=(2, 3, 9, 9))
    k = RNG.normal(size=(4, 3, 3, 3))
    cpu = minijax.devices("cpu")[0]
    conv = minijax.jit(lambda a, b: lax.conv(a, b, (1, 1), "SAME"))
    ref = onp.asarray(conv(minijax.device_put(x, cpu), minijax.device_put(k, cpu)))
    out = conv(put(x), put(k))
    assert out.device == GPU
    onp.testing.assert_allclose(onp.asarray(out), ref, rtol=1e-9, atol=1e-9)
    for dtype in (onp.float16, "bfloat16"):
        h = put(onp.arange(8.0)).astype(dtype)
        assert h.device == GPU and (h * 2).dtype == h.dtype
        assert onp.asarray((h * 2).astype(onp.float32)).tolist() == [2.0 * i for i in range(8)]


def test_random_bits_match_jax():
    jax = pytest.importorskip("jax")
    for shape in ((16,), (3, 5)):
        bits = random.bits(random.key(7), shape, onp.uint32)
        theirs = jax.random.bits(jax.random.key(7), shape, onp.uint32)
        onp.testing.assert_array_equal(onp.asarray(bits), onp.asarray(theirs))
        u = random.uniform(random.key(3), shape, onp.float32)
        onp.testing.assert_array_equal(onp.asarray(u), onp.asarray(
            jax.random.uniform(jax.random.key(3), shape, onp.float32)))


def test_in_place_updates_of_gpu_arrays():
    # (on a GPU, basic indexing gives a copy, as JAX's: README, differences)
    y = put(onp.arange(12.0))
    ref = onp.arange(12.0)
    for a in (y, ref):
        a[2] = 100.0
        a[1:7:2] = a[:3]
        a += 1.0
        a[[0, 5]] -= a[8:10]
    onp.testing.assert_array_equal(onp.asarray(y), ref)
    w = y[1:7]
    w[0] = -1.0
    assert float(y[1]) == ref[1] and float(w[0]) == -1.0
    assert y.device == GPU and w.device == GPU


def test_host_callbacks():
    def host(v):
        return onp.asarray(v) * 2
    out = minijax.jit(lambda a: minijax.pure_callback(
        host, minijax.ShapeDtypeStruct(a.shape, a.dtype), a) + 1)(put(A))
    onp.testing.assert_allclose(onp.asarray(out), A * 2 + 1)
    def show_total(a):
        total = a.sum()
        minijax.debug.print("total {t}", t=total)
        return total
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):   # (the callback prints from XLA's thread)
        minijax.jit(show_total)(put(onp.ones(3))).block_until_ready()
    assert "total 3" in printed.getvalue()


if __name__ == "__main__":
    # Without pytest (the GPU machine's Python may lack it): run every test in order.
    if GPU is None:
        sys.exit("no CUDA device minijax can start")
    failed = 0
    for name, test in list(globals().items()):
        if name.startswith("test_") and callable(test):
            try:
                test()
                print(f"PASSED {name}")
            except Exception as e:   # report every test, then fail
                failed += 1
                print(f"FAILED {name}: {type(e).__name__}: {e}")
    sys.exit(1 if failed else 0)
