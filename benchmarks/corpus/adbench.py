"""The ADBench objectives (Srajer, Kukelova & Fitzgibbon, "A benchmark of selected algorithmic
differentiation tools on some problems in computer vision and machine learning", Optimization
Methods & Software 33(4-6), 2018; github.com/microsoft/ADBench): GMM, bundle adjustment and LSTM,
as the repository's benchmarks write them (benchmarks/adbench/) and as written here from the
paper's formulas in plain NumPy/SciPy style. Small instances of ADBench's own data
(/work/shared/data/adbench), or synthetic arguments when it is absent."""
import math
import os
import sys

import numpy as np
from scipy.special import gammaln, logsumexp

from ._registry import case

_BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _BENCH not in sys.path:
    sys.path.insert(0, _BENCH)

from adbench import gmm as _gmm            # noqa: E402
from adbench import gmm_numpy as _gmm_numpy  # noqa: E402
from adbench import ba as _ba              # noqa: E402
from adbench import lstm as _lstm          # noqa: E402
from adbench.io import DATA_DIR, load_ba   # noqa: E402

_GMM_CITE = ("ADBench GMM objective: Srajer et al. (2018) section 4.1 (negative log-likelihood of a "
             "Gaussian mixture with a Wishart prior on the inverse covariance factors); the Knossos "
             "gmm.ks formulation. Written in benchmarks/adbench/")


# ADBench GMM objective from Srajer et al. (2018) section 4.1, as ADBench's Autograd/JAX code
# writes it with SciPy: per component the inverse Cholesky factor Q = diag(exp(q)) + L (L filled
# column by column from the packed icf), log-likelihood by logsumexp, Wishart prior (gamma, m).
def gmm_scipy_style(alphas, means, icf, x, gamma, m):
    n, d = x.shape
    k = alphas.shape[0]
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))
    rows, cols = rows[order], cols[order]
    Qs = []
    for j in range(k):
        Q = np.diag(np.exp(icf[j, :d]))
        Q[rows, cols] = icf[j, d:]
        Qs.append(Q)
    Qs = np.stack(Qs)                                       # (K, D, D)
    xc = x[:, None, :] - means[None, :, :]                  # (N, K, D)
    Qxc = np.einsum("kij,nkj->nki", Qs, xc)
    sum_qs = np.sum(icf[:, :d], axis=1)
    main = logsumexp(alphas + sum_qs - 0.5 * np.sum(Qxc ** 2, axis=-1), axis=1)
    const = -n * d * 0.5 * math.log(2 * math.pi)
    nn = d + m + 1
    log_gamma_d = 0.25 * d * (d - 1) * math.log(math.pi) + np.sum(gammaln(0.5 * nn + 0.5 * (1 - np.arange(1, d + 1))))
    c = nn * d * (math.log(gamma) - 0.5 * math.log(2)) - log_gamma_d
    frob = np.sum(np.exp(icf[:, :d]) ** 2) + np.sum(icf[:, d:] ** 2)
    prior = 0.5 * gamma ** 2 * frob - m * np.sum(sum_qs) - k * c
    return const + np.sum(main) - n * logsumexp(alphas) + prior


# ADBench bundle adjustment, sum of squared residuals: Srajer et al. (2018) section 4.2
# (Rodrigues rotation, radial distortion, weighted reprojection error and the weight residual
# 1 - w^2), written per observation with np.cross as the paper's equations read.
def ba_per_observation(cams, X, w, feats):
    total = 0.0
    for i in range(len(w)):
        cam = cams[i]
        rot, center, f, x0, kappa = cam[0:3], cam[3:6], cam[6], cam[7:9], cam[9:11]
        p = X[i] - center
        theta = np.linalg.norm(rot)
        if theta > 1e-12:
            v = rot / theta
            p = (p * np.cos(theta) + np.cross(v, p) * np.sin(theta)
                 + v * np.dot(v, p) * (1 - np.cos(theta)))
        else:
            p = p + np.cross(rot, p)
        proj = p[:2] / p[2]
        r2 = np.sum(proj ** 2)
        distorted = proj * (1.0 + kappa[0] * r2 + kappa[1] * r2 * r2)
        err = w[i] * (f * distorted + x0 - feats[i])
        total += np.dot(err, err) + (1.0 - w[i] ** 2) ** 2
    return total


