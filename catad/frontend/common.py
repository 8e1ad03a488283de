"""Small term helpers shared by the front end's parts, with no state of their own: the Int
constants 0 and 1, conditions joined with if (and_, or_, all_, any_: the right side is
evaluated only when needed), chains of index, the array test and the join of two types.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._node import walk
from ..errors import Loc, UnsupportedSyntax
from ..lang.terms import TRUE, Call, Const, Get, If, Term, Tuple, Var, is_atom
from ..lang.types import Bool, Float, Int, Type, Vec, rank, scalar_of, vec_of
from ..primitives import prim

ZERO = Const(0, Int)
ONE = Const(1, Int)
FALSE_ = Const(False, Bool)


def or_(a: Term, b: Term) -> Term:
    return If(a, TRUE, b)


def where_python(when: Term, ok: Term, loc) -> Term:
    """A check's condition that holds only where `when` does (ok, or not when): `when` says where
    the numbers it checks are Python's."""
    return ok if when is TRUE else or_(prim("not", when, loc=loc), ok)


def both_python(wa: Term, wb: Term) -> Term:
    """Where two numbers are both Python's, from where each is."""
    return wa if wb is TRUE else wb if wa is TRUE else and_(wa, wb)


def and_(a: Term, b: Term) -> Term:
    return If(a, b, FALSE_)


def all_(conds: list[Term]) -> Term:
    out: Term = TRUE
    for c in reversed(conds):
        out = c if out is TRUE else and_(c, out)
    return out


def any_(conds: list[Term]) -> Term:
    out: Term = FALSE_
    for c in reversed(conds):
        out = c if out is FALSE_ else or_(c, out)
    return out


def join_types(a: Type, b: Type) -> Type | None:
    """The type both of a and b convert to (Int meets Float as Float), or None."""
    if a == b:
        return a
    if rank(a) == rank(b) and {scalar_of(a), scalar_of(b)} == {Int, Float}:
        return vec_of(Float, rank(a))
    return None


def is_array(t: Term) -> bool:
    return isinstance(t.type, Vec)


def index_chain(a: Term, idx: list[Term], loc: Loc | None) -> Term:
    for i in idx:
        a = prim("index", i, a, loc=loc)
    return a


_INT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
            "neg": lambda a: -a, "floordiv": lambda a, b: a // b if b else None,
            "mod": lambda a, b: a % b if b else None, "max": max, "min": min}


_COMPARISONS = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
                "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}


def static_bool(t: Term) -> bool | None:
    """The value of a Bool term made of constants, comparisons of static Ints, not, and, or
    (x.ndim != 1 of an array of known rank), or None when it is not known while compiling."""
    if isinstance(t, Const) and t.type == Bool:
        return bool(t.value)
    if isinstance(t, If):
        c = static_bool(t.cond)
        return None if c is None else static_bool(t.then if c else t.orelse)
    if not isinstance(t, Call) or t.type != Bool:
        return None
    if t.fn == "not":
        inner = static_bool(t.args[0])
        return None if inner is None else not inner
    if t.fn in _COMPARISONS:
        a, b = (static_int(x) for x in t.args)
        return None if a is None or b is None else _COMPARISONS[t.fn](a, b)
    return None


def static_int(t: Term) -> int | None:
    """The value of an Int term made of constants and integer arithmetic (len(layers) - 1 of a
    list of known length, i + 1 in an unrolled loop), or None when it is not known while
    compiling (or would raise: a division by zero is left for the program to raise)."""
    if isinstance(t, Const) and t.type == Int and not isinstance(t.value, bool):
        return int(t.value)
    if not (isinstance(t, Call) and t.type == Int and t.fn in _INT_OPS):
        return None
    args = [static_int(a) for a in t.args]
    return None if None in args else _INT_OPS[t.fn](*args)


@dataclass(frozen=True)
class PythonWhere:
    """A function's argument that is one of Python's own numbers (of type `type`) only where a
    condition holds: the caller passes that Bool after the other arguments (functions.py); where
    that condition is undecided (FunctionLowerer.undecided), none is passed and the callee's
    parameter is marked undecided too."""
    type: Any
    undecided: bool = False


@dataclass(frozen=True)
class PythonConstant:
    """An Int or Bool constant argument the callee is specialised to that is one of Python's own
    numbers in the caller (a literal, len(x)): the callee's parameter is too (functions.py)."""
    const: Any


def projections(t: Term) -> bool:
    """A tuple display of atoms, of projections of atoms (a call's tuple result made a display of
    its items, see call_user) or of such displays: its items are read once each, as they are."""
    return isinstance(t, Tuple) and all(_projection(x) or projections(x) for x in t.items)


