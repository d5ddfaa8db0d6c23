"""``minijax.flatten_util``: a pytree of arrays as one flat vector, and back."""

import numpy as np

from . import lax
from . import numpy as jnp
from .core import get_aval
from .tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree):
    """``(flat, unravel)``: the leaves of ``pytree`` raveled and joined into one 1-D
    array of their promoted dtype, and the function that turns such a vector back into
    the pytree (each leaf with its shape and dtype). A tree with no leaves gives an
    empty vector of the default float dtype."""
    leaves, treedef = tree_flatten(pytree)
    if not leaves:
        return jnp.zeros((0,)), _Unravel(treedef, (), None, None)
    leaves = [jnp.asarray(x) for x in leaves]
    avals = [get_aval(x) for x in leaves]
    from_dtypes = tuple(a.dtype for a in avals)
    to_dtype = jnp.result_type(*from_dtypes)
    shapes = tuple(a.shape for a in avals)
    if all(d == to_dtype for d in from_dtypes):
        # one dtype: ``unravel`` keeps the dtype it is given (a vector of tangents or
        # of another precision unravels as it is)
        from_dtypes = to_dtype = None
        flat = [lax.reshape(x, (x.size,)) for x in leaves]
    else:
        flat = [lax.reshape(lax.convert_element_type(x, to_dtype), (x.size,))
                for x in leaves]
    return lax.concatenate(flat, 0), _Unravel(treedef, shapes, from_dtypes, to_dtype)


class _Unravel:
    """The inverse of one ``ravel_pytree`` call; hashable, so it can be a static
    argument of ``jit``."""

    __slots__ = ("treedef", "shapes", "from_dtypes", "to_dtype")

    def __init__(self, treedef, shapes, from_dtypes, to_dtype):
        self.treedef, self.shapes = treedef, shapes
        self.from_dtypes, self.to_dtype = from_dtypes, to_dtype

    def _key(self):
        return (self.treedef, self.shapes, self.from_dtypes, self.to_dtype)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return type(other) is _Unravel and self._key() == other._key()

    def __call__(self, flat):
        flat = jnp.asarray(flat)
        aval = get_aval(flat)
        sizes = [int(np.prod(s, dtype=np.int64)) for s in self.shapes]
        if aval.shape != (sum(sizes),):
            raise ValueError(f"unravel: expected a vector of shape ({sum(sizes)},), the "
                             f"size of the raveled pytree, got shape {aval.shape}")
        if self.to_dtype is not None and aval.dtype != self.to_dtype:
            raise TypeError(f"unravel: the pytree was raveled to dtype {self.to_dtype}; "
                            f"it was given a vector of dtype {aval.dtype}")
        pieces = lax.split(flat, sizes) if sizes else []
        leaves = [lax.reshape(p, s) for p, s in zip(pieces, self.shapes)]
        if self.from_dtypes is not None:
            leaves = [_cast(x, d) for x, d in zip(leaves, self.from_dtypes)]
        return tree_unflatten(self.treedef, leaves)

    def __repr__(self):
        return f"<unravel for {self.treedef}>"


def _cast(x, dtype):
    # (complex to real keeps the real part without NumPy's ComplexWarning, as JAX's)
    if jnp.iscomplexobj(x) and not np.issubdtype(dtype, np.complexfloating):
        x = lax.real(x)
    return lax.convert_element_type(x, dtype)
