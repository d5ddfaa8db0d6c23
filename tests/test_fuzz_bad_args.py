"""Fuzzing every public callable of ``minijax.numpy``, ``minijax.numpy.linalg``,
``minijax.lax`` and ``minijax.lax.linalg`` with bad arguments (issue 10).

Hypothesis draws batches of calls: a function, a few positional arguments and maybe a
keyword, from a pool of good arrays and junk (wrong types, out-of-range axes, huge,
negative and float shapes, strings, None, nested junk, 2**63, NaN, ...). Each batch runs
in one subprocess with a memory limit, every call eagerly and under ``jit``. The test
fails on

- an exception class outside ``ALLOWED`` (an AttributeError or KeyError is a bug: the
  argument should have been checked);
- XLA, MLIR or jaxlib text in a message;
- a crash (the subprocess dies) or a hang (a call runs past its time limit);
- a result where NumPy raises for the same call (functions NumPy has, same name).

``HYPOTHESIS_PROFILE=ci`` runs a few batches; ``dev`` more. ``FUZZ_BATCH`` sets the
calls per batch; ``FUZZ_REPORT=path`` appends each batch's outcome counts as JSON lines.
"""

import inspect
import json
import os
import subprocess
import sys
import textwrap

import numpy as onp
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import minijax
import minijax.lax as lax
import minijax.lax.linalg as lax_linalg
import minijax.numpy as mnp
import minijax.numpy.linalg as mnp_linalg

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = int(os.environ.get("FUZZ_BATCH", "24"))
CALL_SECONDS = 20
MEMORY_LIMIT = 6 << 30

# Arguments, as expressions the subprocess evaluates: good ones (so that a bad argument
# in another position is reached) and junk.
GOOD = ["onp.arange(6.0).reshape(2, 3)", "onp.arange(4)", "onp.array([1.5, -2.0, 0.0])",
        "onp.array([1 + 2j, 3j])", "onp.array([True, False])", "1.5", "2", "0", "1",
        "onp.float32", "(2, 3)", "[0, 1]"]
JUNK = ["None", "'1'", "'abc'", "b'x'", "1.5", "-1", "7", "-100", "2**63", "2**64", "-2**63",
        "2**62", "float('nan')", "float('inf')", "1j", "{}", "{'a': 1}", "{1, 2}", "[]",
        "[[1], [2, 3]]", "(1.5,)", "(2**62, 2**62)", "(2**31, 2**31)", "(-1,)", "(2**63,)",
        "((1,),)", "object()", "[None]", "(0, 0)", "(0, 7)", "onp.array(2.0)",
        "onp.ones((0,))", "onp.ones((0, 3))", "(lambda: 0)", "slice(None)", "Ellipsis",
        "'float64'", "'nonsense'", "True", "onp.array(['a'])", "onp.nan", "-0.0",
        "onp.ones((2, 2, 2, 2, 2))", "(2**40,)", "2**40", "[1.5, 2]"]
KEYWORDS = ["axis", "axes", "shape", "dtype", "k", "ddof", "kth", "decimals", "num", "ord",
            "keepdims", "out", "n", "dimension", "dimensions", "newshape", "mode", "side",
            "indexing", "bins", "weights", "reps", "offset", "axis1", "axis2", "size"]

# Exceptions a bad argument may raise: NumPy's (AxisError is a ValueError and an
# IndexError), minijax's named errors (all subclass these), and MemoryError for arrays
# that cannot exist.
ALLOWED = ("TypeError", "ValueError", "IndexError", "OverflowError", "NotImplementedError",
           "MemoryError", "ZeroDivisionError")   # (NumPy's for average's zero weights)
# Text from below minijax that must not reach the user.
FOREIGN_TEXT = ("mlir", "jaxlib", "stablehlo", "StatusOr", "RESOURCE_EXHAUSTED",
                "INVALID_ARGUMENT", "incompatible function arguments", "absl::", "hlo.",
                "_jax.")

