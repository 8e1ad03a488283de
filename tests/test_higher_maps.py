"""Second derivatives through the opaque maps (issue 17): a first derivative of np.fft's
transforms or of linear algebra is made of lmLinear maps whose actions are primitives
(catad/primitives/fft.py, linalg.py); differentiated again, each action has a Jacobian of its
own (catad/ad/rules.py). Checked here: Hessians against the fourth-order central difference of
catad's gradient, their symmetry, hvp against hessian @ t, and third derivatives against central
differences of the Hessian; on every transform, norm and length, and on the linear-algebra
functions in the forms the corpus uses them.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.stats

import catad
from located import hessian_by_differences

RNG = np.random.default_rng(1717)


def check_hessian(f, args, k=0, tol=1e-7):
    """catad's Hessian of f in args[k] against central differences of its gradient (to tol of the
    largest entry), symmetric to rounding, and hvp's product equal to H @ t."""
    x = np.asarray(args[k])
    H = np.asarray(catad.hessian(f, argnums=k)(*args))
    assert H.shape == x.shape + x.shape
    fd = hessian_by_differences(f, args, k)
    scale = max(1.0, float(np.max(np.abs(fd))))
    np.testing.assert_allclose(H, fd, rtol=0, atol=tol * scale)
    n = x.size
    M = H.reshape(n, n)
    assert np.max(np.abs(M - M.T)) <= 1e-12 * scale
    t = RNG.normal(size=x.shape)
    tangents = tuple(t if i == k else np.zeros_like(a) for i, a in enumerate(args))
    hv = np.asarray(catad.hvp(f, args, tangents, argnums=k))
    np.testing.assert_allclose(hv.reshape(n), M @ t.reshape(n), rtol=0, atol=1e-12 * scale * max(1, n))
    return H


# ---------------------------------------------------------------- np.fft

def fft_power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 3)


def ifft_cut(x):
    return np.sum(np.fft.ifft(x, n=4, norm="ortho").real ** 2 * np.fft.ifft(x, n=4).imag)


def rfft_padded(x):
    z = np.fft.rfft(x, n=11, norm="forward")
    return np.sum(np.log(np.abs(z) ** 2 + 0.1))


def irfft_of_complex(x):
    y = np.fft.irfft(np.fft.fft(x) * (1 + 0.5j), n=6)
    return np.sum(np.sin(y))


def irfft_of_real(x):
    return np.sum(np.fft.irfft(x, n=9, norm="ortho") ** 4)


def fft_of_complex(x):
    z = (np.cos(x) + 1j * x ** 2) * x
    return np.sum(np.abs(np.fft.ifft(np.fft.fft(z, norm="ortho") * x, norm="forward")) ** 2)


def fft_rows(m):
    return np.sum(np.abs(np.fft.rfft(m, axis=0)) ** 3) + np.sum(np.fft.fft(m, axis=1).imag ** 2)


def deconvolution(x, kernel, observed):  # tests/test_fft.py's
    H = np.fft.fft(kernel, n=len(x))
    blurred = np.real(np.fft.ifft(np.fft.fft(x) * H))
    return np.sum((blurred - observed) ** 4)


FFT = [(fft_power, (7,)), (ifft_cut, (6,)), (rfft_padded, (8,)), (irfft_of_complex, (6,)), (irfft_of_real, (5,)),
       (fft_of_complex, (5,)), (fft_rows, (4, 3))]


@pytest.mark.parametrize("f, shape", FFT, ids=[f.__name__ for f, _ in FFT])
def test_hessian_through_fft_equals_central_differences_of_the_gradient(f, shape):
    check_hessian(f, (RNG.normal(size=shape),))


def test_hessian_through_fft_in_each_argument():
    args = (RNG.normal(size=8), np.array([0.5, 0.3, 0.2]), RNG.normal(size=8))
    for k in range(3):
        check_hessian(deconvolution, args, k)


