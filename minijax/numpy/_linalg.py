"""Products: dot, matmul, vdot, inner, outer, tensordot."""

import numpy as np

from .. import dtypes, lax
from ..core import get_aval
from ._core import broadcast_shapes, promote


def _operands(a, b):
    a, b = promote(a, b)
    if get_aval(a).dtype == np.bool_:
        raise TypeError("products of boolean arrays are not supported; convert to int first")
    return a, b


def dot(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's dot: a product for scalars, matmul for 2-d, a sum over the last axis of
    ``a`` and the second-to-last of ``b`` in general. ``precision`` and
    ``preferred_element_type`` are ``lax.dot_general``'s."""
    a, b = _operands(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if na == 0 or nb == 0:
        from ._elementwise import multiply
        return _as_preferred(multiply(a, b), preferred_element_type)
    cb = 0 if nb == 1 else nb - 2
    _check_contract("dot", get_aval(a).shape, get_aval(b).shape, na - 1, cb)
    return lax.dot_general(a, b, (((na - 1,), (cb,)), ((), ())), precision,
                           preferred_element_type)


def _as_preferred(x, preferred_element_type):
    """A product computed without dot_general, in ``preferred_element_type``."""
    if preferred_element_type is None:
        return x
    return lax.convert_element_type(x, dtypes.canonicalize(preferred_element_type))


def _check_contract(name, sa, sb, ia, ib):
    if sa[ia] != sb[ib]:
        raise ValueError(f"{name}: shapes {sa} and {sb} not aligned: {sa[ia]} (dim {ia}) != "
                         f"{sb[ib]} (dim {ib})")


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """Matrix product with NumPy's broadcasting of leading (batch) axes."""
    a, b = _operands(a, b)
    sa, sb = get_aval(a).shape, get_aval(b).shape
    if not sa or not sb:
        raise ValueError("matmul: input operand does not have enough dimensions (scalars are "
                         "not allowed; use multiply)")
    a2 = lax.reshape(a, (1, *sa)) if len(sa) == 1 else a
    b2 = lax.reshape(b, (*sb, 1)) if len(sb) == 1 else b
    sa2, sb2 = get_aval(a2).shape, get_aval(b2).shape
    _check_contract("matmul", sa, sb, len(sa) - 1, max(len(sb) - 2, 0))
    batch = broadcast_shapes(sa2[:-2], sb2[:-2], name="matmul batch axes")
    a2 = lax.broadcast_to_shape(a2, (*batch, *sa2[-2:]))
    b2 = lax.broadcast_to_shape(b2, (*batch, *sb2[-2:]))
    nb = len(batch)
    bd = tuple(range(nb))
    out = lax.dot_general(a2, b2, (((nb + 1,), (nb,)), (bd, bd)), precision,
                          preferred_element_type)
    drop = []
    if len(sa) == 1:
        drop.append(nb)
    if len(sb) == 1:
        drop.append(get_aval(out).ndim - 1)
    return lax.squeeze(out, drop) if drop else out


def vdot(a, b, *, precision=None, preferred_element_type=None):
    from ._manipulation import ravel
    a, b = _operands(a, b)
    if np.dtype(get_aval(a).dtype).kind == "c":
        raise NotImplementedError("vdot of complex arrays needs conj (coming with lax.conj)")
    return dot(ravel(a), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    a, b = _operands(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if na == 0 or nb == 0:
        from ._elementwise import multiply
        return _as_preferred(multiply(a, b), preferred_element_type)
    _check_contract("inner", get_aval(a).shape, get_aval(b).shape, na - 1, nb - 1)
    return lax.dot_general(a, b, (((na - 1,), (nb - 1,)), ((), ())), precision,
                           preferred_element_type)


def outer(a, b):
    from ._elementwise import multiply
    from ._manipulation import reshape
    a, b = _operands(a, b)
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    a, b = _operands(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if isinstance(axes, int):
        ca, cb = tuple(range(na - axes, na)), tuple(range(axes))
    else:
        ca, cb = axes
        ca = (ca,) if isinstance(ca, int) else tuple(ca)
        cb = (cb,) if isinstance(cb, int) else tuple(cb)
        ca = tuple(x % na for x in ca)
        cb = tuple(x % nb for x in cb)
    return lax.dot_general(a, b, ((ca, cb), ((), ())), precision, preferred_element_type)
