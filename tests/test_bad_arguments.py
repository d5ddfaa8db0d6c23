"""Regression tests for issue 10: every crash, hang, silent wrong answer, silently
accepted bad argument and unclear message it lists, with the expected error class and
message fragment (or NumPy's result), eagerly and under ``jit``.

The cases that used to abort the interpreter or run forever are run in one
subprocess with a memory limit and a timeout, so that a regression fails the test
instead of taking the test session down.
"""

import json
import os
import stat
import subprocess
import sys
import textwrap
import warnings

import numpy as onp
import pytest
from numpy.exceptions import AxisError

import minijax
import minijax.lax as lax
import minijax.numpy as np
from minijax import _checks, grad, jit
from minijax.errors import OutOfMemoryError
from minijax.backend import compile_cache
from minijax.test_util import assert_same

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIG = 2 ** 62

# ------------------------------------------------------------------ crashes and hangs

# (name, expression, exception class name, message fragment). Each ran into an abort
# inside XLA, the MLIR bindings' TypeError, XLA's RESOURCE_EXHAUSTED text, or a hang.
_CRASH_CASES = [
    ("jit zeros", "jit(lambda: np.zeros((2**62, 2**62)))()", "ValueError", "array is too big"),
    ("jit ones", "jit(lambda: np.ones((2**62, 2**62)))()", "ValueError", "array is too big"),
    ("jit empty", "jit(lambda: np.empty((2**62, 2**62)))()", "ValueError", "array is too big"),
    ("jit full", "jit(lambda: np.full((2**62, 2**62), 1.0))()", "ValueError",
     "array is too big"),
    ("jit zeros_like", "jit(lambda x: np.zeros_like(x, shape=(2**62, 2**62)))(np.ones(2))",
     "ValueError", "array is too big"),
    ("jit ones_like", "jit(lambda x: np.ones_like(x, shape=(2**62, 2**62)))(np.ones(2))",
     "ValueError", "array is too big"),
    ("jit full_like", "jit(lambda x: np.full_like(x, 2, shape=(2**62, 2**62)))(np.ones(2))",
     "ValueError", "array is too big"),
    ("jit indices", "jit(lambda: np.indices((2**62, 2**62)))()", "ValueError",
     "array is too big"),
    ("jit lax.full", "jit(lambda: lax.full((2**62, 2**62), 1.0))()", "ValueError",
     "array is too big"),
    ("jit broadcasted_iota",
     "jit(lambda: lax.broadcasted_iota(onp.int32, (2**62, 2**62), 0))()", "ValueError",
     "array is too big"),
    ("jit ones sum", "jit(lambda: np.ones((2**31, 2**31)).sum())()", "ValueError",
     "array is too big"),
    ("eager lax.full", "lax.full((2**62, 2**62), 1.0)", "ValueError", "array is too big"),
    ("eager zeros", "np.zeros((2**62, 2**62))", "ValueError", "array is too big"),
    ("eager zeros sum", "np.zeros((2**40,)).sum()", "MemoryError", "Unable to allocate"),
    ("eager zeros mean", "np.zeros((2**40,)).mean()", "MemoryError", "Unable to allocate"),
    ("eager zeros max", "np.zeros((2**40,)).max()", "MemoryError", "Unable to allocate"),
    ("jit broadcast_to sum", "jit(lambda: np.broadcast_to(1.0, (2**40,)).sum())()",
     "MemoryError", "Unable to allocate"),
    ("eager fori_loop 2**63", "lax.fori_loop(0, 2**63, lambda i, c: c, 0)", "OverflowError",
     "Python int 9223372036854775808 is out of bounds for int64"),
    ("jit dim 2**63", "jit(lambda: np.zeros((2**63,)))()", "ValueError",
     "Maximum allowed dimension exceeded"),
    ("jit dim 2**64", "jit(lambda: np.zeros((2**64,)))()", "ValueError",
     "Maximum allowed dimension exceeded"),
    ("jit lax dim 2**63", "jit(lambda: lax.full((2**63,), 1.0))()", "ValueError",
     "Maximum allowed dimension exceeded"),
    ("jit zeros 2**40", "jit(lambda: np.zeros((2**40,)))()", "MemoryError",
     "Unable to allocate"),
    # issue 24: these ran forever (NumPy raises at once; see test_numpy_raises_these_at_once)
    ("eager polyder m=2**63", "np.polyder(np.asarray([1.0, 2.0, 3.0]), m=2**63)",
     "RecursionError", "recursion limit"),
    ("jit polyder m=2**63", "jit(lambda: np.polyder(np.asarray([1.0, 2.0, 3.0]), m=2**63))()",
     "RecursionError", "recursion limit"),
    ("eager vander N=2**63", "np.vander(np.asarray([1.0, 2.0]), N=2**63)", "ValueError",
     "Maximum allowed dimension exceeded"),
    ("jit vander N=2**63", "jit(lambda: np.vander(np.asarray([1.0, 2.0]), N=2**63))()",
     "ValueError", "Maximum allowed dimension exceeded"),
    ("eager vander N=2**62", "np.vander(np.asarray([1.0, 2.0]), N=2**62)", "ValueError",
     "array is too big"),
]


