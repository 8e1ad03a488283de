"""Hashing of syntax-tree nodes (catad._node): by recursion a few levels deep, on an explicit
stack below them, the same hash either way."""
import sys

import pytest

from catad import _node
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


class _Made:
    """An object the collector tracks (a class instance), as a node is."""


def test_what_a_paused_stage_keeps_goes_to_the_oldest_generation_unscanned():
    import gc
    scans = []
    gc.callbacks.append(lambda phase, info: scans.append(info["generation"]) if phase == "start" else None)
    try:
        with _node.paused_gc():
            scans.clear()  # (the young generations' collection at the start)
            kept = [_Made() for _ in range(10_000)]
        assert scans == [] and gc.isenabled()
        assert gc.get_count()[0] < 100  # no young collection owed for what the stage made
        oldest = {id(o) for o in gc.get_objects(generation=2)}
        assert all(id(o) in oldest for o in kept[::100])
    finally:
        gc.callbacks.pop()


def test_a_paused_stage_lets_frozen_objects_be_and_a_disabled_collector_stay_disabled():
    import gc
    gc.freeze()  # (what a process that forks does)
    try:
        frozen = gc.get_freeze_count()
        with _node.paused_gc():
            kept = [_Made() for _ in range(1_000)]
        assert gc.get_freeze_count() == frozen and gc.isenabled() and kept
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        with _node.paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
