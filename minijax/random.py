"""``minijax.random``: JAX's counter-based PRNG API, giving JAX's bits.

Keys are explicit values. ``key(seed)`` makes a typed key (a :class:`KeyArray` of shape
``()`` and a key dtype such as ``key<fry>``); ``PRNGKey(seed)`` makes a legacy raw key,
the bare key data. Every function accepts both and returns keys of the kind it was
given. Three PRNG implementations, JAX's, give JAX's bits eagerly, under ``jit`` and
under ``vmap``:

- ``"threefry2x32"`` (the default; dtype ``key<fry>``, key data ``uint32[2]``):
  threefry2x32 written in ``lax`` operations, with JAX's default ("partitionable")
  counter layout.
- ``"rbg"`` (``key<rbg>``, ``uint32[4]``): bits from XLA's ``rng_bit_generator``
  (``lax.rng_bit_generator``), ``split`` and ``fold_in`` by threefry on each half of the
  key data.
- ``"unsafe_rbg"`` (``key<urbg>``, ``uint32[4]``): ``split`` and ``fold_in`` by
  ``rng_bit_generator`` too (faster, weaker key derivation).

``key(seed, impl=...)``, ``PRNGKey``, ``wrap_key_data`` take an implementation's name;
the default (also how legacy raw keys are read) is the config option
``default_prng_impl`` (JAX's name ``jax_default_prng_impl`` is accepted).
``rng_bit_generator``'s bits are XLA's own and, as JAX warns, may change between XLA
versions and backends.

A :class:`KeyArray` is a pytree node whose one child is its key data (the
implementation is its static aux data), so keys pass through ``jit`` arguments and
results, ``vmap`` (along leading key axes) and ``scan``/``fori_loop``/``while_loop``
carries with no special rules in the transformations. Arithmetic, comparisons and NumPy
conversion of a typed key raise a ``TypeError``; ``key_data`` and ``wrap_key_data``
convert explicitly.

Each sampler is a ``jit``-compiled function of a key array and its static shape and
dtype (as in JAX), so eager calls run the same XLA computation as traced ones.
"""

import math
import operator

import ml_dtypes
import numpy as np

from . import dtypes, lax
from ._array_type import Array as _ArrayType
from . import numpy as jnp
from .api import jit, vmap
from .config import config
from .core import Primitive, Tracer
from .core.avals import ShapedArray
from .custom_derivatives import custom_jvp
from .interpreters import batching
from .interpreters.lowering import lower_via
from .runtime.array import Array
from .tree_util import register_pytree_node

__all__ = [
    "KeyArray", "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical",
    "cauchy", "chisquare", "choice", "clone", "dirichlet", "double_sided_maxwell",
    "exponential", "fold_in", "gamma", "generalized_normal", "gumbel", "key", "key_data",
    "key_dtype", "key_impl", "laplace", "loggamma", "logistic", "maxwell", "multivariate_normal",
    "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher", "randint",
    "split", "t", "truncated_normal", "uniform", "weibull_min", "wrap_key_data",
]

_UINT = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
         64: np.dtype(np.uint64)}
_U32 = np.dtype(np.uint32)


# ------------------------------------------------------------------ the key type

class KeyDtype:
    """The element type of typed key arrays of one PRNG implementation; prints as
    ``key<fry>`` (threefry2x32), ``key<rbg>`` (rbg) or ``key<urbg>`` (unsafe_rbg)."""

    type = dtypes.prng_key     # issubdtype(k.dtype, dtypes.prng_key) (and dtypes.extended)
    kind = "V"

    def __init__(self, impl):
        self._impl = impl
        self.name = f"key<{impl.tag}>"

    impl = property(lambda self: self._impl.name)
    key_shape = property(lambda self: self._impl.key_shape)

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, KeyDtype):
            return other.name == self.name
        return isinstance(other, str) and other == self.name

    def __hash__(self):
        return hash(self.name)


class PRNGImpl:
    """A PRNG implementation: its key data shape and its functions of raw key data
    (``seed`` from the two threefry seed words, ``split``, ``fold_in``,
    ``random_bits``)."""

    def __init__(self, name, tag, key_shape, seed, split, fold_in, random_bits):
        self.name, self.tag, self.key_shape = name, tag, key_shape
        self.seed, self.split, self.fold_in, self.random_bits = seed, split, fold_in, random_bits
        self.dtype = KeyDtype(self)

    def __repr__(self):
        return f"PRNGImpl({self.name!r})"


def _unsupported(opname):
    def method(self, *args, **kwargs):
        others = ", ".join(str(getattr(a, "dtype", type(a).__name__)) for a in args)
        raise TypeError(f"{opname} does not accept dtypes {self.dtype}{', ' if others else ''}"
                        f"{others}: PRNG keys support only key derivation (split, fold_in) "
                        f"and sampling; use minijax.random.key_data(key) for the raw bits")
    method.__name__ = opname
    return method


class KeyArray:
    """An array of PRNG keys of one implementation, of dtype ``key<fry>``, ``key<rbg>``
    or ``key<urbg>``.

    Its shape leaves out the key data's trailing axis (2 or 4 ``uint32`` words).
    Indexing, ``reshape``, ``len`` and iteration act on keys; arithmetic raises
    ``TypeError``.
    """

    __slots__ = ("_base", "_impl")
    __array_priority__ = 100

    def __init__(self, base, impl=None):
        self._base = base
        self._impl = _THREEFRY if impl is None else impl

    # The array protocol a key supports.
    shape = property(lambda self: tuple(self._base.shape[:-1]))
    ndim = property(lambda self: len(self._base.shape) - 1)
    size = property(lambda self: math.prod(self.shape))
    dtype = property(lambda self: self._impl.dtype)
    T = property(lambda self: self.transpose())

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a scalar PRNG key array")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a scalar PRNG key array")
        return (KeyArray(self._base[i], self._impl) for i in range(self.shape[0]))

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        return KeyArray(self._base[index + (slice(None),)], self._impl)

    def reshape(self, *shape):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        return KeyArray(jnp.reshape(self._base, tuple(shape) + self._impl.key_shape),
                        self._impl)

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def transpose(self, *axes):
        axes = tuple(axes[0]) if len(axes) == 1 and axes[0] is not None and not isinstance(
            axes[0], int) else axes
        axes = axes or tuple(reversed(range(self.ndim)))
        return KeyArray(jnp.transpose(self._base, tuple(a % self.ndim for a in axes)
                                      + (self.ndim,)), self._impl)

    def block_until_ready(self):
        if hasattr(self._base, "block_until_ready"):
            self._base.block_until_ready()
        return self

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"a PRNG key array of dtype {self.dtype} cannot be converted to a "
                        f"NumPy array; use np.asarray(minijax.random.key_data(key))")

    def __bool__(self):
        raise TypeError(f"the truth value of a PRNG key array (dtype {self.dtype}) is "
                        f"undefined")

    def _same_impl(self, opname, other):
        if other._impl is not self._impl:
            raise TypeError(f"{opname} does not accept dtypes {self.dtype}, {other.dtype}: "
                            f"keys of different PRNG implementations cannot be compared")

    def __eq__(self, other):
        if not isinstance(other, KeyArray):
            return NotImplemented
        self._same_impl("equal", other)
        return jnp.all(jnp.equal(self._base, other._base), axis=-1)

    def __ne__(self, other):
        if not isinstance(other, KeyArray):
            return NotImplemented
        self._same_impl("not_equal", other)
        return jnp.any(jnp.not_equal(self._base, other._base), axis=-1)

    __hash__ = None

    def __repr__(self):
        if isinstance(self._base, Tracer):
            return f"KeyArray({self.shape}, dtype={self.dtype}) overlaying {self._base!r}"
        return (f"Array({self.shape}, dtype={self.dtype}) overlaying:\n"
                f"{np.asarray(self._base)}")

    for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                  "and", "or", "xor", "lshift", "rshift", "lt", "le", "gt", "ge"):
        locals()[f"__{_name}__"] = _unsupported(_name)
        locals()[f"__r{_name}__"] = _unsupported(_name)
    for _name in ("neg", "pos", "abs", "invert", "int", "float", "complex", "index"):
        locals()[f"__{_name}__"] = _unsupported(_name)
    del _name


