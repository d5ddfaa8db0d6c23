"""``minijax.custom_batching``: functions with their own ``vmap`` rule (``custom_vmap``),
and ``sequential_vmap``, whose rule maps the function over the batch one element at a
time.

A ``custom_vmap`` function is one application of ``custom_vmap_call_p``, holding the
function's jaxpr and the user's rule. Evaluation and lowering run the jaxpr; batching
calls the rule on the arguments with their batch axes in front; the JVP is another
``custom_vmap`` call, of the function's JVP, whose rule is the JVP of the user's rule.
As in JAX, reverse-mode differentiation is not supported.
"""

import functools
import inspect

from . import lax, tree_util
from .core import Primitive, eval_jaxpr, get_aval
from .interpreters import ad, batching
from .interpreters import partial_eval as pe
from .interpreters.lowering import jaxpr_subcomp
from .runtime.dispatch import as_array
from .util import split_list

__all__ = ["custom_vmap", "sequential_vmap"]

custom_vmap_call_p = Primitive("custom_vmap_call", multiple_results=True)


class _Rule:
    """A batching rule of flat arguments: ``fn(axis_size, in_batched, *args) ->
    (outs, out_batched)``, all flat lists (hashable by identity: a jaxpr parameter)."""

    __slots__ = ("fn", "name")

    def __init__(self, fn, name):
        self.fn, self.name = fn, name

    def __repr__(self):
        return self.name


class custom_vmap:  # noqa: N801  (JAX's name)
    """``fun`` with a batching rule of its own, set with ``def_vmap``: under ``vmap``
    the rule ``rule(axis_size, in_batched, *args)`` is called instead of batching
    ``fun``'s operations. ``in_batched`` holds, for each argument, a pytree of bools
    saying which leaves are batched (those have the batch axis first); the rule
    returns ``(out, out_batched)``, the outputs and a pytree of bools like them."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    def def_vmap(self, vmap_rule):
        """Set the batching rule; returns it (so this works as a decorator)."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args, **kwargs):
        name = getattr(self.fun, "__name__", "custom_vmap function")
        if self.vmap_rule is None:
            raise AttributeError(f"custom_vmap function {name} has no batching rule: define "
                                 f"one with def_vmap")
        if kwargs:
            args = tuple(inspect.signature(self.fun).bind(*args, **kwargs).args)
        leaves, in_tree = tree_util.tree_flatten(args)
        leaves = [as_array(x) for x in leaves]
        store = []

        def flat_fun(*xs):
            out, out_tree = tree_util.tree_flatten(self.fun(*tree_util.tree_unflatten(in_tree,
                                                                                    xs)))
            store.append(out_tree)
            return out
        jaxpr, consts = pe.trace_to_jaxpr(flat_fun, [get_aval(x) for x in leaves],
                                          debug_info=f"custom_vmap {name}")
        out_tree = store[0]
        rule = _Rule(_flat_rule(self.vmap_rule, in_tree, out_tree, name), name)
        outs = custom_vmap_call_p.bind(*consts, *leaves, call_jaxpr=jaxpr,
                                       num_consts=len(consts), vmap_rule=rule)
        return tree_util.tree_unflatten(out_tree, outs)


def _flat_rule(vmap_rule, in_tree, out_tree, name):
    """The user's rule on pytrees as a rule on flat lists, its results checked."""
    def rule(axis_size, in_batched, *leaves):
        args = tree_util.tree_unflatten(in_tree, list(leaves))
        flags = list(tree_util.tree_unflatten(in_tree, list(in_batched)))
        out, out_batched = vmap_rule(axis_size, flags, *args)
        outs, tree = tree_util.tree_flatten(out)
        if tree != out_tree:
            raise TypeError(f"custom_vmap {name}: the vmap rule must return outputs of the "
                            f"function's structure {out_tree}, got {tree}")
        flags_out, flags_tree = tree_util.tree_flatten(out_batched)
        if flags_tree != out_tree or not all(isinstance(b, bool) for b in flags_out):
            raise TypeError(f"custom_vmap {name}: the vmap rule's out_batched must be a "
                            f"pytree of bools of the outputs' structure {out_tree}, got "
                            f"{out_batched!r}")
        return list(outs), flags_out
    return rule


def _eager(*args, call_jaxpr, num_consts, vmap_rule):
    return eval_jaxpr(call_jaxpr, list(args))


def _abstract_eval(*avals, call_jaxpr, num_consts, vmap_rule):
    return call_jaxpr.out_avals


def _lower(ctx, *args, call_jaxpr, num_consts, vmap_rule):
    return jaxpr_subcomp(ctx.module_ctx, call_jaxpr, list(args))


def _closure_error(rule, what):
    return NotImplementedError(
        f"custom_vmap {rule.name}: the function closes over a value that {what}; pass it "
        f"to the function as an argument instead")


