"""check_like_numpy: the user's own function, run by NumPy, is the oracle for catad.

    check_like_numpy(fn, *args)

runs ``fn(*args)`` with NumPy (under ``np.errstate(all="ignore")``) and then catad on the
same arguments:

- NumPy raised a ValueError (broadcasting, matmul, dot, ...): every catad entry point
  (grad and value_and_grad for float-valued fn, vjp's primal, jvp, jacobian) must raise
  ``catad.ShapeError``, whose message names fn's file and the line of the offending
  expression and the shapes as NumPy prints them ("(3,)", "(2, 3)" or "(2,3)"); the shapes are
  taken from NumPy's own message, or (when NumPy's message has none, as for matmul) are
  the shapes of fn's array arguments, unless given with ``shapes=``.
- NumPy raised an IndexError: ``catad.BoundsError`` naming the file and line.
  An AxisError (NumPy's is a ValueError and an IndexError) may be either.
- Otherwise catad's value (vjp's primal, value_and_grad's value, jvp's output) equals
  NumPy's to 1e-12 relative, with NumPy's shape; the derivative with respect to every
  float argument has that argument's shape and equals central differences of fn itself
  (grad for float-valued fn; vjp with a random cotangent and jacobian for array-valued
  fn); jvp equals the directional central difference; and <J t, c> = <t, J^T c>.

The line expected in an error message is the line marked with a ``# <-`` comment in fn's
source if there is one, else any line of fn's body (write the offending expression on a
line of its own, or mark it), unless given with ``line=``.

Any ValueError from fn counts as a shape error and any IndexError as a bounds error: do
not use functions that raise others (math.log(-1.0), max() of an empty sequence).

fn must be a module-level def (catad reads its source). Use smooth operations and inputs
away from kinks (positive bases for ``**``, denominators away from 0, operands of
comparisons that are not within the step of each other).
"""
from __future__ import annotations

import inspect
import os
import re
from typing import Any, Callable, Sequence

import numpy as np

import catad
from catad.lang.types import Float

H = 1e-6           # central-difference step
FD_RTOL = 1e-5     # derivatives against central differences
FD_ATOL = 1e-6
VALUE_RTOL = 1e-12  # values against NumPy
VALUE_ATOL = 1e-13
IDENTITY_RTOL = 1e-10  # <J t, c> = <t, J^T c>: both sides are catad's, no differencing

AxisError = getattr(getattr(np, "exceptions", None), "AxisError", None) or getattr(np, "AxisError")

# NumPy prints (2, 3) in reprs and (2,3) in broadcast errors: either spelling is accepted
_SHAPE_RE = re.compile(r"\(\)|\(\d+,\)|\(\d+(?:, ?\d+)+\)")


# ---------------------------------------------------------------- inputs

def rand(rng: np.random.Generator, shape: Sequence[int], low: float = 0.5, high: float = 1.5) -> Any:
    """A float (shape ()) or a float array of `shape`, uniform in [low, high)."""
    shape = tuple(shape)
    if shape == ():
        return float(rng.uniform(low, high))
    return rng.uniform(low, high, size=shape)


def is_float_arg(a: Any) -> bool:
    if isinstance(a, (bool, np.bool_)):
        return False
    if isinstance(a, (float, np.floating)):
        return True
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def float_argnums(args: Sequence) -> tuple[int, ...]:
    return tuple(k for k, a in enumerate(args) if is_float_arg(a))


def _copy(args: Sequence) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _run(fn: Callable, args: Sequence) -> Any:
    with np.errstate(all="ignore"):
        return fn(*_copy(args))


def describe(fn: Callable, args: Sequence) -> str:
    """fn(shape, shape, ...) with the arguments' shapes (ints and bools by value)."""
    parts = [str(a.shape) if isinstance(a, np.ndarray) else "()" if is_float_arg(a) else repr(a) for a in args]
    return f"{getattr(fn, '__name__', 'fn')}({', '.join(parts)})"


def _with(args: Sequence, k: int, value: Any) -> tuple:
    out = list(args)
    out[k] = value
    return tuple(out)


# ---------------------------------------------------------------- central differences

def fd_jacobian(fn: Callable, args: Sequence, k: int, h: float = H) -> np.ndarray:
    """d fn / d args[k] by central differences, shaped out.shape + args[k].shape."""
    a = args[k]
    out_shape = np.shape(_run(fn, args))
    if np.ndim(a) == 0:
        plus = np.asarray(_run(fn, _with(args, k, float(a) + h)), dtype=float)
        minus = np.asarray(_run(fn, _with(args, k, float(a) - h)), dtype=float)
        return (plus - minus) / (2 * h)
    jac = np.zeros(out_shape + a.shape)
    for idx in np.ndindex(a.shape):
        ap, am = a.copy(), a.copy()
        ap[idx] += h
        am[idx] -= h
        plus = np.asarray(_run(fn, _with(args, k, ap)), dtype=float)
        minus = np.asarray(_run(fn, _with(args, k, am)), dtype=float)
        jac[(Ellipsis,) + idx] = (plus - minus) / (2 * h)
    return jac


