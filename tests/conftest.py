import atexit as _atexit
import os
import shutil as _shutil
import tempfile as _tempfile

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=15, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE",
                                     "ci" if os.environ.get("CI") else "dev"))

# The persistent compilation cache must never write into the user's real cache
# directory from the test suite: point it (and every subprocess a test starts) at a
# temporary directory for the session, removed at exit.
_TEST_CACHE_DIR = _tempfile.mkdtemp(prefix="minijax-test-cache-")
os.environ["MINIJAX_CACHE_DIR"] = _TEST_CACHE_DIR
_atexit.register(_shutil.rmtree, _TEST_CACHE_DIR, True)


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