def _batch(axis_size, args, dims, *, call_jaxpr, num_consts, vmap_rule):
    rule = vmap_rule
    consts, xs = split_list(args, num_consts)
    const_dims, x_dims = split_list(dims, num_consts)
    if any(d is not batching.not_mapped for d in const_dims):
        raise _closure_error(rule, "vmap batches")
    in_batched = [d is not batching.not_mapped for d in x_dims]
    xs = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(xs, x_dims, in_batched)]
    outs, out_batched = rule.fn(axis_size, in_batched, *xs)
    for o, b, aval in zip(outs, out_batched, call_jaxpr.out_avals):
        want = ((axis_size,) + aval.shape) if b else aval.shape
        if get_aval(o).shape != want:
            raise ValueError(f"custom_vmap {rule.name}: the vmap rule returned an output of "
                             f"shape {get_aval(o).shape} where {'a batched' if b else 'an unbatched'} "
                             f"output of shape {want} was expected")
    return outs, [0 if b else batching.not_mapped for b in out_batched]


def _jvp(primals, tangents, *, call_jaxpr, num_consts, vmap_rule):
    rule = vmap_rule
    if any(type(t) is not ad.Zero for t in tangents[:num_consts]):
        raise _closure_error(rule, "is differentiated")
    consts, xs = split_list(primals, num_consts)
    x_tangents = [ad.instantiate(t) for t in tangents[num_consts:]]
    jvp_jaxpr, jvp_consts = ad.jvp_jaxpr(call_jaxpr)

    def call(*args):   # (consts, primal args, tangent args) -> (outputs, output tangents)
        c, p, t = split_list(list(args), len(consts), len(xs))
        zeros = [ad.instantiate(ad.Zero(ad.tangent_aval(get_aval(v)))) for v in c]
        return eval_jaxpr(jvp_jaxpr, [*jvp_consts, *c, *p, *zeros, *t])
    avals = [get_aval(v) for v in (*consts, *xs, *x_tangents)]
    body, body_consts = pe.trace_to_jaxpr(call, avals, debug_info=f"custom_vmap {rule.name}")
    jvp_rule = _Rule(_jvp_rule(rule, len(xs)), rule.name)
    outs = custom_vmap_call_p.bind(*body_consts, *consts, *xs, *x_tangents, call_jaxpr=body,
                                   num_consts=len(body_consts) + len(consts), vmap_rule=jvp_rule)
    # (the outputs themselves by a call of their own: they do not depend on tangents,
    # so linearize knows them and reaches the transpose, which names the limitation)
    primal_outs = custom_vmap_call_p.bind(*primals, call_jaxpr=call_jaxpr,
                                          num_consts=num_consts, vmap_rule=rule)
    return primal_outs, outs[len(call_jaxpr.outs):]


def _jvp_rule(rule, n):
    """The rule of the JVP call (whose ``n`` arguments are followed by their tangents):
    the JVP of ``rule``. A primal and its tangent are batched alike (the one that is
    not is broadcast)."""
    def jvp_rule(axis_size, in_batched, *args):
        primals, tangents = split_list(list(args), n)
        flags = [a or b for a, b in zip(in_batched[:n], in_batched[n:])]
        primals = [_batched(x, b, f, axis_size) for x, b, f
                   in zip(primals, in_batched[:n], flags)]
        tangents = [_batched(t, b, f, axis_size) for t, b, f
                    in zip(tangents, in_batched[n:], flags)]
        store = []

        def primal_fn(*p):
            outs, out_batched = rule.fn(axis_size, flags, *p)
            store.append(out_batched)
            return outs
        outs, out_tangents = ad.jvp_flat(primal_fn, primals, tangents)
        out_batched = store[0]
        return list(outs) + list(out_tangents), out_batched + out_batched
    return jvp_rule


def _batched(x, is_batched, want, axis_size):
    if is_batched or not want:
        return x
    return lax.broadcast_in_dim(x, (axis_size,) + get_aval(x).shape,
                                tuple(range(1, get_aval(x).ndim + 1)))


def _transpose(cts, *args, call_jaxpr, num_consts, vmap_rule):
    rule = vmap_rule
    raise NotImplementedError(f"custom_vmap {rule.name} cannot be differentiated in reverse "
                              f"mode (grad, vjp), as in JAX; use jvp/jacfwd, or give the "
                              f"function a custom_vjp rule")


custom_vmap_call_p.eager = _eager
custom_vmap_call_p.abstract_eval = _abstract_eval
custom_vmap_call_p.lower = _lower
custom_vmap_call_p.batch = _batch
custom_vmap_call_p.jvp = _jvp
custom_vmap_call_p.transpose = _transpose


def sequential_vmap(f):
    """``f`` as a ``custom_vmap`` function whose rule calls ``f`` once per batch element
    (in a ``lax.map``): for functions that do not batch, such as host callbacks."""
    f_vmap = custom_vmap(f)

    @f_vmap.def_vmap
    def rule(axis_size, in_batched, *args):
        leaves, tree = tree_util.tree_flatten(args)
        flags = tree_util.tree_leaves(in_batched)

        def one(batched):
            it = iter(batched)
            return f(*tree_util.tree_unflatten(
                tree, [next(it) if b else x for x, b in zip(leaves, flags)]))
        out = lax.map(one, [x for x, b in zip(leaves, flags) if b])
        return out, tree_util.tree_map(lambda _: True, out)
    return f_vmap