def test_third_derivative_through_fft():
    """The Jacobian of the Hessian (a derivative program differentiated twice) against central
    differences of the Hessian."""
    x = RNG.normal(size=5)
    third = np.asarray(catad.jacfwd(catad.hessian(rfft_padded))(x))
    H = catad.hessian(rfft_padded)
    h = 1e-4
    fd = np.zeros((5, 5, 5))
    for i in range(5):
        e = np.zeros(5)
        e[i] = h
        fd[..., i] = (-H(x + 2 * e) + 8 * H(x + e) - 8 * H(x - e) + H(x - 2 * e)) / (12 * h)
    np.testing.assert_allclose(third, fd, rtol=0, atol=1e-6 * max(1, np.max(np.abs(fd))))


# ---------------------------------------------------------------- np.linalg

def _spd(n, seed):
    r = np.random.default_rng(seed).normal(size=(n, n))
    return r @ r.T + n * np.eye(n)


def det_squared(a):
    return np.linalg.det(a) ** 2


def logdet_plus(a):
    sign, logabs = np.linalg.slogdet(a)
    return logabs * sign + np.sum(a ** 2) * 0.1


def inv_trace(a):
    return np.trace(np.linalg.inv(a) @ a.T) + np.sum(np.linalg.inv(a) ** 2)


def solve_vector(a, b):
    x = np.linalg.solve(a, b)
    return np.sum(x ** 3) + x @ b


def solve_matrix(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)))


def cholesky_logdet(a):
    s = a @ a.T + 3.0 * np.eye(a.shape[0])
    lo = np.linalg.cholesky(s)
    return 2.0 * np.sum(np.log(np.diag(lo))) + np.sum(lo ** 3)


def gaussian_nll(x, a):  # the corpus's mvn_nll in np.linalg's terms
    s = a @ a.T + np.eye(a.shape[0])
    lo = np.linalg.cholesky(s)
    z = np.linalg.solve(lo, x)
    return 0.5 * z @ z + np.sum(np.log(np.diag(lo)))


def dets_of_slices(m):  # a vectorised build: the actions on a stack of matrices
    return sum(np.linalg.det(m[i]) ** 2 + np.linalg.slogdet(m[i])[1] ** 3 for i in range(m.shape[0]))


def branches_in_a_build(m, b):  # a condition per lane: the lanes it discards see the identity
    return sum((np.linalg.slogdet(m[i])[1] ** 2 + np.sum(np.linalg.solve(m[i], b) ** 3) if m[i, 0, 0] > 2.0
                else np.sum(np.linalg.inv(m[i]) ** 2)) for i in range(m.shape[0]))


def solves_in_a_loop(a, b):  # a loop that stays a loop: the actions in its body
    x = b
    for _ in range(3):
        x = np.linalg.solve(a, np.tanh(x)) + b
    return np.sum(x ** 2)


LINALG = [(det_squared, (_spd(3, 0) * 0.3 + np.eye(3),), 0), (logdet_plus, (_spd(3, 1),), 0),
          (inv_trace, (_spd(3, 2),), 0), (solve_vector, (_spd(3, 3), np.arange(1.0, 4.0)), 0),
          (solve_vector, (_spd(3, 3), np.arange(1.0, 4.0)), 1),
          (solve_matrix, (_spd(3, 4), np.random.default_rng(5).normal(size=(3, 2))), 0),
          (solve_matrix, (_spd(3, 4), np.random.default_rng(5).normal(size=(3, 2))), 1),
          (cholesky_logdet, (np.random.default_rng(6).normal(size=(3, 3)),), 0),
          (gaussian_nll, (np.arange(1.0, 4.0), np.random.default_rng(7).normal(size=(3, 3))), 0),
          (gaussian_nll, (np.arange(1.0, 4.0), np.random.default_rng(7).normal(size=(3, 3))), 1),
          (dets_of_slices, (np.stack([_spd(2, 8), _spd(2, 9), np.eye(2) * 2.0]),), 0),
          (branches_in_a_build, (np.stack([_spd(2, 1), _spd(2, 2) * 0.1, _spd(2, 3)]), np.array([0.5, -0.4])), 0),
          (branches_in_a_build, (np.stack([_spd(2, 1), _spd(2, 2) * 0.1, _spd(2, 3)]), np.array([0.5, -0.4])), 1),
          (solves_in_a_loop, (_spd(3, 10), np.array([0.3, -0.2, 0.5])), 0),
          (solves_in_a_loop, (_spd(3, 10), np.array([0.3, -0.2, 0.5])), 1)]