# Callables that take functions or are not array functions: out of this fuzzer's scope
# (their own test modules cover their argument checks).
_TAKES_CALLABLES = {"scan", "cond", "switch", "while_loop", "fori_loop", "map", "associative_scan",
                    "custom_root", "custom_linear_solve", "reduce", "reduce_window", "sort_key_val",
                    "apply_along_axis", "apply_over_axes", "vectorize", "frompyfunc",
                    "piecewise", "fromfunction", "select_n_fn", "stop_gradient_fn"}
_NOT_ARRAY_FUNCTIONS = {"set_printoptions", "get_printoptions", "printoptions", "save", "load",
                        "savez", "loadtxt", "savetxt", "genfromtxt", "fromfile", "tofile",
                        "info", "show_config", "test", "from_dlpack", "show_runtime",
                        "savez_compressed", "fromregex", "seterr", "seterrcall", "geterr",
                        "geterrcall", "setbufsize", "getbufsize"}


def _public(module):
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    out = []
    for n in sorted(set(names)):
        obj = getattr(module, n, None)
        if obj is None or not callable(obj) or inspect.isclass(obj) or inspect.ismodule(obj):
            continue
        if n in _TAKES_CALLABLES or n in _NOT_ARRAY_FUNCTIONS or n.endswith("_p"):
            continue
        out.append(n)
    return out


MODULES = {"numpy": mnp, "numpy.linalg": mnp_linalg, "lax": lax, "lax.linalg": lax_linalg}
FUNCTIONS = [(m, n) for m, mod in MODULES.items() for n in _public(mod)]


def _keywords(module, name):
    try:
        params = inspect.signature(getattr(MODULES[module], name)).parameters
    except (TypeError, ValueError):
        return []
    return [k for k in KEYWORDS if k in params]


_RUNNER = textwrap.dedent("""
    import json, os, resource, signal, sys, warnings
    resource.setrlimit(resource.RLIMIT_AS, (__LIMIT__, __LIMIT__))
    warnings.simplefilter("ignore")
    import numpy as onp
    import minijax
    import minijax.numpy as mnp, minijax.numpy.linalg as mnp_linalg
    import minijax.lax as lax, minijax.lax.linalg as lax_linalg
    MODULES = {"numpy": mnp, "numpy.linalg": mnp_linalg, "lax": lax, "lax.linalg": lax_linalg}
    NUMPY = {"numpy": onp, "numpy.linalg": onp.linalg}

    class Hang(BaseException):
        pass

    def on_alarm(*_):
        raise Hang()
    signal.signal(signal.SIGALRM, on_alarm)

    def run(fn, args, kwargs):
        signal.alarm(__SECONDS__)
        try:
            fn(*args, **kwargs)
            return ["result", "", ""]
        except Hang:
            return ["hang", "", ""]
        except BaseException as e:
            names = [c.__name__ for c in type(e).__mro__]
            return ["raised", names, str(e)[:500]]
        finally:
            signal.alarm(0)

    for i, (module, name, args, kwargs) in enumerate(json.loads(sys.stdin.read())):
        print(json.dumps(["start", i]), flush=True)
        fn = getattr(MODULES[module], name)
        ref = getattr(NUMPY.get(module), name, None) if module in NUMPY else None
        out = {}
        for mode in ("eager", "jit"):
            a = [eval(x) for x in args]
            kw = {k: eval(v) for k, v in kwargs.items()}
            call = fn if mode == "eager" else minijax.jit(lambda *a, **kw: fn(*a, **kw),
                                                          static_argnums=tuple(range(len(a))),
                                                          static_argnames=tuple(kw))
            if mode == "jit":
                # junk is static (hashable) or closed over (unhashable)
                try:
                    hash((tuple(a), tuple(kw.items())))
                except TypeError:
                    call = minijax.jit(lambda a=a, kw=kw: fn(*a, **kw))
                    a, kw = [], {}
            out[mode] = run(call, a, kw)
        if ref is not None:
            a = [eval(x) for x in args]
            kw = {k: eval(v) for k, v in kwargs.items()}
            out["numpy"] = run(ref, a, kw)
        print(json.dumps(["done", i, out]), flush=True)
""").replace("__LIMIT__", str(MEMORY_LIMIT)).replace("__SECONDS__", str(CALL_SECONDS))


