"""A module tests/test_local_imports.py imports inside its functions, and changes between calls."""
import numpy as np

K = 2.0
W = np.array([1.0, 2.0])
