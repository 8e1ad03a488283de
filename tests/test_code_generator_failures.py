"""A case catad's code generator does not handle (a bug of catad's) is refused with a CatadError
that says so, never a raw traceback from inside catad: catad.hessian of the loop fuzzer's seed
43420 raised AttributeError ("'RT' object has no attribute 'depth'") from backend/compiler.py."""
import numpy as np
import pytest

import catad
import catad.backend as backend


def f(x):
    return np.sin(x) * x


@pytest.mark.parametrize("error", [AttributeError("'RT' object has no attribute 'depth'"),
                                   AssertionError("an unchecked index"), KeyError("t_1")])
def test_an_error_inside_the_code_generator_is_refused(monkeypatch, error):
    def fails(*args, **kwargs):
        raise error
    monkeypatch.setattr(backend, "_compile", fails)
    g = lambda x: f(x) + 0.0  # noqa: E731  (a function not compiled before: nothing cached)
    with pytest.raises(catad.CatadError, match="catad's own error") as info:
        catad.grad(g)(0.5)
    assert type(error).__name__ in str(info.value)


def test_a_catad_error_of_the_code_generator_is_passed_on(monkeypatch):
    def refuses(*args, **kwargs):
        raise catad.CatadError("refused for a reason of its own")
    monkeypatch.setattr(backend, "_compile", refuses)
    g = lambda x: f(x) + 1.0  # noqa: E731
    with pytest.raises(catad.CatadError, match="^refused for a reason of its own$"):
        catad.grad(g)(0.5)
