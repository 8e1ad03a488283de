"""A Python function's syntax tree, with the positions of its nodes in the real file."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from ..errors import CatadError, Loc, UnsupportedSyntax
from .errstate import without_contexts


@dataclass
class Source:
    fn: Any
    name: str                   # a valid identifier ("lambda" for a lambda)
    file: str
    line_offset: int            # added to ast line numbers to get the file's
    col_offset: int             # indentation removed by dedent
    node: ast.AST               # the FunctionDef or Lambda
    params: tuple[str, ...]     # every parameter: positional ones, *args, keyword-only ones, **kwargs
    body: list[ast.stmt]
    identifiers: frozenset[str]  # every name written in the source: generated names avoid them
    local_names: frozenset[str]  # names the function assigns (Python makes them local)
    positional: tuple[str, ...] = ()  # positional parameters (positional-only ones first)
    n_posonly: int = 0
    vararg: str | None = None   # the name of *args
    kwonly: tuple[str, ...] = ()
    varkw: str | None = None    # the name of **kwargs
    defaulted: frozenset[str] = frozenset()  # the parameters that have default values
    # names read inside the defs and lambdas nested in the function (a call of one may read
    # them), found before lowering: the function's own statements are let go of as they are
    # lowered (Statements.run)
    nested_reads: frozenset[str] = frozenset()
    # the context managers of the with statements whose bodies stand in their place (errstate.py):
    # each compile checks that they are np.errstate's (what a name denotes is read at each call)
    contexts: tuple = ()
    # (line, column) -> its Loc, made once: the front end asks for a node's place at every
    # term it makes from it (a Loc is immutable, so one object serves them all)
    locs: dict = field(default_factory=dict, repr=False, compare=False)

    def signature(self) -> inspect.Signature:
        """The parameters as Python binds a call to them (defaults are placeholders)."""
        P = inspect.Parameter
        ps = [P(n, P.POSITIONAL_ONLY if k < self.n_posonly else P.POSITIONAL_OR_KEYWORD,
                default=_DEFAULT if n in self.defaulted else P.empty) for k, n in enumerate(self.positional)]
        if self.vararg:
            ps.append(P(self.vararg, P.VAR_POSITIONAL))
        ps += [P(n, P.KEYWORD_ONLY, default=_DEFAULT if n in self.defaulted else P.empty) for n in self.kwonly]
        if self.varkw:
            ps.append(P(self.varkw, P.VAR_KEYWORD))
        return inspect.Signature(ps)

    def loc(self, node: ast.AST | None) -> Loc:
        if getattr(node, "lineno", None) is None:
            node = self.node
        key = (node.lineno, node.col_offset)
        made = self.locs.get(key)
        if made is None:
            made = self.locs[key] = Loc(self.file, node.lineno + self.line_offset,
                                        node.col_offset + self.col_offset + 1)
        return made


_DEFAULT = object()


def relocate(e: CatadError, loc: Loc) -> None:
    """Give error e the location loc (one raised without a location, e.g. by a primitive's typing)."""
    e.loc = loc
    e.args = (e._format(),)


def parse_function(fn: Any) -> Source:
    code = fn.__code__
    where = Loc(code.co_filename, code.co_firstlineno)
    if fn.__name__ == "<lambda>":
        return _parse_lambda(fn, where)
    found = _quick_def(fn)
    if found is not None:
        node, offset, indent = found
    else:
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


_DEF = re.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]")


