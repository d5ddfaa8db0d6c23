"""Whole-program benchmarks: small NumPy programs written as ``run(np, **inputs)``.

Each module has ``inputs(tiny=False)`` (host NumPy values and sizes, seeded) and
``run(np, **inputs)``, which takes the array module so the same code runs with
``numpy`` and with ``minijax.numpy``. See benchmarks/README.md and ``run.py``.
"""

import importlib

NAMES = ("softmax_classifier", "two_layer_net", "kmeans_loops", "pca", "gmm_em",
         "hmm_forward_backward", "char_rnn", "heat_stencil", "monte_carlo",
         "iterative_linalg", "gram_schmidt")


def load(name):
    return importlib.import_module(f"{__name__}.{name}")
