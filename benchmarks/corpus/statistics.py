"""Log-likelihoods and log-densities of common statistical models, written as in a
statistician's NumPy/SciPy script: scipy.special and scipy.stats, np.linalg, parameters on an
unconstrained scale (log of a scale, logit of a probability)."""
import math

import numpy as np
import scipy.linalg
from scipy import special, stats
from scipy.special import gammaln, logsumexp

from ._registry import case


# Normal distribution maximum likelihood; Wikipedia "Normal distribution" (density) and
# scipy.stats.norm.logpdf; the scale as log sigma.
def normal_nll(params, x):
    mu, log_sigma = params
    return -np.sum(stats.norm.logpdf(x, loc=mu, scale=np.exp(log_sigma)))


# Linear regression with Gaussian noise; Bishop, "Pattern Recognition and Machine Learning"
# (2006), eq. 3.11: ln p(t|w, beta) = N/2 ln beta - N/2 ln(2 pi) - beta E_D(w).
def linear_regression_nll(w, log_beta, X, t):
    beta = np.exp(log_beta)
    n = len(t)
    e_d = 0.5 * np.sum((t - X @ w) ** 2)
    return -(0.5 * n * log_beta - 0.5 * n * np.log(2 * np.pi) - beta * e_d)


# Logistic regression, cross-entropy error; Bishop (2006) eq. 4.90, with a Gaussian prior
# (L2 penalty) on the weights, as scikit-learn's LogisticRegression objective.
def logistic_regression_nll(w, b, X, y, l2=0.1):
    z = X @ w + b
    ll = y * special.log_expit(z) + (1 - y) * special.log_expit(-z)
    return -np.sum(ll) + 0.5 * l2 * np.dot(w, w)


# The same model as often written by hand: sigmoid, clipped probabilities and binary
# cross-entropy (Bishop 2006, eq. 4.90; the clipping as in Keras' binary_crossentropy).
def logistic_regression_bce(w, X, y, eps=1e-12):
    p = 1.0 / (1.0 + np.exp(-np.dot(X, w)))
    p = np.clip(p, eps, 1 - eps)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


# Poisson regression, the canonical log link; McCullagh & Nelder, "Generalized Linear Models",
# 2nd ed. (1989), section 6.2: l = sum y eta - exp(eta) - log y!.
def poisson_regression_nll(beta, X, y):
    eta = X @ beta
    return -np.sum(y * eta - np.exp(eta) - gammaln(y + 1))


