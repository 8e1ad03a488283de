"""A sum over a loop (or a generator) of a term the loop does not change is n times the term; with
no iteration, n = 0, and a term that is inf or NaN, that was 0 * inf = NaN, where Python's sum of
nothing is 0.0. runtime.count_times: 0 where n is 0. Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def loop_sum(v, x):
    s = 0.0
    for e in v:
        s += np.exp(x)
    return s


def nested_sum(m, x):
    return np.sum(np.array([[np.exp(x) for e in row] for row in m]))


@pytest.mark.parametrize("f, a", [(loop_sum, np.array([])), (nested_sum, np.ones((2, 0)))],
                         ids=["loop_sum", "nested_sum"])
@pytest.mark.parametrize("x", [1000.0, np.nan, 0.5])
def test_no_iteration_of_an_infinite_term_is_zero(f, a, x):
    with np.errstate(all="ignore"):
        value, g = catad.value_and_grad(f, argnums=1)(a, x)
    assert value == f(a, x) == 0.0 and g == 0.0


@pytest.mark.parametrize("f, a", [(loop_sum, np.ones(3)), (nested_sum, np.ones((2, 3)))],
                         ids=["loop_sum", "nested_sum"])
def test_iterations(f, a):
    agrees(f, a, 0.5, argnums=1)
    with np.errstate(all="ignore"):
        assert catad.value_and_grad(f, argnums=1)(a, 1000.0)[0] == f(a, 1000.0) == np.inf
