"""Oracles for tests: finite-difference gradient checks and primitive cross-checks."""

import itertools

import numpy as np

from . import api, tree_util
from .config import config
from .core import get_aval
from .runtime.array import Array

_DEFAULT_EPS = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-3}
_DEFAULT_TOL = {np.dtype(np.float64): 1e-5, np.dtype(np.float32): 2e-2}


def _as_np(x):
    return np.asarray(x)


def numerical_jvp(f, primals, tangents, eps):
    """Central finite difference of ``f`` along ``tangents``."""
    plus = tree_util.tree_map(lambda p, t: _as_np(p) + eps * _as_np(t), primals, tangents)
    minus = tree_util.tree_map(lambda p, t: _as_np(p) - eps * _as_np(t), primals, tangents)
    f_plus, f_minus = f(*plus), f(*minus)
    return tree_util.tree_map(lambda a, b: (_as_np(a) - _as_np(b)) / (2 * eps), f_plus, f_minus)


def _random_like(rng, x):
    a = _as_np(x)
    return rng.standard_normal(a.shape).astype(a.dtype)


def _assert_close(actual, expected, tol, what):
    for a, e in zip(tree_util.tree_leaves(actual), tree_util.tree_leaves(expected)):
        np.testing.assert_allclose(_as_np(a), _as_np(e), rtol=tol, atol=tol, err_msg=what)


def _step_and_tol(f, primals, eps, tol):
    """Finite-difference step and tolerance for the least precise input or output."""
    outs = tree_util.tree_leaves(f(*primals))
    dts = [_as_np(x).dtype for x in tree_util.tree_leaves(primals) + outs]
    eps = eps or max(_DEFAULT_EPS.get(d, 1e-3) for d in dts)
    tol = tol or max(_DEFAULT_TOL.get(d, 1e-2) for d in dts)
    return eps, tol


def check_jvp(f, primals, order=1, eps=None, tol=None, seed=0):
    """``jvp`` of ``f`` agrees with central differences, up to ``order`` (by nesting)."""
    rng = np.random.default_rng(seed)
    eps, tol = _step_and_tol(f, primals, eps, tol)
    tangents = tree_util.tree_map(lambda x: _random_like(rng, x), primals)
    _, t_out = api.jvp(f, tuple(primals), tuple(tangents))
    expected = numerical_jvp(f, primals, tangents, eps)
    _assert_close(t_out, expected, tol, "jvp vs finite differences")
    if order > 1:
        check_jvp(lambda *p: api.jvp(f, p, tuple(tangents))[1], primals, order - 1,
                  eps, tol * 10, seed + 1)


def check_vjp(f, primals, order=1, eps=None, tol=None, seed=0):
    """``vjp`` of ``f`` agrees with finite differences via ``<ct, J t> = <J^T ct, t>``."""
    rng = np.random.default_rng(seed)
    eps, tol = _step_and_tol(f, primals, eps, tol)
    out, f_vjp = api.vjp(f, *primals)
    cts = tree_util.tree_map(lambda x: _random_like(rng, x), out)
    tangents = tree_util.tree_map(lambda x: _random_like(rng, x), primals)
    cts_in = f_vjp(cts)
    lhs = sum(np.vdot(_as_np(c), _as_np(t)) for c, t in
              zip(tree_util.tree_leaves(cts_in), tree_util.tree_leaves(tangents)))
    num = numerical_jvp(f, primals, tangents, eps)
    rhs = sum(np.vdot(_as_np(c), _as_np(t)) for c, t in
              zip(tree_util.tree_leaves(cts), tree_util.tree_leaves(num)))
    np.testing.assert_allclose(lhs, rhs, rtol=tol, atol=tol, err_msg="vjp vs finite differences")
    if order > 1:
        def first_vjp(*p):
            return api.vjp(f, *p)[1](cts)
        check_vjp(first_vjp, primals, order - 1, eps, tol * 10, seed + 1)


def check_grads(f, args, order=1, modes=("fwd", "rev"), eps=None, tol=None):
    """Check derivatives of ``f`` at ``args`` up to ``order`` in forward and reverse mode."""
    if "fwd" in modes:
        check_jvp(f, args, order, eps, tol)
    if "rev" in modes:
        check_vjp(f, args, order, eps, tol)


