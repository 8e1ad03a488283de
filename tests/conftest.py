"""Put tests/ on sys.path so test modules can `import corpus`, and benchmarks/ so that they
can import the ADBench code the benchmarks run (adbench.gmm; never the benchmarks' peers)."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
# benchmarks/ last: its modules (benchmarks/distributed.py, benchmarks/coverage.py) must not hide
# the installed packages of those names (dask's distributed, which tests/test_distributed.py runs)
_BENCH = os.path.join(os.path.dirname(_HERE), "benchmarks")
if _BENCH not in sys.path:
    sys.path.append(_BENCH)
