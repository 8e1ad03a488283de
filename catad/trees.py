"""Arguments and results as trees: tuples, lists and dicts (nested) of numbers and arrays.

Compiled programs know tuples only (notes Fig. 1). A list is compiled as the tuple of its
items and a dict as the tuple of its values in its key order, and a :class:`Tree` keeps what
each was, so that the front end can read ``params["W"]`` and ``layers[0]``, and what the API
returns has the caller's structure (a gradient with respect to a dict is a dict with the same
keys, as with JAX's pytrees). A value with no list or dict inside has no tree (None): plain
tuples and arrays go through unchanged.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from .errors import ArgumentError


@dataclasses.dataclass(frozen=True)
class Tree:
    """A tuple, list or dict whose items are trees or leaves (None). A dict's keys are in
    its own order, which is also the order of its values in the compiled tuple."""

    kind: str                       # "tuple", "list", "dict", "object" (a dataclass), "none" (None: compiled as ()) or "str"
    items: tuple                    # Tree | None per item
    keys: tuple = ()                # a dict's keys; a str's value (one); a named tuple's or a dataclass's fields
    cls: Any = None                 # a named tuple's class (collections.namedtuple, typing.NamedTuple); a dataclass

    def index(self, key: Any) -> int | None:
        """The position of a dict's key (None when it has no such key)."""
        for k, x in enumerate(self.keys):
            if type(x) is type(key) and x == key:
                return k
        return None

    def describe(self) -> str:
        if self.kind == "none":
            return "None"
        if self.kind == "str":
            return f"the str {self.keys[0]!r}"
        if self.kind == "dict":
            return "a dict with keys " + ", ".join(map(repr, self.keys))
        if self.kind == "object":
            return f"a {self.cls.__name__} (a dataclass with fields {', '.join(self.keys)})"
        if self.cls is not None:
            return f"a {self.cls.__name__} of {len(self.items)}"
        return f"a {self.kind} of {len(self.items)}"


# None (an optional argument left out, `def f(x, w=None)`) is compiled as the empty tuple, its
# tree saying it is None: the front end knows `w is None` while compiling, and the gradient or
# tangent of a None argument is None, as with JAX's pytrees
NONE = Tree("none", ())


def string(value: str) -> Tree:
    """A str (a mode, a method's name: `def f(x, kind="l2")`) is compiled as the empty tuple too,
    its tree holding its value: the front end compares it while compiling (`kind == "l2"`), so
    each string compiles its own program; its gradient or tangent is None."""
    return Tree("str", (), (value,))


def tree_of(v: Any, what: str = "argument") -> Tree | None:
    """v's tree, or None when v holds no list, dict or None (it is compiled as it is)."""
    if v is None:
        return NONE
    if isinstance(v, str):
        return string(v)
    if isinstance(v, dict):
        for k in v:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise ArgumentError(f"{what} is a dict with the key {k!r}; catad takes dicts whose keys are "
                                    "strings or ints", hint="use string keys, e.g. {'W': W, 'b': b}")
        return Tree("dict", tuple(tree_of(x, f"{what}[{k!r}]") for k, x in v.items()), tuple(v))
    if isinstance(v, list):
        return Tree("list", tuple(tree_of(x, f"{what}[{i}]") for i, x in enumerate(v)))
    if type(v) is tuple:
        items = tuple(tree_of(x, f"{what}[{i}]") for i, x in enumerate(v))
        return Tree("tuple", items) if any(t is not None for t in items) else None
    if dataclasses.is_dataclass(v) and not isinstance(v, type):  # its fields, by name (an "object")
        names = tuple(f.name for f in dataclasses.fields(v))
        return Tree("object", tuple(tree_of(getattr(v, f), f"{what}.{f}") for f in names), names, type(v))
    if is_named_tuple(type(v)):  # its class kept, so that results are of it and its fields read by name
        items = tuple(tree_of(x, f"{what}.{f}") for f, x in zip(v._fields, v))
        return Tree("tuple", items, tuple(v._fields), type(v))
    return None


def is_named_tuple(cls: Any) -> bool:
    """cls is a class collections.namedtuple or typing.NamedTuple made: a tuple with named fields."""
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple) \
        and all(isinstance(f, str) for f in cls._fields)


def flat(v: Any, tree: Tree | None) -> Any:
    """v with its lists and dicts made tuples (v itself when tree is None)."""
    if tree is None:
        return v
    if tree.kind in ("none", "str"):
        return ()
    values = v.values() if tree.kind == "dict" else [getattr(v, f) for f in tree.keys] if tree.kind == "object" else v
    return tuple(flat(x, t) for x, t in zip(values, tree.items))


def of_leaves(tree: Tree | None) -> Tree | None:
    """tree where it is a container (a dict, a list, a named tuple, a dataclass) whose items are
    leaves, else None: a Jacobian of such a result is that container of blocks, one per item."""
    if tree is None or tree.kind in ("none", "str") or any(t is not None for t in tree.items):
        return None
    return tree


def unflat(v: Any, tree: Tree | None) -> Any:
    """The compiled value v (tuples) in tree's structure."""
    if tree is None:
        return v
    if tree.kind in ("none", "str"):
        return None
    items = [unflat(x, t) for x, t in zip(v, tree.items)]
    if tree.kind == "dict":
        return dict(zip(tree.keys, items))
    if tree.kind == "object":  # made without its __init__ (nor __post_init__): each field set as it is
        out = object.__new__(tree.cls)
        for f, x in zip(tree.keys, items):
            object.__setattr__(out, f, x)
        return out
    if tree.cls is not None:  # (made as a tuple of its class, without a __new__ of its own: as JAX's pytrees)
        return tuple.__new__(tree.cls, items)
    return items if tree.kind == "list" else tuple(items)


def matching(v: Any, tree: Tree | None, what: str, like: str) -> Any:
    """v (a tangent or cotangent given by the user) flattened like `like`, whose tree is
    tree; ArgumentError when its structure differs."""
    if tree is None:
        return v
    if tree.kind in ("none", "str"):
        if v is not None and not (tree.kind == "str" and isinstance(v, str) and v == tree.keys[0]):
            raise ArgumentError(f"{what} must be None, like {like}; got a {type(v).__name__}")
        return ()
    if tree.kind == "object":
        if type(v) is not tree.cls:
            raise ArgumentError(f"{what} must be {tree.describe()}, like {like}; got a {type(v).__name__}")
        return tuple(matching(getattr(v, f), t, f"{what}.{f}", like) for f, t in zip(tree.keys, tree.items))
    if tree.kind == "dict":
        if not isinstance(v, dict) or list(v) != list(tree.keys):
            keys = f"the keys {list(v)}" if isinstance(v, dict) else f"a {type(v).__name__}"
            raise ArgumentError(f"{what} must be {tree.describe()} (in that order), like {like}; got {keys}")
        values = list(v.values())
        return tuple(matching(x, t, f"{what}[{k!r}]", like) for x, t, k in zip(values, tree.items, tree.keys))
    cls = list if tree.kind == "list" else tuple
    if not isinstance(v, cls) or len(v) != len(tree.items):
        got = f"a {type(v).__name__} of {len(v)}" if isinstance(v, (list, tuple)) else f"a {type(v).__name__}"
        raise ArgumentError(f"{what} must be {tree.describe()}, like {like}; got {got}")
    return tuple(matching(x, t, f"{what}[{i}]", like) for i, (x, t) in enumerate(zip(v, tree.items)))


__all__ = ["NONE", "Tree", "flat", "is_named_tuple", "matching", "string", "tree_of", "unflat"]
