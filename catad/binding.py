"""Arguments given to a transformed function (``grad(f)(1.0, y=2.0)``) bound as a call of f.

Compiled code takes arguments positionally, in f's parameter order; keywords are put in
their places as Python would, so ``argnums`` count positions in that order (as in JAX). The
parameters after the last one given take their default values inside the compiled code (read
there at each call, like globals, and never differentiated); one skipped before a parameter
given by keyword is given its default value here.
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
    kwonly = [p.name for p in params if p.kind == p.KEYWORD_ONLY and p.name in bound.arguments]
    if kwonly:  # keyword-only parameters: compiled code has no place for them
        raise ArgumentError(f"{name} has keyword-only parameters ({', '.join(kwonly)}), which catad "
                            f"cannot be given", _where(fn), "keyword-only parameter",
                            hint="make them ordinary parameters, or leave them at their default values")
    extra = [p.name for p in params if p.kind == p.VAR_KEYWORD and p.name in bound.arguments]
    if extra:  # **kwargs: compiled code has no place for them either
        raise ArgumentError(f"{name} would take {', '.join(map(repr, bound.arguments[extra[0]]))} through "
                            f"**{extra[0]}, which catad cannot give to the function it differentiates",
                            _where(fn), "**kwargs", hint=f"make them parameters of {name}, or pass them through "
                                                         "a dict parameter")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    last = max((k for k, p in enumerate(positional) if p.name in bound.arguments), default=-1)
    out = tuple(bound.arguments.get(p.name, p.default) for p in positional[:last + 1])
    return out + tuple(bound.arguments.get(next((p.name for p in params if p.kind == p.VAR_POSITIONAL), ""), ()))


def _where(fn: Callable) -> Loc | None:
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return Loc(code.co_filename, code.co_firstlineno) if code is not None else None
