"""``minijax.numpy.char``: NumPy's ``numpy.char`` string functions on minijax Arrays,
eagerly (see ``_nonnumeric``); ``array``/``asarray`` give Arrays of ``str_``/``bytes_``
(not NumPy's ``chararray``)."""

import numpy as np

from ._nonnumeric import install_module

install_module(globals(), np.char, __name__)
