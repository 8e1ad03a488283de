"""Example arguments for `catad explain`: type strings, annotations, values.

A type string is a comma-separated list of types::

    type := float | int | bool
          | vec | vec[n]              a float array of length n (default 4)
          | mat | mat[m, n]           an m x n float array (default 3 x 4)
          | ( type, type, ... )       a tuple (a 1-tuple is written "(float,)")

Values are small, deterministic and non-degenerate: floats (scalars and array
entries) are drawn in order from ``np.random.default_rng(0)``, uniform in
[0.5, 1.5] and rounded to 3 decimals; an int is 3 and a bool is True.

Every problem raises :class:`ArgsError` with a one-line message.
"""
from __future__ import annotations

import ast
import inspect
import re
import typing
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

VEC_LEN = 4
MAT_SHAPE = (3, 4)
INT_VALUE = 3
BOOL_VALUE = True
WORDS = ("float", "int", "bool", "vec", "mat")
# Example values only fix the types: a derivation is the same at every size, so a size
# that could exhaust memory is refused rather than allocated.
MAX_ELEMENTS = 10 ** 7
MAX_NESTING = 100


class ArgsError(Exception):
    """A bad type string or annotation (the message is one line)."""


# ------------------------------------------------------------------ types

@dataclass(frozen=True)
class ArgType:
    """One argument type: kind is a word of WORDS or "tuple"."""

    kind: str
    shape: tuple[int, ...] = ()
    items: tuple["ArgType", ...] = ()

    def __str__(self) -> str:
        if self.kind == "tuple":
            inner = ", ".join(map(str, self.items))
            return f"({inner},)" if len(self.items) == 1 else f"({inner})"
        if self.kind in ("vec", "mat"):
            return f"{self.kind}[{', '.join(map(str, self.shape))}]"
        return self.kind


def scalar(kind: str) -> ArgType:
    return ArgType(kind)


def vec(n: int = VEC_LEN) -> ArgType:
    return ArgType("vec", (n,))


def mat(m: int = MAT_SHAPE[0], n: int = MAT_SHAPE[1]) -> ArgType:
    return ArgType("mat", (m, n))


def tuple_of(items) -> ArgType:
    return ArgType("tuple", (), tuple(items))


# ------------------------------------------------------------------ parsing type strings

_TOKEN = re.compile(r"\s*(?:(?P<word>[A-Za-z_][A-Za-z_0-9]*)|(?P<num>-?\d+)|(?P<punct>[\[\](),]))")


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            rest = text[pos:]
            if rest.strip():
                col = pos + len(rest) - len(rest.lstrip())
                raise ArgsError(f"unexpected {text[col]!r} at column {col + 1} in {text!r}")
            return out
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.k = 0
        self.depth = 0  # of tuple parentheses

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.k] if self.k < len(self.toks) else None

    def where(self) -> str:
        t = self.peek()
        return f"at column {t[2] + 1}" if t else "at the end"

    def expect(self, value: str) -> None:
        t = self.peek()
        if t is None:
            raise ArgsError(f"expected {value!r} at the end of {self.text!r}")
        if t[1] != value:
            if t[1] in ")]" and value == ",":
                raise ArgsError(f"unexpected {t[1]!r} {self.where()} in {self.text!r}")
            raise ArgsError(f"expected {value!r} but found {t[1]!r} {self.where()} in {self.text!r}")
        self.k += 1

    def accept(self, value: str) -> bool:
        t = self.peek()
        if t is not None and t[1] == value:
            self.k += 1
            return True
        return False

    def type_list(self, close: str | None) -> list[ArgType]:
        """types separated by commas, up to `close` (or the end); a trailing comma is allowed."""
        items: list[ArgType] = []
        while True:
            t = self.peek()
            if t is None or (close is not None and t[1] == close):
                return items
            items.append(self.type())
            t = self.peek()
            if t is None or (close is not None and t[1] == close):
                return items
            self.expect(",")

    def type(self) -> ArgType:
        t = self.peek()
        if t is None:
            raise ArgsError(f"expected a type at the end of {self.text!r}")
        kind, value, col = t
        if value == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise ArgsError(f"tuples nested more than {MAX_NESTING} deep at column {col + 1} in "
                                f"{_clip(self.text)}")
            self.k += 1
            items = self.type_list(")")
            self.depth -= 1
            trailing_comma = self.toks[self.k - 1][1] == ","
            self.expect(")")
            if not items:
                raise ArgsError(f"empty tuple at column {col + 1} in {self.text!r}")
            if len(items) == 1 and not trailing_comma:  # "(float)" is float; "(float,)" a 1-tuple
                return items[0]
            return tuple_of(items)
        if kind != "word":
            raise ArgsError(f"expected a type but found {value!r} at column {col + 1} in {self.text!r}")
        word = value.lower()
        if word not in WORDS:
            raise ArgsError(f"unknown type {value!r} in {self.text!r}{_suggest(word)}; "
                            f"types are {', '.join(WORDS)}, vec[n], mat[m,n] and (tuples, of, these)")
        self.k += 1
        if word in ("float", "int", "bool"):
            if self.peek() is not None and self.peek()[1] == "[":
                raise ArgsError(f"{word} takes no size, {self.where()} in {self.text!r}")
            return scalar(word)
        if not self.accept("["):
            return vec() if word == "vec" else mat()
        dims = []
        while True:
            d = self.peek()
            if d is None:
                raise ArgsError(f"expected a size in {word}[...] at the end of {self.text!r}")
            if d[0] != "num":
                raise ArgsError(f"expected a size in {word}[...] but found {d[1]!r} {self.where()} "
                                f"in {self.text!r}")
            n = int(d[1])
            if n < 1:
                raise ArgsError(f"size {n} in {word}[...] must be at least 1 in {self.text!r}")
            dims.append(n)
            self.k += 1
            if self.accept("]"):
                break
            self.expect(",")
        want = 1 if word == "vec" else 2
        if len(dims) != want:
            example = "vec[4]" if word == "vec" else "mat[3, 4]"
            raise ArgsError(f"{word} takes {want} size{'s' if want > 1 else ''} (like {example}), "
                            f"got {word}[{', '.join(map(str, dims))}] in {self.text!r}")
        return ArgType(word, tuple(dims))


