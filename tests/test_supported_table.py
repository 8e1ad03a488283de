"""docs/supported.rst is generated from the front end's tables (catad-supported in
docs/_ext/catad_docs.py): every function catad can call has a row saying what it is, and every
expression form a docstring, so a new handler or form cannot appear there unexplained."""
import numpy as np
import pytest

import catad
from catad.frontend.calls import array_methods, supported_names, supported_table
from catad.frontend.lower import FunctionLowerer


def test_every_supported_function_has_a_row_with_a_description():
    rows = supported_table()
    assert [name for name, _, _ in rows] == supported_names()
    assert not [name for name, _, what in rows if not what]


def test_keywords_in_the_table_are_taken():
    rows = {name: kw for name, kw, _ in supported_table()}
    assert "axis" in rows["np.sum"] and "keepdims" in rows["np.sum"]
    assert rows["np.sin"] == ()

    def f(x):
        return np.sum(np.sin(x), axis=0, keepdims=True)[0]
    assert catad.grad(f)(np.ones(3)) == pytest.approx(np.cos(np.ones(3)))


def test_every_expression_form_and_method_is_documented():
    forms = [m for m in dir(FunctionLowerer) if m.startswith("x_")]
    assert len(forms) >= 15
    assert not [m for m in forms if not (getattr(FunctionLowerer, m).__doc__ or "").strip()]
    assert {"sum", "reshape", "copy"} <= set(array_methods())
