"""The ADBench benchmark code (benchmarks/adbench/) on tiny inputs: the loaders, catad's
index-style and numpy-style GMM objectives and the BA residual against the hand-written NumPy
ones, catad's gradients and Jacobians against central differences. No peers, no timing."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import catad

sys.path.append(str(Path(__file__).resolve().parent.parent / "benchmarks"))  # last: see conftest.py
from adbench import ba, gmm_numpy, gmm_xp  # noqa: E402
from adbench import gmm as gmm_index  # noqa: E402  (the objective index-style, and the loader)
from adbench.gmm import GMM_TEST_VALUE, load_gmm  # noqa: E402
from adbench.io import DATA_DIR, load_ba  # noqa: E402

pytestmark = pytest.mark.skipif(not DATA_DIR.exists(), reason=f"ADBench data not found at {DATA_DIR}")


# ================================================================ GMM

def _catad_args(style, g):
    if style == "index":
        return gmm_index.gmm_objective, (*g.params(), g.x, g.wishart)
    return gmm_numpy.gmm_objective, (*g.params(), g.x, g.wishart, gmm_numpy.tril_positions(g.x.shape[1]))


@pytest.fixture(scope="module")
def gmm_test():
    return load_gmm(DATA_DIR / "gmm" / "test.txt")


@pytest.fixture(scope="module")
def gmm_small():
    return load_gmm(DATA_DIR / "gmm" / "1k" / "gmm_d10_K25.txt", max_points=3)


def test_gmm_loader(gmm_test, gmm_small):
    assert gmm_test.x.shape == (1, 2) and gmm_test.icf.shape == (3, 3) and gmm_test.wishart == (1.0, 0)
    assert gmm_small.x.shape == (3, 10) and gmm_small.qs.shape == (25, 10) and gmm_small.ls.shape == (25, 45)
    full = load_gmm(DATA_DIR / "gmm" / "1k" / "gmm_d2_K10.txt")
    assert full.x.shape == (1000, 2)


def test_tril_positions_read_l_column_by_column():
    d = 5
    pos = gmm_numpy.tril_positions(d)
    for r in range(d):
        for c in range(d):
            want = gmm_index.tri(d) - gmm_index.tri(d - c) + r - c - 1 if r > c else -1
            assert pos[r, c] == want


def test_numpy_objective_is_adbench_value(gmm_test):
    assert gmm_xp.numpy_objective(gmm_test)(*gmm_test.params()) == pytest.approx(GMM_TEST_VALUE, rel=1e-14)


def _q_matrix(q, l):
    d = len(q)
    m = np.diag(np.exp(q))
    k = 0
    for col in range(d):
        for row in range(col + 1, d):
            m[row, col] = l[k]
            k += 1
    return m


def _dense_reference(g):
    """ADBench gmm.cpp's objective point by point with explicit Q_k (independent of gmm_xp)."""
    n, d = g.x.shape
    gamma, m = g.wishart
    qs = [_q_matrix(q, l) for q, l in zip(g.qs, g.ls)]
    total = 0.0
    for i in range(n):
        terms = np.array([a + q.sum() - 0.5 * np.sum((qm @ (g.x[i] - mu)) ** 2)
                          for a, q, qm, mu in zip(g.alphas, g.qs, qs, g.means)])
        total += terms.max() + np.log(np.sum(np.exp(terms - terms.max())))
    lse = g.alphas.max() + np.log(np.sum(np.exp(g.alphas - g.alphas.max())))
    prior = 0.5 * gamma ** 2 * (np.sum(np.exp(g.qs) ** 2) + np.sum(g.ls ** 2)) - m * g.qs.sum()
    wn = d + m + 1
    lgd = 0.25 * d * (d - 1) * np.log(np.pi) + sum(math.lgamma(0.5 * wn + 0.5 * (1 - j)) for j in range(1, d + 1))
    c = wn * d * (np.log(gamma) - 0.5 * np.log(2.0)) - lgd
    return -n * d * 0.5 * np.log(2 * np.pi) + total - n * lse + prior - len(g.alphas) * c


def test_numpy_objective_against_dense_reference(gmm_small):
    assert gmm_xp.numpy_objective(gmm_small)(*gmm_small.params()) == pytest.approx(_dense_reference(gmm_small),
                                                                                   rel=1e-12)


