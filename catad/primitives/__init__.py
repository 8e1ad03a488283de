"""The primitive registry (see :mod:`catad.primitives.registry`)."""
from __future__ import annotations

from ..errors import CatadTypeError, Loc
from ..lang.terms import Call, Term
from .registry import PRIMITIVES, Primitive, PrimitiveTypeError, lookup, primitive_for_callable, register


def prim(name: str, *args: Term, loc: Loc | None = None) -> Call:
    """A typed call of primitive `name`; a CatadTypeError (at `loc`) if the types do not fit."""
    return Call(name, tuple(args), result_type(name, tuple(a.type for a in args), loc), loc)


def result_type(name: str, arg_types: tuple, loc: Loc | None = None):
    """The type of primitive `name` on arguments of these types; a CatadTypeError (at `loc`)
    if they do not fit."""
    try:
        return PRIMITIVES[name].result_type(arg_types)
    except PrimitiveTypeError as e:
        raise CatadTypeError(f"{name}: {e}", loc, name) from None


__all__ = ["PRIMITIVES", "Primitive", "PrimitiveTypeError", "lookup", "primitive_for_callable",
           "register", "prim", "result_type"]
