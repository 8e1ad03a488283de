"""Compiling a function and every user function it reaches into a Program."""
from __future__ import annotations

import inspect
import types
from typing import Any

from ..errors import ArgumentError, CatadError, CatadTypeError, Loc, UnsupportedSyntax
from ..lang.terms import Const, Def, Program, Term, may_fail
from ..lang.types import Type, python_numbers, type_of_value, units_of_value
from ..primitives import PRIMITIVES
from .lower import FunctionLowerer
from .common import PythonConstant
from .freenames import Static
from .reads import Path, ReadLog, Reads
from .source import Source, parse_function


# catad.pipeline.derived_def, set when catad.pipeline is imported (the front end is below the
# pipeline, which makes the derivative programs): the Def of a function made by a catad
# transformation (catad.grad(f)) called inside the function compiled.
DERIVED = None


class ProgramCompiler:
    def __init__(self) -> None:
        self.defs: list[Def] = []                       # callees before callers
        self.done: dict[tuple, tuple[str, Type]] = {}   # (function, argument types) -> (def name, result)
        self.result_trees: dict[str, Any] = {}          # def name -> the tree of its list or dict result
        self.result_pys: set[str] = set()               # defs returning one of Python's own numbers
        self.result_maybe_pys: set[str] = set()         # defs returning one only where a condition holds
        self.result_flags: dict[str, Any] = {}          # defs returning a tuple or list: python_flags of it
        self.result_zero_ds: set[str] = set()           # defs returning an array of no axes (np.where's)
        self.def_names: set[str] = set()
        self.active: list[Any] = []                     # functions being compiled, to detect recursion
        self.sources: dict[Any, Source] = {}
        self.reads = ReadLog()                          # what the functions read from Python
        self.hidden: dict[str, list[tuple[Path, Type, Any]]] = {}  # def name -> its hidden parameters
        self.defaults: dict[tuple, Path] = {}           # (function, parameter) -> where its default is
        self.bodies: dict[str, Term] = {}  # the body of each def lowered here (see fails)
        self.undecided = 0  # how many marks of a kind of number were undecided (FunctionLowerer.undecided)

    def default_path(self, fn: Any, param: str) -> Path:
        """Where fn keeps param's default value (one Path per compile, so one hidden parameter)."""
        key = (fn, param)
        if key not in self.defaults:
            self.defaults[key] = Path.of_default(fn, param)
        return self.defaults[key]

    def source(self, fn: Any) -> Source:
        if fn not in self.sources:
            self.sources[fn] = parse_function(fn)
        return self.sources[fn]

    def function(self, fn: Any, arg_types: tuple[Type, ...], call_loc: Loc | None = None,
                 units: tuple | None = None, trees: tuple | None = None, given: tuple | None = None,
                 statics: tuple = (), pys: tuple | None = None) -> tuple[str, Type]:
        """The Def of fn specialised to arg_types, to which axes of its array arguments have
        length 1 (units, see catad.pipeline.signature; None: not known) and to the structures
        of its list and dict arguments (trees, catad.trees), compiled on first use: its name and
        result type (its result's tree: result_trees[name]). `given` names the parameter each
        argument fills (by default the first positional ones; the others take their default
        values), `statics` binds parameters to objects that are not values (a method's self), `pys`
        says which arguments are Python's own numbers (types.python_numbers), or arrays of no axes
        (common.ZERO_D)."""
        units = units if units is not None else (None,) * len(arg_types)
        trees = trees if trees and any(t is not None for t in trees) else None
        src = self.source(fn)
        given = given if given is not None else src.positional[:len(arg_types)]
        key = (fn, arg_types, units, trees, given, pys,
               tuple((p, _static_key(st)) for p, st in statics))
        if key in self.done:
            return self.done[key]
        if fn in self.active:
            cycle = " -> ".join(f.__name__ for f in self.active[self.active.index(fn):] + [fn])
            raise UnsupportedSyntax(f"recursive call of {fn.__name__} ({cycle}); recursion is not supported",
                                    call_loc, "recursion",
                                    hint="express the computation with sum(...), comprehensions or a fixed "
                                         "number of steps")
        name = self._def_name(src.name)
        self.active.append(fn)
        try:
            lowerer = FunctionLowerer(self, src, arg_types, units, trees, given, statics, pys=pys)
            d = lowerer.lower(name)
            self.result_trees[name] = lowerer.result_tree
            if lowerer.result_py:
                self.result_pys.add(name)
            elif lowerer.result_maybe_py:
                self.result_maybe_pys.add(name)
            if lowerer.result_zero_d:
                self.result_zero_ds.add(name)
            if lowerer.result_flags is not False:
                self.result_flags[name] = lowerer.result_flags
        finally:
            self.active.pop()
        self.hidden[name] = [(path, v.type, units) for path, v, units in lowerer.hidden.values()]
        self.defs.append(d)
        self.bodies[name] = d.body
        self.done[key] = (name, d.result_type)
        return self.done[key]

    def fails(self, name: str) -> bool:
        """Whether the body of def `name` runs a check, so that a call of it may raise: asked where
        it is called (most programs are one def, whose body, walked whole, nothing asks about)."""
        body = self.bodies.get(name)
        return body is not None and may_fail(body)

    def transformed(self, t: Any, arg_types: tuple[Type, ...], call_loc: Loc | None, units: tuple,
                    trees: tuple, pys: tuple | None = None) -> tuple[str, Type]:
        """The Def of the function a catad transformation t makes (catad.grad(f), a
        catad.transforms.Transformation) at these argument types: made by the pipeline from f's
        derivative program, with f's hidden parameters (hidden[name]) and what f reads (its
        guards join this compile's). Its name and result type, as :meth:`function` gives."""
        from ..transforms import key_of, mark
        owner, path = key_of(mark(lambda: None, t))
        key = ("derived", owner, path, arg_types, units, trees, pys)
        if key in self.done:
            return self.done[key]
        try:
            d, reads, result_tree = DERIVED(t, arg_types, units, trees, pys)
        except CatadError as e:
            if e.loc is not None:
                raise
            raise type(e)(e.message, call_loc, e.construct, e.hint) from None
        name = self._def_name(d.name)
        self.defs.append(Def(name, d.params, d.body, call_loc))
        self.hidden[name] = list(reads.hidden)
        for guard in reads.guards:
            self.reads.guards.setdefault(guard[0].key, guard)
        self.result_trees[name] = result_tree
        self.done[key] = (name, d.result_type)
        return self.done[key]

    def _def_name(self, base: str) -> str:
        """base, or base_2, base_3, ... when taken by another signature or a primitive."""
        name, k = base, 1
        while name in PRIMITIVES or name in self.def_names:
            k += 1
            name = f"{base}_{k}"
        self.def_names.add(name)
        return name


