"""[0.0, x[0]][i], a list display of both kinds of number indexed where it is made at a place known
only at run time: Python's 0.0 where i is 0, so 1.0 / it raises ZeroDivisionError there. catad took
it for NumPy's and gave inf (found by differential fuzzing, session 35); the same list named first
was right. Its kind is now undecided: a check that depends on it refuses where Python's would fail,
arithmetic that does not computes."""
import numpy as np
import pytest

import catad


def divided(x):
    s = [0.0, x[0]][int(x[0] > 5)]
    return 1.0 / s


def scaled(x):
    s = [0.0, x[0]][int(x[0] > 5)]
    return 2.0 * s + x[1]


def named_first(x):
    L = [0.0, x[0]]
    return 1.0 / L[int(x[0] > 5)]


def test_where_python_raises_catad_refuses():
    x = np.array([0.5, -2.0])
    with pytest.raises(ZeroDivisionError):
        divided(x)
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here"):
        catad.value_and_grad(divided)(x)
    with pytest.raises(ZeroDivisionError):
        catad.value_and_grad(named_first)(x)


@pytest.mark.parametrize("f", [divided, scaled, named_first], ids=lambda f: f.__name__)
def test_elsewhere_it_computes_as_python(f):
    x = np.array([6.0, 1.0])
    value, grad = catad.value_and_grad(f)(x)
    assert value == f(x)
    h = 1e-6
    np.testing.assert_allclose(grad, [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(2)], rtol=1e-6, atol=1e-9)
    assert catad.value_and_grad(scaled)(np.array([0.5, -2.0]))[0] == scaled(np.array([0.5, -2.0]))
