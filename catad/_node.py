"""Immutable syntax-tree nodes shared by every language in the pipeline.

Each language (core terms, CL, linear maps) declares its terms as small frozen
dataclasses deriving from :class:`Node`. Equality is structural and hashing is
consistent with it, and neither recurses deeply: a node's hash is computed once, when
first asked for (most nodes never are), from its children's, by recursion a few levels
deep and on an explicit stack below them, and equality walks an explicit stack. A
10,000-deep let chain therefore hashes and compares without touching Python's recursion
limit (docs/design.md invariant 5).
"""
from __future__ import annotations

import contextlib
import dataclasses
import gc
import math
import operator
from typing import Any, Iterator

_IGNORED = ("loc",)  # source locations never take part in equality


def node(cls):
    """Class decorator: a frozen dataclass with our equality and hashing, whose instances
    keep their fields in slots (no dict per node: a long program has millions of nodes)."""
    cls = _slotted(dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls))
    cls._fields = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _IGNORED)
    cls._values = staticmethod(_getter(cls._fields))
    cls._init_fields = tuple(f.name for f in dataclasses.fields(cls) if f.init)
    del cls.__init__  # (object's: __new__ makes the node, see _fast_new)
    cls.__new__ = _fast_new(cls)
    return cls


def _fast_new(cls):
    """A __new__ taking the dataclass's __init__'s parameters (the same defaults) that makes
    the node whole, then calls __post_init__. A frozen class refuses attribute assignment (its
    __setattr__ raises), so the node is made as an instance of a twin that accepts it (a
    subclass adding no slot, whose attribute stores Python does as fast as a plain object's),
    then becomes a cls: its class is switched, which the identical layout allows. That costs a
    third of setting each slot through its descriptor's setter (a call each), and programs are
    made of hundreds of thousands of nodes. A class whose type is one of its fields' (or a
    field's type) says so in `_TYPE_OF`, an expression over the fields: the `type` slot is set
    from it here, and no __post_init__ is called where that is Node's, which does nothing."""
    twin = type(cls.__name__, (cls,), {"__slots__": (), "__setattr__": object.__setattr__,
                                       "__delattr__": object.__delattr__, "__qualname__": cls.__qualname__})
    params, lines = [], ["    self = _new(_twin)", "    self._hash = -1", "    self._normal = None"]
    env = {"_new": object.__new__, "_twin": twin}
    for f in dataclasses.fields(cls):
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: a node's fields are set by __init__, their defaults plain values")
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        lines.append(f"    self.{f.name} = {f.name}")
    type_of = getattr(cls, "_TYPE_OF", None)
    if type_of is not None:
        lines.append(f"    self.type = {type_of}")
    lines.append("    self.__class__ = cls")
    if cls.__post_init__ is not Node.__post_init__:
        lines.append("    self.__post_init__()")
    exec(f"def __new__(cls, {', '.join(params)}):\n" + "\n".join(lines + ["    return self"]), env)
    new = env["__new__"]
    new.__qualname__ = f"{cls.__qualname__}.__new__"
    return new


def _slotted(cls):
    """cls made again with __slots__ for its fields (what dataclass(slots=True) does), and
    the methods' zero-argument super() pointed at the new class (Python 3.11's slots=True
    leaves them at the old one, so super().__post_init__() fails)."""
    names = tuple(f.name for f in dataclasses.fields(cls))
    body = {k: v for k, v in cls.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")}
    body["__slots__"] = tuple(n for n in names if not any(n in getattr(b, "__slots__", ()) for b in cls.__mro__[1:]))
    new = type(cls)(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    for member in body.values():
        func = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        for cell in getattr(func, "__closure__", None) or ():
            try:
                if cell.cell_contents is cls:
                    cell.cell_contents = new
            except ValueError:  # an empty cell
                pass
    return new


def _getter(fields: tuple[str, ...]):
    """A function from a node to the tuple of its `fields` (attrgetter: fast)."""
    if len(fields) > 1:
        return operator.attrgetter(*fields)
    if fields:
        one = operator.attrgetter(fields[0])
        return lambda n: (one(n),)
    return lambda n: ()


class Node:
    _fields: tuple[str, ...] = ()
    _values = staticmethod(_getter(()))
    # _hash: computed when first asked for (most nodes never are): -1 till then (__init__ sets
    # it; Python's hash of anything is never -1). _normal: the marks of the rewriting that
    # found the node normal (catad.rewrite.engine.NormalMarks), None till then.
    __slots__ = ("_hash", "_normal")

    def __post_init__(self) -> None:
        pass  # subclasses compute their types here; the hash waits until it is needed

    def __hash__(self) -> int:
        h = self._hash
        if h != -1:
            return h
        depth = _HASH_DEPTH
        if not 0 <= depth[0] < _HASH_NESTING:  # deep: on a stack of its own (see _hash_tree)
            return _hash_tree(self)
        # A new node's children are hashed already or are new and shallow (a call's fresh
        # variables): hashing them by recursion, a few levels deep, costs a third of a walk.
        depth[0] += 1
        try:
            h = hash((type(self).__name__, *type(self)._values(self)))
        finally:
            depth[0] -= 1
        _set_hash(self, h)
        return h

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
                if type(a) is not type(b) or hash(a) != hash(b):
                    return False
                values = type(a)._values
                stack.extend(zip(values(a), values(b)))
            elif isinstance(a, tuple):
                if not isinstance(b, tuple) or len(a) != len(b):
                    return False
                stack.extend(zip(a, b))
            elif type(a) is not type(b) or a != b or (type(a) is float and a == 0.0 and
                                                      math.copysign(1.0, a) != math.copysign(1.0, b)):
                return False  # 0.0 and -0.0 are two constants: 1 / -0.0 is -inf
        return True

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def children(self) -> Iterator["Node"]:
        """The direct sub-nodes, in field order (tuples of nodes flattened)."""
        for v in type(self)._values(self):
            if isinstance(v, Node):
                yield v
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, Node):
                        yield x

    def replace(self, **changes: Any) -> "Node":
        """dataclasses.replace, without its per-call look-up of the fields (the new node made
        from positional arguments, in field order)."""
        fields = self._init_fields
        if len(changes) > len(fields) or not all(f in fields for f in changes):
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(set(changes) - set(fields))}")
        return type(self)(*[changes[f] if f in changes else getattr(self, f) for f in fields])

    def __reduce__(self):
        """For copy and pickle: made again from its fields (the frozen node refuses the
        attribute stores of the default way)."""
        return type(self), tuple(getattr(self, f) for f in self._init_fields)

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self}>"


