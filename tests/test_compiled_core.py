"""The eager core is compiled (DESIGN 10): the modules Python imports for it are the
extension modules built from their .py files, not the .py files themselves."""

import importlib
import importlib.machinery
import os
import subprocess
import sys
import warnings

import numpy as onp
import pytest

import minijax.numpy as mnp
import minijax.runtime as runtime
from minijax.runtime.array import Array, get_method

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
    # Array's core is a C type (not a heap type made by a class statement): its
    # operators and hot properties are C slots and getters
    core = Array.__mro__[1]
    assert not core.__flags__ & (1 << 9), "ArrayCore is a Python class"   # HEAPTYPE
    for name in ("__getitem__", "__setitem__", "__add__", "__radd__", "__eq__", "__neg__",
                 "__iadd__"):
        assert getattr(Array, name).__objclass__ is core, name
        # their complete implementations, installed by the eager table, are compiled
        assert type(get_method(Array, name)).__name__ == "cython_function_or_method", name
    assert type(core.__dict__["T"]).__name__ == "getset_descriptor"
    # methods installed on Array by the eager table are compiled functions
    # (a cyfunction, not a Python function with a code object of a .py file)
    assert type(Array.reshape).__name__ == "cython_function_or_method"


def test_array_core_holds_no_dict_and_no_more_fields():
    a = mnp.asarray(onp.arange(3.0))
    assert not hasattr(a, "__dict__")
    with pytest.raises(AttributeError):
        a.some_attribute = 1
    # the object header, five object fields and a weak-reference list: no more than the
    # pure-Python class with ``__slots__`` it replaced (no C method table pointer)
    assert type(a).__basicsize__ == object.__basicsize__ + 6 * 8


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
