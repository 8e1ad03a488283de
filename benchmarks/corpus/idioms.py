"""Idioms of real numeric code that a corpus of 169 realistic functions found refused (round 9):
zip of a list with an array, a list of weight matrices indexed in a loop, rows of a list added,
a dict's .get and copies, a function passed to an integrator, t[..., 0], np.column_stack of a
comprehension, np.diff with prepend, two lists made in one assignment."""
from __future__ import annotations

import numpy as np

from ._registry import case


# A weighted sum of basis values with the weights in a Python list, zipped with an array (Gauss
# quadrature written by hand); Abramowitz & Stegun, "Handbook of Mathematical Functions" (1964) 25.4.29.
def quadrature_zip_list(c, nodes):
    weights = [5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0]
    return sum(w * np.exp(-c * x * x) for w, x in zip(weights, nodes))


# A multilayer perceptron whose weight matrices and biases are lists indexed in a loop over
# range(len(ws)); Goodfellow, Bengio & Courville, "Deep Learning" (2016) 6.1.
def mlp_indexed_layers(ws, bs, x):
    h = x
    for k in range(len(ws)):
        h = np.tanh(ws[k] @ h + bs[k])
    return np.sum(h * h)


# The residual of a two-step linear recurrence kept as a list of state rows, consecutive rows
# added (a list of arrays, as written); Hairer, Norsett & Wanner, "Solving ODEs I" (1993) III.1.
def two_step_rows(a, y0):
    rows = [y0, y0 * a]
    for k in range(4):
        rows.append(rows[-1] * a + rows[-2] * (1.0 - a))
    return np.sum(rows[-1] + rows[-2])


# An objective whose options live in a dict with defaults read by .get and an updated copy
# (the scipy.optimize options idiom); Nocedal & Wright, "Numerical Optimization" (2006) 17.1.
def penalty_with_options(x, opts):
    mu = opts.get("mu", 10.0)
    scaled = {**opts, "mu": 2.0 * mu}
    return np.sum(x * x) + scaled["mu"] * (np.sum(x) - scaled.get("target", 1.0)) ** 2


def _rk4_integrate(f, y, h, n):
    for k in range(n):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def _logistic(y):
    return y * (1.0 - y)


# The logistic equation integrated by the classical Runge-Kutta method, the right-hand side passed
# to the integrator as a function; Butcher, "Numerical Methods for ODEs" (2016) 23.
def logistic_rk4(y0):
    return np.sum(_rk4_integrate(_logistic, y0, 0.1, 8))


# Channel-last image statistics read with an Ellipsis (t[..., c]), the NumPy idiom for the last
# axis of an array of any rank; the grey-world white balance, Buchsbaum, J. Franklin Inst. 310 (1980) 1.
def grey_world_ellipsis(img):
    means = [np.mean(img[..., c]) for c in range(3)]
    grey = sum(means) / 3.0
    return sum((m - grey) ** 2 for m in means)


# A polynomial least-squares residual with the Vandermonde matrix made by np.column_stack of a
# comprehension; Golub & Van Loan, "Matrix Computations" (2013) 5.3.
def vandermonde_column_stack(coef, t, y):
    A = np.column_stack([t ** p for p in range(len(coef))])
    r = A @ coef - y
    return r @ r


# The total variation of a signal with np.diff(prepend=) keeping its length; Rudin, Osher &
# Fatemi, Physica D 60 (1992) 259.
def total_variation_prepend(u, f):
    du = np.diff(u, prepend=u[0])
    return 0.5 * np.sum((u - f) ** 2) + 0.1 * np.sum(np.sqrt(du * du + 1e-6))


# Predator and prey populations kept in two lists made in one assignment and grown by forward
# Euler steps (the Lotka-Volterra equations); Murray, "Mathematical Biology I" (2002) 3.1.
def lotka_volterra_two_lists(rates):
    prey, pred = [1.0 * rates[0]], [0.5 * rates[1]]
    for k in range(6):
        p, q = prey[k], pred[k]
        prey.append(p + 0.05 * (p - p * q))
        pred.append(q + 0.05 * (p * q - q))
    return prey[-1] + pred[-1]


CASES = [
    case(quadrature_zip_list, lambda rng: (rng.uniform(0.5, 1.5), np.array([-0.7745966692, 0.0, 0.7745966692]))),
    case(mlp_indexed_layers, lambda rng: ([rng.normal(size=(3, 3)), rng.normal(size=(2, 3))],
                                          [rng.normal(size=3), rng.normal(size=2)], rng.normal(size=3)), argnums=(2,)),
    case(two_step_rows, lambda rng: (rng.uniform(0.2, 0.8), rng.normal(size=3))),
    case(penalty_with_options, lambda rng: (rng.normal(size=4), {"mu": 3.0, "target": 0.5})),
    case(logistic_rk4, lambda rng: (rng.uniform(0.1, 0.9, size=3),)),
    case(grey_world_ellipsis, lambda rng: (rng.uniform(size=(4, 5, 3)),)),
    case(vandermonde_column_stack, lambda rng: (rng.normal(size=3), np.linspace(0, 1, 9), rng.normal(size=9))),
    case(total_variation_prepend, lambda rng: (rng.normal(size=8), rng.normal(size=8))),
    case(lotka_volterra_two_lists, lambda rng: (rng.uniform(0.5, 1.5, size=2),)),
]