def test_numpy_raises_these_at_once():
    with pytest.raises(RecursionError):
        onp.polyder(onp.array([1.0, 2.0, 3.0]), m=2 ** 63)
    with pytest.raises(ValueError, match="Maximum allowed dimension exceeded"):
        onp.vander(onp.array([1.0, 2.0]), N=2 ** 63)
    with pytest.raises(ValueError, match="array is too big"):
        onp.vander(onp.array([1.0, 2.0]), N=2 ** 62)
    # below the recursion limit minijax gives NumPy's answer, empty past order len(p)
    for m in (2, 3, 5, 50):
        assert_same(np.polyder(np.asarray([1.0, 2.0, 3.0]), m=m),
                    onp.polyder(onp.array([1.0, 2.0, 3.0]), m=m))
        assert_same(jit(lambda p, m=m: np.polyder(p, m=m))(np.asarray([1.0, 2.0, 3.0])),
                    onp.polyder(onp.array([1.0, 2.0, 3.0]), m=m))
    assert_same(np.vander(np.zeros(0), N=2 ** 40), onp.vander(onp.zeros(0), N=2 ** 40))

@pytest.mark.parametrize("value", [2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63 - 1, 2 ** 63 - 1])
def test_python_ints_past_int64_convert_as_numpys_or_raise_a_named_overflow(value):
    """A strong conversion (array, asarray, full) takes NumPy's type, eagerly and under
    jit where it is numeric (uint64; object past it, eagerly); a weakly typed use (a jit
    argument, an operand of a traced operation, the 32-bit mode) raises OverflowError
    naming the value, not a C message or a wrapped value."""
    for make in (lambda m: m.asarray(value), lambda m: m.array(value),
                 lambda m: m.full(2, value), lambda m: m.asarray([value, 1])):
        want, got = make(onp), make(np)
        assert got.dtype == want.dtype and got.shape == want.shape
        onp.testing.assert_array_equal(onp.asarray(got), want)
        if want.dtype != object:
            assert_same(jit(lambda: make(np))(), want)
    if -2 ** 63 <= value < 2 ** 63:
        assert jit(lambda v: v + 0)(value) == value
        return
    message = f"Python int {value} is out of bounds for int64"
    with pytest.raises(OverflowError, match=message):
        jit(lambda v: v + 1)(value)
    with pytest.raises(OverflowError):   # eagerly NumPy's own error (its C message)
        np.ones(2, onp.int64) + value
    with pytest.raises(OverflowError, match=message):
        jit(lambda x: x + value)(np.ones(2, onp.int64))
    with minijax.enable_x64(False), pytest.raises(
            OverflowError, match=f"Python int {value} is out of bounds for int32"):
        np.asarray(value)


_RUNNER = textwrap.dedent("""
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    import numpy as onp
    import minijax.numpy as np
    import minijax.lax as lax
    from minijax import jit
    out = {}
    for name, expr in json.loads(sys.argv[1]):
        try:
            eval(expr)
            out[name] = ["no error", ""]
        except BaseException as e:
            classes = [c.__name__ for c in type(e).__mro__]
            out[name] = [classes, str(e)]
        print(json.dumps([name, out[name]]), flush=True)
""")


@pytest.fixture(scope="module")
def crash_results():
    cases = [(name, expr) for name, expr, _, _ in _CRASH_CASES]
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps(cases)], env=env,
                          capture_output=True, text=True, timeout=300)
    results = dict(json.loads(line) for line in proc.stdout.splitlines() if line)
    return results, proc


@pytest.mark.parametrize("name,expr,cls,fragment", _CRASH_CASES,
                         ids=[c[0] for c in _CRASH_CASES])
def test_no_crash_or_hang(crash_results, name, expr, cls, fragment):
    results, proc = crash_results
    assert name in results, (f"the subprocess died before {name!r} (exit {proc.returncode}):"
                             f"\n{proc.stderr[-2000:]}")
    classes, message = results[name]
    assert cls in classes, f"{expr} raised {classes} {message!r}, expected {cls}"
    assert fragment in message
    for text in ("RESOURCE_EXHAUSTED", "mlir", "jaxlib", "StatusOr", "get(): incompatible"):
        assert text not in message


def test_out_of_memory_error_is_a_memory_error():
    assert issubclass(OutOfMemoryError, MemoryError)


# ------------------------------------------------------------------ the compilation cache

@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setattr(minijax.config, "compilation_cache", True)
    monkeypatch.setattr(minijax.config, "compilation_cache_dir", str(d))
    monkeypatch.setattr(compile_cache, "_refused", set())
    for k in compile_cache.stats:
        monkeypatch.setitem(compile_cache.stats, k, 0)
    return d


def _compile_something(seed):
    return float(jit(lambda x: x * seed + 1.0)(np.float64(2.0)))


def test_cache_entry_replaced_by_a_fifo_is_skipped(cache_dir):
    assert _compile_something(3.5) == 8.0
    entries = [p for p in cache_dir.iterdir() if p.name.endswith(".mjxc")]
    assert entries
    for p in entries:
        p.unlink()
        os.mkfifo(p)
    # a new function: the same program text, so the same keys, now FIFOs (opening one
    # for reading used to block until a writer came)
    assert _compile_something(3.5) == 8.0
    assert compile_cache.stats["hits"] == 0
    assert compile_cache.stats["errors"] >= 1


