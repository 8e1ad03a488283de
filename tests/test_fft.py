"""np.fft's transforms and complex values as intermediates (issue 16: the corpus's spectra).

A complex value is a pair of real arrays in the front end (catad/frontend/complexes.py); fft,
ifft, rfft and irfft are primitives whose NumPy implementation calls np.fft and whose
derivative is the transform (forward) and its adjoint (reverse), each one np.fft call
(catad/primitives/fft.py). Checked here: the actions' adjointness in the reference semantics
(<J x, y> = <x, J^T y>) and that J is the transform itself; values against NumPy's, bit for bit
where NumPy computes the same thing (the transforms, sums and differences, products and
quotients by reals, Smith's quotient, angle); gradients against central differences in both
modes; n shorter and longer than the input, axes, norms, batches (comprehensions, loops),
branches; the window functions; NumPy's errors, and the located refusals of complex values
where catad takes only real ones; that nothing is a DFT matrix (a length of 2**18).
"""
from __future__ import annotations

import numpy as np
import pytest

import catad
import catad.linearmaps.terms as L
from catad.lang.terms import Const
from catad.lang.types import Float, Int, Tuple as TupleT, Vec
from catad.linearmaps.semantics import apply, apply_reverse, transpose
from catad.primitives import fft as kernels
from catad.tangents import ZERO, OneHot
from backend_programs import central_difference

RNG = np.random.default_rng(1616)
V, M = Vec(Float), Vec(Vec(Float))


def check_gradients(f, args, rtol=1e-6, atol=1e-7):
    """grad and jvp of every argument against central differences (f's value scalarised with
    random weights when it is an array), and the value against f's."""
    out = np.asarray(f(*args))
    weights = RNG.normal(size=out.shape) if out.ndim else float(RNG.normal())
    for k in range(len(args)):
        jac = central_difference(f, args, k)
        fd = np.tensordot(weights, jac, axes=out.ndim)
        g = catad.grad(_weighted(f, weights, len(args)), argnums=k)(*args)
        np.testing.assert_allclose(g, fd, rtol=rtol, atol=atol * max(1.0, np.max(np.abs(fd))))
        d = RNG.normal(size=np.shape(args[k]))
        tangents = tuple(d if j == k else np.zeros_like(a) for j, a in enumerate(args))
        value, tan = catad.jvp(f, args, tangents)
        np.testing.assert_allclose(value, out, rtol=1e-13, atol=1e-13)
        expected = np.tensordot(jac, d, axes=np.ndim(d))
        np.testing.assert_allclose(tan, expected, rtol=rtol, atol=atol * max(1.0, np.max(np.abs(expected))))


def _weighted(f, weights, n):
    if n == 1:
        def g(a):
            return np.sum(f(a) * weights)
    else:
        def g(a, b):
            return np.sum(f(a, b) * weights)
    return g


def value(f, *args):
    """The compiled function's value (the primal of a vjp)."""
    out, _ = catad.vjp(f, *args)
    return out


# ---------------------------------------------------------------------- the linear maps

def _linear(name, n, m, axis, norm, real_input):
    """d name at (n, m, axis, norm) as the lmLinear the Jacobian rule makes."""
    src = V if real_input else TupleT((V, V))
    tgt = V if name == "irfft" else TupleT((V, V))
    kinds = kernels.ACTION_KINDS[name]
    rev = f"{name}_vjp_re" if real_input and "vjp_re" in kinds else f"{name}_vjp"
    return L.Linear(f"{name}_jvp", rev, (Const(n, Int), Const(m, Int), Const(axis, Int), Const(norm, Int)), src, tgt)


def _random(real, length, rows=None):
    """A real array or a pair (re, im), of `length` along the last axis."""
    shape = (length,) if rows is None else (rows, length)
    if real:
        return RNG.normal(size=shape)
    return RNG.normal(size=shape), RNG.normal(size=shape)


def _inner(a, b):
    if isinstance(a, tuple):
        return sum(float(np.sum(x * y)) for x, y in zip(a, b))
    return float(np.sum(a * b))


CASES = [(name, real, norm, m, n) for name in ("fft", "ifft", "rfft", "irfft") for real in (True, False)
         if not (name == "rfft" and not real) for norm in (0, 1, 2) for m, n in ((6, 6), (6, 4), (5, 8), (7, 7))]


