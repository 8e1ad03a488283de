"""import statements inside a compiled function (catad/frontend/imports.py): each name is bound to
what Python's import binds it to (a module in sys.modules, an attribute of one, a submodule),
read again at each call, as a global is: a value changed in the module between calls is the new
value. A name read before its import raises in Python (UnboundLocalError): catad refuses it,
located. The oracle is the user's function itself (located.agrees). Every test but the refusals
fails on main, which refused imports inside a function."""
import numpy as np
import pytest

import catad
import local_import_module
from located import agrees, refused


def module_and_function(x):
    import numpy as np
    from scipy.special import logsumexp
    return logsumexp(x) + np.sum(np.sin(x))


def submodule(x):
    import numpy.linalg
    import numpy
    return numpy.linalg.norm(x) + numpy.sum(x)


def names_renamed(x):
    from math import exp, pi as PI
    return sum(exp(t) * PI for t in x)


def hides_a_global(x):
    from numpy import cos as sin
    return np.sum(sin(x))


def in_a_branch(x):
    if x[0] > 0:
        import math
        return math.sin(x[0]) + np.sum(x)
    return x[0]


def in_a_nested_def(x):
    def g(t):
        from math import tanh
        return tanh(t)
    return sum(g(t) for t in x)


V = np.array([0.3, -0.7, 1.1, 0.4, 2.5])


@pytest.mark.parametrize("f", [module_and_function, submodule, names_renamed, hides_a_global, in_a_branch,
                               in_a_nested_def])
@pytest.mark.parametrize("v", [V, -V])
def test_imported_names(f, v):
    agrees(f, v)


def reads_the_module(x):
    from local_import_module import K, W
    import local_import_module as m
    return x * K + (W @ W) * x + m.K


def test_read_again_at_each_call(monkeypatch):
    g = catad.value_and_grad(reads_the_module)
    assert g(1.5) == (12.5, 7.0)
    monkeypatch.setattr(local_import_module, "K", 3.0)
    assert g(1.5) == (reads_the_module(1.5), 8.0) == (15.0, 8.0)
    monkeypatch.setattr(local_import_module, "W", np.array([1.0, 3.0]))
    assert g(1.5) == (reads_the_module(1.5), 13.0) == (22.5, 13.0)


def used_before_its_import(x):
    y = np.sum(x)  # ERR
    import numpy as np
    return y


def missing_module(x):
    import catad_no_such_module  # ERR
    return x




@pytest.mark.parametrize("f, words", [(used_before_its_import, ["'np' is used before it is assigned"]),
                                      (missing_module, ["ModuleNotFoundError", "catad_no_such_module"])])
def test_refused(f, words):
    refused(f, (V,), *words)