def compile_function(fn: Any, example_args: tuple) -> Program:
    """The typed core Program of fn, specialised to the types of example_args; its entry is fn's Def."""
    return compile_with_reads(fn, example_args)[0]


def compile_with_reads(fn: Any, example_args: tuple, trees: tuple = (), with_tree: bool = False,
                       signature: tuple | None = None):
    """compile_function's Program, and what it read from globals and closures: the entry's
    parameters after the user's are the hidden ones, whose values ``reads.current()`` gives.
    Lists and dicts among the arguments come as tuples, with their structures in `trees`
    (catad.trees); `with_tree` adds the structure of a list or dict result to what is returned.
    With `signature` (the arguments' types and which axes have length 1, None where that is not
    known: a function called inside a compiled one), example_args only say how many there are."""
    bound_self = None
    if isinstance(fn, types.MethodType) and isinstance(inspect.unwrap(fn.__func__), types.FunctionType):
        bound_self, fn = fn.__self__, fn.__func__  # a bound method: its self is read like a global
    try:
        fn = inspect.unwrap(fn)  # a decorated function compiles as the function it wraps
    except ValueError:
        pass
    if not isinstance(fn, types.FunctionType):
        raise ArgumentError(f"catad compiles Python functions defined with def or lambda; {_describe(fn)} is "
                            f"not one", construct="function", hint=_wrap_hint(fn))
    if not isinstance(example_args, tuple):
        raise ArgumentError(f"example_args must be a tuple, got {type(example_args).__name__}",
                            construct="arguments", hint="e.g. (x,) for a function of one argument")
    pc = ProgramCompiler()
    try:
        src = pc.source(fn)
        statics = ()
        if bound_self is not None:
            if not src.positional:
                raise ArgumentError(f"the method {src.name} has no parameter for self", src.loc(src.node), "method")
            me = src.positional[0]
            statics = ((me, Static(bound_self, Path.of_object(bound_self, me))),)
        given = _entry_given(src, len(example_args), len(statics))
        if signature is None:
            arg_types = tuple(type_of_value(a, f"argument {p!r} of {src.name}") for a, p in zip(example_args, given))
            units = tuple(units_of_value(a) for a in example_args)
            pys = tuple(python_numbers(a) for a in example_args)  # per item of a tuple, list or dict
        else:  # (and which are Python's own numbers, as FunctionLowerer.python_flags, or None)
            arg_types, units, pys = signature if len(signature) == 3 else (*signature, None)
        entry, _ = pc.function(fn, arg_types, units=units, trees=trees, given=given, statics=statics, pys=pys)
    except RecursionError:
        raise UnsupportedSyntax(f"{fn.__name__}: an expression or if statement is nested too deeply to compile",
                                Loc(fn.__code__.co_filename, fn.__code__.co_firstlineno), "nesting",
                                hint="split it into several assignments") from None
    out = Program(tuple(pc.defs), entry), Reads(tuple(pc.reads.guards.values()), tuple(pc.hidden[entry]))
    return out + (pc.result_trees[entry],) if with_tree else out


