"""The primitive registry (see :mod:`catad.primitives.registry`)."""
from __future__ import annotations

from ..errors import CatadTypeError, Loc
from ..lang.terms import Call, Term
from .registry import PRIMITIVES, Primitive, PrimitiveTypeError, lookup, primitive_for_callable, register


def prim(name: str, *args: Term, loc: Loc | None = None) -> Call:
    """A typed call of primitive `name`; a CatadTypeError (at `loc`) if the types do not fit."""
    p = PRIMITIVES[name]
    try:
        ty = p.result_type(tuple(a.type for a in args))
    except PrimitiveTypeError as e:
        raise CatadTypeError(f"{name}: {e}", loc, name) from None
    return Call(name, tuple(args), ty, loc)


__all__ = ["PRIMITIVES", "Primitive", "PrimitiveTypeError", "lookup", "primitive_for_callable",
           "register", "prim"]
