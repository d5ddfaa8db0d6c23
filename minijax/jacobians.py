"""Jacobians and Hessians of pytree functions: ``jacfwd``, ``jacrev``, ``jacobian``,
``hessian``.

``jacfwd`` pushes the standard basis of the inputs through ``jvp`` under ``vmap``;
``jacrev`` pulls the standard basis of the outputs back through ``vjp`` under
``vmap``. The result is nested as ``output tree[input tree]``: the entry for output
leaf ``o`` and input leaf ``i`` has shape ``o.shape + i.shape``.
"""

import functools

import numpy as np

from . import _checks, dtypes, lax, tree_util
from .core.trace import basis_map
from .api import _check_leaf, _fun_name, jvp, vjp, vmap
from .runtime.array import _make
from .traceback_util import api_boundary


def _argnums(argnums):
    return _checks.argnums(argnums, "argnums", allow_empty=False)


def _dyn_args(fun, args, argnums, kind):
    nums = _argnums(argnums)
    for i in nums:
        if not -len(args) <= i < len(args):
            raise ValueError(f"{kind}: argnums {argnums} refers to argument {i}, but "
                             f"{_fun_name(fun)} was called with {len(args)} positional arguments")
    nums = [i % len(args) for i in nums]

    def partial_fun(*dyn):
        full = list(args)
        for i, a in zip(nums, dyn):
            full[i] = a
        return full
    return nums, partial_fun


def _check_dtypes(leaves, holomorphic, kind, what):
    for x in leaves:
        dtype = _check_leaf(x, f"{kind} {what}").dtype
        if holomorphic:
            if not dtypes.is_complex(dtype):
                raise TypeError(f"{kind} with holomorphic=True requires complex {what}s, got "
                                f"{dtype.name}")
        elif not dtypes.is_inexact(dtype) or dtypes.is_complex(dtype):
            raise TypeError(f"{kind} requires real-valued {what}s (a floating dtype), got "
                            f"{dtype.name}; for complex {what}s use holomorphic=True if the "
                            f"function is holomorphic" if dtypes.is_complex(dtype) else
                            f"{kind} requires floating-point {what}s, got {dtype.name}; "
                            f"convert them, for example with x.astype(float)")


def _basis(avals):
    """One array per leaf of shape ``(n,) + leaf.shape``: the rows of the identity of
    size ``n`` (the total number of elements), split by leaf."""
    n = sum(a.size for a in avals)
    out, start = [], 0
    for a in avals:
        rows = np.zeros((n, a.size), a.dtype)
        rows[start:start + a.size] = np.eye(a.size, dtype=a.dtype)
        rows = rows.reshape((n,) + a.shape)
        out.append(_make(_check_leaf(rows, "basis"), rows))
        start += a.size
    return out


def _columns_by_input(x, in_avals):
    """Split the leading axis of ``x`` (n_in, *out_shape) into out_shape + in_shape blocks."""
    out, start = [], 0
    out_nd = x.ndim - 1
    for a in in_avals:
        block = lax.slice_in_dim(x, start, start + a.size, axis=0)
        block = lax.transpose(block, tuple(range(1, out_nd + 1)) + (0,))
        out.append(lax.reshape(block, x.shape[1:] + a.shape))
        start += a.size
    return out


def _differentiated_inputs(fun, args, kwargs, argnums, holomorphic, name):
    """``fun`` as a function of the ``argnums`` arguments alone, those arguments, their
    tree and their (checked) avals."""
    nums, merge = _dyn_args(fun, args, argnums, name)
    dyn = tuple(args[i] for i in nums)
    in_leaves, in_tree = tree_util.tree_flatten(dyn)
    _check_dtypes(in_leaves, holomorphic, name, "input")
    in_avals = [_check_leaf(x, f"{name} input") for x in in_leaves]

    def f_dyn(*d):
        return fun(*merge(*d), **kwargs)
    return f_dyn, dyn, in_tree, in_avals


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of ``fun`` by forward mode (one ``jvp`` per input element, vmapped).
    Differentiated arguments that ``fun`` updates in place get their final (primal)
    value written back once, as one eager call would leave them (see ``jit``)."""
    @api_boundary
    @functools.wraps(fun, updated=())
    def jacfun(*args, **kwargs):
        f_dyn, dyn, in_tree, in_avals = _differentiated_inputs(
            fun, args, kwargs, argnums, holomorphic, "jacfwd")

        def pushfwd(*basis_leaves):
            tangents = tree_util.tree_unflatten(in_tree, list(basis_leaves))
            with basis_map():   # this vmap batches tangents only; primals stay concrete
                res = jvp(f_dyn, dyn, tangents, has_aux=has_aux)
            return (res[1], res[2]) if has_aux else res[1]
        basis = _basis(in_avals)
        if has_aux:
            t_out, aux = vmap(pushfwd, in_axes=0, out_axes=(0, None))(*basis)
        else:
            t_out = vmap(pushfwd)(*basis)
        out_leaves, out_tree = tree_util.tree_flatten(t_out)
        jac_leaves = []
        for o in out_leaves:
            blocks = _columns_by_input(o, in_avals)
            jac_leaves.append(_unflatten_args(in_tree, blocks, argnums))
        jac = tree_util.tree_unflatten(out_tree, jac_leaves)
        return (jac, aux) if has_aux else jac
    return jacfun


def _unflatten_args(in_tree, leaves, argnums):
    tup = tree_util.tree_unflatten(in_tree, leaves)
    return tup[0] if isinstance(argnums, int) else tup


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of ``fun`` by reverse mode (one ``vjp`` per output element, vmapped).
    Differentiated arguments that ``fun`` updates in place get their final (primal)
    value written back once, as one eager call would leave them (see ``jit``)."""
    @api_boundary
    @functools.wraps(fun, updated=())
    def jacfun(*args, **kwargs):
        f_dyn, dyn, in_tree, in_avals = _differentiated_inputs(
            fun, args, kwargs, argnums, holomorphic, "jacrev")
        res = vjp(f_dyn, *dyn, has_aux=has_aux)
        out, f_vjp = res[0], res[1]
        out_leaves, out_tree = tree_util.tree_flatten(out)
        _check_dtypes(out_leaves, holomorphic, "jacrev", "output")
        out_avals = [_check_leaf(x, "jacrev output") for x in out_leaves]

        def pullback(*basis_leaves):
            cts = f_vjp(tree_util.tree_unflatten(out_tree, list(basis_leaves)))
            return tree_util.tree_leaves(cts)
        cts_in = vmap(pullback)(*_basis(out_avals))
        # cts_in[k] has shape (n_out,) + in_avals[k].shape
        per_in = [_rows_by_output(c, out_avals, a) for c, a in zip(cts_in, in_avals)]
        jac_leaves = [_unflatten_args(in_tree, [blocks[j] for blocks in per_in], argnums)
                      for j in range(len(out_avals))]
        jac = tree_util.tree_unflatten(out_tree, jac_leaves)
        return (jac, res[2]) if has_aux else jac
    return jacfun


def _rows_by_output(c, out_avals, in_aval):
    """Split the leading axis of ``c`` (n_out, *in_shape) into out_shape + in_shape blocks."""
    out, start = [], 0
    for a in out_avals:
        block = lax.slice_in_dim(c, start, start + a.size, axis=0)
        out.append(lax.reshape(block, a.shape + in_aval.shape))
        start += a.size
    return out


jacobian = jacrev


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))`` (forward over reverse)."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                  has_aux=has_aux, holomorphic=holomorphic)
