"""A method of a frozen scipy.stats distribution called where it is made, st.norm(mu, sigma).logpdf(x),
is the distribution's method with the frozen arguments after its own (as SciPy's rv_frozen calls
it): st.norm.logpdf(x, mu, sigma). It was refused ("scipy.stats.norm is not supported"); a frozen
distribution kept in a variable still is. Oracle: the function itself and central differences."""
import numpy as np
import pytest
import scipy.stats as st
from scipy.stats import gamma, norm

from located import agrees, refused


def positional(mu, x):
    return np.sum(st.norm(mu, 2.0).logpdf(x)) + np.sum(st.norm(mu).cdf(x))


def keywords(mu, x):
    return np.sum(norm(loc=mu, scale=1.5).logcdf(x)) + gamma(2.0, scale=mu).logpdf(1.3)


@pytest.mark.parametrize("f", [positional, keywords], ids=lambda f: f.__name__)
def test_values_and_derivatives(f):
    agrees(f, 0.7, np.array([0.1, 0.5, 1.5]))


def kept(mu, x):
    d = st.norm(mu, 2.0)  # ERR
    return np.sum(d.logpdf(x))


def test_a_frozen_distribution_kept_in_a_variable_refused():
    refused(kept, (0.7, np.array([0.1, 0.5])), "scipy.stats.norm")


def more_arguments(mu, x):
    return np.sum(st.norm(scale=2.0).logpdf(x, mu))  # ERR


def test_a_frozen_method_given_more_than_x_refused():
    # Python: logpdf() of a frozen distribution takes x only (TypeError); catad merged the arguments
    with pytest.raises(TypeError):
        more_arguments(0.7, np.array([0.1]))
    refused(more_arguments, (0.7, np.array([0.1])), "scipy.stats.norm")