@pytest.mark.parametrize("f, args, k", LINALG, ids=[f"{f.__name__}-{k}" for f, _, k in LINALG])
def test_hessian_through_linear_algebra_equals_central_differences_of_the_gradient(f, args, k):
    check_hessian(f, args, k)


def test_hessian_of_log_det_and_solve_equals_sympy():
    """On a 2 x 2 matrix, symbol by symbol: log det A + b^T A^{-1} b."""
    import sympy

    def f(a, b):
        return np.linalg.slogdet(a)[1] + b @ np.linalg.solve(a, b)
    a, b = np.array([[2.0, 0.4], [-0.3, 1.5]]), np.array([0.7, -1.1])
    s = sympy.symbols("a:4")
    A = sympy.Matrix(2, 2, s)
    B = sympy.Matrix(b.tolist())
    expr = sympy.log(A.det()) + (B.T * A.inv() * B)[0, 0]
    at = dict(zip(s, a.ravel().tolist()))
    want = np.array([[float(sympy.diff(expr, p, q).subs(at)) for q in s] for p in s]).reshape(2, 2, 2, 2)
    got = np.asarray(catad.hessian(f)(a, b))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def det_inv_cholesky(a):
    return np.linalg.det(a) ** 2 + np.sum(np.linalg.inv(a) * a.T) + np.sum(np.linalg.cholesky(a @ a.T) ** 3)


def test_hessian_of_det_inv_and_cholesky_equals_sympy():
    """On a 2 x 2 matrix, symbol by symbol (SymPy's Cholesky factor of A A^T)."""
    import sympy
    a = np.array([[1.3, 0.4], [-0.6, 0.9]])
    s = sympy.symbols("a:4")
    A = sympy.Matrix(2, 2, s)
    L = (A * A.T).cholesky(hermitian=False)
    expr = A.det() ** 2 + sum(A.inv()[i, j] * A[j, i] for i in range(2) for j in range(2)) \
        + sum(L[i, j] ** 3 for i in range(2) for j in range(2))
    at = dict(zip(s, a.ravel().tolist()))
    want = np.array([[float(sympy.diff(expr, p, q).subs(at)) for q in s] for p in s]).reshape(2, 2, 2, 2)
    np.testing.assert_allclose(catad.hessian(det_inv_cholesky)(a), want, rtol=1e-11, atol=1e-11)


def test_third_derivative_through_solve_equals_central_differences_of_the_hessian():
    """solve's actions are closed under differentiation: its derivatives exist to any order."""
    a, b = _spd(2, 11), np.array([0.4, -0.9])

    def f(a):
        return np.sum(np.linalg.solve(a, b) ** 3)
    third = np.asarray(catad.jacfwd(catad.hessian(f))(a))
    H = catad.hessian(f)
    h = 1e-4
    fd = np.zeros((2, 2, 2, 2, 2, 2))
    for idx in np.ndindex(2, 2):
        e = np.zeros((2, 2))
        e[idx] = h
        fd[(...,) + idx] = (-H(a + 2 * e) + 8 * H(a + e) - 8 * H(a - e) + H(a - 2 * e)) / (12 * h)
    np.testing.assert_allclose(third, fd, rtol=0, atol=1e-6 * max(1, np.max(np.abs(fd))))