def test_cache_entry_symlink_is_not_followed(cache_dir, tmp_path):
    key = "ab" * 32
    cache_dir.mkdir(mode=0o700)
    target = tmp_path / "elsewhere"
    target.write_bytes(b"x" * 100)
    os.symlink(target, cache_dir / (key + ".mjxc"))
    assert compile_cache.load(key, str(cache_dir)) is None
    assert compile_cache.stats["errors"] == 1


def test_cache_directory_writable_by_others_is_refused(cache_dir):
    cache_dir.mkdir(mode=0o700)
    os.chmod(cache_dir, 0o777)
    with pytest.warns(RuntimeWarning, match="writable by others"):
        assert _compile_something(4.5) == 10.0
    assert not any(p.name.endswith(".mjxc") for p in cache_dir.iterdir())


def test_cache_parent_directories_are_user_only(tmp_path, monkeypatch):
    d = tmp_path / "a" / "b" / "cache"
    old = os.umask(0)
    try:
        compile_cache._ensure_dir(str(d))
    finally:
        os.umask(old)
    for p in (tmp_path / "a", tmp_path / "a" / "b", d):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o700


# ------------------------------------------------------------------ environment variables

@pytest.mark.parametrize("var,value", [
    ("MINIJAX_COMPILATION_CACHE_MAX_BYTES", "lots"),
    ("MINIJAX_CPU_DEVICE_COUNT", "two"),
    ("MINIJAX_CPU_DEVICE_COUNT", "0"),
    ("MINIJAX_JIT_CACHE_SIZE", "-3"),
    ("MINIJAX_EAGER_CACHE_SIZE", "1.5"),
    ("MINIJAX_ENABLE_X64", "maybe"),
    ("MINIJAX_COMPILATION_CACHE", "sometimes"),
    ("MINIJAX_EAGER_BACKEND", "gpu"),
    ("MINIJAX_TRACEBACK_FILTERING", "none"),
])
def test_invalid_environment_variable_warns_and_uses_the_default(var, value, monkeypatch):
    from minijax.config import Config
    monkeypatch.setenv(var, value)
    with pytest.warns(RuntimeWarning, match=var):
        cfg = Config()
    fresh = Config.__new__(Config)
    monkeypatch.delenv(var)
    fresh.__init__()
    assert vars(cfg) == vars(fresh)


def test_invalid_environment_variable_does_not_break_import():
    env = dict(os.environ, MINIJAX_COMPILATION_CACHE_MAX_BYTES="1GB",
               MINIJAX_CPU_DEVICE_COUNT="x",
               PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = "import minijax.numpy as np; print(np.ones(2).sum())"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "MINIJAX_COMPILATION_CACHE_MAX_BYTES" in proc.stderr
    assert "MINIJAX_CPU_DEVICE_COUNT" in proc.stderr
    assert proc.stdout.strip() == "2.0"


def test_config_update_checks_int_options():
    with pytest.raises(ValueError, match="compilation_cache_max_bytes"):
        minijax.config.update("compilation_cache_max_bytes", "1GB")
    with pytest.raises(ValueError, match="cpu_device_count"):
        minijax.config.update("cpu_device_count", 0)


# ------------------------------------------------------------------ silent wrong answers

def both(f):
    """``f`` eagerly and under jit (for functions of no traced arguments, a closure)."""
    return [f, jit(f)]


@pytest.mark.parametrize("k", [2 ** 63, 2 ** 62, 10, -(2 ** 63), -10, 2 ** 64])
@pytest.mark.parametrize("name", ["triu", "tril"])
def test_triangle_with_huge_k(name, k):
    x = onp.arange(12.0).reshape(3, 4)
    try:
        expected = getattr(onp, name)(x, k=k)
    except OverflowError:
        # NumPy's own int64 limit, and eagerly minijax is NumPy; under jit a diagonal
        # beyond the matrix is the same as one just past it
        with pytest.raises(OverflowError):
            getattr(np, name)(np.asarray(x), k=k)
        expected = getattr(onp, name)(x, k=max(-8, min(k, 8)))
        assert_same(jit(lambda: getattr(np, name)(np.asarray(x), k=k))(), expected)
        return
    for f in both(lambda: getattr(np, name)(np.asarray(x), k=k)):
        assert_same(f(), expected)


@pytest.mark.parametrize("k", [2 ** 62, -(2 ** 62), 5, -5])
def test_eye_and_tri_with_huge_k(k):
    for f in both(lambda: np.eye(3, 4, k=k)):
        assert_same(f(), onp.eye(3, 4, k=k))
    for f in both(lambda: np.tri(3, 4, k=k)):
        assert_same(f(), onp.tri(3, 4, k=k))


def test_compare_with_none_is_elementwise():
    x = onp.arange(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected_eq, expected_ne = x == None, x != None   # noqa: E711
    for f in both(lambda: np.asarray(x) == None):   # noqa: E711
        assert_same(f(), expected_eq)
    for f in both(lambda: np.asarray(x) != None):   # noqa: E711
        assert_same(f(), expected_ne)


@pytest.mark.parametrize("dtype", [onp.float64, onp.float32])
def test_jit_sign_of_negative_zero(dtype):
    x = onp.array([-0.0, 0.0, -2.0, 3.0, onp.nan], dtype)
    assert_same(jit(np.sign)(x), onp.sign(x))
    assert_same(jit(lax.sign)(x), onp.sign(x))


def test_jit_nanargmax_all_nan():
    x = onp.array([onp.nan, onp.nan])
    for fn in (np.nanargmax, np.nanargmin):
        with pytest.raises(ValueError, match="All-NaN slice"):
            fn(x)
        # traced values cannot raise: -1, never a valid-looking index
        assert int(jit(fn)(x)) == -1
    y = onp.array([[onp.nan, onp.nan], [1.0, onp.nan]])
    assert_same(jit(lambda a: np.nanargmax(a, axis=1))(y), onp.array([-1, 0]))
    assert_same(jit(lambda a: np.nanargmin(a, axis=1, keepdims=True))(y),
                onp.array([[-1], [0]]))


def test_integer_negative_power():
    a = onp.array([2, 3])
    for f in (lambda x: x ** -1, lambda x: np.power(x, -2),
              lambda x: np.power(x, onp.array([1, -1]))):
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            f(np.asarray(a))
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            jit(f)(a)


def test_jit_put_concrete_out_of_range():
    def put(x, i):
        np.put(x, i, 5.0)
        return x
    for i in (-100, 3, [0, 7]):
        with pytest.raises(IndexError, match="out of bounds"):
            put(np.ones(3), i)
        with pytest.raises(IndexError, match="out of bounds"):
            jit(lambda x, i=i: put(x, i))(np.ones(3))
    x = onp.ones(3)
    onp.put(x, [[0], [2]], 5.0)
    assert_same(jit(lambda a: put(a, onp.array([[0], [2]])))(np.ones(3)), x)


def test_interp_lengths_differ():
    for f in both(lambda: np.interp(1.5, np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0]))):
        with pytest.raises(ValueError, match="same length"):
            f()


