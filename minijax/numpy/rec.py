"""``minijax.numpy.rec``: NumPy's record-array constructors (``array``, ``fromarrays``,
``fromrecords``, ``fromstring``, ``fromfile``) giving minijax Arrays of the structured
dtype, eagerly (see ``_nonnumeric``). minijax has one array class, so the result is not
a ``recarray``: read a field as ``a['name']`` (a view Array), not as ``a.name``."""

import numpy as np

from ._nonnumeric import install_module

install_module(globals(), np.rec, __name__, skip=("recarray", "record"))
