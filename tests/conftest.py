"""Put tests/ on sys.path so test modules can `import corpus`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
