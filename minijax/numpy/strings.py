"""``minijax.numpy.strings``: NumPy 2's ``numpy.strings`` functions on minijax Arrays,
eagerly (see ``_nonnumeric``)."""

import numpy as np

from ._nonnumeric import install_module

install_module(globals(), np.strings, __name__)
