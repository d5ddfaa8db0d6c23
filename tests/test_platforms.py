"""Platforms without a GPU: selection, placement, host reads and the CUDA plugin finder.

A fake CUDA backend (``CudaBackend`` whose client is a second CPU client) stands in for
a GPU: its buffers are not read in place (``reads_host_memory`` False), so eager work
on Arrays committed to it runs compiled there and host reads go through the CUDA
backend's copy to the CPU client, as on a GPU."""

import os
import subprocess
import sys

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import backend
from minijax.backend import _jaxlib, cuda
from minijax.config import config
from minijax.errors import PlatformUnavailableError, UnknownPlatformError


class FakeCuda(cuda.CudaBackend):
    """The CUDA backend with a CPU client in place of the plugin's."""

    def __init__(self):
        super().__init__(plugin=("/nonexistent/xla_cuda_plugin.so", 13))

    def make_client(self):
        return _jaxlib.xla_client.make_cpu_client()


@pytest.fixture(scope="module")
def fake():
    # (on a machine with a GPU the real CUDA backend steps aside meanwhile; the suite
    # names the CPU alone in MINIJAX_PLATFORMS, these tests name platforms themselves)
    real, platforms = backend._backends.get("cuda"), config.platforms
    config.update("platforms", None)
    gpu = backend.register_backend(FakeCuda())
    yield gpu
    backend.unregister_backend("cuda")
    if real is not None:
        backend.register_backend(real)
    config.update("platforms", platforms)
    assert backend.get_backend() is backend.get_backend("cpu")


@pytest.fixture
def on_fake(fake):
    dev = fake.default_device()
    return dev


def test_selection_order_and_config(fake):
    cpu = backend.get_backend("cpu")
    try:
        config.update("platforms", "cpu,cuda")
        assert backend.requested_platforms() == ("cpu", "cuda")
        assert backend.get_backend() is cpu and minijax.default_backend() == "cpu"
        config.update("jax_platforms", "cuda,cpu")    # JAX's name, the default follows
        assert backend.get_backend() is fake and backend.default_platform() == "cuda"
        assert minijax.devices() == fake.devices() and minijax.device_count() == 1
        assert minijax.devices("cpu") == cpu.devices() == minijax.local_devices(backend="cpu")
        assert minijax.devices("gpu") == minijax.devices("cuda") == fake.devices()
        assert minijax.device_count("cpu") == 2
        config.update("platforms", "gpu")   # JAX's alias: the GPU platforms present
        assert backend.requested_platforms() == ("cuda",)
        assert backend.get_backend() is fake
    finally:
        config.update("platforms", None)
    # no request: the GPU first, when it starts
    assert backend.get_backend() is fake
    config.update("platforms", "cpu")
    assert backend.get_backend() is cpu
    # as JAX's jax_platforms, a platform left out is not there; the CPU, where eager
    # Arrays live, always is
    try:
        assert backend.backends() == {"cpu": cpu}
        with pytest.raises(PlatformUnavailableError, match=r"platform 'cuda' is not "
                           r"available.*MINIJAX_PLATFORMS.*'cpu'.*name it there"):
            minijax.devices("cuda")
        with pytest.raises(ValueError, match="unsupported device 'cuda'"):
            minijax.device_put(np.ones(2), "cuda")
        config.update("platforms", "cuda")
        assert backend.get_backend() is fake and minijax.devices("cpu") == cpu.devices()
    finally:
        config.update("platforms", None)
    assert set(backend.backends()) == {"cpu", "cuda"}


def test_unavailable_platforms_are_named_errors(fake):
    for request in ("rocm", "cpu,rocm", "tpu"):
        config.update("platforms", request)
        try:
            with pytest.raises(PlatformUnavailableError, match="has no backend"):
                minijax.jit(lambda x: x + 1)(np.arange(3.0))
        finally:
            config.update("platforms", None)
    assert issubclass(PlatformUnavailableError, UnknownPlatformError)
    assert issubclass(PlatformUnavailableError, RuntimeError)
    with pytest.raises(UnknownPlatformError, match="unknown platform 'metal'"):
        config.update("platforms", "metal")
        try:
            backend.get_backend()
        finally:
            config.update("platforms", None)
    with pytest.raises(ValueError, match="comma-separated string"):
        config.update("platforms", ["cuda"])
    with pytest.raises(TypeError, match="platform name"):
        minijax.devices(3)


