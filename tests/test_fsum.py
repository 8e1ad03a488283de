"""math.fsum: Python's float, the correctly rounded sum of a vector, a list or a generator of
numbers (math.fsum itself at run time, so exact where np.sum is not: 1e16 + 1.0 - 1e16 is 1.0);
its derivative is sum's. It was refused ("math.fsum is not supported"), the fifth most common
refusal of the differential fuzzer of session 35."""
import math

import numpy as np
import pytest

import catad


def of_a_vector(x):
    return math.fsum(x) * x[0]


def of_a_generator(x):
    return math.fsum(e * e for e in x)


def cancelling(x):
    return math.fsum([1e16 * x[0], 1.0, -1e16 * x[0]]) + x[1]


def filtered(x):
    return 1.0 / math.fsum(e for e in x if e > 0)


def of_each_row(x):
    m = np.outer(x, x)
    return sum(math.fsum(r) ** 2 for r in m)


def of_ints_and_bools(x):
    return math.fsum([1, 2, 3]) * x[0] + math.fsum(x > 0) + math.fsum(np.arange(3)) * x[1]


FS = [of_a_vector, of_a_generator, cancelling, filtered, of_each_row, of_ints_and_bools]


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[0.1, 0.2, 0.3], [1.0, 0.5, -0.25]], ids=str)
def test_value_and_gradient_as_python(f, x):
    x = np.array(x)
    value, grad = catad.value_and_grad(f)(x)
    assert value == f(x)  # exactly: math.fsum's rounding
    h = 1e-6
    np.testing.assert_allclose(grad, [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)],
                               rtol=1e-6, atol=1e-8)
    _, tangent = catad.jvp(f, (x,), (np.array([1.0, -2.0, 0.5]),))
    assert tangent == pytest.approx(grad @ np.array([1.0, -2.0, 0.5]), rel=1e-12)


def test_exact_where_numpy_sum_is_not():
    x = np.array([1.0, 0.5])
    assert np.sum([1e16, 1.0, -1e16]) == 0.0
    assert catad.value_and_grad(cancelling)(x) == (1.5, pytest.approx(np.array([0.0, 1.0])))


def test_second_derivative():
    np.testing.assert_allclose(catad.hessian(of_a_generator)(np.array([0.1, 0.2, 0.3])), 2 * np.eye(3))


def test_of_nothing_is_python_zero():
    with pytest.raises(ZeroDivisionError):
        filtered(np.array([-1.0, -2.0]))
    with pytest.raises(ZeroDivisionError):
        catad.value_and_grad(filtered)(np.array([-1.0, -2.0]))


def infinities(x):
    return math.fsum([x[0] * np.inf, -np.inf])


def of_a_matrix(x):
    return math.fsum(np.outer(x, x))


def test_errors_as_python():
    with pytest.raises(ValueError, match=r"-inf \+ inf in fsum"):
        infinities(np.array([1.0]))
    with pytest.raises(catad.DomainError, match=r"-inf \+ inf in fsum") as e:
        catad.value_and_grad(infinities)(np.array([1.0]))
    assert isinstance(e.value, ValueError) and e.value.loc.line == infinities.__code__.co_firstlineno + 1
    with pytest.raises(catad.CatadError, match="math.fsum"):
        catad.grad(of_a_matrix)(np.array([1.0, 2.0]))
