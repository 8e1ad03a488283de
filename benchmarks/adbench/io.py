"""Where ADBench's data is, and a loader of its BA files (format: /work/shared/data/adbench/README.md;
the GMM loader is adbench.gmm.load_gmm)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA_DIR = Path("/work/shared/data/adbench")


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
