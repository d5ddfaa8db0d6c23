"""minijax next to other libraries: it never imports JAX (installed or not) and
leaves ``sys.modules`` as it found it, so libraries that probe for JAX (array-api-
compat, SciPy) keep working on NumPy arrays after ``import minijax``."""

import importlib.util
import subprocess
import sys
import textwrap

import pytest

# Imported by the child before anything else: makes `import jax` fail as it does where
# JAX is not installed, through the import system (no sys.modules entry is written).
HIDE_JAX = """
import sys
class _NoJax:
    def find_spec(self, name, path=None, target=None):
        if name == "jax" or name.startswith("jax."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoJax())
"""

# Everything that reaches jaxlib: eager ops, transfers both ways, jit, grad, vmap,
# LAPACK, bfloat16, DLPack, several devices.
WORKLOAD = """
import numpy as onp
import minijax, minijax.numpy as np
x = np.asarray(onp.arange(6.0).reshape(2, 3))
y = np.sin(x) @ x.T + 1
f = minijax.jit(lambda a: np.tanh(a) * 2)
z = f(x)
onp.testing.assert_allclose(onp.asarray(z), onp.tanh(onp.arange(6.0).reshape(2, 3)) * 2)
g = minijax.jit(minijax.grad(minijax.grad(lambda t: np.sin(t) * t)))
assert abs(float(g(1.5)) - (2 * onp.cos(1.5) - 1.5 * onp.sin(1.5))) < 1e-9
v = minijax.vmap(lambda r: r @ r)(x)
onp.testing.assert_allclose(onp.asarray(v), (onp.arange(6.0).reshape(2, 3) ** 2).sum(1))
inv = minijax.jit(np.linalg.inv)(np.eye(3) * 2.0)
onp.testing.assert_allclose(onp.asarray(inv), onp.eye(3) / 2)
b = minijax.jit(lambda a: a + 1)(np.asarray(onp.arange(3, dtype=np.bfloat16)))
assert b.dtype == np.bfloat16 and onp.asarray(b).tolist() == [1, 2, 3]
d = minijax.device_put(x, minijax.devices()[0])
assert onp.from_dlpack(d).shape == (2, 3) and float(np.sum(y)) != 0
w = np.from_dlpack(onp.arange(3.0))
assert f(w).block_until_ready().shape == (3,) and str(z) and repr(f(w))
"""


def _run(code, hide_jax=False):
    code = (HIDE_JAX if hide_jax else "") + textwrap.dedent(code)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                    reason="needs JAX installed (the test extra has it)")
def test_jax_installed_is_never_imported():
    out = _run(WORKLOAD + """
import sys
loaded = sorted(m for m in sys.modules if m == "jax" or m.startswith("jax."))
assert not loaded, loaded[:10]
import importlib.util
assert importlib.util.find_spec("jax") is not None   # it was there to be imported
import jax, jax.numpy as jnp                         # and JAX still works beside minijax
onp.testing.assert_allclose(onp.asarray(jax.jit(lambda t: t * 2)(jnp.asarray(onp.asarray(z)))),
                            onp.asarray(z) * 2, rtol=1e-6)
assert float(f(np.asarray(2.0))) == float(onp.tanh(2.0) * 2)
print("ok")
""")
    assert out.strip() == "ok"


@pytest.mark.parametrize("hide_jax", [False, True], ids=["jax-installed", "jax-absent"])
def test_import_leaves_sys_modules_alone(hide_jax):
    out = _run("""
import sys
before = dict(sys.modules)
import minijax, minijax.numpy
after = dict(sys.modules)
changed = [k for k, m in before.items() if after.get(k) is not m]
assert not changed, changed
nones = [k for k, m in after.items() if m is None]
assert not nones, nones
""" + WORKLOAD + """
assert not [k for k, m in sys.modules.items() if m is None]
assert not [k for k in sys.modules if k == "jax" or k.startswith("jax.")]
print("ok")
""", hide_jax)
    assert out.strip() == "ok"


@pytest.mark.parametrize("hide_jax", [False, True], ids=["jax-installed", "jax-absent"])
def test_array_api_compat_and_scipy_work_after_import(hide_jax):
    pytest.importorskip("array_api_compat")
    pytest.importorskip("scipy")
    out = _run("""
import numpy as onp
import minijax, minijax.numpy as np
from array_api_compat import array_namespace, is_numpy_array
a = onp.arange(4.0)
assert is_numpy_array(a)
assert array_namespace(a).__name__.endswith("numpy")
assert array_namespace(np.asarray(a)) is np
import scipy.special, scipy.stats, scipy.linalg
onp.testing.assert_allclose(scipy.special.logsumexp(a), onp.log(onp.exp(a).sum()))
onp.testing.assert_allclose(scipy.stats.zscore(a), (a - a.mean()) / a.std())
onp.testing.assert_allclose(scipy.linalg.expm(onp.zeros((2, 2))), onp.eye(2))
print("ok")
""", hide_jax)
    assert out.strip() == "ok"
