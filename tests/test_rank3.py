"""Arrays of rank 3 and more (issue 16, item 4): elementwise arithmetic with NumPy's
broadcasting against lower ranks, indexing, slicing, transposition, reductions with axes,
loops and comprehensions over the leading axis; values against the function itself,
gradients against central differences (reverse) and jvp against them (forward)."""
import numpy as np
import pytest

import catad
from catad import ShapeError
from backend_programs import central_difference as central

RNG = np.random.default_rng(3)
T = RNG.normal(size=(2, 3, 4))
M = RNG.normal(size=(3, 4))
V = RNG.normal(size=4)
Q = RNG.normal(size=(2, 1, 3, 2))
W2 = np.arange(24.0).reshape(4, 3, 2) * 0.1


CASES = {
    "broadcast_matrix": (lambda t, m: np.sum(np.tanh(t * m + m)), (T, M)),
    "broadcast_vector": (lambda t, v: np.sum((t - v) ** 2), (T, V)),
    "rows": (lambda t, m: sum(np.sum(t[i] * m) for i in range(len(t))), (T, M)),
    "last_axis_index": (lambda t, m: np.sum(t[:, :, 1] ** 2) + np.sum(m[:, 1]), (T, M)),
    "middle_axis_index": (lambda t, m: np.sum(t[:, 1, :] * 2.0) + np.sum(m), (T, M)),
    "loop_over_matrices": (lambda t, m: sum(np.sum(mi @ m.T) for mi in t), (T, M)),
    "nested_loops": (lambda t, v: sum(np.sum(row * v) for mi in t for row in mi), (T, V)),
    "transpose": (lambda t, m: np.sum(t.T * W2) + np.sum(np.transpose(t) ** 2) * np.sum(m), (T, M)),
    "reductions_with_axes": (lambda t, m: np.sum(np.sum(t, axis=1) ** 2) + np.sum(np.mean(t, axis=2) * m[:2, :3])
                             + np.sum(np.max(t, axis=0) * m) + np.sum(t.sum(axis=-1) ** 2), (T, M)),
    "norm_where_clip": (lambda t, m: np.linalg.norm(t) + np.sum(np.where(t > 0, t, 0.1 * t))
                        + np.sum(np.clip(t, -0.5, 0.5) ** 2) + np.sum(np.maximum(t, m)), (T, M)),
    "slices_and_negative_indices": (lambda t, v: np.sum(t[:, 1:3] ** 2) + np.sum(t[-1, -2] * v), (T, V)),
    "rank4": (lambda q, m: np.sum(q * q) + np.sum(q[1, 0] @ q[0, 0].T) + np.sum(np.exp(q[:, 0] * 0.1)) * m[0, 0],
              (Q, M)),
    "sizes": (lambda t, v: t.size * 1.0 + t.ndim + t.shape[2] * np.sum(t[0]) + np.sum(v), (T, V)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rank3_values_and_gradients(name):
    f, args = CASES[name]
    value, grads = catad.value_and_grad(f, (0, 1))(*args)
    assert value == pytest.approx(f(*args), rel=1e-13, abs=1e-13)
    for k in (0, 1):
        assert grads[k].shape == args[k].shape
        np.testing.assert_allclose(grads[k], central(f, args, k), rtol=1e-6, atol=1e-8)
    tangents = tuple(RNG.normal(size=a.shape) for a in args)
    _, dout = catad.jvp(f, args, tangents)
    expected = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents))
    assert dout == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_rank3_broadcasting_errors_are_numpys():
    def f(t, m):
        return np.sum(t * m)
    with pytest.raises(ShapeError, match="could not be broadcast together with shapes"):
        catad.grad(f)(T, np.ones((2, 4)))
    with pytest.raises(ValueError):  # NumPy agrees that these shapes do not broadcast
        f(T, np.ones((2, 4)))


def test_rank3_results():
    def f(t, v):
        return np.sin(t) * v
    out, vjp_fn = catad.vjp(f, T, V)
    np.testing.assert_allclose(out, f(T, V), rtol=1e-14)
    ct = RNG.normal(size=out.shape)
    dt, dv = vjp_fn(ct)
    np.testing.assert_allclose(dt, ct * np.cos(T) * V, rtol=1e-12)
    np.testing.assert_allclose(dv, np.sum(ct * np.sin(T), axis=(0, 1)), rtol=1e-12)
    J = catad.jacobian(lambda t: np.sum(t ** 2, axis=0))(T)
    assert J.shape == (3, 4, 2, 3, 4)
    np.testing.assert_allclose(np.einsum("ijkij->k", J), 2 * T.sum(axis=(1, 2)), rtol=1e-12)
