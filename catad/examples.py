"""Built-in example functions (used by `catad demo` and the docs)."""
from __future__ import annotations


def f2(x: float) -> float:
    """The notes' Section 9 example; its derivative is 3x^2 + 4x^3."""
    y = x * x
    z = x + y
    return y * z


def seed000_fig1(x: float, y: float) -> float:
    """Smeding and Vakar, Fig. 1: the gradient at (3, 4) is (10, 3)."""
    z = x + y
    return x * z


EXAMPLES = {"f2": (f2, (2.0,)), "seed000_fig1": (seed000_fig1, (3.0, 4.0))}
