"""Writing into an array with NumPy's broadcasting (catad/frontend/updates.py): a value written
at a slice or an element is broadcast to the place's shape (axes of length 1 read at 0, into a
place of any length, 0 among them; leading axes of length 1 dropped), and `a op= e` on an
array writes into a, so a result of another shape is NumPy's ValueError, not a new array.

Every case is run against the function itself over a grid of shapes: catad's value is
Python's and its gradient central differences', or both raise (catad a located CatadError)."""

import itertools

import numpy as np
import pytest

import catad
from catad import CatadError, ShapeError
from located import central

RNG = np.random.default_rng(17)


def slice_put(a, v):
    c = np.copy(a)
    c[1:] = 2.0 * v
    return np.sum(c * c)


def row_put(m, v):
    c = np.copy(m)
    c[0] = v * 3.0
    return np.sum(c * c)


def column_slice_put(m, v):
    c = np.copy(m)
    c[:, 1:] = v
    return np.sum(c * np.sin(c))


def stepped_put(a, v):
    c = np.copy(a)
    c[::2] = v
    return np.sum(c * c)


def slice_add(a, v):
    c = np.copy(a)
    c[1:] += v * 2.0
    return np.sum(c * c)


def row_times(m, v):
    c = np.copy(m)
    c[0, :] *= v
    return np.sum(c * np.cos(c))


def name_add(a, v):
    t = a + 0.0
    t += v
    return np.sum(t * t)


VALUE_SHAPES = [(), (1,), (2,), (3,), (1, 1), (1, 3), (2, 1), (2, 3), (1, 1, 3)]
CASES = [(slice_put, [(1,), (3,), (4,)]), (stepped_put, [(1,), (3,), (4,)]), (slice_add, [(1,), (3,), (4,)]),
         (name_add, [(3,), (2, 3)]), (row_put, [(1, 3), (2, 3)]), (column_slice_put, [(1, 3), (2, 3), (3, 1)]),
         (row_times, [(1, 3), (2, 3)])]


@pytest.mark.parametrize("f,shape,vshape", [(f, s, v) for f, shapes in CASES
                                            for s, v in itertools.product(shapes, VALUE_SHAPES)],
                         ids=lambda x: getattr(x, "__name__", str(x)))
def test_written_as_numpy_writes_it(f, shape, vshape):
    a = RNG.uniform(0.5, 1.5, shape)
    v = RNG.uniform(0.5, 1.5, vshape) if vshape else 0.7
    try:
        expected = f(a, v)
    except ValueError as e:
        with pytest.raises(CatadError) as ours:
            catad.value_and_grad(f, argnums=(0, 1))(a, v)
        assert isinstance(ours.value, (ShapeError, catad.CatadTypeError)), ours.value
        assert ours.value.loc is not None and ours.value.loc.file == __file__
        if isinstance(ours.value, ShapeError):  # NumPy's message, but for the spaces in a shape
            numpy_s, message = str(e).replace(" ", ""), str(ours.value).replace(" ", "")
            if "operands" in numpy_s:  # an in-place ufunc's: NumPy lists the output's shape last, catad does not
                numpy_s = numpy_s[:numpy_s.rindex("(")]
            assert numpy_s in message, (str(e), str(ours.value))
        return
    value, (ga, gv) = catad.value_and_grad(f, argnums=(0, 1))(a, v)
    assert value == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(ga, central(f, (a, v), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gv, central(f, (a, v), 1), rtol=1e-6, atol=1e-7)


def test_a_length_one_value_fills_an_empty_slice():
    """c[1:] of a length-1 array is empty: a value of length 1 broadcasts into it (it raised a
    ShapeError, 'from shape (1,) into shape (0,)')."""
    a = np.array([0.5])
    value, (ga, gv) = catad.value_and_grad(slice_put, argnums=(0, 1))(a, np.array([0.3]))
    assert value == slice_put(a, np.array([0.3])) and ga.tolist() == [1.0] and gv.tolist() == [0.0]


def test_an_in_place_add_cannot_grow_the_array():
    """t += v where v broadcasts t to (2, 3): NumPy's ValueError, where catad returned the sum
    of the grown array."""
    with pytest.raises(ShapeError, match="non-broadcastable output operand with shape"):
        catad.grad(name_add)(np.ones(3), np.ones((2, 3)))
    with pytest.raises(ShapeError, match="non-broadcastable output operand with shape"):
        catad.grad(slice_add)(np.ones(3), np.ones((2, 2)))


def branch_add(a, v, grow):
    t = a + 0.0
    if grow:
        t += v
    return np.sum(t)


def test_an_in_place_add_that_does_not_run_does_not_raise():
    a, v = np.ones(3), np.ones((2, 3))
    assert catad.value_and_grad(branch_add)(a, v, False)[0] == branch_add(a, v, False)
    with pytest.raises(ShapeError):
        catad.grad(branch_add)(a, v, True)
