"""The two eager paths agree (DESIGN 3): every function in the runtime's NumPy dispatch
table gives the same values, dtypes and shapes through NumPy (eager) and through its
lax definition (under jit when its arguments can be traced, else eagerly through the
primitives' kernels), on the same inputs."""

import warnings

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import errors
from minijax.numpy import _eager_table

_RNG = onp.random.default_rng(0)
_M = _RNG.uniform(0.5, 2.0, (3, 3))
_V = onp.sort(_RNG.uniform(0.5, 2.0, 3))
_I = onp.array([2, 0, 1])
# candidate argument lists, tried in order: the first NumPy accepts is used
_CANDIDATES = [(_M,), (_V,), (_M, _M), (_V, _V), (_M, _V), (_V, _I), (_M, 1), (_I,), (_M > 1,),
               ((3, 3),), (3,), (_M, (3, 3)), (_M, 0, 1), (_M, (1, 0)), (_M, _I, 1),
               ([_M > 1, _M < 1], [_M, -_M]), ("ij,jk->ik", _M, _M), (_M, 2), ([_M, _M],),
               (_I, (3, 3)), (_M, [1, 2], [3.0, 4.0]), (0.0, 1.0, 5), (1.0, 2.0, 5),
               (3, 3), ([_M, _M, _M],), (_V, _V, _V)]
# functions whose first accepted candidate is not a meaningful call
_ARGS = {
    "astype": (_M, "float32"), "dsplit": (onp.ones((2, 2, 4)), 2),
    "einsum": ("ij,jk->ik", _M, _M), "ravel_multi_index": ((_I, _I), (3, 3)),
    "roll": (_M, 1), "take_along_axis": (_M, onp.argsort(_M, axis=1), 1),
    "cholesky": (_M @ _M.T + 3 * onp.eye(3),), "multi_dot": ([_M, _M, _M],),
    "choose": (_I, [_V, 2 * _V, 3 * _V]), "permute_dims": (_M, (1, 0)),
    "linspace": (1.0, 2.0, 5), "geomspace": (1.0, 2.0, 5), "logspace": (1.0, 2.0, 5),
}
_ARGS.update({
    "apply_along_axis": (np.sum, 1, _M), "piecewise": (_V, [_V > 1], [lambda x: 2 * x, 0.5]),
    "polydiv": (_V, _V[:2]), "insert": (_V, 1, 5.0), "delete": (_V, 1),
    "mask_indices": (3, np.triu), "kaiser": (5, 2.0), "resize": (_M, (2, 5)),
    "histogram2d": (_V, _V), "histogramdd": (_M,), "digitize": (_V, _V),
    "block": ([[_M, _M], [_M, _M]],), "polyfit": (_V, _V, 1), "unpackbits": (onp.uint8([3, 7]),),
})
_TRACE_ERRORS = (errors.MinijaxTypeError, errors.ConcretizationTypeError, TypeError,
                 ValueError, NotImplementedError, IndexError)

_NAMES = ([("numpy", n) for n in _eager_table.NUMPY_FUNCTIONS]
          + [("linalg", n) for n in _eager_table.LINALG_FUNCTIONS])


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for e in x for leaf in _leaves(e)]
    return [onp.asarray(x)]


def _lax_result(lax_fn, args):
    arrays = [i for i, a in enumerate(args) if isinstance(a, onp.ndarray)]

    def traced(*xs):
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        return lax_fn(*full)
    try:
        return minijax.jit(traced)(*[args[i] for i in arrays])
    except _TRACE_ERRORS:   # static arguments or value-dependent shapes: eagerly
        return lax_fn(*[np.asarray(a) if isinstance(a, onp.ndarray) else a for a in args])


@pytest.mark.parametrize("where,name", _NAMES)
def test_numpy_path_matches_lax_path(where, name):
    fn = getattr(np if where == "numpy" else np.linalg, name)
    lax_fn = fn.__wrapped_lax__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in [_ARGS[name]] if name in _ARGS else _CANDIDATES:
            try:
                want = fn(*args)
            except Exception:
                continue
            break
        else:
            pytest.fail(f"no candidate arguments for {name}")
        got = _lax_result(lax_fn, args)
    want, got = _leaves(want), _leaves(got)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert w.shape == g.shape and w.dtype == g.dtype, (w, g)
        if name not in ("empty", "empty_like"):   # eagerly uninitialised, as NumPy's
            onp.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


