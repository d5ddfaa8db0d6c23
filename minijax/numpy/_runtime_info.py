"""``show_config`` and ``show_runtime``: what minijax is built on and runs on."""

import importlib.metadata
import platform
import sys

import ml_dtypes
import numpy as np

from ..config import config
from .. import backend


def _minijax_version():
    return sys.modules["minijax"].__version__


def _versions():
    # jaxlib's version is read from its metadata: only minijax/backend imports jaxlib
    return {"minijax": _minijax_version(), "numpy": np.__version__,
            "jaxlib": importlib.metadata.version("jaxlib"), "ml_dtypes": ml_dtypes.__version__,
            "python": f"{platform.python_version()} ({sys.executable})"}


def show_config(mode="stdout"):
    """The versions minijax runs with (minijax, NumPy, jaxlib, ml_dtypes, Python): printed
    (``mode="stdout"``) or returned as a dict (``mode="dicts"``), as NumPy's."""
    if mode not in ("stdout", "dicts"):
        raise ValueError(f"show_config: mode must be 'stdout' or 'dicts', got {mode!r}")
    versions = _versions()
    if mode == "dicts":
        return versions
    print(f"minijax {versions['minijax']}")
    print(f"  numpy {versions['numpy']}, jaxlib {versions['jaxlib']}, "
          f"ml_dtypes {versions['ml_dtypes']}")
    print(f"  python {versions['python']}")


def show_runtime():
    """Print the versions, the platform, the devices and the configuration in use."""
    show_config()
    print(f"  platform {platform.platform()} ({platform.machine()})")
    print(f"  devices {[str(d) for d in backend.devices()]}")
    print(f"  config enable_x64={config.enable_x64}, eager_backend={config.eager_backend!r}")
