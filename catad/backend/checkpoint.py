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

:func:`reverse_loop` is what the generated code calls: the loop's forward step and reverse
step are closures compiled once each (catad.backend.folds.rfold), and so is a run of forward
steps (advance), which :func:`runs` hands out as one action. ``COUNTER``, when set
(tests monkeypatch it), is told every forward step evaluated, every reverse step and the
number of kept states whenever it changes: work counted, never timed.
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


class Counter:
    """What a reverse loop did: forward steps evaluated, reverse steps, the most states kept
    at once (per loop and over all loops counted)."""

    def __init__(self) -> None:
        self.forward = 0
        self.reverse = 0
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
    """The actions that reverse a loop of n steps keeping at most k states (k >= 1)."""
    for action, i, j in runs(n, k):
        if action == ADVANCE:
            for m in range(i, j):
                yield ADVANCE, m
        else:
            yield action, i


def runs(n: int, k: int) -> Iterator[tuple[str, int, int]]:
    """The schedule with each run of advances as one action: (ADVANCE, i, j) evaluates steps
    i .. j - 1 (j > i); any other action is (action, i, i)."""
    if n == 0:
        return
    kept = [0]  # the indices of the kept states; the top one starts the segment reversed next
    yield TAKESHOT, 0, 0
    live = 0    # the index of the live state, or -1 when it must be restored
    end = n     # steps end.. are reversed
    first = True
    while kept:
        i = kept[-1]
        if live != i:
            yield RESTORE, i, i
            live = i
        length = end - i
        free = k - len(kept)
        if length >= 2 and free >= 1:
            m = split(length, free + 1)
            yield ADVANCE, i, i + m
            live = i + m
            kept.append(live)
            yield TAKESHOT, live, live
            continue
        if end - 1 > i:  # no free slot (or one step left): advance without keeping
            yield ADVANCE, i, end - 1
        yield (FIRSTURN if first else YOUTURN), end - 1, end - 1
        first = False
        end -= 1
        live = -1
        if end == i:
            kept.pop()
            yield FREE, i, i


def reverse_loop(n: int, k: int, acc0: tuple, step: Callable, rstep: Callable, start: Callable,
                 advance: Callable | None = None) -> tuple:
    """Reverse a loop of n steps from its initial state acc0 keeping at most k states.
    step(i, acc) is state i + 1 from state i; advance(i, j, acc) state j from state i (a loop
    of steps in one call; by step when None); start(acc_n) the initial cotangent, from the
    final state (its shape); rstep(i, acc_i, dacc) the cotangent of state i from state i and
    the cotangent of state i + 1 (it sums the environment's cotangent and writes the
    element's, by itself). Returns the cotangent of the initial state."""
    counter = COUNTER
    if counter is not None:
        counter.loops += 1
    if n == 0:
        return start(acc0)
    kept: list = []
    live = acc0
    dacc: Any = None
    for action, i, j in runs(n, k):  # the actions are the constants above: compared by identity
        if action is ADVANCE:
            if advance is not None:
                live = advance(i, j, live)
            else:
                for m in range(i, j):
                    live = step(m, live)
            if counter is not None:
                counter.forward += j - i
        elif action is TAKESHOT:
            kept.append(live)
            if counter is not None:
                counter.kept(len(kept))
        elif action is RESTORE:
            live = kept[-1]
        elif action is FREE:
            kept.pop()
        else:
            if action == FIRSTURN:
                dacc = start(step(i, live))
                if counter is not None:
                    counter.forward += 1
            dacc = rstep(i, live, dacc)
            live = None
            if counter is not None:
                counter.reverse += 1
    return dacc
