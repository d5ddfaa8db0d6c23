"""``minijax.scipy.stats``: distributions as modules of functions, with JAX's signatures.

The ``cdf``/``sf`` families of ``gamma``, ``chi2``, ``beta``, ``poisson`` and ``t`` go
through ``lax.igamma``, ``lax.igammac`` and ``lax.betainc``; their quantiles (``ppf``,
``isf``) invert those by a bracketed Newton iteration, differentiable through the implicit
function theorem, and ``poisson``/``binom`` quantiles by bisection over the integers.
"""

from . import (bernoulli, beta, binom, cauchy, chi2, dirichlet, expon, gamma, laplace, logistic,
               multivariate_normal, norm, poisson, t, uniform)
from .._util import without_float_warnings

__all__ = ["bernoulli", "beta", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma",
           "laplace", "logistic", "multivariate_normal", "norm", "poisson", "t", "uniform"]

for _name in __all__:
    without_float_warnings(vars(globals()[_name]))
del _name
