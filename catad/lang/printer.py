"""Printing core terms the way the notes do::

    fun f2(x : Float) : Float
      = let { y = x * x }
        let { z = x + y }
        y * z
"""
from __future__ import annotations

from ..primitives.registry import PRIMITIVES
from .fold import FFold, Fold, RFold, Scan, WhileCount
from .terms import ArrayValue, Build, Call, Const, Def, Get, If, Let, Term, Tuple, Var, let_chain

# precedence of infix operators: higher binds tighter
_PREC = {"or": 1, "and": 2, "not ": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "==": 4, "!=": 4,
         "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6, "**": 8}
_ATOM = 10


def show_const(c: Const) -> str:
    v = c.value
    if type(v).__name__ == "_Zero":
        return "0"
    if isinstance(v, ArrayValue):
        return repr(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def show(t: Term, indent: int = 0) -> str:
    return _show(t, indent)[0]


def _show(t: Term, indent: int) -> tuple[str, int]:
    """(text, precedence) of t; multi-line text is indented by `indent` after newlines."""
    if isinstance(t, Var):
        return t.name, _ATOM
    if isinstance(t, Const):
        s = show_const(t)
        return s, (_ATOM if not s.startswith("-") else 7)
    if isinstance(t, Let):
        lets, body = let_chain(t)
        pad = " " * indent
        lines = [f"let {{ {lt.var.name} = {show(lt.rhs, indent + len(lt.var.name) + 9)} }}" for lt in lets]
        lines.append(show(body, indent))
        return ("\n" + pad).join(lines), 0
    if isinstance(t, If):
        pad = " " * (indent + 2)
        return (f"if {show(t.cond, indent + 3)}\n{pad}then {show(t.then, indent + 7)}"
                f"\n{pad}else {show(t.orelse, indent + 7)}"), 0
    if isinstance(t, Build):
        head = f"build({show(t.size, indent)}, \\{t.var.name}. "
        return head + show(t.body, indent + len(head)) + ")", _ATOM
    if isinstance(t, (Fold, FFold, RFold, Scan, WhileCount)):
        return _show_fold(t, indent), _ATOM
    if isinstance(t, Tuple):
        inner = ", ".join(show(x, indent + 1) for x in t.items)
        return f"({inner}{',' if len(t.items) == 1 else ''})", _ATOM
    if isinstance(t, Get):
        n = len(t.tup.type.items)
        return f"get${t.index + 1}${n}({show(t.tup, indent)})", _ATOM
    if isinstance(t, Call):
        return _show_call(t, indent)
    return t.show_with(lambda sub: show(sub, indent + 2)), _ATOM


def _show_fold(t: Term, indent: int) -> str:
    """fold(\\t. e, acc, v), FFold(\\t. e, acc, v, \\t_dt. e_dt, dacc, dv) and
    RFold(\\t. e, \\t_dr. e_dr, acc, v, dr): the arguments in the order of notes Fig. 12."""
    pad = indent + 2
    lam = lambda v, b: f"\\{v.name}. {show(b, pad + len(v.name) + 3)}"  # noqa: E731
    if isinstance(t, (Fold, Scan)):
        parts = [lam(t.var, t.body), show(t.acc, pad), show(t.vec, pad)]
    elif isinstance(t, FFold):
        parts = [lam(t.var, t.body), show(t.acc, pad), show(t.vec, pad), lam(t.dvar, t.dbody),
                 show(t.dacc, pad), show(t.dvec, pad)]
    elif isinstance(t, WhileCount):
        parts = [lam(t.cvar, t.cond), lam(t.var, t.body), show(t.acc, pad)]
    else:
        parts = [lam(t.var, t.body), lam(t.rvar, t.rbody), show(t.acc, pad), show(t.vec, pad), show(t.dr, pad)]
    name = {Fold: "fold", Scan: "scan", WhileCount: "count"}.get(type(t), type(t).__name__)
    one = f"{name}({', '.join(parts)})"
    if "\n" not in one and len(one) < 100:
        return one
    sep = ",\n" + " " * pad
    return f"{name}(" + sep.join(parts) + ")"


def _paren(t: Term, indent: int, min_prec: int) -> str:
    s, p = _show(t, indent)
    return f"({s})" if p < min_prec else s


def _show_call(t: Call, indent: int) -> tuple[str, int]:
    p = PRIMITIVES.get(t.fn)
    if t.fn == "index":
        return f"{_paren(t.args[1], indent, _ATOM)}[{show(t.args[0], indent)}]", _ATOM
    if p is not None and p.infix and len(t.args) == 2:
        prec = _PREC[p.infix]
        right_assoc = p.infix == "**"
        left = _paren(t.args[0], indent, prec + (1 if right_assoc else 0))
        right = _paren(t.args[1], indent, prec + (0 if right_assoc else 1))
        return f"{left} {p.infix} {right}", prec
    if p is not None and p.infix and len(t.args) == 1:
        return f"{p.infix}{_paren(t.args[0], indent, 7)}", 7
    args = ", ".join(show(a, indent + len(t.fn) + 1) for a in t.args)
    return f"{t.fn}({args})", _ATOM


def show_def(d: Def) -> str:
    params = ", ".join(f"{p.name} : {p.type}" for p in d.params)
    head = f"fun {d.name}({params}) : {d.result_type}"
    return f"{head}\n  = {show(d.body, 4)}"
