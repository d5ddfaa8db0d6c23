"""The eager core is compiled (DESIGN 10): the modules Python imports for it are the
extension modules built from their .py files, not the .py files themselves."""

import gc
import importlib
import inspect
import importlib.machinery
import operator
import os
import subprocess
import sys
import warnings
import weakref

import numpy as onp
import pytest

import minijax
import minijax.numpy as mnp
import minijax.runtime as runtime
from minijax.runtime.array import Array, get_method, set_method
from minijax.runtime.numpy_dispatch import Forwarder, NumpyFunction

EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)


@pytest.mark.parametrize("name", runtime.COMPILED)
def test_compiled_module_is_imported(name):
    module = importlib.import_module(name)
    assert module.__file__.endswith(EXTENSIONS), module.__file__
    # the source of the extension is the .py beside it (one implementation)
    source = module.__file__.split(".", 1)[0] + ".py"
    assert importlib.util.spec_from_file_location("x", source) is not None


def test_array_class_and_methods_come_from_the_compiled_modules():
    assert importlib.import_module(Array.__module__).__file__.endswith(EXTENSIONS)
    # Array is a C type (not a heap type made by a class statement), with no Python
    # subclass: its operators and hot properties are C slots and getters
    assert not Array.__flags__ & (1 << 9), "Array is a Python class"   # HEAPTYPE
    assert Array.__mro__ == (Array, object)
    for name in ("__getitem__", "__setitem__", "__add__", "__radd__", "__eq__", "__neg__",
                 "__iadd__"):
        assert name in Array.__dict__, name
        # their complete implementations, installed by the eager table, are compiled
        assert type(get_method(Array, name)).__name__ == "cython_function_or_method", name
    assert type(Array.__dict__["T"]).__name__ == "getset_descriptor"
    # the methods minijax.numpy installs are in the class's dict themselves, C objects
    # (NumpyFunction, a C Forwarder: a call with one argument goes straight to the eager
    # dispatch) that CPython calls as functions, with no bound method made
    # (Py_TPFLAGS_METHOD_DESCRIPTOR), and that bind as a class body's functions do
    assert Array.__dict__["dot"] is get_method(Array, "dot")
    a = mnp.ones((2, 2))
    assert a.dot.__func__ is get_method(Array, "dot") and a.dot.__self__ is a
    method_type = type(get_method(Array, "dot"))
    assert method_type is NumpyFunction and method_type.__flags__ & (1 << 17)
    assert importlib.import_module(Forwarder.__module__).__file__.endswith(EXTENSIONS)
    with pytest.raises(TypeError):
        Array.argmax = get_method(Array, "argmax")   # (immutable: set_method installs)
    with pytest.raises(AttributeError, match="no stub"):
        set_method(Array, "not_a_method", len)


def test_array_core_holds_no_dict_and_no_more_fields():
    a = mnp.asarray(onp.arange(3.0))
    assert not hasattr(a, "__dict__")
    with pytest.raises(AttributeError):
        a.some_attribute = 1
    # the object header, five object fields and a weak-reference list, and no GC header:
    # an Array cannot be part of a reference cycle, so the collector does not track it
    assert type(a).__basicsize__ == object.__basicsize__ + 6 * 8
    assert sys.getsizeof(a) == type(a).__basicsize__
    assert not gc.is_tracked(a)
    ref = weakref.ref(a)
    del a
    assert ref() is None


def test_view_links_are_shared_untracked_and_keep_nothing_alive():
    # asarray of a NumPy array holds a NumPy view of it, so the views of ``x`` need a
    # ViewLink (their NumPy .base is not x's ndarray)
    x = mnp.asarray(onp.arange(12.0).reshape(3, 4))
    views = [x.T, x[1], x.ravel(), x[1:, ::2], x.diagonal(), *x]   # (*x: its rows)
    links = {id(v._view) for v in views}
    assert len(links) == 1 and not gc.is_tracked(views[0]._view)
    assert views[0]._view.root is x and not views[0]._view.read_only
    onp.testing.assert_array_equal(views[1], onp.arange(4.0, 8.0))
    # a write copies x's buffer (it was observed): views made after it get a new link
    onp.asarray(x)
    x[0, 0] = -1.0
    after = x.T
    assert after._view is not views[0]._view and after[0, 0] == -1.0
    assert views[0][0, 0] == -1.0   # (derived again in the new buffer, as NumPy's view)
    # the remembered link is a borrowed reference: dropping the views frees the root
    root = weakref.ref(x)
    del x, views, after
    gc.collect()
    assert root() is None


