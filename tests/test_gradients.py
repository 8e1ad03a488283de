"""Derivatives of the whole corpus: against central differences, the JVP/VJP identity
<ct, J t> = <J^T ct, t>, and linearize(...).to_matrix() against jacobian."""
import numpy as np
import pytest

import catad
from catad.linearmaps import flatten, tangent_size, unflatten
from corpus import CASES

GRAD_CASES = [c for c in CASES if c.float_output and c.differentiable_argnums]


def central_difference(fn, args, k, h=1e-6):
    """d fn / d args[k] by central differences, shaped like args[k]."""
    x = args[k]
    if isinstance(x, float):
        hi = fn(*args[:k], x + h, *args[k + 1:])
        lo = fn(*args[:k], x - h, *args[k + 1:])
        return (hi - lo) / (2 * h)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        g[idx] = (fn(*args[:k], xp, *args[k + 1:]) - fn(*args[:k], xm, *args[k + 1:])) / (2 * h)
    return g


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.name)
def test_gradient_matches_central_differences(case):
    args = case.make_args(np.random.default_rng(1))
    nums = case.differentiable_argnums
    value, grads = catad.value_and_grad(case.fn, argnums=nums)(*args)
    assert value == pytest.approx(case.fn(*args), rel=1e-12, abs=1e-12)
    for k, g in zip(nums, grads):
        expected = central_difference(case.fn, args, k)
        assert np.shape(g) == np.shape(args[k])
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6, err_msg=f"argument {k}")


def random_like(template, rng):
    return unflatten(rng.normal(size=tangent_size(template)), template)


@pytest.mark.parametrize("case", [c for c in CASES if c.differentiable_argnums], ids=lambda c: c.name)
def test_jvp_and_vjp_are_transposes(case):
    rng = np.random.default_rng(2)
    args = case.make_args(rng)
    out, vjp_fn = catad.vjp(case.fn, *args)
    tangents = tuple(random_like(a, rng) if k in case.differentiable_argnums else _zero_like(a)
                     for k, a in enumerate(args))
    out2, jt = catad.jvp(case.fn, args, tangents)
    np.testing.assert_equal(out2, out)
    ct = random_like(out, rng)
    jtct = vjp_fn(ct)
    lhs = flatten(ct, out) @ flatten(jt, out)
    rhs = sum(flatten(c, a) @ flatten(t, a) for c, t, a in zip(jtct, tangents, args)
              if not isinstance(a, (int, bool)))
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-9)


def _zero_like(a):
    if isinstance(a, tuple):
        return tuple(_zero_like(x) for x in a)
    return np.zeros_like(a, dtype=float) if isinstance(a, np.ndarray) else 0.0


SINGLE_OUTPUT = [c for c in CASES if c.differentiable_argnums and c.name not in ()]


@pytest.mark.parametrize("case", SINGLE_OUTPUT, ids=lambda c: c.name)
def test_linearize_matrix_equals_jacobian(case):
    args = case.make_args(np.random.default_rng(3))
    out, lm = catad.linearize(case.fn, *args)
    if isinstance(out, tuple) or isinstance(out, (int, bool)) and not isinstance(out, float):
        pytest.skip("jacobian is for float and array outputs")
    matrix = lm.to_matrix()
    offsets = np.cumsum([0] + [tangent_size(a) for a in args])
    for k in case.differentiable_argnums:
        jac = catad.jacobian(case.fn, argnums=k)(*args)
        assert jac.shape == np.shape(out) + np.shape(args[k])
        block = matrix[:, offsets[k]:offsets[k + 1]]
        np.testing.assert_allclose(block.reshape(jac.shape), jac, atol=1e-12)
    np.testing.assert_allclose(lm.T.to_matrix(), matrix.T)
