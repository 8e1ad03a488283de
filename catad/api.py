"""The public Python API.

A function is compiled once per signature of argument types (taken from example
arguments, as JAX traces per shape) and the result cached.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable

from . import combinators as C
from ._node import paused_gc
from .errors import ArgumentError, CatadError
from .lang.anf import anf_program
from .lang.terms import Program
from .lang.typecheck import check_program
from .lang.types import Type, type_of_value, units_of_value

_CACHE: "weakref.WeakKeyDictionary[Callable, dict]" = weakref.WeakKeyDictionary()


def signature(fn: Callable, args: tuple) -> tuple:
    """The compile cache's key for these arguments: their types, and which axes of their arrays
    have length 1 (NumPy's broadcasting depends on it; lengths otherwise do not matter)."""
    names = _param_names(fn)
    types = tuple(type_of_value(a, f"argument {names[i]!r}" if i < len(names) else f"argument {i}")
                  for i, a in enumerate(args))
    return types, tuple(units_of_value(a) for a in args)


def _param_names(fn: Callable) -> list[str]:
    code = getattr(fn, "__code__", None)
    return list(code.co_varnames[:code.co_argcount]) if code else []


def _cached(fn: Callable, args: tuple, stage: str, make: Callable[[], Any]) -> Any:
    if not callable(fn):
        raise ArgumentError(f"expected a Python function, got {type(fn).__name__}")
    key = (stage, signature(fn, args))
    try:
        table = _CACHE.setdefault(fn, {})
    except TypeError:  # not weak-referenceable: do not cache
        with paused_gc():
            return make()
    if key not in table:
        with paused_gc():  # see catad._node.paused_gc
            table[key] = make()
    return table[key]



def to_core(fn: Callable, *example_args: Any) -> Program:
    """fn as a typed core-language program (its user-defined callees included)."""
    def make():
        from .frontend import compile_function
        program = compile_function(fn, tuple(example_args))
        check_program(program)
        return program
    return _cached(fn, example_args, "core", make)


def to_anf(fn: Callable, *example_args: Any) -> Program:
    """fn's core program in A-normal form."""
    return _cached(fn, example_args, "anf", lambda: anf_program(to_core(fn, *example_args)))


def to_cl(fn: Callable, *example_args: Any) -> C.CLProgram:
    """fn as a CL program (notes Fig. 9-10): ``str`` of it prints the combinator terms."""
    def make():
        program = C.to_cl_program(to_core(fn, *example_args))
        C.check_cl_program(program)
        return program
    return _cached(fn, example_args, "cl", make)


def eval_cl(term: C.CLProgram | C.CLDef | C.CL, *args: Any) -> Any:
    """Evaluate a CL program (or definition) on run-time arguments with the reference
    semantics of notes Fig. 10. A bare CL term takes its arguments as its input context."""
    if isinstance(term, C.CLProgram):
        return C.eval_cl_program(term, *args)
    if isinstance(term, C.CLDef):
        return C.eval_cl_program(C.CLProgram((term,), term.name), *args)
    if isinstance(term, C.CL):
        from .combinators.terms import make_context
        return C.CLEvaluator().eval(term, make_context(list(args)))
    raise CatadError(f"eval_cl takes a CL program from catad.to_cl, got {type(term).__name__}")


__all__ = ["to_core", "to_anf", "to_cl", "eval_cl", "to_sympy", "signature"]


def to_sympy(fn: Callable, *example_args: Any):
    """fn as a SymPy expression in symbols named after its Float parameters (array
    parameters become arrays of symbols ``v_0, v_1, ...`` of the example's shape; Int
    parameters keep their example values). Returns ``(expression, symbols)``."""
    from .lang.sympy_export import program_to_sympy
    return program_to_sympy(to_core(fn, *example_args), *example_args)
