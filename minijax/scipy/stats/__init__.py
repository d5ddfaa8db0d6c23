"""``minijax.scipy.stats``: distributions as modules of functions, with JAX's signatures.

``cdf``-type functions that need the regularized incomplete gamma or beta functions
(``gamma``, ``chi2``, ``beta``, ``poisson.cdf``) are not provided yet.
"""

from . import (bernoulli, beta, binom, cauchy, chi2, dirichlet, expon, gamma, laplace, logistic,
               multivariate_normal, norm, poisson, t, uniform)

__all__ = ["bernoulli", "beta", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma",
           "laplace", "logistic", "multivariate_normal", "norm", "poisson", "t", "uniform"]
