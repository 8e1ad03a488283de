"""Numerical methods inside objectives: quadrature, polynomial evaluation, interpolation,
iterative solvers (while loops), linear algebra (solve, expm, slogdet, eigh) and ODE steps."""
import math

import numpy as np
import scipy.integrate
import scipy.linalg
import scipy.optimize
from numpy.polynomial import chebyshev, legendre

from ._registry import case


# Gauss-Legendre quadrature of a parametrised integrand; Abramowitz & Stegun, "Handbook of
# Mathematical Functions" (1964), 25.4.29; nodes and weights by numpy.polynomial.legendre.leggauss.
def gauss_legendre_integral(theta, n=8):
    nodes, weights = legendre.leggauss(n)
    x = 0.5 * (nodes + 1.0)               # map [-1, 1] to [0, 1]
    f = np.exp(-theta[0] * x) * np.cos(theta[1] * x)
    return 0.5 * np.sum(weights * f)


# Composite trapezoidal rule; Press et al., "Numerical Recipes" 3rd ed. (2007), eq. 4.1.11, by
# np.trapezoid on a fixed grid.
def trapezoid_integral(a, x):
    y = np.exp(-a * x ** 2) * (1 + x)
    return np.trapezoid(y, x)


# Composite Simpson's rule by scipy.integrate.simpson; Press et al. (2007) eq. 4.1.13; the integral
# of a Gaussian bump with parameters (mu, log sigma).
def simpson_integral(params, x):
    mu, log_s = params
    y = np.exp(-0.5 * ((x - mu) / np.exp(log_s)) ** 2)
    return scipy.integrate.simpson(y, x=x)


# Horner evaluation of a polynomial at sample points, fitted to data; Knuth, TAOCP vol. 2 (1997)
# section 4.6.4; by np.polyval (highest degree first).
def polyfit_loss(coeffs, x, y):
    return np.sum((np.polyval(coeffs, x) - y) ** 2)


# Chebyshev series fit by Clenshaw's recurrence; Clenshaw, "A note on the summation of Chebyshev
# series", Math. Comp. 9, 1955; numpy.polynomial.chebyshev.chebval.
def chebyshev_fit_loss(c, x, y):
    return np.sum((chebyshev.chebval(x, c) - y) ** 2)


# Piecewise-linear interpolation of learnable knot values; numpy.interp (de Boor, "A Practical
# Guide to Splines" (1978), chapter II, broken-line interpolation).
def interp_loss(knot_values, knots, x, y):
    return np.sum((np.interp(x, knots, knot_values) - y) ** 2)


