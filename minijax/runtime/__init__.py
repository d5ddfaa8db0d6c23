"""The runtime layer: the device-resident Array, its placement, and eager dispatch.

The eager core (``COMPILED``) is compiled by Cython from these ``.py`` files when the
package is installed (setup.py, DESIGN 10). Python would quietly import a ``.py`` whose
extension module is missing, or an extension built from another version of the ``.py``
(setup.py records the sha256 of each source it compiles), so the import fails here
instead: the compiled core, built from the current source, is
what runs. ``MINIJAX_UNCOMPILED=1`` runs the same source uncompiled (slower), for a
machine that cannot build it."""

import hashlib
import importlib.machinery
import importlib.util
import os

# Keep in step with setup.py (COMPILED_MODULES).
COMPILED = ("minijax.runtime.array", "minijax.runtime.numpy_dispatch",
            "minijax.runtime.fast_functions")

_BUILD = ("Build it with `pip install -e .` (or `python setup.py build_ext --inplace` in a "
          "source checkout; both need a C compiler and Cython), or set "
          "MINIJAX_UNCOMPILED=1 to run the Python source uncompiled")


def _source_digest(source):
    """The sha256 of ``source`` and of its ``.pxd`` where it has one (as setup.py's)."""
    digest = hashlib.sha256()
    for path in (source, source[:-3] + ".pxd"):
        if path == source or os.path.exists(path):
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()


def _check_compiled():
    try:
        from ._built_from import SOURCES   # (written by setup.py with the extensions)
    except ImportError:
        SOURCES = {}
    for name in COMPILED:
        origin = importlib.util.find_spec(name).origin or ""
        if not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            raise ImportError(f"minijax's compiled eager core is not built ({name} would be "
                              f"imported from {origin}). {_BUILD}.")
        stem = name.rpartition(".")[2]
        source = os.path.join(os.path.dirname(origin), stem + ".py")
        if SOURCES.get(stem) != _source_digest(source):
            raise ImportError(f"minijax's compiled eager core is older than its source "
                              f"({source} changed after {os.path.basename(origin)} was "
                              f"built). {_BUILD}.")


if os.environ.get("MINIJAX_UNCOMPILED") == "1":
    import sys
    for _name in COMPILED:   # the .py files, even where extensions were built
        _spec = importlib.util.spec_from_file_location(
            _name, os.path.join(os.path.dirname(__file__), _name.rpartition(".")[2] + ".py"))
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)
else:
    _check_compiled()
