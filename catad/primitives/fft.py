"""The discrete Fourier transforms np.fft.fft, ifft, rfft and irfft on complex values held as
pairs of real arrays, and the actions of their derivatives, as NumPy functions (never a DFT
matrix: every action is one np.fft call, O(n log n)).

catad's types are real, so a complex array is the pair (re, im) of Float arrays of one shape
(docs/design.md, "Complex values"); a real array stands for itself. Each transform works along
one axis given from the end (axis < 0), so the same function is the reference implementation
of a primitive (catad.primitives.registry, on one value) and the code the backend calls on
values with leading batch axes (catad.backend.fft). `n` is the transform's length (the input cut
or padded with zeros to n along the axis, as NumPy does), `m` the input's own length there and
`norm` an index into NORMS. The primal functions call np.fft with the user's arguments, so their
values are NumPy's bit for bit.

Each transform is linear over the reals, so its derivative is the transform itself (forward)
and its adjoint (reverse) for the real inner product <(a, b), (c, d)> = a.c + b.d, which for a
complex-linear map is the conjugate transpose. With D the n-point DFT matrix (symmetric), s the
scale `norm` gives, P the cut or padding from m to n and K keeping the first n//2 + 1 entries:

    fft   = s D P         adjoint  g -> P^T s D^H g = cut_m(conj(fft(conj g)))
    ifft  = s D^H P       adjoint  g -> P^T s D g   = cut_m(conj(ifft(conj g)))
    rfft  = K s D P       adjoint  g -> P^T Re(s D^H K^T g) = cut_m(irfft(g / c, norm = dual(norm)))
    irfft: y_j = s sum_{k <= n//2} c_k Re(z_k w^{jk}) (w = e^{2 pi i / n}, c_0 = 1, c_{n/2} = 1
           for even n, else c_k = 2; NumPy drops Im z_0 and Im z_{n/2})
                          adjoint  g -> cut_k(c s D g) = cut_k(c rfft(g, norm = dual(norm)))

(dual swaps "backward" and "forward": s of irfft "backward" is 1/n, rfft's "forward" scale; the
rfft adjoint's g / c undoes irfft's doubling of the terms between 0 and n/2).
When the transform's input is real, the adjoint is the real part of the complex one (the
transpose of the embedding x -> x + 0i).

Tangents and cotangents may be catad's symbolic zero (a pair's part too) or sparse
(catad.tangents); the actions make them arrays first and map zero to zero.
"""
from __future__ import annotations

import numpy as np

from ..tangents import ZERO, densify

NORMS = ("backward", "ortho", "forward")
_DUAL = (2, 1, 0)
TRANSFORMS = ("fft", "ifft", "rfft", "irfft")


def _arr(x):
    """A value's or tangent's part as a Float array, None for the symbolic zero."""
    x = densify(x)
    return None if x is ZERO or x is None else np.asarray(x, dtype=np.float64)


def _parts(z):
    """(re, im) of a complex value (a pair) or a real one (im None); None when it is zero."""
    if z is ZERO:
        return None
    if isinstance(z, tuple):
        re, im = _arr(z[0]), _arr(z[1])
        return None if re is None and im is None else (re, im)
    re = _arr(z)
    return None if re is None else (re, None)


def _complex(re, im):
    """The complex array of two parts (broadcast against each other: inside vectorised builds a
    part may have size-1 batch axes), made exactly; a real array when im is None."""
    if im is None:
        return re
    if re is None:
        re = np.zeros_like(im)
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, np.complex128)
    out.real, out.imag = re, im
    return out


def _pair(c):
    return c.real, c.imag


def _points(n) -> int:
    """The transform's length. The front end checks n >= 1 where NumPy would raise; a lane that a
    condition discards (both branches are computed, one selected) may hold another n, whose
    result is never read, so it is computed at length 1 instead of raising."""
    return max(int(n), 1)


def _resize(a, m: int, axis: int):
    """a cut or padded with zeros to length m along axis (NumPy's reading of n)."""
    axis %= a.ndim
    n = a.shape[axis]
    if n >= m:
        return a[(slice(None),) * axis + (slice(0, max(m, 0)),)]
    pad = [(0, 0)] * a.ndim
    pad[axis] = (0, m - n)
    return np.pad(a, pad)


