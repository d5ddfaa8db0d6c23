"""``Primitive``: an operation with one slot for each of its rules."""

from .trace import bind as _bind


class Primitive:
    """A primitive operation and its rules.

    Every rule lives on the primitive itself so a reader finds all of them in one
    place. Rules take and return lists (one entry per operand/result):

    - ``impl(*ndarrays, **params) -> [ndarray]``: the NumPy kernel run eagerly on CPU.
    - ``eager(*arrays, **params) -> [Array]``: replaces eager evaluation entirely
      (higher-order primitives such as ``cond`` and ``jit``).
    - ``prefer_xla(*avals, **params) -> bool``: run this application eagerly through
      its compiled lowering rather than ``impl`` (large contractions, where XLA's
      kernels beat NumPy's by more than the dispatch costs).
    - ``abstract_eval(*avals, **params) -> [aval]``: shape/dtype rule and checks.
    - ``jvp(primals, tangents, **params) -> (primals_out, tangents_out)``.
    - ``transpose(cts, *args, **params) -> [ct or None per arg]`` (linear primitives;
      undefined linear inputs arrive as ``ad.UndefPrimal``).
    - ``batch(axis_size, args, dims, **params) -> (outs, out_dims)``.
    - ``lower(ctx, *ir_values, **params) -> [ir_value]``: the StableHLO lowering, for
      every platform without a rule of its own in ``platform_lower``.
    - ``platform_lower``: ``{platform: rule}`` (``"cpu"``, ``"cuda"``, ...), rules of the
      ``lower`` kind for one platform (custom calls only that platform has, such as
      LAPACK on the CPU); they take precedence over ``lower``.
    - ``partial_eval`` / ``partial_eval_jaxpr``: only for higher-order primitives.
    """

    def __init__(self, name, multiple_results=False):
        self.name = name
        self.multiple_results = multiple_results
        self.impl = None
        self.eager = None
        self.prefer_xla = None
        self.abstract_eval = None
        self.jvp = None
        self.transpose = None
        self.batch = None
        self.lower = None
        self.platform_lower = {}
        self.partial_eval = None
        self.partial_eval_jaxpr = None
        self.pretty_print = None

    def __repr__(self):
        return self.name

    bind = _bind   # ``p.bind(*args, **params)`` is ``core.bind(p, *args, **params)``

    # Decorator-style registration for user-defined primitives. Single-result rules
    # may return a single value; it is wrapped in a list here.
    def _wrap(self, fn):
        if self.multiple_results:
            return fn
        return lambda *a, **k: [fn(*a, **k)]

    def def_impl(self, fn):
        self.impl = self._wrap(fn)
        return fn

    def def_abstract_eval(self, fn):
        self.abstract_eval = self._wrap(fn)
        return fn

    def def_lowering(self, fn, platform=None):
        """The lowering rule (for ``platform`` only, when given)."""
        if platform is None:
            self.lower = self._wrap(fn)
        else:
            self.platform_lower[platform] = self._wrap(fn)
        return fn

    def has_lowering(self):
        """Whether some platform can lower this primitive."""
        return self.lower is not None or bool(self.platform_lower)

    def def_jvp(self, fn):
        """``fn(primals, tangents, **params) -> (primal_out, tangent_out)``."""
        if self.multiple_results:
            self.jvp = fn
        else:
            def jvp(primals, tangents, **params):
                p, t = fn(primals, tangents, **params)
                return [p], [t]
            self.jvp = jvp
        return fn

    def def_batch(self, fn):
        """``fn(axis_size, args, dims, **params) -> (out, out_dim)``."""
        if self.multiple_results:
            self.batch = fn
        else:
            def batch(axis_size, args, dims, **params):
                out, d = fn(axis_size, args, dims, **params)
                return [out], [d]
            self.batch = batch
        return fn

    def def_transpose(self, fn):
        self.transpose = fn
        return fn


_HOW = {
    "abstract evaluation": "def_abstract_eval(fn) (shapes and dtypes, needed to trace it under "
                           "jit, grad and vmap)",
    "differentiation": "def_jvp(fn) or minijax.extend.ad.primitive_jvps",
    "transpose": "def_transpose(fn) or minijax.extend.ad.primitive_transposes (needed for "
                 "reverse mode when the primitive is applied to tangents)",
    "batching": "def_batch(fn) or minijax.extend.batching.primitive_batchers",
    "lowering": "def_lowering(fn) or minijax.extend.mlir.register_lowering (needed to compile "
                "it with jit)",
}


def missing_rule(primitive, rule):
    """The ``NotImplementedError`` for a primitive without ``rule`` (naming both)."""
    return NotImplementedError(f"{rule.capitalize()} rule for '{primitive.name}' not "
                               f"implemented: register it with {_HOW[rule]}")
