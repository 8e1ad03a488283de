"""Idioms of real numeric code that trials of catad found refused (round 5): least squares and
polynomial fits, non-uniform differences, NaN-aware statistics, filters and piecewise models;
(round 6) dtype casts of masks, arithmetic of masks, tolerance tests and matrix diagonals;
(round 7) selections by boolean masks, np.nonzero, np.delete and filtered list comprehensions."""
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


# Instantaneous frequency of a chirp from its unwrapped phase; Boashash, "Estimating and
# interpreting the instantaneous frequency of a signal", Proc. IEEE 80 (1992) 520; by np.unwrap
# and np.ediff1d, as in scipy.signal's hilbert-transform examples.
def chirp_frequency_error(p, t):
    phase = np.mod(2 * np.pi * (p[0] * t + 0.5 * p[1] * t ** 2), 2 * np.pi) - np.pi
    freq = np.ediff1d(np.unwrap(phase)) / (2 * np.pi * (t[1] - t[0]))
    return np.sum((freq - (p[0] + p[1] * t[:-1])) ** 2)


# Sign-preserving power compression (a "signed square root" feature map, Perronnin et al.,
# "Improving the Fisher kernel for large-scale image classification", ECCV 2010), with per-group
# weights expanded by np.repeat; by np.copysign.
def signed_power_features(x, w):
    z = np.copysign(np.abs(x) ** 0.5, x)
    return np.sum(np.repeat(w, [2, 3, 1]) * z ** 2) + np.sum(z)



# Squared hinge loss of a linear classifier over its active set (the L2-loss SVM primal), the
# active set as a 0/1 float mask by .astype(float); Chang, Hsieh & Lin, "Coordinate descent method
# for large-scale L2-loss linear support vector machines", JMLR 9 (2008) 1369, eq. (3).
def l2_svm_primal(w, X, y):
    margin = y * (X @ w)
    active = (margin < 1.0).astype(float)
    return 0.5 * np.dot(w, w) + np.sum(active * (1.0 - margin) ** 2)


# Energy of a spectrum inside a frequency band and outside a notch, the band a product of masks
# (NumPy's * of bools: and) and the kept bins a sum of masks (+ of bools: or); Welch, "The use of
# fast Fourier transform for the estimation of power spectra", IEEE Trans. Audio Electroacoust.
# 15 (1967) 70, band power as a sum of periodogram bins.
def band_power(a, f):
    power = (a[0] * np.exp(-((f - a[1]) ** 2)) + a[2]) ** 2
    band = (f > 0.5) * (f < 3.0)
    keep = band * ((f < 1.4) + (f > 1.6))
    return np.sum(power * keep) / np.sum(keep)


# Fixed-point iteration x = cos(k x) stopped when successive iterates agree to np.allclose's
# tolerance; Burden & Faires, "Numerical Analysis" (9th ed., 2011), Algorithm 2.2.
def cosine_fixed_point(k):
    x = np.full(3, 0.5)
    for _ in range(200):
        nxt = np.cos(k * x)
        converged = np.allclose(nxt, x, rtol=1e-12, atol=1e-12)
        x = nxt
        if converged:
            break
    return np.sum(x ** 2)


# Gaussian-process log marginal likelihood, log |K| from the Cholesky factor's diagonal by
# L.diagonal(); Rasmussen & Williams, "Gaussian Processes for Machine Learning" (2006),
# Algorithm 2.1.
def gp_log_marginal(theta, t, y):
    d = t[:, None] - t[None, :]
    K = theta[0] ** 2 * np.exp(-0.5 * d ** 2 / theta[1] ** 2) + (theta[2] ** 2 + 1e-6) * np.eye(len(t))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return -0.5 * y @ alpha - np.sum(np.log(L.diagonal())) - 0.5 * len(t) * np.log(2 * np.pi)


# Trimmed mean of residuals (the values within k standard deviations kept by a boolean mask,
# x[mask]), a robust location estimate; Huber & Ronchetti, "Robust Statistics" (2nd ed., 2009)
# section 3.3, as in scipy.stats.trim_mean's spirit with a data-driven cut.
def sigma_clipped_mean(p, t, y):
    r = y - (p[0] + p[1] * t)
    kept = r[np.abs(r - np.mean(r)) < 2.0 * np.std(r)]
    return np.mean(kept ** 2)


# Hinge loss over the misclassified and margin-violating samples only, selected with np.nonzero
# (the support vectors' indices); Cortes & Vapnik, "Support-vector networks", Machine Learning 20
# (1995) 273, eq. (22).
def support_vector_hinge(w, X, y):
    margin = y * (X @ w)
    (idx,) = np.nonzero(margin < 1.0)
    return 0.5 * np.dot(w, w) + np.sum(1.0 - margin[idx])


