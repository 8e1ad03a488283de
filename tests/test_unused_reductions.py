"""A reduction without an identity (max, min, argmax, argmin, ptp, nanmax, nanmin) of nothing raises
where it is called, as NumPy raises there, even when nothing uses its value. Dead-code elimination
dropped the unused reduction, and its error with it: `t = np.max(a[1:])` of a one-element a
returned the function's value where Python raises ValueError. NumPy raises where the reduced axes'
lengths multiply to 0, however many results there are: along axis 1, a (0, 0) array raises (catad
gave an empty result for np.nanmax) and a (0, 3) one gives an empty result."""
import numpy as np
import pytest

import catad
from located import agrees


def unused_max(a):
    t = np.max(a[1:])
    return np.sum(a * 2.0)


def unused_min_method(a):
    t = a[1:].min()
    return np.sum(a * 2.0)


def unused_argmax(a):
    k = np.argmax(a[1:])
    return np.sum(a * 2.0)


def unused_argmin_method(a):
    k = a[1:].argmin()
    return np.sum(a * 2.0)


def unused_amax_keepdims(a):
    t = np.amax(a[1:], axis=0, keepdims=True)
    return np.sum(a * 2.0)


def unused_ptp(a):
    t = np.ptp(a[1:])
    return np.sum(a * 2.0)


def unused_nanmax(a):
    t = np.nanmax(a[1:])
    return np.sum(a * 2.0)


def unused_nanmin_of_ints(a):
    t = np.nanmin(np.arange(len(a) - 1))
    return np.sum(a * 2.0)


ONE_ELEMENT = [unused_max, unused_min_method, unused_argmax, unused_argmin_method, unused_amax_keepdims,
               unused_ptp, unused_nanmax, unused_nanmin_of_ints]


def _runs(fn, args):
    tangents = tuple(np.ones_like(a) for a in args)
    return {"value_and_grad": lambda: catad.value_and_grad(fn)(*args),
            "jvp": lambda: catad.jvp(fn, args, tangents),
            "vjp": lambda: catad.vjp(fn, *args)[1](1.0)}


@pytest.mark.parametrize("fn", ONE_ELEMENT, ids=lambda f: f.__name__)
def test_an_unused_reduction_of_nothing_raises(fn):
    a = np.array([0.7])
    with pytest.raises(ValueError):
        fn(a)
    for name, run in _runs(fn, (a,)).items():
        with pytest.raises(catad.ShapeError, match="of an empty array") as e:
            run()
        assert isinstance(e.value, ValueError), name
        assert e.value.loc.line == fn.__code__.co_firstlineno + 1, (name, str(e.value))


@pytest.mark.parametrize("fn", ONE_ELEMENT, ids=lambda f: f.__name__)
def test_an_unused_reduction_of_something_changes_nothing(fn):
    agrees(fn, np.array([0.7, -1.2, 2.5]))


def max_along_rows(m):
    return np.sum(np.max(m, axis=1)) + np.sum(m * m)


def nanmax_along_rows(m):
    return np.sum(np.nanmax(m, axis=1)) + np.sum(m * m)


def argmin_along_rows(m):
    return np.sum(np.argmin(m, axis=1) * 1.5) + np.sum(m * m)


def ptp_along_rows_keepdims(m):
    return np.sum(np.ptp(m, axis=1, keepdims=True)) + np.sum(m * m)


def min_along_both(m):
    return np.sum(np.min(m, axis=(0, 1))) + np.sum(m * m)


ALONG = [max_along_rows, nanmax_along_rows, argmin_along_rows, ptp_along_rows_keepdims, min_along_both]


@pytest.mark.parametrize("shape", [(0, 0), (3, 0)])
@pytest.mark.parametrize("fn", ALONG, ids=lambda f: f.__name__)
def test_empty_reduced_axes_raise_however_many_results(fn, shape):
    m = np.zeros(shape)
    with pytest.raises(ValueError):
        fn(m)
    for name, run in _runs(fn, (m,)).items():
        with pytest.raises(catad.ShapeError, match="of an empty array"):
            run()


@pytest.mark.parametrize("fn", ALONG[:4], ids=lambda f: f.__name__)
def test_no_results_of_nonempty_lanes_is_an_empty_result(fn):
    m = np.zeros((0, 3))
    assert fn(m) == 0.0
    value, g = catad.value_and_grad(fn)(m)
    assert value == 0.0 and g.shape == (0, 3)


@pytest.mark.parametrize("fn", ALONG, ids=lambda f: f.__name__)
def test_reductions_along_axes_of_something(fn):
    agrees(fn, np.array([[0.3, -1.1, 2.0], [1.4, 0.2, -0.7]]))
