"""ADBench's GMM objective numpy-style, for catad: whole-array operations over points and
dimensions, one comprehension over the components (as ADBench's PyTorch version stacks one
tensor per component). Each L_k is gathered from its packed vector by integer-array
indexing with `tril` (from `tril_positions`), an argument because it depends on D.

Arguments as gmm.gmm_objective, plus tril (D, D) Ints.
"""
import math

import numpy as np


def tril_positions(d: int) -> np.ndarray:
    """(d, d) Ints: the position of L[r, c] (r > c) in the packed column-by-column vector,
    -1 on and above the diagonal."""
    pos = -np.ones((d, d), dtype=np.int64)
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))  # column by column, rows ascending within a column
    pos[rows[order], cols[order]] = np.arange(len(order))
    return pos


def component_terms(alpha, mean, q, L, x):
    """alpha_k + sum(q_k) - |Q_k (x_i - mu_k)|^2 / 2 for every point x_i: (N,)."""
    xc = x - mean
    qx = xc * np.exp(q) + xc @ L.T
    return alpha + np.sum(q) - 0.5 * np.sum(qx * qx, axis=1)


def gmm_objective(alphas, means, qs, ls, x, wishart, tril):
    n, d = x.shape
    k = len(alphas)
    Ls = np.where(tril >= 0, ls[:, np.maximum(tril, 0)], 0.0)  # (K, D, D): strictly lower L_k
    inner = np.array([component_terms(alphas[j], means[j], qs[j], Ls[j], x) for j in range(k)])  # (K, N)
    top = np.max(inner, axis=0)
    main = np.sum(top + np.log(np.sum(np.exp(inner - top), axis=0)))
    amax = np.max(alphas)
    lse_alphas = amax + np.log(np.sum(np.exp(alphas - amax)))
    gamma, m = wishart
    wn = d + m + 1
    log_gamma_d = 0.25 * d * (d - 1) * math.log(math.pi) + sum(math.lgamma(0.5 * wn + 0.5 * (1 - j))
                                                               for j in range(1, d + 1))
    c = wn * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d
    prior = 0.5 * gamma * gamma * (np.sum(np.exp(qs) ** 2) + np.sum(ls ** 2)) - m * np.sum(qs) - k * c
    return -n * d * 0.5 * math.log(2.0 * math.pi) + main - n * lse_alphas + prior