def _projection(t: Term) -> bool:
    while type(t) is Get:
        t = t.tup
    return is_atom(t)


# the py_layout (Lowerer.py_layout) of a list with both kinds of numbers at places known only at run time
MIXED = "mixed"


@dataclass(frozen=True)
class ListArg:
    """A list held as an array (a display or comprehension of numbers or arrays), passed to a
    function of the user's or returned by one: it stays a list there (Python's + concatenates
    it, sum() of its Python numbers is Python's), holding Python's numbers where `py_items` (as
    Lowerer.py_items_of gives it) and `layout` (as Lowerer.laid_out gives it) say."""
    py_items: tuple | None = None
    layout: Any = None
    zero_d: bool = False  # holding an array of no axes among its items (Lowerer.holds_zero_d)
    rows: tuple | None = None  # its rows lists or arrays, as far as known (Lowerer.rows_kind)
    unknown: bool = False  # a list's row of a kind catad does not know (Lowerer.unknown_row)


def refuse_item_of_unknown_kind(loc, hint: str):
    """Refuse reading an item of a list holding Python's numbers and NumPy's where catad cannot
    tell, while compiling, which kind the item is (see Lowerer.py_layout)."""
    raise UnsupportedSyntax("an item, at a place known only at run time, of a list that holds Python's numbers and "
                            "NumPy's: Python's arithmetic on Python's raises where NumPy's gives inf or nan, and "
                            "catad cannot tell which this item is", loc, "list item", hint)


def all_py(positions) -> bool:
    """Whether py_positions says every item is one of Python's numbers."""
    return positions == "all" or all(positions)


# a parameter's entry in `pys` (FunctionLowerer) where the caller passes an array of no axes
# (np.where's of numbers): an augmented assignment to it writes into the caller's array
ZERO_D = "zero-d array"

# the names of the Bools of undecided marks (FunctionLowerer.undecided): variables bound nowhere,
# so that nothing takes them for a value known while compiling (a Const would be one)
UNDECIDED = "\0undecided "


def is_undecided(n) -> bool:
    """Whether n is the Bool of an undecided mark (FunctionLowerer.undecided)."""
    return type(n) is Var and n.name.startswith(UNDECIDED)


def reads_undecided(t) -> bool:
    """Whether term t (a mark's condition; None for none) reads an undecided mark."""
    return t is not None and any(is_undecided(n) for n in walk(t))


def joined_flags(a, b):
    """python_flags of a value that is a or b (by the return taken): where they differ, an item
    that is one of Python's numbers at some return is undecided, a list's items are MIXED."""
    if a == b:
        return a
    if isinstance(a, tuple) or isinstance(b, tuple):  # (False: a tuple none of whose items is flagged)
        a, b = (x if isinstance(x, tuple) else (False,) * len(a if isinstance(a, tuple) else b) for x in (a, b))
        return tuple(joined_flags(x, y) for x, y in zip(a, b))
    if isinstance(a, ListArg) != isinstance(b, ListArg):
        raise ListAndArray
    if isinstance(a, ListArg):
        zero_d, rows, unknown = a.zero_d or b.zero_d, a.rows if a.rows == b.rows else None, a.unknown or b.unknown
        return ListArg(None, MIXED, zero_d, rows, unknown) if _holds_py(a) or _holds_py(b) else \
            ListArg(zero_d=zero_d, rows=rows, unknown=unknown)
    if ZERO_D in (a, b) and not {a, b} & {True} and not any(isinstance(f, PythonWhere) for f in (a, b)):
        return ZERO_D  # (an array of no axes at some return: changed in place, it is refused)
    known = {f.type for f in (a, b) if isinstance(f, PythonWhere)} - {None}
    return PythonWhere(known.pop() if len(known) == 1 else None, True)


class ListAndArray(Exception):
    pass


def _holds_py(f: ListArg) -> bool:
    if f.py_items is not None or f.layout is MIXED:
        return True
    return f.layout is not None and (any(f.layout[0]) or f.layout[1] is True or any(f.layout[2]))


NO_ROWS = object()  # (Growing.rows before anything is known of them: nothing held, nothing appended)


def joined_rows(a, b):
    """The rows_kind of a list holding the rows of lists of rows_kind a and b (None: not known; NO_ROWS: no
    rows): as far as both agree."""
    if a is NO_ROWS or b is NO_ROWS:
        return b if a is NO_ROWS else a
    if not a or not b:
        return None
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n] or None
