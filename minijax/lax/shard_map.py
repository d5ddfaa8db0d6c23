"""``shard_map_p`` and ``shard_map``: a function applied to each device's block of its
arguments over a mesh (manual SPMD), and ``pmap`` as a thin layer over it.

The body is traced once on the blocks' (local) shapes with the mesh axes bound for the
collectives of ``lax/parallel.py``. Lowered, it is a manual region of the SPMD program
(JAX's GSPMD form): each argument goes through ``@Sharding`` (its ``in_specs``
sharding) and ``@SPMDFullToShardShape`` (``{manual}``) to its local value, each result
through ``@Sharding {manual}`` and ``@SPMDShardToFullShape`` back to a global value laid
out as its ``out_specs`` says. A program holding a ``shard_map`` always runs on the mesh
(``dispatch.spmd_mesh``), eagerly too.
"""

import math
import weakref

import numpy as np

from .. import tree_util
from ..config import config
from ..core import Jaxpr, JaxprEqn, Primitive, Tracer, Var, get_aval
from ..core.jaxpr import eval_jaxpr
from ..errors import ShardingError
from ..interpreters import ad, batching
from ..interpreters import partial_eval as pe
from ..interpreters.lowering import hlo, ir, ir_type, jaxpr_subcomp
from ..runtime import dispatch
from ..runtime.dispatch import as_array
from ..runtime.sharding import Mesh, NamedSharding, PartitionSpec, current_mesh
from .. import backend
from . import parallel
from ..runtime.dispatch import mesh_placement
from .elementwise import mul
from .shapes import expand_dims, squeeze

shard_map_p = Primitive("shard_map", multiple_results=True)

_REPLICATED = PartitionSpec()


def _spec_axes(spec):
    out = []
    for e in spec:
        if e is not None:
            out.extend((e,) if isinstance(e, str) else e)
    return out


def _tiles(mesh, spec, ndim, what):
    if len(spec) > ndim:
        raise ShardingError(f"{what}: {spec!r} has {len(spec)} entries, more than the "
                            f"{ndim} dimensions of the array it is given to")
    return NamedSharding(mesh, spec)._tiles(ndim)


