"""Slicing and indexing primitives: NumPy kernels vs XLA vs jit, vmap vs a loop for
every batch axis of every operand (indices included), derivatives vs finite
differences, out-of-bounds behaviour under each mode, and errors raised before XLA."""

import itertools

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.test_util import assert_same, check_grads, check_primitive

GDN = lax.GatherDimensionNumbers
SDN = lax.ScatterDimensionNumbers
CLIP, FILL = lax.GatherScatterMode.CLIP, lax.GatherScatterMode.FILL_OR_DROP


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _variant(x, i):
    """The i-th batch member built from ``x``: values change, index rows only move."""
    x = np.asarray(x)
    if i == 0:
        return x
    if x.dtype.kind in "fc":
        return (x + _data(x.shape, x.dtype, seed=i)).astype(x.dtype)
    if x.dtype == np.bool_:
        return ~x if i % 2 else x
    return np.roll(x, i, axis=0) if x.ndim else x


def check_vmap(fn, args, size=3, max_combos=10, jit_combos=1):
    """vmap of ``fn`` over every choice of batch axis (or none) of each argument
    agrees with a loop; the first ``jit_combos`` choices also run through jit (XLA)."""
    choices = [[None] + list(range(np.ndim(a) + 1)) for a in args]
    combos = [c for c in itertools.product(*choices) if any(d is not None for d in c)]
    # Prefer combinations that batch every argument (they exercise the most rules).
    combos.sort(key=lambda c: sum(d is None for d in c))
    for n, axes in enumerate(combos[:max_combos]):
        stacked = [a if d is None else np.stack([_variant(a, i) for i in range(size)], axis=d)
                   for a, d in zip(args, axes)]
        f = minijax.vmap(fn, in_axes=axes)
        outs = [f(*stacked)]
        if n < jit_combos:
            outs.append(minijax.jit(f)(*stacked))
        for i in range(size):
            single = fn(*[a if d is None else np.take(s, i, axis=d)
                          for a, s, d in zip(args, stacked, axes)])
            for out in outs:
                assert_same(np.asarray(out)[i], single, rtol=1e-12,
                            err_msg=f"vmap in_axes={axes}")


def check(fn, args, **kw):
    """NumPy kernel vs XLA (through jit), then vmap vs a loop; returns the NumPy result.

    (``check_primitive`` also runs each primitive eagerly through XLA; that compiles
    the same program again, so it runs once per primitive, in ``test_check_primitive``.)
    """
    eager = np.asarray(fn(*args))
    jitted = np.asarray(minijax.jit(fn)(*args))
    assert_same(jitted, eager, rtol=1e-12, err_msg="NumPy kernel vs XLA")
    check_vmap(fn, args, **kw)
    return eager


# ---------------------------------------------------------------- pad

PAD_CASES = [
    ((5,), [(1, 2, 0)]),
    ((5,), [(-1, -2, 0)]),
    ((5,), [(2, -3, 2)]),
    ((2, 3), [(0, 1, 1), (-1, 2, 0)]),
    ((3, 4), [(-2, -2, 1), (1, 0, 3)]),
    ((0, 3), [(1, 1, 2), (0, 0, 0)]),
    ((), []),
]


@pytest.mark.parametrize("shape,config,dtype", [c + (np.float32,) for c in PAD_CASES]
                         + [c + (d,) for c in PAD_CASES[2:4] for d in (np.int32, np.bool_)])
def test_pad(shape, config, dtype):
    x = _data(shape, dtype)
    pv = np.asarray(_data((), dtype, seed=5))
    out = check(lambda a, v: lax.pad(a, v, config), [x, pv])
    # Oracle for the non-negative, non-interior parts: NumPy's own pad.
    if config and all(lo >= 0 and hi >= 0 and it == 0 for lo, hi, it in config):
        expected = np.pad(x, [(lo, hi) for lo, hi, _ in config], constant_values=pv)
        np.testing.assert_array_equal(out, expected)


def test_pad_interior_values():
    out = np.asarray(lax.pad(np.array([1., 2., 3.]), -1., [(1, -1, 2)]))
    np.testing.assert_array_equal(out, [-1, 1, -1, -1, 2, -1, -1])


@pytest.mark.parametrize("shape,config", PAD_CASES[:5])
def test_pad_grads(shape, config):
    x = _data(shape, np.float64)
    check_grads(lambda a, v: lax.pad(a, v, config) ** 2, (x, np.asarray(0.7)), order=2)


# ---------------------------------------------------------------- concatenate

CONCAT_CASES = [
    ([(2,), (3,), (1,)], 0),
    ([(2, 3), (2, 1)], 1),
    ([(2, 3), (0, 3), (1, 3)], 0),
    ([(2, 3, 1), (2, 3, 2)], -1),
]


@pytest.mark.parametrize("shapes,dim,dtype", [c + (np.float64,) for c in CONCAT_CASES]
                         + [CONCAT_CASES[2] + (d,) for d in (np.uint8, np.bool_)])
def test_concatenate(shapes, dim, dtype):
    xs = [_data(s, dtype, seed=i) for i, s in enumerate(shapes)]
    out = check(lambda *a: lax.concatenate(a, dim), xs, max_combos=6)
    np.testing.assert_array_equal(out, np.concatenate(xs, axis=dim))


@pytest.mark.parametrize("shapes,dim", CONCAT_CASES)
def test_concatenate_grads(shapes, dim):
    xs = tuple(_data(s, np.float64, seed=i) for i, s in enumerate(shapes))
    check_grads(lambda *a: lax.concatenate([x * x for x in a], dim), xs, order=2)


