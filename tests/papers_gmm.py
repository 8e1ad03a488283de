"""ADBench GMM for tests/test_papers.py: the arguments of an ADBench file as the objective
in ADBench's parameterisation takes them (icf rows = D log-diagonal entries of Q then the
D(D-1)/2 strictly-lower entries of L, column by column), that objective written for catad
on top of adbench.gmm (benchmarks/adbench/gmm.py), and an independent dense-matrix NumPy
reference.
"""
import math

import numpy as np

from adbench import gmm
from adbench.gmm import log_wishart_prior, logsumexp, qtimesx, sqnorm


def load_gmm(path, max_points=None):
    """(alphas (K,), means (K, D), icf (K, D + D(D-1)/2), x (N, D), (gamma, m)) of the file."""
    g = gmm.load_gmm(path, max_points)
    return g.alphas, g.means, g.icf, g.x, g.wishart


def gmm_objective_icf(alphas, means, icf, x, wishart):
    """ADBench's GMM objective with icf as ADBench stores it (catad-compilable)."""
    n, d = x.shape
    k = len(alphas)
    const = -n * d * 0.5 * math.log(2.0 * math.pi)
    main = sum(logsumexp([alphas[j] + sum(icf[j][:d])
                          - 0.5 * sqnorm(qtimesx(icf[j][:d], icf[j][d:], x[i] - means[j]))
                          for j in range(k)])
               for i in range(n))
    prior = sum(log_wishart_prior(wishart, icf[j][:d], icf[j][d:]) for j in range(k))
    return const + main - n * logsumexp(alphas) + prior


# ---------------------------------------------------------------- independent reference (NumPy, dense Q)

def _q_matrix(icf_row, d):
    q = np.diag(np.exp(icf_row[:d]))
    idx = d
    for col in range(d):
        for row in range(col + 1, d):
            q[row, col] = icf_row[idx]
            idx += 1
    return q


def _np_logsumexp(v):
    m = np.max(v)
    return m + np.log(np.sum(np.exp(v - m)))


def gmm_reference(alphas, means, icf, x, wishart):
    """ADBench gmm.cpp's objective with explicit matrices Q_k = diag(exp(q_k)) + L_k."""
    gamma, m = wishart
    n, d = x.shape
    k = len(alphas)
    qs = [_q_matrix(icf[j], d) for j in range(k)]
    sum_qs = icf[:, :d].sum(axis=1)
    main = 0.0
    for i in range(n):
        terms = np.array([alphas[j] + sum_qs[j] - 0.5 * np.sum((qs[j] @ (x[i] - means[j])) ** 2)
                          for j in range(k)])
        main += _np_logsumexp(terms)
    p = d
    wn = p + m + 1
    lgd = 0.25 * p * (p - 1) * math.log(math.pi) + sum(math.lgamma(0.5 * wn + 0.5 * (1 - j))
                                                       for j in range(1, p + 1))
    c = wn * p * (math.log(gamma) - 0.5 * math.log(2.0)) - lgd
    prior = sum(0.5 * gamma * gamma * (np.sum(np.exp(icf[j, :d]) ** 2) + np.sum(icf[j, d:] ** 2))
                - m * sum_qs[j] for j in range(k)) - k * c
    return -n * d * 0.5 * math.log(2.0 * math.pi) + main - n * _np_logsumexp(alphas) + prior
