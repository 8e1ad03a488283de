"""The documentation (docs/) builds with warnings as errors, every example in it passes as a
doctest, and every rule name in a rendered derivation links to the rule's law."""
import os
import re
import subprocess
import sys

import pytest

import catad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")


def sphinx(builder: str, out: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", builder, DOCS, out]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, f"{' '.join(cmd)} exited with {run.returncode}\n{run.stdout}\n{run.stderr}"
    return run


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("html"))
    sphinx("html", out)
    return out


def read(out: str, page: str) -> str:
    with open(os.path.join(out, page), encoding="utf-8") as f:
        return f.read()


def test_html_builds_without_warnings(html):
    for page in ("index", "getting-started", "tutorial", "concepts", "subset", "derivations", "rules",
                 "cli", "design", "api"):
        assert os.path.exists(os.path.join(html, page + ".html")), page


def test_every_rule_has_an_entry_with_its_law(html):
    rules = read(html, "rules.html")
    for r in catad.rules:
        assert f'id="rule-{r.name}"' in rules, r.name
    assert rules.count('class="math notranslate nohighlight"') >= len(catad.rules)


def test_rule_names_in_derivations_link_to_the_rule_reference(html):
    page = read(html, "derivations.html")
    linked = set(re.findall(r'href="rules\.html#rule-([a-z0-9-]+)"', page))
    assert {"lm-hcat-vcat", "tr-compose", "fwd-let-bound", "rev-let-bound", "rev-index"} <= linked
    assert linked <= {r.name for r in catad.rules}


def test_doctests_pass(tmp_path):
    out = str(tmp_path / "doctest")
    sphinx("doctest", out)
    summary = read(out, "output.txt")
    ran = re.search(r"(\d+) tests\s+(\d+) failures in tests", summary)
    assert ran, summary
    assert int(ran.group(1)) >= 100 and int(ran.group(2)) == 0, summary
