"""``minijax.numpy.lib``: the parts of ``numpy.lib`` that apply to minijax arrays:
``stride_tricks`` (``sliding_window_view``), ``scimath`` (the same module as
``minijax.numpy.emath``) and ``NumpyVersion``."""

from numpy.lib import NumpyVersion

from .. import emath as scimath
from . import stride_tricks

__all__ = ["NumpyVersion", "scimath", "stride_tricks"]
