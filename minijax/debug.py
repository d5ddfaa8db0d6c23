"""``minijax.debug``: print and call back from inside ``jit``, ``vmap`` and ``grad``.

``print`` and ``callback`` run on the host when the program runs (not once at trace
time, as a Python ``print`` inside ``jit`` would), with the concrete values. Their
order relative to each other is not guaranteed (JAX's ``ordered=False``); under
``vmap`` they run once per batch element; under ``grad`` they see primal values.
"""

import sys

from .callbacks import debug_callback


def callback(callback, *args, ordered=False, **kwargs):
    """Call ``callback(*args, **kwargs)`` on the host with NumPy arrays, for its side
    effect; works eagerly and in compiled code."""
    if ordered:
        raise NotImplementedError("minijax.debug.callback(ordered=True) is not supported: "
                                  "minijax does not thread ordering tokens through "
                                  "compiled programs")
    debug_callback(callback, *args, **kwargs)


def print(fmt, *args, ordered=False, **kwargs):  # noqa: A001  (JAX's name)
    """``fmt.format(*args, **kwargs)`` printed on the host with the runtime values."""
    def emit(*a, **k):
        sys.stdout.write(fmt.format(*a, **k) + "\n")
    callback(emit, *args, ordered=ordered, **kwargs)


__all__ = ["callback", "print"]