# The implementation is static aux data: jit caches and retraces per implementation.
register_pytree_node(KeyArray, lambda k: ((k._base,), k._impl),
                     lambda impl, children: KeyArray(children[0], impl))
_ArrayType.register(KeyArray)   # (a typed key array is a minijax.Array, as in JAX)


def _is_array(x):
    return isinstance(x, (Array, Tracer, np.ndarray))


def _key_base(name, key, allow_batched=False):
    """(a key array, was_typed) for a typed key or a legacy key (raw key data of the
    default implementation)."""
    if isinstance(key, KeyArray):
        keys, typed = key, True
    elif _is_array(key):
        impl = _default_impl()
        k = len(impl.key_shape)
        if key.dtype != _U32 or key.ndim < k or tuple(key.shape[-k:]) != impl.key_shape:
            raise TypeError(f"{name}: expected a PRNG key (from minijax.random.key or "
                            f"PRNGKey), got an array of dtype {key.dtype} and shape "
                            f"{tuple(key.shape)}; a legacy key of the default PRNG "
                            f"implementation ({impl.name}) is a uint32 array of trailing "
                            f"shape {impl.key_shape}")
        keys, typed = KeyArray(jnp.asarray(key), impl), False
    else:
        raise TypeError(f"{name}: expected a PRNG key (from minijax.random.key or "
                        f"PRNGKey), got {type(key).__name__}")
    if not allow_batched and keys.ndim != 0:
        raise TypeError(f"{name} accepts a single key, but was given a key array of shape "
                        f"{keys.shape} != (); use minijax.vmap for batching")
    return keys, typed


def _wrap(keys, typed):
    return keys if typed else keys._base


