"""np.cov and np.corrcoef of a matrix holding one variable (shape (1, n), or (n, 1) with rowvar=False)
are a number, as of a vector: NumPy squeezes the 1 x 1 result. catad squeezed only a vector's and
returned a (1, 1) array, so np.stack([np.corrcoef(m, rowvar=False), 3.0]) had the shape (2, 1, 1)
where NumPy's is (2,). Whether m holds one variable is read from the signature (an argument's axis
of length 1); where it is not known while compiling, the matrix form is compiled and one variable
at run time is refused there. Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def cov_times_two(m):
    return np.cov(m) * 2.0


def corrcoef_stacked(m):
    return np.sum(np.stack([np.corrcoef(m, rowvar=False), 3.0]) * np.array([1.0, 2.0]))


def cov_of_transpose(x):
    return np.sum(np.cov(x.T) * 2.0)


def cov_of_centred_columns(x):
    return np.sum(np.cov(x - x.mean(axis=0), rowvar=False) * np.arange(9.0).reshape(3, 3))


def corrcoef_of_two_rows(x):
    return np.sum(np.corrcoef(x[:2]) * np.array([[1.0, 2.0], [3.0, 4.0]]))


def cov_of_first_row(x):
    return np.sum(np.cov(x[:1]))


X = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [2.0, 0.1, 0.7], [0.4, 0.4, 1.9]])


def test_one_variable_is_a_number():
    m = np.array([[1.0, 2.0, 4.0]])
    value, g = catad.value_and_grad(cov_times_two)(m)
    assert np.shape(value) == np.shape(cov_times_two(m)) == ()
    agrees(cov_times_two, m)
    out, _ = catad.jvp(lambda m: np.stack([np.corrcoef(m, rowvar=False), 3.0]), (m.T,), (np.zeros((3, 1)),))
    assert out.shape == (2,)
    agrees(corrcoef_stacked, m.T)


@pytest.mark.parametrize("f", [cov_of_transpose, cov_of_centred_columns, corrcoef_of_two_rows],
                         ids=lambda f: f.__name__)
def test_several_variables_are_a_matrix(f):
    agrees(f, X)


def test_one_variable_not_known_while_compiling_is_refused_where_it_runs():
    with pytest.raises(catad.CatadError, match="compiled it for a matrix"):
        catad.grad(cov_of_first_row)(X)


def corrcoef_doubled_down(a):
    return np.floor(np.corrcoef(a) * 2.0) + np.corrcoef(a) * a[0]


@pytest.mark.parametrize("a", [[0.4, 1.0, 2.0], [0.3, 0.5, 3.0, 1.0]])
def test_one_variable_s_correlation_is_numpy_s_c_over_c(a):
    """NumPy's corrcoef of one variable is c / c: exactly 1.0 (nan where c is 0, inf or nan),
    unclipped. catad computed c / sqrt(c) / sqrt(c), which rounds to 0.9999999999999999 for these
    (floor(2 r) then 1.0, not 2.0: found by differential testing, session 24)."""
    a = np.array(a)
    value, g = catad.value_and_grad(corrcoef_doubled_down)(a)
    assert value == corrcoef_doubled_down(a) == 2.0 + a[0]
    np.testing.assert_allclose(g, [1.0, 0.0, 0.0] + [0.0] * (len(a) - 3), atol=1e-15)
    m = np.array([a])  # one variable as a row of a matrix
    assert catad.value_and_grad(lambda m: np.corrcoef(m) * 3.0)(m)[0] == 3.0
    with np.errstate(invalid="ignore"):
        assert np.isnan(catad.value_and_grad(lambda v: np.corrcoef(v) * v[0])(np.zeros(3))[0])
