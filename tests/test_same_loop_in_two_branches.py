"""Two copies of one loop in the two branches of a vectorised if (the front end copies the code
after an `if` holding a return into both branches) run under different masks: the reverse
program's primal value reused the first branch's loop (which runs none of the other branch's
lanes) for the second, and value_and_grad's value skipped the loop (0.3 where Python gives
0.0375). The fold key of a loop outside builds now holds the branch's mask. Found by the
differential fuzzer (fuzzL)."""
import numpy as np
import pytest

import catad
from located import agrees


def nested_return(x):
    if x > 10.0:
        if x > 20.0:
            return x
    for i in range(3):
        k = 0
        while k < 1:
            k += 1
            x = x * 0.5
    return x


def return_then_fold(x, v):
    if x > 1.0:
        if np.sum(v) > 100.0:
            return x
    s = x
    for e in v:
        s = np.sin(s) * e + s
    return s


@pytest.mark.parametrize("x", [0.3, 5.0, 15.0, 25.0])
def test_value_and_gradient(x):
    agrees(nested_return, x)
    agrees(return_then_fold, x, np.array([0.5, -0.25, 0.75]), argnums=(0, 1))
    assert catad.value_and_grad(nested_return)(x)[0] == nested_return(x)
