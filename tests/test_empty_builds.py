"""A comprehension that makes nothing never runs its body, so the checks in it never fail and the
reads they guard never happen (Python gives a value). catad's vectorised code reads an inner
comprehension's elements for all lanes at once, also for no lanes at all: such a read must not
raise (it raised AssertionError: a build of 3 reads 2 elements), and where there are lanes the
checks raise as Python does."""

import numpy as np
import pytest

import catad
from catad import ShapeError
from located import central


def rows_times(a, m):
    return np.sum(np.array([m[k] * a for k in range(len(m) - 1)]))


def rows_sliced(a, m):
    return np.sum(np.array([m[k][1:] * a for k in range(len(m) - 1)]))


def nested(a, m):
    return sum(sum(m[k][j] * a[j] for j in range(len(m[k]))) for k in range(len(m) - 1))


@pytest.mark.parametrize("f", [rows_times, rows_sliced, nested])
@pytest.mark.parametrize("rows", [1, 2, 3])
def test_no_lanes_read_nothing_and_lanes_are_checked(f, rows):
    m = np.arange(1.0, 1.0 + 3 * rows).reshape(rows, 3)
    for a in (np.array([0.5, 2.0]), np.array([0.5, 2.0, 3.0])):
        try:
            expected = f(a, m)
        except (ValueError, IndexError) as e:
            with pytest.raises(catad.CatadError) as ours:
                catad.value_and_grad(f, argnums=(0, 1))(a, m)
            assert isinstance(ours.value, (ShapeError, catad.BoundsError)), (e, ours.value)
            continue
        value, (ga, gm) = catad.value_and_grad(f, argnums=(0, 1))(a, m)
        assert value == pytest.approx(expected, rel=1e-12)
        np.testing.assert_allclose(ga, central(f, (a, m), 0), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(gm, central(f, (a, m), 1), rtol=1e-6, atol=1e-7)
        _, tangent = catad.jvp(f, (a, m), (np.ones_like(a), np.ones_like(m)))
        assert tangent == pytest.approx(np.sum(ga) + np.sum(gm), rel=1e-9, abs=1e-12)


def shifted_reads_under_no_step(v, x, m):
    for e in v:
        for i in range(3):
            x -= m[i + 2, 2] * e
    return x * x


@pytest.mark.parametrize("v, m", [(np.zeros(0), np.zeros((2, 0))), (np.ones(1), np.zeros((2, 0))),
                                  (np.ones(1), np.zeros((6, 2))), (np.zeros(0), np.zeros((5, 3))),
                                  (np.ones(1), np.ones((5, 3)))])
def test_a_shifted_read_by_no_lane_raises_nothing(v, m):
    """m[i + 2, 2] read for the lanes of a loop over an empty v (runtime.take_shift): np.take raised
    a raw IndexError for an m of no columns, which no lane reads (loop fuzzer, seed 91866); where
    there are lanes the bounds check raises as Python does."""
    try:
        expected = shifted_reads_under_no_step(v, 0.5, m)
    except IndexError:
        with pytest.raises(catad.BoundsError):
            catad.value_and_grad(shifted_reads_under_no_step, argnums=(0, 1, 2))(v, 0.5, m)
        return
    value, (gv, gx, gm) = catad.value_and_grad(shifted_reads_under_no_step, argnums=(0, 1, 2))(v, 0.5, m)
    assert value == expected and gx == pytest.approx(central(shifted_reads_under_no_step, (v, 0.5, m), 1))
    if v.size:
        np.testing.assert_allclose(gv, central(shifted_reads_under_no_step, (v, 0.5, m), 0), rtol=1e-6)
        np.testing.assert_allclose(gm, central(shifted_reads_under_no_step, (v, 0.5, m), 2), rtol=1e-6, atol=1e-8)
    else:
        assert gv.shape == (0,) and gm.shape == m.shape and not gm.any()
