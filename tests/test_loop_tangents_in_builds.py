"""A loop's run-time tangents (the cotangent a reverse loop sums, catad.tangents) met by a
build compiled as a Python loop: conjugate gradient on a matrix made by a comprehension (a
program the code generator once refused with a raw exception). Gradient against central
differences, jvp against the gradient."""
import numpy as np
import pytest

import catad
from backend_programs import central_difference as central


def cg(A, b, iters):
    n = len(b)
    M = A @ A.T + np.array([[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)])
    x = np.zeros_like(b)
    r = b - M @ x
    p = r.copy()
    rs = r @ r
    for _ in range(iters):
        Mp = M @ p
        alpha = rs / (p @ Mp)
        x = x + alpha * p
        r = r - alpha * Mp
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return np.sum(x)


@pytest.mark.parametrize("checkpoints", [None, 2])
def test_conjugate_gradient(checkpoints):
    rng = np.random.default_rng(0)
    A, b = rng.normal(size=(3, 3)), rng.normal(size=3)
    value, (gA, gb) = catad.value_and_grad(cg, (0, 1), checkpoints=checkpoints)(A, b, 5)
    assert value == pytest.approx(cg(A, b, 5), rel=1e-12)
    np.testing.assert_allclose(gA, central(cg, (A, b, 5), 0), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gb, central(cg, (A, b, 5), 1), rtol=1e-5, atol=1e-8)
    dA, db = rng.normal(size=(3, 3)), rng.normal(size=3)
    _, dout = catad.jvp(cg, (A, b, 5), (dA, db, 0))
    assert dout == pytest.approx(float(np.sum(gA * dA) + gb @ db), rel=1e-9)
