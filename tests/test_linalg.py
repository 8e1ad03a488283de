"""np.linalg's det, slogdet, inv, solve and cholesky (issue 16, item 1).

Values against NumPy itself (the user's function, called), gradients against central
differences in both modes (jvp along random directions, grad), in functions users write
(a Gaussian log-likelihood, a least-squares fit, a log-determinant through Cholesky), over
batches of matrices (comprehensions, loops and stacks, compiled as batched NumPy calls), the
derivatives' linear maps in the reference semantics (each lmLinear's two actions adjoint,
to_matrix against central differences), errors located with NumPy's messages, and what
explain and `catad rules` print.
"""
from __future__ import annotations

import numpy as np
import pytest

import catad
import catad.linearmaps.terms as L
from catad.lang.terms import Const, Var
from catad.lang.types import Float, Vec
from catad.linearmaps.printer import latex_lm
from catad.linearmaps.semantics import apply, apply_reverse, to_matrix
from catad.rewrite.catalogue import ALL_BY_NAME
from catad.tangents import ZERO, OneHot

M = Vec(Vec(Float))
RNG = np.random.default_rng(1616)


def spd(n: int, rng=RNG) -> np.ndarray:
    """A symmetric positive definite matrix, well conditioned."""
    m = rng.normal(size=(n, n))
    return m @ m.T + n * np.eye(n)


def general(n: int, rng=RNG) -> np.ndarray:
    """A non-symmetric matrix, well conditioned, with a negative determinant for n >= 1."""
    a = rng.normal(size=(n, n)) + n * np.eye(n)
    a[0] = -a[0]
    return a


def central(f, args, k, direction, h=1e-6):
    """The derivative of f along `direction` of argument k, by central differences."""
    plus, minus = list(args), list(args)
    plus[k] = args[k] + h * direction
    minus[k] = args[k] - h * direction
    return (np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * h)


def check_gradients(f, args, rtol=1e-6, atol=1e-7, directions=2):
    """jvp along random directions and grad (dotted with them) against central differences,
    for every argument; and the value against f itself."""
    value = f(*args)
    for k in range(len(args)):
        g = catad.grad(f, argnums=k)(*args)
        assert np.shape(g) == np.shape(args[k])
        for _ in range(directions):
            d = RNG.normal(size=np.shape(args[k]))
            expected = central(f, args, k, d)
            tangents = tuple(d if j == k else np.zeros_like(a) for j, a in enumerate(args))
            out, tan = catad.jvp(f, args, tangents)
            np.testing.assert_allclose(out, value, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(tan, expected, rtol=rtol, atol=atol)
            np.testing.assert_allclose(np.sum(g * d), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------- each function

def det(a):
    return np.linalg.det(a)


def logabsdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


def inv_sum(a):
    return np.sum(np.linalg.inv(a) * np.cos(a))


def solve_vec(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)))


def solve_mat(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def chol_sum(a):
    return np.sum(np.tanh(np.linalg.cholesky(a)))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_det_and_slogdet(n):
    a = general(n)
    check_gradients(det, (a,), rtol=1e-5)
    check_gradients(logabsdet, (a,))


@pytest.mark.parametrize("n", [1, 3])
def test_inv(n):
    check_gradients(inv_sum, (general(n),))


@pytest.mark.parametrize("n", [1, 3, 5])
def test_solve_with_a_vector_and_with_a_matrix(n):
    a = general(n)
    check_gradients(solve_vec, (a, RNG.normal(size=n)))
    check_gradients(solve_mat, (a, RNG.normal(size=(n, 2))))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_cholesky_reads_the_lower_triangle_only(n):
    """NumPy reads A's lower triangle: the gradient with respect to the strictly upper part
    is 0, and the rest matches central differences of NumPy's own function."""
    a = spd(n) + np.triu(RNG.normal(size=(n, n)), 1)  # the upper triangle: anything
    check_gradients(chol_sum, (a,))
    g = catad.grad(chol_sum)(a)
    assert np.all(np.triu(g, 1) == 0.0)


def matrix_values(a, b):
    return np.linalg.inv(a), np.linalg.cholesky(a @ a.T + 1.0), np.linalg.solve(a, b), \
        np.linalg.slogdet(a), np.linalg.det(a)


def test_values_are_numpy_s():
    a, b = general(4), RNG.normal(size=(4, 3))
    out, _ = catad.jvp(matrix_values, (a, b), (np.zeros_like(a), np.zeros_like(b)))
    expected = matrix_values(a, b)
    for x, y in zip(out, expected):
        np.testing.assert_allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=1e-13, atol=1e-13)