def _quick_def(fn: Any):
    """(the def's node, its line offset, its indentation) from the def's lines in the file,
    found without inspect.getsourcelines, whose tokenizing of the whole block cost more than
    parsing it (a 1,000-line function: 0.03 s against 0.02): the block ends before the first
    line after the def that is less indented or as indented (not blank, not a comment). A
    line inside a string or brackets is not an end; taking one for it cuts the text where it
    does not parse (an unclosed string, bracket or continuation), so what parses is the block
    Python's tokenizer finds. None, for the general way, wherever this is not sure: no source,
    indentation with tabs or form feeds, no def line, text that does not parse to one def."""
    try:
        lines, lnum = inspect.findsource(inspect.unwrap(fn))
    except Exception:
        return None
    first = lines[lnum] if lnum < len(lines) else ""
    indent = len(first) - len(first.lstrip())
    k, end = lnum, len(lines)
    while k < end and not (_DEF.match(lines[k]) and len(lines[k]) - len(lines[k].lstrip()) == indent):
        k += 1  # decorators (their arguments may take several lines)
    last = k
    for k in range(k + 1, end):
        line = lines[k]
        text = line.lstrip()
        if not text or text[0] == "#":
            continue
        if line[:len(line) - len(text)].strip(" "):
            return None  # a tab or a form feed: Python counts its columns otherwise
        if len(line) - len(text) <= indent:
            break
        last = k
    if last == end or first[:indent].strip(" "):
        return None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines[lnum:last + 1])))
    except (SyntaxError, ValueError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return tree.body[0], lnum, indent


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
    if len(found) > 1 and kinds == (ast.Lambda,):
        found = _lambda_at(fn, found)
    if len(found) == 1:
        return found[0]
    if kinds == (ast.Lambda,) and found:
        raise UnsupportedSyntax(f"line {where.line} holds {len(found)} lambdas, so catad cannot tell which "
                                "one to compile", where, "lambda",
                                hint="use a def, or put the lambda on a line of its own")
    raise UnsupportedSyntax(f"cannot find the source of {fn.__qualname__} at line {where.line}", where,
                            "source", hint="define the function with def in a .py file")


def _lambda_at(fn: Any, lambdas: list[ast.Lambda]) -> list[ast.Lambda]:
    """Of several lambdas on one line, the one whose code fn runs: the innermost whose span
    holds the positions of all of fn's instructions (co_positions, Python 3.11+)."""
    positions = getattr(fn.__code__, "co_positions", None)
    if positions is None:
        return lambdas
    spans = [(l, c, el, ec) for l, el, c, ec in positions() if None not in (l, el, c, ec)
             and (l, c) != (el, ec)]
    if not spans:
        return lambdas

    def holds(n):
        lo, hi = (n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)
        return all(lo <= (l, c) and (el, ec) <= hi for l, c, el, ec in spans)
    inside = [n for n in lambdas if holds(n)]
    size = lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset)
    return [min(inside, key=size)] if inside else lambdas


