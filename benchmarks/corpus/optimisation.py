"""Optimisation test functions: the global-optimisation benchmarks of Jamil & Yang's survey
and Surjanovic & Bingham's Virtual Library of Simulation Experiments (VLSE,
https://www.sfu.ca/~ssurjano/optimization.html), and the least-squares problems of Moré,
Garbow & Hillstrom, "Testing unconstrained optimization software", ACM TOMS 7(1), 1981
(MGH below, with the problem's number there)."""
import math

import numpy as np

from ._registry import case


# Rosenbrock, "An automatic method for finding the greatest or least value of a function",
# Computer Journal 3(3), 1960; the n-dimensional chain as scipy.optimize.rosen writes it
# (MGH 21, extended Rosenbrock, sums pairs instead).
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


# Rastrigin (1974), generalised to n dimensions by Mühlenbein, Schomisch & Born (1991);
# VLSE "Rastrigin function": f(x) = 10 d + sum(x_i^2 - 10 cos(2 pi x_i)).
def rastrigin(x, a=10.0):
    return a * len(x) + np.sum(x ** 2 - a * np.cos(2.0 * np.pi * x))


# Ackley, "A connectionist machine for genetic hillclimbing" (1987); VLSE "Ackley function"
# with its recommended a = 20, b = 0.2, c = 2 pi.
def ackley(x, a=20.0, b=0.2, c=2.0 * np.pi):
    d = x.shape[0]
    s1 = np.sqrt(np.sum(x ** 2) / d)
    s2 = np.sum(np.cos(c * x)) / d
    return -a * np.exp(-b * s1) - np.exp(s2) + a + np.e


# De Jong's F1, the sphere, De Jong, "An analysis of the behavior of a class of genetic adaptive
# systems", PhD thesis, 1975; VLSE "Sphere function".
def sphere(x):
    return x @ x


# Styblinski & Tang, "Experiments in nonconvex optimization: stochastic approximation with
# function smoothing and simulated annealing", Neural Networks 3(4), 1990; VLSE "Styblinski-Tang".
def styblinski_tang(x):
    return 0.5 * np.sum(x ** 4 - 16.0 * x ** 2 + 5.0 * x)


# Griewank, "Generalized descent for global optimization", JOTA 34(1), 1981; VLSE "Griewank":
# sum(x_i^2)/4000 - prod(cos(x_i / sqrt(i))) + 1.
def griewank(x):
    i = np.arange(1, len(x) + 1)
    return np.sum(x ** 2) / 4000.0 - np.prod(np.cos(x / np.sqrt(i))) + 1.0


# Levy & Montalvo, "The tunneling algorithm for the global minimization of functions", SIAM
# J. Sci. Stat. Comput. 6(1), 1985; VLSE "Levy function" with w_i = 1 + (x_i - 1)/4.
def levy(x):
    w = 1.0 + (x - 1.0) / 4.0
    term1 = np.sin(np.pi * w[0]) ** 2
    wi = w[:-1]
    middle = np.sum((wi - 1.0) ** 2 * (1.0 + 10.0 * np.sin(np.pi * wi + 1.0) ** 2))
    last = (w[-1] - 1.0) ** 2 * (1.0 + np.sin(2.0 * np.pi * w[-1]) ** 2)
    return term1 + middle + last


# Michalewicz, "Genetic Algorithms + Data Structures = Evolution Programs", 1992; VLSE
# "Michalewicz function": -sum sin(x_i) sin(i x_i^2 / pi)^(2m), m = 10.
def michalewicz(x, m=10):
    total = 0.0
    for i, xi in enumerate(x, start=1):
        total -= math.sin(xi) * math.sin(i * xi ** 2 / math.pi) ** (2 * m)
    return total


# Zakharov; Jamil & Yang, "A literature survey of benchmark functions for global optimization
# problems", Int. J. Math. Modelling & Num. Optimisation 4(2), 2013, f173; VLSE "Zakharov".
def zakharov(x):
    i = np.arange(1, x.size + 1)
    s = np.sum(0.5 * i * x)
    return np.sum(x ** 2) + s ** 2 + s ** 4


