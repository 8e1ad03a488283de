"""The gradient (and Hessian) of np.linalg.det at a singular matrix holding an inf or a nan: the
adjugate was the SVD's, which LAPACK never finishes for an inf (catad.grad hung) and fails for a
nan (a raw LinAlgError "SVD did not converge"), where np.linalg.det gives a value at once; and a
regular one's was det(A) A^-T by a solve, all nan. Such a matrix's adjugate is now its cofactors,
the determinants of its minors as np.linalg.det computes them (LU: where a nan meets a 0 it may
give 0, as det itself does). Oracles: that definition, written out here, and, wherever it is a
number, the derivative of Leibniz's formula, d det / d a_ij = sum over the permutations p with
p(i) = j of sign(p) times the product of a_k,p(k) over k != i. Found by differential testing
(session 18)."""
import itertools
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import catad


def det(a):
    return np.linalg.det(a)


def leibniz_gradient(a):
    n = a.shape[0]
    out = np.zeros((n, n))
    with np.errstate(all="ignore"):
        for p in itertools.permutations(range(n)):
            sign = np.linalg.det(np.eye(n)[list(p)])
            for i in range(n):
                out[i, p[i]] += sign * np.prod([a[k, p[k]] for k in range(n) if k != i])
    return out


def cofactors(a):
    n = a.shape[0]
    out = np.ones((n, n))
    with np.errstate(all="ignore"):
        for i, j in itertools.product(range(n), repeat=2):
            if n > 1:
                minor = a[[r for r in range(n) if r != i]][:, [c for c in range(n) if c != j]]
                out[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return out


NONFINITE = [np.array([[np.nan, 1.0], [0.0, 0.0]]),
             np.array([[np.inf, 1.0], [2.0, 0.5]]),
             np.array([[1.0, 2.0, 0.5], [np.nan, 0.0, 0.0], [0.0, 0.0, 0.0]]),
             np.array([[-np.inf, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, np.inf, 2.0]])]


@pytest.mark.parametrize("k", range(len(NONFINITE)))
def test_the_gradient_at_a_nonfinite_matrix_is_leibniz_s(k):
    a = NONFINITE[k]
    with np.errstate(all="ignore"):
        value = det(a)
        got_value, got = catad.value_and_grad(det)(a)
    np.testing.assert_array_equal(got_value, value)
    np.testing.assert_array_equal(got, cofactors(a))
    leibniz = leibniz_gradient(a)
    finite = np.isfinite(leibniz)
    np.testing.assert_array_equal(got[finite], leibniz[finite])


def test_a_singular_matrix_holding_an_inf_does_not_hang():
    code = textwrap.dedent(f"""
        import sys, warnings
        sys.path.insert(0, {str(__import__('pathlib').Path(catad.__file__).parents[1])!r})
        sys.path.insert(0, {str(__import__('pathlib').Path(__file__).parent)!r})
        warnings.simplefilter("ignore")
        import numpy as np, catad
        from test_det_nonfinite import det
        a = np.array([[-np.inf, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, np.inf, 2.0]])
        print(catad.grad(det)(a)[1, 1], catad.hessian(det)(a).shape)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["-inf", "(3,", "3,", "3,", "3)"]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_finite_matrices_keep_the_svd_s_adjugate(n):
    a = np.random.default_rng(n).normal(size=(n, n))
    a[0] = a[-1] if n > 1 else 0.0  # singular
    np.testing.assert_allclose(catad.grad(det)(a), leibniz_gradient(a), rtol=1e-10, atol=1e-12)