KERNEL_PAIRS = ["det_hvp", "det_vjp_da", "logdet_hvp", "logdet_vjp_da", "inv_jvp_db", "inv_vjp_db", "chol_jvp_dl",
                "chol_vjp_dl"]


@pytest.mark.parametrize("name", KERNEL_PAIRS)
def test_second_derivative_actions_are_derivatives_and_adjoint(name):
    """Each action of a second derivative is the derivative of its first-order action in the
    matrix (central differences) and its transpose is its adjoint, <J e, r> = <e, J^T r>."""
    from catad.primitives import linalg as K
    rng = np.random.default_rng(12)
    n = 4
    a = _spd(n, 13)
    lo, b = np.linalg.cholesky(a), np.linalg.inv(a)
    parent, at, fixed = {"det_hvp": (K.la_det_jvp, a, rng.normal(size=(n, n))),
                         "det_vjp_da": (K.la_det_vjp, a, 0.7),
                         "logdet_hvp": (K.la_logdet_jvp, a, rng.normal(size=(n, n))),
                         "logdet_vjp_da": (K.la_logdet_vjp, a, 0.7),
                         "inv_jvp_db": (K.la_inv_jvp, b, rng.normal(size=(n, n))),
                         "inv_vjp_db": (K.la_inv_vjp, b, rng.normal(size=(n, n))),
                         "chol_jvp_dl": (K.la_chol_jvp, lo, rng.normal(size=(n, n))),
                         "chol_vjp_dl": (K.la_chol_vjp, lo, rng.normal(size=(n, n)))}[name]
    fwd = getattr(K, "la_" + name)
    rev = getattr(K, "la_" + (name if name.endswith("vjp_da") else name + "_t"))
    e = rng.normal(size=(n, n))
    got = np.asarray(fwd(at, fixed, e))
    h = 1e-6
    want = (np.asarray(parent(at + h * e, fixed)) - np.asarray(parent(at - h * e, fixed))) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-7 * max(1, np.max(np.abs(want))))
    r = rng.normal(size=got.shape)
    assert np.sum(got * r) == pytest.approx(np.sum(e * np.asarray(rev(at, fixed, r))), rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------- SciPy's triangular solvers

def tri_solves(a, b):
    lo = np.tril(a) + 3.0 * np.eye(3)
    x = scipy.linalg.solve_triangular(lo, b, lower=True)
    y = scipy.linalg.solve_triangular(lo.T, x ** 2, lower=False, trans=1)
    z = scipy.linalg.solve_triangular(lo, y, lower=True, unit_diagonal=True, trans="T")
    return np.sum(np.sin(z)) + x @ y


def scipy_cholesky_both(a):
    s = a @ a.T + 2.0 * np.eye(3)
    return np.sum(scipy.linalg.cholesky(s, lower=True) ** 3) + np.sum(np.cos(scipy.linalg.cholesky(s)))


def cho_solves(a, b):
    s = a @ a.T + 2.0 * np.eye(3)
    c, low = scipy.linalg.cho_factor(s, lower=True)
    cu = scipy.linalg.cholesky(s, lower=False)
    x = scipy.linalg.cho_solve((c, low), b)
    xm = scipy.linalg.cho_solve((cu, False), np.outer(b, b) + np.eye(3))
    return np.sum(x ** 3) + np.sum(np.log(np.diag(c))) + np.sum(xm ** 2)


def mvn_logpdf(a, mu):  # through cov's Cholesky factor and a triangular solve (catad/frontend/scipy_linalg.py)
    x = np.array([[0.3, -0.2, 0.5], [1.0, 0.1, -0.4]])
    return -np.sum(scipy.stats.multivariate_normal.logpdf(x, mean=mu, cov=a @ a.T + np.eye(3)))


SCIPY = [(f, k) for f in (tri_solves, cho_solves, mvn_logpdf) for k in (0, 1)] + [(scipy_cholesky_both, 0)]


@pytest.mark.parametrize("f, k", SCIPY, ids=[f"{f.__name__}-{k}" for f, k in SCIPY])
def test_hessian_through_scipy_s_solvers_equals_central_differences_of_the_gradient(f, k):
    rng = np.random.default_rng(14)
    args = (rng.normal(size=(3, 3)), rng.normal(size=3))[:f.__code__.co_argcount]
    check_hessian(f, args, k)


SCIPY_KERNELS = ["tri_neg_tmatmul", "tri_mul_neg", "cho_mul_neg", "cho_sym_mul", "sp_chol_jvp_dc", "sp_chol_vjp_dc"]


@pytest.mark.parametrize("flags", [0, 1, 2, 3, 9, 11])
@pytest.mark.parametrize("name", SCIPY_KERNELS)
def test_scipy_second_derivative_actions_are_adjoint(name, flags):
    """<J e, r> = <e, J^T r> for each new action and its transpose, every option; and the maps in
    a factor are central differences of the first-order action they differentiate."""
    from catad.primitives import triangular as K
    rng = np.random.default_rng(15)
    n = 4
    m, d, x, g = (rng.normal(size=(n, n)) for _ in range(4))
    low = bool(flags & 1)
    f = flags & 3 if name.startswith(("cho", "sp")) else flags  # cholesky's flags: lower (+ 2: no check)
    c = np.linalg.cholesky(_spd(n, 16))
    c = c if low else c.T
    fixed, var, rev = {
        "tri_neg_tmatmul": ((x, f), m, "tri_neg_tmatmul_t"),
        "tri_mul_neg": ((m, f), x, "tri_mul_neg_t"),
        "cho_mul_neg": ((c, d, f), x, "cho_mul_neg"),
        "cho_sym_mul": ((x, g, f), m, "cho_sym_mul"),
        "sp_chol_jvp_dc": ((c, f, d), m, "sp_chol_jvp_dc_t"),
        "sp_chol_vjp_dc": ((c, f, d), m, "sp_chol_vjp_dc_t")}[name]
    fwd, back = getattr(K, "la_" + name), getattr(K, "la_" + rev)
    got = np.asarray(fwd(*fixed, var))
    r = rng.normal(size=got.shape)
    assert np.sum(got * r) == pytest.approx(np.sum(var * np.asarray(back(*fixed, r))), rel=1e-11, abs=1e-11)
    if name.startswith("sp_chol"):
        parent = K.la_sp_chol_jvp if "jvp" in name else K.la_sp_chol_vjp
        e = _tri_of(var, low)
        h = 1e-6
        want = (parent(c + h * e, f, d) - parent(c - h * e, f, d)) / (2 * h)
        np.testing.assert_allclose(fwd(c, f, d, e), want, rtol=0, atol=1e-7 * max(1, np.max(np.abs(want))))


def _tri_of(e, low):
    return np.tril(e) if low else np.triu(e)


# ---------------------------------------------------------------- scipy.linalg.expm

def expm_loss(a):
    p = scipy.linalg.expm(a * 0.5)
    return np.sum(np.log(np.abs(p) + 1.0)) + np.sum(scipy.linalg.expm(a.T @ a * 0.1) ** 2)


def test_hessian_through_expm_equals_central_differences_of_the_gradient():
    check_hessian(expm_loss, (np.random.default_rng(17).normal(size=(3, 3)),))


@pytest.mark.parametrize("name", ["expm_jvp_da", "expm_vjp_da"])
def test_expm_second_derivative_actions_are_derivatives_and_adjoint(name):
    from catad.primitives import spectral as K
    rng = np.random.default_rng(18)
    a, e, d = rng.normal(size=(3, 3)), 4.0 * rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    parent = K.la_expm_jvp if "jvp" in name else K.la_expm_vjp
    got = getattr(K, "la_" + name)(a, e, d)
    h = 1e-5
    want = (-parent(a + 2 * h * d, e) + 8 * parent(a + h * d, e) - 8 * parent(a - h * d, e)
            + parent(a - 2 * h * d, e)) / (12 * h)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-8 * np.max(np.abs(want)))
    r = rng.normal(size=(3, 3))
    assert np.sum(got * r) == pytest.approx(np.sum(d * getattr(K, "la_" + name + "_t")(a, e, r)), rel=1e-12)