def _entry_given(src: Source, n: int, bound: int) -> tuple[str, ...]:
    """The parameters n positional arguments fill (after `bound` ones filled already: a method's
    self); the others must have default values."""
    positional = src.positional[bound:]
    shown = ", ".join(positional + ((f"*{src.vararg}",) if src.vararg else ()) + ((f"**{src.varkw}",) if src.varkw
                                                                                   else ()))
    where = src.loc(src.node)
    if n > len(positional) and not src.vararg:
        raise ArgumentError(f"{src.name} takes {len(positional)} argument(s) ({shown}) but it was called with {n}",
                            where, "arguments")
    keyword_only = [p for p in src.kwonly if p not in src.defaulted]
    if keyword_only:
        raise ArgumentError(f"{src.name}'s keyword-only parameter {keyword_only[0]!r} has no default value, and "
                            "catad cannot give keyword-only arguments", where, "keyword-only parameter",
                            hint="give it a default value, or make it an ordinary parameter")
    missing = [p for p in positional[n:] if p not in src.defaulted]
    if missing:
        raise ArgumentError(f"{src.name} takes {len(positional)} argument(s) ({shown}) but it was called with {n}: "
                            f"nothing for parameter {missing[0]!r}", where, "arguments")
    return positional[:n] + (src.vararg,) * max(0, n - len(positional))


def _describe(fn: Any) -> str:
    """What a callable that is not a plain function is, in a user's words."""
    import functools
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if isinstance(fn, functools.partial):
        return f"functools.partial({getattr(fn.func, '__name__', 'f')}, ...)"
    if isinstance(fn, types.MethodType):
        return f"the bound method {name}"
    if isinstance(fn, type):
        return f"the class {name}"
    kind = type(fn).__name__
    return f"{name} (a {kind})" if name else f"a {kind}"


def _wrap_hint(fn: Any) -> str:
    import functools
    if isinstance(fn, functools.partial):
        return "write a def that calls the function with the fixed arguments, e.g. def g(x): return f(2.0, x)"
    if isinstance(fn, types.MethodType):
        return "write the computation as a plain function of the numbers it uses"
    if isinstance(fn, type):
        return "pass a function"
    name = getattr(fn, "__name__", "g")
    module = "np" if type(fn).__name__ == "ufunc" else getattr(fn, "__module__", None)
    called = f"{module}.{name}" if module and module != "builtins" else name
    return f"wrap it in a def, e.g. def f(x): return {called}(x)"


def _static_key(st) -> tuple:
    """What a callee is specialised to for a static argument: a constant's type and value (and
    whether it is one of Python's own numbers), or an object by identity and path."""
    if isinstance(st, PythonConstant):
        return ("python", st.const.type, st.const.value)
    if isinstance(st, Const):
        return ("const", st.type, st.value)
    return (id(st.obj), st.path and st.path.key)
