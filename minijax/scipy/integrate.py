"""``minijax.scipy.integrate``: ``trapezoid`` (``numpy.trapezoid``) and ``odeint`` (JAX's
``jax.experimental.ode.odeint``).

The solver is the adaptive Dormand-Prince 5(4) pair (first same as last) with Hairer's
initial step and the usual error control (RMS of the error scaled by ``atol + rtol *
max(|y0|, |y1|)``). Steps are shortened to land on each requested time, so the values
there are the integrator's own, not an interpolation. Reverse-mode derivatives with
respect to ``y0``, ``t`` and ``args`` come from the adjoint system, integrated backwards
with the same solver (``custom_vjp``).
"""

import math
from functools import partial

import numpy as np

from .. import lax
from .. import numpy as jnp
from .. import tree_util
from ..api import vjp
from ..core import Tracer
from ..custom_derivatives import closure_convert, custom_vjp
from ..runtime.array import Array

__all__ = ["odeint", "trapezoid"]

trapezoid = jnp.trapezoid

# Dormand-Prince 5(4): nodes, stage coefficients, 5th-order weights, and the weights of
# the error estimate (5th- minus 4th-order solution)
_C = (0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_A = ((),
      (1 / 5,),
      (3 / 40, 9 / 40),
      (44 / 45, -56 / 15, 32 / 9),
      (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
      (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
      (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
_B = (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0)
_B4 = (5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40)
_E = tuple(b - b4 for b, b4 in zip(_B, _B4))


def _ravel(tree):
    """Flatten a pytree of arrays to one vector; returns it and the inverse map, which
    also takes a stack of such vectors (leading axes kept)."""
    leaves, treedef = tree_util.tree_flatten(tree)
    shapes = [jnp.shape(x) for x in leaves]
    sizes = [int(np.prod(s)) for s in shapes]
    flat = jnp.concatenate([jnp.ravel(x) for x in leaves]) if leaves else jnp.zeros(0)

    def unravel(vec):
        parts, start = [], 0
        for shape, size in zip(shapes, sizes):
            parts.append(vec[..., start:start + size].reshape(vec.shape[:-1] + tuple(shape)))
            start += size
        return tree_util.tree_unflatten(treedef, parts)

    return flat, unravel


def _rms(x):
    return jnp.sqrt(jnp.mean(x * x)) if x.size else jnp.zeros((), x.dtype)


def _dopri_step(func, y, f0, t, h):
    """One Dormand-Prince step: the new state, its derivative and the error estimate."""
    ks = [f0]
    for i in range(1, 7):
        yi = y + h * sum(a * k for a, k in zip(_A[i], ks) if a != 0.0)
        ks.append(func(yi, t + _C[i] * h))
    y1 = y + h * sum(b * k for b, k in zip(_B, ks) if b != 0.0)
    err = h * sum(e * k for e, k in zip(_E, ks) if e != 0.0)
    return y1, ks[6], err


def _initial_step(func, y0, f0, t0, rtol, atol):
    """Hairer, Norsett and Wanner's starting step (order 5)."""
    scale = atol + jnp.abs(y0) * rtol
    d0, d1 = _rms(y0 / scale), _rms(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / jnp.where(d1 == 0, 1.0, d1))
    f1 = func(y0 + h0 * f0, t0 + h0)
    d2 = _rms((f1 - f0) / scale) / h0
    big = jnp.maximum(d1, d2)
    h1 = jnp.where(big <= 1e-15, jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.where(big <= 1e-15, 1.0, big)) ** (1.0 / 5.0))
    return jnp.minimum(100.0 * h0, h1)


def _integrate(func, rtol, atol, mxstep, hmax, y0, ts):
    """``y`` at every ``ts`` (flat ``y0``; ``func(y, t)`` flat), by stepping onto each."""
    dtype = y0.dtype
    f0 = func(y0, ts[0])
    dt0 = _initial_step(func, y0, f0, ts[0], rtol, atol)

    def to_target(carry, target):
        def keep_going(state):
            y, f, t, dt, count = state
            return (t < target) & (count < mxstep)

        def step(state):
            y, f, t, dt, count = state
            remaining = target - t
            h = jnp.minimum(jnp.minimum(dt, hmax), remaining)
            lands = h >= remaining
            y1, f1, err = _dopri_step(func, y, f, t, h)
            scale = atol + rtol * jnp.maximum(jnp.abs(y), jnp.abs(y1))
            ratio = _rms(err / scale)
            accept = ratio <= 1.0
            factor = jnp.clip(0.9 * jnp.where(ratio == 0, 1e-10, ratio) ** -0.2, 0.2, 10.0)
            # a step shortened to land on the target says nothing about the next one
            new_dt = jnp.where(accept & lands, jnp.maximum(dt, h * factor), h * factor)
            t1 = jnp.where(lands, target, t + h)
            return (jnp.where(accept, y1, y), jnp.where(accept, f1, f),
                    jnp.where(accept, t1, t), new_dt, count + 1)

        y, f, t, dt = carry
        y, f, t, dt, _ = lax.while_loop(keep_going, step,
                                        (y, f, t, dt, jnp.zeros((), dtype)))
        # mxstep ran out before the target: no value there
        out = jnp.where(t < target, jnp.full_like(y, jnp.nan), y)
        return (y, f, t, dt), out

    _, ys = lax.scan(to_target, (y0, f0, ts[0], dt0), ts[1:])
    return jnp.concatenate([y0[None], ys], axis=0)


@partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    return _integrate(lambda y, t: func(y, t, *args), rtol, atol, mxstep, hmax, y0, ts)


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _odeint_bwd(func, rtol, atol, mxstep, hmax, residuals, g):
    ys, ts, args = residuals
    ys, ts, g = jnp.asarray(ys), jnp.asarray(ts), jnp.asarray(g)
    flat_args, unravel_args = _ravel(args)
    n = ys.shape[-1]

    def augmented(state, minus_t, *params):
        # the adjoint system in reversed time s = -t: y' = -f, a' = a df/dy,
        # (args)' = a df/dargs
        y, adj = state[:n], state[n:2 * n]
        fy, pullback = vjp(lambda yy, aa: func(yy, -minus_t, *unravel_args(aa)), y,
                           flat_args)
        adj_y, adj_args = pullback(adj)
        return jnp.concatenate([-fy, adj_y, adj_args])

    def interval(carry, i):
        adj, args_bar = carry
        t_hi, t_lo = ts[i], ts[i - 1]
        t_bar = jnp.dot(func(ys[i], t_hi, *args), g[i])
        adj = adj + g[i]
        state0 = jnp.concatenate([ys[i], adj, jnp.zeros_like(flat_args)])
        states = _odeint(augmented, rtol, atol, mxstep, hmax, state0,
                         jnp.stack([-t_hi, -t_lo]))
        state = states[1]
        return (state[n:2 * n], args_bar + state[2 * n:]), t_bar

    idx = jnp.arange(ts.shape[0] - 1, 0, -1)
    (adj, args_bar), t_bars = lax.scan(interval, (jnp.zeros_like(ys[0]),
                                                  jnp.zeros_like(flat_args)), idx)
    t0_bar = -jnp.dot(func(ys[0], ts[0], *args), adj)
    ts_bar = jnp.concatenate([t0_bar[None], t_bars[::-1]])
    return (adj + g[0], ts_bar, *unravel_args(args_bar))


_odeint.defvjp(_odeint_fwd, _odeint_bwd)


def _check_number(name, value):
    if isinstance(value, (Tracer, Array)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"odeint: {name} must be a Python or NumPy number (it is static), "
                        f"got {type(value).__name__}")
    value = float(value)
    if not value > 0:
        raise ValueError(f"odeint: {name} must be positive, got {value}")
    return value


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=math.inf, hmax=math.inf):
    """Solve ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0`` and return ``y`` at every
    time of the increasing array ``t`` (JAX's ``odeint``; note SciPy's ``odeint`` takes the
    same ``func(y, t, ...)`` order). ``y0`` may be a pytree of arrays; ``args`` must be
    arrays (or pytrees of arrays) -- close over anything else. Adaptive Dormand-Prince
    with relative and absolute tolerances ``rtol``, ``atol``, at most ``mxstep`` steps
    between consecutive times (NaN from where it runs out) and steps no longer than
    ``hmax``. Differentiable in reverse mode with respect to ``y0``, ``t`` and ``args``
    (adjoint method); works under ``jit`` and ``vmap``."""
    rtol, atol = _check_number("rtol", rtol), _check_number("atol", atol)
    mxstep, hmax = _check_number("mxstep", mxstep), _check_number("hmax", hmax)
    for i, arg in enumerate(args):
        for leaf in tree_util.tree_leaves(arg):
            if not (isinstance(leaf, (Tracer, Array, np.ndarray, np.generic))
                    or type(leaf) in (int, float, complex, bool)):
                raise TypeError(f"odeint: args[{i}] holds a {type(leaf).__name__}; the "
                                "extra arguments must be arrays (close over other values "
                                "in func instead)")
    t = jnp.asarray(t)
    if t.ndim != 1:
        raise ValueError(f"odeint: t must be a 1-d array of times, got shape {t.shape}")
    flat_y0, unravel = _ravel(y0)
    dtype = jnp.result_type(flat_y0.dtype, t.dtype, jnp.float32)
    flat_y0 = flat_y0.astype(dtype)
    t = t.astype(dtype)
    args = tree_util.tree_map(jnp.asarray, args)

    def flat_func(y, time, *a):
        return _ravel(func(unravel(y), time, *a))[0].astype(dtype)

    converted, consts = closure_convert(flat_func, flat_y0, t[0], *args)
    ys = _odeint(converted, rtol, atol, mxstep, hmax, flat_y0, t, *args, *consts)
    return unravel(ys)
