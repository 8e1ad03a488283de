"""Quantitative finance: option pricing (closed form, trees, Monte Carlo with fixed draws),
portfolio objectives and yield-curve fitting."""
import math

import numpy as np
from scipy.stats import norm

from ._registry import case


# Black-Scholes price of a European call; Black & Scholes, "The pricing of options and corporate
# liabilities", J. Political Economy 81(3), 1973, eq. 13; Hull, "Options, Futures, and Other
# Derivatives" (2018) section 15.8. The gradient: delta, vega, rho, theta-like sensitivities.
def black_scholes_call(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)


# The same price with math.erf for the normal CDF, as scalar code without SciPy writes it;
# Hull (2018) eq. 15.20, Phi(x) = (1 + erf(x / sqrt 2)) / 2.
def black_scholes_put_math(S, K, T, r, sigma):
    def Phi(x):
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    d1 = (math.log(S / K) + (r + sigma * sigma / 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return K * math.exp(-r * T) * Phi(-d2) - S * Phi(-d1)


# Black-Scholes prices of a strip of calls matched to market quotes (implied-volatility smile
# fit with a quadratic in moneyness); Gatheral, "The Volatility Surface" (2006) chapter 1.
def smile_fit(coeffs, S, strikes, T, r, quotes):
    m = np.log(strikes / S)
    sigma = coeffs[0] + coeffs[1] * m + coeffs[2] * m ** 2
    d1 = (np.log(S / strikes) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    prices = S * norm.cdf(d1) - strikes * np.exp(-r * T) * norm.cdf(d2)
    return np.sum((prices - quotes) ** 2)


# Cox-Ross-Rubinstein binomial tree for an American put; Cox, Ross & Rubinstein, "Option pricing:
# a simplified approach", J. Financial Economics 7(3), 1979; Hull (2018) section 21.1
# (backward induction with early exercise).
def crr_american_put(S, K, T, r, sigma, steps=12):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(steps + 1)
    values = np.maximum(K - S * u ** j * d ** (steps - j), 0.0)
    for i in range(steps - 1, -1, -1):
        j = np.arange(i + 1)
        cont = disc * (p * values[1:i + 2] + (1 - p) * values[:i + 1])
        values = np.maximum(cont, K - S * u ** j * d ** (i - j))
    return values[0]


# Monte Carlo price of an arithmetic Asian call with fixed normal draws (pathwise sensitivities);
# Glasserman, "Monte Carlo Methods in Financial Engineering" (2003), sections 3.2 and 7.2.
def asian_call_mc(S0, sigma, Z, K=1.0, r=0.02, T=1.0):
    n_paths, n_steps = Z.shape
    dt = T / n_steps
    log_paths = np.log(S0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z, axis=1)
    avg = np.exp(log_paths).mean(axis=1)
    return np.exp(-r * T) * np.mean(np.maximum(avg - K, 0.0))


# Markowitz mean-variance objective with softmax weights; Markowitz, "Portfolio selection",
# J. Finance 7(1), 1952: w' S w - lambda mu' w.
def mean_variance(logits, mu, cov, risk_aversion=3.0):
    w = np.exp(logits - logits.max())
    w /= w.sum()
    return risk_aversion * w @ cov @ w - mu @ w


# Negative Sharpe ratio of a portfolio; Sharpe, "Mutual fund performance", J. Business 39(1), 1966:
# (E[R] - r_f) / sd(R), from a sample of returns.
def neg_sharpe(w, returns, rf=0.0):
    port = returns @ w
    return -(np.mean(port) - rf) / np.std(port, ddof=1)


# Nelson-Siegel yield curve fit; Nelson & Siegel, "Parsimonious modeling of yield curves",
# J. Business 60(4), 1987, eq. 2.
def nelson_siegel_fit(params, tau, yields):
    b0, b1, b2, log_lam = params
    lam = np.exp(log_lam)
    x = tau / lam
    f = (1 - np.exp(-x)) / x
    model = b0 + b1 * f + b2 * (f - np.exp(-x))
    return np.sum((model - yields) ** 2)


# Vasicek zero-coupon bond prices fitted to observed prices; Vasicek, "An equilibrium
# characterization of the term structure", J. Financial Economics 5(2), 1977; Brigo & Mercurio,
# "Interest Rate Models" (2006) eq. 3.8: P = A exp(-B r0), B = (1 - exp(-a T))/a.
def vasicek_fit(params, r0, T, prices):
    a, b, sigma = params
    B = (1 - np.exp(-a * T)) / a
    lnA = (b - sigma ** 2 / (2 * a ** 2)) * (B - T) - sigma ** 2 * B ** 2 / (4 * a)
    return np.sum((np.exp(lnA - B * r0) - prices) ** 2)


# Conditional value-at-risk by the Rockafellar-Uryasev auxiliary function; Rockafellar & Uryasev,
# "Optimization of conditional value-at-risk", J. Risk 2(3), 2000, eq. 3 (sample form):
# F(w, a) = a + 1/((1 - beta) n) sum max(-r_i . w - a, 0).
def cvar_objective(w, a, returns, beta=0.9):
    losses = -returns @ w
    return a + np.mean(np.maximum(losses - a, 0.0)) / (1 - beta)


# Kelly criterion growth rate of a portfolio (negative expected log wealth); Kelly, "A new
# interpretation of information rate", Bell System Tech. J. 35(4), 1956; sample average.
def kelly_growth(w, returns):
    return -np.mean(np.log1p(returns @ w))


def _smile(rng):
    strikes = np.linspace(80, 120, 7)
    sig = 0.2 + 0.1 * np.log(strikes / 100) ** 2
    S, T, r = 100.0, 0.5, 0.01
    d1 = (np.log(S / strikes) + (r + 0.5 * sig ** 2) * T) / (sig * np.sqrt(T))
    quotes = S * norm.cdf(d1) - strikes * np.exp(-r * T) * norm.cdf(d1 - sig * np.sqrt(T))
    return (np.array([0.22, 0.01, 0.05]), S, strikes, T, r, quotes + rng.normal(size=7) * 0.05)


def _asian(rng):
    Z = rng.normal(size=(40, 4))
    return (1.0, 0.25, Z)


def _cvar(rng):
    returns = rng.normal(0.01, 0.05, size=(30, 4))
    w = np.full(4, 0.25)
    losses = np.sort(-returns @ w)
    a = 0.5 * (losses[26] + losses[27])     # between two sample losses: away from the kinks
    return (w, a, returns)


CASES = [
    case(black_scholes_call, lambda rng: (100.0, 105.0, 0.5, 0.02, 0.25), argnums=(0, 1, 2, 3, 4)),
    case(black_scholes_put_math, lambda rng: (100.0, 95.0, 0.75, 0.03, 0.3), argnums=(0, 1, 2, 3, 4)),
    case(smile_fit, _smile),
    case(crr_american_put, lambda rng: (100.0, 103.3, 1.0, 0.05, 0.2), argnums=(0, 4)),
    case(asian_call_mc, _asian, argnums=(0, 1)),
    case(mean_variance, lambda rng: (rng.normal(size=5) * 0.3, rng.uniform(0.02, 0.1, size=5),
                                     np.cov(rng.normal(size=(5, 20))) * 0.01)),
    case(neg_sharpe, lambda rng: (rng.dirichlet(np.ones(4)), rng.normal(0.01, 0.05, size=(25, 4)))),
    case(nelson_siegel_fit, lambda rng: (np.array([0.04, -0.02, 0.01, 0.5]), np.linspace(0.25, 10, 10),
                                         0.03 + 0.01 * rng.normal(size=10))),
    case(vasicek_fit, lambda rng: (np.array([0.5, 0.04, 0.02]), 0.03, np.linspace(0.5, 10, 10),
                                   np.exp(-0.035 * np.linspace(0.5, 10, 10)))),
    case(cvar_objective, _cvar, argnums=(0, 1)),
    case(kelly_growth, lambda rng: (rng.dirichlet(np.ones(4)) * 0.8, rng.normal(0.01, 0.05, size=(25, 4)))),
]