# Python-scalar operands: the eager result has the dtype and weak type that jit gives.
_SCALAR_CALLS = {
    "where": lambda c: np.where(c, 1.0, 2.0), "where_mixed": lambda c: np.where(c, 1, 2.5),
    "where_strong": lambda c: np.where(c, np.arange(2.0), 2.0),
    "add": lambda c: np.add(1.0, 2.0), "add_int": lambda c: np.add(1, 2),
    "add_bool_array": lambda c: np.add(c, 1.0), "sin": lambda c: np.sin(1.0),
    "sqrt_int": lambda c: np.sqrt(2), "clip": lambda c: np.clip(1.5, 0.0, 1.0),
    "greater": lambda c: np.greater(1.0, 2.0), "divmod": lambda c: np.divmod(7.0, 2.0),
    "maximum_weak_array": lambda c: np.maximum(np.sin(1.0), 0.5),
    "ones": lambda c: np.ones(3), "arange": lambda c: np.arange(3),
    # three positional arguments (the wrapper's fast path): a weak Array and a scalar
    "where_weak_array": lambda c: np.where(c, np.where(c, 1.0, 0.0), 2.0),
    "where_weak_last": lambda c: np.where(c, 1.0, np.where(c, 1.0, 0.0)),
    "where_strong_last": lambda c: np.where(c, 1.0, np.arange(2.0)),
    "clip_weak_array": lambda c: np.clip(np.sin(1.0), 0.0, 0.5),
    "maximum_strong_scalar": lambda c: np.maximum(np.arange(2.0), 0.5),
    # a weak scalar result of each kind, and a bool one (never weak)
    "tanh_int": lambda c: np.tanh(3), "log_complex": lambda c: np.log(2 + 1j),
    "abs_int": lambda c: np.abs(-3), "logical_not": lambda c: np.logical_not(1.0),
    "tanh_twice": lambda c: np.tanh(np.tanh(0.5)), "add_weak": lambda c: np.add(np.sin(1.0), 2),
}


@pytest.mark.parametrize("name", sorted(_SCALAR_CALLS))
def test_python_scalar_operands_weak_type_eager_matches_jit(name):
    fn = _SCALAR_CALLS[name]
    cond = np.asarray(onp.array([True, False]))
    eager, traced = _leaves_arrays(fn(cond)), _leaves_arrays(minijax.jit(fn)(cond))
    assert [(a.dtype, a.weak_type) for a in eager] == [(a.dtype, a.weak_type) for a in traced]
    for a, b in zip(eager, traced):
        onp.testing.assert_allclose(onp.asarray(a), onp.asarray(b))


def _leaves_arrays(x):
    return list(x) if isinstance(x, tuple) else [x]


# Python-scalar argument lists, tried in order: the first NumPy accepts is used
_WEAK_CANDIDATES = [(2.5,), (2.5, 1.5), (3,), (2.5, 1.5, 0.5), ([2.5, 1.0],),
                    ([2.5, 1.0], [1.5, 0.5]), ([[2.5, 1.0], [0.5, 2.0]],), (2.5, 1), (2.5, 0),
                    ([2.5, 1.0], 1), ([2.5, 1.0], 0)]


def _weak_type_names():
    names = set(_eager_table.NUMPY_FUNCTIONS) | {
        n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)}
    return sorted(n for n in names if callable(getattr(np, n, None)))


def _type_of(x):
    x = x[0] if isinstance(x, (tuple, list)) and x else x
    return (str(x.dtype), bool(x.weak_type)) if hasattr(x, "weak_type") else None


