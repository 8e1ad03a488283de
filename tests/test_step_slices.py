"""Slices with a step, v[a:b:s], read and assigned, as Python's slice.indices reads them: every
bound and step on vectors of lengths 0 to 7 against NumPy (value, gradient, jvp), a step known
only at run time (0 is NumPy's ValueError there), 2-D and complex arrays, inside loops, and
the refusals."""
import itertools

import numpy as np
import pytest

import catad
from catad import CatadTypeError, DomainError, ShapeError
from backend_programs import load_source
from located import agrees, refused

BOUNDS = [None, -9, -1, 0, 3, 9]
STEPS = [2, 3, -1, -2, -3]


def _text(lo, hi, step):
    return f"{'' if lo is None else lo}:{'' if hi is None else hi}:{step}"


def _module(tmp_path, body):
    return load_source(f"import numpy as np\n\ndef f(x):\n{body}\n", tmp_path)


def _weights(n):
    return np.arange(1.0, n + 1)


@pytest.mark.parametrize("step", STEPS)
def test_read_every_bound(tmp_path, step):
    """x[lo:hi:step] for every pair of bounds: the elements NumPy selects, the gradient a
    scatter into exactly those places (dense, from NumPy's own index arithmetic)."""
    for lo, hi in itertools.product(BOUNDS, BOUNDS):
        s = _text(lo, hi, step)
        f = _module(tmp_path, f"    y = x[{s}]\n    return np.sum(y * y * np.arange(1, len(y) + 1))")
        for n in (0, 1, 2, 5, 6):
            x = 0.7 * _weights(n)
            value, grad = catad.value_and_grad(f)(x)
            picked = np.arange(n)[slice(lo, hi, step)]
            expected = np.zeros(n)
            expected[picked] = 2 * x[picked] * _weights(len(picked))
            assert value == pytest.approx(f(x), rel=1e-12, abs=1e-12), (s, n)
            np.testing.assert_allclose(grad, expected, rtol=1e-12, err_msg=f"{s} n={n}")


ASSIGNMENTS = ["y[{s}] = x[{s}] * 3.0", "y[{s}] = 2.5", "y[{s}] += x[:len(y[{s}])] ** 2",
               "y[{s}] = x[{s}][::-1]"]


@pytest.mark.parametrize("form", ASSIGNMENTS)
def test_assign_every_bound(tmp_path, form):
    """y[lo:hi:step] = value (and +=) against NumPy; a value of another length is NumPy's
    ValueError (catad's ShapeError is one)."""
    for k, (lo, hi, step) in enumerate(itertools.product([None, -4, 1, 9], [None, -1, 3], [2, -1, -3])):
        body = form.format(s=_text(lo, hi, step))
        f = _module(tmp_path, f"    y = x.copy() * 0.5\n    {body}\n    return np.sum(y * np.arange(1, len(y) + 1) * y)")
        for n in (0, 1, 4, 7):
            x = 0.7 * _weights(n)
            try:
                f(x)
            except ValueError as e:
                with pytest.raises(ShapeError) as info:
                    catad.grad(f)(x)
                assert str(e).split(" into")[0] in str(info.value), (body, n)
                continue
            agrees(f, x)


def two_d(m):
    a = m[::2, ::-1]
    b = m[1::2, 0]
    return np.sum(a * a) + np.sum(b * np.arange(1, len(b) + 1)) + np.sum(m[::-1, 1:3] ** 3)


def complex_parts(x):
    z = np.fft.fft(x)
    return np.sum(np.abs(z[::2]) ** 2) + np.real(z[::-1][0])


def in_loop(x):
    acc = 0.0
    y = x.copy()
    for k in range(3):
        y = y * 0.5 + y[::-1] * 0.25
        acc = acc + np.sum(y[::2] ** 2)
    return acc


def interleave(x):
    n = len(x)
    out = np.zeros(n)
    out[::2] = x[: (n + 1) // 2]
    out[1::2] = -x[(n + 1) // 2:]
    return out @ out + out[0] * out[-1]


def run_time_step(x, s):
    y = x.copy()
    y[1::s] = x[1::s] ** 2
    return np.sum(y[::s] * 2.0) + np.sum(y ** 3) + np.sum(x[::-s])


@pytest.mark.parametrize("f, shape", [(two_d, (5, 4)), (two_d, (1, 3)), (complex_parts, (7,)), (in_loop, (6,)),
                                      (interleave, (7,)), (interleave, (6,))])
def test_programs(f, shape):
    agrees(f, np.random.default_rng(3).standard_normal(shape))


@pytest.mark.parametrize("n, s", list(itertools.product((0, 1, 5, 6), (-3, -2, -1, 1, 2, 7))))
def test_step_known_at_run_time(n, s):
    agrees(run_time_step, np.random.default_rng(n).standard_normal(n), s)


def test_zero_step_at_run_time_is_numpys_value_error():
    x = np.ones(4)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        run_time_step(x, 0)
    with pytest.raises(DomainError, match="slice step cannot be zero") as info:
        catad.grad(run_time_step)(x, 0)
    assert info.value.loc.line == run_time_step.__code__.co_firstlineno + 2  # y[1::s] = x[1::s]: x's read first


def every_other_pair(x):
    return np.sum(x[::2] * x[1::2])


def test_lengths_differing_only_at_run_time():
    """x[::2] and x[1::2] have one length for an even len(x) and not for an odd one."""
    agrees(every_other_pair, np.arange(1.0, 7.0))
    with pytest.raises(ValueError) as numpy_error:
        every_other_pair(np.ones(7))
    with pytest.raises(ShapeError) as ours:
        catad.grad(every_other_pair)(np.ones(7))
    assert "(4,) (3,)" in str(numpy_error.value) and "(4,) (3,)" in str(ours.value)


def zero_step(v):
    return np.sum(v[::0])  # ERR


def float_step(v):
    return np.sum(v[::2.0])  # ERR


def test_refusals():
    refused(zero_step, (np.ones(3),), "slice step cannot be zero", cls=DomainError)
    refused(float_step, (np.ones(3),), "slice indices must be Ints", cls=CatadTypeError)


def test_reversal_is_linear_time():
    """A reversed and a strided slice of a vector of 10^6 elements: one gather and one
    scatter each, whole-array (no Python loop per element)."""
    text = [s.text for s in catad.explain(interleave, np.ones(5)).stages if s.name == "code"][0]
    assert "no Python loops" in text
    g = catad.grad(interleave)(np.arange(1.0, 1e6 + 1))
    assert g.shape == (10 ** 6,)
