"""Binomial checkpointing (Griewank & Walther's Revolve) for the reverse loop of an RFold.

Reverse mode through a loop of n steps needs the state before each step, in reverse order.
The default (``checkpoints=None``) keeps all n of them. With ``checkpoints=k`` the reverse
loop keeps at most k states (the loop's initial state among them) and recomputes the others
from the nearest kept one, choosing where to keep them so that the number of steps
evaluated is the least possible for k kept states (Griewank 1992):

* Let beta(k, r) = C(k + r, k): k kept states let a loop of beta(k, r) steps be reversed with
  every step evaluated at most r times (counting the first), and no more steps. For n >= 1
  let r be the least with beta(k, r) >= n. Then :func:`schedule` evaluates the body

      forward_steps(n, k) = r * n - beta(k + 1, r - 1)      (beta(., -1) = 0)

  times to bring back the n states, which is the minimum over all schedules keeping k
  states, plus one: the last step, whose state (the loop's result) only gives the shape of
  the zero cotangent (the store-all loop evaluates that step too). So with k >= n - 1
  nothing is recomputed (n evaluations, as storing all); each step is evaluated at most
  max(r, 1) times; for a fixed k, r grows about like k * n^(1/k) / e (the cost is
  O(n^(1 + 1/k))), and with k = log2(n) the cost is at most n log2(n) (tested for a few n).
  The reverse step runs n times.
* Memory: at most k kept states at any time, and besides them one live state (the one
  being advanced or handed to the reverse step).
* No recursion: the schedule is a loop over a stack of at most k kept states (the segment
  that the top one starts is reversed next; Revolve's recursion made explicit), so a loop
  of any length runs in constant Python stack depth. Choosing a split costs O(r).

:func:`reverse_loop` is what the generated code calls, with closures compiled once each
(catad.backend.folds.rfold): a run of forward steps (advance), and a sweep, which keeps the
states of a segment short enough to fit in the free slots and runs its reverse steps in one
loop (as the store-all reverse loop does). :func:`runs` hands out both as one action each, so
the Python work per action is spread over many steps: with k = 20, 10^5 steps take about
35,000 actions (Revolve's one step at a time: about 400,000). ``COUNTER``, when set (tests
monkeypatch it), is told every forward step evaluated, every reverse step and the number of
kept states whenever it changes (a sweep's own states included): work counted, never timed.
"""
from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Any, Callable, Iterator

# (action, index) pairs of :func:`schedule`:
ADVANCE = "advance"    # ("advance", i): evaluate step i on the live state (state i -> state i + 1)
TAKESHOT = "takeshot"  # ("takeshot", i): keep a copy of the live state, state i
RESTORE = "restore"    # ("restore", i): the live state becomes the kept state i (the top one)
FREE = "free"          # ("free", i): drop the kept state i (the top one): it is not needed any more
FIRSTURN = "firsturn"  # ("firsturn", n - 1): evaluate the last step (the loop's final state), then
                       # reverse it
YOUTURN = "youturn"    # ("youturn", i): reverse step i with the live state, state i

# (action, i, j) triples of :func:`runs`, each from the live state, which is the top kept one (i)
# when the action before was not a KEEP:
KEEP = "keep"          # ("keep", i, j): evaluate steps i .. j - 1 and keep state j
SWEEP = "sweep"        # ("sweep", i, j): keep states i + 1 .. j - 2 as the steps make them, reverse
                       # steps j - 1 .. i (state j - 1 the live one), then drop state i
LAST = "last"          # ("last", i, j): evaluate steps i .. j - 2 keeping none, reverse step j - 1
# the first SWEEP or LAST also evaluates the last step: the final state gives the first cotangent


class Counter:
    """What a reverse loop did: forward steps evaluated, reverse steps, the most states kept
    at once (per loop and over all loops counted), and the calls of the generated closures
    (advance and sweep: the Python work per call is spread over the steps of its run)."""

    def __init__(self) -> None:
        self.forward = 0
        self.reverse = 0
        self.calls = 0
        self.peak = 0
        self.loops = 0

    def kept(self, k: int) -> None:
        self.peak = max(self.peak, k)


COUNTER: Counter | None = None


def beta(k: int, r: int) -> int:
    """C(k + r, k): the most steps k kept states reverse with each step evaluated at most r
    times (0 for r < 0)."""
    return comb(k + r, k) if r >= 0 else 0


def repetitions(n: int, k: int) -> int:
    """The least r with beta(k, r) >= n."""
    r, b = 0, 1
    while b < n:
        r += 1
        b = b * (k + r) // r
    return r


def forward_steps(n: int, k: int) -> int:
    """The number of forward steps the schedule evaluates for n steps and k kept states (the
    least possible to bring back every state, plus the last step)."""
    if n == 0:
        return 0
    r = repetitions(n, k)
    return r * n - beta(k + 1, r - 1) + 1


@lru_cache(maxsize=4096)  # a long loop asks for the same few (length, k) many times
def split(length: int, k: int) -> int:
    """Where to keep the next state in a segment of `length` >= 2 steps whose first state is
    kept and k - 1 more may be (k >= 2): an offset m in the optimal range

        max(beta(k, r - 2), length - beta(k - 1, r)) <= m <= min(beta(k, r - 1), length - beta(k - 1, r - 1))

    with r = repetitions(length, k): the first m steps are then reversed again from the kept
    first state with k kept, the rest from the new one with k - 1 (each optimally)."""
    r = repetitions(length, k)
    return max(min(beta(k, r - 1), length - beta(k - 1, r - 1), length - 1), 1)


