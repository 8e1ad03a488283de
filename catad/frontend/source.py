"""A Python function's syntax tree, with the positions of its nodes in the real file."""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Any

from ..errors import CatadError, Loc, UnsupportedSyntax


@dataclass
class Source:
    fn: Any
    name: str                   # a valid identifier ("lambda" for a lambda)
    file: str
    line_offset: int            # added to ast line numbers to get the file's
    col_offset: int             # indentation removed by dedent
    node: ast.AST               # the FunctionDef or Lambda
    params: tuple[str, ...]
    body: list[ast.stmt]
    identifiers: frozenset[str]  # every name written in the source: generated names avoid them
    local_names: frozenset[str]  # names the function assigns (Python makes them local)

    def loc(self, node: ast.AST | None) -> Loc:
        if getattr(node, "lineno", None) is None:
            node = self.node
        return Loc(self.file, node.lineno + self.line_offset, node.col_offset + self.col_offset + 1)


def relocate(e: CatadError, loc: Loc) -> None:
    """Give error e the location loc (one raised without a location, e.g. by a primitive's typing)."""
    e.loc = loc
    e.args = (e._format(),)


def parse_function(fn: Any) -> Source:
    code = fn.__code__
    where = Loc(code.co_filename, code.co_firstlineno)
    if fn.__name__ == "<lambda>":
        return _parse_lambda(fn, where)
    try:
        lines, start = inspect.getsourcelines(fn)
    except Exception as e:  # OSError, TypeError, or the tokenizer's errors on odd files
        raise UnsupportedSyntax(f"cannot read the source of {fn.__qualname__}: {e}", where, "source",
                                hint="define the function in a .py file") from None
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
        node, offset = tree.body[0], start - 1
    except (SyntaxError, IndexError):
        # e.g. a multi-line string less indented than the def defeats dedent: parse the file
        node, offset, indent = _find_in_file(fn, where, (ast.FunctionDef, ast.AsyncFunctionDef)), 0, 0
    if isinstance(node, ast.AsyncFunctionDef):
        raise UnsupportedSyntax(f"async def {fn.__name__}: coroutines are not supported",
                                Loc(where.file, node.lineno + offset, node.col_offset + indent + 1),
                                "async def", hint="use a plain def")
    if not isinstance(node, ast.FunctionDef):
        raise UnsupportedSyntax(f"cannot find the definition of {fn.__qualname__} in its source", where,
                                "source", hint="define the function with def or a lambda")
    return _make(fn, fn.__name__, node, node.body, code.co_filename, offset, indent)


def _parse_lambda(fn: Any, where: Loc) -> Source:
    lam = _find_in_file(fn, where, (ast.Lambda,))
    ret = ast.Return(value=lam.body)
    ast.copy_location(ret, lam.body)
    return _make(fn, "lambda", lam, [ret], where.file, 0, 0)


def _find_in_file(fn: Any, where: Loc, kinds: tuple) -> ast.AST:
    """The one node of `kinds` that starts on fn's first line, from a parse of the whole file."""
    try:
        lines, _ = inspect.findsource(fn)
        tree = ast.parse("".join(lines))
    except Exception as e:
        raise UnsupportedSyntax(f"cannot read the source of {fn.__qualname__}: {e}", where, "source",
                                hint="define the function in a .py file") from None

    def first_line(n):
        decorators = getattr(n, "decorator_list", None)
        return decorators[0].lineno if decorators else n.lineno
    found = [n for n in ast.walk(tree) if isinstance(n, kinds) and first_line(n) == where.line]
    if len(found) == 1:
        return found[0]
    if kinds == (ast.Lambda,) and found:
        raise UnsupportedSyntax(f"line {where.line} holds {len(found)} lambdas, so catad cannot tell which "
                                "one to compile", where, "lambda",
                                hint="use a def, or put the lambda on a line of its own")
    raise UnsupportedSyntax(f"cannot find the source of {fn.__qualname__} at line {where.line}", where,
                            "source", hint="define the function with def in a .py file")


def _make(fn, name, node, body, file, line_offset, col_offset) -> Source:
    src = Source(fn, name, file, line_offset, col_offset, node, (), body, frozenset(), frozenset())
    a = node.args
    if a.vararg or a.kwarg:
        raise UnsupportedSyntax(f"{name} takes *args or **kwargs, which are not supported", src.loc(node),
                                "*args", hint="declare each parameter by name")
    if a.kwonlyargs:
        raise UnsupportedSyntax(f"{name} has keyword-only parameters, which are not supported",
                                src.loc(node), "keyword-only parameter", hint="use positional parameters")
    if a.defaults or any(d is not None for d in a.kw_defaults):
        raise UnsupportedSyntax(f"{name} has parameters with default values, which are not supported",
                                src.loc(node), "default value", hint="pass every argument explicitly")
    src.params = tuple(p.arg for p in a.posonlyargs + a.args)
    names, local = set(src.params), set(src.params)
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                local.update(m.id for m in ast.walk(t) if isinstance(m, ast.Name) and isinstance(m.ctx, ast.Store))
    src.identifiers, src.local_names = frozenset(names), frozenset(local)
    return src