def run_batch(cases):
    """Run ``cases`` in one subprocess; returns ``(outcomes, problems)``: per case the
    outcome of each mode, and a list of failure descriptions."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(cases),
                              env=env, capture_output=True, text=True,
                              timeout=CALL_SECONDS * 2 * len(cases) + 120)
        stdout, returncode, stderr = proc.stdout, proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        returncode, stderr = "timeout", ""
    outcomes, problems, started = {}, [], None
    for line in stdout.splitlines():
        msg = json.loads(line)
        if msg[0] == "start":
            started = msg[1]
        else:
            outcomes[msg[1]] = msg[2]
    if len(outcomes) < len(cases):
        i = started if started is not None else 0
        problems.append(f"crash or hang (exit {returncode}) in {_describe(cases[i])}: "
                        f"{stderr[-1500:]}")
    for i, out in outcomes.items():
        problems.extend(_judge(cases[i], out))
    return outcomes, problems


def _describe(case):
    module, name, args, kwargs = case
    parts = list(args) + [f"{k}={v}" for k, v in kwargs.items()]
    return f"{module}.{name}({', '.join(parts)})"


def _judge(case, out):
    problems = []
    for mode in ("eager", "jit"):
        kind, classes, message = out[mode]
        where = f"{_describe(case)} [{mode}]"
        if kind == "hang":
            problems.append(f"hang: {where}")
        elif kind == "raised":
            if not any(c in ALLOWED for c in classes):
                problems.append(f"{classes[0]} is not a named error: {where}: {message}")
            elif any(t in message for t in FOREIGN_TEXT):
                problems.append(f"XLA/MLIR text in the message: {where}: {message}")
        elif kind == "result" and "numpy" in out and out["numpy"][0] == "raised" and not (
                _not_a_rejection(out["numpy"], mode, case[1])):
            problems.append(f"a result where NumPy raises {out['numpy'][1][0]} "
                            f"({out['numpy'][2][:200]}): {where}")
    return problems


# NumPy builds these masks with arange(-k, ...), which overflows int64 for some k near
# ±2**63 (and not for others: triu(x, k=2**63) is all zeros); minijax gives the defined
# answer for every k (a diagonal beyond the matrix selects all or nothing)
_DIAGONAL_OFFSET_FUNCTIONS = {"tri", "tril", "triu", "eye"}


def _not_a_rejection(numpy_outcome, mode, name):
    """NumPy raised, but not because the argument is bad: its signature differs (a keyword
    minijax takes from JAX or the Array API, one a newer NumPy removed, or a parameter
    NumPy requires and minijax defaults, as clip's bounds), it tripped over a list where it assumed
    an ndarray (AttributeError), or it found a singular matrix, which traced code reports
    with NaNs instead of raising, an all-NaN slice given to nanargmin/nanargmax, for
    which traced code returns -1 as JAX does, or a histogram range too narrow for its
    bins, which traced data cannot be checked for (README: what traced code does when it
    cannot raise)."""
    _, classes, message = numpy_outcome
    return ("unexpected keyword argument" in message or "required positional argument" in message
            or "AttributeError" in classes
            or (mode == "jit" and ("LinAlgError" in classes
                                   or "All-NaN slice encountered" in message
                                   or "Too many bins for data range" in message))
            or (name in _DIAGONAL_OFFSET_FUNCTIONS and "OverflowError" in classes))


@st.composite
def calls(draw):
    module, name = draw(st.sampled_from(FUNCTIONS))
    nargs = draw(st.integers(0, 3))
    args = [draw(st.sampled_from(GOOD + JUNK)) for _ in range(nargs)]
    if args and not any(a in JUNK for a in args):
        args[draw(st.integers(0, nargs - 1))] = draw(st.sampled_from(JUNK))
    kwargs = {}
    keywords = _keywords(module, name)
    if keywords and (not args or draw(st.booleans())):
        if not args:
            args = [draw(st.sampled_from(GOOD))]
        kwargs[draw(st.sampled_from(keywords))] = draw(st.sampled_from(JUNK))
    return [module, name, args, kwargs]


def _record(outcomes, problems):
    path = os.environ.get("FUZZ_REPORT")
    if not path:
        return
    counts = {}
    for out in outcomes.values():
        for mode in ("eager", "jit"):
            kind, classes, _ = out[mode]
            key = f"{mode}:{kind}" if kind != "raised" else f"{mode}:raised {classes[0]}"
            counts[key] = counts.get(key, 0) + 1
    with open(path, "a") as f:
        f.write(json.dumps({"counts": counts, "problems": problems}) + "\n")


@settings(max_examples=settings().max_examples // 3 or 1,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])   # no shrinking: the
# report names each failing call, and a shrink step is a subprocess
@given(st.lists(calls(), min_size=BATCH, max_size=BATCH))
def test_bad_arguments_raise_named_errors(cases):
    outcomes, problems = run_batch(cases)
    _record(outcomes, problems)
    assert not problems, "\n".join(problems)


# Issue 24: calls the fuzzer found (or could find) that crashed, hung, or raised foreign
# text; each must now raise NumPy's class (or a subclass), eagerly and under jit.
REGRESSIONS = [
    ["numpy", "digitize", ["onp.array([1.0, 2.0])", "onp.array([1j, 2j])"], {}],
    ["numpy.linalg", "cond", ["onp.zeros((0, 0))"], {}],
    ["numpy", "trace", ["onp.ones((2, 2))"], {"offset": "2**63"}],
    ["numpy", "diagonal", ["onp.ones((2, 2))"], {"offset": "2**63"}],
    ["numpy", "place", ["onp.ones(3)", "onp.array(True)", "[5.0]"], {}],
    ["numpy", "fromfile", ["onp.ones(3)"], {}],
    ["numpy", "genfromtxt", ["onp.ones(3)"], {}],
    ["numpy", "fromregex", ["onp.ones(3)", "'(1)'", "[('a', onp.int64)]"], {}],
    ["numpy", "polyder", ["onp.array([1.0, 2.0, 3.0])"], {"m": "2**63"}],
    ["numpy", "vander", ["onp.array([1.0, 2.0])"], {"N": "2**63"}],
    ["numpy", "isneginf", ["onp.ones(2)", "None"], {"out": "None"}],
    ["lax", "reduce_window", ["onp.ones(3)", "0.0", "lax.add", "(2**64,)", "(1,)", "'VALID'"],
     {}],
    # issue 23's fuzz findings: one integer axis (NumPy's TypeError, also under jit)
    ["numpy", "trapezoid", ["onp.arange(4)"], {"axis": "(-1,)"}],
    ["numpy", "trapezoid", ["onp.arange(4)"], {"axis": "None"}],
    ["numpy", "unwrap", ["onp.arange(4.0)"], {"axis": "(-1,)"}],
    # session 19's: scalar keys (NumPy takes axis 0 or -1 only)
    ["numpy", "lexsort", ["onp.arange(4)"], {"axis": "-100"}],
    ["numpy", "histogram_bin_edges", ["(2**63,)"], {}],
    ["numpy", "histogramdd", ["1j"], {}],
    ["numpy.linalg", "matrix_rank", ["onp.arange(6.0).reshape(2, 3)", "[1.5, 2]",
                                     "onp.arange(4)"], {}],
    ["numpy", "delete", ["(1.5,)", "onp.ones((0,))"], {"axis": "None"}],
    ["numpy", "geomspace", ["1.5", "[0, 1]"], {}],
    ["numpy", "percentile", ["onp.arange(6.0).reshape(2, 3)", "onp.ones((2, 2, 2))"], {}],
    ["numpy", "partition", ["onp.array([1.5, -2.0, 0.0])"], {"kth": "onp.ones((0,))"}],
    ["numpy", "average", ["onp.array([1 + 2j, 3j])"], {"weights": "(0, 0)"}],
]


def test_regressions_raise_numpys_class():
    outcomes, problems = run_batch(REGRESSIONS)
    assert not problems, "\n".join(problems)
    for i, case in enumerate(REGRESSIONS):
        out = outcomes[i]
        for mode in ("eager", "jit"):
            assert out[mode][0] == "raised", (_describe(case), mode, out[mode])
            if "numpy" in out:
                assert out["numpy"][0] == "raised"
                assert out["numpy"][1][0] in out[mode][1], (_describe(case), mode, out)


@pytest.mark.parametrize("call", [lambda m: m.take_along_axis(onp.array(["a"]), (2 ** 40,)),
                                  lambda m: m.linalg.eigh(onp.array(["a"]), 1)])
def test_numpys_attribute_errors_on_string_arrays_are_type_errors(call):
    # NumPy's own slip over an argument's kind (a tuple for an array, an int for a
    # string) on a string array, where its answer is final (issue 19's fuzz findings)
    with pytest.raises(AttributeError):
        call(onp)
    with pytest.raises(TypeError, match="NumPy cannot take an argument of this kind"):
        call(mnp)
    with pytest.raises(TypeError):
        minijax.jit(lambda: call(mnp))()


def test_positive_of_bool_raises_as_numpys_under_jit_too():
    with pytest.raises(TypeError):
        onp.positive(True)
    for call in (lambda: mnp.positive(True), minijax.jit(lambda: mnp.positive(True)),
                 lambda: minijax.jit(lambda x: +x)(onp.array([True]))):
        with pytest.raises(TypeError):
            call()


@pytest.mark.parametrize("name", ["atan2", "arctan2", "hypot", "fmod", "logical_xor"])
def test_object_loop_ufuncs_raise_type_error(name):
    # NumPy's object loop for these looks up a method per element and lets the
    # AttributeError out (issue 23); minijax names the argument, eagerly and under jit
    fn = getattr(mnp, name)
    bad = (lambda: 0)   # noqa: E731
    with pytest.raises(TypeError, match="argument 0 of type function"):
        fn(bad, onp.array(["a"]))
    with pytest.raises(TypeError, match="argument 0 of type str"):
        fn(onp.array(["a"]), bad)
    with pytest.raises(TypeError, match="type function|dtype object"):
        minijax.jit(lambda: fn(bad, onp.array(["a"])))()


def test_fuzzer_sees_every_module():
    modules = {m for m, _ in FUNCTIONS}
    assert modules == set(MODULES)
    assert len(FUNCTIONS) > 300


def test_fuzzer_reports_each_failure_kind():
    # The judge itself: a bad class, foreign text, a hang and a result where NumPy raises
    # are each reported; a named error is not.
    case = ["numpy", "sum", ["None"], {}]
    ok = ["raised", ["TypeError", "Exception"], "bad"]
    assert _judge(case, {"eager": ok, "jit": ok}) == []
    bad = ["raised", ["AttributeError", "Exception"], "x"]
    assert "not a named error" in _judge(case, {"eager": bad, "jit": ok})[0]
    mlir = ["raised", ["TypeError"], "get(): incompatible function arguments"]
    assert "XLA/MLIR" in _judge(case, {"eager": ok, "jit": mlir})[0]
    assert "hang" in _judge(case, {"eager": ["hang", "", ""], "jit": ok})[0]
    res = ["result", "", ""]
    assert "NumPy raises" in _judge(case, {"eager": res, "jit": ok, "numpy": ok})[0]


def test_fuzzer_catches_a_crash():
    # A call that kills the subprocess is reported, naming the call.
    crash = ["numpy", "sum", ["__import__('os').abort()"], {}]
    fine = ["numpy", "sum", ["None"], {}]
    outcomes, problems = run_batch([fine, crash])
    assert 0 in outcomes and 1 not in outcomes
    assert len(problems) == 1 and "crash or hang" in problems[0] and "abort" in problems[0]