# ---------------------------------------------------------------- slice

SLICE_CASES = [
    ((7,), (1,), (6,), None),
    ((7,), (1,), (7,), (3,)),
    ((4, 5), (0, 1), (4, 5), (2, 2)),
    ((4, 5), (2, 5), (2, 5), None),
    ((3, 0, 2), (1, 0, 0), (3, 0, 2), (1, 1, 2)),
    ((), (), (), None),
]


@pytest.mark.parametrize("shape,start,limit,strides,dtype",
                         [c + (np.float32,) for c in SLICE_CASES] + [SLICE_CASES[2] + (np.int64,)])
def test_slice(shape, start, limit, strides, dtype):
    x = _data(shape, dtype)
    out = check(lambda a: lax.slice(a, start, limit, strides), [x])
    idx = tuple(slice(s, l, st) for s, l, st in zip(start, limit, strides or [1] * len(shape)))
    np.testing.assert_array_equal(out, x[idx])


@pytest.mark.parametrize("shape,start,limit,strides", SLICE_CASES[:5])
def test_slice_grads(shape, start, limit, strides):
    x = _data(shape, np.float64)
    check_grads(lambda a: lax.slice(a * a, start, limit, strides), (x,), order=2)


def test_slice_helpers():
    x = np.arange(24.).reshape(4, 6)
    np.testing.assert_array_equal(np.asarray(lax.slice_in_dim(x, 1, -1, 2, axis=1)), x[:, 1:-1:2])
    np.testing.assert_array_equal(np.asarray(lax.slice_in_dim(x, None, 2)), x[:2])
    np.testing.assert_array_equal(np.asarray(lax.index_in_dim(x, -1, 1)), x[:, -1:])
    np.testing.assert_array_equal(np.asarray(lax.index_in_dim(x, 2, 0, keepdims=False)), x[2])


# ---------------------------------------------------------------- dynamic_slice

def _ref_dynamic_slice(x, starts, sizes):
    starts = [min(max(s + n if s < 0 else s, 0), n - z) for s, n, z in zip(starts, x.shape, sizes)]
    return x[tuple(slice(s, s + z) for s, z in zip(starts, sizes))]


DS_CASES = [
    ((6,), (2,), (3,)),
    ((6,), (5,), (3,)),          # clamped to fit
    ((6,), (-2,), (2,)),         # negative: counts from the end
    ((6,), (-9,), (2,)),         # clamped to 0
    ((4, 5), (1, 3), (2, 2)),
    ((4, 5), (7, -1), (4, 1)),
    ((3, 0), (1, 0), (2, 0)),
]


@pytest.mark.parametrize("shape,starts,sizes,index_dtype",
                         [c + (np.int32,) for c in DS_CASES] + [DS_CASES[5] + (np.int64,)])
def test_dynamic_slice(shape, starts, sizes, index_dtype):
    x = _data(shape, np.float64)
    idx = [np.asarray(s, index_dtype) for s in starts]
    out = check(lambda a, *i: lax.dynamic_slice(a, i, sizes), [x, *idx])
    np.testing.assert_array_equal(out, _ref_dynamic_slice(x, starts, sizes))


def test_dynamic_slice_unsigned_and_python_indices():
    x = np.arange(10.)
    out = check(lambda a, i: lax.dynamic_slice(a, (i,), (3,)), [x, np.uint8(200)])
    np.testing.assert_array_equal(out, x[7:])
    np.testing.assert_array_equal(np.asarray(lax.dynamic_slice(x, [-3], [2])), x[7:9])
    np.testing.assert_array_equal(np.asarray(lax.dynamic_slice(x, np.array([4]), [2])), x[4:6])


@pytest.mark.parametrize("shape,starts,sizes", DS_CASES[:6])
def test_dynamic_slice_grads(shape, starts, sizes):
    x = _data(shape, np.float64)
    check_grads(lambda a: lax.dynamic_slice(a * a, starts, sizes), (x,), order=2)


def test_dynamic_slice_grads_batched_indices():
    # vmap over the start index turns dynamic_slice into a gather; its transpose
    # is a scatter_add.
    x = _data((4, 6), np.float64)
    i = np.array([0, 3, 5, -1])
    f = minijax.vmap(lambda a, j: lax.dynamic_slice(a * a, (0, j), (4, 2)), in_axes=(None, 0))
    check_grads(lambda a: f(a, i), (x,), order=2)


DUS_CASES = [
    ((6,), (3,), (2,)),
    ((6,), (3,), (5,)),          # clamped to fit
    ((6,), (2,), (-1,)),
    ((4, 5), (2, 2), (3, -7)),
    ((4, 5), (0, 5), (1, 0)),
    ((), (), ()),
]


@pytest.mark.parametrize("shape,ushape,starts,dtype",
                         [c + (np.float32,) for c in DUS_CASES] + [DUS_CASES[3] + (np.int32,)])
def test_dynamic_update_slice(shape, ushape, starts, dtype):
    x, u = _data(shape, dtype), _data(ushape, dtype, seed=1)
    idx = [np.asarray(s, np.int32) for s in starts]
    out = check(lambda a, b, *i: lax.dynamic_update_slice(a, b, i), [x, u, *idx])
    expected = x.copy()
    pos = [min(max(s + n if s < 0 else s, 0), n - z) for s, n, z in zip(starts, shape, ushape)]
    expected[tuple(slice(p, p + z) for p, z in zip(pos, ushape))] = u
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("shape,ushape,starts", DUS_CASES[:5])
def test_dynamic_update_slice_grads(shape, ushape, starts):
    x, u = _data(shape, np.float64), _data(ushape, np.float64, seed=1)
    check_grads(lambda a, b: lax.dynamic_update_slice(a * a, b * b, starts), (x, u), order=2)


