"""Errors catad raises for bad input. Every one is a :class:`CatadError`.

A message names where the problem is (file:line:col when it comes from source),
what construct it is about, and what to do instead.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Loc:
    """A position in a user's source file (line and column are 1-based). In slots, not a dict:
    the front end makes one for most nodes it makes (a program holds a few per statement)."""

    file: str
    line: int
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}" if self.col else f"{self.file}:{self.line}"


class CatadError(Exception):
    """Base class of every error catad raises for bad input."""

    def __init__(self, message: str, loc: Loc | None = None, construct: str | None = None,
                 hint: str | None = None):
        self.message = message
        self.loc = loc
        self.construct = construct
        self.hint = hint
        super().__init__(self._format())

    def __reduce__(self):
        # pickled whole (a Dask worker sends it back): its location and hint survive the trip
        return type(self), (self.message, self.loc, self.construct, self.hint)

    def _format(self) -> str:
        text = f"{self.loc}: {self.message}" if self.loc else self.message
        if self.hint:
            text += f" ({self.hint})"
        return text


class UnsupportedSyntax(CatadError):
    """A Python construct outside the subset catad differentiates."""


class CatadTypeError(CatadError):
    """A program is ill-typed: wrong operand types, ranks or arities."""


class ArgumentError(CatadError):
    """Arguments passed at call time do not fit the function."""


class ShapeError(CatadError, ValueError):
    """Operand shapes NumPy would reject (broadcasting, matmul and dot dimensions).

    Also a ValueError, as NumPy raises, so ``except ValueError`` in user code still works."""


class BoundsError(CatadError, IndexError):
    """An index out of range for its axis, as Python and NumPy check it (also an IndexError)."""


class DomainError(CatadError, ValueError):
    """A number outside the domain of an operation that raises ValueError for it: a function of
    Python's math module (math.log of 0, math.sqrt of -1, where NumPy's function gives nan), an
    Int array to a negative Int power (NumPy refuses it). Also a ValueError, with Python's or
    NumPy's message."""


class RangeError(CatadError, OverflowError):
    """A result too large for a float from a function of Python's math module (math.exp of
    1000), which raises OverflowError where NumPy's function gives inf: also an OverflowError,
    with Python's message."""


class ZeroDivisionError_(CatadError, ZeroDivisionError):
    """A division by zero NumPy raises for (np.average's weights summing to zero): also a
    ZeroDivisionError, with NumPy's message."""


class LinAlgError(ShapeError, np.linalg.LinAlgError):
    """A matrix NumPy's or SciPy's linear algebra rejects with LinAlgError (not square, not
    positive definite as SciPy checks it): also a numpy.linalg.LinAlgError, so ``except
    np.linalg.LinAlgError`` in user code still works."""


_NOT_RAISABLE = (UnicodeError, StopIteration, StopAsyncIteration, BaseExceptionGroup)


def raisable(exc) -> bool:
    """Whether a compiled function may raise exc itself: a built-in exception class that takes
    a message (not UnicodeError's five arguments, not StopIteration), or NumPy's LinAlgError."""
    return isinstance(exc, type) and (exc is np.linalg.LinAlgError or issubclass(exc, Exception) and
                                      exc.__module__ == "builtins" and not issubclass(exc, _NOT_RAISABLE))


def raised(exc: type) -> type:
    """The CatadError raised where the user's function raises exc (``raise ValueError(...)``,
    a failed ``assert``): also an exc, so ``except ValueError`` in the caller's code still works,
    with the user's message and the file and line of the raise. One class per exc, kept as an
    attribute of this module under its name (RaisedValueError), so that it pickles."""
    name = f"Raised{exc.__name__}"
    cls = globals().get(name)
    if cls is None:
        cls = type(name, (CatadError, exc), {"__module__": __name__, "__doc__": f"{exc.__name__} raised by the "
                                                                                 "compiled function itself"})
        globals()[name] = cls
    return cls


@dataclass(frozen=True)
class Site:
    """Where a run-time check of a compiled program stands (see the ``check`` primitive),
    and what it says when it fails: ``message`` is a ``str.format`` template over the
    check's data values (shapes print as NumPy prints them: ``(3,)``, ``(2, 3)``)."""

    loc: Loc | None
    construct: str
    message: str
    kind: str = "shape"     # "shape": ShapeError; "bounds": BoundsError; "linalg": LinAlgError; "domain": DomainError;
    # "range": RangeError; "unsupported": CatadError (what catad cannot compute as Python does)
    hint: str | None = None
    raises: type | None = None  # the user's own raise or assert: the exception class it raises

    def error(self, values: tuple) -> CatadError:
        cls = raised(self.raises) if self.raises is not None else {
            "bounds": BoundsError, "linalg": LinAlgError, "domain": DomainError, "range": RangeError,
            "zerodiv": ZeroDivisionError_, "unsupported": CatadError}.get(self.kind, ShapeError)
        return cls(self.message.format(*(_plain(v) for v in values)), self.loc, self.construct, self.hint)

    def __str__(self) -> str:
        where = f" line {self.loc.line}" if self.loc is not None else ""
        return f"<{self.construct}{where}>"


def _plain(v):
    """Python numbers and tuples of them, as Python prints them (NumPy's integers print as
    np.int64(3) in a repr): an Int an int, a Float a float, a Bool a bool."""
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    return float(v) if isinstance(v, (float, np.floating)) else int(v)
