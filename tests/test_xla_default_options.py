"""The suite compiles for compile speed, not with the options users get (tests/conftest.py:
FAST_COMPILE_FLAGS). Here the lax table's rows whose values depend most on XLA's code
generation (transcendental and special functions, a while loop, division and remainder,
conversions, reductions, sorting, dot, convolution, FFT) run again in a subprocess with
XLA's default options, so a lowering that is only right under the suite's flags fails;
so do the tests marked ``xla_defaults``, whose exact results hold only with them."""

import os
import re
import subprocess
import sys

from conftest import FAST_COMPILE_FLAGS

TESTS = os.path.dirname(os.path.abspath(__file__))
ROWS = ["exp", "expm1", "log", "log1p", "tanh", "logistic", "sin", "cos", "atan2", "pow",
        "rsqrt", "cbrt", "erf", "erf_inv", "lgamma", "digamma", "igamma-float64_0", "complex",
        "div", "rem", "round", "convert_element_type", "reduce_sum", "cumsum", "sort",
        "dot_general", "conv_general_dilated", "fft"]


def _default_env():
    return dict(os.environ, MINIJAX_TEST_XLA_DEFAULTS="1")


def test_the_subprocess_gets_xla_default_options():
    code = (f"import os, sys; sys.path.insert(0, {TESTS!r}); import conftest; "
            "print(os.environ['XLA_FLAGS'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_default_env(), timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert not set(out.stdout.split()) & set(FAST_COMPILE_FLAGS), out.stdout


def _run_with_defaults(args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, env=_default_env(), timeout=600)


def test_lax_table_rows_pass_with_xla_default_options():
    rows = " or ".join(f"[{name}-" if "-" not in name else f"[{name}]" for name in ROWS)
    out = _run_with_defaults([os.path.join(TESTS, "test_lax_table.py"),
                              "-k", f"kernels_agree and (float32 or float64) and ({rows})"])
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    passed = re.search(r"(\d+) passed", out.stdout)
    assert passed and int(passed.group(1)) >= 60, out.stdout[-2000:]


def _marks_xla_defaults(path):
    with open(path) as f:
        return "@pytest.mark.xla_defaults" in f.read()


def test_tests_marked_xla_defaults_pass_with_xla_default_options():
    files = sorted(path for path in (os.path.join(TESTS, name) for name in os.listdir(TESTS))
                   if path.endswith(".py") and os.path.basename(path).startswith("test_")
                   and path != os.path.abspath(__file__) and _marks_xla_defaults(path))
    assert files
    out = _run_with_defaults([*files, "-m", "xla_defaults"])
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    passed = re.search(r"(\d+) passed", out.stdout)
    assert passed and int(passed.group(1)) >= len(files), out.stdout[-2000:]
