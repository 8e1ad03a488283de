"""Reverse mode through index updates summed lazily (backend/reductions.reduce_update: an Upd's
pending axes) when a row's update sits inside one: the cotangent of m[r][c] summed over loops where
the row r repeats along the innermost loop (l * 0) and the column c varies along outer ones. The
row's update must not take its own innermost axis for a pending one: that broadcast the two sums
against each other (n * k contributions scattered where n * k * n are due, a gradient half the
truth; found by Hypothesis, tests/test_backend.py::test_random_comprehensions_agree_with_the_reference,
seed 1903). Checked against central differences of the functions themselves and against the core
evaluator (backend_programs.Programs), vectorised and as Python loops."""
import math

import numpy as np
import pytest

import catad
from backend_programs import Programs, central_difference


def rows_repeat(m):  # the lead's minimal case: row l * 0 along l, column over (i, j)
    n, k = m.shape
    return sum(sum(sum(m[l * 0, (i + j) % k] for l in range(n)) for j in range(k)) for i in range(n))


def hypothesis_1903(m):  # the case Hypothesis found
    n, k = m.shape
    return [[math.sqrt((sum(m[(2 * j1) % n][(j0 - i0) % k] for j1 in range(n))) ** 2 + 1.0)
             for j0 in range(k)] for i0 in range(n)]


def columns_repeat(m):  # the column repeats along the innermost loop, the row varies along (i, j)
    n, k = m.shape
    return sum(sum(sum(m[(i + j) % n, l * 0] for l in range(k)) for j in range(k)) for i in range(n))


def four_axes(m):  # two outer axes under the column's, the repeated row innermost
    n, k = m.shape
    return sum(sum(sum(sum(m[l * 0, (i + j + p) % k] for l in range(n)) for p in range(k))
                   for j in range(n)) for i in range(k))


def rows_partly_repeat(m):  # rows 0, 0, 1, 1, ...: some repeated, not all
    n, k = m.shape
    return sum(sum(sum(m[l // 2, (i * j + 1) % k] ** 2 for l in range(n)) for j in range(k)) for i in range(n))


def values_vary_inside(m):  # the value varies along the innermost loop too
    n, k = m.shape
    return sum(sum(sum(m[l * 0, (i + j) % k] * m[l, j] for l in range(n)) for j in range(k)) for i in range(n))


def matrix_of_sums(m):  # a matrix result: each entry's cotangent scattered
    n, k = m.shape
    return [[np.tanh(sum(m[(3 * l) % n, (i - j) % k] for l in range(n))) for j in range(k)] for i in range(n)]


def tensor_number_between(t):  # a tensor's: the middle index a number, the last over (i, j)
    n, k, p = t.shape
    return sum(sum(sum(t[l * 0, 0, (i + j) % p] for l in range(n)) for j in range(k)) for i in range(n))


def tensor_middle_repeats(t):  # the middle index repeats along l (2 * l % k), the last over (i, j)
    n, k, p = t.shape
    return sum(sum(sum(t[0, (2 * l) % k, (i * j) % p] for l in range(n)) for j in range(k)) for i in range(n))


def tensor_four_loops(t):  # 4 loops, the row repeated along the innermost (a raw ValueError before)
    n, k, p = t.shape
    return sum(sum(sum(sum(t[q * 0, (i * j) % k, (i + j) % p] for q in range(k)) for l in range(n))
                       for j in range(k)) for i in range(n))


TENSOR_FUNCTIONS = [tensor_number_between, tensor_middle_repeats, tensor_four_loops]
TENSOR_SHAPES = [(2, 2, 2), (3, 2, 3)]
FUNCTIONS = [rows_repeat, hypothesis_1903, columns_repeat, four_axes, rows_partly_repeat, values_vary_inside,
             matrix_of_sums]
SHAPES = [(2, 2), (3, 2), (2, 3), (4, 3)]


CASES = [(f, s) for f in FUNCTIONS for s in SHAPES] + [(f, s) for f in TENSOR_FUNCTIONS for s in TENSOR_SHAPES]
IDS = [f"{f.__name__}-{'x'.join(map(str, s))}" for f, s in CASES]


def matrix(shape):
    return np.random.default_rng(sum(shape) * 10 + shape[0]).normal(size=shape)


@pytest.mark.parametrize("fn, shape", CASES, ids=IDS)
def test_jacobian_against_central_differences(fn, shape):
    m = matrix(shape)
    truth = central_difference(lambda x: np.asarray(fn(x), dtype=float), (m,), 0)
    np.testing.assert_allclose(catad.jacrev(fn)(m), truth, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn, shape", CASES, ids=IDS)
def test_programs_agree_with_the_core_evaluator(fn, shape):
    m = matrix(shape)
    rng = np.random.default_rng(7)
    vectorised = Programs(fn, (m,))
    vectorised.check(rng)
    # the whole-array form, not the Python-loop fallback, is what is checked above
    assert all(c.fallbacks == [] for c in vectorised.all), [c.report() for c in vectorised.all]
    Programs(fn, (m,), vectorise=False).check(rng)


def test_the_repeated_row_is_summed_over_every_lane():
    """d/dm of the lead's case at (2, 2): m[0, c] is read n * n times for each column c, by
    (i, j) with (i + j) % 2 == c and every l; row 1 is never read."""
    g = catad.grad(rows_repeat)(np.array([[0.3, -0.7], [1.1, 0.4]]))
    np.testing.assert_array_equal(g, [[4.0, 4.0], [0.0, 0.0]])
