"""NumPy's floating-point error handling: ``errstate``, ``seterr``, ``geterr``,
``seterrcall``, ``geterrcall`` and the ufunc buffer size.

Eager calls are NumPy calls (DESIGN 3), so these are NumPy's own functions and control
NumPy's state: ``with np.errstate(divide="raise"): np.log(x)`` raises
``FloatingPointError`` on minijax arrays as on NumPy's. Compiled code (under ``jit``,
``grad``, ``vmap``, or with ``eager_backend="xla"``) never signals floating-point
errors: it gives inf or nan, and these settings do not apply to it.
"""

import numpy as np

errstate = np.errstate
seterr = np.seterr
geterr = np.geterr
seterrcall = np.seterrcall
geterrcall = np.geterrcall
getbufsize = np.getbufsize
setbufsize = np.setbufsize
