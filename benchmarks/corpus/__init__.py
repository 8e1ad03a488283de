"""A corpus of numeric Python functions in the styles of real code, each written from its
published formula (cited in a comment above it), with example arguments: what
``benchmarks/coverage.py`` measures catad against (issue 16, item 5).

The functions are written as a user writes them with NumPy, ``math`` and SciPy, not restricted
to what catad accepts. Import as a package: ``benchmarks/`` on ``sys.path`` and ``import corpus``
(coverage.py), or by path (tests/test_benchmark_corpus.py, where ``corpus`` is tests/corpus.py).
"""
from __future__ import annotations

from ._registry import Entry, case, citation_of  # noqa: F401
from . import adbench, finance, geometry, idioms, ml, numerics, optimisation, physics, pythonic, realcode, signal, statistics

MODULES = (optimisation, statistics, ml, physics, geometry, signal, numerics, finance, adbench, realcode, pythonic, idioms)
DOMAINS = tuple(m.__name__.rsplit(".", 1)[1] for m in MODULES)


def entries(only: str | None = None) -> list[Entry]:
    """Every entry, in module order; ``only``: a domain name, or a comma-separated list."""
    wanted = None if only is None else set(only.split(","))
    out = []
    for module, domain in zip(MODULES, DOMAINS):
        if wanted is not None and domain not in wanted:
            continue
        for e in module.CASES:
            e.domain = domain
            out.append(e)
    return out
