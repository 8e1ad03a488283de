"""The structure of a Hessian (issue 17, item 3): catad.lang.structure reads the band of the
Jacobian of a vector function from its forward derivative program, and catad.hessian, jacfwd
and jacobian then run one forward pass per diagonal of the band (Curtis, Powell and Reid's
seeds) instead of one per element, and fill the dense result.

The band must be sound: every function here whose Jacobian is not a band, or a band wider
than shown, is checked to fall back (None); every result is checked against central
differences of catad's gradient, and the derivative work (the forward passes run and the
length of each tangent) is counted, not timed.
"""
import numpy as np
import pytest

import catad
import catad.differentiate as D
from backend_programs import central_difference
from catad.pipeline import band_of, bind


def quartic(v):
    s = 0.0
    for i in range(len(v)):
        s = s + v[i] ** 4
    return s


def quartic_numpy(v):
    return np.sum(v ** 4)


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def two_apart(x):
    return np.sum(np.sin(x[2:] * x[:-2])) + np.sum(x ** 3)


def branches(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + x[i] ** 3
        else:
            s = s - np.cos(x[i])
    return s


W = np.array([0.5, -1.0, 2.0, 1.5, 0.25, -0.75, 3.0])


def weighted(x):
    return np.sum(W * np.exp(x) * x)  # W is read from the globals: a hidden parameter


# not bands: each element's second derivative reads the others in a way no offset describes
def square_of_sum(x):
    return np.sum(x) ** 2


def mirrored(x):
    s = 0.0
    n = len(x)
    for i in range(n):
        s = s + x[i] * x[n - 1 - i]
    return s


def cumulative(x):
    return np.sum(np.cumsum(x) ** 2)


def first_times_all(x):
    return np.sum(x[0] * x ** 2)


def reversed_product(x):
    n = len(x)
    return np.sum(x * np.array([x[n - 1 - i] for i in range(n)]) ** 2)


IDX = np.array([3, 0, 1, 2, 6, 5, 4])


def gathered(x):
    return np.sum(x * x[IDX] ** 2)


def rolled(x):
    return np.sum(x * np.roll(x, 1) ** 2)


BANDED = [(quartic, {0}), (quartic_numpy, {0}), (rosen, {-1, 0, 1}), (two_apart, {-2, 0, 2}),
          (branches, {0}), (weighted, {0})]
NOT_BANDED = [square_of_sum, mirrored, cumulative, first_times_all, reversed_product, gathered, rolled]


def _band(fn, x):
    g = catad.jacrev(fn)
    b = bind(g, (x,))
    return band_of(b, (x,), D._run_primal(b, (x,)), 0)


def _point(n=7, seed=0):
    return np.random.default_rng(seed).normal(size=n)


@pytest.mark.parametrize("fn, offsets", BANDED, ids=lambda x: getattr(x, "__name__", ""))
def test_the_band_of_a_gradient_is_read_from_its_forward_program(fn, offsets):
    assert _band(fn, _point()) == frozenset(offsets)


@pytest.mark.parametrize("fn", NOT_BANDED, ids=lambda f: f.__name__)
def test_a_hessian_that_is_not_a_band_is_not_taken_for_one(fn):
    assert _band(fn, _point()) is None


@pytest.mark.parametrize("fn", [f for f, _ in BANDED] + NOT_BANDED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_the_hessian_equals_central_differences_of_the_gradient(fn, n):
    if fn in (weighted, gathered) and n != 7:
        pytest.skip("reads a global of length 7")
    x = _point(n, seed=n)
    H = catad.hessian(fn)(x)
    expected = central_difference(catad.grad(fn), (x,), 0)
    assert H.shape == (n, n)
    np.testing.assert_allclose(H, expected, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(expected).max()))
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(H).max()))


def _count_forward_passes(monkeypatch):
    """Every run of a forward program by catad.differentiate: the lengths of its tangents."""
    runs = []
    real = D._forward

    def counted(b, vals, dx):
        runs.append([np.size(t) for t in dx])
        return real(b, vals, dx)
    monkeypatch.setattr(D, "_forward", counted)
    return runs


def test_the_diagonal_hessian_of_a_sum_of_independent_elements_is_one_pass(monkeypatch):
    n = 2000
    v = _point(n)
    hess = catad.hessian(quartic)
    hess(v)  # compiled
    chunked = []
    monkeypatch.setattr(D, "_by_slices", lambda *a: chunked.append(a))
    runs = _count_forward_passes(monkeypatch)
    H = hess(v)
    assert runs == [[n]] and not chunked  # one O(n) forward pass, not n of them
    np.testing.assert_allclose(H, np.diag(12 * v ** 2), rtol=1e-12, atol=0)


