"""Arguments given to a transformed function (``grad(f)(1.0, y=2.0)``) bound as a call of f.

Compiled code takes arguments positionally, in f's parameter order; keywords are put in
their places as Python would, so ``argnums`` count positions in that order (as in JAX).
"""
from __future__ import annotations

import inspect
from typing import Callable

from .errors import ArgumentError, Loc


def call_args(fn: Callable, args: tuple, kwargs: dict) -> tuple:
    """args and kwargs as one tuple of positional arguments of fn; ArgumentError, naming
    fn's parameters, for a keyword that names none, a duplicate or a missing argument."""
    if not kwargs:
        return tuple(args)  # positional calls are checked when fn is compiled
    name = getattr(fn, "__name__", "the function")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        raise ArgumentError(f"cannot pass keyword arguments ({', '.join(kwargs)}) to {name}: its parameters "
                            f"cannot be read", construct="keyword argument",
                            hint="pass the arguments by position") from None
    params = sig.parameters.values()
    named = {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    unknown = [k for k in kwargs if k not in named]
    try:
        if unknown and not any(p.kind == p.VAR_KEYWORD for p in params):  # Python says this first
            raise TypeError(f"got an unexpected keyword argument {unknown[0]!r}")
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:  # Python's own words: missing, unexpected or duplicate arguments
        raise ArgumentError(f"{name}{sig}: {e}", _where(fn), "arguments") from None
    bound.apply_defaults()
    if bound.kwargs:  # keyword-only parameters: compiled code has no place for them
        raise ArgumentError(f"{name} has keyword-only parameters ({', '.join(bound.kwargs)}), which catad "
                            f"does not take", _where(fn), "keyword-only parameter",
                            hint="make them ordinary parameters")
    return bound.args


def _where(fn: Callable) -> Loc | None:
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return Loc(code.co_filename, code.co_firstlineno) if code is not None else None
