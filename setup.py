"""Build minijax's compiled eager core (DESIGN 10).

The hot modules are compiled in place by Cython from their own ``.py`` files (Cython's
pure-Python mode): the ``.py`` is the one source, and the extension module of the same
name is what Python imports (extension modules take precedence over ``.py`` files in a
package directory). ``minijax/runtime/__init__.py`` checks at import time that they
were built, and built from the current source: this script records the sha256 of each
source it compiles in ``minijax/runtime/_built_from.py`` (file times cannot tell, as an
installed wheel's files all get the time of the install).
"""

import hashlib
import pathlib

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

# Keep in step with minijax/runtime/__init__.py (COMPILED).
COMPILED_MODULES = [
    "minijax/runtime/array.py",
    "minijax/runtime/numpy_dispatch.py",
    "minijax/runtime/fast_functions.py",
]

HERE = pathlib.Path(__file__).parent


def source_digest(path):
    """The sha256 of a module's source: its ``.py`` and, where it has one, its ``.pxd``
    (keep in step with minijax/runtime/__init__.py)."""
    pxd = path.with_suffix(".pxd")
    return hashlib.sha256(path.read_bytes()
                          + (pxd.read_bytes() if pxd.exists() else b"")).hexdigest()


def record_sources(built=True):
    """Record the digests of the sources being built (``built=False``: none, after a
    failed build, so that the extensions left from an earlier build are refused)."""
    digests = ({pathlib.Path(path).stem: source_digest(HERE / path) for path in COMPILED_MODULES}
               if built else {})
    (HERE / "minijax/runtime/_built_from.py").write_text(
        '"""Written by setup.py: the sha256 of each source the compiled core was built '
        'from."""\n\nSOURCES = ' + repr(digests) + "\n")


record_sources()
try:
    setup(
        ext_modules=cythonize(
            # (NumPy's headers: the core reads an ndarray's fields from its struct)
            [Extension(path[:-3].replace("/", "."), [path], include_dirs=[numpy.get_include()])
             for path in COMPILED_MODULES],
            language_level=3,
            compiler_directives={
                # Python semantics where pure-mode differs by default: functions are
                # introspectable, accept attributes and compare like Python's
                "binding": True,
                "always_allow_keywords": True,
                "embedsignature": True,
            },
        ),
    )
except BaseException:   # (a failed compile or link)
    record_sources(built=False)
    raise
