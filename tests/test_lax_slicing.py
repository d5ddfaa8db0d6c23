import numpy as np
import pytest

from minijax import lax
from minijax.test_util import check_grads, check_primitive

REV_CASES = [((), ()), ((0, 3), (0,)), ((4,), (0,)), ((2, 3), (1,)), ((2, 3, 4), (0, 2)),
             ((2, 3), ())]


@pytest.mark.parametrize("shape,dims", REV_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_rev(shape, dims, dtype):
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    out = check_primitive(lambda a: lax.rev(a, dims), [x])
    np.testing.assert_array_equal(out, np.flip(x, dims) if dims else x)


def test_rev_grads():
    x = np.random.default_rng(0).standard_normal((2, 3))
    check_grads(lambda a: lax.rev(a, (1,)) * a, (x,), order=2)


def test_rev_bad_dims():
    with pytest.raises(ValueError, match="lax.rev"):
        lax.rev(np.zeros((2, 3)), (0, 0))