def test_a_tridiagonal_hessian_is_three_passes(monkeypatch):
    n = 500
    x = _point(n)
    runs = _count_forward_passes(monkeypatch)
    H = catad.hessian(rosen)(x)
    assert runs == [[n]] * 3
    assert not np.any(np.triu(H, 2)) and not np.any(np.tril(H, -2))
    np.testing.assert_allclose(H @ np.ones(n), catad.hvp(rosen, (x,), (np.ones(n),)), rtol=1e-12, atol=1e-9)
    e = np.eye(n)[[0, 1, 250, n - 1]]
    for col in e:
        np.testing.assert_allclose(H @ col, catad.hvp(rosen, (x,), (col,)), rtol=1e-12, atol=1e-9)


def test_a_hessian_that_is_no_band_runs_the_passes_of_the_basis(monkeypatch):
    sliced = []
    real = D._by_slices
    monkeypatch.setattr(D, "_by_slices", lambda *a: sliced.append(1) or real(*a))
    runs = _count_forward_passes(monkeypatch)
    x = _point(20)
    H = catad.hessian(cumulative)(x)
    assert sliced and not runs
    np.testing.assert_allclose(H, central_difference(catad.grad(cumulative), (x,), 0), rtol=1e-6, atol=1e-6)


def elementwise(x):
    return np.sin(x) * x


def differences(x):
    return np.diff(x) ** 2


def shifted(x):
    return x[1:] * x[:-1]


@pytest.mark.parametrize("fn", [elementwise, shifted, differences], ids=lambda f: f.__name__)
def test_jacfwd_and_jacobian_of_a_band_equal_jacrev(fn, monkeypatch):
    x = _point(9)
    rows = catad.jacrev(fn)(x)
    runs = _count_forward_passes(monkeypatch)
    np.testing.assert_allclose(catad.jacfwd(fn)(x), rows, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(catad.jacobian(fn)(x), rows, rtol=1e-12, atol=1e-15)
    assert len(runs) == 2 * (1 if fn is elementwise else 2)  # a band of 1 or 2 diagonals


def test_checkpoints_keep_the_passes_of_the_basis(monkeypatch):
    runs = _count_forward_passes(monkeypatch)
    x = _point(6)
    H = catad.hessian(quartic, checkpoints=2)(x)
    assert not runs
    np.testing.assert_allclose(H, np.diag(12 * x ** 2), rtol=1e-12, atol=0)


def test_explain_says_which_structure_was_found():
    x = _point(7)
    diag = catad.explain(catad.hessian(quartic), x).stage("source").text
    assert "the Jacobian is diagonal; 1 forward pass" in diag
    band = catad.explain(catad.hessian(rosen), x).stage("source").text
    assert "c in [-1, 0, 1]" in band and "3 forward passes" in band
    dense = catad.explain(catad.hessian(square_of_sum), x).stage("source").text
    assert "not shown to be a band" in dense


# ---------------------------------------------------------------- several array arguments
# The Hessian with respect to a tuple of arguments (the ADBench GMM's alphas, means, qs, ls):
# each argument's columns by the forward program over slices of its basis, one vectorised
# program per argument, not one forward pass per column.

def mixed(a, B, c, scale):
    return scale * np.sum(a ** 2 * (B @ c)) + np.sum(np.sin(B) * np.exp(c)) + np.sum(a[:, None] * B ** 3)


def _mixed_args(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=4), 1.5


@pytest.mark.parametrize("argnums", [(0, 1, 2), (1, 2), (2, 0), 1])
def test_the_hessian_of_several_arrays_runs_a_program_per_argument(argnums, monkeypatch):
    args = _mixed_args()
    runs = _count_forward_passes(monkeypatch)
    H = catad.hessian(mixed, argnums=argnums)(*args)
    assert not runs  # no pass per column
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for i, ki in enumerate(nums):
        for j, kj in enumerate(nums):
            block = H[i][j] if isinstance(argnums, tuple) else H
            gi = catad.grad(mixed, argnums=ki)
            expected = central_difference(gi, args, kj)
            assert block.shape == np.shape(args[ki]) + np.shape(args[kj])
            np.testing.assert_allclose(block, expected, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(expected).max()))
    if isinstance(argnums, tuple):
        for i in range(len(nums)):
            for j in range(len(nums)):
                np.testing.assert_allclose(H[i][j], np.moveaxis(H[j][i], range(H[j][i].ndim),
                                                                _transposed_axes(args, nums[j], nums[i])),
                                           rtol=1e-12, atol=1e-12)


def _transposed_axes(args, kj, ki):
    """Where the axes of block [j][i] (arg j's, then arg i's) go in block [i][j]'s order."""
    rj, ri = np.ndim(args[kj]), np.ndim(args[ki])
    return [ri + a for a in range(rj)] + list(range(ri))


def test_jacfwd_of_a_tuple_result_runs_a_program_per_argument(monkeypatch):
    def pair(a, B):
        return np.sin(B @ a), a ** 2 * np.sum(B)
    rng = np.random.default_rng(3)
    a, B = rng.normal(size=4), rng.normal(size=(5, 4))
    runs = _count_forward_passes(monkeypatch)
    J = catad.jacfwd(pair, argnums=(0, 1))(a, B)
    assert not runs
    rows = catad.jacrev(pair, argnums=(0, 1))(a, B)
    for got, want in zip(J, rows):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
