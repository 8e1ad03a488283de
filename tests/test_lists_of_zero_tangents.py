"""A loop's vector of tangents is kept as a list, one tangent per element, and where every one
of them is the zero tangent it densifies to ZERO (there is no shape to make zeros of). Every
place that densifies a tangent then reads it as an array must take ZERO: the Hessian of a
function reading a vector only through its length raised a raw TypeError ("float() argument
must be ... not '_Zero'") from catad's own code (loop fuzzer, seed 80940)."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from catad.backend import runtime
from catad.differentiate import _materialize
from catad.linearmaps.semantics import flatten
from catad.primitives.registry import _tmul
from catad.tangents import ZERO

ZEROS = [ZERO, ZERO]


def f(y, v, w):
    a = np.sqrt(np.abs(w) + 0.1)
    for i, e in enumerate(v):  # v only through its length: no derivative in v
        for _ in a:
            a[1:] *= np.tanh(a[i])
    return 2.0 * y * y + np.sum(np.sin(a))


def _hessian_by_differences(fn, y, v, w, h=1e-4):
    """Central second differences of fn itself in (y, v), flattened."""
    x0 = np.concatenate([[y], v])

    def g(x):
        return fn(x[0], x[1:].copy(), w.copy())
    n = x0.size
    out = np.zeros((n, n))
    for a in range(n):
        for b in range(n):
            ea, eb = np.eye(n)[a] * h, np.eye(n)[b] * h
            out[a, b] = (g(x0 + ea + eb) - g(x0 + ea - eb) - g(x0 - ea + eb) + g(x0 - ea - eb)) / (4 * h * h)
    return out


def test_the_hessian_in_a_vector_read_only_through_its_length():
    y, v, w = -0.11, np.array([0.55, -1.88]), np.array([-1.5, 1.1])
    (hyy, hyv), (hvy, hvv) = catad.hessian(f, argnums=(0, 1))(y, v, w)
    got = np.block([[np.reshape(hyy, (1, 1)), np.reshape(hyv, (1, 2))], [np.reshape(hvy, (2, 1)), hvv]])
    assert np.allclose(got, _hessian_by_differences(f, y, v, w), atol=1e-6)
    assert got[0, 0] == 4.0


def test_the_gradient_and_the_jacobian_of_the_gradient_in_it():
    y, v, w = -0.11, np.array([0.55, -1.88]), np.array([-1.5, 1.1])
    gy, gv = catad.grad(f, argnums=(0, 1))(y, v, w)
    assert gy == 4.0 * y and np.array_equal(gv, np.zeros(2))
    jac = catad.jacobian(catad.grad(f, argnums=1), argnums=(0, 1))(y, v, w)
    assert np.array_equal(np.asarray(jac[0]), np.zeros(2)) and np.array_equal(np.asarray(jac[1]), np.zeros((2, 2)))


def test_a_list_of_zero_tangents_is_the_zero_tangent_wherever_it_is_densified():
    assert np.array_equal(flatten(ZEROS, np.zeros(2)), np.zeros(2))
    assert np.array_equal(flatten((1.0, ZEROS), (0.0, np.zeros(2))), np.array([1.0, 0.0, 0.0]))
    assert np.array_equal(_materialize(ZEROS, np.zeros(2)), np.zeros(2))
    assert runtime.rt_update(np.array([0, 1]), ZEROS, 3) is ZERO
    assert runtime.rt_update(1, ZEROS, 3) is ZERO
    assert runtime.rt_repeat(ZEROS, 3) is ZERO  # (was an object array of ZEROs)
    assert _tmul(np.ones(2), ZEROS) is ZERO
    # a list holding one tangent that is not zero stays what it was
    assert np.array_equal(runtime.rt_repeat([ZERO, 2.0], 2), np.array([[0.0, 2.0], [0.0, 2.0]]))
    assert np.array_equal(_tmul(np.full(2, 3.0), [ZERO, 2.0]), np.array([0.0, 6.0]))


def rows_of_a_constant(v, m):
    rows = []
    for _ in range(len(v) - 1):
        rows.append(np.maximum(v[1], np.sum(m)))  # the same number in every row
    a = np.array(rows)
    s = 0.0
    for _ in v:  # a reverse loop whose cotangent of `a` is copies of one run-time tangent
        s = np.sum(np.sqrt(np.abs(a) + 0.1)[::-1])
    return s + np.sum(np.sin(a))


def rows_of_a_reduction(v, m):
    rows = []
    for _ in range(len(v) - 1):
        rows.append(np.sum(m))
    a = np.array(rows)
    s = 0.0
    for _ in zip(np.mean(m, axis=1), v):
        s = np.sum(a)
    return s


def test_a_reverse_loop_s_cotangent_of_rows_of_one_number():
    """Was refused as a code generator limitation ("a vector of tuples or of zero tangents as an
    array"): loop fuzzer, seeds 102560 and 102810."""
    rng = np.random.default_rng(3)
    v, m = rng.normal(size=5), rng.normal(size=(5, 2))
    for fn in (rows_of_a_constant, rows_of_a_reduction):
        for v_ in (v, np.array([v[0], 20.0, *v[2:]])):  # v[1] below and above np.sum(m)
            value, (gv, gm) = catad.value_and_grad(fn, argnums=(0, 1))(v_, m)
            assert value == pytest.approx(fn(v_, m), rel=1e-12)  # (NumPy sums a reversed view in memory order)
            for k, (g, a) in enumerate(((gv, v_), (gm, m))):
                want = np.zeros_like(a)
                for idx in np.ndindex(a.shape):
                    up, down = a.copy(), a.copy()
                    up[idx] += 1e-6
                    down[idx] -= 1e-6
                    args_up, args_down = [v_, m], [v_, m]
                    args_up[k], args_down[k] = up, down
                    want[idx] = (fn(*args_up) - fn(*args_down)) / 2e-6
                np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)