# ------------------------------------------------------------------ threefry2x32

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))   # of even and odd round groups


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 block cipher (20 rounds) of counters ``x1, x2`` under key
    ``(k1, k2)``; uint32 arrays of one shape (scalar keys broadcast).

    Round groups 0-3 are a loop of two groups per step (as JAX's rolled variant rolls
    them) so that programs with many random draws stay small for the compiler, and
    group 4 follows it. Each step's two groups have their own rotation amounts, which
    are constants then: XLA compiles constant shifts much faster than shifts by an
    amount read from a table (the twenty rounds unrolled compile slower still).
    Integer arithmetic makes the bits the same as the unrolled cipher's.
    """
    shape = jnp.shape(x1)
    k1, k2 = (jnp.broadcast_to(k, shape) for k in (k1, k2))
    k3 = lax.bitwise_xor(lax.bitwise_xor(k1, k2), 0x1BD11BDA)

    def group(x0, x1, ka, kb, count, rotations):
        # four rounds, then key words ka and kb and the group's count are added
        for r in rotations:
            x0 = lax.add(x0, x1)
            x1 = lax.bitwise_xor(x0, lax.bitwise_or(
                lax.shift_left(x1, lax.full(shape, r, _U32)),
                lax.shift_right_logical(x1, lax.full(shape, 32 - r, _U32))))
        return lax.add(x0, ka), lax.add(lax.add(x1, kb), count)

    def two_groups(i, state):
        # groups 2i and 2i + 1; the carry rotates the key words by two places
        x0, x1, ka, kb, kc = state
        count = jnp.broadcast_to((2 * i + 1).astype(_U32), shape)
        x0, x1 = group(x0, x1, ka, kb, count, _ROTATIONS[0])
        x0, x1 = group(x0, x1, kb, kc, lax.add(count, lax.full(shape, 1, _U32)),
                       _ROTATIONS[1])
        return x0, x1, kc, ka, kb

    x0, x1, ka, kb, _ = lax.fori_loop(0, 2, two_groups,
                                      (lax.add(x1, k1), lax.add(x2, k2), k2, k3, k1))
    return group(x0, x1, ka, kb, lax.full(shape, 5, _U32), _ROTATIONS[0])


def _counters(shape):
    """The flat index of each element of ``shape`` as (high, low) uint32 words."""
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise NotImplementedError(f"minijax.random: arrays of {size} >= 2**32 random "
                                  f"values are not supported")
    lo = lax.reshape(lax.iota(_U32, size), shape)
    return lax.full(shape, 0, _U32), lo


def _hash_counters(key, shape):
    hi, lo = _counters(shape)
    return threefry2x32(key[0], key[1], hi, lo)


def _threefry_bits(key, bit_width, shape):
    dtype = _UINT[bit_width]
    b1, b2 = _hash_counters(key, shape)
    if bit_width == 64:
        hi = lax.convert_element_type(b1, dtype)
        return lax.bitwise_or(lax.shift_left(hi, 32), lax.convert_element_type(b2, dtype))
    bits = lax.bitwise_xor(b1, b2)
    return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)


def _threefry_split(key, shape):
    b1, b2 = _hash_counters(key, shape)
    return jnp.stack([b1, b2], axis=len(shape))


def _threefry_fold_in(key, data):
    b1, b2 = threefry2x32(key[0], key[1], jnp.zeros((1,), _U32), jnp.reshape(data, (1,)))
    return jnp.concatenate([b1, b2])


def _seed_raw(seed):
    """Key data [high word, low word] of an integer seed (JAX's threefry_seed)."""
    hi = lax.convert_element_type(lax.shift_right_logical(seed, 32), _U32)
    lo = lax.convert_element_type(seed, _U32)
    return jnp.stack([hi, lo])


# ------------------------------------------------------------------ rbg and unsafe_rbg
#
# Key data uint32[4]: XLA's uint64[2] generator state. A seed's key data is its two
# threefry words twice.

def _rbg_seed(words):
    return jnp.concatenate([words, words])


def _rbg_split(key, shape):
    # Each half is split as a threefry key; each new key joins the two halves' keys.
    return jnp.concatenate([_threefry_split(key[:2], shape), _threefry_split(key[2:], shape)],
                           axis=-1)


def _rbg_fold_in(key, data):
    return jnp.concatenate([_threefry_fold_in(key[:2], data), _threefry_fold_in(key[2:], data)])


def _rbg_bits(key, bit_width, shape):
    return lax.rng_bit_generator(key, shape, _UINT[bit_width])[1]


def _unsafe_rbg_split(key, shape):
    # Every 10th row of 10 * n rows of generator output is a new key.
    n = math.prod(shape)
    rows = lax.rng_bit_generator(key, (10 * n, 4), _U32)[1]
    return jnp.reshape(lax.slice_in_dim(rows, 0, 10 * n, 10, 0), (*shape, 4))


def _unsafe_rbg_fold_in(key, data):
    seed = jnp.stack([jnp.zeros((), _U32), data])
    rows = lax.rng_bit_generator(_rbg_seed(seed), (10, 4), _U32)[1]
    return lax.bitwise_xor(key, rows[-1])


_THREEFRY = PRNGImpl("threefry2x32", "fry", (2,), lambda words: words, _threefry_split,
                     _threefry_fold_in, _threefry_bits)
_RBG = PRNGImpl("rbg", "rbg", (4,), _rbg_seed, _rbg_split, _rbg_fold_in, _rbg_bits)
_UNSAFE_RBG = PRNGImpl("unsafe_rbg", "urbg", (4,), _rbg_seed, _unsafe_rbg_split,
                       _unsafe_rbg_fold_in, _rbg_bits)
_IMPLS = {impl.name: impl for impl in (_THREEFRY, _RBG, _UNSAFE_RBG)}
PRNG_IMPLS = tuple(_IMPLS)
"""The names of the PRNG implementations (``impl=`` arguments)."""
# JAX's implementations that minijax does not have.
_JAX_ONLY = ("threefry4x32", "philox2x32", "philox4x32")


def _get_impl(impl):
    """The implementation named ``impl`` (None: the default)."""
    if impl is None:
        return _default_impl()
    if isinstance(impl, PRNGImpl):
        return impl
    if impl == "threefry":          # minijax's earlier spelling
        return _THREEFRY
    if isinstance(impl, str) and impl in _IMPLS:
        return _IMPLS[impl]
    if impl in _JAX_ONLY:
        raise NotImplementedError(f"the PRNG implementation {impl!r} is not implemented in "
                                  f"minijax; use one of {', '.join(PRNG_IMPLS)}")
    raise ValueError(f"unrecognized PRNG implementation {impl!r}; the implementations are "
                     f"{', '.join(PRNG_IMPLS)}")


def _default_impl():
    return _IMPLS[config.default_prng_impl]


# ------------------------------------------------------------------ on key arrays
#
# The samplers below take key arrays (of shape ()) and call these three.

def _random_bits(key, bit_width, shape):
    """Unsigned ``bit_width``-bit random integers of ``shape`` from a key."""
    if math.prod(shape) == 0:
        return lax.full(shape, 0, _UINT[bit_width])
    return key._impl.random_bits(key._base, bit_width, shape)


def _split_key(key, shape):
    """A key array of ``shape`` derived from ``key``."""
    return KeyArray(key._impl.split(key._base, shape), key._impl)


def _fold_in_key(key, data):
    return KeyArray(key._impl.fold_in(key._base, data), key._impl)


_split_jit = jit(_split_key, static_argnums=1)
_seed_jit = jit(_seed_raw)
_fold_in_jit = jit(_fold_in_key)


# ------------------------------------------------------------------ keys

def _seed_data(name, seed):
    """The threefry key data of a seed: [high, low] 32-bit words of the seed (in 32-bit
    mode a Python int seed keeps only its low word, as in JAX)."""
    if isinstance(seed, KeyArray):
        raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key")
    if np.ndim(seed) if not _is_array(seed) else seed.ndim:
        raise TypeError(f"{name} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (); use minijax.vmap for batching")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        seed = int(seed)
        if not -2 ** 63 <= seed < 2 ** 64:
            raise OverflowError(f"{name}: seed {seed} does not fit in 64 bits")
        hi = (seed % 2 ** 64) >> 32 if config.enable_x64 else 0
        return jnp.asarray(np.array([hi, seed % 2 ** 32], _U32))
    if not (_is_array(seed) and dtypes.is_integer(np.dtype(seed.dtype))):
        raise TypeError(f"{name}: the seed must be an integer, got {seed!r}")
    return _seed_jit(seed)


def key(seed, *, impl=None):
    """A typed PRNG key (shape ``()``) from an integer seed; ``impl`` names the PRNG
    implementation (``"threefry2x32"``, ``"rbg"``, ``"unsafe_rbg"``; default: the config
    option ``default_prng_impl``)."""
    impl = _get_impl(impl)
    return KeyArray(impl.seed(_seed_data("key", seed)), impl)


def PRNGKey(seed, *, impl=None):  # noqa: N802  (JAX's name)
    """A legacy PRNG key: the raw key data (``uint32[2]`` for threefry2x32, ``uint32[4]``
    for rbg and unsafe_rbg) for an integer seed."""
    impl = _get_impl(impl)
    return impl.seed(_seed_data("PRNGKey", seed))


def key_data(keys):
    """The ``uint32`` key data under a key array, with the implementation's trailing
    axis (a legacy key is returned as is)."""
    keys, _ = _key_base("key_data", keys, allow_batched=True)
    return keys._base


def wrap_key_data(key_bits_array, *, impl=None):
    """A typed key array over ``uint32`` key data of trailing shape ``(2,)``
    (threefry2x32) or ``(4,)`` (rbg, unsafe_rbg)."""
    impl = _get_impl(impl)
    data = jnp.asarray(key_bits_array)
    k = len(impl.key_shape)
    if data.dtype != _U32 or data.ndim < k or tuple(data.shape[-k:]) != impl.key_shape:
        raise TypeError(f"wrap_key_data: key data of the PRNG implementation {impl.name} "
                        f"must be a uint32 array of trailing shape {impl.key_shape}, got "
                        f"dtype {data.dtype} and shape {tuple(data.shape)}")
    return KeyArray(data, impl)


def key_dtype(impl=None):
    """The dtype of typed keys of the PRNG implementation ``impl`` (default: the config
    option ``default_prng_impl``)."""
    return _get_impl(impl).dtype


def key_impl(keys):
    """The name of the keys' PRNG implementation (a legacy key's is the default's)."""
    keys, _ = _key_base("key_impl", keys, allow_batched=True)
    return keys._impl.name


def clone(key):
    """A copy of ``key`` (keys are immutable values here, so this is the identity)."""
    _key_base("clone", key, allow_batched=True)
    return key


def split(key, num=2):
    """``num`` (an int or a shape) new keys derived from ``key``, along new leading axes."""
    keys, typed = _key_base("split", key)
    shape = tuple(operator.index(n) for n in num) if isinstance(num, (tuple, list)) else (
        operator.index(num),)
    return _wrap(_split_jit(keys, shape), typed)


def fold_in(key, data):
    """A new key from ``key`` and a 32-bit integer ``data``."""
    keys, typed = _key_base("fold_in", key)
    if jnp.ndim(data):
        raise TypeError(f"fold_in accepts a scalar, but was given an array of shape "
                        f"{jnp.shape(data)} != (); use minijax.vmap for batching")
    if isinstance(data, (int, np.integer)):
        data = np.uint32(int(data) % 2 ** 32)
    return _wrap(_fold_in_jit(keys, jnp.asarray(data).astype(_U32)), typed)


# ------------------------------------------------------------------ argument checks

def _shape(name, shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a tuple of integers, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"{name}: shape must not have negative sizes, got {shape}")
    return shape


def _float_dtype(name, dtype, allow_complex=False):
    dtype = dtypes.default_float() if dtype is None else np.dtype(dtype)
    if not (dtypes.is_float(dtype) or (allow_complex and dtypes.is_complex(dtype))):
        raise TypeError(f"{name}: dtype must be a floating{' or complex' if allow_complex else ''}"
                        f" dtype, got {dtype}")
    return dtypes.canonicalize(dtype)


def _int_dtype(name, dtype):
    dtype = dtypes.default_int() if dtype is None else np.dtype(dtype)
    if not dtypes.is_integer(dtype):
        raise TypeError(f"{name}: dtype must be an integer dtype, got {dtype}")
    return dtypes.canonicalize(dtype)


def _check_shape(name, shape, *param_shapes):
    if param_shapes:
        joint = np.broadcast_shapes(shape, *param_shapes)
        if joint != tuple(shape):
            raise ValueError(f"{name}: parameter shapes {param_shapes} must broadcast to the "
                             f"shape argument {shape}, but they broadcast to {joint}")


def _broadcast_shape(name, shape, *params):
    param_shapes = [jnp.shape(p) for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*param_shapes))
    shape = _shape(name, shape)
    _check_shape(name, shape, *param_shapes)
    return shape


def _cast(x, dtype):
    return lax.convert_element_type(jnp.asarray(x), dtype)


# ------------------------------------------------------------------ samplers (on key arrays)

def _bits(key, shape, dtype):
    return _random_bits(key, np.iinfo(dtype).bits, shape)


def _uniform(key, shape, dtype, minval, maxval):
    info = ml_dtypes.finfo(dtype)
    nbits, nmant = info.bits, info.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = _UINT[nbits]
    bits = _random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint)
    one_bits = int(np.array(1.0, dtype).view(uint))
    float_bits = lax.bitwise_or(lax.shift_right_logical(bits, rng_bits - nmant), one_bits)
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), 1.0)
    minval = jnp.broadcast_to(_cast(minval, dtype), shape)
    maxval = jnp.broadcast_to(_cast(maxval, dtype), shape)
    return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


