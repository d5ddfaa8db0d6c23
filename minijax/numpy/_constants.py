"""Constants (Array API chapter "Constants"): e, inf, nan, newaxis, pi."""

import numpy as np

e, inf, nan, pi = np.e, np.inf, np.nan, np.pi
newaxis = None