@pytest.mark.parametrize("name, real, norm, m, n", CASES)
def test_actions_are_the_transform_and_its_adjoint(name, real, norm, m, n):
    """<J x, y> = <x, J^T y> in the reference semantics, J x is the transform of x (it is linear),
    zero maps to zero, a sparse tangent acts as its dense form, and the transpose swaps the
    actions; on vectors and along each axis of a matrix."""
    for axis, rows in ((-1, None), (-1, 3), (-2, 3)):
        if axis == -2:  # the transform along the rows: m and n count rows
            shape = (m, 3)
            x = RNG.normal(size=shape) if real else (RNG.normal(size=shape), RNG.normal(size=shape))
        else:
            x = _random(real, m, rows)
        lin = _linear(name, n, m, axis, norm, real)
        y_len = n // 2 + 1 if name == "rfft" else n
        y_shape = list(np.shape(x[0] if isinstance(x, tuple) else x))
        y_shape[axis] = y_len
        y = RNG.normal(size=y_shape) if name == "irfft" else (RNG.normal(size=y_shape), RNG.normal(size=y_shape))
        if rows is not None or axis == -2:
            lin = L.Linear(lin.fwd, lin.rev, lin.args, Vec(lin.s) if real else TupleT((M, M)),
                           M if name == "irfft" else TupleT((M, M)))
        jx = apply(lin, x)
        assert _inner(jx, y) == pytest.approx(_inner(x, apply_reverse(lin, y)), rel=1e-10, abs=1e-10)
        direct = kernels.dft(name, x, n, axis, norm)
        for a, b in zip(jx if isinstance(jx, tuple) else (jx,), direct if isinstance(direct, tuple) else (direct,)):
            np.testing.assert_array_equal(a, b)
        assert apply(lin, ZERO) is ZERO and apply_reverse(lin, ZERO) is ZERO
    t = transpose(lin)
    assert isinstance(t, L.Linear) and (t.fwd, t.rev) == (lin.rev, lin.fwd)


def test_tangent_parts_may_be_zero_or_sparse():
    lin = _linear("fft", 6, 6, -1, 0, False)
    re, im = RNG.normal(size=6), RNG.normal(size=6)
    dense_re = np.zeros(6)
    dense_re[2] = re[2]
    for got, want in ((apply(lin, (ZERO, im)), apply(lin, (np.zeros(6), im))),
                      (apply(lin, (OneHot(2, re[2], 6), ZERO)), apply(lin, (dense_re, np.zeros(6)))),
                      (apply_reverse(lin, (re, ZERO)), apply_reverse(lin, (re, np.zeros(6))))):
        np.testing.assert_allclose(got[0], want[0], atol=1e-14)
        np.testing.assert_allclose(got[1], want[1], atol=1e-14)


# ---------------------------------------------------------------------- values

def fft_round_trip(x):
    return np.real(np.fft.ifft(np.fft.fft(x)))


def fft_parts(x):
    spectrum = np.fft.fft(x, n=8)
    return spectrum.real + 2.0 * spectrum.imag


def rfft_columns(m):
    return np.imag(np.fft.rfft(m, axis=0))


def irfft_halved(x):
    return np.fft.irfft(np.fft.rfft(x) * 0.5, n=len(x))


def irfft_default(x):
    return np.fft.irfft(np.fft.rfft(x))


def ortho(x):
    return np.fft.fft(x, norm="ortho").real


def forward_norm(x):
    return np.fft.ifft(x, n=5, norm="forward").imag


def quotients(x, y):
    a, b = np.fft.fft(x), np.fft.fft(y)
    return (a / b).real + (a / y).imag + (x / b).real


def conjugates(x):
    return (np.conj(np.fft.fft(x)) + np.fft.fft(x).conj() - 1j * x).imag


def angles(x):
    return np.angle(np.fft.fft(x)) + np.angle(np.fft.fft(x), deg=True)


def literals(x):
    return np.real(x * (2 + 3j)) + np.imag((1 - 2j) * x) + np.real((x + 1j) * 2.0)


def cube(x):
    z = np.fft.fft(x)
    return (z ** 3).real


def products(x, y):
    return (np.fft.fft(x) * np.fft.fft(y)).real


def modulus(x):
    return np.abs(np.fft.fft(x))


def power_rows(m):
    return np.abs(np.fft.fft(m, axis=1)) ** 2


EXACT = [(fft_round_trip, 1), (fft_parts, 1), (rfft_columns, 2), (irfft_halved, 1), (irfft_default, 1), (ortho, 1),
         (forward_norm, 1), (quotients, 1), (conjugates, 1), (angles, 1), (literals, 1), (cube, 1)]
# NumPy's SIMD loops for the complex product and modulus fuse a multiply and an add (FMA), which
# NumPy does not expose: catad's (ar br - ai bi, ...) and hypot(re, im) agree to rounding
ROUNDED = [(products, 1), (modulus, 1), (power_rows, 2)]