def test_dynamic_update_slice_grads_batched_indices():
    x, u = _data((3, 5), np.float64), _data((3, 2), np.float64, seed=1)
    i = np.array([4, 0, 2])
    f = minijax.vmap(lambda a, b, j: lax.dynamic_update_slice(a * a, b * b, (j,)))
    check_grads(lambda a, b: f(a, b, i), (x, u), order=2)


def test_dynamic_index_helpers():
    x = np.arange(12.).reshape(3, 4)
    i = np.int32(-1)
    np.testing.assert_array_equal(np.asarray(lax.dynamic_index_in_dim(x, i, 1)), x[:, 3:])
    np.testing.assert_array_equal(np.asarray(lax.dynamic_index_in_dim(x, 1, keepdims=False)),
                                  x[1])
    np.testing.assert_array_equal(np.asarray(lax.dynamic_slice_in_dim(x, 1, 2, 1)), x[:, 1:3])
    out = lax.dynamic_update_index_in_dim(x, np.zeros(4), np.int32(2), 0)
    np.testing.assert_array_equal(np.asarray(out), np.concatenate([x[:2], np.zeros((1, 4))]))
    out = lax.dynamic_update_slice_in_dim(x, np.ones((3, 2)), 3, 1)
    expected = x.copy()
    expected[:, 2:] = 1
    np.testing.assert_array_equal(np.asarray(out), expected)


# ---------------------------------------------------------------- gather

def _idx(values, shape=None):
    a = np.asarray(values, np.int32)
    return a if shape is None else a.reshape(shape)


# (name, operand shape, indices, dimension numbers, slice sizes, NumPy reference or None)
GATHER_CASES = [
    ("x[idx]", (5, 3), _idx([[4], [0], [2], [2]]), GDN((1,), (0,), (0,)), (1, 3),
     lambda x, i: x[i[:, 0]]),
    ("x[:, idx]", (3, 5), _idx([[1], [4], [0], [1]]), GDN((0,), (1,), (1,)), (3, 1),
     lambda x, i: x[:, i[:, 0]]),
    ("x[i, j]", (4, 5), _idx([[0, 1], [3, 4], [2, 0], [1, 1], [3, 0], [0, 4]]),
     GDN((), (0, 1), (0, 1)), (1, 1), lambda x, i: x[i[:, 0], i[:, 1]]),
    ("x[idx2d]", (5,), _idx([4, 1, 0, 3, 2, 2], (2, 3, 1)), GDN((), (0,), (0,)), (1,),
     lambda x, i: x[i[..., 0]]),
    ("windows", (6, 7), _idx([[0, 0], [4, 2], [2, 4]]), GDN((1, 2), (), (0, 1)), (2, 3),
     lambda x, i: np.stack([x[a:a + 2, b:b + 3] for a, b in i])),
    ("reordered map", (4, 5, 6), _idx([[1, 0], [4, 3]]), GDN((1, 2), (0,), (2, 0)), (1, 5, 2),
     lambda x, i: np.stack([x[b, :, a:a + 2] for a, b in i])),
    ("interleaved offsets", (4, 5), _idx([[0], [2], [1]]), GDN((0, 2), (), (0,)), (2, 5),
     lambda x, i: np.stack([x[a:a + 2] for a in i[:, 0]], axis=1)),
    ("batching dims", (3, 5, 2), _idx([[[4], [0]], [[1], [1]], [[3], [2]]]),
     GDN((2,), (1,), (1,), (0,), (0,)), (1, 1, 2),
     lambda x, i: np.stack([x[b, i[b, :, 0]] for b in range(3)])),
    ("empty indices", (5, 3), np.zeros((0, 1), np.int32), GDN((1,), (0,), (0,)), (1, 3),
     lambda x, i: x[i[:, 0]]),
    ("scalar operand", (), np.zeros((3, 0), np.int32), GDN((), (), ()), (),
     lambda x, i: np.broadcast_to(x, (3,))),
]
GATHER_IDS = [c[0] for c in GATHER_CASES]


@pytest.mark.parametrize("case,mode", [(c, "fill") for c in GATHER_CASES]
                         + [(GATHER_CASES[i], m) for i in (2, 4, 7) for m in ("clip",
                                                                            "promise_in_bounds")],
                         ids=GATHER_IDS + [f"{GATHER_IDS[i]}-{m}" for i in (2, 4, 7)
                                           for m in ("clip", "promise")])
def test_gather(case, mode):
    _, shape, idx, dn, sizes, ref = case
    x = _data(shape, np.float64)
    out = check(lambda a, i: lax.gather(a, i, dn, sizes, mode=mode), [x, idx])
    np.testing.assert_array_equal(out, ref(x, idx))


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint16, np.bool_, np.complex64])
def test_gather_dtypes(dtype):
    _, shape, idx, dn, sizes, ref = GATHER_CASES[2]
    x = _data(shape, dtype)
    out = check(lambda a, i: lax.gather(a, i, dn, sizes), [x, idx.astype(np.int64)],
                max_combos=4, jit_combos=0)
    np.testing.assert_array_equal(out, ref(x, idx))