def test_interp_period_matches_numpy():
    x = onp.linspace(-400, 800, 31)
    xp, fp = onp.array([190.0, -190, 350, -350]), onp.array([5.0, 10, 3, 4])
    expected = onp.interp(x, xp, fp, period=360)
    for f in both(lambda: np.interp(x, xp, fp, period=360)):
        onp.testing.assert_allclose(f(), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        jit(lambda: np.interp(x, xp, fp, period=0))()


# ------------------------------------------------------------------ bad arguments

def _x():
    return np.asarray(onp.arange(6.0).reshape(2, 3))


# (id, function of no arguments, exception class, message fragment); each runs eagerly
# and under jit (as a closure: the bad argument is static either way).
BAD = [
    ("lax.concatenate dict", lambda: lax.concatenate({"a": 1}, 0), TypeError,
     "must be a list or tuple"),
    ("lax.full str shape", lambda: lax.full("3", 2.0), TypeError,
     "expected a sequence of integers"),
    ("lax.full float shape", lambda: lax.full((1.5,), 2.0), TypeError,
     "expected a sequence of integers"),
    ("lax.full negative", lambda: lax.full((-1,), 2.0), ValueError,
     "negative dimensions are not allowed"),
    ("zeros dict", lambda: np.zeros({}), TypeError, "expected a sequence of integers"),
    ("zeros float", lambda: np.zeros(1.5), TypeError, "expected a sequence of integers"),
    ("ones str", lambda: np.ones("3"), TypeError, "expected a sequence of integers"),
    ("empty negative", lambda: np.empty((-2,)), ValueError, "negative dimensions"),
    ("zeros bad dtype", lambda: np.zeros(3, dtype="nonsense"), TypeError, "not understood"),
    *[(f"partition kth={k!r}", lambda k=k: np.partition(np.arange(3.0), k), TypeError,
       "Partition index must be integer") for k in (None, "1", 1.5)],
    *[(f"partition kth={k!r}", lambda k=k: np.partition(np.arange(3.0), k), ValueError,
       "out of bounds") for k in (-100, 2 ** 63, 3)],
    *[(f"argpartition kth={k!r}", lambda k=k: np.argpartition(np.arange(3.0), k), TypeError,
       "Partition index must be integer") for k in (None, "1", 1.5)],
    ("argpartition kth=-100", lambda: np.argpartition(np.arange(3.0), -100), ValueError,
     "out of bounds"),
    ("linspace axis", lambda: np.linspace(0, 1, 5, axis=3), AxisError, "out of bounds"),
    ("logspace axis", lambda: np.logspace(0, 1, 5, axis=3), AxisError, "out of bounds"),
    ("geomspace axis", lambda: np.geomspace(1, 2, 5, axis=3), AxisError, "out of bounds"),
    ("linspace num float", lambda: np.linspace(0, 1, 2.5), TypeError,
     "cannot be interpreted as an integer"),
    ("linspace num negative", lambda: np.linspace(0, 1, -1), ValueError, "non-negative"),
    ("tensordot axes", lambda: np.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=(0, 7)),
     AxisError, "out of bounds"),
    ("tensordot axes float", lambda: np.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=1.5),
     TypeError, "cannot be interpreted as an integer"),
    ("eye float", lambda: np.eye(1.5), TypeError, "cannot be interpreted as an integer"),
    ("eye M float", lambda: np.eye(2, 1.5), TypeError, "cannot be interpreted as an integer"),
    ("tri str", lambda: np.tri("1"), TypeError, "cannot be interpreted as an integer"),
    ("round decimals float", lambda: np.round(_x(), 1.5), TypeError,
     "cannot be interpreted as an integer"),
    *[(f"round decimals={d} of {'an array' if callable(x) else x}",
       lambda d=d, x=x: np.round(x() if callable(x) else x, d),
       OverflowError, "C int") for d in (2 ** 63, 2 ** 31, -2 ** 31 - 1) for x in (2, _x)],
    *[(f"geomspace {a} to {b}, {n}", lambda a=a, b=b, n=n: np.geomspace(a, b, n), ValueError,
       "cannot include zero") for a, b in (((0, 7), 0), (1, 0.0), (-0.0, 4.0)) for n in (0, 5)],
    ("isneginf out twice", lambda: np.isneginf(np.ones(2), np.zeros(2, bool), out=Ellipsis),
     TypeError, "multiple values for argument 'out'"),
    ("indices int", lambda: np.indices(2, dtype="float64"), TypeError, "not iterable"),
    ("issubdtype array", lambda: np.issubdtype(onp.array(2.0), onp.floating), TypeError,
     "Cannot construct a dtype from an array"),
    ("issubdtype array second", lambda: np.issubdtype(onp.float64, np.ones(2)), TypeError,
     "Cannot construct a dtype from an array"),
    *[(f"broadcast_to shape={shp!r}", lambda shp=shp: np.broadcast_to(1.0, shp), TypeError,
       "expected a sequence of integers") for shp in (True, (True,), (2, onp.True_))],
    ("ones bool in shape", lambda: np.ones((True, 2)), TypeError,
     "expected a sequence of integers"),
    ("broadcast_to negative", lambda: np.broadcast_to(1.0, (-1,)), ValueError, "negative"),
    *[(f"{name} 2-d empty q", lambda name=name: getattr(np, name)(2.0 ** 40, onp.ones((0, 3))),
       ValueError, "zero-size array") for name in ("percentile", "quantile")],
    *[(f"kaiser beta {b!r}", lambda b=b: np.kaiser(m, b), ValueError, "beta must be a scalar")
      for b, m in ((onp.arange(4), -100), ([2.0], 5), (onp.ones(2), 1))],
    ("poly scalar", lambda: np.poly(1.5), TypeError, "sequence of roots"),
    ("histogramdd 0-d weights", lambda: np.histogramdd(onp.arange(4), weights=2.0), ValueError,
     "weights must be 1-d"),
    ("histogram2d short weights", lambda: np.histogram2d(onp.arange(4), onp.arange(4),
                                                         weights=onp.ones(3)),
     ValueError, "same length"),
    ("nan_to_num copy array", lambda: np.nan_to_num((2, 3), onp.ones((2, 2))), ValueError,
     "truth value of an array"),
    ("nan_to_num copy=False of a tuple", lambda: np.nan_to_num((2.0, 3.0), 0), ValueError,
     "Unable to avoid copy"),
    *[(f"{name} of a type", lambda name=name: getattr(np, name)(onp.float32), TypeError,
       "expected an array") for name in ("array_str", "array2string")],
    *[(f"choose index {i}", lambda i=i: np.choose(i, (0, 0)), ValueError,
       "invalid entry in choice array") for i in (-100, -1, 2, [0, 5])],
    *[(f"{name} of {nd}-d", lambda name=name, nd=nd: getattr(np, name)(np.ones((2,) * nd), 1),
       ValueError, f"{name} only works on arrays of") for name, nd in
      (("hsplit", 0), ("vsplit", 1), ("dsplit", 2))],
    ("split str", lambda: np.split(np.ones(4), "1"), TypeError, "expected a sequence of integers"),
    ("split zero", lambda: np.split(np.ones(4), 0), ValueError, "larger than 0"),
    ("stack set", lambda: np.stack({1, 2}), TypeError, "sequence"),
    ("vstack set", lambda: np.vstack({1, 2}), TypeError, "sequence"),
    ("std ddof str", lambda: np.std(_x(), ddof="1"), TypeError, "ddof must be a real number"),
    ("std ddof huge", lambda: np.std(_x(), ddof=2 ** 63), OverflowError, "too large"),
    ("var ddof None", lambda: np.var(_x(), ddof=None), TypeError, "ddof must be a real number"),
    ("lax.slice_in_dim float", lambda: lax.slice_in_dim(np.ones(4), 1.5, 2), TypeError,
     "cannot be interpreted as an integer"),
    ("lax.slice float", lambda: lax.slice(np.ones(4), (0.5,), (2,)), TypeError,
     "cannot be interpreted as an integer"),
    ("lax.reduce_sum axes float", lambda: lax.reduce_sum(np.ones(3), axes=1.5), TypeError,
     "cannot be interpreted as an integer"),
    ("lax.reduce_sum axes out of range", lambda: lax.reduce_sum(np.ones(3), axes=(3,)),
     AxisError, "out of bounds"),
    ("lax.transpose float", lambda: lax.transpose(_x(), (1.0, 0.0)), TypeError,
     "cannot be interpreted as an integer"),
    ("lax.broadcast_in_dim str", lambda: lax.broadcast_in_dim(1.0, (2,), "0"), TypeError,
     "expected a sequence of integers"),
    ("reshape newshape and shape", lambda: np.reshape(np.ones(6), (3, 2), newshape=onp.nan),
     TypeError, "newshape"),
    ("reshape float", lambda: np.reshape(np.ones(6), (3, 2.0)), TypeError,
     "cannot be interpreted as an integer"),
    ("reshape -2", lambda: np.reshape(np.ones(6), (-2, -3)), ValueError, "negative"),
    ("squeeze duplicate", lambda: np.squeeze(np.ones((1, 3)), axis=(0, 0)), ValueError,
     "duplicate value in 'axis'"),
    ("unravel_index negative", lambda: np.unravel_index(1, (-2,)), ValueError,
     "negative dimensions"),
    ("transpose int", lambda: np.transpose(_x(), 5), ValueError, "axes don't match array"),
    ("transpose float", lambda: np.transpose(_x(), (1.5, 0)), TypeError,
     "cannot be interpreted as an integer"),
    ("transpose repeated", lambda: np.transpose(_x(), (0, 0)), ValueError,
     "don't match array"),
    ("choose 0-d choices", lambda: np.choose(np.array([0]), np.array(2.0)), TypeError,
     "0-d array"),
    ("choose int choices", lambda: np.choose(np.array([0]), 3), TypeError,
     "sequence of arrays"),
    ("sum axis float", lambda: np.sum(_x(), axis=1.5), TypeError,
     "cannot be interpreted as an integer"),
    ("sum axis out of range", lambda: np.sum(_x(), axis=2), AxisError, "out of bounds"),
    ("expand_dims float", lambda: np.expand_dims(_x(), 1.5), TypeError,
     "cannot be interpreted as an integer"),
    ("moveaxis out of range", lambda: np.moveaxis(_x(), 0, 5), AxisError, "out of bounds"),
    ("tile str", lambda: np.tile(_x(), "2"), TypeError, "expected a sequence of integers"),
    ("indices float", lambda: np.indices((2.5,)), TypeError, "expected a sequence of integers"),
    *[(f"{name} complex", lambda name=name: getattr(np, name)(np.array([1j]), 1.0), TypeError,
       "not supported for the input types") for name in ("copysign", "hypot", "heaviside",
                                                         "arctan2", "logaddexp")],
    *[(f"{name} complex", lambda name=name: getattr(np, name)(np.array([1j])), TypeError,
       "not supported for the input types") for name in ("deg2rad", "rad2deg", "radians",
                                                         "degrees")],
]


