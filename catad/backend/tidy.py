"""Source-level passes over the generated lines (each line is `name = expr`, a loop
header, or a line of a loop body at deeper indentation; every assignment is pure).

dead_code: drop assignments whose value is never used (a product an einsum made
redundant, a cotangent nobody asked for).

inline_single_use: put an array used once into the expression that uses it. NumPy
then reuses a temporary's buffer for the result when nothing else refers to it
(its temporary elision, for arrays of 256 KiB and more): ``(a * b) + c`` makes one
large array, while ``t = a * b; u = t + c`` makes two. On the GMM gradient
(d10_K25) that is about a fifth of the time; memory and cache traffic drop with it.
"""
from __future__ import annotations

import ast
import keyword
import re
from collections import Counter
from itertools import compress
from typing import Callable, Collection, Iterable

_IDENT = re.compile(r"[A-Za-z_]\w*")  # any identifier: counts uses generously
# a string literal (skipped), or a variable: not after "." or inside a number, not a keyword argument
_NAME = re.compile(r"'[^']*'|\"[^\"]*\"|(?<![\w.])([A-Za-z_]\w*)(?!\w|\s*=(?!=))")
# _NAME's variables in an expression without strings (most lines): the same matches, as the
# regular expression engine finds them about three times as fast (a word boundary, where _NAME
# looks behind for a character that is not a word's; a name read whole, never backtracked into)
_VARIABLE = re.compile(r"\b(?<!\.)([A-Za-z_]\w*+)(?!\s*=(?!=))")
# _NAME with its strings captured too, to split a line that has some
_STRING_OR_NAME = re.compile(r"('[^']*'|\"[^\"]*\")|(?<![\w.])([A-Za-z_]\w*)(?!\w|\s*=(?!=))")
BASE = 2            # the indentation level (in 4 spaces) of the function's body
MAX_NESTING = 6     # inlined definitions nest at most this deep (Python's parser has limits)


def _split(line: str) -> tuple[int, str | None, str]:
    """(indent level, target if `name = expr`, expr or the whole line)."""
    s = line.lstrip(" ")
    indent = (len(line) - len(s)) // 4
    target, sep, expr = s.partition(" = ")
    if sep and target.isidentifier():
        return indent, target, expr
    return indent, None, s


def dead_code(lines: list[str], result: str, kept: Collection[str] = ()) -> list[str]:
    targets, reads = [], []
    for line in lines:
        _, target, expr = _split(line)
        targets.append(target)
        reads.append(_IDENT.findall(expr))
    uses = Counter(_IDENT.findall(result))
    for names in reads:
        uses.update(names)
    keep = _kept(targets, uses, reads.__getitem__, kept)
    return [line for line, k in zip(lines, keep) if k]


def _kept(targets: list, uses: Counter, reads: Callable[[int], Iterable[str]],
          kept: Collection[str] = ()) -> list[bool]:
    """Which lines dead-code elimination keeps, from each line's target (None: not an
    assignment, kept), how often each name is read (by the lines and the result; used up) and
    the names line k reads (asked of the lines dropped); the lines assigning a name in `kept`
    (a value of a primitive that may raise: Compiler.kept) are kept, read or not."""
    keep = [True] * len(targets)
    for k in range(len(targets) - 1, -1, -1):  # later lines first: their uses are final
        target = targets[k]
        if target is not None and uses[target] == 0 and target not in kept:
            keep[k] = False
            uses.subtract(reads(k))
    return keep