# ---------------------------------------------------------------- eigenvalues

def eigenvalues_both_triangles(a):
    w = np.linalg.eigvalsh(a @ a.T + a, UPLO="U")
    lam, _ = np.linalg.eigh(a + a.T)
    return np.sum(w ** 3) + np.sum(np.exp(lam * 0.3))


def test_hessian_of_eigenvalues_equals_central_differences_of_the_gradient():
    check_hessian(eigenvalues_both_triangles, (np.random.default_rng(19).normal(size=(3, 3)),))


def eigenvectors_used(a):
    w, v = np.linalg.eigh(a + a.T, UPLO="U")
    return np.sum(v[:, 0] ** 4) + np.sum(v * a) + w[-1] ** 2


def test_hessian_through_eigenvectors_equals_central_differences_of_the_gradient():
    check_hessian(eigenvectors_used, (np.random.default_rng(20).normal(size=(3, 3)),))


def singular_vectors_used(a):
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    return np.sum(u[:, 0] ** 4) + np.sum(vt ** 3) + s[0] * np.sum(u @ vt * a)


def test_hessian_through_singular_vectors_equals_central_differences_of_the_gradient():
    for shape in ((3, 3), (4, 3), (3, 4)):
        check_hessian(singular_vectors_used, (np.random.default_rng(25).normal(size=shape),))


