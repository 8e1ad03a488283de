"""A reverse program computes a fold's value and runs its RFold: the backend writes the forward
loop once (catad/backend/folds.py: the fold and the RFold's primal are equal up to binder names),
and sums a Float cotangent of the loop's environment in a plain number. Counted in the generated
code, never timed; gradients against the function itself (central differences)."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from catad.lang.fold import Fold
from catad.lang.inline import canonical
from catad.lang.terms import Const, Get, Let, Var
from catad.lang.types import Float, Tuple as TupleT, Vec
from catad.primitives import prim
from test_loops import check


def logistic(x, r, n: int):
    for i in range(n):
        x = r * x * (1.0 - x)
    return x


def squared_after(x, v):
    s = x
    for e in v:
        s = np.sin(s * e) + s
    return s * s  # the fold's value is needed before its RFold runs


def _reverse_code(f, *args, **kw):
    text = catad.explain(f, *args, **kw).stage("code").text
    return text.split("# its reverse derivative")[1]


@pytest.mark.parametrize("f, args", [(logistic, (0.3, 3.2, 7)), (squared_after, (0.4, np.linspace(0, 1, 5)))])
def test_one_forward_loop(f, args):
    code = _reverse_code(f, *args)
    loops = [ln for ln in code.splitlines() if ln.strip().startswith("for ")]
    assert len(loops) == 2, code  # the forward loop (keeping states) and the reverse loop
    assert "T_Acc" not in code  # the Float environment (r, or x read by the body) summed in a number
    check(f, args, (0, 1))


def test_checkpoints_keep_their_own_loops():
    code = _reverse_code(logistic, 0.3, 3.2, 7, checkpoints=3)
    assert "reverse_loop(" in code and "def advance(" in code
    # advance's loop and the sweep's two; the fold's value is the final state reverse_loop
    # computed on the way, not another loop
    loops = [ln for ln in code.splitlines() if ln.strip().startswith("for ")]
    assert len(loops) == 3, code
    assert catad.value_and_grad(logistic, argnums=(0, 1), checkpoints=3)(0.3, 3.2, 50)[0] == logistic(0.3, 3.2, 50)
    g = catad.grad(logistic, argnums=(0, 1), checkpoints=3)(0.3, 3.2, 50)
    assert g == catad.grad(logistic, argnums=(0, 1))(0.3, 3.2, 50)


def test_canonical_is_equality_up_to_binder_names():
    v = Var("v", Vec(Float))
    def fold(tname, xname):
        t = Var(tname, TupleT((Float, Float)))
        x = Var(xname, Float)
        body = Let(x, prim("mul", Get(0, t), Get(1, t)), prim("add", x, Const(1.0, Float)))
        return Fold(Const(0.0, Float), v, t, body)
    assert fold("t", "x") != fold("u", "y")
    assert canonical(fold("t", "x")) == canonical(fold("u", "y"))
    w = Var("w", Vec(Float))
    other = fold("t", "x").replace(vec=w)  # a different free variable is a different fold
    assert canonical(other) != canonical(fold("t", "x"))


def test_a_range_loop_keeps_no_array_of_indices():
    """for i in range(n): the loop counts; no np.arange(n) is made (a loop of a million steps
    with checkpoints keeps O(k) memory), in the primal, forward and reverse programs."""
    for kw in ({}, {"checkpoints": 4}):
        code = catad.explain(logistic, 0.3, 3.2, 7, **kw).stage("code").text
        assert "arange" not in code, code
    check(logistic, (0.3, 3.2, 0), (0, 1))  # an empty range
    check(logistic, (0.3, 3.2, 40), (0, 1))
    g = catad.grad(logistic, argnums=(0, 1), checkpoints=4)(0.3, 3.2, 40)
    assert g == catad.grad(logistic, argnums=(0, 1))(0.3, 3.2, 40)