def int_det(a):
    return np.linalg.det(a) + np.sum(np.linalg.inv(a))


def test_int_matrices_are_made_float():
    a = np.array([[2, 1], [1, 3]])
    out, _ = catad.jvp(int_det, (a,), (np.zeros(a.shape),))
    assert out == pytest.approx(int_det(a))


# ---------------------------------------------------------------------- functions users write

def gaussian_loglik(mu, cov, xs):
    """The log-likelihood of points xs (rows) under N(mu, cov)."""
    d = len(mu)
    sign, logdet = np.linalg.slogdet(cov)
    total = 0.0
    for k in range(len(xs)):
        r = xs[k] - mu
        total = total + r @ np.linalg.solve(cov, r)
    return -0.5 * (total + len(xs) * (logdet + d * np.log(2 * np.pi)))


def least_squares(w_true, x, y, lam, eye):
    """The fit of ridge regression by the normal equations, and its residual."""
    w = np.linalg.solve(x.T @ x + lam * eye, x.T @ y)
    r = x @ w - y
    return np.sum(r * r) + np.sum((w - w_true) ** 2)


def cov_logdet(factor, jitter, eye):
    """log det of a covariance through its Cholesky factor: 2 sum log diag L."""
    cov = factor @ factor.T + jitter * eye
    chol = np.linalg.cholesky(cov)
    return 2 * sum(np.log(chol[i, i]) for i in range(len(chol)))


def test_gaussian_log_likelihood():
    d = 3
    args = (RNG.normal(size=d), spd(d), RNG.normal(size=(5, d)))
    check_gradients(gaussian_loglik, args, rtol=1e-5, atol=1e-6)


def test_least_squares_fit():
    x, y = RNG.normal(size=(8, 3)), RNG.normal(size=8)
    check_gradients(least_squares, (RNG.normal(size=3), x, y, 0.3, np.eye(3)), rtol=1e-5, atol=1e-6)


def test_log_det_of_a_covariance_through_cholesky():
    factor = RNG.normal(size=(4, 4))
    check_gradients(cov_logdet, (factor, 0.5, np.eye(4)))
    expected = np.linalg.slogdet(factor @ factor.T + 0.5 * np.eye(4))[1]
    assert cov_logdet(factor, 0.5, np.eye(4)) == pytest.approx(expected)
    assert catad.value_and_grad(cov_logdet)(factor, 0.5, np.eye(4))[0] == pytest.approx(expected)


# ---------------------------------------------------------------------- batches of matrices
# catad's arguments are vectors and matrices: a batch of matrices is made inside the function,
# here A_k = base + shifts[k] I, so that each lane of a comprehension solves its own matrix.

def batch_comprehension(base, shifts, eye, bs):
    return sum(np.linalg.slogdet(base + shifts[k] * eye)[1]
               + np.sum(np.linalg.solve(base + shifts[k] * eye, bs[k]) ** 2) for k in range(len(shifts)))


def batch_inverse(base, shifts, eye):
    invs = [np.linalg.inv(base * shifts[k] + eye) for k in range(len(shifts))]
    chols = [np.linalg.cholesky(base @ base.T + shifts[k] * shifts[k] * eye) for k in range(len(shifts))]
    return np.sum(np.array(invs) ** 2) + np.sum(np.array(chols))


def batch_stacked(base, shifts, eye):
    stack = np.array([base + shifts[k] * eye for k in range(len(shifts))])
    sign, logdet = np.linalg.slogdet(stack)
    return np.sum(np.linalg.det(stack) * sign) + np.sum(logdet) + np.sum(np.linalg.inv(stack) ** 2)


def batch_loop(base, shifts, eye):
    acc = 0.0
    for k in range(len(shifts)):
        acc = 0.5 * acc + np.linalg.slogdet(base + shifts[k] * eye)[1]
    return acc


def batch_nested(base, shifts, eye):
    return sum(sum(np.linalg.det(base * shifts[i] + shifts[j] * eye) for j in range(len(shifts)))
               for i in range(len(shifts)))