def _normal_real(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = _uniform(key, shape, dtype, lo, 1.0)
    return lax.mul(lax.erf_inv(u), float(np.sqrt(2)))


def _normal(key, shape, dtype):
    if dtypes.is_complex(dtype):
        real = dtypes.real_dtype(dtype)
        k_re, k_im = _split_key(key, (2,))
        re = _normal_real(k_re, shape, real)
        im = _normal_real(k_im, shape, real)
        z = lax.complex(re, im)
        return lax.div(z, lax.full(shape, np.sqrt(2), dtype))
    return _normal_real(key, shape, dtype)


def _exponential(key, shape, dtype):
    u = _uniform(key, shape, dtype, 0.0, 1.0)
    return lax.neg(lax.log1p(lax.neg(u)))


def _convert_and_clip(val, dtype):
    lo = max(np.iinfo(dtype).min, np.iinfo(val.dtype).min)
    hi = min(np.iinfo(dtype).max, np.iinfo(val.dtype).max)
    return jnp.clip(val, np.array(lo, val.dtype), np.array(hi, val.dtype)).astype(dtype)


def _randint(key, minval, maxval, shape, dtype):
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.is_integer(minval.dtype):
        minval = minval.astype(dtypes.default_int())
    if not dtypes.is_integer(maxval.dtype):
        maxval = maxval.astype(dtypes.default_int())
    top = _convert_and_clip(jnp.asarray(np.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = jnp.greater(maxval, top)
    minval = jnp.broadcast_to(_convert_and_clip(minval, dtype), shape)
    maxval = jnp.broadcast_to(_convert_and_clip(maxval, dtype), shape)
    maxval_out_of_range = jnp.broadcast_to(maxval_out_of_range, shape)
    nbits = np.iinfo(dtype).bits
    k1, k2 = _split_key(key, (2,))
    higher, lower = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    uint = _UINT[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), uint)
    span = lax.select(lax.le(maxval, minval), lax.full(shape, 1, uint), span)
    span = lax.select(jnp.logical_and(maxval_out_of_range, lax.gt(maxval, minval)),
                      lax.add(span, 1), span)
    multiplier = lax.rem(lax.full(shape, 2 ** (nbits // 2), uint), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def _shuffle(key, x, axis):
    rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = _split_key(key, (2,))
        sort_keys = _random_bits(subkey, 32, x.shape)
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def _gumbel(key, shape, dtype, mode):
    info = ml_dtypes.finfo(dtype)
    if mode == "high":
        both = _uniform(key, (2,) + shape, dtype, 0.0, 1.0)
        high, low = both[0], both[1]
        x = jnp.where(high >= 0.5, high, high + 2.0 ** -info.nmant * low + float(info.tiny))
        return -jnp.log(-jnp.log1p(-x))
    u = _uniform(key, shape, dtype, float(info.tiny), 1.0)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def _gamma_one(key, alpha, log_space):
    dtype = alpha.dtype
    zero, one = jnp.zeros((), dtype), jnp.ones((), dtype)
    boost_mask = alpha >= one
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, jnp.asarray(1.0 / 3.0, dtype))
    c = lax.div(jnp.asarray(1.0 / 3.0, dtype), lax.sqrt(d))

    def cond(state):
        _, x, v, u = state
        squeeze = lax.ge(u, lax.sub(one, lax.mul(jnp.asarray(0.0331, dtype), lax.mul(x, x))))
        log_test = lax.ge(lax.log(u), lax.add(lax.mul(x, jnp.asarray(0.5, dtype)),
                                              lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))))
        return jnp.logical_and(squeeze, log_test)

    def next_xv(state):
        k, _, _ = state
        k, sub = _split_key(k, (2,))
        x = _normal_real(sub, (), dtype)
        return k, x, lax.add(one, lax.mul(x, c))

    def body(state):
        k = state[0]
        k, x_key, u_key = _split_key(k, (3,))
        _, x, v = lax.while_loop(lambda s: lax.le(s[2], zero), next_xv,
                                 (x_key, zero, -one))
        u = _uniform(u_key, (), dtype, 0.0, 1.0)
        return k, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    key, subkey = _split_key(key, (2,))
    _, _, v, _ = lax.while_loop(cond, body, (key, zero, one, jnp.full((), 2.0, dtype)))
    if log_space:
        log_samples = lax.neg(_exponential(subkey, (), dtype))
        log_boost = lax.select(jnp.logical_or(boost_mask, log_samples == zero), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    samples = lax.sub(one, _uniform(subkey, (), dtype, 0.0, 1.0))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, v), boost)


def _gamma_samples(data, a, *, impl, log_space):
    """Gamma samples for ``a`` from key data whose leading axes ``data.shape[:-1]`` also
    lead ``a``'s shape (a batch of keys, each for its slice of ``a``), as JAX's
    ``random_gamma`` computes them: each key is split into one key per entry of its
    slice; the samples are a vmap over all the keys (threefry2x32) or a loop (the
    others, whose batched bits through rng_bit_generator are not each key's own)."""
    n_batch = data.ndim - len(impl.key_shape)
    flat = jnp.reshape(data, (-1, *impl.key_shape))
    per_key = math.prod(a.shape[n_batch:])
    keys = vmap(lambda d: impl.split(d, (per_key,)))(flat)
    keys = KeyArray(jnp.reshape(keys, (-1, *impl.key_shape)), impl)
    alphas = jnp.reshape(a, (-1,))
    if impl is _THREEFRY:
        samples = vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)
    else:
        samples = lax.map(lambda k_al: _gamma_one(*k_al, log_space), (keys, alphas))
    return jnp.reshape(samples, a.shape)


def _random_gamma_abstract_eval(data, a, *, impl, log_space):
    return [ShapedArray(a.shape, a.dtype)]


def _random_gamma_batch(axis_size, args, dims, *, impl, log_space):
    # JAX's rule: the batch axis leads the key data and ``a``; the loop (rbg keys) then
    # runs over every key of the batch, each drawing its own bits.
    data, a = (batching.move_axis_to(axis_size, x, d, 0) for x, d in zip(args, dims))
    return [random_gamma_p.bind(data, a, impl=impl, log_space=log_space)], [0]


# A primitive only for its batching rule (the samples under vmap are JAX's); no kernel:
# it lowers to the lax program above, eagerly too. Derivatives: _gamma_flat_rule.
random_gamma_p = Primitive("random_gamma")
random_gamma_p.abstract_eval = _random_gamma_abstract_eval
random_gamma_p.lower = lower_via(_gamma_samples)
random_gamma_p.batch = _random_gamma_batch


def _gamma_flat(log_space, key, a):
    return random_gamma_p.bind(key._base, a, impl=key._impl, log_space=log_space)


def _gamma_flat_jvp(log_space, primals, tangents):
    """Implicit reparameterisation: at a fixed quantile P(a, x), dx/da is
    ``lax.random_gamma_grad(a, x)`` (the while loops' acceptance has no derivative)."""
    key, a = primals
    a_dot = tangents[1]            # the key's bits have no tangent
    sample = _gamma_flat_rule(log_space, key, a)
    if log_space:
        # d log x = dx / x; exp(log x) may round to 0, which the smallest float stands for
        x = jnp.exp(sample)
        x = jnp.where(x == 0, jnp.finfo(x.dtype).tiny, x)
        da = lax.random_gamma_grad(a, x) / x
    else:
        da = lax.random_gamma_grad(a, sample)
    return sample, a_dot * da


_gamma_flat_rule = custom_jvp(_gamma_flat, nondiff_argnums=(0,))
_gamma_flat_rule.defjvp(_gamma_flat_jvp)


def _gamma(key, a, shape, dtype, log_space=False):
    a = jnp.broadcast_to(_cast(a, dtype), shape)
    size = math.prod(shape)
    if size == 0:
        return jnp.zeros(shape, dtype)
    samples = _gamma_flat_rule(log_space, key, jnp.reshape(a, (-1,)))
    return jnp.reshape(samples, shape)


