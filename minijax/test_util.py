"""Oracles for tests: finite-difference derivative checks and primitive cross-checks.

Derivative checks compare ``jvp`` and ``vjp`` against central finite differences. The
step and the tolerance come from the floating dtypes of the inputs and the floating
outputs (integer and bool leaves carry no derivative and set no tolerance), one entry
per dtype, complex included, so a derivative that is 1% wrong fails in every dtype.
"""

import itertools

import numpy as np

from . import api, tree_util
from .config import config
from .core import get_aval
from .dtypes import bfloat16, is_complex, is_inexact
from .runtime.array import Array, _make

_F16, _BF16 = np.dtype(np.float16), np.dtype(bfloat16)
# Central differences err by ~eps**2 (truncation) plus ~ulp/eps (rounding); the steps
# balance the two for each precision and the tolerances sit a few times above the
# error actually seen across the test suite.
_DEFAULT_EPS = {np.dtype(np.float64): 1e-6, np.dtype(np.complex128): 1e-6,
                np.dtype(np.float32): 2e-3, np.dtype(np.complex64): 2e-3,
                _F16: 3e-2, _BF16: 3e-2}
_DEFAULT_TOL = {np.dtype(np.float64): 1e-5, np.dtype(np.complex128): 1e-5,
                np.dtype(np.float32): 1e-3, np.dtype(np.complex64): 1e-3,
                _F16: 5e-2, _BF16: 1e-1}
# Each further order differentiates a derivative computed in the same precision.
_ORDER_FACTOR = 3


def _as_np(x):
    return np.asarray(x)


def _is_floating(x):
    return is_inexact(_as_np(x).dtype)


def numerical_jvp(f, primals, tangents, eps):
    """Central finite difference of ``f`` along ``tangents`` (integer inputs held fixed)."""
    def step(sign):
        return tree_util.tree_map(
            lambda p, t: _as_np(p) + sign * eps * _as_np(t) if _is_floating(p) else p,
            primals, tangents)
    f_plus, f_minus = f(*step(1)), f(*step(-1))
    return tree_util.tree_map(lambda a, b: (_as_np(a) - _as_np(b)) / (2 * eps),
                              f_plus, f_minus)


def _random_like(rng, x):
    """A random direction for a floating leaf (complex: both parts), zeros otherwise."""
    a = _as_np(x)
    if not is_inexact(a.dtype):
        return np.zeros(a.shape, a.dtype)
    r = rng.standard_normal(a.shape)
    if is_complex(a.dtype):
        r = r + 1j * rng.standard_normal(a.shape)
    return r.astype(a.dtype)


def assert_same(actual, expected, rtol=0, atol=0, err_msg="", equal_nan=True):
    """``actual`` has ``expected``'s shape and dtype and its values within tolerance."""
    a, e = _as_np(actual), _as_np(expected)
    assert a.shape == e.shape, f"{err_msg}: shape {a.shape} != expected {e.shape}"
    assert a.dtype == e.dtype, f"{err_msg}: dtype {a.dtype} != expected {e.dtype}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                               err_msg=err_msg)


def _check_tangents(t_out, out, expected, tol, what):
    """AD tangents ``t_out`` of the outputs ``out`` against finite differences."""
    out_leaves, t_leaves = tree_util.tree_leaves(out), tree_util.tree_leaves(t_out)
    assert len(t_leaves) == len(out_leaves), what
    for t, o, e in zip(t_leaves, out_leaves, tree_util.tree_leaves(expected)):
        t, o = _as_np(t), _as_np(o)
        assert t.shape == o.shape and t.dtype == o.dtype, \
            f"{what}: tangent {t.shape} {t.dtype} for an output {o.shape} {o.dtype}"
        if not is_inexact(o.dtype):
            assert not np.any(t), f"{what}: nonzero tangent of an integer output"
            continue
        e = _as_np(e)
        np.testing.assert_allclose(t, e, rtol=tol, atol=tol, err_msg=what)
        # Elementwise, ``atol`` lets small entries be off by more than ``tol``
        # relatively; as a whole the tangent must be within ``tol`` of its norm.
        err, scale = np.linalg.norm((t - e).ravel()), np.linalg.norm(e.ravel())
        assert err <= tol * scale + 0.1 * tol * np.sqrt(e.size), \
            f"{what}: relative error {err / max(scale, 1e-300):.3g} > {tol}"


