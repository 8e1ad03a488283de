"""Printing CL in the notation of notes Fig. 9: ``Id``, ``K(k)``, ``P[i1,..,im/n]``,
``F(f)`` (written as the function's name), ``c1 ; c2``, ``(c1, ..., cn)``,
``IF(c1, c2, c3)``, ``L(x, c_r, c_b)`` and ``B(c_s, i, c_e)``.

A let chain prints one binding a line (``L(x, c_r,`` then the body), as CL terms of
real programs are mostly long chains of lets.
"""
from __future__ import annotations

from ..lang.printer import show_const
from ..lang.terms import Const
from . import terms as cl


def show(c: cl.CL, indent: int = 0) -> str:
    pad = "\n" + " " * indent
    if _chain_head(c) is not None:
        lines, closes = [], 0
        while (head := _chain_head(c)) is not None:
            prefix, let = head
            lines.append(f"{prefix}L({let.var.name}, {show(let.rhs, indent + len(prefix) + len(let.var.name) + 4)},")
            closes += 1
            c = let.body
        lines.append(show(c, indent) + ")" * closes)
        return pad.join(lines)
    if isinstance(c, cl.Compose):
        return " ; ".join(_atomic(p, indent) for p in _flatten(c))
    if isinstance(c, cl.Identity):
        return "Id"
    if isinstance(c, cl.Konst):
        return f"K({show_const(Const(c.value, c.ty))})"
    if isinstance(c, cl.Prune):
        return f"P[{','.join(str(i + 1) for i in c.indices)}/{c.n}]"
    if isinstance(c, cl.Proj):
        return f"π{c.index + 1},{c.n}"
    if isinstance(c, cl.Call):
        return c.fn
    if isinstance(c, cl.Tuple):
        return "(" + ", ".join(show(x, indent + 1) for x in c.items) + ")"
    if isinstance(c, cl.If):
        return f"IF({show(c.cond, indent + 3)},{pad}   {show(c.then, indent + 3)},{pad}   {show(c.orelse, indent + 3)})"
    if isinstance(c, cl.Build):
        return f"B({show(c.size, indent + 2)}, {c.var.name},{pad}  {show(c.body, indent + 2)})"
    if isinstance(c, (cl.Fold, cl.Scan)):
        return (f"{'FOLD' if isinstance(c, cl.Fold) else 'SCAN'}({show(c.acc, indent + 5)}, {show(c.vec, indent + 5)}, {c.var.name},"
                f"{pad}     {show(c.body, indent + 5)})")
    if isinstance(c, cl.WhileCount):
        return (f"WHILE({show(c.acc, indent + 6)}, {c.var.name},{pad}      {show(c.cond, indent + 6)},"
                f"{pad}      {show(c.body, indent + 6)})")
    raise TypeError(f"not a CL term: {type(c).__name__}")


def _flatten(c: cl.CL) -> list[cl.CL]:
    parts = []
    while isinstance(c, cl.Compose):
        if isinstance(c.first, cl.Compose):
            parts.extend(_flatten(c.first))
        else:
            parts.append(c.first)
        c = c.second
    return parts + [c]


def _chain_head(c: cl.CL):
    """(printed prefix, Let) when c is a Let, possibly behind prunes: ``P[..] ; L(...)``."""
    if isinstance(c, cl.Let):
        return "", c
    if isinstance(c, cl.Compose):
        parts = _flatten(c)
        if isinstance(parts[-1], cl.Let):
            return "".join(_atomic(p, 0) + " ; " for p in parts[:-1]), parts[-1]
    return None


def _atomic(c: cl.CL, indent: int) -> str:
    s = show(c, indent)
    return f"({s})" if isinstance(c, cl.Let) else s


def show_def(d: cl.CLDef) -> str:
    params = ", ".join(f"{p.name} : {p.type}" for p in d.params)
    return f"def {d.name}({params}) : {d.result_type}\n  = {show(d.body, 4)}"
