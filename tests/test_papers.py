"""The papers' worked examples (/work/shared/seeds/), reproduced through catad.

* seed 000 (Smeding and Vakar), Fig. 1: ``z = x + y; return x * z`` at (3, 4) has
  gradient (10, 3); Fig. 1(b)'s forward derivative ``x * dz + z * dx``; Fig. 2's doubling
  chain, whose gradient 2^n must come out exactly and without exponential work;
* seed 001, Section 6.1: ``t_ex`` over a pair: d/dx1 = 2 x1 + x2 + 1, d/dx2 = x1 + 1;
* seed 004 (the Knossos notes), Section 9: f2'(x) = 3x^2 + 4x^3 (the notes print a wrong
  optimised Jacobian, 4x^2 + 4x^3; catad must not reproduce it);
* seed 002 (Krawiec et al.), Fig. 12: rotating a vector by a quaternion; the Jacobian
  against central differences and SymPy, the gradient of ``e`` against the figure's Delta;
* ADBench GMM (/work/shared/data/adbench/gmm): the objective on test.txt is
  8.07380408004975791; the gradient against central differences.
"""
import importlib.util
import sys

import numpy as np
import pytest
import sympy

import catad
import papers_examples as P
from corpus import gmm_objective
from papers_gmm import gmm_objective_icf, gmm_reference, load_gmm

GMM_DIR = "/work/shared/data/adbench/gmm"
GMM_TEST_VALUE = 8.07380408004975791


def central(fn, x, h=1e-6):
    """Central differences of a float-valued fn at a float vector x."""
    g = np.zeros(len(x))
    for i in range(len(x)):
        xp, xm = np.array(x, dtype=float), np.array(x, dtype=float)
        xp[i] += h
        xm[i] -= h
        g[i] = (fn(xp) - fn(xm)) / (2 * h)
    return g


# ================================================================ seed 000, Fig. 1 and Fig. 2

def test_fig1_gradient_at_3_4():
    g = catad.grad(P.fig1, argnums=(0, 1))(3.0, 4.0)
    assert g == (10.0, 3.0)
    value, gx = catad.value_and_grad(P.fig1)(3.0, 4.0)
    assert value == 21.0 and gx == 10.0
    out, vjp_fn = catad.vjp(P.fig1, 3.0, 4.0)
    assert vjp_fn(1.0) == (10.0, 3.0)
    out, lm = catad.linearize(P.fig1, 3.0, 4.0)
    np.testing.assert_array_equal(lm.to_matrix(), [[10.0, 3.0]])


@pytest.mark.parametrize("x, y, dx, dy", [(3.0, 4.0, 1.0, 0.0), (3.0, 4.0, 0.0, 1.0), (-1.5, 0.25, 0.7, -2.0),
                                          (2.0, -5.0, 1.0, 1.0)])
def test_fig1b_forward_derivative(x, y, dx, dy):
    # Fig. 1(b): (z, dz) = (x + y, dx + dy); result (x * z, x * dz + z * dx)
    z, dz = x + y, dx + dy
    out, t = catad.jvp(P.fig1, (x, y), (dx, dy))
    assert out == x * z
    assert t == pytest.approx(x * dz + z * dx, rel=1e-15, abs=1e-15)


def _doubling_chain(n, tmp_path):
    """Fig. 2(left): x1 = x0 + x0; ...; xn = x(n-1) + x(n-1); return xn (as a module file)."""
    lines = ["def chain(x):"] + ["    x = x + x" for _ in range(n)] + ["    return x", ""]
    path = tmp_path / f"papers_chain_{n}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(f"papers_chain_{n}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.chain


def test_fig2_doubling_chain_is_exact_and_not_exponential(tmp_path):
    # Naive dual-numbers reverse AD takes time 2^n here; 2^1000 steps would never finish.
    n = 1000
    chain = _doubling_chain(n, tmp_path)
    value, g = catad.value_and_grad(chain)(1.5)
    assert value == 1.5 * 2.0 ** n
    assert g == 2.0 ** n
    out, t = catad.jvp(chain, (1.5,), (1.0,))
    assert t == 2.0 ** n


