"""Regressions found by the drop-in programs (tests/test_dropin_programs.py), each checked
against NumPy eagerly and under the transformations."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp

X = np.array([0.5, 2.0, -1.0])

# Nested lists (and tuples) as array arguments, the way NumPy code passes them.
LIST_ARGUMENTS = {
    "maximum": lambda np_, x: np_.maximum([1, 5, 3], x),
    "searchsorted": lambda np_, x: np_.searchsorted(np_.sort(x), [0.0, 1.0, 3.0]),
    "dot": lambda np_, x: np_.dot([1, 2, 3], x),
    "add": lambda np_, x: np_.add(x, [[1], [2]]),
    "clip": lambda np_, x: np_.clip(x, [0, 1, -2], 1.5),
    "where": lambda np_, x: np_.where(x > 0, x, [7.0, 8.0, 9.0]),
    "float32 with int list": lambda np_, x: np_.multiply(x.astype(np_.float32), [1, 2, 3]),
    "tuple": lambda np_, x: np_.subtract((1.0, 2.0, 3.0), x),
}


@pytest.mark.parametrize("name", sorted(LIST_ARGUMENTS))
def test_list_arguments_under_jit_and_vmap(name):
    fn = LIST_ARGUMENTS[name]
    expected = fn(np, X)
    for actual in (fn(mnp, mnp.asarray(X)), minijax.jit(lambda x: fn(mnp, x))(X),
                   minijax.vmap(lambda x: fn(mnp, x))(np.stack([X, X]))[1]):
        actual = np.asarray(actual)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        np.testing.assert_allclose(actual, expected)


def test_list_arguments_under_grad():
    g = minijax.grad(lambda x: mnp.sum(mnp.maximum([1.0, 5.0, -3.0], x) * [1, 2, 3]))(X)
    np.testing.assert_allclose(np.asarray(g), [0.0, 0.0, 3.0])
