"""Every method and property of ``Array`` exists on tracers with the same meaning (or
raises a named error where the value itself is needed): library code written against
the Array API (``x.device``, ``x.copy()``, ``x.mT``, ``x.__array_namespace__()``) runs
eagerly and under ``jit``, ``grad`` and ``vmap`` alike."""

import copy

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import errors
from minijax.core import Tracer
from minijax.runtime.array import Array
from minijax.test_util import check_grads


def _public(cls):
    return {n for n in dir(cls) if not n.startswith("_") or
            (n.startswith("__") and n not in dir(object) and n not in ("__weakref__",
                                                                        "__slots__"))}


def test_every_array_attribute_exists_on_tracers():
    missing = _public(Array) - _public(Tracer)
    assert not missing, f"tracers lack Array attributes: {sorted(missing)}"


# Each row: a method or property used as NumPy code uses it; the same call on an Array,
# inside jit, and under vmap must agree.
METHOD_CALLS = {
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "all": lambda x: (x > 0).all(axis=0),
    "any": lambda x: (x > 0.5).any(),
    "argmax": lambda x: x.argmax(axis=1),
    "argmin": lambda x: x.argmin(),
    "argsort": lambda x: x.argsort(axis=0, stable=True),
    "argpartition": lambda x: mnp.sort(x.argpartition(1, axis=1)[:, :2], axis=1),
    "choose": lambda x: mnp.asarray(np.array([0, 2, 1, 0])).choose(x[:, :4]),
    "compress": lambda x: x.compress(np.array([True, False, True, True]), axis=1),
    "astype": lambda x: x.astype(np.float32),
    "at": lambda x: x.at[0, 1].add(5.0),
    "clip": lambda x: x.clip(0.2, 0.7),
    "conj": lambda x: x.conj(),
    "conjugate": lambda x: x.conjugate(),
    "copy": lambda x: x.copy() * 2 + x.copy(order="F"),
    "cumprod": lambda x: x.cumprod(axis=1),
    "cumsum": lambda x: x.cumsum(),
    "diagonal": lambda x: x.diagonal(),
    "dot": lambda x: x.dot(x.T),
    "fill": lambda x: _filled(x),
    "flatten": lambda x: x.flatten(),
    "imag": lambda x: x.imag,
    "real": lambda x: x.real,
    "max": lambda x: x.max(axis=0),
    "mean": lambda x: x.mean(axis=1, keepdims=True),
    "min": lambda x: x.min(),
    "partition": lambda x: _partitioned(x),
    "prod": lambda x: x.prod(axis=0),
    "ptp": lambda x: x.ptp(axis=1),
    "put": lambda x: _put(x),
    "ravel": lambda x: x.ravel(),
    "repeat": lambda x: x.repeat(2, axis=0),
    "reshape": lambda x: x.reshape(4, 3),
    "round": lambda x: x.round(2),
    "searchsorted": lambda x: mnp.sort(x[0]).searchsorted(x[1]),
    "sort": lambda x: _sorted(x),
    "squeeze": lambda x: x[None].squeeze(0),
    "std": lambda x: x.std(axis=0, ddof=1),
    "sum": lambda x: x.sum(axis=1),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "trace": lambda x: x.trace(),
    "transpose": lambda x: x.transpose(1, 0),
    "var": lambda x: x.var(),
    "base": lambda x: x[1:].base is not None and x[1:] * 1,
    "__copy__": lambda x: copy.copy(x) + 1,
    "__deepcopy__": lambda x: copy.deepcopy(x) + 1,
    "__array_namespace__": lambda x: x.__array_namespace__().sin(x),
    "block_until_ready": lambda x: x.block_until_ready() + 0,
    "to_device": lambda x: x.to_device(x.device) + 0,
    "nbytes": lambda x: x * x.nbytes + x.itemsize + x.size + x.ndim,
    "__round__": lambda x: round(x[0, 0]),
    "__divmod__": lambda x: divmod(x, 0.3),
    "__iter__": lambda x: [row for row in x][1],
    "__getitem__": lambda x: x[::2, [0, 2]],
    "__setitem__": lambda x: _set(x),
}


def _filled(x):
    y = x.copy()
    y.fill(3.0)
    return y + x


def _partitioned(x):
    y = x.copy()
    y.partition(1, axis=1)
    return y[:, 1]


def _put(x):
    y = x.copy()
    y.put([0, 4], [9.0, 8.0])
    return y


def _sorted(x):
    y = x.copy()
    y.sort(axis=0)
    return y


def _set(x):
    y = x * 1
    y[1:, 0] = -1.0
    y[0] += 2.0
    return y


X = np.random.default_rng(0).random((3, 4))


def _compare(actual, expected):
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _compare(a, e)
        return
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(METHOD_CALLS))
def test_method_agrees_eagerly_under_jit_and_vmap(name):
    fn = METHOD_CALLS[name]
    expected = fn(mnp.asarray(X))
    _compare(minijax.jit(fn)(X), expected)
    batch = np.stack([X, X[::-1] * 2])
    stacked = [fn(mnp.asarray(b)) for b in batch]
    out = minijax.vmap(fn)(batch)
    if isinstance(expected, tuple):
        _compare(out, tuple(np.stack([np.asarray(s[i]) for s in stacked])
                            for i in range(len(expected))))
    else:
        _compare(out, np.stack([np.asarray(s) for s in stacked]))


