"""``minijax.scipy.stats``: distributions as modules of functions, with JAX's signatures.

The ``cdf``/``sf`` families of ``gamma``, ``chi2``, ``beta``, ``poisson`` and ``t`` go
through ``lax.igamma``, ``lax.igammac`` and ``lax.betainc``; their quantiles (``ppf``,
``isf``) invert those by a bracketed Newton iteration, differentiable through the implicit
function theorem, and the discrete quantiles (``ppf``, ``isf``) by bisection over the
integers. ``poisson``/``binom`` entropies sum the mass over a window around the mean
(``_common.window_entropy``), with each log-mass in Loader's saddle-point form.
``rankdata``, ``sem`` and ``mode`` are SciPy's summary statistics (``_summary.py``);
``gaussian_kde`` is a kernel density estimate, a pytree (``_kde.py``).
"""

import types

from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm,
               geom, gumbel_l, gumbel_r, laplace, logistic, multinomial, multivariate_normal,
               nbinom, norm, pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy)
from ._kde import gaussian_kde
from ._summary import ModeResult, mode, rankdata, sem
from .._util import without_float_warnings

__all__ = ["ModeResult", "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet",
           "expon", "gamma", "gaussian_kde", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace",
           "logistic", "mode", "multinomial", "multivariate_normal", "nbinom", "norm", "pareto",
           "poisson", "rankdata", "sem", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy"]

for _name in __all__:
    if isinstance(globals()[_name], types.ModuleType):
        without_float_warnings(vars(globals()[_name]))
without_float_warnings(globals(), ["mode", "rankdata", "sem"])
del _name