# Dixon & Price, "Truncated Newton method for sparse unconstrained optimization using automatic
# differentiation", JOTA 60(2), 1989; VLSE "Dixon-Price": (x1 - 1)^2 + sum_i i (2 x_i^2 - x_{i-1})^2.
def dixon_price(x):
    i = np.arange(2, len(x) + 1)
    return (x[0] - 1.0) ** 2 + np.sum(i * (2.0 * x[1:] ** 2 - x[:-1]) ** 2)


# Beale (1958); MGH 5: residuals y_i - x1 (1 - x2^i) with y = (1.5, 2.25, 2.625).
def beale(p):
    x, y = p
    return ((1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2
            + (2.625 - x + x * y ** 3) ** 2)


# Himmelblau, "Applied Nonlinear Programming", McGraw-Hill, 1972; Wikipedia "Himmelblau's function".
def himmelblau(p):
    x, y = p[0], p[1]
    return (x ** 2 + y - 11.0) ** 2 + (x + y ** 2 - 7.0) ** 2


# Goldstein & Price, "On descent from local minima", Math. Comp. 25(115), 1971; VLSE
# "Goldstein-Price function".
def goldstein_price(p):
    x1, x2 = p
    a = 1.0 + (x1 + x2 + 1.0) ** 2 * (19 - 14 * x1 + 3 * x1 ** 2 - 14 * x2 + 6 * x1 * x2 + 3 * x2 ** 2)
    b = 30.0 + (2 * x1 - 3 * x2) ** 2 * (18 - 32 * x1 + 12 * x1 ** 2 + 48 * x2 - 36 * x1 * x2 + 27 * x2 ** 2)
    return a * b


# Six-hump camel; Dixon & Szegö, "Towards Global Optimisation 2", 1978; VLSE "Six-Hump Camel".
def six_hump_camel(p):
    x, y = p
    return (4.0 - 2.1 * x ** 2 + x ** 4 / 3.0) * x ** 2 + x * y + (-4.0 + 4.0 * y ** 2) * y ** 2


# Powell's singular function, Powell, "An iterative method for finding stationary values of a
# function of several variables", Computer Journal 5(2), 1962; extended to n = 4k: MGH 22.
def powell_singular(x):
    blocks = x.reshape(-1, 4)
    a, b, c, d = blocks[:, 0], blocks[:, 1], blocks[:, 2], blocks[:, 3]
    return np.sum((a + 10 * b) ** 2 + 5 * (c - d) ** 2 + (b - 2 * c) ** 4 + 10 * (a - d) ** 4)


# Wood (Colville) function, Colville, "A comparative study on nonlinear programming codes",
# IBM NY Scientific Center report 320-2949 (1968); MGH 14: residuals 10(x2 - x1^2), 1 - x1, sqrt(90)(x4 - x3^2), 1 - x3,
# sqrt(10)(x2 + x4 - 2), (x2 - x4)/sqrt(10).
def wood(x):
    x1, x2, x3, x4 = x
    r = np.array([10.0 * (x2 - x1 ** 2), 1.0 - x1, math.sqrt(90.0) * (x4 - x3 ** 2), 1.0 - x3,
                  math.sqrt(10.0) * (x2 + x4 - 2.0), (x2 - x4) / math.sqrt(10.0)])
    return float(np.dot(r, r))


# Helical valley, Fletcher & Powell, "A rapidly convergent descent method for minimization",
# Computer Journal 6(2), 1963; MGH 7, with theta = arctan(x2/x1)/(2 pi) (+ 1/2 when x1 < 0).
def helical_valley(x):
    x1, x2, x3 = x[0], x[1], x[2]
    if x1 > 0:
        theta = math.atan(x2 / x1) / (2 * math.pi)
    else:
        theta = math.atan(x2 / x1) / (2 * math.pi) + 0.5
    f1 = 10.0 * (x3 - 10.0 * theta)
    f2 = 10.0 * (math.sqrt(x1 ** 2 + x2 ** 2) - 1.0)
    return f1 ** 2 + f2 ** 2 + x3 ** 2


# Box three-dimensional function, Box, "A comparison of several current optimization methods",
# Computer Journal 9(1), 1966; MGH 12: t_i = 0.1 i, m = 10.
def box_3d(x, m=10):
    t = 0.1 * np.arange(1, m + 1)
    f = np.exp(-t * x[0]) - np.exp(-t * x[1]) - x[2] * (np.exp(-t) - np.exp(-10.0 * t))
    return np.sum(f ** 2)


# Trigonometric function, Spedicato (1975); MGH 26:
# f_i = n - sum_j cos x_j + i (1 - cos x_i) - sin x_i.
def trigonometric(x):
    n = len(x)
    i = np.arange(1, n + 1)
    f = n - np.sum(np.cos(x)) + i * (1.0 - np.cos(x)) - np.sin(x)
    return np.sum(f ** 2)


# Broyden tridiagonal function, Broyden, "A class of methods for solving nonlinear simultaneous
# equations", Math. Comp. 19, 1965; MGH 30: f_i = (3 - 2 x_i) x_i - x_{i-1} - 2 x_{i+1} + 1, x_0 = x_{n+1} = 0.
def broyden_tridiagonal(x):
    xp = np.concatenate([[0.0], x, [0.0]])
    f = (3.0 - 2.0 * x) * x - xp[:-2] - 2.0 * xp[2:] + 1.0
    return np.sum(f ** 2)


# Discrete boundary value function; Moré, Garbow & Hillstrom (1981), MGH 28: h = 1/(n+1), t_i = i h,
# f_i = 2 x_i - x_{i-1} - x_{i+1} + h^2 (x_i + t_i + 1)^3 / 2, x_0 = x_{n+1} = 0.
def discrete_boundary_value(x):
    n = x.shape[0]
    h = 1.0 / (n + 1)
    t = np.arange(1, n + 1) * h
    xp = np.pad(x, 1)
    f = 2 * x - xp[:-2] - xp[2:] + h ** 2 * (x + t + 1) ** 3 / 2
    return np.sum(np.square(f))


# Penalty function I, Gill, Murray & Pitfield (1972); MGH 23: f_i = sqrt(a)(x_i - 1), i <= n,
# f_{n+1} = sum x_j^2 - 1/4, a = 1e-5.
def penalty_i(x, a=1e-5):
    f = [math.sqrt(a) * (xi - 1.0) for xi in x]
    f.append(sum(xi ** 2 for xi in x) - 0.25)
    return sum(fi ** 2 for fi in f)


# Variably dimensioned function; Moré, Garbow & Hillstrom (1981), MGH 25: f_i = x_i - 1, f_{n+1} = sum_j j (x_j - 1),
# f_{n+2} = f_{n+1}^2.
def variably_dimensioned(x):
    j = np.arange(1, len(x) + 1)
    s = np.sum(j * (x - 1.0))
    return np.sum((x - 1.0) ** 2) + s ** 2 + s ** 4


# Chebyquad, Fletcher, "Function minimization without evaluating derivatives - a review",
# Computer Journal 8, 1965; MGH 35: f_i = (1/n) sum_j T_i(x_j) - integral of T_i over [0, 1],
# T_i the Chebyshev polynomials shifted to [0, 1] (the integral: 0 for odd i, -1/(i^2 - 1) for even i).
def chebyquad(x):
    n = len(x)
    t_prev = np.ones(n)
    t = 2.0 * x - 1.0
    total = 0.0
    for i in range(1, n + 1):
        exact = 0.0 if i % 2 == 1 else -1.0 / (i * i - 1.0)
        fi = np.mean(t) - exact
        total += fi ** 2
        t_prev, t = t, 2.0 * (2.0 * x - 1.0) * t - t_prev
    return total


BARD_Y = np.array([0.14, 0.18, 0.22, 0.25, 0.29, 0.32, 0.35, 0.39, 0.37, 0.58, 0.73, 0.96, 1.34, 2.10, 4.39])


# Bard, "Comparison of gradient methods for the solution of nonlinear parameter estimation
# problems", SIAM J. Numer. Anal. 7(1), 1970; MGH 8: f_i = y_i - (x1 + u_i / (v_i x2 + w_i x3)),
# u_i = i, v_i = 16 - i, w_i = min(u_i, v_i).
def bard(x):
    u = np.arange(1.0, 16.0)
    v = 16.0 - u
    w = np.minimum(u, v)
    f = BARD_Y - (x[0] + u / (v * x[1] + w * x[2]))
    return np.sum(f ** 2)


KO_Y = np.array([0.1957, 0.1947, 0.1735, 0.1600, 0.0844, 0.0627, 0.0456, 0.0342, 0.0323, 0.0235, 0.0246])
KO_U = np.array([4.0, 2.0, 1.0, 0.5, 0.25, 0.167, 0.125, 0.1, 0.0833, 0.0714, 0.0625])


# Kowalik & Osborne, "Methods for Unconstrained Optimization Problems", Elsevier, 1968; MGH 15:
# f_i = y_i - x1 (u_i^2 + u_i x2) / (u_i^2 + u_i x3 + x4).
def kowalik_osborne(x):
    x1, x2, x3, x4 = x
    model = x1 * (KO_U ** 2 + KO_U * x2) / (KO_U ** 2 + KO_U * x3 + x4)
    return np.sum((KO_Y - model) ** 2)


# Brown almost-linear function, Brown, "A quadratically convergent Newton-like method based upon
# Gaussian elimination", SIAM J. Numer. Anal. 6(4), 1969; MGH 27:
# f_i = x_i + sum_j x_j - (n + 1) for i < n, f_n = prod_j x_j - 1.
def brown_almost_linear(x):
    n = len(x)
    f = x[:-1] + np.sum(x) - (n + 1)
    last = np.prod(x) - 1.0
    return np.sum(f ** 2) + last ** 2


# Freudenstein & Roth, "Numerical solution of systems of nonlinear equations", JACM 10(4), 1963;
# MGH 2: f1 = -13 + x1 + ((5 - x2) x2 - 2) x2, f2 = -29 + x1 + ((x2 + 1) x2 - 14) x2.
def freudenstein_roth(x):
    x1, x2 = x[0], x[1]
    f1 = -13.0 + x1 + ((5.0 - x2) * x2 - 2.0) * x2
    f2 = -29.0 + x1 + ((x2 + 1.0) * x2 - 14.0) * x2
    return f1 * f1 + f2 * f2


# Schwefel, "Numerical Optimization of Computer Models", Wiley, 1981; VLSE "Schwefel function":
# 418.9829 d - sum x_i sin(sqrt(|x_i|)).
def schwefel(x):
    return 418.9829 * len(x) - np.sum(x * np.sin(np.sqrt(np.abs(x))))


# Alpine No. 1, Rahnamayan, Tizhoosh & Salama, "Opposition-based differential evolution", IEEE
# Trans. Evol. Comp. 12(1), 2008; Jamil & Yang (2013) f6: sum |x_i sin(x_i) + 0.1 x_i|.
def alpine1(x):
    return np.abs(x * np.sin(x) + 0.1 * x).sum()


# Trid function; VLSE "Trid function" (https://www.sfu.ca/~ssurjano/trid.html): sum (x_i - 1)^2 - sum_{i >= 2} x_i x_{i-1}.
def trid(x):
    return np.sum((x - 1) ** 2) - np.sum(x[1:] * x[:-1])


# Rotated hyper-ellipsoid (Schwefel 1.2 / double sum); VLSE "Rotated Hyper-Ellipsoid"
# (https://www.sfu.ca/~ssurjano/rothyp.html):
# sum_i sum_{j <= i} x_j^2, i.e. the sum of the cumulative sums of x^2.
def rotated_hyper_ellipsoid(x):
    return np.sum(np.cumsum(x ** 2))


# Qing function, Qing, "Dynamic differential evolution strategy and applications in
# electromagnetic inverse scattering problems", IEEE TGRS 44(1), 2006; Jamil & Yang (2013) f98:
# sum (x_i^2 - i)^2.
def qing(x):
    return sum((xi ** 2 - i) ** 2 for i, xi in enumerate(x, 1))


CASES = [
    case(rosenbrock, lambda rng: (rng.uniform(-2, 2, size=8),)),
    case(rastrigin, lambda rng: (rng.uniform(-5.12, 5.12, size=8),)),
    case(ackley, lambda rng: (rng.uniform(-5, 5, size=6),)),
    case(sphere, lambda rng: (rng.normal(size=10),)),
    case(styblinski_tang, lambda rng: (rng.uniform(-5, 5, size=6),)),
    case(griewank, lambda rng: (rng.uniform(-10, 10, size=8),)),
    case(levy, lambda rng: (rng.uniform(-10, 10, size=6),)),
    case(michalewicz, lambda rng: (rng.uniform(0.2, 3.0, size=5),)),
    case(zakharov, lambda rng: (rng.uniform(-1, 1, size=6),)),
    case(dixon_price, lambda rng: (rng.uniform(-2, 2, size=6),)),
    case(beale, lambda rng: (rng.uniform(-1.5, 1.5, size=2),)),
    case(himmelblau, lambda rng: (rng.uniform(-4, 4, size=2),)),
    case(goldstein_price, lambda rng: (rng.uniform(-1, 1, size=2),)),
    case(six_hump_camel, lambda rng: (rng.uniform(-1.5, 1.5, size=2),)),
    case(powell_singular, lambda rng: (rng.uniform(-2, 2, size=8),)),
    case(wood, lambda rng: (rng.uniform(-2, 2, size=4),)),
    case(helical_valley, lambda rng: (np.array([rng.uniform(0.5, 1.5), rng.uniform(-1, 1), rng.uniform(-1, 1)]),)),
    case(box_3d, lambda rng: (rng.uniform(0.5, 5.0, size=3),)),
    case(trigonometric, lambda rng: (rng.uniform(0, 1, size=6),)),
    case(broyden_tridiagonal, lambda rng: (rng.uniform(-1, 1, size=8),)),
    case(discrete_boundary_value, lambda rng: (rng.uniform(-0.5, 0.5, size=8),)),
    case(penalty_i, lambda rng: (rng.uniform(-1, 1, size=6),)),
    case(variably_dimensioned, lambda rng: (rng.uniform(0, 2, size=6),)),
    case(chebyquad, lambda rng: (np.sort(rng.uniform(0.05, 0.95, size=6)),)),
    case(bard, lambda rng: (rng.uniform(0.5, 1.5, size=3),)),
    case(kowalik_osborne, lambda rng: (rng.uniform(0.1, 0.5, size=4),)),
    case(brown_almost_linear, lambda rng: (rng.uniform(0.5, 1.5, size=6),)),
    case(freudenstein_roth, lambda rng: (rng.uniform(-2, 6, size=2),)),
    case(schwefel, lambda rng: (rng.uniform(10, 450, size=6),)),
    case(alpine1, lambda rng: (rng.uniform(0.3, 2.5, size=6),)),
    case(trid, lambda rng: (rng.uniform(-6, 6, size=6),)),
    case(rotated_hyper_ellipsoid, lambda rng: (rng.uniform(-3, 3, size=8),)),
    case(qing, lambda rng: (rng.uniform(-3, 3, size=6),)),
]