OOB_INDICES = _idx([[-1], [5], [2], [-100], [4], [7]])


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.bool_])
def test_gather_out_of_bounds(dtype):
    x = _data((5, 3), dtype)
    dn = GDN((1,), (0,), (0,))
    clip = check(lambda a, i: lax.gather(a, i, dn, (1, 3), mode="clip"), [x, OOB_INDICES])
    np.testing.assert_array_equal(clip, x[np.clip(OOB_INDICES[:, 0], 0, 4)])
    fill = check(lambda a, i: lax.gather(a, i, dn, (1, 3), mode="fill"), [x, OOB_INDICES])
    ok = (OOB_INDICES[:, 0] >= 0) & (OOB_INDICES[:, 0] < 5)
    np.testing.assert_array_equal(fill[ok], x[OOB_INDICES[ok, 0]])
    dtype = np.dtype(dtype)
    default = (np.nan if dtype.kind == "f" else True if dtype == np.bool_ else
               np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max)
    np.testing.assert_array_equal(fill[~ok], np.full((int((~ok).sum()), 3), default, dtype))
    custom = lax.gather(x, OOB_INDICES, dn, (1, 3), mode=FILL, fill_value=1)
    np.testing.assert_array_equal(np.asarray(custom)[~ok], 1)


def test_gather_window_partly_out_of_bounds():
    # A window that would run past the end: clip shifts it in, fill fills all of it.
    x = np.arange(6.)
    dn = GDN((1,), (), (0,))
    idx = _idx([[4], [1]])
    clip = check(lambda a, i: lax.gather(a, i, dn, (3,), mode=CLIP), [x, idx])
    np.testing.assert_array_equal(clip, [[3, 4, 5], [1, 2, 3]])
    fill = check(lambda a, i: lax.gather(a, i, dn, (3,), mode=FILL, fill_value=-1.), [x, idx])
    np.testing.assert_array_equal(fill, [[-1, -1, -1], [1, 2, 3]])


def test_gather_huge_unsigned_indices():
    x = np.arange(5.)
    idx = np.array([[2 ** 64 - 1], [1]], np.uint64)
    dn = GDN((), (0,), (0,))
    np.testing.assert_array_equal(
        check(lambda a, i: lax.gather(a, i, dn, (1,), mode="clip"), [x, idx]), [4, 1])


@pytest.mark.parametrize("case", GATHER_CASES[:-2], ids=GATHER_IDS[:-2])
@pytest.mark.parametrize("mode", ["fill", "clip"])
def test_gather_grads(case, mode):
    _, shape, idx, dn, sizes, _ = case
    x = _data(shape, np.float64)
    check_grads(lambda a: lax.gather(a * a, idx, dn, sizes, mode=mode), (x,), order=2)


def test_gather_grads_out_of_bounds():
    x = _data((5, 3), np.float64)
    dn = GDN((1,), (0,), (0,))
    check_grads(lambda a: lax.gather(a * a, OOB_INDICES, dn, (1, 3), mode="clip"), (x,),
                order=2)
    # (finite differences of the default NaN fill would be NaN)
    check_grads(lambda a: lax.gather(a * a, OOB_INDICES, dn, (1, 3), mode="fill",
                                     fill_value=2.0), (x,), order=2)


# ---------------------------------------------------------------- scatter

def _scatter_dn(gdn):
    return SDN(*gdn)


def _gather_shape(case):
    _, shape, idx, dn, sizes, _ = case
    return np.shape(lax.gather(np.zeros(shape), idx, dn, sizes))


# Cases with unique target windows, usable for every scatter flavour.
UNIQUE_SCATTER = [GATHER_CASES[i] for i in (2, 4, 5, 8)]
UNIQUE_SCATTER.append(
    ("x[idx] unique", (5, 3), _idx([[4], [0], [2]]), GDN((1,), (0,), (0,)), (1, 3), None))
UNIQUE_SCATTER.append(
    ("x[:, idx] unique", (3, 5), _idx([[1], [4], [0]]), GDN((0,), (1,), (1,)), (3, 1), None))
UNIQUE_SCATTER.append(
    ("batching dims unique", (3, 5, 2), _idx([[[4], [0]], [[1], [2]], [[3], [2]]]),
     GDN((2,), (1,), (1,), (0,), (0,)), (1, 1, 2), None))
UNIQUE_IDS = [c[0] for c in UNIQUE_SCATTER]
# Cases with repeated targets (x[idx] with idx repeated, x[idx2d], overlapping windows).
DUP_SCATTER = [GATHER_CASES[i] for i in (0, 1, 3, 7, 9)] + [
    ("overlapping windows", (6, 7), _idx([[0, 0], [1, 2], [0, 1]]), GDN((1, 2), (), (0, 1)),
     (2, 3), None)]
DUP_IDS = [c[0] for c in DUP_SCATTER]

SCATTERS = {"scatter_add": (lax.scatter_add, np.add), "scatter_mul": (lax.scatter_mul, np.multiply),
            "scatter_min": (lax.scatter_min, np.minimum),
            "scatter_max": (lax.scatter_max, np.maximum)}


def _ref_scatter(ufunc, x, idx, dn, sizes, u):
    """Apply ``ufunc`` (or assignment) through the index map a gather reads."""
    pos = np.arange(x.size).reshape(x.shape)
    targets = np.asarray(lax.gather(pos, idx, dn, sizes, mode="promise_in_bounds"))
    out = x.copy().reshape(-1)
    if ufunc is None:
        out[targets.reshape(-1)] = u.reshape(-1)
    else:
        ufunc.at(out, targets.reshape(-1), u.reshape(-1))
    return out.reshape(x.shape)