def _contract_out(c: Any, jac: np.ndarray, out_ndim: int) -> np.ndarray:
    """sum over the output axes of c * jac (J^T c for one argument)."""
    return np.tensordot(np.asarray(c, dtype=float), jac, axes=out_ndim)


def _contract_in(jac: np.ndarray, t: Any) -> np.ndarray:
    """sum over the input axes of jac * t (J t for one argument)."""
    t = np.asarray(t, dtype=float)
    return np.tensordot(jac, t, axes=t.ndim)


# ---------------------------------------------------------------- errors

def _expected_error(exc: BaseException):
    if isinstance(exc, AxisError):
        return (catad.ShapeError, catad.BoundsError)
    if isinstance(exc, IndexError):
        return catad.BoundsError
    if isinstance(exc, ValueError):
        return catad.ShapeError
    return None


def _source_lines(fn: Callable) -> tuple[str, list[int]]:
    """(file's base name, the lines an error in fn may be reported at)."""
    src, start = inspect.getsourcelines(fn)
    marked = [start + i for i, text in enumerate(src) if "# <-" in text]
    body = [start + i for i, text in enumerate(src)
            if i > 0 and text.strip() and not text.lstrip().startswith(("#", '"""'))]
    return os.path.basename(inspect.getsourcefile(fn)), marked or body


def _check_message(err: BaseException, fn: Callable, lines: Sequence[int], shapes: Sequence[str], what: str):
    msg = str(err)
    fname, _ = _source_lines(fn)
    assert any(re.search(rf"{re.escape(fname)}:{ln}(?!\d)", msg) for ln in lines), (
        f"{what}: the message does not name {fname} at line {' or '.join(map(str, lines))}: {msg!r}")
    for s in shapes:
        assert s.replace(" ", "") in msg.replace(" ", ""), f"{what}: the message does not name the shape {s}: {msg!r}"


def _result_is_float(fn: Callable, args: Sequence) -> bool:
    """Does catad type fn's result as a Float? (True also when compiling fails: then grad
    must report the same error as everything else.)"""
    try:
        return catad.to_core(fn, *args).main.result_type == Float
    except catad.CatadError:
        return True


def _entry_points(fn: Callable, args: Sequence, rng: np.random.Generator) -> dict[str, Callable[[], Any]]:
    fl = float_argnums(args)
    tangents = tuple(rand(rng, np.shape(a), -1.0, 1.0) if is_float_arg(a) else np.zeros(np.shape(a))
                     for a in args)
    calls: dict[str, Callable[[], Any]] = {
        "vjp (the compiled primal)": lambda: catad.vjp(fn, *args)[0],
        "jvp": lambda: catad.jvp(fn, args, tangents),
    }
    if fl:
        calls["jacobian"] = lambda: catad.jacobian(fn, argnums=fl)(*args)
        if _result_is_float(fn, args):
            calls["grad"] = lambda: catad.grad(fn, argnums=fl)(*args)
            calls["value_and_grad"] = lambda: catad.value_and_grad(fn, argnums=fl)(*args)
    return calls


def _check_raises(fn: Callable, args: Sequence, numpy_exc: BaseException, rng, line, shapes):
    expected = _expected_error(numpy_exc)
    _, default_lines = _source_lines(fn)
    lines = [line] if isinstance(line, int) else list(line) if line is not None else default_lines
    if isinstance(expected, tuple):  # AxisError: NumPy's message has no shapes
        want_shapes: list[str] = [] if shapes is None else list(shapes)
    elif expected is catad.BoundsError:
        want_shapes = [] if shapes is None else list(shapes)
    elif shapes is not None:
        want_shapes = list(shapes)
    else:
        want_shapes = _SHAPE_RE.findall(str(numpy_exc)) or sorted(
            {str(a.shape) for a in args if isinstance(a, np.ndarray)})
    names = expected.__name__ if not isinstance(expected, tuple) else " or ".join(e.__name__ for e in expected)
    ctx = describe(fn, args)
    for what, call in _entry_points(fn, args, rng).items():
        what = f"{ctx}: {what}"
        try:
            with np.errstate(all="ignore"):
                got = call()
        except Exception as err:  # noqa: BLE001 - the type is the assertion
            assert isinstance(err, expected), (
                f"{what}: NumPy raised {type(numpy_exc).__name__}({numpy_exc}); catad should raise {names}, "
                f"raised {type(err).__module__}.{type(err).__name__}: {err}")
            _check_message(err, fn, lines, want_shapes, what)
        else:
            raise AssertionError(
                f"{what}: NumPy raised {type(numpy_exc).__name__}({numpy_exc}); catad should raise {names}, "
                f"returned {got!r}")


