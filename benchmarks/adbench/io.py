"""Loaders of ADBench's GMM and BA text files (formats: /work/shared/data/adbench/README.md)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA_DIR = Path("/work/shared/data/adbench")
GMM_TEST_VALUE = 8.07380408004975791  # the objective on gmm/test.txt


@dataclass
class Gmm:
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
        """The differentiated arguments (alphas, means, qs, ls); the gradient of ADBench's icf is
        (grad qs, grad ls) side by side."""
        return self.alphas, self.means, self.qs, self.ls


def load_gmm(path, max_points: int | None = None) -> Gmm:
    """`D K N`, K alphas, K means, K icf rows, N points (a shorter list is replicated to N), `gamma m`;
    max_points keeps the first points only."""
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


@dataclass
class Ba:
    cams: np.ndarray     # (n, 11): rotation (Rodrigues, 3), center (3), focal (1), principal point (2), radial (2)
    X: np.ndarray        # (m, 3) points
    w: np.ndarray        # (p,) weights
    feats: np.ndarray    # (p, 2) observed features
    obs: np.ndarray      # (p, 2) Ints: camera and point of each observation

    def gathered(self) -> tuple:
        """Per-observation arrays (cams_obs (p, 11), X_obs (p, 3), w (p,), feats (p, 2))."""
        return (np.ascontiguousarray(self.cams[self.obs[:, 0]]), np.ascontiguousarray(self.X[self.obs[:, 1]]),
                self.w, self.feats)


def load_ba(path, max_obs: int | None = None) -> Ba:
    """`n m p`, then one camera, one point, one weight and one feature, replicated n, m, p times;
    observation i uses camera i mod n and point i mod m. max_obs keeps the first observations."""
    with open(path) as f:
        rows = [line.split() for line in f if line.strip()]
    n, m, p = (int(t) for t in rows[0])
    cam, pt, w, feat = ([float(t) for t in r] for r in rows[1:5])
    if (len(cam), len(pt), len(w), len(feat)) != (11, 3, 1, 2):
        raise ValueError(f"{path}: expected lines of 11, 3, 1 and 2 numbers")
    if max_obs is not None:
        p = min(p, max_obs)
    i = np.arange(p)
    return Ba(np.tile(cam, (n, 1)), np.tile(pt, (m, 1)), np.full(p, w[0]), np.tile(feat, (p, 1)),
              np.stack([i % n, i % m], axis=1))