# Log-likelihood of a censored sample, the observed and the censored parts selected by a mask and
# its negation (a Tobit model's two terms); Tobin, "Estimation of relationships for limited
# dependent variables", Econometrica 26 (1958) 24.
def tobit_log_likelihood(beta, x, y):
    mu = beta[0] + beta[1] * x
    s = np.exp(beta[2])
    obs = y > 0.0
    z = (y[obs] - mu[obs]) / s
    ll_obs = np.sum(-0.5 * z ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi))
    ll_cens = np.sum(np.log(0.5 * (1.0 + np.tanh(-mu[~obs] / s * 0.7978845608))))
    return ll_obs + ll_cens


# Energy of the peaks of a signal above a threshold, found by a filtered list comprehension over
# the interior samples (local maxima), as in simple peak pickers before scipy.signal.find_peaks;
# Du, Kibbe & Lin, "Improved peak detection in mass spectrum", Bioinformatics 22 (2006) 2059.
def peak_energy(a, t):
    s = a[0] * np.sin(a[1] * t) + a[2] * np.sin(3.0 * t)
    peaks = [s[i] for i in range(1, len(s) - 1) if s[i] > s[i - 1] and s[i] > s[i + 1] and s[i] > 0.1]
    return np.sum(np.array(peaks) ** 2) + len(peaks)


# Jackknife estimate of the variance of a ratio estimator, from its leave-one-out values (np.delete
# of each sample in turn); Efron & Stein, "The jackknife estimate of variance", Ann. Statist. 9
# (1981) 586, eq. (1.2).
def jackknife_ratio_variance(x, y):
    n = len(x)
    loo = np.array([np.sum(np.delete(y, i)) / np.sum(np.delete(x, i)) for i in range(n)])
    return (n - 1) / n * np.sum((loo - np.mean(loo)) ** 2)


CASES = [
    case(lstsq_trend, lambda rng: (rng.uniform(0.5, 1.5, size=3), np.linspace(0, 1, 16))),
    case(polyfit_baseline, lambda rng: (rng.normal(size=12), np.linspace(-1, 1, 12), rng.uniform(0.5, 1.5, size=12)),
         argnums=(0, 2)),
    case(irregular_slope_energy, lambda rng: (rng.uniform(0.5, 1.5, size=3), np.sort(rng.uniform(0, 2, 14))),
         argnums=(0, 1)),
    case(nan_coefficient_of_variation, lambda rng: (rng.uniform(0.2, 3.0, size=10),)),
    case(chirp_frequency_error, lambda rng: (rng.uniform(1.0, 2.0, size=2), np.linspace(0, 1, 40))),
    case(signed_power_features, lambda rng: (rng.normal(size=6), rng.uniform(0.5, 1.5, size=3)), argnums=(0, 1)),
    case(l2_svm_primal, lambda rng: (rng.normal(size=4), rng.normal(size=(20, 4)), np.sign(rng.normal(size=20))),
         argnums=(0, 1)),
    case(band_power, lambda rng: (rng.uniform(0.5, 1.5, size=3), np.linspace(0.05, 4.0, 41))),
    case(cosine_fixed_point, lambda rng: (rng.uniform(0.3, 0.8, size=3),)),
    case(gp_log_marginal, lambda rng: (rng.uniform(0.5, 1.5, size=3), np.linspace(0, 3, 8), rng.normal(size=8))),
    case(sigma_clipped_mean, lambda rng: (rng.normal(size=2), np.linspace(0, 1, 30),
                                          np.linspace(0, 1, 30) + rng.standard_t(2, size=30))),
    case(support_vector_hinge, lambda rng: (rng.normal(size=3), rng.normal(size=(25, 3)), np.sign(rng.normal(size=25))),
         argnums=(0, 1)),
    case(tobit_log_likelihood, lambda rng: (np.array([0.2, 0.8, -0.3]), np.linspace(-1, 1, 20),
                                            np.maximum(rng.normal(size=20) + np.linspace(-1, 1, 20), 0.0))),
    case(peak_energy, lambda rng: (rng.uniform(0.5, 1.5, size=3), np.linspace(0, 10, 60))),
    case(jackknife_ratio_variance, lambda rng: (rng.uniform(1.0, 2.0, size=12), rng.uniform(0.5, 3.0, size=12)),
         argnums=(0, 1)),
]
