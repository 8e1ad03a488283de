"""Put tests/ on sys.path so test modules can `import corpus`, and benchmarks/ so that they
can import the ADBench code the benchmarks run (adbench.gmm; never the benchmarks' peers)."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.join(os.path.dirname(_HERE), "benchmarks"), _HERE):
    if _path not in sys.path:
        sys.path.insert(0, _path)
