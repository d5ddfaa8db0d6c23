"""NumPy's ``__array_ufunc__`` protocol on minijax arrays and tracers.

A NumPy ufunc called on minijax values (``numpy.exp(x)``, ``ndarray + x``, SciPy's
compiled ufuncs such as ``scipy.special.erf(x)``) returns minijax values, as the same call
on NumPy arrays returns NumPy arrays:

- a ufunc minijax has (same name in ``minijax.numpy``) runs as minijax's, under every
  transformation;
- any other ufunc runs on the host: directly on concrete values, and through
  ``minijax.pure_callback`` on traced ones (``jit``, ``vmap``; it has no derivative), its
  output dtypes from the ufunc's own type resolution;
- a call writing into a NumPy ``out=`` array (``ndarray += x``) runs in NumPy, as
  before the protocol existed.
"""

import numpy as np

from ..core import Tracer, get_aval
from ..api import ShapeDtypeStruct
from ..callbacks import pure_callback
from ..runtime.array import Array
from ._core import to_array

_METHODS = ("__call__", "reduce", "accumulate", "reduceat", "outer", "at")


def _minijax_ufunc(np_ufunc, method):
    """minijax's ufunc of that name, or its function for a plain call of a ufunc minijax
    has as a function (``matmul`` and the other generalized ufuncs)."""
    # deferred: this module is imported while the namespace is being built
    from . import _ufunc
    import minijax.numpy as mnp
    own = getattr(mnp, np_ufunc.__name__, None)
    if isinstance(own, _ufunc.ufunc) or (method == "__call__" and callable(own)):
        return own
    return None


def _host(x):
    return np.asarray(x) if isinstance(x, (Array, Tracer)) else x


def _is_traced(x):
    return isinstance(x, Tracer) and x.to_concrete_value() is None


def array_ufunc(self, np_ufunc, method, *inputs, **kwargs):
    """``__array_ufunc__`` of ``Array`` and of every tracer (see the module docstring)."""
    if method not in _METHODS:
        return NotImplemented
    out = kwargs.get("out")
    if out is not None and any(isinstance(o, np.ndarray) for o in out):
        if any(_is_traced(x) for x in inputs):
            return NotImplemented   # NumPy then names the failed conversion
        args = [_host(x) for x in inputs]
        kwargs = dict(kwargs, out=tuple(_host(o) for o in out))
        return getattr(np_ufunc, method)(*args, **kwargs)
    own = _minijax_ufunc(np_ufunc, method)
    if own is not None:
        if out is not None:
            kwargs = dict(kwargs, out=out[0] if len(out) == 1 else out)
        return own(*inputs, **kwargs) if method == "__call__" else \
            getattr(own, method)(*inputs, **kwargs)
    return _foreign(np_ufunc, method, inputs, kwargs)


def _foreign(np_ufunc, method, inputs, kwargs):
    """A ufunc minijax does not have: run on the host, results as minijax arrays."""
    name = np_ufunc.__name__
    if kwargs.get("out") is not None:
        raise TypeError(f"{name}(out=...) on minijax arrays: minijax arrays cannot be "
                        f"written by a NumPy ufunc; use the result instead")
    if not any(isinstance(x, Tracer) for x in inputs):
        result = getattr(np_ufunc, method)(*[_host(x) for x in inputs], **kwargs)
        if method == "at":
            return None
        return (tuple(to_array(r) for r in result) if isinstance(result, tuple)
                else to_array(result))
    if np_ufunc.signature is not None:
        raise TypeError(f"{name} (a generalized ufunc, signature {np_ufunc.signature}) on "
                        f"traced minijax values: minijax runs only elementwise NumPy ufuncs "
                        f"it does not have on the host under a transformation")
    if method != "__call__" or kwargs:
        raise TypeError(f"{name}.{method} with {sorted(kwargs) or 'this method'} on "
                        f"traced minijax values: only "
                        f"plain calls of a NumPy ufunc minijax does not have run under a "
                        f"transformation (through minijax.pure_callback)")
    arrays = [to_array(x) for x in inputs]
    avals = [get_aval(a) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in avals))
    try:
        loop = np_ufunc.resolve_dtypes(tuple(a.dtype for a in avals) + (None,) * np_ufunc.nout)
    except TypeError as e:
        raise TypeError(f"{name} has no loop for inputs of dtypes "
                        f"{[a.dtype.name for a in avals]}: {e}") from None
    result_specs = tuple(ShapeDtypeStruct(shape, dt) for dt in loop[np_ufunc.nin:])

    def host_call(*xs):
        r = np_ufunc(*xs)
        rs = r if isinstance(r, tuple) else (r,)
        return tuple(np.asarray(v, dtype=s.dtype) for v, s in zip(rs, result_specs))

    host_call.__name__ = host_call.__qualname__ = name
    outs = pure_callback(host_call, result_specs, *arrays, vmap_method="expand_dims")
    return outs if np_ufunc.nout > 1 else outs[0]
