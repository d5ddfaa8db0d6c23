"""minijax.numpy.random: NumPy's API and, for the same seed, NumPy's numbers."""

import numpy as np
import pytest

import minijax
import minijax.numpy as mnp
from minijax import errors

# Arguments for every sampling function of NumPy's legacy API (RandomState and module).
LEGACY_CALLS = {
    "beta": ((2.0, 3.0, 5), {}),
    "binomial": ((10, 0.3, 5), {}),
    "bytes": ((7,), {}),
    "chisquare": ((3.0, 5), {}),
    "choice": ((10, 4), {"replace": False}),
    "dirichlet": (([1.0, 2.0, 3.0], 4), {}),
    "exponential": ((2.0, 5), {}),
    "f": ((3.0, 4.0, 5), {}),
    "gamma": ((2.0, 1.5, 5), {}),
    "geometric": ((0.3, 5), {}),
    "gumbel": ((0.0, 1.0, 5), {}),
    "hypergeometric": ((10, 5, 7, 5), {}),
    "laplace": ((0.0, 1.0, 5), {}),
    "logistic": ((0.0, 1.0, 5), {}),
    "lognormal": ((0.0, 1.0, 5), {}),
    "logseries": ((0.6, 5), {}),
    "multinomial": ((10, [0.2, 0.3, 0.5], 4), {}),
    "multivariate_normal": (([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], 4), {}),
    "negative_binomial": ((5, 0.4, 5), {}),
    "noncentral_chisquare": ((3.0, 1.0, 5), {}),
    "noncentral_f": ((3.0, 4.0, 1.0, 5), {}),
    "normal": ((1.0, 2.0, (2, 3)), {}),
    "pareto": ((3.0, 5), {}),
    "permutation": ((10,), {}),
    "poisson": ((3.0, 5), {}),
    "power": ((3.0, 5), {}),
    "rand": ((2, 3), {}),
    "randint": ((0, 10, 6), {}),
    "randn": ((2, 3), {}),
    "random": ((5,), {}),
    "random_integers": ((1, 6, 5), {}),
    "random_sample": ((5,), {}),
    "ranf": ((5,), {}),
    "rayleigh": ((1.0, 5), {}),
    "sample": ((5,), {}),
    "standard_cauchy": ((5,), {}),
    "standard_exponential": ((5,), {}),
    "standard_gamma": ((2.0, 5), {}),
    "standard_normal": ((5,), {}),
    "standard_t": ((4.0, 5), {}),
    "tomaxint": ((5,), {}),
    "triangular": ((0.0, 0.5, 1.0, 5), {}),
    "uniform": ((-1.0, 2.0, 5), {}),
    "vonmises": ((0.0, 4.0, 5), {}),
    "wald": ((1.0, 2.0, 5), {}),
    "weibull": ((2.0, 5), {}),
    "zipf": ((2.0, 5), {}),
}
STATE_FUNCTIONS = {"seed", "get_state", "set_state", "shuffle", "default_rng",
                   "get_bit_generator", "set_bit_generator"}

GENERATOR_CALLS = {
    "integers": ((0, 10, 6), {}),
    "random": ((5,), {}),
    "permuted": ((np.arange(12).reshape(3, 4),), {"axis": 1}),
    "multivariate_hypergeometric": (([3, 4, 5], 6, 4), {}),
    "choice": ((np.arange(10.0), 4), {"p": np.full(10, 0.1), "replace": False}),
    "spawn": None, "shuffle": None, "bit_generator": None,
}


def _same(ours, theirs):
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, minijax.Array)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(np.asarray(ours), theirs)
    else:
        assert type(ours) is type(theirs) and ours == theirs


def test_every_numpy_random_name_is_present():
    missing = [n for n in np.random.__all__ if not hasattr(mnp.random, n)]
    assert not missing
    for cls, ours in ((np.random.RandomState, mnp.random.RandomState),
                      (np.random.Generator, mnp.random.Generator)):
        public = [n for n in dir(cls) if not n.startswith("_")]
        assert not [n for n in public if not hasattr(ours, n)]


def test_the_call_tables_cover_numpy():
    legacy = {n for n in np.random.__all__ if n[0].islower()}
    legacy |= {n for n in dir(np.random.RandomState) if not n.startswith("_")}
    assert legacy <= set(LEGACY_CALLS) | STATE_FUNCTIONS
    generator = {n for n in dir(np.random.Generator) if not n.startswith("_")}
    assert generator <= set(LEGACY_CALLS) | set(GENERATOR_CALLS)