# ================================================================ seed 001, Section 6.1

@pytest.mark.parametrize("fn", [P.t_ex, P.t_ex_unpacked])
@pytest.mark.parametrize("x1, x2", [(1.0, 2.0), (3.0, -4.0), (-0.5, 0.25), (0.0, 0.0)])
def test_section_6_1_t_ex(fn, x1, x2):
    value, g = catad.value_and_grad(fn)((x1, x2))
    x3 = x1 + x2
    assert value == x3 * x1 + x3
    assert isinstance(g, tuple) and len(g) == 2
    assert g[0] == pytest.approx(2 * x1 + x2 + 1, rel=1e-15, abs=1e-15)
    assert g[1] == pytest.approx(x1 + 1, rel=1e-15, abs=1e-15)
    # and as SymPy differentiates the exported expression
    expr, (syms,) = catad.to_sympy(fn, (x1, x2))
    at = {syms[0]: x1, syms[1]: x2}
    for k in range(2):
        assert g[k] == pytest.approx(float(sympy.diff(expr, syms[k]).subs(at)), rel=1e-14, abs=1e-14)


# ================================================================ seed 004, Section 9: f2

F2_POINTS = [-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 1.7, 2.5]


def f2_true_derivative(x):
    return 3 * x ** 2 + 4 * x ** 3


@pytest.mark.parametrize("x", F2_POINTS)
def test_f2_jacobian_grad_jvp(x):
    expected = f2_true_derivative(x)
    jac = catad.jacobian(P.f2)(x)
    assert np.shape(jac) == ()
    assert float(jac) == pytest.approx(expected, rel=1e-14, abs=1e-14)
    assert catad.grad(P.f2)(x) == pytest.approx(expected, rel=1e-14, abs=1e-14)
    out, t = catad.jvp(P.f2, (x,), (2.0,))
    assert out == pytest.approx(x ** 4 + x ** 3, rel=1e-14, abs=1e-14)
    assert t == pytest.approx(2.0 * expected, rel=1e-14, abs=1e-14)
    out, lm = catad.linearize(P.f2, x)
    assert lm.to_matrix()[0, 0] == pytest.approx(expected, rel=1e-14, abs=1e-14)
    assert lm.T(1.0)[0] == pytest.approx(expected, rel=1e-14, abs=1e-14)


def test_f2_is_not_the_notes_printed_jacobian():
    # The notes print lmScale((x + y) * (x + x) + (x + y) * (x + x)) = 4x^2 + 4x^3: wrong by x^2.
    for x in (1.0, -0.5, 2.0):
        printed = P.f2_notes_printed_derivative(x)
        assert printed == pytest.approx(4 * x ** 2 + 4 * x ** 3)
        assert catad.grad(P.f2)(x) != pytest.approx(printed)
    assert catad.grad(P.f2)(1.0) == 7.0


def test_f2_against_sympy():
    expr, (x,) = catad.to_sympy(P.f2, 1.0)
    assert sympy.expand(sympy.diff(expr, x) - (3 * x ** 2 + 4 * x ** 3)) == 0


# ================================================================ seed 002, Fig. 12

QUAT_POINTS = [
    (P.FIG12_Q0, P.FIG12_V0),
    ((0.5, -0.5, 0.5, 0.5), (1.0, 2.0, 3.0)),                 # a unit quaternion
    ((0.1, 0.7, -0.3, 0.64), (-0.4, 0.25, 1.5)),
    ((-1.2, 0.3, 0.8, -0.2), (0.0, -1.0, 2.5)),
]


def _rotate_flat(z):
    """rotate_vec_by_quat on a flat vector (v, q) of 7 numbers, as a NumPy array."""
    return np.array(P.rotate_vec_by_quat(tuple(z[:3]), tuple(z[3:])))


def _quat_sympy_jacobian(v, q):
    expr, (vs, qs) = catad.to_sympy(P.rotate_vec_by_quat, v, q)
    syms = list(vs) + list(qs)
    at = dict(zip(syms, list(v) + list(q)))
    return np.array([[float(sympy.diff(e, s).subs(at)) for s in syms] for e in expr]), expr, syms


