"""The backend registry (``minijax.backend``) and per-platform lowering rules.

A primitive may have a default lowering and rules for single platforms
(``Primitive.platform_lower``, written by ``extend.mlir.register_lowering(...,
platform=...)``); a program compiled for the CPU uses the CPU's rule, else the default,
never another platform's, and a primitive with rules for other platforms only fails
while lowering, with a named error, before XLA sees the program."""

import numpy as onp
import pytest

import minijax
import minijax.numpy as np
from minijax import backend
from minijax.backend import compile_cache
from minijax.core import ClosedJaxpr
from minijax.errors import InvalidDeviceError, MissingPlatformLoweringError, UnknownPlatformError
from minijax.extend import core, mlir
from minijax.extend.mlir import hlo
from minijax.interpreters.lowering import lower_jaxpr
from minijax.lax import linalg
from minijax.sharding import Mesh, NamedSharding, P


def test_registry_and_cpu_facts():
    cpu = backend.get_backend("cpu")
    assert isinstance(cpu, backend.Backend) and isinstance(cpu, backend.CpuBackend)
    assert backend.get_backend() is cpu and backend.backends() == {"cpu": cpu}
    assert cpu.platform == "cpu" and backend.default_platform() == "cpu"
    assert cpu.host_callback_target == "xla_ffi_python_cpu_callback"
    assert cpu.dlpack_device_type == 1 and cpu.reads_host_memory
    assert backend.get_client() is cpu.get_client() is backend.get_client("cpu")
    assert cpu.get_client().platform == "cpu"


def test_devices_two_cpu_devices_under_the_test_config():
    devs = backend.devices()
    assert len(devs) == 2 and [d.platform for d in devs] == ["cpu", "cpu"]
    assert list(backend.devices("cpu")) == list(devs) == list(minijax.devices())
    assert backend.default_device() == devs[0]
    for d in devs:
        assert backend.backend_for_device(d) is backend.get_backend("cpu")
        assert backend.platform_of(d) == "cpu" and backend.reads_host_memory(d)
        assert backend.resolve_device(d, "t") is d
    assert backend.platform_of(None) == "cpu" and backend.reads_host_memory(None)
    assert backend.dlpack_device(devs[1]) == (1, 0) and backend.dlpack_device(None) == (1, 0)
    assert backend.resolve_device("cpu", "t") == devs[0]
    x = minijax.device_put(np.arange(3.0), devs[1])
    assert backend.to_host(x._buffer).tolist() == [0.0, 1.0, 2.0]


def test_unknown_platforms_are_named_errors():
    with pytest.raises(UnknownPlatformError, match=r"unknown platform 'nope'.*'cpu', 'cuda'"):
        backend.get_backend("nope")
    assert issubclass(UnknownPlatformError, ValueError)
    # a platform minijax knows, with no backend in this process
    for name in ("cuda", "gpu", "tpu"):
        with pytest.raises(UnknownPlatformError, match=rf"no backend for platform '{name}'.*"
                                                       r"runs on 'cpu'"):
            backend.get_backend(name)
        with pytest.raises(UnknownPlatformError):
            backend.devices(name)
    with pytest.raises(InvalidDeviceError, match=r"'tpu'.*runs on 'cpu'"):
        backend.resolve_device("tpu", "device_put")


def _scaled(factor):
    """A lowering rule: ``x * factor``."""
    def rule(ctx, x):
        aval, = ctx.avals_in
        c = hlo.constant(mlir.ir.DenseElementsAttr.get(onp.full(aval.shape, factor, aval.dtype)))
        return [hlo.multiply(x, c)]
    return rule


def _refuse(ctx, x):
    raise AssertionError(f"the rule of another platform was used on {ctx.platform}")


def _primitive(name):
    p = core.Primitive(name)
    p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    return p


def test_the_cpu_rule_wins_over_the_default_on_cpu():
    p = _primitive("times_default_or_cpu")
    mlir.register_lowering(p, _scaled(3.0))
    mlir.register_lowering(p, _scaled(2.0), platform="cpu")
    mlir.register_lowering(p, _refuse, platform="cuda")
    assert p.platform_lower.keys() == {"cpu", "cuda"} and p.lower is not None
    x = np.arange(4.0)
    onp.testing.assert_array_equal(minijax.jit(p.bind)(x), [0.0, 2.0, 4.0, 6.0])
    # on the second device, and eagerly (no impl: eager evaluation compiles the rule)
    x1 = minijax.device_put(x, minijax.devices()[1])
    out = minijax.jit(p.bind)(x1)
    assert out.device == minijax.devices()[1]
    onp.testing.assert_array_equal(out, [0.0, 2.0, 4.0, 6.0])
    onp.testing.assert_array_equal(p.bind(x1), [0.0, 2.0, 4.0, 6.0])
    onp.testing.assert_array_equal(p.bind(x), [0.0, 2.0, 4.0, 6.0])


def test_rules_for_other_platforms_are_never_used_on_cpu():
    p = _primitive("times_default")
    mlir.register_lowering(p, _scaled(3.0))
    for platform in ("cuda", "rocm", "tpu", "gpu"):
        mlir.register_lowering(p, _refuse, platform=platform)
    assert p.platform_lower.keys() == {"cuda", "rocm", "tpu"}
    onp.testing.assert_array_equal(minijax.jit(p.bind)(np.ones(2)), [3.0, 3.0])
    # the decorator form writes the same table
    q = _primitive("decorated")
    q.def_lowering(lambda ctx, x: _scaled(5.0)(ctx, x)[0], platform="cpu")
    assert q.lower is None and q.has_lowering()
    onp.testing.assert_array_equal(minijax.jit(q.bind)(np.ones(2)), [5.0, 5.0])


