"""The variant that runs only the branch an if takes (backend.Compiled.blocks: computing both
raised, here math.ceil of a NaN in the branch not taken) keeps a branch's cotangent as a run-time
value, which has no batch axes; scaled by a value of each lane of a build (sum(np.arange(n) * x),
whose derivative in x scales it by each k), it was taken for one value of every lane: the
gradient in x was [1.0, 5.5, 10.0] where it is 5.5, and converting it raised a raw TypeError
(found by differential testing, session 28). A number's cotangent is made an array of the lanes'
products there; another's is refused."""
import math

import numpy as np
import pytest

import catad


def ceil_test(a):
    if math.ceil(a) > 0.5:
        return a
    return 1.5


def branch_not_taken_raises(x, v, m):
    s2 = np.sum(np.arange(len(v)) * x)
    a3 = m[:, :1] / (1.0 + v[1] % np.sum(v[:0]))  # NaN: v[1] % 0.0
    if 1.0 >= abs(a3[1, -1]):
        pass
    elif np.mean(v) < np.where(-1.25 < m[0, 1], 1.0, 2.0) < v[0]:
        s2 = ceil_test(np.mean(a3))  # math.ceil(nan) raises, where this branch is computed
    return x + 1.5 * s2


@pytest.mark.parametrize("x", [0.0, 0.373, -2.0])
def test_gradient_of_the_branch_taken(x):
    v, m = np.array([-0.5, 2.0, 0.5]), np.array([[3.0, 2.0, 1.0], [1.0, 2.0, 3.0]])
    with np.errstate(all="ignore"):
        value, grad = catad.value_and_grad(branch_not_taken_raises)(x, v, m)
        assert value == branch_not_taken_raises(x, v, m)
    assert grad == 5.5  # d/dx of x + 1.5 * (0 + 1 + 2) * x
    _, t = catad.jvp(branch_not_taken_raises, (x, v, m), (1.0, np.zeros(3), np.zeros((2, 3))))
    assert t == 5.5


def test_a_tangent_of_another_shape_than_a_number_is_catads_error():
    from catad.differentiate import _materialize
    with pytest.raises(catad.CatadError, match=r"of shape \(3,\) for a number"):
        _materialize(np.ones(3), 1.5)
    assert _materialize(np.array(2.0), 1.5) == 2.0 and type(_materialize(np.float64(2.0), 1.5)) is float
