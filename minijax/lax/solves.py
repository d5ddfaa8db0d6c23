"""Solvers differentiated implicitly: ``custom_linear_solve`` and ``custom_root``.

A user's solver (an iterative method in a ``while_loop``, say) is run as it is, but it is
never differentiated step by step: its derivatives come from the equation it solves.

- ``linear_solve_p`` solves ``A x = b`` for a linear ``A`` given as ``matvec``. Its
  tangent is another solve, ``A x' = b' - A'x`` (``A'``: the derivative of ``matvec``'s
  closed-over values), and it is linear in ``b``: its transpose solves with ``A``'s
  transpose (``transpose_solve`` on ``vecmat``), so reverse mode works through it.
- ``root_p`` finds ``x`` with ``f(x) = 0``. Its tangent follows from the implicit function
  theorem: ``x' = -(df/dx)^-1 (df/dθ θ')``, the inverse applied by ``tangent_solve`` to
  ``f`` linearized at the solution.

Each primitive holds the jaxprs of the functions, their closed-over values as leading
operands (one group per jaxpr, ``counts`` says how many), and runs the solver's jaxpr when
evaluated or lowered.
"""

from typing import NamedTuple, Optional

from .. import tree_util
from ..core import Jaxpr, Primitive, eval_jaxpr, get_aval
from ..interpreters import ad, batching
from ..interpreters import partial_eval as pe
from ..interpreters.lowering import jaxpr_subcomp
from ..util import split_list
from .elementwise import neg, sub

linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)
root_p = Primitive("custom_root", multiple_results=True)


def _trace(fun, in_tree, avals, what):
    """``fun`` (taking the pytree ``in_tree`` of arrays of ``avals``) as ``(jaxpr, consts,
    out_tree)``."""
    store = []

    def flat(*leaves):
        out = fun(tree_util.tree_unflatten(in_tree, leaves))
        out_flat, out_tree = tree_util.tree_flatten(out)
        store.append(out_tree)
        return out_flat
    jaxpr, consts = pe.trace_to_jaxpr(flat, avals, debug_info=what)
    return jaxpr, list(consts), store[0]


def _inexact_avals(leaves, what):
    """The (strong) avals of ``leaves``, which must be floating-point or complex."""
    avals = [get_aval(x).strip_weak_type() for x in leaves]
    for a in avals:
        if a.dtype.kind not in "fc":
            raise TypeError(f"{what} must hold floating-point or complex arrays, got "
                            f"{a.str_short()}")
    return avals


def _check_like(what, tree, avals, expected_tree, expected_avals, of):
    """``what`` returned the pytree ``tree`` of ``avals``: it must be ``of``'s."""
    if tree != expected_tree:
        raise TypeError(f"{what} must return a pytree of the structure of {of}, "
                        f"{expected_tree}; it returned {tree}")
    for a, e in zip(avals, expected_avals):
        if a.shape != e.shape or a.dtype != e.dtype:
            raise TypeError(f"{what} must return arrays of the shapes and dtypes of {of} "
                            f"({', '.join(x.str_short() for x in expected_avals)}); it "
                            f"returned ({', '.join(x.str_short() for x in avals)})")


def _split_aux(what, tree, has_aux):
    """The tree of a solver's result, and of its auxiliary data with ``has_aux``."""
    if not has_aux:
        return tree, None
    kids = tree_util.treedef_children(tree)
    if tree.node_type is not tuple or len(kids) != 2:
        raise TypeError(f"{what} with has_aux=True must return a pair (solution, aux); "
                        f"it returned {tree}")
    return kids[0], kids[1]


# ---------------------------------------------------------------- custom_linear_solve