def _poisson_knuth(key, lam, shape, dtype):
    def body(state):
        i, k, rng, log_prod = state
        rng, sub = _split_key(rng, (2,))
        k = lax.select(log_prod > -lam, k + 1, k)
        u = _uniform(sub, shape, np.dtype(np.float32), 0.0, 1.0)
        return i + 1, k, rng, log_prod + jnp.log(u)

    def cond(state):
        return jnp.any(state[3] > -lam)

    init = (jnp.zeros((), np.int32), jnp.zeros(shape, dtype), key,
            jnp.zeros(shape, np.float32))
    k = lax.while_loop(cond, body, init)[1]
    return (k - 1).astype(dtype)


def _poisson_rejection(key, lam, shape, dtype):
    f32 = lam.dtype
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(state):
        i, k_out, accepted, rng = state
        rng, sub0, sub1 = _split_key(rng, (3,))
        u = _uniform(sub0, shape, f32, 0.0, 1.0) - 0.5
        v = _uniform(sub1, shape, f32, 0.0, 1.0)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t_ = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t_))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, rng

    def cond(state):
        return jnp.any(~state[2])

    init = (jnp.zeros((), np.int32), jnp.full(shape, -1, f32), jnp.zeros(shape, bool), key)
    return lax.while_loop(cond, body, init)[1].astype(dtype)


def _poisson(key, lam, shape, dtype):
    use_knuth = jnp.isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, jnp.zeros_like(lam))
    lam_rej = lax.select(use_knuth, jnp.full_like(lam, 1e5), lam)
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype),
                        _poisson_rejection(key, lam_rej, shape, dtype))
    return lax.select(lam == 0, jnp.zeros_like(result), result)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k):
    table = jnp.asarray(np.array(_STIRLING_TAIL, k.dtype))
    use_table = k <= 9
    k = lax.clamp(jnp.zeros((), k.dtype), k, jnp.full((), 9.0, k.dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return lax.select(use_table, table[jnp.floor(k).astype(np.int32)], approx)


def _binomial_inversion(key, count, prob, shape, dtype):
    log1mp = jnp.log1p(-prob)

    def body(state):
        i, num_geom, geom_sum, rng = state
        sub, rng = _split_key(rng, (2,))
        num_geom = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(sub, shape, prob.dtype, 0.0, 1.0)
        return i + 1, num_geom, geom_sum + jnp.ceil(jnp.log(u) / log1mp), rng

    def cond(state):
        return jnp.any(state[2] <= count)

    init = (jnp.zeros((), np.int32), jnp.zeros(shape, prob.dtype),
            jnp.zeros(shape, prob.dtype), key)
    return (lax.while_loop(cond, body, init)[1] - 1).astype(dtype)


def _btrs(key, count, prob, shape, dtype):
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body(state):
        i, k_out, accepted, rng = state
        rng, sub0, sub1 = _split_key(rng, (3,))
        u = _uniform(sub0, shape, prob.dtype, 0.0, 1.0)
        v = _uniform(sub1, shape, prob.dtype, 0.0, 1.0)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, rng

    def cond(state):
        return jnp.any(~state[2])

    init = (jnp.zeros((), np.int32), jnp.full(shape, -1, prob.dtype),
            jnp.zeros(shape, bool), key)
    return lax.while_loop(cond, body, init)[1].astype(dtype)


def _binomial(key, count, prob, shape, dtype):
    count = jnp.broadcast_to(_cast(count, dtype), shape)
    prob = jnp.broadcast_to(_cast(prob, dtype), shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = jnp.isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = jnp.isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, jnp.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)
    count_inv = lax.select(use_inversion, count, jnp.zeros_like(count))
    count_btrs = lax.select(use_inversion, jnp.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, jnp.full_like(q, 0.5), q)
    samples = lax.select(use_inversion, _binomial_inversion(key, count_inv, q, shape, dtype),
                         _btrs(key, count_btrs, q_btrs, shape, dtype))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan), samples)
    samples = lax.select(count_inf & ~invalid, jnp.full_like(samples, np.inf), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def _rademacher(key, shape, dtype):
    b = _uniform(key, shape, dtypes.default_float(), 0.0, 1.0) < 0.5
    return (2 * b.astype(dtype) - 1).astype(dtype)


def _maxwell(key, shape, dtype):
    z = _normal_real(key, shape + (3,), dtype)
    return jnp.sqrt(jnp.sum(z * z, axis=-1))


def _generalized_normal(key, p, shape, dtype):
    k1, k2 = _split_key(key, (2,))
    g = _gamma(k1, 1 / p, shape, dtype)
    r = _rademacher(k2, shape, dtype)
    return r * g ** (1 / p)


def _jit(static):
    return lambda fun: jit(fun, static_argnames=static)


# The compiled samplers: the raw key first, then array arguments, then static ones.
_bits_c = jit(_bits, static_argnums=(1, 2))
_uniform_c = jit(_uniform, static_argnums=(1, 2))
_normal_c = jit(_normal, static_argnums=(1, 2))
_exponential_c = jit(_exponential, static_argnums=(1, 2))
_randint_c = jit(_randint, static_argnums=(3, 4))
_gumbel_c = jit(_gumbel, static_argnums=(1, 2, 3))
_gamma_c = jit(_gamma, static_argnums=(2, 3, 4))
_poisson_c = jit(_poisson, static_argnums=(2, 3))
_binomial_c = jit(_binomial, static_argnums=(3, 4))
_rademacher_c = jit(_rademacher, static_argnums=(1, 2))
_maxwell_c = jit(_maxwell, static_argnums=(1, 2))
_generalized_normal_c = jit(_generalized_normal, static_argnums=(2, 3))


@_jit(("axis",))
def _shuffle_c(key, x, axis):
    return _shuffle(key, x, axis)


@_jit(("axis",))
def _permute_rows_c(key, x, axis):
    ind = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, ind, axis=axis)


@_jit(("shape", "dtype"))
def _truncated_normal_c(key, lower, upper, shape, dtype):
    sqrt2 = float(np.sqrt(2))
    lower, upper = _cast(lower, dtype), _cast(upper, dtype)
    a = lax.erf(lower / sqrt2)
    b = lax.erf(upper / sqrt2)
    u = _uniform(key, shape, dtype, a, b)
    out = lax.mul(lax.erf_inv(u), sqrt2)
    lo = lax.nextafter(lower, jnp.full_like(lower, np.inf))
    hi = lax.nextafter(upper, jnp.full_like(upper, -np.inf))
    return jnp.clip(out, lo, hi)


@_jit(("shape", "mode"))
def _bernoulli_c(key, p, shape, mode):
    dtype = p.dtype
    if mode == "high":
        u = _uniform(key, (2,) + shape, dtype, 0.0, 1.0)
        u1, u2 = u[0], u[1] * 2.0 ** -ml_dtypes.finfo(dtype).nmant
        return u2 < p - u1
    return _uniform(key, shape, dtype, 0.0, 1.0) < p


@_jit(("shape", "dtype"))
def _beta_c(key, a, b, shape, dtype):
    key_a, key_b = _split_key(key, (2,))
    log_a = _gamma(key_a, a, shape, dtype, True)
    log_b = _gamma(key_b, b, shape, dtype, True)
    log_max = lax.max(log_a, log_b)
    ga, gb = jnp.exp(log_a - log_max), jnp.exp(log_b - log_max)
    return ga / (ga + gb)


@_jit(("shape", "dtype"))
def _dirichlet_c(key, alpha, shape, dtype):
    logs = _gamma(key, alpha, shape, dtype, True)
    logs = logs - lax.stop_gradient(jnp.max(logs, axis=-1, keepdims=True))
    e = jnp.exp(logs)
    return e / jnp.sum(e, axis=-1, keepdims=True)