def inline_single_use(lines: list[str], result: str, params: list[str],
                      kept: Collection[str] = ()) -> tuple[list[str], str]:
    """Lines and result with dead code gone (as dead_code, from the names each line reads, found
    once for both passes: _kept), then each name that is assigned once at the top level and used
    once, at the top level before any loop, replaced by its (parenthesised) expression.

    One pass, forward: a line that may be put in its name's one use is written, and waits for
    that use; where the use is met (no loop between: a definition carried into or past a loop
    would run once per pass, or see the loop's names change) and the name is an operand of its
    arithmetic there, the expression is put in and the line taken out again. The use is the
    first line after it that reads the name (it is read once), so no table of where each name
    is used is made."""
    parsed = [_split(line) for line in lines]
    refs = [_references(expr) for _, _, expr in parsed]  # read again where a line is substituted
    refs.append(_references(result))
    targets = [target for _, target, _ in parsed]
    # how often the lines kept and the result read each name (_kept takes away the reads of
    # the lines dropped; the lines dropped are passed over below, not copied out of every list)
    uses = Counter(name for found in refs for name in found[1::2])
    keep = _kept(targets, uses, lambda k: refs[k][1::2], kept)
    # the names the lines kept assign more than once (few or none: a set in the cache, not a
    # count of every name, is asked at every line)
    assigned = list(filter(None, compress(targets, keep)))
    again = set() if len(set(assigned)) == len(assigned) else \
        {name for name, n in Counter(assigned).items() if n > 1}
    # name -> (its line's place in out, its expression, nesting, atomic, the loops met before it)
    waiting: dict[str, tuple] = {}
    loops = 0  # the lines of loops (and of blocks) met so far
    shapes = _SHAPES
    out: list[str | None] = []  # (None: a line put in its use)
    for k, (indent, target, expr) in enumerate(parsed):
        if not keep[k]:
            continue
        if indent != BASE:
            loops += 1
            out.append(lines[k])
            continue
        if expr.startswith("for "):
            loops += 1
        found, line = refs[k], expr
        whole = None  # the entry of a name put in for the whole line
        nesting = 0
        shaped = None  # the line's _shape, where made for its operands (its kind reads it too)
        if waiting:
            put, shaped = _arrivals(waiting, line, found, loops, shapes, out)
            if put:
                whole = put.get(found[1]) if len(found) == 3 else None
                expr, nesting = _substitute(expr, put, found)
        if (target is not None and target not in again and uses[target] == 1 and target not in params
                and nesting < MAX_NESTING):
            makes, atomic = _line_kind(shapes, line, found, whole, expr, shaped)
            if makes:
                waiting[target] = (len(out), expr, nesting + 1, atomic, loops)
        if expr is line:  # unchanged (a generated line is indented four spaces a level, as _split reads it)
            out.append(lines[k])
        elif target is not None:
            out.append("    " * indent + f"{target} = {expr}")
        else:
            out.append("    " * indent + expr)
    if waiting:
        put, _ = _arrivals(waiting, result, refs[-1], loops, shapes, out)
        if put:
            result, _ = _substitute(result, put, refs[-1])
    return [line for line in out if line is not None], result


def _arrivals(waiting: dict, expr: str, refs: list, loops: int, shapes: "_Shapes",
              out: list) -> tuple[dict, tuple | None]:
    """The names waiting (see inline_single_use) that expr (whose _references are refs), their
    one use, takes: those met with no loop since their line, which are operands of its
    arithmetic (their lines in out are taken out), as name -> (expression, nesting, atomic);
    and expr's _shape, if made."""
    put, shaped, operands = {}, None, None
    for name in refs[1::2]:
        entry = waiting.pop(name, None)
        if entry is None or entry[4] != loops:
            continue
        if operands is None:
            shaped = _shape(expr, refs)
            operands = shapes.operands(expr, refs, shaped)
        if name in operands:
            put[name] = entry[1:4]
            out[entry[0]] = None
    return put, shaped


def _line_kind(shapes: "_Shapes", line: str, refs: list, whole: tuple | None, expr: str,
               shaped: tuple | None = None) -> tuple[bool, bool]:
    """_array_kind of expr, the line (whose _references are refs) after substitution, read from
    the line as it was: a substitution puts a whole expression in a name's place, in brackets or
    one that stands as an operand (a call, always: only what makes an array is put in), which
    changes no node above the name, so the line's outermost node is its own; unless the line is
    that name alone (`whole`, the entry put in: an array made, atomic as it was found to be).
    `shaped`: the line's _shape, if made already."""
    if whole is not None and refs[0].strip("( ") == "" and refs[2].strip(") ") == "":
        return True, whole[2]
    return shapes.array_kind(line, refs, shaped)