def test_a_cuda_backend_that_cannot_start_says_what_to_install(monkeypatch):
    monkeypatch.setattr(cuda, "find_plugin", lambda: None)   # (as where none is installed)
    broken = cuda.CudaBackend(plugin=None)
    with pytest.raises(PlatformUnavailableError, match=r'pip install "minijax\[cuda12\]"'):
        broken.get_client()
    assert not broken.client_made


def test_facts_of_the_cuda_backend(fake):
    assert fake.platform == "cuda" and not fake.reads_host_memory
    assert fake.host_callback_target == "xla_ffi_python_gpu_callback"
    assert fake.dlpack_device_type == 2
    dev = fake.default_device()
    assert backend.backend_for_device(dev) is fake
    assert backend.platform_of(dev) == "cuda" and not backend.reads_host_memory(dev)
    assert backend.dlpack_device(dev) == (2, 0)
    assert backend.resolve_device(dev, "t") is dev
    # the CPU's devices stay the CPU backend's
    assert backend.backend_for_device(minijax.devices("cpu")[1]) is backend.get_backend("cpu")


def test_eager_on_a_device_array_runs_compiled_there_and_keeps_placement(on_fake):
    a = onp.arange(6.0).reshape(2, 3)
    x = minijax.device_put(np.asarray(a), on_fake)
    assert x.device == on_fake and x.committed() and x._host is None
    y = np.sin(x) * 2 + x.sum(axis=0)
    assert y.device == on_fake and y.committed()
    assert y._host is None and y._buffer is not None   # computed on the device
    onp.testing.assert_allclose(onp.asarray(y), onp.sin(a) * 2 + a.sum(axis=0))
    z = np.matmul(x, x.T)
    assert z.device == on_fake
    onp.testing.assert_allclose(onp.asarray(z), a @ a.T)
    # jit runs where its committed inputs live
    w = minijax.jit(lambda v: (v * 3).sum())(x)
    assert w.device == on_fake and float(w) == a.sum() * 3
    g = minijax.grad(lambda v: (v ** 2).sum())(x)
    assert g.device == on_fake
    onp.testing.assert_allclose(onp.asarray(g), 2 * a)


def test_mixing_platforms_is_refused(on_fake):
    x = minijax.device_put(np.arange(3.0), on_fake)
    c = minijax.device_put(np.arange(3.0), minijax.devices("cpu")[0])
    with pytest.raises(ValueError, match="committed to different devices"):
        x + c
    with pytest.raises(ValueError, match="committed to different devices"):
        minijax.jit(lambda p, q: p * q)(x, c)
    # an uncommitted Array goes where the committed one is
    u = x + np.arange(3.0)
    assert u.device == on_fake
    assert u.tolist() == [0.0, 2.0, 4.0]


def test_host_reads_copy(on_fake):
    x = minijax.device_put(np.asarray(onp.array([[1.5, -2.0], [3.0, 4.25]])), on_fake)
    h = onp.asarray(x)
    assert h.tolist() == [[1.5, -2.0], [3.0, 4.25]] and not h.flags.writeable
    assert x.tolist() == [[1.5, -2.0], [3.0, 4.25]]
    assert float(x[1, 1]) == 4.25 and int(x[0, 0]) == 1 and bool(x[0, 0])
    assert "4.25" in str(x) and repr(x).startswith("Array([[")
    assert minijax.device_get(x).tolist() == h.tolist()
    b = minijax.device_put(np.asarray([1.0, 2.5], dtype="bfloat16"), on_fake)
    assert onp.asarray(b).astype(onp.float32).tolist() == [1.0, 2.5]
    # and back onto the CPU
    c = minijax.device_put(x, minijax.devices("cpu")[0])
    assert c.device.platform == "cpu" and c.tolist() == h.tolist()


def test_dlpack_of_device_arrays(fake, on_fake):
    x = minijax.device_put(np.arange(4.0), on_fake)
    assert x.__dlpack_device__() == (2, 0)
    assert np.arange(2.0).__dlpack_device__() == (1, 0)
    assert minijax.device_put(np.arange(2.0), minijax.devices("cpu")[1]).__dlpack_device__() \
        == (1, 0)
    capsule = x.__dlpack__()
    assert type(capsule).__name__ == "PyCapsule"

    class Producer:   # a GPU library's array (its capsule is host memory here)
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None, **kw):
            return backend.dlpack_export(x._buffer, stream)

    y = np.from_dlpack(Producer())
    assert y.device == on_fake and y.committed() and y.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_from_dlpack_of_an_unavailable_device_is_a_named_error():
    class Rocm:
        def __dlpack_device__(self):
            return (10, 0)

        def __dlpack__(self, stream=None, **kw):
            raise AssertionError("not read")

    with pytest.raises(PlatformUnavailableError, match="'rocm'.*from_dlpack"):
        np.from_dlpack(Rocm())