def test_a_third_derivative_through_singular_vectors_is_refused_at_the_function():
    with pytest.raises(catad.CatadError, match="third derivatives of np.linalg") as err:
        catad.jacfwd(catad.hessian(singular_vectors_used))(np.random.default_rng(20).normal(size=(3, 3)))
    assert err.value.loc.line == singular_vectors_used.__code__.co_firstlineno


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("name", ["eigvals_jvp_dv", "eigvals_vjp_dv"])
def test_eigenvalue_second_derivative_actions_are_derivatives_and_adjoint(name, upper):
    from catad.primitives import spectral as K
    rng = np.random.default_rng(21)
    v = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    fixed = rng.normal(size=(4, 4)) if "jvp" in name else rng.normal(size=4)
    parent = K.la_eigvals_jvp if "jvp" in name else K.la_eigvals_vjp
    e = rng.normal(size=(4, 4))
    got = getattr(K, "la_" + name)(v, upper, fixed, e)
    h = 1e-6
    want = (parent(v + h * e, upper, fixed) - parent(v - h * e, upper, fixed)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-8 * max(1, np.max(np.abs(want))))
    r = rng.normal(size=np.shape(got))
    assert np.sum(got * r) == pytest.approx(np.sum(e * getattr(K, "la_" + name + "_t")(v, upper, fixed, r)),
                                            rel=1e-12)


# ---------------------------------------------------------------- singular values

def singular_values(a):
    _, s, _ = np.linalg.svd(a @ a.T + a)
    return np.sum(np.linalg.svd(a[:, :2], compute_uv=False) ** 3) + np.sum(np.sqrt(s + 1.0))


def test_hessian_of_singular_values_equals_central_differences_of_the_gradient():
    check_hessian(singular_values, (np.random.default_rng(22).normal(size=(3, 3)),))