def _step_and_tol(f, primals, eps, tol):
    """Finite-difference step and tolerance of the least precise floating input or
    output (integer and bool leaves do not count)."""
    leaves = tree_util.tree_leaves(primals) + tree_util.tree_leaves(f(*primals))
    dts = {_as_np(x).dtype for x in leaves if _is_floating(x)}
    if not dts:
        raise TypeError("check_grads needs at least one floating input or output")
    unknown = dts - _DEFAULT_TOL.keys()
    if unknown and (eps is None or tol is None):
        raise TypeError(f"no default finite-difference step/tolerance for {sorted(map(str, unknown))}")
    eps = eps or max(_DEFAULT_EPS[d] for d in dts)
    tol = tol or max(_DEFAULT_TOL[d] for d in dts)
    return eps, tol


def _real_pairing(xs, ys):
    """``Re sum(x * y)`` over matching leaves: the real bilinear pairing under which a
    cotangent map is the transpose of a tangent map (no conjugation)."""
    total = 0.0
    for x, y in zip(tree_util.tree_leaves(xs), tree_util.tree_leaves(ys)):
        x, y = _as_np(x), _as_np(y)
        if is_inexact(x.dtype) and is_inexact(y.dtype):
            total += float(np.real(np.sum(x.astype(np.complex128) * y.astype(np.complex128))))
    return total


def check_jvp(f, primals, order=1, eps=None, tol=None, seed=0):
    """``jvp`` of ``f`` agrees with central differences, up to ``order`` (by nesting)."""
    rng = np.random.default_rng(seed)
    eps, tol = _step_and_tol(f, primals, eps, tol)
    tangents = tree_util.tree_map(lambda x: _random_like(rng, x), primals)
    out, t_out = api.jvp(f, tuple(primals), tuple(tangents))
    expected = numerical_jvp(f, primals, tangents, eps)
    _check_tangents(t_out, out, expected, tol, f"jvp vs finite differences (order {order})")
    if order > 1:
        check_jvp(lambda *p: api.jvp(f, p, tuple(tangents))[1], primals, order - 1,
                  eps, tol * _ORDER_FACTOR, seed + 1)