@pytest.mark.filterwarnings("ignore:This function is deprecated:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(set(LEGACY_CALLS) & set(np.random.__all__)))
@pytest.mark.parametrize("seed", [0, 12345])
def test_module_function_gives_numpys_numbers(name, seed):
    args, kwargs = LEGACY_CALLS[name]
    mnp.random.seed(seed)
    np.random.seed(seed)
    _same(getattr(mnp.random, name)(*args, **kwargs), getattr(np.random, name)(*args, **kwargs))
    # and the state advanced as NumPy's did
    _same(mnp.random.rand(2), np.random.rand(2))


@pytest.mark.filterwarnings("ignore:This function is deprecated:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(set(LEGACY_CALLS) - {"ranf", "sample"}))
def test_random_state_method_gives_numpys_numbers(name):
    args, kwargs = LEGACY_CALLS[name]
    ours, theirs = mnp.random.RandomState(7), np.random.RandomState(7)
    _same(getattr(ours, name)(*args, **kwargs), getattr(theirs, name)(*args, **kwargs))


_GENERATOR_NAMES = sorted(n for n in dir(np.random.Generator) if not n.startswith("_")
                          and GENERATOR_CALLS.get(n, ()) is not None)


@pytest.mark.parametrize("name", _GENERATOR_NAMES)
@pytest.mark.parametrize("seed", [0, 2024])
def test_generator_method_gives_numpys_numbers(name, seed):
    args, kwargs = GENERATOR_CALLS.get(name) or LEGACY_CALLS[name]
    ours, theirs = mnp.random.default_rng(seed), np.random.default_rng(seed)
    _same(getattr(ours, name)(*args, **kwargs), getattr(theirs, name)(*args, **kwargs))
    _same(ours.random(2), theirs.random(2))


def test_scalar_draws_match_numpy_types():
    mnp.random.seed(3)
    np.random.seed(3)
    _same(mnp.random.rand(), np.random.rand())
    _same(mnp.random.normal(), np.random.normal())
    _same(mnp.random.randint(5), np.random.randint(5))


def test_minijax_arrays_as_parameters():
    g1, g2 = mnp.random.default_rng(5), np.random.default_rng(5)
    _same(g1.normal(mnp.arange(3.0), mnp.ones(3)), g2.normal(np.arange(3.0), np.ones(3)))
    _same(g1.choice(mnp.arange(5.0), 3), g2.choice(np.arange(5.0), 3))


@pytest.mark.parametrize("make", [mnp.random.RandomState, mnp.random.default_rng])
def test_shuffle_in_place_on_a_minijax_array(make):
    x = mnp.arange(12.0).reshape(4, 3)
    y = np.arange(12.0).reshape(4, 3)
    numpy_make = np.random.RandomState if make is mnp.random.RandomState else np.random.default_rng
    assert make(9).shuffle(x) is None
    numpy_make(9).shuffle(y)
    np.testing.assert_array_equal(np.asarray(x), y)
    lst = [1, 2, 3, 4, 5]
    make(1).shuffle(lst)
    ref = [1, 2, 3, 4, 5]
    numpy_make(1).shuffle(ref)
    assert lst == ref


def test_module_shuffle_and_generator_out():
    x = mnp.arange(10)
    mnp.random.seed(4)
    mnp.random.shuffle(x)
    y = np.arange(10)
    np.random.seed(4)
    np.random.shuffle(y)
    np.testing.assert_array_equal(np.asarray(x), y)
    out = mnp.zeros(4)
    res = mnp.random.default_rng(2).standard_normal(out=out)
    assert res is out
    np.testing.assert_array_equal(np.asarray(out), np.random.default_rng(2).standard_normal(4))


def test_state_round_trip_and_bit_generators():
    rs = mnp.random.RandomState(0)
    state = rs.get_state()
    a = rs.rand(3)
    rs.set_state(state)
    _same(rs.rand(3), np.asarray(a))
    g = mnp.random.Generator(mnp.random.Philox(11))
    _same(g.random(3), np.random.Generator(np.random.Philox(11)).random(3))
    assert isinstance(g.bit_generator, mnp.random.BitGenerator)
    kids = mnp.random.default_rng(0).spawn(2)
    ref = np.random.default_rng(0).spawn(2)
    _same(kids[1].random(2), ref[1].random(2))
    with pytest.raises(TypeError, match="BitGenerator"):
        mnp.random.Generator(3)


def test_module_state_is_separate_from_numpys():
    np.random.seed(0)
    mnp.random.seed(1)
    assert np.random.rand() == np.random.RandomState(0).rand()


def _draw_times_sin(x):
    z = mnp.random.randn(*x.shape)
    return mnp.sum(mnp.sin(x) * z), z


_STAGING = {
    "jit": minijax.jit,
    "vmap": minijax.vmap,
    "make_jaxpr": minijax.make_jaxpr,
    "grad_of_jit": lambda f: minijax.grad(minijax.jit(f)),
    "jit_of_grad": lambda f: minijax.jit(minijax.grad(f)),
    "vmap_of_grad": lambda f: minijax.vmap(minijax.grad(f)),
    "jacfwd_of_vmap": lambda f: minijax.jacfwd(minijax.vmap(f)),
    "scan_under_grad": lambda f: minijax.grad(
        lambda x: minijax.lax.scan(lambda c, _: (c + f(x), None), 0.0, None, length=2)[0]),
}


@pytest.mark.parametrize("name", sorted(_STAGING))
def test_refused_under_staging(name):
    def f(x):
        return mnp.sum(x * mnp.random.normal())
    with pytest.raises(errors.HiddenStateInTransformationError, match="minijax.random"):
        _STAGING[name](f)(mnp.ones((3, 2)) if "vmap" in name else mnp.ones(2))
    g = mnp.random.default_rng(0)
    with pytest.raises(errors.HiddenStateInTransformationError, match="freeze"):
        minijax.jit(lambda x: x + g.random())(1.0)


def test_draw_inside_grad_is_numpys_and_a_constant():
    x = mnp.linspace(-1.0, 2.0, 4)
    mnp.random.seed(5)
    (value, z), g = minijax.value_and_grad(_draw_times_sin, has_aux=True)(x)
    np.random.seed(5)
    z_ref = np.random.randn(4)
    np.testing.assert_array_equal(np.asarray(z), z_ref)
    np.testing.assert_allclose(np.asarray(g), np.cos(np.asarray(x)) * z_ref, rtol=1e-15)
    np.testing.assert_allclose(float(value), np.sum(np.sin(np.asarray(x)) * z_ref))
    # the generator state advanced as NumPy's did
    _same(mnp.random.rand(2), np.random.rand(2))


def test_draws_inside_derivatives_are_fresh_per_call():
    x = mnp.linspace(-1.0, 2.0, 3)
    cos = np.cos(np.asarray(x))

    def f(x):
        return _draw_times_sin(x)[0]
    transforms = {
        "grad": lambda: minijax.grad(f)(x),
        "jvp": lambda: minijax.jvp(f, (x,), (mnp.ones(3),))[1],
        "vjp": lambda: minijax.vjp(f, x)[1](1.0)[0],
        "linearize": lambda: minijax.linearize(f, x)[1](mnp.ones(3)),
        "jacfwd": lambda: minijax.jacfwd(f)(x),
        "jacrev": lambda: minijax.jacrev(f)(x),
    }
    for name, run in transforms.items():
        mnp.random.seed(11)
        first = np.asarray(run())
        second = np.asarray(run())
        np.random.seed(11)
        z1, z2 = np.random.randn(3), np.random.randn(3)
        if name in ("jvp", "linearize"):   # the tangent of ones: sum(cos(x) * z)
            z1, z2 = np.sum(cos * z1), np.sum(cos * z2)
            np.testing.assert_allclose(first, z1, rtol=1e-14, err_msg=name)
            np.testing.assert_allclose(second, z2, rtol=1e-14, err_msg=name)
        else:
            np.testing.assert_allclose(first, cos * z1, rtol=1e-14, err_msg=name)
            np.testing.assert_allclose(second, cos * z2, rtol=1e-14, err_msg=name)


def test_hessian_with_a_draw():
    x = mnp.linspace(-1.0, 2.0, 3)
    mnp.random.seed(2)
    h = minijax.hessian(lambda x: _draw_times_sin(x)[0])(x)
    np.random.seed(2)
    np.testing.assert_allclose(np.asarray(h), np.diag(-np.sin(np.asarray(x)) * np.random.randn(3)),
                               rtol=1e-14, atol=1e-300)


def test_traced_parameter_of_a_draw_is_refused():
    with pytest.raises(errors.HiddenStateInTransformationError, match="standard_normal"):
        minijax.grad(lambda loc: mnp.random.normal(loc))(1.0)
