#!/usr/bin/env bash
# The GPU tier of issue 20 on a machine with a CUDA device (see notes/gpu.md): versions
# and devices, tests/test_gpu.py, then benchmarks/gpu.py (minijax vs JAX, same run).
# Uses the machine's Python (jaxlib, the CUDA plugin, NumPy, JAX installed) and this
# checkout's source through PYTHONPATH; nothing is installed. Under 4 minutes.
# With --suite, afterwards (about 4 more minutes on 16 cores): the test suite on the CPU
# platform with that machine's jaxlib, NumPy and SciPy, and the linear-algebra table
# with CUDA as the default platform (the GPU kernels against LAPACK's behaviour). Build
# the core first (python3 setup.py build_ext --inplace -j 16) and set
# MINIJAX_UNCOMPILED=0, or the tests of the compiled core fail, as they are meant to.
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export MINIJAX_CACHE_DIR="${TMPDIR:-/tmp}/minijax-gpu-check-cache"
# The eager core is run from its Python source unless the caller built it (building
# takes a minute; this tier times compiled programs, not the eager core).
export MINIJAX_UNCOMPILED="${MINIJAX_UNCOMPILED:-1}"
PY="${PYTHON:-python3}"
"$PY" - <<'PYEOF' || { echo "gpu_check: no CUDA device minijax can start"; exit 1; }
import sys, numpy, jaxlib
import minijax
print("python", sys.version.split()[0], "numpy", numpy.__version__,
      "jaxlib", jaxlib.__version__, "minijax", minijax.__file__)
from minijax.backend import cuda
print("cuda plugin:", cuda.find_plugin())
print("devices:", minijax.devices("cuda"), "default backend:", minijax.default_backend())
PYEOF
status=0
# (pytest without the suite's conftest, which needs hypothesis; without pytest the
# module runs its tests itself)
if "$PY" -c "import pytest" 2>/dev/null; then
  timeout 150 "$PY" -m pytest -q -p no:cacheprovider --noconftest tests/test_gpu.py || status=$?
else
  timeout 150 "$PY" tests/test_gpu.py || status=$?
fi
# minijax and JAX share the GPU in one process: each takes 40% of its memory (the
# default, 75% each, leaves the second one retrying smaller allocations)
MINIJAX_GPU_MEMORY_FRACTION=0.4 XLA_PYTHON_CLIENT_MEM_FRACTION=0.4 \
  timeout 80 "$PY" benchmarks/gpu.py || status=$?
if [ "${1:-}" = "--suite" ]; then
  export HYPOTHESIS_PROFILE=ci MINIJAX_TEST_CACHE_DIR="${TMPDIR:-/tmp}/minijax-gpu-suite-cache"
  jobs=$(( $(nproc) > 4 ? $(nproc) - 4 : 1 ))
  timeout -s INT -k 20 240 "$PY" -m pytest -q -p no:cacheprovider -n "$jobs" -rfE \
    --tb=short tests || status=$?
  MINIJAX_PLATFORMS=cuda,cpu MINIJAX_GPU_PREALLOCATE=false timeout -s INT -k 20 120 \
    "$PY" -m pytest -q -p no:cacheprovider -n 4 -rfE --tb=short tests/test_lax_linalg.py \
    || status=$?
fi
exit $status