def test_ufunc_calls_are_forwarded_without_a_python_call_layer():
    # the C base type's fast call (vectorcall) reaches the ufunc class, which must not
    # define __call__ itself; and a call forwards positional and keyword arguments
    from minijax.runtime.numpy_dispatch import Forwarder, enable_vectorcall
    have_vectorcall = 1 << 11   # (CPython's Py_TPFLAGS_HAVE_VECTORCALL)
    assert type(mnp.add).__flags__ & have_vectorcall and "__call__" not in vars(mnp.ufunc)
    x = onp.arange(3.0)
    onp.testing.assert_array_equal(mnp.add(x, 1.0, dtype=onp.float32),
                                   onp.add(x, 1.0, dtype=onp.float32))
    assert mnp.add(x, 1.0, dtype=onp.float32).dtype == onp.float32
    assert mnp.add(*(x, x), **{}).shape == (3,)

    class WithCall(Forwarder):
        def __call__(self):
            return 0

    with pytest.raises(TypeError, match="does not define __call__"):
        enable_vectorcall(WithCall)
    with pytest.raises(TypeError, match="not initialized"):
        Forwarder.__new__(type(mnp.add))()


def test_functions_are_forwarded_and_stand_for_what_they_wrap():
    # numpy_call's functions are C-called objects too, and act as the functions they wrap
    from minijax.numpy import _statistical
    from minijax.runtime.numpy_dispatch import NumpyFunction
    have_vectorcall = 1 << 11
    assert type(mnp.sum) is NumpyFunction and NumpyFunction.__flags__ & have_vectorcall
    assert type(mnp.add.reduce) is NumpyFunction
    assert mnp.sum.__name__ == "sum" and mnp.sum.__doc__ == _statistical.sum.__doc__
    assert inspect.signature(mnp.sum) == inspect.signature(_statistical.sum)
    assert repr(mnp.sum).startswith("<function sum at 0x")
    x = onp.arange(6.0).reshape(2, 3)
    for args, kwargs in [((x,), {}), ((x, 0), {}), ((x,), {"axis": 1}), ((x, None, onp.float32), {}),
                         ((x,), {"keepdims": True})]:
        got, want = mnp.sum(*args, **kwargs), onp.sum(*args, **kwargs)
        assert got.dtype == want.dtype and got.shape == want.shape
        onp.testing.assert_array_equal(got, want)

    class Holder:   # (bound as a method, as a function is)
        total = mnp.sum

        def __array__(self, dtype=None, copy=None):
            return onp.ones(4)

    assert float(Holder().total()) == 4.0 and Holder.total is mnp.sum


# reduction methods of an array ``x`` as called, and NumPy's spelling of the same call
# where it differs
REDUCTION_CALLS = [
    ("sum()", None), ("sum(0)", None), ("sum(axis=1, keepdims=True)", None),
    ("sum(0, onp.float32)", None), ("sum(0, None, None, True)", None),
    ("sum(where=x > 3)", None), ("sum(1, initial=5.0)", None), ("mean(axis=0)", None),
    ("mean(1, keepdims=True)", None), ("mean(where=x > 2)", None),
    ("max(0, None, True)", None), ("max(axis=(0, 1))", None),
    ("min(initial=-1.0)", None), ("argmax(axis=1)", None), ("argmin()", None),
    ("argmax(0, keepdims=True)", None), ("any(0)", None), ("all(axis=1, keepdims=True)", None),
    ("all(where=x > 0)", None), ("any(1, where=x < -3)", None),
    ("all(0, keepdims=True, where=x != 0)", None),
]


