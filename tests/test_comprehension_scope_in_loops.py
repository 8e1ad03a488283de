"""A comprehension's variables are its own (Python 3): `sum(c[i] * x for i in range(2))` in a loop
whose body assigns i later (`for i in ...`, `i = 1`) reads no i of the function's. catad took it for
a read of the loop's i before it is assigned and refused the function ("variable 'i' is read in the
loop before it is assigned"), valid code (the real-code trial of session 36). A lambda's parameters
likewise."""
import numpy as np
import pytest

import catad
from located import agrees


def loop_after_a_generator(c):
    total = 0.0
    for x in c:
        s = sum(c[i] * x for i in range(2))
        for i in range(2):
            total += s * i
    return total


def assignment_after_a_generator(c):
    out = 0.0
    for x in c:
        m = max(c[i] * x for i in range(3))
        i = 1
        out += m * c[i]
    return out


def nested_generators(c):
    out = 0.0
    for x in c:
        out += sum(c[i] * c[j] for i in range(2) for j in range(i + 1))
        j = 0
        out += c[j] * x
    return out


def a_lambdas_parameter(c):
    out = 0.0
    for x in c:
        f = lambda k: c[k] * x  # noqa: E731
        out += f(1)
        k = 2
        out += c[k]
    return out


@pytest.mark.parametrize("f", [loop_after_a_generator, assignment_after_a_generator, nested_generators,
                               a_lambdas_parameter], ids=lambda f: f.__name__)
def test_a_comprehensions_variable_is_its_own(f):
    c = np.array([0.5, 1.5, -0.7])
    assert catad.value_and_grad(f)(c)[0] == pytest.approx(f(c), rel=1e-14)
    agrees(f, c)


def still_read_before_assigned(c):
    out = 0.0
    for x in c:
        out += sum(c[k] for k in range(i))  # noqa: F821: the i of the loop's body, read before it is assigned
        i = 1
    return out


def test_a_comprehensions_first_iterable_is_read_outside_it():
    with pytest.raises(catad.CatadError, match="read in the loop before it is assigned"):
        catad.value_and_grad(still_read_before_assigned)(np.array([0.5, 1.5]))