def check_vjp(f, primals, order=1, eps=None, tol=None, seed=0):
    """``vjp`` of ``f`` agrees with finite differences: ``Re <J^T ct, t> = Re <ct, J t>``
    for random ``ct`` and ``t`` (complex ones along both parts)."""
    rng = np.random.default_rng(seed)
    eps, tol = _step_and_tol(f, primals, eps, tol)
    out, f_vjp = api.vjp(f, *primals)
    cts = tree_util.tree_map(lambda x: _random_like(rng, x), out)
    tangents = tree_util.tree_map(lambda x: _random_like(rng, x), primals)
    cts_in = f_vjp(cts)
    p_leaves, c_leaves = tree_util.tree_leaves(primals), tree_util.tree_leaves(cts_in)
    assert len(c_leaves) == len(p_leaves), "vjp: one cotangent per input"
    for c, p in zip(c_leaves, p_leaves):
        c, p = _as_np(c), _as_np(p)
        assert c.shape == p.shape, f"vjp: cotangent shape {c.shape} for an input {p.shape}"
        if is_inexact(p.dtype):
            assert c.dtype == p.dtype, f"vjp: cotangent dtype {c.dtype} for an input {p.dtype}"
    lhs = _real_pairing(cts_in, tangents)
    rhs = _real_pairing(cts, numerical_jvp(f, primals, tangents, eps))
    np.testing.assert_allclose(lhs, rhs, rtol=tol, atol=tol,
                               err_msg=f"vjp vs finite differences (order {order})")
    # Along t = conj(J^T ct) the pairing is a sum of squares, with no cancellation
    # between terms: a cotangent off by a factor shows in full, relative to the sum.
    # The direction is scaled to unit root-mean-square so the step keeps its size.
    floating = [_as_np(c) for c, p in zip(c_leaves, p_leaves) if is_inexact(_as_np(p).dtype)]
    rms = np.sqrt(sum(np.sum(np.abs(c) ** 2) for c in floating)
                  / max(sum(c.size for c in floating), 1)) or 1.0
    along = [(np.conj(_as_np(c)) / rms).astype(_as_np(p).dtype) if is_inexact(_as_np(p).dtype)
             else np.zeros_like(_as_np(p)) for c, p in zip(c_leaves, p_leaves)]
    along = tree_util.tree_unflatten(tree_util.tree_structure(primals), along)
    squares = _real_pairing(cts_in, along)
    rhs = _real_pairing(cts, numerical_jvp(f, primals, along, eps))
    # (atol as in the pairing above: a J^T ct that is zero but for rounding has no
    # direction to check)
    assert abs(squares - rhs) <= tol * squares + tol, \
        f"vjp vs finite differences along J^T ct (order {order}): {squares} != {rhs}"
    # The same pairing against the JVP holds to rounding, which catches a transpose
    # off by far less than ``tol`` (the JVP itself is checked by ``check_jvp``).
    t_out = api.jvp(f, tuple(primals), tuple(tangents))[1]
    exact = _real_pairing(cts, t_out)
    scale = _real_pairing(*[tree_util.tree_map(lambda x: np.abs(_as_np(x)), z)
                            for z in (cts, t_out)])
    # (plus rounding of the products themselves, for a derivative that is zero)
    rounding = tol * 1e-6 * sum(np.sum(np.abs(_as_np(x))) for x in tree_util.tree_leaves(cts)) \
        * sum(np.sum(np.abs(_as_np(x))) for x in tree_util.tree_leaves(tangents))
    assert abs(lhs - exact) <= 1e-2 * tol * scale + rounding + 1e-300, \
        f"vjp vs jvp (order {order}): <J^T ct, t> = {lhs} but <ct, J t> = {exact}"
    if order > 1:
        def first_vjp(*p):
            return api.vjp(f, *p)[1](cts)
        check_vjp(first_vjp, primals, order - 1, eps, tol * _ORDER_FACTOR, seed + 1)


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
    args = [_make(get_aval(np.asarray(a)), np.asarray(a)) if not isinstance(a, Array)
            else a for a in args]
    eager = fn(*args)
    via_xla = with_eager_backend("xla", fn, *args)
    jitted = api.jit(fn)(*args)
    for name, other in (("eager XLA", via_xla), ("jit", jitted)):
        e_leaves, o_leaves = tree_util.tree_leaves(eager), tree_util.tree_leaves(other)
        assert len(e_leaves) == len(o_leaves), name
        for e, o in zip(e_leaves, o_leaves):
            e, o = np.asarray(e), np.asarray(o)
            assert e.shape == o.shape, (name, e.shape, o.shape)
            if check_dtype:
                assert e.dtype == o.dtype, (name, e, o)
            np.testing.assert_allclose(o, e, rtol=rtol, atol=atol,
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
                    assert_same(np.take(np.asarray(b), i, axis=0), s, rtol=rtol, atol=atol,
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
            assert len(batched) == len(single)
            for b, o in zip(batched, single):
                assert_same(np.asarray(b)[k], o, rtol=rtol, atol=atol,
                            err_msg=f"vmap with in_axes={axes} vs a loop")
