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
