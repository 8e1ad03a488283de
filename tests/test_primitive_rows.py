"""A structural primitive's registry row names where each stage keeps its rules
(catad.primitives.registry.STRUCTURAL): every name resolves to the very object that stage
dispatches on, and every stage's table has a row naming it, so the row and the tables
cannot drift apart (adding fold's parts touches one row and one entry per stage)."""
import importlib

import pytest

from catad.ad.rules import _ARRAY_RULES
from catad.backend.dispatch import CODEGEN
from catad.linearmaps import terms as L
from catad.primitives.registry import PRIMITIVES, STRUCTURAL


def resolve(name: str):
    module, _, objects = name.partition(":")
    m = importlib.import_module(module)
    return [getattr(m, o) for o in objects.split()]


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
def test_a_row_names_each_stage_s_own_rule(name):
    stages = dict(PRIMITIVES[name].stages)
    assert stages == STRUCTURAL[name]
    if "derivative" in stages:
        assert resolve(stages["derivative"]) == [_ARRAY_RULES[name]]
    else:
        assert name not in _ARRAY_RULES
    if "linear maps" in stages:
        assert all(isinstance(c, type) and issubclass(c, L.LM) for c in resolve(stages["linear maps"]))
    assert resolve(stages["codegen"]) == [CODEGEN[name]]


def test_every_stage_table_has_a_row():
    assert set(_ARRAY_RULES) <= set(STRUCTURAL) and set(CODEGEN) <= set(STRUCTURAL)
