"""``minijax.numpy.random``: NumPy's random API and NumPy's numbers.

Every function delegates to NumPy's generators on the host, so the same seed gives
NumPy's numbers, and returns minijax arrays where NumPy returns arrays (NumPy scalars
and Python numbers stay as NumPy returns them). The module-level legacy functions
draw from a ``RandomState`` of this module's own (seeding it does not touch
``numpy.random``'s global state). ``default_rng()`` returns a ``Generator`` with every
method of NumPy's.

These functions keep hidden state. Inside the derivative transformations (``grad``,
``jvp``, ``vjp``, ``linearize``, the jacobians) the function runs once per call on
concrete values, so a draw is fresh per call, NumPy's numbers for the seed, and a
constant for differentiation. Inside ``jit``, ``vmap``, ``make_jaxpr`` or any other
staging they raise ``HiddenStateInTransformationError``: a traced function runs once,
and its draws would be frozen into the compiled program as constants. Use
``minijax.random`` with explicit keys there.
"""

import numpy as _np

from .. import errors
from ..core.trace import Tracer, runs_eagerly
from ..runtime.array import Array, array_from_host
from ..runtime.numpy_dispatch import wrap as _wrap
from ..tree_util import tree_leaves, tree_map
from ._creation import asarray as _asarray

# NumPy's bit generators and seeding carry no arrays: they are NumPy's own classes.
BitGenerator = _np.random.BitGenerator
SeedSequence = _np.random.SeedSequence
MT19937 = _np.random.MT19937
PCG64 = _np.random.PCG64
PCG64DXSM = _np.random.PCG64DXSM
Philox = _np.random.Philox
SFC64 = _np.random.SFC64

# Methods whose results are returned as NumPy gives them (state, bytes, generators).
_PASS_THROUGH = frozenset({"get_state", "set_state", "seed", "bytes", "spawn"})


def _refuse_under_transformation(name, args, kwargs):
    if not runs_eagerly():
        raise errors.HiddenStateInTransformationError(
            f"minijax.numpy.random.{name} was called inside a transformation (jit, grad or "
            f"vmap). It draws from hidden generator state on the host, which a traced "
            f"function would read once and freeze into the trace: every call of the "
            f"compiled function would return the same numbers. Pass an explicit key "
            f"instead: key = minijax.random.key(0); key, sub = minijax.random.split(key); "
            f"minijax.random.normal(sub, shape).")
    if any(isinstance(x, Tracer) for x in tree_leaves((args, kwargs))):
        raise errors.HiddenStateInTransformationError(
            f"minijax.numpy.random.{name} was given a value being differentiated (a "
            f"tracer) inside grad/jvp/vjp. Its draws are constants for differentiation, "
            f"so the derivative through this argument would be silently zero. Draw "
            f"standard variates and transform them yourself (loc + scale * "
            f"minijax.numpy.random.standard_normal(shape)).")


def _to_host(x):
    return _np.asarray(x) if isinstance(x, Array) else x


def _from_host(x):
    return _asarray(x) if isinstance(x, _np.ndarray) else x


_PLAIN_TYPES = frozenset({int, float, bool, str, type(None)})


def _plain(values):
    """Whether ``values`` hold no arrays (Python numbers, strings, None, shape tuples):
    such a call goes to NumPy as it is."""
    for v in values:
        t = type(v)
        if t not in _PLAIN_TYPES and not (t is tuple and all(type(e) is int for e in v)):
            return False
    return True


def _host_call(name, numpy_method, args, kwargs):
    """Call NumPy's ``numpy_method`` on host copies of minijax arrays; a minijax
    array given as ``out=`` receives the result in place."""
    if (not args or _plain(args)) and (not kwargs or _plain(kwargs.values())):
        # the common call (rng.normal(), rng.random(500), rng.integers(0, 5, size=3))
        if not runs_eagerly():
            _refuse_under_transformation(name, args, kwargs)
        result = numpy_method(*args, **kwargs)
        if name in _PASS_THROUGH:
            return result
        return _wrap(result) if type(result) is _np.ndarray else result
    _refuse_under_transformation(name, args, kwargs)
    out = kwargs.get("out")
    args = tree_map(_to_host, args)
    kwargs = tree_map(_to_host, kwargs)
    if isinstance(out, Array):
        kwargs["out"] = host_out = _np.array(out)
        numpy_method(*args, **kwargs)
        out[...] = array_from_host(host_out)
        return out
    result = numpy_method(*args, **kwargs)
    if name in _PASS_THROUGH:
        return result
    if isinstance(result, tuple):
        return tuple(_from_host(r) for r in result)
    return _from_host(result)