def _args(f, rank):
    if rank == 2:
        return (RNG.normal(size=(4, 5)),)
    n = f.__code__.co_argcount
    return tuple(RNG.normal(size=6) for _ in range(n))


@pytest.mark.parametrize("f, rank", EXACT, ids=[f.__name__ for f, _ in EXACT])
def test_values_are_numpy_s_bit_for_bit(f, rank):
    args = _args(f, rank)
    np.testing.assert_array_equal(value(f, *args), f(*args))


@pytest.mark.parametrize("f, rank", ROUNDED, ids=[f.__name__ for f, _ in ROUNDED])
def test_products_and_moduli_agree_to_rounding(f, rank):
    args = _args(f, rank)
    np.testing.assert_allclose(value(f, *args), f(*args), rtol=1e-15, atol=1e-15 * np.max(np.abs(f(*args))))


@pytest.mark.parametrize("f, rank", EXACT + ROUNDED, ids=[f.__name__ for f, _ in EXACT + ROUNDED])
def test_gradients_against_central_differences(f, rank):
    check_gradients(f, _args(f, rank))


def test_lengths_shorter_and_longer_than_the_input_and_every_norm():
    x = RNG.normal(size=7)
    for norm in (None, "backward", "ortho", "forward"):
        for n in (3, 7, 12):
            def f(v, n=n, norm=norm):
                return np.real(np.fft.fft(v, n=n, norm=norm)) * np.imag(np.fft.ifft(v, n, -1, norm)) + \
                    np.fft.irfft(np.fft.rfft(v, n=n, norm=norm), n=n, norm=norm)
            np.testing.assert_array_equal(value(f, x), f(x))
            check_gradients(f, (x,))


def test_axes_of_arrays_of_rank_three():
    t = RNG.normal(size=(2, 3, 4))

    def f(a):
        return np.abs(np.fft.rfft(a, axis=1)) ** 2 + 0.0 * np.sum(np.fft.irfft(np.fft.fft(a, axis=0), n=3, axis=0))
    check_gradients(f, (t,))


# ---------------------------------------------------------------------- in functions users write

def spectrum_match(x, target_power):  # benchmarks/corpus/signal.py's
    X = np.fft.rfft(x)
    power = np.abs(X) ** 2 / len(x)
    return np.sum((np.log(power + 1e-3) - np.log(target_power + 1e-3)) ** 2)


def deconvolution(x, kernel, observed):
    H = np.fft.fft(kernel, n=len(x))
    blurred = np.real(np.fft.ifft(np.fft.fft(x) * H))
    return np.sum((blurred - observed) ** 2)


def cross_power(x, y):
    X, Y = np.fft.rfft(x), np.fft.rfft(y)
    c = X * np.conj(Y)
    return np.sum(c).real / len(X) + np.mean(c.imag ** 2) + c.sum().imag


def windowed_spectra(frames):
    power = np.abs(np.fft.rfft(frames * np.hanning(frames.shape[1]), axis=1)) ** 2
    return np.sum(np.log(power[:, 1:] + 1e-6))


def test_corpus_style_functions():
    x, t = RNG.normal(size=16), RNG.uniform(0.5, 2.0, size=9)
    assert value(spectrum_match, x, t) == spectrum_match(x, t)
    check_gradients(spectrum_match, (x, t))
    args = (RNG.normal(size=12), np.array([0.5, 0.3, 0.2]), RNG.normal(size=12))
    g = catad.grad(deconvolution, argnums=(0, 1, 2))(*args)
    for k in range(3):
        np.testing.assert_allclose(g[k], central_difference(deconvolution, args, k), rtol=1e-6, atol=1e-7)
    check_gradients(cross_power, (RNG.normal(size=9), RNG.normal(size=9)))
    check_gradients(windowed_spectra, (RNG.normal(size=(3, 8)),))


def rows_in_a_comprehension(m):
    return sum(np.sum(np.abs(np.fft.rfft(m[i])) ** 2) for i in range(m.shape[0]))


def rows_as_an_array(m):
    p = np.array([np.abs(np.fft.fft(m[i], n=4)) for i in range(m.shape[0])])
    return np.sum(p * p)


def rows_in_a_loop(m):
    acc = 0.0
    for r in m:
        acc = acc + np.sum(np.fft.irfft(np.fft.rfft(r) * 0.5) ** 2)
    return acc


@pytest.mark.parametrize("f", [rows_in_a_comprehension, rows_as_an_array, rows_in_a_loop])
def test_batches_of_transforms(f):
    m = RNG.normal(size=(3, 6))
    assert value(f, m) == pytest.approx(f(m), rel=1e-14)
    check_gradients(f, (m,))


