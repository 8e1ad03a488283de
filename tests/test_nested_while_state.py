"""A while loop inside a for loop reads, in the for loop's eyes, only what its test and its body
read before assigning it (as a for loop inside does): every read anywhere in the while statement
counted, so `s = 1.0; x = x * s` inside it was refused as "variable 's' is read in the loop before
it is assigned". A read before the assignment is still refused (Python's UnboundLocalError).
Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def assigned_then_read(x):
    for i in range(3):
        k = 0
        while k < 2:
            k += 1
            s = 1.0
            x = x * s + 0.5 * np.sin(x)
    return x


def assigned_then_read_in_the_test(v):
    total = 0.0
    for i in range(len(v)):
        k = 0
        w = v[i]
        while k < 3 and w < 10.0:
            step = w * 0.5 + 1.0
            w = w + step
            k += 1
        total = total + w * v[i]
    return total


def read_then_assigned(x):
    for i in range(3):
        k = 0
        while k < 2:
            k += 1
            x = x + s
            s = 1.0
    return x


def test_a_name_assigned_before_it_is_read_in_a_nested_while():
    agrees(assigned_then_read, 0.7)


def test_a_name_assigned_in_a_nested_while_read_by_its_test():
    agrees(assigned_then_read_in_the_test, np.array([0.5, 3.0, -1.0]))


def test_a_name_read_before_it_is_assigned_in_a_nested_while_is_refused():
    with pytest.raises(UnboundLocalError):
        read_then_assigned(0.7)
    with pytest.raises(catad.UnsupportedSyntax, match="'s' is read in the loop before it is assigned"):
        catad.grad(read_then_assigned)(0.7)
