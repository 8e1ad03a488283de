"""The function's own exceptions: ``if cond: raise ValueError(msg)`` and ``assert cond, msg``.

Python raises there, so the compiled program does too: each becomes a run-time ``check``
whose error is the user's exception class (catad.errors.raised: also a CatadError, located at
the raise) with the user's message. A message is a string, or an f-string of numbers and shapes,
computed only where the check fails (as Python computes it only when it raises). A condition known while compiling
(``x.ndim != 1``) leaves nothing to check when it holds; when it fails, the raise happens on
every call with arguments of these types, and the rest of the function is dead code.

``Raises`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
import re

from ..errors import raisable
from ..lang.terms import Const, If, Term, Tuple, is_atom
from ..lang.types import Bool, Float, Int, Tuple as TupleT
from ..primitives import prim
from .common import static_bool

_SIZES = ("shape", "ndim", "size")


def raising_arm(stmts: list[ast.stmt]) -> ast.Raise | None:
    """The raise statement an if's arm consists of (beside docstrings and pass), or None."""
    body = [s for s in stmts if not isinstance(s, ast.Pass)
            and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return body[0] if len(body) == 1 and isinstance(body[0], ast.Raise) else None


def _renumber(template: str, by: int) -> str:
    """template with its fields {k...} made {k + by...} (a message joined after another)."""
    return re.sub(r"(?<!\{)\{(\d+)", lambda m: "{%d" % (int(m.group(1)) + by), template)


def _brace(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


class Raises:
    """Uses the lowerer's b (the Builder), expr, condition, static_test, static and fail."""

    def raise_unless(self, s: ast.Raise | ast.Assert, ok: Term, pieces: list) -> None:
        """The check that raises what s raises where ok is False. The message's values are
        computed only there, as Python computes them (a value whose reading cannot raise, such
        as a variable or len(x), is read directly)."""
        loc = self.loc(s)
        if not is_atom(ok):  # the user's condition, computed once where Python computes it
            v = self.b.bound(self.b.var(Bool, loc, "_ok"), ok)
            pieces.append(("let", v, ok, loc))
            ok = v
        cls, template, values = self.raised_error(s)
        construct = "assert" if isinstance(s, ast.Assert) else "raise"
        if not template:  # Python's message is empty: show the statement instead
            template = _brace(ast.unparse(s))
        if all(self._plain_read(v) for v in values):
            data = tuple(self.message_value(v) for v in values)
        else:
            with self.branch():
                shown = [self.message_value(v) for v in values]
            lazy = If(ok, Tuple(tuple(_zero(t.type, loc) for t in shown), loc), Tuple(tuple(shown), loc), loc)
            data = self.b.bound(self.b.var(lazy.type, loc, "_shown"), lazy)
            pieces.append(("let", data, lazy, loc))
        for v, rhs, at in self.b.check(ok, data, loc, construct, template, kind="raise", raises=cls):
            pieces.append(("let", v, rhs, at))

    def raise_statement(self, s: ast.Raise | ast.Assert, pieces: list) -> bool:
        """A raise, or an assert, lowered where it stands; True when it fails whatever the
        values (a raise, or an assert of a condition false while compiling)."""
        if isinstance(s, ast.Raise):
            ok = Const(False, Bool)
        else:
            known = self.static_test(s.test)
            ok = self.condition(s.test, "assert") if known is None else Const(known, Bool)
            known = static_bool(ok)
            ok = ok if known is None else Const(known, Bool)
            if known is True:
                self.raised_error(s)  # its message is still one catad can show
                return False
        self.raise_unless(s, ok, pieces)
        return isinstance(ok, Const)

    def raise_in_if(self, s: ast.If, pieces: list) -> tuple[list[ast.stmt], bool]:
        """`if cond: raise E(...)` (or an else arm that raises): its check, and the statements of
        the other arm, which run next; or, when cond is known while compiling, the arm Python
        runs, and whether that is a raise (on every call with these argument types)."""
        cond = self.condition(s.test, "if statement")
        then_raise, else_raise = raising_arm(s.body), raising_arm(s.orelse)
        known = static_bool(cond)
        if known is not None:
            taken = then_raise if known else else_raise
            if taken is None:
                return (s.body if known else s.orelse), False
            self.raise_unless(taken, Const(False, Bool), pieces)
            return [], True
        if then_raise is not None:
            self.raise_unless(then_raise, prim("not", cond, loc=self.loc(s.test)), pieces)
            return s.orelse, False
        self.raise_unless(else_raise, cond, pieces)
        return s.body, False

    def raises_always(self) -> bool:
        """Whether the function's body ends in a raise (it has no return then)."""
        return bool(self.src.body) and isinstance(self.src.body[-1], ast.Raise)

    def refuse_raise_always(self, s: ast.stmt) -> None:
        self.fail(s, "raise", "this raise happens on every call with arguments of these types, inside a loop, "
                  "a branch that returns or a helper function, which is not supported",
                  hint="check the arguments before calling, or raise in the function's own body")

    # ------------------------------------------------------------ what is raised

    def raised_error(self, s: ast.Raise | ast.Assert) -> tuple[type, str, tuple]:
        """(exception class, message template over data, data terms) of a raise or an assert."""
        if isinstance(s, ast.Assert):
            return AssertionError, *self.message(s.msg, s)
        if s.exc is None:
            self.fail(s, "raise", "a bare raise re-raises the exception being handled, and a compiled function "
                                  "handles none", hint="raise an exception: raise ValueError('...')")
        call = s.exc if isinstance(s.exc, ast.Call) else None
        cls = self.static(call.func if call is not None else s.exc)
        if not raisable(cls):
            what = getattr(cls, "__name__", None) or ast.unparse(call.func if call is not None else s.exc)
            self.fail(s, "raise", f"{what} is not an exception class a compiled function can raise; it raises "
                      "Python's built-in exceptions (ValueError, TypeError, AssertionError, ...) and NumPy's "
                      "LinAlgError", hint="raise one of those, or check the arguments before calling")
        if call is None:
            return cls, "", []
        if call.keywords or len(call.args) > 1 or any(isinstance(a, ast.Starred) for a in call.args):
            self.fail(s, "raise", f"{cls.__name__}(...) with more than one argument is not supported (Python "
                      "shows the tuple of them)", hint="pass one message: raise ValueError(f'...')")
        return cls, *self.message(call.args[0] if call.args else None, s)

    def message(self, node: ast.expr | None, s: ast.stmt) -> tuple[str, list]:
        """(template, values): the message as a str.format template over the values (nodes)."""
        from .freenames import NOT_STATIC  # freenames imports statements, which imports this
        if node is None:
            return "", []
        text = self.static_str(node)  # a constant, or a str argument or global
        if text is not NOT_STATIC:
            return _brace(text), []
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # "bad kind " + kind
            (a, da), (b, db) = self.message(node.left, s), self.message(node.right, s)
            return a + _renumber(b, len(da)), da + db
        parts = node.values if isinstance(node, ast.JoinedStr) else [ast.FormattedValue(node, -1, None)]
        template, data = [], []
        for p in parts:
            if isinstance(p, ast.Constant):
                template.append(_brace(str(p.value)))
                continue
            text = self.static_str(p.value)
            if text is not NOT_STATIC and p.format_spec is None and p.conversion in (-1, ord("s")):
                template.append(_brace(text))
                continue
            if p.conversion not in (-1, ord("s")):
                self.fail(p, "raise", "a message's value is shown with !r or !a, which prints NumPy's numbers "
                          "otherwise than Python's", hint="show it with {x} instead")
            spec = ""
            if p.format_spec is not None:
                if not all(isinstance(q, ast.Constant) for q in p.format_spec.values):
                    self.fail(p, "raise", "a message's format spec must be a constant, e.g. {x:.3f}")
                spec = ":" + _brace("".join(str(q.value) for q in p.format_spec.values))
            template.append("{%d%s}" % (len(data), spec))
            data.append(p.value)
        return "".join(template), data

    def message_value(self, node: ast.expr) -> Term:
        """A number or a shape shown in a message."""
        t = self.expr(node)
        if not _shown(t.type):
            self.fail(node, "raise", f"the message shows a {t.type}; catad shows numbers and shapes",
                      hint="show len(x) or x.shape instead of an array")
        return t

    def _plain_read(self, node: ast.expr) -> bool:
        """Whether reading node cannot raise (a variable, a constant, a size)."""
        if isinstance(node, (ast.Name, ast.Constant)):
            return True
        if isinstance(node, ast.Attribute):
            from .freenames import NOT_STATIC  # freenames imports statements, which imports this
            return node.attr in _SIZES and isinstance(node.value, ast.Name) or \
                self.static(node) is not NOT_STATIC
        if isinstance(node, ast.Subscript):  # x.shape[k]
            return isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and \
                isinstance(node.value.value, ast.Name) and isinstance(node.slice, ast.Constant)
        if isinstance(node, ast.Call):  # len(x)
            return isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and \
                isinstance(node.args[0], ast.Name) and not node.keywords
        return False


def _zero(t, loc) -> Term:
    if isinstance(t, TupleT):
        return Tuple(tuple(_zero(x, loc) for x in t.items), loc)
    return Const({Int: 0, Bool: False}.get(t, 0.0), t, loc)


def _shown(t) -> bool:
    return t in (Int, Float, Bool) or isinstance(t, TupleT) and all(x == Int for x in t.items)