@pytest.mark.parametrize("case,name", [(c, n) for c in UNIQUE_SCATTER
                                       for n in ("scatter", "scatter_add")]
                         + [(UNIQUE_SCATTER[i], n) for i in (1, 3, 6)
                            for n in ("scatter_mul", "scatter_min", "scatter_max")])
def test_scatter_unique(case, name):
    _, shape, idx, dn, sizes, _ = case
    fn, ufunc = SCATTERS.get(name, (lax.scatter, None))
    x, u = _data(shape, np.float64), _data(_gather_shape(case), np.float64, seed=3)
    out = check(lambda a, i, b: fn(a, i, b, _scatter_dn(dn), unique_indices=True), [x, idx, u])
    np.testing.assert_allclose(out, _ref_scatter(ufunc, x, idx, dn, sizes, u), rtol=1e-12)


@pytest.mark.parametrize("case,name", [(c, "scatter_add") for c in DUP_SCATTER]
                         + [(DUP_SCATTER[i], n) for i in (0, 5)
                            for n in ("scatter_mul", "scatter_min", "scatter_max")])
def test_scatter_duplicates(case, name):
    _, shape, idx, dn, sizes, _ = case
    fn, ufunc = SCATTERS[name]
    x, u = _data(shape, np.float64), _data(_gather_shape(case), np.float64, seed=3)
    out = check(lambda a, i, b: fn(a, i, b, _scatter_dn(dn)), [x, idx, u])
    np.testing.assert_allclose(out, _ref_scatter(ufunc, x, idx, dn, sizes, u), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.bool_, np.complex128])
def test_scatter_dtypes(dtype):
    x = _data((5, 3), dtype)
    idx = _idx([[4], [1], [4]])
    u = _data((3, 3), dtype, seed=2)
    dn = SDN((1,), (0,), (0,))
    kinds = {"scatter_add": "iufc", "scatter_mul": "iufc", "scatter_min": "biuf",
             "scatter_max": "biuf"}
    for name, (fn, ufunc) in SCATTERS.items():
        if np.dtype(dtype).kind in kinds[name]:
            out = check(lambda a, i, b: fn(a, i, b, dn), [x, idx, u], max_combos=2, jit_combos=0)
            np.testing.assert_array_equal(out, _ref_scatter(ufunc, x, idx, GDN(*dn), (1, 3), u))
    out = check(lambda a, i, b: lax.scatter(a, i, b, dn), [x, idx[:2], u[:2]], max_combos=2,
                jit_combos=0)
    np.testing.assert_array_equal(out, _ref_scatter(None, x, idx[:2], GDN(*dn), (1, 3), u[:2]))


def test_scatter_add_duplicates_accumulate():
    out = check(lambda a, i, b: lax.scatter_add(a, i, b, SDN((), (0,), (0,))),
                [np.zeros(4), _idx([[1], [1], [3], [1]]), np.array([1., 2., 3., 4.])])
    np.testing.assert_array_equal(out, [0, 7, 0, 3])


@pytest.mark.parametrize("name", ["scatter"] + list(SCATTERS))
def test_scatter_out_of_bounds(name):
    fn, ufunc = SCATTERS.get(name, (lax.scatter, None))
    x = _data((5, 3), np.float64)
    idx = _idx([[-1], [5], [2], [-100], [7]])
    u = _data((5, 3), np.float64, seed=4)
    dn = SDN((1,), (0,), (0,))
    drop = check(lambda a, i, b: fn(a, i, b, dn, mode="drop"), [x, idx, u])
    expected = x.copy()
    expected[2] = u[2] if ufunc is None else ufunc(x[2], u[2])
    np.testing.assert_allclose(drop, expected, rtol=1e-12)
    # Default mode drops too (as JAX).
    np.testing.assert_array_equal(np.asarray(fn(x, idx, u, dn)), drop)
    uniq = _idx([[-3], [9]])
    clip = check(lambda a, i, b: fn(a, i, b, dn, mode="clip"), [x, uniq, u[:2]])
    expected = x.copy()
    for row, target in ((0, 0), (1, 4)):
        expected[target] = u[row] if ufunc is None else ufunc(x[target], u[row])
    np.testing.assert_allclose(clip, expected, rtol=1e-12)


def test_scatter_window_partly_out_of_bounds():
    x = np.zeros(6)
    idx = _idx([[4], [1]])
    u = np.array([[1., 2., 3.], [10., 20., 30.]])
    dn = SDN((1,), (), (0,))
    drop = check(lambda a, i, b: lax.scatter_add(a, i, b, dn), [x, idx, u])
    np.testing.assert_array_equal(drop, [0, 10, 20, 30, 0, 0])
    clip = check(lambda a, i, b: lax.scatter_add(a, i, b, dn, mode="clip"), [x, idx, u])
    np.testing.assert_array_equal(clip, [0, 10, 20, 31, 2, 3])


@pytest.mark.parametrize("case", UNIQUE_SCATTER, ids=UNIQUE_IDS)
@pytest.mark.parametrize("name", ["scatter"] + list(SCATTERS))
def test_scatter_grads_unique(case, name):
    _, shape, idx, dn, sizes, _ = case
    fn = SCATTERS.get(name, (lax.scatter,))[0]
    x, u = _data(shape, np.float64), _data(_gather_shape(case), np.float64, seed=3)
    check_grads(lambda a, b: fn(a * a, idx, b * b, _scatter_dn(dn), unique_indices=True),
                (x, u), order=2)


