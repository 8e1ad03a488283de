"""ADBench's Gaussian mixture model: its objective (the negative log-likelihood with a
Wishart prior) index-style, as Knossos' gmm.ks writes it, which catad compiles, and a loader
of ADBench's GMM files. The one copy that the benchmarks (benchmarks/adbench_gmm.py) and the
tests (tests/corpus.py, tests/papers_gmm.py, tests/test_adbench_benchmarks.py) use; it
needs NumPy only, none of the benchmarks' peers.

The objective's arguments: alphas (K,), means (K, D), qs (K, D) the log-diagonals of each
inverse Cholesky factor Q_k, ls (K, D(D-1)/2) its strictly-lower entries column by column
(read without forming a matrix), x (N, D) the points, wishart = (gamma, m).

The file format (/work/shared/data/adbench/README.md): ``D K N``; K lines of alpha; K lines of means (D
each); K lines of icf (D + D(D-1)/2 each: q, then l); N lines of points (D each; a file may
list fewer, meant to be replicated); the last line ``gamma m``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

GMM_TEST_VALUE = 8.07380408004975791  # the objective on ADBench's gmm/test.txt (D=2, K=3, N=1)


def tri(n):
    """Number of strictly-lower entries of an n x n matrix."""
    return n * (n - 1) // 2


def qtimesx(q, l, x):
    """Q @ x for Q = diag(exp(q)) + strictly-lower L, l holding L column by column."""
    d = len(q)
    return [math.exp(q[i]) * x[i]
            + sum(l[tri(d) - tri(d - j) + i - j - 1] * x[j] for j in range(i))
            for i in range(d)]


def logsumexp(v):
    """logsumexp of a list or a vector, index style."""
    m = max(v)
    return m + math.log(sum(math.exp(x - m) for x in v))


def sqnorm(v):
    return sum(x * x for x in v)


def log_gamma_distrib(a, p):
    return 0.25 * p * (p - 1) * math.log(math.pi) + sum(math.lgamma(a + 0.5 * (1 - j)) for j in range(1, p + 1))


def log_wishart_prior(wishart, q, l):
    gamma, m = wishart
    p = len(q)
    n = p + m + 1
    frobenius = sum(math.exp(qi) ** 2 for qi in q) + sum(li * li for li in l)
    c = n * p * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_distrib(0.5 * n, p)
    return 0.5 * gamma * gamma * frobenius - m * sum(q) - c


def gmm_objective(alphas, means, qs, ls, x, wishart):
    """ADBench's GMM negative log-likelihood with a Wishart prior (Knossos formulation)."""
    n, d = x.shape
    k = len(alphas)
    const = -n * d * 0.5 * math.log(2.0 * math.pi)
    main = sum(logsumexp([alphas[j] + sum(qs[j]) - 0.5 * sqnorm(qtimesx(qs[j], ls[j], x[i] - means[j]))
                          for j in range(k)])
               for i in range(n))
    prior = sum(log_wishart_prior(wishart, qs[j], ls[j]) for j in range(k))
    return const + main - n * logsumexp(alphas) + prior


@dataclass
class Gmm:
    """The data of an ADBench GMM file."""

    alphas: np.ndarray   # (K,)
    means: np.ndarray    # (K, D)
    icf: np.ndarray      # (K, D + D(D-1)/2): D log-diagonal entries of Q, then L column by column
    x: np.ndarray        # (N, D)
    wishart: tuple       # (gamma: float, m: int)

    @property
    def qs(self) -> np.ndarray:
        return np.ascontiguousarray(self.icf[:, :self.x.shape[1]])

    @property
    def ls(self) -> np.ndarray:
        return np.ascontiguousarray(self.icf[:, self.x.shape[1]:])

    def params(self) -> tuple:
        """The differentiated arguments of gmm_objective (alphas, means, qs, ls); the gradient
        of ADBench's icf is (grad qs, grad ls) side by side."""
        return self.alphas, self.means, self.qs, self.ls


def load_gmm(path, max_points: int | None = None) -> Gmm:
    """The GMM file at path (a shorter list of points is replicated to N); max_points keeps
    the first points only."""
    with open(path) as f:
        rows = [line.split() for line in f if line.strip()]
    d, k, n = (int(t) for t in rows[0])
    body = rows[1:]
    alphas = np.array([float(r[0]) for r in body[:k]])
    means = np.array([[float(t) for t in r] for r in body[k:2 * k]])
    icf = np.array([[float(t) for t in r] for r in body[2 * k:3 * k]])
    point_rows = body[3 * k:-1]
    gamma, m = body[-1]
    if means.shape != (k, d) or icf.shape != (k, d + d * (d - 1) // 2):
        raise ValueError(f"{path}: means {means.shape} or icf {icf.shape} do not match D={d}, K={k}")
    if not 1 <= len(point_rows) <= n or any(len(r) != d for r in point_rows):
        raise ValueError(f"{path}: {len(point_rows)} point lines for N={n}, D={d}")
    points = np.array([[float(t) for t in r] for r in point_rows])
    x = points[np.arange(n) % len(points)]
    if max_points is not None:
        x = x[:max_points]
    return Gmm(alphas, means, icf, np.ascontiguousarray(x), (float(gamma), int(m)))


# ---------------------------------------------------------------- the objective with loops

def qtimesx_loops(q, l, x):
    """Q @ x with loops over the columns of L and their entries below the diagonal, an entry
    at a time."""
    d = len(q)
    out = np.exp(q) * x
    for c in range(d - 1):
        start = tri(d) - tri(d - c)
        for r in range(c + 1, d):
            out[r] = out[r] + l[start + r - c - 1] * x[c]
    return out


def gmm_objective_loops(alphas, means, qs, ls, x, wishart):
    """The same objective written with for loops over the points and the components, as
    ADBench's Python (tools/Autograd/gmm_objective.py) writes it."""
    n, d = x.shape
    k = len(alphas)
    const = -n * d * 0.5 * math.log(2.0 * math.pi)
    main = 0.0
    for i in range(n):
        inner = np.zeros(k)
        for j in range(k):
            qx = qtimesx_loops(qs[j], ls[j], x[i] - means[j])
            inner[j] = alphas[j] + np.sum(qs[j]) - 0.5 * np.sum(qx * qx)
        main = main + logsumexp(inner)
    prior = 0.0
    for j in range(k):
        prior = prior + log_wishart_prior(wishart, qs[j], ls[j])
    return const + main - n * logsumexp(alphas) + prior