@pytest.mark.parametrize("call,numpy_call", REDUCTION_CALLS, ids=[c for c, _ in REDUCTION_CALLS])
def test_reduction_methods_match_numpy(call, numpy_call):
    h = onp.arange(12.0).reshape(3, 4) - 4.0
    got = eval("x." + call, {"x": mnp.asarray(h), "onp": onp})
    want = eval("x." + (numpy_call or call), {"x": h, "onp": onp})
    assert got.dtype == want.dtype and got.shape == want.shape
    onp.testing.assert_array_equal(got, want)


def test_missing_extension_fails_loudly(monkeypatch):
    # as if the extension were not built: the .py would be found, and the check refuses it
    real = importlib.util.find_spec

    class Spec:
        origin = "/somewhere/minijax/runtime/array.py"

    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: Spec() if name == "minijax.runtime.array"
                        else real(name, *a))
    with pytest.raises(ImportError, match="compiled eager core is not built"):
        runtime._check_compiled()


def test_compiled_functions_keep_python_function_behaviour():
    # attributes on functions, names and keyword calls, as the dispatch tables use them
    get = get_method(Array, "__getitem__")
    assert get.__wrapped_lax__ is not None
    a = mnp.asarray(onp.arange(6.0).reshape(2, 3))
    assert a.reshape((3, 2), order="F").shape == (3, 2)
    onp.testing.assert_array_equal(onp.asarray(a.T), onp.arange(6.0).reshape(2, 3).T)