def test_memory_options(monkeypatch):
    monkeypatch.setattr(_jaxlib, "gpu_plugin_options", lambda: {"platform_name": "cuda"})
    assert cuda.client_options() == {"platform_name": "cuda"}
    config.update("gpu_memory_fraction", 0.5)
    config.update("gpu_preallocate", False)
    try:
        assert cuda.client_options() == {"platform_name": "cuda", "memory_fraction": 0.5,
                                         "preallocate": False}
    finally:
        config.update("gpu_memory_fraction", None)
        config.update("gpu_preallocate", None)
    for bad in (0, 1.5, "half"):
        with pytest.raises(ValueError, match="gpu_memory_fraction"):
            config.update("gpu_memory_fraction", bad)


def test_environment_variables_in_a_fresh_process():
    code = ("import minijax, warnings; from minijax.config import config; "
            "print(config.platforms, config.gpu_memory_fraction, config.gpu_preallocate)")
    env = dict(os.environ, MINIJAX_PLATFORMS="cuda,cpu", MINIJAX_GPU_MEMORY_FRACTION="0.3",
               MINIJAX_GPU_PREALLOCATE="false")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["cuda,cpu", "0.3", "False"]


# ---------------------------------------------------------------- the plugin finder

def _fake_plugin(root, directory):
    lib = root / "jax_plugins" / directory
    lib.mkdir(parents=True)
    (lib / "xla_cuda_plugin.so").write_bytes(b"not a library")
    return str(lib / "xla_cuda_plugin.so")


def test_plugin_finder(tmp_path, monkeypatch):
    # only the directories made here are searched (not a CUDA plugin this machine has)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "a")])
    monkeypatch.delitem(sys.modules, "jax_plugins", raising=False)
    assert cuda.find_plugin() is None          # (a directory with no jax_plugins)
    path12 = _fake_plugin(tmp_path / "a", "xla_cuda12")
    sys.path.insert(0, str(tmp_path / "b"))
    path13 = _fake_plugin(tmp_path / "b", "xla_cuda13")
    import importlib
    importlib.invalidate_caches()
    assert cuda.find_plugin() == (path13, 13)   # CUDA 13 first
    assert "jax_plugins" not in sys.modules       # found, not imported
    (tmp_path / "b" / "jax_plugins" / "xla_cuda13" / "xla_cuda_plugin.so").unlink()
    assert cuda.find_plugin() == (path12, 12)


def test_a_fake_plugin_is_registered_and_fails_to_start_with_the_named_error(tmp_path):
    _fake_plugin(tmp_path, "xla_cuda13")
    code = ("import minijax, minijax.backend as b\n"
            "print(sorted(b.backends()))\n"
            "try:\n    minijax.devices('cuda')\n"
            "except minijax.errors.PlatformUnavailableError as e:\n"
            "    print('named', 'minijax[cuda13]' in str(e))\n"
            "import warnings\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    print(minijax.default_backend(), len(w))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.getcwd()]))
    env.pop("MINIJAX_PLATFORMS", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["['cpu', 'cuda']", "named True", "cpu 1"]


def test_gpu_tier_runs_on_the_fake_platform(on_fake, monkeypatch):
    """tests/test_gpu.py's checks that need no CUDA kernel, on the fake platform: the GPU
    tier itself is exercised here, before it meets a GPU."""
    import test_gpu   # (the GPU tier's module; its device is chosen at import)
    monkeypatch.setattr(test_gpu, "GPU", on_fake)
    for test in (test_gpu.test_elementwise_reductions_matmul, test_gpu.test_grad_vmap,
                 test_gpu.test_control_flow_sort_fft,
                 test_gpu.test_random_and_indexed_updates,
                 test_gpu.test_convolution_and_half_precision,
                 test_gpu.test_random_bits_match_jax,
                 test_gpu.test_in_place_updates_of_gpu_arrays):
        test()
