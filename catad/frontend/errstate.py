"""``with np.errstate(...):``, whose body is compiled as if the with statement were not there.

np.errstate sets what NumPy does on a floating-point error (a division by zero, an overflow,
an invalid operation, an underflow) while its body runs: ignore it, warn, print or log it,
call a function, or raise FloatingPointError. catad's compiled programs compute what NumPy
computes, its infs and NaNs included, and warn of none of it: a body whose errors are ignored,
warned of or printed computes the same values with catad. One that raises (or calls a function)
is refused: catad does not stop where NumPy would raise.

The body takes the with statement's place when the source is read (`without_contexts`), so that
every later pass sees plain statements; what the name np.errstate denotes is read when the
function is compiled (`check`), and anything else there is refused as a with statement is.
"""
from __future__ import annotations

import ast

import numpy as np

_MODES = {"ignore", "warn", "print"}  # the settings whose values catad computes
_KEYS = {"all", "divide", "over", "under", "invalid"}


def _is_errstate(item: ast.withitem) -> bool:
    """A context written as errstate(...) or a module's errstate(...), with no `as` target."""
    c = item.context_expr
    return item.optional_vars is None and isinstance(c, ast.Call) and (
        isinstance(c.func, ast.Attribute) and c.func.attr == "errstate"
        or isinstance(c.func, ast.Name) and c.func.id == "errstate")


def without_contexts(stmts: list[ast.stmt], contexts: list) -> list[ast.stmt]:
    """stmts, changed in place, with each `with errstate(...):` replaced by its body (in the bodies
    of the statements in them too, nested defs' included), its contexts appended to `contexts`."""
    out: list[ast.stmt] = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                without_contexts(inner, contexts)
        if isinstance(s, ast.Try):
            for h in s.handlers:
                without_contexts(h.body, contexts)
        if isinstance(s, ast.With) and all(_is_errstate(item) for item in s.items):
            contexts.extend(item.context_expr for item in s.items)
            out.extend(s.body)
        else:
            out.append(s)
    if len(out) != len(stmts) or any(a is not b for a, b in zip(out, stmts)):
        stmts[:] = out  # in place: the def's own list, which lowering empties as it goes (Statements.run)
    return stmts


def check(lw, contexts: tuple) -> None:
    """Each context is a call of np.errstate whose settings catad computes the values of."""
    for c in contexts:
        if lw.static(c.func) is not np.errstate:
            lw.fail(c, "with statement", "with statements are not supported (but for np.errstate); enter the "
                    "context outside the function")
        if c.args:
            lw.fail(c, "np.errstate", "np.errstate() takes its settings by keyword here (all=, divide=, over=, "
                    "under=, invalid=)")
        for kw in c.keywords:
            if kw.arg not in _KEYS:
                lw.fail(kw, "np.errstate", f"np.errstate({kw.arg}=...) is not supported; catad takes all=, divide=, "
                        "over=, under= and invalid=")
            if not (isinstance(kw.value, ast.Constant) and kw.value.value in _MODES):
                lw.fail(kw.value, "np.errstate", f"np.errstate({kw.arg}=...) must be 'ignore', 'warn' or 'print' "
                        "here: catad computes NumPy's values (inf, nan) and does not raise FloatingPointError or "
                        "call a function where NumPy would", hint="compute without the setting and check the "
                                                                   "result, e.g. np.isfinite(y).all()")