def _suggest(word: str) -> str:
    import difflib
    close = difflib.get_close_matches(word, WORDS, n=2, cutoff=0.5)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def parse_types(text: str) -> list[ArgType]:
    """The types of a comma-separated list such as ``"float, vec[3], (float, mat)"``."""
    p = _Parser(text)
    items = p.type_list(None)
    if p.peek() is not None:  # a stray ')' or ']'
        raise ArgsError(f"unexpected {p.peek()[1]!r} {p.where()} in {text!r}")
    return items


# ------------------------------------------------------------------ annotations

def _from_annotation_object(a: Any) -> ArgType | None:
    if a is float:
        return scalar("float")
    if a is int:
        return scalar("int")
    if a is bool:
        return scalar("bool")
    if a is np.ndarray:
        return vec()
    if isinstance(a, type) and issubclass(a, np.floating):
        return scalar("float")
    if isinstance(a, str):
        return _from_annotation_string(a)
    origin = typing.get_origin(a)
    if origin is np.ndarray:  # np.ndarray[...] and numpy.typing.NDArray[...]
        return vec()
    if origin is tuple:
        args = typing.get_args(a)
        if not args or Ellipsis in args:
            return None
        items = [_from_annotation_object(x) for x in args]
        return None if any(i is None for i in items) else tuple_of(items)
    return None


def _from_annotation_string(text: str) -> ArgType | None:
    try:
        return _from_annotation_ast(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        return None


_ARRAY_NAMES = {"ndarray", "NDArray", "ArrayLike"}
_TUPLE_NAMES = {"tuple", "Tuple"}


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _from_annotation_ast(node: ast.AST) -> ArgType | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        # a string annotation: "vec", "mat[3, 4]", "(float, vec)", or a quoted Python type
        try:
            items = parse_types(node.value)
        except ArgsError:
            return _from_annotation_string(node.value)
        return items[0] if len(items) == 1 else None
    name = _dotted(node)
    if name is not None:
        last = name.rsplit(".", 1)[-1]
        if name in WORDS:
            return parse_types(name)[0]
        if last in _ARRAY_NAMES:
            return vec()
        if last in ("float64", "float32", "floating"):
            return scalar("float")
        return None
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value)
        last = base.rsplit(".", 1)[-1] if base else None
        if last in _ARRAY_NAMES:
            return vec()
        if base in ("vec", "mat"):  # vec[5], mat[2, 3] written as Python subscripts
            try:
                return parse_types(ast.unparse(node))[0]
            except ArgsError:
                return None
        if last in _TUPLE_NAMES:
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if not elts or any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elts):
                return None
            items = [_from_annotation_ast(e) for e in elts]
            return None if any(i is None for i in items) else tuple_of(items)
    return None


def _describe_annotation(a: Any) -> str:
    if isinstance(a, str):
        return a
    if isinstance(a, type):
        return a.__qualname__ if a.__module__ == "builtins" else f"{a.__module__}.{a.__qualname__}"
    return repr(a)