def batch_guarded(base, shifts, eye, use):
    """inv only where use[k] is positive: the other matrices are singular (base and the shift
    are 0 there), and Python never inverts them."""
    return sum(np.sum(np.linalg.inv(base + shifts[k] * eye)) if use[k] > 0 else 0.0
               for k in range(len(shifts)))


def vectorised(f, *args) -> bool:
    return "no Python loops" in catad.explain(f, *args).stage("code").text


def test_batches_in_comprehensions_are_batched_calls():
    base, shifts, eye, bs = general(3), np.array([0.5, 1.0, 2.0, 3.0]), np.eye(3), RNG.normal(size=(4, 3))
    check_gradients(batch_comprehension, (base, shifts, eye, bs), rtol=1e-5, atol=1e-6)
    check_gradients(batch_inverse, (base, shifts, eye), rtol=1e-5, atol=1e-6)
    assert vectorised(batch_comprehension, base, shifts, eye, bs) and vectorised(batch_inverse, base, shifts, eye)


def test_stacks_of_matrices():
    base, shifts, eye = general(3), np.array([0.5, 1.0, 2.0, 3.0]), np.eye(3)
    check_gradients(batch_stacked, (base, shifts, eye), rtol=1e-5, atol=1e-6)
    check_gradients(batch_nested, (base, shifts, eye), rtol=1e-5, atol=1e-6)
    assert vectorised(batch_stacked, base, shifts, eye) and vectorised(batch_nested, base, shifts, eye)


def test_a_loop_over_matrices():
    check_gradients(batch_loop, (spd(3), np.array([0.5, 1.0, 2.0]), np.eye(3)))


def recurrence(m, b):
    acc = 0.0
    for j in range(2):
        acc = acc * 0.5 + np.linalg.slogdet(m)[1] + np.sum(np.linalg.solve(m, b) * acc)
    return acc + np.sum(np.linalg.inv(m)) + np.sum(np.linalg.cholesky(m @ m.T))


def batch_of_loops(base, shifts, eye, b):
    return sum(recurrence(base + shifts[k] * eye, b) for k in range(len(shifts)))


def test_a_comprehension_that_runs_as_a_python_loop():
    """A loop inside a comprehension: the comprehension's derivative runs element by element,
    with run-time tangents (catad.backend.linalg passes them to the kernels)."""
    args = (general(3), np.array([0.5, 1.0, 2.0]), np.eye(3), np.ones(3))
    check_gradients(batch_of_loops, args, rtol=1e-5, atol=1e-6)
    assert "Python loop" in catad.explain(batch_of_loops, *args).stage("code").text


def test_lanes_a_condition_discards_are_never_solved():
    args = (np.zeros((3, 3)), np.array([1.0, 0.0, 0.0, 2.0]), np.eye(3), np.array([1.0, -1.0, -1.0, 1.0]))
    assert catad.value_and_grad(batch_guarded)(*args)[0] == pytest.approx(batch_guarded(*args))
    check_gradients(batch_guarded, args)


# ---------------------------------------------------------------------- zero and sparse tangents

def from_entries(x):
    a = np.array([[x[0], x[1]], [x[2], x[3]]])
    return np.linalg.det(a) + np.sum(np.linalg.inv(a)) + np.sum(np.linalg.solve(a, x[:2]))


def constant_matrix(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2) + np.linalg.slogdet(a)[1]


def test_matrices_built_from_entries_and_constant_matrices():
    check_gradients(from_entries, (np.array([3.0, 1.0, -0.5, 2.0]),))
    a, b = general(3), RNG.normal(size=3)
    g = catad.grad(constant_matrix, argnums=1)(a, b)  # A's tangent is the symbolic zero
    np.testing.assert_allclose(g, [central(constant_matrix, (a, b), 1, e) for e in np.eye(3)], rtol=1e-6)


@pytest.mark.parametrize("pair", [("det_jvp", "det_vjp", M, Float), ("logdet_jvp", "logdet_vjp", M, Float),
                                  ("inv_jvp", "inv_vjp", M, M),
                                  ("lsolve", "lsolve_t", Vec(Float), Vec(Float)), ("lsolve", "lsolve_t", M, M),
                                  ("chol_jvp", "chol_vjp", M, M), ("neg_matmul", "neg_matmul_t", M, Vec(Float)),
                                  ("neg_matmul", "neg_matmul_t", M, M)])
