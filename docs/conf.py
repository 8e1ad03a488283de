"""Sphinx configuration. Build with ``python -m sphinx -W -b html docs docs/_build/html``;
run the examples with ``python -m sphinx -W -b doctest docs docs/_build/doctest``
(tests/test_docs.py does both)."""
import doctest
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))

import catad  # noqa: E402

project = "catad"
author = "the catad authors"
copyright = "the catad authors"
release = version = catad.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "myst_parser",   # for design.md, the project's design page, kept in Markdown
    "catad_docs",    # _ext/catad_docs.py: derivations, the rule reference, command output
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

html_theme = "furo"
html_title = f"catad {release}"
pygments_style = "sphinx"

autodoc_member_order = "bysource"
autodoc_typehints = "signature"

# Examples compare their output exactly (no IGNORE_EXCEPTION_DETAIL: error messages are
# part of what the docs promise); NORMALIZE_WHITESPACE lets long messages wrap.
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.DONT_ACCEPT_TRUE_FOR_1
# derivations.rst checks the papers' examples kept in the test suite (tests/*.py) and the
# ADBench GMM objective the benchmarks run (benchmarks/adbench/gmm.py)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS, BENCHMARKS = os.path.join(ROOT, "tests"), os.path.join(ROOT, "benchmarks")
doctest_global_setup = f"""
import math
import sys
import numpy as np
import catad
if {TESTS!r} not in sys.path:
    sys.path.insert(0, {TESTS!r})
if {BENCHMARKS!r} not in sys.path:  # last: benchmarks/distributed.py must not hide Dask's distributed
    sys.path.append({BENCHMARKS!r})
"""