# ---------------------------------------------------------------- values and derivatives

def _assert_value(got: Any, want: Any, what: str):
    assert not isinstance(got, tuple), f"{what}: catad returned a tuple, NumPy {type(want).__name__}"
    assert np.shape(got) == np.shape(want), (
        f"{what}: catad's value has shape {np.shape(got)}, NumPy's {np.shape(want)}\ncatad: {got!r}\nNumPy: {want!r}")
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=VALUE_RTOL, atol=VALUE_ATOL, equal_nan=True,
                               err_msg=f"{what}: catad's value differs from NumPy's")


def _assert_derivative(got: Any, want: np.ndarray, shape: tuple, what: str):
    assert np.shape(got) == shape, f"{what}: has shape {np.shape(got)}, expected {shape}\ngot: {got!r}"
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=FD_RTOL, atol=FD_ATOL,
                               err_msg=f"{what}: catad differs from central differences of the function")


def _check_values(fn: Callable, args: Sequence, want: Any, rng: np.random.Generator):
    assert not isinstance(want, tuple), "check_like_numpy takes functions returning a float or an array"
    ctx = describe(fn, args)
    out, vjp_fn = catad.vjp(fn, *args)
    _assert_value(out, want, f"{ctx}: vjp's primal")
    fl = float_argnums(args)
    if not fl or np.asarray(want).dtype.kind != "f":
        return
    out_shape = np.shape(want)
    jacs = {k: fd_jacobian(fn, args, k) for k in fl}

    if out_shape == ():
        value, grads = catad.value_and_grad(fn, argnums=fl)(*args)
        _assert_value(value, want, f"{ctx}: value_and_grad's value")
        for k, g in zip(fl, grads):
            _assert_derivative(g, jacs[k], np.shape(args[k]), f"{ctx}: grad with respect to argument {k}")
    else:
        jac = catad.jacobian(fn, argnums=fl)(*args)
        for k, j in zip(fl, jac):
            _assert_derivative(j, jacs[k], out_shape + np.shape(args[k]), f"{ctx}: jacobian with respect to argument {k}")

    # vjp with a random cotangent against central differences, for every output shape
    c = rand(rng, out_shape, -1.0, 1.0)
    cts = vjp_fn(c)
    assert isinstance(cts, tuple) and len(cts) == len(args), f"{ctx}: vjp_fn returned {cts!r}"
    for k in fl:
        _assert_derivative(cts[k], _contract_out(c, jacs[k], len(out_shape)), np.shape(args[k]),
                           f"{ctx}: vjp with respect to argument {k}")

    # jvp against the directional central difference, and the dot-product identity
    tangents = tuple(rand(rng, np.shape(a), -1.0, 1.0) if is_float_arg(a) else np.zeros(np.shape(a))
                     for a in args)
    out_j, jt = catad.jvp(fn, args, tangents)
    _assert_value(out_j, want, f"{ctx}: jvp's output")
    jt_fd = sum((_contract_in(jacs[k], tangents[k]) for k in fl), np.zeros(out_shape))
    _assert_derivative(jt, jt_fd, out_shape, f"{ctx}: jvp's tangent")
    lhs = float(np.sum(np.asarray(c) * np.asarray(jt)))
    rhs = float(sum(np.sum(np.asarray(tangents[k]) * np.asarray(cts[k])) for k in fl))
    assert np.isclose(lhs, rhs, rtol=IDENTITY_RTOL, atol=1e-12), (
        f"{ctx}: <J t, c> = {lhs!r} but <t, J^T c> = {rhs!r}: jvp and vjp disagree")


def check_like_numpy(fn: Callable, *args: Any, seed: int = 0, line: int | Sequence[int] | None = None,
                     shapes: Sequence[str] | None = None) -> None:
    """catad does what NumPy does with fn(*args): the same value and derivatives, or the
    corresponding catad error (see the module docstring)."""
    rng = np.random.default_rng(seed)
    numpy_exc = None
    try:
        want = _run(fn, args)
    except (ValueError, IndexError) as exc:
        numpy_exc = exc
    if numpy_exc is not None:  # checked outside the except block: no chained tracebacks
        _check_raises(fn, args, numpy_exc, rng, line, shapes)
    else:
        _check_values(fn, args, want, rng)


def numpy_raises(fn: Callable, *args: Any) -> type | None:
    """The exception type NumPy raises for fn(*args), or None (for tests that assert the
    case table covers both outcomes)."""
    try:
        _run(fn, args)
    except Exception as exc:  # noqa: BLE001
        return type(exc)
    return None