@pytest.mark.parametrize("q, v", QUAT_POINTS)
def test_fig12_quaternion_jacobian(q, v):
    out, lm = catad.linearize(P.rotate_vec_by_quat, v, q)
    assert isinstance(out, tuple) and len(out) == 3
    np.testing.assert_allclose(out, P.rotate_vec_by_quat(v, q), rtol=1e-14)
    jac = lm.to_matrix()
    assert jac.shape == (3, 7)
    z = np.array(list(v) + list(q))
    cd = np.stack([central(lambda w, r=r: _rotate_flat(w)[r], z) for r in range(3)])
    np.testing.assert_allclose(jac, cd, rtol=1e-5, atol=1e-6)
    sym_jac, expr, syms = _quat_sympy_jacobian(v, q)
    np.testing.assert_allclose(jac, sym_jac, rtol=1e-12, atol=1e-12)
    # the SymPy export is the textbook formula  2(u.v)u + (s^2 - u.u)v + 2s(u x v)
    vx, vy, vz, qx, qy, qz, qw = syms
    uv = qx * vx + qy * vy + qz * vz
    uu = qx * qx + qy * qy + qz * qz
    book = (2 * uv * qx + (qw ** 2 - uu) * vx + 2 * qw * (qy * vz - qz * vy),
            2 * uv * qy + (qw ** 2 - uu) * vy + 2 * qw * (qz * vx - qx * vz),
            2 * uv * qz + (qw ** 2 - uu) * vz + 2 * qw * (qx * vy - qy * vx))
    for e, b in zip(expr, book):
        assert sympy.expand(e - b) == 0
    # vjp row by row and jvp column by column agree with the matrix
    _, vjp_fn = catad.vjp(P.rotate_vec_by_quat, v, q)
    for r in range(3):
        ct = tuple(1.0 if k == r else 0.0 for k in range(3))
        gv, gq = vjp_fn(ct)
        np.testing.assert_allclose(list(gv) + list(gq), jac[r], rtol=1e-13, atol=1e-13)
    for c in range(7):
        t = [0.0] * 7
        t[c] = 1.0
        _, col = catad.jvp(P.rotate_vec_by_quat, (v, q), (tuple(t[:3]), tuple(t[3:])))
        np.testing.assert_allclose(col, jac[:, c], rtol=1e-13, atol=1e-13)


def test_fig12_gradient_equals_the_figures_delta():
    # e = fun q v -> (rotate_vec_by_quat v q).x at q0 = (1.1, 2.2, 3.3, 4.4), v0 = (5.5, 6.6, 7.7):
    # the figure's Delta evaluates to the seven derivative entries.
    expected = P.eval_delta(P.FIG12_DELTA, P.FIG12_INPUTS, P.FIG12_RESULT)
    gq, gv = catad.grad(P.fig12_e, argnums=(0, 1))(P.FIG12_Q0, P.FIG12_V0)
    assert isinstance(gq, tuple) and len(gq) == 4 and isinstance(gv, tuple) and len(gv) == 3
    np.testing.assert_allclose(list(gq) + list(gv), expected, rtol=1e-12, atol=1e-12)
    # and the entries by hand: d/dqx = 2 vx qx + 2 u.v - 2 qx vx = 2 u.v = 91.96, ...
    np.testing.assert_allclose(expected, [91.96, 58.08, -77.44, 38.72, 4.84, -24.2, 26.62], rtol=1e-12)


@pytest.mark.parametrize("q, v", QUAT_POINTS)
def test_fig12_norm_of_rotation(q, v):
    g = catad.grad(P.rotated_norm, argnums=(0, 1))(q, v)
    z = np.array(list(q) + list(v))
    cd = central(lambda w: P.rotated_norm(tuple(w[:4]), tuple(w[4:])), z)
    np.testing.assert_allclose(list(g[0]) + list(g[1]), cd, rtol=1e-5, atol=1e-6)
    # a rotation by q scales lengths by |q|^2
    qn = sum(c * c for c in q)
    assert P.rotated_norm(q, v) == pytest.approx(qn * P.norm(v), rel=1e-12)


