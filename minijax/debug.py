"""``minijax.debug``: print and call back from inside ``jit``, ``vmap`` and ``grad``.

``print`` and ``callback`` run on the host when the program runs (not once at trace
time, as a Python ``print`` inside ``jit`` would), with the concrete values. By
default their order relative to each other in a compiled program is not guaranteed;
with ``ordered=True`` the ordered ones run in program order (loop iterations in turn,
the branch ``cond`` takes, nested ``jit`` calls in place). Under ``vmap`` they run once
per batch element, in element order; under ``grad`` they see primal values.
"""

import sys

from .callbacks import debug_callback


def callback(callback, *args, ordered=False, **kwargs):
    """Call ``callback(*args, **kwargs)`` on the host with NumPy arrays, for its side
    effect; works eagerly and in compiled code. ``ordered=True`` keeps program order
    among the ordered calls."""
    debug_callback(callback, *args, ordered=ordered, **kwargs)


def print(fmt, *args, ordered=False, **kwargs):  # noqa: A001  (JAX's name)
    """``fmt.format(*args, **kwargs)`` printed on the host with the runtime values."""
    def emit(*a, **k):
        sys.stdout.write(fmt.format(*a, **k) + "\n")
    callback(emit, *args, ordered=ordered, **kwargs)


__all__ = ["callback", "print"]
