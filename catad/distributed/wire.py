"""Core programs sent to Dask's workers: a term DAG as a flat list of records (class, fields
with references to earlier records), made and read on an explicit stack, so a program of any
length crosses without recursion (pickle recurses per nesting level of a let chain), and its
shared subterms stay shared. Frozen nodes and Locs are rebuilt through their constructors."""
from __future__ import annotations

import dataclasses
import importlib

from .._node import Node
from ..errors import Loc


class _Ref(int):
    """A reference to an earlier record (an int subclass, told apart from an int field)."""


def encode(root: Node) -> tuple:
    """(records, root's index): each record (module, class name, field values) in post-order."""
    records: list = []
    index: dict[int, int] = {}
    keep = []  # the nodes encoded, alive till the end so no id is reused
    stack = [(root, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in index:
            continue
        kids = [v for v in _field_values(n) for v in (v if isinstance(v, tuple) else (v,)) if isinstance(v, Node)]
        if not done:
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in index)
            continue
        fields = tuple(_encode_value(v, index) for v in _field_values(n))
        index[id(n)] = len(records)
        keep.append(n)
        records.append((type(n).__module__, type(n).__qualname__, fields))
    return tuple(records), index[id(root)]


def _field_values(n: Node) -> tuple:
    return tuple(getattr(n, f) for f in type(n)._init_fields)


def _encode_value(v, index):
    if isinstance(v, Node):
        return _Ref(index[id(v)])
    if isinstance(v, tuple):
        return tuple(_encode_value(x, index) for x in v)
    if isinstance(v, Loc):
        return ("__loc__", v.file, v.line, v.col)
    return v


def decode(wire: tuple) -> Node:
    records, root = wire
    made: list = []
    for module, name, fields in records:
        cls = getattr(importlib.import_module(module), name)
        made.append(cls(*(_decode_value(v, made) for v in fields)))
    return made[root]


def _decode_value(v, made):
    if type(v) is _Ref:
        return made[v]
    if isinstance(v, tuple):
        if len(v) == 4 and v[0] == "__loc__":
            return Loc(v[1], v[2], v[3])
        return tuple(_decode_value(x, made) for x in v)
    return v


assert dataclasses  # fields are read through the node classes' own _init_fields
