"""The derivatives of np.linalg.svd(a, compute_uv=False) at a matrix holding an inf: NumPy's singular
values of it are NaN at once, but the derivatives ask for U and V, whose LAPACK decomposition never
returns on such a matrix (NumPy's np.linalg.svd(a) hangs there), and catad.grad hung. The
decomposition of a matrix holding an inf is NaN now (spectral.la_svd); the other matrices of a stack
keep theirs. Found by differential testing (session 18)."""
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import catad

INF = np.array([[0.0, np.inf, -0.5], [-0.5, -np.inf, 0.0], [-np.inf, -0.0, -0.5], [-1.0, -1.0, -0.5]])


def singular_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False))


def test_the_gradient_at_a_matrix_holding_an_inf_is_nan_and_does_not_hang():
    code = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(Path(catad.__file__).parents[1])!r}, {str(Path(__file__).parent)!r}]
        import numpy as np, catad
        from test_svd_nonfinite import INF, singular_values
        value, g = catad.value_and_grad(singular_values)(INF)
        _, t = catad.jvp(singular_values, (INF,), (np.ones_like(INF),))
        print(np.isnan(value), g.shape, bool(np.isnan(g).all()), np.isnan(t))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "(4,", "3)", "True", "True"]
    assert np.isnan(singular_values(INF))


def stacked_singular_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False)[1])


def test_a_finite_matrix_of_a_stack_keeps_its_gradient():
    finite = np.array([[2.0, 0.5, 0.0], [0.1, 1.0, 0.3], [0.0, 0.2, 3.0], [1.0, 0.0, 0.5]])
    g = catad.grad(stacked_singular_values)(np.stack([INF, finite]))
    u, _, vt = np.linalg.svd(finite, full_matrices=False)
    np.testing.assert_allclose(g[1], u @ vt, rtol=1e-10)
