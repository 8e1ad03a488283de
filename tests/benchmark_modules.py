"""The benchmarks' corpus (benchmarks/corpus/) and coverage tool, loaded by path: in the tests,
``import corpus`` is tests/corpus.py, the front end's test corpus, another thing. Tests that
check a corpus function take it from here rather than copying it."""
import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name, path, package=False):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[str(path.parent)] if package else None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


bench_corpus = _load("bench_corpus", BENCH / "corpus" / "__init__.py", package=True)
coverage_tool = _load("bench_coverage_tool", BENCH / "coverage.py")