def _shuffle(name, numpy_shuffle, x, args, kwargs):
    """NumPy's in-place shuffle, applied to a minijax array's own buffer."""
    _refuse_under_transformation(name, (x, *args), kwargs)
    if not isinstance(x, Array):
        return numpy_shuffle(x, *args, **kwargs)
    host = _np.array(x)
    numpy_shuffle(host, *args, **kwargs)
    x[...] = array_from_host(host)
    return None


def _method(name):
    def method(self, *args, **kwargs):
        return _host_call(name, getattr(self._numpy, name), args, kwargs)
    method.__name__ = method.__qualname__ = name
    return method


def _shuffle_method(self, x, *args, **kwargs):
    """Shuffle ``x`` in place along its first axis (or ``axis=``), as NumPy does."""
    return _shuffle("shuffle", self._numpy.shuffle, x, args, kwargs)


def _install(cls, numpy_cls):
    for name in dir(numpy_cls):
        if name.startswith("_") or name in cls.__dict__ or name == "bit_generator":
            continue
        numpy_attr = getattr(numpy_cls, name)
        method = _method(name)
        method.__doc__ = f"NumPy's ``{numpy_cls.__name__}.{name}``, on minijax arrays."
        if callable(numpy_attr):
            setattr(cls, name, method)


class RandomState:
    """NumPy's legacy ``RandomState`` (Mersenne Twister): the same numbers for a seed."""

    def __init__(self, seed=None):
        self._numpy = _np.random.RandomState(_to_host(seed))

    def __repr__(self):
        return f"minijax.numpy.random.RandomState({self._numpy.__repr__()})"

    def __getstate__(self):
        return self._numpy.get_state()

    def __setstate__(self, state):
        self._numpy = _np.random.RandomState()
        self._numpy.set_state(state)


class Generator:
    """NumPy's ``Generator`` on a bit generator (``default_rng`` makes a PCG64 one)."""

    def __init__(self, bit_generator):
        if isinstance(bit_generator, Generator):
            bit_generator = bit_generator.bit_generator
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError(f"Generator needs a BitGenerator (PCG64, MT19937, ...), "
                            f"got {type(bit_generator).__name__}")
        self._numpy = _np.random.Generator(bit_generator)

    @property
    def bit_generator(self):
        return self._numpy.bit_generator

    def __repr__(self):
        return f"Generator({type(self.bit_generator).__name__})"

    def spawn(self, n_children):
        """``n_children`` independent generators, as NumPy's ``Generator.spawn``."""
        return [Generator(g.bit_generator) for g in self._numpy.spawn(n_children)]

    def permuted(self, x, *, axis=None, out=None):
        """``x`` with each slice along ``axis`` shuffled independently (NumPy's)."""
        return _host_call("permuted", self._numpy.permuted, (x,), {"axis": axis, "out": out})


RandomState.shuffle = Generator.shuffle = _shuffle_method
_install(RandomState, _np.random.RandomState)
_install(Generator, _np.random.Generator)


def default_rng(seed=None):
    """A ``Generator`` seeded like NumPy's ``default_rng(seed)`` (same numbers)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(_np.random.default_rng(_to_host(seed)).bit_generator)


_global_state = RandomState()


def get_bit_generator():
    """The bit generator behind this module's legacy functions."""
    return _global_state._numpy._bit_generator


def set_bit_generator(bitgen):
    """Replace the bit generator behind this module's legacy functions."""
    _global_state._numpy = _np.random.RandomState(bitgen)


def _module_function(name):
    def function(*args, **kwargs):
        return getattr(_global_state, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"NumPy's ``numpy.random.{name}``, returning minijax arrays."
    return function


_LEGACY_FUNCTIONS = sorted(n for n in _np.random.__all__
                           if n[0].islower() and n != "default_rng")
for _name in _LEGACY_FUNCTIONS:
    # ranf and sample are module-level aliases of random_sample in NumPy
    globals()[_name] = _module_function("random_sample" if _name in ("ranf", "sample")
                                        else _name)
del _name

__all__ = ["BitGenerator", "Generator", "MT19937", "PCG64", "PCG64DXSM", "Philox",
           "RandomState", "SFC64", "SeedSequence", "default_rng", "get_bit_generator",
           "set_bit_generator", *_LEGACY_FUNCTIONS]


from ..util import name_functions_where_public as _name_functions_where_public  # noqa: E402

_name_functions_where_public(globals())   # (pickle finds each function by its name here)
