"""A for or while loop's else clause runs when the loop ends without a break (loops.without_else:
a flag each of the loop's own breaks clears, and an if after the loop); held against Python's
values and central differences, with and without breaks taken, over empty and nonempty vectors."""
import numpy as np
import pytest

from located import agrees


def first_large(x, v):
    for a in v:
        if a > 2.0:
            x = x * a
            break
    else:
        x = x * 10.0
    return x


def inner_loop_else(x, v):
    for a in v:
        for b in v:
            if b > a:
                break  # the inner loop's: the outer one's else runs
        else:
            x = x + a * x
    else:
        x = x * 0.5
    return x


def never_breaks(x, v):
    for a in v:
        x = x * 0.5 + a
    else:
        x = x * 3.0
    return x


def while_else(x, v):
    k = 0
    while k < len(v):
        if v[k] < 0.0:
            break
        x = x + v[k] * x
        k += 1
    else:
        x = x * 2.0
    return x


def while_false_at_once(x, v):
    while x > 100.0:
        x = x / 2.0
    else:
        x = x + 1.0
    return x


def returns_in_else(x, v):
    for a in v:
        if a > 2.0:
            break
    else:
        return x * 4.0
    return x


def else_reads_the_loop_variable(x, v):
    a = 0.5
    for a in v:
        if a < 0.0:
            break
        x = x * a
    else:
        x = x + a
    return x


def continues(x, v):
    for a in v:
        if a > 1.0:
            continue
        x = x + a * x
    else:
        x = -x
    return x


def else_in_a_loop(x, v):
    for a in v:
        for i in range(len(v)):
            if v[i] * a > 4.0:
                x = x + v[i]
                break
        else:
            x = x * 1.5
    return x


CASES = [first_large, inner_loop_else, never_breaks, while_else, while_false_at_once, returns_in_else,
         else_reads_the_loop_variable, continues, else_in_a_loop]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [[1.25, 3.0, 2.25], [1.25, 0.5], [], [-1.0, 2.25], [2.5, 0.25, 3.0]], ids=str)  # (off the tests' thresholds)
def test_else_as_python(f, v):
    agrees(f, 1.5, np.array(v), argnums=(0, 1) if v else 0)
