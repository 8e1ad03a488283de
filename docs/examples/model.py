"""The example file of the command-line reference (docs/cli.rst)."""
import numpy as np


def f(x: float, y: float) -> float:
    z = x + y
    return x * np.sin(z)


def dot(v, w):
    return sum(v[i] * w[i] for i in range(len(v)))
