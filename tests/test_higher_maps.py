"""Second derivatives through the opaque maps (issue 17): a first derivative of np.fft's
transforms or of linear algebra is made of lmLinear maps whose actions are primitives
(catad/primitives/fft.py, linalg.py); differentiated again, each action has a Jacobian of its
own (catad/ad/rules.py). Checked here: Hessians against the fourth-order central difference of
catad's gradient, their symmetry, hvp against hessian @ t, and third derivatives against central
differences of the Hessian; on every transform, norm and length, and on the linear-algebra
functions in the forms the corpus uses them.
"""
from __future__ import annotations

import numpy as np
import pytest

import catad

RNG = np.random.default_rng(1717)


def _grad_fd(f, args, k, h=1e-4):
    """d grad_k f / d args[k], by the fourth-order central difference of catad's gradient:
    shaped x.shape + x.shape (the derivative of the gradient's entry first)."""
    g = catad.grad(f, argnums=k)
    x = np.asarray(args[k], dtype=float)
    out = np.zeros(x.shape + x.shape)
    for idx in np.ndindex(x.shape):
        def at(s):
            y = x.copy()
            y[idx] += s
            return np.asarray(g(*args[:k], y if x.shape else float(y), *args[k + 1:]))
        out[(...,) + idx] = (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h)
    return out


def check_hessian(f, args, k=0, tol=1e-7):
    """catad's Hessian of f in args[k] against central differences of its gradient (to tol of the
    largest entry), symmetric to rounding, and hvp's product equal to H @ t."""
    x = np.asarray(args[k])
    H = np.asarray(catad.hessian(f, argnums=k)(*args))
    assert H.shape == x.shape + x.shape
    fd = _grad_fd(f, args, k)
    scale = max(1.0, float(np.max(np.abs(fd))))
    np.testing.assert_allclose(H, fd, rtol=0, atol=tol * scale)
    n = x.size
    M = H.reshape(n, n)
    assert np.max(np.abs(M - M.T)) <= 1e-12 * scale
    t = RNG.normal(size=x.shape)
    tangents = tuple(t if i == k else np.zeros_like(a) for i, a in enumerate(args))
    hv = np.asarray(catad.hvp(f, args, tangents, argnums=k))
    np.testing.assert_allclose(hv.reshape(n), M @ t.reshape(n), rtol=0, atol=1e-12 * scale * max(1, n))
    return H


# ---------------------------------------------------------------- np.fft

def fft_power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 3)


def ifft_cut(x):
    return np.sum(np.fft.ifft(x, n=4, norm="ortho").real ** 2 * np.fft.ifft(x, n=4).imag)


def rfft_padded(x):
    z = np.fft.rfft(x, n=11, norm="forward")
    return np.sum(np.log(np.abs(z) ** 2 + 0.1))


def irfft_of_complex(x):
    y = np.fft.irfft(np.fft.fft(x) * (1 + 0.5j), n=6)
    return np.sum(np.sin(y))


def irfft_of_real(x):
    return np.sum(np.fft.irfft(x, n=9, norm="ortho") ** 4)


def fft_of_complex(x):
    z = (np.cos(x) + 1j * x ** 2) * x
    return np.sum(np.abs(np.fft.ifft(np.fft.fft(z, norm="ortho") * x, norm="forward")) ** 2)


def fft_rows(m):
    return np.sum(np.abs(np.fft.rfft(m, axis=0)) ** 3) + np.sum(np.fft.fft(m, axis=1).imag ** 2)


def deconvolution(x, kernel, observed):  # tests/test_fft.py's
    H = np.fft.fft(kernel, n=len(x))
    blurred = np.real(np.fft.ifft(np.fft.fft(x) * H))
    return np.sum((blurred - observed) ** 4)


FFT = [(fft_power, (7,)), (ifft_cut, (6,)), (rfft_padded, (8,)), (irfft_of_complex, (6,)), (irfft_of_real, (5,)),
       (fft_of_complex, (5,)), (fft_rows, (4, 3))]


@pytest.mark.parametrize("f, shape", FFT, ids=[f.__name__ for f, _ in FFT])
def test_hessian_through_fft_equals_central_differences_of_the_gradient(f, shape):
    check_hessian(f, (RNG.normal(size=shape),))


def test_hessian_through_fft_in_each_argument():
    args = (RNG.normal(size=8), np.array([0.5, 0.3, 0.2]), RNG.normal(size=8))
    for k in range(3):
        check_hessian(deconvolution, args, k)


def test_third_derivative_through_fft():
    """The Jacobian of the Hessian (a derivative program differentiated twice) against central
    differences of the Hessian."""
    x = RNG.normal(size=5)
    third = np.asarray(catad.jacfwd(catad.hessian(rfft_padded))(x))
    H = catad.hessian(rfft_padded)
    h = 1e-4
    fd = np.zeros((5, 5, 5))
    for i in range(5):
        e = np.zeros(5)
        e[i] = h
        fd[..., i] = (-H(x + 2 * e) + 8 * H(x + e) - 8 * H(x - e) + H(x - 2 * e)) / (12 * h)
    np.testing.assert_allclose(third, fd, rtol=0, atol=1e-6 * max(1, np.max(np.abs(fd))))