# Issue 24: (id, call of a module m, message fragment). NumPy (m = numpy) is the oracle:
# minijax (m = minijax.numpy) raises NumPy's class or a subclass, eagerly and under jit
# (the arguments are closed over: their shapes, dtypes and ints are concrete).
_IO = __import__("io")
NUMPY_BAD = [
    ("digitize complex bins", lambda m: m.digitize(m.asarray([1.0, 2.0]), m.asarray([1j, 2j])),
     "bins may not be complex"),
    ("cond of an empty matrix", lambda m: m.linalg.cond(m.zeros((0, 0))), "empty arrays"),
    ("cond of a stack of empty matrices", lambda m: m.linalg.cond(m.zeros((2, 0, 3))),
     "empty arrays"),
    ("trace offset 2**63", lambda m: m.trace(m.ones((2, 2)), offset=2 ** 63), "too large"),
    ("diagonal offset 2**63", lambda m: m.diagonal(m.ones((2, 2)), offset=2 ** 63), "too large"),
    ("place 0-d mask", lambda m: m.place(m.ones(3), m.asarray(True), [5.0]),
     "mask and data must be the same size"),
    ("place short mask", lambda m: m.place(m.ones(3), [True, False], [5.0]),
     "mask and data must be the same size"),
    ("fromfile of an array", lambda m: m.fromfile(m.ones(3)), "must be a path"),
    ("polysub of a shorter 2-d polynomial",
     lambda m: m.polysub((2 ** 31, 2 ** 31), ((1,),)), "same number of dimensions"),
    ("can_cast None", lambda m: m.can_cast(None, None), "'None' not accepted"),
    ("trim_zeros repeated axis", lambda m: m.trim_zeros(m.zeros((2, 3)), axis=(0, 0)),
     "duplicate value in 'axis'"),
    ("tril_indices_from 5-d", lambda m: m.tril_indices_from(m.zeros((2,) * 5), k=7),
     "must be 2-d"),
    ("triu_indices_from 1-d", lambda m: m.triu_indices_from(m.zeros(3)), "must be 2-d"),
    ("genfromtxt of an array", lambda m: m.genfromtxt(m.ones(3)), "must be a path"),
    ("fromregex of an array", lambda m: m.fromregex(m.ones(3), r"(\d)", [("a", m.int64)]),
     "must be a path"),
    ("fromregex regexp an array",
     lambda m: m.fromregex(_IO.StringIO("1 2"), m.ones(3), [("a", m.int64)]),
     "regexp must be"),
    ("isneginf out twice", lambda m: m.isneginf(m.ones(2), None, out=None),
     "multiple values for argument 'out'"),
    ("isposinf out twice", lambda m: m.isposinf(m.ones(2), m.zeros(2, bool), out=None),
     "multiple values for argument 'out'"),
    # a list of numbers is points in one dimension, so two edge arrays are one too many
    ("histogramdd list of numbers, bins for two dimensions",
     lambda m: m.histogramdd([0, 1], bins=[[1], [2, 3]]),
     "The dimension of bins must be equal to the dimension of the sample x."),
    ("histogramdd ragged list", lambda m: m.histogramdd([m.ones(3), m.zeros(2)]), ""),
    ("histogramdd 3-d sample", lambda m: m.histogramdd(m.ones((2, 2, 2))),
     "too many values to unpack"),
]