def test_each_linear_map_s_actions_are_adjoint(pair):
    """<m . x, y> = <x, y ._R m> for each lmLinear the Jacobians make, on dense, zero and
    sparse (one-hot row) tangents, and its transpose is the swapped pair."""
    fwd, rev, src, tgt = pair
    n = 4
    a = spd(n)
    arg = {"inv_jvp": np.linalg.inv(a), "chol_jvp": np.linalg.cholesky(a)}.get(fwd, a)
    if fwd == "neg_matmul":
        arg = RNG.normal(size=(n,) if tgt == Vec(Float) else (n, n))
    m = L.Linear(fwd, rev, (Const(arg, M if np.ndim(arg) == 2 else Vec(Float)),), src, tgt)
    shape = {Float: (), Vec(Float): (n,), M: (n, n)}
    for _ in range(3):
        x, y = RNG.normal(size=shape[src]), RNG.normal(size=shape[tgt])
        assert np.sum(apply(m, x) * y) == pytest.approx(np.sum(x * apply_reverse(m, y)), rel=1e-10)
    assert apply(m, ZERO) is ZERO and apply_reverse(m, ZERO) is ZERO
    if src != Float:
        row = RNG.normal(size=shape[src][1:])
        dense = np.zeros(shape[src])
        dense[2] = row
        np.testing.assert_allclose(apply(m, OneHot(2, row, n)), apply(m, dense))
    t = catad.linearmaps.semantics.transpose(m)
    assert isinstance(t, L.Linear) and (t.fwd, t.rev, t.s, t.t) == (rev, fwd, tgt, src)


def test_to_matrix_of_a_jacobian_is_the_finite_difference_jacobian():
    a = general(3)
    out, lin = catad.linearize(lambda_free_inv, a)
    mat = lin.to_matrix()
    fd = np.stack([central(lambda_free_inv, (a,), 0, e.reshape(3, 3)).ravel() for e in np.eye(9)], axis=1)
    np.testing.assert_allclose(mat, fd, rtol=1e-6, atol=1e-8)
    m = L.Linear("chol_jvp", "chol_vjp", (Const(np.linalg.cholesky(spd(3)), M),), M, M)
    low = m.args[0].py_value
    fd = np.stack([central(np.linalg.cholesky, (low @ low.T,), 0, e.reshape(3, 3)).ravel() for e in np.eye(9)], 1)
    np.testing.assert_allclose(to_matrix(m, np.zeros((3, 3)), np.zeros((3, 3))), fd, rtol=1e-6, atol=1e-8)


def lambda_free_inv(a):
    return np.linalg.inv(a)


# ---------------------------------------------------------------------- errors

def not_square(a):
    return np.linalg.det(a)


def mismatch(a, b):
    return np.sum(np.linalg.solve(a, b))


def singular(a):
    return np.sum(np.linalg.inv(a))


def test_errors_name_the_line_with_numpy_s_message():
    with pytest.raises(catad.ShapeError, match="Last 2 dimensions of the array must be square") as e:
        catad.grad(not_square)(np.ones((2, 3)))
    assert "test_linalg.py" in str(e.value)
    with pytest.raises(catad.CatadTypeError, match="1-dimensional array given"):
        catad.grad(not_square)(np.ones(3))
    with pytest.raises(ValueError, match=r"mismatch in its core dimension 0.*\(size 2 is different from 3\)"):
        catad.grad(mismatch)(np.eye(3), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        catad.grad(singular)(np.zeros((2, 2)))
    with pytest.raises(np.linalg.LinAlgError):  # NumPy raises LinAlgError for these; so does catad
        np.linalg.det(np.ones((2, 3)))


# ---------------------------------------------------------------------- what catad prints

def test_explain_shows_the_maps_and_the_rules():
    d = catad.explain(solve_vec, general(3), np.ones(3))
    jac = d.stage("jacobian").text
    assert "lmLinear(lsolve/lsolve_t, a)" in jac and "lmLinear(neg_matmul/neg_matmul_t, x)" in jac
    assert r"\mathcal{L}_{f,f'}(a) \odot x = f(a, x)" in d.latex()  # the law of fwd-linear, where it fired
    m = L.Linear("lsolve", "lsolve_t", (Var("A", M),), Vec(Float), Vec(Float))
    assert latex_lm(L.Transpose(m)) == r"\mathcal{L}_{\mathrm{lsolve}}(A)^\top"
    assert str(m) == "lmLinear(lsolve/lsolve_t, A)"
    fired = {s.rule for s in d.steps}
    assert {"fwd-linear", "rev-linear"} <= fired
    rev = d.stage("reverse").text
    assert rev.count("lsolve_t(") == 1 and "inv(" not in rev  # one solve with A^T, no inverse
    fwd = d.stage("forward").text
    assert fwd.count("lsolve(") == 1
    for name in ("fwd-linear", "rev-linear", "tr-linear"):
        assert name in ALL_BY_NAME


def test_det_s_gradient_solves():
    rev = catad.explain(det, general(3)).stage("reverse").text
    assert "det_vjp(" in rev and "inv(" not in rev


# ---------------------------------------------------------------------- singular matrices

SINGULAR = [np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[0.0, 0.0], [0.0, 0.0]]),
            np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),  # rank 2
            np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [-1.0, -2.0, -3.0]]),  # rank 1: adj(A) = 0
            np.zeros((1, 1))]


