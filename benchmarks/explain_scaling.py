"""Time of catad.explain (every stage, including the rewrite trace) on straight-line
chains x_i = (x_{i-1} + x_{i-1}) * 0.5 of 2,500, 5,000 and 10,000 statements.
Linear growth doubles the time with the size.

    python benchmarks/explain_scaling.py
"""
from __future__ import annotations

from _util import chain_source, load_source, median_time

import catad  # noqa: E402  (after _util puts the checkout on sys.path)


def main() -> None:
    rows = []
    for n in (2_500, 5_000, 10_000):
        src = chain_source(n, "({p} + {p}) * 0.5")
        rows.append((n, median_time(lambda: catad.explain(load_source(src), 1.0), 1)))
    print(f"{'statements':>12} {'explain s':>10}")
    for n, t in rows:
        print(f"{n:>12} {t:>10.2f}")
    print(f"ratio 10,000 / 5,000 = {rows[2][1] / rows[1][1]:.2f}  (linear: 2)")


if __name__ == "__main__":
    main()
