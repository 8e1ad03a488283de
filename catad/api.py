"""The public Python API.

A function is compiled once per signature of argument types (taken from example
arguments, as JAX traces per shape) and the result cached. The values it reads from
globals and closures are hidden parameters of the compiled program, read at every call;
what else it resolved (modules, functions, ints) is checked at every call, and when one
changed it is compiled again (catad.frontend.reads).
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

# fn -> signature -> its compiled entries, newest first
_CACHE: "weakref.WeakKeyDictionary[Callable, dict]" = weakref.WeakKeyDictionary()
_ENTRIES = 8  # per signature: a global that flips between a few types does not recompile each time


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


class Entry:
    """fn compiled for one signature and what it read from Python: its core program, what
    must still hold for it to be current, and every later stage, each made when first asked."""

    def __init__(self, program: Program, reads: Any):
        self.reads = reads
        self.stages: dict[str, Any] = {"core": program}


class Bound:
    """fn called on args now: the entry compiled for them and the hidden values read now,
    which follow the user's arguments in every compiled program's parameters."""

    __slots__ = ("fn", "args", "entry", "hidden")

    def __init__(self, fn: Callable, args: tuple, entry: Entry, hidden: tuple):
        self.fn, self.args, self.entry, self.hidden = fn, args, entry, hidden

    @property
    def core(self) -> Program:
        return self.entry.stages["core"]

    def stage(self, name: str, make: Callable[[], Any]) -> Any:
        stages = self.entry.stages
        if name not in stages:
            with paused_gc():  # see catad._node.paused_gc
                stages[name] = make()
        return stages[name]


def bind(fn: Callable, args: tuple) -> Bound:
    """fn's compiled entry for args and the globals and closures as they are now (compiled
    again when none of its entries for this signature read what Python would read now)."""
    if not callable(fn):
        raise ArgumentError(f"expected a Python function, got {type(fn).__name__}")
    key = signature(fn, args)
    try:
        table = _CACHE.setdefault(fn, {})
    except TypeError:  # not weak-referenceable: do not cache
        table = {}
    entries = table.setdefault(key, [])
    for entry in entries:
        hidden = entry.reads.current()
        if hidden is not None:
            return Bound(fn, args, entry, hidden)
    entry = _compile(fn, args)
    hidden = entry.reads.current()
    if hidden is None:
        raise CatadError(f"what {getattr(fn, '__name__', 'f')} reads from globals or closures changed while it "
                         "was compiled (a property or a descriptor that gives a new object each time?)",
                         construct="global", hint="read it into a variable and pass it as an argument")
    entries.insert(0, entry)
    del entries[_ENTRIES:]
    return Bound(fn, args, entry, hidden)


def _compile(fn: Callable, args: tuple) -> Entry:
    from .frontend import compile_with_reads
    with paused_gc():
        program, reads = compile_with_reads(fn, tuple(args))
        check_program(program)
    return Entry(program, reads)


def _cached(fn: Callable, args: tuple, stage: str, make: Callable[[], Any]) -> Any:
    return bind(fn, args).stage(stage, make)


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


__all__ = ["to_core", "to_anf", "to_cl", "eval_cl", "to_sympy", "signature", "bind", "hidden_args"]


def to_sympy(fn: Callable, *example_args: Any):
    """fn as a SymPy expression in symbols named after its Float parameters (array
    parameters become arrays of symbols ``v_0, v_1, ...`` of the example's shape; Int
    parameters keep their example values). Returns ``(expression, symbols)``."""
    from .lang.sympy_export import program_to_sympy
    b = bind(fn, example_args)
    return program_to_sympy(b.core, *example_args, hidden=b.hidden)
