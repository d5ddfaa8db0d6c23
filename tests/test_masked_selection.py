"""``x[mask]`` with a traced boolean mask (minijax/numpy/_masked_selection.py): read,
computed on elementwise and written back through the same mask, under ``jit`` and
``vmap``, against NumPy on the same program; every other use raises
``NonConcreteBooleanIndexError``."""

import operator

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax.errors import NonConcreteBooleanIndexError

RNG = np.random.default_rng(3)
X2 = RNG.normal(size=(4, 3))

INPLACE = {
    "iadd": operator.iadd, "isub": operator.isub, "imul": operator.imul,
    "itruediv": operator.itruediv, "ipow": operator.ipow, "ifloordiv": operator.ifloordiv,
    "imod": operator.imod,
}


def _both(program, *args):
    """``program(np, *args)`` and ``jit(program)(mnp, ...)``, each on copies (an update
    of an argument in place is written back to it, as NumPy's is)."""
    want = program(np, *[np.array(a, copy=True) for a in args])
    got = minijax.jit(lambda *xs: program(mnp, *xs))(*[np.array(a, copy=True) for a in args])
    return np.asarray(got), want


@pytest.mark.parametrize("name", sorted(INPLACE))
@pytest.mark.parametrize("mask_ndim", [1, 2])
def test_inplace_operator_through_a_traced_mask(name, mask_ndim):
    op = INPLACE[name]

    def program(xp, x):
        m = x > 0 if mask_ndim == 2 else x[:, 0] > 0
        x[m] = op(x[m], 1.5)
        return x

    got, want = _both(program, np.abs(X2) + 0.5 if name == "ipow" else X2)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_augmented_assignment_and_ufuncs_through_a_traced_mask():
    def program(xp, x, y):
        m = x > 0
        x[m] += 1.0                       # x.__getitem__, __iadd__, __setitem__
        x[m] = xp.minimum(x[m], y)        # a ufunc on the selection
        x[m] = 2.0 * x[m] - x[m] ** 2     # reflected and forward operators
        x[m] = -abs(x[m])
        return x

    got, want = _both(program, X2, 1.25)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_value_broadcasting_to_the_trailing_axes():
    def program(xp, x, v):
        m = x[:, 0] > 0
        x[m] = x[m] * v                   # v has the shape of one selected row
        return x

    got, want = _both(program, X2, np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("flag", [True, False])
def test_zero_d_mask_on_a_zero_d_array(flag):
    def program(xp, x, m):
        x[m] = 7.0
        x[m] = xp.maximum(x[m] - 1.0, 0.0)
        return x

    got, want = _both(program, np.float64(3.0), np.bool_(flag))
    assert got.shape == want.shape == ()
    assert got == want


def test_under_vmap():
    def row(r):
        r[r > 0] *= 10.0
        return r

    x = X2.copy()
    out = minijax.vmap(row)(x)
    want = np.where(X2 > 0, X2 * 10.0, X2)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-12)
    np.testing.assert_allclose(x, want, rtol=1e-12)   # rows updated in place, as NumPy's


def test_inplace_casting_follows_numpy():
    x = np.array([2, 4])
    with pytest.raises(TypeError, match="cast"):
        x[x > 2] /= 1.5                    # NumPy: same-kind casting of in-place results
    with pytest.raises(TypeError, match="cast"):
        minijax.jit(lambda a: operator.itruediv(a[a > 2], 1.5))(x)

    def program(xp, a):
        m = a > 2
        a[m] = xp.minimum(a[m], 1.1)   # not in place: cast on assignment
        return a

    got, want = _both(program, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("use", [
    lambda x, m: x[m],                         # returned from jit
    lambda x, m: x[m].sum(),
    lambda x, m: mnp.sum(x[m]),
    lambda x, m: x[m].shape,
    lambda x, m: len(x[m]),
    lambda x, m: x[m][0],
    lambda x, m: x[m] + mnp.ones(2),           # an operand of the selection's length
    lambda x, m: x.__setitem__(x > 1, x[m]),   # written back through another mask
    lambda x, m: x[m] + x[x > 1],
    lambda x, m: mnp.add(x[m], 1.0, where=m),
])
def test_every_other_use_is_a_named_error(use):
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(NonConcreteBooleanIndexError, match="boolean indices must be concrete"):
        minijax.jit(use)(x, x > 1.5)


def _recomputed_masks(xp, x, y):
    x = x.copy()
    x[x > 0] = xp.sqrt(x[x > 0])               # the same mask, computed twice
    x[(y < 0.5) & (x < 1)] *= 2
    x[(y < 0.5) & (x < 1)] = -x[(y < 0.5) & (x < 1)] + 1.0
    return x


def test_a_mask_computed_again_the_same_way_is_the_same_mask():
    x, y = RNG.normal(size=(5, 3)), RNG.uniform(size=(5, 3))
    want = _recomputed_masks(np, x, y)
    eager = _recomputed_masks(mnp, mnp.asarray(x), mnp.asarray(y))
    jitted = minijax.jit(lambda a, b: _recomputed_masks(mnp, a, b))(x, y)
    rows = minijax.vmap(lambda a, b: _recomputed_masks(mnp, a, b))(x, y)
    for got in (eager, jitted, rows):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)
    g = minijax.grad(lambda a: minijax.jit(
        lambda v: _recomputed_masks(mnp, v, mnp.asarray(y)).sum())(a))(np.abs(x) + 0.1)
    eps = 1e-6
    num = [(_recomputed_masks(np, np.abs(x) + 0.1 + eps * e, y).sum()
            - _recomputed_masks(np, np.abs(x) + 0.1 - eps * e, y).sum()) / (2 * eps)
           for e in np.eye(x.size).reshape(x.size, *x.shape)]
    np.testing.assert_allclose(np.asarray(g).ravel(), num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("program", [
    lambda x: x.__setitem__(x > 0, mnp.sqrt(x[x > 1])),                 # another threshold
    lambda x: x.__setitem__(x > 0, x[mnp.abs(x) > 0]),                 # another operand
    lambda x: (lambda m: (x.__iadd__(1.0), x.__setitem__(x > 0, x[m])))(x > 0),   # x changed
], ids=["threshold", "operand", "updated between"])
def test_masks_that_differ_still_raise(program):
    def run(x):
        x = x.copy()
        program(x)
        return x
    with pytest.raises(NonConcreteBooleanIndexError):
        minijax.jit(run)(X2)