def _make(fn, name, node, body, file, line_offset, col_offset) -> Source:
    contexts: list = []
    body = without_contexts(body, contexts)
    src = Source(fn, name, file, line_offset, col_offset, node, (), body, frozenset(), frozenset())
    src.contexts = tuple(contexts)
    a = node.args
    src.positional = tuple(p.arg for p in a.posonlyargs + a.args)
    src.n_posonly = len(a.posonlyargs)
    src.vararg = a.vararg.arg if a.vararg else None
    src.kwonly = tuple(p.arg for p in a.kwonlyargs)
    src.varkw = a.kwarg.arg if a.kwarg else None  # a dict of the keywords no parameter takes
    src.params = src.positional + ((src.vararg,) if src.vararg else ()) + src.kwonly + \
        ((src.varkw,) if src.varkw else ())
    src.defaulted = frozenset(src.positional[len(src.positional) - len(a.defaults):] if a.defaults else ()) | \
        frozenset(p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    names = set(src.params)
    walrus = False
    nested = []
    for n in _nodes([node]):
        if type(n) is ast.Name:
            names.add(n.id)
        elif type(n) is ast.arg:
            names.add(n.arg)
        elif type(n) is ast.NamedExpr:
            walrus = True
        elif type(n) in (ast.FunctionDef, ast.Lambda) and n is not node:
            nested.append(n)
    src.identifiers = frozenset(names)
    src.nested_reads = frozenset(m.id for n in nested for m in ast.walk(n)
                                 if type(m) is ast.Name and type(m.ctx) is ast.Load)
    src.local_names = frozenset(set(src.params) | assigned_names(body, walrus))
    return src


def from_node(parent: Source, node: ast.FunctionDef | ast.Lambda) -> Source:
    """A def or lambda written inside the function `parent` (it has no function object while
    compiling: catad compiles it where it is called)."""
    body = node.body if isinstance(node, ast.FunctionDef) else [ast.copy_location(ast.Return(value=node.body),
                                                                                  node.body)]
    name = node.name if isinstance(node, ast.FunctionDef) else "lambda"
    return _make(None, name, node, body, parent.file, parent.line_offset, parent.col_offset)


def assigned_names(body: list[ast.stmt], walrus: bool = True) -> set[str]:
    """The names a function body binds, which Python makes its locals: assignment and loop
    targets, and nested defs; not what the nested defs and lambdas themselves bind. Without
    `walrus` (the caller found no := in the body), no expression binds a name: only the
    statements are walked, not the expressions in them (most of a body's nodes)."""
    local: set[str] = set()
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if not walrus and isinstance(n, ast.expr):
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(n.name)  # its body is its own scope; its defaults and decorators are ours
            todo += n.decorator_list + (n.args.defaults + [d for d in n.args.kw_defaults if d is not None]
                                        if not isinstance(n, ast.ClassDef) else n.bases)
            continue
        if isinstance(n, ast.Lambda):
            todo += n.args.defaults + [d for d in n.args.kw_defaults if d is not None]
            continue
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                stored = stored_names(t)  # (most targets: no walk)
                local.update(stored if stored is not None else
                             (m.id for m in _nodes([t]) if type(m) is ast.Name and type(m.ctx) is ast.Store))
            if not walrus and not isinstance(n, (ast.For, ast.AsyncFor)):
                continue  # what else it holds is expressions
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            local.add(n.target.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            local.update((a.asname or a.name.partition(".")[0]) if isinstance(n, ast.Import) else (a.asname or a.name)
                         for a in n.names)
        _children(n, todo)
    return local


def stored_names(target: ast.expr) -> list[str] | None:
    """The names an assignment target made of names, tuples and lists only binds (x; a, b;
    (a, [b, c])), each node of it in the Store context; None for any other target (a subscript,
    an attribute, a starred name), which the callers walk."""
    out, todo = [], [target]
    while todo:
        n = todo.pop()
        if not isinstance(getattr(n, "ctx", None), ast.Store):
            return None
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, (ast.Tuple, ast.List)):
            todo.extend(n.elts)
        else:
            return None
    return out


_FIELDS: dict[type, tuple[str, ...]] = {}  # a class of node -> its fields that may hold names
_NO_NAMES = frozenset({"ctx", "op", "ops"})  # Load, Store, Add, Lt, ...: nodes without fields
# the fields of the commonest classes that hold an identifier or a constant, never a node
_SCALARS = {ast.Name: ("id",), ast.Constant: ("value", "kind"), ast.Attribute: ("attr",), ast.keyword: ("arg",),
            ast.arg: ("arg", "type_comment"), ast.Assign: ("type_comment",)}


def _fields(cls: type) -> tuple[str, ...]:
    """The fields of a class of node that the walks read (not _NO_NAMES, not _SCALARS)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        skip = _SCALARS.get(cls, ())
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _NO_NAMES and f not in skip)
    return fields


def _children(n: ast.AST, out: list) -> None:
    """n's child nodes appended to out (ast.iter_child_nodes without its generators, and without
    the contexts of names and the operators, nodes with no fields: this runs at every node of a
    function's body)."""
    for field in _fields(type(n)):
        v = getattr(n, field, None)
        if type(v) is list:
            out.extend([x for x in v if isinstance(x, ast.AST)])
        elif isinstance(v, ast.AST):
            out.append(v)


def _nodes(roots: list) -> list[ast.AST]:
    """Every node under the roots, themselves included, but the contexts of names and the
    operators (as ast.walk, in another order)."""
    out: list[ast.AST] = []
    todo = list(roots)
    node = ast.AST
    while todo:
        n = todo.pop()
        out.append(n)
        fields = _FIELDS.get(type(n))
        for field in fields if fields is not None else _fields(type(n)):  # (_children written in: its call
            v = getattr(n, field, None)                                   # at each node cost a third of this)
            if type(v) is list:
                todo.extend([x for x in v if isinstance(x, node)])
            elif isinstance(v, node):
                todo.append(v)
    return out
