"""The public Python API of the front stages: a function as a core program, in ANF, as CL
(and evaluated by CL's reference semantics), and as a SymPy expression.

Each is a stage of fn's pipeline for the signature of the example arguments
(catad.pipeline): compiled once and cached, as JAX traces per shape. The values fn reads
from globals and closures are hidden parameters of its programs, read at every call; what
else it resolved (modules, functions, ints) is checked at every call, and when one changed
it is compiled again (catad.frontend.reads).
"""
from __future__ import annotations

from typing import Any, Callable

from . import combinators as C
from .errors import ArgumentError, CatadError
from .lang.terms import Program
from .pipeline import bind


def to_core(fn: Callable, *example_args: Any) -> Program:
    """fn as a typed core-language program (its user-defined callees included). The values
    fn reads from globals and closures are parameters after fn's own."""
    return bind(fn, example_args).core


def hidden_args(fn: Callable, *example_args: Any) -> tuple:
    """The values fn reads from globals and closures, as they are now: the arguments that
    follow fn's own in its programs (to_core, to_cl, explain), e.g.
    ``eval_cl(to_cl(f, x), x, *hidden_args(f, x))``."""
    return bind(fn, example_args).hidden


def to_anf(fn: Callable, *example_args: Any) -> Program:
    """fn's core program in A-normal form."""
    return bind(fn, example_args).pipeline.anf


def to_cl(fn: Callable, *example_args: Any) -> C.CLProgram:
    """fn as a CL program (notes Fig. 9-10): ``str`` of it prints the combinator terms."""
    return bind(fn, example_args).pipeline.cl


def eval_cl(term: C.CLProgram | C.CLDef | C.CL, *args: Any) -> Any:
    """Evaluate a CL program (or definition) on run-time arguments with the reference
    semantics of notes Fig. 10. A bare CL term takes its arguments as its input context."""
    if isinstance(term, C.CLProgram):
        return C.eval_cl_program(term, *args)
    if isinstance(term, C.CLDef):
        return C.eval_cl_program(C.CLProgram((term,), term.name), *args)
    if isinstance(term, C.CL):
        return _eval_bare(term, args)
    raise CatadError(f"eval_cl takes a CL program from catad.to_cl, got {type(term).__name__}")


def _eval_bare(term: C.CL, args: tuple) -> Any:
    """A bare term has no parameter types: check what can be checked (how many context
    positions it reads), and report a failure on these arguments as theirs."""
    from .combinators.convert import input_arity
    from .combinators.terms import make_context
    arity = input_arity(term)
    if arity is not None and arity != len(args):
        raise ArgumentError(f"this CL term reads a context of {arity} value(s), got {len(args)} argument(s)",
                            construct="eval_cl")
    try:
        return C.CLEvaluator().eval(term, make_context(list(args)))
    except (TypeError, ValueError, IndexError, KeyError) as e:
        raise ArgumentError(f"evaluating the CL term on these arguments failed: {type(e).__name__}: {e}",
                            construct="eval_cl", hint="a bare term's input is not type-checked; pass the "
                            "program from catad.to_cl to have the arguments checked") from None


__all__ = ["to_core", "to_anf", "to_cl", "eval_cl", "to_sympy", "hidden_args"]


def to_sympy(fn: Callable, *example_args: Any):
    """fn as a SymPy expression in symbols named after its Float parameters (array
    parameters become arrays of symbols ``v_0, v_1, ...`` of the example's shape; Int
    parameters keep their example values). Returns ``(expression, symbols)``."""
    from .lang.sympy_export import program_to_sympy
    b = bind(fn, example_args)
    return program_to_sympy(b.core, *example_args, hidden=b.hidden)