# ================================================================ ADBench GMM

@pytest.fixture(scope="module")
def gmm_test():
    return load_gmm(f"{GMM_DIR}/test.txt")


def test_gmm_test_file_shape(gmm_test):
    alphas, means, icf, x, wishart = gmm_test
    assert alphas.shape == (3,) and means.shape == (3, 2) and icf.shape == (3, 3) and x.shape == (1, 2)
    assert wishart == (1.0, 0)


def test_gmm_objective_value(gmm_test):
    assert gmm_reference(*gmm_test) == pytest.approx(GMM_TEST_VALUE, rel=1e-10)
    assert gmm_objective_icf(*gmm_test) == pytest.approx(GMM_TEST_VALUE, rel=1e-10)
    value, _ = catad.value_and_grad(gmm_objective_icf)(*gmm_test)
    assert isinstance(value, float)
    assert value == pytest.approx(GMM_TEST_VALUE, rel=1e-10)


def _gmm_flat(params, shapes):
    out, k = [], 0
    for s in shapes:
        size = int(np.prod(s))
        out.append(np.asarray(params[k:k + size]).reshape(s))
        k += size
    return out


def _check_gmm_gradient(data, coords=None, h=1e-6):
    alphas, means, icf, x, wishart = data
    value, (ga, gm, gi) = catad.value_and_grad(gmm_objective_icf, argnums=(0, 1, 2))(*data)
    assert ga.shape == alphas.shape and gm.shape == means.shape and gi.shape == icf.shape
    assert value == pytest.approx(gmm_reference(*data), rel=1e-12)
    shapes = [alphas.shape, means.shape, icf.shape]
    z = np.concatenate([alphas.ravel(), means.ravel(), icf.ravel()])
    g = np.concatenate([ga.ravel(), gm.ravel(), gi.ravel()])
    if coords is None:
        coords = np.arange(len(z))
    cd = np.zeros(len(coords))
    for c, i in enumerate(coords):
        zp, zm = z.copy(), z.copy()
        zp[i] += h
        zm[i] -= h
        cd[c] = (gmm_reference(*_gmm_flat(zp, shapes), x, wishart)
                 - gmm_reference(*_gmm_flat(zm, shapes), x, wishart)) / (2 * h)
    np.testing.assert_allclose(g[coords], cd, rtol=1e-5, atol=1e-6)
    return g, cd


def test_gmm_gradient_all_18_coordinates(gmm_test):
    g, cd = _check_gmm_gradient(gmm_test)
    assert len(g) == 18


def test_gmm_gradient_agrees_with_split_formulation(gmm_test):
    alphas, means, icf, x, wishart = gmm_test
    d = x.shape[1]
    gi = catad.grad(gmm_objective_icf, argnums=2)(*gmm_test)
    ga, gm, gq, gl = catad.grad(gmm_objective, argnums=(0, 1, 2, 3))(alphas, means, icf[:, :d], icf[:, d:], x,
                                                                     wishart)
    np.testing.assert_allclose(gi, np.hstack([gq, gl]), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(ga, catad.grad(gmm_objective_icf)(*gmm_test), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name, points", [("1k/gmm_d2_K10.txt", 4), ("1k/gmm_d10_K25.txt", 2)])
def test_gmm_gradient_on_larger_adbench_inputs(name, points):
    data = load_gmm(f"{GMM_DIR}/{name}", max_points=points)
    alphas, means, icf, _, _ = data
    na, nm, ni = alphas.size, means.size, icf.size
    rng = np.random.default_rng(0)
    coords = np.concatenate([rng.choice(na, size=min(na, 8), replace=False),
                             na + rng.choice(nm, size=min(nm, 12), replace=False),
                             na + nm + rng.choice(ni, size=min(ni, 20), replace=False)])
    _check_gmm_gradient(data, coords)