def with_eager_backend(backend, fn, *args):
    saved = config.eager_backend
    config.update("eager_backend", backend)
    try:
        return fn(*args)
    finally:
        config.update("eager_backend", saved)


def check_primitive(fn, args, batch_size=3, rtol=1e-7, atol=0, check_dtype=True,
                    vmap_axes=None):
    """Cross-check one operation applied to ``args`` (arrays):

    - the NumPy kernels (eager) against the XLA lowering (eager op-by-op, and jit);
    - ``vmap`` over stacked copies along each batch axis against a Python loop.

    NaN positions must agree. Returns the NumPy-eager result.
    """
    args = [Array._from_host(np.asarray(a), get_aval(np.asarray(a))) if not isinstance(a, Array)
            else a for a in args]
    eager = fn(*args)
    via_xla = with_eager_backend("xla", fn, *args)
    jitted = api.jit(fn)(*args)
    for name, other in (("eager XLA", via_xla), ("jit", jitted)):
        for e, o in zip(tree_util.tree_leaves(eager), tree_util.tree_leaves(other)):
            if check_dtype:
                assert np.asarray(e).dtype == np.asarray(o).dtype, (name, e, o)
            np.testing.assert_allclose(np.asarray(o), np.asarray(e), rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=f"NumPy kernel vs {name}")
    if batch_size:
        rng = np.random.default_rng(1)
        axes_choices = vmap_axes or [tuple(range(0, np.ndim(a) + 1)) for a in args]
        for axes in itertools.islice(itertools.product(*axes_choices), 4):
            stacked = []
            for a, ax in zip(args, axes):
                host = np.asarray(a)
                copies = [host if i == 0 else _perturb(rng, host) for i in range(batch_size)]
                stacked.append(np.stack(copies, axis=ax))
            batched = api.vmap(fn, in_axes=axes)(*stacked)
            for i in range(batch_size):
                single = fn(*[np.take(s, i, axis=ax) for s, ax in zip(stacked, axes)])
                for b, s in zip(tree_util.tree_leaves(batched), tree_util.tree_leaves(single)):
                    np.testing.assert_allclose(np.take(np.asarray(b), i, axis=0), np.asarray(s),
                                               rtol=rtol, atol=atol, equal_nan=True,
                                               err_msg=f"vmap with in_axes={axes} vs a loop")
    return eager


def _perturb(rng, host):
    if host.dtype.kind in "fc":
        return (host + rng.standard_normal(host.shape).astype(host.dtype)).astype(host.dtype)
    if host.dtype.kind in "iu":
        return np.roll(host, 1) if host.ndim else host
    return np.logical_not(host) if host.dtype == np.bool_ else host


def check_vmap_each_axis(fn, args, size=2, rtol=0, atol=0):
    """``vmap`` of ``fn`` agrees with a loop when batching every axis of each operand
    alone (the others unbatched), the same axis of all operands, and mixed axes.

    The extra batch members are permutations of each operand's values, so special
    values and ties carry over."""
    rng = np.random.default_rng(3)
    choices = []
    for i, a in enumerate(args):
        for ax in range(a.ndim + 1):
            axes = [None] * len(args)
            axes[i] = ax
            choices.append(axes)
    for ax in range(min(a.ndim for a in args) + 1):
        choices.append([ax] * len(args))
    for j in (1, 2):
        choices.append([(j * (i + 1)) % (a.ndim + 1) for i, a in enumerate(args)])
    for axes in choices:
        stacked = [a if ax is None else
                   np.stack([a] + [rng.permutation(a.ravel()).reshape(a.shape)
                                   for _ in range(size - 1)], ax)
                   for a, ax in zip(args, axes)]
        batched = tree_util.tree_leaves(api.vmap(fn, in_axes=tuple(axes))(*stacked))
        for k in range(size):
            single = tree_util.tree_leaves(fn(*[s if ax is None else np.take(s, k, axis=ax)
                                                for s, ax in zip(stacked, axes)]))
            for b, o in zip(batched, single):
                np.testing.assert_allclose(np.asarray(b)[k], np.asarray(o), rtol=rtol,
                                           atol=atol, equal_nan=True,
                                           err_msg=f"vmap with in_axes={axes} vs a loop")
