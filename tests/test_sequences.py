"""np.copysign, np.ediff1d, np.unwrap and np.repeat with a constant array of repeats
(catad/frontend/numpy_sequences.py): values bit for bit NumPy's (signs of zeros and NaNs
included), odd shapes, gradients against central differences forward and reverse, NumPy's
errors and the located refusals."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from located import agrees, marked_line, refused

RNG = np.random.default_rng(77)
X = np.array([0.5, -0.3, 0.8])
SIGNED = np.array([-0.0, 0.0, np.inf - np.inf, -2.0, 3.0])  # inf - inf: a NaN whose sign bit is set on x86


def cs(x):
    return np.copysign(1.0, x) * x + np.copysign(x, -1.0)


def cs2(a, b):
    return np.copysign(a, b)


def ed(x):
    return np.ediff1d(x, to_begin=-1.0, to_end=[2.0, 3.0])


def ed_plain(m):
    return np.ediff1d(m)


def uw(x):
    return np.unwrap(np.cumsum(x * 3))


def uw_period(x):
    return np.unwrap(x, discont=4.0, period=5.0)


def rp(x):
    return np.repeat(x, [1, 2, 3])


def rp_one(x):
    return np.repeat(x, np.array([2]))


def rp_zeros(x):
    return np.repeat(x, [0, 2, 0])


JUMPS = np.array([1.0, 5.0, 2.0, 9.0, -7.0, -2.5])


@pytest.mark.parametrize("fn,args", [(cs, (X,)), (cs, (SIGNED,)), (cs2, (SIGNED, SIGNED[::-1])), (cs2, (2.0, -0.0)),
                                     (ed, (X,)), (ed, (X[:1],)), (ed_plain, (np.arange(6.0).reshape(2, 3) ** 2,)),
                                     (ed_plain, (np.array([3, 1, 4]),)), (uw, (X,)), (uw, (JUMPS,)),
                                     (uw_period, (JUMPS,)), (uw, (np.zeros(0),)), (uw_period, (JUMPS[:1],)),
                                     (rp, (X,)), (rp_one, (X,)), (rp_zeros, (X,))])
def test_values_are_numpy_s(fn, args):
    got, _ = catad.vjp(fn, *args)
    want = fn(*args)
    assert np.shape(got) == np.shape(want) and np.result_type(got) == np.result_type(want)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def weighted(fn):
    def f(*args):
        out = fn(*args)
        return np.sum(np.cos(np.arange(np.size(out))) * out)
    return f


@pytest.mark.parametrize("fn,x", [(cs, X), (ed, X), (uw, X), (uw, JUMPS), (uw_period, JUMPS + [0, 0.3, 0, 0, 0, 0]), (rp, X), (rp_one, X),
                                  (rp_zeros, X)])
def test_gradients(fn, x):
    agrees(weighted(fn), x)


def test_copysign_gradient_in_both():
    a, b = RNG.normal(size=4), RNG.normal(size=4)
    agrees(lambda a, b: np.sum(np.copysign(a, b) * np.arange(4.0)), a, b, argnums=0)


def wrong_length(x):
    return np.repeat(x, [1, 2, 3])  # ERR


def computed_repeats(x, k):
    return np.repeat(x, k)  # ERR


def float_into_ints(v):
    return np.ediff1d(v, to_begin=0.5)  # ERR


def unwrap_matrix(m):
    return np.unwrap(m)  # ERR


def test_errors_and_refusals():
    with pytest.raises(ValueError, match="could not be broadcast") as info:
        catad.grad(weighted(wrong_length))(np.ones(4))
    assert info.value.loc.line == marked_line(wrong_length)
    with pytest.raises(ValueError):
        wrong_length(np.ones(4))
    refused(computed_repeats, (X, np.array([1, 2, 3])), "constant array of Ints")
    refused(float_into_ints, (np.array([1, 2]),), "same_kind")
    with pytest.raises(TypeError):
        float_into_ints(np.array([1, 2]))
    refused(unwrap_matrix, (np.ones((2, 3)),), "more than one axis")


# ---------------------------------------------------------------- np.geomspace

def geo(a, b):
    return np.geomspace(a, b, 7)


def geo_open(a, b):
    return np.geomspace(a, b, 5, endpoint=False)


def geo_default(a, b):
    return np.geomspace(a, b)


def geo_one(a, b):
    return np.geomspace(a, b, 1)


def geo_none(a, b):
    return np.geomspace(a, b, 0)


@pytest.mark.parametrize("fn,args", [(geo, (1.0, 1000.0)), (geo, (-2.0, -50.0)), (geo_open, (0.3, 7.0)),
                                     (geo_default, (1.0, 2.0)), (geo_one, (3.0, 4.0)), (geo_none, (3.0, 4.0)),
                                     (geo, (2.0, -3.0))])
def test_geomspace_values(fn, args):
    got, _ = catad.vjp(fn, *args)
    with np.errstate(all="ignore"):
        want = fn(*args)
    assert np.shape(got) == np.shape(want) and np.array_equal(got, want, equal_nan=True)


def test_geomspace_gradients_and_zero():
    for fn, args in ((geo, (1.5, 40.0)), (geo, (-1.5, -4.0)), (geo_open, (0.3, 7.0))):
        for k in range(2):
            agrees(weighted(fn), *args, argnums=k)
    with pytest.raises(ValueError, match="cannot include zero") as info:
        catad.vjp(geo_zero_marked, 0.0, 1.0)
    assert info.value.loc.line == marked_line(geo_zero_marked)


def geo_zero_marked(a, b):
    return np.geomspace(a, b, 7)  # ERR