# Newton's method for a root of Kepler's equation, E - e sin E = M, iterated to a tolerance;
# Danby, "Fundamentals of Celestial Mechanics" (1988) section 6.6; the derivative of the solution
# with respect to e and M (the implicit function theorem gives dE/dM = 1 / (1 - e cos E)).
def kepler_equation(e, M, tol=1e-13):
    E = M
    while True:
        dE = (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
        E -= dE
        if abs(dE) < tol:
            break
    return E


# Root of a monotone function by Brent's method (scipy.optimize.brentq); Brent, "Algorithms for
# Minimization without Derivatives" (1973), chapter 4; the root of x^3 + a x - 1 on [0, 2].
def brent_root(a):
    return scipy.optimize.brentq(lambda x: x ** 3 + a * x - 1.0, 0.0, 2.0, xtol=1e-15)


# Linear solve inside a loss (ridge regression's closed form); Hoerl & Kennard, "Ridge
# regression", Technometrics 12(1), 1970: w = (X^T X + lam I)^{-1} X^T y; validation error.
def ridge_validation_error(log_lam, X, y, Xv, yv):
    lam = np.exp(log_lam)
    d = X.shape[1]
    w = np.linalg.solve(X.T @ X + lam * np.eye(d), X.T @ y)
    return np.mean((Xv @ w - yv) ** 2)


# Matrix exponential of a generator (continuous-time Markov chain transition probabilities);
# Moler & Van Loan, "Nineteen dubious ways to compute the exponential of a matrix, twenty-five
# years later", SIAM Review 45(1), 2003; P(t) = expm(Q t), likelihood of observed transitions.
def ctmc_log_likelihood(log_rates, counts, t=0.5):
    n = counts.shape[0]
    R = np.zeros((n, n))
    R[~np.eye(n, dtype=bool)] = np.exp(log_rates)
    Q = R - np.diag(R.sum(axis=1))
    P = scipy.linalg.expm(Q * t)
    return -np.sum(counts * np.log(P))


# Log-determinant by np.linalg.slogdet (D-optimal experimental design); Kiefer & Wolfowitz, "The
# equivalence of two extremum problems", Canad. J. Math. 12, 1960: maximise log det(X^T diag(w) X).
def d_optimal_design(logits, X):
    w = np.exp(logits) / np.sum(np.exp(logits))
    M = X.T @ (w[:, None] * X)
    sign, logdet = np.linalg.slogdet(M)
    return -logdet


# Largest eigenvalue of a symmetric matrix, by numpy.linalg.eigvalsh (spectral-norm
# regularisation; Yoshida & Miyato, "Spectral norm regularization", arXiv:1705.10941, 2017).
def max_eigenvalue(A):
    S = A + A.T
    return np.linalg.eigvalsh(S)[-1]


# Power iteration for the dominant eigenvalue; Golub & Van Loan, "Matrix Computations" 4th ed.
# (2013), section 7.3.1; a fixed number of steps, the Rayleigh quotient at the end.
def power_iteration(A, iters=30):
    v = np.ones(A.shape[0]) / math.sqrt(A.shape[0])
    for _ in range(iters):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v


# Implicit (backward) Euler for a stiff linear ODE, each step a linear solve; Hairer & Wanner,
# "Solving Ordinary Differential Equations II" (1996), section IV.3; y' = A y.
def implicit_euler(A, y0, h=0.1, steps=10):
    I = np.eye(len(y0))
    y = y0
    for _ in range(steps):
        y = np.linalg.solve(I - h * A, y)
    return np.sum(y ** 2)


# Fixed-point iteration x = cos(a x) run to convergence (the Dottie number for a = 1); Burden &
# Faires (2010) Algorithm 2.2 (fixed-point iteration with a tolerance).
def fixed_point_cos(a, tol=1e-14, max_iter=500):
    x = 1.0
    for _ in range(max_iter):
        x_new = math.cos(a * x)
        if abs(x_new - x) < tol:
            return x_new
        x = x_new
    return x


# Conjugate gradient for an SPD system, a fixed number of iterations (unrolled solver);
# Hestenes & Stiefel, "Methods of conjugate gradients for solving linear systems", J. Res. NBS 49,
# 1952; Nocedal & Wright (2006) Algorithm 5.2.
def conjugate_gradient(A, b, iters=5):
    M = A @ A.T + np.eye(len(b))
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


def _ctmc(rng):
    n = 3
    return (rng.normal(size=n * n - n) * 0.3, rng.integers(1, 10, size=(n, n)).astype(float))


CASES = [
    case(gauss_legendre_integral, lambda rng: (rng.uniform(0.5, 2.0, size=2),)),
    case(trapezoid_integral, lambda rng: (rng.uniform(0.5, 2.0), np.linspace(-2, 2, 21))),
    case(simpson_integral, lambda rng: (np.array([0.2, -0.3]), np.linspace(-3, 3, 21))),
    case(polyfit_loss, lambda rng: (rng.normal(size=4), np.linspace(-1, 1, 10), rng.normal(size=10))),
    case(chebyshev_fit_loss, lambda rng: (rng.normal(size=5), np.linspace(-1, 1, 12), rng.normal(size=12))),
    case(interp_loss, lambda rng: (rng.normal(size=6), np.linspace(0, 1, 6), np.array([0.05, 0.13, 0.31, 0.45, 0.52, 0.68, 0.77, 0.93]),
                                   rng.normal(size=8))),
    case(kepler_equation, lambda rng: (rng.uniform(0.1, 0.6), rng.uniform(0.5, 2.5)), argnums=(0, 1)),
    case(brent_root, lambda rng: (rng.uniform(0.5, 2.0),)),
    case(ridge_validation_error, lambda rng: (0.1, rng.normal(size=(10, 3)), rng.normal(size=10), rng.normal(size=(5, 3)),
                                              rng.normal(size=5))),
    case(ctmc_log_likelihood, _ctmc),
    case(d_optimal_design, lambda rng: (rng.normal(size=8) * 0.3, rng.normal(size=(8, 3)))),
    case(max_eigenvalue, lambda rng: (rng.normal(size=(4, 4)),)),
    case(power_iteration, lambda rng: (np.diag([3.0, 1.0, 0.5, 0.2]) + 0.1 * rng.normal(size=(4, 4)),)),
    case(implicit_euler, lambda rng: (-np.eye(3) * 2.0 + 0.3 * rng.normal(size=(3, 3)), rng.normal(size=3)), argnums=(0, 1)),
    case(fixed_point_cos, lambda rng: (rng.uniform(0.8, 1.2),)),
    case(conjugate_gradient, lambda rng: (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4)), argnums=(0, 1)),
]