@pytest.mark.parametrize("name", _weak_type_names())
def test_weak_type_of_python_scalar_calls_eager_matches_traced(name):
    # the rule (JAX's) is one table, _eager_table.WEAK_OPERANDS: eager results are
    # NumPy's marked weak by it, traced ones the lax path's marked by it; they agree
    fn = getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in _WEAK_CANDIDATES:
            try:
                eager = fn(*args)
            except Exception:
                continue
            if _type_of(eager) is None:
                return   # (no array result)
            try:
                traced = minijax.eval_shape(lambda: fn(*args))
            except Exception:
                return   # (NumPy takes what the lax path refuses: its own tests)
            assert _type_of(eager) == _type_of(traced), args
            return


def test_weak_operands_table_names_dispatched_functions():
    for name in _eager_table.WEAK_OPERANDS:
        assert name in _eager_table.NUMPY_FUNCTIONS or isinstance(getattr(np, name), np.ufunc)


# calls on Python scalars whose weak type is JAX's, eagerly and traced (the cases where
# minijax differs are the README's: bool results, asarray/array and the *_like
# functions, set functions, divmod and modf, are strong)
_JAX_WEAK_CALLS = {
    "sum": lambda m: m.sum(2.5), "max": lambda m: m.max(2.5), "prod": lambda m: m.prod(3),
    "ptp": lambda m: m.ptp(2.5), "mean": lambda m: m.mean(2.5),
    "round": lambda m: m.round(2.5), "reshape": lambda m: m.reshape(2.5, (1,)),
    "ravel": lambda m: m.ravel(2.5), "atleast_2d": lambda m: m.atleast_2d(2.5),
    "dot": lambda m: m.dot(2.5, 2.0), "outer": lambda m: m.outer(2.5, 2.0),
    "stack": lambda m: m.stack([2.5, 1.0]), "concatenate": lambda m: m.concatenate([m.atleast_1d(2.5), m.atleast_1d(1)]),
    "concatenate_dtype": lambda m: m.concatenate([m.atleast_1d(2.5)], dtype="float32"),
    "tile": lambda m: m.tile(2.5, 2), "broadcast_to": lambda m: m.broadcast_to(2.5, (2,)),
    "einsum": lambda m: m.einsum("->", 2.5), "select": lambda m: m.select([True], [2.5]),
    "where": lambda m: m.where(True, 2.5, 1), "clip": lambda m: m.clip(2.5, 0, 1),
    "clip_none": lambda m: m.clip(2.5, None, 1.0),
    "deg2rad": lambda m: m.deg2rad(2.5), "heaviside": lambda m: m.heaviside(2.5, 0.5),
    "logaddexp": lambda m: m.logaddexp(2.5, 1.0), "hypot": lambda m: m.hypot(2.5, 1.0),
    "floor_divide": lambda m: m.floor_divide(3.5, 2), "float_power": lambda m: m.float_power(2.5, 2),
    "remainder": lambda m: m.remainder(2.5, 1.5), "reciprocal": lambda m: m.reciprocal(2.5),
    "log2": lambda m: m.log2(2.5), "log10": lambda m: m.log10(2.5),
    "ldexp": lambda m: m.ldexp(2.5, 2), "spacing": lambda m: m.spacing(2.5),
    "sinc": lambda m: m.sinc(2.5), "imag": lambda m: m.imag(2.5),
    "sqrt_int": lambda m: m.sqrt(2), "tanh_of_weak": lambda m: m.tanh(m.sin(0.5)),
    "reshape_of_weak": lambda m: m.reshape(m.sin(0.5), (1, 1)),
    "sum_of_weak": lambda m: m.sum(m.sin(0.5)),
}


@pytest.mark.parametrize("name", sorted(_JAX_WEAK_CALLS))
def test_weak_type_of_python_scalar_calls_is_jaxs(name):
    import jax.numpy as jnp   # (the test-only oracle)
    fn = _JAX_WEAK_CALLS[name]
    want = bool(fn(jnp).weak_type)   # (JAX computes in 32 bits: its weak type only)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        eager = fn(np)
        traced = minijax.jit(lambda: fn(np))()
    assert _type_of(eager) == _type_of(traced) == (str(eager.dtype), want)
    x32 = onp.ones(2, onp.float32)   # (what the weak type is for: the next promotion)
    assert (eager * x32).dtype == (traced * x32).dtype
