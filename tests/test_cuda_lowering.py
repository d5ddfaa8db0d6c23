"""Lowering for the GPU ("cuda") on a machine without one, with JAX's lowering as oracle.

JAX lowers for a platform it has no device for (``jit(f).trace(x).lower(
lowering_platforms=("cuda",))``), so its program text says which cuSOLVER/cuBLAS kernels
each linear-algebra primitive calls on the GPU and with which operand types, layouts and
attributes: on a real GPU a wrong attribute crashes the kernel or gives wrong data. Each
test lowers the same function with minijax and with JAX and compares, in program order,
every custom call (target, types, layouts, aliases, api_version, backend config,
frontend attributes) and every ``stablehlo.triangular_solve``. Nothing here compiles.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.interpreters import mlir as jax_mlir
from jax._src.lax import linalg as jax_linalg
from jax._src.lib.mlir import ir as jax_ir

import minijax
import minijax.numpy as mnp
from minijax import lax
from minijax.lax import linalg
from minijax.errors import MissingPlatformLoweringError
from test_lax_table import HIGHER_ORDER, ROWS, sample

F32, F64, C64, C128 = (np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                              np.complex128))
DTYPES = [F32, F64, C64, C128]
# The custom-call attributes compared (sdy.sharding_rule, JAX's partitioner's, is not).
KEYS = ("call_target_name", "api_version", "backend_config", "has_side_effect",
        "mhlo.backend_config", "mhlo.frontend_attributes", "operand_layouts",
        "result_layouts", "output_operand_aliases",
        # stablehlo.triangular_solve
        "left_side", "lower", "transpose_a", "unit_diagonal")
_CTX = jax_mlir.make_ir_context()


@pytest.fixture(scope="module", autouse=True)
def _jax_x64():
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", False)


def _kernel_ops(module):
    """Every custom call and triangular solve of ``module``, in order, as comparable
    tuples (name, operand types, result types, the KEYS attributes present)."""
    found = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    if inner.name in ("stablehlo.custom_call", "stablehlo.triangular_solve"):
                        attrs = {k: str(inner.attributes[k]) for k in KEYS
                                 if k in inner.attributes}
                        found.append((inner.name, tuple(str(v.type) for v in inner.operands),
                                      tuple(str(r.type) for r in inner.results), attrs))
                    walk(inner)
    walk(module.operation)
    return found


def minijax_cuda_text(f, *args):
    return minijax.jit(f).trace(*args).lower(lowering_platforms=("cuda",)).as_text()


def minijax_kernels(f, *args):
    with _CTX:
        return _kernel_ops(jax_ir.Module.parse(minijax_cuda_text(f, *args)))


def jax_kernels(f, *args):
    return _kernel_ops(jax.jit(f).trace(*args).lower(lowering_platforms=("cuda",))
                       .compiler_ir())


def assert_same_kernels(make, *args):
    """``make(lib)`` is the function written with ``lib`` (minijax or jax); its cuda
    lowerings call the same kernels with the same attributes, in the same order."""
    ours, theirs = minijax_kernels(make(minijax), *args), jax_kernels(make(jax), *args)
    assert theirs, "the oracle calls no kernel: the case tests nothing"
    assert [o[0] for o in ours] == [t[0] for t in theirs]
    for o, t in zip(ours, theirs):
        assert o == t, f"\nminijax: {o}\nJAX:     {t}"
    return ours


def _hermitian_pd(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    a = a @ np.swapaxes(a.conj(), -1, -2) + shape[-1] * np.eye(shape[-1])
    return a.astype(dtype)


def _matrix(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _targets(kernels):
    """The custom-call targets, or the op names of other kernels."""
    return [k[3]["call_target_name"].strip('"') if "call_target_name" in k[3] else k[0]
            for k in kernels]


# ---------------------------------------------------------------- lax.linalg, per dtype

@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cholesky(dtype, batch):
    ks = assert_same_kernels(lambda lib: lib.lax.linalg.cholesky,
                             _hermitian_pd(batch + (4, 4), dtype))
    assert _targets(ks) == ['cusolver_potrf_ffi']


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)], ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu(dtype, batch, shape):
    ks = assert_same_kernels(lambda lib: lib.lax.linalg.lu, _matrix(batch + shape, dtype))
    assert _targets(ks) == ['cusolver_getrf_ffi', 'cu_lu_pivots_to_permutation']


def test_lu_pivots_to_permutation():
    piv = np.array([[2, 2, 3], [1, 1, 2]], np.int32)
    assert_same_kernels(lambda lib: lambda p: lib.lax.linalg.lu_pivots_to_permutation(p, 5),
                        piv)


@pytest.mark.parametrize("full_matrices", [True, False], ids=["full", "reduced"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_qr(dtype, batch, shape, full_matrices):
    ks = assert_same_kernels(
        lambda lib: lambda x: lib.lax.linalg.qr(x, full_matrices=full_matrices),
        _matrix(batch + shape, dtype))
    assert _targets(ks) == ['cusolver_geqrf_ffi', 'cusolver_orgqr_ffi']


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)], ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_geqrf(dtype, batch, shape):
    # (JAX 0.10 does not export its geqrf from jax.lax.linalg)
    ks = assert_same_kernels(lambda lib: linalg.geqrf if lib is minijax else jax_linalg.geqrf,
                             _matrix(batch + shape, dtype))
    assert _targets(ks) == ['cusolver_geqrf_ffi']


@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_eigh(dtype, batch, lower):
    ks = assert_same_kernels(lambda lib: lambda x: lib.lax.linalg.eigh(x, lower=lower),
                             _hermitian_pd(batch + (4, 4), dtype))
    assert _targets(ks) == ['cusolver_syevd_ffi']


SVD_CASES = [((5, 3), True, True), ((3, 5), False, True), ((3, 5), True, False),
             # over 32 x 32: gesvdj's economic mode
             ((40, 34), False, True)]


@pytest.mark.parametrize("shape,full_matrices,compute_uv", SVD_CASES, ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_svd_jacobi(dtype, batch, shape, full_matrices, compute_uv):
    ks = assert_same_kernels(
        lambda lib: lambda x: lib.lax.linalg.svd(x, full_matrices=full_matrices,
                                                 compute_uv=compute_uv),
        _matrix(batch + shape, dtype))
    assert _targets(ks) == ['cusolver_gesvdj_ffi']


@pytest.mark.parametrize("shape,full_matrices,compute_uv",
                         [((1030, 4), True, True), ((4, 1030), False, True),
                          ((4, 1030), True, False)], ids=str)
def test_svd_qr_algorithm_for_large_matrices(shape, full_matrices, compute_uv):
    # JAX picks gesvd past 1024 rows or columns; a wide one is factored transposed.
    ks = assert_same_kernels(
        lambda lib: lambda x: lib.lax.linalg.svd(x, full_matrices=full_matrices,
                                                 compute_uv=compute_uv),
        np.zeros(shape, np.float32))
    assert _targets(ks) == ['cusolver_gesvd_ffi']


@pytest.mark.parametrize("left,right", [(True, True), (False, True), (False, False)])
@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_eig(dtype, batch, left, right):
    ks = assert_same_kernels(
        lambda lib: lambda x: lib.lax.linalg.eig(x, compute_left_eigenvectors=left,
                                                 compute_right_eigenvectors=right),
        _matrix(batch + (3, 3), dtype))
    # (JAX's choice, as minijax's: cuSOLVER's geev where the installed CUDA plugin's
    # cuSOLVER has it and no left eigenvectors are asked for, else the hybrid kernel)
    if not left and (linalg.cusolver_version() or 0) >= linalg.CUSOLVER_GEEV:
        assert _targets(ks) == ['cusolver_geev_ffi']
    else:
        assert _targets(ks) == ['cuhybrid_eig_comp' if dtype.kind == "c"
                                else 'cuhybrid_eig_real']


@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.complex128)], ids=str)
def test_eig_uses_cusolvers_geev_where_the_plugin_has_it(monkeypatch, dtype, left):
    monkeypatch.setattr(linalg, "cusolver_version", lambda: 11800)
    ks = minijax_kernels(lambda x: lax.linalg.eig(x, compute_left_eigenvectors=left),
                         _matrix((2, 3, 3), dtype))
    if left:   # (geev here computes right eigenvectors only)
        assert _targets(ks) == ['cuhybrid_eig_comp' if dtype.kind == "c"
                                else 'cuhybrid_eig_real']
        return
    assert _targets(ks) == ['cusolver_geev_ffi']
    _, operands, results, attributes = ks[0]
    element, w = ("f32", "complex<f32>") if dtype.kind == "f" else ("complex<f64>",) * 2
    assert operands == (f"tensor<2x3x3x{element}>",)
    assert results[1] == f"tensor<2x3x{w}>" and results[2] == results[3] == operands[0]
    assert attributes["mhlo.backend_config"] == "{left = false, right = true}"


TRSM_FLAGS = [dict(left_side=True, lower=True),
              dict(left_side=False, lower=False, unit_diagonal=True),
              dict(left_side=True, lower=False, transpose_a=True),
              dict(left_side=True, lower=True, conjugate_a=True),
              dict(left_side=False, lower=True, transpose_a=True, conjugate_a=True)]


@pytest.mark.parametrize("flags", TRSM_FLAGS, ids=lambda f: ",".join(f))
@pytest.mark.parametrize("batch", [(), (2,)], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_triangular_solve(dtype, batch, flags):
    a = _matrix(batch + (4, 4), dtype)
    b = _matrix(batch + ((4, 2) if flags["left_side"] else (3, 4)), dtype, seed=1)
    ks = assert_same_kernels(
        lambda lib: lambda a, b: lib.lax.linalg.triangular_solve(a, b, **flags), a, b)
    # XLA's own op: a cuBLAS trsm on the GPU
    assert _targets(ks) == ["stablehlo.triangular_solve"]


def test_schur_has_no_gpu_lowering_as_in_jax():
    x = _matrix((3, 3), F32)
    with pytest.raises(NotImplementedError, match="schur"):
        jax_kernels(jax.lax.linalg.schur, x)
    with pytest.raises(MissingPlatformLoweringError, match="'schur'.*'cuda'"):
        minijax_cuda_text(lax.linalg.schur, x)


def test_empty_operands_lower_to_constants():
    # No kernel is called for a matrix with no elements (its results are constants).
    for f in (lax.linalg.cholesky, lax.linalg.lu, lax.linalg.qr, lax.linalg.svd,
              lax.linalg.eigh):
        assert "custom_call" not in minijax_cuda_text(f, np.zeros((0, 0), np.float32))


# ---------------------------------------------------------------- numpy and scipy functions

NUMPY_FUNCS = [
    ("solve", lambda np_: lambda a, b: np_.linalg.solve(a, b), "square_rhs"),
    ("inv", lambda np_: np_.linalg.inv, "square"),
    ("det", lambda np_: np_.linalg.det, "square"),
    ("slogdet", lambda np_: np_.linalg.slogdet, "square"),
    ("cholesky", lambda np_: np_.linalg.cholesky, "spd"),
    ("eigh", lambda np_: np_.linalg.eigh, "spd"),
    ("eigvalsh", lambda np_: np_.linalg.eigvalsh, "spd"),
    ("qr", lambda np_: np_.linalg.qr, "tall"),
    ("svd", lambda np_: np_.linalg.svd, "tall"),
    ("pinv", lambda np_: np_.linalg.pinv, "tall"),
    ("matrix_rank", lambda np_: np_.linalg.matrix_rank, "tall"),
    ("norm2", lambda np_: lambda a: np_.linalg.norm(a, 2), "tall"),
    ("lstsq", lambda np_: lambda a, b: np_.linalg.lstsq(a, b)[0], "tall_rhs"),
    ("eig", lambda np_: np_.linalg.eig, "square"),
]


def _numpy_args(kind, dtype):
    if kind == "square":
        return (_matrix((4, 4), dtype),)
    if kind == "square_rhs":
        return _matrix((4, 4), dtype), _matrix((4, 2), dtype, 1)
    if kind == "spd":
        return (_hermitian_pd((4, 4), dtype),)
    if kind == "tall":
        return (_matrix((5, 3), dtype),)
    return _matrix((5, 3), dtype), _matrix((5, 2), dtype, 1)


@pytest.mark.parametrize("dtype", [F32, C128], ids=str)
@pytest.mark.parametrize("name,make,kind", NUMPY_FUNCS, ids=[c[0] for c in NUMPY_FUNCS])
def test_numpy_linalg_calls_jaxs_gpu_kernels(name, make, kind, dtype):
    """minijax.numpy.linalg lowers for cuda to the kernels jax.numpy.linalg calls there
    (the same set: how the results are combined may differ)."""
    args = _numpy_args(kind, dtype)
    ours = minijax_kernels(make(mnp), *args)
    theirs = jax_kernels(make(jnp), *args)
    assert theirs
    assert set(_targets(ours)) == set(_targets(theirs))
    # each kernel with JAX's attributes for it
    by_target = {}
    for k in theirs:
        by_target.setdefault(_targets([k])[0], []).append(k[1:])
    for k in ours:
        assert k[1:] in by_target[_targets([k])[0]], k


def test_scipy_linalg_functions_lower_for_cuda():
    a, b = _matrix((4, 4), F64), _matrix((4, 2), F64, 1)
    spd = _hermitian_pd((4, 4), F64)
    sl = minijax.scipy.linalg
    cases = [(lambda a, b: sl.lu_solve(sl.lu_factor(a), b), (a, b), "cusolver_getrf_ffi"),
             (lambda a, b: sl.cho_solve(sl.cho_factor(a), b), (spd, b), "cusolver_potrf_ffi"),
             (lambda a, b: sl.solve_triangular(a, b, lower=True), (a, b),
              "stablehlo.triangular_solve"),
             (lambda a: sl.lu(a), (a,), "cusolver_getrf_ffi"),
             (lambda a: sl.eigh(a), (spd,), "cusolver_syevd_ffi")]
    for f, args, target in cases:
        assert target in _targets(minijax_kernels(f, *args))


# ---------------------------------------------------------------- callbacks

def test_host_callbacks_use_the_gpu_callback_target():
    # JAX cannot lower a host callback for cuda without a GPU client (its callbacks
    # need the backend), so the target is checked against its documented name.
    x = np.ones(3, np.float32)

    def f(x):
        y = minijax.pure_callback(lambda v: np.asarray(v) * 2, x, x)
        minijax.debug.print("{}", y)
        minijax.debug.callback(lambda v: None, y, ordered=True)
        return y
    ks = minijax_kernels(f, x)
    assert _targets(ks) == ['xla_ffi_python_gpu_callback'] * 3
    # the CPU lowering keeps its own target
    assert "xla_ffi_python_cpu_callback" in minijax.jit(f).lower(x).as_text()
    assert "xla_ffi_python_gpu_callback" not in minijax.jit(f).lower(x).as_text()


# ---------------------------------------------------------------- every other primitive

# schur and hessenberg have none in JAX either; tridiagonal's (cuSOLVER sytrd) is not
# written yet
NO_CUDA_LOWERING = {"schur", "hessenberg", "tridiagonal"}


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_lax_table_row_lowers_for_cuda(row):
    """Each primitive of the lax table lowers for cuda, or (only those without a GPU
    kernel in jaxlib) raises the named error before XLA sees the program."""
    dtype = row.dtypes[0]
    args = [sample(dtype, s, seed=i) for i, s in enumerate(row.shapes)]
    if row.name in NO_CUDA_LOWERING or not row.cuda:
        with pytest.raises(MissingPlatformLoweringError):
            minijax_cuda_text(row.fn, *args)
    else:
        assert 'sym_name = "main"' in minijax_cuda_text(row.fn, *args)


def test_higher_order_primitives_lower_for_cuda():
    assert HIGHER_ORDER == {"cond", "jit", "while", "scan", "custom_linear_solve",
                            "custom_root"}

    def f(x):
        y = lax.cond(x[0] > 0, lambda v: v * 2, lambda v: v - 1, x)
        y = lax.fori_loop(0, 3, lambda i, v: v + i, y)
        y, ys = lax.scan(lambda c, v: (c + v, c * v), y, mnp.stack([y, y]))
        y = lax.custom_linear_solve(lambda v: 2 * v, y, lambda mv, b: b / 2, lambda vm, b: b / 2)
        y = lax.custom_root(lambda v: v - y, y, lambda g, v0: v0 - g(v0), lambda g, b: b)
        return minijax.jit(lambda v: lax.linalg.cholesky(v[None] * v[:, None] + 3 *
                                                        mnp.eye(3)))(y + ys[0])
    text = minijax_cuda_text(f, np.ones(3))
    assert "stablehlo.while" in text
    assert "stablehlo.case" in text or "stablehlo.if" in text
    assert "cusolver_potrf_ffi" in text


def test_tridiagonal_solve_on_gpus_is_the_elimination_in_lax_operations():
    # (its CUDA lowering; run here on the CPU against the LAPACK kernel's answers)
    from minijax.lax.tridiagonal import _thomas
    rng = np.random.default_rng(0)
    dl, d, du = rng.normal(size=(3, 4, 6))
    b = rng.normal(size=(4, 6, 2))
    want = np.asarray(linalg.tridiagonal_solve(dl, d + 5, du, b))
    np.testing.assert_allclose(np.asarray(minijax.jit(_thomas)(dl, d + 5, du, b)), want,
                               rtol=1e-12, atol=1e-12)
    assert "custom_call" not in minijax_cuda_text(linalg.tridiagonal_solve, dl, d + 5, du, b)


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg", "unsafe_rbg"])
def test_prng_lowers_for_cuda(impl):
    def f(seed):
        key = minijax.random.key(seed, impl=impl)
        k1, k2 = minijax.random.split(key)
        return minijax.random.normal(k1, (3,)), minijax.random.uniform(k2, (2,))
    text = minijax_cuda_text(f, np.uint32(0))
    assert "custom_call" not in text
    if impl != "threefry2x32":
        assert "rng_bit_generator" in text


# ---------------------------------------------------------------- the lowering API

def test_trace_lower_defaults_to_the_cpu_text():
    f = minijax.jit(lambda a: lax.linalg.cholesky(a))
    x = _hermitian_pd((3, 3), F32)
    assert f.trace(x).lower().as_text() == f.lower(x).as_text()
    assert f.trace(x).lower(lowering_platforms=("cpu",)).as_text() == f.lower(x).as_text()
    assert "lapack_spotrf_ffi" in f.lower(x).as_text()


def test_trace_lower_rejects_several_or_unknown_platforms():
    traced = minijax.jit(lambda a: a + 1).trace(np.ones(2))
    with pytest.raises(ValueError, match="one platform"):
        traced.lower(lowering_platforms=("cuda", "cpu"))
    with pytest.raises(ValueError, match="one platform"):
        traced.lower(lowering_platforms="cuda")
    with pytest.raises(ValueError, match="several"):
        traced.lower(lowering_platforms=("gpu",))
    with pytest.raises(minijax.errors.UnknownPlatformError, match="metal"):
        traced.lower(lowering_platforms=("metal",))
