"""What the compiler knows about a value while it writes the code that computes it.

A value inside k nested builds is computed for all k indices at once: an array whose
k leading *batch* axes are of full size (the axes in ``deps``) or of size 1, followed
by the value's own element axes. That invariant is exact: an axis in ``deps`` has
the full size of its build, every other axis has size 1. Structure known while
compiling stays symbolic instead of becoming arrays:

- :class:`Arr`, an array (or a scalar at depth 0);
- :data:`ZERO`, the zero tangent (nothing is materialised for it);
- :class:`Upd`, the index update ``update(i, v, n)``: the cotangent of ``x[i]`` stays an
  index and a value until it is summed (a scatter-add) or returned, never a one-hot;
- :class:`TSum`, a sum of tangents of which some are index updates;
- :class:`Stacked`, a build not yet made an array: its body at depth d+1, whose axis d
  is the element axis. Indexing it with its own index gives the body back for free;
- :class:`RT`, a run-time tangent (catad.tangents: ZERO, OneHot, lists), only outside
  builds, where Python loops (the fallback) produce them;
- Python tuples, for tuples.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..lang.types import Bool, Int, Type, scalar_of


# The values are dataclasses with __slots__: no dict per value (the code generator makes one for
# every operation, and a long program's backend holds hundreds of thousands of them at once),
# made and read faster than with one. Not frozen, though no value is ever changed once made: a
# frozen dataclass sets each field through object.__setattr__, which costs more than making the
# value at all (1.8 against 0.2 us for an Arr).
_value = dataclass(eq=False, slots=True)


class Unvectorisable(Exception):
    """This build has no whole-array form here: compile it as a Python loop instead."""


@_value
class Arr:
    code: str                    # a Python name, literal or view expression
    depth: int = 0               # number of batch axes
    deps: frozenset = frozenset()
    rank: int = 0                # number of element axes
    kind: str = "f"              # f (Float), i (Int), b (Bool)
    iota: int | None = None      # exactly the index of batch axis `iota`
    # (a, hi, N): exactly min(index of batch axis a, hi), hi a depth-0 Int's code, N the code of the axis's size
    clamp: tuple | None = None
    shift: tuple | None = None   # (a, s, N): exactly (index of batch axis a) + s, s a depth-0 Int's code

    def __str__(self) -> str:
        return self.code


class _Zero:
    def __repr__(self) -> str:
        return "ZERO"


ZERO = _Zero()


@_value
class Upd:
    """update(idx, val, n), summed over its `extra` innermost batch axes: a sum over a
    build of index updates stays lazy until an array is needed, so that sums over the
    axes the index does not depend on happen first, on the values (one small scatter
    at the end instead of a large one per level)."""
    idx: Arr
    val: object
    n: Arr
    extra: int = 0


@_value
class TSum:
    a: object
    b: object


@_value
class Stacked:
    body: object                 # at depth + 1
    depth: int
    n: Arr                       # the number of elements
    N: str = ""                  # the size of axis `depth` (n, or the longest lane when ragged)
    mask: Arr | None = None      # ragged: which lanes of axis `depth` are elements


@_value
class RT:
    code: str
    is_list: bool = False        # a Python list of run-time tangents (a loop's result)


def depth_of(x) -> int:
    if isinstance(x, Arr):
        return x.depth
    if isinstance(x, Stacked):
        return x.depth
    if isinstance(x, Upd):
        if x.extra:
            return x.idx.depth - x.extra
        return max(x.idx.depth, depth_of(x.val), x.n.depth)
    if isinstance(x, TSum):
        return max(depth_of(x.a), depth_of(x.b))
    if isinstance(x, tuple):
        return max((depth_of(v) for v in x), default=0)
    return 0


def is_zero(x) -> bool:
    """The zero tangent, or a vector of them."""
    return x is ZERO or isinstance(x, Stacked) and is_zero(x.body)


def kind_of(t: Type) -> str:
    """The kind (an Arr's `kind`) of the scalars of a type."""
    s = scalar_of(t)
    return "i" if s == Int else "b" if s == Bool else "f"


def index_code(pre: int, post: list[str]) -> str:
    """The code of an index that keeps the first `pre` axes whole and then reads `post`."""
    return ", ".join([":"] * pre + post)


def is_scalar0(a: Arr) -> bool:
    """A depth-0 scalar broadcasts against anything without lifting."""
    return a.depth == 0 and a.rank == 0


def tsum_terms(x) -> list:
    """The terms of a TSum tree, left to right, without recursion."""
    out, stack = [], [x]
    while stack:
        t = stack.pop()
        if isinstance(t, TSum):
            stack.append(t.b)
            stack.append(t.a)
        else:
            out.append(t)
    return out
