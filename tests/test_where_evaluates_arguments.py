"""np.where and np.select are calls: Python evaluates every argument, so a check in the choice not
taken raises as NumPy raises (an index out of bounds, math.log of a negative number). On scalars
catad lowers them to an if, which ran the branch taken only: np.where(x < 0, x, v[len(v)]) gave x
where Python raises IndexError, and np.where(x > 0, math.log(x), 0.0) gave 0.0 where it raises
ValueError. The arguments that run a check are now bound first (Builder.evaluated); the others stay
in their branch. Found by differential testing (session 18)."""
import math

import numpy as np
import pytest

from located import agrees
import catad


def where_index(v, x):
    return np.where(x < 0.0, x, v[len(v)])


def where_index_first(v, x):
    return np.where(x < 0.0, v[len(v) + 1], x)


def where_log(v, x):
    return np.where(x > 0.0, math.log(x), 0.0) + v[0]


def select_index(v, x):
    return np.select([x < 0.0, x > 5.0], [x, v[len(v)]], 1.0)


def where_in_bounds(v, x):
    return np.where(x < 0.0, x * 2.0, v[len(v) - 1] * x)


def select_in_bounds(v, x):
    return np.select([x < 0.0, x > 5.0], [x * 3.0, v[len(v) - 1] * x], x * x)


def where_sqrt(v, x):
    return np.where(x > 0.0, np.sqrt(x), 0.0) * v[0]


V = np.array([0.5, 2.0])
XS = [-1.0, 0.5, 7.0]


@pytest.mark.parametrize("x", XS)
@pytest.mark.parametrize("f", [where_index, where_index_first, select_index], ids=lambda f: f.__name__)
def test_an_index_out_of_bounds_in_any_argument_raises(f, x):
    with pytest.raises(IndexError):
        f(V, x)
    for run in (lambda: catad.value_and_grad(f, argnums=1)(V, x), lambda: catad.jvp(f, (V, x), (V * 0, 1.0))):
        with pytest.raises(catad.BoundsError):
            run()


def test_math_log_of_a_number_not_chosen_raises():
    with pytest.raises(ValueError):
        where_log(V, -1.0)
    with pytest.raises(catad.DomainError):
        catad.grad(where_log, argnums=1)(V, -1.0)
    agrees(where_log, V, 2.0, argnums=(0, 1))


@pytest.mark.parametrize("x", XS)
@pytest.mark.parametrize("f", [where_in_bounds, select_in_bounds, where_sqrt], ids=lambda f: f.__name__)
def test_arguments_in_bounds_choose_as_numpy(f, x):
    agrees(f, V, x, argnums=(0, 1))


def test_the_branch_not_taken_adds_no_nan_to_the_gradient():
    with np.errstate(invalid="ignore"):
        assert where_sqrt(V, -1.0) == 0.0
    value, (gv, gx) = catad.value_and_grad(where_sqrt, argnums=(0, 1))(V, -1.0)
    assert value == 0.0 and gx == 0.0 and np.all(gv == 0.0)


def where_rows_log(v, y):
    return np.sum(np.where(v > y, np.array([math.log(v[0]) for _ in v]), 1.0) * v)


def where_rows_index(v, y):
    return np.sum(np.where(v > y, 2.0 * v, np.array([v[k + 1] for k in range(len(v))])))


def where_rows_log_unused(v, y):
    for e in v:
        s = np.where(v > y, np.array([math.log(e) for _ in v]), 1.0)  # noqa: F841 (its check runs)
    return np.sum(v) + y


@pytest.mark.parametrize("f", [where_rows_log, where_rows_index, where_rows_log_unused], ids=lambda f: f.__name__)
def test_an_array_argument_running_a_check_raises_where_no_lane_chooses_it(f):
    """On arrays np.where is an elementwise if, and an operand that is a build of its own (a list
    comprehension) was fused into it: its element, and the element's check, ran only in the lanes
    that choose it. np.where(v > y, np.array([math.log(e) for _ in v]), 1.0) gave a value where no
    lane chose the logarithms and Python raises ValueError (loop fuzzer, seed 91948). Such an
    operand is now made whole first, as on scalars and as np.select's."""
    v = np.array([-0.48, -1.14, -1.13])
    with pytest.raises((ValueError, IndexError)) as python:
        f(v, 0.0)
    with pytest.raises(catad.CatadError) as ours:
        catad.value_and_grad(f, argnums=(0, 1))(v, 0.0)
    assert isinstance(ours.value, catad.DomainError if python.type is ValueError else catad.BoundsError)


def test_an_array_argument_running_a_check_is_chosen_as_numpy_where_it_passes():
    v = np.array([0.7, 1.3, 0.2])
    agrees(where_rows_log, v, 0.5, argnums=(0, 1))
    agrees(where_rows_log_unused, v, 0.5, argnums=(0, 1))
