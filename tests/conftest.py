import os
from importlib import metadata

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=15, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE",
                                     "ci" if os.environ.get("CI") else "dev"))

# The test suite keeps its compiled programs between runs (70% of its time is XLA
# compilation): in $MINIJAX_TEST_CACHE_DIR (.ci/run sets it), else a directory of its own
# under the user's cache directory, never the user's real minijax cache. The JAX oracle's
# compiles are cached there too. Subprocesses inherit both through the environment; the
# cache-fault tests point the cache at their own temporary directories.
_cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".cache")
_TEST_CACHE_DIR = os.environ.get("MINIJAX_TEST_CACHE_DIR") or os.path.join(
    _cache_home, "minijax-tests")
os.environ["MINIJAX_CACHE_DIR"] = os.path.join(_TEST_CACHE_DIR, "minijax")
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.path.join(_TEST_CACHE_DIR, "jax"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")
# The suite runs on the CPU platform, also on a machine with a GPU (the GPU tier is
# tests/test_gpu.py, run by benchmarks/gpu_check.sh); the JAX oracle too.
os.environ.setdefault("MINIJAX_PLATFORMS", "cpu")
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def package_version(name):
    """An installed package's ``(major, minor)``."""
    return tuple(int(part) for part in metadata.version(name).split(".")[:2])


# XLA's CPU code generation: the suite compiles ~6,000 small programs and runs most of them
# once, so it compiles them for compile speed, not run speed: LLVM at -O0 (half of the
# compile time of -O3, XLA's default) and, on jaxlib 0.10, XLA's older elemental emitters
# (its MLIR fusion emitters take 1.65 times as long; jaxlib 0.11's XLA no longer has the
# flag, and aborts on a flag it does not know). The JAX oracle compiles with the same
# flags. tests/test_xla_default_options.py runs the lax table's numerically delicate rows,
# and the tests marked ``xla_defaults`` (their exact results hold only with XLA's
# defaults), in a subprocess with XLA's defaults; MINIJAX_TEST_XLA_DEFAULTS=1 restores
# them for the whole suite.
FAST_COMPILE_FLAGS = ("--xla_backend_optimization_level=0",) + (
    ("--xla_cpu_use_fusion_emitters=false",) if package_version("jaxlib") < (0, 11) else ())
XLA_DEFAULTS = bool(os.environ.get("MINIJAX_TEST_XLA_DEFAULTS"))
_flags = [f for f in os.environ.get("XLA_FLAGS", "").split() if f not in FAST_COMPILE_FLAGS]
if not XLA_DEFAULTS:
    _flags += FAST_COMPILE_FLAGS
os.environ["XLA_FLAGS"] = " ".join(_flags)
# Two CPU devices, so that placement is tested (tests/test_devices.py); the default
# device stays the first. The JAX oracle gets the same devices.
os.environ.setdefault("MINIJAX_CPU_DEVICE_COUNT", "2")
os.environ.setdefault("JAX_NUM_CPU_DEVICES", os.environ["MINIJAX_CPU_DEVICE_COUNT"])


@pytest.fixture(autouse=True)
def _config_restored():
    """Each test leaves minijax's options as it found them (a test that switches to the
    32-bit mode and forgets, or restores the wrong default, would change every later
    test's dtypes)."""
    from minijax.config import config
    saved = {k: v for k, v in vars(config).items() if not k.startswith("_")}
    yield
    for k, v in saved.items():
        if getattr(config, k) != v:
            config.update(k, v)


@pytest.fixture
def jax():
    """JAX as an oracle, in its 64-bit mode for the test (skipped where it is not
    installed)."""
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        yield jax


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "xla_defaults: exact results that hold only with XLA's default options; "
        "run by tests/test_xla_default_options.py, in a subprocess with those options")


# Modules with single tests of 5 to 25 s (cold): run first, so that with pytest-xdist the
# run ends on short tests and the workers finish together.
LONG_TESTS_FIRST = ("test_random", "test_random_impls", "test_random_more_samplers",
                    "test_random_gradients", "test_scipy_stats", "test_scipy_stats_mvn_cdf",
                    "test_sharding_matrix", "test_distributed", "test_xla_default_options")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.module.__name__ not in LONG_TESTS_FIRST)
    if XLA_DEFAULTS:
        return
    kept, deselected = [], []
    for item in items:
        (kept if item.get_closest_marker("xla_defaults") is None else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
