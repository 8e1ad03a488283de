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


def resolve_path(name: str):
    module, _, path = name.partition(":")
    obj = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", ["fold", "FFold", "RFold", "while"])
def test_fold_s_stages_side_by_side(name):
    """fold is a term, not a primitive: STRUCTURAL_TERMS names its piece in each stage, and
    each name is the object that stage dispatches on."""
    from catad.backend.dispatch import TERMS
    from catad.lang.fold import EVALUATORS
    from catad.primitives.registry import STRUCTURAL_TERMS
    from catad.rewrite.catalogue import ALL_BY_NAME, BY_NAME
    row = STRUCTURAL_TERMS[name]
    term = resolve_path(row["term"])
    assert TERMS[term] is resolve_path(row["codegen"])
    assert EVALUATORS[term] is resolve_path(row["evaluation"])
    if name == "fold":
        from catad.combinators import terms as cl
        assert resolve_path(row["CL"]) is cl.Fold
        assert callable(resolve_path(row["derivative"]))
        assert resolve_path(row["linear maps"]) is L.LMFold
    elif name == "while":  # an Int: no linear map, no rule; its derivative is zero
        from catad.combinators import terms as cl
        assert resolve_path(row["CL"]) is cl.WhileCount
        assert callable(resolve_path(row["derivative"]))
        assert "linear maps" not in row and "rule" not in row
    else:
        assert row["rule"] in BY_NAME and row["sweep"] in ALL_BY_NAME
        assert term.__name__ in BY_NAME[row["rule"]].rhs
