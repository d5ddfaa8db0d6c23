"""The runtime layer: the jaxlib bridge, the device-resident Array, and eager dispatch.

The eager core (``COMPILED``) is compiled by Cython from these ``.py`` files when the
package is installed (setup.py, DESIGN 10). Python would import a ``.py`` whose
extension module is missing, so the import fails here instead: the compiled core is the
only implementation run."""

import importlib.machinery
import importlib.util

# Keep in step with setup.py (COMPILED_MODULES).
COMPILED = ("minijax.runtime.array", "minijax.runtime.numpy_dispatch")


def _check_compiled():
    for name in COMPILED:
        origin = importlib.util.find_spec(name).origin or ""
        if not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            raise ImportError(
                f"minijax's compiled eager core is not built ({name} would be imported from "
                f"{origin}). Build it with `pip install -e .` (or `python setup.py "
                f"build_ext --inplace` in a source checkout); it needs a C compiler and "
                f"Cython.")


_check_compiled()