def transform_by_branch(x, c):
    if c > 0:
        z = np.fft.fft(x)
    else:
        z = np.fft.ifft(x) * 2.0
    return np.sum(np.abs(z) ** 2)


def real_or_complex_by_branch(x, c):
    z = x * 1.0
    if c > 0:
        z = np.fft.fft(x)
    return np.sum(np.real(z) ** 2)


def augmented(x):
    z = np.fft.fft(x)
    z *= 2.0
    z += x
    z /= 3.0
    return np.sum(z.real * z.imag)


def in_a_nested_function(x):
    def spec(v):
        return np.abs(np.fft.rfft(v)) ** 2
    return np.sum(spec(x) * spec(x * 2.0))


def slices_and_sizes(x):
    X = np.fft.rfft(x)
    return np.sum(np.abs(X[1:-1]) ** 2) / len(X) + X.shape[0] + X.ndim + X.size + np.sum(X[0:2].real)


@pytest.mark.parametrize("f, args", [(transform_by_branch, (RNG.normal(size=5), 1.0)),
                                     (transform_by_branch, (RNG.normal(size=5), -1.0)),
                                     (real_or_complex_by_branch, (RNG.normal(size=5), 1.0)),
                                     (real_or_complex_by_branch, (RNG.normal(size=5), -1.0)),
                                     (augmented, (RNG.normal(size=5),)), (in_a_nested_function, (RNG.normal(size=7),)),
                                     (slices_and_sizes, (RNG.normal(size=8),))])
def test_python_forms_around_complex_values(f, args):
    v, g = catad.value_and_grad(f)(*args)
    assert v == pytest.approx(f(*args), rel=1e-13)
    np.testing.assert_allclose(g, central_difference(f, args, 0), rtol=1e-6, atol=1e-6)


T16 = np.linspace(0.0, 1.0, 16)


def complex_exponentials(p):
    z = p[0] * np.exp(1j * p[1] * T16)  # a chirp's phasor
    w = np.log(z + 2.0) + np.sin(z) * np.cos(0.5j * z)
    return np.sum(np.real(z) ** 2 + np.imag(z)) + np.abs(np.sum(z)) + np.sum(np.abs(w)) + np.angle(np.exp(1j * p[1]))


def test_elementary_functions_of_complex_values():
    """np.exp, np.log, np.sin, np.cos of complex values (C99's formulas for finite arguments)."""
    for p in (np.array([1.0, 0.2]), np.array([0.7, -2.5])):
        v, g = catad.value_and_grad(complex_exponentials)(p)
        assert v == pytest.approx(complex_exponentials(p), rel=1e-13)
        np.testing.assert_allclose(g, central_difference(complex_exponentials, (p,), 0), rtol=1e-6, atol=1e-6)
        _, t = catad.jvp(complex_exponentials, (p,), (np.ones(2),))
        assert t == pytest.approx(float(np.sum(g)), rel=1e-10)


def test_the_squared_modulus_has_its_gradient_where_bins_are_zero():
    """|X_k|^2 is smooth at X_k = 0 (gradient 0 there): np.abs is hypot, whose partials are 0 at the
    origin, so the gradient of sum |X|^2 = n |x|^2 is 2 n x even where bins vanish."""
    x = np.array([1.0, -1.0, 1.0, -1.0])  # fft: [0, 0, 4, 0]

    def f(v):
        return np.sum(np.abs(np.fft.fft(v)) ** 2)
    np.testing.assert_allclose(catad.grad(f)(x), 8 * x)
    np.testing.assert_allclose(catad.grad(f)(np.zeros(4)), np.zeros(4))


# ---------------------------------------------------------------------- no DFT matrix

