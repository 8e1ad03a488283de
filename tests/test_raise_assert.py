"""The function's own exceptions: `if cond: raise E(msg)` and `assert cond, msg` raise where Python
raises, the same exception class (also a CatadError located at the raise) with Python's message,
in the primal, gradient, jvp and second derivatives; where the arguments pass, the derivatives
are unchanged. Refusals for what catad cannot raise or show."""
import pickle

import numpy as np
import pytest

import catad
from catad import CatadError, UnsupportedSyntax
from catad.errors import raised
from located import agrees, marked_line, refused
from raising_programs import (assert_rank, rank_first, bare_assert, bare_raise, by_rank, dependent_loop, else_raises, helper_always,
                              independent_loop, lazy_message, modes, own_class, shows_array, shows_repr,
                              tolerance, two_args, validate, with_helper, _always)


def raising(fn, *args):
    """The exception fn(*args) raises in Python, and the one catad's gradient raises."""
    with pytest.raises(Exception) as python:
        fn(*args)
    with pytest.raises(CatadError) as ours:
        catad.grad(fn)(*args)
    return python.value, ours.value


@pytest.mark.parametrize("fn, args", [
    (validate, (np.ones((2, 2)), np.ones(2))),
    (validate, (np.ones(3), np.ones(2))),
    (validate, (np.ones(2), np.array([1.0, -1.0]))),
    (tolerance, (np.ones(3), -0.25)),
    (tolerance, (np.ones(3), -3.0)),
    (modes, (np.ones(3), 2)),
    (independent_loop, (np.array([1.0, -7.5, -8.0]),)),
    (dependent_loop, (np.array([1.0, 2.0, 9.0, 30.0, 1.0]),)),
    (bare_assert, (np.ones(2),)),
    (else_raises, (-np.ones(2),)),
    (with_helper, (np.array([1.0, 0.0]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_raises_what_python_raises(fn, args):
    python, ours = raising(fn, *args)
    assert isinstance(ours, type(python)) and type(ours) is raised(type(python))
    assert str(python) in str(ours)  # Python's message, after the location
    assert ours.loc is not None and ours.loc.line > fn.__code__.co_firstlineno - 5


def test_messages_and_lines():
    _, ours = raising(validate, np.ones((2, 2)), np.ones(2))
    assert ours.loc.line == marked_line(validate) and ours.message == "x must be 1-D, got shape (2, 2)"
    assert raising(tolerance, np.ones(3), -3.0)[1].message == "tol must be positive, got -3 (False)"
    assert raising(independent_loop, np.array([1.0, -7.5, -8.0]))[1].message == "element 1 is -7.5, below -5"
    assert raising(dependent_loop, np.array([1.0, 2.0, 9.0, 30.0, 1.0]))[1].message == "step 2: s = 10.375"
    assert raising(bare_assert, np.ones(2))[1].message == "assert len(x) > 2"  # Python's is empty
    assert raising(else_raises, -np.ones(2))[1].message == "raise ArithmeticError"


@pytest.mark.parametrize("fn, args", [
    (validate, (np.array([1.0, 2.0]), np.array([0.5, 1.0]))),
    (tolerance, (np.array([0.3, 1.0]), 0.5)),
    (modes, (np.array([0.3, 1.0]), 1)),
    (independent_loop, (np.array([1.0, -2.0, 3.0]),)),
    (dependent_loop, (np.array([1.0, 2.0, 3.0]),)),
    (bare_assert, (np.array([1.0, 2.0, 0.5]),)),
    (else_raises, (np.array([1.0, 2.0]),)),
    (with_helper, (np.array([1.0, 2.0]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_derivatives_where_nothing_raises(fn, args):
    agrees(fn, *args)


def test_message_computed_only_where_it_raises():
    """x[0] of an empty x would raise IndexError; Python reads it only when the assert fails."""
    assert catad.value_and_grad(lazy_message)(np.ones(0))[0] == 0.0
    _, ours = raising(lazy_message, np.array([1.0, -2.0]))
    assert ours.message == "first 1.0, total -1.0"
    agrees(lazy_message, np.array([1.0, 2.0]))


def test_every_transformation_checks():
    x, w = np.ones(3), np.ones(2)
    for run in (lambda: catad.jvp(validate, (x, w), (x, w)), lambda: catad.vjp(validate, x, w)[1](1.0),
                lambda: catad.hessian(validate)(x, w), lambda: catad.hvp(validate, (x, w), (x, w)),
                lambda: catad.value_and_grad(validate)(x, w)):
        with pytest.raises(ValueError, match="x and w differ in length: 3 and 2"):
            run()
    np.testing.assert_allclose(catad.jacobian(by_rank)(np.ones(3)), 2.0 * np.eye(3))
    with pytest.raises(TypeError, match="x must be a vector"):
        catad.jacobian(by_rank)(np.ones((2, 2)))


def test_pickles_with_its_location():
    _, ours = raising(modes, np.ones(2), 5)
    back = pickle.loads(pickle.dumps(ours))
    assert type(back) is type(ours) and back.loc == ours.loc and str(back) == str(ours)
    assert isinstance(back, NotImplementedError)


@pytest.mark.parametrize("fn, args, words", [
    (bare_raise, (1.0,), ["bare raise"]),
    (own_class, (1.0,), ["_Own", "built-in exceptions"]),
    (shows_repr, (1.0,), ["!r", "{x} instead"]),
    (shows_array, (np.ones(2),), ["shows a Vec Float", "len(x)"]),
    (two_args, (1.0,), ["more than one argument"]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refusals(fn, args, words):
    refused(fn, args, *words, cls=UnsupportedSyntax)


def test_raise_on_every_call_in_a_helper_is_refused():
    refused(helper_always, (1.0,), "every call", "helper", cls=UnsupportedSyntax, where=_always)


def test_known_while_compiling_ends_the_function():
    """x.ndim != 1 is known from the argument's type: on a matrix the raise happens on every
    call, and what follows (which would not compile for a matrix) is not compiled."""
    agrees(rank_first, np.array([1.0, 2.0, 3.0]))
    python, ours = raising(rank_first, np.ones((3, 4)))
    assert type(ours) is raised(ValueError) and ours.message == str(python) == "x must be 1-D, got 2-D"
    agrees(assert_rank, np.ones((2, 3)))
    for bad in (np.ones(3), np.ones((2, 4))):
        python, ours = raising(assert_rank, bad)
        assert type(ours) is raised(AssertionError) and ours.message == str(python)