def test_warning_from_compiled_code_points_at_the_user_line():
    x = mnp.broadcast_arrays(mnp.zeros(3), mnp.zeros((2, 3)))[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x[0, 0] = 1.0   # the write warns (as NumPy's broadcast_arrays outputs do)
    assert caught, "no warning"
    assert caught[0].filename == __file__, caught[0].filename


def test_stale_extension_fails_loudly(monkeypatch):
    # a .py edited after its extension was built would otherwise be ignored silently
    from minijax.runtime import _built_from
    monkeypatch.setitem(_built_from.SOURCES, "array", "0" * 64)
    with pytest.raises(ImportError, match="older than its source"):
        runtime._check_compiled()


def test_uncompiled_source_runs_only_when_asked():
    code = ("import minijax.numpy as np, minijax.runtime.array as a\n"
            "print(a.__file__.endswith('.py'), (np.arange(3.0) + 1).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, MINIJAX_UNCOMPILED="1"))
    assert out.stdout.strip() == "True [1.0, 2.0, 3.0]", out.stderr[-2000:]


def test_common_methods_run_in_the_core_and_keep_their_semantics():
    # the core's class body (a C fast path), the method wrappers of the eager table as
    # their complete implementation
    names = ("reshape", "ravel", "sum", "mean", "max", "min", "all", "any", "astype",
             "conj", "conjugate", "cumprod", "cumsum", "flatten", "prod", "squeeze", "std",
             "swapaxes", "transpose", "var", "argmax", "argmin")
    for name in names:
        assert name in Array.__dict__, name
        assert get_method(Array, name).__wrapped_lax__ is not None, name
    assert type(Array.__dict__["real"]).__name__ == "getset_descriptor"
    h = onp.arange(12.0).reshape(3, 4)
    a = mnp.asarray(h)
    calls = [lambda x: x.reshape(-1), lambda x: x.reshape(4, 3), lambda x: x.reshape((2, 6)),
             lambda x: x.ravel(), lambda x: x.sum(), lambda x: x.sum(0),
             lambda x: x.sum(1, onp.float32), lambda x: x.mean(), lambda x: x.mean(0),
             lambda x: x.max(), lambda x: x.min(1), lambda x: x.sum(axis=0, keepdims=True),
             lambda x: x.max(axis=0, keepdims=True), lambda x: x.reshape(-1, order="C"),
             lambda x: x.all(), lambda x: x.any(0), lambda x: x.astype(onp.float32),
             lambda x: x.astype("i4"), lambda x: x.conj(), lambda x: x.conjugate(),
             lambda x: x.cumprod(1), lambda x: x.cumsum(0, onp.float32),
             lambda x: x.flatten(), lambda x: x.flatten("C"), lambda x: x.prod(0),
             lambda x: x.reshape(1, 12).squeeze(0), lambda x: x.std(), lambda x: x.var(1),
             lambda x: x.swapaxes(0, 1), lambda x: x.transpose(), lambda x: x.transpose(1, 0),
             lambda x: x.transpose((1, 0)), lambda x: x.real, lambda x: (x * 1j).real,
             lambda x: x.std(ddof=1), lambda x: x.cumsum(axis=1), lambda x: x.argmax(),
             lambda x: x.argmin(1), lambda x: x.argmax(axis=0),
             # keywords meaning the same to NumPy's methods (the fast path), and one
             # that does not (where=: the complete implementation)
             lambda x: x.mean(axis=1, dtype=onp.float32), lambda x: x.prod(axis=0, keepdims=True),
             lambda x: x.var(axis=0, ddof=1, keepdims=True), lambda x: x.std(ddof=True),
             lambda x: x.argmax(axis=1, keepdims=True), lambda x: x.all(axis=1, keepdims=False),
             lambda x: x.cumprod(axis=0, dtype=onp.float32),
             lambda x: x.reshape(1, 12).squeeze(axis=0), lambda x: x.sum(axis=0, where=x > 2)]
    jitted = minijax.jit(lambda x: [f(x) for f in calls])(a)
    for f, j in zip(calls, jitted):
        r, expected = f(a), f(h)
        assert type(r) is Array
        assert r.dtype == expected.dtype and r.shape == expected.shape
        onp.testing.assert_allclose(onp.asarray(r), expected, rtol=1e-6)
        onp.testing.assert_allclose(onp.asarray(j), expected, rtol=1e-6)
    # a reshaped view shares the buffer as NumPy's does (copy-on-write afterwards)
    v = a.reshape(-1)
    a[0, 0] = 100.0
    assert float(v[0]) == 100.0
    # a 0-d Array holding a NumPy scalar, weak and integer Arrays: the complete paths
    s = a[1, 1]
    assert s.reshape(1).shape == (1,) and float(s.reshape(1)[0]) == 5.0
    w = mnp.asarray(2.0) * 1.5
    assert w.sum().weak_type == w.weak_type and float(w.sum()) == 3.0
    i = mnp.arange(6, dtype=mnp.int32).reshape(2, 3)
    assert i.sum().dtype == onp.arange(6, dtype=onp.int32).reshape(2, 3).sum().dtype \
        or i.sum().dtype == mnp.int32   # (32-bit mode narrows NumPy's int64 sum)
    with pytest.raises(ValueError):
        a.reshape(5)
    # views from methods stay attached to their base; as in NumPy, a real array's
    # .real and conj(), and squeeze() without a length-1 axis, are the array itself
    for view in (a.transpose(), a.swapaxes(0, 1), a.T, a.ravel(), a.diagonal(),
                 a.reshape(1, 3, 4).squeeze()):
        assert view.base is a
    h = onp.array(a)
    assert h.real is h and h.conj() is h and h.squeeze() is h
    assert a.real is a and a.conj() is a and a.squeeze() is a
    # argmax/argmin of a read-only (observed) buffer, read through a writeable alias
    # (NumPy's own would copy it); the buffer stays read-only
    frozen = mnp.asarray(onp.arange(12.0).reshape(3, 4))
    exported = onp.asarray(frozen)   # (copy-on-write marks it read-only)
    assert int(frozen.argmax()) == 11 and list(onp.asarray(frozen.argmin(1))) == [0, 0, 0]
    assert int(mnp.argmax(frozen)) == 11 and list(onp.asarray(mnp.argmin(frozen.T, 0))) == [0] * 3
    assert list(onp.asarray(frozen[:, ::2].argmax(axis=1))) == [1, 1, 1]
    assert not exported.flags.writeable and not onp.asarray(frozen).flags.writeable
    # an np.broadcast_arrays output (writeable with NumPy's FutureWarning on reading the
    # flag): its flag is read without the warning
    _, row = mnp.broadcast_arrays(mnp.ones((3, 3)), mnp.asarray(onp.arange(3.0)))
    host_row = onp.broadcast_arrays(onp.ones((3, 3)), onp.arange(3.0))[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(mnp.argmax(row)) == int(row.argmax()) == 2
        assert int(mnp.argmin(host_row)) == 0
    expected = onp.array(a)
    a.conj()[0, 1] = -1.0
    expected.conj()[0, 1] = -1.0
    assert expected[0, 1] == -1.0
    onp.testing.assert_array_equal(onp.asarray(a), expected)


@pytest.mark.parametrize("dtype", [onp.float64, onp.float32, onp.int32, onp.int64])
def test_inplace_operators_on_scalars_rebind_as_numpys_scalars(dtype):
    # ``s op= y`` on an element read (a NumPy scalar in NumPy) rebinds ``s`` to ``s op y``
    # in the core: values, dtypes and the aliases left alone, as NumPy's scalars
    host = onp.arange(1, 7, dtype=dtype)
    ops = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.imod,
           operator.ipow, operator.ifloordiv]
    for operand, m_operand in ((2, 2), (0.5, 0.5), (host[3], mnp.asarray(host)[3])):
        for op in ops:
            s = host[2]
            want = op(s, operand)
            got = mnp.asarray(host)[2]
            alias = got
            got = op(got, m_operand)
            assert got is not alias, op
            assert type(onp.asarray(got)[()]) is type(want), (op, operand)
            onp.testing.assert_allclose(onp.asarray(got), want, rtol=1e-6)
            assert float(alias) == float(s)
    # the accumulating loop of NumPy code
    x, y = mnp.asarray(host), mnp.asarray(host[::-1].copy())
    acc = want = 0.0
    for i in range(len(host)):
        acc += x[i] * y[i]
        want += host[i] * host[::-1][i]
    assert type(onp.asarray(acc)[()]) is type(want) and float(acc) == float(want)


def test_element_reads_and_numpy_integers_index_in_the_core():
    # ``B[:, obs[t]]``: a 0-d Array holding a NumPy integer (or a NumPy integer) in an
    # index is an integer to NumPy, in the core's fast path; bools stay masks
    host = onp.arange(20.0).reshape(4, 5)
    obs = mnp.asarray(onp.array([3, 1, 4]))
    complete = get_method(Array, "__getitem__")
    calls = []

    def counting(*args):
        calls.append(args)
        return complete(*args)
    set_method(Array, "__getitem__", counting)
    try:
        B = mnp.asarray(host.copy())
        col = B[:, obs[0]]
        row = B[onp.int64(2)]
        elem = B[obs[1], obs[2]]
        assert not calls
    finally:
        set_method(Array, "__getitem__", complete)
    onp.testing.assert_array_equal(onp.asarray(col), host[:, 3])
    onp.testing.assert_array_equal(onp.asarray(row), host[2])
    assert float(elem) == host[1, 4]
    assert col.base is B and row.base is B   # views, as NumPy's
    B[:, obs[1]] = 7.0
    want = host.copy()
    want[:, 1] = 7.0
    onp.testing.assert_array_equal(onp.asarray(B), want)
    onp.testing.assert_array_equal(onp.asarray(col), want[:, 3])
    flags = mnp.asarray(onp.array([True, False]))
    assert B[flags[0]].shape == host[onp.True_].shape == (1, 4, 5)


def test_methods_show_the_signatures_of_what_they_run():
    # the class body's methods take generic positional-only parameters; introspection
    # (the Array API's signature checks, help()) sees the lax definition's signature
    a = mnp.ones((2, 2))
    assert "api_version" in inspect.signature(a.__array_namespace__).parameters
    assert list(inspect.signature(a.argmax).parameters)[:2] == ["axis", "out"]
    assert "order" in inspect.signature(a.reshape).parameters
    assert "keepdims" in inspect.signature(a.sum).parameters
    assert list(inspect.signature(a.dot).parameters) == ["b", "out"]
