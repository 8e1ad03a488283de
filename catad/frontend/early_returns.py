"""An if statement that returns on some of its paths, not on all of either arm, followed by more
statements: the statements after it would be lowered once into each arm (Statements.run), and
each such if further on doubles them again, so that a function of a few such ifs made a
program exponentially long (a 120-line function: a core program of 5,000 lines, 5 s to a
gradient, 30 s to a Hessian). Rewritten here, on the syntax tree, to set a flag instead:

    if a:                       RETURNED = False
        if b:                   if a:
            return e                if b:
        x = 1          ->               RETURNED = True; RESULT = e
    rest                            if not RETURNED:
                                        x = 1
                                if RETURNED:
                                    return RESULT
                                rest

whose last if always returns in its arm, so that rest is lowered once. RESULT is bound on the
paths that return only, and what `if not RETURNED` assigns on the paths that do not: an if
joins them with a placeholder of their type where an arm leaves them unbound
(Statements.if_statement), which the flag never lets through.
"""
from __future__ import annotations

import ast

RETURNED, RESULT = "\0returned", "\0result"  # (names no Python code can write)

# statements the rewrite passes through as they are, unless a return is in them (then s is left to
# the usual lowering); and those it never rewrites around (a break or continue of an enclosing
# loop, a def)
_BLOCKS = (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith)
_REFUSED = (ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def is_result(name: str) -> bool:
    return name.startswith(RESULT)


def is_guard(s: ast.If) -> bool:
    """s is `if not RETURNED: rest`: its other arm runs only where the function has returned, so
    what rest assigns is never read there (Statements.if_statement joins it with a placeholder)."""
    return getattr(s, "catad_guard", False)


def flagged(s: ast.If) -> list[ast.stmt] | None:
    """The statements that do what s does, its returns made a flag and a result, ending in the
    if that returns the result where the flag is set; None where s holds a statement the rewrite
    does not follow (a return in a loop, a break, a def)."""
    if any(isinstance(n, _BLOCKS) and _returns_in(n) or isinstance(n, _REFUSED) for n in _statements(s, _BLOCKS)):
        return None
    k = f"{s.lineno}_{s.col_offset}"  # (deterministic: a compile's names are the same each time)
    flag, result = f"{RETURNED}{k}", f"{RESULT}{k}"
    out = [_at(ast.Assign(targets=[_name(flag, ast.Store(), s)], value=_at(ast.Constant(False), s)), s)]
    out += _without_returns([s], flag, result)
    out.append(_at(ast.If(test=_name(flag, ast.Load(), s), body=[_at(ast.Return(value=_name(result, ast.Load(), s)), s)],
                          orelse=[]), s))
    return out


def _without_returns(block: list[ast.stmt], flag: str, result: str) -> list[ast.stmt]:
    """block with each return setting the flag and the result, and what follows a statement that
    may have returned run only where it has not."""
    out: list[ast.stmt] = []
    for k, st in enumerate(block):
        if isinstance(st, ast.Return):
            out.append(_at(ast.Assign(targets=[_name(flag, ast.Store(), st)], value=_at(ast.Constant(True), st)), st))
            out.append(_at(ast.Assign(targets=[_name(result, ast.Store(), st)], value=st.value), st))
            return out  # what follows a return is never run
        if isinstance(st, ast.If) and _returns_in(st):
            out.append(_at(ast.If(test=st.test, body=_without_returns(st.body, flag, result) or [_at(ast.Pass(), st)],
                                  orelse=_without_returns(st.orelse, flag, result)), st))
            rest = block[k + 1:]
            if rest:
                test = _at(ast.UnaryOp(op=ast.Not(), operand=_name(flag, ast.Load(), st)), st)
                guard = _at(ast.If(test=test, body=_without_returns(rest, flag, result), orelse=[]), rest[0])
                guard.catad_guard = True  # see is_guard
                out.append(guard)
            return out
        out.append(st)
    return out


def _returns_in(s: ast.stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in _statements(s))


def _statements(s: ast.stmt, stop: tuple = ()):
    """s and the statements nested in it (not in a def nested in it, nor in a `stop` statement)."""
    todo = [s]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) + stop) or n is s:
            todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt))


def _name(name: str, ctx, at: ast.AST) -> ast.Name:
    return _at(ast.Name(id=name, ctx=ctx), at)


def _at(node, at: ast.AST):
    return ast.copy_location(node, at)
