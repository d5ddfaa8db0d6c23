"""Argument handling shared by the ``minijax.scipy`` modules."""

import functools
import types

import numpy as np

from .. import dtypes
from .. import numpy as jnp


def promote_inexact(*args):
    """``args`` as arrays of one floating (or complex) dtype, as SciPy's functions take them."""
    args = [jnp.asarray(a) if isinstance(a, (list, tuple)) else a for a in args]
    dtype = np.dtype(jnp.result_type(*args))
    if not dtypes.is_inexact(dtype):
        dtype = dtypes.default_float()
    return [jnp.asarray(a, dtype=dtype) for a in args]


def check_real(name, *args, hint=""):
    """Raise ``NotImplementedError`` when a function with a real algorithm only is given
    complex input (``hint``: what to use instead)."""
    if any(jnp.iscomplexobj(a) for a in args):
        raise NotImplementedError(f"minijax.scipy.special.{name}: complex input is not "
                                  f"supported{'; ' + hint if hint else ''}")


def reject(name, **given):
    """Raise ``NotImplementedError`` for keywords given a value minijax does not support."""
    for key, value in given.items():
        if value is not None and value is not False:
            raise NotImplementedError(f"minijax.scipy: {name}({key}=...) is not supported")


def without_float_warnings(namespace, names=None):
    """Make the public functions in the module dict ``namespace`` (those in ``names``,
    else every one defined in that module) run under ``np.errstate(all="ignore")``.

    SciPy's special functions and distributions return ``nan``/``inf`` without NumPy's
    floating-point warnings. Evaluated eagerly, minijax's versions would warn: their
    ``where``s compute every branch, including the ones not taken."""
    module = namespace["__name__"]
    if names is None:
        names = [name for name, value in namespace.items()
                 if not name.startswith("_") and isinstance(value, types.FunctionType)
                 and value.__module__ == module]
    for name in names:
        fn = namespace[name]
        if callable(fn) and not isinstance(fn, (type, types.ModuleType)):
            namespace[name] = _quiet(fn)


def _quiet(fn):
    @functools.wraps(fn)
    def quiet(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return quiet