def positional_params(fn: Callable) -> list["inspect.Parameter"]:
    """fn's positional parameters; ArgsError for *args, **kwargs and keyword-only parameters
    without defaults (catad passes arguments positionally)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise ArgsError(f"cannot read the parameters of {getattr(fn, '__name__', fn)!r}: {e}") from None
    out = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind == p.VAR_POSITIONAL else "**"
            raise ArgsError(f"{fn.__name__} has a {star}{p.name} parameter; catad explains functions "
                            f"with a fixed list of parameters")
        if p.kind == p.KEYWORD_ONLY:
            if p.default is p.empty:
                raise ArgsError(f"{fn.__name__} has a keyword-only parameter {p.name!r} without a default; "
                                f"catad passes arguments positionally")
            continue
        out.append(p)
    return out


def types_from_annotations(fn: Callable) -> list[ArgType]:
    """The example types of fn's parameters, from their annotations."""
    params = positional_params(fn)
    out = []
    for p in params:
        if p.annotation is p.empty:
            raise ArgsError(f"parameter {p.name!r} of {fn.__name__} has no type annotation; "
                            f"pass the types with --args (e.g. --args \"{_args_example(len(params))}\")")
        t = _from_annotation_object(p.annotation)
        if t is None:
            raise ArgsError(f"cannot make an example argument for parameter {p.name!r} of {fn.__name__} "
                            f"from its annotation {_describe_annotation(p.annotation)!r}; annotate it with "
                            f"float, int, bool, np.ndarray, \"vec\", \"mat\" or tuple[...], or pass --args")
        out.append(t)
    return out


def _args_example(n: int) -> str:
    return ", ".join(["float"] * max(n, 1))


def check_count(fn: Callable, types: list[ArgType]) -> None:
    """ArgsError unless fn accepts len(types) positional arguments."""
    params = positional_params(fn)
    required = [p for p in params if p.default is p.empty]
    n = len(types)
    if len(required) <= n <= len(params):
        return
    names = ", ".join(p.name for p in params)
    if len(required) == len(params):
        takes = f"{len(params)} parameter{'s' if len(params) != 1 else ''}"
    elif n < len(required):
        takes = f"at least {len(required)} parameters"
    else:
        takes = f"at most {len(params)} parameters"
    raise ArgsError(f"{fn.__name__} takes {takes} ({names}) but --args gives {n} "
                    f"type{'s' if n != 1 else ''} ({', '.join(map(str, types))})")


# ------------------------------------------------------------------ values

def _clip(text: str, width: int = 60) -> str:
    """repr(text), shortened in the middle when long (messages are one line)."""
    return repr(text) if len(text) <= width else repr(text[:width // 2] + " ... " + text[-width // 2:])


def _elements(t: ArgType) -> int:
    if t.kind == "tuple":
        return sum(_elements(x) for x in t.items)
    return int(np.prod(t.shape, dtype=object)) if t.shape else 1


def make_values(types: list[ArgType], seed: int = 0) -> tuple:
    """Example values of the given types (deterministic: the same types give the same values)."""
    total = sum(_elements(t) for t in types)
    if total > MAX_ELEMENTS:
        big = max(types, key=_elements)
        raise ArgsError(f"the example arguments would hold {total:,} numbers ({big} alone {_elements(big):,}); "
                        f"the limit is {MAX_ELEMENTS:,}: the derivation is the same at every size, so use "
                        f"small ones")
    try:
        return _make_values(types, seed)
    except MemoryError:
        raise ArgsError(f"not enough memory for example arguments of types "
                        f"{_clip(', '.join(map(str, types)))}; use smaller sizes") from None


def _make_values(types: list[ArgType], seed: int) -> tuple:
    rng = np.random.default_rng(seed)

    def floats(shape):
        return np.round(rng.uniform(0.5, 1.5, size=shape), 3)

    def value(t: ArgType) -> Any:
        if t.kind == "float":
            return float(floats(()))
        if t.kind == "int":
            return INT_VALUE
        if t.kind == "bool":
            return BOOL_VALUE
        if t.kind in ("vec", "mat"):
            return floats(t.shape)
        if t.kind == "tuple":
            return tuple(value(x) for x in t.items)
        raise AssertionError(t)

    return tuple(value(t) for t in types)


def example_arguments(fn: Callable, args: str | None) -> tuple[list[ArgType], tuple]:
    """(types, values) for fn: from the type string `args`, else from fn's annotations."""
    if args is None:
        types = types_from_annotations(fn)
    else:
        types = parse_types(args)
        check_count(fn, types)
    return types, make_values(types)
