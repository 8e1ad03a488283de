"""The loop benchmarks' objectives (benchmarks/adbench/lstm.py, gmm.py's loop style) on tiny
inputs: the LSTM loader, the user-style LSTM objectives against the hand-written NumPy one and
catad's gradients against central differences; the GMM with loops against the index style.
No peers, no timing."""
import sys
from pathlib import Path

import numpy as np
import pytest

import catad

sys.path.append(str(Path(__file__).resolve().parent.parent / "benchmarks"))  # last: see conftest.py
from adbench import gmm, gmm_xp, lstm  # noqa: E402
from adbench.io import DATA_DIR  # noqa: E402

LSTM_FILE = DATA_DIR / "lstm" / "lstm_l2_c1024.txt"
pytestmark = pytest.mark.skipif(not LSTM_FILE.exists(), reason=f"ADBench data not found at {DATA_DIR}")


@pytest.fixture(scope="module")
def small():
    return lstm.load_lstm(LSTM_FILE, max_chars=4)


def test_lstm_loader(small):
    full = lstm.load_lstm(LSTM_FILE)
    assert full.main_params.shape == (4, 56) and full.extra_params.shape == (3, 14)
    assert full.state.shape == (4, 14) and full.sequence.shape == (1024, 14)
    assert small.sequence.shape == (4, 14)
    assert small.gates().shape == (16, 14) and np.shares_memory(small.gates(), small.main_params)


def test_lstm_objectives_agree_with_numpy(small):
    want = lstm.numpy_objective(*small.args())
    assert lstm.lstm_objective(*small.args()) == pytest.approx(want, rel=1e-12)
    assert lstm.lstm_objective_rows(*small.args_rows()) == pytest.approx(want, rel=1e-12)
    assert lstm.lstm_objective_xp(np, *small.args()) == pytest.approx(want, rel=1e-12)
    assert catad.vjp(lstm.lstm_objective_rows, *small.args_rows())[0] == pytest.approx(want, rel=1e-10)


def _central(f, args, a, i, h=1e-6):
    plus, minus = [x.copy() for x in args], [x.copy() for x in args]
    plus[a].flat[i] += h
    minus[a].flat[i] -= h
    return (f(*plus) - f(*minus)) / (2 * h)


def test_lstm_rows_gradient_vs_central_differences(small):
    v, (g_gates, g_extra) = catad.value_and_grad(lstm.lstm_objective_rows, argnums=(0, 1))(*small.args_rows())
    assert v == pytest.approx(lstm.numpy_objective(*small.args()), rel=1e-10)
    g = (g_gates.reshape(small.main_params.shape), g_extra)
    rng = np.random.default_rng(0)
    for a in (0, 1):
        for i in rng.choice(small.args()[a].size, 5, replace=False):
            assert g[a].flat[i] == pytest.approx(_central(lstm.numpy_objective, small.args(), a, i), abs=1e-7)


def test_lstm_adbench_layout_gradient(small):
    g = catad.grad(lstm.lstm_objective, argnums=(0, 1))(*small.args())
    want = catad.grad(lstm.lstm_objective_rows, argnums=(0, 1))(*small.args_rows())
    np.testing.assert_allclose(g[0], want[0].reshape(g[0].shape), rtol=1e-10)


def test_gmm_loops_agrees_with_index_style():
    data = gmm.load_gmm(DATA_DIR / "gmm" / "1k" / "gmm_d10_K25.txt", max_points=2)
    args = (*data.params(), data.x, data.wishart)
    want = gmm_xp.numpy_objective(data)(*data.params())
    assert gmm.gmm_objective_loops(*args) == pytest.approx(want, rel=1e-12)
    v, g = catad.value_and_grad(gmm.gmm_objective_loops, argnums=(0, 1, 2, 3))(*args)
    v0, g0 = catad.value_and_grad(gmm.gmm_objective, argnums=(0, 1, 2, 3))(*args)
    assert v == pytest.approx(want, rel=1e-10)
    for a, b in zip(g, g0):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * np.max(np.abs(b)))


# ================================================================ what the loop benchmarks found
# Minimal forms of the failures that kept the ADBench-layout LSTM (slices of weight rows) and
# the GMM with a slice of l per column from catad's reverse mode (a loop step's cotangent of a
# slice is the sum of a build of updates: it raised inside the backend), each checked against
# the hand-derived gradient.

def _offset_slice_sum(v, n: int):
    total = 0.0
    for t in range(n):
        total = total + np.sum(v[2:4])
    return total


def _offset_slice_mul(v, w, n: int):
    total = 0.0
    for t in range(n):
        total = total + np.sum(v[2:4] * w)
    return total


def _outer_rows(v, s, n: int):
    for t in range(n):
        s2 = np.zeros_like(s)
        for i in range(2):
            s2[i] = v + s[i]
        s = s2
    return np.sum(s * s)


def test_offset_slice_in_loop():
    np.testing.assert_array_equal(catad.grad(_offset_slice_sum)(np.arange(4.0), 3), [0.0, 0.0, 3.0, 3.0])


def test_offset_slice_times_vector_in_loop():
    w = np.array([5.0, 7.0])
    np.testing.assert_array_equal(catad.grad(_offset_slice_mul)(np.arange(4.0), w, 3), [0.0, 0.0, 15.0, 21.0])


def test_inner_loop_reads_rows_of_outer_state():
    v, s = np.array([0.1, -0.2]), np.array([[0.5, 1.0], [1.5, 2.0]])
    # s_2[i] = 2 v + s[i], so the sum of squares has d/dv = sum_i 2 * 2 s_2[i]
    want = 4.0 * np.sum(2.0 * v + s, axis=0)
    np.testing.assert_allclose(catad.grad(_outer_rows)(v, s, 2), want, rtol=1e-12)
