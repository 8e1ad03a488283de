"""Immutable syntax-tree nodes shared by every language in the pipeline.

Each language (core terms, CL, linear maps) declares its terms as small frozen
dataclasses deriving from :class:`Node`. Equality is structural and hashing is
consistent with it, but neither recurses: a node's hash is computed once, at
construction, from its children's cached hashes, and equality walks an explicit
stack. A 10,000-deep let chain therefore hashes and compares without touching
Python's recursion limit (DESIGN.md invariant 5).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator

_IGNORED = ("loc",)  # source locations never take part in equality


def node(cls):
    """Class decorator: a frozen dataclass with our equality and hashing."""
    cls = dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)
    cls._fields = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _IGNORED)
    return cls


class Node:
    _fields: tuple[str, ...] = ()
    __slots__ = ()

    def __post_init__(self) -> None:
        h = hash((type(self).__name__,) + tuple(_hashable(getattr(self, f)) for f in self._fields))
        object.__setattr__(self, "_hash", h)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: Any) -> bool:
        if self is other:
            return True
        if not isinstance(other, Node):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if isinstance(a, Node):
                if type(a) is not type(b) or a._hash != b._hash:
                    return False
                stack.extend((getattr(a, f), getattr(b, f)) for f in a._fields)
            elif isinstance(a, tuple):
                if not isinstance(b, tuple) or len(a) != len(b):
                    return False
                stack.extend(zip(a, b))
            elif type(a) is not type(b) or a != b:
                return False
        return True

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def children(self) -> Iterator["Node"]:
        """The direct sub-nodes, in field order (tuples of nodes flattened)."""
        for f in self._fields:
            v = getattr(self, f)
            if isinstance(v, Node):
                yield v
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, Node):
                        yield x

    def replace(self, **changes: Any) -> "Node":
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self}>"


def _hashable(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(_hashable(x) for x in v)
    return v


def walk(root: Node) -> Iterator[Node]:
    """Every node reachable from root, each distinct object once, without recursion."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        stack.extend(n.children())