def _local_aval(mesh, spec, aval, what):
    tiles = _tiles(mesh, spec, aval.ndim, what)
    for d, (n, t) in enumerate(zip(aval.shape, tiles)):
        if n % t:
            raise ShardingError(f"{what}: {spec!r} splits dimension {d} of a "
                                f"{aval.str_short()} value {t} ways, and {n} is not divisible "
                                f"by {t}")
    return aval.update(shape=tuple(n // t for n, t in zip(aval.shape, tiles)))


def _global_aval(mesh, spec, aval, what):
    tiles = _tiles(mesh, spec, aval.ndim, what)
    return aval.update(shape=tuple(n * t for n, t in zip(aval.shape, tiles)))


def _copies(mesh, manual, spec):
    """How many devices along the ``manual`` axes hold each block of a value laid out
    as ``spec``."""
    used = set(_spec_axes(spec))
    return math.prod(mesh.shape[n] for n in manual if n not in used)


def _unused_axes(manual, spec):
    used = set(_spec_axes(spec))
    return tuple(n for n in manual if n not in used)


def _manual_text(mesh, manual, ndim):
    """The HLO sharding of a value manual over the mesh axes ``manual`` and replicated
    over the others (the rest of the mesh stays automatic: a partial-manual region)."""
    names = mesh.axis_names
    rest = [names.index(n) for n in names if n not in manual]
    order = rest + [names.index(n) for n in manual]
    positions = np.arange(mesh.size).reshape(mesh.devices.shape).transpose(order).ravel()
    dims = [1] * ndim + [math.prod(mesh.devices.shape[i] for i in rest),
                         math.prod(mesh.shape[n] for n in manual)]
    return (f"{{devices=[{','.join(map(str, dims))}]{','.join(map(str, positions))} "
            f"last_tile_dims={{replicated, manual}}}}")


# ---------------------------------------------------------------- rules

def _abstract_eval(*avals, jaxpr, mesh, manual, in_specs, out_specs, check_vma, name):
    for i, (a, v, s) in enumerate(zip(avals, jaxpr.in_binders, in_specs)):
        local = _local_aval(mesh, s, a, f"shard_map `{name}` argument {i}")
        if local.shape != v.aval.shape or local.dtype != v.aval.dtype:
            raise TypeError(f"shard_map `{name}`: argument {i} is {a.str_short()}, whose "
                            f"blocks are {local.str_short()}; the body takes "
                            f"{v.aval.str_short()}")
    return [_global_aval(mesh, s, x.aval, f"shard_map `{name}` output {i}")
            for i, (x, s) in enumerate(zip(jaxpr.outs, out_specs))]


def _custom_call(target, x, out_type, sharding_text, ndim_auto=0):
    # (ndim_auto: a partial-manual region leaves every dimension's sharding over the
    # automatic axes to XLA's partitioner, as JAX does)
    config = (f"unspecified_dims=[{','.join(map(str, range(ndim_auto)))}]" if ndim_auto
              else "")
    op = hlo.CustomCallOp.build_generic(
        results=[out_type], operands=[x],
        attributes=dict(call_target_name=ir.StringAttr.get(target),
                        backend_config=ir.StringAttr.get(config),
                        has_side_effect=ir.BoolAttr.get(False)))
    op.attributes["mhlo.sharding"] = ir.StringAttr.get(sharding_text)
    return op.result


def _lower(ctx, *args, jaxpr, mesh, manual, in_specs, out_specs, check_vma, name):
    mctx = ctx.module_ctx
    if mctx.manual_mesh is not None:
        raise NotImplementedError(f"shard_map `{name}` inside another shard_map body is "
                                  f"not supported: write the inner body's collectives in "
                                  f"the outer body (over the outer mesh's axes) instead")
    partial = len(manual) < len(mesh.axis_names)

    def manual_text(ndim):
        return _manual_text(mesh, manual, ndim) if partial else "{manual}"

    local = []
    for x, aval, v, spec in zip(args, ctx.avals_in, jaxpr.in_binders, in_specs):
        auto = aval.ndim if partial else 0
        text = NamedSharding(mesh, spec).hlo_text(aval.ndim)
        x = _custom_call("Sharding", x, ir_type(aval), text, auto)
        local.append(_custom_call("SPMDFullToShardShape", x, ir_type(v.aval),
                                  manual_text(aval.ndim), auto))
    mctx.manual_mesh = mesh
    try:
        outs = jaxpr_subcomp(mctx, jaxpr, local)
    finally:
        mctx.manual_mesh = None
    results = []
    for o, x, aval, spec in zip(outs, jaxpr.outs, ctx.avals_out, out_specs):
        auto = aval.ndim if partial else 0
        o = _custom_call("Sharding", o, ir_type(x.aval), manual_text(aval.ndim), auto)
        results.append(_custom_call("SPMDShardToFullShape", o, ir_type(aval),
                                    NamedSharding(mesh, spec).hlo_text(aval.ndim), auto))
    return results


_eager_jaxprs = weakref.WeakKeyDictionary()   # body jaxpr -> {params: one-equation jaxpr}


def _eager(*args, **params):
    # The one-equation program of this shard_map, compiled for its mesh.
    per_body = _eager_jaxprs.setdefault(params["jaxpr"], {})
    key = tuple(sorted((k, v) for k, v in params.items() if k != "jaxpr"))
    program = per_body.get(key)
    if program is None:
        in_vars = [Var(get_aval(a)) for a in args]
        out_vars = [Var(a) for a in _abstract_eval(*[v.aval for v in in_vars], **params)]
        program = per_body[key] = Jaxpr(in_vars, [JaxprEqn(shard_map_p, in_vars, params,
                                                           out_vars)], out_vars)
    # (its results are laid out as out_specs say: JAX's eager shard_map reports them so,
    # also on a mesh axis of size 1)
    mesh = params["mesh"]
    return dispatch.spmd_call(program, args, mesh_placement(
        mesh, dispatch.result_placement(args)),
        known=[NamedSharding(mesh, s) for s in params["out_specs"]])


def _jvp(primals, tangents, *, jaxpr, mesh, manual, in_specs, out_specs, check_vma, name):
    params = dict(jaxpr=jaxpr, mesh=mesh, manual=manual, in_specs=in_specs,
                  out_specs=out_specs, check_vma=check_vma, name=name)
    outs = shard_map_p.bind(*primals, **params)
    if all(type(t) is ad.Zero for t in tangents):
        return outs, [ad.Zero(ad.tangent_aval(get_aval(o))) for o in outs]
    # The tangents in a shard_map of their own (recomputing the primal part), so that
    # linearize keeps every primal output known and stages only this one.
    jvp_jaxpr, consts = ad.jvp_jaxpr(jaxpr)
    n = len(jaxpr.outs)
    tangent_jaxpr = pe.dce_jaxpr(jvp_jaxpr, [False] * n + [True] * n)
    t_outs = shard_map_p.bind(
        *consts, *primals, *[ad.instantiate(t) for t in tangents],
        **dict(params, jaxpr=tangent_jaxpr,
               in_specs=(_REPLICATED,) * len(consts) + in_specs + in_specs,
               name=f"jvp({name})"))
    return outs, t_outs


def _transpose(cts, *args, jaxpr, mesh, manual, in_specs, out_specs, check_vma, name):
    undef = tuple(ad.is_undefined(a) for a in args)
    t_jaxpr, t_consts = ad.transpose_jaxpr(jaxpr, undef)
    defined = [a for a in args if not ad.is_undefined(a)]
    defined_specs = tuple(s for s, u in zip(in_specs, undef) if not u)
    undef_specs = tuple(s for s, u in zip(in_specs, undef) if u)
    nc, nd = len(t_consts), len(defined)

    def body(*vals):
        consts, known, cts_in = vals[:nc], vals[nc:nc + nd], vals[nc + nd:]
        # a replicated output's cotangent is shared among its copies ...
        cts_in = [c if _copies(mesh, manual, s) == 1 else
                  mul(c, np.asarray(1 / _copies(mesh, manual, s), get_aval(c).dtype))
                  for c, s in zip(cts_in, out_specs)]
        outs = eval_jaxpr(t_jaxpr, [*consts, *known, *cts_in])
        # ... and a replicated input's cotangent is the sum of its copies'
        return [o if _copies(mesh, manual, s) == 1 else parallel.psum_p.bind(
                    o, axes=_unused_axes(manual, s), size=_copies(mesh, manual, s),
                    groups=None)
                for o, s in zip(outs, undef_specs)]
    avals = [v.aval for v in t_jaxpr.in_binders]
    with parallel.axis_frame({n: mesh.shape[n] for n in manual}):
        b_jaxpr, b_consts = pe.trace_to_jaxpr(body, avals)
    cts = [ad.instantiate(c) for c in cts]
    outs = iter(shard_map_p.bind(
        *b_consts, *t_consts, *defined, *cts, jaxpr=b_jaxpr, mesh=mesh, manual=manual,
        in_specs=(_REPLICATED,) * (len(b_consts) + nc) + defined_specs + out_specs,
        out_specs=undef_specs, check_vma=False, name=f"transpose({name})"))
    return [next(outs) if u else None for u in undef]


def _batch(axis_size, args, dims, *, jaxpr, mesh, manual, in_specs, out_specs, check_vma,
           name):
    args = [a if d is batching.not_mapped else batching.moveaxis(a, d, 0)
            for a, d in zip(args, dims)]
    in_dims = tuple(batching.not_mapped if d is batching.not_mapped else 0 for d in dims)
    new_jaxpr, consts = batching.vmap_jaxpr(jaxpr, axis_size, in_dims)
    specs = tuple(s if d is batching.not_mapped else PartitionSpec(None, *s)
                  for s, d in zip(in_specs, in_dims))
    outs = shard_map_p.bind(*consts, *args, jaxpr=new_jaxpr, mesh=mesh, manual=manual,
                            in_specs=(_REPLICATED,) * len(consts) + specs,
                            out_specs=tuple(PartitionSpec(None, *s) for s in out_specs),
                            check_vma=check_vma, name=name)
    return outs, [0] * len(outs)


shard_map_p.abstract_eval = _abstract_eval
shard_map_p.lower = _lower
shard_map_p.eager = _eager
shard_map_p.jvp = _jvp
shard_map_p.transpose = _transpose
shard_map_p.batch = _batch


# ---------------------------------------------------------------- replication check

def _sub_jaxpr(params):
    j = params.get("jaxpr")
    return getattr(j, "jaxpr", j) if j is not None else None


def _varying(jaxpr, in_vma):
    """The mesh axes each output of ``jaxpr`` may differ over, given its inputs'."""
    env = dict(zip(jaxpr.in_binders, in_vma))

    def read(x):
        return env.get(x, frozenset()) if type(x) is Var else frozenset()

    for eqn in jaxpr.eqns:
        ins = [read(x) for x in eqn.inputs]
        union = frozenset().union(*ins)
        p = eqn.primitive
        if p in (parallel.psum_p, parallel.pmax_p, parallel.pmin_p):
            groups = eqn.params["groups"]
            if groups is None:
                outs = [union - set(eqn.params["axes"])]
            elif len({len(g) for g in groups}) == 1:   # (each group's own result)
                outs = [union]
            else:
                outs = [union | set(eqn.params["axes"])]
        elif p in (parallel.all_gather_p, parallel.psum_scatter_p, parallel.all_to_all_p,
                   parallel.ppermute_p):   # (all_gather's result varies, as in JAX)
            outs = [union | set(eqn.params["axes"])]
        elif p is parallel.axis_index_p:
            outs = [frozenset([eqn.params["axis"]])]
        elif isinstance(_sub_jaxpr(eqn.params), Jaxpr) and len(_sub_jaxpr(
                eqn.params).in_binders) == len(ins):
            outs = _varying(_sub_jaxpr(eqn.params), ins)
        else:   # loops, branches, everything else: conservatively, all of the inputs
            outs = [union] * len(eqn.out_binders)
        env.update(zip(eqn.out_binders, outs))
    return [read(x) for x in jaxpr.outs]


def _check_replication(jaxpr, mesh, manual, in_specs, out_specs, name):
    vma = _varying(jaxpr, [frozenset(_spec_axes(s)) for s in in_specs])
    for i, (v, spec) in enumerate(zip(vma, out_specs)):
        missing = [a for a in v if a not in _spec_axes(spec) and a in manual
                   and mesh.shape[a] > 1]
        if missing:
            raise ShardingError(
                f"shard_map applied to the function '{name}' was given out_specs which "
                f"require replication which can't be statically inferred given the mesh: "
                f"out_specs[{i}] is {spec!r} which implies that the corresponding output "
                f"value is replicated across mesh axis {sorted(missing)[0]!r}, but the body "
                f"computes a value that varies over {sorted(missing)}. Add the axis to "
                f"out_specs, reduce over it (psum, pmean, pmax, pmin), or pass "
                f"check_vma=False to skip this check")


# ---------------------------------------------------------------- shard_map

def _fun_name(f):
    return getattr(f, "__name__", type(f).__name__)


def _specs_for(specs, tree_value, what, none=_REPLICATED):
    """One PartitionSpec per leaf of ``tree_value`` (``specs`` a pytree prefix of it; a
    None there gives ``none``)."""
    def is_leaf(s):
        return s is None or isinstance(s, PartitionSpec)
    for s in tree_util.tree_leaves(specs, is_leaf=is_leaf):
        if not is_leaf(s):
            raise TypeError(f"{what}: the specs must be PartitionSpecs (or None), got {s!r}")
    try:
        per_leaf = tree_util.prefix_per_leaf(specs, tree_value, is_leaf=is_leaf)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{what}: the specs {specs!r} are not a pytree prefix of the "
                         f"values they describe ({e})") from None
    return [none if s is None else s for s in per_leaf]


def _check_names(mesh, manual, specs, what):
    for s in specs:
        for a in _spec_axes(s):
            if a not in mesh.axis_names:
                raise ShardingError(f"{what}: {s!r} names the axis {a!r}, which the mesh "
                                    f"{mesh!r} does not have (its axes: {mesh.axis_names})")
            if a not in manual:
                raise ShardingError(
                    f"{what} must refer to an axis marked as manual ({set(manual)}), but "
                    f"{s!r} refers to {a!r}: add it to axis_names, or leave it out of the "
                    f"spec (the body then sees the whole dimension)")


class _ShardMapped:
    """``f`` mapped over the blocks of its arguments (see ``shard_map``)."""

    def __init__(self, f, mesh, in_specs, out_specs, check_vma, axis_names):
        self.f = f
        self.mesh = mesh
        self.in_specs = in_specs
        self.out_specs = out_specs
        self.check_vma = bool(check_vma)
        self.axis_names = axis_names
        self.__name__ = _fun_name(f)
        self.__wrapped__ = f
        self._traced = {}

    def _mesh(self):
        mesh = self.mesh if self.mesh is not None else current_mesh()
        if mesh is None:
            raise ShardingError(f"shard_map `{self.__name__}`: no mesh: pass mesh=, or call "
                                f"it inside `with mesh:`")
        if not isinstance(mesh, Mesh):
            raise TypeError(f"shard_map: mesh must be a minijax.sharding.Mesh, got "
                            f"{type(mesh).__name__}")
        unknown = [a for a in self.axis_names if a not in mesh.axis_names]
        if unknown:
            raise ShardingError(f"shard_map `{self.__name__}`: axis_names names "
                                f"{sorted(map(str, unknown))}, which the mesh {mesh!r} does "
                                f"not have (its axes: {mesh.axis_names})")
        return mesh

    def _manual(self, mesh):
        """The manual mesh axes (all of them unless ``axis_names`` picks some)."""
        if not self.axis_names:
            return mesh.axis_names
        return tuple(n for n in mesh.axis_names if n in self.axis_names)

    def __call__(self, *args):
        mesh = self._mesh()
        manual = self._manual(mesh)
        name = self.__name__
        if parallel.in_manual_body():
            raise NotImplementedError(
                f"shard_map `{name}` inside another shard_map (or pmap) body is not "
                f"supported: write its collectives in the outer body, over the outer "
                f"mesh's axes, or apply the two shard_maps one after the other")
        leaves, in_tree = tree_util.tree_flatten(args)
        # (a None in in_specs: that argument is static, passed to f as it is)
        all_specs = _specs_for(self.in_specs, args, f"shard_map `{name}`: in_specs", None)
        statics = tuple((i, x) for i, (x, s) in enumerate(zip(leaves, all_specs)) if s is None)
        specs = [s for s in all_specs if s is not None]
        leaves = [as_array(x) for x, s in zip(leaves, all_specs) if s is not None]
        _check_names(mesh, manual, specs, f"shard_map `{name}`: in_specs")
        avals = tuple(get_aval(x) for x in leaves)
        local = [_local_aval(mesh, s, a, f"shard_map `{name}`: argument {i} with in_specs")
                 for i, (s, a) in enumerate(zip(specs, avals))]
        key = (mesh, manual, in_tree, tuple(specs), avals, config.enable_x64, statics)
        try:
            entry = self._traced.get(key)
        except TypeError:   # an unhashable static argument: traced every time
            entry, key = None, None
        if entry is None:
            entry = self._trace(mesh, manual, in_tree, specs, local, statics)
            if key is not None and not any(isinstance(c, Tracer) for c in entry[1]):
                self._traced[key] = entry
        jaxpr, consts, out_tree, out_specs = entry
        outs = shard_map_p.bind(*consts, *leaves, jaxpr=jaxpr, mesh=mesh, manual=manual,
                                in_specs=(_REPLICATED,) * len(consts) + tuple(specs),
                                out_specs=out_specs, check_vma=self.check_vma, name=name)
        return tree_util.tree_unflatten(out_tree, outs)

    def _trace(self, mesh, manual, in_tree, specs, local, statics):
        name = self.__name__
        store = []

        def body(*xs):
            static_at = dict(statics)
            it = iter(xs)
            full = [static_at[i] if i in static_at else next(it)
                    for i in range(len(xs) + len(static_at))]
            out = self.f(*tree_util.tree_unflatten(in_tree, full))
            out_leaves, out_tree = tree_util.tree_flatten(out)
            store.append((out, out_tree))
            return [as_array(o) for o in out_leaves]
        with parallel.axis_frame({n: mesh.shape[n] for n in manual},
                                 partial=len(manual) < len(mesh.axis_names)):
            jaxpr, consts = pe.trace_to_jaxpr(body, list(local))
        out, out_tree = store[0]
        out_specs = tuple(_specs_for(self.out_specs, out, f"shard_map `{name}`: out_specs"))
        _check_names(mesh, manual, out_specs, f"shard_map `{name}`: out_specs")
        for i, (x, s) in enumerate(zip(jaxpr.outs, out_specs)):
            _tiles(mesh, s, x.aval.ndim, f"shard_map `{name}`: output {i} with out_specs")
        if self.check_vma:
            in_all = (_REPLICATED,) * len(consts) + tuple(specs)
            _check_replication(jaxpr, mesh, manual, in_all, out_specs, name)
        return jaxpr, consts, out_tree, out_specs


class _InferFromArgs:
    def __repr__(self):
        return "minijax.sharding.Infer"


Infer = _InferFromArgs()


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """``f`` applied to each device's block of its arguments over ``mesh`` (the mesh of
    ``with mesh:`` when None), the blocks given by ``in_specs`` (a pytree prefix of the
    arguments of ``PartitionSpec``s; None for a static argument) and the results
    assembled as ``out_specs`` says.
    Inside ``f`` the mesh axis names are bound for the collectives (``lax.psum``, ...).
    With ``check_vma``, an output whose spec omits a mesh axis must be computed so that
    it is the same on every device along it (else a ``ShardingError``)."""
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                   axis_names=axis_names, check_vma=check_vma)
    if not callable(f):
        raise TypeError(f"shard_map requires a callable, got {f!r}")
    if in_specs is Infer:
        raise NotImplementedError("shard_map: in_specs must be given (JAX infers them only "
                                  "on meshes of Explicit axes, which minijax does not have)")
    return _ShardMapped(f, mesh, in_specs, out_specs, check_vma, frozenset(axis_names))