def schedule(n: int, k: int) -> Iterator[tuple[str, int]]:
    """The actions that reverse a loop of n steps keeping at most k states (k >= 1), one step
    at a time: :func:`runs` taken apart into Revolve's actions."""
    if n == 0:
        return
    yield TAKESHOT, 0
    live, first = 0, True  # the index of the live state (-1: none)
    for action, i, j in runs(n, k):
        if live != i:
            yield RESTORE, i
        if action == KEEP:
            for m in range(i, j):
                yield ADVANCE, m
            yield TAKESHOT, j
            live = j
            continue
        if action == SWEEP:
            yield from _sweep_actions(i, j, first)
            yield FREE, i
        else:
            for m in range(i, j - 1):
                yield ADVANCE, m
            yield (FIRSTURN if first else YOUTURN), j - 1
        live, first = -1, False


def _sweep_actions(i: int, j: int, first: bool) -> Iterator[tuple[str, int]]:
    """SWEEP(i, j) as Revolve's actions: keep states i + 1 .. j - 2 as they are made, reverse
    step j - 1 from the live state j - 1, then the others from the kept ones, the last first."""
    for m in range(i, j - 1):
        yield ADVANCE, m
        if m + 1 < j - 1:
            yield TAKESHOT, m + 1
    yield (FIRSTURN if first else YOUTURN), j - 1
    for m in range(j - 2, i - 1, -1):
        yield RESTORE, m
        yield YOUTURN, m
        if m > i:
            yield FREE, m


def runs(n: int, k: int) -> Iterator[tuple[str, int, int]]:
    """The schedule in few actions (KEEP, SWEEP, LAST above), each a run of steps: what
    :func:`reverse_loop` runs. A segment at most one step longer than the free slots is one
    SWEEP: Revolve's split is 1 there until no slot is free, so it keeps every state but the
    last, as the store-all loop does, and the sweep runs the segment's reverse steps in one
    loop. With k = 20 and 10^5 steps every reverse step runs in a sweep of about 5 (17,000
    KEEPs, 20,000 SWEEPs, 3,000 LASTs; Revolve's actions one step at a time: 460,000)."""
    kept = [0] if n else []  # the indices of the kept states; the top one starts the segment reversed next
    end = n                  # steps end.. are reversed
    while kept:
        i = kept[-1]
        length = end - i
        free = k - len(kept)
        if length <= free + 2:  # the segment's states fit: one sweep, and state i is done with
            yield SWEEP, i, end
            end = i
            kept.pop()
        elif free >= 1:  # keep a state m steps on; the segment it starts is reversed first
            m = split(length, free + 1)
            yield KEEP, i, i + m
            kept.append(i + m)
        else:  # no free slot: advance to the last step without keeping, and reverse it
            yield LAST, i, end
            end -= 1


def reverse_loop(n: int, k: int, acc0: tuple, advance: Callable, sweep: Callable, start: Callable) -> tuple:
    """Reverse a loop of n steps from its initial state acc0 keeping at most k states, on the
    schedule of :func:`runs`. advance(i, j, acc) is state j from state i (a loop of steps in
    one call); sweep(i, j, acc_i, dacc_j) reverses steps j - 1 .. i from state i and the
    cotangent of state j, keeping the states in between, and returns (the cotangent of state
    i, None); when dacc_j is None (the first sweep, j = n) it computes the final state and
    from it the first cotangent itself, and returns (the cotangent of state i, the final
    state). A sweep also sums the environment's cotangent and writes the elements', by itself.
    start(acc) is the first cotangent for n = 0 (the loop's result is its initial state).
    Returns (the cotangent of the initial state, the final state)."""
    n = int(n)  # the generated code's n may be a NumPy integer, whose arithmetic is slow
    counter = COUNTER
    if counter is not None:
        counter.loops += 1
        counter.kept(1 if n else 0)
    if n == 0:
        return start(acc0), acc0
    kept: list = [acc0]  # every action starts from the top one
    dacc: Any = None
    final: Any = None
    for action, i, j in runs(n, k):  # the actions are the constants above: compared by identity
        if action is KEEP:
            kept.append(advance(i, j, kept[-1]))
            if counter is not None:
                counter.forward += j - i
                counter.kept(len(kept))
                counter.calls += 1
            continue
        if action is LAST:
            live = advance(i, j - 1, kept[-1])
            if counter is not None:
                counter.forward += j - 1 - i
                counter.calls += 1
            i = j - 1
        else:
            live = kept.pop()
            if counter is not None:
                counter.kept(len(kept) + 1 + max(j - i - 2, 0))  # with the sweep's own states (its last is live)
        if counter is not None:
            counter.forward += j - i - 1 + (dacc is None)
            counter.reverse += j - i
            counter.calls += 1
        first = dacc is None
        dacc, last = sweep(i, j, live, dacc)
        if first:
            final = last
    return dacc, final
