"""divmod, .item(), sorted, np.meshgrid and loops over enumerate(zip(...)) (catad/frontend/idioms.py,
loops.py): values against Python and NumPy, gradients against central differences in both modes,
empty and length-1 arrays, and the refusals located."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from located import agrees, refused
from test_special_functions import value

X = np.array([0.3, -1.2, 0.8, 2.0, -0.4])


# ---------------------------------------------------------------- divmod

def divmods(x):
    q, r = divmod(7, 3)
    a, b = divmod(x[0], 0.7)
    c, d = divmod(-7.5, 2)
    e, f = divmod(x[1], -0.5)
    return np.sum(x ** q) + r * x[1] + a * b + c + d * x[2] + e * f


def int_divmod(n, x):
    q, r = divmod(n, -4)
    return q * x + r


def test_divmod():
    agrees(divmods, X)
    agrees(divmod_arrays, X)
    for n in (-9, -8, 0, 7, 13):
        assert value(int_divmod, n, 1.5) == int_divmod(n, 1.5)


def divmod_arrays(x):
    q, r = divmod(x * 3.1, 2.0)  # (NumPy's: tests/test_divmod_of_arrays.py)
    return np.sum(q * x + r * r)


# ---------------------------------------------------------------- .item()

def items(x):
    return x[0].item() * np.sum(x[1:2]).item() + x[2:3].item() + np.array([[x[3]]]).item() + len(x[:2]) * 0.5


def item_of_many(x):
    return x[1:].item()


def test_item():
    agrees(items, X)
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        catad.grad(item_of_many)(X)
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        catad.grad(item_of_many)(X[:1])  # no elements
    assert catad.grad(item_of_many)(X[:2])[1] == 1.0


def item_argument(x):
    return x.item(0)  # ERR


# ---------------------------------------------------------------- sorted

def top_two(x):
    s = sorted(x)
    return s[-1] + s[-2]


def descending(x):
    t = sorted(x, reverse=True)
    return t[0] * 2 + sum(t[:3]) + len(t)


def of_a_list(x):
    vals = [x[0] ** 2, x[1], x[2] * 3]
    return sorted(vals)[0]


def ties(x):
    s = sorted(x, reverse=True)
    return s[0] * 1.0 + s[1] * 2.0 + s[2] * 3.0


def test_sorted():
    agrees(top_two, X)
    agrees(descending, X)
    agrees(of_a_list, X)
    agrees(descending, X[:3])
    assert value(descending, X[:1]) == descending(X[:1])
    # equal values keep their order with reverse=True, as Python's: -0.0 and 0.0 compare equal
    z = np.array([0.0, -0.0, 1.0])
    assert np.copysign(1.0, value(lambda v: sorted(v, reverse=True)[2], z)) == \
        np.copysign(1.0, sorted(z, reverse=True)[2])
    with pytest.raises(catad.DomainError, match="NaN"):
        catad.grad(top_two)(np.array([1.0, np.nan, 0.5]))
    assert value(lambda v: sorted(v)[0], np.array([3, 1, 2])) == 1


def sorted_key(x):
    return sorted(np.outer(x, x), key=lambda r: r[0])[0][0]  # ERR (of a vector, key= is supported)


def sorted_matrix(x):
    return sorted(np.outer(x, x))[0][0]  # ERR


# ---------------------------------------------------------------- np.meshgrid

def grids(x):
    a, b = np.meshgrid(x, x[:3])
    c, d = np.meshgrid(x[:2], x, indexing='ij')
    e, f, g = np.meshgrid(x[:2], x[:3], x, indexing='xy')
    (h,) = np.meshgrid(x)
    return np.sum(a * b ** 2) + np.sum(c * d) + np.sum(e * f * g) + np.sum(h)


def test_meshgrid():
    agrees(grids, X)
    for n in (0, 1):
        v = X[:n]
        got = value(lambda v: np.meshgrid(v, X[:2])[0], v)
        np.testing.assert_array_equal(got, np.meshgrid(v, X[:2])[0])
        assert got.shape == np.meshgrid(v, X[:2])[0].shape


def meshgrid_sparse(x):
    a, b = np.meshgrid(x, x, sparse=True)  # ERR
    return np.sum(a * b)


# ---------------------------------------------------------------- enumerate(zip(...))

def enumerate_zip(x):
    tot = 0.0
    for k, (a, b) in enumerate(zip(x, x[1:])):
        tot = tot + k * a * b
    return tot


def enumerate_zip_start(x):
    tot = 0.0
    for k, (a, b) in enumerate(zip(x[:3], x[1:]), 2):  # the shorter is x[:3]
        tot = tot + k * a * b
    return tot


def enumerate_zip_comprehension(x):
    return sum(k * a * b for k, (a, b) in enumerate(zip(x, x[1:])))


def enumerate_zip_tuples(x):
    t, u = (x[0], x[1] * 2), (x[2], x[3], x[4])
    s = 0.0
    for k, (a, b) in enumerate(zip(t, u)):
        s = s + k * a + b
    return s


def test_enumerate_zip():
    for f in (enumerate_zip, enumerate_zip_start, enumerate_zip_comprehension):
        agrees(f, X)
        agrees(f, X[:2])
        for n in (0, 1):
            assert value(f, X[:n]) == f(X[:n])
    agrees(enumerate_zip_tuples, X)


def test_refusals():
    refused(item_argument, (X,), ".item() with arguments")
    refused(sorted_key, (X,), "sorted(..., key=...) of a Vec (Vec Float) is not supported")
    refused(sorted_matrix, (X,), "sorted()")
    refused(meshgrid_sparse, (X,), "sparse=True")


def rounds(x):
    return round(2.6) * x + round(2.5) + round(-0.5) + round(7) + int(3.9)


def test_round_of_constants():
    """Python's round of a constant (halves to even), of an Int itself."""
    agrees(rounds, 1.5)
