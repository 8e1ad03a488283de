"""Hashing of syntax-tree nodes (catad._node): by recursion a few levels deep, on an explicit
stack below them, the same hash either way."""
import sys

import pytest

from catad import _node
from catad.errors import CatadTypeError
from catad.lang.terms import Call, Let, Var
from catad.lang.types import Float


def chain(n: int):
    """let x1 = x0 * x0 in let x2 = x1 * x1 in ... xn: n levels deep, every node new."""
    body = Var(f"x{n}", Float)
    for k in range(n, 0, -1):
        prev = Var(f"x{k - 1}", Float)
        body = Let(Var(f"x{k}", Float), Call("mul", (prev, prev), Float), body)
    return body


def test_a_deep_new_tree_hashes_within_a_low_recursion_limit():
    a, b = chain(10_000), chain(10_000)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        assert hash(a) == hash(b) and a == b
    finally:
        sys.setrecursionlimit(limit)
    assert _node._HASH_DEPTH == [0]


def test_the_recursive_and_the_stack_hash_agree():
    a, b = chain(50), chain(50)
    _node._hash_tree(b)  # every node of b on the explicit stack
    assert hash(a) == hash(b)
    lets = [a]
    while isinstance(lets[-1], Let):
        lets.append(lets[-1].body)
    assert all(n._hash != -1 for n in lets)  # the recursion hashed the nodes it passed too


@pytest.mark.parametrize("wrong", [-3, 10 ** 6])
def test_a_nesting_count_made_wrong_only_changes_the_way(wrong):
    """The count is shared by threads: were it made wrong, hashing takes the explicit stack."""
    expected = hash(chain(30))
    _node._HASH_DEPTH[0] = wrong
    try:
        assert hash(chain(30)) == expected
        assert _node._HASH_DEPTH[0] == wrong
    finally:
        _node._HASH_DEPTH[0] = 0


def test_a_node_is_made_frozen_of_its_own_class_and_copies_and_pickles():
    """Nodes are made as a twin class that takes attribute stores, then switched to their own
    (catad._node._fast_new): what comes out is of exactly its class, refuses assignment, and
    carries its fields, type and hash as a node made field by field would."""
    import copy
    import dataclasses
    import pickle
    from catad.lang.terms import Call, Const, Get, Let, Tuple
    from catad.linearmaps.terms import Scale
    x = Var("x", Float)
    t = Let(x, Call("sin", (x,), Float), Tuple((x, Const(2.0, Float))))
    made = [(x, Var), (t, Let), (t.rhs, Call), (t.body, Tuple), (Scale(x, Float), Scale), (Get(1, t.body), Get)]
    for n, cls in made:
        assert type(n) is cls  # not the twin it was made as
        with pytest.raises(dataclasses.FrozenInstanceError):
            n.loc = None
        assert copy.copy(n) == n and copy.deepcopy(n) == n and pickle.loads(pickle.dumps(n)) == n
        assert hash(pickle.loads(pickle.dumps(n))) == hash(n)
    assert (x.type, t.type, t.rhs.type, t.body.type) == (Float, t.body.type, Float, t.body.type)
    assert t.body.type.items == (Float, Float) and Get(1, t.body).type == Float
    with pytest.raises(CatadTypeError):  # __post_init__ still checks (and the node is not made)
        Get(2, t.body)
    assert Var("x", Float, None) == Var(name="x", ty=Float) and Call("sin", (x,), ty=Float) == t.rhs


class _Made:
    """An object the collector tracks (a class instance), as a node is."""


def _young_collections_after(make, frozen: bool = False) -> tuple[int, int]:
    """(collections of the young generations while and after a paused stage makes what `make`
    makes, the young generation's count after), with the collector on (as when catad is used)."""
    import gc
    scans = []
    record = lambda phase, info: scans.append(info["generation"]) if phase == "start" else None  # noqa: E731
    was = gc.isenabled()
    gc.enable()
    if frozen:
        gc.freeze()
    gc.callbacks.append(record)
    try:
        with _node.paused_gc():
            kept = make()
        count = gc.get_count()[0]
        _Made()  # an allocation: where the young count is past the threshold, a collection
        del kept
        return len([g for g in scans if g < 2]), count
    finally:
        gc.callbacks.remove(record)
        if frozen:
            gc.unfreeze()
        if not was:
            gc.disable()


def test_what_a_large_paused_stage_made_goes_to_the_oldest_generation_unscanned():
    big = lambda: [_Made() for _ in range(2 * _node._PROMOTED)]  # noqa: E731
    assert _young_collections_after(big) == (0, 0)
    small = lambda: [_Made() for _ in range(10_000)]  # a small stage: the collector as usual  # noqa: E731
    scans, count = _young_collections_after(small)
    assert scans >= 1 or count >= 10_000
    # objects someone else froze stay frozen: nothing is moved (gc.unfreeze would let them go)
    scans, count = _young_collections_after(big, frozen=True)
    assert scans >= 1 or count >= 2 * _node._PROMOTED
