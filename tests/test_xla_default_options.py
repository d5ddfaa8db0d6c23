"""The suite compiles with XLA's older, faster-compiling CPU emitters, not the ones users
get (tests/conftest.py: FAST_COMPILE_FLAGS). Here the lax table's rows whose values
depend most on XLA's code generation (transcendental and special functions, a while
loop, division and remainder, conversions, reductions, sorting, dot, convolution, FFT)
run again in a subprocess with XLA's default options, so a lowering that is only right
under the suite's flags fails."""

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


def test_lax_table_rows_pass_with_xla_default_options():
    rows = " or ".join(f"[{name}-" if "-" not in name else f"[{name}]" for name in ROWS)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", os.path.join(TESTS, "test_lax_table.py"),
         "-p", "no:cacheprovider", "-p", "no:xdist",
         "-k", f"kernels_agree and (float32 or float64) and ({rows})"],
        capture_output=True, text=True, env=_default_env(), timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    passed = re.search(r"(\d+) passed", out.stdout)
    assert passed and int(passed.group(1)) >= 60, out.stdout[-2000:]