# How many Node.__hash__ calls are under way (of any thread: a count that two threads made
# wrong would only send hashing to _hash_tree sooner or later), and how many may nest before
# _hash_tree takes over: few enough that hashing stays far from Python's recursion limit.
_HASH_DEPTH = [0]
_HASH_NESTING = 24

_set_hash = Node.__dict__["_hash"].__set__  # the slots' own setters (frozen nodes refuse setattr)
_set_normal = Node.__dict__["_normal"].__set__


def _hash_of(n: Node) -> int | None:
    """n's hash if it has been computed, else None."""
    h = n._hash
    return None if h == -1 else h


def _hash_tree(root: Node) -> int:
    """root's hash, and that of every node under it not hashed yet, children first (on an
    explicit stack: no recursion), each the hash of its class name and fields (a tuple
    hashes by its items' hashes, so a node's children are hashed once). A node of a class
    with a hash of its own (an interned type's: its identity) is not walked."""
    stack = [root]
    while stack:
        n = stack[-1]
        if n._hash != -1:
            stack.pop()
            continue
        unhashed = [c for c in _field_nodes(n) if c._hash == -1 and type(c).__hash__ is Node.__hash__]
        if unhashed:
            stack.extend(unhashed)
            continue
        stack.pop()
        _set_hash(n, hash((type(n).__name__, *type(n)._values(n))))
    return root._hash


def _field_nodes(n: Node) -> list[Node]:
    """The nodes in n's fields, in tuples (of tuples) too; fields declared to hold names,
    numbers or locations are not looked at (see _plan): one generated function per class."""
    f = _FIELD_NODES.get(type(n))
    if f is None:
        f = _FIELD_NODES[type(n)] = _compile_field_nodes(type(n))
    return f(n)


def _compile_field_nodes(cls: type):
    lines = ["def field_nodes(n):", "    out = []"]
    for f in _plan(cls):
        lines += [f"    v = n.{f}",
                  "    if isinstance(v, Node): out.append(v)",
                  "    elif isinstance(v, tuple): _flatten(v, out)"]
    env = {"Node": Node, "_flatten": _flatten}
    exec("\n".join(lines + ["    return out"]), env)
    return env["field_nodes"]


def _flatten(v: tuple, out: list) -> None:
    """The nodes in the tuple v (of tuples), appended to out."""
    todo = list(v)
    while todo:
        x = todo.pop()
        if isinstance(x, Node):
            out.append(x)
        elif isinstance(x, tuple):
            todo.extend(x)


_FIELD_NODES: dict[type, Any] = {}


_PLANS: dict[type, tuple[str, ...]] = {}
_NO_NODES = {"str", "int", "bool", "Loc | None", "tuple[int, ...]", "tuple[str, ...]"}


def _plan(cls: type) -> tuple[str, ...]:
    """The fields of cls that may hold nodes: all but those whose declared type says not."""
    declared = {f.name: f.type for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
    plan = tuple(f for f in cls._fields if declared.get(f) not in _NO_NODES)
    _PLANS[cls] = plan
    return plan


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


@contextlib.contextmanager
def paused_gc():
    """Terms are immutable trees without cycles, so the cyclic collector only rescans
    them, over and over as a large program grows (a quadratic cost); pause it while
    a stage compiles.

    What a large stage made and keeps (a program: millions of objects for a long one) would
    be scanned again when the collector resumes, by a collection of the youngest generation
    that frees nothing (a tenth of a second per stage of a 10,000-statement vector chain). It is
    moved to the oldest generation instead, unscanned (gc.freeze, then gc.unfreeze: both move
    whole generations at once); not when something else has frozen objects (unfreeze would
    let them go). A pipeline and its compiled code make no reference cycle (what the code
    holds of the pipeline it holds weakly), so a program let go of is freed by its count of
    references, wherever the collector keeps it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_count()[0] > _PROMOTED and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


# objects made by a stage past which paused_gc moves them to the oldest generation: a young
# collection of 50,000 of them costs 5 to 30 ms (the gradient of a 10,000-statement scalar chain
# made some 63,000 and 85,000 in its two outermost stages: 2% of its time); a smaller stage
# keeps the collector as usual, which frees its young garbage while that is cheap
_PROMOTED = 50_000