@pytest.mark.parametrize("case", DUP_SCATTER, ids=DUP_IDS)
@pytest.mark.parametrize("name", ["scatter", "scatter_add", "scatter_min", "scatter_max"])
def test_scatter_grads_duplicates(case, name):
    _, shape, idx, dn, sizes, _ = case
    fn = SCATTERS.get(name, (lax.scatter,))[0]
    x, u = _data(shape, np.float64), _data(_gather_shape(case), np.float64, seed=3)
    check_grads(lambda a, b: fn(a * a, idx, b * b, _scatter_dn(dn)), (x, u), order=2)


def test_scatter_mul_grads_duplicates_operand_only():
    _, shape, idx, dn, sizes, _ = DUP_SCATTER[0]
    x, u = _data(shape, np.float64), _data((4, 3), np.float64, seed=3)
    check_grads(lambda a: lax.scatter_mul(a * a, idx, u, _scatter_dn(dn)), (x,), order=2)
    with pytest.raises(NotImplementedError, match="scatter_mul"):
        minijax.grad(lambda b: lax.scatter_mul(x, idx, b, _scatter_dn(dn)).sum())(u)


@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_grads_out_of_bounds(mode):
    x, u = _data((5, 3), np.float64), _data((3, 3), np.float64, seed=3)
    idx = _idx([[-1], [7], [2]])
    dn = SDN((1,), (0,), (0,))
    for fn in (lax.scatter_add, lax.scatter_max):
        check_grads(lambda a, b: fn(a * a, idx, b * b, dn, mode=mode), (x, u), order=2)


# ---------------------------------------------------------------- errors

def test_errors_pad():
    x = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"lax\.pad: padding_config .* has 1 entries"):
        lax.pad(x, 0., [(1, 1, 0)])
    with pytest.raises(ValueError, match=r"lax\.pad: interior padding must be >= 0"):
        lax.pad(x, 0., [(0, 0, -1), (0, 0, 0)])
    with pytest.raises(ValueError, match=r"lax\.pad: .* negative size"):
        lax.pad(x, 0., [(-2, -1, 0), (0, 0, 0)])
    with pytest.raises(TypeError, match=r"lax\.pad: padding_value must be a scalar"):
        lax.pad(x, np.zeros(2), [(0, 0, 0), (0, 0, 0)])
    with pytest.raises(TypeError, match=r"lax\.pad: padding_value of dtype int32"):
        lax.pad(x, np.int32(0), [(0, 0, 0), (0, 0, 0)])
    with pytest.raises(TypeError, match=r"lax\.pad: padding_config must be"):
        lax.pad(x, 0., [(0, 0), (0, 0)])


def test_errors_concatenate():
    with pytest.raises(ValueError, match=r"lax\.concatenate: operand shapes must agree"):
        lax.concatenate([np.zeros((2, 3)), np.zeros((3, 2))], 0)
    with pytest.raises(TypeError, match=r"lax\.concatenate requires operands of one dtype"):
        lax.concatenate([np.zeros(2), np.zeros(2, np.int32)], 0)
    with pytest.raises(ValueError, match=r"lax\.concatenate: dimension 1"):
        lax.concatenate([np.zeros(2), np.zeros(2)], 1)
    with pytest.raises(ValueError, match=r"lax\.concatenate requires at least one"):
        lax.concatenate([], 0)


def test_errors_slice():
    x = np.zeros((4, 5))
    with pytest.raises(ValueError, match=r"lax\.slice: .* out of range"):
        lax.slice(x, (0, 0), (5, 5))
    with pytest.raises(ValueError, match=r"lax\.slice: .* out of range"):
        lax.slice(x, (3, 0), (2, 5))
    with pytest.raises(ValueError, match=r"lax\.slice: .* one entry per axis"):
        lax.slice(x, (0,), (4,))
    with pytest.raises(ValueError, match=r"lax\.slice: strides must be positive"):
        lax.slice(x, (0, 0), (4, 5), (0, 1))


def test_errors_dynamic_slice():
    x = np.zeros((4, 5))
    with pytest.raises(TypeError, match=r"lax\.dynamic_slice: start indices must be integer"):
        lax.dynamic_slice(x, (0, 1.5), (2, 2))
    with pytest.raises(ValueError, match=r"lax\.dynamic_slice: got 1 start indices"):
        lax.dynamic_slice(x, (0,), (2, 2))
    with pytest.raises(ValueError, match=r"lax\.dynamic_slice: slice_sizes"):
        lax.dynamic_slice(x, (0, 0), (5, 2))
    with pytest.raises(TypeError, match=r"lax\.dynamic_update_slice requires operand and update"):
        lax.dynamic_update_slice(x, np.zeros((1, 1), np.int32), (0, 0))
    with pytest.raises(ValueError, match=r"lax\.dynamic_update_slice: update of shape"):
        lax.dynamic_update_slice(x, np.zeros((5, 1)), (0, 0))
    with pytest.raises(TypeError, match=r"lax\.dynamic_update_slice: start indices must be"):
        lax.dynamic_update_slice(x, np.zeros((1, 1)), (np.zeros(2, np.int32), 0))