def test_only_another_platforms_rule_is_a_named_error_before_xla():
    p = _primitive("cuda_only")
    mlir.register_lowering(p, _refuse, platform="cuda")
    assert p.lower is None and p.has_lowering()
    match = r"'cuda_only' has no lowering rule for platform 'cpu' \(only for 'cuda'\)"
    with pytest.raises(MissingPlatformLoweringError, match=match):
        minijax.jit(p.bind).lower(np.ones(2))   # lowering alone: nothing reaches XLA
    with pytest.raises(MissingPlatformLoweringError, match="register_lowering"):
        minijax.jit(p.bind)(np.ones(2))
    with pytest.raises(MissingPlatformLoweringError, match=match):
        p.bind(np.ones(2))   # eager: compiled through the lowering, which has no rule
    assert issubclass(MissingPlatformLoweringError, NotImplementedError)


def test_register_lowering_platform_names():
    p = _primitive("names")
    for bad in ("CPU", "cpus", "", 3):
        with pytest.raises(ValueError, match=r"'cpu', 'cuda', 'rocm', 'tpu'"):
            mlir.register_lowering(p, _refuse, platform=bad)
    assert p.platform_lower == {} and p.lower is None
    mlir.register_lowering(p, _refuse, platform="gpu")
    assert p.platform_lower.keys() == {"cuda", "rocm"}


_X = onp.eye(3) + 0.1


def test_lapack_lowerings_are_cpu_rules_with_unchanged_text():
    for prim in (linalg.cholesky_p, linalg.triangular_solve_p, linalg.lu_p, linalg.qr_p,
                 linalg.svd_p, linalg.eigh_p, linalg.eig_p, linalg.schur_p):
        assert prim.lower is None and "cpu" in prim.platform_lower, prim
    closed = minijax.make_jaxpr(linalg.cholesky)(_X)
    jaxpr = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    text = lower_jaxpr(jaxpr)
    assert lower_jaxpr(jaxpr, platform="cpu") == text
    assert 'call_target_name = "lapack_dpotrf_ffi"' in text and "uplo = 76 : ui8" in text
    assert "api_version = 4 : i32" in text
    # the same rule installed as the default lowering gives the same program
    p = linalg.cholesky_p
    rule = p.platform_lower.pop("cpu")
    try:
        p.lower = rule
        assert lower_jaxpr(jaxpr) == text
    finally:
        p.lower = None
        p.platform_lower["cpu"] = rule
    # lowering for a platform with no rule (rocm: cuda has cuSOLVER rules) stops before
    # XLA, naming the primitive
    with pytest.raises(MissingPlatformLoweringError, match=r"'cholesky'.*platform 'rocm'"):
        lower_jaxpr(jaxpr, platform="rocm")
    onp.testing.assert_allclose(minijax.jit(linalg.cholesky)(_X), onp.linalg.cholesky(_X))


def test_compile_cache_key_has_the_platform():
    class Client:
        platform_version = "v"

        def __init__(self, platform):
            self.platform = platform

        def device_count(self):
            return 1

    device = backend.default_device()
    keys = {compile_cache.make_key("text", Client(p), device, b"") for p in ("cpu", "cuda")}
    assert len(keys) == 2


@pytest.mark.xla_defaults
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
def test_bitwise_and_or_of_converted_narrow_integers_compile(dtype):
    """jaxlib 0.10's XLA CPU fusion emitters crash the process on a bitwise and/or of a
    signed integer narrower than 64 bits fed by a conversion to it: such a program is
    compiled with XLA's older emitters (run with XLA's defaults, in the subprocess of
    tests/test_xla_default_options.py, a crash there fails that test)."""
    a, b = onp.arange(-8, 8), onp.arange(16) % 5
    want_and = onp.bitwise_and(a.astype(dtype), b.astype(dtype))
    want_or = onp.bitwise_or(a.astype(dtype), b.astype(dtype))
    assert_same = onp.testing.assert_array_equal
    assert_same(minijax.jit(lambda x, y: x.astype(dtype) & y.astype(dtype))(a, b), want_and)
    assert_same(minijax.jit(lambda x, y: np.bitwise_or(x, y, dtype=dtype))(a, b), want_or)
    assert_same(minijax.jit(lambda x, y: x.astype(dtype) | y)(a, b.astype(dtype)), want_or)
    assert_same(minijax.vmap(lambda x, y: x.astype(dtype) & y.astype(dtype))(a, b), want_and)
    # and sharded over the suite's two CPU devices (XLA's SPMD compile)
    mesh = Mesh(onp.array(minijax.devices()[:2]), ("x",))
    xs = minijax.device_put(a, NamedSharding(mesh, P("x")))
    assert_same(minijax.jit(lambda x, y: x.astype(dtype) & y.astype(dtype))(xs, b), want_and)


def test_narrow_bitwise_programs_are_the_ones_compiled_with_older_emitters():
    """Only programs with both a narrow signed and/or and a conversion to a narrow
    signed type get the option (on jaxlib 0.10; 0.11 has no such option)."""
    from minijax.backend import _jaxlib
    lower = lambda f, *args: minijax.jit(f).lower(*args).as_text()
    a = onp.arange(4)
    narrow = lower(lambda x: x.astype("int16") & x.astype("int16"), a)
    older = [("xla_cpu_use_fusion_emitters", False)] if _jaxlib._CPU_EMITTER_OPTION else []
    assert _jaxlib.cpu_option_overrides(narrow) == older
    assert _jaxlib.cpu_option_overrides(
        lower(lambda x: x.astype("float32") > 1, a)) == []
    assert _jaxlib.cpu_option_overrides(lower(lambda x: x & 3, a)) == []
    assert _jaxlib.cpu_option_overrides(
        lower(lambda x: x.astype("uint32") & x.astype("uint32"), a)) == []
