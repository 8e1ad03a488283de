"""The compile cache and shapes (issue 13, item 6).

catad compiles a function once per signature of argument types. Checking shapes must not
turn that into once per shape: the cache may specialise on which axes have length 1 (a
length-1 axis broadcasts), but a call with a new length that is not 1 reuses what was
compiled. Compilation is counted (never timed) by wrapping the front end
(catad.frontend.compile_function) and the back end (catad.backend.compile_program and
compile_def), which catad looks up when it compiles.

A program compiled at one shape and called at another must still check shapes: a cached
program must not return NumPy-incompatible values for shapes it was not compiled at.
"""
import numpy as np
import pytest

import catad
import catad.backend
import catad.frontend
from shape_oracle import check_like_numpy


@pytest.fixture
def compiles(monkeypatch):
    """The list of (stage, function name) of every compilation while the test runs."""
    calls = []

    def counting(stage, original):
        def wrapper(*args, **kwargs):
            target = args[0] if args else None
            name = (getattr(target, "__name__", None) or getattr(target, "entry", None)
                    or getattr(target, "name", None) or type(target).__name__)
            calls.append((stage, str(name)))
            return original(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(catad.frontend, "compile_function",
                        counting("frontend", catad.frontend.compile_function))
    monkeypatch.setattr(catad.backend, "compile_program", counting("backend", catad.backend.compile_program))
    monkeypatch.setattr(catad.backend, "compile_def", counting("backend", catad.backend.compile_def))
    return calls


def first_compile(calls, what):
    assert calls, (f"{what}: no compilation was seen on the first call; the counting hooks "
                   "(catad.frontend.compile_function, catad.backend.compile_program/compile_def) no longer "
                   "see catad compile, so this test cannot observe recompilation: update the hooks")
    return len(calls)


def assert_no_new_compile(calls, before, what):
    assert len(calls) == before, f"{what} compiled again: {calls[before:]}"


# ---------------------------------------------------------------- functions (one per test: fresh caches)

def loss_vectors(v, w):
    return np.sum(np.sin(v - w) * v)


def loss_vectors_again(v, w):
    return np.sum(np.cos(v * w) + v)


def loss_matrices(m, n):
    return np.sum((m * n - 1.0) ** 2)


def elementwise(v):
    return np.exp(v) * v


def broadcast_row(m, r):
    return np.sum(np.tanh(m + r))


def broadcast_scalar_vector(v, w):
    return np.sum(v * w)


def prefix_sum(v, k):
    return sum(v[i] for i in range(k))


def pair_sum(v, w):
    return v + w


def inner(v, w):
    return np.dot(v, w)


# ---------------------------------------------------------------- new lengths reuse the program

def test_grad_new_vector_lengths_do_not_recompile(compiles):
    g = catad.grad(loss_vectors, argnums=(0, 1))
    g(np.ones(3), np.ones(3))
    n0 = first_compile(compiles, "grad")
    for n in (5, 8, 2, 13, 3):
        g(np.linspace(0.5, 1.5, n), np.linspace(1.0, 2.0, n))
    assert_no_new_compile(compiles, n0, "grad at lengths 5, 8, 2, 13")


def test_length_one_may_specialise_once(compiles):
    g = catad.grad(loss_vectors_again, argnums=(0, 1))
    g(np.ones(4), np.ones(4))
    first_compile(compiles, "grad")
    g(np.ones(1), np.ones(1))             # may compile a length-1 specialisation
    n1 = len(compiles)
    g(np.full(1, 2.0), np.full(1, 3.0))   # the same specialisation again
    g(np.ones(6), np.ones(6))             # back to a length that is not 1
    g(np.ones(9), np.ones(9))
    assert_no_new_compile(compiles, n1, "grad after the length-1 specialisation")


def test_matrices_new_shapes_do_not_recompile(compiles):
    g = catad.value_and_grad(loss_matrices, argnums=(0, 1))
    g(np.ones((2, 3)), np.ones((2, 3)))
    n0 = first_compile(compiles, "value_and_grad")
    for shape in [(4, 5), (3, 3), (5, 2), (2, 7)]:
        g(np.ones(shape), np.ones(shape))
    assert_no_new_compile(compiles, n0, "value_and_grad at shapes (4, 5), (3, 3), (5, 2), (2, 7)")
    g(np.ones((1, 3)), np.ones((1, 3)))    # length-1 rows: may specialise
    g(np.ones((4, 1)), np.ones((4, 1)))    # length-1 columns: may specialise
    n1 = len(compiles)
    g(np.ones((1, 5)), np.ones((1, 5)))
    g(np.ones((7, 1)), np.ones((7, 1)))
    g(np.ones((3, 4)), np.ones((3, 4)))
    assert_no_new_compile(compiles, n1, "value_and_grad at (1, 5), (7, 1), (3, 4) after (1, 3) and (4, 1)")


def test_every_entry_point_reuses_its_program(compiles):
    v3 = np.linspace(0.1, 0.9, 3)
    catad.vjp(elementwise, v3)[1](np.ones(3))
    catad.jvp(elementwise, (v3,), (np.ones(3),))
    catad.jacobian(elementwise)(v3)
    catad.linearize(elementwise, v3)[1](np.ones(3))
    n0 = first_compile(compiles, "vjp, jvp, jacobian, linearize")
    for n in (4, 7):
        v = np.linspace(0.1, 0.9, n)
        catad.vjp(elementwise, v)[1](np.ones(n))
        catad.jvp(elementwise, (v,), (np.ones(n),))
        catad.jacobian(elementwise)(v)
        catad.linearize(elementwise, v)[1](np.ones(n))
    assert_no_new_compile(compiles, n0, "vjp, jvp, jacobian and linearize at lengths 4 and 7")


def test_broadcast_against_length_one_reuses_its_specialisation(compiles):
    """m (r, c) + row (1, c): the row's length-1 axis is the same at every r and c."""
    g = catad.grad(broadcast_row, argnums=(0, 1))
    g(np.ones((2, 3)), np.ones((1, 3)))
    n0 = first_compile(compiles, "grad")
    for r, c in [(4, 3), (5, 6), (3, 2)]:
        g(np.ones((r, c)), np.ones((1, c)))
    assert_no_new_compile(compiles, n0, "grad of (r, c) + (1, c) at new r and c")


def test_int_arguments_do_not_recompile(compiles):
    g = catad.grad(prefix_sum)
    g(np.ones(5), 2)
    n0 = first_compile(compiles, "grad")
    g(np.ones(5), 3)
    g(np.ones(8), 5)
    assert_no_new_compile(compiles, n0, "grad with new int arguments")


# ---------------------------------------------------------------- a cached program still checks shapes

def test_compiled_at_matching_shapes_then_called_with_mismatched_ones():
    check_like_numpy(pair_sum, np.ones(3), np.ones(3))                  # compiles
    check_like_numpy(pair_sum, np.arange(3.0), np.arange(4.0))          # ShapeError, not a value
    check_like_numpy(pair_sum, np.arange(3.0), np.array([10.0]))        # broadcasts
    check_like_numpy(pair_sum, np.array([10.0]), np.arange(3.0))
    check_like_numpy(pair_sum, np.arange(5.0), np.arange(5.0) + 1.0)    # and still works


def test_compiled_dot_then_called_with_mismatched_lengths():
    check_like_numpy(inner, np.ones(3), np.ones(3))
    check_like_numpy(inner, np.arange(3.0), np.arange(4.0))
    check_like_numpy(inner, np.arange(1.0), np.arange(3.0))
    check_like_numpy(inner, np.arange(4.0), np.arange(4.0))


def test_compiled_with_length_one_then_called_with_other_lengths():
    """Compiled first where w has length 1 (broadcast), then called with equal lengths and
    with mismatched ones: whatever was specialised must not leak to the other shapes."""
    check_like_numpy(broadcast_scalar_vector, np.arange(3.0), np.array([2.0]))
    check_like_numpy(broadcast_scalar_vector, np.arange(3.0), np.arange(3.0))
    check_like_numpy(broadcast_scalar_vector, np.arange(3.0), np.arange(2.0))
    check_like_numpy(broadcast_scalar_vector, np.array([2.0]), np.arange(4.0))
