"""Constants (Array API chapter "Constants"): e, inf, nan, newaxis, pi; and NumPy's
euler_gamma."""

import numpy as np

e, inf, nan, pi = np.e, np.inf, np.nan, np.pi
newaxis = None
euler_gamma = np.euler_gamma
