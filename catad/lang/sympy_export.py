"""Export a core program as a SymPy expression: the program evaluated symbolically.

Float parameters become real symbols named after the parameters; a Float array
becomes an array of symbols ``v_0, v_1, ...`` (``m_0_1`` for a matrix) of the
example's shape; Int and Bool parameters keep their example values, so sizes and
index arithmetic are concrete and builds unroll. Conditionals on symbolic values
become ``Piecewise``. The result is the oracle for differentiating scalar programs:
``sympy.diff`` of it must agree with catad's gradient.
"""
from __future__ import annotations

import math

from typing import Any

import numpy as np
import sympy

from ..errors import CatadError
from ..primitives.registry import PRIMITIVES
from .evaluate import Evaluator
from .fold import WhileCount, eval_while_count
from .terms import Build, Call, Const, If, Program, Term
from .types import Float, Tuple as TupleT, Type, Vec, coerce_value, scalar_of

_COMPARE = {"lt": sympy.Lt, "le": sympy.Le, "gt": sympy.Gt, "ge": sympy.Ge, "eq": sympy.Eq, "ne": sympy.Ne}


def _symbolic(value: Any) -> bool:
    return isinstance(value, sympy.Basic) and not value.is_number


class SympyEvaluator(Evaluator):
    def _eval_nonlet(self, t: Term, env: dict) -> Any:
        if isinstance(t, Const):
            v = t.py_value
            if t.type == Float:
                if not math.isfinite(v):  # (a check's bound: math.sin's domain is |x| < inf)
                    return sympy.nan if math.isnan(v) else sympy.oo if v > 0 else -sympy.oo
                return sympy.Float(v) if v != int(v) else sympy.Integer(int(v))
            return v
        if isinstance(t, If):
            cond = self.eval(t.cond, env)
            if _symbolic(cond) or isinstance(cond, sympy.logic.boolalg.Boolean) and cond not in (
                    sympy.true, sympy.false):
                return _piecewise(cond, self.eval(t.then, env), self.eval(t.orelse, env))
            return self.eval(t.then if bool(cond) else t.orelse, env)
        if isinstance(t, Build):
            n = int(self.eval(t.size, env))
            elems = []
            for i in range(n):
                env[t.var] = i
                elems.append(self.eval(t.body, env))
            env.pop(t.var, None)
            arr = np.empty(n, dtype=object)
            for i, e in enumerate(elems):
                arr[i] = e
            return np.array(list(arr), dtype=object) if elems and isinstance(elems[0], np.ndarray) else arr
        if isinstance(t, Call) and t.fn not in self.defs:
            return self._primitive(t, tuple(self.eval(a, env) for a in t.args))
        if isinstance(t, WhileCount):
            return self._while_count(t, env)
        return super()._eval_nonlet(t, env)

    def _while_count(self, t: WhileCount, env: dict) -> int:
        """A while loop's steps (the reference loop), when its condition has a truth value at
        every step; a condition on the symbols (a trip count that depends on x) has no SymPy form."""
        def ev_in(body: Term, var, value):
            out = self.eval_in(body, env, var, value)
            if body is t.cond and not isinstance(out, (bool, np.bool_)) and out not in (sympy.true, sympy.false):
                raise CatadError("a while loop whose number of steps depends on the symbols has no SymPy form "
                                 f"(its condition is {out})", loc=t.loc, construct="while loop")
            return bool(out) if body is t.cond else out
        return eval_while_count(t, lambda sub: self.eval(sub, env), ev_in)

    def _primitive(self, t: Call, args: tuple) -> Any:
        p = PRIMITIVES[t.fn]
        if not any(_symbolic(a) or isinstance(a, np.ndarray) and a.dtype == object for a in args):
            return p.impl(*args)
        if t.fn in _COMPARE:
            return _COMPARE[t.fn](*args)
        if t.fn == "not":
            return sympy.Not(args[0])
        if t.fn == "to_float":
            return args[0]
        if t.fn == "index":
            if isinstance(args[0], _ArgExtreme):
                return args[0].read(args[1], t.fn)
            return args[1][int(args[0])]
        if t.fn in ("argmax", "argmin"):  # the place of the largest: only read back from the same vector
            return _ArgExtreme(sympy.Max if t.fn == "argmax" else sympy.Min, args[0])
        if t.fn == "size":
            return len(args[0])
        if t.fn == "dim":
            return np.shape(args[0])[int(args[1])]
        if t.fn == "sum":
            v = args[0]
            return sum(v[1:], v[0]) if len(v) else sympy.Integer(0)
        if t.fn in ("vmax", "vmin"):
            return (sympy.Max if t.fn == "vmax" else sympy.Min)(*args[0])
        if t.fn == "vector":
            arr = np.empty(len(args), dtype=object)
            for i, a in enumerate(args):
                arr[i] = a
            return arr
        if t.fn in ("max", "min"):
            return (sympy.Max if t.fn == "max" else sympy.Min)(*args)
        if t.fn == "check":  # a run-time check (math.log's domain, a bound): the formula is where it holds
            return ()
        if p.sympy is None:
            raise CatadError(f"primitive {t.fn} has no SymPy form", construct=t.fn)
        return p.sympy(*args)


class _ArgExtreme:
    """argmax(v) (argmin) of a vector of formulas: v[argmax(v)] is Max(*v), Python's max of v (the
    first of the largest, which no formula tells apart from another of them)."""

    def __init__(self, extreme, v):
        self.extreme, self.v = extreme, v

    def read(self, v, fn: str):
        if v is not self.v and not (np.shape(v) == np.shape(self.v) and all(a == b for a, b in zip(v, self.v))):
            raise CatadError("an element read at the argmax of another vector has no SymPy form", construct=fn)
        return self.extreme(*v)


def _piecewise(cond: Any, a: Any, b: Any) -> Any:
    """if cond then a else b, componentwise for tuples and arrays."""
    if isinstance(a, tuple):
        return tuple(_piecewise(cond, x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        out = np.empty(a.shape, dtype=object)
        for idx in np.ndindex(a.shape):
            out[idx] = _piecewise(cond, a[idx], b[idx])
        return out
    return sympy.Piecewise((a, cond), (b, True))


def _symbols_for(name: str, ty: Type, example: Any) -> Any:
    if ty == Float:
        return sympy.Symbol(name, real=True)
    if isinstance(ty, TupleT):
        return tuple(_symbols_for(f"{name}_{k}", s, e) for k, (s, e) in enumerate(zip(ty.items, example)))
    if isinstance(ty, Vec) and scalar_of(ty) == Float:
        arr = np.empty(np.shape(example), dtype=object)
        for idx in np.ndindex(arr.shape):
            arr[idx] = sympy.Symbol(name + "_" + "_".join(map(str, idx)), real=True)
        return arr
    return example


def program_to_sympy(program: Program, *example_args: Any, hidden: tuple = ()) -> tuple[Any, tuple]:
    """(expression, parameter symbols) of the program's entry function. The parameters after
    the example arguments' take the `hidden` values (globals read, catad.pipeline) as numbers."""
    d = program.main
    vals = [coerce_value(a, p.type, f"argument {p.name!r}") for a, p in zip(example_args, d.params)]
    syms = tuple(_symbols_for(p.name, p.type, v) for p, v in zip(d.params, vals))
    fixed = tuple(_number(v) for v in hidden)
    return SympyEvaluator(program).call(d.name, syms + fixed), syms


def _number(v: Any) -> Any:
    """A hidden value as the evaluator takes a constant of its type."""
    if isinstance(v, float):
        return sympy.Integer(int(v)) if v.is_integer() else sympy.Float(v)
    return v