def _hermitian_weights(n: int, ndim: int, axis: int):
    """c_k of irfft's sum (1 at k = 0 and, for even n, at k = n/2; 2 between), shaped to multiply
    along axis."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = n // 2 + 1
    return w.reshape(shape)


def _np(name: str):
    return getattr(np.fft, name)


# ---------------------------------------------------------------- the transforms

def dft(name: str, z, n, axis, norm):
    """np.fft.<name>(z, n, axis, norm) of a pair or a real array: a pair, or a real array for irfft."""
    re, im = _parts(z) or (np.zeros(0), None)
    a = _complex(re, im)
    if name == "rfft":
        a = re  # rfft takes real input only (the front end passes it no pair)
    out = _np(name)(a, _points(n), axis=int(axis), norm=NORMS[int(norm)])
    return out if name == "irfft" else _pair(out)


def dft_fft(z, n, axis, norm):
    return dft("fft", z, n, axis, norm)


def dft_ifft(z, n, axis, norm):
    return dft("ifft", z, n, axis, norm)


def dft_rfft(z, n, axis, norm):
    return dft("rfft", z, n, axis, norm)


def dft_irfft(z, n, axis, norm):
    return dft("irfft", z, n, axis, norm)


# ---------------------------------------------------------------- the derivatives' actions

def dft_jvp(name: str, n, m, axis, norm, dz):
    """The forward action: the transform of the tangent (linear), 0 for the zero tangent."""
    parts = _parts(dz)
    if parts is None:
        return ZERO
    return dft(name, parts, n, axis, norm)


def dft_vjp(name: str, n, m, axis, norm, g, real: bool = False):
    """The transposed action on a cotangent g of the transform's result (a pair, or a real array
    for irfft): the cotangent of its input, a pair, or its real part when `real` (the input was
    real). See the module's docstring for each formula."""
    parts = _parts(g)
    if parts is None:
        return ZERO
    n, m, axis, norm = _points(n), int(m), int(axis), NORMS[int(norm)]
    re, im = parts
    if name in ("fft", "ifft"):
        c = np.conj(_np(name)(np.conj(_complex(re, im if im is not None else np.zeros_like(re))), n, axis=axis,
                              norm=norm))
    elif name == "rfft":
        # Re(s D^H pad_n(g)) = irfft(g / c, norm = dual): g halved at 0 < k < n/2, which irfft counts
        # twice; it drops Im g_0 and Im g_{n/2}, whose contributions to the real part are 0 anyway
        h = _complex(re, im if im is not None else np.zeros_like(re))
        h = h / _hermitian_weights(n, h.ndim, axis)
        c = _np("irfft")(h, n, axis=axis, norm=NORMS[_DUAL[NORMS.index(norm)]])
        real = True
    else:  # irfft: g is real
        c = _np("rfft")(re, n, axis=axis, norm=NORMS[_DUAL[NORMS.index(norm)]]) * _hermitian_weights(n, re.ndim, axis)
    c = _resize(c, m, axis)
    return np.ascontiguousarray(c.real) if real else _pair(c)


def _action(name: str, kind: str):
    if kind == "jvp":
        def f(n, m, axis, norm, dz):
            return dft_jvp(name, n, m, axis, norm, dz)
    else:
        real = kind == "vjp_re"

        def f(n, m, axis, norm, g):
            return dft_vjp(name, n, m, axis, norm, g, real)
    f.__name__ = f"dft_{name}_{kind}"
    f.__doc__ = f"The {kind} action of np.fft.{name}'s derivative (see catad.primitives.fft)."
    return f


ACTION_KINDS = {"fft": ("jvp", "vjp", "vjp_re"), "ifft": ("jvp", "vjp", "vjp_re"), "rfft": ("jvp", "vjp"),
                "irfft": ("jvp", "vjp", "vjp_re")}
ACTIONS = {f"{name}_{kind}": _action(name, kind) for name, kinds in ACTION_KINDS.items() for kind in kinds}

KERNELS = {f.__name__: f for f in (dft_fft, dft_ifft, dft_rfft, dft_irfft, *ACTIONS.values())}