# ADBench bundle adjustment as benchmarks/adbench/ba.py's reprojection residual (by columns,
# np.where at theta = 0): Srajer et al. (2018) section 4.2; summed squares of both residuals.
def ba_sum_of_squares(cams, X, w, feats):
    r = _ba.reproj_error(cams, X, w, feats)
    return np.sum(r ** 2) + np.sum(_ba.weight_error(w) ** 2)


def _gmm_data():
    path = DATA_DIR / "gmm" / "1k" / "gmm_d2_K10.txt"
    if path.exists():
        return _gmm.load_gmm(path, max_points=4)
    rng = np.random.default_rng(0)
    d, k, n = 2, 4, 4
    return _gmm.Gmm(rng.normal(size=k), rng.normal(size=(k, d)), rng.normal(size=(k, d + 1)) * 0.3,
                    rng.normal(size=(n, d)), (1.0, 0))


def _gmm_index_args(rng):
    g = _gmm_data()
    return (g.alphas, g.means, g.qs, g.ls, g.x, (float(g.wishart[0]), int(g.wishart[1])))


def _gmm_numpy_args(rng):
    return _gmm_index_args(rng) + (_gmm_numpy.tril_positions(_gmm_data().x.shape[1]),)


def _gmm_scipy_args(rng):
    g = _gmm_data()
    return (g.alphas, g.means, g.icf, g.x, float(g.wishart[0]), int(g.wishart[1]))


def _ba_args(rng):
    path = DATA_DIR / "ba" / "test.txt"
    if path.exists():
        ba = load_ba(path, max_obs=3)
        cams, X, w, feats = ba.gathered()
    else:
        cams = np.tile([0.1, -0.2, 0.3, 0.1, 0.2, -5.0, 300.0, 0.1, -0.1, 1e-3, 1e-6], (3, 1))
        X, w, feats = np.tile([0.3, -0.4, 2.0], (3, 1)), np.ones(3), np.tile([10.0, -5.0], (3, 1))
    # perturb so the observations differ (the file replicates one camera, point and feature)
    cams = cams + rng.normal(size=cams.shape) * np.array([0.05] * 6 + [1.0, 0.01, 0.01, 1e-4, 1e-7])
    X = X + rng.normal(size=X.shape) * 0.05
    return (np.ascontiguousarray(cams), np.ascontiguousarray(X), w + rng.normal(size=w.shape) * 0.05, feats)


def _lstm_args(rng):
    path = DATA_DIR / "lstm" / "lstm_l2_c1024.txt"
    if path.exists():
        return _lstm.load_lstm(path, max_chars=4).args()
    l, b, c = 2, 4, 4
    return (rng.normal(size=(2 * l, 4 * b)) * 0.5, rng.normal(size=(3, b)) * 0.5, rng.normal(size=(2 * l, b)) * 0.5,
            (rng.uniform(size=(c, b)) < 0.5).astype(float))


CASES = [
    case(_gmm.gmm_objective, _gmm_index_args, argnums=(0, 1, 2, 3), name="gmm_index_style",
         citation=_GMM_CITE + "gmm.py:gmm_objective (index style, comprehensions and sum of generators)."),
    case(_gmm.gmm_objective_loops, _gmm_index_args, argnums=(0, 1, 2, 3), name="gmm_loops_style",
         citation=_GMM_CITE + "gmm.py:gmm_objective_loops (for loops, as ADBench's Python writes it)."),
    case(_gmm_numpy.gmm_objective, _gmm_numpy_args, argnums=(0, 1, 2, 3), name="gmm_numpy_style",
         citation=_GMM_CITE + "gmm_numpy.py:gmm_objective (whole-array NumPy)."),
    case(gmm_scipy_style, _gmm_scipy_args, argnums=(0, 1, 2)),
    case(ba_per_observation, _ba_args, argnums=(0, 1, 2)),
    case(ba_sum_of_squares, _ba_args, argnums=(0, 1, 2)),
    case(_lstm.lstm_objective, _lstm_args, argnums=(0, 1),
         citation=("ADBench LSTM objective: Srajer et al. (2018) section 4.3 (a two-layer LSTM language "
                   "model, mean negative log-likelihood of the next character); ADBench "
                   "src/python/modules/PyTorch/lstm_objective.py; written in benchmarks/adbench/lstm.py.")),
]
