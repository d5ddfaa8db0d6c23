"""Linear algebra functions and tensor contractions (Array API chapter "Linear
Algebra Functions"): dot, matmul, vdot, inner, outer, tensordot, einsum, kron, cross.
``vecdot`` and the ``linalg`` extension live in ``minijax.numpy.linalg``."""

import operator
import builtins
import warnings

import numpy as np

from .. import _checks, dtypes, lax
from ..core import get_aval
from ..errors import ShapeMismatchError
from ._out import check_casting, supports_out
from ._core import broadcast_shapes, cast_dtype, check_order, promote, to_array
from ._elementwise import multiply
from ._manipulation import moveaxis, ravel, reshape
from ._ufunc import cast_inputs, loop_signature
from ..util import canonicalize_axis


def _operands(a, b, dtype=None):
    # (products of booleans are booleans: XLA's dot of them is NumPy's or of ands)
    return promote(a, b) if dtype is None else promote(a, b, dtype=dtypes.canonicalize(dtype))


@supports_out(casting="no")
def dot(a, b, out=None, *, precision=None, preferred_element_type=None):
    """NumPy's dot: a product for scalars, matmul for 2-d, a sum over the last axis of
    ``a`` and the second-to-last of ``b`` in general. ``precision`` and
    ``preferred_element_type`` are ``lax.dot_general``'s."""
    a, b = _operands(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if na == 0 or nb == 0:
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
        raise ShapeMismatchError(f"{name}: shapes {sa} and {sb} not aligned: {sa[ia]} (dim "
                                 f"{ia}) != {sb[ib]} (dim {ib})")


@supports_out(casting="same_kind")
def matmul(x1, x2, /, out=None, *, axes=None, axis=None, keepdims=False,
           casting="same_kind", order="K", dtype=None, subok=True, signature=None,
           precision=None, preferred_element_type=None):
    """Matrix product with NumPy's broadcasting of leading (batch) axes, and its gufunc
    keywords (``axes=`` places the matrices' axes); ``precision`` and
    ``preferred_element_type`` are ``lax.dot_general``'s."""
    def kernel(a, b):
        return _matmul(a, b, precision, preferred_element_type)
    return _gufunc("matmul", np.matmul, x1, x2, kernel, axes, axis, keepdims, casting,
                   order, dtype, subok, signature)


def _matmul(a, b, precision=None, preferred_element_type=None):
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


# (NumPy 2.2 added matvec and vecmat; their dtype rules are matmul's)
_NUMPY_MATVEC, _NUMPY_VECMAT = getattr(np, "matvec", np.matmul), getattr(np, "vecmat", np.matmul)


@supports_out(broadcast=True, casting="same_kind")
def matvec(x1, x2, /, out=None, *, axes=None, axis=None, keepdims=False,
           casting="same_kind", order="K", dtype=None, subok=True, signature=None):
    """Matrix-vector product over the last two axes of ``x1`` and the last of ``x2``, with
    broadcasting of the leading axes (numpy.matvec)."""
    return _gufunc("matvec", _NUMPY_MATVEC, x1, x2, _matvec, axes, axis, keepdims, casting,
                   order, dtype, subok, signature)


def _matvec(a, b):
    a, b = _operands(a, b)
    sa, sb = get_aval(a).shape, get_aval(b).shape
    if len(sa) < 2 or len(sb) < 1:
        raise ValueError(f"matvec: needs a matrix (ndim >= 2) and a vector (ndim >= 1), got "
                         f"shapes {sa} and {sb}")
    _check_contract("matvec", sa, sb, len(sa) - 1, len(sb) - 1)
    prod = _matmul(a, lax.reshape(b, (*sb, 1)))
    return lax.squeeze(prod, (get_aval(prod).ndim - 1,))


@supports_out(broadcast=True, casting="same_kind")
def vecmat(x1, x2, /, out=None, *, axes=None, axis=None, keepdims=False,
           casting="same_kind", order="K", dtype=None, subok=True, signature=None):
    """Vector-matrix product of the (conjugated) last axis of ``x1`` with the last two of
    ``x2``, with broadcasting of the leading axes (numpy.vecmat)."""
    return _gufunc("vecmat", _NUMPY_VECMAT, x1, x2, _vecmat, axes, axis, keepdims, casting,
                   order, dtype, subok, signature)


def _vecmat(a, b):
    a, b = _operands(a, b)
    sa, sb = get_aval(a).shape, get_aval(b).shape
    if len(sa) < 1 or len(sb) < 2:
        raise ValueError(f"vecmat: needs a vector (ndim >= 1) and a matrix (ndim >= 2), got "
                         f"shapes {sa} and {sb}")
    _check_contract("vecmat", sa, sb, len(sa) - 1, len(sb) - 2)
    if dtypes.is_complex(get_aval(a).dtype):
        a = lax.conj(a)
    prod = _matmul(lax.reshape(a, (*sa[:-1], 1, sa[-1])), b)
    return lax.squeeze(prod, (get_aval(prod).ndim - 2,))


@supports_out(broadcast=True, casting="same_kind")
def vecdot(x1, x2, /, out=None, *, axes=None, axis=None, keepdims=False,
           casting="same_kind", order="K", dtype=None, subok=True, signature=None,
           precision=None, preferred_element_type=None):
    """Dot product of vectors along the last axis (``axis=``/``axes=`` another), with
    broadcasting and the first argument conjugated (numpy.vecdot); ``precision`` and
    ``preferred_element_type`` are ``lax.dot_general``'s."""
    def kernel(a, b):
        return vector_dot(a, b, -1, precision, preferred_element_type)
    return _gufunc("vecdot", np.vecdot, x1, x2, kernel, axes, axis, keepdims, casting,
                   order, dtype, subok, signature)


def vector_dot(x1, x2, axis=-1, precision=None, preferred_element_type=None):
    """The dot products of the vectors along ``axis`` of ``x1`` (conjugated) and ``x2``,
    broadcast against each other."""
    x1, x2 = promote(x1, x2)
    s1, s2 = get_aval(x1).shape, get_aval(x2).shape
    if len(s1) == 0 or len(s2) == 0:
        raise ValueError("vecdot: scalars are not allowed")
    shape = broadcast_shapes(s1, s2, name="vecdot operands")
    ax = canonicalize_axis(axis, len(shape))
    if s1[ax - len(shape) + len(s1)] != s2[ax - len(shape) + len(s2)]:
        raise ValueError(f"vecdot: shapes {s1} and {s2} differ along axis {axis}")
    x1, x2 = lax.broadcast_to_shape(x1, shape), lax.broadcast_to_shape(x2, shape)
    if get_aval(x1).dtype == np.bool_ and preferred_element_type is None:
        return lax.reduce_or(lax.select(x1, x2, x1), (ax,))
    if dtypes.is_complex(get_aval(x1).dtype):
        x1 = lax.conj(x1)
    batch = tuple(d for d in range(len(shape)) if d != ax)
    return lax.dot_general(x1, x2, (((ax,), (ax,)), (batch, batch)), precision,
                           preferred_element_type)


# the core dimensions of the gufuncs' operands and result, by the operands' ndims
_CORES = {"matmul": lambda n1, n2: (min(n1, 2), min(n2, 2), (n1 >= 2) + (n2 >= 2)),
          "matvec": lambda n1, n2: (2, 1, 1), "vecmat": lambda n1, n2: (1, 2, 1),
          "vecdot": lambda n1, n2: (1, 1, 0)}


def _gufunc(name, np_ufunc, x1, x2, kernel, axes, axis, keepdims, casting, order, dtype,
            subok, signature):
    """NumPy's call of its gufunc ``np_ufunc`` (matmul, matvec, vecmat, vecdot), computed
    by ``kernel`` on operands whose core axes are last: the cast ``dtype=``,
    ``signature=`` and ``casting=`` ask for, the checks of ``order=`` (the layout is
    XLA's under jit) and ``subok=``, and the core axes ``axes=``/``axis=`` name, kept
    with ``keepdims=``."""
    check_order(order, like=True)
    if subok is not True and subok is not False:
        raise TypeError(f"{name}: subok must be a bool")
    fixed = loop_signature(name, 2, 1, dtype, signature)
    check_casting(casting)
    keepdims = _checks.flag(keepdims, "keepdims")
    if fixed is not None or casting not in ("same_kind", "unsafe"):
        (x1, x2), _ = cast_inputs(np_ufunc, name, (x1, x2), fixed, casting)
    if axes is None and axis is None and not keepdims:
        return kernel(x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    n1, n2 = get_aval(x1).ndim, get_aval(x2).ndim
    c1, c2, co = _CORES[name](n1, n2)
    if n1 < c1 or n2 < c2:   # (the kernel's own error)
        return kernel(x1, x2)
    if keepdims:
        if c1 != c2 or co:
            raise TypeError(f"{name}: keepdims= needs operands with the same number of core "
                            f"dimensions and a result without any")
        co = c1
    ndim_out = builtins.max(n1 - c1, n2 - c2) + co
    a1, a2, ao = _gufunc_axes(name, axes, axis, (c1, c2, co), (n1, n2, ndim_out))
    x1 = moveaxis(x1, a1, tuple(range(n1 - c1, n1)))
    x2 = moveaxis(x2, a2, tuple(range(n2 - c2, n2)))
    r = kernel(x1, x2)
    if keepdims:
        r = reshape(r, get_aval(r).shape + (1,) * co)
    return moveaxis(r, tuple(range(ndim_out - co, ndim_out)), ao) if co else r


def _gufunc_axes(name, axes, axis, cores, ndims):
    """The core axes (normalized tuples) of the two operands and the result, from NumPy's
    ``axes=`` (a list, an int for one core dimension, the result's left out when it has
    none) or ``axis=`` (one axis shared by operands with one core dimension each)."""
    if axis is not None:
        if axes is not None:
            raise TypeError("cannot specify both 'axis' and 'axes'")
        if cores[0] != 1 or cores[1] != 1:
            raise TypeError(f"{name}: axis= can only be used with a single shared core "
                            f"dimension; use axes=")
        axes = [axis, axis] + ([axis] if cores[2] else [])
    if axes is None:
        return tuple(tuple(range(n - c, n)) for c, n in zip(cores, ndims))
    if not isinstance(axes, list):
        raise TypeError(f"{name}: axes= must be a list, got {type(axes).__name__}")
    axes = list(axes)
    if len(axes) == 2 and cores[2] == 0:
        axes.append(())
    if len(axes) != 3:
        raise ValueError(f"{name}: axes= should be a list with an entry for all 3 inputs "
                         f"and outputs; entries for outputs can only be omitted if none "
                         f"of them has core axes")
    out = []
    for i, (entry, c, n) in enumerate(zip(axes, cores, ndims)):
        if not isinstance(entry, tuple):
            if c != 1 or isinstance(entry, (list, bool)) or not hasattr(entry, "__index__"):
                raise TypeError(f"{name}: axes item {i} should be a tuple")
            entry = (entry,)
        if len(entry) != c:
            raise ValueError(f"{name}: axes item {i} should be a tuple with {c} elements, "
                             f"got {len(entry)}")
        normalized = tuple(canonicalize_axis(_checks.index(a, "axes"), n) for a in entry)
        if len(set(normalized)) != len(normalized):
            raise ValueError(f"{name}: axes item {i} has value repeated")
        out.append(normalized)
    return tuple(out)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating the first (complex) one."""
    a, b = _operands(a, b)
    if dtypes.is_complex(get_aval(a).dtype):
        a = lax.conj(a)
    return dot(ravel(a), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    a, b = _operands(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if na == 0 or nb == 0:
        return _as_preferred(multiply(a, b), preferred_element_type)
    _check_contract("inner", get_aval(a).shape, get_aval(b).shape, na - 1, nb - 1)
    return lax.dot_general(a, b, (((na - 1,), (nb - 1,)), ((), ())), precision,
                           preferred_element_type)


@supports_out(broadcast=True, casting="same_kind")
def outer(a, b, out=None):
    """Outer product of the flattened ``a`` and ``b``."""
    a, b = _operands(a, b)
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    a, b = _operands(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an integer or a pair of axis "
                             f"sequences, got {axes!r}")
        ca = _checks.axes(axes[0], na, "axes")
        cb = _checks.axes(axes[1], nb, "axes")
        if len(ca) != len(cb):
            raise ValueError(f"shape-mismatch for sum: axes {axes!r} name {len(ca)} and "
                             f"{len(cb)} axes")
    else:
        n = builtins.max(_checks.index(axes, "axes"), 0)   # NumPy: n <= 0 sums nothing
        if n > na or n > nb:
            raise ValueError(f"tensordot: axes={n} is more than the rank of an operand "
                             f"({na}, {nb})")
        ca, cb = tuple(range(na - n, na)), tuple(range(n))
    return lax.dot_general(a, b, ((ca, cb), ((), ())), precision, preferred_element_type)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse(subscripts, operands):
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        lhs, out = subscripts.split("->")
        explicit = True
    else:
        lhs, out, explicit = subscripts, None, False
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operand subscripts for {len(operands)} "
                         f"operands")
    used = set(subscripts) - set(".,->")
    for c in used:
        if c not in _LETTERS:
            raise ValueError(f"einsum: invalid subscript {c!r}")
    spare = [c for c in _LETTERS if c not in used]
    max_ell = 0
    for t, op in zip(terms, operands):
        if "..." in t:
            max_ell = max(max_ell, get_aval(op).ndim - len(t.replace("...", "")))
    ell = "".join(spare[:max_ell])
    expanded = []
    for t, op in zip(terms, operands):
        nd = get_aval(op).ndim
        if "..." in t:
            k = nd - len(t.replace("...", ""))
            if k < 0:
                raise ValueError("einsum: too many subscripts for an operand")
            t = t.replace("...", ell[max_ell - k:])
        if len(t) != nd:
            raise ValueError(f"einsum: subscripts {t!r} do not match an operand of rank {nd}")
        expanded.append(t)
    if explicit:
        out = out.replace("...", ell)   # without '...', broadcast dims are summed out
    else:
        counts = {}
        for t in expanded:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    if len(set(out)) != len(out):
        raise ValueError("einsum: output subscript repeated")
    for c in out:
        if not any(c in t for t in expanded):
            raise ValueError(f"einsum: output subscript {c!r} does not appear in the inputs")
    return expanded, out


def _diagonalize(x, term):
    # repeated letters in one term: keep the diagonal
    while True:
        dup = next((c for c in term if term.count(c) > 1), None)
        if dup is None:
            return x, term
        i = term.index(dup)
        j = term.index(dup, i + 1)
        s = get_aval(x).shape
        on = lax.eq(lax.broadcasted_iota(np.int64, s, i), lax.broadcasted_iota(np.int64, s, j))
        x = lax.reduce_sum(lax.select_n(on, lax.full(s, 0, get_aval(x).dtype), x), (j,))
        term = term[:j] + term[j + 1:]


def _sum_letters(x, term, letters):
    axes = tuple(i for i, c in enumerate(term) if c in letters)
    if not axes:
        return x, term
    return lax.reduce_sum(x, axes), "".join(c for c in term if c not in letters)


def _sublist_letters(sublist):
    out = []
    for label in sublist:
        if label is Ellipsis:
            out.append("...")
            continue
        try:
            i = operator.index(label)
        except TypeError:
            raise TypeError(f"einsum: subscripts in the sublist form must be integers or "
                            f"Ellipsis, got {type(label).__name__}") from None
        if not 0 <= i < len(_LETTERS):
            raise ValueError(f"einsum: subscript {i} is out of range: the sublist form takes "
                             f"integers in [0, {len(_LETTERS)})")
        out.append(_LETTERS[i])
    return "".join(out)


def _sublist_subscripts(first, rest):
    """The interleaved form ``einsum(op0, sub0, op1, sub1, ..., [out])`` as a string
    of subscripts and the operands."""
    args = (first, *rest)
    operands = args[0::2]
    sublists = args[1::2]
    out = None
    if len(args) % 2 == 1:   # a trailing output sublist
        operands, out = operands[:-1], operands[-1]
    if len(sublists) != len(operands):
        raise ValueError("einsum: the sublist form needs one subscript list per operand")
    spec = ",".join(_sublist_letters(s) for s in sublists)
    if out is not None:
        spec += "->" + _sublist_letters(out)
    return spec, operands


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """NumPy's contraction order for an ``einsum`` (the path list and its printed
    report). It depends only on the shapes, so traced operands work."""
    if isinstance(operands[0], str):
        spec, arrays = operands[0], operands[1:]
    else:
        spec, arrays = _sublist_subscripts(operands[0], operands[1:])
    stand_ins = [np.broadcast_to(np.zeros((), get_aval(to_array(a)).dtype),
                                 get_aval(to_array(a)).shape) for a in arrays]
    return np.einsum_path(spec, *stand_ins, optimize=optimize, einsum_call=einsum_call)


@supports_out(casting="safe")
def einsum(subscripts, *operands, out=None, dtype=None, optimize=False, casting="safe",
           precision=None, preferred_element_type=None):
    """Einstein summation (pairwise contraction left to right through dot_general;
    ``precision`` and ``preferred_element_type`` are passed to it)."""
    if not isinstance(subscripts, str):
        subscripts, operands = _sublist_subscripts(subscripts, operands)
    ops = [to_array(o) for o in operands]
    dtype = cast_dtype(ops, dtype, casting)
    ops = promote(*ops) if dtype is None else promote(*ops, dtype=dtype)
    res_dtype = get_aval(ops[0]).dtype
    is_bool = res_dtype == np.bool_
    if is_bool:
        ops = [lax.convert_element_type(o, np.int64) for o in ops]
    terms, out_term = _parse(subscripts, ops)
    sizes = {}
    for t, o in zip(terms, ops):
        for c, n in zip(t, get_aval(o).shape):
            if sizes.get(c, 1) != 1 and n != 1 and sizes[c] != n:
                raise ValueError(f"einsum: size of label {c!r} differs between operands "
                                 f"({sizes[c]} vs {n})")
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]
    prepared = []
    for k, (t, o) in enumerate(zip(terms, ops)):
        o, t = _diagonalize(o, t)
        # broadcast size-1 dims to the common size
        target = tuple(sizes[c] for c in t)
        if get_aval(o).shape != target:
            o = lax.broadcast_to_shape(o, target)
        others = set(out_term).union(*[set(tt) for j, tt in enumerate(terms) if j != k])
        o, t = _sum_letters(o, t, set(t) - others)
        prepared.append((o, t))
    acc, acc_t = prepared[0]
    for k in range(1, len(prepared)):
        o, t = prepared[k]
        later = set(out_term).union(*[set(tt) for _, tt in prepared[k + 1:]])
        shared = [c for c in acc_t if c in t]
        batch = [c for c in shared if c in later]
        contract = [c for c in shared if c not in later]
        dn = (((tuple(acc_t.index(c) for c in contract), tuple(t.index(c) for c in contract)),
               (tuple(acc_t.index(c) for c in batch), tuple(t.index(c) for c in batch))))
        if get_aval(o).dtype != get_aval(acc).dtype:   # acc is in preferred_element_type
            o = lax.convert_element_type(o, get_aval(acc).dtype)
        acc = lax.dot_general(acc, o, dn, precision, preferred_element_type)
        acc_t = ("".join(batch) + "".join(c for c in acc_t if c not in shared)
                 + "".join(c for c in t if c not in shared))
        acc, acc_t = _sum_letters(acc, acc_t, set(acc_t) - later)
    acc, acc_t = _sum_letters(acc, acc_t, set(acc_t) - set(out_term))
    perm = tuple(acc_t.index(c) for c in out_term)
    if perm != tuple(range(len(perm))):
        acc = lax.transpose(acc, perm)
    if is_bool:
        acc = lax.ne(acc, lax.full(get_aval(acc).shape, 0, np.int64))
    if preferred_element_type is not None:
        acc = lax.convert_element_type(acc, dtypes.canonicalize(preferred_element_type))
    return acc


def kron(a, b):
    """Kronecker product."""
    a, b = promote(a, b)
    sa, sb = get_aval(a).shape, get_aval(b).shape
    nd = max(len(sa), len(sb))
    sa = (1,) * (nd - len(sa)) + sa
    sb = (1,) * (nd - len(sb)) + sb
    big = tuple(x for pair in zip(sa, sb) for x in pair)
    ab = lax.broadcast_in_dim(lax.reshape(a, sa), big, tuple(range(0, 2 * nd, 2)))
    bb = lax.broadcast_in_dim(lax.reshape(b, sb), big, tuple(range(1, 2 * nd, 2)))
    return lax.reshape(multiply(ab, bb), tuple(x * y for x, y in zip(sa, sb)))


def _component(x, k):
    # x[..., k] through a masked sum over the (short) last axis
    s = get_aval(x).shape
    on = lax.eq(lax.broadcasted_iota(np.int32, s, len(s) - 1), lax.full(s, k, np.int32))
    return lax.reduce_sum(lax.select_n(on, lax.full(s, 0, get_aval(x).dtype), x),
                          (len(s) - 1,))


def _stack_last(parts):
    s = get_aval(parts[0]).shape + (len(parts),)
    pos = lax.broadcasted_iota(np.int32, s, len(s) - 1)
    out = lax.broadcast_in_dim(parts[0], s, tuple(range(len(s) - 1)))
    for i, p in enumerate(parts[1:], 1):
        out = lax.select_n(lax.eq(pos, lax.full(s, i, np.int32)), out,
                           lax.broadcast_in_dim(p, s, tuple(range(len(s) - 1))))
    return out


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors along the given axes; NumPy's deprecated 2-vectors
    have a third component of 0 (two of them give the scalar ``a0 * b1 - a1 * b0``)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote(a, b)
    if get_aval(a).dtype == np.bool_:
        raise TypeError("cross: boolean arrays are not supported")
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    na, nb = get_aval(a).shape[-1], get_aval(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 "
                         "or 3)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    shape = broadcast_shapes(get_aval(a).shape[:-1], get_aval(b).shape[:-1],
                             name="cross operands")
    a0, a1, a2 = (lax.broadcast_to_shape(_component(a, k), shape) if k < na else None
                  for k in range(3))
    b0, b1, b2 = (lax.broadcast_to_shape(_component(b, k), shape) if k < nb else None
                  for k in range(3))
    z = lax.sub(lax.mul(a0, b1), lax.mul(a1, b0))
    if na == 2 and nb == 2:
        return z
    # (a missing third component is 0: its products are left out, as NumPy's)
    if a2 is None:
        x, y = lax.mul(a1, b2), lax.neg(lax.mul(a0, b2))
    elif b2 is None:
        x, y = lax.neg(lax.mul(a2, b1)), lax.mul(a2, b0)
    else:
        x = lax.sub(lax.mul(a1, b2), lax.mul(a2, b1))
        y = lax.sub(lax.mul(a2, b0), lax.mul(a0, b2))
    return moveaxis(_stack_last([x, y, z]), -1, axisc)