class _LinearSolveJaxprs(NamedTuple):
    matvec: Jaxpr
    vecmat: Optional[Jaxpr]
    solve: Jaxpr
    transpose_solve: Optional[Jaxpr]

    def transpose(self):
        return _LinearSolveJaxprs(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """``x`` with ``matvec(x) == b``, computed by ``solve(matvec, b)`` and differentiated
    implicitly (the solver's own steps are not differentiated).

    ``matvec`` is linear and maps pytrees like ``b`` to pytrees like ``b``;
    ``transpose_solve(vecmat, b)`` solves the transposed system (``vecmat``: the
    transpose of ``matvec``), needed for reverse-mode derivatives; with
    ``symmetric=True`` the transpose of ``matvec`` is taken to be ``matvec`` itself.
    With ``has_aux=True`` both solvers return ``(x, aux)``; ``aux`` is returned as it
    is and not differentiated."""
    b_flat, tree = tree_util.tree_flatten(b)
    avals = _inexact_avals(b_flat, "custom_linear_solve: b")

    matvec_j, matvec_c, out_tree = _trace(matvec, tree, avals, "custom_linear_solve matvec")
    _check_like("custom_linear_solve: matvec", out_tree, matvec_j.out_avals, tree, avals, "b")

    def solver(fn, op, name):
        jaxpr, consts, out_tree = _trace(lambda x: fn(op, x), tree, avals,
                                         f"custom_linear_solve {name}")
        x_tree, _ = _split_aux(f"custom_linear_solve: {name}", out_tree, has_aux)
        _check_like(f"custom_linear_solve: {name}", x_tree,
                    jaxpr.out_avals[:len(avals)], tree, avals, "b")
        return jaxpr, consts, out_tree

    solve_j, solve_c, out_tree = solver(solve, matvec, "solve")
    vecmat_j = tsolve_j = None
    vecmat_c, tsolve_c = [], []
    if transpose_solve is not None:
        if symmetric:
            vecmat, vecmat_j, vecmat_c = matvec, matvec_j, matvec_c
        else:
            vecmat = _transposed(matvec_j, matvec_c, tree, avals)
            vecmat_j, vecmat_c, _ = _trace(vecmat, tree, avals, "custom_linear_solve vecmat")
        tsolve_j, tsolve_c, _ = solver(transpose_solve, vecmat, "transpose_solve")
    jaxprs = _LinearSolveJaxprs(matvec_j, vecmat_j, solve_j, tsolve_j)
    counts = tuple(map(len, (matvec_c, vecmat_c, solve_c, tsolve_c)))
    outs = linear_solve_p.bind(*matvec_c, *vecmat_c, *solve_c, *tsolve_c, *b_flat,
                               jaxprs=jaxprs, counts=counts)
    return tree_util.tree_unflatten(out_tree, outs)


def _transposed(matvec_jaxpr, consts, tree, avals):
    """The transpose of the linear map ``matvec_jaxpr`` (closing over ``consts``), as a
    function of pytrees like ``b``."""
    def vecmat(y):
        cts = [ad.instantiate(c) for c in ad.backward_pass(
            matvec_jaxpr, [*consts, *[ad.UndefPrimal(a) for a in avals]],
            tree_util.tree_leaves(y))]
        return tree_util.tree_unflatten(tree, cts)
    return vecmat


def _groups(args, counts):
    """The operands as (matvec consts, vecmat consts, solve consts, transpose_solve consts,
    right-hand side)."""
    return split_list(args, *counts)


def _linear_solve_eager(*args, jaxprs, counts):
    _, _, solve_c, _, b = _groups(args, counts)
    return eval_jaxpr(jaxprs.solve, [*solve_c, *b])


def _linear_solve_abstract_eval(*avals, jaxprs, counts):
    return jaxprs.solve.out_avals


def _linear_solve_jvp(primals, tangents, *, jaxprs, counts):
    x = linear_solve_p.bind(*primals, jaxprs=jaxprs, counts=counts)
    matvec_c, *_, b = _groups(primals, counts)
    matvec_dot, *_, b_dot = _groups(tangents, counts)
    x_leaves = x[:len(b)]
    rhs = [ad.instantiate(t) for t in b_dot]
    if any(type(t) is not ad.Zero for t in matvec_dot):
        # A' x: the derivative of matvec in its closed-over values, at the solution
        def apply(*c):
            return eval_jaxpr(jaxprs.matvec, [*c, *x_leaves])
        _, a_dot_x = ad.jvp_flat(apply, matvec_c,
                                 [ad.instantiate(t) for t in matvec_dot])
        rhs = [sub(r, t) for r, t in zip(rhs, a_dot_x)]
    params = list(primals[:len(primals) - len(b)])
    x_dot = linear_solve_p.bind(*params, *rhs, jaxprs=jaxprs, counts=counts)
    aux_dot = [ad.Zero(ad.tangent_aval(get_aval(a))) for a in x[len(b):]]
    return x, x_dot[:len(b)] + aux_dot


def _linear_solve_transpose(cts, *args, jaxprs, counts):
    if jaxprs.transpose_solve is None:
        raise TypeError("custom_linear_solve: reverse-mode differentiation (grad, vjp) needs "
                        "transpose_solve=; pass a solver for the transposed system, or "
                        "symmetric=True with transpose_solve=solve for a symmetric matrix")
    matvec_c, vecmat_c, solve_c, tsolve_c, b = _groups(args, counts)
    if any(ad.is_undefined(c) for c in (*matvec_c, *vecmat_c, *solve_c, *tsolve_c)):
        raise TypeError("custom_linear_solve: the solution is linear in b only; its "
                        "matvec and solvers cannot close over values it is transposed in")
    n = len(b)
    ct_x = [ad.instantiate(c) for c in cts[:n]]
    ct_b = linear_solve_p.bind(*vecmat_c, *matvec_c, *tsolve_c, *solve_c, *ct_x,
                               jaxprs=jaxprs.transpose(),
                               counts=(counts[1], counts[0], counts[3], counts[2]))
    return [None] * (len(args) - n) + ct_b[:n]


def _batch_group(jaxpr, consts, dims, axis_size, n_rest):
    """``jaxpr`` batched with its consts mapped along ``dims`` and its other ``n_rest``
    inputs (and every output) along axis 0: (jaxpr, its new consts)."""
    if jaxpr is None:
        return None, []
    new, extra, _ = batching.batch_jaxpr(jaxpr, axis_size, (*dims, *[0] * n_rest),
                                         (True,) * len(jaxpr.outs))
    return new, [*extra, *consts]


def _linear_solve_batch(axis_size, args, dims, *, jaxprs, counts):
    groups, group_dims = _groups(args, counts), _groups(dims, counts)
    b = [batching.move_axis_to(axis_size, x, d, 0) for x, d in zip(groups[4], group_dims[4])]
    new = [_batch_group(j, c, d, axis_size, len(b))
           for j, c, d in zip(jaxprs, groups[:4], group_dims[:4])]
    batched = _LinearSolveJaxprs(*[j for j, _ in new])
    consts = [c for _, cs in new for c in cs]
    outs = linear_solve_p.bind(*consts, *b, jaxprs=batched,
                               counts=tuple(len(cs) for _, cs in new))
    return outs, [0] * len(outs)


def _linear_solve_lower(ctx, *args, jaxprs, counts):
    _, _, solve_c, _, b = _groups(args, counts)
    return jaxpr_subcomp(ctx.module_ctx, jaxprs.solve, [*solve_c, *b])


linear_solve_p.eager = _linear_solve_eager
linear_solve_p.abstract_eval = _linear_solve_abstract_eval
linear_solve_p.jvp = _linear_solve_jvp
linear_solve_p.transpose = _linear_solve_transpose
linear_solve_p.batch = _linear_solve_batch
linear_solve_p.lower = _linear_solve_lower


# ---------------------------------------------------------------- custom_root

class _RootJaxprs(NamedTuple):
    f: Jaxpr
    solve: Jaxpr
    linear_solve: Jaxpr   # (x, rhs) -> tangent_solve(f linearized at x, rhs)


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """A root of ``f`` found by ``solve(f, initial_guess)``, differentiated implicitly.

    ``f`` maps a pytree like ``initial_guess`` to one of the same structure and types;
    derivatives (in the values ``f`` closes over) follow from ``f(x) = 0`` by the
    implicit function theorem, with ``tangent_solve(g, y)`` solving ``g(x) = y`` for the
    linear ``g`` (``f`` linearized at the root), e.g. ``lambda g, y: y / g(1.0)`` for a
    scalar. With ``has_aux=True`` ``solve`` returns ``(root, aux)``; ``aux`` is not
    differentiated."""
    guess_flat, tree = tree_util.tree_flatten(initial_guess)
    avals = _inexact_avals(guess_flat, "custom_root: initial_guess")
    f_j, f_c, out_tree = _trace(f, tree, avals, "custom_root f")
    _check_like("custom_root: f", out_tree, f_j.out_avals, tree, avals, "initial_guess")
    solve_j, solve_c, sol_tree = _trace(lambda x: solve(f, x), tree, avals,
                                        "custom_root solve")
    x_tree, _ = _split_aux("custom_root: solve", sol_tree, has_aux)
    _check_like("custom_root: solve", x_tree, solve_j.out_avals[:len(avals)], tree, avals,
                "initial_guess")

    def linearize_and_solve(pair):
        x, rhs = pair
        x_flat = tree_util.tree_leaves(x)
        _, lin_j, lin_c = ad.linearize_flat(
            lambda *leaves: eval_jaxpr(f_j, [*f_c, *leaves]), x_flat)

        def g(t):
            return tree_util.tree_unflatten(
                tree, eval_jaxpr(lin_j, [*lin_c, *tree_util.tree_leaves(t)]))
        return tangent_solve(g, rhs)
    pair_tree = tree_util.tree_structure((initial_guess, initial_guess))
    ls_j, ls_c, ls_tree = _trace(linearize_and_solve, pair_tree, avals + avals,
                                 "custom_root tangent_solve")
    _check_like("custom_root: tangent_solve", ls_tree, ls_j.out_avals, tree, avals,
                "initial_guess")
    outs = root_p.bind(*f_c, *solve_c, *ls_c, *guess_flat,
                       jaxprs=_RootJaxprs(f_j, solve_j, ls_j),
                       counts=(len(f_c), len(solve_c), len(ls_c)))
    return tree_util.tree_unflatten(sol_tree, outs)


def _root_eager(*args, jaxprs, counts):
    _, solve_c, _, guess = split_list(args, *counts)
    return eval_jaxpr(jaxprs.solve, [*solve_c, *guess])


def _root_abstract_eval(*avals, jaxprs, counts):
    return jaxprs.solve.out_avals


def _root_jvp(primals, tangents, *, jaxprs, counts):
    sol = root_p.bind(*primals, jaxprs=jaxprs, counts=counts)
    f_c, _, ls_c, guess = split_list(primals, *counts)
    f_dot = split_list(tangents, *counts)[0]
    n = len(guess)
    x = sol[:n]
    aux_dot = [ad.Zero(ad.tangent_aval(get_aval(a))) for a in sol[n:]]
    if all(type(t) is ad.Zero for t in f_dot):
        return sol, [ad.Zero(ad.tangent_aval(get_aval(v))) for v in x] + aux_dot
    # df/dθ θ' at the root, then x' = -(df/dx)^-1 of it
    _, rhs = ad.jvp_flat(lambda *c: eval_jaxpr(jaxprs.f, [*c, *x]), f_c,
                         [ad.instantiate(t) for t in f_dot])
    x_dot = eval_jaxpr(jaxprs.linear_solve, [*ls_c, *x, *rhs])
    return sol, [neg(t) for t in x_dot] + aux_dot


def _root_batch(axis_size, args, dims, *, jaxprs, counts):
    groups, group_dims = split_list(args, *counts), split_list(dims, *counts)
    guess = [batching.move_axis_to(axis_size, x, d, 0)
             for x, d in zip(groups[3], group_dims[3])]
    n = len(guess)
    new = [_batch_group(j, c, d, axis_size, k) for j, c, d, k
           in zip(jaxprs, groups[:3], group_dims[:3], (n, n, 2 * n))]
    outs = root_p.bind(*[c for _, cs in new for c in cs], *guess,
                       jaxprs=_RootJaxprs(*[j for j, _ in new]),
                       counts=tuple(len(cs) for _, cs in new))
    return outs, [0] * len(outs)


def _root_lower(ctx, *args, jaxprs, counts):
    _, solve_c, _, guess = split_list(args, *counts)
    return jaxpr_subcomp(ctx.module_ctx, jaxprs.solve, [*solve_c, *guess])


root_p.eager = _root_eager
root_p.abstract_eval = _root_abstract_eval
root_p.jvp = _root_jvp
root_p.batch = _root_batch
root_p.lower = _root_lower