def test_errors_gather():
    x = np.zeros((5, 3))
    i = _idx([[1], [2]])
    with pytest.raises(TypeError, match=r"lax\.gather: indices must have an integer dtype"):
        lax.gather(x, i.astype(np.float32), GDN((1,), (0,), (0,)), (1, 3))
    with pytest.raises(ValueError, match=r"lax\.gather: start_index_map \(0, 1\) has 2"):
        lax.gather(x, i, GDN((1,), (0,), (0, 1)), (1, 3))
    with pytest.raises(ValueError, match=r"lax\.gather: offset_dims \(\)"):
        lax.gather(x, i, GDN((), (0,), (0,)), (1, 3))
    with pytest.raises(ValueError, match=r"lax\.gather: slice_sizes \(1, 4\)"):
        lax.gather(x, i, GDN((1,), (0,), (0,)), (1, 4))
    with pytest.raises(ValueError, match=r"lax\.gather: collapsed and batching axes"):
        lax.gather(x, i, GDN((1,), (0,), (0,)), (2, 3))
    with pytest.raises(ValueError, match=r"lax\.gather: collapsed_slice_dims \(2,\)"):
        lax.gather(x, i, GDN((1,), (2,), (0,)), (1, 3))
    with pytest.raises(ValueError, match=r"lax\.gather: operand_batching_dims"):
        lax.gather(x, i, GDN((1,), (), (0,), (0,), (0,)), (1, 3))
    with pytest.raises(ValueError, match=r"lax\.gather: indices must have rank >= 1"):
        lax.gather(x, np.int32(1), GDN((1,), (0,), (0,)), (1, 3))
    with pytest.raises(ValueError, match="unknown gather/scatter mode"):
        lax.gather(x, i, GDN((1,), (0,), (0,)), (1, 3), mode="wrap")


def test_errors_scatter():
    x = np.zeros((5, 3))
    i = _idx([[1], [2]])
    dn = SDN((1,), (0,), (0,))
    with pytest.raises(TypeError, match=r"lax\.scatter_add: indices must have an integer"):
        lax.scatter_add(x, i.astype(np.float64), np.zeros((2, 3)), dn)
    with pytest.raises(ValueError, match=r"lax\.scatter: the scatter axes of updates"):
        lax.scatter(x, i, np.zeros((3, 3)), dn)
    with pytest.raises(ValueError, match=r"lax\.scatter_max: update windows"):
        lax.scatter_max(x, i, np.zeros((2, 4)), dn)
    with pytest.raises(TypeError, match=r"lax\.scatter_min requires operand and updates of one"):
        lax.scatter_min(x, i, np.zeros((2, 3), np.int32), dn)
    with pytest.raises(ValueError, match=r"lax\.scatter_mul: update_window_dims .* account"):
        lax.scatter_mul(x, i, np.zeros((2, 3)), SDN((1,), (0, 1), (0,)))
    with pytest.raises(TypeError, match=r"lax\.scatter_add requires"):
        lax.scatter_add(x.astype(bool), i, np.zeros((2, 3), bool), dn)


def test_scatter_edge_values():
    edge = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5])
    idx = _idx([[0], [1], [2], [3], [4], [5], [5], [0]])
    u = np.array([1.0, -np.inf, np.inf, 0.0, -0.0, np.nan, 2.0, -1.0])
    dn = SDN((), (0,), (0,))
    for name, (fn, ufunc) in SCATTERS.items():
        with np.errstate(invalid="ignore"):
            out = check_primitive(lambda a, i, b: fn(a, i, b, dn), [edge, idx, u], batch_size=0)
            np.testing.assert_array_equal(np.asarray(out),
                                          _ref_scatter(ufunc, edge, idx, GDN(*dn), (1,), u))


def test_grads_of_batched_gather_and_scatter_under_jit():
    # vmap over operand and indices gives gather/scatter with batching dimensions;
    # their transposes run through XLA under jit and must match the eager result.
    x = _data((3, 5, 2), np.float64)
    idx = _idx([[[4], [0]], [[1], [1]], [[3], [2]]])
    u = _data((3, 2, 2), np.float64, seed=1)

    def f(a, b):
        g = minijax.vmap(lambda a, i: lax.gather(a, i, GDN((1,), (0,), (0,)), (1, 2)))(a, idx)
        s = minijax.vmap(lambda a, i, b: lax.scatter_add(a, i, b, SDN((1,), (0,), (0,))),
                         in_axes=(0, 0, 2))(a, idx, b)
        return (g * g).sum() + (s * s).sum()

    check_grads(f, (x, np.moveaxis(u, 0, 2)), order=2)
    eager = minijax.grad(f, argnums=(0, 1))(x, np.moveaxis(u, 0, 2))
    jitted = minijax.jit(minijax.grad(f, argnums=(0, 1)))(x, np.moveaxis(u, 0, 2))
    for e, j in zip(eager, jitted):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-12)


_GX = _data((5, 3), np.float64)
_GI = _idx([[4], [0], [9], [-1]])
PRIMITIVE_CALLS = {
    "pad": (lambda a, v: lax.pad(a, v, [(1, -1, 1), (0, 2, 0)]), [_GX, np.asarray(0.5)]),
    "concatenate": (lambda a, b: lax.concatenate([a, b], 1), [_GX, _GX[:, :1]]),
    "slice": (lambda a: lax.slice(a, (1, 0), (5, 3), (2, 2)), [_GX]),
    "dynamic_slice": (lambda a, i: lax.dynamic_slice(a, (i, 1), (2, 2)), [_GX, np.int32(4)]),
    "dynamic_update_slice": (lambda a, b, i: lax.dynamic_update_slice(a, b, (i, 1)),
                             [_GX, _GX[:2, :2] + 1, np.int32(-1)]),
    "gather": (lambda a, i: lax.gather(a, i, GDN((1,), (0,), (0,)), (1, 3)), [_GX, _GI]),
    "gather clip": (lambda a, i: lax.gather(a, i, GDN((1,), (0,), (0,)), (1, 3), mode="clip"),
                    [_GX, _GI]),
}
for _name in ["scatter"] + list(SCATTERS):
    PRIMITIVE_CALLS[_name] = (
        lambda a, i, b, f=getattr(lax, _name): f(a, i, b, SDN((1,), (0,), (0,))),
        [_GX, _GI, _data((4, 3), np.float64, seed=7)])