@pytest.mark.parametrize("style", ["index", "numpy"])
@pytest.mark.parametrize("which", ["gmm_test", "gmm_small"])
def test_catad_gmm_objective_and_gradient(style, which, request):
    g = request.getfixturevalue(which)
    fn, args = _catad_args(style, g)
    params = g.params()
    objective = gmm_xp.numpy_objective(g)
    value, grads = catad.value_and_grad(fn, argnums=(0, 1, 2, 3))(*args)
    assert value == pytest.approx(objective(*params), rel=1e-12)
    assert fn(*args) == pytest.approx(value, rel=1e-12)  # the Python function itself
    rng = np.random.default_rng(0)
    for a, p in enumerate(params):
        for i in rng.choice(p.size, size=min(p.size, 4), replace=False):
            h = 1e-6 * max(1.0, abs(p.flat[i]))
            plus, minus = [q.copy() for q in params], [q.copy() for q in params]
            plus[a].flat[i] += h
            minus[a].flat[i] -= h
            cd = (objective(*plus) - objective(*minus)) / (2 * h)
            assert grads[a].flat[i] == pytest.approx(cd, rel=1e-6, abs=1e-7 * max(1.0, abs(value)))


def test_catad_gmm_styles_agree(gmm_small):
    (fi, ai), (fn, an) = _catad_args("index", gmm_small), _catad_args("numpy", gmm_small)
    gi = catad.grad(fi, argnums=(0, 1, 2, 3))(*ai)
    gn = catad.grad(fn, argnums=(0, 1, 2, 3))(*an)
    for a, b in zip(gi, gn):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10 * np.max(np.abs(b)))


# ================================================================ BA

@pytest.fixture(scope="module")
def ba_inputs():
    """Three observations of test.txt and two of ba1, one of them without rotation (theta = 0)."""
    cams, X, w, feats = (np.concatenate(parts) for parts in zip(
        load_ba(DATA_DIR / "ba" / "test.txt", 3).gathered(),
        load_ba(DATA_DIR / "ba" / "ba1_n49_m7776_p31843.txt", 2).gathered()))
    cams[4, 0:3] = 0.0
    return cams, X, w * np.array([1.0, 0.5, 2.0, 1.0, 1.5]), feats


def test_ba_loader():
    data = load_ba(DATA_DIR / "ba" / "ba1_n49_m7776_p31843.txt")
    assert data.cams.shape == (49, 11) and data.X.shape == (7776, 3) and data.w.shape == (31843,)
    assert data.feats.shape == (31843, 2) and data.obs[-1].tolist() == [31842 % 49, 31842 % 7776]
    cams, X, w, feats = load_ba(DATA_DIR / "ba" / "test.txt", 4).gathered()
    assert cams.shape == (4, 11) and X.shape == (4, 3) and w.shape == (4,) and feats.shape == (4, 2)


def test_ba_catad_residual_is_numpy_residual(ba_inputs):
    reproj, werr = ba.numpy_residuals(*ba_inputs)
    np.testing.assert_allclose(ba.reproj_error(*ba_inputs), reproj, rtol=1e-12)  # the Python function itself
    np.testing.assert_allclose(catad.vjp(ba.reproj_error, *ba_inputs)[0], reproj, rtol=1e-12)
    np.testing.assert_allclose(catad.vjp(ba.weight_error, ba_inputs[2])[0], werr, rtol=1e-12)


def test_ba_catad_jacobian_against_central_differences(ba_inputs):
    J, jw = ba.catad_jacobian(*ba_inputs)
    Jc, jwc = ba.central_difference_jacobian(*ba_inputs)
    assert J.shape == (5, 2, 15) and jw.shape == (5,)
    np.testing.assert_allclose(J, Jc, rtol=1e-6, atol=1e-6 * np.max(np.abs(Jc)))
    np.testing.assert_allclose(jw, -2 * ba_inputs[2], rtol=1e-14)
    np.testing.assert_allclose(jwc, jw, rtol=1e-8)


def test_ba_vjp_trick_is_the_full_jacobian(ba_inputs):
    """The per-observation blocks are the nonzero entries of catad's full Jacobian."""
    cams, X, w, feats = (a[:2] for a in ba_inputs)
    full = catad.jacobian(ba.reproj_error, argnums=(0, 1, 2))(cams, X, w, feats)   # (2, 2, 2, n_i) blocks
    J, _ = ba.catad_jacobian(cams, X, w, feats)
    for i in range(2):
        for other in range(2):
            block = np.hstack([full[0][i, :, other], full[1][i, :, other], full[2][i, :, other][:, None]])
            np.testing.assert_allclose(block, J[i] if other == i else 0.0, rtol=1e-12, atol=1e-12)