@_jit(("shape", "dtype", "method"))
def _multivariate_normal_c(key, mean, cov, shape, dtype, method):
    if method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = jnp.linalg.cholesky(cov)
    z = _normal_real(key, shape + mean.shape[-1:], dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, z)


@_jit(("shape", "dtype"))
def _t_c(key, df, shape, dtype):
    df = _cast(df, dtype)
    key_n, key_g = _split_key(key, (2,))
    n = _normal_real(key_n, shape, dtype)
    half_df = df / 2
    g = _gamma(key_g, half_df, shape, dtype)
    return n * jnp.sqrt(half_df / g)


@_jit(("shape", "dtype"))
def _chisquare_c(key, df, shape, dtype):
    half_df = _cast(df, dtype) / 2
    return jnp.exp(_gamma(key, half_df, shape, dtype, True)) * 2


@_jit(("shape", "dtype"))
def _double_sided_maxwell_c(key, loc, scale, shape, dtype):
    k1, k2 = _split_key(key, (2,))
    m = _maxwell(k1, shape, dtype)
    sign = _rademacher(k2, shape, dtype)
    return sign * m * scale + loc


@_jit(("shape", "dtype"))
def _weibull_min_c(key, scale, concentration, shape, dtype):
    u = _uniform(key, shape, dtype, 0.0, 1.0)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