# Negative binomial regression (NB2); Cameron & Trivedi, "Regression Analysis of Count Data"
# (1998), eq. 3.26, with mu = exp(x'beta) and dispersion alpha.
def negative_binomial_nll(beta, log_alpha, X, y):
    mu = np.exp(X @ beta)
    alpha = np.exp(log_alpha)
    r = 1.0 / alpha
    ll = (gammaln(y + r) - gammaln(r) - gammaln(y + 1)
          + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -ll.sum()


# Gamma distribution (shape k, rate beta); Wikipedia "Gamma distribution":
# log f = k log beta + (k - 1) log x - beta x - log Gamma(k).
def gamma_nll(log_params, x):
    k, rate = np.exp(log_params)
    return -np.sum(k * np.log(rate) + special.xlogy(k - 1, x) - rate * x - gammaln(k))


# Beta distribution; Wikipedia "Beta distribution": log f = (a-1) log x + (b-1) log(1-x) - log B(a, b).
def beta_nll(log_params, x):
    a = math.exp(log_params[0])
    b = math.exp(log_params[1])
    return -np.sum((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - special.betaln(a, b))


# Student's t location-scale model; Lange, Little & Taylor, "Robust statistical modeling using
# the t distribution", JASA 84(408), 1989; scipy.stats.t.logpdf.
def student_t_nll(params, x, df=4.0):
    loc, log_scale = params[0], params[1]
    return -stats.t.logpdf(x, df, loc=loc, scale=np.exp(log_scale)).sum()


# Multivariate normal with covariance A A^T + I; Wikipedia "Multivariate normal distribution"
# (density), via scipy.stats.multivariate_normal.
def mvn_nll_scipy(mu, A, X):
    cov = A @ A.T + np.eye(len(mu))
    return -np.sum(stats.multivariate_normal.logpdf(X, mean=mu, cov=cov))


# The same density by hand with a Cholesky factor; Rasmussen & Williams, "Gaussian Processes for
# Machine Learning" (2006), appendix A.4: log|S| = 2 sum log L_ii, and a triangular solve.
def mvn_nll_cholesky(mu, A, X):
    d = mu.shape[0]
    cov = A @ A.T + np.eye(d)
    L = np.linalg.cholesky(cov)
    diff = (X - mu).T
    z = scipy.linalg.solve_triangular(L, diff, lower=True)
    logdet = 2.0 * np.sum(np.log(np.diag(L)))
    n = X.shape[0]
    return 0.5 * np.sum(z ** 2) + 0.5 * n * logdet + 0.5 * n * d * np.log(2 * np.pi)


# Dirichlet log-density; Wikipedia "Dirichlet distribution":
# log Gamma(sum a) - sum log Gamma(a_i) + sum (a_i - 1) log p_i.
def dirichlet_nll(log_alpha, P):
    alpha = np.exp(log_alpha)
    return -np.sum(gammaln(alpha.sum()) - gammaln(alpha).sum() + ((alpha - 1) * np.log(P)).sum(axis=1))


# Multinomial logistic (softmax) regression; Bishop (2006) eq. 4.108, the labels as ints.
def softmax_regression_nll(W, X, labels):
    logits = X @ W
    logits = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(logits[np.arange(len(labels)), labels])


# Probit regression; Wikipedia "Probit model" (log-likelihood), log Phi by scipy.special.log_ndtr.
def probit_nll(w, X, y):
    z = X @ w
    return -np.sum(y * special.log_ndtr(z) + (1.0 - y) * special.log_ndtr(-z))


# Weibull distribution; Wikipedia "Weibull distribution":
# log f = log(k/lam) + (k - 1) log(x/lam) - (x/lam)^k.
def weibull_nll(log_params, x):
    k = np.exp(log_params[0])
    lam = np.exp(log_params[1])
    z = x / lam
    return -np.sum(np.log(k / lam) + (k - 1) * np.log(z) - z ** k)


# Laplace distribution (least absolute deviations); Wikipedia "Laplace distribution":
# log f = -log(2 b) - |x - mu| / b.
def laplace_nll(mu, log_b, x):
    b = math.exp(log_b)
    return len(x) * math.log(2 * b) + np.sum(np.abs(x - mu)) / b


# Von Mises distribution; Wikipedia "von Mises distribution": log f = kappa cos(x - mu) - log(2 pi I0(kappa)),
# with log I0(k) = log(i0e(k)) + k for stability (scipy.special.i0e).
def von_mises_nll(params, theta):
    mu, log_kappa = params
    kappa = np.exp(log_kappa)
    log_i0 = np.log(special.i0e(kappa)) + kappa
    return -np.sum(kappa * np.cos(theta - mu) - np.log(2 * np.pi) - log_i0)


# One-dimensional Gaussian mixture; Bishop (2006) eq. 9.14 (log-likelihood of a mixture),
# weights by a softmax of logits, the sum over components by logsumexp.
def gaussian_mixture_1d_nll(logit_w, mus, log_sigmas, x):
    log_w = logit_w - logsumexp(logit_w)
    sig = np.exp(log_sigmas)
    comp = (log_w[None, :] - 0.5 * ((x[:, None] - mus[None, :]) / sig[None, :]) ** 2
            - log_sigmas[None, :] - 0.5 * np.log(2 * np.pi))
    return -np.sum(logsumexp(comp, axis=1))


# Gaussian-process regression, negative log marginal likelihood with a squared-exponential
# kernel; Rasmussen & Williams (2006), Algorithm 2.1 and eq. 2.30.
def gp_neg_log_marginal_likelihood(log_params, X, y):
    ell, sf2, sn2 = np.exp(log_params)
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sq / ell ** 2) + sn2 * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = scipy.linalg.cho_solve((L, True), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


SCHOOLS_Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SCHOOLS_SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


# Eight schools, non-centred; Rubin, "Estimation in parallel randomized experiments", J. Educ.
# Stat. 6(4), 1981; Gelman et al., "Bayesian Data Analysis" 3rd ed., section 5.5 (data, table
# 5.2); priors mu ~ N(0, 5), tau ~ half-Cauchy(0, 5) on log tau (with its Jacobian), theta~ ~ N(0, 1).
def eight_schools_neg_log_posterior(z):
    mu, log_tau, theta_tilde = z[0], z[1], z[2:]
    tau = np.exp(log_tau)
    theta = mu + tau * theta_tilde
    lp = stats.norm.logpdf(SCHOOLS_Y, theta, SCHOOLS_SIGMA).sum()
    lp += stats.norm.logpdf(theta_tilde).sum()
    lp += stats.norm.logpdf(mu, 0.0, 5.0)
    lp += stats.halfcauchy.logpdf(tau, scale=5.0) + log_tau
    return -lp


# Gaussian AR(1), conditional likelihood; Hamilton, "Time Series Analysis" (1994), section 5.3:
# y_t = c + phi y_{t-1} + e_t, e_t ~ N(0, s^2).
def ar1_conditional_nll(params, y):
    c, phi, log_s = params
    resid = y[1:] - c - phi * y[:-1]
    s2 = np.exp(2 * log_s)
    T = len(resid)
    return 0.5 * T * np.log(2 * np.pi * s2) + 0.5 * np.sum(resid ** 2) / s2


# Local level model by the Kalman filter (prediction-error decomposition); Durbin & Koopman,
# "Time Series Analysis by State Space Methods", 2nd ed. (2012), section 2.2 and eq. 7.2.
def local_level_kalman_nll(log_vars, y, a0=0.0, p0=1e3):
    sigma_eps2, sigma_eta2 = np.exp(log_vars[0]), np.exp(log_vars[1])
    a, p = a0, p0
    nll = 0.0
    for t in range(len(y)):
        f = p + sigma_eps2
        v = y[t] - a
        nll += 0.5 * (np.log(2 * np.pi) + np.log(f) + v * v / f)
        k = p / f
        a = a + k * v
        p = p * (1 - k) + sigma_eta2
    return nll


# GARCH(1,1); Bollerslev, "Generalized autoregressive conditional heteroskedasticity",
# J. Econometrics 31(3), 1986: s2_t = omega + alpha r_{t-1}^2 + beta s2_{t-1}, Gaussian quasi-likelihood.
def garch11_nll(params, r):
    omega, alpha, beta = np.exp(params[0]), special.expit(params[1]), special.expit(params[2])
    s2 = np.var(r)
    nll = 0.0
    for t in range(1, len(r)):
        s2 = omega + alpha * r[t - 1] ** 2 + beta * s2
        nll = nll + 0.5 * (np.log(2 * np.pi * s2) + r[t] ** 2 / s2)
    return nll


# KL divergence between diagonal Gaussians; Kingma & Welling, "Auto-Encoding Variational Bayes"
# (2014), appendix B (closed form against N(0, I)), here general: Wikipedia "Kullback-Leibler
# divergence", multivariate normal case.
def kl_diag_gaussians(mu1, logvar1, mu2, logvar2):
    return 0.5 * np.sum(logvar2 - logvar1 + (np.exp(logvar1) + (mu1 - mu2) ** 2) / np.exp(logvar2) - 1.0)


# Cox proportional hazards, partial likelihood (Breslow, no ties); Cox, "Regression models and
# life-tables", JRSS B 34(2), 1972, eq. 12: sum over events of eta_i - log sum_{j in R(t_i)} exp(eta_j).
def cox_partial_nll(beta, X, times, events):
    eta = X @ beta
    at_risk = times[None, :] >= times[:, None]
    log_risk = np.log(np.sum(np.where(at_risk, np.exp(eta)[None, :], 0.0), axis=1))
    return -np.sum(events * (eta - log_risk))


# Zero-inflated Poisson regression; Lambert, "Zero-inflated Poisson regression, with an
# application to defects in manufacturing", Technometrics 34(1), 1992, eq. (1).
def zip_regression_nll(beta, gamma, X, y):
    lam = np.exp(X @ beta)
    pi = special.expit(X @ gamma)
    ll_zero = np.log(pi + (1 - pi) * np.exp(-lam))
    ll_pos = np.log(1 - pi) + y * np.log(lam) - lam - gammaln(y + 1)
    return -np.sum(np.where(y == 0, ll_zero, ll_pos))


# Bradley-Terry paired comparisons; Bradley & Terry, "Rank analysis of incomplete block designs:
# I. The method of paired comparisons", Biometrika 39, 1952: P(i beats j) = p_i / (p_i + p_j),
# with log-strengths and a small ridge penalty to fix the scale.
def bradley_terry_nll(log_strength, winners, losers, ridge=0.01):
    sw = log_strength[winners]
    sl = log_strength[losers]
    return -np.sum(sw - np.logaddexp(sw, sl)) + ridge * np.sum(log_strength ** 2)


# Huber regression; Huber, "Robust estimation of a location parameter", Ann. Math. Stat. 35(1),
# 1964: rho(r) = r^2/2 for |r| <= delta, delta (|r| - delta/2) otherwise.
def huber_regression(w, X, y, delta=1.0):
    r = y - X @ w
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def _regression(rng, n=12, d=3):
    X = rng.normal(size=(n, d))
    return X


def _huber_args(rng):
    X = rng.normal(size=(12, 3))
    w = rng.normal(size=3) * 0.5
    r = rng.choice([-1.0, 1.0], size=12) * rng.choice([rng.uniform(0.1, 0.8), rng.uniform(1.3, 3.0)], size=12)
    return (w, X, X @ w + r)


def _bradley_terry_args(rng):
    winners = rng.integers(0, 5, size=12)
    losers = (winners + rng.integers(1, 5, size=12)) % 5
    return (rng.normal(size=5) * 0.5, winners, losers)


def _cox_args(rng):
    X = rng.normal(size=(10, 3))
    times = rng.permutation(10).astype(float) + rng.uniform(0, 0.5, size=10)
    events = (rng.uniform(size=10) < 0.7).astype(float)
    return (rng.normal(size=3) * 0.3, X, times, events)


CASES = [
    case(normal_nll, lambda rng: (np.array([0.3, -0.2]), rng.normal(1.0, 2.0, size=20))),
    case(linear_regression_nll, lambda rng: (rng.normal(size=3), 0.3, _regression(rng), rng.normal(size=12)),
         argnums=(0, 1)),
    case(logistic_regression_nll, lambda rng: (rng.normal(size=3), 0.1, _regression(rng),
                                               (rng.uniform(size=12) < 0.5).astype(float)), argnums=(0, 1)),
    case(logistic_regression_bce, lambda rng: (rng.normal(size=3), _regression(rng),
                                               (rng.uniform(size=12) < 0.5).astype(float))),
    case(poisson_regression_nll, lambda rng: (rng.normal(size=3) * 0.3, _regression(rng),
                                              rng.poisson(2.0, size=12).astype(float))),
    case(negative_binomial_nll, lambda rng: (rng.normal(size=3) * 0.3, -0.5, _regression(rng),
                                             rng.poisson(3.0, size=12).astype(float)), argnums=(0, 1)),
    case(gamma_nll, lambda rng: (np.array([0.5, -0.3]), rng.gamma(2.0, 1.0, size=15))),
    case(beta_nll, lambda rng: (np.array([0.4, 0.7]), rng.beta(2.0, 3.0, size=15))),
    case(student_t_nll, lambda rng: (np.array([0.2, 0.1]), rng.standard_t(4.0, size=15))),
    case(mvn_nll_scipy, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(8, 3))),
         argnums=(0, 1)),
    case(mvn_nll_cholesky, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(8, 3))),
         argnums=(0, 1)),
    case(dirichlet_nll, lambda rng: (rng.normal(size=4) * 0.3, rng.dirichlet(np.ones(4) * 2.0, size=6))),
    case(softmax_regression_nll, lambda rng: (rng.normal(size=(3, 4)) * 0.5, _regression(rng),
                                              rng.integers(0, 4, size=12))),
    case(probit_nll, lambda rng: (rng.normal(size=3) * 0.5, _regression(rng),
                                  (rng.uniform(size=12) < 0.5).astype(float))),
    case(weibull_nll, lambda rng: (np.array([0.3, 0.2]), rng.weibull(1.5, size=15) + 0.05)),
    case(laplace_nll, lambda rng: (0.123, 0.2, rng.laplace(0.0, 1.0, size=15)), argnums=(0, 1)),
    case(von_mises_nll, lambda rng: (np.array([0.3, 0.5]), rng.vonmises(0.5, 2.0, size=15))),
    case(gaussian_mixture_1d_nll, lambda rng: (rng.normal(size=3), np.array([-2.0, 0.0, 2.0]) + rng.normal(size=3) * 0.1,
                                               rng.normal(size=3) * 0.2, rng.normal(size=20) * 2.0),
         argnums=(0, 1, 2)),
    case(gp_neg_log_marginal_likelihood, lambda rng: (np.array([0.0, 0.2, -2.0]), rng.uniform(-2, 2, size=(10, 2)),
                                                      rng.normal(size=10))),
    case(eight_schools_neg_log_posterior, lambda rng: (rng.normal(size=10) * 0.5,)),
    case(ar1_conditional_nll, lambda rng: (np.array([0.1, 0.5, -0.2]), np.cumsum(rng.normal(size=20)) * 0.3)),
    case(local_level_kalman_nll, lambda rng: (np.array([-0.5, -1.0]), np.cumsum(rng.normal(size=15)) * 0.5 + rng.normal(size=15))),
    case(garch11_nll, lambda rng: (np.array([-3.0, -2.0, 1.5]), rng.normal(size=20) * 0.1)),
    case(kl_diag_gaussians, lambda rng: tuple(rng.normal(size=5) * 0.5 for _ in range(4)), argnums=(0, 1, 2, 3)),
    case(cox_partial_nll, _cox_args),
    case(zip_regression_nll, lambda rng: (rng.normal(size=3) * 0.3, rng.normal(size=3) * 0.3, _regression(rng),
                                          np.where(rng.uniform(size=12) < 0.3, 0.0, rng.poisson(2.0, size=12)).astype(float)),
         argnums=(0, 1)),
    case(bradley_terry_nll, _bradley_terry_args),
    case(huber_regression, _huber_args),
]