# ---------------------------------------------------------------- pmap

def _per_leaf(spec, args, what):
    """``in_axes``/``out_axes`` as pmap takes them (an int or None for all, or one entry
    per argument, itself a pytree prefix of it): one per leaf of ``args``."""
    if isinstance(spec, (tuple, list)):
        if len(spec) != len(args):
            raise ValueError(f"{what}: in_axes must be an int, None, or a tuple with one "
                             f"entry per argument ({len(args)}), got {spec!r}")
        spec = tuple(spec)
    elif not (spec is None or isinstance(spec, int)):
        raise ValueError(f"{what}: in_axes must be an int, None, or a tuple with one entry "
                         f"per argument ({len(args)}), got {spec!r}")
    return tree_util.prefix_per_leaf(spec, tuple(args), is_leaf=lambda s: s is None)


class _Pmapped:
    def __init__(self, f, axis_name, in_axes, out_axes, static, devices):
        self.f = f
        self.axis_name = axis_name if axis_name is not None else f"_pmap{id(self)}"
        self.in_axes = in_axes
        self.out_axes = out_axes
        self.static = static
        self.devices = devices
        self.__name__ = _fun_name(f)
        self.__wrapped__ = f
        self._mapped = {}

    def __call__(self, *args):
        n_args = len(args)
        static_pos = {i % n_args for i in self.static if -n_args <= i < n_args}
        statics = tuple((i, args[i]) for i in sorted(static_pos))
        dyn = tuple(a for i, a in enumerate(args) if i not in static_pos)
        in_axes = self.in_axes
        if isinstance(in_axes, (tuple, list)) and static_pos:
            in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static_pos)
        leaves, tree = tree_util.tree_flatten(dyn)
        leaves = [as_array(x) for x in leaves]
        axes = _per_leaf(in_axes, dyn, "pmap")
        sizes = set()
        for x, ax in zip(leaves, axes):
            if ax is not None:
                if not -x.ndim <= ax < x.ndim:
                    raise ValueError(f"pmap got arg of rank {x.ndim} with in_axes {ax}")
                sizes.add(x.shape[ax])
        if not sizes:
            raise ValueError("pmap requires at least one argument with a mapped axis")
        if len(sizes) > 1:
            raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped: "
                             f"{sorted(sizes)}")
        n = sizes.pop()
        devices = list(self.devices) if self.devices is not None else backend.devices()
        if n > len(devices):
            raise ValueError(f"compiling computation that requires {n} logical devices, but "
                             f"only {len(devices)} XLA devices are available "
                             f"(num_replicas={n})")
        devices = tuple(devices[:n])
        axes = tuple(None if ax is None else ax % x.ndim for x, ax in zip(leaves, axes))
        key = (statics, tree, axes, devices)
        mapped = self._mapped.get(key)
        if mapped is None:
            mapped = self._mapped[key] = self._make(statics, tree, axes, devices)
        moved = [x if ax is None else batching.moveaxis(x, ax, 0)
                 for x, ax in zip(leaves, axes)]
        out = mapped(*moved)
        outs, out_tree = tree_util.tree_flatten(out)
        out_axes = _per_leaf(self.out_axes, out if isinstance(self.out_axes, (tuple, list))
                             else (out,), "pmap out_axes")
        res = []
        for o, ax in zip(outs, out_axes):
            if ax is None:
                res.append(o[0])
            else:
                res.append(batching.moveaxis(o, 0, ax % o.ndim))
        return tree_util.tree_unflatten(out_tree, res)

    def _make(self, statics, tree, axes, devices):
        name = self.axis_name
        mesh = Mesh(np.array(devices, dtype=object), (name,))

        def body(*xs):
            xs = [x if ax is None else squeeze(x, (0,)) for x, ax in zip(xs, axes)]
            dyn = tree_util.tree_unflatten(tree, xs)
            it = iter(dyn)
            static_at = dict(statics)
            full = [static_at[i] if i in static_at else next(it)
                    for i in range(len(static_at) + len(dyn))]
            return tree_util.tree_map(lambda o: expand_dims(as_array(o), (0,)), self.f(*full))

        mapped = shard_map(body, mesh=mesh,
                           in_specs=tuple(_REPLICATED if ax is None else PartitionSpec(name)
                                          for ax in axes),
                           out_specs=PartitionSpec(name), check_vma=False)
        mapped.__name__ = self.__name__
        return mapped


def pmap(f, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=(), global_arg_shapes=None):
    """``f`` applied on one device per index of the mapped axes of its arguments (JAX's
    ``pmap``), as a ``shard_map`` over a one-axis mesh of the first devices; collectives
    in ``f`` name the axis ``axis_name``."""
    if not callable(f):
        raise TypeError(f"pmap requires a callable, got {f!r}")
    for what, v in (("backend", backend), ("axis_size", axis_size),
                    ("global_arg_shapes", global_arg_shapes)):
        if v is not None:
            raise NotImplementedError(f"pmap: {what}= is not supported; leave it None")
    if donate_argnums not in ((), None):
        raise NotImplementedError("pmap: donate_argnums is not supported; leave it out")
    static = ((static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int)
              else tuple(static_broadcasted_argnums))
    return _Pmapped(f, axis_name, in_axes, out_axes, static, devices)