@pytest.mark.parametrize("name", list(PRIMITIVE_CALLS))
def test_check_primitive(name):
    fn, args = PRIMITIVE_CALLS[name]
    check_primitive(fn, args, rtol=1e-12)


def _random_gather_config(rng):
    """Random dimension numbers (with batching axes, reordered and partial index maps,
    uncollapsed windows, empty windows) and indices, some out of bounds."""
    rank = int(rng.integers(1, 4))
    shape = tuple(int(n) for n in rng.integers(1, 5, rank))
    nbatch = int(rng.integers(0, 2)) if rank >= 2 else 0
    obd = tuple(sorted(int(d) for d in rng.choice(rank, nbatch, replace=False)))
    rest = [d for d in range(rank) if d not in obd]
    sim = tuple(int(d) for d in rng.permutation(rest)[:int(rng.integers(0, len(rest) + 1))])
    coll = tuple(sorted(d for d in sim if rng.random() < 0.6))
    sizes = tuple(1 if d in coll or d in obd else int(rng.integers(0, shape[d] + 1))
                  for d in range(rank))
    batch_rank = int(rng.integers(nbatch, 3))
    batch_shape = [int(n) for n in rng.integers(1, 4, batch_rank)]
    sibd = tuple(int(d) for d in rng.choice(batch_rank, nbatch, replace=False))
    for o, s in zip(obd, sibd):
        batch_shape[s] = shape[o]
    idx = np.stack([rng.integers(-2, shape[d] + 2, batch_shape) for d in sim], axis=-1) \
        if sim else np.zeros(batch_shape + [0], int)
    nwindow = rank - len(coll) - nbatch
    offset = tuple(sorted(int(d) for d in rng.choice(batch_rank + nwindow, nwindow,
                                                     replace=False)))
    return shape, idx.astype(np.int32), GDN(offset, coll, sim, obd, sibd), sizes


@pytest.mark.parametrize("seed", range(8))
def test_random_gather_scatter_configs_match_xla(seed):
    shape, idx, dn, sizes = _random_gather_config(np.random.default_rng(seed))
    x = _data(shape, np.float64)

    def gathers(a, i):
        return [lax.gather(a, i, dn, sizes, mode=m) for m in ("clip", "fill")]

    def scatters(a, i, b):
        return [f(a, i, b, SDN(*dn), mode=m) for m in ("clip", "drop")
                for f in (lax.scatter_add, lax.scatter_max)]

    u = _data(np.shape(gathers(x, idx)[0]), np.float64, seed=1)
    for fn, args in ((gathers, (x, idx)), (scatters, (x, idx, u))):
        for e, j in zip(fn(*args), minijax.jit(fn)(*args)):
            np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-12,
                                       equal_nan=True, err_msg=f"{fn.__name__} {dn} {sizes}")


EDGE = np.array([np.nan, -0.0, np.inf, -np.inf, 0.0, 1.5])
IMIN, IMAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def _pad_edge_ref(a):
    out = np.full(11, -0.0)
    out[1::2] = a[:5]
    return out


@pytest.mark.parametrize("name,fn,ref", [
    ("pad", lambda a: lax.pad(a, -0.0, [(1, -1, 1)]), _pad_edge_ref),
    ("concatenate", lambda a: lax.concatenate([a, lax.rev(a, (0,))], 0),
     lambda a: np.r_[a, a[::-1]]),
    ("slice", lambda a: lax.slice(a, (1,), (6,), (2,)), lambda a: a[1::2]),
    ("dynamic_slice", lambda a: lax.dynamic_slice(a, (np.int32(IMIN),), (3,)), lambda a: a[:3]),
    ("dynamic_update_slice",
     lambda a: lax.dynamic_update_slice(a, lax.slice(a, (0,), (2,)), (np.int32(IMAX),)),
     lambda a: np.r_[a[:4], a[:2]]),
    ("gather", lambda a: lax.gather(a, _idx([[IMIN], [3], [1], [IMAX]]), GDN((), (0,), (0,)),
                                    (1,), mode="clip"), lambda a: a[[0, 3, 1, 5]]),
    ("scatter", lambda a: lax.scatter(a, _idx([[IMIN], [1], [IMAX]]),
                                      lax.slice(lax.rev(a, (0,)), (0,), (3,)),
                                      SDN((), (0,), (0,))), lambda a: np.r_[a[0], a[4], a[2:]]),
])
def test_data_movement_keeps_edge_bits(name, fn, ref):
    # NaN, infinities and the sign of zero come through bit for bit, eagerly and in XLA;
    # extreme int32 start indices are clamped (or dropped by scatter) without overflow.
    expected = np.asarray(ref(EDGE), np.float64).view(np.uint64)
    for out in (fn(EDGE), minijax.jit(fn)(EDGE)):
        np.testing.assert_array_equal(np.asarray(out).view(np.uint64), expected, err_msg=name)
