"""The runtime's fast paths for GMM-like programs at small dimension (issue 17, d = 2): a
scatter of in-range indices as one ravel_multi_index and bincount, a check that passes
everywhere as one ndarray.all. Each must give the general path's values bit for bit (or its
error)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from catad.backend import einsum_plans, runtime


def general_scatter(shape, index, val):
    """runtime.scatter with its in-range fast path refused (the general path's result)."""
    saved = runtime._scatter_in_range
    runtime._scatter_in_range = lambda *a: None
    try:
        return runtime.scatter(shape, index, val)
    finally:
        runtime._scatter_in_range = saved


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(0, 2))
def test_a_scatter_of_in_range_indices_is_the_general_ones(seed, m, extra):
    """Repeated indices add up, in the general path's order (the same bits); indices broadcast
    against each other; axes after the indexed ones are kept whole."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 5, m + extra))
    # index arrays of broadcastable shapes (size 1 along some axes)
    bshape = tuple(int(n) for n in rng.integers(1, 4, 2))
    index = tuple(rng.integers(0, shape[k], tuple(n if rng.integers(2) else 1 for n in bshape)) for k in range(m))
    val = rng.standard_normal(np.broadcast_shapes(*(i.shape for i in index)) + shape[m:])
    assert runtime._scatter_in_range(shape, index, val) is not None
    np.testing.assert_array_equal(runtime.scatter(shape, index, val), general_scatter(shape, index, val))


def test_a_scatter_with_an_index_out_of_range_or_negative_takes_the_general_path():
    val = np.array([1.0, 2.0])
    assert runtime._scatter_in_range((3,), (np.array([0, 3]),), val) is None
    assert runtime._scatter_in_range((3, 2), (np.array([0, -1]), np.array([1, 1])), val) is None
    # a negative index wraps (the general path), one past the end is refused there
    np.testing.assert_array_equal(runtime.scatter((3, 2), (np.array([0, -1]), np.array([1, 1])), val),
                                  [[0, 1], [0, 0], [0, 2]])
    with pytest.raises(AssertionError, match="out of range"):
        runtime.scatter((3, 2), (np.array([0, 3]), np.array([1, 1])), val)


def test_a_failed_check_still_raises_and_a_passed_one_does_not():
    class Site:
        def error(self, data):
            return ValueError(f"bad at {data}")
    ok = np.ones((3, 2), bool)
    runtime.check_ok(ok, None, (3, 2), Site(), ())
    bad = ok.copy()
    bad[1, 0] = False
    with pytest.raises(ValueError, match=r"bad at \(\S*2\)?,\)"):
        runtime.check_ok(bad, None, (3, 2), Site(), (np.arange(6).reshape(3, 2),))
    runtime.check_ok(bad, None, (0, 2), Site(), ())  # no lanes: nothing evaluated
    runtime.check_ok(bad, bad.copy(), (3, 2), Site(), ())  # the failing lane is masked out
    runtime.check_ok(np.True_, None, (), Site(), ())
    with pytest.raises(ValueError):
        runtime.check_ok(np.False_, None, (), Site(), ((),))