def _sympy_det_derivatives(a):
    """SymPy's gradient and Hessian of det at a (exact: det is a polynomial)."""
    import sympy
    n = a.shape[0]
    xs = sympy.symbols(f"a0:{n * n}")
    d = sympy.Matrix(n, n, xs).det()
    at = dict(zip(xs, a.ravel().tolist()))
    grad = np.array([float(sympy.diff(d, x).subs(at)) for x in xs]).reshape(n, n)
    hess = np.array([[float(sympy.diff(d, x, y).subs(at)) for y in xs] for x in xs]).reshape(n, n, n, n)
    return grad, hess


@pytest.mark.parametrize("a", SINGULAR, ids=lambda a: f"{a.shape[0]}x{a.shape[0]}-rank{np.linalg.matrix_rank(a)}")
def test_det_s_derivatives_at_singular_matrices(a):
    """det is a polynomial: its gradient tr(adj(A) dA) and Hessian exist at a singular A, where
    det(A) A^{-1} does not (the adjugate comes from the SVD there), and match SymPy's."""
    grad, hess = _sympy_det_derivatives(a)
    value, g = catad.value_and_grad(det)(a)
    assert value == np.linalg.det(a)
    np.testing.assert_allclose(g, grad, rtol=0, atol=1e-12)
    _, tan = catad.jvp(det, (a,), (np.ones_like(a),))
    assert tan == pytest.approx(np.sum(grad), abs=1e-12)
    np.testing.assert_allclose(catad.hessian(det)(a), hess, rtol=0, atol=1e-12)
    t = np.arange(a.size, dtype=float).reshape(a.shape)
    np.testing.assert_allclose(catad.hvp(det, (a,), (t,)), np.einsum("ijkl,kl->ij", hess, t), rtol=0, atol=1e-11)


def dets_of_rows(ms):
    return sum(np.linalg.det(ms[i]) * (i + 1.0) for i in range(ms.shape[0]))


def test_a_singular_matrix_in_a_stack():
    """A vectorised stack with one singular matrix: each lane's gradient is its own adjugate."""
    ms = np.stack([general(3), SINGULAR[2], spd(3)])
    g = catad.grad(dets_of_rows)(ms)
    want = np.stack([(i + 1.0) * _sympy_det_derivatives(m)[0] for i, m in enumerate(ms)])
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-10)


def test_log_det_of_a_singular_matrix_has_no_derivative():
    """log|det A| is -inf at a singular A and its derivative does not exist: nan (NumPy's mark of
    a value that has none), in that lane only; never np.linalg's LinAlgError from inside catad."""
    a = SINGULAR[0]
    value, g = catad.value_and_grad(lambda_free_logdet)(a)
    assert value == -np.inf and np.isnan(g).all()
    ms = np.stack([general(2), a])
    g = catad.grad(logdets_of_rows)(ms)
    np.testing.assert_allclose(g[0], np.linalg.inv(ms[0]).T, rtol=1e-12)
    assert np.isnan(g[1]).all()


def lambda_free_logdet(a):
    return np.linalg.slogdet(a)[1]


def logdets_of_rows(ms):
    return sum(np.linalg.slogdet(ms[i])[1] for i in range(ms.shape[0]))