def _raised(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the class is what is compared
        return e
    return None


@pytest.mark.parametrize("call,fragment", [c[1:] for c in NUMPY_BAD],
                         ids=[c[0] for c in NUMPY_BAD])
def test_bad_argument_raises_numpys_class(call, fragment):
    theirs = _raised(lambda: call(onp))
    assert theirs is not None, "NumPy accepts this call: not a bad argument"
    for mode, run in (("eager", lambda: call(np)), ("jit", jit(lambda: call(np)))):
        ours = _raised(run)
        assert isinstance(ours, type(theirs)), (mode, repr(ours), repr(theirs))
        assert fragment in str(ours), (mode, str(ours))
        for text in ("mlir", "jaxlib", "Tracer' object has no attribute"):
            assert text not in str(ours)


def test_lax_reduce_window_huge_window():
    # no NumPy oracle: eager and jit raise the same ValueError before NumPy's kernel or XLA
    for window, fragment in (((2 ** 64,), "window_dimensions"), ((2 ** 63 - 1,), None)):
        f = lambda: lax.reduce_window(np.ones(3), 0.0, lax.add, window, (1,), "VALID")  # noqa: E731
        if fragment is None:   # a window that fits int64 and is larger than the operand
            assert f().shape == jit(f)().shape == (0,)
            continue
        for run in (f, jit(f)):
            with pytest.raises(ValueError, match="Maximum allowed dimension exceeded"):
                run()
    with pytest.raises(ValueError, match="window_dilation"):
        lax.reduce_window_max(np.ones(3), (2,), (1,), "VALID", window_dilation=(2 ** 63,))


def test_nan_to_num_copy_false_returns_its_input():
    h = onp.array([onp.nan, onp.inf, 1.0])
    assert onp.nan_to_num(h, copy=False) is h
    x = np.asarray([onp.nan, onp.inf, 1.0])
    view = x[1:]
    assert np.nan_to_num(x, copy=False) is x
    assert_same(x, onp.nan_to_num(onp.array([onp.nan, onp.inf, 1.0])))
    assert_same(view, onp.nan_to_num(onp.array([onp.inf, 1.0])))
    y = np.asarray([onp.nan, 2.0])
    assert np.nan_to_num(y) is not y and onp.isnan(onp.asarray(y)[0])   # copy=True
    i = np.arange(3)
    assert np.nan_to_num(i, copy=False) is i


@pytest.mark.parametrize("fn,cls,fragment", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_bad_argument_raises(fn, cls, fragment, mode):
    f = fn if mode == "eager" else jit(fn)
    with pytest.raises(cls, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        f()


def test_numpy_agrees_where_it_has_an_answer():
    # The arguments above that NumPy also rejects raise there too (the class may be a
    # subclass: NumPy's AxisError is a ValueError and an IndexError).
    checks = [
        (lambda: onp.zeros({}), TypeError), (lambda: onp.eye(1.5), TypeError),
        (lambda: onp.partition(onp.arange(3.0), 1.5), TypeError),
        (lambda: onp.partition(onp.arange(3.0), -100), ValueError),
        (lambda: onp.linspace(0, 1, 5, axis=3), AxisError),
        (lambda: onp.stack({1, 2}), TypeError), (lambda: onp.round(onp.ones(2), 1.5), TypeError),
        (lambda: onp.squeeze(onp.ones((1, 3)), axis=(0, 0)), ValueError),
        (lambda: onp.unravel_index(1, (-2,)), ValueError),
        (lambda: onp.copysign(onp.array([1j]), 1.0), TypeError),
        (lambda: onp.interp(1.5, [1.0, 2.0, 3.0], [1.0, 2.0]), ValueError),
        (lambda: onp.std(onp.ones(3), ddof=2 ** 63), OverflowError),
    ]
    for fn, cls in checks:
        with pytest.raises(cls):
            fn()


def test_static_and_differentiated_argument_checks():
    f = lambda x: x   # noqa: E731
    with pytest.raises(TypeError, match="static_argnums must be an int or a sequence"):
        jit(f, static_argnums="a")
    with pytest.raises(TypeError, match="static_argnames must be a str or a sequence"):
        jit(f, static_argnames=3)
    with pytest.raises(ValueError, match="static_argnums=\\(5,\\)"):
        jit(f, static_argnums=5)
    with pytest.raises(ValueError, match="static_argnames names \\['y'\\]"):
        jit(f, static_argnames="y")
    with pytest.raises(TypeError, match="argnums must be an int or a sequence"):
        grad(f, argnums="a")
    with pytest.raises(TypeError, match="argnums must be an int or a sequence"):
        grad(f, argnums=1.5)
    with pytest.raises(ValueError, match="at least one argument"):
        grad(f, argnums=())
    with pytest.raises(TypeError, match="argnums must be an int or a sequence"):
        minijax.jacfwd(f, argnums="a")(1.0)
    # still fine: *args functions, names that exist, negative indices
    assert int(jit(lambda *a: a[0] + a[1], static_argnums=1)(1, 2)) == 3
    assert int(jit(lambda x, y: x + y, static_argnames="y")(1, y=2)) == 3
    assert int(jit(lambda x, y: x + y, static_argnums=-1)(1, 2)) == 3


def test_array_take_method():
    x = onp.arange(6.0).reshape(2, 3)
    a = np.asarray(x)
    assert_same(a.take(4), x.take(4))
    assert_same(a.take([0, 2], axis=1), x.take([0, 2], axis=1))
    assert_same(jit(lambda v: v.take(onp.array([1, 0]), axis=0))(a), x.take([1, 0], axis=0))


def test_median_of_empty_is_nan_with_warning():
    for x, axis in ((onp.array([]), None), (onp.ones((0, 3)), 0), (onp.ones((0, 3)), 1),
                    (onp.ones((2, 0)), None)):
        with warnings.catch_warnings(record=True) as numpy_warned:
            warnings.simplefilter("always")
            expected = onp.median(x, axis=axis)
        numpy_warns = any("Mean of empty slice" in str(w.message) for w in numpy_warned)
        for f in both(lambda x=x, axis=axis: np.median(x, axis=axis)):
            with warnings.catch_warnings(record=True) as warned:
                warnings.simplefilter("always")
                out = f()
            assert numpy_warns == any("Mean of empty slice" in str(w.message) and
                                      w.category is RuntimeWarning for w in warned)
            assert_same(out, expected)


@pytest.mark.parametrize("axis", [0, 1, -1, 2, -3])
def test_linspace_family_with_array_endpoints_and_axis(axis):
    start, stop = onp.array([0.0, 1.0]), onp.array([[1.0, 2.0], [3.0, 5.0]])
    for f in both(lambda: np.linspace(start, stop, 5, axis=axis)):
        assert_same(f(), onp.linspace(start, stop, 5, axis=axis))
    for f in both(lambda: np.linspace(start, stop, 4, endpoint=False, retstep=True, axis=axis)):
        out, step = f()
        e_out, e_step = onp.linspace(start, stop, 4, endpoint=False, retstep=True, axis=axis)
        assert_same(out, e_out)
        assert_same(step, e_step)
    for f in both(lambda: np.logspace(start, stop, 3, axis=axis, base=onp.array([2.0, 3.0]))):
        onp.testing.assert_allclose(f(), onp.logspace(start, stop, 3, axis=axis,
                                                      base=onp.array([2.0, 3.0])), rtol=1e-12)
    for f in both(lambda: np.geomspace(start + 1, stop, 4, axis=axis)):
        onp.testing.assert_allclose(f(), onp.geomspace(start + 1, stop, 4, axis=axis),
                                    rtol=1e-12)


def test_linspace_integer_dtype_floors():
    for f in both(lambda: np.linspace(-3, 10, 7, dtype=int)):
        assert_same(f(), onp.linspace(-3, 10, 7, dtype=int))


def test_tensordot_axes_forms():
    a, b = onp.arange(24.0).reshape(2, 3, 4), onp.arange(12.0).reshape(4, 3)
    for axes in (0, -1, 1, ([1, 2], [1, 0]), (2, 0), ([2], [-2])):
        if axes == ([2], [-2]):
            expected = onp.tensordot(a, b, axes=([2], [0]))
        else:
            expected = onp.tensordot(a, b, axes=axes)
        for f in both(lambda axes=axes: np.tensordot(a, b, axes=axes)):
            assert_same(f(), expected)


def test_checks_vocabulary():
    assert _checks.shape(3) == (3,)
    assert _checks.shape(onp.int8(2)) == (2,)
    assert _checks.shape([1, onp.int64(2)]) == (1, 2)
    assert _checks.shape(onp.array([2, 3])) == (2, 3)
    assert _checks.index(onp.array(4)) == 4
    assert _checks.axes(-1, 3) == (2,)
    assert _checks.axes((0, -1), 3) == (0, 2)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted"):
        _checks.index(1.0)
    with pytest.raises(ValueError, match="array is too big"):
        _checks.array_size((BIG, BIG), onp.float64)
    assert _checks.array_size((2 ** 60,), onp.int8) == 2 ** 60
    assert _checks.flag(onp.int64(1), "keepdims") is True
    with pytest.raises(TypeError, match="keepdims: 'dict' object cannot be interpreted"):
        _checks.flag({}, "keepdims")
    with pytest.raises(OverflowError):
        _checks.flag(2 ** 64, "keepdims")