@pytest.mark.parametrize("name", ["svals_jvp_du", "svals_jvp_dvt", "svals_vjp_du", "svals_vjp_dvt"])
def test_singular_value_second_derivative_actions_are_derivatives_and_adjoint(name):
    from catad.primitives import spectral as K
    rng = np.random.default_rng(23)
    u, vt = np.linalg.qr(rng.normal(size=(4, 3)))[0], np.linalg.qr(rng.normal(size=(3, 3)))[0].T
    fixed = rng.normal(size=(4, 3)) if "jvp" in name else rng.normal(size=3)
    parent = K.la_svals_jvp if "jvp" in name else K.la_svals_vjp
    e = rng.normal(size=u.shape if name.endswith("du") else vt.shape)
    got = getattr(K, "la_" + name)(u, vt, fixed, e)
    h = 1e-6
    if name.endswith("du"):
        want = (parent(u + h * e, vt, fixed) - parent(u - h * e, vt, fixed)) / (2 * h)
    else:
        want = (parent(u, vt + h * e, fixed) - parent(u, vt - h * e, fixed)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-8 * max(1, np.max(np.abs(want))))
    r = rng.normal(size=np.shape(got))
    assert np.sum(got * r) == pytest.approx(np.sum(e * getattr(K, "la_" + name + "_t")(u, vt, fixed, r)), rel=1e-12)


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("name", ["eigvecs_jvp_dw", "eigvecs_jvp_dv", "eigvecs_vjp_dw", "eigvecs_vjp_dv"])
def test_eigenvector_second_derivative_actions_are_derivatives_and_adjoint(name, upper):
    from catad.primitives import spectral as K
    rng = np.random.default_rng(24)
    a = rng.normal(size=(4, 4))
    w, v = np.linalg.eigh(a + a.T)
    fixed = rng.normal(size=(4, 4))
    parent = K.la_eigvecs_jvp if "jvp" in name else K.la_eigvecs_vjp
    in_w = name.endswith("dw")
    e = rng.normal(size=w.shape if in_w else v.shape)
    got = getattr(K, "la_" + name)(w, v, upper, fixed, e)
    h = 1e-6
    if in_w:
        want = (parent(w + h * e, v, upper, fixed) - parent(w - h * e, v, upper, fixed)) / (2 * h)
    else:
        want = (parent(w, v + h * e, upper, fixed) - parent(w, v - h * e, upper, fixed)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-7 * max(1, np.max(np.abs(want))))
    r = rng.normal(size=np.shape(got))
    assert np.sum(got * r) == pytest.approx(np.sum(e * getattr(K, "la_" + name + "_t")(w, v, upper, fixed, r)),
                                            rel=1e-10)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 4)])
@pytest.mark.parametrize("name", ["svdu_jvp", "svdu_vjp", "svdvt_jvp", "svdvt_vjp"])
def test_singular_vector_second_derivative_actions_are_derivatives_and_adjoint(name, shape):
    """Each action's map in U, s and Vh against central differences of the action, and adjoint."""
    from catad.primitives import spectral as K
    rng = np.random.default_rng(26)
    u, s, vt = np.linalg.svd(rng.normal(size=shape), full_matrices=False)
    parent = getattr(K, "la_" + name)
    fixed = rng.normal(size=shape) if "jvp" in name else rng.normal(size=u.shape if name.startswith("svdu") else
                                                                            vt.shape)
    for k, part in enumerate(("du", "ds", "dvt")):
        at = [u, s, vt]
        e = rng.normal(size=np.shape(at[k]))
        h = 1e-6
        plus, minus = list(at), list(at)
        plus[k], minus[k] = at[k] + h * e, at[k] - h * e
        want = (parent(*plus, fixed) - parent(*minus, fixed)) / (2 * h)
        got = K.SVDVECS_AGAIN[f"{name}_{part}"](u, s, vt, fixed, e)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-7 * max(1, np.max(np.abs(want))))
        r = rng.normal(size=np.shape(got))
        back = K.SVDVECS_AGAIN[f"{name}_{part}_t"](u, s, vt, fixed, r)
        assert np.sum(got * r) == pytest.approx(np.sum(e * back), rel=1e-10, abs=1e-12)