_KEEP = frozenset(keyword.kwlist) | {"np", "contract"}  # the names _array_kind reads, and Python's words


class _Shapes:
    """_array_kind and _operands answered once per shape of expression: the expression with each
    of its variables written _ (np, contract and keywords kept). A long program repeats a few
    shapes over and over (a chain's every statement compiles to the same lines but for the
    names), and a parse costs far more than the renaming. The shape's answers are found from a
    parse of it with each variable written _k, k its place in the expression's _references
    (a renaming of variables, to names Python reads as such, changes no node's kind): both are
    those of the expression itself, _array_kind's depending on no variable's name but np and
    contract, and _operands' read back from the expression's own _references at those places."""

    __slots__ = ("kinds",)

    def __init__(self) -> None:
        # shape -> (its _array_kind, its operands: (the places in its _references of those
        # renamed, the names kept)), or None where the shape does not parse
        self.kinds: dict[str, tuple | None] = {}

    def answers(self, expr: str, refs: list | None = None, shaped: tuple | None = None) -> tuple:
        """(the answers for expr's shape (see kinds), expr's _references). refs: expr's
        _references, if known; shaped: its _shape, if known."""
        shape, refs = shaped or _shape(expr, refs)
        got = self.kinds.get(shape, _UNSEEN)
        if got is _UNSEEN:
            parts = refs.copy()
            for k in range(1, len(parts), 2):
                if parts[k] not in _KEEP:
                    parts[k] = f"_{k}"
            tree = _parse("".join(parts))
            got = None if tree is None else (_kind(tree), _renamed(_operand_names(tree)))
            if len(self.kinds) >= _MAX_SHAPES:  # (the process's shapes are kept: _SHAPES)
                self.kinds.clear()
            self.kinds[shape] = got
        return got, refs

    def array_kind(self, expr: str, refs: list | None = None, shaped: tuple | None = None) -> tuple[bool, bool]:
        got, _ = self.answers(expr, refs, shaped)
        return _array_kind(expr) if got is None else got[0]

    def operands(self, expr: str, refs: list | None = None, shaped: tuple | None = None) -> set:
        got, refs = self.answers(expr, refs, shaped)
        if got is None:
            return _operands(expr)
        places, kept = got[1]
        return {refs[k] for k in places}.union(kept)


def _renamed(found: set) -> tuple[tuple[int, ...], frozenset]:
    """The names of a shape's operands as (the places k of the variables renamed _k, the names
    _shape keeps), so that the expression's own are read from its _references."""
    renamed, kept = [], set()
    for n in found:
        if _RENAMED.fullmatch(n):
            renamed.append(int(n[1:]))
        else:
            kept.add(n)
    return tuple(renamed), frozenset(kept)


_RENAMED = re.compile(r"_\d+")
_UNSEEN = object()


# The shapes met by every compile of the process: the programs a process compiles share most
# (a function's primal, gradient and Hessian-vector product, another signature of it); at most
# _MAX_SHAPES are kept.
_MAX_SHAPES = 20_000
_SHAPES = _Shapes()


def _shape(expr: str, refs: list | None = None) -> tuple[str, list[str]]:
    """(expr with each of its variables written _, expr's _references): see _Shapes. `refs`:
    expr's _references, if known. (No two expressions of one shape differ but for their
    variables' names: written _, a variable is still one, found by _references at the same place,
    and the text between is the same.)"""
    if refs is None:
        refs = _references(expr)
    parts = refs.copy()
    parts[1::2] = [name if name in _KEEP else "_" for name in refs[1::2]]
    return "".join(parts), refs


def _parse(expr: str) -> ast.Expression | None:
    """expr's syntax tree, or None where Python does not parse it (a renamed expression that
    does not, which no generated line is known to make, is answered from the expression itself)."""
    try:
        return ast.parse(expr, mode="eval")
    except SyntaxError:
        return None


