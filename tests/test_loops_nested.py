"""Nested loops whose iterations are independent (catad/frontend/independent.py; issue 15):
an inner loop over range(c + 1, d) that adds to the elements it visits (`out[r] = out[r] + e`)
is a map, and the outer loop, whose body adds to some elements of an array, an element-wise
sum; ADBench's GMM objective written with loops (benchmarks/adbench/gmm.py) then has no Python
loop. Values against the Python functions and the comprehension version, gradients against
central differences and jvp against grad, errors against Python's."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import catad
from adbench import gmm
from catad.pipeline import pipeline
from test_loop_check_order import same_error
from test_loops import check, check_value
from test_loops_vectorised import code, python_loops

RNG = np.random.default_rng(23)


def all_vectorised(f, *args):
    notes = pipeline(f, *args).loop_notes
    assert notes and all("is vectorised: no Python loop" in n for n in notes), notes
    text = code(f, *args)
    assert python_loops(text) == [], text


def qtimesx_args(d, short=0):
    return (RNG.uniform(-1, 1, d), RNG.uniform(-1, 1, max(gmm.tri(d) - short, 0)), RNG.uniform(-1, 1, d))


@pytest.mark.parametrize("d", [0, 1, 2, 3, 5])
def test_triangular_product(d):
    args = qtimesx_args(d)
    want = np.array(gmm.qtimesx(*args))
    np.testing.assert_allclose(gmm.qtimesx_loops(*args), want.reshape(np.shape(gmm.qtimesx_loops(*args))),
                               rtol=1e-12, atol=1e-12)

    def f(q, l, x):
        return np.sum(np.sin(gmm.qtimesx_loops(q, l, x)))
    check_value(f, args)
    if d:
        check(f, args, argnums=(0, 1, 2))
    all_vectorised(f, *args)


def qx_sum(q, l, x):
    return np.sum(gmm.qtimesx_loops(q, l, x))


@pytest.mark.parametrize("d, short", [(3, 1), (4, 2), (5, 9)])
def test_triangular_product_with_l_too_short(d, short):
    # l[start + r - c - 1] runs past the end at the first (c, r) Python reaches that far
    same_error(qx_sum, qtimesx_args(d, short))


def bumps(x, w, n):
    out = x * 0.5
    for c in range(n):
        for r in range(c, len(x)):
            out[r] = out[r] + w[c] * x[r - c]
    return np.sum(out * out)


@pytest.mark.parametrize("nx, nw, n", [(5, 3, 3), (4, 4, 4), (3, 2, 0), (0, 2, 2), (2, 5, 4)])
def test_an_outer_loop_adding_to_elements(nx, nw, n):
    args = (RNG.uniform(-1, 1, nx), RNG.uniform(-1, 1, nw), n)
    check_value(bumps, args)
    if nx:
        check(bumps, args, argnums=(0, 1))
    all_vectorised(bumps, *args)


def test_an_outer_loop_adding_to_elements_raises_pythons_error():
    same_error(bumps, (RNG.uniform(-1, 1, 4), RNG.uniform(-1, 1, 2), 3))  # w[2] at c = 2


def scaled_bumps(x, w, n):
    out = x * 0.5
    for c in range(n):
        for r in range(c, len(x)):
            out[r] = out[r] * w[c] + x[r - c]  # reads the element it writes: a true dependence
    return np.sum(out * out)


def test_an_outer_loop_scaling_its_elements_stays_a_loop():
    args = (RNG.uniform(-1, 1, 4), RNG.uniform(-1, 1, 3), 3)
    check(scaled_bumps, args, argnums=(0, 1))
    notes = pipeline(scaled_bumps, *args).loop_notes
    outer = inspect.getsourcelines(scaled_bumps)[1] + 2
    assert any(n.startswith(f"loop at line {outer} runs as a Python loop") for n in notes), notes


def gmm_args(d, k, n):
    return (RNG.uniform(-1, 1, k), RNG.uniform(-1, 1, (k, d)), RNG.uniform(-0.5, 0.5, (k, d)),
            RNG.uniform(-1, 1, (k, gmm.tri(d))), RNG.uniform(-1, 1, (n, d)), (1.3, 2))


def below(x, w):
    out = x * 1.0
    for c in range(len(x)):
        for r in range(c + 1, len(x)):
            out[r] = out[r] + w[c] * x[c] / (x[r] - x[c])  # inf or NaN at r == c, outside the loop
    return np.sum(out * out)


def above(x, w):
    out = x * 1.0
    for c in range(len(x)):
        for r in range(c):
            out[r] = out[r] + w[c] * x[c] / (x[r] - x[c])
    return np.sum(out * out)


@pytest.mark.parametrize("f", [below, above])
@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_triangles_with_values_outside_that_are_not_finite(f, n):
    # the elements each loop writes are computed where they are summed: the pairs it does not
    # visit (r == c among them) hold inf and NaN, which must reach neither value nor gradient
    args = (np.linspace(-1.0, 1.0, n) + 0.1 * RNG.uniform(0, 1, n), RNG.uniform(-1, 1, n))
    check_value(f, args)
    if n:
        check(f, args, argnums=(0, 1))
    all_vectorised(f, *args)


@pytest.mark.parametrize("f, args, name", [(qx_sum, qtimesx_args(4), "qtimesx_loops"),
                                           (below, (np.arange(4.0), np.ones(4)), "below"),
                                           (above, (np.arange(4.0), np.ones(4)), "above"),
                                           (bumps, (np.ones(5), np.ones(3), 3), "bumps"),
                                           (gmm.gmm_objective_loops, gmm_args(3, 2, 4), "qtimesx_loops")])
def test_triangular_loops_compute_their_elements_in_place(f, args, name):
    # a loop writing out[r] for r in range(c + 1, d) (or range(c)) of a loop over c (a triangle):
    # each element is the sum over the c that reach it (c < r, or c > r), a ragged range as the
    # comprehension writes it, with
    # no build of every iteration's values (padded to the longest, then gathered at r - c - 1:
    # it spans every lane of every enclosing build, and its cotangent scatters over them all)
    core = str(next(d for d in pipeline(f, *args).core.defs if d.name == name))
    assert "_map" not in core and "_sums" not in core, core
    assert "sum(build(max(min(" in core or "sum(build(max(size(x) - max(" in core, core


# ---------------------------------------------------------------- ADBench's GMM with loops

@pytest.mark.parametrize("d, k, n", [(2, 3, 4), (4, 2, 3), (1, 2, 2)])
def test_gmm_loops(d, k, n):
    args = gmm_args(d, k, n)
    want = gmm.gmm_objective(*args)
    assert gmm.gmm_objective_loops(*args) == pytest.approx(want, rel=1e-12)
    check(gmm.gmm_objective_loops, args, argnums=(0, 1, 2, 3))
    grads = catad.grad(gmm.gmm_objective_loops, argnums=(0, 1, 2, 3))(*args)
    index = catad.grad(gmm.gmm_objective, argnums=(0, 1, 2, 3))(*args)
    for g, h in zip(grads, index):
        np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-12)
    notes = pipeline(gmm.gmm_objective_loops, *args).loop_notes
    assert len(notes) == 5 and all("is vectorised: no Python loop" in x for x in notes), notes


def test_gmm_loops_has_no_python_loop_but_the_index_versions():
    args = gmm_args(3, 2, 4)
    loops = python_loops(code(gmm.gmm_objective_loops, *args))
    index = python_loops(code(gmm.gmm_objective, *args))
    assert len(loops) == len(index), (loops, index)


def test_gmm_loops_raises_pythons_error():
    alphas, means, qs, ls, x, w = gmm_args(3, 3, 4)
    same_error(gmm.gmm_objective_loops, (alphas, means, qs, ls[:2], x, w))    # ls[2] at j = 2
    same_error(gmm.gmm_objective_loops, (alphas, means, qs, ls[:, :2], x, w))  # l[2] in qtimesx_loops
