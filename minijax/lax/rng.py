"""XLA's stateless bit generator, ``rng_bit_generator``, named as ``jax.lax``'s.

``rng_bit_generator(key, shape, dtype, algorithm)`` returns ``(new_key, bits)``: the
key is ``uint32[4]`` (or ``uint64[2]``), the algorithm XLA's ``DEFAULT`` (the platform's
choice: Philox on CPU), ``THREE_FRY`` or ``PHILOX``. The bits are XLA's own, so there
is no NumPy kernel: eagerly too the one-operation program is compiled (once per shape,
dtype and algorithm) and run by XLA. The batching rule is JAX's: a batch of keys draws
``(batch, *shape)`` bits from the first key alone, so the bits match JAX's under
``vmap`` (they do not match a loop over the keys). Integer outputs: no derivative.
"""

import enum
import operator

import numpy as np

from .. import dtypes
from ..core import Primitive
from ..core.avals import ShapedArray
from ..interpreters import ad, batching
from ..interpreters.lowering import hlo, ir, ir_type
from .sharding import with_sharding_constraint
from .slicing import dynamic_update_index_in_dim, index_in_dim

__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p"]

_BIT_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))


class RandomAlgorithm(enum.IntEnum):
    """The algorithm ``rng_bit_generator`` uses (XLA's ``RandomAlgorithm``)."""

    RNG_DEFAULT = 0
    "The platform's default algorithm (Philox on CPU)."
    RNG_THREE_FRY = 1
    "Threefry-2x32."
    RNG_PHILOX = 2
    "Philox-4x32."

    def __str__(self):
        return self.name


_HLO_NAMES = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT", RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
              RandomAlgorithm.RNG_PHILOX: "PHILOX"}

rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT,
                      *, out_sharding=None):
    """Random bits of ``shape`` and unsigned ``dtype`` from ``key`` (``uint32[4]`` or
    ``uint64[2]``) with XLA's ``algorithm``: ``(new_key, bits)``. The bits are XLA's
    and may differ between backends and XLA versions (as in JAX); ``out_sharding`` lays
    the bits out (``with_sharding_constraint``)."""
    try:
        shape = (operator.index(shape),) if not np.iterable(shape) else tuple(
            operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"lax.rng_bit_generator: shape must be a sequence of integers, got "
                        f"{shape!r}") from None
    dtype = dtypes.canonicalize(dtype)
    try:
        algorithm = RandomAlgorithm(algorithm)
    except ValueError:
        raise ValueError(f"lax.rng_bit_generator: algorithm must be a lax.RandomAlgorithm "
                         f"({', '.join(a.name for a in RandomAlgorithm)}), got "
                         f"{algorithm!r}") from None
    new_key, bits = rng_bit_generator_p.bind(key, shape=shape, dtype=dtype, algorithm=algorithm)
    if out_sharding is not None:
        bits = with_sharding_constraint(bits, out_sharding)
    return new_key, bits


def _abstract_eval(key, *, shape, dtype, algorithm):
    if not ((key.shape == (4,) and key.dtype == np.uint32)
            or (key.shape == (2,) and key.dtype == np.uint64)):
        raise TypeError(f"lax.rng_bit_generator: the key must be a uint32[4] or uint64[2] "
                        f"array, got {key.dtype.name}{list(key.shape)}")
    if dtype not in _BIT_DTYPES:
        raise TypeError(f"lax.rng_bit_generator: dtype must be one of uint8, uint16, uint32, "
                        f"uint64, got {dtype}")
    if any(d < 0 for d in shape):
        raise ValueError(f"lax.rng_bit_generator: shape must not have negative sizes, got "
                         f"{shape}")
    return [key.strip_weak_type(), ShapedArray(shape, dtype)]


def _lower(ctx, key, *, shape, dtype, algorithm):
    # XLA's state is uint64[2]; a uint32[4] key holds it as (low, high) word pairs.
    key_aval, bits_aval = ctx.avals_out
    u64 = ir.IntegerType.get_unsigned(64)
    words = key_aval.dtype == np.uint32
    state = key
    if words:
        pairs = hlo.reshape(ir.RankedTensorType.get([2, 2], ir.IntegerType.get_unsigned(32)),
                            key)
        state = hlo.bitcast_convert(ir.RankedTensorType.get([2], u64), pairs)
    attr = hlo.RngAlgorithmAttr.get(_HLO_NAMES[algorithm])
    new_state, bits = hlo.RngBitGeneratorOp(state.type, ir_type(bits_aval), attr,
                                            state).results
    if words:
        pairs = hlo.bitcast_convert(
            ir.RankedTensorType.get([2, 2], ir.IntegerType.get_unsigned(32)), new_state)
        new_state = hlo.reshape(ir_type(key_aval), pairs)
    return [new_state, bits]


def _batch(axis_size, args, dims, *, shape, dtype, algorithm):
    # JAX's rule: the first key of the batch draws all of the batch's bits (one
    # generator call), and only that key's new state is written back.
    (keys,), (d,) = args, dims
    if d is batching.not_mapped:
        return rng_bit_generator_p.bind(keys, shape=shape, dtype=dtype,
                                        algorithm=algorithm), [None, None]
    keys = batching.moveaxis(keys, d, 0)
    first = index_in_dim(keys, 0, 0, keepdims=False)
    new_key, bits = rng_bit_generator_p.bind(first, shape=(axis_size, *shape), dtype=dtype,
                                             algorithm=algorithm)
    return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


rng_bit_generator_p.abstract_eval = _abstract_eval
rng_bit_generator_p.lower = _lower
rng_bit_generator_p.batch = _batch
ad.defjvp_zero(rng_bit_generator_p)