DIFFERENTIABLE = ["T", "mT", "astype", "at", "clip", "copy", "cumprod", "cumsum", "diagonal",
                  "dot", "flatten", "max", "mean", "prod", "ptp", "ravel", "repeat", "reshape",
                  "std", "sum", "swapaxes", "trace", "transpose", "var", "__copy__",
                  "__deepcopy__", "__array_namespace__", "to_device", "__getitem__",
                  "__setitem__", "put", "sort"]


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_method_gradients_match_finite_differences(name):
    fn = METHOD_CALLS[name]
    check_grads(lambda x: mnp.sum(mnp.sin(fn(mnp.asarray(x)))), (X,), modes=("rev",))


def test_device_queries_on_tracers():
    x = mnp.asarray(X)
    seen = {}

    def f(t):
        seen["device"], seen["devices"] = t.device, t.devices()
        seen["committed"] = t.committed()
        seen["ns"] = t.__array_namespace__()
        seen["sizes"] = (t.itemsize, t.nbytes, t.__dlpack_device__())
        return t

    for transform in (minijax.jit, minijax.vmap, minijax.grad):
        g = transform(lambda t: mnp.sum(f(t))) if transform is minijax.grad else transform(f)
        g(x)
        assert seen["device"] == x.device and seen["devices"] == {x.device}
        assert seen["committed"] is False
        assert seen["ns"] is mnp
        assert seen["sizes"][0] == 8 and seen["sizes"][2] == x.__dlpack_device__()


def test_copy_of_a_traced_view_is_independent():
    def f(x):
        row = x[0]
        c = row.copy()
        c[0] = 100.0     # writes into the copy only
        row[1] = -1.0    # writes through the view into x
        return x, c

    for fn in (f, minijax.jit(f)):
        x, c = fn(mnp.array(X))   # a copy: asarray would share X's memory
        np.testing.assert_array_equal(np.asarray(x)[0, :2], [X[0, 0], -1.0])
        np.testing.assert_array_equal(np.asarray(c)[:2], [100.0, X[0, 1]])


@pytest.mark.parametrize("call, error", [
    (lambda t: t.item(), errors.ConcretizationTypeError),
    (lambda t: t[0].item(0), errors.ConcretizationTypeError),
    (lambda t: t.tolist(), errors.ConcretizationTypeError),
    (lambda t: t.is_ready(), errors.ConcretizationTypeError),
    (lambda t: f"{t[0]:.3f}", errors.ConcretizationTypeError),
    (lambda t: t.__dlpack__(), errors.TracerArrayConversionError),
    (lambda t: np.from_dlpack(t), errors.TracerArrayConversionError),
])
def test_value_needing_methods_raise_named_errors_under_jit(call, error):
    with pytest.raises(error, match="traced (array|value)"):
        minijax.jit(call)(X)


def test_value_needing_methods_work_on_concrete_tracers():
    # under eager grad the primal is concrete: item/format/is_ready see its value
    out = {}

    def f(t):
        out["item"] = t[1].item()
        out["text"] = f"{t[1]:.2f}"
        out["ready"] = t.is_ready()
        return mnp.sum(t * t)

    minijax.grad(f)(mnp.asarray([1.0, 2.5]))
    assert out == {"item": 2.5, "text": "2.50", "ready": True}


def test_to_device_rejects_streams_on_tracers():
    with pytest.raises(ValueError, match="stream"):
        minijax.jit(lambda t: t.to_device(t.device, stream=1))(X)


def test_concrete_tracers_report_their_arrays_device_and_commitment():
    x = minijax.device_put(mnp.asarray(X), minijax.devices()[0])
    seen = []

    def f(t):
        seen.append((t.committed(), t.device))
        return mnp.sum(t * t)

    minijax.grad(f)(x)
    minijax.grad(f)(mnp.asarray(X))
    assert seen == [(True, x.device), (False, x.device)]


# ndarray's attributes minijax leaves out: the memory-level ones (minijax owns its
# buffers' layout, flags and byte order; numpy.asarray(x) gives them)
_NOT_PROVIDED = {"byteswap", "ctypes", "data", "flags", "getfield", "setfield", "setflags",
                 "strides"}


def test_ndarrays_methods_exist_on_arrays_and_agree_with_numpy():
    x = mnp.asarray(X)
    missing = {n for n in dir(np.ndarray) if not n.startswith("_") and not hasattr(x, n)}
    assert missing == _NOT_PROVIDED
    h = X.copy()
    for call in (lambda a: a.argpartition(1, axis=1)[:, :2].shape,
                 lambda a: a.compress([True, False, True], axis=0),
                 lambda a: (a > 0.5).astype(int).choose([a[0], -a[0]]),
                 lambda a: a.argsort(axis=1, stable=True),
                 lambda a: a.copy(order="F").ravel(order="K")):
        _compare(np.asarray(call(x)) if not isinstance(call(h), tuple) else call(x), call(h))
    assert x.copy(order="F").tobytes(order="A") == h.copy(order="F").tobytes(order="A")
    for order, error in (("Q", ValueError), (0, TypeError)):
        for a in (x, x.sum(), mnp.zeros(())):   # (an ndarray, a NumPy scalar, a 0-d array)
            with pytest.raises(error, match="order must be"):
                a.copy(order=order)


@pytest.mark.parametrize("value", [3.0, 7.0, "a", None, np.arange(4.0), 1.0 + 0j])
def test_in_looks_for_an_element_as_numpy_does(value):
    # (iterating would compare rows: a 2-d array's truth value is ambiguous)
    h = np.arange(12.0).reshape(3, 4)
    assert (value in mnp.asarray(h)) is (value in h)
    if isinstance(value, str):   # (no comparison: False, traced too)
        assert minijax.jit(lambda a: mnp.asarray(value in a))(h) == (value in h)
        return
    with pytest.raises(errors.TracerBoolConversionError):
        minijax.jit(lambda a: value in a)(h)
