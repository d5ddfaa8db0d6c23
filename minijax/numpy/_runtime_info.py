"""``show_config`` and ``show_runtime``: what minijax is built on and runs on."""

import importlib.metadata
import platform
import sys

import ml_dtypes
import numpy as np

from ..config import config
from ..runtime import xla_bridge


def _minijax_version():
    return sys.modules["minijax"].__version__


# jaxlib's version is read from its metadata: only runtime/xla_bridge imports jaxlib
def show_config():
    """Print the versions minijax runs with (minijax, NumPy, jaxlib, ml_dtypes, Python)."""
    print(f"minijax {_minijax_version()}")
    print(f"  numpy {np.__version__}, jaxlib {importlib.metadata.version('jaxlib')}, "
          f"ml_dtypes {ml_dtypes.__version__}")
    print(f"  python {platform.python_version()} ({sys.executable})")


def show_runtime():
    """Print the versions, the platform, the devices and the configuration in use."""
    show_config()
    print(f"  platform {platform.platform()} ({platform.machine()})")
    print(f"  devices {[str(d) for d in xla_bridge.devices()]}")
    print(f"  config enable_x64={config.enable_x64}, eager_backend={config.eager_backend!r}")