def test_a_long_transform_is_never_a_matrix():
    """n = 2**18: a DFT matrix would have 6.9e10 entries; the gradient is a few np.fft calls."""
    n = 2 ** 18
    x, t = RNG.normal(size=n), RNG.normal(size=n // 2 + 1)

    def f(v, target):
        return np.sum((np.abs(np.fft.rfft(v)) ** 2 - target) ** 2)
    g = catad.grad(f)(x, t)
    assert g.shape == (n,)
    small = (x[:32], t[:17])
    np.testing.assert_allclose(catad.grad(f)(*small), central_difference(f, small, 0), rtol=1e-6, atol=1e-6)
    rev = catad.explain(deconvolution, np.ones(8), np.ones(3), np.ones(8)).stage("reverse").text
    assert rev.count("ifft_vjp(") == 1 and rev.count("fft_vjp_re(") == 2  # one adjoint transform per transform


# ---------------------------------------------------------------------- windows

@pytest.mark.parametrize("window", [np.hanning, np.hamming, np.blackman, np.bartlett])
def test_window_functions_are_numpy_s(window):
    def f(x, m):
        return x[:m] * window(m)
    for m in (0, 1, 2, 5, 16):
        x = RNG.normal(size=16)
        np.testing.assert_array_equal(value(f, x, m), f(x, m))
        g = catad.grad(lambda v: np.sum(v[:len(v)] * window(len(v))))(x[:m])
        np.testing.assert_array_equal(g, window(m))


# ---------------------------------------------------------------------- errors

def returns_complex(x):
    return np.fft.fft(x)


def compares(x):
    return np.sum(np.fft.fft(x) > 0)


def helper(z):
    return np.sum(z)


def passes_complex(x):
    return helper(np.fft.fft(x))


def carries_complex(x):
    z = np.fft.fft(x)
    for _ in range(3):
        z = z * 2.0
    return np.sum(z.real)


def real_power(x):
    return np.sum(np.abs(np.fft.fft(x) ** 0.5))


def writes_into_complex(x):
    z = np.fft.fft(x)
    z[0] = 1.0
    return np.sum(z.real)


def rfft_of_complex(x):
    return np.sum(np.abs(np.fft.rfft(np.fft.fft(x))))


def test_complex_values_where_catad_takes_real_ones_are_located_refusals():
    x = np.arange(4.0)
    for f, says in ((returns_complex, "returns_complex would return it"), (compares, "comparing complex values"),
                    (passes_complex, "passed to helper"), (real_power, r"z \*\* k for an integer constant"),
                    (writes_into_complex, "assigning to its elements"), (rfft_of_complex, "takes a real array")):
        with pytest.raises(catad.CatadTypeError, match=says) as e:
            catad.grad(f)(x)
        assert "test_fft.py" in str(e.value)
    with pytest.raises(catad.CatadError, match="changes the complex value 'z'") as e:
        catad.grad(carries_complex)(x)
    assert "test_fft.py" in str(e.value) and "z_re, z_im" in str(e.value)
    with pytest.raises(catad.CatadTypeError, match="np.abs\\(z\\), np.abs\\(z\\) \\*\\* 2") as e:
        catad.grad(returns_complex)(x)


def fft_of_length(x, n):
    return np.sum(np.abs(np.fft.fft(x, n=n)))


def irfft_of(x):
    return np.sum(np.fft.irfft(x))


def fft_along(x):
    return np.sum(np.abs(np.fft.fft(x, axis=1)))


def fft_norm(x):
    return np.sum(np.abs(np.fft.fft(x, norm="abc")))


def fft_of_a_number(x):
    return np.sum(np.abs(np.fft.fft(x[0])))


def test_numpy_s_errors():
    x = np.arange(4.0)
    for f, args, cls, says in ((fft_of_length, (x, 0), catad.ShapeError, r"Invalid number of FFT data points \(0\)"),
                               (fft_of_length, (x, -2), catad.ShapeError, r"Invalid number of FFT data points \(-2\)"),
                               (irfft_of, (np.ones(1),), catad.ShapeError, r"Invalid number of FFT data points \(0\)"),
                               (irfft_of, (np.ones(0),), catad.ShapeError, r"Invalid number of FFT data points \(-2\)"),
                               (fft_along, (x,), catad.BoundsError, "axis 1 is out of bounds"),
                               (fft_norm, (x,), catad.ShapeError, 'Invalid norm value abc; should be "backward"')):
        with pytest.raises(cls, match=says) as e:
            catad.grad(f)(*args)
        assert "test_fft.py" in str(e.value)
        with pytest.raises(ValueError if cls is catad.ShapeError else IndexError):
            f(*args)
    with pytest.raises(catad.CatadTypeError, match="takes an array of numbers"):
        catad.grad(fft_of_a_number)(x)
    assert catad.grad(fft_of_length)(x, 3).shape == (4,)  # the same program, another n


def test_the_modulus_of_a_spectrum_is_numpy_s_to_the_last_bit():
    """np.abs of complex numbers rounds |z| otherwise than np.hypot (by an ulp, in about a third
    of the spectra below): catad's modulus is NumPy's complex abs, so its value is the function's."""
    rng = np.random.default_rng(5)
    f = catad.value_and_grad(spectrum_match)
    for _ in range(40):
        x, t = rng.normal(size=16), rng.uniform(0.5, 2.0, size=9)
        assert f(x, t)[0] == spectrum_match(x, t)
