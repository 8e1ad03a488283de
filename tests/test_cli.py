"""The `catad` command, run for real in a subprocess (`python -m catad.cli ...`).

Tests marked "end to end" call `catad explain` through to ``catad.explain`` and fail with
a clear message (they are not skipped) until ``catad.explain`` exists.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest

import catad
from catad.cli_args import ArgsError, check_count, make_values, parse_types, types_from_annotations
from catad.rewrite.catalogue import ALL_RULES as RULES  # what `catad rules` shows

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("CATAD_TRACEBACK", None)
    return subprocess.run([sys.executable, "-m", "catad.cli", *args], cwd=cwd or ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def ok(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 0, f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert "Traceback" not in r.stderr, r.stderr
    return r.stdout


def error(r: subprocess.CompletedProcess, *words: str) -> str:
    """The one-line error of a failed run, checked: status 2, `catad: ...`, no traceback."""
    assert r.returncode == 2, f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{r.stderr}"
    line = lines[0]
    assert line.startswith("catad: "), line
    for w in words:
        assert w in line, (w, line)
    return line


def needs_explain() -> None:
    assert hasattr(catad, "explain"), (
        "catad.explain does not exist yet: this end-to-end test of `catad explain` waits for it "
        "(contract: catad.explain(fn, *args) -> Derivation with .stages, .steps, str(), .latex(), "
        ".to_json())")


# ---------------------------------------------------------------------- a user's file

USER_FILE = '''\
import numpy as np
import sibling


def poly(x: float) -> float:
    y = x * x
    z = x + y
    return y * z


def dot(v: "vec", w: np.ndarray) -> float:
    return sum(v[i] * w[i] for i in range(len(v)))


def plain(x, y):
    return x * y + x


def odd_annotation(x: dict) -> float:
    return 1.0


def guarded(x: float) -> float:
    try:  # UNSUPPORTED
        return x + 1.0
    except ValueError:
        return 0.0


K = sibling.K
'''


@pytest.fixture
def user(tmp_path: Path) -> Path:
    """A directory with model.py (the functions above) and sibling.py, which model.py imports."""
    (tmp_path / "model.py").write_text(USER_FILE)
    (tmp_path / "sibling.py").write_text("K = 2.5\n")
    return tmp_path


def unsupported_line() -> int:
    return next(k for k, line in enumerate(USER_FILE.splitlines(), 1) if "# UNSUPPORTED" in line)


def derivation(path: Path, func: str, types: str):
    """catad.explain in this process, on the arguments the command makes for `types`."""
    from catad.cli import load_function
    fn = load_function(f"{path}:{func}")
    return catad.explain(fn, *make_values(parse_types(types)))


# ---------------------------------------------------------------------- help and demo

@pytest.mark.parametrize("cmd", [[], ["demo"], ["rules"], ["explain"]])
def test_help(cmd):
    out = ok(run(*cmd, "--help"))
    assert out.startswith("usage: catad")
    if not cmd:
        for sub in ("demo", "rules", "explain"):
            assert sub in out
    if cmd == ["explain"]:
        for word in ("FILE.py:FUNC", "--args", "--stage", "--trace", "--format", "vec[n]", "mat[m,n]"):
            assert word in out


def test_no_command_is_a_one_line_error():
    error(run(), "required")
    error(run("frobnicate"), "frobnicate")


def test_demo():
    out = ok(run("demo"))
    for stage in ("Original definition (Python)", "Core program", "Combinator language CL"):
        assert stage in out
    assert "def f2" in out


def test_demo_other_example():
    assert "seed000_fig1" in ok(run("demo", "seed000_fig1"))


# ---------------------------------------------------------------------- catad rules

def test_rules_text_lists_every_rule_grouped():
    out = ok(run("rules"))
    for r in RULES:
        assert f"\n{r.name}\n" in f"\n{out}", r.name
        assert f"  rule:  {r.lhs}  ->  {r.rhs}" in out
        assert f"  law:   {r.law}" in out
        if r.condition:
            assert f"  when:  {r.condition}" in out
    groups = list(dict.fromkeys(r.group for r in RULES))
    positions = [out.index(g + " (") for g in groups]
    assert positions == sorted(positions)   # groups in catalogue order, each once
    assert out.count("  law:   ") == len(RULES)


def test_rules_json_has_every_rule():
    data = json.loads(ok(run("rules", "--format", "json")))
    assert isinstance(data, list)
    assert [d["name"] for d in data] == [r.name for r in RULES]
    for d, r in zip(data, RULES):
        assert {"name", "law", "lhs", "rhs"} <= set(d)
        assert d == r.describe()


def test_rules_latex():
    out = ok(run("rules", "--format", "latex"))
    assert out.count("\\paragraph{") == len(RULES)
    for r in RULES:
        assert f"\\paragraph{{{r.name.replace('_', chr(92) + '_')}}}" in out
        assert f"\\[ {r.latex} \\]" in out
    assert out.count("\\[") == out.count("\\]")
    assert "\\documentclass" not in out   # a fragment


def test_rules_by_name_and_glob():
    a, b = RULES[0], RULES[-1]
    out = ok(run("rules", b.name, a.name))
    assert out.count("  law:   ") == 2
    assert a.name in out and b.name in out and RULES[1].name not in out.split("\n")
    data = json.loads(ok(run("rules", a.name, "-f", "json")))
    assert [d["name"] for d in data] == [a.name]
    prefix = a.name.split("-")[0] + "-*"
    data = json.loads(ok(run("rules", prefix, "--format", "json")))
    assert [d["name"] for d in data] == [r.name for r in RULES if r.name.startswith(prefix[:-1])]


def test_rules_unknown_name():
    name = RULES[0].name
    typo = name[:3] + name[4:]   # one letter dropped
    line = error(run("rules", typo), "unknown rule", repr(typo), name)
    assert "did you mean" in line
    error(run("rules", RULES[0].name, "no-such-rule-anywhere"), "no-such-rule-anywhere")
    error(run("rules", "zzz*"), "zzz*")


def test_rules_bad_format():
    error(run("rules", "--format", "html"), "html")


# ---------------------------------------------------------------------- explain: end to end

def test_explain_text_matches_the_derivation(user):
    needs_explain()
    d = derivation(user / "model.py", "poly", "float")
    out = ok(run("explain", "model.py:poly", cwd=user))    # types from the annotations
    assert out == str(d).rstrip("\n") + "\n"
    for stage in d.stages:
        assert stage.text.strip().splitlines()[0] in out


def test_explain_with_args_equals_annotations(user):
    needs_explain()
    by_annotation = ok(run("explain", "model.py:dot", cwd=user))
    by_args = ok(run("explain", "model.py:dot", "--args", "vec, vec[4]", cwd=user))
    assert by_annotation == by_args
    assert by_args == str(derivation(user / "model.py", "dot", "vec, vec")).rstrip("\n") + "\n"


def test_explain_unannotated_with_args(user):
    needs_explain()
    out = ok(run("explain", str(user / "model.py") + ":plain", "--args", "float, float"))
    assert out == str(derivation(user / "model.py", "plain", "float, float")).rstrip("\n") + "\n"
    ok(run("explain", "model.py:dot", "--args", "vec[3], vec[3]", cwd=user))


def test_explain_latex(user):
    needs_explain()
    d = derivation(user / "model.py", "poly", "float")
    out = ok(run("explain", "model.py:poly", "--format", "latex", cwd=user))
    assert out == d.latex().rstrip("\n") + "\n"


def test_explain_json(user):
    needs_explain()
    d = derivation(user / "model.py", "poly", "float")
    out = ok(run("explain", "model.py:poly", "--format", "json", cwd=user))
    assert json.loads(out) == json.loads(d.to_json())


def test_explain_stage(user):
    needs_explain()
    d = derivation(user / "model.py", "poly", "float")
    assert len(d.stages) >= 2
    for stage in d.stages:
        out = ok(run("explain", "model.py:poly", "--stage", stage.name, cwd=user))
        assert out == stage.text.rstrip("\n") + "\n"
    for stage in (d.stages[1], d.stages[-1]):
        data = json.loads(ok(run("explain", "model.py:poly", "--stage", stage.name, "-f", "json", cwd=user)))
        shown = data["stages"] if "stages" in data else [data]   # d.to_json() cut to the stage
        assert [(s["name"], s["text"]) for s in shown] == [(stage.name, stage.text)]
        latex = ok(run("explain", "model.py:poly", "--stage", stage.name, "-f", "latex", cwd=user))
        assert stage.text.splitlines()[0] in latex
    # case and punctuation do not matter
    first = d.stages[0]
    loose = first.name.upper().replace(" ", "_")
    assert ok(run("explain", "model.py:poly", "--stage", loose, cwd=user)) == first.text.rstrip("\n") + "\n"


def test_explain_unknown_stage_lists_the_stages(user):
    needs_explain()
    d = derivation(user / "model.py", "poly", "float")
    line = error(run("explain", "model.py:poly", "--stage", "no-such-stage", cwd=user), "no-such-stage")
    for stage in d.stages:
        assert repr(stage.name) in line


def test_explain_trace(user):
    needs_explain()
    d = derivation(user / "model.py", "poly", "float")
    assert d.steps, "poly's derivation should take some rewrite steps"
    out = ok(run("explain", "model.py:poly", "--trace", cwd=user))
    assert out.startswith(str(d).rstrip("\n"))
    assert f"Rewrite steps ({len(d.steps)})" in out
    for k, step in enumerate(d.steps, 1):
        assert f"{k}. {step.rule}  [{step.stage}]" in out
    for step in d.steps[:5]:
        for side in (step.before, step.after):
            assert all(line in out for line in str(side).splitlines())
    latex = ok(run("explain", "model.py:poly", "--trace", "-f", "latex", cwd=user))
    for step in d.steps:
        assert step.rule in latex


def test_explain_trace_of_one_stage(user):
    """--stage S --trace: S's text and S's steps; every step belongs to exactly one stage."""
    needs_explain()
    d = derivation(user / "model.py", "poly", "float")
    total = 0
    for stage in d.stages:
        out = ok(run("explain", "model.py:poly", "--trace", "--stage", stage.name, cwd=user))
        assert out.startswith(stage.text.rstrip("\n"))
        shown = int(out.split("Rewrite steps (", 1)[1].split(")", 1)[0])
        exact = sum(s.stage == stage.name for s in d.steps)
        assert shown >= exact
        total += shown
    assert total == len(d.steps)
    stage = d.stages[-1]
    latex = ok(run("explain", "model.py:poly", "--trace", "--stage", stage.name, "-f", "latex", cwd=user))
    assert f"Rewrite steps ({shown})" in latex


# ---------------------------------------------------------------------- explain: errors

def test_explain_missing_file(tmp_path):
    error(run("explain", str(tmp_path / "nowhere.py") + ":f"), "no such file", "nowhere.py")


def test_explain_missing_function(user):
    error(run("explain", "model.py:pol", cwd=user), "no function 'pol'", "poly")   # close match named
    error(run("explain", "model.py:K", cwd=user), "K", "not a function")          # sibling imported
    error(run("explain", "model.py", cwd=user), "FILE.py:FUNC", "poly")
    error(run("explain", str(user), cwd=user), "directory")


def test_explain_file_that_does_not_import(tmp_path):
    (tmp_path / "broken.py").write_text("def f(x: float) -> float:\n    return (x\n")
    error(run("explain", "broken.py:f", cwd=tmp_path), "broken.py:", "syntax error")
    (tmp_path / "raises.py").write_text("import no_such_module_anywhere_xyz\n")
    error(run("explain", "raises.py:f", cwd=tmp_path), "raises.py:1", "no_such_module_anywhere_xyz")


@pytest.mark.parametrize("args, words", [
    ("flot", ["unknown type 'flot'", "float"]),
    ("float, matrix", ["unknown type 'matrix'"]),
    ("vec[0]", ["vec"]),
    ("mat[3]", ["mat takes 2 sizes"]),
    ("(float", ["expected ')'"]),
])
def test_explain_bad_args(user, args, words):
    error(run("explain", "model.py:poly", "--args", args, cwd=user), "--args", *words)


@pytest.mark.parametrize("args", ["vec[100000000000], vec", "mat[100000, 100000], vec",
                                  "vec[99999999999999999999], vec", "vec[6000000], vec[6000000]"])
def test_explain_sizes_past_memory_are_one_line(user, args):
    """Example values only fix the types; sizes that would exhaust memory (or that NumPy
    cannot allocate at all) are refused before anything is allocated."""
    error(run("explain", "model.py:dot", "--args", args, cwd=user), "--args", "limit", "10,000,000")


def test_explain_sizes_past_memory_from_annotations(tmp_path):
    (tmp_path / "big.py").write_text('def f(v: "vec[100000000000]") -> float:\n    return v[0]\n')
    error(run("explain", "big.py:f", cwd=tmp_path), "limit")


def test_explain_deeply_nested_tuples_are_one_line(user):
    args = "(" * 5000 + "float" + ",)" * 5000
    error(run("explain", "model.py:poly", "--args", args, cwd=user), "--args", "nested more than 100 deep")


def test_values_out_of_memory_is_an_args_error(monkeypatch):
    import catad.cli_args as cli_args

    def no_memory(*_):
        raise MemoryError()
    monkeypatch.setattr(cli_args, "_make_values", no_memory)
    with pytest.raises(ArgsError, match="not enough memory.*vec"):
        make_values(parse_types("float, vec[3]"))


def test_explain_wrong_number_of_args(user):
    error(run("explain", "model.py:poly", "--args", "float, float", cwd=user),
          "poly takes 1 parameter (x)", "gives 2 types")
    error(run("explain", "model.py:dot", "--args", "vec", cwd=user),
          "dot takes 2 parameters (v, w)", "gives 1 type")


def test_explain_needs_annotations_or_args(user):
    error(run("explain", "model.py:plain", cwd=user), "'x'", "no type annotation", "--args")
    error(run("explain", "model.py:odd_annotation", cwd=user), "'x'", "dict", "--args")


def test_explain_unsupported_construct(user):
    error(run("explain", "model.py:guarded", cwd=user), f"model.py:{unsupported_line()}", "try")


def test_explain_bad_format(user):
    error(run("explain", "model.py:poly", "--format", "pdf", cwd=user), "pdf")


# ---------------------------------------------------------------------- the type-string parser

def test_parse_types():
    shown = [str(t) for t in parse_types("float, int, bool, vec, mat, vec[7], mat[2, 3], (float, vec)")]
    assert shown == ["float", "int", "bool", "vec[4]", "mat[3, 4]", "vec[7]", "mat[2, 3]", "(float, vec[4])"]
    assert [str(t) for t in parse_types("((float, int), vec[2]), (bool,)")] == \
        ["((float, int), vec[2])", "(bool,)"]
    assert [str(t) for t in parse_types(" Float ,VEC ")] == ["float", "vec[4]"]
    assert parse_types("") == []
    for bad in ["flot", "vec[0]", "vec[2, 3]", "mat[3]", "float[2]", "(float", "float)", "float vec",
                "vec[", "()", "float,,vec", "float;"]:
        with pytest.raises(ArgsError):
            parse_types(bad)


def test_values_are_deterministic_and_shaped():
    types = parse_types("float, int, bool, vec, mat, vec[2], (float, mat[1, 2])")
    a, b = make_values(types), make_values(types)
    x, n, flag, v, m, v2, (y, m2) = a
    assert isinstance(x, float) and 0.5 <= x <= 1.5
    assert n == 3 and flag is True
    assert v.shape == (4,) and m.shape == (3, 4) and v2.shape == (2,) and m2.shape == (1, 2)
    for arr in (v, m, v2, m2):
        assert arr.dtype == np.float64 and ((0.5 <= arr) & (arr <= 1.5)).all()
    assert len(set(v.tolist())) == 4     # not degenerate
    assert all(np.array_equal(p, q) if isinstance(p, np.ndarray) else p == q for p, q in zip(a[:6], b[:6]))


def test_types_from_annotations():
    def f(a: float, b: int, c: bool, d: np.ndarray, e: "vec", g: "mat", h: "vec[5]",
          i: tuple[float, float], j: typing.Tuple[float, np.ndarray], k: "tuple[float, vec]",
          m: "np.ndarray", n: "mat[2, 3]"):
        pass
    shown = [str(t) for t in types_from_annotations(f)]
    assert shown == ["float", "int", "bool", "vec[4]", "vec[4]", "mat[3, 4]", "vec[5]", "(float, float)",
                     "(float, vec[4])", "(float, vec[4])", "vec[4]", "mat[2, 3]"]

    def unannotated(x, y: float):
        pass

    def odd(x: list):
        pass
    for fn in (unannotated, odd):
        with pytest.raises(ArgsError, match="--args"):
            types_from_annotations(fn)


def test_check_count_with_defaults():
    def f(x, y=1.0):
        pass
    check_count(f, parse_types("float"))
    check_count(f, parse_types("float, float"))
    with pytest.raises(ArgsError, match="at most 2"):
        check_count(f, parse_types("float, float, float"))
    with pytest.raises(ArgsError, match="at least 1"):
        check_count(f, [])
