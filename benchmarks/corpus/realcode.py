"""Idioms of real numeric code that trials of catad found refused (round 5): least squares and
polynomial fits, non-uniform differences, NaN-aware statistics, filters and piecewise models."""
from __future__ import annotations

import numpy as np

from ._registry import case


# Least-squares fit of a quadratic trend to a model's curve, as in scipy.signal.detrend(type='linear')
# generalised to a polynomial basis; Golub & Van Loan, "Matrix Computations" (4th ed., 2013) 5.3,
# by np.linalg.lstsq (LAPACK gelsd).
def lstsq_trend(p, t):
    A = np.stack([np.ones(len(t)), t, t ** 2], axis=1)
    y = p[0] * np.sin(p[1] * t) + p[2] * t
    coef, res, rank, sv = np.linalg.lstsq(A, y, rcond=None)
    return np.sum(coef ** 2) + res[0] / len(t)


# Polynomial baseline removal (a spectrum's background fitted by a low-degree polynomial and
# subtracted); Lieber & Mahadevan-Jansen, "Automated method for subtraction of fluorescence from
# biological Raman spectra", Appl. Spectrosc. 57 (2003) 1363; by np.polyfit / np.polyval.
def polyfit_baseline(y, x, w):
    coeffs = np.polyfit(x, y, 3, w=w)
    corrected = y - np.polyval(coeffs, x)
    return np.sum(corrected ** 2)


# Rate of change of a decaying signal sampled on an irregular time grid, and its energy; Fornberg,
# "Generation of finite difference formulas on arbitrarily spaced grids", Math. Comp. 51 (1988)
# 699, as np.gradient implements it (second order inside, edge_order=2 at the ends).
def irregular_slope_energy(p, t):
    y = p[0] * np.exp(-p[1] * t) * np.cos(p[2] * t)
    dy = np.gradient(y, t, edge_order=2)
    return np.trapezoid(dy ** 2, t)


# Coefficient of variation of a sensor series with dropouts marked NaN (Everitt & Skrondal, "The
# Cambridge Dictionary of Statistics", 4th ed. 2010, "coefficient of variation"), by np.nanstd /
# np.nanmean as in pandas' skipna statistics.
def nan_coefficient_of_variation(x):
    y = np.where(x > 2.0, np.nan, x)
    return np.nanstd(y, ddof=1) / np.nanmean(y) + np.sum(np.nanvar(y.reshape(2, -1), axis=1))


CASES = [
    case(lstsq_trend, lambda rng: (rng.uniform(0.5, 1.5, size=3), np.linspace(0, 1, 16))),
    case(polyfit_baseline, lambda rng: (rng.normal(size=12), np.linspace(-1, 1, 12), rng.uniform(0.5, 1.5, size=12)),
         argnums=(0, 2)),
    case(irregular_slope_energy, lambda rng: (rng.uniform(0.5, 1.5, size=3), np.sort(rng.uniform(0, 2, 14))),
         argnums=(0, 1)),
    case(nan_coefficient_of_variation, lambda rng: (rng.uniform(0.2, 3.0, size=10),)),
]
