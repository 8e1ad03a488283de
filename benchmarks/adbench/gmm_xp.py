"""ADBench's GMM objective hand-written against the NumPy API, vectorised over points,
components and dimensions at once: run with xp = numpy it is the hand-written NumPy
objective; the peers (benchmarks/adbench/peers.py) run the same code with jax.numpy,
autograd.numpy and torch (whose functions accept the same calls used here).
"""
import math

import numpy as np

from .gmm_numpy import tril_positions


def wishart_constant(d: int, k: int, wishart) -> float:
    """The prior's parameter-free term: -K times ADBench's log normalising constant C."""
    gamma, m = wishart
    wn = d + m + 1
    log_gamma_d = 0.25 * d * (d - 1) * math.log(math.pi) + sum(math.lgamma(0.5 * wn + 0.5 * (1 - j))
                                                               for j in range(1, d + 1))
    return -k * (wn * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d)


class Constants:
    """What the objective needs besides the parameters and the points: the gather of L (lower,
    pos: NumPy arrays, which a peer may convert) and the parameter-free terms."""

    def __init__(self, x: np.ndarray, k: int, wishart):
        n, d = x.shape
        pos = tril_positions(d)
        self.lower = pos >= 0
        self.pos = np.maximum(pos, 0)
        self.gamma, self.m = float(wishart[0]), float(wishart[1])
        self.const = -n * d * 0.5 * math.log(2.0 * math.pi) + wishart_constant(d, k, wishart)
        self.n = n


def gmm_objective(xp, c: Constants, x, alphas, means, qs, ls):
    """The objective at points x (N, D): xp is numpy, jax.numpy, autograd.numpy or torch."""
    Ls = xp.where(c.lower, ls[:, c.pos], 0.0)                      # (K, D, D)
    xc = x[:, None, :] - means[None, :, :]                         # (N, K, D)
    qx = xp.exp(qs) * xc + xp.einsum("kij,nkj->nki", Ls, xc)       # Q_k (x_i - mu_k)
    inner = alphas + xp.sum(qs, axis=1) - 0.5 * xp.sum(qx * qx, axis=2)   # (N, K)
    top = xp.amax(inner, axis=1)
    main = xp.sum(top + xp.log(xp.sum(xp.exp(inner - top[:, None]), axis=1)))
    amax = xp.amax(alphas)
    lse_alphas = amax + xp.log(xp.sum(xp.exp(alphas - amax)))
    prior = 0.5 * c.gamma * c.gamma * (xp.sum(xp.exp(qs) ** 2) + xp.sum(ls ** 2)) - c.m * xp.sum(qs)
    return c.const + main - c.n * lse_alphas + prior


def numpy_objective(data):
    """The hand-written NumPy objective of a loaded Gmm, as a function of (alphas, means, qs, ls)."""
    c = Constants(data.x, len(data.alphas), data.wishart)
    return lambda alphas, means, qs, ls: float(gmm_objective(np, c, data.x, alphas, means, qs, ls))