@_jit(("n", "m", "shape", "dtype"))
def _orthogonal_c(key, n, m, shape, dtype):
    z = _normal_real(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = jnp.linalg.qr(z)
    d = jnp.diagonal(r, axis1=-2, axis2=-1)
    x = q * jnp.expand_dims(jnp.sign(d), -2)
    return jnp.swapaxes(x, -1, -2) if n < m else x


@_jit(("d", "shape", "dtype"))
def _ball_c(key, p, d, shape, dtype):
    k1, k2 = _split_key(key, (2,))
    g = _generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


@_jit(("shape", "prefix", "axis"))
def _categorical_c(key, logits, shape, prefix, axis):
    gshape = list(shape[len(prefix):])
    gshape.insert(axis % logits.ndim, logits.shape[axis])
    g = _gumbel(key, (*prefix, *gshape), logits.dtype, "low")
    return jnp.argmax(g + jnp.reshape(logits, (1,) * len(prefix) + logits.shape),
                      axis=axis if axis < 0 else axis - logits.ndim)


@_jit(("k", "axis"))
def _categorical_noreplace_c(key, logits, k, axis):
    logits = logits + _gumbel(key, logits.shape, logits.dtype, "low")
    _, indices = lax.top_k(jnp.moveaxis(logits, axis, -1), k)
    return jnp.moveaxis(indices, -1, 0)


# ------------------------------------------------------------------ public samplers

def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers of ``dtype`` (default: uint64, or uint32
    in 32-bit mode)."""
    base, _ = _key_base("bits", key)
    dtype = np.dtype(np.uint) if dtype is None else np.dtype(dtype)
    if dtype.kind != "u":
        raise TypeError(f"bits: dtype must be an unsigned integer dtype, got {dtype}")
    return _bits_c(base, _shape("bits", shape), dtypes.canonicalize(dtype))


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in ``[minval, maxval)``."""
    base, _ = _key_base("uniform", key)
    dtype = _float_dtype("uniform", dtype)
    shape = _shape("uniform", shape)
    _check_shape("uniform", shape, jnp.shape(minval), jnp.shape(maxval))
    return _uniform_c(base, shape, dtype, minval, maxval)


def normal(key, shape=(), dtype=None):
    """Standard normal samples (complex dtypes: real and imaginary parts of variance 1/2)."""
    base, _ = _key_base("normal", key)
    return _normal_c(base, _shape("normal", shape), _float_dtype("normal", dtype, True))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal samples truncated to ``(lower, upper)``."""
    base, _ = _key_base("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    shape = _broadcast_shape("truncated_normal", shape, lower, upper)
    return _truncated_normal_c(base, lower, upper, shape=shape, dtype=dtype)


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans that are True with probability ``p``."""
    base, _ = _key_base("bernoulli", key)
    if mode not in ("low", "high"):
        raise ValueError(f"bernoulli: mode must be 'high' or 'low', got {mode!r}")
    p = jnp.asarray(p)
    if not dtypes.is_float(p.dtype):
        raise TypeError(f"bernoulli: probability p must have a floating dtype, got {p.dtype}")
    shape = _broadcast_shape("bernoulli", shape, p)
    return _bernoulli_c(base, p, shape=shape, mode=mode)


def randint(key, shape, minval, maxval, dtype=None):
    """Integers uniform in ``[minval, maxval)``."""
    base, _ = _key_base("randint", key)
    dtype = _int_dtype("randint", dtype)
    shape = _shape("randint", shape)
    _check_shape("randint", shape, jnp.shape(minval), jnp.shape(maxval))
    info = np.iinfo(dtype)
    if info.bits < 32:
        minval = jnp.clip(jnp.asarray(minval).astype(np.int32), int(info.min), int(info.max))
        maxval = jnp.clip(jnp.asarray(maxval).astype(np.int32), int(info.min),
                          int(info.max) + 1)
        return _randint_c(base, minval, maxval, shape, np.dtype(np.int32)).astype(dtype)
    return _randint_c(base, minval, maxval, shape, dtype)


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``range(x)`` (an int) or of ``x``'s entries along ``axis``."""
    base, _ = _key_base("permutation", key)
    if not jnp.ndim(x):
        if isinstance(x, Tracer) or not dtypes.is_integer(np.dtype(jnp.asarray(x).dtype)):
            raise TypeError("permutation: x must be a concrete integer or an array of at "
                            "least one dimension")
        return _shuffle_c(base, jnp.arange(int(x)), axis=0)
    x = jnp.asarray(x)
    axis = _normalize_axis("permutation", axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle_c(base, x, axis=axis)
    return _permute_rows_c(base, x, axis=axis)


def _normalize_axis(name, axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of dimension "
                         f"{ndim}")
    return axis % ndim


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Random samples from ``range(a)`` (an int) or from ``a`` along ``axis``."""
    base, _ = _key_base("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"choice: shape must be a sequence, got {shape!r}")
    if mode not in (None, "low"):
        raise NotImplementedError(f"choice: mode={mode!r} is not supported (only 'low')")
    shape = _shape("choice", shape)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        if isinstance(a, Tracer):
            raise TypeError("choice: a must be a concrete integer or an array")
        n_inputs = int(a)
    else:
        axis = _normalize_axis("choice", axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("choice: a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"choice: cannot take a larger sample (size {n_draws}) than the "
                         f"population (size {n_inputs}) when replace=False")
    out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
    return _choice_c(base, arr, p, shape=shape, replace=bool(replace), axis=axis,
                     n_inputs=n_inputs, scalar=arr.ndim == 0).reshape(out_shape)


@_jit(("shape", "replace", "axis", "n_inputs", "scalar"))
def _choice_c(key, arr, p, shape, replace, axis, n_inputs, scalar):
    n_draws = math.prod(shape)
    if p is None:
        if replace:
            ind = _randint(key, 0, n_inputs, shape, dtypes.default_int())
            return ind if scalar else jnp.take(arr, ind, axis=axis)
        src = jnp.arange(n_inputs) if scalar else arr
        perm = _shuffle(key, src, 0) if (scalar or src.ndim == 1) else jnp.take(
            src, _shuffle(key, jnp.arange(n_inputs), 0), axis=axis)
        return lax.slice_in_dim(perm, 0, n_draws, axis=0 if scalar else axis)
    p = jnp.asarray(p)
    if not dtypes.is_inexact(p.dtype):
        p = p.astype(dtypes.default_float())
    if p.shape != (n_inputs,):
        raise ValueError(f"choice: p must be None or a 1-D vector of the size of a.shape[axis]"
                         f" ({n_inputs}), got shape {p.shape}")
    if replace:
        cum = jnp.cumsum(p)
        r = cum[-1] * (1 - _uniform(key, shape, p.dtype, 0.0, 1.0))
        ind = jnp.searchsorted(cum, r).astype(dtypes.default_int())
    else:
        g = _gumbel(key, (n_inputs,), p.dtype, "low") + jnp.log(p)
        ind = lax.top_k(g, n_draws)[1].astype(dtypes.default_int())
    return ind if scalar else jnp.take(arr, ind, axis=axis)


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Category indices drawn with probabilities ``softmax(logits, axis)``."""
    base, _ = _key_base("categorical", key)
    if mode not in (None, "low"):
        raise NotImplementedError(f"categorical: mode={mode!r} is not supported (only 'low')")
    logits = jnp.asarray(logits)
    if not dtypes.is_float(logits.dtype):
        logits = logits.astype(dtypes.default_float())
    axis = operator.index(axis)
    if not -logits.ndim <= axis < logits.ndim:
        raise ValueError(f"categorical: axis {axis} is out of bounds for logits of "
                         f"dimension {logits.ndim}")
    batch_shape = tuple(np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = _shape("categorical", shape)
        _check_shape("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        return _categorical_c(base, logits, shape=shape, prefix=prefix, axis=axis)
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"categorical: number of samples without replacement ({k}) cannot "
                         f"exceed the number of categories ({logits.shape[axis]})")
    out = _categorical_noreplace_c(base, logits, k=k, axis=axis)
    return jnp.reshape(out, shape)


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel samples (``mode='high'`` resolves the lower tail better)."""
    base, _ = _key_base("gumbel", key)
    mode = "low" if mode is None else mode
    if mode not in ("low", "high"):
        raise NotImplementedError(f"gumbel: mode={mode!r} is not supported ('low', 'high')")
    return _gumbel_c(base, _shape("gumbel", shape), _float_dtype("gumbel", dtype), mode)


def exponential(key, shape=(), dtype=None):
    """Standard exponential samples."""
    base, _ = _key_base("exponential", key)
    return _exponential_c(base, _shape("exponential", shape),
                          _float_dtype("exponential", dtype))


def _simple(name, body):
    @_jit(("shape", "dtype"))
    def compiled(key, shape, dtype):
        return body(key, shape, dtype)

    def sampler(key, shape=(), dtype=None):
        base, _ = _key_base(name, key)
        return compiled(base, shape=_shape(name, shape), dtype=_float_dtype(name, dtype))
    sampler.__name__ = sampler.__qualname__ = name
    return sampler


def _laplace(key, shape, dtype):
    u = _uniform(key, shape, dtype, -1.0 + float(ml_dtypes.finfo(dtype).epsneg), 1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def _logistic(key, shape, dtype):
    x = _uniform(key, shape, dtype, float(ml_dtypes.finfo(dtype).tiny), 1.0)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def _cauchy(key, shape, dtype):
    u = _uniform(key, shape, dtype, float(ml_dtypes.finfo(dtype).eps), 1.0)
    return lax.tan(lax.mul(lax.sub(u, 0.5), float(np.pi)))


laplace = _simple("laplace", _laplace)
laplace.__doc__ = "Standard Laplace samples."
logistic = _simple("logistic", _logistic)
logistic.__doc__ = "Standard logistic samples."
cauchy = _simple("cauchy", _cauchy)
cauchy.__doc__ = "Standard Cauchy samples."
maxwell = _simple("maxwell", _maxwell)
maxwell.__doc__ = "One-sided Maxwell samples (the norm of a 3-D standard normal)."


def rademacher(key, shape=(), dtype=None):
    """Samples of -1 or +1 with equal probability."""
    base, _ = _key_base("rademacher", key)
    return _rademacher_c(base, _shape("rademacher", shape), _int_dtype("rademacher", dtype))


def _gamma_args(name, key, a, shape, dtype):
    base, _ = _key_base(name, key)
    return base, _broadcast_shape(name, shape, a), _float_dtype(name, dtype)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples (Marsaglia and Tsang's method)."""
    base, shape, dtype = _gamma_args("gamma", key, a, shape, dtype)
    return _gamma_c(base, a, shape, dtype, False)


def loggamma(key, a, shape=None, dtype=None):
    """Logarithms of Gamma(a, 1) samples, accurate for small ``a``."""
    base, shape, dtype = _gamma_args("loggamma", key, a, shape, dtype)
    return _gamma_c(base, a, shape, dtype, True)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples."""
    base, _ = _key_base("beta", key)
    dtype = _float_dtype("beta", dtype)
    shape = _broadcast_shape("beta", shape, a, b)
    return _beta_c(base, a, b, shape=shape, dtype=dtype)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples over ``alpha``'s last axis."""
    base, _ = _key_base("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    alpha = jnp.asarray(alpha)
    if alpha.ndim < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {alpha.ndim}")
    if shape is None:
        shape = alpha.shape[:-1]
    else:
        shape = _shape("dirichlet", shape)
        _check_shape("dirichlet", shape, alpha.shape[:-1])
    return _dirichlet_c(base, _cast(alpha, dtype), shape=shape + alpha.shape[-1:],
                        dtype=dtype)


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) samples (Knuth's method below 10, rejection above)."""
    base, _ = _key_base("poisson", key)
    if base._impl is not _THREEFRY:
        raise NotImplementedError(f"poisson is implemented for the threefry2x32 PRNG only "
                                  f"(as in JAX), not {base._impl.name}")
    dtype = _int_dtype("poisson", dtype)
    shape = _broadcast_shape("poisson", shape, lam)
    lam = jnp.broadcast_to(jnp.asarray(lam), shape).astype(np.float32)
    return _poisson_c(base, lam, shape, dtype)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) samples, as floats (inversion for small ``n*p``, BTRS above)."""
    base, _ = _key_base("binomial", key)
    dtype = _float_dtype("binomial", dtype)
    shape = _broadcast_shape("binomial", shape, n, p)
    return _binomial_c(base, n, p, shape, dtype)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Samples of N(mean, cov); ``method`` factors ``cov`` by 'cholesky', 'eigh' or 'svd'."""
    base, _ = _key_base("multivariate_normal", key)
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("multivariate_normal: method must be one of 'svd', 'eigh', "
                         f"'cholesky', got {method!r}")
    mean, cov = jnp.asarray(mean), jnp.asarray(cov)
    dtype = _float_dtype("multivariate_normal",
                         mean.dtype if dtype is None and dtypes.is_float(mean.dtype) else dtype)
    if mean.ndim < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got {mean.ndim}")
    if cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got {cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., {n}, {n}), got "
                         f"{cov.shape}")
    batch = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    shape = batch if shape is None else _shape("multivariate_normal", shape)
    _check_shape("multivariate_normal", shape, mean.shape[:-1], cov.shape[:-2])
    return _multivariate_normal_c(base, _cast(mean, dtype), _cast(cov, dtype), shape=shape,
                                  dtype=dtype, method=method)


def t(key, df, shape=None, dtype=None):
    """Student's t samples with ``df`` degrees of freedom."""
    base, shape, dtype = _gamma_args("t", key, df, shape, dtype)
    return _t_c(base, df, shape=shape, dtype=dtype)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square samples with ``df`` degrees of freedom."""
    base, shape, dtype = _gamma_args("chisquare", key, df, shape, dtype)
    return _chisquare_c(base, df, shape=shape, dtype=dtype)


def pareto(key, b, shape=None, dtype=None):
    """Pareto samples with shape parameter ``b`` (support ``[1, inf)``)."""
    base, shape, dtype = _gamma_args("pareto", key, b, shape, dtype)
    return _pareto_c(base, b, shape=shape, dtype=dtype)


@_jit(("shape", "dtype"))
def _pareto_c(key, b, shape, dtype):
    return lax.exp(_exponential(key, shape, dtype) / _cast(b, dtype))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell samples with location ``loc`` and scale ``scale``."""
    base, _ = _key_base("double_sided_maxwell", key)
    dtype = _float_dtype("double_sided_maxwell", dtype)
    shape = _shape("double_sided_maxwell", shape)
    params = np.broadcast_shapes(jnp.shape(loc), jnp.shape(scale))
    shape = (shape or params) + params
    return _double_sided_maxwell_c(base, loc, scale, shape=shape, dtype=dtype)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples with ``scale`` and ``concentration``."""
    base, _ = _key_base("weibull_min", key)
    dtype = _float_dtype("weibull_min", dtype)
    return _weibull_min_c(base, scale, concentration, shape=_shape("weibull_min", shape),
                          dtype=dtype)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Uniformly (Haar) distributed ``n x m`` matrices with orthonormal rows or columns."""
    base, _ = _key_base("orthogonal", key)
    dtype = _float_dtype("orthogonal", dtype)
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    return _orthogonal_c(base, n=n, m=m, shape=_shape("orthogonal", shape), dtype=dtype)


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal samples with exponent ``p`` (density ~ exp(-|x|**p))."""
    base, _ = _key_base("generalized_normal", key)
    dtype = _float_dtype("generalized_normal", dtype)
    return _generalized_normal_c(base, p, _shape("generalized_normal", shape), dtype)


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniform in the unit ``p``-norm ball of dimension ``d``."""
    base, _ = _key_base("ball", key)
    dtype = _float_dtype("ball", dtype)
    return _ball_c(base, p, d=operator.index(d), shape=_shape("ball", shape),
                   dtype=dtype)


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh samples with ``scale`` (inversion: ``scale * sqrt(-2 log u)``)."""
    base, shape, dtype = _gamma_args("rayleigh", key, scale, shape, dtype)
    return _rayleigh_c(base, scale, shape=shape, dtype=dtype)


@_jit(("shape", "dtype"))
def _rayleigh_c(key, scale, shape, dtype):
    u = _uniform(key, shape, dtype, 0.0, 1.0)
    scale = jnp.broadcast_to(_cast(scale, dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), -2.0)))


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) samples with ``mean`` and unit shape (Michael, Schucany
    and Haas' transformation of a chi-square(1) variate)."""
    base, shape, dtype = _gamma_args("wald", key, mean, shape, dtype)
    return _wald_c(base, mean, shape=shape, dtype=dtype)


@_jit(("shape", "dtype"))
def _wald_c(key, mean, shape, dtype):
    key_n, key_u = _split_key(key, (2,))
    mean = jnp.broadcast_to(_cast(mean, dtype), shape)
    y = lax.integer_pow(_normal(key_n, shape, dtype), 2)
    u = _uniform(key_u, shape, dtype, 0.0, 1.0)
    mean_sq = lax.integer_pow(mean, 2)
    root = lax.sqrt(4 * mean * y + mean_sq * lax.integer_pow(y, 2))
    x = mean + mean_sq * y / 2 - mean / 2 * root
    return lax.select(u <= mean / (mean + x), x, mean_sq / x)


def _promote_inexact(*params):
    """Parameters as arrays of one inexact dtype (the default float for integers)."""
    arrays = [jnp.asarray(p) for p in params]
    dtype = jnp.result_type(*arrays)
    if not (dtypes.is_float(dtype) or dtypes.is_complex(dtype)):
        dtype = dtypes.default_float()
    return [a.astype(dtype) for a in arrays]


def geometric(key, p, shape=None, dtype=None):
    """Geometric samples (trials up to the first success, >= 1), as integers."""
    base, _ = _key_base("geometric", key)
    dtype = _int_dtype("geometric", dtype)
    shape = _broadcast_shape("geometric", shape, p)
    p, = _promote_inexact(p)
    return _geometric_c(base, p, shape=shape, dtype=dtype)


@_jit(("shape", "dtype"))
def _geometric_c(key, p, shape, dtype):
    u = _uniform(key, shape, p.dtype, 0.0, 1.0)
    u = jnp.where(u == 0, jnp.ones_like(u), u)        # (JAX's bits: 0 stands for 1)
    log_q = jnp.broadcast_to(lax.log1p(lax.neg(p)), shape)
    return (lax.floor(lax.div(lax.log(u), log_q)) + 1).astype(dtype)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular samples on ``[left, right]`` peaking at ``mode`` (inversion)."""
    base, _ = _key_base("triangular", key)
    dtype = _float_dtype("triangular", dtype)
    shape = _broadcast_shape("triangular", shape, left, mode, right)
    return _triangular_c(base, left, mode, right, shape=shape, dtype=dtype)


@_jit(("shape", "dtype"))
def _triangular_c(key, left, mode, right, shape, dtype):
    left, mode, right = (jnp.broadcast_to(_cast(v, dtype), shape) for v in (left, mode, right))
    width = right - left
    u = _uniform(key, shape, dtype, 0.0, 1.0)
    below = left + lax.sqrt(u * width * (mode - left))
    above = right - lax.sqrt((1 - u) * width * (right - mode))
    return lax.select(u < (mode - left) / width, below, above)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """Log-normal samples: ``exp(sigma * z)`` with ``z`` standard normal."""
    base, _ = _key_base("lognormal", key)
    dtype = _float_dtype("lognormal", dtype, allow_complex=True)
    shape = _broadcast_shape("lognormal", shape, sigma)
    return _lognormal_c(base, sigma, shape=shape, dtype=dtype)


@_jit(("shape", "dtype"))
def _lognormal_c(key, sigma, shape, dtype):
    return lax.exp(_normal(key, shape, dtype) * _cast(sigma, dtype))


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution samples: a ratio of chi-squares, each over its degrees of freedom."""
    base, _ = _key_base("f", key)
    dtype = _float_dtype("f", dtype)
    shape = _broadcast_shape("f", shape, dfnum, dfden)
    return _f_c(base, dfnum, dfden, shape=shape, dtype=dtype)


@_jit(("shape", "dtype"))
def _f_c(key, dfnum, dfden, shape, dtype):
    dfnum, dfden = _cast(dfnum, dtype), _cast(dfden, dtype)
    key_den, key_num = _split_key(key, (2,))
    num = lax.div(_chisquare_c(key_num, dfnum, shape=shape, dtype=dtype), dfnum)
    den = lax.div(_chisquare_c(key_den, dfden, shape=shape, dtype=dtype), dfden)
    return lax.div(num, den)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of ``n`` trials over the outcomes on ``p``'s last axis (one binomial per
    outcome, each on the trials the earlier outcomes left)."""
    base, _ = _key_base("multinomial", key)
    dtype = _float_dtype("multinomial", dtype)
    n, p = _promote_inexact(n, p)
    if p.ndim < 1:
        raise ValueError(f"multinomial requires p.ndim >= 1, got p.ndim == {p.ndim}")
    shape = p.shape if shape is None else _shape("multinomial", shape)
    if not shape:
        raise ValueError("multinomial: shape must end with the number of outcomes "
                         f"({p.shape[-1]}), got ()")
    _check_shape("multinomial", shape, p.shape)
    _check_shape("multinomial", shape[:-1], n.shape)
    unroll = unroll if isinstance(unroll, bool) else operator.index(unroll)
    return _multinomial_c(base, jnp.broadcast_to(n, shape[:-1]), jnp.broadcast_to(p, shape),
                          dtype=dtype, unroll=unroll)


@_jit(("dtype", "unroll"))
def _multinomial_c(key, n, p, dtype, unroll):
    p = jnp.moveaxis(p, -1, 0)
    left = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(left == 0, jnp.ones_like(left), left)

    def step(remaining, ratio_and_key):
        ratio, k = ratio_and_key
        count = _binomial(k, remaining, jnp.clip(ratio, 0, 1), remaining.shape,
                          remaining.dtype)
        return remaining - count, count

    keys = _split_key(key, (ratios.shape[0],))
    _, counts = lax.scan(step, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dtype)


__all__ += ["f", "geometric", "lognormal", "multinomial", "rayleigh", "triangular", "wald"]
