import numpy as np
import pytest

from minijax import lax
from minijax.test_util import check_primitive

CASES = [((), ()), ((0, 3), (0,)), ((4,), (0,)), ((2, 3), (1,)), ((2, 3, 4), (0, 2))]


@pytest.mark.parametrize("shape,axes", CASES)
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8])
@pytest.mark.parametrize("name,np_op", [("reduce_and", np.bitwise_and),
                                        ("reduce_or", np.bitwise_or)])
def test_reduce_and_or(name, np_op, shape, axes, dtype):
    x = np.random.default_rng(0).integers(0, 4, shape).astype(dtype)
    out = check_primitive(lambda a: getattr(lax, name)(a, axes), [x])
    if x.size:
        np.testing.assert_array_equal(out, np_op.reduce(x, axis=axes) if axes else x)


@pytest.mark.parametrize("name", ["reduce_and", "reduce_or"])
def test_reduce_and_or_rejects_float(name):
    with pytest.raises(TypeError, match=f"lax.{name}"):
        getattr(lax, name)(np.zeros(3, np.float32), (0,))
