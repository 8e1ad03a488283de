"""Typing rules of CL (notes Fig. 11): given c and its input type S, the output type T
of c : S => T, or a CatadTypeError. Tails (let bodies, second halves of compositions)
are followed in a loop, as in the evaluator."""
from __future__ import annotations

from ..errors import CatadTypeError
from ..lang.types import Bool, Int, Tuple as TupleT, Type, Unit, Vec
from ..primitives.registry import PRIMITIVES, PrimitiveTypeError
from . import terms as cl


def context_type(parts: list[Type]) -> Type:
    return parts[0] if len(parts) == 1 else TupleT(tuple(parts))


def context_parts(s: Type, n: int, what: str) -> list[Type]:
    if n == 1:
        return [s]
    if not isinstance(s, TupleT) or len(s.items) != n:
        raise CatadTypeError(f"{what} expects a context of {n} values, got input type {s}", construct="CL")
    return list(s.items)


def def_input_type(d: cl.CLDef) -> Type:
    return context_type([p.type for p in d.params]) if d.params else Unit


def check_cl_program(program: cl.CLProgram) -> None:
    defs: dict[str, cl.CLDef] = {}
    for d in program.defs:
        out = cl_type(d.body, def_input_type(d), defs)
        if out != d.result_type:
            raise CatadTypeError(f"CL definition {d.name} returns {out}, declared {d.result_type}", construct="CL")
        defs[d.name] = d


def cl_type(c: cl.CL, s: Type, defs: dict[str, cl.CLDef] | None = None) -> Type:
    defs = defs or {}
    while True:
        if isinstance(c, cl.Compose):
            s, c = cl_type(c.first, s, defs), c.second
        elif isinstance(c, cl.Let):
            r = cl_type(c.rhs, s, defs)
            if r != c.var.type:
                raise CatadTypeError(f"let {c.var.name} : {c.var.type} is bound to a {r}", construct="CL let")
            s, c = context_type(context_parts(s, c.n, "let") + [r]), c.body
        else:
            return _leaf_type(c, s, defs)


def _leaf_type(c: cl.CL, s: Type, defs: dict[str, cl.CLDef]) -> Type:
    if isinstance(c, cl.Identity):
        return s
    if isinstance(c, cl.Konst):
        return c.ty
    if isinstance(c, cl.Prune):
        parts = context_parts(s, c.n, "Prune")
        return context_type([parts[i] for i in c.indices]) if c.indices else Unit
    if isinstance(c, cl.Proj):
        if not isinstance(s, TupleT) or len(s.items) != c.n:
            raise CatadTypeError(f"selection {c.index + 1}/{c.n} applied to a {s}", construct="CL projection")
        return s.items[c.index]
    if isinstance(c, cl.Call):
        return _call_type(c, s, defs)
    if isinstance(c, cl.Tuple):
        return TupleT(tuple(cl_type(x, s, defs) for x in c.items))
    if isinstance(c, cl.If):
        if cl_type(c.cond, s, defs) != Bool:
            raise CatadTypeError("the condition of IF is not a Bool", construct="CL if")
        a, b = cl_type(c.then, s, defs), cl_type(c.orelse, s, defs)
        if a != b:
            raise CatadTypeError(f"the branches of IF have types {a} and {b}", construct="CL if")
        return a
    if isinstance(c, cl.Build):
        if cl_type(c.size, s, defs) != Int:
            raise CatadTypeError("the size of a build is not an Int", construct="CL build")
        elem = cl_type(c.body, context_type(context_parts(s, c.n, "build") + [Int]), defs)
        if elem != c.elem:
            raise CatadTypeError(f"build records element type {c.elem}, its body gives {elem}", construct="CL build")
        return Vec(elem)
    if isinstance(c, (cl.Fold, cl.Scan)):
        a, v = cl_type(c.acc, s, defs), cl_type(c.vec, s, defs)
        if not isinstance(v, Vec):
            raise CatadTypeError(f"FOLD folds over a Vec, got a {v}", construct="CL fold")
        body = cl_type(c.body, context_type(context_parts(s, c.n, "fold") + [TupleT((a, v.elem))]), defs)
        if body != a or c.var.type != TupleT((a, v.elem)):
            raise CatadTypeError(f"FOLD's body gives {body} for an accumulator {a}", construct="CL fold")
        return a if isinstance(c, cl.Fold) else Vec(a)
    if isinstance(c, cl.WhileCount):
        a = cl_type(c.acc, s, defs)
        inner = context_type(context_parts(s, c.n, "while") + [TupleT((a, Int))])
        if cl_type(c.cond, inner, defs) != Bool or cl_type(c.body, inner, defs) != a:
            raise CatadTypeError(f"WHILE's condition is not a Bool or its step does not give {a}",
                                 construct="CL while")
        return Int
    raise TypeError(f"not a CL term: {type(c).__name__}")


def _call_type(c: cl.Call, s: Type, defs: dict[str, cl.CLDef]) -> Type:
    if c.nargs == 1:
        args = (s,)
    elif isinstance(s, TupleT) and len(s.items) == c.nargs:
        args = s.items
    else:
        raise CatadTypeError(f"{c.fn} takes {c.nargs} arguments, its input is a {s}", construct="CL call")
    if c.fn in defs:
        d = defs[c.fn]
        if args != tuple(p.type for p in d.params):
            raise CatadTypeError(f"{c.fn} applied to ({', '.join(map(str, args))})", construct="CL call")
        out = d.result_type
    elif c.fn in PRIMITIVES:
        try:
            out = PRIMITIVES[c.fn].result_type(args)
        except PrimitiveTypeError as e:
            raise CatadTypeError(f"{c.fn}: {e}", construct="CL call") from None
    else:
        raise CatadTypeError(f"unknown function {c.fn!r}", construct="CL call")
    if out != c.ty:
        raise CatadTypeError(f"{c.fn} returns {out}, annotated {c.ty}", construct="CL call")
    return out