def _array_kind(expr: str) -> tuple[bool, bool]:
    """(whether expr computes a new array (or number) by arithmetic, a ufunc or an einsum,
    rather than a view or a helper's result: the temporaries NumPy can reuse; whether it can
    stand as an operand without parentheses, as can also a parenthesised expr: see
    _substitute), from one parse."""
    return _kind(_parse(expr))


def _kind(tree: ast.Expression | None) -> tuple[bool, bool]:
    if tree is None:
        return False, False
    node = tree.body
    atomic = isinstance(node, (ast.Name, ast.Call, ast.Subscript, ast.Attribute, ast.Constant))
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return True, atomic
    if isinstance(node, ast.Call):
        f = node.func
        return ((isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np") or
                (isinstance(f, ast.Name) and f.id == "contract")), atomic
    return False, atomic


def _operands(expr: str) -> set:
    """The names that are operands of arithmetic in expr (where NumPy may reuse them)."""
    tree = _parse(expr)
    return set() if tree is None else _operand_names(tree)


def _operand_names(tree: ast.Expression) -> set:
    out = set()
    stack = [tree.body]
    while stack:  # every node, as ast.walk, without its generators (this runs on every line)
        node = stack.pop()
        cls = type(node)
        if cls is ast.BinOp:
            for o in (node.left, node.right):
                if type(o) is ast.Name:
                    out.add(o.id)
        elif cls is ast.UnaryOp and type(node.operand) is ast.Name:
            out.add(node.operand.id)
        for field in node._fields:
            v = getattr(node, field, None)
            if isinstance(v, ast.AST):
                stack.append(v)
            elif isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, ast.AST))
    return out


def _substitute(expr: str, pending: dict, refs: list) -> tuple[str, int]:
    """expr (whose _references are refs) with the names pending replaced by their expressions
    (parenthesised unless they stand as operands), and the deepest nesting of those."""
    nesting = 0
    parts = None
    for k in range(1, len(refs), 2):
        name = refs[k]
        if name in pending:
            if parts is None:
                parts = refs.copy()
            text, depth, atomic = pending.pop(name)
            nesting = max(nesting, depth)
            atomic = atomic or text.startswith("(") and _closes_at_end(text)
            parts[k] = text if atomic else f"({text})"
    return expr if parts is None else "".join(parts), nesting


def _references(expr: str) -> list[str]:
    """expr split at its variables (not an attribute, a keyword argument's name, or text
    inside a string): the text before the first, the first, the text between it and the
    next, ..., the text after the last. The variables are the odd items; the items joined
    are expr. One call of the regular expression engine where a line is not quoted."""
    if "'" not in expr and '"' not in expr:
        return _VARIABLE.split(expr)
    pieces = _STRING_OR_NAME.split(expr)  # text, string, name, text, ... (one of each pair None)
    parts = [pieces[0]]
    for k in range(1, len(pieces), 3):
        string, name, text = pieces[k:k + 3]
        if name is None:
            parts[-1] += string + text
        else:
            parts += [name, text]
    return parts


_NOT_BRACKETS = re.compile(r"[^()\[\]{}]+")
_AS_PARENTHESES = str.maketrans("[{]}", "(())")


def _closes_at_end(expr: str) -> bool:
    """Does the bracket expr opens with close at its end (reading only its brackets, any
    opening one against any closing one)? It does where expr ends with a bracket and the
    brackets between the two are balanced: their pairs (), taken away over and over, leave
    nothing."""
    if expr[:1] not in ("(", "[", "{"):
        return len(expr) == 1  # (what reading it character by character gives)
    if expr[-1] not in (")", "]", "}") or len(expr) == 1:
        return False
    inner = _NOT_BRACKETS.sub("", expr[1:-1]).translate(_AS_PARENTHESES)
    while "()" in inner:
        inner = inner.replace("()", "")
    return not inner
